// The page of tests/bench/content_wasm.mjs: history-chat-wasm-bench's ContentBench (the module in
// pkg/), on this page's thread.
//  contentSetup: reads `pages` synthetic pages of `words` words into the worker's ContentHost (the
//                native content_bench's data: same generator, same seed); the wasm memory after.
//  contentRun:   one kind of call over every question, each timed as the least of `runs` runs
//                (as content_bench does), with performance.now(), after an untimed pass over
//                20 questions.

let content = null;

window.contentSetup = async ({ pages, words }) => {
  const { default: init, ContentBench } = await import('./pkg/history_chat_wasm_bench.js');
  const wasm = await init({ module_or_path: new URL('./pkg/history_chat_wasm_bench_bg.wasm', import.meta.url) });
  const wasmBytesInit = wasm.memory.buffer.byteLength;
  const t = performance.now();
  const bench = new ContentBench(pages, words, ContentBench.seed());
  const fillMs = performance.now() - t;
  content = { wasm, bench };
  return {
    pages: bench.pages(),
    passages: bench.passages(),
    questions: bench.questions(),
    fillMs,
    wasmBytesInit,
    wasmBytes: wasm.memory.buffer.byteLength,
    heapBytes: bench.heap_bytes(),
    lexicalBytes: bench.lexical_bytes(),
    vectorsBytes: bench.vectors_bytes(),
    pagesBytes: bench.pages_bytes(),
    isolated: self.crossOriginIsolated === true,
  };
};

/** `call` ('lexical', 'scan' or 'search' with `limit`) over every question, least of `runs` each. */
window.contentRun = ({ call, limit, runs }) => {
  const { bench, wasm } = content;
  const call1 = (i) => (call === 'search' ? bench.search(i, limit) : bench[call](i));
  // Untimed first: V8 compiles hot WebAssembly functions again, optimised, after their first calls.
  for (let i = 0; i < Math.min(20, bench.questions()); i++) call1(i);
  const ms = [];
  let found = 0;
  let hits = 0;
  for (let i = 0; i < bench.questions(); i++) {
    let best = Infinity;
    let n = 0;
    for (let r = 0; r < runs; r++) {
      const t = performance.now();
      n = call1(i);
      best = Math.min(best, performance.now() - t);
    }
    ms.push(best);
    hits += n;
    if (n > 0) found++;
  }
  return { ms, found, meanHits: hits / ms.length, wasmBytes: wasm.memory.buffer.byteLength };
};

window.contentEnd = () => {
  content?.bench.free();
  content = null;
};

window.benchReady = true;
