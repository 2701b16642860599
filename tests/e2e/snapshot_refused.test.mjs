// The index snapshot when the browser refuses to store it, end to end: the worker's IndexedDB
// writes refused with the browser's QuotaExceededError (support/faults.mjs: the DevTools quota
// override lets a write through when it does not grow what is stored), real chrome.history. The refused save keeps the previous snapshot whole, is logged, and a page
// deleted meanwhile stays deleted after the worker restarts (the journal of removals holds it
// until a save succeeds).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { DAY, HOUR } from './support/fixtures.mjs';
import { askWorker, stopServiceWorker, waitForIndex, waitForSnapshot } from './support/live.mjs';
import { LIMIT_MS, flushEvents, waitForStored, waitUntil } from './support/settle.mjs';
import { armFault, releaseFaults, waitForFaultSeen } from './support/faults.mjs';

const GONE = { url: 'https://recipes.example/cassoulet-de-castelnaudary', title: 'Cassoulet de Castelnaudary, the long way' };
const STAYS = { url: 'https://recipes.example/pissaladiere', title: 'Pissaladière from Nice' };
const JOURNAL = 'removals-pending';

/** The snapshot's bytes as a SHA-256 hex digest (null when there is none), read from an extension page. */
async function snapshotDigest(page) {
  return page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('history-chat');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const get = db.transaction('blobs').objectStore('blobs').get('history-index');
          get.onerror = () => (db.close(), reject(get.error));
          get.onsuccess = async () => {
            db.close();
            if (!get.result) return resolve(null);
            const digest = await crypto.subtle.digest('SHA-256', get.result);
            resolve([...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, '0')).join(''));
          };
        };
      }),
  );
}

async function found(page, query) {
  const answer = await askWorker(page, { type: 'search', query, startMs: 0, limit: 20 });
  assert.equal(answer?.type, 'pages', `the index answers: ${JSON.stringify(answer)}`);
  return answer.pages.map((p) => p.url);
}

test('a snapshot save refused for room keeps the previous snapshot, and a deletion made meanwhile survives a restart', async () => {
  const now = Date.now();
  const ext = await launchExtension({
    faults: true,
    history: [
      { ...GONE, visits: [now - 2 * DAY] },
      { ...STAYS, visits: [now - HOUR] },
    ],
  });
  try {
    const page = await ext.openPage('manifest.json');
    await waitForIndex(page);
    await waitForSnapshot(page);
    assert.ok((await found(page, 'cassoulet')).includes(GONE.url), 'indexed before');
    const before = await snapshotDigest(page);

    // Every write of IndexedDB in the worker is refused as the browser refuses one over quota.
    const fault = await armFault(page, 'worker', 'indexedDB.put', { error: 'The quota has been exceeded.', times: null });
    await waitForFaultSeen(ext.serviceWorker, fault);
    await page.evaluate((url) => chrome.history.deleteUrl({ url }), GONE.url);
    // The removal is journaled before it is applied, then the save is tried and refused.
    await waitForStored(page, (entries) => JSON.stringify(entries ?? []).includes(GONE.url), 'the deletion journaled', { area: 'local', key: JOURNAL });
    await waitUntil(
      () => ext.consoleMessages.some((m) => m.type === 'warning' && /saving the index snapshot failed/.test(m.text)),
      'the refused save logged',
      { describe: () => JSON.stringify(ext.consoleMessages.map((m) => [m.type, m.text.slice(0, 200)])) },
    );
    assert.ok(!(await found(page, 'cassoulet')).includes(GONE.url), 'the deleted page is gone from the index at once');
    assert.equal(await snapshotDigest(page), before, 'the previous snapshot is whole, not half-written');
    // The popup says so (the words still search).
    const popup = await ext.openPopup();
    await popup
      .waitForFunction(() => /index could not be saved: the browser’s storage for this extension is full/.test(document.querySelector('.indexing-note')?.textContent ?? ''), null, { timeout: LIMIT_MS })
      .catch(async (e) => {
        throw new Error(`the popup says the index could not be saved (it shows ${JSON.stringify(await popup.locator('.indexing-note').allTextContents())}): ${e.message}`);
      });
    await popup.close();
    const journal = (await page.evaluate((key) => chrome.storage.local.get(key), JOURNAL))[JOURNAL];
    assert.ok(JSON.stringify(journal).includes(GONE.url), `the journal keeps the deletion the snapshot lacks: ${JSON.stringify(journal)}`);

    // Room again, and the worker started anew (as when the browser is reopened): the old snapshot
    // holds the page, the journal says it went.
    await releaseFaults(page);
    const sw = await stopServiceWorker(ext, page);
    await waitForIndex(page);
    await sw.running();
    sw.detach();
    assert.ok(!(await found(page, 'cassoulet')).includes(GONE.url), 'still deleted after the restart');
    assert.ok((await found(page, 'pissaladiere')).includes(STAYS.url), 'the other page is still there');
    // The next save holds the deletion: the journal empties, and the snapshot no longer names the page.
    await waitForStored(page, (entries) => entries === undefined, 'the journal cleared after a save that holds the deletion', { area: 'local', key: JOURNAL });
    assert.notEqual(await snapshotDigest(page), before, 'a new snapshot was saved');
    await flushEvents(ext, page);
    ext.assertNoErrors();
    ext.assertNoNetwork();
  } finally {
    await ext.close();
  }
});
