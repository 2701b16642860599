//! `navigator.clipboard`: a result's "Copy link" (a page, not the service worker: workers have no
//! clipboard). Writing text needs no extension permission while the page has the user's focus.

use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["navigator", "clipboard"], js_name = writeText)]
    fn clipboard_write_text(text: &str) -> Result<js_sys::Promise, JsValue>;
}

const WRITE_TEXT: &str = "navigator.clipboard.writeText";

/// Puts `text` on the clipboard. Fails (a typed error, never a panic) when the browser refuses:
/// the page lost focus, or the clipboard is not offered here.
pub async fn write_text(text: &str) -> Result<(), ChromeError> {
    settle(WRITE_TEXT, clipboard_write_text(text)).await?;
    Ok(())
}
