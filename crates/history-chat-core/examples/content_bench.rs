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
//! repeated phrases), so the text's stored size is an upper bound of a real page's.
//!
//! Questions: 200, of 1 to 3 words drawn from the vocabulary's ranks 50–50,000 (common to rare
//! words; the stop words at the head would be dropped), with a random unit vector: the lexical
//! search (pool of 50), the vector scan (every embedded passage), and the whole
//! [`ContentHost::search`] (both, fused, 10 snippets), each the least of three runs. Native,
//! release build (the workspace's `opt-level = "z"`, as the extension; add
//! `CARGO_PROFILE_RELEASE_OPT_LEVEL=3` to see what vectorising does): WebAssembly in
//! Chrome is about 1.5–3 times slower (the vector scan uses the same SIMD kernel as topic search,
//! measured at 7–14 ms for 50,000 vectors in the extension's WebAssembly).

// Examples run natively only: `Instant::now` is banned in the wasm-shared library, not here.
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use history_chat_core::content::host::{Action, Event, StoredRecord};
use history_chat_core::content::{
    CONTENT_STANDOUT, ContentHost, Cut, ReadPage, Record, cut, record::Deflated,
};
use history_chat_core::semantic::{DIM, Quantised};
use history_chat_core::site_filter::SiteFilter;

/// The pages' read time (any fixed instant: nothing here depends on it).
const NOW_MS: i64 = 1_780_000_000_000;
/// Distinct words drawn from: 10 M words of English hold 100,000 to 300,000.
const VOCABULARY: usize = 200_000;
/// Questions timed: enough for a stable 95th percentile.
const QUESTIONS: usize = 200;
/// A question: its words and its vector.
type Question = (String, Vec<f32>);

/// Records kept to time a worker's start (loading them into a new host).
const LOAD_SAMPLE: usize = 1_000;

/// The head of the vocabulary: the most frequent English words, which the index drops.
const STOP_WORDS: &[&str] = &[
    "the", "of", "and", "to", "a", "in", "is", "that", "for", "it", "as", "was", "with", "on",
    "be", "by", "at", "this", "are", "from", "or", "an", "but", "not", "have", "which", "you",
    "they", "we", "his", "her", "she", "he", "has", "had", "were", "their", "been", "will",
    "would",
];

/// What the generated words are made of (a word is its rank's digits in base 50).
const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ren", "tas", "vo", "bri", "del", "fan", "gu", "hex", "jor", "kel", "lun",
    "mar", "nis", "op", "pra", "quo", "ris", "sel", "tor", "ul", "ven", "wis", "yar", "zel", "cha",
    "dro", "esk", "fla", "gri", "hol", "im", "jak", "kru", "lem", "mon", "nar", "ost", "pel",
    "rin", "sto", "tri", "umb", "vel", "wan", "xo", "yel", "zor",
];

/// xorshift64*: deterministic, no `rand`.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

/// The word of rank `rank` (0 = most frequent).
fn word(rank: usize) -> String {
    if let Some(stop) = STOP_WORDS.get(rank) {
        return (*stop).to_owned();
    }
    // Two syllables or more, unique per rank: its digits in base 50, at least two of them.
    let mut n = rank - STOP_WORDS.len() + SYLLABLES.len();
    let mut word = String::new();
    while n > 0 {
        word.push_str(SYLLABLES[n % SYLLABLES.len()]);
        n /= SYLLABLES.len();
    }
    word
}

/// Zipf (s = 1) over the vocabulary's ranks.
struct Zipf {
    cdf: Vec<f64>,
}

impl Zipf {
    fn new(n: usize) -> Zipf {
        let mut cdf = Vec::with_capacity(n);
        let mut sum = 0.0;
        for rank in 0..n {
            sum += 1.0 / (rank as f64 + 1.0);
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Zipf { cdf }
    }

    fn draw(&self, rng: &mut Rng) -> usize {
        let u = rng.unit();
        self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1)
    }
}

/// A page of about `words` words: sentences of 6–22 words, the first capitalised, a full stop at
/// the end.
fn page_text(rng: &mut Rng, zipf: &Zipf, words: &[String], count: usize) -> String {
    let mut text = String::with_capacity(count * 7);
    let mut written = 0;
    while written < count {
        let length = 6 + rng.below(17);
        for i in 0..length {
            let w = &words[zipf.draw(rng)];
            if i == 0 {
                let mut chars = w.chars();
                if let Some(first) = chars.next() {
                    text.extend(first.to_uppercase());
                    text.push_str(chars.as_str());
                }
            } else {
                text.push(' ');
                text.push_str(w);
            }
        }
        text.push_str(". ");
        written += length;
    }
    text
}

fn unit_vector(rng: &mut Rng) -> Vec<f32> {
    let v: Vec<f32> = (0..DIM)
        .map(|_| (rng.unit() + rng.unit() + rng.unit() - 1.5) as f32)
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / norm).collect()
}

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

/// Carries out the host's actions as a perfect worker would: the model embeds at once (random
/// vectors), writes succeed. Returns the records written.
fn serve(host: &mut ContentHost, actions: Vec<Action>, rng: &mut Rng) -> Vec<StoredRecord> {
    let mut written = Vec::new();
    let mut queue = actions;
    while let Some(action) = queue.pop() {
        let next = match action {
            Action::Embed { batch, texts } => {
                let vectors = texts.iter().map(|_| unit_vector(rng)).collect();
                host.handle(Event::Embedded { batch, vectors })
            }
            Action::Save { batch, records } => {
                written.extend(records);
                host.handle(Event::Saved { batch })
            }
            _ => Vec::new(),
        };
        queue.extend(next);
    }
    written
}

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let pages = args.first().copied().unwrap_or(10_000);
    let words_per_page = args.get(1).copied().unwrap_or(1_000);
    let mut rng = Rng(0x5eed_cafe_f00d);
    let zipf = Zipf::new(VOCABULARY);
    let words: Vec<String> = (0..VOCABULARY).map(word).collect();

    // What a page costs in storage (the record as written once embedded), and what reading one
    // costs step by step, on a sample.
    let mut sizes = Sizes::default();
    let mut scratch = history_chat_core::content::Lexical::new();
    for i in 0..200 {
        let text = page_text(&mut rng, &zipf, &words, words_per_page);
        let page = sizes.add(&text, &mut rng);
        let started = Instant::now();
        scratch.insert(&format!("https://s.example/{i}"), &page.text, &page.spans);
        sizes.index += started.elapsed();
    }

    // 10,000 pages read through the host.
    let rss_before = rss_bytes();
    let mut host = ContentHost::new();
    host.handle(Event::Start { enabled: true });
    host.handle(Event::StoreLoaded {
        records: Vec::new(),
        done: true,
    });
    let mut sample: Vec<StoredRecord> = Vec::new();
    let mut read_time = Duration::ZERO;
    let mut stored_bytes = 0usize;
    for i in 0..pages {
        let text = page_text(&mut rng, &zipf, &words, words_per_page);
        let page = ReadPage {
            url: format!("https://site{}.example/doc/{i:08x}", i % 500),
            title: "Notes".to_owned(),
            text,
            ticket: host.ticket(),
        };
        let started = Instant::now();
        let actions = host.handle(Event::Read {
            page,
            now_ms: NOW_MS + i as i64,
        });
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
    let questions: Vec<Question> = (0..QUESTIONS)
        .map(|_| {
            let n = 1 + rng.below(3);
            let text: Vec<&str> = (0..n)
                .map(|_| words[50 + rng.below(50_000 - 50)].as_str())
                .collect();
            (text.join(" "), unit_vector(&mut rng))
        })
        .collect();
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
        "`ContentHost::search` (both, RRF, 10 snippets)",
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
            read_ms: NOW_MS,
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
