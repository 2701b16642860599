// The real extension's service worker's memory with 10,000 pages read, beside the same worker with
// none, in one run:
//
//   node --experimental-websocket tests/bench/worker_memory.mjs <records file>
//
// The extension (dist/, or DIST) on a profile seeded with a history of BENCH_ENTRIES (10,000)
// entries — largeHistory's titles and visits, at the records' URLs —, its content access granted
// as a user grants it (e2e support/content_access.mjs) and the content switch turned on as the
// options page does (settings saved, then `setContent`). The records: `content_records`
// (history-chat-core's example, built and run by `scripts/bench worker-memory`), content_bench's
// synthetic pages of ~1,000 words read through the real ContentHost, each page's last record as
// the worker stores it (Record::encode, passages embedded), put into the extension's IndexedDB
// `content` store from an extension page (same origin as the worker).
//
// Each state is measured after a worker start, as a user has it once Chrome restarted the
// worker: every extension page closed, the worker stopped (DevTools protocol
// `ServiceWorker.stopAllWorkers`) and its renderer process gone; then one extension page opened
// (the manifest, as JSON: no script of ours) wakes it, and it is asked until its index is ready
// (`warm`) and its content store is `ready` with the expected pages (`contentState`). Then, on the
// worker's own DevTools session (the browser's endpoint, --remote-debugging-port):
//   wasm    the byteLength of every WebAssembly.Memory in the worker's heap (Runtime.queryObjects):
//           the wasm linear memory, which only grows (so it is also the load's peak);
//   JS heap Runtime.getHeapUsage after HeapProfiler.collectGarbage (used / total);
// and, of the renderer process the worker runs in (the one renderer of the browser's
// SystemInfo.getProcessInfo whose command line has --extension-process): VmRSS (resident),
// RssAnon (its private part: what it allocated, without the mapped binary and fonts) and Pss
// (smaps_rollup: shared pages divided among their sharers). That process also holds the open
// manifest page (its JS heap given beside).
//
// The target is judged on RssAnon: VmRSS counts the Chromium binary's mapped pages, shared with
// every process of the browser (about 116 MB here, more than an empty worker's own memory).
//
// Order: 0 pages first (the same history, content switch on), then the records written, then
// 10,000; BENCH_ROUNDS (default 2) restarts each.
//
// Env: DIST, BENCH_ENTRIES, BENCH_ROUNDS, CHROMIUM (profiles.mjs).
import { readFileSync } from 'node:fs';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchExtension, distDir } from '../e2e/support/launch.mjs';
import { grantContentAccess } from '../e2e/support/content_access.mjs';
import { largeHistory } from '../e2e/support/fixtures.mjs';
import { askWorker, stopServiceWorker, waitForIndex, waitForSnapshot } from '../e2e/support/live.mjs';
import { waitUntil } from '../e2e/support/settle.mjs';
import { fmt, report, table, verdict } from './lib.mjs';
import { connectBrowser, extensionProcess, residentOf } from './process_memory.mjs';

const RECORDS = process.argv[2];
if (!RECORDS) throw new Error('usage: node --experimental-websocket tests/bench/worker_memory.mjs <records file>');
if (typeof WebSocket !== 'function') throw new Error('no WebSocket: run node with --experimental-websocket');
const ENTRIES = Number(process.env.BENCH_ENTRIES || 10_000);
const ROUNDS = Number(process.env.BENCH_ROUNDS || 2);
const TARGET_MB = 150;
const LOAD_LIMIT_MS = 300_000; // a failure limit: the store's load of 10,000 records
const WRITE_BATCH = 250;
const log = (line) => process.stderr.write(`worker-memory: ${line}\n`);
const MB = (bytes) => fmt(bytes / 1e6, 1);
const thousands = (n) => Number(n).toLocaleString('en-US');

/** The records file: [u32 url length, url, u32 record length, record]… */
function readRecords(file) {
  const buffer = readFileSync(file);
  const records = [];
  for (let at = 0; at < buffer.length; ) {
    const urlLength = buffer.readUInt32LE(at);
    const url = buffer.toString('utf8', at + 4, at + 4 + urlLength);
    at += 4 + urlLength;
    const length = buffer.readUInt32LE(at);
    records.push({ url, bytes: buffer.subarray(at + 4, at + 4 + length) });
    at += 4 + length;
  }
  return records;
}

/** The worker's wasm memories and JS heap, on its own DevTools session. */
async function workerMemory(cdp, extensionId) {
  const { targetInfos } = await cdp.send('Target.getTargets');
  const target = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${extensionId}/`));
  if (!target) throw new Error('no service worker target of the extension');
  const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
  try {
    await cdp.send('HeapProfiler.collectGarbage', {}, sessionId);
    const heap = await cdp.send('Runtime.getHeapUsage', {}, sessionId);
    const proto = await cdp.send('Runtime.evaluate', { expression: 'WebAssembly.Memory.prototype' }, sessionId);
    const { objects } = await cdp.send('Runtime.queryObjects', { prototypeObjectId: proto.result.objectId }, sessionId);
    const sizes = await cdp.send(
      'Runtime.callFunctionOn',
      { objectId: objects.objectId, functionDeclaration: 'function () { return this.map((m) => m.buffer.byteLength); }', returnByValue: true },
      sessionId,
    );
    return { heapUsed: heap.usedSize, heapTotal: heap.totalSize, wasm: sizes.result.value };
  } finally {
    await cdp.send('Target.detachFromTarget', { sessionId }).catch(() => {});
  }
}

/** The JS heap of an extension page (its own DevTools session, through Playwright). */
async function pageHeap(ext, page) {
  const session = await ext.context.newCDPSession(page);
  try {
    await session.send('HeapProfiler.collectGarbage');
    return (await session.send('Runtime.getHeapUsage')).usedSize;
  } finally {
    await session.detach().catch(() => {});
  }
}

const contentState = async (page) => (await askWorker(page, { type: 'contentState' }))?.state;

/** The worker restarted with the store holding `pages`: measured once its index and store are ready. */
async function measureRestart(ext, cdp, blank, pages) {
  for (const page of ext.context.pages()) if (page.url().startsWith('chrome-extension://')) await page.close();
  const sw = await stopServiceWorker(ext, blank);
  sw.detach();
  // Its process ends once it holds neither the worker nor a page: the next start is a new one.
  await waitUntil(async () => (await extensionProcess(cdp)) === null, 'the extension renderer gone', { timeout: 30_000 });
  const started = Date.now();
  const helper = await ext.openPage('manifest.json');
  await waitForIndex(helper, LOAD_LIMIT_MS);
  let state;
  await waitUntil(
    async () => {
      state = await contentState(helper);
      return state?.progress?.pages === pages && state.progress.status === 'ready';
    },
    `the content store ready with ${pages} pages`,
    { timeout: LOAD_LIMIT_MS, describe: () => JSON.stringify(state) },
  );
  const readyMs = Date.now() - started;
  const pid = await extensionProcess(cdp);
  if (pid == null) throw new Error('no extension renderer while the worker runs');
  const worker = await workerMemory(cdp, ext.extensionId);
  const resident = residentOf(pid);
  const manifestHeap = await pageHeap(ext, helper);
  const wasm = worker.wasm.reduce((a, b) => a + b, 0);
  log(`${pages} pages: ready in ${readyMs} ms; wasm ${worker.wasm.map(MB).join(' + ')} MB, JS heap ${MB(worker.heapUsed)} MB, ` +
    `renderer ${pid} RSS ${MB(resident.rss)} MB (anon ${MB(resident.anon)}, PSS ${MB(resident.pss)}), manifest page heap ${MB(manifestHeap)} MB`);
  return { pages, readyMs, wasm, wasmParts: worker.wasm, heapUsed: worker.heapUsed, heapTotal: worker.heapTotal, ...resident, manifestHeap, progress: state.progress };
}

/** Puts the records into the extension's `content` store from an extension page, in batches. */
async function writeRecords(ext, records) {
  const page = await ext.openPage('manifest.json');
  try {
    for (let at = 0; at < records.length; at += WRITE_BATCH) {
      const batch = records.slice(at, at + WRITE_BATCH).map((r) => [r.url, r.bytes.toString('base64')]);
      await page.evaluate((batch) => new Promise((resolve, reject) => {
        const open = indexedDB.open('history-chat');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          const transaction = db.transaction('content', 'readwrite');
          const store = transaction.objectStore('content');
          for (const [url, base64] of batch) store.put(Uint8Array.from(atob(base64), (c) => c.charCodeAt(0)), url);
          transaction.oncomplete = () => (db.close(), resolve());
          transaction.onerror = () => (db.close(), reject(transaction.error));
        };
      }), batch);
    }
  } finally {
    await page.close();
  }
}

const records = readRecords(RECORDS);
if (records.length < ENTRIES) throw new Error(`${RECORDS} holds ${records.length} records, fewer than ${ENTRIES}`);
const pages = records.slice(0, ENTRIES);
const recordBytes = pages.reduce((sum, r) => sum + r.bytes.length, 0);
// largeHistory's titles and visits (recent, within Chrome's 90 days), at the pages' URLs.
const history = largeHistory(ENTRIES).map((entry, i) => ({ ...entry, url: pages[i].url }));

// A copy of the build: a concurrent rebuild cannot change it mid-run.
const dist = mkdtempSync(path.join(tmpdir(), 'worker-memory-dist-'));
cpSync(distDir(), dist, { recursive: true });
const ext = await launchExtension({ history, dist, args: ['--remote-debugging-port=0'] });
const results = { none: [], read: [] };
let cdp;
try {
  cdp = await connectBrowser(ext.profileDir);
  await grantContentAccess(ext);
  const helper = await ext.openPage('manifest.json');
  // The switch as the options page turns it on: saved, then the worker told.
  await helper.evaluate(async () => {
    const { settings } = await chrome.storage.sync.get('settings');
    await chrome.storage.sync.set({ settings: { ...settings, readContent: true } });
    await chrome.runtime.sendMessage({ type: 'setContent', enabled: true });
  });
  await waitUntil(
    () => helper.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).length === 1),
    'the page reader registered by the worker',
  );
  const index = await waitForIndex(helper, LOAD_LIMIT_MS);
  log(`index ready: ${index.pages} pages`);
  await waitForSnapshot(helper, LOAD_LIMIT_MS);
  const blank = await ext.context.newPage();
  for (let round = 0; round < ROUNDS; round++) results.none.push(await measureRestart(ext, cdp, blank, 0));
  const started = Date.now();
  await writeRecords(ext, pages);
  log(`${pages.length} records (${MB(recordBytes)} MB) written in ${((Date.now() - started) / 1000).toFixed(0)} s`);
  for (let round = 0; round < ROUNDS; round++) results.read.push(await measureRestart(ext, cdp, blank, pages.length));
  ext.assertNoNetwork();
  ext.assertNoErrors();
} finally {
  cdp?.close();
  await ext.close();
  rmSync(dist, { recursive: true, force: true });
}

/** The median of a field over the rounds (the middle one; the lower of two). */
const mid = (runs, key) => [...runs.map((r) => r[key])].sort((a, b) => a - b)[Math.floor((runs.length - 1) / 2)];
const KEYS = [
  ['wasm', 'wasm linear memory (every WebAssembly.Memory of the worker)'],
  ['heapUsed', 'JS heap used (after a GC)'],
  ['rss', 'renderer process resident (VmRSS)'],
  ['anon', 'renderer process, private resident (RssAnon)'],
  ['pss', 'renderer process, proportional (Pss)'],
  ['manifestHeap', 'the open manifest page\'s JS heap (in that process)'],
];
const rows = KEYS.map(([key, name]) => {
  const none = mid(results.none, key);
  const read = mid(results.read, key);
  return [name, `${MB(none)} MB`, `${MB(read)} MB`, `${MB(read - none)} MB`];
});
const worst = Math.max(...results.read.map((r) => r.anon));
const worstRss = Math.max(...results.read.map((r) => r.rss));
const emptyRss = Math.min(...results.none.map((r) => r.rss));
const last = results.read[results.read.length - 1];
report('worker_memory', `The service worker's memory with ${thousands(pages.length)} pages read`, [
  `The real extension (dist/), history of ${thousands(ENTRIES)} entries, content switch on; records: ${thousands(pages.length)} ` +
    `synthetic pages of ~1,000 words (content_bench's), ${MB(recordBytes)} MB in IndexedDB, ` +
    `${fmt(last.progress.passagesTotal / pages.length, 1)} passages a page, ${fmt(last.progress.passagesEmbedded / pages.length, 1)} embedded. ` +
    `Each state measured after a worker restart in a new renderer process (median of ${ROUNDS}); MB of 10^6 bytes.`,
  table(['after the worker starts', '0 pages read', `${thousands(pages.length)} pages read`, 'the content\'s share'], rows),
  table(['state', 'round', 'ready after start (index and store)', 'wasm', 'JS heap', 'RSS', 'RssAnon', 'Pss'],
    [...results.none.map((r, i) => ['0 pages', i + 1, r]), ...results.read.map((r, i) => [`${thousands(pages.length)} pages`, i + 1, r])].map(
      ([state, round, r]) => [state, round, `${fmt(r.readyMs / 1000, 1)} s`, `${r.wasmParts.map(MB).join(' + ')} MB`, `${MB(r.heapUsed)} / ${MB(r.heapTotal)} MB`, `${MB(r.rss)} MB`, `${MB(r.anon)} MB`, `${MB(r.pss)} MB`],
    )),
  `Target: the worker ≤ ${TARGET_MB} MB with ${thousands(pages.length)} pages read — the private memory of the renderer process it ` +
    `runs in (RssAnon, the highest of the rounds: ${MB(worst)} MB; what Chrome's task manager counts as a process's memory ` +
    `footprint): ${verdict(worst <= TARGET_MB * 1e6)}. Its VmRSS (${MB(worstRss)} MB) also counts the Chromium binary's pages it ` +
    `shares with every other process: ${MB(emptyRss)} MB with no page read.`,
  'Reproduce: `scripts/bench worker-memory` (BENCH_ENTRIES, BENCH_ROUNDS; DIST for another build).',
]);
