//! A faithful simulation of `chrome.history.search`'s matcher, to measure what the browser alone
//! finds and to test the fusion against it.
//!
//! Title and URL are lower-cased and split into words (runs of letters and digits); the query too.
//! Every query word must match (AND): a word of three characters or more as a prefix of some word,
//! a shorter one as a whole word. No accent folding, no stemming, no mid-word match. Results are
//! the matching entries visited at or after `start_ms`, most recent first, then cleaned and merged
//! ([`crate::history::clean_and_merge`]) as the extension does with the browser's answer.

use crate::history::{HistoryItem, Page, clean_and_merge};

/// Query words of at least this many characters match as word prefixes (Chromium's rule).
pub const PREFIX_MIN_CHARS: usize = 3;

/// The lower-cased words of a text, as the browser splits them.
pub fn browser_words(text: &str) -> Vec<String> {
    text.to_lowercase()
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_owned)
        .collect()
}

/// Whether an entry matches the query words.
pub fn matches(item: &HistoryItem, query_words: &[String]) -> bool {
    let mut words = browser_words(&item.title);
    words.extend(browser_words(&item.url));
    query_words.iter().all(|q| {
        let prefix = q.chars().count() >= PREFIX_MIN_CHARS;
        words.iter().any(|w| {
            if prefix {
                w.starts_with(q.as_str())
            } else {
                w == q
            }
        })
    })
}

/// What the extension's local mode shows for `text` over a period: the browser's matches, most
/// recent first, cleaned and merged. An empty query matches everything.
pub fn browser_search(items: &[HistoryItem], text: &str, start_ms: i64) -> Vec<Page> {
    let query = browser_words(text);
    let mut found: Vec<&HistoryItem> = items
        .iter()
        .filter(|item| item.last_visit_ms >= start_ms && matches(item, &query))
        .collect();
    found.sort_by_key(|item| std::cmp::Reverse(item.last_visit_ms));
    clean_and_merge(found.into_iter().cloned())
}
