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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn progress_covers_a_period_that_starts_at_or_after_its_oldest_page() {
        const NOW: i64 = 1_780_000_000_000;
        let day = crate::period::DAY_MS;
        let progress = IndexProgress {
            pages: 10,
            since_ms: Some(NOW - day),
        };
        assert!(progress.covers(NOW - day) && progress.covers(NOW));
        assert!(!progress.covers(NOW - day - 1));
        assert!(!IndexProgress::default().covers(i64::MAX));
    }
}
