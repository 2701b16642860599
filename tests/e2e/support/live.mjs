// Helpers for the local index in the real extension: the popup's as-you-type list, the browser's
// literal search called from an extension page, the worker's messages, and stopping the worker.
import assert from 'node:assert/strict';
import { SEL } from './popup.mjs';
import { cleanForTest } from './fixtures.mjs';
import { LIMIT_MS } from './settle.mjs';

export const LIVE = 'section[aria-label="Matches as you type"]';
/** The notice above as-you-type results the index could not give alone (while it is built). */
export const INDEXING_NOTICE = 'Indexing your history… meanwhile these come from Chrome\'s own search.';
export function isIndexingNotice(text) {
  return /^Indexing your history…/.test(text);
}

/** The as-you-type section as data: null when not shown. */
export async function readLive(page) {
  return page.evaluate((sel) => {
    const section = document.querySelector(sel);
    if (!section) return null;
    return {
      hrefs: [...section.querySelectorAll('ul[role="listbox"] a')].map((a) => a.getAttribute('href')),
      notices: [...section.querySelectorAll('p.notice')].map((p) => p.textContent.trim()),
    };
  }, LIVE);
}

/** Waits until the as-you-type list satisfies `predicate(live)`; returns it, or throws with what was shown. */
export async function waitForLive(page, predicate, what, timeout = LIMIT_MS) {
  const deadline = Date.now() + timeout;
  let live = null;
  while (Date.now() < deadline) {
    live = await readLive(page);
    if (live && predicate(live)) return live;
    await page.waitForTimeout(25);
  }
  throw new Error(`as-you-type list: ${what} not seen within ${timeout} ms; last shown: ${JSON.stringify(live)}`);
}

/** Clears the search box and types `text` key by key (real keyboard events). */
export async function typeSlowly(page, text, delay = 20) {
  const box = page.locator(SEL.search);
  await box.fill('');
  await box.focus();
  await page.keyboard.type(text, { delay });
}

/** `chrome.history.search` from an extension page, cleaned URLs (the browser's literal answer). */
export async function literalSearch(page, text, startTime = 0) {
  const items = await page.evaluate(([text, startTime]) => chrome.history.search({ text, startTime, maxResults: 100 }), [text, startTime]);
  return items.map((i) => {
    try {
      return cleanForTest(i.url);
    } catch {
      return i.url;
    }
  });
}

/** Sends a message to the extension's worker from an extension page. */
export async function askWorker(page, message) {
  const answer = await page.evaluate((m) => chrome.runtime.sendMessage(m), message);
  return readAnswer(answer);
}

/**
 * The worker's answer as `{ type, ...fields }`. On the wire it is externally tagged: `{ pages:
 * { pages: [...] } }`, or the bare name for an answer with no field.
 */
function readAnswer(answer) {
  if (typeof answer === 'string') return { type: answer };
  if (answer === null || typeof answer !== 'object') return answer;
  const names = Object.keys(answer);
  if (names.length !== 1) return answer;
  return { type: names[0], ...answer[names[0]] };
}

/** Asks `warm` until the worker answers `ready`; returns {pages, ms}. */
export async function waitForIndex(page, timeout = 60_000) {
  const started = Date.now();
  while (Date.now() - started < timeout) {
    const answer = await askWorker(page, { type: 'warm' });
    if (answer?.type === 'ready') return { pages: answer.pages, ms: Date.now() - started };
    await page.waitForTimeout(50);
  }
  throw new Error(`the worker's index was not ready within ${timeout} ms`);
}

/** Whether the worker's IndexedDB holds the index snapshot (read from an extension page: same origin). */
export async function snapshotBytes(page) {
  return page.evaluate(
    () =>
      new Promise((resolve) => {
        const open = indexedDB.open('history-chat');
        open.onerror = () => resolve(0);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('blobs')) return (db.close(), resolve(0));
          const get = db.transaction('blobs').objectStore('blobs').get('history-index');
          get.onsuccess = () => (db.close(), resolve(get.result ? get.result.byteLength : 0));
          get.onerror = () => (db.close(), resolve(0));
        };
      }),
  );
}

/** Deletes the index snapshot from the extension's IndexedDB (from an extension page; the worker must be stopped). */
export async function deleteSnapshot(page) {
  await page.evaluate(
    () =>
      new Promise((resolve, reject) => {
        const open = indexedDB.open('history-chat');
        open.onerror = () => reject(open.error);
        open.onsuccess = () => {
          const db = open.result;
          if (!db.objectStoreNames.contains('blobs')) return (db.close(), resolve());
          const tx = db.transaction('blobs', 'readwrite');
          tx.objectStore('blobs').delete('history-index');
          tx.oncomplete = () => (db.close(), resolve());
          tx.onerror = () => (db.close(), reject(tx.error));
        };
      }),
  );
}

export async function waitForSnapshot(page, timeout = LIMIT_MS) {
  const started = Date.now();
  while (Date.now() - started < timeout) {
    const bytes = await snapshotBytes(page);
    if (bytes > 0) return bytes;
    await page.waitForTimeout(200);
  }
  throw new Error(`no index snapshot in IndexedDB within ${timeout} ms`);
}

/**
 * Stops the extension's service worker, as Chrome does when it idles: DevTools protocol
 * `ServiceWorker.stopAllWorkers` on a page's session, and waits until the protocol reports the
 * extension's worker `stopped`. Returns a function that waits for it to run again.
 */
export async function stopServiceWorker(ext, page) {
  const cdp = await ext.context.newCDPSession(page);
  const origin = `chrome-extension://${ext.extensionId}/`;
  const statuses = [];
  let notify = () => {};
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const v of versions) if (v.scriptURL.startsWith(origin)) statuses.push(v.runningStatus);
    notify();
  });
  await cdp.send('ServiceWorker.enable');
  // Resolves once `status` is reported at or after position `from` of the status list.
  const waitFor = (status, from, timeout) =>
    new Promise((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the worker did not become ${status} within ${timeout} ms (statuses seen: ${statuses.join(', ')})`)),
        timeout,
      );
      notify = () => {
        if (statuses.slice(from).includes(status)) {
          clearTimeout(timer);
          resolve();
        }
      };
      notify();
    });
  const stopped = waitFor('stopped', statuses.length, 10_000);
  await cdp.send('ServiceWorker.stopAllWorkers');
  await stopped;
  const after = statuses.length;
  return {
    statuses,
    /** Waits until the worker runs again (woken by a message or an event). */
    running: (timeout = 10_000) => waitFor('running', after, timeout),
    detach: () => cdp.detach().catch(() => {}),
  };
}

/** Installed before the popup's scripts: focus time, and when the as-you-type section first shows an answer. */
export function instrument([search, live]) {
  window.__hc = { focusAt: undefined, liveAt: undefined, liveNotices: [], inputs: [], updates: [], indexingLines: [] };
  const hc = window.__hc;
  const poll = () => {
    if (hc.focusAt === undefined && document.activeElement?.matches?.(search)) hc.focusAt = performance.now();
    if (hc.focusAt === undefined) requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
  document.addEventListener('focusin', (e) => {
    if (hc.focusAt === undefined && e.target.matches?.(search)) hc.focusAt = performance.now();
  }, true);
  document.addEventListener('input', (e) => {
    if (e.target.matches?.(search)) hc.inputs.push(performance.now());
  }, true);
  new MutationObserver(() => {
    const line = document.querySelector('p.indexing')?.textContent?.trim();
    if (line && hc.indexingLines[hc.indexingLines.length - 1] !== line) hc.indexingLines.push(line);
    const section = document.querySelector(live);
    if (!section) return;
    const at = performance.now();
    hc.updates.push(at);
    if (hc.liveAt === undefined && section.querySelector('ul a, p.notice')) {
      hc.liveAt = at;
      hc.liveNotices = [...section.querySelectorAll('p.notice')].map((p) => p.textContent.trim());
      hc.liveHrefs = [...section.querySelectorAll('ul a')].map((a) => a.getAttribute('href'));
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

/** Opens the popup with `instrument` installed; resolves once the search box has focus. */
export async function instrumentedPopup(ext) {
  const page = await ext.context.newPage();
  await page.addInitScript(instrument, [SEL.search, LIVE]);
  await page.goto(ext.url('popup.html'), { waitUntil: 'domcontentloaded' });
  await page.waitForFunction(() => window.__hc.focusAt !== undefined, null, { timeout: LIMIT_MS });
  return page;
}

/**
 * Opens the popup and types `query` (one input event) as soon as the box has focus, as a user who
 * opens it with the keyboard shortcut and types at once. Returns ms from navigation start to focus
 * and to the first as-you-type answer, and that answer (its notices and links).
 */
export async function openAndAsk(ext, query) {
  const page = await instrumentedPopup(ext);
  await page.keyboard.insertText(query);
  await page.waitForFunction(() => window.__hc.liveAt !== undefined, null, { timeout: LIMIT_MS });
  const hc = await page.evaluate(() => window.__hc);
  await page.close();
  return { focusMs: hc.focusAt, answerMs: hc.liveAt, fromBrowser: hc.liveNotices.some(isIndexingNotice), notices: hc.liveNotices, hrefs: hc.liveHrefs };
}

export function assertIncludes(list, item, what) {
  assert.ok(list.includes(item), `${what}: expected ${item} in ${JSON.stringify(list, null, 1)}`);
}

/**
 * The address a tab was sent to: its current navigation entry (CDP). A tab opened behind may show
 * Chromium's error page (its first request can leave before Playwright's routing is attached to
 * it); its entry still holds the address it was asked to load.
 */
export async function tabAddress(ext, tab) {
  let cdp;
  try {
    cdp = await ext.context.newCDPSession(tab);
    const { currentIndex, entries } = await cdp.send('Page.getNavigationHistory');
    return entries[currentIndex]?.url ?? null;
  } catch (e) {
    // While the new tab swaps to the page's renderer, CDP may say it is "Not attached to an active
    // page": not known yet, asked again by the caller's wait.
    return `(not readable yet: ${e.message})`;
  } finally {
    // A session of a tab that closed or swapped renderers is detached already; anything else fails.
    await cdp?.detach().catch((e) => {
      if (!/closed|detached|not attached/i.test(e.message)) throw e;
    });
  }
}
