// The page reader's extraction, in the offscreen document (embedder.html, reasons WORKERS and
// DOM_PARSER: the one document that also hosts the embedding model's worker). It answers the
// service worker's requests addressed to it (src/offscreen.js in the bindings):
//
//   { target: 'reader', kind: 'html', url, html } → a page's main text: DOMParser, then form
//     controls, editable regions and scripts removed, then Mozilla's Readability (vendor/, pinned
//     in package-lock.json) with the page's address as its base;
//   { target: 'reader', kind: 'pdf', url } → a PDF's text: fetched from its address (no cookies;
//     the browser's cache when it has it), checked to be a PDF, every page's text through pdf.js
//     (vendor/, its worker too);
//   { target: 'reader', kind: 'url', url } → a page downloaded again (a catch-up, a bookmarked
//     page; no cookies): by its media type, HTML read as 'html' is, a PDF as 'pdf' is, an image
//     through OCR; any other type 'not-pdf'.
//
// OCR (tesseract.js, its worker, core and the English and French data in vendor/tesseract/, pinned
// in package-lock.json): a PDF page whose text layer holds fewer than SCAN_CHARS_PER_PAGE
// characters (a scan) is drawn by pdf.js and read by OCR; an image is read whole. One tesseract
// worker per document, terminated once it is read (its memory goes with it), and nothing cached:
// the language data is read from the extension's own files each time.
//
// Either answers { title, text, lang, words } (text: one block, a paragraph, heading or list item,
// per line, whitespace otherwise collapsed; lang: the page's declared language or null; words: the
// text's words, by Intl.Segmenter) or { error, message }: 'no-text' (nothing readable; for a PDF,
// a text layer nearly empty: a scan), 'too-large', 'not-pdf', 'unreachable' (the network or an
// HTTP status), 'timeout', 'unreadable' (a document the parser refused), 'bad-request'. A message
// never holds the page's address or text; nothing is logged.
//
// Bounds, each with its reason:
// - HTML: at most MAX_HTML_CHARS characters (the content script cuts at 600,000; this leaves it
//   room) and MAX_ELEMENTS elements (Readability's own maxElemsToParse: its scoring is quadratic in
//   bad cases; the content script's cut keeps real pages well below).
// - PDF: at most MAX_PDF_BYTES bytes (a book or a long report; larger ones are scans or
//   image-heavy far more often than text), the first MAX_PDF_PAGES pages, PDF_TIME_MS for the
//   whole (fetch and parse); one PDF at a time (pdf.js's worker holds the whole file in memory).
// - Text: the first MAX_TEXT_CHARS characters (about 80,000 words: far more than the passages
//   kept of a page), for both.
// - A PDF whose pages hold fewer than SCAN_WORDS_PER_PAGE words on average, once its scanned pages
//   went through OCR, has nothing to read: 'no-text'.
// - OCR: at most MAX_OCR_PAGES pages of a PDF (the first scanned ones), drawn at OCR_SCALE (about
//   200 dpi: what Tesseract reads best) and at most MAX_OCR_PIXELS; OCR_TIME_MS for a document's
//   OCR, after which the pages left are not read; an image of at most MAX_IMAGE_BYTES.

const MAX_HTML_CHARS = 2_000_000;
const MAX_ELEMENTS = 150_000;
const MAX_TEXT_CHARS = 500_000;
const MAX_PDF_BYTES = 32 * 1024 * 1024;
const MAX_PDF_PAGES = 300;
const PDF_TIME_MS = 30_000;
const SCAN_WORDS_PER_PAGE = 5;
const SCAN_CHARS_PER_PAGE = 20;
const MAX_OCR_PAGES = 20;
const OCR_SCALE = 200 / 72;
const MAX_OCR_PIXELS = 3000 * 3000;
const OCR_TIME_MS = 120_000;
const MAX_IMAGE_BYTES = 20 * 1024 * 1024;
const OCR_LANGUAGES = ['eng', 'fra'];

// What the text never holds: form controls (never their values), editable regions, scripts (JSON-LD
// metadata is data, kept for Readability's title), styles.
const REMOVED = 'input, textarea, select, [contenteditable], script:not([type="application/ld+json" i]), ' +
  'noscript, template, style';

const BLOCKS = new Set([
  'ADDRESS', 'ARTICLE', 'ASIDE', 'BLOCKQUOTE', 'BR', 'CAPTION', 'DD', 'DETAILS', 'DIALOG', 'DIV', 'DL',
  'DT', 'FIELDSET', 'FIGCAPTION', 'FIGURE', 'FOOTER', 'FORM', 'H1', 'H2', 'H3', 'H4', 'H5', 'H6', 'HEADER',
  'HGROUP', 'HR', 'LI', 'MAIN', 'NAV', 'OL', 'P', 'PRE', 'SECTION', 'SUMMARY', 'TABLE', 'TR', 'UL',
]);
const CELLS = new Set(['TD', 'TH']);

class ReaderError extends Error {
  constructor(code, message) {
    super(message);
    this.code = code;
  }
}

/** Lines of text: whitespace collapsed in each, empty lines dropped, cut at MAX_TEXT_CHARS. */
function tidy(raw) {
  const lines = [];
  let length = 0;
  for (const line of raw.split('\n')) {
    const tidied = line.replace(/\s+/g, ' ').trim();
    if (!tidied) continue;
    lines.push(tidied);
    length += tidied.length + 1;
    if (length >= MAX_TEXT_CHARS) break;
  }
  const text = lines.join('\n');
  return text.length > MAX_TEXT_CHARS ? text.slice(0, MAX_TEXT_CHARS) : text;
}

/** An element's text with a line break at each block's edges (innerText needs a layout). */
function blockText(root) {
  const parts = [];
  const walk = (node, pre) => {
    for (let child = node.firstChild; child; child = child.nextSibling) {
      if (child.nodeType === Node.TEXT_NODE) {
        parts.push(pre ? child.data : child.data.replace(/\s+/g, ' '));
      } else if (child.nodeType === Node.ELEMENT_NODE) {
        const tag = child.tagName.toUpperCase();
        const block = BLOCKS.has(tag);
        if (block) parts.push('\n');
        else if (CELLS.has(tag)) parts.push(' ');
        walk(child, pre || tag === 'PRE');
        if (block) parts.push('\n');
      }
    }
  };
  walk(root, false);
  return tidy(parts.join(''));
}

function countWords(text, lang) {
  let segmenter;
  try {
    segmenter = new Intl.Segmenter(lang || undefined, { granularity: 'word' });
  } catch {
    segmenter = new Intl.Segmenter(undefined, { granularity: 'word' });
  }
  let words = 0;
  for (const segment of segmenter.segment(text)) if (segment.isWordLike) words += 1;
  return words;
}

const oneLine = (s, max) => (s || '').replace(/\s+/g, ' ').trim().slice(0, max);

function webAddress(url) {
  let parsed;
  try {
    parsed = new URL(url);
  } catch {
    throw new ReaderError('bad-request', 'not an address');
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') throw new ReaderError('bad-request', 'not an http(s) address');
  return parsed;
}

const classicScripts = new Map();

/**
 * Loads a vendor classic script (`src`, under the document's own address) once and resolves with
 * what it defines (`defined()`: the global, or null when it did not define it); a failed load is
 * tried again by the next call.
 */
function loadClassicScript(src, defined) {
  let loading = classicScripts.get(src);
  if (!loading) {
    loading = new Promise((resolve, reject) => {
      const script = document.createElement('script');
      script.src = src;
      script.onload = () => {
        const value = defined();
        if (value) resolve(value);
        else reject(new Error(`${src} did not load`));
      };
      script.onerror = () => reject(new Error(`${src} did not load`));
      document.head.append(script);
    }).catch((error) => {
      classicScripts.delete(src);
      throw error;
    });
    classicScripts.set(src, loading);
  }
  return loading;
}

// --- HTML ---------------------------------------------------------------------------------------

/** Readability, loaded on the first page read. */
const loadReadability = () => loadClassicScript('vendor/Readability.js', () =>
  (typeof globalThis.Readability === 'function' ? globalThis.Readability : null));

async function readHtml(url, html) {
  const address = webAddress(url);
  if (typeof html !== 'string') throw new ReaderError('bad-request', 'no HTML');
  if (html.length > MAX_HTML_CHARS) throw new ReaderError('too-large', `more than ${MAX_HTML_CHARS} characters`);
  const Readability = await loadReadability();
  const doc = new DOMParser().parseFromString(html, 'text/html');
  for (const element of doc.querySelectorAll(REMOVED)) element.remove();
  // Relative addresses resolve against the page, not this document (Readability reads baseURI).
  const base = doc.querySelector('base[href]');
  let baseHref = address.href;
  try {
    if (base) baseHref = new URL(base.getAttribute('href'), address.href).href;
  } catch {
    // A base the page got wrong: the page's own address.
  }
  doc.querySelectorAll('base').forEach((element) => element.remove());
  const newBase = doc.createElement('base');
  newBase.setAttribute('href', baseHref);
  doc.head.prepend(newBase);

  const declaredLang = oneLine(doc.documentElement.getAttribute('lang') ||
    doc.querySelector('meta[http-equiv="content-language" i]')?.getAttribute('content'), 35) || null;
  const pageTitle = oneLine(doc.title, 500);
  let article;
  try {
    article = new Readability(doc, { maxElemsToParse: MAX_ELEMENTS, serializer: (element) => element }).parse();
  } catch (error) {
    if (/elements found/.test(String(error?.message))) throw new ReaderError('too-large', `more than ${MAX_ELEMENTS} elements`);
    throw new ReaderError('unreadable', 'Readability failed');
  }
  const text = article?.content ? blockText(article.content) : '';
  if (!text) throw new ReaderError('no-text', 'no readable text');
  const lang = oneLine(article.lang, 35) || declaredLang;
  return { title: oneLine(article.title, 500) || pageTitle, text, lang, words: countWords(text, lang) };
}

// --- PDF ----------------------------------------------------------------------------------------

let pdfjs = null;

function loadPdfjs() {
  if (!pdfjs) {
    pdfjs = import('./vendor/pdf.min.mjs')
      .then((module) => {
        module.GlobalWorkerOptions.workerSrc = new URL('vendor/pdf.worker.min.mjs', location.href).href;
        return module;
      })
      .catch((error) => {
        pdfjs = null;
        throw error;
      });
  }
  return pdfjs;
}

/** The body's bytes, or 'too-large' past `max`. */
async function boundedBytes(response, max) {
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      reader.cancel().catch(() => {});
      throw new ReaderError('too-large', `more than ${max} bytes`);
    }
    chunks.push(value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return bytes;
}

/** A PDF starts with `%PDF-` (readers accept it within the first 1,024 bytes). */
function isPdf(bytes) {
  const head = new TextDecoder('latin1').decode(bytes.subarray(0, 1024));
  return head.includes('%PDF-');
}

/** The answer at `url`, without cookies (the browser's cache when it has it), and its media type. */
async function download(url, signal) {
  const address = webAddress(url);
  let response;
  try {
    response = await fetch(address.href, { credentials: 'omit', cache: 'force-cache', redirect: 'follow', referrerPolicy: 'no-referrer', signal });
  } catch (error) {
    if (signal.aborted) throw new ReaderError('timeout', `no answer within ${PDF_TIME_MS} ms`);
    throw new ReaderError('unreachable', String(error?.name || 'fetch failed'));
  }
  if (!response.ok) {
    response.body?.cancel().catch(() => {});
    throw new ReaderError('unreachable', `HTTP ${response.status}`);
  }
  const type = (response.headers.get('content-type') || '').split(';')[0].trim().toLowerCase();
  return { response, type };
}

/** A downloaded answer's bytes, at most `max`, or the error that says why not. */
async function downloadedBytes(response, max, signal) {
  const declared = Number(response.headers.get('content-length'));
  if (declared > max) {
    response.body?.cancel().catch(() => {});
    throw new ReaderError('too-large', `more than ${max} bytes`);
  }
  try {
    return await boundedBytes(response, max);
  } catch (error) {
    if (error instanceof ReaderError) throw error;
    if (signal.aborted) throw new ReaderError('timeout', `no answer within ${PDF_TIME_MS} ms`);
    throw new ReaderError('unreachable', 'the download stopped');
  }
}

async function readPdf(url, deadline, signal) {
  const { response, type } = await download(url, signal);
  if (/^(text\/|image\/|application\/(json|xml|xhtml))/.test(type)) {
    response.body?.cancel().catch(() => {});
    throw new ReaderError('not-pdf', `served as ${type}`);
  }
  return pdfText(await downloadedBytes(response, MAX_PDF_BYTES, signal), deadline, signal);
}

/** A PDF's text from its bytes, through pdf.js. */
async function pdfText(bytes, deadline, signal) {
  if (!isPdf(bytes)) throw new ReaderError('not-pdf', 'no PDF header');

  const { getDocument } = await loadPdfjs();
  const task = getDocument({
    data: bytes,
    isEvalSupported: false,
    disableFontFace: true,
    useSystemFonts: false,
    disableAutoFetch: true,
    disableStream: true,
    disableRange: true,
    enableXfa: false,
    stopAtErrors: false,
    verbosity: 0,
    // Images decoded to plain pixels, not to bitmaps in memory shared with the browser: a scanned
    // page drawn for OCR left its 15 MB bitmap behind, for every PDF (measured over 50).
    isImageDecoderSupported: false,
    isOffscreenCanvasSupported: false,
  });
  const late = () => {
    if (performance.now() > deadline) throw new ReaderError('timeout', `no answer within ${PDF_TIME_MS} ms`);
  };
  // Every await below gives up at the deadline (task.destroy() then stops pdf.js's worker).
  const timedOut = new Promise((_, reject) => {
    const check = () => reject(new ReaderError('timeout', `no answer within ${PDF_TIME_MS} ms`));
    signal.addEventListener('abort', check, { once: true });
  });
  timedOut.catch(() => {});
  const bounded = (promise) => Promise.race([promise, timedOut]);
  try {
    let doc;
    try {
      doc = await bounded(task.promise);
    } catch (error) {
      if (error instanceof ReaderError) throw error;
      throw new ReaderError('unreadable', String(error?.name || 'pdf.js refused the file'));
    }
    const pages = Math.min(doc.numPages, MAX_PDF_PAGES);
    // Each page's text; a scanned page's (almost no text layer) is read by OCR after the others.
    const pageTexts = [];
    const scanned = [];
    let length = 0;
    let lang = null;
    let read = 0;
    for (let number = 1; number <= pages && length < MAX_TEXT_CHARS; number += 1) {
      late();
      const page = await bounded(doc.getPage(number));
      const content = await bounded(page.getTextContent());
      lang ||= content.lang || null;
      const parts = [];
      for (const item of content.items) {
        if (typeof item.str !== 'string') continue;
        parts.push(item.str, item.hasEOL ? '\n' : '');
        length += item.str.length + 1;
      }
      const pageText = parts.join('');
      if (pageText.replace(/\s+/g, '').length < SCAN_CHARS_PER_PAGE && scanned.length < MAX_OCR_PAGES) scanned.push(number);
      pageTexts.push(pageText);
      page.cleanup();
      read += 1;
    }
    let title = '';
    try {
      const metadata = await bounded(doc.getMetadata());
      title = oneLine(metadata?.info?.Title, 500);
    } catch (error) {
      if (error instanceof ReaderError) throw error;
      // No metadata: the first line stands for the title.
    }
    if (scanned.length) {
      // The text layer's deadline no longer holds (read before it): OCR has its own.
      const ocrDeadline = performance.now() + OCR_TIME_MS;
      const ocr = ocrSession(ocrDeadline);
      try {
        for (const number of scanned) {
          try {
            const page = await beforeDeadline(doc.getPage(number), ocrDeadline);
            const canvas = await drawnPage(page, ocrDeadline);
            try {
              const found = await ocr.read(canvas);
              pageTexts[number - 1] = `${pageTexts[number - 1]}\n${found}`;
            } finally {
              canvas.width = 0;
              canvas.height = 0;
              page.cleanup();
            }
          } catch (error) {
            // Past the OCR's time: the pages left keep their (empty) text layer.
            if (error instanceof ReaderError && error.code === 'timeout') break;
            throw error;
          }
        }
      } finally {
        await ocr.end();
      }
    }
    const text = tidy(pageTexts.join('\n'));
    lang = oneLine(lang, 35) || null;
    const words = countWords(text, lang);
    if (words < SCAN_WORDS_PER_PAGE * Math.max(read, 1)) throw new ReaderError('no-text', 'almost no text layer');
    return { title: title || oneLine(text.split('\n', 1)[0], 200), text, lang, words };
  } finally {
    await task.destroy().catch(() => {});
  }
}

// --- OCR ----------------------------------------------------------------------------------------

/** tesseract.js, loaded on the first scan or image read. */
const loadTesseract = () => loadClassicScript('vendor/tesseract/tesseract.min.js', () =>
  (typeof globalThis.Tesseract?.createWorker === 'function' ? globalThis.Tesseract : null));

/**
 * An OCR session for one document: `read(canvas)` gives the text Tesseract finds (English and
 * French), `end()` terminates its worker. Started on the first page that needs it.
 */
function ocrSession(deadline) {
  let worker = null;
  const vendor = new URL('vendor/tesseract/', location.href).href;
  return {
    async read(canvas) {
      if (performance.now() > deadline) throw new ReaderError('timeout', `no OCR within ${OCR_TIME_MS} ms`);
      if (!worker) {
        const { createWorker, OEM } = await loadTesseract();
        worker = await createWorker(OCR_LANGUAGES, OEM.LSTM_ONLY, {
          workerPath: `${vendor}worker.min.js`,
          corePath: `${vendor}tesseract-core-simd-lstm.wasm.js`,
          langPath: `${vendor}lang`,
          workerBlobURL: false,
          cacheMethod: 'none',
          gzip: true,
        });
      }
      const { data } = await beforeDeadline(worker.recognize(canvas), deadline);
      return typeof data?.text === 'string' ? data.text : '';
    },
    async end() {
      const ending = worker;
      worker = null;
      if (ending) await ending.terminate().catch(() => {});
    },
  };
}

/** `promise`, or 'timeout' at `deadline` (performance.now()'s clock). */
function beforeDeadline(promise, deadline) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new ReaderError('timeout', `no OCR within ${OCR_TIME_MS} ms`)), Math.max(0, deadline - performance.now()));
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

/** A canvas of `width` × `height` scaled down to at most MAX_OCR_PIXELS, and the scale used. */
function ocrCanvas(width, height) {
  const fit = Math.min(1, Math.sqrt(MAX_OCR_PIXELS / Math.max(1, width * height)));
  const canvas = document.createElement('canvas');
  canvas.width = Math.max(1, Math.floor(width * fit));
  canvas.height = Math.max(1, Math.floor(height * fit));
  return { canvas, fit };
}

/** A pdf.js page drawn for OCR (white behind it: a scan's transparent parts read as paper). */
async function drawnPage(page, deadline) {
  const full = page.getViewport({ scale: OCR_SCALE });
  const { canvas, fit } = ocrCanvas(full.width, full.height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  // 'print': drawn in one go. The 'display' intent paces its work on animation frames, which a
  // hidden document such as this one never gets.
  const viewport = page.getViewport({ scale: OCR_SCALE * fit });
  const task = page.render({ canvas, canvasContext: context, viewport, intent: 'print' });
  try {
    await beforeDeadline(task.promise, deadline);
  } catch (error) {
    task.cancel();
    throw error;
  }
  return canvas;
}

/** An image's text, by OCR: its bytes decoded by the browser, drawn at most MAX_OCR_PIXELS. */
async function imageText(bytes, type) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(new Blob([bytes], { type }));
  } catch {
    throw new ReaderError('unreadable', 'the image could not be decoded');
  }
  const { canvas } = ocrCanvas(bitmap.width, bitmap.height);
  const context = canvas.getContext('2d');
  context.fillStyle = '#fff';
  context.fillRect(0, 0, canvas.width, canvas.height);
  context.drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const ocr = ocrSession(performance.now() + OCR_TIME_MS);
  let raw;
  try {
    raw = await ocr.read(canvas);
  } finally {
    await ocr.end();
  }
  const text = tidy(raw);
  const words = countWords(text, null);
  if (!words) throw new ReaderError('no-text', 'no text in the image');
  return { title: oneLine(text.split('\n', 1)[0], 200), text, lang: null, words };
}

// One PDF at a time: pdf.js holds the whole file, and its worker a second copy.
let pdfQueue = Promise.resolve();

function queuedPdf(url) {
  const run = pdfQueue.then(async () => {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), PDF_TIME_MS);
    try {
      return await readPdf(url, performance.now() + PDF_TIME_MS, controller.signal);
    } finally {
      clearTimeout(timer);
    }
  });
  pdfQueue = run.catch(() => {});
  return run;
}

/**
 * A page downloaded again from its site (a catch-up): by the answer's media type, a web page read
 * as readHtml reads one, a PDF as readPdf does; anything else is 'not-pdf' (nothing to read).
 */
async function readUrl(url) {
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), PDF_TIME_MS);
  try {
    const { response, type } = await download(url, controller.signal);
    if (type === 'text/html' || type === 'application/xhtml+xml') {
      const bytes = await downloadedBytes(response, MAX_HTML_CHARS, controller.signal);
      const charset = /charset=([^;]+)/i.exec(response.headers.get('content-type') || '')?.[1]?.trim();
      let html;
      try {
        html = new TextDecoder(charset || 'utf-8').decode(bytes);
      } catch {
        html = new TextDecoder('utf-8').decode(bytes);
      }
      return await readHtml(url, html);
    }
    if (type === 'application/pdf' || type === 'application/octet-stream' || type === '') {
      const bytes = await downloadedBytes(response, MAX_PDF_BYTES, controller.signal);
      const run = pdfQueue.then(() => pdfText(bytes, performance.now() + PDF_TIME_MS, controller.signal));
      pdfQueue = run.catch(() => {});
      return await run;
    }
    if (/^image\/(png|jpeg|webp|gif|bmp)$/.test(type)) {
      const bytes = await downloadedBytes(response, MAX_IMAGE_BYTES, controller.signal);
      clearTimeout(timer);
      const run = pdfQueue.then(() => imageText(bytes, type));
      pdfQueue = run.catch(() => {});
      return await run;
    }
    response.body?.cancel().catch(() => {});
    throw new ReaderError('not-pdf', `served as ${type}`);
  } finally {
    clearTimeout(timer);
  }
}

chrome.runtime.onMessage.addListener((message, _sender, sendResponse) => {
  if (!message || message.target !== 'reader') return false;
  const work = message.kind === 'html'
    ? readHtml(message.url, message.html)
    : message.kind === 'pdf'
      ? queuedPdf(message.url)
      : message.kind === 'url'
        ? readUrl(message.url)
        : Promise.reject(new ReaderError('bad-request', 'unknown kind'));
  work.then(sendResponse, (error) => {
    sendResponse(error instanceof ReaderError
      ? { error: error.code, message: error.message }
      : { error: 'unreadable', message: String(error?.name || 'failed') });
  });
  return true; // answered when the work is done
});
