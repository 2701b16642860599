//! `chrome.permissions`: access to the Gemini API host, asked for when the user saves a key
//! (`optional_host_permissions` in the manifest) rather than at install; and the optional
//! `favicon` permission (site icons on result rows, Options → Site icons).

use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::{settle, settle_promise};
use crate::js_json::to_js;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = request)]
    fn permissions_request(permissions: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = remove)]
    fn permissions_remove(permissions: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = contains)]
    fn permissions_contains(permissions: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// The optional API permission that lets the extension's pages read Chrome's favicon cache.
pub const FAVICON_PERMISSION: &str = "favicon";

const CONTAINS: &str = "chrome.permissions.contains";

#[derive(serde::Serialize)]
struct Apis<'a> {
    permissions: [&'a str; 1],
}

fn favicon_argument(api: &'static str) -> Result<JsValue, ChromeError> {
    to_js(
        api,
        &Apis {
            permissions: [FAVICON_PERMISSION],
        },
    )
}

/// Whether site icons may be shown (the `favicon` permission is granted).
pub async fn has_favicon() -> Result<bool, ChromeError> {
    let granted = settle(CONTAINS, permissions_contains(&favicon_argument(CONTAINS)?)).await?;
    Ok(granted.as_bool().unwrap_or(false))
}

/// Starts asking for the `favicon` permission. Must be called synchronously inside a user
/// gesture's handler (a click); the returned future resolves with whether it was granted.
pub fn request_favicon() -> Result<impl Future<Output = Result<bool, ChromeError>>, ChromeError> {
    let promise = permissions_request(&favicon_argument(REQUEST)?)
        .map_err(|e| ChromeError::failed(REQUEST, e))?;
    Ok(async move {
        let granted = settle_promise(REQUEST, promise).await?;
        Ok(granted.as_bool().unwrap_or(false))
    })
}

/// Gives the `favicon` permission back: rows show the placeholder again.
pub async fn remove_favicon() -> Result<bool, ChromeError> {
    let removed = settle(REMOVE, permissions_remove(&favicon_argument(REMOVE)?)).await?;
    Ok(removed.as_bool().unwrap_or(false))
}

/// The Gemini API host, as the manifest's `optional_host_permissions` names it.
pub const GEMINI_ORIGIN_PATTERN: &str = "https://generativelanguage.googleapis.com/*";

const REQUEST: &str = "chrome.permissions.request";
const REMOVE: &str = "chrome.permissions.remove";

#[derive(serde::Serialize)]
struct Origins<'a> {
    origins: [&'a str; 1],
}

/// Starts asking for access to the Gemini host. Must be called synchronously inside a user
/// gesture's handler (a click); the returned future resolves when the user answers the prompt,
/// with whether access was granted.
pub fn request_gemini_host() -> Result<impl Future<Output = Result<bool, ChromeError>>, ChromeError>
{
    let argument = to_js(
        REQUEST,
        &Origins {
            origins: [GEMINI_ORIGIN_PATTERN],
        },
    )?;
    let promise = permissions_request(&argument).map_err(|e| ChromeError::failed(REQUEST, e))?;
    Ok(async move {
        let granted = settle_promise(REQUEST, promise).await?;
        Ok(granted.as_bool().unwrap_or(false))
    })
}

/// Gives access to the Gemini host back (when the key is removed).
pub async fn remove_gemini_host() -> Result<(), ChromeError> {
    let argument = to_js(
        REMOVE,
        &Origins {
            origins: [GEMINI_ORIGIN_PATTERN],
        },
    )?;
    settle(REMOVE, permissions_remove(&argument)).await?;
    Ok(())
}
