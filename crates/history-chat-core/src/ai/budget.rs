//! Budgeted retrieval, the step between keyword expansion and ranking in
//! [`crate::ai::pipeline::ai_search`]: at most [`CANDIDATE_BUDGET`] candidates whatever the
//! depth, spread over the keywords by rank.
//!
//! History is searched one keyword at a time, in keyword order. First pass: each keyword takes up to
//! its [`slot_cap`] of pages not already taken (a page taken by an earlier keyword neither counts nor
//! uses a slot); its other new pages are kept as leftovers; retrieval stops as soon as the budget is
//! full. Second pass ([`Budget::finish`]): the budget's remaining room is filled with the leftovers,
//! again in keyword order. The pages offered come from a [`crate::search::PageSource`], already
//! cleaned and merged, so no slot goes twice to one page or to search noise.

use std::collections::HashSet;

use crate::history::Page;

/// Most candidates sent to the ranking call: what the model can compare well in one prompt, and the
/// only pages of the history that ever leave the machine.
pub const CANDIDATE_BUDGET: usize = 100;

/// Pages each keyword may take in the first pass, by its position (0-based): the 10 best keywords get
/// 10 each, the next 20 get 5, the rest 2. The best keywords alone can fill the budget; the long tail
/// only adds variety.
pub const fn slot_cap(keyword_index: usize) -> usize {
    match keyword_index {
        0..=9 => 10,
        10..=29 => 5,
        _ => 2,
    }
}

/// What one keyword's pages did to the budget.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Offer {
    /// Pages taken from this offer.
    pub taken: usize,
    /// The budget is full: search no more keywords.
    pub full: bool,
}

/// The candidates collected so far. Offer each keyword's pages in keyword order, then
/// [`Budget::finish`].
#[derive(Debug, Default)]
pub struct Budget {
    taken: Vec<Page>,
    urls: HashSet<String>,
    /// (keyword index, its new pages beyond its cap).
    leftovers: Vec<(usize, Vec<Page>)>,
}

impl Budget {
    /// An empty budget.
    pub fn new() -> Budget {
        Budget::default()
    }

    /// Candidates taken so far.
    pub fn len(&self) -> usize {
        self.taken.len()
    }

    /// Whether nothing was taken yet.
    pub fn is_empty(&self) -> bool {
        self.taken.is_empty()
    }

    /// Whether the budget is full.
    pub fn is_full(&self) -> bool {
        self.taken.len() >= CANDIDATE_BUDGET
    }

    /// Offers the pages found for the keyword at `keyword_index`, as the source gave them (cleaned
    /// and merged, in its order).
    pub fn offer(&mut self, keyword_index: usize, pages: Vec<Page>) -> Offer {
        let cap = slot_cap(keyword_index);
        let mut taken = 0;
        let mut leftovers = Vec::new();
        for page in pages {
            if self.is_full() {
                break;
            }
            if self.urls.contains(&page.url) {
                continue;
            }
            if taken < cap {
                self.urls.insert(page.url.clone());
                self.taken.push(page);
                taken += 1;
            } else if !leftovers.iter().any(|p: &Page| p.url == page.url) {
                leftovers.push(page);
            }
        }
        if !leftovers.is_empty() {
            self.leftovers.push((keyword_index, leftovers));
        }
        Offer {
            taken,
            full: self.is_full(),
        }
    }

    /// The candidates: first-pass pages in the order taken, then leftovers in keyword order until
    /// the budget is full.
    pub fn finish(mut self) -> Vec<Page> {
        self.leftovers.sort_by_key(|(keyword, _)| *keyword);
        for (_, pages) in std::mem::take(&mut self.leftovers) {
            for page in pages {
                if self.is_full() {
                    return self.taken;
                }
                if self.urls.insert(page.url.clone()) {
                    self.taken.push(page);
                }
            }
        }
        self.taken
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str) -> Page {
        Page {
            url: url.into(),
            title: String::new(),
            last_visit_ms: 0,
            visit_count: 1,
            passage: None,
            marks: Default::default(),
        }
    }

    /// `count` pages named `k{keyword}-{i}`.
    fn pages(keyword: usize, count: usize) -> Vec<Page> {
        (0..count)
            .map(|i| page(&format!("k{keyword}-{i}")))
            .collect()
    }

    /// Runs the pipeline's loop: offers each keyword's pages until full, then finishes. Returns the
    /// candidates and how many keywords were searched.
    fn run(found: Vec<Vec<Page>>) -> (Vec<Page>, usize) {
        let mut budget = Budget::new();
        let mut searched = 0;
        for (index, pages) in found.into_iter().enumerate() {
            searched += 1;
            if budget.offer(index, pages).full {
                break;
            }
        }
        (budget.finish(), searched)
    }

    fn urls(pages: &[Page]) -> Vec<&str> {
        pages.iter().map(|p| p.url.as_str()).collect()
    }

    #[test]
    fn caps_by_keyword_position() {
        let caps: Vec<usize> = [0, 9, 10, 29, 30, 99].into_iter().map(slot_cap).collect();
        assert_eq!(caps, [10, 10, 5, 5, 2, 2]);
    }

    #[test]
    fn counts_by_keyword_count_and_matches() {
        // (keywords, pages found per keyword, candidates, keywords searched)
        let rows = [
            (1, 0, 0, 1),
            (1, 3, 3, 1),
            (1, 250, 100, 1), // first pass 10, then leftovers fill the budget
            (5, 3, 15, 5),
            (5, 15, 75, 5), // 50 in the first pass + 25 leftovers
            (5, 40, 100, 5),
            (10, 10, 100, 10), // exactly full after the 10th keyword
            (10, 12, 100, 10),
            (11, 12, 100, 10), // full at keyword 10: keyword 11 is never searched
            (30, 1, 30, 30),
            (30, 4, 100, 30), // 10*4 + 20*4 = 120 > 100: full during keyword 25
            (31, 3, 93, 31),  // 30 + 60 + 2, then keyword 31's leftover
            (100, 1, 100, 100),
            (100, 0, 0, 100),
        ];
        for (keywords, per_keyword, expected, expected_searched) in rows {
            let found = (0..keywords).map(|k| pages(k, per_keyword)).collect();
            let (candidates, searched) = run(found);
            assert_eq!(candidates.len(), expected, "{keywords} × {per_keyword}");
            let unique: HashSet<&str> = urls(&candidates).into_iter().collect();
            assert_eq!(unique.len(), candidates.len());
            if (keywords, per_keyword) != (30, 4) {
                assert_eq!(searched, expected_searched, "{keywords} × {per_keyword}");
            } else {
                assert_eq!(searched, 25);
            }
        }
    }

    #[test]
    fn a_page_taken_earlier_neither_counts_nor_uses_a_slot() {
        let mut budget = Budget::new();
        assert_eq!(
            budget.offer(0, pages(0, 10)),
            Offer {
                taken: 10,
                full: false
            }
        );
        // Keyword 2 finds keyword 1's 10 pages first, then its own: all 10 of its slots are free.
        let mut second = pages(0, 10);
        second.extend(pages(1, 12));
        assert_eq!(
            budget.offer(1, second),
            Offer {
                taken: 10,
                full: false
            }
        );
        let candidates = budget.finish();
        assert_eq!(candidates.len(), 22);
        assert_eq!(urls(&candidates[10..12]), ["k1-0", "k1-1"]);
        assert_eq!(urls(&candidates[20..]), ["k1-10", "k1-11"]);
    }

    #[test]
    fn the_second_pass_fills_in_keyword_order_skipping_pages_taken_later() {
        let mut budget = Budget::new();
        // Keyword 0: 12 pages, 2 left over. Keyword 1: takes one of keyword 0's leftovers as its own.
        budget.offer(0, pages(0, 12));
        budget.offer(1, vec![page("k0-11"), page("x")]);
        budget.offer(2, pages(2, 11));
        let candidates = budget.finish();
        assert_eq!(candidates.len(), 24);
        assert_eq!(urls(&candidates[22..]), ["k0-10", "k2-10"]);
        assert_eq!(candidates[10].url, "k0-11");
    }

    #[test]
    fn stops_at_the_budget_even_inside_one_offer() {
        let mut budget = Budget::new();
        for k in 0..9 {
            budget.offer(k, pages(k, 10));
        }
        assert_eq!(budget.len(), 90);
        budget.offer(9, pages(9, 3));
        assert!(!budget.is_full());
        assert_eq!(
            budget.offer(10, pages(10, 50)),
            Offer {
                taken: 5,
                full: false
            }
        );
        assert_eq!(
            budget.offer(11, pages(11, 50)),
            Offer {
                taken: 2,
                full: true
            }
        );
        assert_eq!(
            budget.offer(12, pages(12, 50)),
            Offer {
                taken: 0,
                full: true
            }
        );
        let candidates = budget.finish();
        assert_eq!(candidates.len(), CANDIDATE_BUDGET);
        assert_eq!(candidates.last().map(|p| p.url.as_str()), Some("k11-1"));
    }
}
