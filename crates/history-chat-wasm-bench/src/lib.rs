//! The history index in WebAssembly, for the in-browser benchmark (`scripts/bench`,
//! `tests/bench/wasm/`). The library has no clock; the page times each exported step with
//! `performance.now()` and reads the module's memory size.
//!
//! The histories and queries are those of the native `index_bench` (the same generator file,
//! `history-chat-core/examples/common/synth.rs`, included by path), so native and WebAssembly
//! numbers are for the same data.

use history_chat_core::history::HistoryItem;
use history_chat_core::index::Index;
use wasm_bindgen::prelude::*;

#[path = "../../history-chat-core/examples/common/synth.rs"]
#[allow(dead_code)]
mod synth;

use synth::{DAY_MS, NOW_MS, Rng, history, queries};

/// One synthetic history, its index and saved bytes, and its queries.
#[wasm_bindgen]
#[derive(Debug)]
pub struct Bench {
    items: Vec<HistoryItem>,
    /// `queries[n - 1]`: queries of `n` words.
    queries: Vec<Vec<String>>,
    index: Index,
    bytes: Vec<u8>,
}

#[wasm_bindgen]
impl Bench {
    /// Generates a history of `size` entries (same seed as `index_bench`) and `per_length`
    /// queries of each length from 1 to 6 words (typos, unfinished last words).
    #[wasm_bindgen(constructor)]
    pub fn new(size: usize, per_length: usize) -> Bench {
        let items = history(size, 0x5EED ^ size as u64);
        let mut rng = Rng(42);
        let queries = (1..=6)
            .map(|n| queries(&items, n, per_length, &mut rng))
            .collect();
        Bench {
            items,
            queries,
            index: Index::new(),
            bytes: Vec::new(),
        }
    }

    /// Builds the index from the generated history (the items are moved in: nothing is copied,
    /// as in the worker, which builds from the browser's answer).
    pub fn build(&mut self) -> usize {
        self.index = Index::build(std::mem::take(&mut self.items));
        self.index.len()
    }

    /// Pages in the index.
    pub fn pages(&self) -> usize {
        self.index.len()
    }

    /// Distinct words in the index.
    pub fn words(&self) -> usize {
        self.index.vocabulary_len()
    }

    /// The index's own estimate of its heap (`Index::heap_bytes`).
    pub fn heap_bytes(&self) -> usize {
        self.index.heap_bytes()
    }

    /// Saves the index (`Index::to_bytes`); returns the snapshot's size in bytes.
    pub fn save(&mut self) -> usize {
        self.bytes = self.index.to_bytes();
        self.bytes.len()
    }

    /// Drops the index, then loads it back from the snapshot (`Index::from_bytes`), as the worker
    /// does after a restart. Returns the pages loaded, 0 on failure.
    pub fn load(&mut self) -> usize {
        self.index = Index::new();
        match Index::from_bytes(&self.bytes) {
            Ok(index) => {
                self.index = index;
                self.index.len()
            }
            Err(_) => 0,
        }
    }

    /// Runs the `i`-th query of `words` words (as the popup's as-you-type search: 25 results
    /// over three months); returns the number of hits.
    pub fn query(&self, words: usize, i: usize) -> usize {
        let Some(query) = self
            .queries
            .get(words.wrapping_sub(1))
            .and_then(|list| list.get(i))
        else {
            return 0;
        };
        self.index
            .search(query, NOW_MS - 90 * DAY_MS, NOW_MS, 25)
            .len()
    }

    /// The `i`-th query of `words` words, for display.
    pub fn query_text(&self, words: usize, i: usize) -> String {
        self.queries
            .get(words.wrapping_sub(1))
            .and_then(|list| list.get(i))
            .cloned()
            .unwrap_or_default()
    }

    /// AI mode's retrieval: the `i`-th one-word query as a keyword, 100 pages at most.
    pub fn keyword(&self, i: usize) -> usize {
        let Some(keyword) = self.queries.first().and_then(|list| list.get(i)) else {
            return 0;
        };
        self.index
            .search_keyword(keyword, NOW_MS - 90 * DAY_MS, NOW_MS, 100)
            .len()
    }
}
