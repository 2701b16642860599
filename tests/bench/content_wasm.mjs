// The page-content store's search in WebAssembly, in headless Chromium, with the same data natively
// in the same run:
//
//   node tests/bench/content_wasm.mjs [pages…]   (default: 10000 1000)
//
// wasm   — history-chat-wasm-bench's ContentBench ($WASM_BENCH_PKG, built by `scripts/bench
//          content-wasm`) in tests/bench/content/'s page, served cross-origin isolated
//          (performance.now() at 5 µs): `pages` synthetic pages of ~1,000 words read through the
//          worker's ContentHost (the native content_bench's generator and seed:
//          crates/history-chat-core/examples/common/content_synth.rs), then its 200 questions,
//          each timed as the least of 3 runs: the lexical search, the vector scan, and
//          ContentHost::search (both, fused, 10 pages as content_bench; and 120, as the worker
//          asks it: 4 × the popup's 30). The wasm memory (`memory.buffer.byteLength`) after the
//          reading: linear memory only grows, so it is the reading's peak.
// native — content_bench ($CONTENT_NATIVE_BIN, release) at the same sizes: its time and memory
//          tables, beside. CONTENT_NATIVE=0 skips it.
//
// Env: WASM_BENCH_PKG, CONTENT_NATIVE_BIN, CONTENT_NATIVE, CHROMIUM.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, fmt, percentile, report, table, verdict } from './lib.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const PKG = process.env.WASM_BENCH_PKG || path.join(REPO_ROOT, 'target', 'wasm-bench', 'content-pkg');
const NATIVE_BIN = process.env.CONTENT_NATIVE_BIN || path.join(REPO_ROOT, 'target', 'release', 'examples', 'content_bench');
const NATIVE = process.env.CONTENT_NATIVE !== '0';
const PAGE_DIR = path.join(REPO_ROOT, 'tests', 'bench', 'content');
const ORIGIN = 'http://bench.localhost';
const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const SIZES = sizes.length ? sizes : [10_000, 1_000];
const WORDS = 1_000;
const RUNS = 3; // each question: the least of 3 runs, as content_bench
const WORKER_LIMIT = 120; // content_host::search asks the host for 4 × the popup's limit (30)
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };
const CALLS = [
  { key: 'lexical', call: 'lexical', name: 'lexical search (pool 50)', native: 'Lexical search' },
  { key: 'scan', call: 'scan', name: 'vector scan (every embedded passage)', native: 'Vector scan' },
  { key: 'search', call: 'search', limit: 10, name: '`ContentHost::search` (both, RRF, 10 pages found)', native: '`ContentHost::search`' },
  { key: 'searchWorker', call: 'search', limit: WORKER_LIMIT, name: `\`ContentHost::search\`, the worker's limit (${WORKER_LIMIT})` },
];
/** MB of 10^6 bytes, as content_bench prints them (the native figures beside). */
const mb = (bytes) => fmt(bytes / 1e6, 1);
const log = (line) => process.stderr.write(`content-wasm: ${line}\n`);
const thousands = (n) => Number(n).toLocaleString('en-US');
const pp = (ms, digits = 2) => `${fmt(percentile(ms, 0.5), digits)} / ${fmt(percentile(ms, 0.95), digits)}`;

/** content_bench's markdown rows, by their first cell: the cells after it. */
function nativeRun(pages) {
  const started = Date.now();
  const out = execFileSync(NATIVE_BIN, [String(pages), String(WORDS)], { encoding: 'utf8', maxBuffer: 16 << 20 });
  const rows = new Map();
  for (const line of out.split('\n')) {
    const cells = line.split('|').slice(1, -1).map((c) => c.trim());
    if (cells.length >= 2) rows.set(cells[0], cells.slice(1));
  }
  const row = (prefix) => [...rows.entries()].find(([name]) => name.startsWith(prefix))?.[1];
  const num = (cell) => (cell == null ? NaN : Number(cell.replace(/[^0-9.]/g, '')));
  const times = {};
  for (const c of CALLS) {
    const r = c.native && row(c.native);
    if (r) times[c.key] = { p50: num(r[0]), p95: num(r[1]) };
  }
  log(`native ${pages}: ${((Date.now() - started) / 1000).toFixed(0)} s`);
  return {
    times,
    lexicalMB: num(row('Lexical index')?.[0]),
    vectorsMB: num(row('Vectors (`PassageVectors')?.[0]),
    pagesMB: num(row('Pages held')?.[0]),
    rssMB: num(row('Resident memory grown')?.[0]),
  };
}

async function wasmRun(browser, pages) {
  const context = await browser.newContext();
  // Served from disk by the route: no server, and nothing else reaches the network.
  await context.route('**/*', (route) => {
    const url = new URL(route.request().url());
    if (url.origin !== ORIGIN) return route.abort();
    const rel = url.pathname.replace(/^\//, '');
    const file = rel.startsWith('pkg/') ? path.join(PKG, rel.slice(4)) : path.join(PAGE_DIR, rel);
    try {
      return route.fulfill({ status: 200, headers: ISOLATED, contentType: TYPES[path.extname(file)] || 'application/octet-stream', body: readFileSync(file) });
    } catch {
      return route.fulfill({ status: 404, body: 'not found' });
    }
  });
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${ORIGIN}/bench.html`);
    await page.waitForFunction(() => window.benchReady === true, null, { timeout: 20_000 });
    const setup = await page.evaluate((arg) => window.contentSetup(arg), { pages, words: WORDS });
    log(`wasm ${pages}: read in ${fmt(setup.fillMs / 1000, 0)} s, wasm memory ${mb(setup.wasmBytes)} MB`);
    // The page's module (the same instance bench.js imported): the reading's trace.
    // (A module built before the trace was added has none.)
    setup.trace = JSON.parse(await page.evaluate(() => import('./pkg/history_chat_wasm_bench.js').then((m) => (m.content_trace ? m.content_trace() : '[]'))));
    for (const t of setup.trace) log(`  ${t.at}: memory ${mb(t.memory)} MB, estimate ${mb(t.lexical)} (postings ${mb(t.postings)}) / ${mb(t.vectors)} / ${mb(t.pages)} MB`);
    const runs = {};
    for (const c of CALLS) {
      runs[c.key] = await page.evaluate((arg) => window.contentRun(arg), { call: c.call, limit: c.limit ?? 0, runs: RUNS });
      log(`wasm ${pages} ${c.key}: p50/p95 ${pp(runs[c.key].ms)} ms`);
    }
    await page.evaluate(() => window.contentEnd());
    if (errors.length) throw new Error(errors.join('\n'));
    return { ...setup, runs };
  } finally {
    await context.close();
  }
}

if (NATIVE && !existsSync(NATIVE_BIN)) throw new Error(`no ${NATIVE_BIN}: cargo build --release -p history-chat-core --example content_bench`);
const results = [];
const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--js-flags=--expose-gc'],
});
try {
  for (const pages of SIZES) {
    // One after the other, never both at once: each has the machine's cores to share with nothing
    // of this run.
    const wasm = await wasmRun(browser, pages);
    const native = NATIVE ? nativeRun(pages) : null;
    results.push({ size: pages, wasm, native });
  }
} finally {
  await browser.close();
}

const timeRows = results.flatMap(({ size, wasm, native }) =>
  CALLS.map((c) => {
    const w = wasm.runs[c.key].ms;
    const n = native?.times[c.key];
    const ratio = n ? `${fmt(percentile(w, 0.5) / n.p50, 1)}× / ${fmt(percentile(w, 0.95) / n.p95, 1)}×` : '';
    return [thousands(size), c.name, pp(w), n ? `${fmt(n.p50, 2)} / ${fmt(n.p95, 2)}` : '', ratio, `${wasm.runs[c.key].found} (${fmt(wasm.runs[c.key].meanHits, 1)})`];
  }),
);
/** The linear memory once the generator is built, before the first page is read (the trace's). */
const beforeReading = (wasm) => wasm.trace.find((t) => t.at === 'generator')?.memory;
const memRows = results.map(({ size, wasm, native }) => [
  thousands(size), thousands(wasm.passages), `${mb(wasm.wasmBytes)} MB`,
  beforeReading(wasm) == null ? '' : `${mb(wasm.wasmBytes - beforeReading(wasm))} MB`, `${mb(wasm.heapBytes)} MB`,
  `${mb(wasm.lexicalBytes)} / ${mb(wasm.vectorsBytes)} / ${mb(wasm.pagesBytes)} MB`,
  native ? `${fmt(native.lexicalMB, 1)} / ${fmt(native.vectorsMB, 1)} / ${fmt(native.pagesMB, 1)} MB` : '',
  native ? `${fmt(native.rssMB, 1)} MB` : '', fmt(wasm.fillMs / 1000, 0),
]);
const at10 = results.find((r) => r.size === 10_000);
const sections = [
  `Headless Chromium (${CHROMIUM}); history-chat-wasm-bench built with the extension's release profile (opt-level z, LTO, SIMD) and wasm-opt -Oz as scripts/build does. ` +
    `\`ContentBench\`: the native \`content_bench\`'s synthetic pages (~${thousands(WORDS)} words from a Zipf vocabulary of 200,000 words, 10 passages, 8 embedded with pseudo-random unit vectors), ` +
    `read through the worker's own \`ContentHost\`, the same generator and seed (\`examples/common/content_synth.rs\`); its 200 questions of 1–3 words, each with a random unit vector. ` +
    `Each question is timed as the least of ${RUNS} runs (performance.now() at ${results[0]?.wasm.isolated ? '5 µs: cross-origin isolated page' : '100 µs'}), on the page's thread; ` +
    `natively, content_bench (release, opt-level z) at the same sizes in the same run${NATIVE ? '' : ' (skipped: CONTENT_NATIVE=0)'}. This machine: ${process.env.BENCH_MACHINE || 'see BENCHMARKS.md'}.`,
];
if (at10) {
  const s95 = percentile(at10.wasm.runs.search.ms, 0.95);
  const w95 = percentile(at10.wasm.runs.searchWorker.ms, 0.95);
  sections.push(
    `### Target\n\n` +
      table(
        ['target (issue: search what pages said)', 'measured', 'verdict'],
        [
          ['a question\'s scan and fusion ≤ 50 ms p95 in WebAssembly, 10,000 pages (10 snippets, as content_bench)', `${fmt(s95, 1)} ms (p50 ${fmt(percentile(at10.wasm.runs.search.ms, 0.5), 1)}; natively ${fmt(at10.native?.times.search?.p95, 1)})`, verdict(s95 <= 50)],
          [`the same with the worker's limit (${WORKER_LIMIT})`, `${fmt(w95, 1)} ms (p50 ${fmt(percentile(at10.wasm.runs.searchWorker.ms, 0.5), 1)})`, verdict(w95 <= 50)],
          ['the content store\'s wasm memory at 10,000 pages (reported; the worker\'s target is ≤ 150 MB with everything else)', `${mb(at10.wasm.wasmBytes)} MB`, '—'],
        ],
        ['l', 'l', 'l'],
      ),
  );
}
sections.push(
  `### A question's time, WebAssembly beside native\n\np50 / p95 in ms over the 200 questions; the ratio is WebAssembly / native. "found": questions with at least one hit (mean hits).`,
  table(['pages', 'call', 'WebAssembly p50 / p95', 'native p50 / p95', 'ratio p50 / p95', 'found (mean hits)'], timeRows, ['r', 'l', 'r', 'r', 'r', 'r']),
  `### Memory\n\nwasm memory: the module's linear memory after the reading (\`memory.buffer.byteLength\`; it only grows, so it holds the reading's peak; the generator's vocabulary and distribution, 8.4 MB, included); grown by the reading: the same less the memory once the generator is built (the trace's). ` +
    `heap: the store's own estimates (\`Lexical::heap_bytes\`, \`PassageVectors::heap_bytes\`, \`ContentHost::pages_heap_bytes\`); MB = 10^6 bytes, as content_bench prints them. ` +
    `Native RSS: the resident memory grown while reading (1,000 sample records included).`,
  table(['pages', 'passages embedded', 'wasm memory', 'grown by the reading', 'heap (sum)', 'lexical / vectors / pages (wasm)', 'lexical / vectors / pages (native)', 'native RSS grown', 'reading s (wasm)'], memRows),
);
const traced = results.find((r) => r.wasm.trace.length > 2);
if (traced) {
  sections.push(
    `### The linear memory as the reading goes (${thousands(traced.size)} pages)\n\n` +
      `\`content_trace()\`: the module's linear memory, and the store's estimate of its parts, once the generator is built and every 1,000 pages read; MB = 10^6 bytes.`,
    table(
      ['after', 'linear memory', 'lexical (postings)', 'vectors', 'pages held', 'estimate (sum)'],
      traced.wasm.trace.map((t) => [t.at, `${mb(t.memory)} MB`, `${mb(t.lexical)} (${mb(t.postings)}) MB`, `${mb(t.vectors)} MB`, `${mb(t.pages)} MB`, `${mb(t.lexical + t.vectors + t.pages)} MB`]),
      ['l', 'r', 'r', 'r', 'r', 'r'],
    ),
  );
}
report('content_wasm', 'Page content store in WebAssembly (headless Chromium)', sections);
