//! `chrome.tabs`: opening a result (the popup's, or the address-bar keyword's, where Chrome says
//! which tab).

use history_chat_core::address::Disposition;
use history_chat_core::clean::is_openable;
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::{from_js, to_js};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = create)]
    fn tabs_create(properties: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = update)]
    fn tabs_update(properties: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = update)]
    fn tabs_update_tab(tab_id: i32, properties: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = getLastFocused)]
    fn windows_get_last_focused(options: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

const CREATE: &str = "chrome.tabs.create";
const UPDATE: &str = "chrome.tabs.update";
const LAST_FOCUSED: &str = "chrome.windows.getLastFocused";

/// Why a page was not opened.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum OpenError {
    /// Only `http` and `https` pages are ever opened.
    #[error("{}", history_chat_core::t!("open_not_web_page"))]
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

/// Opens a result of the popup where `disposition` says. The current tab is the one the popup was
/// opened over: the active tab of the last-focused browser window (`chrome.windows.getLastFocused`
/// over normal windows, so neither the popup itself nor a detached popup window counts); with no
/// such window, the page opens in a new tab. New tabs as [`open_in`]. None needs the `tabs`
/// permission. Anything but `http(s)` is refused.
pub async fn open_from_popup(url: &str, disposition: Disposition) -> Result<(), OpenError> {
    if !is_openable(url) {
        return Err(OpenError::NotWebPage);
    }
    if disposition != Disposition::CurrentTab {
        return open_in(url, disposition).await;
    }
    let Some(tab_id) = active_tab_of_last_window().await? else {
        return open_in(url, Disposition::NewForegroundTab).await;
    };
    #[derive(serde::Serialize)]
    struct Properties<'a> {
        url: &'a str,
    }
    let properties = to_js(UPDATE, &Properties { url })?;
    settle(UPDATE, tabs_update_tab(tab_id, &properties)).await?;
    Ok(())
}

/// The id of the active tab of the last-focused normal window, if there is one.
async fn active_tab_of_last_window() -> Result<Option<i32>, ChromeError> {
    #[derive(serde::Serialize)]
    #[serde(rename_all = "camelCase")]
    struct Options {
        populate: bool,
        window_types: [&'static str; 1],
    }
    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct Window {
        tabs: Vec<Tab>,
    }
    #[derive(serde::Deserialize, Default)]
    #[serde(default)]
    struct Tab {
        id: Option<i32>,
        active: bool,
    }
    let options = to_js(
        LAST_FOCUSED,
        &Options {
            populate: true,
            window_types: ["normal"],
        },
    )?;
    let window = match settle(LAST_FOCUSED, windows_get_last_focused(&options)).await {
        Ok(window) => window,
        // No normal window at all: the caller opens a new tab (which makes one).
        Err(_) => return Ok(None),
    };
    let window: Option<Window> = from_js(LAST_FOCUSED, &window)?;
    Ok(window
        .unwrap_or_default()
        .tabs
        .into_iter()
        .find(|tab| tab.active)
        .and_then(|tab| tab.id))
}
