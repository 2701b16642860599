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

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, title: &str) -> Page {
        Page {
            url: url.to_owned(),
            title: title.to_owned(),
            last_visit_ms: 0,
            visit_count: 1,
        }
    }

    fn urls(pages: &[Page]) -> Vec<&str> {
        pages.iter().map(|p| p.url.as_str()).collect()
    }

    #[test]
    fn rrf_scores_and_order() {
        let list = |ids: &[&str]| ids.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let fused = rrf(&[list(&["a", "b", "c"]), list(&["c", "d", "a"])], RRF_K);
        let expected = [
            ("a", 1.0 / 61.0 + 1.0 / 63.0),
            ("c", 1.0 / 63.0 + 1.0 / 61.0),
            ("b", 1.0 / 62.0),
            ("d", 1.0 / 62.0),
        ];
        assert_eq!(fused.len(), expected.len());
        for ((id, score), (e_id, e_score)) in fused.iter().zip(expected) {
            assert_eq!(id, e_id);
            assert!((score - e_score).abs() < 1e-12, "{id} {score} {e_score}");
        }
        assert!(rrf(&[], RRF_K).is_empty());
        // A repeated id counts once per list, at its best rank.
        let fused = rrf(&[list(&["a", "a", "b"])], RRF_K);
        assert_eq!(fused[1], ("b".to_owned(), 1.0 / 63.0));
    }

    #[test]
    fn fusion_keeps_every_browser_result() {
        let browser: Vec<Page> = (0..30)
            .map(|i| page(&format!("https://b{i}.example/"), "from the browser"))
            .chain([page("https://blog.example/cte", "from the browser")])
            .collect();
        let index = [
            page("https://blog.example/cte", "Recursive CTEs"),
            page("https://docs.example/with", "WITH queries"),
        ];
        let fused = fuse_with_browser(&index, &browser);
        for p in &browser {
            assert!(fused.iter().any(|f| f.url == p.url), "{} lost", p.url);
        }
        // The page both found comes first, with the index's data.
        assert_eq!(fused[0].url, "https://blog.example/cte");
        assert_eq!(fused[0].title, "Recursive CTEs");
        assert_eq!(fused.len(), 32);
    }

    #[test]
    fn fusion_keeps_every_page_and_rewards_agreement() {
        let rows: &[(&[&str], &[&str], &[&str])] = &[
            // In both lists beats first in one.
            (&["a", "b", "c"], &["c", "d"], &["c", "a", "b", "d"]),
            // Equal ranks: the lexical list's page first.
            (&["a"], &["b"], &["a", "b"]),
            (&[], &["x", "y"], &["x", "y"]),
            (&["x", "y"], &[], &["x", "y"]),
            (&[], &[], &[]),
            // A list repeating a page counts its best rank once.
            (&["a", "a", "b"], &["b"], &["b", "a"]),
        ];
        for &(lexical, semantic, want) in rows {
            let lexical: Vec<Page> = lexical.iter().map(|u| page(u, "lexical")).collect();
            let semantic: Vec<Page> = semantic.iter().map(|u| page(u, "semantic")).collect();
            let fused = fuse_semantic(&lexical, &semantic, Words::Found);
            assert_eq!(urls(&fused), want, "{lexical:?} {semantic:?}");
        }
    }

    #[test]
    fn when_the_words_missed_topic_pages_lead_and_every_page_comes_once() {
        let rows: &[(&[&str], &[&str], &[&str])] = &[
            (&["a", "b", "c"], &["c", "d"], &["c", "d", "a", "b"]),
            (&["a"], &["b"], &["b", "a"]),
            (&[], &["x", "y"], &["x", "y"]),
            (&["x", "y"], &[], &["x", "y"]),
            (&[], &[], &[]),
            (&["a", "a", "b"], &["b", "b"], &["b", "a"]),
        ];
        for &(lexical, semantic, want) in rows {
            let lexical: Vec<Page> = lexical.iter().map(|u| page(u, "lexical")).collect();
            let semantic: Vec<Page> = semantic.iter().map(|u| page(u, "semantic")).collect();
            let fused = fuse_semantic(&lexical, &semantic, Words::Missed);
            assert_eq!(urls(&fused), want, "{lexical:?} {semantic:?}");
        }
    }

    #[test]
    fn a_page_in_both_lists_is_the_lexical_one() {
        for words in [Words::Found, Words::Missed] {
            let fused = fuse_semantic(
                &[page("https://a.example/", "Fresh title")],
                &[
                    page("https://b.example/", "B"),
                    page("https://a.example/", "Stale title"),
                ],
                words,
            );
            let a = fused.iter().find(|p| p.url == "https://a.example/");
            assert_eq!(
                a.map(|p| p.title.as_str()),
                Some("Fresh title"),
                "{words:?}"
            );
            assert_eq!(fused.len(), 2, "{words:?}");
        }
    }
}
