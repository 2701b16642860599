//! `chrome.history`, as the core's [`HistorySource`].

use history_chat_core::history::HistoryItem;
use history_chat_core::search::{HistoryQuery, HistorySource};
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use history_chat_core::messages::{Request, Response};

use crate::ChromeError;
use crate::js_json::{from_js, to_js};
use crate::messages::ask_worker;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "history"], js_name = search)]
    fn history_search(query: &JsValue) -> Result<js_sys::Promise, JsValue>;
}

const SEARCH: &str = "chrome.history.search";

/// The browser's history (`chrome.history`; needs the `history` permission).
#[derive(Debug, Clone, Copy, Default)]
pub struct ChromeHistory;

impl HistorySource for ChromeHistory {
    type Error = ChromeError;

    async fn search(&self, query: &HistoryQuery) -> Result<Vec<HistoryItem>, ChromeError> {
        let promise =
            history_search(&to_js(SEARCH, query)?).map_err(|e| ChromeError::failed(SEARCH, e))?;
        let items = JsFuture::from(promise)
            .await
            .map_err(|e| ChromeError::failed(SEARCH, e))?;
        from_js(SEARCH, &items)
    }
}

/// The service worker's local index as a [`HistorySource`] (AI mode's per-keyword retrieval:
/// relevance order, one message per keyword); while the index loads, or if the worker fails, the
/// browser's own search answers instead.
#[derive(Debug, Clone, Copy, Default)]
pub struct IndexedHistory;

impl HistorySource for IndexedHistory {
    type Error = ChromeError;

    async fn search(&self, query: &HistoryQuery) -> Result<Vec<HistoryItem>, ChromeError> {
        let request = Request::Keyword {
            keyword: query.text.clone(),
            start_ms: query.start_time as i64,
            limit: match query.max_results {
                0 => usize::MAX,
                n => n as usize,
            },
        };
        match ask_worker(&request).await {
            Ok(Response::Pages { pages }) => Ok(pages.into_iter().map(HistoryItem::from).collect()),
            _ => ChromeHistory.search(query).await,
        }
    }
}
