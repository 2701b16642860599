//! `chrome.permissions`: access to the Gemini API host, asked for when the user saves a key
//! (`optional_host_permissions` in the manifest) rather than at install; the optional
//! `favicon` permission (site icons on result rows, Options → Site icons); and the content access
//! the page reader needs (`scripting` and every `http(s)` host), asked when the user turns reading
//! the pages they visit on; `bookmarks` and `tabs`, asked when the user turns searching their
//! bookmarks or open tabs on. Nothing is asked at install.

use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::{settle, settle_promise};
use crate::js_json::{from_js, to_js};
use crate::listeners;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = request)]
    fn permissions_request(permissions: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = remove)]
    fn permissions_remove(permissions: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = contains)]
    fn permissions_contains(permissions: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions"], js_name = getAll)]
    fn permissions_get_all() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions", "onAdded"], js_name = addListener)]
    fn on_added(listener: &Closure<dyn Fn(JsValue)>) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "permissions", "onRemoved"], js_name = addListener)]
    fn on_removed(listener: &Closure<dyn Fn(JsValue)>) -> Result<(), JsValue>;
}

const FOLLOW: &str = "chrome.permissions.on*.addListener";

/// Calls `changed` each time a permission is granted or given back, here or elsewhere (Chrome's
/// extensions page), for the rest of the page's life.
pub fn follow_changes(changed: impl Fn() + Clone + 'static) -> Result<(), ChromeError> {
    let again = changed.clone();
    let added = Closure::<dyn Fn(JsValue)>::new(move |_: JsValue| again());
    let removed = Closure::<dyn Fn(JsValue)>::new(move |_: JsValue| changed());
    listeners::keep(FOLLOW, added, on_added)?;
    listeners::keep(FOLLOW, removed, on_removed)
}

/// The optional API permission that lets the extension's pages read Chrome's favicon cache.
pub const FAVICON_PERMISSION: &str = "favicon";

const CONTAINS: &str = "chrome.permissions.contains";

#[derive(serde::Serialize)]
struct Apis<'a> {
    permissions: [&'a str; 1],
}

fn favicon_argument(api: &'static str) -> Result<JsValue, ChromeError> {
    api_argument(api, FAVICON_PERMISSION)
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

/// The optional permission of the "Search my bookmarks" switch.
pub const BOOKMARKS_PERMISSION: &str = "bookmarks";
/// The optional permission of the "Search my open tabs" switch: the least that gives the open
/// tabs' addresses and titles (every host would give them too, and far more).
pub const TABS_PERMISSION: &str = "tabs";

fn api_argument(api: &'static str, permission: &'static str) -> Result<JsValue, ChromeError> {
    to_js(
        api,
        &Apis {
            permissions: [permission],
        },
    )
}

/// Whether the optional API permission `permission` is granted.
pub async fn has_api(permission: &'static str) -> Result<bool, ChromeError> {
    let argument = api_argument(CONTAINS, permission)?;
    let granted = settle(CONTAINS, permissions_contains(&argument)).await?;
    Ok(granted.as_bool().unwrap_or(false))
}

/// Starts asking for the optional API permission `permission`. Must be called synchronously
/// inside a user gesture's handler (a click); the returned future resolves with whether it was
/// granted.
pub fn request_api(
    permission: &'static str,
) -> Result<impl Future<Output = Result<bool, ChromeError>>, ChromeError> {
    let promise = permissions_request(&api_argument(REQUEST, permission)?)
        .map_err(|e| ChromeError::failed(REQUEST, e))?;
    Ok(async move {
        let granted = settle_promise(REQUEST, promise).await?;
        Ok(granted.as_bool().unwrap_or(false))
    })
}

/// Gives the optional API permission `permission` back.
pub async fn remove_api(permission: &'static str) -> Result<bool, ChromeError> {
    let removed = settle(
        REMOVE,
        permissions_remove(&api_argument(REMOVE, permission)?),
    )
    .await?;
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

/// The API permission the page reader's content script is registered with.
pub const CONTENT_PERMISSION: &str = "scripting";
/// The hosts the page reader runs on and fetches a PDF from (the manifest's optional host
/// permissions): every `http(s)` page.
pub const CONTENT_ORIGINS: [&str; 2] = ["http://*/*", "https://*/*"];

#[derive(serde::Serialize)]
struct ContentAccess<'a> {
    permissions: [&'a str; 1],
    origins: [&'a str; 2],
}

fn content_argument(api: &'static str) -> Result<JsValue, ChromeError> {
    to_js(
        api,
        &ContentAccess {
            permissions: [CONTENT_PERMISSION],
            origins: CONTENT_ORIGINS,
        },
    )
}

/// Starts asking for the content access (`scripting` and every `http(s)` host). Must be called
/// synchronously inside a user gesture's handler (a click); the returned future resolves when the
/// user answers Chrome's prompt, with whether everything was granted.
pub fn request_content_access()
-> Result<impl Future<Output = Result<bool, ChromeError>>, ChromeError> {
    let promise = permissions_request(&content_argument(REQUEST)?)
        .map_err(|e| ChromeError::failed(REQUEST, e))?;
    Ok(async move {
        let granted = settle_promise(REQUEST, promise).await?;
        Ok(granted.as_bool().unwrap_or(false))
    })
}

/// Whether the content access is granted, all of it (`scripting` and both schemes' hosts).
pub async fn has_content_access() -> Result<bool, ChromeError> {
    let granted = settle(CONTAINS, permissions_contains(&content_argument(CONTAINS)?)).await?;
    Ok(granted.as_bool().unwrap_or(false))
}

/// What giving the content access back did to the Gemini host's access.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GeminiAccess {
    /// It had not been granted on its own (only as one of the `https` hosts, if at all): nothing
    /// to keep.
    NotGranted,
    /// It had been granted on its own, and is granted still.
    Kept,
    /// It had been granted on its own, and Chrome did not give it back (the call came too long
    /// after the click, or the user had revoked it meanwhile): the key needs it asked again.
    Lost,
}

#[derive(serde::Deserialize)]
struct Granted {
    #[serde(default)]
    origins: Vec<String>,
}

const GET_ALL: &str = "chrome.permissions.getAll";

/// Gives the content access back (unregister the reader's script first:
/// [`crate::scripting::unregister_reader`]). Call it from the click that turns reading off.
///
/// Chrome's `permissions.remove` takes away every granted host pattern that `https://*/*` covers,
/// the Gemini host's included (checked in Chromium 156 by `tests/e2e/reader_permissions.test.mjs`).
/// So when the Gemini host was granted on its own (listed by `permissions.getAll`, as the options
/// page asks for it when a key is saved), it is asked for again at once, in the same click: Chrome
/// grants it without a prompt, as the user had granted it before.
pub async fn remove_content_access() -> Result<GeminiAccess, ChromeError> {
    let granted: Granted = from_js(GET_ALL, &settle(GET_ALL, permissions_get_all()).await?)?;
    let gemini_on_its_own = granted.origins.iter().any(|o| o == GEMINI_ORIGIN_PATTERN);
    settle(REMOVE, permissions_remove(&content_argument(REMOVE)?)).await?;
    if !gemini_on_its_own {
        return Ok(GeminiAccess::NotGranted);
    }
    let gemini = to_js(
        CONTAINS,
        &Origins {
            origins: [GEMINI_ORIGIN_PATTERN],
        },
    )?;
    let kept = settle(CONTAINS, permissions_contains(&gemini)).await?;
    if kept.as_bool().unwrap_or(false) {
        return Ok(GeminiAccess::Kept);
    }
    // Without a user gesture any more, Chrome refuses: that is `Lost`, not a failure to report.
    let again = match permissions_request(&gemini) {
        Ok(promise) => settle_promise(REQUEST, promise).await,
        Err(thrown) => Err(ChromeError::failed(REQUEST, thrown)),
    };
    Ok(match again {
        Ok(granted) if granted.as_bool().unwrap_or(false) => GeminiAccess::Kept,
        _ => GeminiAccess::Lost,
    })
}
