// A few promise wrappers over IndexedDB for the bindings crate (imported by src/idb.rs): one
// database with three object stores — binary blobs keyed by name (the index snapshot), and two
// stores of binary records keyed by a page's URL: topic search's vectors, and the pages' read
// content.
const DB_NAME = 'history-chat';
const BLOBS = 'blobs';
const RECORD_STORES = ['vectors', 'content'];
let opening = null;

function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(DB_NAME, 3);
      request.onupgradeneeded = () => {
        const db = request.result;
        for (const name of [BLOBS, ...RECORD_STORES]) {
          if (!db.objectStoreNames.contains(name)) db.createObjectStore(name);
        }
      };
      request.onsuccess = () => {
        const db = request.result;
        // Another version opened elsewhere: let it upgrade, reopen next time.
        db.onversionchange = () => { db.close(); opening = null; };
        resolve(db);
      };
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error('IndexedDB is blocked by another open version'));
    });
    opening.catch(() => { opening = null; });
  }
  return opening;
}

// Runs `action` in one transaction; resolves with the last request's result once the transaction
// has committed (so a write is durable when its promise resolves). A rejected promise carries the
// DOMException, whose name says e.g. 'QuotaExceededError'.
function run(store, mode, action) {
  return open().then((db) => new Promise((resolve, reject) => {
    const transaction = db.transaction(store, mode);
    const request = action(transaction.objectStore(store));
    transaction.oncomplete = () => resolve(request ? request.result : undefined);
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error || new Error('IndexedDB transaction aborted'));
  }));
}

export function idbGet(key) {
  return run(BLOBS, 'readonly', (store) => store.get(key)).then((value) => (value instanceof Uint8Array ? value : null));
}

export function idbPut(key, bytes) {
  return run(BLOBS, 'readwrite', (store) => store.put(bytes, key)).then(() => undefined);
}

// Only the record stores are named by the Rust side.
function recordStore(name) {
  if (!RECORD_STORES.includes(name)) throw new Error(`no record store ${name}`);
  return name;
}

// Every record of a store as [key, bytes] pairs (keys and values read in one transaction, in key
// order).
export function recordsAll(name) {
  return open().then((db) => new Promise((resolve, reject) => {
    const transaction = db.transaction(recordStore(name), 'readonly');
    const store = transaction.objectStore(name);
    const keys = store.getAllKeys();
    const values = store.getAll();
    transaction.oncomplete = () => resolve(keys.result
      .map((key, i) => [key, values.result[i]])
      .filter(([key, value]) => typeof key === 'string' && value instanceof Uint8Array));
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error || new Error('IndexedDB transaction aborted'));
  }));
}

// The records of these keys, read in one read-only transaction, in the keys' order: the bytes,
// or null for a key with none.
export function recordsGet(name, keys) {
  return open().then((db) => new Promise((resolve, reject) => {
    const transaction = db.transaction(recordStore(name), 'readonly');
    const store = transaction.objectStore(name);
    const requests = Array.from(keys, (key) => store.get(key));
    transaction.oncomplete = () => resolve(requests
      .map((request) => (request.result instanceof Uint8Array ? request.result : null)));
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error || new Error('IndexedDB transaction aborted'));
  }));
}

export function recordsPut(name, keys, records) {
  return run(recordStore(name), 'readwrite', (store) => {
    let last = null;
    for (let i = 0; i < keys.length; i++) last = store.put(records[i], keys[i]);
    return last;
  }).then(() => undefined);
}

export function recordsDelete(name, keys) {
  return run(recordStore(name), 'readwrite', (store) => {
    let last = null;
    for (const key of keys) last = store.delete(key);
    return last;
  }).then(() => undefined);
}

export function recordsClear(name) {
  return run(recordStore(name), 'readwrite', (store) => store.clear()).then(() => undefined);
}

export function isQuotaError(error) {
  return Boolean(error && error.name === 'QuotaExceededError');
}
