// The options page's "Page content" section, end to end: the switch is off at install and nothing
// optional is granted; checking it (a real click on the checkbox found by its accessible name)
// asks Chrome for the content access in that click, stores readContent, and the worker registers
// the page reader; the state line shows; the cap saves a good value and refuses a bad one
// (role=alert, nothing stored); a catch-up's plan counts the seeded history's pages of the period
// and names their sites, and Cancel leaves nothing started; unchecking stores false, gives the
// access back and leaves the reader unregistered.
// Not covered: Chrome's prompt itself (headless Chromium cannot answer it, so the hosts are allowed
// in chrome://extensions first, support/content_access.mjs; the extension's own request in the
// click then needs no prompt), a refusal, a catch-up's downloads (the worker's catch-up tests).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { CONTENT_ACCESS, allowSiteAccess, grantContentAccess, grantedPermissions } from './support/content_access.mjs';
import { DAY } from './support/fixtures.mjs';
import { askWorker, waitForIndex } from './support/live.mjs';
import { SEL, alertText, statusText, storageGet } from './support/popup.mjs';
import { LIMIT_MS, OPTIONS_STARTUP, flushEvents, trackChromeCalls, waitForSettled, waitForStored, waitUntil } from './support/settle.mjs';

const INSTALLED = { permissions: ['history', 'offscreen', 'storage'], origins: [] };
const SWITCH = 'Search the content of the pages I visit';
const CAP = "Room the pages' content may take, in MB";

/** Five pages of the last 7 days on two sites, one more 20 days ago (30 days only). */
function history(now) {
  const page = (url, daysAgo) => ({ url, title: url, visits: [now - daysAgo * DAY] });
  return [
    page('https://news.example.org/a', 1),
    page('https://news.example.org/b', 2),
    page('https://news.example.org/c', 3),
    page('https://blog.example.net/x', 1),
    page('https://blog.example.net/y', 5),
    page('https://old.example.com/z', 20),
  ];
}

const contains = (ext, argument) => ext.serviceWorker.evaluate((argument) => chrome.permissions.contains(argument), argument);
/** The reader's registration, from the worker (chrome.scripting exists only with the permission). */
const registered = (ext) => ext.serviceWorker.evaluate(() => chrome.scripting?.getRegisteredContentScripts({ ids: ['reader'] }) ?? null);

test('the content switch asks for the access in its click, has the reader registered, gives it all back; the cap and the catch-up plan', { timeout: 180_000 }, async () => {
  const ext = await launchExtension({ history: history(Date.now()) });
  try {
    await trackChromeCalls(ext.context);
    assert.deepEqual(await grantedPermissions(ext), INSTALLED, 'nothing optional is granted at install');

    const options = await ext.openOptions();
    await options.waitForFunction((sel) => document.querySelector(sel)?.disabled === false, SEL.retention, { timeout: LIMIT_MS });
    await waitForSettled(options, OPTIONS_STARTUP);
    const toggle = options.getByRole('checkbox', { name: SWITCH });
    assert.equal(await toggle.isChecked(), false, 'off by default');
    assert.equal((await storageGet(options, 'sync', 'settings')).settings.readContent, false);
    assert.equal(await options.getByRole('button', { name: /Read the pages of the last/ }).count(), 0, 'no catch-up while off');

    // As a user who allowed the sites in Chrome's prompt (support/content_access.mjs).
    await allowSiteAccess(ext, CONTENT_ACCESS.origins);
    await toggle.click();
    await waitForStored(options, (s) => s?.readContent === true, 'readContent stored as true');
    assert.equal(await contains(ext, CONTENT_ACCESS), true, 'the content access granted in the click');
    let scripts;
    await waitUntil(async () => (scripts = await registered(ext))?.length === 1, 'the worker registers the reader', {
      describe: () => `registered: ${JSON.stringify(scripts)}`,
    });
    assert.deepEqual(scripts[0].matches, ['http://*/*', 'https://*/*']);
    assert.equal(await toggle.isChecked(), true);
    await waitUntil(async () => /pages? read \(/.test(await options.locator('.content-state').textContent()), 'the state line says what is read', {
      describe: () => 'see .content-state',
    });
    await waitUntil(async () => /Reading the pages you visit/.test(await statusText(options)), 'the switch said it is on');

    // The cap: a good value is stored, a bad one refused with nothing stored.
    const cap = options.getByRole('spinbutton', { name: CAP });
    assert.equal(await cap.inputValue(), '500');
    await cap.fill('2000');
    await cap.press('Tab');
    await waitForStored(options, (s) => s?.contentCapMb === 2000, 'contentCapMb stored as 2000');
    let stored = 2000;
    for (const [bad, good] of [['20', 3000], ['20000', 4000]]) {
      await cap.fill(bad);
      await cap.press('Tab');
      await waitUntil(async () => /whole number of MB from 50 to 10,000/.test(await alertText(options)), `${bad} refused with an alert`);
      assert.equal((await storageGet(options, 'sync', 'settings')).settings.contentCapMb, stored, `${bad} not stored`);
      await waitUntil(async () => (await cap.inputValue()) === String(stored), 'the field shows the stored cap again');
      // A good value clears the alert, so the next refusal's alert is its own.
      await cap.fill(String(good));
      await cap.press('Tab');
      await waitForStored(options, (s) => s?.contentCapMb === good, `contentCapMb stored as ${good}`);
      await waitUntil(async () => (await alertText(options)) === '', 'the alert cleared by a good value');
      stored = good;
    }

    // The catch-up: the plan counts the period's pages and names their sites; Cancel starts nothing.
    await waitForIndex(options);
    await options.getByRole('button', { name: 'Read the pages of the last 7 days' }).click();
    const plan = options.getByRole('group', { name: 'Reading the pages again' });
    await plan.waitFor({ timeout: LIMIT_MS });
    const line = await plan.locator('p').textContent();
    assert.match(line, /download 5 pages again from 2 sites \(news\.example\.org: 3, blog\.example\.net: 2\)/, line);
    assert.equal(await plan.getByRole('button', { name: 'Start' }).count(), 1);
    await plan.getByRole('button', { name: 'Cancel' }).click();
    await plan.waitFor({ state: 'detached', timeout: LIMIT_MS });
    const state = await askWorker(options, { type: 'contentState' });
    assert.equal(state.type, 'content');
    assert.equal(state.state.catchUp, undefined, `no catch-up started: ${JSON.stringify(state)}`);
    assert.deepEqual(await storageGet(options, 'local', 'content-catch-up'), {}, 'no catch-up stored');
    await options.getByRole('button', { name: 'Read the pages of the last 30 days' }).click();
    await plan.waitFor({ timeout: LIMIT_MS });
    assert.match(await plan.locator('p').textContent(), /download 6 pages again from 3 sites/);
    await plan.getByRole('button', { name: 'Cancel' }).click();
    await plan.waitFor({ state: 'detached', timeout: LIMIT_MS });

    // Off: stored, the access given back, the reader unregistered.
    await toggle.click();
    await waitForStored(options, (s) => s?.readContent === false, 'readContent stored as false');
    await waitUntil(async () => !(await contains(ext, CONTENT_ACCESS)), 'the content access given back');
    await waitUntil(async () => /Reading pages is off/.test(await statusText(options)), 'the switch said it is off');
    assert.deepEqual(await grantedPermissions(ext), INSTALLED, 'only what the install granted is left');
    assert.equal(await toggle.isChecked(), false);
    assert.equal(await options.getByRole('button', { name: /Read the pages of the last/ }).count(), 0, 'no catch-up while off');
    // chrome.scripting is gone with the permission: granted again (not through the switch, so the
    // worker has no reason to register), it shows that no reader is left registered.
    await grantContentAccess(ext);
    assert.deepEqual(await registered(ext), [], 'the reader was unregistered');

    await flushEvents(ext, options);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});
