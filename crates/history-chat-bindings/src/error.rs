use history_chat_core::failure::BrowserFailure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// A call into the browser that did not give us what we asked for. Shown to the user as a phrase
/// of the UI's catalogue (its `Display`, fit for a message's `($1)`); the browser's own words,
/// English whatever the UI language, go to the console ([`crate::log`]) when the error is made.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ChromeError {
    /// The API threw or its promise was rejected.
    Failed {
        /// The API called, such as `chrome.history.search`.
        api: &'static str,
        /// The browser's message.
        message: String,
    },
    /// The browser refused a write because the extension's storage is full (`chrome.storage`'s
    /// `QUOTA_BYTES…` errors, IndexedDB's `QuotaExceededError`): nothing of it was written.
    QuotaExceeded {
        /// The API called.
        api: &'static str,
    },
    /// The API answered with data we could not read.
    Unreadable {
        /// The API called.
        api: &'static str,
        /// What did not parse.
        message: String,
    },
}

impl std::error::Error for ChromeError {}

impl std::fmt::Display for ChromeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.failure().fmt(f)
    }
}

impl ChromeError {
    /// The failure as the user is told of it (the protocol and stored turns carry this value;
    /// the browser's words stay in the console).
    pub fn failure(&self) -> BrowserFailure {
        match self {
            ChromeError::Failed { api, .. } => BrowserFailure::Refused {
                api: (*api).to_owned(),
            },
            ChromeError::QuotaExceeded { .. } => BrowserFailure::StorageFull,
            ChromeError::Unreadable { api, .. } => BrowserFailure::Unreadable {
                api: (*api).to_owned(),
            },
        }
    }

    /// Wraps what a JS call threw or rejected with, and logs the browser's words.
    pub(crate) fn failed(api: &'static str, thrown: JsValue) -> ChromeError {
        let (name, message) = match thrown.dyn_ref::<js_sys::Error>() {
            Some(error) => (String::from(error.name()), String::from(error.message())),
            None => (
                String::new(),
                thrown.as_string().unwrap_or_else(|| format!("{thrown:?}")),
            ),
        };
        crate::log::failure(api, &(name.as_str(), message.as_str()));
        if is_quota(&name, &message) {
            ChromeError::QuotaExceeded { api }
        } else {
            ChromeError::Failed { api, message }
        }
    }

    /// Whether the browser refused a write for lack of room.
    pub fn is_quota(&self) -> bool {
        matches!(self, ChromeError::QuotaExceeded { .. })
    }
}

/// Whether a rejection says the storage is full: `chrome.storage` rejects with messages such as
/// `QUOTA_BYTES quota exceeded` or `QUOTA_BYTES_PER_ITEM quota exceeded`; IndexedDB with a
/// `QuotaExceededError`.
fn is_quota(name: &str, message: &str) -> bool {
    name == "QuotaExceededError"
        || message.contains("QUOTA_BYTES")
        || message.to_ascii_lowercase().contains("quota exceeded")
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
