//! `chrome.tabs`: opening a result (the popup's, or the address-bar keyword's, where Chrome says
//! which tab), switching to an open tab, and the open tabs read and followed (with the optional
//! `tabs` permission: the "Search my open tabs" switch).

use history_chat_core::address::Disposition;
use history_chat_core::clean::is_openable;
use history_chat_core::history::OpenTab;
use history_chat_core::places::browser::TabInfo;
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::{from_js, to_js};
use crate::listeners;

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
    #[wasm_bindgen(catch, js_namespace = ["chrome", "windows"], js_name = update)]
    fn windows_update(window_id: i32, properties: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs"], js_name = query)]
    fn tabs_query(query: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs", "onCreated"], js_name = addListener)]
    fn on_created(listener: &Closure<dyn Fn(JsValue)>) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs", "onUpdated"], js_name = addListener)]
    fn on_updated(listener: &Closure<dyn Fn(JsValue, JsValue, JsValue)>) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs", "onRemoved"], js_name = addListener)]
    fn on_removed(listener: &Closure<dyn Fn(JsValue, JsValue)>) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "tabs", "onReplaced"], js_name = addListener)]
    fn on_replaced(listener: &Closure<dyn Fn(JsValue, JsValue)>) -> Result<(), JsValue>;
}

const QUERY: &str = "chrome.tabs.query";
const FOLLOW: &str = "chrome.tabs.on*.addListener";
const FOCUS_WINDOW: &str = "chrome.windows.update";

/// Every open tab (their addresses and titles need the optional `tabs` permission: without it
/// they come without, and none is kept).
pub async fn query_all() -> Result<Vec<TabInfo>, ChromeError> {
    #[derive(serde::Serialize)]
    struct Everything {}
    let tabs = settle(QUERY, tabs_query(&to_js(QUERY, &Everything {})?)).await?;
    from_js(QUERY, &tabs)
}

/// A change to the open tabs, as an event told it.
#[derive(Debug, Clone, PartialEq)]
pub enum TabEvent {
    /// `onCreated` / `onUpdated`: the tab as it is now.
    Updated(TabInfo),
    /// `onRemoved`, or the tab replaced by another (`onReplaced`, which the new one's
    /// `onUpdated` follows).
    Removed {
        /// The tab's id.
        id: i32,
    },
    /// An event that could not be read: the tabs should be read again.
    Unreadable,
}

/// Follows the tabs' events for the rest of the worker's life: each one to `handle`.
pub fn follow(handle: impl Fn(TabEvent) + Clone + 'static) -> Result<(), ChromeError> {
    let read = |tab: &JsValue| match from_js::<TabInfo>(FOLLOW, tab) {
        Ok(tab) if tab.id.is_some() => TabEvent::Updated(tab),
        _ => TabEvent::Unreadable,
    };
    let id_of = |id: &JsValue| id.as_f64().map(|id| id as i32);
    let created = {
        let handle = handle.clone();
        Closure::<dyn Fn(JsValue)>::new(move |tab: JsValue| handle(read(&tab)))
    };
    let updated = {
        let handle = handle.clone();
        Closure::<dyn Fn(JsValue, JsValue, JsValue)>::new(
            move |_id: JsValue, _change: JsValue, tab: JsValue| handle(read(&tab)),
        )
    };
    let removed = {
        let handle = handle.clone();
        Closure::<dyn Fn(JsValue, JsValue)>::new(move |id: JsValue, _info: JsValue| {
            handle(match id_of(&id) {
                Some(id) => TabEvent::Removed { id },
                None => TabEvent::Unreadable,
            })
        })
    };
    let replaced =
        Closure::<dyn Fn(JsValue, JsValue)>::new(move |_added: JsValue, gone: JsValue| {
            handle(match id_of(&gone) {
                Some(id) => TabEvent::Removed { id },
                None => TabEvent::Unreadable,
            })
        });
    listeners::keep(FOLLOW, created, on_created)?;
    listeners::keep(FOLLOW, updated, on_updated)?;
    listeners::keep(FOLLOW, removed, on_removed)?;
    listeners::keep(FOLLOW, replaced, on_replaced)
}

/// Brings an open tab to the front: made its window's active tab, and its window focused. Needs
/// no permission. `Err` when the tab is gone (closed since the answer was shown).
pub async fn switch_to(tab: OpenTab) -> Result<(), ChromeError> {
    #[derive(serde::Serialize)]
    struct Active {
        active: bool,
    }
    #[derive(serde::Serialize)]
    struct Focused {
        focused: bool,
    }
    let active = to_js(UPDATE, &Active { active: true })?;
    settle(UPDATE, tabs_update_tab(tab.tab_id, &active)).await?;
    let focused = to_js(FOCUS_WINDOW, &Focused { focused: true })?;
    settle(FOCUS_WINDOW, windows_update(tab.window_id, &focused)).await?;
    Ok(())
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
