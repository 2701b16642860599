//! A page the user removes ("Remove from history"), decided whole: what to delete in the browser's
//! history, what to journal, what the lexical index (and with it the kept pages), topic search's
//! vectors, a running search and the stored conversation forget. [`plan`] decides it in one call,
//! from the page's address and what the index knows of its entries; the worker carries it out in
//! order: the history first (nothing else is touched unless every deletion succeeded), then the
//! journal, then the rest ([`Forgetting`]).
//!
//! The page's address is cleaned once, here; every part of the plan names the page by that
//! cleaned address. Pages Chrome forgot but History Chat keeps live only in the lexical index
//! (`crate::archive`), so the index's part forgets them too.

use crate::clean::clean_url;
use crate::history::{HistoryItem, RemovedVisits};
use crate::index::host::{Answer, Event as IndexEvent};
use crate::index::journal::Removal as JournalRemoval;
use crate::rows::Removal;
use crate::semantic::host::Removal as VectorRemoval;
use crate::site_filter;

/// A removal, decided: carry it out in field order.
#[derive(Debug, Clone, PartialEq)]
pub struct Plan {
    /// What to delete in the browser's history.
    pub history: HistoryDeletion,
    /// Recorded in the journal of removals once the history's deletion succeeded, before the
    /// indexes hear of it, so a worker stopped before the index's save still honours it.
    pub journal: JournalRemoval,
    /// What everything else forgets.
    pub forget: Forgetting,
}

/// The raw entries of the browser's history to delete for a page: those the lexical index names,
/// and what is still to search for the rest.
#[derive(Debug, Clone, PartialEq)]
pub struct HistoryDeletion {
    /// The page's cleaned address.
    page: String,
    /// The entries the index holds for the page (raw URLs, each with its own visits).
    pub known: Vec<HistoryItem>,
    /// The part of the history the index cannot tell, to search with the browser's own search;
    /// `None` when the index holds every entry.
    pub search: Option<EntrySearch>,
}

/// A search of the browser's history (`chrome.history.search`) for a page's raw entries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EntrySearch {
    /// The text given to the browser: the words of the page's host (the browser matches them in
    /// an entry's address), or nothing — every entry — when the browser's words cannot match the
    /// host (an IP literal, an international name).
    pub text: String,
    /// Only entries visited before this instant (ms since the Unix epoch): the index, still
    /// being built, holds every entry last visited since then. `None`: the whole history.
    pub end_ms: Option<i64>,
}

/// What the indexes, a running search and the stored conversation forget of removed pages.
#[derive(Debug, Clone, PartialEq)]
pub struct Forgetting {
    /// Fed to the lexical index: it drops the whole pages (kept ones included) now, or as soon as
    /// its snapshot is loaded.
    pub index: IndexEvent,
    /// Topic search deletes their vectors at once, whatever either index's phase.
    pub vectors: VectorRemoval,
    /// What a running search leaves out of its answer and the stored answers drop.
    pub conversation: RemovedVisits,
}

impl Forgetting {
    /// Forgetting these pages (cleaned addresses) everywhere but in the browser's history.
    pub fn pages(pages: Vec<String>) -> Forgetting {
        Forgetting {
            index: IndexEvent::Forget(pages.clone()),
            vectors: VectorRemoval::Urls(pages.clone()),
            conversation: RemovedVisits {
                all_history: false,
                urls: pages,
            },
        }
    }
}

/// Decides the removal of the page at `url` (as a row shows it; a raw address is cleaned),
/// given the lexical index's answer to [`crate::index::host::Question::Entries`] for it (`None`:
/// it did not answer, or refused). `None` when `url` is no web page: none was ever shown, so
/// there is nothing to remove.
///
/// How much of the history is searched follows what the index can tell: a whole answer needs no
/// search; an answer from a build that reaches back to `since_ms` searches only before it;
/// anything else searches the whole history, as without an index.
pub fn plan(url: &str, entries: Option<Answer>) -> Option<Plan> {
    let page = clean_url(url).ok()?;
    let (pages, end_ms) = match entries {
        Some(Answer::Pages {
            pages,
            indexing: None,
        }) => (pages, None),
        Some(Answer::Pages {
            pages,
            indexing: Some(progress),
        }) => match progress.since_ms {
            Some(since_ms) => (pages, Some(Some(since_ms))),
            None => (Vec::new(), Some(None)),
        },
        _ => (Vec::new(), Some(None)),
    };
    let text = page.host_str().map_or_else(String::new, |host| {
        // The rule the `site:` filter uses to narrow the browser's search to one site.
        site_filter::parse(&format!("site:{host}"))
            .filter
            .browser_words()
            .unwrap_or_default()
    });
    let known = pages
        .into_iter()
        .map(|page| HistoryItem {
            url: page.url,
            title: page.title,
            last_visit_ms: page.last_visit_ms,
            visit_count: page.visit_count,
        })
        .collect();
    let page = page.to_string();
    Some(Plan {
        history: HistoryDeletion {
            page: page.clone(),
            known,
            search: end_ms.map(|end_ms| EntrySearch { text, end_ms }),
        },
        journal: JournalRemoval::Pages(vec![page.clone()]),
        forget: Forgetting::pages(vec![page]),
    })
}

impl HistoryDeletion {
    /// The raw URLs to delete, given what the browser's search found (`found`, empty when
    /// [`HistoryDeletion::search`] is `None`): every entry known or found whose address cleans
    /// to the page, and the page's cleaned address itself (deleting an entry that is not there
    /// does nothing), without duplicates; and whether the history still held the page (some
    /// entry cleans to it) or it was already gone (deleted meanwhile, elsewhere).
    pub fn urls(&self, found: &[HistoryItem]) -> (Vec<String>, Removal) {
        let mut urls = vec![self.page.clone()];
        let mut held = false;
        for item in self.known.iter().chain(found) {
            if clean_url(&item.url).is_ok_and(|cleaned| cleaned.as_str() == self.page) {
                held = true;
                if !urls.contains(&item.url) {
                    urls.push(item.url.clone());
                }
            }
        }
        let removal = match held {
            true => Removal::Removed,
            false => Removal::AlreadyGone,
        };
        (urls, removal)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::history::Page;
    use crate::index::IndexProgress;

    fn item(url: &str) -> HistoryItem {
        HistoryItem {
            url: url.to_owned(),
            ..HistoryItem::default()
        }
    }

    /// The plan for `url`, which is a web page.
    fn planned(url: &str, entries: Option<Answer>) -> Plan {
        plan(url, entries).unwrap_or_else(|| panic!("{url} is a web page"))
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
        ] {
            let search = planned(page, None).history.search.map(|s| s.text);
            assert_eq!(search.as_deref(), Some(expected), "{page}");
        }
    }

    #[test]
    fn the_index_s_answer_says_what_is_left_to_search() {
        let entry = Page {
            url: "https://blog.example.com/ctes?utm_source=tw".to_owned(),
            title: "CTEs".to_owned(),
            last_visit_ms: 5,
            visit_count: 2,
            passage: None,
            marks: Default::default(),
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
        let before = |end_ms| {
            Some(EntrySearch {
                text: "blog example com".into(),
                end_ms,
            })
        };
        let table = [
            // A complete index: its entries, no search.
            (Some(pages(None)), known.clone(), None),
            // A build reaching back to 1,000: its entries and the browser's older ones.
            (
                Some(pages(Some(progress(Some(1_000))))),
                known,
                before(Some(1_000)),
            ),
            // The index cannot tell: the whole history, as without it.
            (Some(pages(Some(progress(None)))), Vec::new(), before(None)),
            (
                Some(Answer::Indexing {
                    progress: progress(None),
                }),
                Vec::new(),
                before(None),
            ),
            (Some(Answer::Kept { pages: 3 }), Vec::new(), before(None)),
            (None, Vec::new(), before(None)),
        ];
        for (answer, known, search) in table {
            let described = format!("{answer:?}");
            let history = planned("https://blog.example.com/ctes", answer).history;
            assert_eq!(history.known, known, "{described}");
            assert_eq!(history.search, search, "{described}");
        }
    }

    #[test]
    fn every_raw_entry_merged_into_the_page_is_deleted_and_no_other() {
        let found = [
            item("https://blog.example.com/ctes?utm_source=tw"),
            item("https://blog.example.com/ctes#comments"),
            item("https://blog.example.com/ctes"),
            item("https://blog.example.com/ctes?utm_source=tw"),
            item("https://blog.example.com/ctes-part-2"),
            item("https://blog.example.com/ctes?page=2"),
            item("http://blog.example.com/ctes"),
            item("chrome://history"),
        ];
        let plan = planned("https://blog.example.com/ctes", None);
        assert_eq!(
            plan.history.urls(&found),
            (
                vec![
                    "https://blog.example.com/ctes".to_owned(),
                    "https://blog.example.com/ctes?utm_source=tw".to_owned(),
                    "https://blog.example.com/ctes#comments".to_owned(),
                ],
                Removal::Removed
            )
        );
    }

    #[test]
    fn entries_from_the_index_and_the_browser_are_deleted_once_each() {
        let page = "https://blog.example.com/ctes";
        let index = Answer::Pages {
            pages: vec![Page {
                url: "https://blog.example.com/ctes?utm_source=tw".to_owned(),
                title: "CTEs".to_owned(),
                last_visit_ms: 5,
                visit_count: 2,
                passage: None,
                marks: Default::default(),
            }],
            indexing: Some(IndexProgress {
                pages: 10,
                since_ms: Some(1_000),
            }),
        };
        // What the browser's search of older history found.
        let found = [
            item("https://blog.example.com/ctes#old"),
            item("https://blog.example.com/ctes?utm_source=tw"),
            item("https://blog.example.com/other"),
        ];
        assert_eq!(
            planned(page, Some(index)).history.urls(&found),
            (
                vec![
                    page.to_owned(),
                    "https://blog.example.com/ctes?utm_source=tw".to_owned(),
                    "https://blog.example.com/ctes#old".to_owned(),
                ],
                Removal::Removed
            )
        );
    }

    #[test]
    fn a_page_already_gone_still_deletes_its_own_url_and_says_so() {
        let plan = planned("https://blog.example.com/ctes", None);
        let gone = (
            vec!["https://blog.example.com/ctes".to_owned()],
            Removal::AlreadyGone,
        );
        assert_eq!(
            plan.history.urls(&[item("https://blog.example.com/other")]),
            gone
        );
        assert_eq!(plan.history.urls(&[]), gone);
    }

    #[test]
    fn the_page_is_named_by_its_cleaned_address_everywhere() {
        let plan = planned("https://a.example/x?utm_source=y#top", None);
        let page = "https://a.example/x".to_owned();
        assert_eq!(plan.journal, JournalRemoval::Pages(vec![page.clone()]));
        assert_eq!(plan.forget.index, IndexEvent::Forget(vec![page.clone()]));
        assert_eq!(plan.forget.vectors, VectorRemoval::Urls(vec![page.clone()]));
        assert_eq!(
            plan.forget.conversation,
            RemovedVisits {
                all_history: false,
                urls: vec![page],
            }
        );
    }

    #[test]
    fn what_is_not_a_web_page_is_never_deleted() {
        for url in [
            "javascript:alert(1)",
            "file:///etc/passwd",
            "chrome://settings",
            "not a url",
            "",
        ] {
            assert_eq!(plan(url, None), None, "{url}");
        }
    }
}
