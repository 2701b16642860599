//! History Chat's embedding worker: the on-device sentence model (`history-chat-embedding`) behind
//! two exports, for `assets/embedder_worker.js` (a dedicated worker of the offscreen document
//! `embedder.html`). Everything else — what to embed, when, where vectors go — is the service
//! worker's; this module turns text into vectors.

use history_chat_embedding::{Embedder, Kind, Weights};
use wasm_bindgen::prelude::*;

/// The loaded model.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Model {
    embedder: Embedder,
}

#[wasm_bindgen]
impl Model {
    /// Loads the model from the asset's bytes; fails (a readable message) when they are not a
    /// model this build can read.
    #[wasm_bindgen(constructor)]
    pub fn new(bytes: Vec<u8>) -> Result<Model, JsError> {
        console_error_panic_hook::set_once();
        let embedder = Embedder::from_vec(bytes).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Model { embedder })
    }

    /// Like the constructor, with the layers' weights held as `weights` says (`q4`, `q8`, `f32`,
    /// `expanded`: the constructor's), for benchmarks comparing them.
    pub fn with_weights(bytes: Vec<u8>, weights: &str) -> Result<Model, JsError> {
        let weights = match weights {
            "q4" => Weights::Q4,
            "q8" => Weights::Q8,
            "f32" => Weights::F32,
            "expanded" => Weights::Expanded,
            other => return Err(JsError::new(&format!("no weights {other}"))),
        };
        let embedder =
            Embedder::from_vec_as(bytes, weights).map_err(|e| JsError::new(&e.to_string()))?;
        Ok(Model { embedder })
    }

    /// The L2-normalised vectors of `texts`, in order, from one pass of the encoder over all their
    /// tokens (a batch of pages costs less than its pages one at a time).
    pub fn embed_many(&self, texts: Vec<String>, query: bool) -> Result<js_sys::Array, JsError> {
        let kind = if query { Kind::Query } else { Kind::Passage };
        let texts: Vec<&str> = texts.iter().map(String::as_str).collect();
        let vectors = self
            .embedder
            .embed(&texts, kind)
            .map_err(|e| JsError::new(&e.to_string()))?;
        Ok(vectors
            .iter()
            .map(|v| js_sys::Float32Array::from(v.as_slice()))
            .collect())
    }

    /// The L2-normalised vector of `text`, as a question (`query`) or as a page (`passage`).
    pub fn embed(&self, text: &str, query: bool) -> Result<Vec<f32>, JsError> {
        let kind = if query { Kind::Query } else { Kind::Passage };
        let mut vectors = self
            .embedder
            .embed(&[text], kind)
            .map_err(|e| JsError::new(&e.to_string()))?;
        vectors
            .pop()
            .ok_or_else(|| JsError::new("the model returned no vector"))
    }
}
