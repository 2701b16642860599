//! The one place a failure nobody needs to be told about is written down: the extension's console
//! (the service worker's in `chrome://extensions`, a page's in its DevTools), as a warning with
//! what was being done. Callers pass the context and the error, never the Gemini key and never a
//! page's title, address or text: what is logged says what failed, not what the user had.
//!
//! Every fallible call of the extension ends in one of three places, chosen at the call: the user
//! is told (with what to do), it is retried, or it is logged here.

use std::fmt::Debug;

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(js_namespace = console, js_name = warn)]
    fn console_warn(message: &str);
}

/// Logs that `what` (a short phrase such as "saving the index snapshot") failed with `error`,
/// written as its `Debug` (the technical form, with the browser's own words, whatever the UI's
/// language): `History Chat: saving the index snapshot failed: QuotaExceeded { api: "indexedDB put" }`.
pub fn failure(what: &str, error: &impl Debug) {
    console_warn(&format!("History Chat: {what} failed: {error:?}"));
}

/// Logs an event worth a trace that is not a failure of ours (an event Chrome sent that could not
/// be read, and what was done instead).
pub fn note(what: &str) {
    console_warn(&format!("History Chat: {what}"));
}
