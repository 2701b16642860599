//! Reciprocal Rank Fusion: merging ranked lists whose scores mean nothing together.
//!
//! Each list gives `1 / (k + rank)` to each of its items (rank from 1), and an item's fused score is
//! the sum over the lists it appears in. Scores are ignored, only ranks count, so the index's BM25
//! and the browser's "most recent first" order can be merged without tuning weights. `k = 60`
//! ([`RRF_K`], the value of the original paper) damps the first places so that neither list
//! dictates the order alone.

use std::collections::HashMap;

use crate::history::Page;

/// The standard RRF constant (Cormack, Clarke & Büttcher, 2009).
pub const RRF_K: f64 = 60.0;

/// Fuses ranked lists of ids (cleaned URLs): every id of every list, best fused score first; ties
/// keep the order of first appearance (first list first). A list repeating an id counts its best
/// rank only.
pub fn rrf(lists: &[Vec<String>], k: f64) -> Vec<(String, f64)> {
    let mut order: Vec<String> = Vec::new();
    let mut scores: HashMap<&str, (usize, f64)> = HashMap::new();
    for list in lists {
        let mut seen_here: HashMap<&str, ()> = HashMap::new();
        for (rank, id) in list.iter().enumerate() {
            if seen_here.insert(id.as_str(), ()).is_some() {
                continue;
            }
            let gain = 1.0 / (k + rank as f64 + 1.0);
            let entry = scores.entry(id.as_str()).or_insert_with(|| {
                order.push(id.clone());
                (order.len() - 1, 0.0)
            });
            entry.1 += gain;
        }
    }
    let mut fused: Vec<(usize, f64)> = scores.into_values().collect();
    fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.0.cmp(&b.0)));
    fused
        .into_iter()
        .map(|(first, score)| (order[first].clone(), score))
        .collect()
}

/// Fuses the index's answer (best first) with the browser's literal results
/// (`chrome.history.search`, cleaned and merged, in the browser's order) by [`rrf`] with
/// [`RRF_K`]. Every page of both lists is in the answer — nothing the browser finds is lost; the
/// caller cuts to what it shows. A page in both lists is taken from the index (fresher merge of all
/// its raw URLs).
pub fn fuse_with_browser(index: &[Page], browser: &[Page]) -> Vec<Page> {
    let lists = [
        index.iter().map(|p| p.url.clone()).collect::<Vec<_>>(),
        browser.iter().map(|p| p.url.clone()).collect::<Vec<_>>(),
    ];
    let mut pages: HashMap<&str, &Page> = HashMap::new();
    for page in browser.iter().chain(index) {
        pages.insert(page.url.as_str(), page);
    }
    rrf(&lists, RRF_K)
        .into_iter()
        .filter_map(|(url, _)| pages.get(url.as_str()).map(|p| (*p).clone()))
        .collect()
}
