// Words a page's static HTML in the browser's UI language before anything else runs (a classic
// script at the end of <body>, so the first paint is already translated): each element's
// `data-i18n` key fills its text, `data-i18n-placeholder` / `-aria-label` / `-title` its attributes,
// from the extension's catalogues (_locales/). <html lang> names the catalogue that answered.
(() => {
  const message = (key) => chrome.i18n.getMessage(key) || key;
  document.documentElement.lang = message('lang');
  for (const element of document.querySelectorAll('[data-i18n]')) {
    element.textContent = message(element.dataset.i18n);
  }
  for (const attribute of ['placeholder', 'aria-label', 'title']) {
    const data = `data-i18n-${attribute}`;
    for (const element of document.querySelectorAll(`[${data}]`)) {
      element.setAttribute(attribute, message(element.getAttribute(data)));
    }
  }
})();
