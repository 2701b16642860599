//! The on-device embedding model, hosted by the offscreen document (`embedder.html`, reasons
//! `WORKERS` and `DOM_PARSER`: the same document reads pages for [`crate::reader`]) whose dedicated
//! workers run the model's wasm module, one for questions and one for pages, so that a question
//! never waits for a page: long CPU work belongs there, not in the service worker,
//! which must stay free to answer the pages. This module creates the document on demand, sends it
//! texts, reads back vectors, and closes it (a close waits for a page being read). The promise
//! plumbing is a small JS module, `src/offscreen.js`, shared with the reader: one document, one
//! creation path.

use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::js_json::from_js;

#[wasm_bindgen(module = "/src/offscreen.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = embedderAsk)]
    fn embedder_ask(
        kind: &str,
        texts: &JsValue,
        timeout_ms: u32,
        idle_ms: u32,
    ) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_name = embedderClose)]
    fn embedder_close() -> Result<js_sys::Promise, JsValue>;
}

const ASK: &str = "the on-device model";

/// Whether the text is a question or a page: the model is asked differently for each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TextKind {
    /// A question typed in the popup.
    Query,
    /// A page's text.
    Passage,
}

/// Why the model gave no vectors.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum EmbedderError {
    /// The model's file is not in the extension.
    #[error("the on-device model's file is missing ({0})")]
    ModelMissing(String),
    /// The model's file is there but cannot be read.
    #[error("the on-device model's file is damaged ({0})")]
    ModelCorrupt(String),
    /// This browser cannot run it.
    #[error("this browser cannot run the on-device model ({0})")]
    Unsupported(String),
    /// The document or its worker stopped, or the answer could not be read: worth another try.
    #[error("the on-device model stopped ({0})")]
    Crashed(String),
}

#[derive(Deserialize)]
struct Answer {
    #[serde(default)]
    vectors: Option<Vec<Vec<f32>>>,
    #[serde(default)]
    error: Option<String>,
    #[serde(default)]
    message: Option<String>,
}

/// One vector per text, in order (L2-normalised, as the model gives them). `timeout_ms` (0: none)
/// bounds the wait, which then fails as [`EmbedderError::Crashed`]; `idle_ms` is how long the
/// document keeps the model loaded after its last job.
pub async fn embed(
    kind: TextKind,
    texts: &[String],
    timeout_ms: u32,
    idle_ms: u32,
) -> Result<Vec<Vec<f32>>, EmbedderError> {
    let kind = match kind {
        TextKind::Query => "query",
        TextKind::Passage => "passage",
    };
    let array: js_sys::Array = texts.iter().map(|t| JsValue::from_str(t)).collect();
    let crashed =
        |e: JsValue| EmbedderError::Crashed(crate::ChromeError::failed(ASK, e).to_string());
    let promise = embedder_ask(kind, &array, timeout_ms, idle_ms).map_err(crashed)?;
    let value = JsFuture::from(promise).await.map_err(crashed)?;
    let answer: Answer = from_js(ASK, &value).map_err(|e| EmbedderError::Crashed(e.to_string()))?;
    let message = answer.message.unwrap_or_default();
    match (answer.vectors, answer.error.as_deref()) {
        (Some(vectors), None) => Ok(vectors),
        (_, Some("model-missing")) => Err(EmbedderError::ModelMissing(message)),
        (_, Some("model-corrupt")) => Err(EmbedderError::ModelCorrupt(message)),
        (_, Some("unsupported")) => Err(EmbedderError::Unsupported(message)),
        (_, Some(_)) => Err(EmbedderError::Crashed(message)),
        (None, None) => Err(EmbedderError::Crashed(
            "the model answered without vectors".to_owned(),
        )),
    }
}

/// Has the model that embeds `kind` loaded (the document created if need be), without embedding
/// anything: the next text of that kind then does not wait for the load. `idle_ms` as for
/// [`embed`].
pub async fn warm(kind: TextKind, idle_ms: u32) -> Result<(), EmbedderError> {
    embed(kind, &[], 0, idle_ms).await.map(drop)
}

/// Closes the document (and so the model's worker and its memory), if it is open; while a page is
/// being read ([`crate::reader`]), once that reading is over.
pub async fn close() {
    // A document already gone is closed; anything else is logged.
    let closed = match embedder_close() {
        Ok(promise) => JsFuture::from(promise).await.map(drop),
        Err(thrown) => Err(thrown),
    };
    if let Err(error) = closed {
        crate::log::failure("closing the model's document", &error);
    }
}
