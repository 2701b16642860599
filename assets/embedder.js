// The offscreen document's model relay (the same document reads pages too: extractor.js). It only
// relays: the service worker's requests
// ({ target: 'embedder', kind: 'query' | 'passage', texts }) go to a dedicated worker that runs the
// model, and its answer ({ vectors } or { error, message }) goes back.
//
// Two workers, each with its own copy of the model: one answers questions, the other embeds pages.
// A question typed in the popup so never waits behind the pages being understood in the
// background: it runs at once, on a core of its own where the machine has two. The question's
// worker starts (and loads its model) as soon as pages are being embedded, so the first question
// finds it ready, and it stays as long as they are.
//
// A worker that dies answers every request still out to it with { error: 'crashed' }, then is
// started afresh for the next one. A worker idle for the time the service worker says (idleMs) is
// stopped, freeing its model's memory.
const KINDS = ['query', 'passage'];
const slots = Object.fromEntries(KINDS.map((kind) => [kind, { worker: null, idleTimer: null, pending: new Map() }]));
let nextId = 0;

function failAll(slot, message) {
  for (const respond of slot.pending.values()) respond({ error: 'crashed', message });
  slot.pending.clear();
}

function ensureWorker(slot) {
  if (slot.worker) return slot.worker;
  const worker = new Worker('embedder_worker.js', { type: 'module' });
  worker.onmessage = ({ data }) => {
    const respond = slot.pending.get(data.id);
    slot.pending.delete(data.id);
    if (respond) respond(data.answer);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    worker.terminate();
    if (slot.worker === worker) slot.worker = null;
    failAll(slot, event.message || 'the model worker stopped');
  };
  slot.worker = worker;
  return worker;
}

/** Stops the slot's worker once it has had nothing to do for `idleMs` (0: kept). */
function stopWhenIdle(slot, idleMs) {
  clearTimeout(slot.idleTimer);
  if (slot.pending.size > 0 || !(idleMs > 0)) return;
  slot.idleTimer = setTimeout(() => {
    if (slot.pending.size === 0 && slot.worker) {
      slot.worker.terminate();
      slot.worker = null;
    }
  }, idleMs);
}

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (!message || message.target !== 'embedder' || !KINDS.includes(message.kind)) return false;
  const slot = slots[message.kind];
  const id = nextId++;
  clearTimeout(slot.idleTimer);
  slot.pending.set(id, (answer) => {
    sendResponse(answer);
    stopWhenIdle(slot, message.idleMs);
  });
  ensureWorker(slot).postMessage({ id, kind: message.kind, texts: message.texts });
  if (message.kind === 'passage') {
    // Pages are being embedded: have the question's model loaded and kept meanwhile.
    const questions = slots.query;
    ensureWorker(questions);
    stopWhenIdle(questions, message.idleMs);
  }
  return true; // answered when the worker is done
});
