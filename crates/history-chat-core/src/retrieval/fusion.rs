//! Fusion: merging ranked lists of pages whose scores mean nothing together, once for every
//! source of the retrieval plan.
//!
//! Reciprocal Rank Fusion: each list gives `1 / (k + rank)` to each of its items (rank from 1), and
//! an item's fused score is the sum over the lists it appears in. Scores are ignored, only ranks
//! count, so the index's BM25, the browser's "most recent first" order and topic search's
//! similarities merge without tuning weights. `k = 60` ([`RRF_K`], the value of the original paper)
//! damps the first places so that no list dictates the order alone.
//!
//! - [`rrf`]: the fusion of ranked ids.
//! - [`fuse`]: two ranked lists of pages, every page once, taken from the first list that has it.
//! - [`fuse_with_browser`] and [`fuse_semantic`]: what the plan fuses the words' answer with.

use std::collections::{HashMap, HashSet};

use crate::history::Page;
use crate::semantic::Words;

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

/// Fuses two ranked lists of pages by [`rrf`] with [`RRF_K`]: every page of both once, best fused
/// score first, ties in the first list's favour; a page in both lists is taken from the first (the
/// fresher source: the index merges every raw URL of a page). The caller cuts to what it shows.
pub fn fuse(first: &[Page], second: &[Page]) -> Vec<Page> {
    let lists = [
        first.iter().map(|p| p.url.clone()).collect::<Vec<_>>(),
        second.iter().map(|p| p.url.clone()).collect::<Vec<_>>(),
    ];
    let mut pages: HashMap<&str, &Page> = HashMap::new();
    for page in second.iter().chain(first) {
        pages.insert(page.url.as_str(), page);
    }
    rrf(&lists, RRF_K)
        .into_iter()
        .filter_map(|(url, _)| pages.get(url.as_str()).map(|p| (*p).clone()))
        .collect()
}

/// Fuses the index's answer (best first) with the browser's literal results
/// (`chrome.history.search`, cleaned and merged, in the browser's order): [`fuse`], the index's
/// list first. Every page of both lists is in the answer — nothing the browser finds is lost.
pub fn fuse_with_browser(index: &[Page], browser: &[Page]) -> Vec<Page> {
    fuse(index, browser)
}

/// Fuses the lexical index's answer (best first) with the semantic one (most similar first); every
/// page of both lists once, a page in both taken from the lexical one. The caller cuts to what it
/// shows.
///
/// - [`Words::Found`]: [`fuse`], as [`fuse_with_browser`] does with the browser's: best fused score
///   first, ties in the lexical list's favour.
/// - [`Words::Missed`]: the semantic pages first, in their order, then the lexical ones. Measured
///   on the evaluation set, topic questions find 0.46 of their pages in the first five this way,
///   0.30 by RRF (which interleaves the pages sharing a stray word with the question), and no
///   lexical kind loses anything.
pub fn fuse_semantic(lexical: &[Page], semantic: &[Page], words: Words) -> Vec<Page> {
    if words == Words::Missed {
        let fresh: HashMap<&str, &Page> = lexical.iter().map(|p| (p.url.as_str(), p)).collect();
        let mut seen = HashSet::new();
        return semantic
            .iter()
            .map(|p| fresh.get(p.url.as_str()).copied().unwrap_or(p))
            .chain(lexical)
            .filter(|p| seen.insert(p.url.as_str()))
            .cloned()
            .collect();
    }
    fuse(lexical, semantic)
}
