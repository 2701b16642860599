// The page reader's memory over 50 scanned PDFs read by OCR, in the real extension, as a user gets
// them read:
//
//   node --experimental-websocket tests/bench/ocr_memory.mjs     (scripts/bench ocr-memory)
//
// The extension (dist/, or DIST) on a fresh profile, topic search on as installed; the content
// access and the bookmarks' permission granted as a user grants them; 50 distinct one-page scans
// (support/reader_pages.mjs: text drawn by the browser, a JPEG over the page, as a scanner's PDF)
// served from 127.0.0.1 (every other host unresolvable) and bookmarked; page content turned on;
// then the options page's "Read my bookmarked pages" and Start, clicked. The extension downloads
// each scan, reads it by OCR in its offscreen document and stores and embeds its passages (the
// background work a user has). When 1, 5, 10, 20, 30, 40 and 50 are done (the worker's content
// state), and at the end after a garbage collection of the offscreen document, of the extension's
// renderer process (the offscreen document, pdf.js's and tesseract's dedicated workers, the
// embedding model's, the service worker): its threads (a dedicated worker left running is one
// more), RssAnon (what it allocated), RssShmem (memory it shares with the browser: bitmaps,
// canvases) and Pss (/proc). The reader is released after each document (its pdf.js worker
// destroyed, its tesseract worker terminated): the threads must come back and the memory not grow
// with the PDFs read.
//
// Env: DIST, BENCH_PDFS (50), CHROMIUM (profiles.mjs).
import { launchExtension } from '../e2e/support/launch.mjs';
import { grantContentAccess } from '../e2e/support/content_access.mjs';
import { grantBookmarks } from '../e2e/support/browser_access.mjs';
import { contentState, turnReadingOn } from '../e2e/support/catch_up.mjs';
import { localServer } from '../e2e/support/reader.mjs';
import { scanImage, scannedPdf } from '../e2e/support/reader_pages.mjs';
import { LIMIT_MS, waitUntil } from '../e2e/support/settle.mjs';
import { fmt, report, table } from './lib.mjs';
import { connectBrowser, extensionProcess, residentOf, threadsOf } from './process_memory.mjs';

if (typeof WebSocket !== 'function') throw new Error('no WebSocket: run node with --experimental-websocket');
const PDFS = Number(process.env.BENCH_PDFS || 50);
const MEASURED = [1, 5, 10, 20, 30, 40, PDFS].filter((n, i, all) => n <= PDFS && all.indexOf(n) === i);
/** A failure limit only: how long the run may take before the bench gives up. */
const RUN_LIMIT_MS = 30 * 60_000;
const log = (line) => process.stderr.write(`ocr-memory: ${line}\n`);
const MB = (bytes) => fmt(bytes / 1e6, 1);

/** A scan's lines: over 40 words (a page shorter than that is not kept), its number in the first. */
function scanLines(n) {
  return [
    `Inspection report number ${n} for the north quay`,
    `The harbour master found ${n} bollards that need replacing`,
    'Two mooring rings on the east wall are cracked',
    'The lamp on the breakwater was repainted in March',
    'Tide gauges were checked and cleaned by the crew',
    'The slipway needs new timber before the winter storms',
    'Signed by the harbour master and the port engineer',
  ];
}

const routes = {};
const server = await localServer(routes);
const ext = await launchExtension({
  topics: true,
  pastGrants: ['bookmarks'],
  args: ['--remote-debugging-port=0', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'],
});
let cdp;
try {
  await grantContentAccess(ext);
  await grantBookmarks(ext);
  cdp = await connectBrowser(ext.profileDir);
  const page = await ext.openPage('manifest.json'); // an extension-origin page running none of its code
  for (let n = 1; n <= PDFS; n += 1) {
    routes[`/scan-${n}.pdf`] = { body: scannedPdf(await scanImage(page, { lines: scanLines(n) })), type: 'application/pdf' };
  }
  // Bookmarked before reading is on: "Read my bookmarked pages" then reads them all.
  await page.evaluate(async ({ origin, count }) => {
    for (let n = 1; n <= count; n += 1) await chrome.bookmarks.create({ url: `${origin}/scan-${n}.pdf`, title: `Scan ${n}` });
  }, { origin: server.origin, count: PDFS });
  await turnReadingOn(page);
  const options = await ext.openOptions();
  await options.getByRole('button', { name: 'Read my bookmarked pages' }).click();
  await options.locator('.catch-up-plan').getByRole('button', { name: 'Start' }).click();
  await options.close();

  const started = Date.now();
  const rows = [];
  let state;
  const done = () => {
    const run = state?.catchUp;
    return run ? run.read + run.skipped + run.failed : 0;
  };
  for (const n of MEASURED) {
    await waitUntil(async () => {
      state = await contentState(page);
      return done() >= n;
    }, `${n} scans read`, { timeout: RUN_LIMIT_MS, describe: () => JSON.stringify(state) });
    const pid = await extensionProcess(cdp);
    rows.push({ n: String(done()), threads: threadsOf(pid), ...residentOf(pid) });
    log(`${done()} done: ${rows.at(-1).threads} threads, RssAnon ${MB(rows.at(-1).anon)} MB, RssShmem ${MB(rows.at(-1).shmem)} MB`);
  }
  const seconds = (Date.now() - started) / 1000;
  // The store settled (every page stored and embedded), then a garbage collection of the
  // offscreen document: what is left once its garbage is gone.
  await waitUntil(async () => {
    state = await contentState(page);
    return !state.catchUp.running && state.catchUp.out === 0 && state.progress.status === 'ready';
  }, 'the store settled', { timeout: LIMIT_MS, describe: () => JSON.stringify(state) });
  const { targetInfos } = await cdp.send('Target.getTargets');
  const offscreen = targetInfos.filter((t) => t.url.endsWith('/embedder.html'));
  for (const target of offscreen) {
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
    await cdp.send('HeapProfiler.collectGarbage', {}, sessionId);
    await cdp.send('Target.detachFromTarget', { sessionId });
  }
  const pid = await extensionProcess(cdp);
  rows.push({ n: `${done()}, the store settled, after a garbage collection of the offscreen document (${offscreen.length} found)`, threads: threadsOf(pid), ...residentOf(pid) });
  const { catchUp, progress } = state;
  const first = rows[0];
  const last = rows.at(-1);
  const after10 = rows[Math.min(2, rows.length - 1)];
  report('ocr_memory', 'The page reader over scanned PDFs: memory and threads', [
    `${PDFS} one-page scans bookmarked, then "Read my bookmarked pages" in the options page (topic search on): ` +
      `${catchUp.read} read, ${catchUp.skipped} skipped, ${catchUp.failed} failed in ${fmt(seconds, 0)} s ` +
      `(one site: one download at a time, at most one a second); ${progress.pages} pages kept, ${progress.passagesEmbedded} of ` +
      `${progress.passagesTotal} passages embedded. The extension's renderer process when the pages named were done.`,
    table(['PDFs done', 'threads', 'RssAnon (MB)', 'RssShmem (MB)', 'Pss (MB)'], rows.map((r) => [r.n, r.threads, MB(r.anon), MB(r.shmem), MB(r.pss)])),
    `Threads at the end: ${last.threads}, after the first: ${first.threads}. From the 10th to the end: RssAnon ` +
      `${MB(after10.anon)} → ${MB(last.anon)} MB; RssShmem ${MB(after10.shmem)} → ${MB(last.shmem)} MB.`,
  ]);
} finally {
  cdp?.close();
  await ext.close();
  await server.close();
}
