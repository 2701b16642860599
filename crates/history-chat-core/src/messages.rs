//! The messages between the extension's pages and its service worker (`chrome.runtime.sendMessage`),
//! in one place. The worker holds the local search index; pages ask it.

use serde::{Deserialize, Serialize};

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
    /// `start_ms`. With `literal`, the worker also runs the browser's own search and fuses both, so
    /// nothing the browser finds is lost (slower: for a committed question, not for each keystroke).
    Search {
        /// The words typed.
        query: String,
        /// Period start, ms since the Unix epoch.
        start_ms: i64,
        /// At most this many pages.
        limit: usize,
        /// Fuse in `chrome.history.search`'s results.
        literal: bool,
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
    },
    /// The index is loaded.
    Ready {
        /// Pages in the index.
        pages: usize,
    },
    /// The index is still being loaded or built: use the browser's search meanwhile.
    Indexing,
    /// Something went wrong in the worker.
    Failed {
        /// What, for the user.
        message: String,
    },
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
            literal: true,
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(
            value,
            json!({"type": "search", "query": "cte", "startMs": 5, "limit": 25, "literal": true})
        );
        assert_eq!(serde_json::from_value::<Request>(value).unwrap(), request);
        assert_eq!(
            serde_json::to_value(Request::Warm).unwrap(),
            json!({"type": "warm"})
        );
        assert_eq!(
            serde_json::to_value(Response::Indexing).unwrap(),
            json!({"type": "indexing"})
        );
        assert_eq!(
            serde_json::to_value(Response::Ready { pages: 3 }).unwrap(),
            json!({"type": "ready", "pages": 3})
        );
    }

    #[test]
    fn unknown_messages_are_errors_not_panics() {
        assert!(serde_json::from_value::<Request>(json!({"type": "explode"})).is_err());
        assert!(serde_json::from_value::<Request>(json!("warm")).is_err());
    }
}
