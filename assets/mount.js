// Loads the pages' wasm module and mounts one page. If the module cannot start, the page says so
// in words instead of staying blank.
import init, * as pages from './pkg/history_chat_popup.js';

// `mounted` runs right after the page's components are in the DOM.
export async function mount(entry, mounted = () => {}) {
  try {
    await init({ module_or_path: new URL('./pkg/history_chat_popup_bg.wasm', import.meta.url) });
    pages[entry]();
    mounted();
  } catch (error) {
    const message = document.createElement('p');
    message.setAttribute('role', 'alert');
    message.className = 'fatal';
    message.textContent = chrome.i18n.getMessage('page_cannot_start', [String(error)]);
    document.body.append(message);
    throw error;
  }
}
