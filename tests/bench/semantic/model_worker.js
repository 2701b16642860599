// A dedicated worker running the model as assets/embedder_worker.js does (the same module, the
// same asset, from the extension's build), timed with performance.now(). Asked step by step by
// bench.js, so that tests/bench/semantic.mjs can read this thread's CPU time between the steps:
//   {cmd: 'load'}                    → the load's steps (ms) and the module's memory (bytes)
//   {cmd: 'embed', texts, query, rounds} → every embedding's time (ms), the memory after
//   {cmd: 'free'}                    → the model dropped
import init, { Model } from '../pkg/history_chat_embedder.js';

const MODEL_URL = new URL('../model/e5-small-latin-q4.bin', import.meta.url);
let wasm = null;
let model = null;

const memory = () => wasm.memory.buffer.byteLength;

async function load() {
  let t = performance.now();
  wasm = await init({ module_or_path: new URL('../pkg/history_chat_embedder_bg.wasm', import.meta.url) });
  const initMs = performance.now() - t;
  const memInit = memory();
  t = performance.now();
  const response = await fetch(MODEL_URL);
  if (!response.ok) throw new Error(`${MODEL_URL}: ${response.status}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  const fetchMs = performance.now() - t;
  t = performance.now();
  model = new Model(bytes);
  const newModelMs = performance.now() - t;
  return { initMs, fetchMs, newModelMs, assetBytes: bytes.length, memInit, memLoaded: memory() };
}

function embed({ texts, query, rounds }) {
  const ms = [];
  for (let r = 0; r < rounds; r++) {
    for (const text of texts) {
      const t = performance.now();
      model.embed(text, query);
      ms.push(performance.now() - t);
    }
  }
  return { ms, mem: memory() };
}

onmessage = async ({ data }) => {
  try {
    let result;
    if (data.cmd === 'load') result = await load();
    else if (data.cmd === 'embed') result = embed(data);
    else if (data.cmd === 'free') {
      model?.free();
      model = null;
      result = {};
    } else throw new Error(`unknown command ${data.cmd}`);
    postMessage({ ok: true, result });
  } catch (error) {
    postMessage({ ok: false, error: String(error?.stack || error) });
  }
};
