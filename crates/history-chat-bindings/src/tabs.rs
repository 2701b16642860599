//! `chrome.tabs`: opening a result (the popup's, or the address-bar keyword's, where Chrome says
//! which tab).

use history_chat_core::clean::is_openable;
use history_chat_core::omnibox::Disposition;
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::to_js;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = create)]
    fn tabs_create(properties: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = update)]
    fn tabs_update(properties: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

const CREATE: &str = "chrome.tabs.create";
const UPDATE: &str = "chrome.tabs.update";

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
    open_in(url, Disposition::NewForegroundTab).await
}

/// Opens a web page where `disposition` says: in the current window's active tab
/// (`chrome.tabs.update` without a tab id), or in a new tab in front of or behind it
/// (`chrome.tabs.create`). None needs the `tabs` permission. Anything but `http(s)` is refused.
pub async fn open_in(url: &str, disposition: Disposition) -> Result<(), OpenError> {
    if !is_openable(url) {
        return Err(OpenError::NotWebPage);
    }
    #[derive(serde::Serialize)]
    struct Properties<'a> {
        url: &'a str,
        active: bool,
    }
    let api = match disposition {
        Disposition::CurrentTab => UPDATE,
        Disposition::NewForegroundTab | Disposition::NewBackgroundTab => CREATE,
    };
    let active = disposition != Disposition::NewBackgroundTab;
    let properties = to_js(api, &Properties { url, active })?;
    let started = match disposition {
        Disposition::CurrentTab => tabs_update(&properties),
        Disposition::NewForegroundTab | Disposition::NewBackgroundTab => tabs_create(&properties),
    };
    settle(api, started).await?;
    Ok(())
}
