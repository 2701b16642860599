// The offscreen document's model relay (the same document reads pages too: extractor.js). It only
// relays: the service worker's requests
// ({ target: 'embedder', kind: 'query' | 'passage', texts }) go to the dedicated worker that runs the
// model, and its answer ({ vectors } or { error, message }) goes back. A worker that dies answers
// every request still out with { error: 'crashed' }, then is started afresh for the next one. A
// worker idle for the time the service worker says (idleMs) is stopped, freeing the model's memory.
let worker = null;
let idleTimer = null;
let nextId = 0;
const pending = new Map();

function failAll(message) {
  for (const respond of pending.values()) respond({ error: 'crashed', message });
  pending.clear();
}

function ensureWorker() {
  if (worker) return worker;
  worker = new Worker('embedder_worker.js', { type: 'module' });
  worker.onmessage = ({ data }) => {
    const respond = pending.get(data.id);
    pending.delete(data.id);
    if (respond) respond(data.answer);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    worker.terminate();
    worker = null;
    failAll(event.message || 'the model worker stopped');
  };
  return worker;
}

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (!message || message.target !== 'embedder') return false;
  const id = nextId++;
  clearTimeout(idleTimer);
  pending.set(id, (answer) => {
    sendResponse(answer);
    if (pending.size === 0 && message.idleMs > 0) {
      clearTimeout(idleTimer);
      idleTimer = setTimeout(() => {
        if (pending.size === 0 && worker) { worker.terminate(); worker = null; }
      }, message.idleMs);
    }
  });
  ensureWorker().postMessage({ id, kind: message.kind, texts: message.texts });
  return true; // answered when the worker is done
});
