// Topic search (the on-device model) in headless Chromium, with the same texts natively, in one run:
//
//   node tests/bench/semantic.mjs [native] [model] [scan] [extension] [size]   (default: all)
//
// native    — crates/history-chat-embedding/examples/semantic_bench (its binary: $SEMANTIC_NATIVE_BIN,
//             one thread): 100 passages of the eval history and its ~10-word topic questions,
//             embedded natively; the texts are handed to the browser parts.
// model     — the extension's own model module (dist/pkg/history_chat_embedder*) and asset
//             (dist/model/), in a dedicated worker of a page added to a temporary copy of dist/, as
//             the offscreen document's worker runs it: load (module, fetch, new Model; in fresh
//             workers), the same passages and questions embedded one by one (p50/p95), the wasm
//             memory after each step, the renderer process's resident memory (before, peak).
// scan      — history-chat-wasm-bench's SemanticBench ($WASM_BENCH_PKG): 10,000 and 50,000 pages of
//             random e5-like vectors in semantic::Vectors, search + the hits' pages + fuse_semantic
//             with a 50-page lexical answer (p50/p95), per period; encoded record sizes.
// extension — the real extension (the copy of dist/) on a seeded 1,000-entry history: the pages
//             understood over time (semanticState polled from the options page), the rate in pages
//             per second, the stored records (IndexedDB), and a topic question's round trip; times
//             for 10,000 / 50,000 entries extrapolated from that rate and the newest-first order over
//             the large-history fixture's distribution of visits.
// size      — the store zip (as scripts/package packs it, zip level 9) with and without topic
//             search's files (the model asset, the model's module, the offscreen document).
//
// Env: DIST (default dist/), WASM_BENCH_PKG, SEMANTIC_NATIVE_BIN, HISTORY_CHAT_MODEL_DIR (native),
// BENCH_ENTRIES (extension history, default 1000), CHROMIUM.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { cpSync, createReadStream, existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import http from 'node:http';
import os, { tmpdir } from 'node:os';
import path from 'node:path';
import { launchExtension } from '../e2e/support/launch.mjs';
import { DAY, largeHistory } from '../e2e/support/fixtures.mjs';
import { askWorker } from '../e2e/support/live.mjs';
import { REPO_ROOT, fmt, mb, median, percentile, report, table, verdict } from './lib.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const DIST = path.resolve(process.env.DIST || path.join(REPO_ROOT, 'dist'));
const PKG = process.env.WASM_BENCH_PKG || path.join(REPO_ROOT, 'target', 'wasm-bench', 'pkg');
const NATIVE_BIN = process.env.SEMANTIC_NATIVE_BIN || path.join(REPO_ROOT, 'target', 'release', 'examples', 'semantic_bench');
// The same example built with -C target-cpu=native (candle's AVX2 kernels), when given.
const NATIVE_CPU_BIN = process.env.SEMANTIC_NATIVE_CPU_BIN || '';
const ENTRIES = Number(process.env.BENCH_ENTRIES || 1000);
const ROUNDS = Number(process.env.SEMANTIC_ROUNDS || 3); // passes over the texts (wasm and native AVX2)
const LOADS = 3; // fresh workers timing the model's load
// The encoder's ways of holding its weights (history-chat-embedding's `Weights`), compared side by
// side: each in a fresh worker, in turn, WEIGHTS_ROUNDS times (the order reversed every other round).
const WEIGHTS = ['q4', 'expanded', 'f32', 'q8'];
const WEIGHTS_ROUNDS = Number(process.env.WEIGHTS_ROUNDS || 2);
// Pages a call, as the extension's worker embeds them (semantic::host::BATCH_PAGES).
const PAGE_BATCH = 8;
const SCAN_SIZES = [10_000, 50_000];
const SCAN_QUERIES = 50;
const SCAN_ROUNDS = 4;
const PERIODS = [7, 30, 0]; // days; 0: everything
const EXTRAPOLATED = [10_000, 50_000];
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm', '.css': 'text/css', '.json': 'application/json' };
const MODEL_FILE = 'model/e5-small-latin-q4.bin';
/** Chromium's dedicated workers' threads ("DedicatedWorker thread", cut to 15 characters). */
const WORKER_THREAD = /^DedicatedWorker/;
/** Topic search's own files in dist/ (what it adds to the zip; its code in the worker and pages is not split out). */
const isTopicFile = (name) => name.startsWith('model/') || name.startsWith('pkg/history_chat_embedder') || /^embedder[^/]*\.(html|js)$/.test(name);

const args = process.argv.slice(2);
const want = (name) => args.length === 0 || args.includes(name);
const log = (line) => process.stderr.write(`semantic: ${line}\n`);
const p = (values, q) => percentile(values, q);
const pp = (values, digits = 1) => `${fmt(p(values, 0.5), digits)} / ${fmt(p(values, 0.95), digits)}`;
const ratio = (a, b) => (Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `${fmt(a / b, 2)}×` : 'n/a');
const mean = (values) => values.reduce((a, b) => a + b, 0) / values.length;
const secs = (ms) => (ms >= 600_000 ? `${fmt(ms / 60_000, 1)} min` : `${fmt(ms / 1000, ms >= 100_000 ? 0 : 1)} s`);
const thousands = (n) => Math.round(n).toLocaleString('en-US');
const size = (bytes) => (bytes >= 2 ** 20 ? `${mb(bytes)} MB` : `${fmt(bytes / 1024, 1)} KB`);

if (!existsSync(path.join(DIST, MODEL_FILE)) || !existsSync(path.join(DIST, 'pkg', 'history_chat_embedder_bg.wasm'))) {
  throw new Error(`${DIST} has no model (${MODEL_FILE}) or no model module: build it with scripts/build`);
}

// A copy of the build, so a concurrent rebuild cannot change it mid-run; the bench page and the
// wasm-bench module are added to the copy only.
const snapshot = mkdtempSync(path.join(tmpdir(), 'history-chat-semantic-'));
const dist = path.join(snapshot, 'dist');
cpSync(DIST, dist, { recursive: true });
const sections = [];
const results = {};
try {
  results.load = [loadAverage()];
  if (want('native') || want('model')) {
    // The baseline build's scalar kernels are slow: one pass.
    results.native = native(NATIVE_BIN, 1);
    if (NATIVE_CPU_BIN) results.nativeCpu = native(NATIVE_CPU_BIN, ROUNDS);
  }
  // The texts alone (no timed pass) when only the weights are compared.
  if (!results.native && want('weights')) results.native = native(NATIVE_BIN, 0);
  if (want('model') || want('scan') || want('weights')) {
    mkdirSync(path.join(dist, 'bench'));
    for (const file of ['bench.html', 'bench.js', 'model_worker.js']) cpSync(path.join(REPO_ROOT, 'tests', 'bench', 'semantic', file), path.join(dist, 'bench', file));
    if (want('scan')) cpSync(PKG, path.join(dist, 'wasm-bench'), { recursive: true });
    await inPage(results);
  }
  if (want('size')) results.size = zipSizes();
  if (want('extension')) results.extension = await extensionBuild();
  results.load.push(loadAverage());
} finally {
  rmSync(snapshot, { recursive: true, force: true });
}
write(results);

// ---------------------------------------------------------------------------------------------

function native(bin, rounds) {
  if (!existsSync(bin)) throw new Error(`no ${bin}: cargo build --release -p history-chat-embedding --example semantic_bench`);
  log(`native: ${bin} ${rounds}`);
  const out = execFileSync(bin, [String(rounds)], { env: { ...process.env, RAYON_NUM_THREADS: '1' }, maxBuffer: 64 << 20 });
  return JSON.parse(out.toString());
}

function loadAverage() {
  return { at: new Date().toISOString(), load: os.loadavg()[0] };
}

/** CPU time (ms, from /proc's schedstat) of the threads of `pids` whose name matches `name`. */
function threadsCpuMs(pids, name) {
  let ns = 0;
  for (const pid of pids) {
    let tids = [];
    try {
      tids = readdirSync(`/proc/${pid}/task`);
    } catch {
      continue;
    }
    for (const tid of tids) {
      try {
        if (!name.test(readFileSync(`/proc/${pid}/task/${tid}/comm`, 'utf8').trim())) continue;
        ns += Number(readFileSync(`/proc/${pid}/task/${tid}/schedstat`, 'utf8').split(' ')[0]);
      } catch {
        // The thread ended meanwhile.
      }
    }
  }
  return ns / 1e6;
}

/** The processes descending from `root` (itself included), from /proc. */
function descendants(root) {
  const parent = new Map();
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      parent.set(Number(pid), Number(readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')[1]));
    } catch {
      // Gone.
    }
  }
  const out = [root];
  for (let i = 0; i < out.length; i++) for (const [pid, ppid] of parent) if (ppid === out[i]) out.push(pid);
  return out;
}

/** The browser process started with `--load-extension=<dir>` (this run's copy of dist/). */
function browserLoading(dir) {
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    try {
      const cmdline = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
      if (cmdline.includes(`--load-extension=${dir}`) && !cmdline.some((a) => a.startsWith('--type='))) return Number(pid);
    } catch {
      // Gone.
    }
  }
  return null;
}

/** Resident and peak resident memory of a process (bytes), from /proc. */
function residentOf(pid) {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const field = (name) => Number(status.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'))?.[1] ?? NaN) * 1024;
    return { rss: field('VmRSS'), hwm: field('VmHWM') };
  } catch {
    return { rss: NaN, hwm: NaN };
  }
}

async function renderers(cdp) {
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  return processInfo.filter((info) => info.type === 'renderer').map((info) => ({ pid: info.id, ...residentOf(info.id) }));
}

/**
 * Serves the copy of dist/ on 127.0.0.1 (a secure context), cross-origin isolated: a real HTTP
 * fetch of the asset, as fast as a local file can be served (Playwright's request interception
 * would pass its 39 MB through the DevTools protocol).
 */
async function serve() {
  const server = http.createServer((request, response) => {
    const file = path.join(dist, decodeURIComponent(new URL(request.url, 'http://x').pathname));
    if (!file.startsWith(dist + path.sep) || !existsSync(file)) {
      response.writeHead(404).end('not found');
      return;
    }
    response.writeHead(200, { ...ISOLATED, 'Content-Type': TYPES[path.extname(file)] || 'application/octet-stream' });
    createReadStream(file).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}

async function inPage(out) {
  const server = await serve();
  const origin = `http://127.0.0.1:${server.address().port}`;
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--enable-precise-memory-info'],
  });
  try {
    const cdp = await browser.newBrowserCDPSession();
    const open = async () => {
      const context = await browser.newContext();
      // Only the copy's server is reached.
      await context.route('**/*', (route) => (new URL(route.request().url()).origin === origin ? route.continue() : route.abort()));
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (e) => errors.push(String(e)));
      await page.goto(`${origin}/bench/bench.html`);
      await page.waitForFunction(() => window.benchReady === true, null, { timeout: 30_000 });
      return { context, page, errors };
    };

    if (want('model')) {
      const { context, page, errors } = await open();
      const before = await renderers(cdp);
      const pids = before.map((x) => x.pid);
      const passages = out.native.passages.map((t) => t.text);
      const queries = out.native.queries.map((t) => t.text);
      const step = (message) => page.evaluate((m) => window.modelStep(m), message);
      const loads = [];
      for (let i = 0; i < LOADS; i++) {
        await page.evaluate(() => window.modelStart());
        loads.push(await step({ cmd: 'load' }));
        await page.evaluate(() => window.modelStop());
        const l = loads.at(-1);
        log(`model load ${i + 1}: ${fmt(l.initMs + l.fetchMs + l.newModelMs, 0)} ms`);
      }
      log(`model: embedding ${passages.length} passages and ${queries.length} questions ×${ROUNDS}`);
      await page.evaluate(() => window.modelStart());
      const embedded = { load: await step({ cmd: 'load' }) };
      // The first page and the first question after the load (what the first batch and the first
      // question typed meet), then the timed rounds, this worker thread's CPU time read around each.
      embedded.firstPassageMs = (await step({ cmd: 'embed', texts: passages.slice(0, 1), query: false, rounds: 1 })).ms[0];
      embedded.firstQueryMs = (await step({ cmd: 'embed', texts: queries.slice(0, 1), query: true, rounds: 1 })).ms[0];
      let cpu = threadsCpuMs(pids, WORKER_THREAD);
      embedded.passageMs = (await step({ cmd: 'embed', texts: passages, query: false, rounds: ROUNDS })).ms;
      embedded.passageCpuMs = (threadsCpuMs(pids, WORKER_THREAD) - cpu) / embedded.passageMs.length;
      cpu = threadsCpuMs(pids, WORKER_THREAD);
      embedded.queryMs = (await step({ cmd: 'embed', texts: queries, query: true, rounds: ROUNDS })).ms;
      embedded.queryCpuMs = (threadsCpuMs(pids, WORKER_THREAD) - cpu) / embedded.queryMs.length;
      // A 5,000-character question (pages' passages are cut to 300 characters, questions are not):
      // the longest embedding a user can ask for in one go (read in windows of 510 tokens).
      const long = 'réparer une crevaison de vélo en cinq minutes '.repeat(120).slice(0, 5_000);
      const longAnswer = await step({ cmd: 'embed', texts: [long], query: true, rounds: 1 });
      embedded.longQueryMs = longAnswer.ms[0];
      embedded.memEmbedded = longAnswer.mem;
      embedded.assetBytes = embedded.load.assetBytes;
      embedded.memLoaded = embedded.load.memLoaded;
      embedded.memInit = embedded.load.memInit;
      await step({ cmd: 'free' });
      await page.evaluate(() => window.modelStop());
      const after = await renderers(cdp);
      if (errors.length) throw new Error(errors.join('\n'));
      if (!(embedded.passageCpuMs > 0)) log('warning: no CPU time read for the model\'s worker thread');
      out.model = { loads, embedded, before, after };
      await context.close();
    }

    if (want('weights')) out.weights = await weights(open, cdp, out);

    if (want('scan')) {
      const { context, page, errors } = await open();
      // The page's own thread: the renderer's main thread (its id is the process's).
      const pids = (await renderers(cdp)).map((x) => x.pid);
      const mainCpuMs = () => pids.reduce((sum, pid) => {
        try {
          return sum + Number(readFileSync(`/proc/${pid}/task/${pid}/schedstat`, 'utf8').split(' ')[0]) / 1e6;
        } catch {
          return sum;
        }
      }, 0);
      out.scan = [];
      for (const size of SCAN_SIZES) {
        log(`scan: ${size} pages`);
        const s = await page.evaluate((a) => window.scanSetup(a), { size, queries: SCAN_QUERIES });
        s.periods = [];
        for (const days of PERIODS) {
          const start = days ? s.nowMs - days * DAY : 0;
          await page.evaluate((a) => window.scanRun(a), { call: 'scan_fuse', start, rounds: 1 }); // warm-up
          const x = { days };
          for (const [call, key] of [['search', 'search'], ['scan_fuse', 'scanFuse']]) {
            const cpu = mainCpuMs();
            const run = await page.evaluate((a) => window.scanRun(a), { call, start, rounds: SCAN_ROUNDS });
            x[key] = run.ms;
            x[`${key}CpuMs`] = (mainCpuMs() - cpu) / run.ms.length;
            x[call === 'search' ? 'meanHits' : 'meanShown'] = run.meanFound;
            s.wasmBytesEnd = run.wasmBytes;
          }
          s.periods.push(x);
        }
        await page.evaluate(() => window.scanEnd());
        out.scan.push(s);
      }
      if (errors.length) throw new Error(errors.join('\n'));
      await context.close();
    }
  } finally {
    await browser.close();
    server.close();
  }
}

/** Each way of holding the weights in a fresh worker, in turn: questions one at a time, pages in batches. */
async function weights(open, cdp, out) {
  const { context, page, errors } = await open();
  const pids = (await renderers(cdp)).map((x) => x.pid);
  const passages = out.native.passages.map((t) => t.text);
  const queries = out.native.queries.map((t) => t.text);
  const step = (message) => page.evaluate((m) => window.modelStep(m), message);
  const rows = Object.fromEntries(
    WEIGHTS.map((kind) => [kind, { queryMs: [], queryCpuMs: [], pageMs: [], pageCpuMs: [], newModelMs: [], memLoaded: 0, memEnd: 0, vectors: null }]),
  );
  for (let round = 0; round < WEIGHTS_ROUNDS; round++) {
    for (const kind of round % 2 ? [...WEIGHTS].reverse() : WEIGHTS) {
      log(`weights: ${kind}, round ${round + 1}`);
      const row = rows[kind];
      await page.evaluate(() => window.modelStart());
      const load = await step({ cmd: 'load', weights: kind });
      row.newModelMs.push(load.newModelMs);
      row.memLoaded = Math.max(row.memLoaded, load.memLoaded);
      // One warm-up call of each kind.
      await step({ cmd: 'embed', texts: passages.slice(0, 1), query: false, rounds: 1 });
      await step({ cmd: 'batches', texts: passages.slice(0, PAGE_BATCH), query: false, batch: PAGE_BATCH });
      await step({ cmd: 'embed', texts: queries.slice(0, 1), query: true, rounds: 1 });
      let cpu = threadsCpuMs(pids, WORKER_THREAD);
      const asked = await step({ cmd: 'embed', texts: queries, query: true, rounds: 1 });
      row.queryCpuMs.push((threadsCpuMs(pids, WORKER_THREAD) - cpu) / asked.ms.length);
      row.queryMs.push(...asked.ms);
      cpu = threadsCpuMs(pids, WORKER_THREAD);
      const batches = await step({ cmd: 'batches', texts: passages, query: false, batch: PAGE_BATCH });
      row.pageCpuMs.push((threadsCpuMs(pids, WORKER_THREAD) - cpu) / passages.length);
      row.pageMs.push(batches.ms.reduce((a, b) => a + b, 0) / passages.length);
      row.memEnd = Math.max(row.memEnd, batches.mem);
      if (!row.vectors) row.vectors = await step({ cmd: 'vectors', texts: [...queries, ...passages.slice(0, 20)], query: false });
      await step({ cmd: 'free' });
      await page.evaluate(() => window.modelStop());
    }
  }
  if (errors.length) throw new Error(errors.join('\n'));
  await context.close();
  const reference = rows.q4.vectors;
  for (const row of Object.values(rows)) {
    row.lowestCosine = Math.min(...row.vectors.map((v, i) => v.reduce((sum, x, j) => sum + x * reference[i][j], 0)));
    delete row.vectors;
  }
  return rows;
}

/** Compressed sizes (zip, deflate level 9, as scripts/package) of every file of the copy of dist/. */
function zipSizes() {
  const script = `
import json, pathlib, sys, zipfile, io
dist = pathlib.Path(sys.argv[1])
sizes = {}
for path in sorted(p for p in dist.rglob("*") if p.is_file()):
    name = path.relative_to(dist).as_posix()
    if name.startswith(("bench/", "wasm-bench/")):
        continue
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        z.write(path, name)
    sizes[name] = {"raw": path.stat().st_size, "zip": len(buf.getvalue())}
def whole(keep):
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED, compresslevel=9) as z:
        for name in sizes:
            if keep(name):
                z.write(dist / name, name)
    return len(buf.getvalue())
topic = lambda n: n.startswith("model/") or n.startswith("pkg/history_chat_embedder") or (n.startswith("embedder") and "/" not in n)
print(json.dumps({"files": sizes, "zip": whole(lambda n: True), "zipWithout": whole(lambda n: not topic(n))}))
`;
  const out = JSON.parse(execFileSync('python3', ['-c', script, dist]).toString());
  out.topicFiles = Object.keys(out.files).filter(isTopicFile);
  return out;
}

/** Pages counted by the lexical index for the fixture: distinct URLs (the fixture's are unique). */
function periodCounts(entries, now) {
  const newest = entries.map((e) => Math.max(...e.visits));
  return PERIODS.map((days) => (days ? newest.filter((t) => t >= now - days * DAY).length : newest.length));
}

async function extensionBuild() {
  const now = Date.now();
  const history = largeHistory(ENTRIES, now);
  log(`extension: ${ENTRIES} entries, building`);
  const launchedAt = Date.now();
  // Topic search on, as a user who turned it on (the test profiles leave it off).
  const ext = await launchExtension({ history, dist, topics: true });
  const out = { entries: ENTRIES, samples: [], counts: periodCounts(history, now) };
  try {
    // The model's worker thread (in the offscreen document's renderer): its CPU time at each sample.
    const browserPid = browserLoading(dist);
    const modelCpuMs = () => (browserPid ? threadsCpuMs(descendants(browserPid), WORKER_THREAD) : NaN);
    const options = await ext.openPage('options.html');
    const deadline = Date.now() + 1_500_000; // a failure limit only
    let last;
    for (;;) {
      const answer = await askWorker(options, { type: 'semanticState' });
      if (answer?.type !== 'semantic') throw new Error(`semanticState answered ${JSON.stringify(answer)}`);
      last = answer.progress;
      // Externally tagged on the wire: "building", or {"unavailable": "modelMissing"}.
      const status = typeof last.status === 'string' ? last.status : Object.keys(last.status ?? {})[0];
      out.samples.push({ ms: Date.now() - launchedAt, status, understood: last.understood, total: last.total, cpuMs: modelCpuMs() });
      if (status === 'ready' && last.total > 0) break;
      if (!['loading', 'building', 'ready'].includes(status)) throw new Error(`topic search became ${JSON.stringify(last)}`);
      if (Date.now() > deadline) throw new Error(`topic search not ready: ${JSON.stringify(last)}`);
      if (out.samples.length % 40 === 0) log(`extension: ${last.understood} / ${last.total} understood after ${secs(Date.now() - launchedAt)}`);
      await options.waitForTimeout(250);
    }
    out.pages = last.total;
    // What is stored: one record per page.
    out.stored = await options.evaluate(() => new Promise((resolve, reject) => {
      const open = indexedDB.open('history-chat');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const all = db.transaction('vectors').objectStore('vectors').getAll();
        all.onsuccess = () => {
          db.close();
          const sizes = all.result.map((v) => v?.byteLength ?? v?.size ?? 0);
          resolve({ records: sizes.length, bytes: sizes.reduce((a, b) => a + b, 0) });
        };
        all.onerror = () => reject(all.error);
      };
    }));
    // A topic question's round trip once built: popup-like request → worker → model (offscreen) → scan.
    out.understand = [];
    for (const query of ['how to fix a flat bicycle tire after riding over glass', 'que manger le soir quand on rentre tard du travail et fatigué']) {
      for (let i = 0; i < 4; i++) {
        const ms = await options.evaluate(async (q) => {
          const t = performance.now();
          await chrome.runtime.sendMessage({ type: 'understand', query: q, startMs: 0, limit: 30 });
          return performance.now() - t;
        }, query);
        out.understand.push(ms);
      }
    }
    await options.close();
    out.errors = ext.errors.length;
  } finally {
    await ext.close();
  }
  return out;
}

/** The build's rate: pages understood per second between the first and the last page stored. */
function buildRate(ext) {
  const first = ext.samples.find((s) => s.understood > 0);
  const done = ext.samples.at(-1);
  const startupMs = first.ms;
  const rate = (done.understood - first.understood) / ((done.ms - first.ms) / 1000);
  // Measured: when the pages of each period were all understood (newest first).
  const pagesPerEntry = ext.pages / ext.entries;
  const measured = ext.counts.map((count) => ext.samples.find((s) => s.understood >= Math.min(ext.pages, Math.round(count * pagesPerEntry)))?.ms);
  // The model thread's CPU time per page: the rate with one core free for it.
  const cpuPerPage = (done.cpuMs - first.cpuMs) / (done.understood - first.understood);
  return { startupMs, rate, pagesPerEntry, measured, doneMs: done.ms, cpuPerPage };
}

function write(r) {
  const targets = [];
  sections.push(
    `Headless Chromium (${CHROMIUM}), the extension's release build (${path.relative(REPO_ROOT, DIST) || DIST}: the model's module at -O3 with SIMD, the asset ${MODEL_FILE}); ` +
      `performance.now() at 5 µs (cross-origin isolated page and worker). Native: the same crate, release, one thread. ` +
      `Figures are p50 / p95 unless said otherwise. Load average (1 min) on this 2-core machine: ${r.load.map((l) => `${fmt(l.load, 1)} at ${l.at.slice(11, 16)} UTC`).join(', ')}: ` +
      `with other work running, wall times grow; the CPU times (each thread's own, from /proc/…/schedstat) do much less.`,
  );

  if (r.weights) {
    const names = {
      q4: 'Q4 (4-bit, candle\'s vector-dot kernels)',
      expanded: 'expanded (4-bit, to f32 for each product; gemm)',
      f32: 'f32 (expanded once, at load; gemm)',
      q8: 'Q8 (requantised at load; vector-dot kernels)',
    };
    const q4 = r.weights.q4;
    sections.push(
      `### The encoder's weights, side by side\n\n` +
        `Each way in a fresh dedicated worker, in turn, ${WEIGHTS_ROUNDS} rounds (order reversed every other round): ` +
        `the ${r.native.queries.length} topic questions one at a time, then the ${r.native.passages.length} pages in calls of ${PAGE_BATCH} (\`embed_many\`, as the extension's worker embeds a batch). ` +
        `CPU times are the worker thread's own (schedstat). Cosine: the lowest, over the questions and 20 pages, against Q4's vector of the same text.`,
      table(
        ['weights', 'question p50 / p95 (ms)', 'CPU per question (ms)', 'page in a batch of 8 (ms, mean)', 'CPU per page (ms)', 'pages per second, one core', 'vs Q4 (page CPU)', '`new Model` (ms)', 'wasm memory loaded / after (MB)', 'lowest cosine vs Q4'],
        WEIGHTS.map((kind) => {
          const w = r.weights[kind];
          return [
            names[kind],
            pp(w.queryMs),
            fmt(mean(w.queryCpuMs), 1),
            fmt(mean(w.pageMs), 1),
            fmt(mean(w.pageCpuMs), 1),
            fmt(1000 / mean(w.pageCpuMs), 1),
            ratio(mean(q4.pageCpuMs), mean(w.pageCpuMs)),
            fmt(median(w.newModelMs), 0),
            `${mb(w.memLoaded)} / ${mb(w.memEnd)}`,
            fmt(w.lowestCosine, 5),
          ];
        }),
        ['l', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r', 'r'],
      ),
    );
  }

  if (r.native && r.model) {
    const n = r.native;
    const c = r.nativeCpu;
    const m = r.model.embedded;
    const loads = r.model.loads.map((l) => l.initMs + l.fetchMs + l.newModelMs);
    const passes = (list, per) => Array.from({ length: Math.ceil(list.length / per) }, (_, i) => fmt(median(list.slice(i * per, (i + 1) * per)), 0)).join(' → ');
    const tokens = (list) => `${fmt(mean(list.map((t) => t.tokens)), 1)} tokens (mean)`;
    const words = mean(n.queries.map((q) => q.text.split(/\s+/).length));
    sections.push(
      `### The model: WebAssembly vs native\n\n` +
        `Texts: ${n.passages.length} pages of the evaluation history as the worker embeds them (\`semantic::passage\`: title, host, path words; ${tokens(n.passages)}), ` +
        `and its ${n.queries.length} topic questions of 9–11 words (${fmt(words, 1)} words, ${tokens(n.queries)}); ${ROUNDS} passes (1 for the slow baseline build), one text per call, after one warm-up text. ` +
        `Load: ${LOADS} fresh dedicated workers, each compiling and instantiating the module, fetching the ${mb(m.assetBytes)} MB asset and building the model.`,
      table(
        ['', 'WebAssembly (Chromium)', 'native, x86-64 baseline (candle\'s scalar 4-bit kernels)', 'native, -C target-cpu=native (AVX2 kernels)', 'wasm / native AVX2'],
        [
          ['module compiled and instantiated (ms, median)', fmt(median(r.model.loads.map((l) => l.initMs)), 0), '—', '—', ''],
          ['asset fetched (ms, median) / file read', fmt(median(r.model.loads.map((l) => l.fetchMs)), 0), fmt(n.readMs, 0), fmt(c?.readMs, 0), ''],
          ['`new Model(bytes)` / `Embedder::from_bytes` (ms, median)', fmt(median(r.model.loads.map((l) => l.newModelMs)), 0), fmt(n.loadMs, 0), fmt(c?.loadMs, 0), ratio(median(r.model.loads.map((l) => l.newModelMs)), c?.loadMs)],
          ['whole load (ms, median; each load)', `${fmt(median(loads), 0)} (${loads.map((x) => fmt(x, 0)).join(', ')})`, fmt(n.readMs + n.loadMs, 0), fmt(c ? c.readMs + c.loadMs : NaN, 0), ratio(median(loads), c ? c.readMs + c.loadMs : NaN)],
          ['first page after the load (ms)', fmt(m.firstPassageMs, 1), '', '', ''],
          ['first question after the load (ms)', fmt(m.firstQueryMs, 1), '', '', ''],
          [`passage p50, pass by pass (ms): V8 tiering up`, passes(m.passageMs, n.passages.length), '', c ? passes(c.passageMs, n.passages.length) : '', ''],
          [`passage p50 / p95 (ms, ${m.passageMs.length} embeddings)`, pp(m.passageMs), pp(n.passageMs), c ? pp(c.passageMs) : 'n/a', ratio(p(m.passageMs, 0.5), c && p(c.passageMs, 0.5))],
          [`10-word question p50 / p95 (ms, ${m.queryMs.length} embeddings)`, pp(m.queryMs), pp(n.queryMs), c ? pp(c.queryMs) : 'n/a', ratio(p(m.queryMs, 0.5), c && p(c.queryMs, 0.5))],
          ['CPU time per passage (ms, mean; the threads\' schedstat)', fmt(m.passageCpuMs, 1), fmt(mean(n.passageCpuMs), 1), fmt(c && mean(c.passageCpuMs), 1), ratio(m.passageCpuMs, c && mean(c.passageCpuMs))],
          ['CPU time per question (ms, mean)', fmt(m.queryCpuMs, 1), fmt(mean(n.queryCpuMs), 1), fmt(c && mean(c.queryCpuMs), 1), ratio(m.queryCpuMs, c && mean(c.queryCpuMs))],
          ['pages per second on one free core (1000 / CPU ms per passage)', fmt(1000 / m.passageCpuMs, 1), fmt(1000 / mean(n.passageCpuMs), 1), fmt(c && 1000 / mean(c.passageCpuMs), 1), ''],
          ['a 5,000-character question (ms, once)', fmt(m.longQueryMs, 0), '', '', ''],
        ],
        ['l', 'r', 'r', 'r', 'r'],
      ),
    );
    const renderer = (list) => list.reduce((best, x) => (x.hwm > (best?.hwm ?? -1) ? x : best), null);
    const after = renderer(r.model.after);
    const before = r.model.before.find((x) => x.pid === after?.pid);
    const peakWasm = Math.max(m.memLoaded, m.memEmbedded, ...r.model.loads.map((l) => l.memLoaded));
    sections.push(
      `### Memory where the model runs\n\n` +
        `The model's wasm memory (\`init()\`'s \`memory.buffer.byteLength\`; it only grows, so the last figure is the peak), and the resident memory of the renderer process ` +
        `running the page and its worker (/proc VmRSS / VmHWM, process found through the DevTools protocol: Blink, V8 and the page included). Natively: what the model holds (\`held_bytes\`) and the process's peak resident memory.`,
      table(
        ['', 'bytes'],
        [
          ['wasm memory, module instantiated', `${mb(m.memInit)} MB`],
          ['wasm memory, model loaded', `${mb(m.memLoaded)} MB`],
          [`wasm memory after ${m.passageMs.length + m.queryMs.length + 3} embeddings (incl. the 5,000-character question): peak`, `${mb(m.memEmbedded)} MB`],
          ['the asset, held by the worker\'s JS only while `new Model` runs', `${mb(m.assetBytes)} MB`],
          ['renderer process before the first worker: resident', `${mb(before?.rss)} MB`],
          ['renderer process, peak resident over the loads and the embeddings', `${mb(after?.hwm)} MB`],
          ['natively: the model holds / process peak resident', `${mb(n.heldBytes)} MB / ${mb(n.peakResidentBytes)} MB`],
        ],
      ),
    );
    const q95 = p(m.queryMs, 0.95);
    targets.push(['10-word question ≤ 50 ms p95 (WebAssembly)', `${fmt(q95, 1)} ms (p50 ${fmt(p(m.queryMs, 0.5), 1)}; ${fmt(m.queryCpuMs, 1)} ms of CPU each; native AVX2 p95 ${fmt(c && p(c.queryMs, 0.95), 1)})`, verdict(q95 <= 50)]);
    targets.push(['passage (reported)', `${pp(m.passageMs)} ms`, '—']);
    const peakAll = Math.max(peakWasm, m.memEmbedded);
    targets.push([
      'memory ≤ 150 MB peak where the model runs',
      `wasm memory ${mb(peakAll)} MB (+ the ${mb(m.assetBytes)} MB asset in JS during the load: ${mb(peakAll + m.assetBytes)} MB); the whole renderer process ${mb(after?.hwm)} MB at its peak`,
      verdict(peakAll + m.assetBytes <= 150 * 2 ** 20),
    ]);
  }

  if (r.scan) {
    sections.push(
      `### Scan + fuse (history-chat-wasm-bench, in the page)\n\n` +
        `\`SemanticBench\`: the pages of the synthetic history (real-looking URLs and visits over 90 days), each with a random L2-normalised vector drawn like e5's ` +
        `(one shared direction: unrelated pages at about 0.6 cosine; 400 topics: a question's own topic at about 0.85), encoded as stored records and loaded into the worker's own \`SemanticHost\`. ` +
        `${SCAN_QUERIES} questions × ${SCAN_ROUNDS} rounds. "scan" = \`SemanticHost::search\` as the worker's \`understand\` calls it (the query quantised, every page of the period scored, its mean and deviation summed in the same pass, the best kept above the floor, ` +
        `the hits that stand out kept, 30 at most); "scan + fuse" = that, the hits turned into pages, and \`fuse_semantic\` with a 50-page lexical answer (up to 10 pages in common), cut to 25. ` +
        `"store loaded": every record into a fresh host in chunks of 2,000, as the worker does at each start (2 runs).`,
      table(
        ['pages', 'period', 'scan p50 / p95 ms', 'scan + fuse p50 / p95 ms', 'scan + fuse: CPU ms each (mean)', 'semantic hits (mean)', 'store loaded ms', 'wasm memory', 'Vectors::heap_bytes'],
        r.scan.flatMap((s) =>
          s.periods.map((x) => [
            thousands(s.pages), x.days ? `last ${x.days} days` : 'everything', pp(x.search, 2), pp(x.scanFuse, 2), fmt(x.scanFuseCpuMs, 2), fmt(x.meanHits, 1),
            s.loadStoreMs.map((v) => fmt(v, 0)).join(', '), `${mb(s.wasmBytesEnd)} MB`, `${mb(s.heapBytes)} MB`,
          ]),
        ),
      ),
      'The CPU time is the page thread\'s own (its schedstat around each run of calls, divided by the calls): what a call costs with a core to itself; the p95 on a loaded machine also counts the time the thread waited for a core.',
    );
    const at50 = r.scan.find((s) => s.size === 50_000);
    if (at50) {
      const all = at50.periods.find((x) => x.days === 0);
      const worst = p(all.scanFuse, 0.95);
      targets.push(['scan + fuse at 50,000 pages ≤ 20 ms (everything, the worst period)', `p95 ${fmt(worst, 2)} ms (p50 ${fmt(p(all.scanFuse, 0.5), 2)}; ${fmt(all.scanFuseCpuMs, 2)} ms of CPU each)`, verdict(worst <= 20)]);
    }
  }

  if (r.extension) {
    const e = r.extension;
    const b = buildRate(e);
    const periodName = (days) => (days ? `last ${days} days` : 'everything');
    const rows = [
      [`${thousands(e.entries)} (measured)`, thousands(e.pages), ...PERIODS.map((_, i) => (b.measured[i] == null ? 'n/a' : secs(b.measured[i])))],
    ];
    const extrapolated = EXTRAPOLATED.map((n) => {
      const counts = periodCounts(largeHistory(n, Date.now()), Date.now()).map((c) => c * b.pagesPerEntry);
      return { n, pages: counts.at(-1), times: counts.map((c) => b.startupMs + (c / b.rate) * 1000) };
    });
    for (const x of extrapolated) rows.push([`${thousands(x.n)} (extrapolated, measured rate)`, thousands(x.pages), ...x.times.map(secs)]);
    const freeCore = 1000 / b.cpuPerPage;
    if (Number.isFinite(freeCore)) {
      for (const x of extrapolated) {
        const times = x.times.map((t) => b.startupMs + ((t - b.startupMs) * b.rate) / freeCore);
        rows.push([`${thousands(x.n)} (extrapolated, a free core: ${fmt(freeCore, 1)} pages/s)`, thousands(x.pages), ...times.map(secs)]);
      }
    }
    sections.push(
      `### The real extension: time until the history is understood\n\n` +
        `The extension's build (the copy of dist/) on a seeded profile of ${thousands(e.entries)} entries (the large-history fixture, \`tests/e2e/support/fixtures.mjs\` \`largeHistory\`: ` +
        `random EN/FR titles, visits denser towards today over 90 days), topic search's state polled from the options page every 250 ms ` +
        `(\`chrome.runtime.sendMessage({type:'semanticState'})\`). Times are since Chrome was launched. ` +
        `The first page was understood after ${secs(b.startupMs)} (worker, lexical index, offscreen document, model load); from then on the build ran at ` +
        `**${fmt(b.rate, 1)} pages per second** (${thousands(e.pages)} pages in ${secs(b.doneMs - b.startupMs)}). ` +
        `The model's worker thread ran ${fmt(b.cpuPerPage, 1)} ms of CPU per page (its schedstat; the rest of the wall time: waiting for a core on this shared machine, the batches' messages and IndexedDB writes). ` +
        `The rows for 10,000 and 50,000 entries are **extrapolated, not measured**: start-up + the pages of the period (the fixture's distribution of last visits at that size, ` +
        `× ${fmt(b.pagesPerEntry, 3)} pages per entry as measured) / the rate, the build going newest first — at the measured rate, and at the rate the model thread's CPU time gives when it has a core to itself. ` +
        `They assume the rate holds at that size.`,
      table(['entries', 'pages', ...PERIODS.map(periodName)], rows),
      `Stored: ${e.stored.records} records, ${thousands(e.stored.bytes)} bytes (${fmt(e.stored.bytes / Math.max(1, e.stored.records), 0)} bytes a record, IndexedDB's own overhead not included). ` +
        `A topic question's round trip once built (a page → the worker → the model in the offscreen document → scan → pages), ${e.understand.length} questions: ${pp(e.understand, 0)} ms. Errors logged: ${e.errors}.`,
    );
    const at50 = extrapolated.find((x) => x.n === 50_000);
    const at10 = extrapolated.find((x) => x.n === 10_000);
    targets.push([
      'time until the last 7 / 30 days / everything is understood (reported)',
      `10,000 entries: ${at10.times.map(secs).join(' / ')}; 50,000: ${at50.times.map(secs).join(' / ')} (extrapolated from ${fmt(b.rate, 1)} pages/s measured at ${thousands(e.entries)} entries; ${fmt(b.cpuPerPage, 1)} ms of model CPU a page)`,
      '—',
    ]);
    r.recordBytesReal = e.stored.bytes / Math.max(1, e.stored.records);
  }

  if (r.scan || r.size || r.recordBytesReal) {
    const rows = [];
    const at50 = r.scan?.find((s) => s.size === 50_000);
    const perRecord = at50 ? at50.recordBytes / at50.pages : r.recordBytesReal;
    if (at50) rows.push(['one record (`semantic::Record::encode`), mean over the 50,000 synthetic pages', `${fmt(perRecord, 0)} B`]);
    if (r.recordBytesReal) rows.push(['one record as stored by the extension (IndexedDB value), mean', `${fmt(r.recordBytesReal, 0)} B`]);
    for (const pages of [10_000, 50_000]) rows.push([`records × ${thousands(pages)} pages`, `${mb(perRecord * pages)} MB`]);
    if (at50) rows.push(['in memory at 50,000 pages (`Vectors::heap_bytes`)', `${mb(at50.heapBytes)} MB`]);
    if (r.size) {
      const s = r.size;
      for (const name of s.topicFiles) rows.push([`\`${name}\`: raw / in the zip`, `${size(s.files[name].raw)} / ${size(s.files[name].zip)}`]);
      rows.push(['the store zip (deflate 9, as `scripts/package`): with / without topic search\'s files', `${mb(s.zip)} MB / ${mb(s.zipWithout)} MB`]);
      targets.push(['≤ 40 MB added to the store zip', `${mb(s.zip - s.zipWithout)} MB (the model asset and module, the offscreen document)`, verdict(s.zip - s.zipWithout <= 40 * 2 ** 20)]);
    }
    if (at50) targets.push(['vector store size (reported)', `${fmt(perRecord, 0)} B a page: ${mb(perRecord * 10_000)} MB at 10,000 pages, ${mb(perRecord * 50_000)} MB at 50,000`, '—']);
    sections.push(`### Sizes: the vector store, the zip\n\nMB = 2^20 bytes.`, table(['', 'size'], rows));
  }

  if (targets.length) sections.splice(1, 0, `### Targets\n\n${table(['target (issue 9)', 'measured', 'verdict'], targets, ['l', 'l', 'l'])}`);
  report('semantic', 'Topic search (on-device model)', sections);
}
