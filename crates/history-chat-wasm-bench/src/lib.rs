//! The history index in WebAssembly, for the in-browser benchmark (`scripts/bench`,
//! `tests/bench/wasm/`). The library has no clock; the page times each exported step with
//! `performance.now()` and reads the module's memory size.
//!
//! The histories and queries are those of the native `index_bench` (the same generator file,
//! `history-chat-core/examples/common/synth.rs`, included by path), so native and WebAssembly
//! numbers are for the same data.

use std::collections::{HashMap, VecDeque};

use history_chat_core::content::host::FUSION_POOL;
use history_chat_core::content::{CONTENT_STANDOUT, ContentHost};
use history_chat_core::history::{HistoryItem, Page, clean_and_merge};
use history_chat_core::index::Index;
use history_chat_core::index::host::{Action, Event, HistoryRead, Host};
use history_chat_core::retrieval::SEMANTIC_POOL;
use history_chat_core::retrieval::fusion::fuse_semantic;
use history_chat_core::search::RESULT_LIMIT;
use history_chat_core::semantic::host::{
    Event as SemanticEvent, STORE_CHUNK_RECORDS, StoredRecord,
};
use history_chat_core::semantic::{DIM, Entry, Quantised, Record, SemanticHost, Words, page_hash};
use history_chat_core::site_filter::SiteFilter;
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

/// Topic search's store and scan at scale, for `tests/bench/semantic.mjs`: the pages of a
/// synthetic history (the generator above, real-looking URLs) each with a random L2-normalised
/// vector, stored as the worker stores them ([`Record`]s) and loaded into the worker's own
/// [`SemanticHost`]; questions; and, per question, a 50-page lexical answer to fuse with.
///
/// The vectors are drawn like e5's: every vector shares one direction (unrelated texts have a
/// cosine of about 0.6), and each leans towards one of [`TOPICS`] topics (a question and a page of
/// the same topic: about 0.85, standing out of the crowd), so a search really has hits to rank
/// and the fusion real pages to merge, as in use.
#[wasm_bindgen]
#[derive(Debug)]
pub struct SemanticBench {
    host: SemanticHost,
    /// The stored records, as IndexedDB gives them back to the worker.
    records: Vec<StoredRecord>,
    /// The pages by URL, as the lexical index resolves the semantic hits into pages.
    pages: HashMap<String, Page>,
    /// The questions' vectors.
    queries: Vec<Vec<f32>>,
    /// Per question: the lexical answer fused with the semantic one (up to 10 of its pages are
    /// among the question's semantic hits).
    lexical: Vec<Vec<Page>>,
}

/// Topics the synthetic vectors lean towards.
const TOPICS: usize = 400;
/// The lexical answer fused with the semantic one.
const LEXICAL_PAGES: usize = 50;

/// A random vector of [`DIM`] components, each uniform in -1..1.
fn random_vector(rng: &mut Rng) -> Vec<f32> {
    (0..DIM)
        .map(|_| ((rng.next() >> 40) as f32 / (1u64 << 24) as f32) * 2.0 - 1.0)
        .collect()
}

/// `a·x + b·y + c·z`, L2-normalised.
fn mix(parts: [(f32, &[f32]); 3]) -> Vec<f32> {
    let mut v = vec![0.0f32; DIM];
    for (weight, part) in parts {
        let norm = part
            .iter()
            .map(|x| x * x)
            .sum::<f32>()
            .sqrt()
            .max(f32::MIN_POSITIVE);
        for (v, x) in v.iter_mut().zip(part) {
            *v += weight * x / norm;
        }
    }
    let norm = v
        .iter()
        .map(|x| x * x)
        .sum::<f32>()
        .sqrt()
        .max(f32::MIN_POSITIVE);
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// A host started with topic search on, the records fed in chunks as the worker reads them.
fn loaded_host(records: &[StoredRecord]) -> SemanticHost {
    let mut host = SemanticHost::new();
    host.handle(SemanticEvent::Start { enabled: true });
    let mut chunks = records.chunks(STORE_CHUNK_RECORDS).peekable();
    if chunks.peek().is_none() {
        host.handle(SemanticEvent::StoreLoaded {
            records: Vec::new(),
            done: true,
        });
    }
    while let Some(chunk) = chunks.next() {
        host.handle(SemanticEvent::StoreLoaded {
            records: chunk.to_vec(),
            done: chunks.peek().is_none(),
        });
    }
    host
}

#[wasm_bindgen]
impl SemanticBench {
    /// `pages` pages (cleaned and merged from a synthetic history) with their vectors, loaded
    /// into a host, and `queries` questions with their lexical answers.
    #[wasm_bindgen(constructor)]
    pub fn new(pages: usize, queries: usize) -> SemanticBench {
        let mut entries = pages + pages / 4;
        let mut list = clean_and_merge(history(entries, 0x5EED ^ pages as u64));
        while list.len() < pages {
            entries *= 2;
            list = clean_and_merge(history(entries, 0x5EED ^ pages as u64));
        }
        list.truncate(pages);
        let mut rng = Rng(7);
        let shared = random_vector(&mut rng);
        let topics: Vec<Vec<f32>> = (0..TOPICS).map(|_| random_vector(&mut rng)).collect();
        let records: Vec<StoredRecord> = list
            .iter()
            .filter_map(|page| {
                let topic = &topics[rng.below(TOPICS)];
                let noise = random_vector(&mut rng);
                let vector =
                    Quantised::from_f32(&mix([(1.0, &shared), (0.6, topic), (0.5, &noise)]))?;
                let entry = Entry {
                    vector,
                    page_hash: page_hash(page),
                    last_visit_ms: page.last_visit_ms,
                };
                Some(StoredRecord {
                    url: page.url.clone(),
                    bytes: Record::new(&page.url, &entry).encode(),
                })
            })
            .collect();
        let host = loaded_host(&records);
        let queries: Vec<Vec<f32>> = (0..queries)
            .map(|_| {
                let topic = &topics[rng.below(TOPICS)];
                let noise = random_vector(&mut rng);
                mix([(1.0, &shared), (0.6, topic), (0.5, &noise)])
            })
            .collect();
        let pages: HashMap<String, Page> = list.into_iter().map(|p| (p.url.clone(), p)).collect();
        let all: Vec<&Page> = pages.values().collect();
        let lexical = queries
            .iter()
            .map(|query| {
                let mut answer: Vec<Page> = host
                    .search(query, 0, SEMANTIC_POOL, Words::Found)
                    .iter()
                    .step_by(3)
                    .take(10)
                    .filter_map(|(url, _)| pages.get(url).cloned())
                    .collect();
                while answer.len() < LEXICAL_PAGES && !all.is_empty() {
                    answer.push(all[rng.below(all.len())].clone());
                }
                answer
            })
            .collect();
        SemanticBench {
            host,
            records,
            pages,
            queries,
            lexical,
        }
    }

    /// Pages held.
    pub fn pages(&self) -> usize {
        self.host.vectors().len()
    }

    /// The store's own estimate of its heap (`Vectors::heap_bytes`).
    pub fn heap_bytes(&self) -> usize {
        self.host.vectors().heap_bytes()
    }

    /// The stored records' sizes, summed (what IndexedDB is given, one record per page).
    pub fn record_bytes(&self) -> usize {
        self.records.iter().map(|r| r.bytes.len()).sum()
    }

    /// Loads every stored record into a fresh host again, as the worker does at each start (in
    /// chunks of `STORE_CHUNK_RECORDS`); returns the pages loaded.
    pub fn load_store(&mut self) -> usize {
        self.host = loaded_host(&self.records);
        self.host.vectors().len()
    }

    /// Question `i`'s scan alone, as the worker's `understand` asks it (`SemanticHost::search`:
    /// the pages of the period since `start_ms` that stand out, [`SEMANTIC_POOL`] at most);
    /// returns the hits.
    pub fn search(&self, i: usize, start_ms: f64) -> usize {
        self.queries.get(i).map_or(0, |query| {
            self.host
                .search(query, start_ms as i64, SEMANTIC_POOL, Words::Found)
                .len()
        })
    }

    /// Question `i`'s whole semantic step: the scan, the hits turned into pages, and the fusion
    /// with its 50-page lexical answer (`fuse_semantic` by RRF, as beside a page the words
    /// found: the costlier way), cut to what the popup shows; returns
    /// the pages shown.
    pub fn scan_fuse(&self, i: usize, start_ms: f64) -> usize {
        let (Some(query), Some(lexical)) = (self.queries.get(i), self.lexical.get(i)) else {
            return 0;
        };
        let semantic: Vec<Page> = self
            .host
            .search(query, start_ms as i64, SEMANTIC_POOL, Words::Found)
            .into_iter()
            .filter_map(|(url, _)| self.pages.get(&url).cloned())
            .collect();
        let mut fused = fuse_semantic(lexical, &semantic, Words::Found);
        fused.truncate(RESULT_LIMIT);
        fused.len()
    }

    /// The synthetic history's "now" (ms since the Unix epoch), that periods count back from.
    pub fn now_ms(&self) -> f64 {
        NOW_MS as f64
    }
}

#[path = "../../history-chat-core/examples/common/content_synth.rs"]
mod content_synth;

/// The page-content store at scale, for `tests/bench/content_wasm.mjs`: the synthetic pages of the
/// native `content_bench` (the same generator file, `content_synth.rs`, and seed), read through
/// the worker's own [`ContentHost`] (cut, deflated, indexed; their passages embedded with
/// pseudo-random unit vectors standing in for the model's; the records' writes acknowledged), and
/// its questions. No clock here: the page times each call with `performance.now()`.
#[wasm_bindgen]
#[derive(Debug)]
pub struct ContentBench {
    host: ContentHost,
    questions: Vec<content_synth::Question>,
    everywhere: SiteFilter,
}

thread_local! {
    /// The last reading's trace (see [`content_trace`]).
    static TRACE: std::cell::RefCell<Vec<String>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// The last [`ContentBench`] reading's trace, a JSON array: for the start, the generator built,
/// every [`TRACE_EVERY`] pages and the questions drawn, the module's linear memory and the
/// store's estimate of its parts, in bytes. A free function, so that `content_wasm.mjs` reads it
/// from the page's module without the page's script handing it over.
#[wasm_bindgen]
pub fn content_trace() -> String {
    TRACE.with(|trace| format!("[{}]", trace.borrow().join(",")))
}

/// Pages read between two lines of [`ContentBench::trace`].
const TRACE_EVERY: usize = 1_000;

/// The module's linear memory, in bytes (0 natively).
fn linear_memory() -> usize {
    #[cfg(target_arch = "wasm32")]
    {
        core::arch::wasm32::memory_size::<0>() * 65_536
    }
    #[cfg(not(target_arch = "wasm32"))]
    {
        0
    }
}

/// One line of [`ContentBench::trace`]: where the reading is, the linear memory and the store's
/// own estimate (lexical / vectors / pages held), in bytes.
fn trace_line(at: &str, host: &ContentHost) -> String {
    let (lexical, vectors, pages) = (
        host.lexical().heap_bytes(),
        host.vectors().heap_bytes(),
        host.pages_heap_bytes(),
    );
    format!(
        "{{\"at\":\"{at}\",\"memory\":{},\"lexical\":{lexical},\"postings\":{},\"vectors\":{vectors},\"pages\":{pages}}}",
        linear_memory(),
        host.lexical().postings_bytes()
    )
}

#[wasm_bindgen]
impl ContentBench {
    /// Reads `pages` pages of about `words` words into a host, as `content_bench` does from the
    /// seed `seed` (`content_synth::SEED` for the same data), then draws its questions.
    #[wasm_bindgen(constructor)]
    pub fn new(pages: usize, words: usize, seed: u64) -> ContentBench {
        let mut trace = vec![trace_line("start", &ContentHost::new())];
        let synth = content_synth::Synth::new();
        let mut rng = content_synth::Rng(seed);
        let mut host = content_synth::started_host();
        trace.push(trace_line("generator", &host));
        for i in 0..pages {
            let text = synth.page_text(&mut rng, words);
            let event = content_synth::read(&host, i, text);
            let actions = host.handle(event);
            // The records go to IndexedDB in the worker: dropped here once acknowledged.
            drop(content_synth::serve(&mut host, actions, &mut rng));
            if (i + 1) % TRACE_EVERY == 0 {
                trace.push(trace_line(&format!("{}", i + 1), &host));
            }
        }
        let questions = synth.questions(&mut rng, content_synth::QUESTIONS);
        trace.push(trace_line("questions", &host));
        TRACE.with(|t| *t.borrow_mut() = trace);
        ContentBench {
            host,
            questions,
            everywhere: SiteFilter::default(),
        }
    }

    /// The seed `content_bench` reads its pages from.
    pub fn seed() -> u64 {
        content_synth::SEED
    }

    /// Questions drawn.
    pub fn questions(&self) -> usize {
        self.questions.len()
    }

    /// Pages held.
    pub fn pages(&self) -> usize {
        self.host.progress().pages as usize
    }

    /// Passages with a vector (what the scan goes over).
    pub fn passages(&self) -> usize {
        self.host.vectors().len()
    }

    /// Question `i`'s words, for display.
    pub fn question(&self, i: usize) -> String {
        self.questions
            .get(i)
            .map(|(text, _)| text.clone())
            .unwrap_or_default()
    }

    /// Question `i`'s lexical search alone (a pool of [`FUSION_POOL`], as the host asks it);
    /// returns the hits.
    pub fn lexical(&self, i: usize) -> usize {
        self.questions.get(i).map_or(0, |(text, _)| {
            self.host
                .lexical()
                .search(text, &self.everywhere, FUSION_POOL)
                .len()
        })
    }

    /// Question `i`'s vector scan alone (every embedded passage, [`FUSION_POOL`] kept, those that
    /// stand out: [`CONTENT_STANDOUT`]); returns the hits.
    pub fn scan(&self, i: usize) -> usize {
        self.questions.get(i).map_or(0, |(_, vector)| {
            self.host
                .vectors()
                .search(vector, &self.everywhere, FUSION_POOL, &CONTENT_STANDOUT)
                .len()
        })
    }

    /// Question `i` through [`ContentHost::search`], as the worker asks it: both searches, fused
    /// by RRF, at most `limit` pages (`content_bench`: 10; the worker: 4 × the popup's limit);
    /// returns the pages found. Their snippets are cut from the records the worker reads back
    /// (not held here: the records went to IndexedDB), so they are not timed.
    pub fn search(&self, i: usize, limit: usize) -> usize {
        self.questions.get(i).map_or(0, |(text, vector)| {
            self.host
                .search(text, Some(vector), &self.everywhere, limit)
                .len()
        })
    }

    /// The store's own estimate of its heap: the lexical index, the passage vectors and the pages
    /// held (texts deflated, spans, titles, URLs).
    pub fn heap_bytes(&self) -> usize {
        self.lexical_bytes() + self.vectors_bytes() + self.pages_bytes()
    }

    /// `Lexical::heap_bytes`.
    pub fn lexical_bytes(&self) -> usize {
        self.host.lexical().heap_bytes()
    }

    /// `PassageVectors::heap_bytes`.
    pub fn vectors_bytes(&self) -> usize {
        self.host.vectors().heap_bytes()
    }

    /// `ContentHost::pages_heap_bytes`.
    pub fn pages_bytes(&self) -> usize {
        self.host.pages_heap_bytes()
    }
}
