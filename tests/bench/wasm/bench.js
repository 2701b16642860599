// Runs in headless Chromium (served by tests/bench/wasm_index.mjs): times the index exported by
// crates/history-chat-wasm-bench with performance.now(). One page per history size, so the
// module's linear memory (which only grows) is that size's alone.
import init, { Bench } from './pkg/history_chat_wasm_bench.js';

const now = () => performance.now();
const memory = (wasm) => ({
  wasmBytes: wasm.memory.buffer.byteLength,
  isolated: self.crossOriginIsolated,
  jsHeapBytes: performance.memory ? performance.memory.usedJSHeapSize : null,
});

window.runBench = async ({ size, perLength, loads }) => {
  const wasm = await init({ module_or_path: new URL('./pkg/history_chat_wasm_bench_bg.wasm', import.meta.url) });
  const out = { size };
  // A first build runs on V8's baseline (Liftoff) code, as the worker's one build at start-up
  // does; the second on optimised code. Both are reported.
  let t;
  {
    const cold = new Bench(size, perLength);
    t = now();
    cold.build();
    out.coldBuildMs = now() - t;
    cold.free();
  }
  {
    // The worker's build in slices, newest first, by its own state machine (no browser reads: the
    // index's work, plus a scan of the generated history answering each slice). Each slice is one stretch during which the worker is busy.
    const sliced = new Bench(size, perLength);
    sliced.start_sliced();
    const slices = [];
    const started = now();
    for (;;) {
      const t0 = now();
      const count = sliced.next_slice();
      if (count < 0) break;
      slices.push({ ms: now() - t0, items: count });
    }
    out.slicedBuildMs = now() - started;
    out.slices = slices;
    out.slicedPages = sliced.sliced_pages();
    sliced.free();
  }
  t = now();
  const bench = new Bench(size, perLength);
  out.generateMs = now() - t;
  out.memoryAfterGenerate = memory(wasm);

  t = now();
  out.pages = bench.build();
  out.buildMs = now() - t;
  out.words = bench.words();
  out.heapBytes = bench.heap_bytes();
  out.memoryAfterBuild = memory(wasm);

  t = now();
  out.snapshotBytes = bench.save();
  out.saveMs = now() - t;
  out.loadMs = [];
  for (let i = 0; i < loads; i++) {
    t = now();
    const pages = bench.load();
    out.loadMs.push(now() - t);
    if (pages !== out.pages) throw new Error(`loaded ${pages} pages, built ${out.pages}`);
  }
  out.heapBytesLoaded = bench.heap_bytes();

  out.queries = {};
  for (let words = 1; words <= 6; words++) {
    const times = [];
    for (let i = 0; i < perLength; i++) {
      t = now();
      bench.query(words, i);
      times.push(now() - t);
    }
    out.queries[words] = times;
  }
  out.sample = [1, 3, 6].map((w) => bench.query_text(w, 0));
  for (const count of [20, 100]) {
    t = now();
    for (let i = 0; i < count; i++) bench.keyword(i % perLength);
    out[`keywords${count}Ms`] = now() - t;
  }
  out.memoryEnd = memory(wasm);
  bench.free();
  return out;
};
window.benchReady = true;
