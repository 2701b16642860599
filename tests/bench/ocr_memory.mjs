// The page reader's memory over 50 scanned PDFs read by OCR, in the real extension:
//
//   node --experimental-websocket tests/bench/ocr_memory.mjs     (scripts/bench ocr-memory)
//
// The extension (dist/, or DIST) with its content access granted as a user grants it; 50 distinct
// one-page scans (support/reader_pages.mjs: text drawn by the browser, a JPEG over the page, as a
// scanner's PDF) served from 127.0.0.1, every other host unresolvable; each asked of the offscreen
// document one after the other as the bindings ask for a PDF opened in Chrome (support/reader.mjs),
// its text checked to hold the scan's own number. After the 1st, 5th, 10th, 20th, 30th, 40th and
// 50th, of the extension's renderer process (where the offscreen document, pdf.js's and
// tesseract's dedicated workers and the service worker run): its threads (a dedicated worker left
// running is one more), RssAnon (what it allocated) and Pss (/proc). The reader is released after
// each document (its pdf.js worker destroyed, its tesseract worker terminated): the threads must
// come back to the same count and the memory not grow with the PDFs read.
//
// Env: DIST, BENCH_PDFS (50), CHROMIUM (profiles.mjs).
import { launchExtension } from '../e2e/support/launch.mjs';
import { grantContentAccess } from '../e2e/support/content_access.mjs';
import { localServer, offscreenReader } from '../e2e/support/reader.mjs';
import { scanImage, scannedPdf } from '../e2e/support/reader_pages.mjs';
import { fmt, median, report, table } from './lib.mjs';
import { connectBrowser, extensionProcess, residentOf, threadsOf } from './process_memory.mjs';

if (typeof WebSocket !== 'function') throw new Error('no WebSocket: run node with --experimental-websocket');
const PDFS = Number(process.env.BENCH_PDFS || 50);
const MEASURED = new Set([1, 5, 10, 20, 30, 40, PDFS]);
const log = (line) => process.stderr.write(`ocr-memory: ${line}\n`);
const MB = (bytes) => fmt(bytes / 1e6, 1);

const routes = {};
const server = await localServer(routes);
const ext = await launchExtension({ args: ['--remote-debugging-port=0', '--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
let cdp;
try {
  await grantContentAccess(ext);
  cdp = await connectBrowser(ext.profileDir);
  const drawing = await ext.context.newPage();
  for (let n = 1; n <= PDFS; n += 1) {
    const lines = [`Inspection report number ${n}`, `The north quay needs ${n} new bollards`, 'Signed by the harbour master'];
    routes[`/scan-${n}.pdf`] = { body: scannedPdf(await scanImage(drawing, { lines })), type: 'application/pdf' };
  }
  await drawing.close();
  const reader = await offscreenReader(ext);
  const rows = [];
  const took = [];
  for (let n = 1; n <= PDFS; n += 1) {
    const started = Date.now();
    const answer = await reader.pdf(`${server.origin}/scan-${n}.pdf`);
    took.push(Date.now() - started);
    if (answer.error || !answer.text.includes(`number ${n}`)) throw new Error(`scan ${n} was not read: ${JSON.stringify(answer)}`);
    if (MEASURED.has(n)) {
      const pid = await extensionProcess(cdp);
      rows.push({ n, threads: threadsOf(pid), ...residentOf(pid) });
      log(`${n} read: ${threadsOf(pid)} threads, RssAnon ${MB(rows.at(-1).anon)} MB, RssShmem ${MB(rows.at(-1).shmem)} MB`);
    }
  }
  // Then a garbage collection of the offscreen document: what is left once its garbage is gone.
  const { targetInfos } = await cdp.send('Target.getTargets');
  const offscreen = targetInfos.filter((t) => t.url.endsWith('/embedder.html'));
  for (const target of offscreen) {
    const { sessionId } = await cdp.send('Target.attachToTarget', { targetId: target.targetId, flatten: true });
    await cdp.send('HeapProfiler.collectGarbage', {}, sessionId);
    await cdp.send('Target.detachFromTarget', { sessionId });
  }
  const pid = await extensionProcess(cdp);
  rows.push({ n: `${PDFS}, after a garbage collection of the offscreen document (${offscreen.length} found)`, threads: threadsOf(pid), ...residentOf(pid) });
  const first = rows[0];
  const last = rows.at(-1);
  const after10 = rows.find((r) => r.n === 10) ?? first;
  report('ocr_memory', 'The page reader over scanned PDFs: memory and threads', [
    `${PDFS} one-page scans read by OCR one after the other in the real extension's offscreen document; ` +
      `the extension's renderer process after each of the PDFs named. A scan read in ${fmt(median(took) / 1000, 1)} s median ` +
      `(${fmt(Math.max(...took) / 1000, 1)} s at most), from the request to the text.`,
    table(['PDFs read', 'threads', 'RssAnon (MB)', 'RssShmem (MB)', 'Pss (MB)'], rows.map((r) => [r.n, r.threads, MB(r.anon), MB(r.shmem), MB(r.pss)])),
    `Threads at the end: ${last.threads}, after the first: ${first.threads}. RssAnon from the 10th to the end: ` +
      `${MB(after10.anon)} → ${MB(last.anon)} MB; RssShmem ${MB(after10.shmem)} → ${MB(last.shmem)} MB.`,
  ]);
} finally {
  cdp?.close();
  await ext.close();
  await server.close();
}
