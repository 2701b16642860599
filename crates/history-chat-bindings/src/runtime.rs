//! `chrome.runtime`: the options page.

use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = openOptionsPage)]
    fn open_options_page_js() -> Result<js_sys::Promise, JsValue>;
}

const OPEN_OPTIONS: &str = "chrome.runtime.openOptionsPage";

/// Opens the extension's options page.
pub async fn open_options_page() -> Result<(), ChromeError> {
    settle(OPEN_OPTIONS, open_options_page_js()).await?;
    Ok(())
}
