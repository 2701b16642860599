//! The history index in WebAssembly, for the in-browser benchmark (`scripts/bench`,
//! `tests/bench/wasm/`). The library has no clock; the page times each exported step with
//! `performance.now()` and reads the module's memory size.
//!
//! The histories and queries are those of the native `index_bench` (the same generator file,
//! `history-chat-core/examples/common/synth.rs`, included by path), so native and WebAssembly
//! numbers are for the same data.

use std::collections::VecDeque;

use history_chat_core::history::HistoryItem;
use history_chat_core::index::Index;
use history_chat_core::index::host::{Action, Event, HistoryRead, Host};
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
    /// A build in slices by the worker's own state machine, stepped by [`Bench::next_slice`].
    sliced: Option<Sliced>,
}

#[derive(Debug)]
struct Sliced {
    host: Host,
    /// The generated history, newest first (the browser's order).
    items: Vec<HistoryItem>,
    reads: VecDeque<HistoryRead>,
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
            sliced: None,
        }
    }

    /// Starts a build in slices, as the worker's index host does it with no snapshot: the host
    /// asks for slices of history newest first; [`Bench::next_slice`] answers them one by one from
    /// the generated history (the page times each: the worker's longest busy stretch).
    pub fn start_sliced(&mut self) {
        let mut items = self.items.clone();
        items.sort_by_key(|item| std::cmp::Reverse(item.last_visit_ms));
        let mut host = Host::new();
        let mut reads = VecDeque::new();
        let mut actions = host.handle(Event::Need);
        actions.extend(host.handle(Event::SnapshotRead {
            bytes: None,
            now_ms: NOW_MS,
        }));
        reads.extend(actions.into_iter().filter_map(|action| match action {
            Action::ReadHistory(read) => Some(read),
            _ => None,
        }));
        self.sliced = Some(Sliced { host, items, reads });
    }

    /// Feeds the next slice to the host (the items with a visit in its range: a scan of the
    /// generated history, as cheap as a filter can be; the page subtracts nothing). Returns the
    /// slice's item count, or -1 when the build is complete (or was not started).
    pub fn next_slice(&mut self) -> i32 {
        let Some(sliced) = self.sliced.as_mut() else {
            return -1;
        };
        let Some(read) = sliced.reads.pop_front() else {
            return -1;
        };
        let items: Vec<HistoryItem> = sliced
            .items
            .iter()
            .filter(|item| {
                item.last_visit_ms >= read.start_ms
                    && read.end_ms.is_none_or(|end| item.last_visit_ms < end)
            })
            .cloned()
            .collect();
        let count = items.len() as i32;
        let actions = sliced.host.handle(Event::HistoryRead {
            id: read.id,
            items: Some(items),
        });
        sliced
            .reads
            .extend(actions.into_iter().filter_map(|action| match action {
                Action::ReadHistory(read) => Some(read),
                _ => None,
            }));
        count
    }

    /// Pages indexed by the sliced build so far.
    pub fn sliced_pages(&self) -> usize {
        self.sliced
            .as_ref()
            .and_then(|sliced| sliced.host.index())
            .map_or(0, Index::len)
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
