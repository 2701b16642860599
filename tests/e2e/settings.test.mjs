// Settings (chrome.storage.sync), the options page, and retention of the conversation log.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { sharedBrowser } from './support/session.mjs';
import { waitForInstalledSettings } from './support/ai.mjs';
import { DAY, HOUR, demoHistory } from './support/fixtures.mjs';
import { SEL, alertText, ask, logEntries, logKey, openPopup, readTurns, statusText, storageGet, storageSet } from './support/popup.mjs';
import { LIMIT_MS, OPTIONS_STARTUP, POPUP_STARTUP, flushEvents, trackChromeCalls, waitForSettled, waitForStored, waitUntil, checkedBelow, failedWaiting } from './support/settle.mjs';

/**
 * The browser most tests share, over the demo history, reset between them (support/session.mjs).
 * The test of the install-time write and the one that sets the browser's clock launch their own.
 */
const shared = sharedBrowser({ history: demoHistory() });
after(() => shared.close());

/** A browser of its own, with the chrome.* call tracker in every page it opens (see support/settle.mjs). */
async function launch(opts) {
  const ext = await launchExtension(opts);
  await trackChromeCalls(ext.context);
  return ext;
}

/** The options page has read the settings: its controls are enabled and show them. */
async function waitForOptionsLoaded(page) {
  await page.waitForFunction((sel) => document.querySelector(sel)?.disabled === false, SEL.retention, { timeout: LIMIT_MS });
  await waitForSettled(page, OPTIONS_STARTUP);
}

async function readSettings(page) {
  return (await storageGet(page, 'sync', 'settings')).settings;
}

async function waitForSaved(page) {
  try {
    await page.waitForFunction((sel) => [...document.querySelectorAll(sel)].some((e) => /saved/i.test(e.textContent)), SEL.status, { timeout: LIMIT_MS });
  } catch {
    throw new Error(`the options page's role=status should say "Saved" after a change; it says ${JSON.stringify(await statusText(page))}`);
  }
}

async function waitForSetting(page, key, value) {
  await waitForStored(page, (settings) => settings?.[key] === value, `settings.${key} stored as ${JSON.stringify(value)}`);
}

test('on install, the service worker writes default settings to chrome.storage.sync', async () => {
  const ext = await launch();
  try {
    // No extension page has been opened yet: only the worker could have written them.
    const page = await ext.context.newPage();
    await page.goto(ext.url('manifest.json')); // a page of the extension's origin that runs none of its code
    await waitForInstalledSettings(page);
    const settings = await readSettings(page);
    assert.ok(settings, 'chrome.storage.sync has no "settings" after install');
    assert.equal(settings.defaultPeriod, '7d', `default period: ${JSON.stringify(settings)}`);
    assert.equal(settings.retention, '30d', `default retention: ${JSON.stringify(settings)}`);
    await flushEvents(ext, page);
    ext.assertNoErrors();
    ext.assertNoNetwork();
  } finally {
    await ext.close();
  }
});

test('options: changes save immediately ("Saved"), and the popup starts on the chosen period', async () => {
  const ext = await shared.fresh();
  try {
    const options = await ext.openOptions();
    const period = options.locator(SEL.defaultPeriod);
    const retention = options.locator(SEL.retention);
    await period.waitFor({ timeout: LIMIT_MS });
    assert.deepEqual(await period.locator('option').evaluateAll((os) => os.map((o) => o.value)), ['24h', '7d', '30d', '90d']);
    assert.deepEqual(await retention.locator('option').evaluateAll((os) => os.map((o) => o.value)), ['1d', '7d', '30d', '90d', 'forever']);
    await waitForOptionsLoaded(options);
    assert.equal(await period.inputValue(), '7d', 'options shows the default period 7d');
    assert.equal(await retention.inputValue(), '30d', 'options shows the default retention 30d');

    await period.selectOption('30d');
    await waitForSaved(options);
    await waitForSetting(options, 'defaultPeriod', '30d');
    assert.equal((await readSettings(options)).defaultPeriod, '30d', 'defaultPeriod saved to chrome.storage.sync');

    // A fresh options page, so "Saved" cannot be left over from the first change.
    await options.close();
    const options2 = await ext.openOptions();
    const retention2 = options2.locator(SEL.retention);
    await retention2.waitFor({ timeout: LIMIT_MS });
    await options2.waitForFunction((sel) => document.querySelector(sel).value === '30d', SEL.defaultPeriod, { timeout: LIMIT_MS }).catch(checkedBelow);
    assert.equal(await options2.locator(SEL.defaultPeriod).inputValue(), '30d', 'reopened options shows the saved default period');
    assert.doesNotMatch(await statusText(options2), /saved/i, 'a freshly opened options page does not claim "Saved"');
    await retention2.selectOption('forever');
    await waitForSaved(options2);
    await waitForSetting(options2, 'retention', 'forever');
    const saved = await readSettings(options2);
    assert.equal(saved.retention, 'forever', 'retention saved to chrome.storage.sync');
    assert.equal(saved.defaultPeriod, '30d', 'saving retention keeps the default period');

    const popup = await openPopup(ext);
    await popup.waitForFunction((sel) => document.querySelector(sel).value === '30d', SEL.period, { timeout: LIMIT_MS }).catch(checkedBelow);
    assert.equal(await popup.locator(SEL.period).inputValue(), '30d', 'the popup starts on the default period chosen in options');
    await waitForSettled(popup, POPUP_STARTUP);
    await flushEvents(ext, popup, options2);
    ext.assertNoErrors();
    ext.assertNoNetwork();
  } finally {
    await shared.settle();
  }
});

test('unknown fields in settings are ignored', async () => {
  const ext = await shared.fresh();
  try {
    const options = await ext.openOptions();
    // The worker's install-time read-modify-write of the settings must not overwrite ours.
    await waitForInstalledSettings(options);
    await storageSet(options, 'sync', { settings: { defaultPeriod: '24h', retention: '7d', someFutureField: { x: 1 }, depth: { unknown: 'shape' } } });
    const popup = await openPopup(ext);
    // The popup reads its settings after it shows the search box.
    await popup.waitForFunction((sel) => document.querySelector(sel)?.value === '24h', SEL.period, { timeout: LIMIT_MS }).catch(checkedBelow);
    assert.equal(await popup.locator(SEL.period).inputValue(), '24h', 'known fields are applied despite unknown ones');
    await waitForSettled(popup, POPUP_STARTUP);
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await shared.settle();
  }
});

test('retention removes old messages when the popup opens', async () => {
  const ext = await shared.fresh();
  try {
    const now = Date.now();
    const setup = await ext.context.newPage();
    await setup.goto(ext.url('manifest.json'));
    const turn = (atMs, question) => ({ atMs, question, period: '7d', mode: 'local', results: [] });
    const oldKey = logKey(now - 40 * DAY, 'old00001');
    const recentKey = logKey(now - 2 * DAY, 'recent01');
    const justKey = logKey(now - HOUR, 'recent02');
    await storageSet(setup, 'local', {
      [oldKey]: turn(now - 40 * DAY, 'asked forty days ago'),
      [recentKey]: turn(now - 2 * DAY, 'asked two days ago'),
      [justKey]: turn(now - HOUR, 'asked an hour ago'),
    });
    // The worker's install-time write of default settings must land before ours (see ai.mjs).
    await waitForInstalledSettings(setup);
    await storageSet(setup, 'sync', { settings: { defaultPeriod: '7d', retention: '30d' } });

    const popup = await openPopup(ext);
    // The popup has read the conversation and deleted the expired turns (before showing the rest).
    await waitForSettled(popup, POPUP_STARTUP);
    const questions = (await readTurns(popup)).map((t) => t.question);
    assert.deepEqual(questions, ['asked an hour ago', 'asked two days ago'], 'with 30-day retention: the 40-day-old turn is gone, the others shown newest first');
    const keys = (await logEntries(popup)).map((e) => e.key);
    assert.deepEqual(keys, [recentKey, justKey], 'the 40-day-old entry is deleted from chrome.storage.local');
    await popup.close();

    // Tighten retention in the options page: 1 day.
    const options = await ext.openOptions();
    await waitForOptionsLoaded(options);
    await options.locator(SEL.retention).selectOption('1d');
    await waitForSaved(options);
    await waitForSetting(options, 'retention', '1d');
    const again = await openPopup(ext);
    await waitForSettled(again, POPUP_STARTUP);
    assert.deepEqual((await readTurns(again)).map((t) => t.question), ['asked an hour ago'], 'with 1-day retention only the last hour remains');
    assert.deepEqual((await logEntries(again)).map((e) => e.key), [justKey]);
    await flushEvents(ext, again, options);
    ext.assertNoErrors();
  } finally {
    await shared.settle();
  }
});

test('retention: a question asked (per the clock) 40 days ago is gone at the next opening', async () => {
  const ext = await launch({ history: demoHistory() });
  try {
    // Playwright's clock is per browser context: every extension page sees the same fake time.
    const past = await ext.context.newPage();
    await ext.context.clock.install({ time: Date.now() - 40 * DAY });
    await past.goto(ext.url('popup.html'));
    await past.locator(SEL.search).waitFor();
    await ask(past, 'asked in the past');
    const stored = (await logEntries(past)).find((e) => e.question === 'asked in the past');
    assert.ok(stored, 'the question was logged');
    assert.ok(Date.now() - stored.atMs > 39 * DAY, `atMs comes from the page clock (got ${new Date(stored.atMs).toISOString()})`);
    await past.close();

    await ext.context.clock.setSystemTime(Date.now()); // back to the present
    const popup = await openPopup(ext);
    await waitForSettled(popup, POPUP_STARTUP); // the conversation is read and the expired turn deleted
    assert.deepEqual((await readTurns(popup)).map((t) => t.question), [], 'the 40-day-old question is not shown');
    assert.deepEqual((await logEntries(popup)).map((e) => e.question), [], 'and is deleted from storage');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

test('options: "Clear conversation" empties the log', async () => {
  const ext = await shared.fresh();
  try {
    const popup = await openPopup(ext);
    await ask(popup, 'flatmap');
    await popup.close();
    const options = await ext.openOptions();
    await options.getByRole('button', { name: 'Clear conversation', exact: true }).click();
    await waitUntil(async () => (await logEntries(options)).length === 0, 'the conversation cleared').catch(checkedBelow);
    assert.deepEqual((await logEntries(options)).map((e) => e.key), [], 'no log:… key after clearing from options');
    const again = await openPopup(ext);
    await waitForSettled(again, POPUP_STARTUP); // it has read the (empty) conversation
    assert.deepEqual((await readTurns(again)).map((t) => t.question), []);
    await flushEvents(ext, again, options);
    ext.assertNoErrors();
  } finally {
    await shared.settle();
  }
});

test('invalid setting values fall back to the defaults without an error', async () => {
  const ext = await shared.fresh();
  try {
    const setup = await ext.openPage('manifest.json');
    // The worker's install-time write of default settings must land before ours (see ai.mjs).
    await waitForInstalledSettings(setup);
    await storageSet(setup, 'sync', { settings: { defaultPeriod: '2 weeks', retention: 12 } });
    const popup = await openPopup(ext);
    await waitForSettled(popup, POPUP_STARTUP); // it has read (and applied) the settings
    assert.equal(await popup.locator(SEL.period).inputValue(), '7d', 'an unknown period falls back to 7d');
    const options = await ext.openOptions();
    await waitForOptionsLoaded(options);
    assert.equal(await options.locator(SEL.defaultPeriod).inputValue(), '7d');
    assert.equal(await options.locator(SEL.retention).inputValue(), '30d', 'an unreadable retention shows the default 30d');
    await flushEvents(ext, popup, options);
    ext.assertNoErrors();
  } finally {
    await shared.settle();
  }
});

test('a corrupted conversation entry does not break the popup; the others are shown', async () => {
  const ext = await shared.fresh();
  try {
    const now = Date.now();
    const setup = await ext.openPage('manifest.json');
    await storageSet(setup, 'local', {
      [logKey(now - 2 * HOUR, 'broken01')]: 'not an object',
      [logKey(now - HOUR, 'broken02')]: { atMs: 'yesterday', results: 7 },
      [logKey(now - 30 * 60_000, 'good0001')]: { atMs: now - 30 * 60_000, question: 'still here', period: '7d', mode: 'local', results: [] },
      unrelatedKey: { hello: 'world' },
    });
    const popup = await openPopup(ext);
    await waitForSettled(popup, POPUP_STARTUP); // the conversation is read
    const questions = (await readTurns(popup)).map((t) => t.question);
    assert.ok(questions.includes('still here'), `the valid turn is shown; questions: ${JSON.stringify(questions)}`);
    assert.equal(await alertText(popup), '', 'no alert for a corrupted entry');
    await ask(popup, 'anything');
    assert.equal((await storageGet(popup, 'local', 'unrelatedKey')).unrelatedKey?.hello, 'world', 'keys that are not log:… are left alone');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await shared.settle();
  }
});

test('retention "forever" keeps old messages', async () => {
  const ext = await shared.fresh();
  try {
    const now = Date.now();
    const setup = await ext.openPage('manifest.json');
    const oldKey = logKey(now - 400 * DAY, 'ancient1');
    await storageSet(setup, 'local', { [oldKey]: { atMs: now - 400 * DAY, question: 'asked last year', period: '90d', mode: 'local', results: [] } });
    // The worker's install-time write of default settings must land before ours (see ai.mjs).
    await waitForInstalledSettings(setup);
    await storageSet(setup, 'sync', { settings: { defaultPeriod: '7d', retention: 'forever' } });
    const popup = await openPopup(ext);
    await waitForSettled(popup, POPUP_STARTUP);
    assert.deepEqual((await readTurns(popup)).map((t) => t.question), ['asked last year']);
    assert.deepEqual((await logEntries(popup)).map((e) => e.key), [oldKey]);
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await shared.settle();
  }
});

test('stored failures and notes are worded when shown, for the engine that answered; earlier versions\' shapes and sentences show as they did', async () => {
  const ext = await shared.fresh();
  try {
    const now = Date.now();
    const setup = await ext.openPage('manifest.json');
    const turn = (minutesAgo, question, fields) => ({
      [logKey(now - minutesAgo * 60_000, `typed${String(minutesAgo).padStart(3, '0')}`)]: {
        atMs: now - minutesAgo * 60_000, question, period: '7d', results: [], ...fields,
      },
    });
    // This version's shape (externally tagged), and the earlier one ("kind", "why"; sentences).
    await storageSet(setup, 'local', {
      ...turn(55, 'cancelled now', { mode: 'gemini', error: 'cancelled', ai: { depth: 'regular', notices: ['cut'] } }),
      ...turn(50, 'not downloaded', { mode: 'local', note: { fallback: { onDeviceNotReady: { availability: 'downloadable' } } } }),
      ...turn(45, 'stopped', { mode: 'onDevice', error: { kind: 'interrupted' } }),
      ...turn(40, 'on device timed out', { mode: 'onDevice', error: { kind: 'model', failure: { kind: 'timeout' } }, ai: { depth: 'regular', notices: [] } }),
      ...turn(30, 'gemini timed out', { mode: 'gemini', error: { kind: 'model', failure: { kind: 'timeout' } }, ai: { depth: 'regular', notices: [{ kind: 'unranked' }] } }),
      ...turn(20, 'no key', { mode: 'local', note: { kind: 'fallback', why: 'noApiKey' } }),
      ...turn(10, 'from an older version', { mode: 'gemini', error: 'An older sentence, kept as written.', ai: { depth: 'regular', notices: ['An older notice.'] } }),
    });
    const popup = await openPopup(ext);
    await waitForSettled(popup, POPUP_STARTUP);
    const notices = await popup.evaluate(() => Object.fromEntries([...document.querySelectorAll('article.turn')].map((t) => [
      t.querySelector('p.question')?.textContent.trim(),
      [...t.querySelectorAll('p.notice, button.link')].map((p) => p.textContent.trim()),
    ])));
    assert.deepEqual(notices['cancelled now'], ['Search cancelled.', "The model's answer was cut short; showing the picks it completed."], JSON.stringify(notices));
    assert.deepEqual(notices['not downloaded'], ["Chrome's built-in AI model is not downloaded yet. Searched locally.", 'Nothing in the last 7 days matches “not downloaded” — try the last 30 days.'], JSON.stringify(notices));
    assert.deepEqual(notices['stopped'], ['The search stopped before it ended: Chrome stopped the extension while it ran. Ask again with Retry.', 'Retry'], JSON.stringify(notices));
    assert.deepEqual(notices['on device timed out'], ["Chrome's built-in model took too long to answer. Try again."], JSON.stringify(notices));
    assert.deepEqual(notices['gemini timed out'], ['Gemini took too long to answer. Try again.', 'Showing the first 5 matches, not ranked by the model.'], JSON.stringify(notices));
    assert.deepEqual(notices['no key'], ['No Gemini API key is set: add one in Options. Searched locally.', 'Nothing in the last 7 days matches “no key” — try the last 30 days.'], JSON.stringify(notices));
    assert.deepEqual(notices['from an older version'], ['An older sentence, kept as written.', 'An older notice.'], JSON.stringify(notices));
    assert.equal(await alertText(popup), '', 'stored turns raise no alert');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await shared.settle();
  }
});
