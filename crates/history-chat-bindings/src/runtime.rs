//! `chrome.runtime`: the options page.

use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::ChromeError;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = openOptionsPage)]
    fn open_options_page_js() -> Result<js_sys::Promise, JsValue>;
}

const OPEN_OPTIONS: &str = "chrome.runtime.openOptionsPage";

/// Opens the extension's options page.
pub async fn open_options_page() -> Result<(), ChromeError> {
    let promise = open_options_page_js().map_err(|e| ChromeError::failed(OPEN_OPTIONS, e))?;
    JsFuture::from(promise)
        .await
        .map_err(|e| ChromeError::failed(OPEN_OPTIONS, e))?;
    Ok(())
}
