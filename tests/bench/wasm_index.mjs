// (b) The index in WebAssembly, in headless Chromium: build, save, load from the snapshot, memory
// and query latency at 10,000 / 50,000 / 100,000 entries, timed in the page with performance.now().
// Needs target/wasm-bench/pkg/ (built by scripts/bench). Usage: node tests/bench/wasm_index.mjs [sizes…]
import { chromium } from 'playwright-core';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, fmt, mb, percentile, median, report, table, verdict } from './lib.mjs';

const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
const PKG = process.env.WASM_BENCH_PKG || path.join(REPO_ROOT, 'target', 'wasm-bench', 'pkg');
const PAGE_DIR = path.join(REPO_ROOT, 'tests', 'bench', 'wasm');
const ORIGIN = 'http://bench.localhost';
const sizes = process.argv.slice(2).map(Number).filter(Boolean);
const SIZES = sizes.length ? sizes : [10_000, 50_000, 100_000];
const PER_LENGTH = 100; // queries of each length, 1 to 6 words
const LOADS = 3;

// Cross-origin isolation gives performance.now() 5 µs resolution instead of 100 µs.
const ISOLATED = { 'Cross-Origin-Opener-Policy': 'same-origin', 'Cross-Origin-Embedder-Policy': 'require-corp' };
const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.wasm': 'application/wasm' };

const browser = await chromium.launch({
  executablePath: CHROMIUM,
  headless: true,
  args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--enable-precise-memory-info', '--js-flags=--expose-gc'],
});
const results = [];
try {
  for (const size of SIZES) {
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
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    await page.goto(`${ORIGIN}/bench.html`);
    await page.waitForFunction(() => window.benchReady === true, null, { timeout: 20_000 });
    const r = await page.evaluate((arg) => window.runBench(arg), { size, perLength: PER_LENGTH, loads: LOADS });
    if (errors.length) throw new Error(errors.join('\n'));
    results.push(r);
    process.stderr.write(`wasm ${size}: build ${fmt(r.buildMs, 0)} ms, load ${fmt(median(r.loadMs), 0)} ms, heap ${mb(r.heapBytes)} MB\n`);
    await context.close();
  }
} finally {
  await browser.close();
}

const main = table(
  ['entries', 'pages', 'words', 'build ms (first)', 'build ms (again)', 'save ms', 'snapshot MB', `load ms (median of ${LOADS})`, 'heap_bytes MB', 'wasm memory MB (peak, items incl.)', 'JS heap MB', 'keywords×20 ms', 'keywords×100 ms'],
  results.map((r) => [
    r.size, r.pages, r.words, fmt(r.coldBuildMs, 0), fmt(r.buildMs, 0), fmt(r.saveMs, 0), mb(r.snapshotBytes), fmt(median(r.loadMs), 0),
    mb(r.heapBytes), mb(r.memoryEnd.wasmBytes), r.memoryEnd.jsHeapBytes == null ? 'n/a' : mb(r.memoryEnd.jsHeapBytes),
    fmt(r.keywords20Ms, 1), fmt(r.keywords100Ms, 1),
  ]),
);
const latency = table(
  ['entries', ...[1, 2, 3, 4, 5, 6].map((n) => `${n} word${n > 1 ? 's' : ''} p50 / p95 ms`)],
  results.map((r) => [r.size, ...[1, 2, 3, 4, 5, 6].map((n) => `${fmt(percentile(r.queries[n], 0.5), 2)} / ${fmt(percentile(r.queries[n], 0.95), 2)}`)]),
);
// The worker's own build in slices (index host, newest first): total time (the index's work plus a
// scan of the generated history to answer each slice), slices, and the
// longest slice (the longest stretch the worker is busy and cannot answer the popup).
const sliced = table(
  ['entries', 'one build ms', 'sliced build ms (index + slice scans)', 'slices', 'largest slice (items)', 'longest slice ms', 'pages'],
  results.map((r) => [
    r.size, fmt(r.buildMs, 0), fmt(r.slicedBuildMs, 0), r.slices.length, Math.max(...r.slices.map((s) => s.items)),
    fmt(Math.max(...r.slices.map((s) => s.ms)), 1), r.slicedPages,
  ]),
);
const at50 = results.find((r) => r.size === 50_000);
const sections = [
  `Headless Chromium (${CHROMIUM}), module built with the extension's release profile (opt-level z, LTO) and wasm-opt -Oz. ` +
    `Same synthetic histories and queries as the native index_bench (${PER_LENGTH} queries per length; typos, unfinished last words; 25 results over 90 days). ` +
    `performance.now() resolution: ${results[0]?.memoryEnd.isolated ? '5 µs (cross-origin isolated page)' : '100 µs'}. ` +
    `"first" build: a fresh module, V8 still on baseline code, as the worker's one build at start-up; "again": a second build in the same page. ` +
    `wasm memory is the module's linear memory at the end (it only grows: the peak, generated history items included).`,
  main,
  latency,
  'The build the worker really does (no snapshot): the index host asks for the history newest first, a slice at a time, scaled towards 2,000 items each; each slice is answered here from the generated history and timed.',
  sliced,
];
if (at50) {
  const p95 = Math.max(...[1, 2, 3, 4, 5, 6].map((n) => percentile(at50.queries[n], 0.95)));
  sections.push(
    table(
      ['target at 50,000 entries (WASM)', 'measured', 'verdict'],
      [
        ['build ≤ 300 ms (first build, as in the worker)', `${fmt(at50.coldBuildMs, 0)} ms`, verdict(at50.coldBuildMs <= 300)],
        ['build ≤ 300 ms (second build, optimised code)', `${fmt(at50.buildMs, 0)} ms`, verdict(at50.buildMs <= 300)],
        ['p95 query ≤ 16 ms (worst of 1–6 words)', `${fmt(p95, 2)} ms`, verdict(p95 <= 16)],
        ['memory ≤ 64 MB (heap_bytes)', `${mb(at50.heapBytes)} MB`, verdict(at50.heapBytes <= 64 * 2 ** 20)],
        ['memory ≤ 64 MB (whole wasm memory, peak)', `${mb(at50.memoryEnd.wasmBytes)} MB`, verdict(at50.memoryEnd.wasmBytes <= 64 * 2 ** 20)],
      ],
      ['l', 'r', 'l'],
    ),
  );
}
report('wasm_index', 'The index in WebAssembly (headless Chromium)', sections);
