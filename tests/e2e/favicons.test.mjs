// Site icons (Options → Show site icons), end to end: the built extension in headless Chromium,
// a seeded real chrome.history. Rules under test: without the optional `favicon` permission every
// row shows the neutral placeholder; once granted through the options page's checkbox (the
// chrome.permissions.request prompt), rows show Chrome's local favicon cache —
// chrome-extension://<id>/_favicon/?pageUrl=<the page's URL, encoded>&size=16 — as a decorative
// <img alt=""> in the same 16 × 16 box (the row's text does not move); unticking gives the
// permission back and rows show the placeholder again. Nothing goes to the network for an icon.
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

test('site icons: placeholder without the permission, the _favicon image once granted, placeholder again once revoked', { timeout: 240_000 }, async () => {
  const ext = await launchExtension({ history: demoHistory() });
  try {
    const options = await openOptions(ext);
    await waitForIndex(options);
    assert.equal(await granted(options), false, 'not granted at install');
    assert.equal(await options.locator(CHECKBOX).isChecked(), false);

    // Without the permission: placeholders.
    const popup = await openPopup(ext);
    await ask(popup, 'recursive cte');
    const before = await rowIcons(popup);
    assert.ok(before.length > 0);
    for (const row of before) {
      assert.equal(row.tag, 'SPAN', `${row.href}: a placeholder, no image`);
      assert.ok(row.placeholder, row.href);
      assert.deepEqual([row.width, row.height], [16, 16], `${row.href}: a 16×16 box`);
    }
    await popup.close();

    // Granted through the options page.
    const requestsBefore = ext.extensionRequests().length;
    await options.locator(CHECKBOX).check();
    await options.locator(SEL.status).filter({ hasText: 'Site icons are shown on results.' }).waitFor({ timeout: LIMIT_MS });
    assert.equal(await granted(options), true, 'the favicon permission is granted');

    const popup2 = await openPopup(ext);
    await ask(popup2, 'recursive cte');
    await popup2.waitForFunction((sel) => [...document.querySelector(sel.turn).querySelectorAll('img.favicon')].every((i) => i.complete), SEL, { timeout: LIMIT_MS });
    const after = await rowIcons(popup2);
    assert.equal(after.length, before.length);
    for (const [i, row] of after.entries()) {
      assert.equal(row.tag, 'IMG', `${row.href}: an image once granted`);
      const src = new URL(row.src);
      assert.equal(`${src.origin}${src.pathname}`, `chrome-extension://${ext.extensionId}/_favicon/`, row.src);
      assert.equal(src.searchParams.get('pageUrl'), row.href, `${row.src}: the page's URL, encoded`);
      assert.equal(src.searchParams.get('size'), '16');
      assert.ok(!row.src.includes(row.href), `${row.src}: the page URL is percent-encoded`);
      assert.equal(row.alt, '', 'decorative: alt=""');
      assert.ok(row.loaded, `${row.href}: Chrome served an icon (its default one when it has none)`);
      assert.deepEqual([row.width, row.height], [16, 16], `${row.href}: the same 16×16 box`);
      assert.equal(row.titleLeft, before[i].titleLeft, `${row.href}: the title does not move`);
    }
    await flushEvents(ext, popup2, options);
    const made = ext.extensionRequests().slice(requestsBefore);
    assert.deepEqual(made.map((r) => `${r.method} ${r.url}`), [], 'no network request for the icons');
    await popup2.close();

    // Revoked: placeholders again.
    await options.locator(CHECKBOX).uncheck();
    await options.locator(SEL.status).filter({ hasText: 'Site icons are off' }).waitFor({ timeout: LIMIT_MS });
    assert.equal(await granted(options), false, 'the permission is given back');
    const popup3 = await openPopup(ext);
    await ask(popup3, 'recursive cte');
    for (const row of await rowIcons(popup3)) {
      assert.ok(row.placeholder && row.tag === 'SPAN', `${row.href}: the placeholder again`);
    }
    await flushEvents(ext, popup3, options);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});
