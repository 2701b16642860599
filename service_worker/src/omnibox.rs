//! Glue for the address-bar keyword (`hc`): asks the lexical index ([`crate::index_host`]) as the
//! popup does, has the core word the suggestions and the default suggestion
//! ([`history_chat_core::omnibox`]), and opens what Enter asks for. Nothing here makes a network
//! request: the suggestions come from the local index alone, and the bookmarks and open tabs when
//! their switches are on ([`crate::places_host`]).

use std::cell::Cell;

use history_chat_bindings::tabs::{self, OpenError};
use history_chat_bindings::{ChromeError, now_ms, omnibox};
use history_chat_core::history::Page;
use history_chat_core::index::host::Question;
use history_chat_core::messages::Response;
use history_chat_core::omnibox::{Coverage, Entered, MAX_SUGGESTIONS, answer, entered};
use history_chat_core::origin::Origin;
use history_chat_core::retrieval::{fusion, searches_places};
use history_chat_core::site_filter;
use history_chat_core::wording::omnibox::prompt;
use wasm_bindgen::JsValue;

use crate::{index_host, places_host};

thread_local! {
    /// The number of the latest input: an answer to an older one is not sent (Chrome would drop
    /// its suggestions anyway, but its default suggestion would overwrite the newer one's).
    static LATEST: Cell<u64> = const { Cell::new(0) };
}

/// `chrome.omnibox.onInputStarted`: the user typed the keyword; the default suggestion invites a
/// question (the previous session's may still be there).
pub async fn started() -> Result<(), ChromeError> {
    index_host::warm();
    omnibox::set_default_suggestion(&prompt()).await
}

/// `chrome.omnibox.onInputChanged`: the index's best pages for `text`, through `suggest`, and the
/// default suggestion saying what Enter will do.
pub async fn changed(text: String, suggest: js_sys::Function) -> Result<(), ChromeError> {
    let turn = LATEST.get().wrapping_add(1);
    LATEST.set(turn);
    let (pages, coverage) = search(&text, MAX_SUGGESTIONS).await;
    if LATEST.get() != turn {
        return Ok(());
    }
    let answer = answer(&text, &pages, coverage);
    omnibox::suggest(&suggest, &answer.suggestions)?;
    omnibox::set_default_suggestion(&answer.default_description(now_ms())).await
}

/// `chrome.omnibox.onInputEntered`: opens the picked suggestion, the address typed, or the best
/// match for the text, where `disposition` says; nothing when there is nothing to open.
pub async fn entered_text(text: String, disposition: JsValue) -> Result<(), OpenError> {
    let disposition = omnibox::read_disposition(&disposition);
    let url = match entered(&text) {
        Entered::Open(url) => url,
        Entered::BestMatch(query) => match search(&query, 1).await.0.into_iter().next() {
            Some(page) => page.url,
            None => return Ok(()),
        },
        Entered::Nothing => return Ok(()),
    };
    tabs::open_in(&url, disposition).await
}

/// The index's answer to `text` over the whole history, as the popup's search asks it (waiting
/// for a snapshot being loaded), with the bookmarks and open tabs fused in (their switches on;
/// the question's source terms choose among the three), and how far the index covers the
/// history.
async fn search(text: &str, limit: usize) -> (Vec<Page>, Coverage) {
    let origins = site_filter::parse(text).origins;
    let (history, coverage) = match origins.allows(Origin::History) {
        true => history_search(text, limit).await,
        false => (Vec::new(), Coverage::Whole { pages: 0 }),
    };
    if !searches_places(origins) {
        return (history, coverage);
    }
    let places = match places_host::search(text, limit).await {
        Response::Pages { pages, .. } => pages,
        _ => Vec::new(),
    };
    let mut pages = fusion::fuse(&history, &places);
    pages.truncate(limit);
    (pages, coverage)
}

/// The index's answer to `text` (see [`search`]).
async fn history_search(text: &str, limit: usize) -> (Vec<Page>, Coverage) {
    let request = Question::Search {
        query: text.to_owned(),
        start_ms: i64::MIN,
        limit,
    };
    match index_host::answer(request).await {
        Response::Pages {
            pages,
            indexing: None,
            ..
        } => (
            pages,
            Coverage::Whole {
                pages: index_host::page_count(),
            },
        ),
        Response::Pages {
            pages,
            indexing: Some(progress),
            ..
        } => (pages, Coverage::Building(progress)),
        Response::Indexing { progress } => (Vec::new(), Coverage::Building(progress)),
        // The index answers a search with pages (or, before it starts, its progress); anything
        // else reads as an index still starting.
        _ => (Vec::new(), Coverage::Building(Default::default())),
    }
}
