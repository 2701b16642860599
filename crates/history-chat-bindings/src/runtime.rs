//! `chrome.runtime`: the options page, and the extension's own addresses.

use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = openOptionsPage)]
    fn open_options_page_js() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getPlatformInfo)]
    fn get_platform_info() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "runtime"], js_name = getURL)]
    fn get_url(path: &str) -> Result<JsValue, JsValue>;
}

/// `chrome-extension://<id>/_favicon/`: where Chrome serves its favicon cache to the extension
/// (with the `favicon` permission); `None` if the browser does not say.
pub fn favicon_base() -> Option<String> {
    get_url("/_favicon/").ok()?.as_string()
}

const OPEN_OPTIONS: &str = "chrome.runtime.openOptionsPage";

/// Opens the extension's options page.
pub async fn open_options_page() -> Result<(), ChromeError> {
    settle(OPEN_OPTIONS, open_options_page_js()).await?;
    Ok(())
}

const PLATFORM_INFO: &str = "chrome.runtime.getPlatformInfo";

/// A cheap extension call, made by the service worker while a search runs: each one resets the
/// browser's idle timer of the worker ([`history_chat_core::ask::KEEP_ALIVE_MS`]).
pub async fn keep_alive() -> Result<(), ChromeError> {
    settle(PLATFORM_INFO, get_platform_info()).await?;
    Ok(())
}
