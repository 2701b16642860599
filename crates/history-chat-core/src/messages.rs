//! The messages between the extension's pages and its service worker (`chrome.runtime.sendMessage`),
//! in one place. The worker holds the local search index; pages ask it.

use serde::{Deserialize, Serialize};

use crate::display::relative_time;
use crate::history::Page;

/// What a page asks the service worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Request {
    /// The popup opened: load the index now if it is not loaded. Answered with [`Response::Ready`]
    /// or [`Response::Indexing`].
    Warm,
    /// Smart local search: the index's best pages for `query` among pages last visited at or after
    /// `start_ms`, answered at once from the index (for each keystroke and for a committed
    /// question alike).
    Search {
        /// The words typed.
        query: String,
        /// Period start, ms since the Unix epoch.
        start_ms: i64,
        /// At most this many pages.
        limit: usize,
    },
    /// AI mode's retrieval: the pages matching one keyword, most relevant first.
    Keyword {
        /// One keyword.
        keyword: String,
        /// Period start, ms since the Unix epoch.
        start_ms: i64,
        /// At most this many pages.
        limit: usize,
    },
}

/// The service worker's answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Response {
    /// The pages found, best first.
    Pages {
        /// The pages.
        pages: Vec<Page>,
        /// `None`: the index covers the whole period asked, so this is the whole answer. `Some`:
        /// the index is still being built (newest pages first) and does not reach back to the
        /// period's start yet — the asker fuses in the browser's own search.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        indexing: Option<IndexProgress>,
    },
    /// The index is loaded.
    Ready {
        /// Pages in the index.
        pages: usize,
    },
    /// The index is still being loaded or built: use the browser's search meanwhile.
    Indexing {
        /// How far it has got.
        progress: IndexProgress,
    },
    /// Something went wrong in the worker.
    Failed {
        /// What, for the user.
        message: String,
    },
}

/// How far the index's first build has got: it reads the history newest first, so every page
/// visited since `since_ms` is in.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct IndexProgress {
    /// Pages indexed so far.
    pub pages: usize,
    /// Every visit at or after this instant (ms since the Unix epoch) is indexed; `None` before
    /// the first slice of history has been read (or while a saved index is being read).
    #[serde(default)]
    pub since_ms: Option<i64>,
}

impl IndexProgress {
    /// Whether every page visited at or after `start_ms` is already in the index.
    pub fn covers(&self, start_ms: i64) -> bool {
        self.since_ms.is_some_and(|since| since <= start_ms)
    }

    /// The popup's line while the index is built: "Indexing your history: 12,345 pages so far,
    /// back to 3 days ago…".
    pub fn status(&self, now_ms: i64) -> String {
        match self.since_ms {
            None => "Indexing your history…".to_owned(),
            Some(since) => format!(
                "Indexing your history: {} so far, back to {}…",
                pages(self.pages),
                relative_time(now_ms, since)
            ),
        }
    }

    /// The notice over what the incomplete index found (perhaps nothing yet), shown at once while
    /// the browser's search is still running.
    pub fn filling_in(&self) -> &'static str {
        "Indexing your history… Chrome's own search is filling in."
    }

    /// The notice above results the index could not give alone.
    pub fn notice(&self) -> &'static str {
        match self.since_ms {
            None => "Indexing your history… meanwhile these come from Chrome's own search.",
            Some(_) => {
                "Indexing your history… Chrome's own search fills in the pages not indexed yet."
            }
        }
    }
}

/// "1 page", "12,345 pages".
fn pages(count: usize) -> String {
    let digits = count.to_string();
    let mut grouped = String::new();
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push(',');
        }
        grouped.push(digit);
    }
    match count {
        1 => "1 page".to_owned(),
        _ => format!("{grouped} pages"),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn requests_and_responses_have_a_stable_shape() {
        let request = Request::Search {
            query: "cte".into(),
            start_ms: 5,
            limit: 25,
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(
            value,
            json!({"type": "search", "query": "cte", "startMs": 5, "limit": 25})
        );
        assert_eq!(serde_json::from_value::<Request>(value).unwrap(), request);
        assert_eq!(
            serde_json::to_value(Request::Warm).unwrap(),
            json!({"type": "warm"})
        );
        assert_eq!(
            serde_json::to_value(Response::Indexing {
                progress: IndexProgress {
                    pages: 7,
                    since_ms: Some(9)
                }
            })
            .unwrap(),
            json!({"type": "indexing", "progress": {"pages": 7, "sinceMs": 9}})
        );
        assert_eq!(
            serde_json::to_value(Response::Pages {
                pages: Vec::new(),
                indexing: None
            })
            .unwrap(),
            json!({"type": "pages", "pages": []})
        );
        assert_eq!(
            serde_json::to_value(Response::Ready { pages: 3 }).unwrap(),
            json!({"type": "ready", "pages": 3})
        );
    }

    #[test]
    fn progress_wording() {
        const NOW: i64 = 1_780_000_000_000;
        let day = crate::period::DAY_MS;
        let rows: &[(usize, Option<i64>, &str)] = &[
            (0, None, "Indexing your history…"),
            (
                1,
                Some(NOW),
                "Indexing your history: 1 page so far, back to just now…",
            ),
            (
                12_345,
                Some(NOW - 3 * day),
                "Indexing your history: 12,345 pages so far, back to 3 days ago…",
            ),
            (
                1_000_000,
                Some(NOW - 3 * day),
                "Indexing your history: 1,000,000 pages so far, back to 3 days ago…",
            ),
            (
                999,
                Some(NOW - 3 * day),
                "Indexing your history: 999 pages so far, back to 3 days ago…",
            ),
        ];
        for &(pages, since_ms, expected) in rows {
            assert_eq!(IndexProgress { pages, since_ms }.status(NOW), expected);
        }
        let progress = IndexProgress {
            pages: 10,
            since_ms: Some(NOW - day),
        };
        assert!(progress.covers(NOW - day) && progress.covers(NOW));
        assert!(!progress.covers(NOW - day - 1));
        assert!(!IndexProgress::default().covers(i64::MAX));
    }

    #[test]
    fn unknown_messages_are_errors_not_panics() {
        assert!(serde_json::from_value::<Request>(json!({"type": "explode"})).is_err());
        assert!(serde_json::from_value::<Request>(json!("warm")).is_err());
    }
}
