// A few promise wrappers over IndexedDB for the bindings crate (imported by src/idb.rs): one
// database, one object store of binary blobs keyed by name.
const DB_NAME = 'history-chat';
const STORE = 'blobs';
let opening = null;

function open() {
  if (!opening) {
    opening = new Promise((resolve, reject) => {
      const request = indexedDB.open(DB_NAME, 1);
      request.onupgradeneeded = () => request.result.createObjectStore(STORE);
      request.onsuccess = () => resolve(request.result);
      request.onerror = () => reject(request.error);
      request.onblocked = () => reject(new Error('IndexedDB is blocked by another open version'));
    });
    opening.catch(() => { opening = null; });
  }
  return opening;
}

function run(mode, action) {
  return open().then((db) => new Promise((resolve, reject) => {
    const transaction = db.transaction(STORE, mode);
    const request = action(transaction.objectStore(STORE));
    transaction.oncomplete = () => resolve(request.result);
    transaction.onerror = () => reject(transaction.error);
    transaction.onabort = () => reject(transaction.error || new Error('IndexedDB transaction aborted'));
  }));
}

export function idbGet(key) {
  return run('readonly', (store) => store.get(key)).then((value) => (value instanceof Uint8Array ? value : null));
}

export function idbPut(key, bytes) {
  return run('readwrite', (store) => store.put(bytes, key)).then(() => undefined);
}
