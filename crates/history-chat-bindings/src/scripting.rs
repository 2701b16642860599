//! `chrome.scripting`: the page reader's content script (`reader.js`), registered while the user
//! has turned reading the pages they visit on (and granted the content access,
//! [`crate::permissions::request_content_access`]): in the top frame of every `http(s)` page,
//! at `document_idle`, in the isolated world, kept across browser restarts, with the excluded
//! sites left out by `excludeMatches` (the core's `Exclusions::match_patterns`). The worker checks
//! every message again; the patterns are the first line, so an excluded page never even runs it.
//!
//! Order matters when reading is turned off: unregister first, then give the permissions back
//! (without `scripting`, `chrome.scripting` is gone and nothing can be unregistered).

use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::{from_js, to_js};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "scripting"], js_name = registerContentScripts)]
    fn register_content_scripts(scripts: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "scripting"], js_name = updateContentScripts)]
    fn update_content_scripts(scripts: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "scripting"], js_name = unregisterContentScripts)]
    fn unregister_content_scripts(filter: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "scripting"], js_name = getRegisteredContentScripts)]
    fn get_registered_content_scripts(filter: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

/// The registration's id: one content script, ours.
pub const READER_SCRIPT_ID: &str = "reader";
/// The script's file in the extension (copied from `assets/` by `scripts/build`).
pub const READER_SCRIPT_FILE: &str = "reader.js";
/// Where it runs: every `http(s)` page (the optional host permissions the user grants).
pub const READER_MATCHES: [&str; 2] = ["http://*/*", "https://*/*"];

const REGISTER: &str = "chrome.scripting.registerContentScripts";
const UPDATE: &str = "chrome.scripting.updateContentScripts";
const UNREGISTER: &str = "chrome.scripting.unregisterContentScripts";
const GET: &str = "chrome.scripting.getRegisteredContentScripts";

/// Why the reader's registration could not be made, changed or read.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ScriptingError {
    /// The optional `scripting` permission is not granted: `chrome.scripting` is not there.
    #[error("the scripting permission is not granted")]
    NotGranted,
    /// The browser refused the call (a pattern it rejects, a registration it cannot store).
    #[error("{0}")]
    Refused(ChromeError),
}

impl From<ChromeError> for ScriptingError {
    fn from(error: ChromeError) -> Self {
        ScriptingError::Refused(error)
    }
}

/// Whether `chrome.scripting` exists in this context (it does once `scripting` is granted).
fn available() -> bool {
    let chrome = js_sys::Reflect::get(&js_sys::global(), &JsValue::from_str("chrome"));
    chrome
        .and_then(|chrome| js_sys::Reflect::get(&chrome, &JsValue::from_str("scripting")))
        .is_ok_and(|scripting| scripting.is_object())
}

fn granted() -> Result<(), ScriptingError> {
    if available() {
        Ok(())
    } else {
        Err(ScriptingError::NotGranted)
    }
}

#[derive(Serialize)]
#[serde(rename_all = "camelCase")]
struct Registration<'a> {
    id: &'a str,
    js: [&'a str; 1],
    matches: [&'a str; 2],
    exclude_matches: &'a [String],
    run_at: &'a str,
    all_frames: bool,
    persist_across_sessions: bool,
    world: &'a str,
}

impl<'a> Registration<'a> {
    fn reader(exclude_matches: &'a [String]) -> Self {
        Registration {
            id: READER_SCRIPT_ID,
            js: [READER_SCRIPT_FILE],
            matches: READER_MATCHES,
            exclude_matches,
            run_at: "document_idle",
            all_frames: false,
            persist_across_sessions: true,
            world: "ISOLATED",
        }
    }
}

#[derive(Serialize)]
struct Ids<'a> {
    ids: [&'a str; 1],
}

const READER_IDS: Ids<'static> = Ids {
    ids: [READER_SCRIPT_ID],
};

/// Registers the reader's content script, or, when it is registered already, updates it: either
/// way it then leaves out the pages `exclude_matches` match (match patterns, such as the core's
/// `Exclusions::match_patterns` gives; an empty list leaves none out). Applies to pages loaded
/// from then on (a tab already open is read after its next load).
pub async fn register_reader(exclude_matches: &[String]) -> Result<(), ScriptingError> {
    granted()?;
    let scripts = [Registration::reader(exclude_matches)];
    if is_reader_registered().await? {
        settle(UPDATE, update_content_scripts(&to_js(UPDATE, &scripts)?)).await?;
        return Ok(());
    }
    let Err(refused) = settle(
        REGISTER,
        register_content_scripts(&to_js(REGISTER, &scripts)?),
    )
    .await
    else {
        return Ok(());
    };
    // Registered meanwhile by another call (two changes of the list at once): update it.
    if !is_reader_registered().await? {
        return Err(refused.into());
    }
    settle(UPDATE, update_content_scripts(&to_js(UPDATE, &scripts)?)).await?;
    Ok(())
}

/// Unregisters the reader's content script; nothing registered is done already. Call it before
/// giving the `scripting` permission back.
pub async fn unregister_reader() -> Result<(), ScriptingError> {
    granted()?;
    if !is_reader_registered().await? {
        return Ok(());
    }
    settle(
        UNREGISTER,
        unregister_content_scripts(&to_js(UNREGISTER, &READER_IDS)?),
    )
    .await?;
    Ok(())
}

#[derive(serde::Deserialize)]
struct Registered {
    id: String,
}

/// Whether the reader's content script is registered.
pub async fn is_reader_registered() -> Result<bool, ScriptingError> {
    granted()?;
    let found = settle(
        GET,
        get_registered_content_scripts(&to_js(GET, &READER_IDS)?),
    )
    .await?;
    let found: Vec<Registered> = from_js(GET, &found)?;
    Ok(found.iter().any(|script| script.id == READER_SCRIPT_ID))
}
