// Self-test of the fault-injection harness (support/faults.mjs) on the built extension: a fault
// armed before a page opens or a worker starts fails that context's first call and only as many as
// armed, the call tracker counts a faulted call as settled, the worker's events can be given a
// corrupted argument, the harness's key is never seen by the extension, and the quota messages the
// harness gives are the ones this Chromium gives.
import { test, after, afterEach } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { sharedBrowser } from './support/session.mjs';
import { askWorker, stopServiceWorker } from './support/live.mjs';
import { LIMIT_MS, OPTIONS_STARTUP, trackChromeCalls, waitForSettled, waitUntil } from './support/settle.mjs';
import {
  CORRUPTED, FAILED, FAULTS_KEY, QUOTA_LOCAL, QUOTA_SYNC_ITEM,
  armCorruptEvent, armFault, faultRecord, faultsLeft, installFaultsInPages, releaseFaults, waitForFaultUsed,
} from './support/faults.mjs';

/**
 * The browser the tests share (reset between them, faults released first): none of them stops or
 * breaks the worker but the restart test, which launches its own.
 */
const shared = sharedBrowser({ faults: true });
after(() => shared.close());
afterEach(() => shared.settle());

/** An extension page of the harness's (manifest.json runs none of the extension's code, and is never faulted). */
const harnessPage = (ext) => ext.openPage('manifest.json');

/** Calls `chrome.storage.sync.get('settings')` in `where` (a page or the worker): 'ok', or the rejection's message. */
const syncGet = (where) => where.evaluate(() => chrome.storage.sync.get('settings').then((items) => (items.settings ? 'ok' : 'ok, empty'), (e) => `rejected: ${e.message}`));

test('a fault armed before the options page opens fails its first settings read, and that one only', async () => {
  const ext = await shared.fresh();
  const helper = await harnessPage(ext);
  const key = await armFault(helper, 'options', 'storage.sync.get', { error: FAILED, times: 1 });
  const options = await ext.openOptions();
  await waitForSettled(options, OPTIONS_STARTUP); // the tracker counts the rejected read as settled
  assert.deepEqual(await waitForFaultUsed(helper, key), { error: FAILED, times: 0, used: 1 }, 'its one use taken');
  const record = await faultRecord(options);
  assert.equal(record.context, 'options');
  assert.deepEqual(record.calls[0], { api: 'storage.sync.get', fault: key }, `the page's first wrapped call is the faulted read: ${JSON.stringify(record.calls)}`);
  assert.deepEqual(record.used, [{ key, api: 'storage.sync.get', error: FAILED }]);
  const tracked = await options.evaluate(() => globalThis.__hcCalls);
  assert.equal(tracked.pending, 0);
  assert.equal(tracked.done['storage.sync.get'], record.calls.filter((c) => c.api === 'storage.sync.get').length, 'the tracker saw every read the fault script saw, the faulted one included');
  // The page's own code met the rejection: it says it shows the defaults.
  await options.getByRole('alert').filter({ hasText: /could not be read/ }).waitFor({ timeout: LIMIT_MS });
  assert.equal(await syncGet(options), 'ok', 'the next read reaches the browser');
  assert.deepEqual((await faultRecord(options)).calls.at(-1), { api: 'storage.sync.get', fault: null });
});

/**
 * The worker that runs after `stopped` (stopServiceWorker) once a message woke it: this Playwright
 * keeps one Worker object across the worker's restarts, so the new one is told by its global,
 * which lacks the mark set in the old one.
 */
async function nextWorker(ext, marked) {
  let worker = null;
  await waitUntil(async () => {
    worker = ext.serviceWorker;
    return worker !== null && (await worker.evaluate(() => globalThis.__hcOldWorker !== true).catch(() => false)); // (false while it starts)
  }, 'a new service worker', { describe: () => `marked: ${marked}` });
  return worker;
}

test('a fault armed for the worker applies from the first read of the worker that starts next, until released', async () => {
  const ext = await launchExtension({ faults: true });
  try {
    const helper = await harnessPage(ext);
    await askWorker(helper, { type: 'warm' }); // (the first worker done with its start-up reads)
    await ext.serviceWorker.evaluate(() => {
      globalThis.__hcOldWorker = true;
    });
    const key = await armFault(helper, 'worker', 'storage.sync.get', { error: FAILED, times: null });
    const sw = await stopServiceWorker(ext, helper);
    try {
      const answer = await askWorker(helper, { type: 'warm' }); // wakes a new worker
      assert.ok(answer?.type === 'ready' || answer?.type === 'indexing', `the worker still answers, on the default settings: ${JSON.stringify(answer)}`);
      await sw.running();
      const worker = await nextWorker(ext, true);
      await waitForFaultUsed(helper, key);
      const reads = (await faultRecord(worker)).calls.filter((c) => c.api === 'storage.sync.get');
      assert.ok(reads.length > 0 && reads.every((c) => c.fault === key), `every settings read of the new worker, from its first, failed: ${JSON.stringify(reads)}`);
      assert.equal(await syncGet(worker), `rejected: ${FAILED}`);
      assert.equal(await syncGet(worker), `rejected: ${FAILED}`, 'until released');
      // While it is stored, the extension does not see the harness's key.
      assert.ok((await faultsLeft(helper))[key], 'the fault is stored');
      const seen = await worker.evaluate((k) => Promise.all([chrome.storage.local.get(null), chrome.storage.local.get(k)]), FAULTS_KEY);
      assert.deepEqual(seen.map((items) => FAULTS_KEY in items), [false, false], `the worker's storage.local: ${JSON.stringify(seen)}`);
      await releaseFaults(helper);
      assert.equal(await syncGet(worker), 'ok', 'released');
      assert.deepEqual(await faultsLeft(helper), {});
    } finally {
      await sw.detach();
    }
  } finally {
    await ext.close();
  }
});

test('a corrupted history event reaches every listener of the worker with the corrupted argument, then real ones again', async () => {
  const ext = await shared.fresh();
  const helper = await harnessPage(ext);
  const worker = ext.serviceWorker;
  // Two listeners of the test's own, added as the extension adds its: one decision per event.
  await worker.evaluate(() => {
    const seen = (globalThis.__corruptTest = { a: [], b: [], removed: [] });
    chrome.history.onVisited.addListener((item) => seen.a.push(item));
    chrome.history.onVisited.addListener((item) => seen.b.push(item));
    chrome.history.onVisitRemoved.addListener((removed) => seen.removed.push(removed));
  });
  const seen = () => worker.evaluate(() => globalThis.__corruptTest);
  const waitForSeen = async (what, predicate, description) => {
    await waitUntil(async () => predicate((await seen())[what]), description);
    return (await seen())[what];
  };
  // Opening an extension page in a tab is a visit too: the visits before this one (the pages of
  // the reset, the helper) are delivered before it, so none of them meets the fault armed next.
  const barrier = 'https://faults.example/before';
  await helper.evaluate((url) => chrome.history.addUrl({ url }), barrier);
  const before = (await waitForSeen('b', (items) => items.some((i) => i.url === barrier), 'the visit before the fault')).length;
  const callsBefore = (await faultRecord(worker)).calls.length;
  const first = 'https://faults.example/first';
  const second = 'https://faults.example/second';

  const visited = await armCorruptEvent(helper, 'history.onVisited', 1);
  await helper.evaluate((url) => chrome.history.addUrl({ url }), first);
  await waitForSeen('b', (items) => items.length > before, 'the first visit');
  await helper.evaluate((url) => chrome.history.addUrl({ url }), second);
  await waitForSeen('b', (items) => items.length > before + 1, 'the second visit');
  const { a, b } = await seen();
  assert.deepEqual([a[before], b[before]], [CORRUPTED['history.onVisited'], CORRUPTED['history.onVisited']], 'both listeners got the corrupted visit');
  assert.deepEqual([a[before + 1].url, b[before + 1].url], [second, second], 'the next visit is the real one');
  assert.deepEqual((await faultsLeft(helper))[visited], { corrupt: true, times: 0, used: 1 });

  const removed = await armCorruptEvent(helper, 'history.onVisitRemoved', 1);
  await helper.evaluate((url) => chrome.history.deleteUrl({ url }), first);
  await waitForSeen('removed', (items) => items.length > 0, 'the first removal');
  await helper.evaluate((url) => chrome.history.deleteUrl({ url }), second);
  const removals = await waitForSeen('removed', (items) => items.length > 1, 'the second removal');
  assert.deepEqual(removals[0], CORRUPTED['history.onVisitRemoved']);
  assert.deepEqual(removals[1], { allHistory: false, urls: [second] });
  assert.deepEqual((await faultsLeft(helper))[removed], { corrupt: true, times: 0, used: 1 });
  const calls = (await faultRecord(worker)).calls.slice(callsBefore).filter((c) => c.api.startsWith('history.on'));
  assert.deepEqual(calls, [
    { api: 'history.onVisited', fault: visited },
    { api: 'history.onVisited', fault: null },
    { api: 'history.onVisitRemoved', fault: removed },
    { api: 'history.onVisitRemoved', fault: null },
  ]);
});

test('the extension never sees the harness\'s key: not in storage.local reads, not in storage.onChanged', async () => {
  const ext = await shared.fresh();
  const helper = await harnessPage(ext);
  const key = await armFault(helper, 'popup', 'history.search', { times: 1 }); // (no popup opens: it stays armed)
  const options = await ext.openOptions();
  await waitForSettled(options, OPTIONS_STARTUP);
  await options.evaluate(() => {
    globalThis.__changes = [];
    chrome.storage.onChanged.addListener((changes, area) => globalThis.__changes.push([area, Object.keys(changes)]));
  });
  for (const where of [options, ext.serviceWorker]) {
    const reads = await where.evaluate(async (k) => ({
      all: Object.keys(await chrome.storage.local.get(null)).includes(k),
      named: Object.keys(await chrome.storage.local.get([k, 'other'])).includes(k),
      keys: chrome.storage.local.getKeys ? (await chrome.storage.local.getKeys()).includes(k) : false,
    }), FAULTS_KEY);
    assert.deepEqual(reads, { all: false, named: false, keys: false }, `the harness's key in what ${where.url()} reads`);
  }
  assert.ok((await faultsLeft(helper))[key], 'while it is stored');
  // A change of the harness's key, then one of the extension's: only the second is heard.
  await armFault(helper, 'popup', 'history.search', { times: 2 });
  await helper.evaluate(() => chrome.storage.local.set({ probe: 1 }));
  await options.waitForFunction(() => globalThis.__changes.length > 0, null, { timeout: LIMIT_MS });
  assert.deepEqual(await options.evaluate(() => globalThis.__changes), [['local', ['probe']]]);
});

test('the quota messages the harness gives are the ones this Chromium rejects with', async () => {
  const ext = await shared.fresh();
  const helper = await harnessPage(ext);
  const refused = await helper.evaluate(async () => {
    const message = (write) => write.then(() => 'written', (e) => e.message);
    return {
      local: await message(chrome.storage.local.set({ big: 'x'.repeat(11 * 1024 * 1024) })), // over 10 MB
      syncItem: await message(chrome.storage.sync.set({ big: 'x'.repeat(9000) })), // over 8 KB
    };
  });
  assert.deepEqual(refused, { local: QUOTA_LOCAL, syncItem: QUOTA_SYNC_ITEM });
});

// A launch of its own for this one: its tracker is installed first, so the fault script finds it.
test('the fault script installed after the call tracker says so', async () => {
  const ext = await launchExtension();
  try {
    await trackChromeCalls(ext.context);
    await installFaultsInPages(ext.context);
    const options = await ext.openOptions();
    await waitUntil(() => ext.errors.some((e) => /installed after the chrome\.\* call tracker/.test(e.text)), 'the fault script\'s error', {
      describe: () => JSON.stringify(ext.errors),
    });
    await options.close();
  } finally {
    await ext.close();
  }
});
