// A dedicated worker that runs the on-device embedding model (a wasm module). The offscreen
// document (embedder.js) runs two of them, one for questions and one for pages, so that a question
// never waits behind a page. Each starts loading the model as soon as it starts (the document
// starts the question's worker ahead of the first question) and answers its jobs one at a time,
// in the order they came. A job with no text only loads the model (the popup opened: a question
// may come).
import init, { Model } from './pkg/history_chat_embedder.js';

const MODEL_URL = new URL('./model/e5-small-latin-q4.bin', import.meta.url);
const jobs = [];
let model = null;
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

async function run(job) {
  let loaded;
  try {
    loaded = await load();
  } catch (error) {
    return error && error.error ? error : unavailable('unsupported', error);
  }
  // The job's texts in one call: the encoder multiplies all their tokens at once.
  try {
    const vectors = loaded.embed_many(job.texts.map(String), job.kind === 'query');
    return { vectors: vectors.map((vector) => Array.from(vector)) };
  } catch (error) {
    return unavailable('crashed', error);
  }
}

onmessage = async ({ data }) => {
  jobs.push(data);
  if (running) return;
  running = true;
  try {
    while (jobs.length > 0) {
      const job = jobs.shift();
      postMessage({ id: job.id, answer: await run(job) });
    }
  } finally {
    running = false;
  }
};

// Loaded now, not at the first job: a failure is kept and answered to every job. The document
// hears when the load is over, either way (the pages' worker waits for the questions' model).
load().then(() => postMessage({ loaded: true }), () => postMessage({ loaded: false }));
