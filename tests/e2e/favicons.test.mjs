// Site icons (Options → Show site icons), end to end: the built extension in headless Chromium,
// a seeded real chrome.history. Covered here: without the optional `favicon` permission every row
// shows the neutral placeholder in a 16 × 16 box, and no request goes to the network; the options
// page's checkbox asks Chrome for exactly { permissions: ['favicon'] } (chrome.permissions.request,
// inside the click). Not covered: the granted rows — headless Chromium shows the permission prompt
// with no way to answer it (it stays pending; the harness has no hook to accept it), so the image
// form (chrome-extension://<id>/_favicon/?pageUrl=<encoded>&size=16, http(s) only) is tested in
// the core (display::favicon_url).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { demoHistory } from './support/fixtures.mjs';
import { SEL, ask, openPopup } from './support/popup.mjs';
import { waitForIndex } from './support/live.mjs';
import { LIMIT_MS, flushEvents } from './support/settle.mjs';

const CHECKBOX = 'input[type="checkbox"][aria-label="Show site icons"]';

/** Each result row's icon box, as data. */
async function rowIcons(page) {
  return page.evaluate((sel) => {
    const turn = document.querySelector(sel.turn);
    return [...turn.querySelectorAll('li.result a.result-link')].map((a) => {
      const icon = a.querySelector('.favicon');
      const box = icon?.getBoundingClientRect();
      const title = a.querySelector('span.title').getBoundingClientRect();
      return {
        href: a.getAttribute('href'),
        tag: icon?.tagName ?? null,
        placeholder: icon?.classList.contains('favicon-placeholder') ?? false,
        src: icon?.tagName === 'IMG' ? icon.getAttribute('src') : null,
        alt: icon?.tagName === 'IMG' ? icon.getAttribute('alt') : null,
        loaded: icon?.tagName === 'IMG' ? icon.complete && icon.naturalWidth > 0 : null,
        width: box?.width,
        height: box?.height,
        titleLeft: title.left,
      };
    });
  }, SEL);
}

async function granted(page) {
  return page.evaluate(() => chrome.permissions.contains({ permissions: ['favicon'] }));
}

async function openOptions(ext) {
  const page = await ext.openOptions();
  const box = page.locator(CHECKBOX);
  await box.waitFor({ timeout: LIMIT_MS });
  await page.waitForFunction((sel) => !document.querySelector(sel).disabled, CHECKBOX, { timeout: LIMIT_MS });
  return page;
}

test('site icons: the placeholder without the permission; the checkbox asks Chrome for the favicon permission', { timeout: 240_000 }, async () => {
  const ext = await launchExtension({ history: demoHistory() });
  try {
    const options = await openOptions(ext);
    await waitForIndex(options);
    assert.equal(await granted(options), false, 'not granted at install');
    assert.equal(await options.locator(CHECKBOX).isChecked(), false);

    // Without the permission: placeholders, in the icon's 16×16 box.
    const requestsBefore = ext.extensionRequests().length;
    const popup = await openPopup(ext);
    await ask(popup, 'recursive cte');
    const rows = await rowIcons(popup);
    assert.ok(rows.length > 0);
    for (const row of rows) {
      assert.equal(row.tag, 'SPAN', `${row.href}: a placeholder, no image`);
      assert.ok(row.placeholder, row.href);
      assert.deepEqual([row.width, row.height], [16, 16], `${row.href}: a 16×16 box`);
    }
    await flushEvents(ext, popup);
    assert.deepEqual(ext.extensionRequests().slice(requestsBefore).map((r) => `${r.method} ${r.url}`), [], 'no network request');
    await popup.close();

    // The checkbox asks Chrome for the optional permission, inside the click.
    await options.evaluate(() => {
      const original = chrome.permissions.request.bind(chrome.permissions);
      self.__asked = [];
      chrome.permissions.request = (argument) => {
        self.__asked.push(JSON.parse(JSON.stringify(argument)));
        return original(argument);
      };
    });
    await options.locator(CHECKBOX).click();
    await options.waitForFunction(() => self.__asked.length > 0, null, { timeout: LIMIT_MS });
    assert.deepEqual(await options.evaluate(() => self.__asked), [{ permissions: ['favicon'] }]);
    assert.equal(await granted(options), false, 'nothing is granted while the prompt is unanswered');
  } finally {
    await ext.close();
  }
});
