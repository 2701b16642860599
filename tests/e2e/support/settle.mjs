// Waiting for the event that proves some work is over, instead of sleeping and hoping it is.
//
//   await trackChromeCalls(ext.context);          // before the pages are opened
//   const popup = await openPopup(ext);
//   await waitForSettled(popup, STARTUP);          // its first reads are answered, nothing in flight
//   await flushEvents(ext, popup);                 // what it logged has reached node
//   ext.assertNoErrors();                          // now a negative check means something
//
// Failure limits here are generous on purpose: they bound how long a broken build takes to fail,
// never how fast a working one must be.
import { setTimeout as sleep } from 'node:timers/promises';

/**
 * The suite's one default failure limit (E2E_TIMEOUT_MS overrides it): generous, a shared 2-core
 * machine can be very slow. It bounds how long a broken build takes to fail, never how fast a
 * working one must be.
 */
export const LIMIT_MS = Number(process.env.E2E_TIMEOUT_MS || 30_000);

/**
 * Installed before a page's scripts: wraps the `chrome.*` functions the extension's pages call and
 * counts their promises still in flight (`__hcCalls.pending`) and those settled, per function
 * (`__hcCalls.done`). Extension pages call them through wasm-bindgen glue, which looks them up at
 * each call, so the wrappers see every call.
 */
function chromeCallTracker() {
  if (globalThis.__hcCalls || typeof chrome === 'undefined') return;
  const calls = (globalThis.__hcCalls = { pending: 0, done: {}, started: {} });
  const wrap = (owner, name, label) => {
    const original = owner?.[name];
    if (typeof original !== 'function') return;
    owner[name] = function (...args) {
      calls.started[label] = (calls.started[label] ?? 0) + 1;
      const result = original.apply(this, args);
      if (result && typeof result.then === 'function') {
        calls.pending++;
        // Registered before the caller's own reaction: when the caller chains a next call on this
        // one's answer, it starts in the same microtask checkpoint, so no poll sees a false "idle".
        const end = () => {
          calls.pending--;
          calls.done[label] = (calls.done[label] ?? 0) + 1;
        };
        result.then(end, end);
      } else {
        calls.done[label] = (calls.done[label] ?? 0) + 1;
      }
      return result;
    };
  };
  for (const area of ['sync', 'local']) {
    for (const fn of ['get', 'set', 'remove', 'clear']) wrap(chrome.storage?.[area], fn, `storage.${area}.${fn}`);
  }
  wrap(chrome.runtime, 'sendMessage', 'runtime.sendMessage');
  wrap(chrome.history, 'search', 'history.search');
}

/** Install the tracker in every page of `context` opened from now on. */
export async function trackChromeCalls(context) {
  await context.addInitScript(chromeCallTracker);
}

/** What the popup reads when it opens: the conversation (after the settings), and the worker's warm-up answer. */
export const POPUP_STARTUP = ['storage.sync.get', 'storage.local.get', 'runtime.sendMessage'];
/** What the options page reads when it opens. */
export const OPTIONS_STARTUP = ['storage.sync.get'];

/**
 * Waits until every function in `needed` has had a call answered in `page` and no tracked call is
 * in flight, then lets the page finish the tasks those answers started (the view updates). Needs
 * `trackChromeCalls` installed before the page was opened.
 */
export async function waitForSettled(page, needed = POPUP_STARTUP, { timeout = LIMIT_MS } = {}) {
  try {
    await page.waitForFunction(
      (needed) => {
        const c = globalThis.__hcCalls;
        if (!c) throw new Error('the chrome.* call tracker is not installed in this page (trackChromeCalls before opening it)');
        return c.pending === 0 && needed.every((label) => (c.done[label] ?? 0) > 0);
      },
      needed,
      { timeout, polling: 50 },
    );
  } catch (e) {
    const calls = await page.evaluate(() => globalThis.__hcCalls ?? null).catch(() => null);
    throw new Error(`${page.url()} did not settle (needed answers to ${needed.join(', ')}; tracker: ${JSON.stringify(calls)}): ${e.message}`);
  }
  // Microtasks (the view updating from those answers) have run once a new task starts.
  await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
}

/**
 * A message round trip with each page (and the extension's service worker): events they emitted
 * before it — console messages, uncaught errors, requests — are delivered to node before its
 * answer, so the harness's records are complete up to now.
 */
export async function flushEvents(ext, ...pages) {
  for (const page of pages) {
    if (!page.isClosed()) await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0)));
  }
  const worker = ext.serviceWorker;
  if (worker) await worker.evaluate(() => new Promise((resolve) => setTimeout(resolve, 0))).catch(() => {});
}

/**
 * Polls a condition on node's side (the harness's records) until it holds; `describe()` says what
 * was seen when it never does. The limit is for failing only.
 */
export async function waitUntil(condition, what, { timeout = LIMIT_MS, describe = () => '' } = {}) {
  const deadline = Date.now() + timeout;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not seen within ${timeout} ms. ${describe()}`);
    await sleep(25);
  }
}

/** A promise with its resolve function: a stand-in's reply held until the test lets it go. */
export function gate() {
  let open;
  const opened = new Promise((resolve) => {
    open = resolve;
  });
  return { opened, open: () => open() };
}

/**
 * The `.catch` of a wait whose condition the very next assertion checks again, with what was seen:
 * the wait's timeout cannot hide anything, that assertion reports it (with a better message).
 */
export function checkedBelow() {}

/** The `.catch` of a wait that proves a step: its timeout fails the test, saying what was awaited. */
export function failedWaiting(what) {
  return (e) => {
    throw new Error(`${what}: ${e.message}`);
  };
}

/**
 * Waits until the stored `chrome.storage[area]` item `key`, read from `page`, satisfies
 * `predicate(value)` (node's side); returns it. (Playwright's waitForFunction does not await an
 * async predicate: its promise is truthy at once, so storage is polled from here.)
 */
export async function waitForStored(page, predicate, what, { area = 'sync', key = 'settings', timeout = LIMIT_MS } = {}) {
  let value;
  await waitUntil(
    async () => {
      value = (await page.evaluate(([area, key]) => chrome.storage[area].get(key), [area, key]))[key];
      return predicate(value);
    },
    what,
    { timeout, describe: () => `stored ${area}.${key}: ${JSON.stringify(value)}` },
  );
  return value;
}
