//! The evaluation harness: recall@k of the browser's literal search and of the index fused with it,
//! on a fixed history and query set (`eval/history.json`, `eval/queries.json`).
//!
//! The data types are plain JSON so a browser-based run (seeding a real Chromium profile) can reuse
//! the same files: history entries carry a URL, a title and visit offsets in minutes before
//! `nowMs`; queries carry their kind and the cleaned URLs of the pages they should find.

use serde::{Deserialize, Serialize};

use super::fusion::fuse_with_browser;
use crate::history::HistoryItem;
use crate::index::{Index, literal};

/// Recall is measured on this many results: what the popup shows without scrolling.
pub const RECALL_AT: usize = 5;

/// Index hits fused with the browser's results: the top of the index, deep enough that fusion
/// never drops a good index result, short enough that the index's tail does not dilute it.
pub const SMART_POOL: usize = 50;

/// The evaluation history.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvalHistory {
    /// The instant the offsets count back from (ms since the Unix epoch).
    pub now_ms: i64,
    /// The history entries (raw URLs, as the browser stores them).
    pub entries: Vec<EvalEntry>,
}

/// One history entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvalEntry {
    /// Raw URL.
    pub url: String,
    /// Title.
    pub title: String,
    /// Each visit, in minutes before `nowMs`.
    pub visits_ago_min: Vec<i64>,
}

/// One query and the pages it should find.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct EvalQuery {
    /// The kind of query ("exact", "typo", …), for per-kind recall.
    pub kind: String,
    /// What the user types.
    pub query: String,
    /// Cleaned URLs of the expected pages.
    pub expected: Vec<String>,
}

/// Recall of one query.
#[derive(Debug, Clone, PartialEq)]
pub struct QueryOutcome {
    /// The query's kind.
    pub kind: String,
    /// The query.
    pub query: String,
    /// Recall@[`RECALL_AT`] of the literal browser search.
    pub literal: f64,
    /// Recall@[`RECALL_AT`] of the index alone.
    pub index: f64,
    /// Recall@[`RECALL_AT`] of the index fused with the browser search.
    pub smart: f64,
}

/// Mean recall of a group of queries.
#[derive(Debug, Clone, PartialEq)]
pub struct KindRecall {
    /// The kind, or `overall`.
    pub kind: String,
    /// Number of queries.
    pub queries: usize,
    /// Mean literal recall.
    pub literal: f64,
    /// Mean recall of the index alone.
    pub index: f64,
    /// Mean smart recall.
    pub smart: f64,
}

impl EvalHistory {
    /// The entries as the browser would give them.
    pub fn items(&self) -> Vec<HistoryItem> {
        self.entries
            .iter()
            .map(|e| HistoryItem {
                url: e.url.clone(),
                title: e.title.clone(),
                last_visit_ms: self.now_ms
                    - 60_000 * e.visits_ago_min.iter().copied().min().unwrap_or(0),
                visit_count: e.visits_ago_min.len() as u32,
            })
            .collect()
    }
}

/// Runs every query through both searches.
pub fn run(history: &EvalHistory, queries: &[EvalQuery]) -> Vec<QueryOutcome> {
    let items = history.items();
    let index = Index::build(items.clone());
    queries
        .iter()
        .map(|q| {
            let browser = literal::browser_search(&items, &q.query, 0);
            let hits: Vec<_> = index
                .search(&q.query, 0, history.now_ms, SMART_POOL)
                .into_iter()
                .map(|hit| hit.page)
                .collect();
            let smart = fuse_with_browser(&hits, &browser);
            let recall = |urls: Vec<&str>| {
                let found = q
                    .expected
                    .iter()
                    .filter(|e| urls.iter().take(RECALL_AT).any(|u| u == e))
                    .count();
                found as f64 / q.expected.len().max(1) as f64
            };
            QueryOutcome {
                kind: q.kind.clone(),
                query: q.query.clone(),
                literal: recall(browser.iter().map(|p| p.url.as_str()).collect()),
                index: recall(hits.iter().map(|h| h.url.as_str()).collect()),
                smart: recall(smart.iter().map(|p| p.url.as_str()).collect()),
            }
        })
        .collect()
}

/// Mean recall per kind (in first-appearance order), then `overall`.
pub fn summarize(outcomes: &[QueryOutcome]) -> Vec<KindRecall> {
    let mut kinds: Vec<String> = Vec::new();
    for o in outcomes {
        if !kinds.contains(&o.kind) {
            kinds.push(o.kind.clone());
        }
    }
    let mean = |kind: &str, group: Vec<&QueryOutcome>| {
        let n = group.len().max(1) as f64;
        KindRecall {
            kind: kind.to_owned(),
            queries: group.len(),
            literal: group.iter().map(|o| o.literal).sum::<f64>() / n,
            index: group.iter().map(|o| o.index).sum::<f64>() / n,
            smart: group.iter().map(|o| o.smart).sum::<f64>() / n,
        }
    };
    let mut rows: Vec<KindRecall> = kinds
        .iter()
        .map(|k| mean(k, outcomes.iter().filter(|o| &o.kind == k).collect()))
        .collect();
    rows.push(mean("overall", outcomes.iter().collect()));
    rows
}
