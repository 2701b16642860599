//! The local search: the question and the period go to the browser's history search, and what
//! comes back is cleaned, merged and cut to what the popup shows. Nothing leaves the machine.

use std::future::Future;

use serde::Serialize;

use crate::history::{HistoryItem, Page, clean_and_merge};
use crate::period::Period;

/// Entries asked of the browser per question. Cleaning drops some (search pages, duplicates), so
/// this is comfortably more than [`RESULT_LIMIT`]; the browser scans its whole URL table either
/// way, so a larger limit costs little.
pub const FETCH_LIMIT: u32 = 500;

/// Pages shown per answer: more than fit on screen, few enough to scan with the arrow keys.
pub const RESULT_LIMIT: usize = 25;

/// The arguments of `chrome.history.search`, in its own shape (`{text, startTime, maxResults}`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct HistoryQuery {
    /// Words to match; empty matches every page.
    pub text: String,
    /// Only pages visited at or after this instant (ms since the Unix epoch; a JS number).
    pub start_time: f64,
    /// At most this many entries; `0` means no limit.
    pub max_results: u32,
}

/// Where history comes from: `chrome.history` in the extension, a table in tests.
pub trait HistorySource {
    /// What can go wrong when asking.
    type Error;

    /// Entries matching the query, most recently visited first (as `chrome.history.search`).
    fn search(
        &self,
        query: &HistoryQuery,
    ) -> impl Future<Output = Result<Vec<HistoryItem>, Self::Error>>;
}

/// The query sent to the browser for a question over a period: the question's words, with runs of
/// whitespace collapsed (the browser splits on them anyway).
pub fn history_query(question: &str, period: Period, now_ms: i64) -> HistoryQuery {
    history_query_since(question, period.start_ms(now_ms))
}

/// [`history_query`] for pages visited at or after `start_ms`.
pub fn history_query_since(question: &str, start_ms: i64) -> HistoryQuery {
    HistoryQuery {
        text: question.split_whitespace().collect::<Vec<_>>().join(" "),
        start_time: start_ms as f64,
        max_results: FETCH_LIMIT,
    }
}

/// Searches history for `question` over `period`: cleaned, merged pages, most recent first, at most
/// [`RESULT_LIMIT`]. An empty question gives the most recent pages of the period.
pub async fn local_search<S: HistorySource>(
    source: &S,
    question: &str,
    period: Period,
    now_ms: i64,
) -> Result<Vec<Page>, S::Error> {
    let items = source
        .search(&history_query(question, period, now_ms))
        .await?;
    let mut pages = clean_and_merge(items);
    pages.truncate(RESULT_LIMIT);
    Ok(pages)
}

/// What the status line says after a search: "3 pages found", or why nothing was.
pub fn outcome_message(question: &str, period: Period, found: usize) -> String {
    match found {
        0 => no_results_message(question, period),
        1 => "1 page found".to_owned(),
        n => format!("{n} pages found"),
    }
}

/// The answer when nothing was found, with what to try next.
///
/// `Nothing in the last 7 days matches “foo” — try the last 30 days.`
pub fn no_results_message(question: &str, period: Period) -> String {
    let question = question.trim();
    let what = if question.is_empty() {
        format!("Nothing in your history for {}", period.phrase())
    } else {
        format!("Nothing in {} matches “{question}”", period.phrase())
    };
    match period.longer() {
        Some(longer) => format!("{what} — try {}.", longer.phrase()),
        None if question.is_empty() => format!("{what}."),
        None => format!("{what} — try fewer or other words."),
    }
}

#[cfg(test)]
mod tests {
    use std::cell::RefCell;

    use super::*;
    use crate::period::DAY_MS;

    const NOW: i64 = 1_780_000_000_000;

    /// A history held in memory that filters like the browser does on time, and records its queries.
    #[derive(Default)]
    struct TableHistory {
        items: Vec<HistoryItem>,
        queries: RefCell<Vec<HistoryQuery>>,
    }

    impl HistorySource for TableHistory {
        type Error = String;

        async fn search(&self, query: &HistoryQuery) -> Result<Vec<HistoryItem>, String> {
            self.queries.borrow_mut().push(query.clone());
            let words: Vec<String> = query
                .text
                .split_whitespace()
                .map(str::to_lowercase)
                .collect();
            Ok(self
                .items
                .iter()
                .filter(|item| item.last_visit_ms as f64 >= query.start_time)
                .filter(|item| words.iter().all(|w| item.title.to_lowercase().contains(w)))
                .take(query.max_results as usize)
                .cloned()
                .collect())
        }
    }

    struct Broken;

    impl HistorySource for Broken {
        type Error = &'static str;

        async fn search(&self, _: &HistoryQuery) -> Result<Vec<HistoryItem>, &'static str> {
            Err("history unavailable")
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

    fn block_on<F: Future>(future: F) -> F::Output {
        pollster::block_on(future)
    }

    #[test]
    fn sends_the_question_and_period_to_the_browser() {
        let history = TableHistory::default();
        block_on(local_search(
            &history,
            "  recursive \n cte  ",
            Period::Month,
            NOW,
        ))
        .unwrap();
        assert_eq!(
            history.queries.borrow().as_slice(),
            [HistoryQuery {
                text: "recursive cte".into(),
                start_time: (NOW - 30 * DAY_MS) as f64,
                max_results: FETCH_LIMIT,
            }]
        );
    }

    #[test]
    fn returns_cleaned_merged_pages_within_the_period() {
        let history = TableHistory {
            items: vec![
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
                item("https://blog.example/ctes#cycles", "Recursive CTEs", 2),
                item("https://old.example/ctes", "Recursive CTEs of old", 10),
            ],
            ..TableHistory::default()
        };
        let week = block_on(local_search(&history, "recursive", Period::Week, NOW)).unwrap();
        assert_eq!(
            week.iter().map(|p| p.url.as_str()).collect::<Vec<_>>(),
            ["https://blog.example/ctes"]
        );
        assert_eq!(week[0].visit_count, 2);
        let month = block_on(local_search(&history, "recursive", Period::Month, NOW)).unwrap();
        assert_eq!(month.len(), 2);
    }

    #[test]
    fn caps_the_answer_and_survives_an_empty_history() {
        let items = (0..100)
            .map(|i| item(&format!("https://e.example/{i}"), "page", 0))
            .collect();
        let history = TableHistory {
            items,
            ..TableHistory::default()
        };
        assert_eq!(
            block_on(local_search(&history, "", Period::Day, NOW))
                .unwrap()
                .len(),
            RESULT_LIMIT
        );
        let empty = TableHistory::default();
        assert!(
            block_on(local_search(&empty, "anything", Period::Quarter, NOW))
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn a_failing_source_is_an_error_not_an_empty_answer() {
        assert_eq!(
            block_on(local_search(&Broken, "x", Period::Day, NOW)),
            Err("history unavailable")
        );
    }

    #[test]
    fn messages() {
        let rows: &[(&str, Period, usize, &str)] = &[
            ("cte", Period::Week, 3, "3 pages found"),
            ("cte", Period::Week, 1, "1 page found"),
            (
                "foo",
                Period::Week,
                0,
                "Nothing in the last 7 days matches “foo” — try the last 30 days.",
            ),
            (
                "foo",
                Period::Day,
                0,
                "Nothing in the last 24 hours matches “foo” — try the last 7 days.",
            ),
            (
                "foo",
                Period::Quarter,
                0,
                "Nothing in the last 3 months matches “foo” — try fewer or other words.",
            ),
            (
                "  ",
                Period::Month,
                0,
                "Nothing in your history for the last 30 days — try the last 3 months.",
            ),
            (
                "",
                Period::Quarter,
                0,
                "Nothing in your history for the last 3 months.",
            ),
        ];
        for (question, period, found, expected) in rows {
            assert_eq!(outcome_message(question, *period, *found), *expected);
        }
    }
}
