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
// styles, <noscript>, <template>, inline SVG and canvas. In slices of the main thread (SLICE_MS,
// then a yield through a MessageChannel task, which background tabs do not throttle): an element of
// more than CHUNK_ELEMENTS elements is opened (its start tag written, its children taken in turn);
// its smaller children go in batches of about CHUNK_ELEMENTS elements, each one native outerHTML
// when it holds nothing to leave out, else copied into a window-less document (nothing loads there,
// no page code runs) and serialised once what is left out is removed from the copy. The page's own
// DOM is never changed. A document of at most CHUNK_ELEMENTS elements is one such batch.
//
// Sizes: the HTML sent is cut at MAX_HTML_CHARS (the start of a document holds its article; the
// parser in the offscreen document closes what the cut left open). The message is serialised by
// chrome.runtime.sendMessage in one task of the page, about 10-15 ms a million characters here:
// 600,000 keeps that task under 10 ms of CPU. A cleaned 5,000-word article weighs about 100,000.
// Measured by tests/bench/reader_cost.mjs (scripts/bench reader).
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
  const SLICE_MS = 6;
  const CHUNK_ELEMENTS = 300;
  const MAX_HTML_CHARS = 600000;
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

  const escapeAttribute = (s) => s.replace(/[&"<>\u00a0]/g, (c) => ({ '&': '&amp;', '"': '&quot;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' })[c]);
  const HTML_NS = 'http://www.w3.org/1999/xhtml';
  const tagName = (el) => (el.namespaceURI === HTML_NS ? el.localName : el.tagName);
  /** `el`'s elements, itself included, counted up to `cap` + 1 only (a live collection stops there). */
  const sizeUpTo = (el, cap) => {
    const all = el.getElementsByTagName('*');
    return all[cap] ? cap + 2 : all.length + 1;
  };

  function startTag(el) {
    let tag = `<${tagName(el)}`;
    for (const attribute of el.attributes) tag += ` ${attribute.name}="${escapeAttribute(attribute.value)}"`;
    return `${tag}>`;
  }

  /**
   * The HTML of `nodes` (siblings, in order) without DROP: copied into `inert`, a document with no
   * window (nothing loads there, and no page code runs: its custom elements are not upgraded),
   * what DROP matches removed from the copy, the copy serialised. All native calls.
   */
  function cleanHtml(inert, nodes) {
    const box = inert.createElement('div');
    for (const node of nodes) box.append(inert.importNode(node, true));
    for (const dropped of box.querySelectorAll(DROP)) dropped.remove();
    return box.innerHTML;
  }

  const escapeText = (s) => s.replace(/[&<>\u00a0]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '\u00a0': '&nbsp;' })[c]);

  /**
   * A batch's HTML: a text node escaped as the serialiser does, an element holding nothing of
   * DROP as its own outerHTML (the cheapest: one native call, no copy), the others through
   * cleanHtml. Comments are left out.
   */
  function batchHtml(inert, batch) {
    let html = '';
    let dirty = [];
    const flush = () => {
      if (dirty.length) html += cleanHtml(inert, dirty);
      dirty = [];
    };
    for (const { node, clean } of batch) {
      if (node.nodeType === Node.TEXT_NODE) {
        flush();
        html += escapeText(node.data);
      } else if (clean) {
        flush();
        html += node.outerHTML;
      } else {
        dirty.push(node);
      }
    }
    flush();
    return html;
  }

  /**
   * The document's HTML, without DROP, in slices of the main thread; null when the document
   * changed address meanwhile (`stillCurrent` false) or is too big. An element of more than
   * CHUNK_ELEMENTS elements is opened (its start tag written, its children taken in turn);
   * consecutive smaller children go in batches of about CHUNK_ELEMENTS elements (batchHtml).
   */
  async function serialise(stillCurrent) {
    const root = document.documentElement;
    if (!root) return null;
    const inert = document.implementation.createHTMLDocument('');
    if (sizeUpTo(root, CHUNK_ELEMENTS) <= CHUNK_ELEMENTS) return `${startTag(root)}${cleanHtml(inert, root.childNodes)}</html>`;
    await yieldTask();
    if (!stillCurrent()) return null;
    const parts = [];
    let length = 0;
    let sliceStart = performance.now();
    const slice = async () => {
      if (performance.now() - sliceStart <= SLICE_MS) return true;
      await yieldTask();
      sliceStart = performance.now();
      return stillCurrent();
    };
    const emit = (piece) => {
      parts.push(piece);
      length += piece.length;
    };
    // Depth-first, as a stack of elements to open, batches of small siblings, and end tags.
    const stack = [root];
    while (stack.length && length < MAX_HTML_CHARS) {
      if (!(await slice())) return null;
      const item = stack.pop();
      if (typeof item === 'string') {
        emit(item);
        continue;
      }
      if (item.batch) {
        emit(batchHtml(inert, item.batch));
        continue;
      }
      emit(startTag(item));
      // Its children, small ones batched, big ones opened in their turn (pushed in reverse below).
      const work = [];
      let batch = [];
      let batched = 0;
      const flush = () => {
        if (batch.length) work.push(batch);
        batch = [];
        batched = 0;
      };
      for (let child = item.firstChild; child; child = child.nextSibling) {
        if (!(await slice())) return null; // an element of thousands of children
        if (child.nodeType === Node.TEXT_NODE) {
          batch.push({ node: child });
        } else if (child.nodeType === Node.ELEMENT_NODE && !child.matches(DROP)) {
          const elements = sizeUpTo(child, CHUNK_ELEMENTS);
          if (elements > CHUNK_ELEMENTS) {
            flush();
            work.push(child);
            continue;
          }
          if (batched + elements > CHUNK_ELEMENTS) flush();
          batched += elements;
          batch.push({ node: child, clean: !child.querySelector(DROP) });
        }
      }
      flush();
      stack.push(`</${tagName(item)}>`);
      for (let i = work.length - 1; i >= 0; i -= 1) {
        const next = work[i];
        stack.push(Array.isArray(next) ? { batch: next } : next);
      }
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
    if (html === null) return;
    await yieldTask(); // the message is serialised in a task of its own (about 12 ms a million characters)
    if (!stillCurrent()) return;
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
