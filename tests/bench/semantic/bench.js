// The page of tests/bench/semantic.mjs, in bench/ of a temporary copy of dist/.
//  modelStart / modelStep / modelStop: the model in a fresh dedicated worker (model_worker.js), as
//            the offscreen document runs it, asked one step at a time.
//  scanSetup / scanRun / scanEnd: topic search's store and scan at scale (history-chat-wasm-bench's
//            SemanticBench, in wasm-bench/ of the copy), on this page's thread.

// One model worker at a time, asked step by step (see model_worker.js).
let worker = null;

window.modelStart = () => {
  worker = new Worker(new URL('./model_worker.js', import.meta.url), { type: 'module' });
};

window.modelStep = (message) =>
  new Promise((resolve, reject) => {
    worker.onmessage = ({ data }) => (data.ok ? resolve(data.result) : reject(new Error(data.error)));
    worker.onerror = (event) => reject(new Error(event.message || 'the model worker failed'));
    worker.postMessage(message);
  });

window.modelStop = () => {
  worker?.terminate();
  worker = null;
};

// One SemanticBench at a time: set up, then timed one kind of call at a time (so that
// tests/bench/semantic.mjs can read this thread's CPU time around each run).
let scan = null;

window.scanSetup = async ({ size, queries }) => {
  const { default: init, SemanticBench } = await import('../wasm-bench/history_chat_wasm_bench.js');
  const wasm = await init({ module_or_path: new URL('../wasm-bench/history_chat_wasm_bench_bg.wasm', import.meta.url) });
  const t = performance.now();
  const bench = new SemanticBench(size, queries);
  const fillMs = performance.now() - t;
  // The worker's start: every stored record into a fresh host, in chunks (twice).
  const loadStoreMs = [];
  for (let i = 0; i < 2; i++) {
    const started = performance.now();
    bench.load_store();
    loadStoreMs.push(performance.now() - started);
  }
  scan = { wasm, bench, queries };
  return {
    size,
    pages: bench.pages(),
    fillMs,
    loadStoreMs,
    nowMs: bench.now_ms(),
    heapBytes: bench.heap_bytes(),
    recordBytes: bench.record_bytes(),
    wasmBytes: wasm.memory.buffer.byteLength,
  };
};

/** `rounds` passes over the questions of `bench.search` or `bench.scan_fuse` since `start` (ms). */
window.scanRun = ({ call, start, rounds }) => {
  const { bench, queries } = scan;
  const ms = [];
  let found = 0;
  for (let r = 0; r < rounds; r++) {
    for (let i = 0; i < queries; i++) {
      const t = performance.now();
      found += bench[call](i, start);
      ms.push(performance.now() - t);
    }
  }
  return { ms, meanFound: found / (rounds * queries), wasmBytes: scan.wasm.memory.buffer.byteLength };
};

window.scanEnd = () => {
  scan?.bench.free();
  scan = null;
};

window.benchReady = true;
