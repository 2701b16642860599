//! `fetch` with a time limit and user cancellation, and a cancellable sleep. Works in pages and in
//! the service worker (global `fetch`/`setTimeout`, no `window`).

use wasm_bindgen::JsCast;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;
use web_sys::{AbortController, AbortSignal, Headers, Request, RequestInit, Response};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_name = fetch)]
    fn global_fetch(request: &Request) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = setTimeout)]
    fn set_timeout(callback: &js_sys::Function, ms: u32) -> Result<JsValue, JsValue>;
    #[wasm_bindgen(catch, js_namespace = AbortSignal, js_name = any)]
    fn abort_signal_any(signals: &js_sys::Array) -> Result<AbortSignal, JsValue>;
    #[wasm_bindgen(catch, js_namespace = AbortSignal, js_name = timeout)]
    fn abort_signal_timeout(ms: u32) -> Result<AbortSignal, JsValue>;
}

/// Why a request got no HTTP answer.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FetchError {
    /// The network is down, the host unreachable, or the browser blocked the request.
    #[error("the network request failed")]
    Network,
    /// No answer within the time limit.
    #[error("no answer in time")]
    Timeout,
    /// The user cancelled.
    #[error("cancelled")]
    Cancelled,
    /// The browser refused to build the request (a bug on our side).
    #[error("the request could not be made: {0}")]
    Invalid(String),
}

/// A cancel button's handle: one per search, shared by every request and wait of that search.
#[derive(Debug, Clone)]
pub struct Cancel {
    controller: Option<AbortController>,
}

impl Cancel {
    /// A new, not yet cancelled, handle.
    pub fn new() -> Cancel {
        Cancel {
            controller: AbortController::new().ok(),
        }
    }

    /// Cancels every request and wait using this handle, now and later.
    pub fn cancel(&self) {
        if let Some(controller) = &self.controller {
            controller.abort();
        }
    }

    /// Whether [`Cancel::cancel`] was called.
    pub fn is_cancelled(&self) -> bool {
        self.controller.as_ref().is_some_and(|c| c.signal().aborted())
    }

    fn signal(&self) -> Option<AbortSignal> {
        self.controller.as_ref().map(AbortController::signal)
    }
}

impl Default for Cancel {
    fn default() -> Cancel {
        Cancel::new()
    }
}

/// An HTTP answer: status and body text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HttpReply {
    /// The HTTP status.
    pub status: u16,
    /// The body, as text.
    pub body: String,
}

/// POSTs a JSON body and reads the whole answer as text, within `timeout_ms`, unless `cancel` fires.
/// Headers are sent as given: secrets belong in headers, never in the URL.
pub async fn post_json(
    url: &str,
    headers: &[(&str, &str)],
    body: &str,
    timeout_ms: u32,
    cancel: &Cancel,
) -> Result<HttpReply, FetchError> {
    if cancel.is_cancelled() {
        return Err(FetchError::Cancelled);
    }
    let invalid = |e: JsValue| FetchError::Invalid(format!("{e:?}"));
    let timeout = abort_signal_timeout(timeout_ms).map_err(invalid)?;
    let signals = js_sys::Array::of1(&timeout);
    if let Some(signal) = cancel.signal() {
        signals.push(&signal);
    }
    let signal = abort_signal_any(&signals).map_err(invalid)?;

    let header_map = Headers::new().map_err(invalid)?;
    header_map.set("content-type", "application/json").map_err(invalid)?;
    for (name, value) in headers {
        header_map.set(name, value).map_err(invalid)?;
    }
    let init = RequestInit::new();
    init.set_method("POST");
    init.set_headers(&header_map);
    init.set_body(&JsValue::from_str(body));
    init.set_signal(Some(&signal));
    let request = Request::new_with_str_and_init(url, &init).map_err(invalid)?;

    let why = |_: JsValue| {
        if cancel.is_cancelled() {
            FetchError::Cancelled
        } else if timeout.aborted() {
            FetchError::Timeout
        } else {
            FetchError::Network
        }
    };
    let response: Response = JsFuture::from(global_fetch(&request).map_err(why)?)
        .await
        .map_err(why)?
        .dyn_into()
        .map_err(|_| FetchError::Network)?;
    let text = JsFuture::from(response.text().map_err(why)?).await.map_err(why)?;
    Ok(HttpReply {
        status: response.status(),
        body: text.as_string().unwrap_or_default(),
    })
}

/// Waits `ms` milliseconds, or less if `cancel` fires.
pub async fn sleep(ms: u32, cancel: &Cancel) {
    let signal = cancel.signal();
    let promise = js_sys::Promise::new(&mut |resolve, _reject| {
        if set_timeout(&resolve, ms).is_err() {
            // No timer in this context: do not wait at all rather than forever.
            let _ = resolve.call0(&JsValue::NULL);
            return;
        }
        if let Some(signal) = &signal {
            if signal.aborted() {
                let _ = resolve.call0(&JsValue::NULL);
            } else {
                let _ = signal.add_event_listener_with_callback("abort", &resolve);
            }
        }
    });
    // The promise only ever resolves.
    let _ = JsFuture::from(promise).await;
}
