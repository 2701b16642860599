//! `chrome.storage`: settings in `sync`, the conversation in `local`.

use history_chat_core::conversation::{self, LoadedConversation, Turn};
use history_chat_core::history::RemovedVisits;
use history_chat_core::settings::{KnownSettings, Remembered, Settings};
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
const ON_CHANGED: &str = "chrome.storage.onChanged";

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

/// The settings as `chrome.storage.onChanged` gives them (its `newValue`; `undefined` when they
/// were removed, which reads as the defaults): no read, so none can fail.
pub fn settings_from_change(new_value: &JsValue) -> Result<Settings, ChromeError> {
    let value: Option<Value> = from_js(ON_CHANGED, new_value)?;
    Ok(Settings::from_stored(value))
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

/// Changes one thing in the settings as they are stored now: reads them afresh, applies `edit`,
/// writes them back (one item, whole: the browser keeps the previous value when the write is
/// refused, for quota or otherwise), and gives what was written. Nothing is written when the read
/// fails, so a change made in one page never carries another page's stale copy of the other
/// fields, and a failed read is never written back as the defaults.
pub async fn update_settings(edit: impl FnOnce(&mut Settings)) -> Result<Settings, ChromeError> {
    let mut settings = load_settings().await?;
    edit(&mut settings);
    save_settings(&settings).await?;
    Ok(settings)
}

/// Every item of `chrome.storage.local`.
async fn local_items() -> Result<Map<String, Value>, ChromeError> {
    from_js(
        LOCAL_GET,
        &call(LOCAL_GET, local_get, &JsValue::NULL).await?,
    )
}

/// What the service worker last read of the settings ([`Remembered`]), stored beside the
/// conversation in `chrome.storage.local`; `None` when nothing was ever stored.
pub async fn remembered_settings() -> Result<Option<Remembered>, ChromeError> {
    let key = JsValue::from_str(Remembered::STORAGE_KEY);
    let items: Map<String, Value> = from_js(LOCAL_GET, &call(LOCAL_GET, local_get, &key).await?)?;
    Ok(Remembered::from_stored(items.get(Remembered::STORAGE_KEY)))
}

/// Stores what to remember of settings just read (never the key): one item, written whole.
pub async fn remember_settings(settings: &Settings) -> Result<(), ChromeError> {
    let items = Map::from_iter([(
        Remembered::STORAGE_KEY.to_owned(),
        Remembered::of(settings).to_stored(),
    )]);
    call(LOCAL_SET, local_set, &to_js(LOCAL_SET, &items)?)
        .await
        .map(drop)
}

/// The conversation as a page shows it, and what was known of the settings to show it.
#[derive(Debug)]
pub struct ShownConversation {
    /// The turns, newest first, excluded sites' pages taken out.
    pub loaded: LoadedConversation,
    /// Whether the settings were read; when not, nothing was pruned.
    pub settings_read: bool,
    /// Turns not shown because the excluded sites are not known (any might show one of their
    /// pages); they stay stored.
    pub withheld: usize,
}

/// The conversation, newest first, read with `settings` as the page read them ([`KnownSettings`]:
/// when that read failed, the settings the worker remembers, stored in the same area, stand in
/// for the excluded sites). Only settings actually read prune: expired turns are then deleted
/// from storage before this returns (a failed delete is reported, the turns are still not shown).
/// The excluded sites' pages are taken out of the turns as shown (the stored turns keep them, so
/// a site taken off the list shows again); when no excluded sites are known at all, no turn is
/// shown, and none is deleted.
pub async fn load_conversation(
    now_ms: i64,
    settings: Result<Settings, ChromeError>,
) -> Result<ShownConversation, ChromeError> {
    let items = local_items().await?;
    let remembered = Remembered::from_stored(items.get(Remembered::STORAGE_KEY));
    let known = KnownSettings::from_read(settings, remembered);
    let mut loaded = conversation::load(items, now_ms, known.retention());
    let mut withheld = 0;
    match known.exclusions() {
        Some(excluded) => {
            for stored in &mut loaded.turns {
                stored.turn.hide_excluded(&excluded);
            }
        }
        None => withheld = std::mem::take(&mut loaded.turns).len(),
    }
    if !loaded.expired.is_empty() {
        remove_local(&loaded.expired).await?;
    }
    Ok(ShownConversation {
        loaded,
        settings_read: known.is_read(),
        withheld,
    })
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

/// Takes out of the stored conversation what it holds of `origin` (its switch went off): marks,
/// and the rows found only there ([`conversation::forget_origin`]), in one write.
pub async fn forget_origin_in_conversation(
    origin: history_chat_core::origin::Origin,
) -> Result<(), ChromeError> {
    write_turns(conversation::forget_origin(local_items().await?, origin)).await
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

/// The journal of removals the index snapshot does not hold yet
/// ([`history_chat_core::index::journal`], one `chrome.storage.local` item), oldest first; a
/// stored value that cannot be read is an unreadable removal at `now_ms`
/// ([`history_chat_core::index::journal::read_stored`]).
pub async fn load_removals(
    now_ms: i64,
) -> Result<Vec<history_chat_core::index::journal::Entry>, ChromeError> {
    use history_chat_core::index::journal;
    let key = JsValue::from_str(journal::STORAGE_KEY);
    let mut items: Map<String, Value> =
        from_js(LOCAL_GET, &call(LOCAL_GET, local_get, &key).await?)?;
    Ok(journal::read_stored(
        items.remove(journal::STORAGE_KEY),
        now_ms,
    ))
}

/// Writes the journal of removals whole: `stored`, as
/// [`history_chat_core::index::journal::Journal::to_stored`] gives it, or, when nothing is
/// pending (`None`), removes its item.
pub async fn save_removals(stored: Option<Value>) -> Result<(), ChromeError> {
    let key = history_chat_core::index::journal::STORAGE_KEY.to_owned();
    match stored {
        Some(value) => {
            let items = Map::from_iter([(key, value)]);
            call(LOCAL_SET, local_set, &to_js(LOCAL_SET, &items)?)
                .await
                .map(drop)
        }
        None => remove_local(&[key]).await,
    }
}

/// The catch-up in progress ([`history_chat_core::catch_up::Stored`], one `chrome.storage.local`
/// item), if any; a stored value that cannot be read is none (the catch-up is lost, nothing else).
pub async fn load_catch_up() -> Result<Option<history_chat_core::catch_up::Stored>, ChromeError> {
    use history_chat_core::catch_up;
    let key = JsValue::from_str(catch_up::STORAGE_KEY);
    let mut items: Map<String, Value> =
        from_js(LOCAL_GET, &call(LOCAL_GET, local_get, &key).await?)?;
    Ok(items
        .remove(catch_up::STORAGE_KEY)
        .and_then(|value| serde_json::from_value(value).ok()))
}

/// Writes the catch-up in progress whole, or removes its item once it is over (`None`).
pub async fn save_catch_up(
    stored: Option<&history_chat_core::catch_up::Stored>,
) -> Result<(), ChromeError> {
    let key = history_chat_core::catch_up::STORAGE_KEY.to_owned();
    match stored {
        Some(stored) => {
            let value = serde_json::to_value(stored).map_err(|error| ChromeError::Unreadable {
                api: LOCAL_SET,
                message: error.to_string(),
            })?;
            let items = Map::from_iter([(key, value)]);
            call(LOCAL_SET, local_set, &to_js(LOCAL_SET, &items)?)
                .await
                .map(drop)
        }
        None => remove_local(&[key]).await,
    }
}
