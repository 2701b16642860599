//! `chrome.runtime` messaging with the core's [`Request`]/[`Response`] types, and decoding of what
//! the browser hands the service worker's listeners.

use history_chat_core::history::{HistoryItem, RemovedVisits};
use history_chat_core::messages::{Request, Response};
use serde::de::DeserializeOwned;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::{from_js, to_js};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = sendMessage)]
    fn send_message(message: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = setTimeout)]
    fn set_timeout(callback: &js_sys::Function, ms: u32) -> Result<JsValue, JsValue>;
}

const SEND: &str = "chrome.runtime.sendMessage";
const ON_MESSAGE: &str = "chrome.runtime.onMessage";
const ON_VISITED: &str = "chrome.history.onVisited";
const ON_VISIT_REMOVED: &str = "chrome.history.onVisitRemoved";

/// Asks the service worker, and waits for its answer, read as `T`: [`Response`], or a page's own
/// subset of it (such as [`history_chat_core::messages::OptionsAnswer`]), so that a page carries
/// readers only for the answers it asks for.
pub async fn ask_worker<T: DeserializeOwned>(request: &Request) -> Result<T, ChromeError> {
    let answer = settle(SEND, send_message(&to_js(SEND, request)?)).await?;
    from_js(SEND, &answer)
}

/// [`ask_worker`], but gives up after `ms` milliseconds (`None`): the worker may be busy building
/// the index, and a page that must answer at once then uses the browser's search instead.
pub async fn ask_worker_within(request: &Request, ms: u32) -> Option<Response> {
    let promise = send_message(&to_js(SEND, request).ok()?).ok()?;
    let timeout = js_sys::Promise::new(&mut |resolve, _reject| {
        if set_timeout(&resolve, ms).is_err() {
            let _ = resolve.call0(&JsValue::UNDEFINED);
        }
    });
    let first = JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(
        &promise, &timeout,
    )))
    .await
    .ok()?;
    if first.is_undefined() {
        return None;
    }
    from_js(SEND, &first).ok()
}

/// Reads a message the worker received.
pub fn read_request(message: &JsValue) -> Result<Request, ChromeError> {
    from_js(ON_MESSAGE, message)
}

/// Writes the worker's answer.
pub fn write_response(response: &Response) -> JsValue {
    to_js(ON_MESSAGE, response).unwrap_or(JsValue::NULL)
}

/// Reads `chrome.history.onVisited`'s argument.
pub fn read_visited(item: &JsValue) -> Result<HistoryItem, ChromeError> {
    from_js(ON_VISITED, item)
}

/// Reads `chrome.history.onVisitRemoved`'s argument.
pub fn read_removed(removed: &JsValue) -> Result<RemovedVisits, ChromeError> {
    from_js(ON_VISIT_REMOVED, removed)
}
