// Nothing lost and nothing let through when a read or a write of the browser's storage fails, end
// to end: the built extension with the fault script of support/faults.mjs, which makes chosen
// chrome.storage calls of one context (the popup, the options page, the service worker) reject as
// the browser does. Each test checks that the stored conversation, key and excluded sites are
// exactly as before, that the user was told, and that an excluded site's page stayed hidden.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { waitForInstalledSettings } from './support/session.mjs';
import { DAY, HOUR } from './support/fixtures.mjs';
import { SEL, alertText, ask, hrefs, logEntries, logKey, readTurns, storageGet, storageSet } from './support/popup.mjs';
import { stopServiceWorker, typeSlowly, waitForLive } from './support/live.mjs';
import { submit } from './support/ai.mjs';
import { LIMIT_MS, OPTIONS_STARTUP, POPUP_STARTUP, failedWaiting, flushEvents, trackChromeCalls, waitForSettled, waitForStored, waitUntil } from './support/settle.mjs';
import { FAILED, QUOTA_LOCAL, QUOTA_SYNC_ITEM, armFault, faultsLeft, releaseFaults, waitForFaultUsed } from './support/faults.mjs';

const KEY = 'AIzaSyE2E-failed-reads-key-0123456789ab';
const BANK = { url: 'https://bank.example/statements/october', title: 'October statement — Example Bank' };
const NEWS = { url: 'https://news.example/2026/october-report', title: 'October report: what changed this month' };
/** What the user keeps: forever, a key, one excluded site. */
const STORED_SETTINGS = { defaultPeriod: '7d', retention: 'forever', geminiApiKey: KEY, depth: 'regular', model: '', provider: 'local', semanticSearch: 'off', excludedSites: ['bank.example'], keepForgotten: false, readContent: false, contentCapMb: 500, contentToGemini: false };
const REMEMBERED = 'settings-remembered';

function history(now) {
  return [
    { ...BANK, visits: [now - 2 * HOUR] },
    { ...NEWS, visits: [now - 3 * HOUR] },
  ];
}

const page = (p, atMs) => ({ url: p.url, title: p.title, lastVisitMs: atMs, visitCount: 1 });
const turn = (atMs, question, results) => ({ atMs, question, period: '7d', mode: 'local', results });

/** A browser with the fault script, the user's settings stored and remembered by the worker, and two saved turns. */
async function launchWithConversation() {
  const now = Date.now();
  const ext = await launchExtension({ history: history(now), faults: true });
  await trackChromeCalls(ext.context);
  const setup = await ext.context.newPage();
  await setup.goto(ext.url('manifest.json'));
  await waitForInstalledSettings(setup);
  await storageSet(setup, 'sync', { settings: STORED_SETTINGS });
  // The worker takes the change from chrome.storage.onChanged and remembers what it filters with.
  await waitForStored(setup, (r) => r?.excludedSites?.includes('bank.example'), 'the worker remembered the excluded sites', { area: 'local', key: REMEMBERED });
  const old = logKey(now - 60 * DAY, 'old00001');
  const recent = logKey(now - HOUR, 'recent01');
  await storageSet(setup, 'local', {
    [old]: turn(now - 60 * DAY, 'asked sixty days ago', [page(NEWS, now - 61 * DAY)]),
    [recent]: turn(now - HOUR, 'october statement', [page(BANK, now - 2 * HOUR), page(NEWS, now - 3 * HOUR)]),
  });
  return { ext, setup, now };
}

/** Everything stored, but the harness's own key. */
async function stored(p) {
  const [local, sync] = await Promise.all([storageGet(p, 'local'), storageGet(p, 'sync')]);
  delete local['hc-test-faults'];
  return { local, sync };
}

async function openPage(ext, file) {
  const p = await ext.context.newPage();
  await p.goto(ext.url(file));
  return p;
}

async function waitForAlert(p, re, what) {
  await p
    .waitForFunction(([sel, source]) => [...document.querySelectorAll(sel)].some((e) => new RegExp(source).test(e.textContent)), [SEL.alert, re.source], { timeout: LIMIT_MS })
    .catch(async (e) => {
      throw new Error(`${what}: the alert says ${JSON.stringify(await alertText(p))} (${e.message})`);
    });
}

test('the popup: settings that cannot be read prune nothing, and the remembered excluded sites stay hidden', async () => {
  const { ext, setup } = await launchWithConversation();
  try {
    const before = await stored(setup);
    // Both of the popup's reads of the settings fail (the shell's and the conversation's).
    const fault = await armFault(setup, 'popup', 'storage.sync.get', { times: null });
    const popup = await openPage(ext, 'popup.html');
    await waitForFaultUsed(setup, fault, { uses: 2 });
    await waitForSettled(popup, ['storage.local.get']);
    await waitForAlert(popup, /settings could not be read/, 'the popup says the settings could not be read');
    const turns = await readTurns(popup);
    assert.deepEqual(turns.map((t) => t.question), ['october statement', 'asked sixty days ago'], 'the sixty-day-old turn is shown: nothing pruned with a retention nobody read');
    assert.ok(!hrefs(turns[0]).includes(BANK.url), `the excluded bank's page stays hidden: ${JSON.stringify(hrefs(turns[0]))}`);
    assert.ok(hrefs(turns[0]).includes(NEWS.url));
    assert.deepEqual(await stored(setup), before, 'nothing stored changed');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

test('the popup: with nothing remembered either, the conversation is withheld, not deleted', async () => {
  const { ext, setup } = await launchWithConversation();
  try {
    await setup.evaluate((key) => chrome.storage.local.remove(key), REMEMBERED);
    const before = await stored(setup);
    await armFault(setup, 'popup', 'storage.sync.get', { times: null });
    const popup = await openPage(ext, 'popup.html');
    await waitForAlert(popup, /saved conversation is not shown/, 'the popup says why the conversation is not shown');
    await waitForSettled(popup, ['storage.local.get']);
    assert.deepEqual((await readTurns(popup)).map((t) => t.question), [], 'no turn shown: any might show an excluded page');
    assert.deepEqual(await stored(setup), before, 'nothing stored changed');
    await releaseFaults(setup);
    const again = await openPage(ext, 'popup.html');
    await waitForSettled(again, POPUP_STARTUP);
    const turns = await readTurns(again);
    assert.deepEqual(turns.map((t) => t.question), ['october statement', 'asked sixty days ago'], 'read again, the conversation is all there');
    assert.ok(!hrefs(turns[0]).includes(BANK.url));
    await flushEvents(ext, popup, again);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

test('the options page: a failed read saves nothing, says so, and Try again reads them; a change then writes only its field', async () => {
  const { ext, setup } = await launchWithConversation();
  try {
    const before = await stored(setup);
    await armFault(setup, 'options', 'storage.sync.get', { times: 1 });
    const options = await openPage(ext, 'options.html');
    await waitForAlert(options, /settings could not be read/, 'the options page says the settings could not be read');
    await waitForSettled(options, OPTIONS_STARTUP);
    assert.equal(await options.locator(SEL.retention).isDisabled(), true, 'the controls stay disabled: nothing can be changed from settings nobody read');
    assert.equal(await options.locator('input[placeholder="AIza…"]').inputValue(), '', 'no key shown: none was read');
    assert.deepEqual(await stored(setup), before, 'nothing stored changed');

    await options.getByRole('button', { name: 'Try again' }).click();
    await options.waitForFunction((sel) => document.querySelector(sel)?.disabled === false, SEL.retention, { timeout: LIMIT_MS }).catch(async (e) => {
      throw new Error(`the settings read on Try again (alert: ${JSON.stringify(await alertText(options))}, faults: ${JSON.stringify(await faultsLeft(setup))}): ${e.message}`);
    });
    assert.equal(await options.locator(SEL.retention).inputValue(), 'forever', 'the stored retention is shown');
    // Another page changes a field meanwhile: a change here must not write this page's copy of it.
    await storageSet(setup, 'sync', { settings: { ...STORED_SETTINGS, excludedSites: ['bank.example', 'casino.example'] } });
    await options.locator(SEL.retention).selectOption('90d');
    const after = await waitForStored(setup, (s) => s?.retention === '90d', 'the retention stored');
    assert.deepEqual(after, { ...STORED_SETTINGS, retention: '90d', excludedSites: ['bank.example', 'casino.example'] }, 'the one field changed; the key and the other page\'s excluded sites kept');
    await flushEvents(ext, options);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

test('the options page: a write refused for room says so and keeps what was stored', async () => {
  const { ext, setup } = await launchWithConversation();
  try {
    const options = await openPage(ext, 'options.html');
    await options.waitForFunction((sel) => document.querySelector(sel)?.disabled === false, SEL.retention, { timeout: LIMIT_MS });
    const before = await stored(setup);
    const fault = await armFault(setup, 'options', 'storage.sync.set', { error: QUOTA_SYNC_ITEM, times: 1 });
    await options.locator(SEL.retention).selectOption('1d');
    await waitForFaultUsed(setup, fault);
    await waitForAlert(options, /no room/, 'the options page says the settings have no room');
    assert.deepEqual(await stored(setup), before, 'the stored settings are as before');
    await waitUntil(async () => (await options.locator(SEL.retention).inputValue()) === 'forever', 'the control shows the stored retention again', {
      describe: () => 'the retention select still shows the refused value',
    });
    await flushEvents(ext, options);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

test('the worker: settings unreadable at its start, it searches with the remembered excluded sites', async () => {
  const { ext, setup } = await launchWithConversation();
  try {
    const fault = await armFault(setup, 'worker', 'storage.sync.get', { times: null });
    const sw = await stopServiceWorker(ext, setup);
    const popup = await openPage(ext, 'popup.html');
    await sw.running();
    sw.detach();
    await waitForFaultUsed(setup, fault);
    await popup.locator(SEL.search).waitFor();
    await typeSlowly(popup, 'october');
    // The index's answer comes whole (topic search is off): once it shows the other page, it is all.
    const live = await waitForLive(popup, (l) => l.hrefs.includes(NEWS.url), 'the other page, found by the index');
    assert.ok(!live.hrefs.includes(BANK.url), `the excluded bank's page is never shown: ${JSON.stringify(live.hrefs)}`);
    // A committed question needs the key, which only the settings hold: refused, and said.
    await submit(popup, 'october');
    await waitForAlert(popup, /could not read its settings/, 'the popup says the search could not start, and why');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

test('the worker: with nothing remembered it shows no page, says why, and recovers by itself', async () => {
  const { ext, setup } = await launchWithConversation();
  try {
    await setup.evaluate((key) => chrome.storage.local.remove(key), REMEMBERED);
    const fault = await armFault(setup, 'worker', 'storage.sync.get', { times: null });
    const sw = await stopServiceWorker(ext, setup);
    const popup = await openPage(ext, 'popup.html');
    await sw.running();
    sw.detach();
    await waitForFaultUsed(setup, fault);
    await popup.locator(SEL.search).waitFor();
    await submit(popup, 'october');
    await waitForAlert(popup, /could not read its settings/, 'the popup says why nothing is searched');
    assert.deepEqual((await readTurns(popup)).map((t) => t.question), ['october statement', 'asked sixty days ago'], 'no turn added, none lost');
    // The worker reads again by itself (a second, then doubling): once the fault is gone, it answers.
    await releaseFaults(setup);
    await waitForStored(setup, (r) => r?.excludedSites?.includes('bank.example'), 'the worker read the settings again and remembered them', { area: 'local', key: REMEMBERED });
    const answer = await ask(popup, 'october report');
    assert.ok(hrefs(answer).includes(NEWS.url), `found once the settings are read: ${JSON.stringify(hrefs(answer))}`);
    assert.ok(!hrefs(answer).includes(BANK.url));
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

test('the conversation: an answer refused for room says so, and the stored conversation is as before', async () => {
  const { ext, setup } = await launchWithConversation();
  try {
    const popup = await openPage(ext, 'popup.html');
    await waitForSettled(popup, POPUP_STARTUP);
    const before = await logEntries(setup);
    const fault = await armFault(setup, 'worker', 'storage.local.set', { error: QUOTA_LOCAL, times: null });
    const answer = await ask(popup, 'october report');
    assert.ok(hrefs(answer).includes(NEWS.url), 'the answer is shown');
    await waitForFaultUsed(setup, fault);
    await waitForAlert(popup, /could not be saved \(the browser's storage for this extension is full\)/, 'the popup says the answer could not be saved, and why');
    assert.deepEqual(await logEntries(setup), before, 'the stored conversation is exactly as before');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

test('the conversation: a read that fails deletes nothing and says so', async () => {
  const { ext, setup } = await launchWithConversation();
  try {
    const before = await stored(setup);
    await armFault(setup, 'popup', 'storage.local.get', { error: FAILED, times: 1 });
    const popup = await openPage(ext, 'popup.html');
    await waitForAlert(popup, /conversation could not be loaded/, 'the popup says the conversation could not be loaded');
    assert.match(await alertText(popup), /Chrome refused chrome\.storage\.local\.get/, 'the reason is worded by the catalogue, not the browser\'s own words');
    assert.deepEqual(await stored(setup), before, 'nothing stored changed');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  } finally {
    await ext.close();
  }
});

