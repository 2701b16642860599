use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A call into the browser that did not give us what we asked for.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ChromeError {
    /// The API threw or its promise was rejected (the message is the browser's).
    #[error("{api} failed: {message}")]
    Failed {
        /// The API called, such as `chrome.history.search`.
        api: &'static str,
        /// The browser's message.
        message: String,
    },
    /// The API answered with data we could not read.
    #[error("{api} answered with data that could not be read: {message}")]
    Unreadable {
        /// The API called.
        api: &'static str,
        /// What did not parse.
        message: String,
    },
}

impl ChromeError {
    /// Wraps what a JS call threw or rejected with.
    pub(crate) fn failed(api: &'static str, thrown: JsValue) -> ChromeError {
        let message = match thrown.dyn_ref::<js_sys::Error>() {
            Some(error) => String::from(error.message()),
            None => thrown.as_string().unwrap_or_else(|| format!("{thrown:?}")),
        };
        ChromeError::Failed { api, message }
    }
}

/// Waits for a browser API's promise, `api` naming the call in the error: a call that threw before
/// giving a promise (`started` is its `#[wasm_bindgen(catch)]` result) and a rejected promise both
/// become [`ChromeError::Failed`].
pub(crate) async fn settle(
    api: &'static str,
    started: Result<js_sys::Promise, JsValue>,
) -> Result<JsValue, ChromeError> {
    let promise = started.map_err(|thrown| ChromeError::failed(api, thrown))?;
    settle_promise(api, promise).await
}

/// [`settle`] for a promise already in hand (one started inside a click, awaited later).
pub(crate) async fn settle_promise(
    api: &'static str,
    promise: js_sys::Promise,
) -> Result<JsValue, ChromeError> {
    JsFuture::from(promise)
        .await
        .map_err(|rejected| ChromeError::failed(api, rejected))
}
