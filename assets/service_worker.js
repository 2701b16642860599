// History Chat's service worker. A module service worker may not use top-level await, so listeners
// are registered synchronously here and wait for the wasm module inside.
import init, { on_installed } from './pkg/history_chat_service_worker.js';

const ready = init({ module_or_path: new URL('./pkg/history_chat_service_worker_bg.wasm', import.meta.url) });

chrome.runtime.onInstalled.addListener(() => {
  ready
    .then(() => on_installed())
    .catch((error) => console.error('History Chat: writing default settings failed:', error));
});
