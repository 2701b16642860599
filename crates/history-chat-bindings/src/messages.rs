//! `chrome.runtime` messaging with the core's [`Request`]/[`Response`] types, and decoding of what
//! the browser hands the service worker's listeners.

use history_chat_core::history::{HistoryItem, RemovedVisits};
use history_chat_core::messages::{Request, Response};
use history_chat_core::reading::Visit;
use serde::Deserialize;
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

/// [`ask_worker`], but gives up after `ms` milliseconds (`Ok(None)`): the worker may be busy
/// building the index, and a page that must answer at once then uses the browser's search instead.
/// A message that could not be sent or an answer that could not be read is an error, told apart
/// from the timeout.
pub async fn ask_worker_within(
    request: &Request,
    ms: u32,
) -> Result<Option<Response>, ChromeError> {
    let promise = send_message(&to_js(SEND, request)?).map_err(|e| ChromeError::failed(SEND, e))?;
    let timeout = js_sys::Promise::new(&mut |resolve, reject| {
        if let Err(thrown) = set_timeout(&resolve, ms) {
            // No timer: the race is lost at once, as an error rather than as a timeout.
            drop(reject.call1(&JsValue::UNDEFINED, &thrown));
        }
    });
    let first = JsFuture::from(js_sys::Promise::race(&js_sys::Array::of2(
        &promise, &timeout,
    )))
    .await
    .map_err(|e| ChromeError::failed(SEND, e))?;
    if first.is_undefined() {
        return Ok(None);
    }
    from_js(SEND, &first).map(Some)
}

/// Reads a message the worker received.
pub fn read_request(message: &JsValue) -> Result<Request, ChromeError> {
    from_js(ON_MESSAGE, message)
}

/// Who sent a message, as the browser says (`chrome.runtime.onMessage`'s `sender`), as far as
/// the worker checks it.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Sender {
    /// The sending frame's address.
    pub url: Option<String>,
    /// The frame's id in its tab: 0 for the top frame.
    pub frame_id: Option<i64>,
    /// The tab, when a tab sent it (a content script, or an extension page open in a tab).
    pub tab: Option<SenderTab>,
}

/// The tab a message came from.
#[derive(Debug, Clone, Copy, Default, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct SenderTab {
    /// Whether it is in an incognito window.
    pub incognito: bool,
}

impl Sender {
    /// The sender as a visit the reader may read ([`history_chat_core::reading::may_read`]).
    pub fn visit(&self) -> Visit<'_> {
        Visit {
            url: self.url.as_deref().unwrap_or_default(),
            top_frame: self.frame_id == Some(0),
            incognito: self.tab.is_some_and(|tab| tab.incognito),
            in_tab: self.tab.is_some(),
        }
    }
}

/// Reads who sent a message the worker received; a sender that cannot be read is no tab (then
/// nothing that needs one is done for it).
pub fn read_sender(sender: &JsValue) -> Sender {
    from_js(ON_MESSAGE, sender).unwrap_or_else(|error| {
        crate::log::failure("reading who sent a message (taken as no tab)", &error);
        Sender::default()
    })
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
