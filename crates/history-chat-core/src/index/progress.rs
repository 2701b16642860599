//! How far the index's first build has got, as the worker tells the pages.

use serde::{Deserialize, Serialize};

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
}
