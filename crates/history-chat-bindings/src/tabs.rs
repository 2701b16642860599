//! `chrome.tabs`: opening a result.

use history_chat_core::clean::is_openable;
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::to_js;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = create)]
    fn tabs_create(properties: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

const CREATE: &str = "chrome.tabs.create";

/// Why a page was not opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// Only `http` and `https` pages are ever opened.
    #[error("only web pages (http or https) can be opened")]
    NotWebPage,
    /// The browser refused.
    #[error(transparent)]
    Chrome(#[from] ChromeError),
}

/// Opens a web page in a new tab, next to the current one. Anything but `http(s)` is refused.
pub async fn open(url: &str) -> Result<(), OpenError> {
    if !is_openable(url) {
        return Err(OpenError::NotWebPage);
    }
    #[derive(serde::Serialize)]
    struct CreateProperties<'a> {
        url: &'a str,
        active: bool,
    }
    let properties = to_js(CREATE, &CreateProperties { url, active: true })?;
    settle(CREATE, tabs_create(&properties)).await?;
    Ok(())
}
