//! The settings as the worker knows them ([`KnownSettings`]): read once when the worker starts,
//! taken from `chrome.storage.onChanged` when they change (the new value comes with the event, so
//! no read can fail then), and remembered in `chrome.storage.local` after each read
//! ([`storage::remember_settings`]).
//!
//! A read that fails is never taken for the defaults: the worker falls back on what it remembers,
//! and with nothing remembered it knows nothing — the indexes then wait, and the pages' requests
//! that would need the excluded sites are refused with a sentence that says why
//! ([`unknown_exclusions`]). Either way the read is tried again ([`retry_after_ms`], from a second
//! up to a minute apart) until it succeeds. Whoever needs the settings waits for the first attempt
//! to end ([`known`]); each change of what is known is passed to both indexes ([`adopt`]).

use std::cell::{Cell, RefCell};

use futures_channel::oneshot;
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::{log, storage};
use history_chat_core::failure::Failure;
use history_chat_core::messages::Response;
use history_chat_core::settings::{KnownSettings, Settings, retry_after_ms};
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use crate::events::{self, Event};

thread_local! {
    /// `None` until the first read has ended.
    static KNOWN: RefCell<Option<KnownSettings>> = const { RefCell::new(None) };
    /// Who waits for the first read to end.
    static WAITERS: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
    /// Failed reads in a row (a retry is pending while this is above zero).
    static FAILURES: Cell<u32> = const { Cell::new(0) };
}

/// The worker started: reads the settings.
pub fn start() {
    spawn_local(read());
}

/// `chrome.storage.onChanged` for the settings, with the new stored value (`undefined`: removed,
/// which is the defaults for real). A value that cannot be read is read from storage instead.
pub fn changed(new_value: &JsValue) {
    match storage::settings_from_change(new_value) {
        Ok(settings) => {
            spawn_local(remember(settings.clone()));
            adopt(KnownSettings::Read(settings));
        }
        Err(error) => {
            log::failure("reading the changed settings", &error);
            spawn_local(read());
        }
    }
}

/// Settings another part of the worker has just read: adopted when they differ from what is known
/// (a read that succeeds after failures ends the retries and stands in for their next attempt).
pub fn read_now(settings: &Settings) {
    let known = KnownSettings::Read(settings.clone());
    if KNOWN.with_borrow(|held| held.as_ref() != Some(&known)) {
        spawn_local(remember(settings.clone()));
        adopt(known);
    }
}

/// What is known of the settings, once the first read has ended.
pub async fn known() -> KnownSettings {
    loop {
        if let Some(known) = KNOWN.with_borrow(Clone::clone) {
            return known;
        }
        let (ready, wait) = oneshot::channel();
        WAITERS.with_borrow_mut(|waiters| waiters.push(ready));
        // A dropped sender (cannot happen while the worker lives) only means: look again.
        if wait.await.is_err() {
            log::note("a wait for the settings ended without them; looking again");
        }
    }
}

/// The answer to a request that needs the excluded sites while they are not known.
pub fn unknown_exclusions() -> Response {
    Response::Failed {
        failure: Failure::ExclusionsUnknown,
    }
}

/// Reads the settings; on failure falls back on what is remembered and tries again later.
async fn read() {
    match storage::load_settings().await {
        Ok(settings) => {
            FAILURES.set(0);
            remember(settings.clone()).await;
            adopt(KnownSettings::Read(settings));
        }
        Err(error) => {
            log::failure("reading the settings", &error);
            let failures = FAILURES.get() + 1;
            FAILURES.set(failures);
            // A read of this worker's life (or the last change) is fresher than what is stored.
            if !KNOWN.with_borrow(|known| known.as_ref().is_some_and(KnownSettings::is_read)) {
                let remembered = match storage::remembered_settings().await {
                    Ok(remembered) => remembered,
                    Err(error) => {
                        log::failure("reading the remembered settings", &error);
                        None
                    }
                };
                adopt(KnownSettings::from_read(Err(()), remembered));
            }
            spawn_local(async move {
                http::sleep(retry_after_ms(failures), &Cancel::new()).await;
                // A change since has brought the settings: no read needed.
                if FAILURES.get() == failures {
                    read().await;
                }
            });
        }
    }
}

/// Stores what to remember of settings just read; a failure is logged (the last remembered ones
/// stay, and the next read or change writes again).
async fn remember(settings: Settings) {
    if let Err(error) = storage::remember_settings(&settings).await {
        log::failure("remembering the settings", &error);
    }
}

/// Makes `known` what the worker knows, wakes who waited for it, and tells both indexes
/// ([`Event::SettingsKnown`]).
fn adopt(known: KnownSettings) {
    if known.is_read() {
        FAILURES.set(0);
    }
    KNOWN.set(Some(known.clone()));
    for waiter in WAITERS.take() {
        // The waiter may have gone (its request ended): nothing to tell it.
        let _ = waiter.send(());
    }
    events::emit(Event::SettingsKnown(known));
}
