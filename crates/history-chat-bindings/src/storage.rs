//! `chrome.storage`: settings in `sync`, the conversation in `local`.

use history_chat_core::conversation::{self, LoadedConversation, Turn};
use history_chat_core::history::RemovedVisits;
use history_chat_core::settings::Settings;
use serde_json::{Map, Value};
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::{from_js, to_js};

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "sync"], js_name = get)]
    fn sync_get(keys: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "sync"], js_name = set)]
    fn sync_set(items: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = get)]
    fn local_get(keys: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = set)]
    fn local_set(items: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "storage", "local"], js_name = remove)]
    fn local_remove(keys: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

const SYNC_GET: &str = "chrome.storage.sync.get";
const SYNC_SET: &str = "chrome.storage.sync.set";
const LOCAL_GET: &str = "chrome.storage.local.get";
const LOCAL_SET: &str = "chrome.storage.local.set";
const LOCAL_REMOVE: &str = "chrome.storage.local.remove";

/// Calls a `chrome.*` function that returns a promise, and waits for it.
async fn call(
    api: &'static str,
    function: fn(&JsValue) -> Result<js_sys::Promise, JsValue>,
    argument: &JsValue,
) -> Result<JsValue, ChromeError> {
    settle(api, function(argument)).await
}

/// The stored settings; defaults for anything missing or unreadable (see [`Settings::from_stored`]).
pub async fn load_settings() -> Result<Settings, ChromeError> {
    let key = JsValue::from_str(Settings::STORAGE_KEY);
    let items: Map<String, Value> = from_js(SYNC_GET, &call(SYNC_GET, sync_get, &key).await?)?;
    Ok(Settings::from_stored(
        items.get(Settings::STORAGE_KEY).cloned(),
    ))
}

/// Writes the settings back with every missing field at its default — only when one is missing, so
/// a worker starting again (install, update, browser restart) never overwrites what the user or
/// another version wrote meanwhile with an older read.
pub async fn fill_missing_settings() -> Result<(), ChromeError> {
    let key = JsValue::from_str(Settings::STORAGE_KEY);
    let items: Map<String, Value> = from_js(SYNC_GET, &call(SYNC_GET, sync_get, &key).await?)?;
    let stored = items.get(Settings::STORAGE_KEY).cloned();
    let filled = Settings::from_stored(stored.clone());
    if stored.as_ref() == Some(&filled.to_stored()) {
        return Ok(());
    }
    save_settings(&filled).await
}

/// Stores the settings, fields from other versions included.
pub async fn save_settings(settings: &Settings) -> Result<(), ChromeError> {
    let items = Map::from_iter([(Settings::STORAGE_KEY.to_owned(), settings.to_stored())]);
    call(SYNC_SET, sync_set, &to_js(SYNC_SET, &items)?)
        .await
        .map(drop)
}

/// Every item of `chrome.storage.local`.
async fn local_items() -> Result<Map<String, Value>, ChromeError> {
    from_js(
        LOCAL_GET,
        &call(LOCAL_GET, local_get, &JsValue::NULL).await?,
    )
}

/// The conversation, newest first, with the retention applied: expired turns are deleted from
/// storage before this returns (a failed delete is reported, the turns are still not shown). The
/// excluded sites' pages are taken out of the turns as shown (the stored turns keep them, so a
/// site taken off the list shows again).
pub async fn load_conversation(
    now_ms: i64,
    settings: &Settings,
) -> Result<LoadedConversation, ChromeError> {
    let mut loaded = conversation::load(local_items().await?, now_ms, settings.retention);
    let excluded = settings.exclusions();
    for stored in &mut loaded.turns {
        excluded.retain_in_turn(&mut stored.turn);
    }
    if !loaded.expired.is_empty() {
        remove_local(&loaded.expired).await?;
    }
    Ok(loaded)
}

/// Stores one turn under its own key.
pub async fn save_turn(key: &str, turn: &Turn) -> Result<(), ChromeError> {
    let value = serde_json::to_value(turn).map_err(|error| ChromeError::Unreadable {
        api: LOCAL_SET,
        message: error.to_string(),
    })?;
    let items = Map::from_iter([(key.to_owned(), value)]);
    call(LOCAL_SET, local_set, &to_js(LOCAL_SET, &items)?)
        .await
        .map(drop)
}

/// Marks every turn still stored as running as interrupted ([`conversation::interrupted`]), in one
/// write: called by a service worker that starts, since no search outlives the worker that ran it.
pub async fn mark_interrupted() -> Result<(), ChromeError> {
    write_turns(conversation::interrupted(local_items().await?)).await
}

/// Removes from the stored conversation the pages just deleted from the browser's history
/// (`chrome.history.onVisitRemoved`'s `removed`): reads every stored item, lets the core say which
/// turns to rewrite ([`conversation::forget_removed`]), and writes those in one call (nothing when
/// no turn showed a removed page).
pub async fn forget_in_conversation(removed: &RemovedVisits) -> Result<(), ChromeError> {
    write_turns(conversation::forget_removed(local_items().await?, removed)).await
}

/// Writes `rewrites` in one call (nothing when there is none).
async fn write_turns(rewrites: Vec<conversation::StoredTurn>) -> Result<(), ChromeError> {
    if rewrites.is_empty() {
        return Ok(());
    }
    let mut changed = Map::new();
    for rewrite in rewrites {
        let value =
            serde_json::to_value(rewrite.turn).map_err(|error| ChromeError::Unreadable {
                api: LOCAL_SET,
                message: error.to_string(),
            })?;
        changed.insert(rewrite.key, value);
    }
    call(LOCAL_SET, local_set, &to_js(LOCAL_SET, &changed)?)
        .await
        .map(drop)
}

/// Deletes every turn of the conversation, including turns written since it was loaded.
pub async fn clear_conversation() -> Result<(), ChromeError> {
    let items = local_items().await?;
    let keys = conversation::all_keys(items.keys().map(String::as_str));
    remove_local(&keys).await
}

async fn remove_local(keys: &[String]) -> Result<(), ChromeError> {
    call(LOCAL_REMOVE, local_remove, &to_js(LOCAL_REMOVE, &keys)?)
        .await
        .map(drop)
}
