//! IndexedDB, for data too large or too hot for `chrome.storage`: named binary blobs (the local
//! search index's snapshot). The promise plumbing is a small JS module, `src/idb.js`.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::ChromeError;

#[wasm_bindgen(module = "/src/idb.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = idbGet)]
    fn idb_get(key: &str) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = idbPut)]
    fn idb_put(key: &str, bytes: &js_sys::Uint8Array) -> Result<js_sys::Promise, JsValue>;
}

const GET: &str = "indexedDB get";
const PUT: &str = "indexedDB put";

/// The blob stored under `key`, if any.
pub async fn get(key: &str) -> Result<Option<Vec<u8>>, ChromeError> {
    let promise = idb_get(key).map_err(|e| ChromeError::failed(GET, e))?;
    let value = JsFuture::from(promise)
        .await
        .map_err(|e| ChromeError::failed(GET, e))?;
    Ok(value
        .dyn_into::<js_sys::Uint8Array>()
        .ok()
        .map(|bytes| bytes.to_vec()))
}

/// Stores `bytes` under `key`, replacing what was there.
pub async fn put(key: &str, bytes: &[u8]) -> Result<(), ChromeError> {
    let array = js_sys::Uint8Array::from(bytes);
    let promise = idb_put(key, &array).map_err(|e| ChromeError::failed(PUT, e))?;
    JsFuture::from(promise)
        .await
        .map_err(|e| ChromeError::failed(PUT, e))?;
    Ok(())
}
