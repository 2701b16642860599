// The offscreen document's model relay (the same document reads pages too: extractor.js). It only
// relays: the service worker's requests
// ({ target: 'embedder', kind: 'query' | 'passage', texts }) go to a dedicated worker that runs the
// model, and its answer ({ vectors } or { error, message }) goes back.
//
// Two workers, each with its own copy of the model: one answers questions, the other embeds pages.
// A question typed in the popup so never waits behind the pages being understood in the
// background: it runs at once, on a core of its own where the machine has two. The question's
// worker starts (and loads its model) as soon as pages are being embedded, or when the popup opens
// (the service worker sends it a job with no text), so the first question finds it ready, and it
// stays as long as pages are being embedded. The pages' worker waits for the questions' model to
// have loaded before it starts: two models loading at once on two cores, beside the index being
// built, made the first question after install wait seconds.
//
// The battery: this document is where `navigator.getBattery()` is (the service worker has none). It
// tells the service worker the battery's state whenever it changes, and while the computer is on
// battery, also when the document starts and with each batch of pages (a restarted service worker
// assumes a battery that is fine): on a low battery the worker sends no batch until it is charging
// again. Which level is low is the worker's rule (`power::Battery::is_low`), not this file's.
//
// A worker that dies answers every request still out to it with { error: 'crashed' }, then is
// started afresh for the next one. A worker idle for the time the service worker says (idleMs) is
// stopped, freeing its model's memory.
const KINDS = ['query', 'passage'];
const slots = Object.fromEntries(KINDS.map((kind) => [kind, {
  worker: null,
  idleTimer: null,
  pending: new Map(),
  // Settles once the worker's model has loaded or failed to, or the worker has stopped.
  loaded: Promise.resolve(),
  markLoaded: () => {},
}]));
let nextId = 0;

let battery = null;

function tellBattery() {
  if (!battery) return;
  chrome.runtime.sendMessage({ type: 'battery', charging: battery.charging, level: battery.level })
    .catch(() => {}); // the worker is starting: the next batch tells it again
}

if (navigator.getBattery) {
  navigator.getBattery().then((found) => {
    battery = found;
    battery.addEventListener('chargingchange', tellBattery);
    battery.addEventListener('levelchange', tellBattery);
    if (!battery.charging) tellBattery();
  }, () => {}); // no battery to read: the builds never pause for it
}

function failAll(slot, message) {
  for (const respond of slot.pending.values()) respond({ error: 'crashed', message });
  slot.pending.clear();
}

function ensureWorker(slot) {
  if (slot.worker) return slot.worker;
  const worker = new Worker('embedder_worker.js', { type: 'module' });
  slot.loaded = new Promise((resolve) => { slot.markLoaded = resolve; });
  worker.onmessage = ({ data }) => {
    if ('loaded' in data) {
      slot.markLoaded();
      return;
    }
    const respond = slot.pending.get(data.id);
    slot.pending.delete(data.id);
    if (respond) respond(data.answer);
  };
  worker.onerror = (event) => {
    event.preventDefault();
    worker.terminate();
    if (slot.worker === worker) slot.worker = null;
    slot.markLoaded();
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
      slot.markLoaded();
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
  const job = { id, kind: message.kind, texts: message.texts };
  if (message.kind === 'passage') {
    if (battery && !battery.charging) tellBattery();
    // Pages are being embedded: have the question's model loaded (first) and kept meanwhile.
    const questions = slots.query;
    ensureWorker(questions);
    stopWhenIdle(questions, message.idleMs);
    questions.loaded.then(() => ensureWorker(slot).postMessage(job));
  } else {
    ensureWorker(slot).postMessage(job);
  }
  return true; // answered when the worker is done
});
