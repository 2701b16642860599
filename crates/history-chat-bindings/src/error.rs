use wasm_bindgen::{JsCast, JsValue};

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
