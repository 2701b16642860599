// The dedicated worker that runs the on-device embedding model (a wasm module). It loads the model
// once, on the first request, and answers one job at a time with a simple priority: a question
// (kind 'query') goes before the pages still waiting, and a batch of pages yields between two pages,
// so a question typed in the popup waits for at most one page's embedding, never a whole batch.
import init, { Model } from './pkg/history_chat_embedder.js';

const MODEL_URL = new URL('./model/e5-small-latin-q4.bin', import.meta.url);
let model = null;
const queries = [];
const passages = [];
let running = false;

function unavailable(error, message) {
  return { error, message: String(message) };
}

function load() {
  if (!model) {
    model = (async () => {
      await init({ module_or_path: new URL('./pkg/history_chat_embedder_bg.wasm', import.meta.url) });
      let response;
      try {
        response = await fetch(MODEL_URL);
      } catch (error) {
        throw unavailable('model-missing', error);
      }
      if (!response.ok) throw unavailable('model-missing', `${response.status} ${response.statusText}`);
      const bytes = new Uint8Array(await response.arrayBuffer());
      try {
        return new Model(bytes);
      } catch (error) {
        throw unavailable('model-corrupt', error);
      }
    })();
  }
  return model;
}

const yieldToMessages = () => new Promise((resolve) => setTimeout(resolve, 0));

async function run(job) {
  let loaded;
  try {
    loaded = await load();
  } catch (error) {
    return error && error.error ? error : unavailable('unsupported', error);
  }
  const vectors = [];
  for (const text of job.texts) {
    if (job.kind === 'passage' && queries.length > 0) {
      // A question came in meanwhile: answer it first.
      await pump(true);
    }
    try {
      vectors.push(Array.from(loaded.embed(String(text), job.kind === 'query')));
    } catch (error) {
      return unavailable('crashed', error);
    }
    if (job.kind === 'passage') await yieldToMessages();
  }
  return { vectors };
}

async function pump(queriesOnly = false) {
  while (queries.length > 0 || (!queriesOnly && passages.length > 0)) {
    const job = queries.length > 0 ? queries.shift() : passages.shift();
    postMessage({ id: job.id, answer: await run(job) });
  }
}

onmessage = async ({ data }) => {
  (data.kind === 'query' ? queries : passages).push(data);
  if (running) return;
  running = true;
  try {
    await pump();
  } finally {
    running = false;
  }
};
