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
    #[wasm_bindgen(catch, js_name = clearTimeout)]
    fn clear_timeout(id: &JsValue) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = AbortSignal, js_name = any)]
    fn abort_signal_any(signals: &js_sys::Array) -> Result<AbortSignal, JsValue>;
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
        self.controller
            .as_ref()
            .is_some_and(|c| c.signal().aborted())
    }

    fn signal(&self) -> Option<AbortSignal> {
        self.controller.as_ref().map(AbortController::signal)
    }

    /// The signal as a JS value for APIs that take one (`undefined` when there is none).
    pub(crate) fn signal_value(&self) -> JsValue {
        self.signal().map_or(JsValue::UNDEFINED, JsValue::from)
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

/// An HTTP method we use.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Method {
    /// `GET`, no body.
    Get,
    /// `POST` with a JSON body.
    Post,
}

/// Sends a request and reads the whole answer as text, within `timeout_ms`, unless `cancel` fires.
/// Headers are sent as given: secrets belong in headers, never in the URL. The time limit runs on
/// `setTimeout`, so it is the page's clock (tests can drive it).
pub async fn request(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    json_body: Option<&str>,
    timeout_ms: u32,
    cancel: &Cancel,
) -> Result<HttpReply, FetchError> {
    if cancel.is_cancelled() {
        return Err(FetchError::Cancelled);
    }
    let invalid = |e: JsValue| FetchError::Invalid(format!("{e:?}"));
    // This attempt's own controller, aborted by the timer; the request listens to it and to the
    // user's cancel handle.
    let attempt = AbortController::new().map_err(invalid)?;
    let signals = js_sys::Array::of1(&attempt.signal());
    if let Some(signal) = cancel.signal() {
        signals.push(&signal);
    }
    let signal = abort_signal_any(&signals).map_err(invalid)?;
    let timer_target = attempt.clone();
    let on_timeout = Closure::once(move || timer_target.abort());
    let timer = set_timeout(on_timeout.as_ref().unchecked_ref(), timeout_ms).map_err(invalid)?;

    let outcome = send(method, url, headers, json_body, &signal).await;
    // The timer must not fire once `on_timeout` is dropped at the end of this function.
    let _ = clear_timeout(&timer);
    outcome.map_err(|error| match error {
        SendError::Invalid(message) => FetchError::Invalid(message),
        SendError::Failed if cancel.is_cancelled() => FetchError::Cancelled,
        SendError::Failed if attempt.signal().aborted() => FetchError::Timeout,
        SendError::Failed => FetchError::Network,
    })
}

enum SendError {
    Invalid(String),
    Failed,
}

async fn send(
    method: Method,
    url: &str,
    headers: &[(&str, &str)],
    json_body: Option<&str>,
    signal: &AbortSignal,
) -> Result<HttpReply, SendError> {
    let invalid = |e: JsValue| SendError::Invalid(format!("{e:?}"));
    let header_map = Headers::new().map_err(invalid)?;
    for (name, value) in headers {
        header_map.set(name, value).map_err(invalid)?;
    }
    let init = RequestInit::new();
    match (method, json_body) {
        (Method::Post, body) => {
            init.set_method("POST");
            header_map
                .set("content-type", "application/json")
                .map_err(invalid)?;
            init.set_body(&JsValue::from_str(body.unwrap_or("{}")));
        }
        (Method::Get, _) => init.set_method("GET"),
    }
    init.set_headers(&header_map);
    init.set_signal(Some(signal));
    let request = Request::new_with_str_and_init(url, &init).map_err(invalid)?;
    let response: Response = JsFuture::from(global_fetch(&request).map_err(|_| SendError::Failed)?)
        .await
        .map_err(|_| SendError::Failed)?
        .dyn_into()
        .map_err(|_| SendError::Failed)?;
    let text = JsFuture::from(response.text().map_err(|_| SendError::Failed)?)
        .await
        .map_err(|_| SendError::Failed)?;
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

/// `work`'s result, or `None` when it takes longer than `ms` milliseconds (it is then dropped).
pub async fn within<T>(ms: u32, work: impl Future<Output = T>) -> Option<T> {
    let cancel = Cancel::new();
    let timer = std::pin::pin!(sleep(ms, &cancel));
    let work = std::pin::pin!(work);
    match futures_util::future::select(work, timer).await {
        futures_util::future::Either::Left((done, _)) => {
            cancel.cancel();
            Some(done)
        }
        futures_util::future::Either::Right(_) => None,
    }
}
