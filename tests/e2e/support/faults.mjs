// Faults injected at the browser-API boundary: chosen `chrome.*` calls of a chosen extension
// context (the popup, the options page, the service worker) fail for real, from the very first call
// the context makes, until the test releases them. Only the browser's API functions are wrapped;
// the extension's own code runs unchanged.
//
//   const ext = await launchExtension({ faults: true });      // the wrapper in the worker and the pages
//   const page = await ext.openPage('manifest.json');         // any extension page: they share storage.local
//   await armFault(page, 'options', 'storage.sync.get', { error: FAILED, times: 1 });
//   const options = await ext.openOptions();                  // its first settings read rejects
//   await waitForFaultUsed(page, 'options:storage.sync.get');
//   ...
//   await releaseFaults(page);
//
// How:
// - One fault script (`faultScript`), installed in the pages with `context.addInitScript` (before
//   their scripts, and before the chrome.* call tracker of settle.mjs, which then wraps the fault
//   wrapper and counts a rejected call as settled), and in the service worker through a copy of
//   dist (`faultedDist`) whose `service_worker.js` imports `test_faults.js` first. The manifest's
//   `key` keeps the extension id, so the profile templates apply to the copy as to dist.
// - The configuration lives in `chrome.storage.local` under `FAULTS_KEY`; each wrapped call reads
//   it (with the unwrapped `get`) before it goes to the browser, so a fault armed before a page
//   opens or a worker starts applies from its first call. Reads and writes of it take a Web Lock of
//   the extension's origin, so a fault armed `times: 1` fails one call, whichever contexts race.
// - The configuration is hidden from the extension: `storage.local.get` (and `getKeys`) never
//   return its key, and `storage.onChanged` listeners never hear of it.
// - Events (`armCorruptEvent`): the listeners of `chrome.history.onVisited` / `onVisitRemoved`
//   are called through one listener of the harness's, registered with the browser when the first
//   is added (as a worker's listeners must be, at its start); for each event it reads the faults
//   once, and every listener gets the same argument, corrupted or not, a moment later.
//
// What differs from the plain API, in a launch with `faults` only: each wrapped call goes to the
// browser after one read of storage.local (the order of a context's calls is kept); a call the
// browser would refuse at once (a malformed argument) rejects instead of throwing; the callback
// form of a function is never faulted. Opening an extension page in a tab is a visit of the
// browser's history (onVisited): a test corrupting "the next visit" first waits for a visit it
// made itself (faults_harness.test.mjs shows how), so that none of the earlier ones takes it.
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { copyFile, link, mkdir, mkdtemp, readdir, rename, rm, writeFile } from 'node:fs/promises';
import { createHash } from 'node:crypto';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { LIMIT_MS, waitUntil } from './settle.mjs';

/** The `chrome.storage.local` key holding the faults armed: `{ "<context>:<api>": fault }`. */
export const FAULTS_KEY = 'hc-test-faults';
/**
 * This Chromium's rejection when `chrome.storage.local` is full (10 MB without `unlimitedStorage`),
 * as faults_harness.test.mjs checks by filling it. (Chrome's documentation, and Chromes before
 * this one, say `QUOTA_BYTES quota exceeded`: `QUOTA_LOCAL_DOCUMENTED`.)
 */
export const QUOTA_LOCAL = 'Resource::kQuotaBytes quota exceeded';
/** This Chromium's rejection when one item of `chrome.storage.sync` is over 8 KB (checked likewise). */
export const QUOTA_SYNC_ITEM = 'Resource::kQuotaBytesPerItem quota exceeded';
/** The words of Chrome's documentation for the two above. */
export const QUOTA_LOCAL_DOCUMENTED = 'QUOTA_BYTES quota exceeded';
export const QUOTA_SYNC_ITEM_DOCUMENTED = 'QUOTA_BYTES_PER_ITEM quota exceeded';
/** A plain failure, not a quota (any message Chrome may give, such as a storage backend's). */
export const FAILED = 'Test fault: the browser refused this call';
/**
 * The contexts a fault is armed for: the worker, a page by its file name without `.html`, or all
 * of them (`*`; never the harness's own pages, such as manifest.json, which keep the plain API).
 */
export const CONTEXTS = ['worker', 'popup', 'options', '*'];
/** The functions that can be made to fail. */
export const APIS = [
  'storage.sync.get', 'storage.sync.set', 'storage.sync.remove',
  'storage.local.get', 'storage.local.set', 'storage.local.remove',
  'history.search', 'history.deleteUrl',
  // Thrown as a QuotaExceededError, from the faults the context last saw (waitForFaultSeen).
  'indexedDB.put',
];
/** The events whose argument can be corrupted, and what their listeners get by default then. */
export const CORRUPTED = {
  'history.onVisited': { url: 42 },
  'history.onVisitRemoved': { allHistory: 'x', urls: 7 },
};

/**
 * The fault script: runs in a context before any of its code (a page's init script, the worker's
 * first import) and wraps the `chrome.*` functions of `APIS` and the events of `CORRUPTED`. It
 * keeps, in `globalThis.__hcFaults`: `context`, `calls` (every wrapped call, in order: `{api,
 * fault}` with the key of the fault it failed with, or null), `used` (the faults applied: `{key,
 * api, error | corrupt}`) and `original` (the unwrapped storage functions, for the harness). Must
 * stay self-contained: it is serialised into the page and into the worker's copy.
 * @param {string} [context] 'worker' in the worker; in a page, found from its file name
 */
export function faultScript(context) {
  const KEY = 'hc-test-faults';
  if (globalThis.__hcFaults || typeof chrome === 'undefined' || !chrome.storage?.local) return;
  const local = chrome.storage.local;
  const localGet = local.get;
  const localSet = local.set;
  const localRemove = local.remove;
  const original = {
    get: (keys) => localGet.call(local, keys),
    set: (items) => localSet.call(local, items),
    remove: (keys) => localRemove.call(local, keys),
  };
  let wrapping = true;
  if (!context) {
    if (location.protocol !== 'chrome-extension:') return;
    const file = location.pathname.split('/').pop();
    context = file.replace(/\.html$/, '');
    // The harness's own pages (manifest.json) keep the plain API: only the extension's are faulted.
    wrapping = file.endsWith('.html');
  }
  const state = (globalThis.__hcFaults = { context, calls: [], used: [], original });
  if (!wrapping) return;
  if (globalThis.__hcCalls) {
    console.error('History Chat test faults: installed after the chrome.* call tracker, which then cannot count the faulted calls (install the faults first)');
  }
  const locked = (work) => (navigator.locks ? navigator.locks.request(KEY, work) : work());
  // The fault this use of `api` meets, if one is armed: one of its uses is taken, under the lock.
  const take = (api) =>
    locked(async () => {
      const faults = (await original.get(KEY))[KEY];
      if (!faults) return null;
      for (const key of [`${context}:${api}`, `*:${api}`]) {
        const fault = faults[key];
        if (!fault || fault.times === 0) continue; // times: a count left, or null until released
        fault.used = (fault.used ?? 0) + 1;
        if (typeof fault.times === 'number') fault.times -= 1;
        await original.set({ [KEY]: faults });
        const use = { key, api, ...(fault.corrupt ? { corrupt: true } : { error: fault.error }) };
        state.used.push(use);
        return { key, ...fault };
      }
      return null;
    });
  const hide = (items) => {
    if (!items || typeof items !== 'object' || !(KEY in items)) return items;
    const { [KEY]: _hidden, ...rest } = items;
    return rest;
  };

  const wrap = (owner, name, api, answer = (value) => value) => {
    const fn = owner?.[name];
    if (typeof fn !== 'function') return;
    owner[name] = function (...args) {
      const self = this;
      const last = args.length - 1;
      if (typeof args[last] === 'function') {
        // The callback form (not used by the extension) is passed through, never faulted.
        const callback = args[last];
        args[last] = (value) => callback(answer(value));
        return fn.apply(self, args);
      }
      return take(api).then((fault) => {
        state.calls.push({ api, fault: fault?.key ?? null });
        if (fault) throw new Error(fault.error);
        return fn.apply(self, args).then(answer);
      });
    };
  };
  for (const area of ['sync', 'local']) {
    for (const name of ['get', 'set', 'remove']) {
      wrap(chrome.storage[area], name, `storage.${area}.${name}`, area === 'local' && name === 'get' ? hide : undefined);
    }
  }
  if (typeof local.getKeys === 'function') {
    const getKeys = local.getKeys;
    local.getKeys = function (...args) {
      return getKeys.apply(this, args).then((keys) => keys.filter((k) => k !== KEY));
    };
  }
  wrap(chrome.history, 'search', 'history.search');
  wrap(chrome.history, 'deleteUrl', 'history.deleteUrl');

  // Listeners of an event through one listener of ours: `dispatch(args, call)` calls `call(args')`
  // with what each of them is to get. Added and removed as the extension does (the first one
  // registered with the browser at once, which is what wakes the worker for the event).
  const relay = (event, dispatch) => {
    if (!event?.addListener) return;
    const { addListener: add, removeListener: remove } = event; // the browser's own
    const listeners = [];
    const ours = function (...args) {
      const now = listeners.slice();
      dispatch(args, (given) => {
        for (const listener of now) {
          try {
            listener.apply(this, given);
          } catch (error) {
            // As the browser does: one listener's exception is reported, the others still run.
            setTimeout(() => {
              throw error;
            });
          }
        }
      });
    };
    event.addListener = (listener) => {
      if (listeners.includes(listener)) return;
      listeners.push(listener);
      if (listeners.length === 1) add.call(event, ours);
    };
    event.removeListener = (listener) => {
      const at = listeners.indexOf(listener);
      if (at < 0) return;
      listeners.splice(at, 1);
      if (!listeners.length) remove.call(event, ours);
    };
    event.hasListener = (listener) => listeners.includes(listener);
    event.hasListeners = () => listeners.length > 0;
  };
  // Events whose argument a fault may corrupt: one decision for each dispatch, every listener gets it.
  for (const [api, value] of Object.entries({ 'history.onVisited': { url: 42 }, 'history.onVisitRemoved': { allHistory: 'x', urls: 7 } })) {
    const [namespace, name] = api.split('.');
    relay(chrome[namespace]?.[name], (args, call) => {
      take(api).then(
        (fault) => {
          state.calls.push({ api, fault: fault?.key ?? null });
          call(fault?.corrupt ? ['value' in fault ? fault.value : value, ...args.slice(1)] : args);
        },
        (error) => {
          console.error(`History Chat test faults: could not read the faults for ${api}: ${error}`);
          call(args);
        },
      );
    });
  }
  // IndexedDB writes answer at once (a request object), so their fault is decided from the faults
  // as last seen — read now, then at each change of the harness's key — and met by throwing what
  // the browser throws when the origin's quota is reached: a QuotaExceededError.
  let seen = {};
  state.seen = () => seen;
  original.get(KEY).then((items) => {
    seen = items[KEY] ?? {};
  });
  chrome.storage.onChanged.addListener.call(chrome.storage.onChanged, (changes, area) => {
    if (area === 'local' && KEY in changes) seen = changes[KEY].newValue ?? {};
  });
  const store = globalThis.IDBObjectStore?.prototype;
  if (store) {
    const put = store.put;
    store.put = function (...args) {
      for (const key of [`${context}:indexedDB.put`, `*:indexedDB.put`]) {
        const fault = seen[key];
        if (!fault || fault.times === 0) continue;
        fault.used = (fault.used ?? 0) + 1;
        if (typeof fault.times === 'number') fault.times -= 1;
        state.used.push({ key, api: 'indexedDB.put', error: fault.error });
        state.calls.push({ api: 'indexedDB.put', fault: key });
        locked(async () => {
          const faults = (await original.get(KEY))[KEY] ?? {};
          const stored = faults[key];
          if (!stored) return;
          stored.used = (stored.used ?? 0) + 1;
          if (typeof stored.times === 'number') stored.times = Math.max(0, stored.times - 1);
          await original.set({ [KEY]: faults });
        });
        throw new DOMException(fault.error, 'QuotaExceededError');
      }
      state.calls.push({ api: 'indexedDB.put', fault: null });
      return put.apply(this, args);
    };
  }

  // Storage changes, without the harness's key (a change of nothing else is not delivered).
  for (const event of [chrome.storage.onChanged, local.onChanged]) {
    relay(event, ([changes, ...rest], call) => {
      if (changes && KEY in changes) {
        const others = hide(changes);
        if (Object.keys(others).length) call([others, ...rest]);
      } else {
        call([changes, ...rest]);
      }
    });
  }
}

// --- the worker: a copy of dist whose service worker imports the fault script first ---

const FAULTED_ROOT = path.join(tmpdir(), 'history-chat-e2e-faulted');
const made = new Map();

/**
 * A copy of the unpacked extension `dist` in which the service worker runs the fault script
 * before anything else: every file hard-linked (no bytes copied; copied only where linking is
 * refused), but the worker's script, which imports `test_faults.js` first. Made once per state of
 * dist (every file's path, size and time) and of this fault script, kept under the system's
 * temporary folder, and shared by the test processes of a run (made in a folder of its own, then
 * renamed into place). Keyed on every file, not only the worker's script: `scripts/build` writes
 * the worker's script before the model, and a copy made meanwhile must not outlive the build.
 * @returns {Promise<string>} the copy's folder
 */
export function faultedDist(dist) {
  const manifest = JSON.parse(readFileSync(path.join(dist, 'manifest.json'), 'utf8'));
  const script = manifest.background?.service_worker;
  if (!script) throw new Error(`${dist}: the manifest names no service worker to install the faults in`);
  const hash = createHash('sha256').update(`${path.resolve(dist)}\n${faultScript.toString()}\n`);
  for (const [file, { size, mtimeMs }] of statTree(dist)) hash.update(`${file} ${size} ${mtimeMs}\n`);
  const key = hash.digest('hex').slice(0, 16);
  if (!made.has(key)) made.set(key, makeFaulted(dist, script, manifest.background.type === 'module', key));
  return made.get(key);
}

function statTree(dir, rel = '', out = []) {
  for (const entry of readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const name = path.join(rel, entry.name);
    if (entry.isDirectory()) statTree(dir, name, out);
    else out.push([name, statSync(path.join(dir, name))]);
  }
  return out;
}

async function makeFaulted(dist, script, isModule, key) {
  const dir = path.join(FAULTED_ROOT, key);
  const copy = path.join(dir, 'dist');
  if (existsSync(path.join(copy, 'test_faults.js'))) return copy;
  await mkdir(FAULTED_ROOT, { recursive: true });
  const work = await mkdtemp(path.join(FAULTED_ROOT, `${key}.making-`));
  try {
    const into = path.join(work, 'dist');
    await linkTree(dist, into, new Set([path.normalize(script)]));
    const worker = readFileSync(path.join(dist, script), 'utf8');
    const first = isModule ? "import './test_faults.js';\n" : "importScripts('test_faults.js');\n";
    const faultsAt = path.join(into, path.dirname(script), 'test_faults.js');
    await writeFile(path.join(into, script), first + worker);
    await writeFile(faultsAt, `// Written by tests/e2e/support/faults.mjs: the fault script, before the worker's own code.\n(${faultScript.toString()})('worker');\n`);
    // (The import is relative to the worker's script: test_faults.js sits beside it.)
    await rename(work, dir).catch((e) => {
      // Another process renamed its own first: use that one.
      if (!existsSync(path.join(copy, 'test_faults.js'))) throw e;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return copy;
}

async function linkTree(from, to, skip, rel = '') {
  await mkdir(path.join(to, rel), { recursive: true });
  for (const entry of await readdir(path.join(from, rel), { withFileTypes: true })) {
    const name = path.join(rel, entry.name);
    if (entry.isDirectory()) await linkTree(from, to, skip, name);
    else if (!skip.has(name)) {
      await link(path.join(from, name), path.join(to, name)).catch((e) => {
        if (!['EXDEV', 'EPERM', 'EMLINK'].includes(e.code)) throw e;
        return copyFile(path.join(from, name), path.join(to, name));
      });
    }
  }
}

/** Installs the fault script in every page of `context` opened from now on (launchExtension does, with `faults`). */
export async function installFaultsInPages(context) {
  await context.addInitScript(faultScript);
}

// --- arming and releasing, from node: `page` is any open extension page, or the worker ---

// Runs in the page: `work(store)` with the unwrapped storage functions, under the faults' lock.
async function inPage(page, work, arg) {
  return page.evaluate(
    async ({ work, arg, KEY }) => {
      const plain = globalThis.__hcFaults?.original ?? {
        get: (keys) => chrome.storage.local.get(keys),
        set: (items) => chrome.storage.local.set(items),
        remove: (keys) => chrome.storage.local.remove(keys),
      };
      const run = new Function('store', 'arg', `return (${work})(store, arg);`);
      const store = {
        read: async () => (await plain.get(KEY))[KEY] ?? {},
        write: (faults) => plain.set({ [KEY]: faults }),
        clear: () => plain.remove(KEY),
      };
      return navigator.locks.request(KEY, () => run(store, arg));
    },
    { work: work.toString(), arg, KEY: FAULTS_KEY },
  );
}

function checkKey(context, api) {
  if (!CONTEXTS.includes(context)) throw new Error(`unknown fault context ${JSON.stringify(context)} (one of ${CONTEXTS.join(', ')})`);
  if (!APIS.includes(api) && !(api in CORRUPTED)) throw new Error(`unknown API ${JSON.stringify(api)} (one of ${[...APIS, ...Object.keys(CORRUPTED)].join(', ')})`);
  return `${context}:${api}`;
}

/**
 * Makes the next `times` calls of `api` in `context` reject with `new Error(error)` (`times: null`:
 * every call until released). Replaces a fault armed for the same key. Returns its key.
 */
export async function armFault(page, context, api, { error = FAILED, times = 1 } = {}) {
  if (!APIS.includes(api)) throw new Error(`unknown API ${JSON.stringify(api)} (one of ${APIS.join(', ')})`);
  if (!(times === null || (Number.isInteger(times) && times > 0))) throw new Error(`times: a count above 0, or null for "until released" (got ${times})`);
  const key = checkKey(context, api);
  await inPage(page, async (store, { key, fault }) => store.write({ ...(await store.read()), [key]: fault }), { key, fault: { error, times, used: 0 } });
  return key;
}

/**
 * Gives the listeners of `event` ('history.onVisited' or 'history.onVisitRemoved') in the worker
 * (or `context`) a corrupted argument for the next `times` events (null: until released): by
 * default `CORRUPTED[event]`, or `value`. Returns the fault's key.
 */
export async function armCorruptEvent(page, event, times = 1, { context = 'worker', value } = {}) {
  if (!(event in CORRUPTED)) throw new Error(`unknown event ${JSON.stringify(event)} (one of ${Object.keys(CORRUPTED).join(', ')})`);
  if (!(times === null || (Number.isInteger(times) && times > 0))) throw new Error(`times: a count above 0, or null for "until released" (got ${times})`);
  const key = checkKey(context, event);
  const fault = { corrupt: true, times, used: 0, ...(value === undefined ? {} : { value }) };
  await inPage(page, async (store, { key, fault }) => store.write({ ...(await store.read()), [key]: fault }), { key, fault });
  return key;
}

/** Releases every fault (the calls after it reach the browser). */
export async function releaseFaults(page) {
  await inPage(page, (store) => store.clear());
}

/** The faults as stored now: `{ key: { error | corrupt, times, used } }` (`times` 0: consumed). */
export async function faultsLeft(page) {
  return inPage(page, (store) => store.read());
}

/**
 * Waits until the fault `key` has been met `uses` times (by default: all its uses, or one for a
 * fault armed until released); returns it as stored. The limit is for failing only.
 */
export async function waitForFaultUsed(page, key, { uses, timeout = LIMIT_MS } = {}) {
  let fault;
  await waitUntil(
    async () => {
      fault = (await faultsLeft(page))[key];
      if (!fault) return false;
      const wanted = uses ?? (fault.times === null ? 1 : fault.used + fault.times);
      return fault.used >= wanted;
    },
    `the fault ${key} used${uses ? ` ${uses} time(s)` : ''}`,
    { timeout, describe: () => `It is stored as ${JSON.stringify(fault ?? null)}.` },
  );
  return fault;
}

/** What the fault script recorded in `page` (or the worker): `{ context, calls, used }`. */
export async function faultRecord(page) {
  return page.evaluate(() => {
    const f = globalThis.__hcFaults;
    return f ? { context: f.context, calls: f.calls, used: f.used } : null;
  });
}

/**
 * Waits until `target` (a page, or `ext.serviceWorker`) has seen the fault `key` armed: the
 * synchronous faults (`indexedDB.put`) are decided from what the context last saw of the faults.
 */
export async function waitForFaultSeen(target, key, { timeout = LIMIT_MS } = {}) {
  await waitUntil(async () => Boolean(await target.evaluate((key) => globalThis.__hcFaults?.seen?.()?.[key]?.times !== 0 && globalThis.__hcFaults?.seen?.()?.[key] !== undefined, key)), `the fault ${key} seen by ${target.url()}`, { timeout });
}
