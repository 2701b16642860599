//! What a result row offers besides its link: where a page opens for each key and mouse button,
//! and removing a page from the browser's history (which raw entries to delete, and what
//! happened: [`Removal`]).
//!
//! A row shows one cleaned page ([`crate::history::clean_and_merge`]): several raw history
//! entries (`?utm_source=…`, `#section`, …) may have been merged into it. Removing the page
//! deletes every one of them, so that no entry of it is left to bring it back. The worker's index
//! knows them ([`crate::index::host::Question::Entries`]); where it cannot tell them all (still
//! building, catching up), the browser's history is searched for the rest ([`entry_lookup`],
//! [`variants_text`], [`variants`]).

use serde::{Deserialize, Serialize};

use crate::address::Disposition;
use crate::clean::clean_url;
use crate::history::HistoryItem;
use crate::index::host::Answer;
use crate::site_filter;

/// The modifier keys (and the mouse button) of the event that opens a result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenKeys {
    /// Shift held.
    pub shift: bool,
    /// Ctrl held.
    pub ctrl: bool,
    /// ⌘ (Meta) held: Ctrl's role on a Mac.
    pub meta: bool,
    /// The middle mouse button (a click with the wheel).
    pub middle: bool,
}

/// Where a result opens, as in a browser's own links: Enter or a click in a new tab, in front;
/// Ctrl/⌘ (with Enter or a click) or the middle button in a new tab left behind, so the popup stays
/// open on the results; Shift in the current tab (the tab the popup was opened over). Ctrl/⌘ with
/// Shift brings the new tab to the front, as Chrome does for links.
pub fn open_disposition(keys: OpenKeys) -> Disposition {
    let background = keys.ctrl || keys.meta || keys.middle;
    match (background, keys.shift) {
        (true, true) => Disposition::NewForegroundTab,
        (true, false) => Disposition::NewBackgroundTab,
        (false, true) => Disposition::CurrentTab,
        (false, false) => Disposition::NewForegroundTab,
    }
}

/// The text given to the browser's history search (`chrome.history.search`, over the part of the
/// history the index cannot tell, [`EntrySearch`]) to find every raw entry that cleans to
/// `page_url`: the words of its host (the
/// browser matches them in the entry's address), or nothing — every entry, filtered by
/// [`variants`] — when the host is not a plain domain the browser's words can match (an IP
/// literal, an international name).
pub fn variants_text(page_url: &str) -> String {
    let Ok(url) = clean_url(page_url) else {
        return String::new();
    };
    let Some(host) = url.host_str() else {
        return String::new();
    };
    // The rule the `site:` filter uses to narrow the browser's search to one site.
    site_filter::parse(&format!("site:{host}"))
        .filter
        .browser_words()
        .unwrap_or_default()
}

/// How the raw entries of a page to remove are found: those the worker's index holds, and the
/// part of the browser's history still to search.
#[derive(Debug, Clone, PartialEq)]
pub struct EntryLookup {
    /// The entries the index holds for the page (raw URLs, each with its own visits).
    pub known: Vec<HistoryItem>,
    /// What of the browser's history is still to search (`chrome.history.search` with
    /// [`variants_text`]).
    pub search: EntrySearch,
}

/// The part of the browser's history a removal still searches for a page's raw entries.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum EntrySearch {
    /// None: the index holds every entry.
    Nothing,
    /// The entries visited before this instant (ms since the Unix epoch): the index, still
    /// being built, holds every entry last visited since then.
    Before(i64),
    /// The whole history: the index could not tell (not loaded, catching up, an excluded site,
    /// or the worker did not answer).
    All,
}

/// Reads the index's answer to [`crate::index::host::Question::Entries`] (`None`: it refused,
/// the excluded sites being unknown): a whole answer needs no search; one from a build that reaches back to `since_ms`
/// searches only before it; anything else searches the whole history, as without an index.
pub fn entry_lookup(answer: Option<Answer>) -> EntryLookup {
    let (pages, search) = match answer {
        Some(Answer::Pages {
            pages,
            indexing: None,
        }) => (pages, EntrySearch::Nothing),
        Some(Answer::Pages {
            pages,
            indexing: Some(progress),
        }) => match progress.since_ms {
            Some(since_ms) => (pages, EntrySearch::Before(since_ms)),
            None => (Vec::new(), EntrySearch::All),
        },
        _ => (Vec::new(), EntrySearch::All),
    };
    let known = pages
        .into_iter()
        .map(|page| HistoryItem {
            url: page.url,
            title: page.title,
            last_visit_ms: page.last_visit_ms,
            visit_count: page.visit_count,
        })
        .collect();
    EntryLookup { known, search }
}

/// The raw URLs to delete from the browser's history for the page `page_url` (a cleaned URL, as
/// every row holds): each of `items` whose URL cleans to it, and the cleaned URL itself (deleting
/// an entry that is not there does nothing), without duplicates. A `page_url` that is not a web
/// page gives nothing: it was never shown.
pub fn variants(page_url: &str, items: &[HistoryItem]) -> Vec<String> {
    let Ok(page) = clean_url(page_url) else {
        return Vec::new();
    };
    let page = page.as_str();
    let mut urls = vec![page.to_owned()];
    for item in items {
        let same = clean_url(&item.url).is_ok_and(|cleaned| cleaned.as_str() == page);
        if same && !urls.contains(&item.url) {
            urls.push(item.url.clone());
        }
    }
    urls
}

/// Whether the browser's history still held the page when the user removed it: some of `items`
/// clean to `page_url`.
pub fn was_in_history(page_url: &str, items: &[HistoryItem]) -> bool {
    let Ok(page) = clean_url(page_url) else {
        return false;
    };
    items
        .iter()
        .any(|item| clean_url(&item.url).is_ok_and(|cleaned| cleaned == page))
}

/// What happened when the user removed a page, for the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Removal {
    /// Its entries were deleted from the browser's history (and the page from the index and the
    /// stored answers).
    Removed,
    /// The browser's history no longer held it (deleted meanwhile, elsewhere): it is taken out of
    /// the index and the answers all the same.
    AlreadyGone,
}

#[cfg(test)]
mod tests {
    use super::*;

    fn item(url: &str) -> HistoryItem {
        HistoryItem {
            url: url.to_owned(),
            ..HistoryItem::default()
        }
    }

    #[test]
    fn each_key_and_button_opens_where_a_browser_link_would() {
        let keys = |shift, ctrl, meta, middle| OpenKeys {
            shift,
            ctrl,
            meta,
            middle,
        };
        let table = [
            (
                keys(false, false, false, false),
                Disposition::NewForegroundTab,
            ),
            (keys(true, false, false, false), Disposition::CurrentTab),
            (
                keys(false, true, false, false),
                Disposition::NewBackgroundTab,
            ),
            (
                keys(false, false, true, false),
                Disposition::NewBackgroundTab,
            ),
            (
                keys(false, false, false, true),
                Disposition::NewBackgroundTab,
            ),
            (
                keys(true, true, false, false),
                Disposition::NewForegroundTab,
            ),
            (
                keys(true, false, true, false),
                Disposition::NewForegroundTab,
            ),
            (
                keys(true, false, false, true),
                Disposition::NewForegroundTab,
            ),
        ];
        for (keys, expected) in table {
            assert_eq!(open_disposition(keys), expected, "{keys:?}");
        }
    }

    #[test]
    fn the_browser_is_asked_for_the_words_of_the_page_host() {
        for (page, expected) in [
            ("https://blog.example.com/ctes?a=1", "blog example com"),
            ("http://localhost:3000/x", "localhost"),
            ("https://github.com/", "github com"),
            // Not words the browser's search can match: every entry is read and filtered.
            ("http://[::1]:8080/", ""),
            ("https://xn--bcher-kva.de/", ""),
            ("chrome://settings", ""),
            ("not a url", ""),
        ] {
            assert_eq!(variants_text(page), expected, "{page}");
        }
    }

    #[test]
    fn every_raw_entry_merged_into_the_page_is_deleted_and_no_other() {
        let items = [
            item("https://blog.example.com/ctes?utm_source=tw"),
            item("https://blog.example.com/ctes#comments"),
            item("https://blog.example.com/ctes"),
            item("https://blog.example.com/ctes?utm_source=tw"),
            item("https://blog.example.com/ctes-part-2"),
            item("https://blog.example.com/ctes?page=2"),
            item("http://blog.example.com/ctes"),
            item("chrome://history"),
        ];
        assert_eq!(
            variants("https://blog.example.com/ctes", &items),
            [
                "https://blog.example.com/ctes",
                "https://blog.example.com/ctes?utm_source=tw",
                "https://blog.example.com/ctes#comments",
            ]
        );
        assert!(was_in_history("https://blog.example.com/ctes", &items));
    }

    #[test]
    fn the_index_s_answer_says_what_is_left_to_search() {
        use crate::history::Page;
        use crate::index::IndexProgress;
        let entry = Page {
            url: "https://blog.example.com/ctes?utm_source=tw".to_owned(),
            title: "CTEs".to_owned(),
            last_visit_ms: 5,
            visit_count: 2,
        };
        let progress = |since_ms| IndexProgress {
            pages: 10,
            since_ms,
        };
        let pages = |indexing| Answer::Pages {
            pages: vec![entry.clone()],
            indexing,
        };
        let known = vec![HistoryItem {
            url: entry.url.clone(),
            title: entry.title.clone(),
            last_visit_ms: 5,
            visit_count: 2,
        }];
        let table = [
            // A complete index: its entries, no search.
            (Some(pages(None)), known.clone(), EntrySearch::Nothing),
            // A build reaching back to 1,000: its entries and the browser's older ones.
            (
                Some(pages(Some(progress(Some(1_000))))),
                known,
                EntrySearch::Before(1_000),
            ),
            // The index cannot tell: the whole history, as without it.
            (
                Some(pages(Some(progress(None)))),
                Vec::new(),
                EntrySearch::All,
            ),
            (
                Some(Answer::Indexing {
                    progress: progress(None),
                }),
                Vec::new(),
                EntrySearch::All,
            ),
            (
                Some(Answer::Kept { pages: 3 }),
                Vec::new(),
                EntrySearch::All,
            ),
            (None, Vec::new(), EntrySearch::All),
        ];
        for (answer, known, search) in table {
            let described = format!("{answer:?}");
            assert_eq!(
                entry_lookup(answer),
                EntryLookup { known, search },
                "{described}"
            );
        }
    }

    #[test]
    fn entries_from_the_index_and_the_browser_are_deleted_once_each() {
        let page = "https://blog.example.com/ctes";
        // The index's entries first, then what the browser's search of older history found.
        let items = [
            item("https://blog.example.com/ctes?utm_source=tw"),
            item("https://blog.example.com/ctes#old"),
            item("https://blog.example.com/ctes?utm_source=tw"),
            item("https://blog.example.com/other"),
        ];
        assert_eq!(
            variants(page, &items),
            [
                page,
                "https://blog.example.com/ctes?utm_source=tw",
                "https://blog.example.com/ctes#old",
            ]
        );
        assert!(was_in_history(page, &items));
    }

    #[test]
    fn a_page_already_gone_still_deletes_its_own_url() {
        let items = [item("https://blog.example.com/other")];
        assert_eq!(
            variants("https://blog.example.com/ctes", &items),
            ["https://blog.example.com/ctes"]
        );
        assert!(!was_in_history("https://blog.example.com/ctes", &items));
        assert!(!was_in_history("https://blog.example.com/ctes", &[]));
    }

    #[test]
    fn what_is_not_a_web_page_is_never_deleted() {
        assert!(variants("javascript:alert(1)", &[item("javascript:alert(1)")]).is_empty());
        assert!(!was_in_history(
            "file:///etc/passwd",
            &[item("file:///etc/passwd")]
        ));
    }
}
