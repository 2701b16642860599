//! IndexedDB, for data too large or too hot for `chrome.storage`: named binary blobs (the local
//! search index's snapshot) and two stores of binary records, one per page keyed by its cleaned
//! URL ([`Records`]: topic search's vectors, the pages' read content; a few of them read back by
//! key, [`get_records`]). The promise plumbing is a small JS module, `src/idb.js`; each write
//! resolves once its transaction has committed.

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
    #[wasm_bindgen(catch, js_name = recordsAll)]
    fn records_all(store: &str) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = recordsGet)]
    fn records_get(store: &str, keys: &js_sys::Array) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = recordsPut)]
    fn records_put(
        store: &str,
        keys: &js_sys::Array,
        records: &js_sys::Array,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = recordsDelete)]
    fn records_delete(store: &str, keys: &js_sys::Array) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = recordsClear)]
    fn records_clear(store: &str) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = isQuotaError)]
    fn is_quota_error(error: &JsValue) -> Result<bool, JsValue>;
}

const GET: &str = "indexedDB get";
const PUT: &str = "indexedDB put";

/// A store of one binary record per page, keyed by the page's cleaned URL.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Records {
    /// Topic search's vectors.
    Vectors,
    /// The pages' read content (text, passages, their vectors).
    Content,
}

impl Records {
    /// The object store's name.
    fn name(self) -> &'static str {
        match self {
            Records::Vectors => "vectors",
            Records::Content => "content",
        }
    }

    /// The store as errors name it.
    fn api(self) -> &'static str {
        match self {
            Records::Vectors => "indexedDB (vectors)",
            Records::Content => "indexedDB (content)",
        }
    }
}

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

/// Every record of `store`, with its key (the page's cleaned URL).
pub async fn all_records(store: Records) -> Result<Vec<(String, Vec<u8>)>, ChromeError> {
    let api = store.api();
    let value = settle(api, records_all(store.name())).await?;
    let unreadable = || ChromeError::Unreadable {
        api,
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

/// The records of these URLs in `store`, read in one read-only transaction: one per URL, in
/// order, `None` where there is none.
pub async fn get_records(
    store: Records,
    urls: &[String],
) -> Result<Vec<Option<Vec<u8>>>, ChromeError> {
    let api = store.api();
    let keys: js_sys::Array = urls.iter().map(|url| JsValue::from_str(url)).collect();
    let value = settle(api, records_get(store.name(), &keys)).await?;
    let array = value
        .dyn_into::<js_sys::Array>()
        .map_err(|_| ChromeError::Unreadable {
            api,
            message: "not a list of records".to_owned(),
        })?;
    Ok(array
        .iter()
        .map(|value| {
            value
                .dyn_into::<js_sys::Uint8Array>()
                .ok()
                .map(|bytes| bytes.to_vec())
        })
        .collect())
}

/// Stores records in `store` under their URLs, all in one transaction.
pub async fn put_records(store: Records, records: &[(String, Vec<u8>)]) -> Result<(), WriteError> {
    let api = store.api();
    let keys: js_sys::Array = records
        .iter()
        .map(|(url, _)| JsValue::from_str(url))
        .collect();
    let values: js_sys::Array = records
        .iter()
        .map(|(_, bytes)| JsValue::from(js_sys::Uint8Array::from(bytes.as_slice())))
        .collect();
    let promise =
        records_put(store.name(), &keys, &values).map_err(|e| ChromeError::failed(api, e))?;
    match JsFuture::from(promise).await {
        Ok(_) => Ok(()),
        Err(error) if is_quota_error(&error).unwrap_or(false) => Err(WriteError::QuotaExceeded),
        Err(error) => Err(WriteError::Failed(ChromeError::failed(api, error))),
    }
}

/// Deletes the records of these URLs from `store` (absent ones are fine).
pub async fn delete_records(store: Records, urls: &[String]) -> Result<(), ChromeError> {
    let keys: js_sys::Array = urls.iter().map(|url| JsValue::from_str(url)).collect();
    settle(store.api(), records_delete(store.name(), &keys)).await?;
    Ok(())
}

/// Deletes every record of `store`.
pub async fn clear_records(store: Records) -> Result<(), ChromeError> {
    settle(store.api(), records_clear(store.name())).await?;
    Ok(())
}
