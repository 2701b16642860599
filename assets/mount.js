// Loads one page's wasm module and mounts the page: `module` is the crate's name after
// `history_chat_` (popup, options), `entry` its mount function. If the module cannot start, the page
// says so in words instead of staying blank.

// `mounted` runs right after the page's components are in the DOM.
export async function mount(module, entry, mounted = () => {}) {
  try {
    const glue = await import(`./pkg/history_chat_${module}.js`);
    await glue.default({ module_or_path: new URL(`./pkg/history_chat_${module}_bg.wasm`, import.meta.url) });
    glue[entry]();
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
