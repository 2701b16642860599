//! `chrome.omnibox`: the address-bar keyword's default suggestion and suggestions, and what its
//! events hand the service worker. The descriptions are the core's ([`history_chat_core::omnibox`]),
//! escaped XML; nothing here builds text.

use history_chat_core::address::Disposition;
use history_chat_core::omnibox::Suggestion;
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::to_js;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "omnibox"], js_name = setDefaultSuggestion)]
    fn set_default_suggestion_js(suggestion: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

const SET_DEFAULT: &str = "chrome.omnibox.setDefaultSuggestion";
const SUGGEST: &str = "chrome.omnibox.onInputChanged's suggest";

/// Sets the row Chrome shows first in keyword mode (Enter without picking a suggestion). The
/// browser parses `description` as XML and refuses the call when it is not well formed.
pub async fn set_default_suggestion(description: &str) -> Result<(), ChromeError> {
    #[derive(serde::Serialize)]
    struct DefaultSuggestion<'a> {
        description: &'a str,
    }
    let suggestion = to_js(SET_DEFAULT, &DefaultSuggestion { description })?;
    settle(SET_DEFAULT, set_default_suggestion_js(&suggestion)).await?;
    Ok(())
}

/// Hands the suggestions to the `suggest` callback `chrome.omnibox.onInputChanged` gave with the
/// input (it sends them to the browser, tagged with that input's request).
pub fn suggest(callback: &js_sys::Function, suggestions: &[Suggestion]) -> Result<(), ChromeError> {
    let suggestions = to_js(SUGGEST, &suggestions)?;
    callback
        .call1(&JsValue::UNDEFINED, &suggestions)
        .map_err(|e| ChromeError::failed(SUGGEST, e))?;
    Ok(())
}

/// Reads `chrome.omnibox.onInputEntered`'s `disposition` (anything unexpected: the current tab).
pub fn read_disposition(value: &JsValue) -> Disposition {
    Disposition::from_chrome(value.as_string().as_deref())
}
