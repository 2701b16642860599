//! Retrieval's one shape, and the local search.
//!
//! Every search asks a [`PageSource`] for pages already cleaned and merged
//! ([`crate::history::clean_and_merge`]), with times in integer milliseconds: the browser's history
//! (most recent first) or the service worker's index (most relevant first). How the browser is
//! asked stays in the bindings; [`browser_fetch_limit`] and [`browser_pages`] are the two decisions
//! a browser-backed source makes, kept here so they are tested. Nothing leaves the machine.

use std::future::Future;

use crate::exclusions::Exclusions;
use crate::history::{HistoryItem, Page, clean_and_merge};
use crate::period::Period;
use crate::site_filter::{self, SiteFilter};

/// Entries asked of the browser for one query, at the least. It belongs to browser-backed sources
/// (see [`browser_fetch_limit`]): the browser answers with raw entries, and cleaning drops some
/// (search pages, duplicates, non-web pages), so this is comfortably more than [`RESULT_LIMIT`]
/// and than a keyword's [`crate::ai::pipeline::KEYWORD_FETCH_LIMIT`]; the browser scans its whole
/// URL table either way, so a larger limit costs little.
pub const FETCH_LIMIT: u32 = 500;

/// Pages shown per answer: more than fit on screen, few enough to scan with the arrow keys. It is
/// the [`PageQuery::limit`] of [`local_search`] (and of the popup's index searches), since the
/// source cuts its answer to the limit.
pub const RESULT_LIMIT: usize = 25;

/// What a [`PageSource`] is asked: pages matching `text`, visited at or after `start_ms`, of the
/// sites `sites` allows.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PageQuery {
    /// Words to match (never read for `site:` terms); empty matches every page of the period.
    pub text: String,
    /// Only pages these sites allow ([`crate::site_filter`]), left out before the source ranks
    /// and cuts its answer.
    pub sites: SiteFilter,
    /// Only pages last visited at or after this instant (ms since the Unix epoch).
    pub start_ms: i64,
    /// At most this many pages (counted after cleaning and merging).
    pub limit: usize,
}

/// Where pages come from: the browser's history or the local index in the extension, a table in
/// tests.
pub trait PageSource {
    /// What can go wrong when asking.
    type Error;

    /// Pages matching the query, already cleaned and merged (one per cleaned URL, every URL passed
    /// [`crate::clean::clean_url`]), at most `query.limit`, in the source's order: most recently
    /// visited first for the browser, most relevant first for the index.
    fn pages(&self, query: &PageQuery) -> impl Future<Output = Result<Vec<Page>, Self::Error>>;
}

/// The `maxResults` a browser-backed source asks for to answer `limit` pages: at least
/// [`FETCH_LIMIT`] raw entries, since cleaning drops some, and never more than a JS integer
/// argument takes (`i32::MAX`; the browser rejects larger).
pub fn browser_fetch_limit(limit: usize) -> u32 {
    const MAX: u32 = i32::MAX as u32;
    u32::try_from(limit).unwrap_or(MAX).clamp(FETCH_LIMIT, MAX)
}

/// The text a browser-backed source gives the browser's literal search for `query`: its words, and
/// the one site it keeps when that narrows the browser's answer
/// ([`SiteFilter::browser_words`]), so the entries it returns are that site's.
pub fn browser_text(query: &PageQuery) -> String {
    match query.sites.browser_words() {
        Some(site) if query.text.trim().is_empty() => site,
        Some(site) => format!("{} {site}", query.text.trim()),
        None => query.text.clone(),
    }
}

/// A browser-backed source's answer: the browser's raw entries cleaned and merged, in the
/// browser's order (most recent first), those `sites` allows and no excluded site's
/// ([`crate::exclusions`]: the browser's search knows nothing of them), cut to `limit`.
pub fn browser_pages(
    items: impl IntoIterator<Item = HistoryItem>,
    sites: &SiteFilter,
    excluded: &Exclusions,
    limit: usize,
) -> Vec<Page> {
    let mut pages = clean_and_merge(items);
    pages.retain(|page| sites.allows(&page.url) && !excluded.excludes(&page.url));
    pages.truncate(limit);
    pages
}

/// The query for a question over a period: the question's words (its `site:` terms taken out
/// into the filter, [`site_filter::parse`]), with runs of whitespace collapsed (sources split on
/// them anyway), at most [`RESULT_LIMIT`] pages.
fn question_query(question: &str, period: Period, now_ms: i64) -> PageQuery {
    let asked = site_filter::parse(question);
    PageQuery {
        text: asked.words.split_whitespace().collect::<Vec<_>>().join(" "),
        sites: asked.filter,
        start_ms: period.start_ms(now_ms),
        limit: RESULT_LIMIT,
    }
}

/// Searches `source` for `question` over `period`: its pages in its order, at most
/// [`RESULT_LIMIT`], of the sites its `site:` terms name (both enforced here too, so a source that
/// ignores the limit or the filter cannot flood the popup). An empty question — or one of `site:`
/// terms only — gives the period's pages in the source's order (the browser: the most recent).
pub async fn local_search<S: PageSource>(
    source: &S,
    question: &str,
    period: Period,
    now_ms: i64,
) -> Result<Vec<Page>, S::Error> {
    let query = question_query(question, period, now_ms);
    let mut pages = source.pages(&query).await?;
    pages.retain(|page| query.sites.allows(&page.url));
    pages.truncate(RESULT_LIMIT);
    Ok(pages)
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::period::DAY_MS;

    const NOW: i64 = 1_780_000_000_000;

    /// Pages held in memory, filtered on time and title words; records its queries. It ignores the
    /// limit unless `honours_limit`, to show that [`local_search`] cuts anyway.
    #[derive(Default)]
    struct TablePages {
        pages: Vec<Page>,
        honours_limit: bool,
        queries: RefCell<Vec<PageQuery>>,
    }

    impl PageSource for TablePages {
        type Error = String;

        async fn pages(&self, query: &PageQuery) -> Result<Vec<Page>, String> {
            self.queries.borrow_mut().push(query.clone());
            let words: Vec<String> = query
                .text
                .split_whitespace()
                .map(str::to_lowercase)
                .collect();
            let limit = if self.honours_limit {
                query.limit
            } else {
                usize::MAX
            };
            Ok(self
                .pages
                .iter()
                .filter(|page| page.last_visit_ms >= query.start_ms)
                .filter(|page| words.iter().all(|w| page.title.to_lowercase().contains(w)))
                .take(limit)
                .cloned()
                .collect())
        }
    }

    struct Broken;

    impl PageSource for Broken {
        type Error = &'static str;

        async fn pages(&self, _: &PageQuery) -> Result<Vec<Page>, &'static str> {
            Err("history unavailable")
        }
    }

    fn page(url: &str, title: &str, days_ago: i64) -> Page {
        Page {
            url: url.into(),
            title: title.into(),
            last_visit_ms: NOW - days_ago * DAY_MS,
            visit_count: 1,
            passage: None,
            marks: Default::default(),
        }
    }

    fn item(url: &str, title: &str, days_ago: i64) -> HistoryItem {
        HistoryItem {
            url: url.into(),
            title: title.into(),
            last_visit_ms: NOW - days_ago * DAY_MS,
            visit_count: 1,
        }
    }

    fn urls(pages: &[Page]) -> Vec<&str> {
        pages.iter().map(|p| p.url.as_str()).collect()
    }

    fn block_on<F: Future>(future: F) -> F::Output {
        pollster::block_on(future)
    }

    #[test]
    fn sends_the_question_period_and_result_limit_to_the_source() {
        let source = TablePages::default();
        block_on(local_search(
            &source,
            "  recursive \n cte  ",
            Period::Month,
            NOW,
        ))
        .unwrap();
        assert_eq!(
            source.queries.borrow().as_slice(),
            [PageQuery {
                text: "recursive cte".into(),
                sites: SiteFilter::default(),
                start_ms: NOW - 30 * DAY_MS,
                limit: RESULT_LIMIT,
            }]
        );
    }

    #[test]
    fn keeps_the_source_order_and_pages_within_the_period() {
        // Relevance order, as the index answers: not by time.
        let source = TablePages {
            pages: vec![
                page("https://b.example/ctes", "Recursive CTEs", 3),
                page("https://a.example/ctes", "Recursive CTEs, again", 1),
                page("https://old.example/ctes", "Recursive CTEs of old", 10),
            ],
            ..TablePages::default()
        };
        let week = block_on(local_search(&source, "recursive", Period::Week, NOW)).unwrap();
        assert_eq!(
            urls(&week),
            ["https://b.example/ctes", "https://a.example/ctes"]
        );
        let month = block_on(local_search(&source, "recursive", Period::Month, NOW)).unwrap();
        assert_eq!(month.len(), 3);
    }

    #[test]
    fn caps_the_answer_even_when_the_source_does_not_and_survives_an_empty_history() {
        for honours_limit in [false, true] {
            let source = TablePages {
                pages: (0..100)
                    .map(|i| page(&format!("https://e.example/{i}"), "page", 0))
                    .collect(),
                honours_limit,
                ..TablePages::default()
            };
            let found = block_on(local_search(&source, "", Period::Day, NOW)).unwrap();
            assert_eq!(found.len(), RESULT_LIMIT, "honours_limit: {honours_limit}");
            assert_eq!(found[0].url, "https://e.example/0");
        }
        let empty = TablePages::default();
        assert!(
            block_on(local_search(&empty, "anything", Period::Quarter, NOW))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn site_terms_become_the_filter_and_pages_of_other_sites_never_pass() {
        let source = TablePages {
            pages: vec![
                page("https://github.com/a/ctes", "Recursive CTEs", 1),
                page("https://blog.example/ctes", "Recursive CTEs", 1),
                page("https://gist.github.com/b", "Recursive CTEs gist", 2),
            ],
            ..TablePages::default()
        };
        let found = block_on(local_search(
            &source,
            "site:GitHub.com recursive",
            Period::Week,
            NOW,
        ))
        .unwrap();
        // The table ignores the filter: local_search enforces it.
        assert_eq!(
            urls(&found),
            ["https://github.com/a/ctes", "https://gist.github.com/b"]
        );
        let query = source.queries.borrow()[0].clone();
        assert_eq!(query.text, "recursive");
        assert_eq!(query.sites, site_filter::parse("site:github.com").filter);
        assert_eq!(browser_text(&query), "recursive github com");
        // Only `site:`: the site's pages of the period.
        let only = block_on(local_search(
            &source,
            "site:blog.example",
            Period::Week,
            NOW,
        ))
        .unwrap();
        assert_eq!(urls(&only), ["https://blog.example/ctes"]);
        assert_eq!(source.queries.borrow()[1].text, "");
        assert_eq!(browser_text(&source.queries.borrow()[1]), "blog example");
    }

    #[test]
    fn a_failing_source_is_an_error_not_an_empty_answer() {
        assert_eq!(
            block_on(local_search(&Broken, "x", Period::Day, NOW)),
            Err("history unavailable")
        );
    }

    #[test]
    fn the_browser_is_asked_for_at_least_the_fetch_limit_and_never_more_than_js_takes() {
        let max = i32::MAX as u32;
        let rows: &[(usize, u32)] = &[
            (0, FETCH_LIMIT),
            (RESULT_LIMIT, FETCH_LIMIT),
            (crate::ai::pipeline::KEYWORD_FETCH_LIMIT, FETCH_LIMIT),
            (FETCH_LIMIT as usize, FETCH_LIMIT),
            (FETCH_LIMIT as usize + 1, FETCH_LIMIT + 1),
            (max as usize, max),
            (max as usize + 1, max),
            (usize::MAX, max),
        ];
        for &(limit, expected) in rows {
            assert_eq!(browser_fetch_limit(limit), expected, "limit {limit}");
        }
    }

    #[test]
    fn browser_pages_are_cleaned_merged_in_the_browsers_order_and_cut_to_the_limit() {
        let items = || {
            vec![
                item(
                    "https://blog.example/ctes?utm_source=x",
                    "Recursive CTEs",
                    1,
                ),
                item(
                    "https://www.google.com/search?q=recursive+ctes",
                    "recursive ctes - Google Search",
                    1,
                ),
                item("https://new.example/", "Newer, but seen second", 1),
                item("https://blog.example/ctes#cycles", "Recursive CTEs", 2),
                item("chrome://settings", "Settings", 3),
                item("https://old.example/ctes", "Recursive CTEs of old", 10),
            ]
        };
        let none = Exclusions::default();
        let all = browser_pages(items(), &SiteFilter::default(), &none, RESULT_LIMIT);
        assert_eq!(
            urls(&all),
            [
                "https://blog.example/ctes",
                "https://new.example/",
                "https://old.example/ctes"
            ]
        );
        assert_eq!(all[0].visit_count, 2);
        assert_eq!(
            urls(&browser_pages(items(), &SiteFilter::default(), &none, 2)),
            ["https://blog.example/ctes", "https://new.example/"]
        );
        assert!(browser_pages(items(), &SiteFilter::default(), &none, 0).is_empty());
        let blog = site_filter::parse("site:blog.example").filter;
        assert_eq!(
            urls(&browser_pages(items(), &blog, &none, RESULT_LIMIT)),
            ["https://blog.example/ctes"]
        );
        // Excluded sites never pass, whatever the browser found.
        let excluded = Exclusions::parse(
            "blog.example
*.old.example",
        )
        .unwrap();
        assert_eq!(
            urls(&browser_pages(
                items(),
                &SiteFilter::default(),
                &excluded,
                RESULT_LIMIT
            )),
            ["https://new.example/"]
        );
    }
}
