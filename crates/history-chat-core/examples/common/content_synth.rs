//! Synthetic read pages and questions for the content store, shared by `content_bench` (native)
//! and the `history-chat-wasm-bench` crate's `ContentBench` (WebAssembly, timed in Chromium), so
//! that both measure the same data.
//!
//! Pages: sentences of 6–22 words drawn from a Zipf distribution (s = 1) over a vocabulary of
//! 200,000 words: 40 real English stop words at the head, then pronounceable generated words.
//! They are read through the real [`ContentHost`]; its passages are embedded with pseudo-random
//! unit vectors standing in for the model's ([`serve`]). Questions: 1 to 3 words drawn from the
//! vocabulary's ranks 50–50,000, each with a random unit vector.

use history_chat_core::content::ContentHost;
use history_chat_core::content::ReadPage;
use history_chat_core::content::host::{Action, Event, StoredRecord};
use history_chat_core::semantic::DIM;

/// The pages' read time (any fixed instant: nothing here depends on it).
pub const NOW_MS: i64 = 1_780_000_000_000;
/// The seed of the pages read and of the questions (`Rng(SEED)`).
pub const SEED: u64 = 0x5eed_cafe_f00d;
/// Distinct words drawn from: 10 M words of English hold 100,000 to 300,000.
pub const VOCABULARY: usize = 200_000;
/// Questions timed: enough for a stable 95th percentile.
pub const QUESTIONS: usize = 200;
/// A question: its words and its vector.
pub type Question = (String, Vec<f32>);

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
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub fn below(&mut self, n: usize) -> usize {
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

/// The vocabulary and its Zipf (s = 1) distribution over ranks.
pub struct Synth {
    cdf: Vec<f64>,
    words: Vec<String>,
}

impl Default for Synth {
    fn default() -> Self {
        Self::new()
    }
}

impl Synth {
    pub fn new() -> Synth {
        let mut cdf = Vec::with_capacity(VOCABULARY);
        let mut sum = 0.0;
        for rank in 0..VOCABULARY {
            sum += 1.0 / (rank as f64 + 1.0);
            cdf.push(sum);
        }
        for c in &mut cdf {
            *c /= sum;
        }
        Synth {
            cdf,
            words: (0..VOCABULARY).map(word).collect(),
        }
    }

    fn draw(&self, rng: &mut Rng) -> &str {
        let u = rng.unit();
        let rank = self.cdf.partition_point(|&c| c < u).min(self.cdf.len() - 1);
        &self.words[rank]
    }

    /// A page of about `count` words: sentences of 6–22 words, the first capitalised, a full
    /// stop at the end.
    pub fn page_text(&self, rng: &mut Rng, count: usize) -> String {
        let mut text = String::with_capacity(count * 7);
        let mut written = 0;
        while written < count {
            let length = 6 + rng.below(17);
            for i in 0..length {
                let w = self.draw(rng);
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

    /// `count` questions of 1 to 3 words from the vocabulary's ranks 50–50,000 (common to rare
    /// words; the stop words at the head would be dropped), each with a random unit vector.
    pub fn questions(&self, rng: &mut Rng, count: usize) -> Vec<Question> {
        (0..count)
            .map(|_| {
                let n = 1 + rng.below(3);
                let text: Vec<&str> = (0..n)
                    .map(|_| self.words[50 + rng.below(50_000 - 50)].as_str())
                    .collect();
                (text.join(" "), unit_vector(rng))
            })
            .collect()
    }
}

/// The `i`-th page of a reading, `text` at a URL of one of 500 sites, as the reader hands it to
/// the host.
pub fn read(host: &ContentHost, i: usize, text: String) -> Event {
    Event::Read {
        page: ReadPage {
            url: format!("https://site{}.example/doc/{i:08x}", i % 500),
            title: "Notes".to_owned(),
            text,
            ticket: host.ticket(),
        },
        now_ms: NOW_MS + i as i64,
    }
}

/// A started host, its (empty) store loaded: ready to read pages.
pub fn started_host() -> ContentHost {
    let mut host = ContentHost::new();
    host.handle(Event::Start { enabled: true });
    host.handle(Event::StoreLoaded {
        records: Vec::new(),
        done: true,
    });
    host
}

pub fn unit_vector(rng: &mut Rng) -> Vec<f32> {
    let v: Vec<f32> = (0..DIM)
        .map(|_| (rng.unit() + rng.unit() + rng.unit() - 1.5) as f32)
        .collect();
    let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    v.into_iter().map(|x| x / norm).collect()
}

/// Carries out the host's actions as a perfect worker would: the model embeds at once (random
/// vectors), writes succeed. Returns the records written.
pub fn serve(host: &mut ContentHost, actions: Vec<Action>, rng: &mut Rng) -> Vec<StoredRecord> {
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
