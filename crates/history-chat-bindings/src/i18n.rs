//! `chrome.i18n`: the browser's catalogue lookup, installed into the core's
//! [`history_chat_core::i18n`] once per page or worker. Chrome picks the catalogue of its UI
//! language and falls back to the manifest's `default_locale` (English) key by key.

use wasm_bindgen::prelude::*;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "i18n"], js_name = getMessage)]
    fn get_message_js(name: &str, substitutions: &js_sys::Array) -> Result<JsValue, JsValue>;
}

/// Makes the core word everything in the browser's UI language. Call first thing in every entry
/// point (popup, options page, service worker).
pub fn install() {
    history_chat_core::i18n::install(get_message);
}

/// `chrome.i18n.getMessage`: `""` for a key no catalogue has, `undefined` for a bad call, and an
/// exception where the API is missing — all three are "not found" here.
fn get_message(key: &str, args: &[String]) -> Option<String> {
    let substitutions: js_sys::Array = args.iter().map(|arg| JsValue::from_str(arg)).collect();
    get_message_js(key, &substitutions)
        .ok()
        .and_then(|value| value.as_string())
        .filter(|message| !message.is_empty())
}
