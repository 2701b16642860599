//! Native measurement of the content store (issue 29) on synthetic pages: what a page costs in
//! storage, what 10,000 pages cost in the worker's memory, and how long a question takes.
//!
//! `cargo run --release -p history-chat-core --example content_bench [-- 10000 1000]`
//!
//! Pages: `pages` (10,000) pages of about `words` (1,000) words, read through the real
//! [`ContentHost`] (cut, deflated, indexed, stored, their passages embedded with pseudo-random
//! unit vectors standing in for the model). The text is sentences of 6–22 words drawn from a
//! Zipf distribution (s = 1) over a vocabulary of 200,000 words: 40 real English stop words at
//! the head, then pronounceable generated words (about 10 M words of English hold 100,000 to
//! 300,000 distinct words). Generated words deflate a little less well than prose (fewer
//! repeated phrases), so the text's stored size is an upper bound of a real page's. The pages
//! and questions come from `common/content_synth.rs`, shared with the WebAssembly measurement
//! (`history-chat-wasm-bench`'s `ContentBench`, `scripts/bench content-wasm`).
//!
//! Questions: 200, of 1 to 3 words drawn from the vocabulary's ranks 50–50,000 (common to rare
//! words; the stop words at the head would be dropped), with a random unit vector: the lexical
//! search (pool of 50), the vector scan (every embedded passage), and the whole
//! [`ContentHost::search`] (both, fused, 10 pages found: the snippets are cut from the records the
//! worker reads back, not timed here), each the least of three runs. Native,
//! release build (the workspace's `opt-level = "z"`, as the extension; add
//! `CARGO_PROFILE_RELEASE_OPT_LEVEL=3` to see what vectorising does). At `opt-level = "z"` the
//! vector scan's int8 dot product is a plain loop natively, while the WebAssembly build spells
//! out SIMD: in Chrome the scan is about 3–5 times faster than here, `ContentHost::search` 1.2–3
//! times at 1,000–10,000 pages (`scripts/bench content-wasm`, BENCHMARKS.md).

// Examples run natively only: `Instant::now` is banned in the wasm-shared library, not here.
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use history_chat_core::content::host::{Event, StoredRecord};
use history_chat_core::content::{
    CONTENT_STANDOUT, ContentHost, Cut, Record, cut, record::Deflated,
};
use history_chat_core::semantic::Quantised;
use history_chat_core::site_filter::SiteFilter;

#[path = "common/content_synth.rs"]
mod content_synth;

use content_synth::{
    QUESTIONS, Question, Rng, SEED, Synth, read, serve, started_host, unit_vector,
};

/// Records kept to time a worker's start (loading them into a new host).
const LOAD_SAMPLE: usize = 1_000;

fn rss_bytes() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<usize>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or(0.0)
}

fn mb(bytes: usize) -> String {
    format!("{:.1} MB", bytes as f64 / 1e6)
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let pages = args.first().copied().unwrap_or(10_000);
    let words_per_page = args.get(1).copied().unwrap_or(1_000);
    let synth = Synth::new();

    // What a page costs in storage (the record as written once embedded), and what reading one
    // costs step by step, on a sample.
    // (Its own generator: the pages read and the questions are those of `ContentBench`, the
    // same measurement in WebAssembly.)
    let mut sizes = Sizes::default();
    let mut rng = Rng(SEED.rotate_left(32));
    let mut scratch = history_chat_core::content::Lexical::new();
    for i in 0..200 {
        let text = synth.page_text(&mut rng, words_per_page);
        let page = sizes.add(&text, &mut rng);
        let started = Instant::now();
        scratch.insert(&format!("https://s.example/{i}"), &page.text, &page.spans);
        sizes.index += started.elapsed();
    }

    // 10,000 pages read through the host.
    let rss_before = rss_bytes();
    let mut rng = Rng(SEED);
    let mut host = started_host();
    let mut sample: Vec<StoredRecord> = Vec::new();
    let mut read_time = Duration::ZERO;
    let mut stored_bytes = 0usize;
    for i in 0..pages {
        let text = synth.page_text(&mut rng, words_per_page);
        let event = read(&host, i, text);
        let started = Instant::now();
        let actions = host.handle(event);
        read_time += started.elapsed();
        for record in serve(&mut host, actions, &mut rng) {
            stored_bytes += record.bytes.len();
            if sample.len() < LOAD_SAMPLE
                && Record::decode(&record.bytes)
                    .is_ok_and(|d| d.record.vectors.iter().all(|v| v.vector.is_some()))
            {
                sample.push(record);
            }
        }
    }
    let rss_after = rss_bytes();
    let progress = host.progress();
    let lexical = host.lexical();
    let vectors = host.vectors();

    // Questions.
    let questions: Vec<Question> = synth.questions(&mut rng, QUESTIONS);
    let everywhere = SiteFilter::default();
    let time = |f: &mut dyn FnMut(&Question)| -> Vec<f64> {
        let mut times: Vec<f64> = questions
            .iter()
            .map(|q| {
                // The least of three runs: the machine is shared, and what is measured is the
                // work, not the neighbours'.
                (0..3)
                    .map(|_| {
                        let started = Instant::now();
                        f(q);
                        ms(started.elapsed())
                    })
                    .fold(f64::INFINITY, f64::min)
            })
            .collect();
        times.sort_by(f64::total_cmp);
        times
    };
    let found = questions
        .iter()
        .filter(|(text, _)| !lexical.search(text, &everywhere, 50).is_empty())
        .count();
    // What every question finds, as one number: the pages and passages, in order, of
    // `ContentHost::search` at the worker's limit (120) and of the vector scan with no floor (50
    // pages), so that a change meant to keep the results can be checked against a build before it.
    let digest = {
        use std::hash::{Hash, Hasher};
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        for (text, vector) in &questions {
            for hit in host.search(text, Some(vector), &everywhere, 120) {
                (hit.url, hit.passage, hit.span.start).hash(&mut hasher);
            }
            for hit in vectors.scan(vector, &everywhere, 50, -1.0).hits {
                (hit.url, hit.passage, hit.similarity.to_bits()).hash(&mut hasher);
            }
        }
        hasher.finish()
    };
    let lexical_times = time(&mut |(text, _)| {
        std::hint::black_box(lexical.search(text, &everywhere, 50));
    });
    let vector_times = time(&mut |(_, vector)| {
        std::hint::black_box(vectors.search(vector, &everywhere, 50, &CONTENT_STANDOUT));
    });
    let search_times = time(&mut |(text, vector)| {
        std::hint::black_box(host.search(text, Some(vector), &everywhere, 10));
    });

    // A worker's start: stored records loaded into a new host, per record.
    let mut fresh = ContentHost::new();
    fresh.handle(Event::Start { enabled: true });
    let started = Instant::now();
    for chunk in sample.chunks(100) {
        fresh.handle(Event::StoreLoaded {
            records: chunk.to_vec(),
            done: false,
        });
    }
    let load_per_record = ms(started.elapsed()) / sample.len().max(1) as f64;
    let mut copy = lexical.clone();
    let started = Instant::now();
    copy.compact();
    let compaction = ms(started.elapsed());

    println!(
        "## Content store: {pages} synthetic pages of {words_per_page} words (native, release)\n"
    );
    println!("| Stored per page (record once embedded) | bytes |");
    println!("|---|---:|");
    sizes.print();
    println!(
        "| Written over the reading ({pages} pages; each twice: text, then vectors) | {} |",
        mb(stored_bytes)
    );
    println!(
        "| Stored at the end = counted against the cap (`progress().bytes`) | {} |",
        mb(progress.bytes as usize)
    );
    println!();
    println!("| Worker memory, {pages} pages | |");
    println!("|---|---:|");
    println!(
        "| Lexical index (`Lexical::heap_bytes`) | {} |",
        mb(lexical.heap_bytes())
    );
    println!(
        "| … of which postings | {} ({:.2} bytes a posting-passage word) |",
        mb(lexical.postings_bytes()),
        lexical.postings_bytes() as f64 / (pages * words_per_page) as f64
    );
    println!("| … vocabulary | {} words |", lexical.vocabulary());
    println!(
        "| Vectors (`PassageVectors::heap_bytes`, {} passages) | {} |",
        vectors.len(),
        mb(vectors.heap_bytes())
    );
    println!(
        "| Pages held: deflated text, spans, titles, URLs | {} |",
        mb(host.pages_heap_bytes())
    );
    println!(
        "| Resident memory grown while reading (RSS; includes {} sample records, {}) | {} |",
        sample.len(),
        mb(sample.iter().map(|r| r.bytes.len()).sum()),
        mb(rss_after.saturating_sub(rss_before))
    );
    println!();
    println!("| Time (native) | p50 | p95 |");
    println!("|---|---:|---:|");
    let row = |name: &str, t: &[f64]| {
        println!(
            "| {name} | {:.2} ms | {:.2} ms |",
            percentile(t, 0.5),
            percentile(t, 0.95)
        );
    };
    row("Lexical search (pool 50)", &lexical_times);
    row(
        &format!("Vector scan ({} passages)", vectors.len()),
        &vector_times,
    );
    row(
        "`ContentHost::search` (both, RRF, 10 pages found)",
        &search_times,
    );
    println!(
        "| A page read (`Event::Read`: cut, deflate, index), mean | {:.2} ms | |",
        ms(read_time) / pages as f64
    );
    println!("| A stored record loaded at a worker's start, mean | {load_per_record:.3} ms | |");
    println!("| Compacting the whole lexical index | {compaction:.0} ms | |");
    sizes.print_times();
    println!();
    println!(
        "{found} of {QUESTIONS} questions found pages by their words; {} pages held, {} of {} passages embedded.",
        progress.pages, progress.passages_embedded, progress.passages_total
    );
    println!(
        "Results' digest (every question's pages and passages, in order, and the scan's similarities): {digest:016x}"
    );
}

/// Sums of a sample of records' parts.
#[derive(Default)]
struct Sizes {
    pages: usize,
    text_raw: usize,
    text: usize,
    spans: usize,
    vectors: usize,
    total: usize,
    passages: usize,
    embedded: usize,
    cut: Duration,
    deflate: Duration,
    index: Duration,
    decode: Duration,
}

impl Sizes {
    fn add(&mut self, text: &str, rng: &mut Rng) -> Cut {
        let started = Instant::now();
        let page = cut(text);
        self.cut += started.elapsed();
        let started = Instant::now();
        let deflated = Deflated::of(&page.text);
        self.deflate += started.elapsed();
        let record = Record {
            url: "https://site1.example/doc/0000abcd".to_owned(),
            title: "Notes".to_owned(),
            read_ms: content_synth::NOW_MS,
            text: deflated.clone(),
            spans: page.spans.clone(),
            vectors: page
                .embedded
                .iter()
                .map(|&passage| history_chat_core::content::PassageVector {
                    passage,
                    vector: Quantised::from_f32(&unit_vector(rng)),
                })
                .collect(),
        };
        let without_vectors = Record {
            vectors: Vec::new(),
            ..record.clone()
        };
        let without_spans = Record {
            spans: Vec::new(),
            ..without_vectors.clone()
        };
        self.pages += 1;
        self.text_raw += page.text.len();
        self.text += deflated.len();
        self.vectors += record.encoded_len() - without_vectors.encoded_len();
        self.spans += without_vectors.encoded_len() - without_spans.encoded_len();
        self.total += record.encoded_len();
        self.passages += page.spans.len();
        self.embedded += page.embedded.len();
        let bytes = record.encode();
        let started = Instant::now();
        let decoded = Record::decode(&bytes);
        self.decode += started.elapsed();
        std::hint::black_box(decoded).ok();
        page
    }

    fn print(&self) {
        let n = self.pages.max(1);
        println!(
            "| Text, deflated ({} bytes of UTF-8, {:.1}×) | {} |",
            self.text_raw / n,
            self.text_raw as f64 / self.text.max(1) as f64,
            self.text / n
        );
        println!(
            "| Spans ({:.1} passages) | {} |",
            self.passages as f64 / n as f64,
            self.spans / n
        );
        println!(
            "| Vectors ({:.1} embedded passages) | {} |",
            self.embedded as f64 / n as f64,
            self.vectors / n
        );
        println!(
            "| Whole record (URL, title, time included) | {} |",
            self.total / n
        );
    }

    fn print_times(&self) {
        let n = self.pages.max(1) as f64;
        for (name, time) in [
            ("cut into passages", self.cut),
            ("deflate", self.deflate),
            ("index its words (into a small index)", self.index),
            ("decode a stored record (inflate, check)", self.decode),
        ] {
            println!("| A page: {name}, mean | {:.3} ms | |", ms(time) / n);
        }
    }
}
