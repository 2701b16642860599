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
//! - [`fuse_placed`]: any number of ranked lists of pages, each [`Placement::Fused`] by RRF or
//!   [`Placement::Leading`] (before the others): what the plan fuses its ranked sources with.
//! - [`fuse`], [`fuse_with_browser`] and [`fuse_semantic`]: two lists, by [`fuse_placed`].

use std::collections::{HashMap, HashSet};

use crate::history::{Marks, Page, Passage};
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

/// Where a ranked list's pages stand among the others' ([`fuse_placed`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Placement {
    /// Fused with the other lists by RRF: agreement rewarded, no list dictating the order.
    Fused,
    /// Before every list that does not lead: the source knows its pages are better than the
    /// others' (topic search's when no page matches every word, [`fuse_semantic`]).
    Leading,
}

impl Placement {
    /// Where topic search's pages stand: first when the words missed ([`Words::Missed`]: what
    /// they give shares a stray word with the question at best), fused beside a page matching
    /// every word ([`Words::Found`]).
    pub fn of_topics(words: Words) -> Placement {
        match words {
            Words::Missed => Placement::Leading,
            Words::Found => Placement::Fused,
        }
    }
}

/// Fuses ranked lists of pages, each placed as it says: every page of every list once, the
/// [`Placement::Leading`] lists' pages first (fused among themselves by [`rrf`] with [`RRF_K`]),
/// then the [`Placement::Fused`] lists' (likewise); ties in the earlier list's favour. A page in
/// several lists is taken from the first list that has it: list the freshest source first (the
/// words' answer: the index merges every raw URL of a page); the passage that matched
/// ([`Page::passage`]) is the first list's that has one, so a page the words found keeps the
/// passage its content matched; its marks ([`Page::marks`]) are every list's: a page found in the
/// history and among the bookmarks shows once, marked a bookmark, and is not outside the
/// history; a page with no title takes the first list's that has one (the history records a
/// visit before the page has its title; the open tab has it). The caller cuts to what it shows.
pub fn fuse_placed(lists: &[(&[Page], Placement)]) -> Vec<Page> {
    let mut pages: HashMap<&str, &Page> = HashMap::new();
    let mut passages: HashMap<&str, &Passage> = HashMap::new();
    let mut marks: HashMap<&str, Marks> = HashMap::new();
    let mut titles: HashMap<&str, &str> = HashMap::new();
    for page in lists.iter().flat_map(|(list, _)| list.iter()) {
        pages.entry(page.url.as_str()).or_insert(page);
        if !page.title.is_empty() {
            titles.entry(page.url.as_str()).or_insert(&page.title);
        }
        if let Some(passage) = &page.passage {
            passages.entry(page.url.as_str()).or_insert(passage);
        }
        marks
            .entry(page.url.as_str())
            .and_modify(|m| *m = m.merged(&page.marks))
            .or_insert_with(|| page.marks.clone());
    }
    let ids = |placement: Placement| -> Vec<Vec<String>> {
        lists
            .iter()
            .filter(|(_, placed)| *placed == placement)
            .map(|(list, _)| list.iter().map(|p| p.url.clone()).collect())
            .collect()
    };
    let mut seen = HashSet::new();
    rrf(&ids(Placement::Leading), RRF_K)
        .into_iter()
        .chain(rrf(&ids(Placement::Fused), RRF_K))
        .filter(|(url, _)| seen.insert(url.clone()))
        .filter_map(|(url, _)| {
            let mut page = (*pages.get(url.as_str())?).clone();
            if page.passage.is_none() {
                page.passage = passages.get(url.as_str()).map(|p| (*p).clone());
            }
            if let Some(marks) = marks.get_mut(url.as_str()) {
                page.marks = std::mem::take(marks);
            }
            if page.title.is_empty() {
                page.title = titles
                    .get(url.as_str())
                    .map_or(String::new(), |t| (*t).to_owned());
            }
            Some(page)
        })
        .collect()
}

/// Fuses two ranked lists of pages by [`rrf`] with [`RRF_K`] ([`fuse_placed`], both
/// [`Placement::Fused`]): every page of both once, best fused score first, ties in the first
/// list's favour; a page in both lists is taken from the first (the fresher source: the index
/// merges every raw URL of a page). The caller cuts to what it shows.
pub fn fuse(first: &[Page], second: &[Page]) -> Vec<Page> {
    fuse_placed(&[(first, Placement::Fused), (second, Placement::Fused)])
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
/// - [`Words::Missed`]: the semantic pages first, in their order, then the lexical ones (the
///   semantic list [`Placement::Leading`]). Measured on the evaluation set, topic questions find
///   0.46 of their pages in the first five this way, 0.30 by RRF (which interleaves the pages
///   sharing a stray word with the question), and no lexical kind loses anything.
pub fn fuse_semantic(lexical: &[Page], semantic: &[Page], words: Words) -> Vec<Page> {
    fuse_placed(&[
        (lexical, Placement::Fused),
        (semantic, Placement::of_topics(words)),
    ])
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
            passage: None,
            marks: Default::default(),
        }
    }

    fn urls(pages: &[Page]) -> Vec<&str> {
        pages.iter().map(|p| p.url.as_str()).collect()
    }

    #[test]
    fn a_page_keeps_the_passage_its_content_matched_whichever_list_it_is_taken_from() {
        let said = |text: &str| Passage {
            text: text.to_owned(),
            marks: vec![(0, 4)],
        };
        let with = |url: &str, text: &str| Page {
            passage: Some(said(text)),
            ..page(url, "")
        };
        let words = [
            page("https://a.example/", "A"),
            page("https://b.example/", "B"),
        ];
        let content = [
            with("https://b.example/", "b said"),
            with("https://c.example/", "c said"),
        ];
        let fused = fuse_placed(&[
            (&words[..], Placement::Fused),
            (&content[..], Placement::Fused),
        ]);
        let passages: Vec<(&str, &str, Option<&str>)> = fused
            .iter()
            .map(|p| {
                let text = p.passage.as_ref().map(|s| s.text.as_str());
                (p.url.as_str(), p.title.as_str(), text)
            })
            .collect();
        assert_eq!(
            passages,
            [
                // In both lists: the words' page (its title), with the content's passage.
                ("https://b.example/", "B", Some("b said")),
                ("https://a.example/", "A", None),
                ("https://c.example/", "", Some("c said")),
            ]
        );
    }

    #[test]
    fn a_page_in_several_sources_shows_once_with_every_source_marked() {
        use crate::history::{Bookmarked, OpenTab};
        let bookmark = Bookmarked {
            folders: vec!["Rust".into()],
            added_ms: 5,
        };
        let tab = OpenTab {
            tab_id: 7,
            window_id: 1,
        };
        let marked = |url: &str, bookmark: Option<Bookmarked>, tab: Option<OpenTab>| Page {
            marks: Marks {
                bookmark,
                tab,
                outside_history: true,
            },
            ..page(url, "")
        };
        let history = [
            page("https://a.example/", "A"),
            page("https://t.example/", ""),
        ];
        let bookmarks = [
            marked("https://a.example/", Some(bookmark.clone()), None),
            marked("https://b.example/", Some(bookmark.clone()), None),
        ];
        let tabs = [
            marked("https://b.example/", None, Some(tab)),
            Page {
                title: "Its title now".into(),
                ..marked("https://t.example/", None, Some(tab))
            },
        ];
        let fused = fuse_placed(&[
            (&history[..], Placement::Fused),
            (&bookmarks[..], Placement::Fused),
            (&tabs[..], Placement::Fused),
        ]);
        // The history recorded the visit before the page had its title; the tab has it.
        let untitled = fused.iter().find(|p| p.url == "https://t.example/");
        assert_eq!(untitled.map(|p| p.title.as_str()), Some("Its title now"));
        let got: Vec<(&str, &Marks)> = (fused.iter())
            .filter(|p| p.url != "https://t.example/")
            .map(|p| (p.url.as_str(), &p.marks))
            .collect();
        assert_eq!(
            got,
            [
                // The history's page, bookmarked: it stays a history page (removal offered).
                (
                    "https://a.example/",
                    &Marks {
                        bookmark: Some(bookmark.clone()),
                        tab: None,
                        outside_history: false,
                    }
                ),
                // Bookmarked and open, in no history list.
                (
                    "https://b.example/",
                    &Marks {
                        bookmark: Some(bookmark),
                        tab: Some(tab),
                        outside_history: true,
                    }
                ),
            ]
        );
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

    #[test]
    fn many_lists_the_leading_ones_first_each_group_by_rrf() {
        use Placement::{Fused, Leading};
        type Row<'a> = (&'a str, &'a [(&'a [&'a str], Placement)], &'a [&'a str]);
        let rows: &[Row] = &[
            (
                "three fused lists: agreement first, ties to the earlier list",
                &[(&["a", "b"], Fused), (&["k", "a"], Fused), (&["t"], Fused)],
                &["a", "k", "t", "b"],
            ),
            (
                "a leading list before the fused ones, which keep their fusion",
                &[
                    (&["a", "b"], Fused),
                    (&["k", "a"], Fused),
                    (&["t"], Leading),
                ],
                &["t", "a", "k", "b"],
            ),
            (
                "two leading lists fused among themselves; a page of both groups leads once",
                &[
                    (&["a", "b"], Fused),
                    (&["k", "a"], Leading),
                    (&["t", "a"], Leading),
                ],
                &["a", "k", "t", "b"],
            ),
            (
                "a list of nothing changes nothing, wherever it stands",
                &[
                    (&["a", "b"], Fused),
                    (&[], Leading),
                    (&["k", "a"], Fused),
                    (&[], Fused),
                ],
                &["a", "k", "b"],
            ),
            ("no list: no page", &[], &[]),
        ];
        for &(name, lists, want) in rows {
            let owned: Vec<(Vec<Page>, Placement)> = lists
                .iter()
                .enumerate()
                .map(|(i, (urls, placed))| {
                    let pages = urls.iter().map(|u| page(u, &format!("list {i}"))).collect();
                    (pages, *placed)
                })
                .collect();
            let lists: Vec<(&[Page], Placement)> = owned
                .iter()
                .map(|(pages, placed)| (pages.as_slice(), *placed))
                .collect();
            let fused = fuse_placed(&lists);
            assert_eq!(urls(&fused), want, "{name}");
            // Every page is the first list's that has it, leading or not.
            for page in &fused {
                let first = owned
                    .iter()
                    .position(|(pages, _)| pages.iter().any(|p| p.url == page.url));
                assert_eq!(
                    first.map(|i| format!("list {i}")),
                    Some(page.title.clone()),
                    "{name}"
                );
            }
        }
    }

    /// `fuse_semantic` as it was written before [`fuse_placed`] (ccacf73), kept to compare.
    fn fuse_semantic_before(lexical: &[Page], semantic: &[Page], words: Words) -> Vec<Page> {
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
        let lists = [
            lexical.iter().map(|p| p.url.clone()).collect::<Vec<_>>(),
            semantic.iter().map(|p| p.url.clone()).collect::<Vec<_>>(),
        ];
        let mut pages: HashMap<&str, &Page> = HashMap::new();
        for page in semantic.iter().chain(lexical) {
            pages.insert(page.url.as_str(), page);
        }
        rrf(&lists, RRF_K)
            .into_iter()
            .filter_map(|(url, _)| pages.get(url.as_str()).map(|p| (*p).clone()))
            .collect()
    }

    #[test]
    fn fuse_semantic_is_what_it_was_for_every_small_pair_of_lists() {
        // Every list of up to three of four pages, repeats included.
        let mut lists: Vec<Vec<&str>> = vec![Vec::new()];
        for len in 1..=3 {
            for n in 0..4usize.pow(len) {
                let list = (0..len)
                    .map(|i| ["a", "b", "c", "d"][n / 4usize.pow(i) % 4])
                    .collect();
                lists.push(list);
            }
        }
        for lexical in &lists {
            let lexical: Vec<Page> = lexical.iter().map(|u| page(u, "lexical")).collect();
            for semantic in &lists {
                let semantic: Vec<Page> = semantic.iter().map(|u| page(u, "semantic")).collect();
                for words in [Words::Found, Words::Missed] {
                    assert_eq!(
                        fuse_semantic(&lexical, &semantic, words),
                        fuse_semantic_before(&lexical, &semantic, words),
                        "{lexical:?} {semantic:?} {words:?}"
                    );
                }
            }
        }
    }
}
