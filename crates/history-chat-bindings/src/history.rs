//! `chrome.history`: the browser's raw search, and the core's [`PageSource`] over it and over the
//! service worker's index.
//!
//! The browser's query shape (`{text, startTime, endTime, maxResults}`, JS numbers) is built here
//! and nowhere else; everything above this module asks for cleaned pages with a [`PageQuery`].

use history_chat_core::exclusions::Exclusions;
use history_chat_core::history::{HistoryItem, Page};
use history_chat_core::index::host::{Answer, Question};
use history_chat_core::removal::{EntrySearch, HistoryDeletion};
use history_chat_core::rows::Removal;
use history_chat_core::search::{
    PageQuery, PageSource, browser_fetch_limit, browser_pages, browser_text,
};
use serde::Serialize;
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::{from_js, to_js};
use crate::storage;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "history"], js_name = search)]
    fn history_search(query: &JsValue) -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "history"], js_name = deleteUrl)]
    fn history_delete_url(details: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

const SEARCH: &str = "chrome.history.search";
const DELETE_URL: &str = "chrome.history.deleteUrl";

/// The argument of `chrome.history.search`, in the browser's shape. Times are integer milliseconds,
/// which cross as JS numbers exactly (below 2^53).
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
struct BrowserQuery<'a> {
    text: &'a str,
    start_time: i64,
    #[serde(skip_serializing_if = "Option::is_none")]
    end_time: Option<i64>,
    max_results: u32,
}

/// The browser's raw answer to `chrome.history.search`: entries matching every word of `text`
/// (empty: every entry) last visited at or after `start_ms` and, when given, before `end_ms` (ms
/// since the Unix epoch), most recent first, at most `max_results` (`0`: no limit). Not cleaned:
/// for reading history in time slices (the index's build and catch-up) and for [`ChromeHistory`].
pub async fn search_items(
    text: &str,
    start_ms: i64,
    end_ms: Option<i64>,
    max_results: u32,
) -> Result<Vec<HistoryItem>, ChromeError> {
    let query = BrowserQuery {
        text,
        start_time: start_ms,
        end_time: end_ms,
        max_results,
    };
    let items = settle(SEARCH, history_search(&to_js(SEARCH, &query)?)).await?;
    from_js(SEARCH, &items)
}

/// Deletes every visit of one raw URL from the browser's history (`chrome.history.deleteUrl`;
/// the browser then reports it to `onVisitRemoved`). A URL the history does not hold is no error.
pub async fn delete_url(url: &str) -> Result<(), ChromeError> {
    #[derive(Serialize)]
    struct Details<'a> {
        url: &'a str,
    }
    settle(
        DELETE_URL,
        history_delete_url(&to_js(DELETE_URL, &Details { url })?),
    )
    .await?;
    Ok(())
}

/// Deletes a page from the browser's history as the core's removal plan says
/// ([`history_chat_core::removal::plan`]): searches the part of the history the index could not
/// tell, if any, then deletes every raw entry the plan names for what is known and found. Says
/// whether the history still held the page; stops at the first entry the browser refuses to
/// delete.
pub async fn delete_page(deletion: &HistoryDeletion) -> Result<Removal, ChromeError> {
    let found = match &deletion.search {
        None => Vec::new(),
        Some(EntrySearch { text, end_ms }) => search_items(text, 0, *end_ms, 0).await?,
    };
    let (urls, removal) = deletion.urls(&found);
    for url in urls {
        delete_url(&url).await?;
    }
    Ok(removal)
}

/// The browser's history as a [`PageSource`] (`chrome.history`; needs the `history` permission):
/// the browser's literal matching, most recent first, cleaned, merged and filtered to the query's
/// sites by the core, without the excluded sites' pages, read from the settings at each search (so
/// a change in the options page applies to the next one; unreadable settings fail the search
/// rather than risk showing an excluded page). A caller that holds the list already gives it with
/// [`ChromeHistory::excluding`] and reads nothing per search.
#[derive(Debug, Clone, Copy, Default)]
pub struct ChromeHistory;

impl ChromeHistory {
    /// The browser's history leaving out `excluded` (the settings' [`Settings::exclusions`], as
    /// the caller read them), with no storage read per search.
    ///
    /// [`Settings::exclusions`]: history_chat_core::settings::Settings::exclusions
    pub fn excluding(excluded: Exclusions) -> ChromeHistoryExcluding {
        ChromeHistoryExcluding { excluded }
    }
}

impl PageSource for ChromeHistory {
    type Error = ChromeError;

    async fn pages(&self, query: &PageQuery) -> Result<Vec<Page>, ChromeError> {
        let excluded = storage::load_settings().await?.exclusions();
        browser_search(query, &excluded).await
    }
}

/// [`ChromeHistory`] with the excluded sites given once ([`ChromeHistory::excluding`]).
#[derive(Debug, Clone, Default)]
pub struct ChromeHistoryExcluding {
    excluded: Exclusions,
}

impl PageSource for ChromeHistoryExcluding {
    type Error = ChromeError;

    async fn pages(&self, query: &PageQuery) -> Result<Vec<Page>, ChromeError> {
        browser_search(query, &self.excluded).await
    }
}

/// The browser's literal search for `query`, cleaned, merged, filtered to its sites and without
/// `excluded`'s pages ([`browser_pages`]).
async fn browser_search(
    query: &PageQuery,
    excluded: &Exclusions,
) -> Result<Vec<Page>, ChromeError> {
    let items = search_items(
        &browser_text(query),
        query.start_ms,
        None,
        browser_fetch_limit(query.limit),
    )
    .await?;
    Ok(browser_pages(items, &query.sites, excluded, query.limit))
}

/// The service worker's local index as a [`PageSource`] (AI mode's per-keyword retrieval:
/// relevance order, one [`Question::Keyword`] per keyword). When the worker cannot give the whole
/// answer — its index is still being built and does not reach back to the period's start yet
/// (`indexing: Some`), it answers anything else, or the message fails — the browser's own search
/// ([`ChromeHistory`], with this source's excluded sites) answers instead. The excluded sites'
/// pages are left out of the worker's answer too (the worker leaves them out already; this holds
/// even if the worker has not yet heard of a change just made in the options page).
///
/// The AI searches run in the worker, which gives its own index ([`IndexedHistory::answered_by`]).
#[derive(Debug, Clone, Default)]
pub struct IndexedHistory<A> {
    excluded: Exclusions,
    index: A,
}

/// Who answers an [`IndexedHistory`]'s questions.
pub trait IndexAnswers {
    /// The index's answer to `question`; `None` when it may not answer (the excluded sites are
    /// not known).
    fn answer(&self, question: Question) -> impl Future<Output = Option<Answer>>;
}

impl<A: IndexAnswers> IndexedHistory<A> {
    /// The source with `index` answering, leaving out `excluded`.
    pub fn answered_by(excluded: Exclusions, index: A) -> IndexedHistory<A> {
        IndexedHistory { excluded, index }
    }
}

impl<A: IndexAnswers> PageSource for IndexedHistory<A> {
    type Error = ChromeError;

    async fn pages(&self, query: &PageQuery) -> Result<Vec<Page>, ChromeError> {
        let question = Question::Keyword {
            keyword: query.text.clone(),
            sites: query.sites.clone(),
            start_ms: query.start_ms,
            limit: query.limit,
        };
        match self.index.answer(question).await {
            Some(Answer::Pages {
                mut pages,
                indexing: None,
            }) => {
                self.excluded.retain_pages(&mut pages);
                Ok(pages)
            }
            // The list this source was given: no settings read per keyword.
            _ => browser_search(query, &self.excluded).await,
        }
    }
}
