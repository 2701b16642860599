// The popup. Its search box is usable before the WebAssembly module has loaded: the page's static
// box (popup.html) takes the first keystrokes, and its text, caret and a pending Enter are handed to
// the popup's own box as soon as the module has mounted it. Meanwhile the service worker is told to
// load its index, so both start in parallel. The module is imported only after that (a static
// import would load its whole graph before this script could focus anything).
const shell = document.getElementById('shell');
const early = document.getElementById('shell-search');
let enterPressed = false;
early.focus();
early.addEventListener('keydown', (event) => {
  if (event.key === 'Enter') {
    event.preventDefault();
    enterPressed = true;
  }
});
// Fire and forget: the popup asks again once mounted; this only wakes the worker sooner.
chrome.runtime.sendMessage({ type: 'warm' }).catch(() => {});

const { mount } = await import('./mount.js');
mount('popup', 'mount_popup', () => {
  const box = document.querySelector('main.popup:not(.shell) input[type="search"]');
  const typed = early.value;
  const [start, end] = [early.selectionStart, early.selectionEnd];
  const hadFocus = document.activeElement === early;
  shell.remove();
  if (!box) return;
  if (hadFocus) box.focus();
  if (typed) {
    box.value = typed;
    box.setSelectionRange(start, end);
    box.dispatchEvent(new Event('input', { bubbles: true }));
  }
  if (enterPressed) box.form?.requestSubmit();
});
