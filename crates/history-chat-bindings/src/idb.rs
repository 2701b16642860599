//! IndexedDB, for data too large or too hot for `chrome.storage`: named binary blobs (the local
//! search index's snapshot) and the semantic index's vectors (one binary record per page, keyed by
//! its cleaned URL). The promise plumbing is a small JS module, `src/idb.js`; each write resolves
//! once its transaction has committed.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::ChromeError;
use crate::error::settle;

#[wasm_bindgen(module = "/src/idb.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = idbGet)]
    fn idb_get(key: &str) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = idbPut)]
    fn idb_put(key: &str, bytes: &js_sys::Uint8Array) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = vectorsAll)]
    fn vectors_all() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = vectorsPut)]
    fn vectors_put(
        keys: &js_sys::Array,
        records: &js_sys::Array,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = vectorsDelete)]
    fn vectors_delete(keys: &js_sys::Array) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = vectorsClear)]
    fn vectors_clear() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = isQuotaError)]
    fn is_quota_error(error: &JsValue) -> Result<bool, JsValue>;
}

const GET: &str = "indexedDB get";
const PUT: &str = "indexedDB put";
const VECTORS: &str = "indexedDB (vectors)";

/// A write that did not happen.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum WriteError {
    /// The browser's storage quota for the extension is reached.
    #[error("{}", history_chat_core::failure::BrowserFailure::StorageFull)]
    QuotaExceeded,
    /// Anything else.
    #[error(transparent)]
    Failed(#[from] ChromeError),
}

/// The blob stored under `key`, if any.
pub async fn get(key: &str) -> Result<Option<Vec<u8>>, ChromeError> {
    let value = settle(GET, idb_get(key)).await?;
    Ok(value
        .dyn_into::<js_sys::Uint8Array>()
        .ok()
        .map(|bytes| bytes.to_vec()))
}

/// Stores `bytes` under `key`, replacing what was there.
pub async fn put(key: &str, bytes: &[u8]) -> Result<(), ChromeError> {
    let array = js_sys::Uint8Array::from(bytes);
    settle(PUT, idb_put(key, &array)).await?;
    Ok(())
}

/// Every vector record stored, with its key (the page's cleaned URL).
pub async fn all_vectors() -> Result<Vec<(String, Vec<u8>)>, ChromeError> {
    let value = settle(VECTORS, vectors_all()).await?;
    let unreadable = || ChromeError::Unreadable {
        api: VECTORS,
        message: "not a list of records".to_owned(),
    };
    let array = value
        .dyn_into::<js_sys::Array>()
        .map_err(|_| unreadable())?;
    Ok(array
        .iter()
        .filter_map(|pair| {
            let pair = pair.dyn_into::<js_sys::Array>().ok()?;
            let url = pair.get(0).as_string()?;
            let bytes = pair.get(1).dyn_into::<js_sys::Uint8Array>().ok()?;
            Some((url, bytes.to_vec()))
        })
        .collect())
}

/// Stores records under their URLs, all in one transaction.
pub async fn put_vectors(records: &[(String, Vec<u8>)]) -> Result<(), WriteError> {
    let keys: js_sys::Array = records
        .iter()
        .map(|(url, _)| JsValue::from_str(url))
        .collect();
    let values: js_sys::Array = records
        .iter()
        .map(|(_, bytes)| JsValue::from(js_sys::Uint8Array::from(bytes.as_slice())))
        .collect();
    let promise = vectors_put(&keys, &values).map_err(|e| ChromeError::failed(VECTORS, e))?;
    match JsFuture::from(promise).await {
        Ok(_) => Ok(()),
        Err(error) if is_quota_error(&error).unwrap_or(false) => Err(WriteError::QuotaExceeded),
        Err(error) => Err(WriteError::Failed(ChromeError::failed(VECTORS, error))),
    }
}

/// Deletes the records of these URLs (absent ones are fine).
pub async fn delete_vectors(urls: &[String]) -> Result<(), ChromeError> {
    let keys: js_sys::Array = urls.iter().map(|url| JsValue::from_str(url)).collect();
    settle(VECTORS, vectors_delete(&keys)).await?;
    Ok(())
}

/// Deletes every vector record.
pub async fn clear_vectors() -> Result<(), ChromeError> {
    settle(VECTORS, vectors_clear()).await?;
    Ok(())
}
