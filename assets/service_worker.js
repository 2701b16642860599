// History Chat's service worker. A module service worker may not use top-level await, so every
// listener is registered synchronously here and waits for the wasm module inside.
import init, * as worker from './pkg/history_chat_service_worker.js';

const ready = init({ module_or_path: new URL('./pkg/history_chat_service_worker_bg.wasm', import.meta.url) })
  .then(() => worker.start());

function report(what) {
  return (error) => console.error(`History Chat: ${what} failed:`, error);
}

chrome.runtime.onInstalled.addListener(() => {
  ready.then(() => worker.on_installed()).catch(report('writing default settings'));
});

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  // The offscreen document's own messages are addressed to it: not a request of ours.
  if (message && typeof message.target === 'string') return false;
  ready
    .then(() => worker.on_message(message, sender))
    // Response::Failed, externally tagged as every answer is: a value (Failure::WorkerCrashed)
    // the page words; the error itself goes to the console.
    .then(sendResponse, (error) => {
      report('answering a page')(error);
      sendResponse({ failed: { failure: 'workerCrashed' } });
    });
  return true; // the answer comes asynchronously
});

// A popup's `ask` port: how the AI search the worker runs goes (it outlives the popup).
chrome.runtime.onConnect.addListener((port) => {
  ready.then(() => worker.on_connect(port)).catch(report('following a search'));
});

chrome.history.onVisited.addListener((item) => {
  ready.then(() => worker.on_visited(item)).catch(report('indexing a visit'));
});

chrome.history.onVisitRemoved.addListener((removed) => {
  ready.then(() => worker.on_visit_removed(removed)).catch(report('forgetting removed pages'));
});

// Searching the bookmarks or open tabs switched on or off (Options): their optional permission
// granted or given back. Their own events are followed by the worker once it holds the permission.
chrome.permissions.onAdded.addListener(() => {
  ready.then(() => worker.on_permissions_changed()).catch(report('reading the bookmarks or open tabs'));
});

chrome.permissions.onRemoved.addListener(() => {
  ready.then(() => worker.on_permissions_changed()).catch(report('forgetting the bookmarks or open tabs'));
});

// The excluded sites (Options) apply at once: their pages leave the indexes.
chrome.storage.onChanged.addListener((changes, area) => {
  if (area === 'sync' && changes.settings) {
    ready.then(() => worker.on_settings_changed(changes.settings.newValue)).catch(report('applying the excluded sites'));
  }
});

// The address-bar keyword (`hc`): suggestions from the local index, Enter opens the page.
chrome.omnibox.onInputStarted.addListener(() => {
  ready.then(() => worker.on_input_started()).catch(report('starting the address-bar keyword'));
});

chrome.omnibox.onInputChanged.addListener((text, suggest) => {
  ready.then(() => worker.on_input_changed(text, suggest)).catch(report('suggesting pages in the address bar'));
});

chrome.omnibox.onInputEntered.addListener((text, disposition) => {
  ready.then(() => worker.on_input_entered(text, disposition)).catch(report('opening a page from the address bar'));
});
