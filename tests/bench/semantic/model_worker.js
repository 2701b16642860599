// A dedicated worker running the model as assets/embedder_worker.js does (the same module, the
// same asset, from the extension's build), timed with performance.now(). Asked step by step by
// bench.js, so that tests/bench/semantic.mjs can read this thread's CPU time between the steps:
//   {cmd: 'load', weights?}          → the load's steps (ms) and the module's memory (bytes);
//                                      `weights` (q4, q8, f32, expanded) loads with those weights
//                                      instead of the extension's default
//   {cmd: 'embed', texts, query, rounds} → every embedding's time (ms), the memory after
//   {cmd: 'batches', texts, query, batch} → each batch's time (ms, `batch` texts a call, as the
//                                      extension's worker embeds a batch of pages), the memory after
//   {cmd: 'vectors', texts, query}   → the texts' vectors
//   {cmd: 'free'}                    → the model dropped
import init, { Model } from '../pkg/history_chat_embedder.js';

const MODEL_URL = new URL('../model/e5-small-latin-q4.bin', import.meta.url);
let wasm = null;
let model = null;

const memory = () => wasm.memory.buffer.byteLength;

async function load({ weights }) {
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
  model = weights ? Model.with_weights(bytes, weights) : new Model(bytes);
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

function batches({ texts, query, batch }) {
  const ms = [];
  for (let i = 0; i < texts.length; i += batch) {
    const t = performance.now();
    model.embed_many(texts.slice(i, i + batch), query);
    ms.push(performance.now() - t);
  }
  return { ms, mem: memory() };
}

onmessage = async ({ data }) => {
  try {
    let result;
    if (data.cmd === 'load') result = await load(data);
    else if (data.cmd === 'batches') result = batches(data);
    else if (data.cmd === 'vectors') result = data.texts.map((text) => Array.from(model.embed(text, data.query)));
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
