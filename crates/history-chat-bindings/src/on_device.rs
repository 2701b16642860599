//! Chrome's built-in model (Prompt API, `LanguageModel`, Gemini Nano) as the core's
//! [`LanguageModel`]: one base session per page or worker, a clone per call (destroyed after),
//! JSON-schema constrained answers, the context window measured so the pipeline can shrink the
//! ranking request, cancellation through an `AbortSignal`. The promise plumbing is
//! `src/on_device.js`.

use std::cell::RefCell;
use std::rc::Rc;

use history_chat_core::ai::model::{
    ContextUse, LanguageModel, ModelFailure, ModelReply, ModelRequest,
};
use history_chat_core::ai::provider::Availability;
use history_chat_core::t;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::http::{self, Cancel};
use crate::js_json::{from_js, to_js};

#[wasm_bindgen(module = "/src/on_device.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = availability)]
    fn availability_js() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = createSession)]
    fn create_session(
        on_progress: &js_sys::Function,
        signal: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = measure)]
    fn measure_js(session: &JsValue, text: &str) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = promptJson)]
    fn prompt_json(
        session: &JsValue,
        text: &str,
        schema: &JsValue,
        signal: &JsValue,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = destroy)]
    fn destroy_js(session: &JsValue) -> Result<(), JsValue>;
}

const API: &str = "LanguageModel";

/// What `LanguageModel.availability()` says here (`Unsupported` without the API, `Unavailable` when
/// asking fails).
pub async fn availability() -> Availability {
    let Ok(promise) = availability_js() else {
        return Availability::Unavailable;
    };
    match JsFuture::from(promise).await {
        Ok(value) => Availability::parse(&value.as_string().unwrap_or_default()),
        Err(_) => Availability::Unavailable,
    }
}

/// Reads a thrown DOMException into a model failure, by its `name` and `message` (the core's
/// [`ModelFailure::from_prompt_api_exception`] decides).
fn failure(thrown: JsValue) -> ModelFailure {
    let field = |key: &str| {
        js_sys::Reflect::get(&thrown, &JsValue::from_str(key))
            .ok()
            .and_then(|value| value.as_string())
            .unwrap_or_default()
    };
    ModelFailure::from_prompt_api_exception(&field("name"), &field("message"))
}

/// Chrome's on-device model as a page or the worker holds it: created on first use (which may
/// start the download, so call [`OnDevice::prepare`] from a click when the model is only
/// downloadable), kept until [`OnDevice::close`].
#[derive(Debug, Clone, Default)]
pub struct OnDevice {
    session: Rc<RefCell<Option<JsValue>>>,
}

impl OnDevice {
    /// No session yet.
    pub fn new() -> OnDevice {
        OnDevice::default()
    }

    /// Creates the base session if there is none; `on_progress` hears the download's progress
    /// (0.0–1.0) when the model must be downloaded first.
    pub async fn prepare(&self, on_progress: impl Fn(f64) + 'static) -> Result<(), ModelFailure> {
        if self.session.borrow().is_some() {
            return Ok(());
        }
        let callback = Closure::<dyn Fn(f64)>::new(on_progress);
        let promise = create_session(callback.as_ref().unchecked_ref(), &JsValue::UNDEFINED)
            .map_err(failure)?;
        let session = JsFuture::from(promise).await.map_err(failure);
        // The monitor keeps calling back during the download only: it is over once `create` settles.
        drop(callback);
        let session = session?;
        let mut kept = self.session.borrow_mut();
        match kept.as_ref() {
            // Another caller's session was made meanwhile (two questions at once): one is enough.
            Some(_) => {
                if let Err(error) = destroy_js(&session) {
                    crate::log::failure("closing a second on-device session", &error);
                }
            }
            None => *kept = Some(session),
        }
        Ok(())
    }

    /// A handle for one search: its calls stop when `cancel` fires.
    pub fn for_search(&self, cancel: Cancel) -> OnDeviceSearch {
        OnDeviceSearch {
            model: self.clone(),
            cancel,
        }
    }

    fn session(&self) -> Result<JsValue, ModelFailure> {
        self.session
            .borrow()
            .clone()
            .ok_or_else(|| ModelFailure::Unavailable {
                reason: t!("on_device_not_ready"),
            })
    }

    /// Destroys the base session (a page closing, a download done, the model becoming unavailable).
    pub fn close(&self) {
        if let Some(session) = self.session.borrow_mut().take()
            && let Err(error) = destroy_js(&session)
        {
            crate::log::failure("closing the on-device session", &error);
        }
    }
}

/// One search's use of the on-device model: the core's [`LanguageModel`].
#[derive(Debug, Clone)]
pub struct OnDeviceSearch {
    model: OnDevice,
    cancel: Cancel,
}

/// The text an on-device call sends: the system instruction first (the Prompt API takes system
/// prompts only at session creation; the clone per call keeps calls independent).
fn full_text(request: &ModelRequest) -> String {
    format!("{}\n\n{}", request.system, request.prompt)
}

impl LanguageModel for OnDeviceSearch {
    async fn generate(&self, request: &ModelRequest) -> Result<ModelReply, ModelFailure> {
        if self.cancel.is_cancelled() {
            return Err(ModelFailure::Cancelled);
        }
        let session = self.model.session()?;
        let schema = to_js(API, &request.schema).map_err(|error| ModelFailure::Unavailable {
            reason: error.to_string(),
        })?;
        let signal = self.cancel.signal_value();
        let promise =
            prompt_json(&session, &full_text(request), &schema, &signal).map_err(failure)?;
        let text = JsFuture::from(promise).await.map_err(|thrown| {
            if self.cancel.is_cancelled() {
                ModelFailure::Cancelled
            } else {
                failure(thrown)
            }
        })?;
        let text = text.as_string().unwrap_or_default();
        if text.trim().is_empty() {
            return Err(ModelFailure::Empty);
        }
        Ok(ModelReply {
            text,
            usage: None,
            truncated: false,
        })
    }

    async fn sleep(&self, ms: u32) {
        http::sleep(ms, &self.cancel).await;
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }

    async fn measure(&self, request: &ModelRequest) -> Option<ContextUse> {
        #[derive(serde::Deserialize)]
        struct Measured {
            needed: f64,
            available: f64,
        }
        let session = self.model.session().ok()?;
        let promise = measure_js(&session, &full_text(request)).ok()?;
        let value = JsFuture::from(promise).await.ok()?;
        let measured: Measured = from_js(API, &value).ok()?;
        Some(ContextUse {
            needed: measured.needed.max(0.0) as u32,
            available: measured.available.max(0.0) as u32,
        })
    }
}
