//! History Chat's service worker. `assets/service_worker.js` registers the browser's listeners
//! synchronously (a module worker may not use top-level `await`) and calls into this module once it
//! is initialised.

use history_chat_bindings::storage;
use wasm_bindgen::prelude::*;

/// `chrome.runtime.onInstalled`: writes the settings back with every missing field at its default,
/// so the options page and popup start from complete settings; fields the user or another version
/// set are kept. Runs on install and on update.
#[wasm_bindgen]
pub async fn on_installed() -> Result<(), JsError> {
    let settings = storage::load_settings().await?;
    storage::save_settings(&settings).await?;
    Ok(())
}
