// The page reader: a content script the service worker registers (chrome.scripting, top frame
// only, document_idle, http(s) pages, the excluded sites left out by excludeMatches) once the user
// has turned on reading the pages they visit. A classic script in the page's isolated world.
//
// What it does, once per document (and again after an in-page navigation to another address):
// waits until the page has loaded and been still for a moment, serialises its rendered DOM once
// and sends { type: 'pageRead', url, html } to the worker. A PDF in Chrome's viewer sends
// { type: 'pdfSeen', url } instead (the offscreen document fetches and reads it). The text is
// extracted elsewhere (the offscreen document: DOMParser + Readability): the page pays only for
// the serialisation, cut into short tasks.
//
// When (READ_AFTER_MS, STILL_MS, WAIT_AT_MOST_MS): Chrome's own history search reads a page 5 s
// after `load`; so do we, and if the DOM was still changing in the last second (a page that
// builds itself after load) we wait until it has been still for a second, and read it at the latest
// 20 s after load (a ticking clock or a carousel never stops). Then once the main thread is idle
// (requestIdleCallback, at most 2 s more). A page left before that is not read.
//
// What is serialised: the document's HTML, without what the text never needs and what must not
// leave the page: form controls (input, textarea, select: never their values, typed or default),
// editable regions ([contenteditable], where the user types), scripts (JSON-LD metadata kept),
// styles, <noscript>, <template>, inline SVG and canvas. A subtree with none of these and at most
// CHUNK_ELEMENTS elements is taken in one native outerHTML call; bigger ones are walked, and the
// work yields to the page (a MessageChannel task: not throttled in background tabs) whenever a
// task has run SLICE_MS, so the longest task stays short on a heavy DOM.
//
// Sizes: the HTML sent is cut at MAX_HTML_CHARS (the start of a document holds its article; the
// HTML parser in the offscreen document closes what the cut left open). chrome.runtime.sendMessage
// serialises the message in one task of the page: 3 M characters cost about 12 ms there. A
// document of more than MAX_ELEMENTS elements is not read at all (counting them is the one
// unbounded step, ~4 ms per 60,000 elements).
//
// Never: in frames, in incognito tabs (the worker checks too), on a page whose whole document is
// editable (designMode), more than MAX_READS times per document. Every step is caught: a page
// never sees an error from us, and nothing is logged.
(() => {
  'use strict';

  const READ_AFTER_MS = 5000;
  const STILL_MS = 1000;
  const WAIT_AT_MOST_MS = 20000;
  const IDLE_AT_MOST_MS = 2000;
  // A `load` that never comes (a request that hangs): read anyway this long after the script ran.
  const LOAD_AT_MOST_MS = 60000;
  const SLICE_MS = 8;
  const CHUNK_ELEMENTS = 2000;
  const MAX_HTML_CHARS = 3000000;
  const MAX_ELEMENTS = 300000;
  const MAX_READS = 20;

  // Left out of what is sent (the offscreen document removes them again before reading).
  const DROP = 'script:not([type="application/ld+json" i]),style,noscript,template,svg,canvas,' +
    'input,textarea,select,[contenteditable]';

  try {
    if (window.top !== window) return;
    if (globalThis.chrome?.extension?.inIncognitoContext) return;
    if (!/^https?:$/.test(location.protocol)) return;
  } catch {
    return;
  }

  const sent = new Set();
  let reads = 0;
  let generation = 0; // bumped by an in-page navigation: the wait in progress is dropped
  let observer = null;
  let lastChange = 0;

  /** The address without its fragment: a #section is the same page (the worker cleans it too). */
  const withoutFragment = (href) => href.split('#', 1)[0];

  function send(message) {
    try {
      if (!chrome.runtime?.id) return; // the extension was reloaded or removed: this script is orphaned
      chrome.runtime.sendMessage(message).catch(() => {});
    } catch {
      // The worker is gone or the extension context is invalidated: nothing to tell the page.
    }
  }

  const yieldTask = (() => {
    let channel = null;
    const waiting = [];
    return () => new Promise((resolve) => {
      if (!channel) {
        channel = new MessageChannel();
        channel.port1.onmessage = () => waiting.shift()?.();
      }
      waiting.push(resolve);
      channel.port2.postMessage(null);
    });
  })();

  const escapeText = (s) => s.replace(/[&<>\u00a0]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' })[c]);
  const escapeAttribute = (s) => s.replace(/[&"<>\u00a0]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' })[c]);
  const HTML_NS = 'http://www.w3.org/1999/xhtml';
  const VOID = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'source', 'track', 'wbr']);
  const tagName = (el) => (el.namespaceURI === HTML_NS ? el.localName : el.tagName);

  function startTag(el) {
    let tag = `<${tagName(el)}`;
    for (const attribute of el.attributes) tag += ` ${attribute.name}="${escapeAttribute(attribute.value)}"`;
    return `${tag}>`;
  }

  /**
   * The document's HTML, without DROP, in slices of the main thread; null when the document
   * changed address meanwhile (`stillCurrent` false) or is too big.
   */
  async function serialise(stillCurrent) {
    const root = document.documentElement;
    if (!root || root.getElementsByTagName('*').length > MAX_ELEMENTS) return null;
    const parts = [];
    let length = 0;
    let sliceStart = performance.now();
    // Depth-first, as a stack: an element is pushed with its end tag pushed under its children.
    const stack = [root];
    while (stack.length && length < MAX_HTML_CHARS) {
      if (performance.now() - sliceStart > SLICE_MS) {
        await yieldTask();
        if (!stillCurrent()) return null;
        sliceStart = performance.now();
      }
      const node = stack.pop();
      let piece = '';
      if (typeof node === 'string') {
        piece = node;
      } else if (node.nodeType === Node.TEXT_NODE) {
        piece = escapeText(node.data);
      } else if (node.nodeType === Node.ELEMENT_NODE) {
        if (node.matches(DROP)) continue;
        const small = node.getElementsByTagName('*').length <= CHUNK_ELEMENTS;
        if (small && !node.querySelector(DROP)) {
          piece = node.outerHTML;
        } else {
          piece = startTag(node);
          if (!VOID.has(node.localName)) {
            stack.push(`</${tagName(node)}>`);
            for (let child = node.lastChild; child; child = child.previousSibling) stack.push(child);
          }
        }
      }
      // Comments, processing instructions: nothing the text needs.
      parts.push(piece);
      length += piece.length;
    }
    const html = parts.join('');
    return html.length > MAX_HTML_CHARS ? html.slice(0, MAX_HTML_CHARS) : html;
  }

  async function read(stillCurrent) {
    const page = withoutFragment(location.href);
    if (reads >= MAX_READS || sent.has(page)) return;
    if (document.contentType === 'application/pdf') {
      sent.add(page);
      reads += 1;
      send({ type: 'pdfSeen', url: location.href });
      return;
    }
    if (document.designMode === 'on') return;
    const html = await serialise(stillCurrent);
    if (html === null || !stillCurrent()) return;
    sent.add(page);
    reads += 1;
    send({ type: 'pageRead', url: location.href, html });
  }

  /** Waits for the page to be still (see the top of the file), then reads it once. */
  function readWhenStill(startedAt) {
    const mine = ++generation;
    const page = withoutFragment(location.href);
    const stillCurrent = () => generation === mine && withoutFragment(location.href) === page;
    lastChange = startedAt;
    if (!observer) {
      observer = new MutationObserver(() => { lastChange = performance.now(); });
      observer.observe(document, { childList: true, subtree: true, characterData: true });
    }
    const check = () => {
      try {
        if (!stillCurrent()) return;
        const now = performance.now();
        const still = now - lastChange >= STILL_MS;
        if (!still && now - startedAt < WAIT_AT_MOST_MS) {
          const next = Math.min(lastChange + STILL_MS, startedAt + WAIT_AT_MOST_MS) - now;
          setTimeout(check, Math.max(next, 50));
          return;
        }
        observer?.disconnect();
        observer = null;
        const go = () => { read(stillCurrent).catch(() => {}); };
        if (typeof requestIdleCallback === 'function') requestIdleCallback(go, { timeout: IDLE_AT_MOST_MS });
        else go();
      } catch {
        // Nothing the page should see.
      }
    };
    setTimeout(check, READ_AFTER_MS);
  }

  function start() {
    try {
      let begun = false;
      const begin = () => {
        if (begun) return;
        begun = true;
        readWhenStill(performance.now());
      };
      if (document.readyState === 'complete') begin();
      else {
        window.addEventListener('load', begin, { once: true });
        setTimeout(begin, LOAD_AT_MOST_MS);
      }
      // An in-page navigation (history.pushState, a router) to another address: read it too, once
      // it has been still as long. A change of the #fragment alone is the same page.
      let current = withoutFragment(location.href);
      globalThis.navigation?.addEventListener('navigatesuccess', () => {
        try {
          const next = withoutFragment(location.href);
          if (next === current) return;
          current = next;
          if (!begun) return; // the first read, after load, takes the address it then has
          readWhenStill(performance.now());
        } catch {
          // Nothing the page should see.
        }
      });
    } catch {
      // Nothing the page should see.
    }
  }

  start();
})();
