//! History Chat's service worker. `assets/service_worker.js` registers the browser's listeners
//! synchronously (a module worker may not use top-level `await`) and calls into this module once it
//! is initialised.
//!
//! The worker holds the local search index ([`index_host`], glue around the core's
//! `index::host` state machine): loaded from its IndexedDB snapshot (or built from the history,
//! newest first, the first time), kept in step with `chrome.history`'s events (an event that
//! cannot be read is a read of the history; every removal is journaled by [`removals`] until a
//! saved snapshot holds it), and asked by the pages through [`history_chat_core::messages`].
//! Beside it, the semantic index ([`semantic_host`], glue around the core's `semantic::host`)
//! follows the lexical one's pages and has them understood by the on-device model, hosted by an
//! offscreen document. Both learn the settings
//! from [`settings_host`], which never takes a failed read for the defaults. The address-bar keyword
//! ([`omnibox`]) suggests the lexical index's pages as the user types after `hc`. The committed
//! questions are searched here too ([`ask_host`]: Gemini, Chrome's built-in model, or the local
//! search of [`local_search`]), so that closing the popup does not end them.
//!
//! The modules, lowest first (none calls one below it in this list; what goes up goes as an
//! event, through [`events`] to this file's one dispatcher):
//! - [`events`]: what one host tells the others.
//! - [`settings_host`]: the settings as the worker knows them (read, remembered, retried).
//! - [`removals`]: the journal of removals the index's snapshot does not hold yet.
//! - [`record_store`]: the IndexedDB records of the hosts that keep one per page, read and written.
//! - [`index_host`]: the lexical index's life, and a page's removal carried out.
//! - [`semantic_host`]: topic search's life, following the lexical index.
//! - [`content_host`]: the pages' read content (the reader's pages in, their passages searched),
//!   following the lexical index's removals.
//! - [`catch_up`]: the pages of the last days read again from their sites, on request.
//! - [`places_host`]: the bookmarks and open tabs (their switches on), read and followed.
//! - [`local_search`]: a committed local question, by the core's retrieval plan.
//! - [`ask_host`]: the popups' committed questions (AI or local), outliving the popup.
//! - [`omnibox`]: the address-bar keyword `hc`.

mod ask_host;
mod catch_up;
mod content_host;
mod events;
mod index_host;
mod local_search;
mod omnibox;
mod places_host;
mod record_store;
mod removals;
mod semantic_host;
mod settings_host;

use std::cell::Cell;

use events::Event;
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::{log, messages, storage};
use history_chat_core::failure::Failure;
use history_chat_core::index::host::Question;
use history_chat_core::messages::{Request, Response, from_extension_page, from_popup};
use history_chat_core::semantic::host::USER_PAUSE_MS;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::spawn_local;

/// Sets up panic reporting and the UI language's catalogue; called once by the script right after
/// initialisation.
#[wasm_bindgen]
pub fn start() {
    console_error_panic_hook::set_once();
    events::install(dispatch);
    history_chat_bindings::i18n::install();
    history_chat_bindings::hosts::install();
    ask_host::start();
    removals::start();
    settings_host::start();
    catch_up::start();
    places_host::start();
}

/// The one dispatcher of what a host tells the others ([`events`]): each event to the hosts that
/// follow it.
fn dispatch(event: Event) {
    match event {
        Event::SettingsKnown(known) => {
            index_host::settings_known(&known);
            semantic_host::settings_known(&known);
            content_host::settings_known(&known);
            places_host::settings_known(&known);
        }
        Event::Replay(entry) => index_host::replay(&entry),
        Event::PagesIndexed(pages) => semantic_host::pages(pages),
        Event::PagesListed => {
            semantic_host::listed();
            content_host::history_listed();
        }
        Event::PagesRemoved(removal) => {
            catch_up::removed(&removal);
            content_host::removed(removal.clone());
            semantic_host::removed(removal);
        }
        Event::VisitsRemoved(removed) => ask_host::removed_visits(&removed),
        Event::Bookmarked(urls) => catch_up::bookmarked(urls),
        Event::BookmarksTitled(pages) => semantic_host::bookmarked(pages),
        Event::TabsKnown(pages) => semantic_host::tabs_known(pages),
        Event::Unbookmarked(urls) => {
            semantic_host::unbookmarked(urls.clone());
            catch_up::unbookmarked(&urls);
            content_host::unbookmarked(urls);
        }
        Event::BookmarksKnown(urls) => {
            let listed: Vec<String> = urls.iter().cloned().collect();
            semantic_host::bookmarks_known(places_host::bookmark_pages(&listed));
            catch_up::bookmarks_known(&urls);
            content_host::keep_bookmarked(urls);
        }
    }
}

/// `chrome.runtime.onConnect`: a popup's `ask` port, which hears how the AI search goes.
#[wasm_bindgen]
pub async fn on_connect(port: JsValue) {
    ask_host::connected(port).await;
}

/// `chrome.storage.onChanged` for the synced settings, with their new value: applies the excluded
/// sites at once (their pages leave both indexes; a site taken off the list is read from the
/// history again).
#[wasm_bindgen]
pub fn on_settings_changed(new_value: JsValue) {
    settings_host::changed(&new_value);
}

/// `chrome.permissions.onAdded` / `onRemoved`: the bookmarks or open tabs may have been switched
/// on (read them) or off (forget them).
#[wasm_bindgen]
pub fn on_permissions_changed() {
    places_host::permissions_changed();
}

/// `chrome.runtime.onInstalled`: writes the default settings (install), or the fields a new version
/// added (update), keeping everything already set; writes nothing when the settings are complete.
#[wasm_bindgen]
pub async fn on_installed() -> Result<(), JsError> {
    storage::fill_missing_settings().await?;
    Ok(())
}

thread_local! {
    /// How many times the user was seen typing or asking ([`user_active`]): the last one's timer
    /// alone ends the pause.
    static USER_SEEN: Cell<u64> = const { Cell::new(0) };
    /// Between the first [`user_active`] and the end of its pause.
    static USER_PAUSED: Cell<bool> = const { Cell::new(false) };
}

/// The user typed or asked (in the popup, or after the address bar's keyword): the background
/// builds (topic search's, the pages' content's) start no new batch until [`USER_PAUSE_MS`] after
/// the last time, so that what the user asked for has the machine.
fn user_active() {
    let seen = USER_SEEN.get().wrapping_add(1);
    USER_SEEN.set(seen);
    if !USER_PAUSED.replace(true) {
        semantic_host::user_active(true);
        content_host::user_active(true);
    }
    spawn_local(async move {
        http::sleep(USER_PAUSE_MS, &Cancel::new()).await;
        if USER_SEEN.get() == seen {
            USER_PAUSED.set(false);
            semantic_host::user_active(false);
            content_host::user_active(false);
        }
    });
}

/// `chrome.runtime.onMessage`: answers a page's [`history_chat_core::messages::Request`].
#[wasm_bindgen]
pub async fn on_message(message: JsValue, sender: JsValue) -> JsValue {
    let request = messages::read_request(&message);
    let popup = || from_popup(messages::read_sender(&sender).url.as_deref());
    match &request {
        // The popup opened: its first question should not wait for the model to load, when topic
        // search or the pages' content would embed it.
        Ok(Request::Warm)
            if popup() && (semantic_host::answers_questions() || content_host::searchable()) =>
        {
            semantic_host::load_question_model()
        }
        Ok(request) if request.is_typing_or_asking() && popup() => user_active(),
        _ => {}
    }
    // A page of the history bookmarked or open in a tab says so, whichever source found it (the
    // places' own answer is marked already, and may be outside the history).
    let history_pages = matches!(
        request,
        Ok(Request::Search { .. }
            | Request::Understand { .. }
            | Request::ContentSearch { .. }
            | Request::BrowserSearch { .. })
    );
    let mut response = match request {
        Ok(Request::PageRead { html, .. }) => {
            content_host::page_read(messages::read_sender(&sender), html).await
        }
        Ok(Request::PdfSeen { .. }) => content_host::pdf_seen(messages::read_sender(&sender)).await,
        Ok(Request::ContentSearch {
            query,
            start_ms,
            limit,
        }) => {
            let mut found =
                content_host::search(&query, start_ms, limit, places_host::place_pages).await;
            places_host::words_found(&query, &mut found);
            found
        }
        Ok(Request::Places { query, limit }) => places_host::search(&query, limit).await,
        Ok(Request::ContentState) => catch_up::state().await,
        Ok(Request::SetContent { enabled }) => {
            content_host::set_enabled(enabled).await;
            catch_up::state().await
        }
        Ok(Request::CatchUpPlan { reach }) => catch_up::plan(reach).await,
        Ok(Request::CatchUp { reach }) => catch_up::begin(reach).await,
        Ok(Request::CancelCatchUp) => catch_up::cancel().await,
        Ok(Request::Battery(battery)) => {
            if from_extension_page(messages::read_sender(&sender).url.as_deref()) {
                let low = battery.is_low();
                semantic_host::battery_low(low);
                content_host::battery_low(low);
            }
            Response::Noted
        }
        Ok(Request::Understand {
            query,
            start_ms,
            limit,
        }) => {
            let mut understood =
                semantic_host::understand(&query, start_ms, limit, places_host::place_pages).await;
            places_host::words_found(&query, &mut understood);
            understood
        }
        Ok(Request::SemanticState) => semantic_host::state(),
        Ok(Request::SetSemantic { enabled }) => semantic_host::set_enabled(enabled),
        Ok(Request::Remove { url }) => index_host::remove(url).await,
        Ok(Request::BrowserSearch {
            question,
            period,
            now_ms,
        }) => index_host::browser_search(&question, period, now_ms).await,
        Ok(Request::SetKeepForgotten { enabled }) => index_host::set_keep_forgotten(enabled).await,
        Ok(Request::ForgetKept) => index_host::forget_kept().await,
        Ok(Request::Ask {
            question,
            period,
            key,
        }) => ask_host::ask(question, period, key).await,
        Ok(Request::CancelAsk { key }) => ask_host::cancel(key),
        Ok(Request::Warm) => index_host::answer(Question::Warm).await,
        Ok(Request::Search {
            query,
            start_ms,
            limit,
        }) => {
            let answer = index_host::answer(Question::Search {
                query: query.clone(),
                start_ms,
                limit,
            })
            .await;
            places_host::fuse_into(&query, limit, answer)
        }
        Ok(Request::KeptPages) => index_host::answer(Question::Kept).await,
        Err(error) => Response::Failed {
            failure: Failure::BadRequest {
                detail: error.to_string(),
            },
        },
    };
    if history_pages {
        places_host::mark(&mut response);
    }
    messages::write_response(&response)
}

/// `chrome.history.onVisited`: a page was visited; the index learns it. An item that cannot be
/// read is logged (not its content: it may name the page) and the recent history is read again.
#[wasm_bindgen]
pub fn on_visited(item: JsValue) {
    match messages::read_visited(&item) {
        Ok(item) => index_host::visited(item),
        Err(_) => {
            log::note("a visit (onVisited) could not be read; the recent history is read again");
            index_host::visit_unreadable();
        }
    }
}

/// `chrome.history.onVisitRemoved`: pages were deleted from history (the index forgets them) or
/// Chrome expired them (kept, when the user asked for it). An argument that cannot be read is
/// logged (not its content: it may name pages) and the index is verified against the history.
#[wasm_bindgen]
pub fn on_visit_removed(removed: JsValue) {
    match messages::read_removed(&removed) {
        Ok(removed) => index_host::removed(removed),
        Err(_) => {
            log::note(
                "a removal (onVisitRemoved) could not be read; the index is checked against the whole history",
            );
            index_host::removal_unreadable();
        }
    }
}

/// `chrome.omnibox.onInputStarted`: the user typed the keyword (`hc`).
#[wasm_bindgen]
pub async fn on_input_started() -> Result<(), JsError> {
    omnibox::started().await?;
    Ok(())
}

/// `chrome.omnibox.onInputChanged`: suggests the local index's pages for `text` through `suggest`.
#[wasm_bindgen]
pub async fn on_input_changed(text: JsValue, suggest: js_sys::Function) -> Result<(), JsError> {
    user_active();
    omnibox::changed(text.as_string().unwrap_or_default(), suggest).await?;
    Ok(())
}

/// `chrome.omnibox.onInputEntered`: opens what Enter picked, where `disposition` says.
#[wasm_bindgen]
pub async fn on_input_entered(text: JsValue, disposition: JsValue) -> Result<(), JsError> {
    omnibox::entered_text(text.as_string().unwrap_or_default(), disposition).await?;
    Ok(())
}
