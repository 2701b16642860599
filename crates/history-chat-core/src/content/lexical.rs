//! What pages said, searched by its words: BM25 over the pages' passages.
//!
//! Words are what the page index reads: [`crate::index::text`]'s folding (accents, case,
//! ligatures), whole words, its English and French stop words dropped. The vocabulary holds words
//! as they were folded, not their stems (`running`, `runs`), and a question's word matches every
//! word sharing its English or French stem, found at question time in the sorted vocabulary as
//! the page index does it (`crate::index`'s `same_stem`: Snowball only rewrites a word's end):
//! one posting per word and passage, not one per stem, and nothing is stemmed while a page is
//! indexed. A question's word and the words sharing its stem count as one term (their
//! frequencies added, their passage counts added): what indexing stems would give.
//!
//! **Scoring**: BM25 ([`K1`], [`B`]) with each passage as a document: a passage's score is the
//! sum over the question's words of `idf × tf (k1 + 1) / (tf + k1 (1 − b + b · len / avg))`, with
//! `idf = ln(1 + (N − df + 0.5) / (df + 0.5))` over all passages of all pages — so a word found in
//! nearly every passage (a site's menu read into every page, "cookie") counts for almost nothing.
//! A page's score is its best passage's.
//!
//! **Memory**: a term's postings are one `Vec<u8>`: for each passage holding it, the gap from the
//! previous passage's id and the term's frequency in it, as one varint (`gap × 4 + min(tf, 4) −
//! 1`, then `tf − 4` as another varint when `tf ≥ 4`). Passage ids only grow as pages are added,
//! so a posting is one byte when the word is common (small gaps) and two or three when it is rare.
//! 10,000 pages of 1,000 words: see the `content_bench` example for the figures.
//!
//! **Removal**: a page's passages are marked dead (their postings stay, skipped by every search)
//! and the index is compacted — postings rewritten without the dead passages, ids renumbered,
//! words no passage holds dropped — once dead passages are a third of all and at least
//! [`COMPACT_MIN_DEAD`]. Adding a page again replaces it (its old passages die). Until a
//! compaction, the dead passages still count in `N` and in the words' `df`: a word's weight is off
//! by at most the third of the passages that died, the same for every page.

use std::hash::{Hash, Hasher};

use rustc_hash::{FxHashMap as HashMap, FxHasher};

use super::passages::Span;
use crate::index::score::{
    MAX_QUERY_WORDS, MAX_STEM_CANDIDATES, MAX_SUFFIX_BYTES, STEM_PREFIX_MIN_CHARS,
};
use crate::index::text::{Parts, Scratch, Stemmers, fold_words_with, query_words};
use crate::site_filter::SiteFilter;

/// BM25's term-frequency saturation: the usual 1.2. A passage is short (about 120 words), so a
/// word said three times in it is about as telling as five times.
pub const K1: f32 = 1.2;

/// BM25's length normalisation: the usual 0.75. Passages are cut to about the same length; the
/// last passage of a page and those of short pages are shorter, and a word in them weighs a
/// little more.
pub const B: f32 = 0.75;

/// Compaction waits for at least this many dead passages (about 400 pages' worth): rewriting the
/// postings costs one pass over all of them, too much to repeat for each small removal.
pub const COMPACT_MIN_DEAD: usize = 4_096;

/// A passage of no page (removed, or replaced).
const DEAD: u32 = u32::MAX;

/// A term's postings grow by a quarter of their length (at least [`POSTINGS_MIN_GROWTH`] bytes)
/// when full, rather than doubling: doubling left 30 % of the postings' memory unused at 10,000
/// pages (19.7 MB held for 13.7 MB of postings), a quarter about 12 %, for a copy of a list every
/// quarter of its growth instead of every doubling — a few bytes a posting over the reading.
const POSTINGS_GROWTH_DIVISOR: usize = 4;

/// The least a term's postings grow by: most words are in a few dozen passages (a posting is 1
/// to 3 bytes), and a list of a few bytes grown a byte at a time would be copied at every passage.
const POSTINGS_MIN_GROWTH: usize = 8;

/// One word's occurrences (see the [module docs](self) for the encoding).
#[derive(Debug, Clone, Default)]
struct Term {
    postings: Vec<u8>,
    /// The last passage appended (the next gap is from it).
    last: u32,
    /// Passages holding the word (dead ones included until a compaction).
    df: u32,
}

impl Term {
    fn push(&mut self, passage: u32, tf: u32) {
        let gap = passage
            - if self.postings.is_empty() {
                0
            } else {
                self.last
            };
        let code = u64::from(gap) * 4 + u64::from(tf.clamp(1, 4) - 1);
        let mut bytes = [0u8; 2 * MAX_VARINT_BYTES];
        let mut end = put_varint(&mut bytes, 0, code);
        if tf >= 4 {
            end = put_varint(&mut bytes, end, u64::from(tf - 4));
        }
        let bytes = &bytes[..end];
        if self.postings.capacity() - self.postings.len() < bytes.len() {
            let grow = (self.postings.len() / POSTINGS_GROWTH_DIVISOR)
                .max(POSTINGS_MIN_GROWTH)
                .max(bytes.len());
            self.postings.reserve_exact(grow);
        }
        self.postings.extend_from_slice(bytes);
        self.last = passage;
        self.df += 1;
    }

    fn postings(&self) -> Postings<'_> {
        Postings {
            bytes: &self.postings,
            passage: 0,
        }
    }
}

/// Bytes of a `u64` as a varint, at most.
const MAX_VARINT_BYTES: usize = 10;

/// Writes `value` as a varint into `out` from `at`; where it ends. `out` holds
/// [`MAX_VARINT_BYTES`] from `at`.
fn put_varint(out: &mut [u8], mut at: usize, mut value: u64) -> usize {
    while value >= 0x80 {
        if let Some(byte) = out.get_mut(at) {
            *byte = (value as u8) | 0x80;
        }
        at += 1;
        value >>= 7;
    }
    if let Some(byte) = out.get_mut(at) {
        *byte = value as u8;
    }
    at + 1
}

/// The `(passage, tf)` pairs of a term, in passage order.
struct Postings<'a> {
    bytes: &'a [u8],
    passage: u32,
}

impl Postings<'_> {
    fn varint(&mut self) -> Option<u64> {
        let mut value = 0u64;
        for shift in (0..64).step_by(7) {
            let (&byte, rest) = self.bytes.split_first()?;
            self.bytes = rest;
            value |= u64::from(byte & 0x7f) << shift;
            if byte < 0x80 {
                return Some(value);
            }
        }
        None
    }
}

impl Iterator for Postings<'_> {
    type Item = (u32, u32);

    fn next(&mut self) -> Option<(u32, u32)> {
        let code = self.varint()?;
        let mut tf = (code % 4) as u32 + 1;
        if tf == 4 {
            tf += self.varint()? as u32;
        }
        self.passage = self.passage.wrapping_add((code / 4) as u32);
        Some((self.passage, tf))
    }
}

/// The words of the passages: one string holding them all, one end offset a word, and a table
/// of word ids found by the word's hash — no allocation per word (a `Box<str>` key and a second
/// copy for the sorted order cost about 80 bytes a word: 16 MB for the 200,000 words of 10,000
/// pages).
///
/// The table is open addressing with linear probing: a slot holds a word's id + 1 (0: empty), a
/// word's first slot is the top bits of its hash, and a lookup walks on from it until it finds the
/// word (compared by its text) or an empty slot. It is kept at most half full (about 1.5 slots
/// read to find a word, 2.5 to miss one) and doubles when it would pass that: 4 bytes a slot, 8
/// to 16 a word, where a map from the 64-bit hash to the id took 34 a word at hashbrown's
/// load (4.5 MB at 200,000 words, and a second map for the words whose hashes collided). Words
/// are never removed from it: a compaction builds a new vocabulary.
#[derive(Debug, Clone, Default)]
struct Vocabulary {
    text: String,
    /// Word `t` is `text[ends[t - 1]..ends[t]]` (from 0 for the first).
    ends: Vec<u32>,
    /// The table: a power of two slots (or none), each a word's id + 1 or 0.
    slots: Vec<u32>,
}

/// The vocabulary's table starts with this many slots.
const VOCABULARY_MIN_SLOTS: usize = 1_024;

impl Vocabulary {
    fn len(&self) -> usize {
        self.ends.len()
    }

    fn word(&self, id: u32) -> &str {
        let i = id as usize;
        let start = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        self.text.get(start..self.ends[i] as usize).unwrap_or("")
    }

    fn hash(word: &str) -> u64 {
        let mut hasher = FxHasher::default();
        word.hash(&mut hasher);
        // Fibonacci hashing: the slot is taken from the top bits, which this mixes from all.
        hasher.finish().wrapping_mul(0x9e37_79b9_7f4a_7c15)
    }

    /// The first slot of a word of hash `hash` in a table of `slots` (a power of two) slots.
    fn home(hash: u64, slots: usize) -> usize {
        let bits = slots.trailing_zeros();
        if bits == 0 {
            0
        } else {
            (hash >> (64 - bits)) as usize
        }
    }

    fn get(&self, word: &str) -> Option<u32> {
        let mask = self.slots.len().checked_sub(1)?;
        let mut at = Self::home(Self::hash(word), self.slots.len());
        // The table is at most half full: an empty slot ends every walk.
        for _ in 0..self.slots.len() {
            match self.slots[at] {
                0 => return None,
                taken if self.word(taken - 1) == word => return Some(taken - 1),
                _ => at = (at + 1) & mask,
            }
        }
        None
    }

    /// Puts word `id` in the first empty slot of its walk (the table has one).
    fn place(slots: &mut [u32], id: u32, hash: u64) {
        let mask = slots.len() - 1;
        let mut at = Self::home(hash, slots.len());
        while slots[at] != 0 {
            at = (at + 1) & mask;
        }
        slots[at] = id + 1;
    }

    /// `word`'s id, added when new (`true`).
    fn insert(&mut self, word: &str) -> (u32, bool) {
        if let Some(id) = self.get(word) {
            return (id, false);
        }
        let id = self.ends.len() as u32;
        self.text.push_str(word);
        self.ends.push(self.text.len() as u32);
        if self.ends.len() * 2 > self.slots.len() {
            // Doubled (and every word placed again) before it is more than half full.
            let size = (self.slots.len() * 2).max(VOCABULARY_MIN_SLOTS);
            let mut slots = vec![0u32; size];
            for old in 0..id {
                Self::place(&mut slots, old, Self::hash(self.word(old)));
            }
            self.slots = slots;
        }
        Self::place(&mut self.slots, id, Self::hash(word));
        (id, true)
    }

    fn heap_bytes(&self) -> usize {
        self.text.capacity() + self.ends.capacity() * 4 + self.slots.capacity() * 4
    }
}

/// A page's passages: ids `first .. first + count`.
#[derive(Debug, Clone)]
struct PageEntry {
    url: Box<str>,
    first: u32,
    count: u16,
}

/// A page found by its words.
#[derive(Debug, Clone, PartialEq)]
pub struct LexicalHit {
    /// The page's cleaned URL.
    pub url: String,
    /// Its best passage: an index into the spans it was added with.
    pub passage: u16,
    /// That passage's BM25 score (higher is better; comparable within one answer only).
    pub score: f32,
}

/// BM25 over the passages of the pages read. See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct Lexical {
    /// Term id ↔ word.
    vocabulary: Vocabulary,
    terms: Vec<Term>,
    /// Term ids sorted by word, but for `unsorted`.
    sorted: Vec<u32>,
    /// Term ids added since [`Lexical::settle`].
    unsorted: Vec<u32>,
    /// Passage id → its page's slot, or [`DEAD`].
    owner: Vec<u32>,
    /// Passage id → its words (stop words aside).
    lens: Vec<u16>,
    live_passages: usize,
    live_words: u64,
    dead: usize,
    pages: Vec<Option<PageEntry>>,
    free: Vec<u32>,
    by_url: HashMap<Box<str>, u32>,
}

impl Lexical {
    /// No page.
    pub fn new() -> Lexical {
        Lexical::default()
    }

    /// Pages held.
    pub fn len(&self) -> usize {
        self.by_url.len()
    }

    /// Whether no page is held.
    pub fn is_empty(&self) -> bool {
        self.by_url.is_empty()
    }

    /// Passages held (of live pages).
    pub fn passages(&self) -> usize {
        self.live_passages
    }

    /// Whether `url` is held.
    pub fn contains(&self, url: &str) -> bool {
        self.by_url.contains_key(url)
    }

    /// Forgets everything.
    pub fn clear(&mut self) {
        *self = Lexical::default();
    }

    /// Indexes `url`'s passages (`spans` of `text`, [`super::cut`]'s), replacing what was held
    /// for it. A span that is not a range of `text` is an empty passage. Words new to the
    /// vocabulary are sorted into it by [`Lexical::settle`]; searches find them before that too.
    pub fn insert(&mut self, url: &str, text: &str, spans: &[Span]) {
        self.remove(url);
        let count = spans.len().min(usize::from(u16::MAX));
        let Ok(first) = u32::try_from(self.owner.len()) else {
            return;
        };
        if u64::from(first) + count as u64 >= u64::from(DEAD) {
            // Four billion passages: compact first (renumbers from 0).
            self.compact();
            return self.insert(url, text, spans);
        }
        let slot = match self.free.pop() {
            Some(slot) => slot,
            None => {
                self.pages.push(None);
                (self.pages.len() - 1) as u32
            }
        };
        let mut scratch = Scratch::default();
        let mut words: Vec<u32> = Vec::new();
        for (i, span) in spans[..count].iter().enumerate() {
            let passage = first + i as u32;
            words.clear();
            let piece = text.get(span.range()).unwrap_or("");
            fold_words_with(&mut scratch, piece, Parts::Whole, |word| {
                let (id, new) = self.vocabulary.insert(word);
                if new {
                    self.terms.push(Term::default());
                    self.unsorted.push(id);
                }
                words.push(id);
            });
            let len = words.len();
            words.sort_unstable();
            let mut at = 0;
            while at < words.len() {
                let term = words[at];
                let run = words[at..].iter().take_while(|&&t| t == term).count();
                self.terms[term as usize].push(passage, run as u32);
                at += run;
            }
            self.owner.push(slot);
            self.lens.push(u16::try_from(len).unwrap_or(u16::MAX));
            self.live_words += len as u64;
        }
        self.live_passages += count;
        self.pages[slot as usize] = Some(PageEntry {
            url: url.into(),
            first,
            count: count as u16,
        });
        self.by_url.insert(url.into(), slot);
    }

    /// Forgets `url`'s passages; whether it was held. May compact (see the [module docs](self)).
    pub fn remove(&mut self, url: &str) -> bool {
        let Some(slot) = self.by_url.remove(url) else {
            return false;
        };
        if let Some(page) = self.pages[slot as usize].take() {
            for passage in page.first..page.first + u32::from(page.count) {
                let i = passage as usize;
                self.owner[i] = DEAD;
                self.live_words -= u64::from(self.lens[i]);
            }
            self.live_passages -= usize::from(page.count);
            self.dead += usize::from(page.count);
        }
        self.free.push(slot);
        if self.dead >= COMPACT_MIN_DEAD && self.dead * 3 >= self.owner.len() {
            self.compact();
        }
        true
    }

    /// Sorts the words added since the last call into the vocabulary: each new word's place is
    /// found by a binary search, then the sorted ids are moved once — `k log V` comparisons of
    /// words for `k` new words, not `V`. The content host calls it once an event is handled, so a
    /// chunk of stored pages costs one move of the vocabulary, not one per page.
    pub fn settle(&mut self) {
        if self.unsorted.is_empty() {
            return;
        }
        let words = &self.vocabulary;
        let mut new = std::mem::take(&mut self.unsorted);
        new.sort_unstable_by(|&a, &b| words.word(a).cmp(words.word(b)));
        let old = std::mem::take(&mut self.sorted);
        let mut merged = Vec::with_capacity(old.len() + new.len());
        let mut from = 0;
        for id in new {
            let text = words.word(id);
            let at = from + old[from..].partition_point(|&o| words.word(o) <= text);
            merged.extend_from_slice(&old[from..at]);
            merged.push(id);
            from = at;
        }
        merged.extend_from_slice(&old[from..]);
        self.sorted = merged;
    }

    /// Rewrites the postings without the dead passages, renumbers the passages, drops the words
    /// no passage holds any more and gives unused memory back. One pass over every posting.
    pub fn compact(&mut self) {
        self.settle();
        let mut renumbered = vec![DEAD; self.owner.len()];
        let mut next = 0u32;
        for (passage, &owner) in self.owner.iter().enumerate() {
            if owner != DEAD {
                renumbered[passage] = next;
                next += 1;
            }
        }
        let mut kept_terms = vec![DEAD; self.terms.len()];
        let mut terms = Vec::new();
        let mut vocabulary = Vocabulary::default();
        for (id, term) in std::mem::take(&mut self.terms).into_iter().enumerate() {
            let mut fresh = Term::default();
            for (passage, tf) in term.postings() {
                let new = renumbered.get(passage as usize).copied().unwrap_or(DEAD);
                if new != DEAD {
                    fresh.push(new, tf);
                }
            }
            if fresh.df > 0 {
                fresh.postings.shrink_to_fit();
                kept_terms[id] = terms.len() as u32;
                terms.push(fresh);
                vocabulary.insert(self.vocabulary.word(id as u32));
            }
        }
        vocabulary.text.shrink_to_fit();
        vocabulary.ends.shrink_to_fit();
        self.terms = terms;
        self.vocabulary = vocabulary;
        self.sorted = self
            .sorted
            .iter()
            .map(|&t| kept_terms[t as usize])
            .filter(|&t| t != DEAD)
            .collect();
        let mut owner = Vec::with_capacity(next as usize);
        let mut lens = Vec::with_capacity(next as usize);
        for (passage, &page) in self.owner.iter().enumerate() {
            if page != DEAD {
                owner.push(page);
                lens.push(self.lens[passage]);
            }
        }
        for page in self.pages.iter_mut().flatten() {
            page.first = renumbered[page.first as usize];
        }
        self.owner = owner;
        self.lens = lens;
        self.dead = 0;
    }

    /// The pages `sites` allows whose passages hold any of `query`'s words (folded, stop words
    /// dropped, [`MAX_QUERY_WORDS`] at most; each matching the words sharing its stem), best
    /// first, at most `limit`, each with its best passage. Ties: by URL, so answers are stable.
    pub fn search(&self, query: &str, sites: &SiteFilter, limit: usize) -> Vec<LexicalHit> {
        if limit == 0 || self.live_passages == 0 {
            return Vec::new();
        }
        let mut words = query_words(query);
        let mut seen = std::collections::HashSet::new();
        words.retain(|w| seen.insert(w.clone()));
        words.truncate(MAX_QUERY_WORDS);
        let stemmers = Stemmers::default();
        let n = self.owner.len();
        let all = n as f32;
        let average = self.live_words as f32 / self.live_passages as f32;
        let average = average.max(1.0);
        let mut scores = vec![0.0f32; n];
        let mut scored: Vec<u32> = Vec::new();
        let mut tfs = vec![0u32; n];
        let mut touched: Vec<u32> = Vec::new();
        for word in &words {
            let variants = self.variants(word, &stemmers);
            let df: u64 = variants
                .iter()
                .map(|&t| u64::from(self.terms[t as usize].df))
                .sum();
            if df == 0 {
                continue;
            }
            let df = (df as f32).min(all);
            let idf = (1.0 + (all - df + 0.5) / (df + 0.5)).ln();
            for &term in &variants {
                for (passage, tf) in self.terms[term as usize].postings() {
                    let Some(slot) = tfs.get_mut(passage as usize) else {
                        continue;
                    };
                    if *slot == 0 {
                        touched.push(passage);
                    }
                    *slot += tf;
                }
            }
            for passage in touched.drain(..) {
                let i = passage as usize;
                let tf = std::mem::take(&mut tfs[i]) as f32;
                if self.owner[i] == DEAD {
                    continue;
                }
                let len = f32::from(self.lens[i]);
                let gain = idf * tf * (K1 + 1.0) / (tf + K1 * (1.0 - B + B * len / average));
                if scores[i] == 0.0 {
                    scored.push(passage);
                }
                scores[i] += gain;
            }
        }
        // The best passage of each page the filter allows.
        let mut best: HashMap<u32, (f32, u32)> = HashMap::default();
        let mut allowed: HashMap<u32, bool> = HashMap::default();
        for passage in scored {
            let score = scores[passage as usize];
            let slot = self.owner[passage as usize];
            let Some(page) = &self.pages[slot as usize] else {
                continue;
            };
            if !*allowed
                .entry(slot)
                .or_insert_with(|| sites.allows(&page.url))
            {
                continue;
            }
            let entry = best.entry(slot).or_insert((score, passage));
            if score > entry.0 || (score == entry.0 && passage < entry.1) {
                *entry = (score, passage);
            }
        }
        let mut hits: Vec<LexicalHit> = best
            .into_iter()
            .filter_map(|(slot, (score, passage))| {
                let page = self.pages[slot as usize].as_ref()?;
                Some(LexicalHit {
                    url: page.url.to_string(),
                    passage: (passage - page.first) as u16,
                    score,
                })
            })
            .collect();
        hits.sort_by(|a, b| b.score.total_cmp(&a.score).then_with(|| a.url.cmp(&b.url)));
        hits.truncate(limit);
        hits
    }

    /// The terms a question's (folded) word matches: itself and the words sharing its English or
    /// French stem.
    fn variants(&self, word: &str, stemmers: &Stemmers) -> Vec<u32> {
        let mut found = self.same_stem(word, stemmers);
        if let Some(id) = self.vocabulary.get(word) {
            found.push(id);
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The words of the vocabulary sharing `word`'s English or French stem: those in the range
    /// of the sorted vocabulary that starts with the stem minus its last character (at most
    /// [`MAX_STEM_CANDIDATES`] a stem), and those not sorted yet, stemmed and compared —
    /// `crate::index`'s rule for titles, on the passages' vocabulary.
    fn same_stem(&self, word: &str, stemmers: &Stemmers) -> Vec<u32> {
        let stems = stemmers.stems(word);
        let mut candidates: Vec<u32> = Vec::new();
        for stem in &stems {
            let chars = stem.chars().count();
            let keep = chars
                .saturating_sub(1)
                .max(STEM_PREFIX_MIN_CHARS)
                .min(chars);
            let end = stem
                .char_indices()
                .nth(keep)
                .map_or(stem.len(), |(at, _)| at);
            let prefix = &stem[..end];
            let max_len = stem.len() + MAX_SUFFIX_BYTES;
            let words = &self.vocabulary;
            let fits = |t: u32| {
                let text = words.word(t);
                text.starts_with(prefix) && text.len() <= max_len
            };
            let from = self.sorted.partition_point(|&t| words.word(t) < prefix);
            candidates.extend(
                self.sorted[from..]
                    .iter()
                    .copied()
                    .take_while(|&t| words.word(t).starts_with(prefix))
                    .filter(|&t| fits(t))
                    .take(MAX_STEM_CANDIDATES),
            );
            candidates.extend(self.unsorted.iter().copied().filter(|&t| fits(t)));
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates.retain(|&t| {
            let text = self.vocabulary.word(t);
            text == word || stemmers.english(text) == stems[0] || stemmers.french(text) == stems[1]
        });
        candidates
    }

    /// Bytes on the heap, roughly: every vector and map at its capacity, every string once per
    /// copy; not the allocator's own overhead per allocation (the `content_bench` example also
    /// reports the process's resident memory).
    pub fn heap_bytes(&self) -> usize {
        let urls: usize = self.by_url.keys().map(|u| u.len()).sum();
        let postings: usize = self.terms.iter().map(|t| t.postings.capacity()).sum();
        let map = |capacity: usize, entry: usize| capacity * 8 / 7 * (entry + 1);
        self.vocabulary.heap_bytes()
            + self.terms.capacity() * size_of::<Term>()
            + postings
            + (self.sorted.capacity() + self.unsorted.capacity()) * 4
            + self.owner.capacity() * 4
            + self.lens.capacity() * 2
            + self.pages.capacity() * size_of::<Option<PageEntry>>()
            + self.free.capacity() * 4
            + map(self.by_url.capacity(), size_of::<(Box<str>, u32)>())
            + 2 * urls
    }

    /// Bytes of postings (at their length): the part that grows with the text read.
    pub fn postings_bytes(&self) -> usize {
        self.terms.iter().map(|t| t.postings.len()).sum()
    }

    /// Words in the vocabulary.
    pub fn vocabulary(&self) -> usize {
        self.vocabulary.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::passages::{Cut, CutRule, cut_with};
    use crate::site_filter;

    /// A cut where every passage is a sentence of the text ("a. b. c." → three passages), for
    /// exact control in tests: `text` is split on `|`.
    fn passages(parts: &[&str]) -> Cut {
        let text = parts.join(" ");
        let mut spans = Vec::new();
        let mut at = 0;
        for part in parts {
            spans.push(Span {
                start: at as u32,
                end: (at + part.len()) as u32,
            });
            at += part.len() + 1;
        }
        Cut {
            text,
            spans,
            embedded: Vec::new(),
        }
    }

    fn add(index: &mut Lexical, url: &str, parts: &[&str]) {
        let cut = passages(parts);
        index.insert(url, &cut.text, &cut.spans);
    }

    fn found(index: &Lexical, query: &str) -> Vec<(String, u16)> {
        index
            .search(query, &SiteFilter::default(), 10)
            .into_iter()
            .map(|h| (h.url, h.passage))
            .collect()
    }

    /// Every word is in the sorted vocabulary once settled, in order.
    fn assert_sorted(index: &Lexical) {
        assert!(index.unsorted.is_empty());
        assert_eq!(index.sorted.len(), index.terms.len());
        let texts: Vec<&str> = index
            .sorted
            .iter()
            .map(|&t| index.vocabulary.word(t))
            .collect();
        assert!(texts.windows(2).all(|w| w[0] < w[1]), "{texts:?}");
    }

    fn hit(url: &str, passage: u16) -> (String, u16) {
        (url.to_owned(), passage)
    }

    #[test]
    fn postings_round_trip_whatever_the_gaps_and_frequencies() {
        let rows: &[(u32, u32)] = &[
            (0, 1),
            (1, 3),
            (2, 4),
            (200, 5),
            (201, 300),
            (100_000, 1),
            (u32::MAX - 1, 2),
        ];
        let mut term = Term::default();
        for &(passage, tf) in rows {
            term.push(passage, tf);
        }
        assert_eq!(term.postings().collect::<Vec<_>>(), rows);
        assert_eq!(term.df, rows.len() as u32);
        // Common words cost a byte a passage.
        let mut common = Term::default();
        for passage in 0..1_000 {
            common.push(passage, 1 + passage % 3);
            // Grown by a quarter when full, not doubled.
            let (len, capacity) = (common.postings.len(), common.postings.capacity());
            assert!(
                capacity <= len + len / 4 + POSTINGS_MIN_GROWTH,
                "{len} {capacity}"
            );
        }
        assert_eq!(common.postings.len(), 1_000);
        // Truncated bytes end the list, without a panic.
        let cut = Postings {
            bytes: &[0x80, 0x80],
            passage: 0,
        };
        assert_eq!(cut.count(), 0);
    }

    #[test]
    fn every_word_is_found_by_its_text_whatever_its_slot() {
        let mut words = Vocabulary::default();
        assert_eq!(words.get("tulip"), None);
        // (word, id, new)
        let rows: &[(&str, u32, bool)] = &[
            ("tulip", 0, true),
            ("tulip", 0, false),
            ("rose", 1, true),
            ("", 2, true),
            ("orchid", 3, true),
            ("rose", 1, false),
            ("", 2, false),
        ];
        for &(word, id, new) in rows {
            assert_eq!(words.insert(word), (id, new), "{word}");
            assert_eq!(words.get(word), Some(id));
            assert_eq!(words.word(id), word);
        }
        assert_eq!((words.len(), words.get("lily")), (4, None));
        // Enough words that the table doubles many times and words share first slots: each is
        // found where its walk took it, and words never added are not.
        let mut words = Vocabulary::default();
        let many: Vec<String> = (0..20_000).map(|i| format!("w{i}")).collect();
        for (id, word) in many.iter().enumerate() {
            assert_eq!(words.insert(word), (id as u32, true));
        }
        assert!(words.slots.len() >= 2 * many.len() && words.slots.len().is_power_of_two());
        let away = (0..many.len() as u32)
            .filter(|&id| {
                let home =
                    Vocabulary::home(Vocabulary::hash(&many[id as usize]), words.slots.len());
                words.slots[home] != id + 1
            })
            .count();
        assert!(away > 1_000, "{away} words away from their first slot");
        for (id, word) in many.iter().enumerate() {
            assert_eq!(words.get(word), Some(id as u32), "{word}");
        }
        assert!((0..1_000).all(|i| words.get(&format!("x{i}")).is_none()));
    }

    #[test]
    fn a_page_is_found_by_its_words_with_its_best_passage() {
        let mut index = Lexical::new();
        add(
            &mut index,
            "https://a.example/",
            &[
                "Welcome to our site about gardens.",
                "The crème brûlée needs a blowtorch and patience.",
                "Running a marathon requires training.",
            ],
        );
        add(
            &mut index,
            "https://b.example/",
            &["Les chevaux courent dans le pré.", "Recipes for every day."],
        );
        type Row<'a> = (&'a str, &'a [(&'a str, u16)]);
        let rows: &[Row] = &[
            ("brulee", &[("https://a.example/", 1)]),
            ("BRÛLÉE blowtorch", &[("https://a.example/", 1)]),
            ("run", &[("https://a.example/", 2)]),
            ("marathons", &[("https://a.example/", 2)]),
            ("cheval", &[("https://b.example/", 0)]),
            ("recipe", &[("https://b.example/", 1)]),
            ("the and of", &[]),
            ("", &[]),
            ("nowhere", &[]),
        ];
        for (query, want) in rows {
            let want: Vec<(String, u16)> = want.iter().map(|&(u, p)| hit(u, p)).collect();
            assert_eq!(found(&index, query), want, "{query}");
        }
        assert!(index.search("brulee", &SiteFilter::default(), 0).is_empty());
        // Settled or not, the same answers.
        let before = found(&index, "run recipes cheval");
        index.settle();
        assert_sorted(&index);
        assert_eq!(found(&index, "run recipes cheval"), before);
        // Words added later are merged in their places.
        add(
            &mut index,
            "https://c.example/",
            &["Zebras and aardvarks run to the marathon."],
        );
        index.settle();
        assert_sorted(&index);
        assert_eq!(before.len(), 2);
    }

    #[test]
    fn a_word_in_every_passage_counts_little_and_more_words_matched_rank_first() {
        let mut index = Lexical::new();
        for i in 0..20 {
            let url = format!("https://menu{i}.example/");
            add(
                &mut index,
                &url,
                &["Accept cookies settings", "cookies privacy notes"],
            );
        }
        add(
            &mut index,
            "https://rare.example/",
            &["Accept cookies", "The sourdough starter needs flour."],
        );
        add(
            &mut index,
            "https://many.example/",
            &["cookies cookies cookies cookies cookies cookies"],
        );
        let hits = index.search("cookies sourdough", &SiteFilter::default(), 30);
        assert_eq!(hits[0].url, "https://rare.example/");
        assert_eq!(hits[0].passage, 1);
        // The word in every page barely scores, however often it is said.
        let many = hits
            .iter()
            .find(|h| h.url == "https://many.example/")
            .unwrap();
        assert!(
            many.score < hits[0].score / 5.0,
            "{} vs {}",
            many.score,
            hits[0].score
        );
        assert_eq!(hits.len(), 22);
        assert!(hits.windows(2).all(|w| w[0].score >= w[1].score));
    }

    #[test]
    fn site_filters_keep_their_pages() {
        let mut index = Lexical::new();
        for url in [
            "https://github.com/a",
            "https://gist.github.com/b",
            "https://blog.example/c",
        ] {
            add(&mut index, url, &["recursive queries with cycles"]);
        }
        let rows: &[(&str, &[&str])] = &[
            (
                "site:github.com",
                &["https://gist.github.com/b", "https://github.com/a"],
            ),
            ("-site:github.com", &["https://blog.example/c"]),
            ("site:nowhere.example", &[]),
        ];
        for (filter, want) in rows {
            let sites = site_filter::parse(filter).filter;
            let urls: Vec<String> = index
                .search("cycles", &sites, 10)
                .into_iter()
                .map(|h| h.url)
                .collect();
            assert_eq!(urls, *want, "{filter}");
        }
    }

    #[test]
    fn adding_a_page_again_replaces_it_and_removing_forgets_it() {
        let mut index = Lexical::new();
        add(
            &mut index,
            "https://a.example/",
            &["old words about tulips"],
        );
        add(&mut index, "https://b.example/", &["tulips and roses"]);
        add(
            &mut index,
            "https://a.example/",
            &["new words", "about orchids"],
        );
        assert_eq!((index.len(), index.passages()), (2, 3));
        assert_eq!(found(&index, "tulips"), [hit("https://b.example/", 0)]);
        assert_eq!(found(&index, "orchids"), [hit("https://a.example/", 1)]);
        assert!(index.remove("https://a.example/"));
        assert!(!index.remove("https://a.example/"));
        assert!(found(&index, "orchids").is_empty());
        assert_eq!((index.len(), index.passages()), (1, 1));
        assert!(index.contains("https://b.example/") && !index.contains("https://a.example/"));
        index.clear();
        assert!(index.is_empty() && found(&index, "tulips").is_empty());
    }

    /// Synthetic page `i`: passages of words drawn from a small vocabulary, so words repeat
    /// across pages with varied frequencies.
    fn synthetic(i: usize) -> Cut {
        let vocabulary = [
            "garden", "tomato", "python", "rust", "compiler", "bread", "flour", "marathon",
            "training", "chevaux", "recette", "lexical", "vector", "passage", "snippet",
        ];
        let words: Vec<&str> = (0..150)
            .map(|j| vocabulary[(i * 7 + j * j * 3 + j / 5) % vocabulary.len()])
            .collect();
        let rule = CutRule {
            passage_words: 50,
            overlap_words: 10,
            min_words: 1,
            ..CutRule::SHIPPED
        };
        cut_with(&words.join(" "), &rule)
    }

    #[test]
    fn a_compacted_index_answers_as_one_built_with_the_pages_left() {
        let mut index = Lexical::new();
        let pages = 4_000;
        for i in 0..pages {
            let cut = synthetic(i);
            index.insert(&format!("https://p{i}.example/"), &cut.text, &cut.spans);
        }
        let total = index.passages();
        // Remove every other page, and replace every seventh: enough dead passages to compact.
        let mut left = Vec::new();
        for i in 0..pages {
            let url = format!("https://p{i}.example/");
            if i % 2 == 0 {
                index.remove(&url);
            } else {
                left.push(i);
            }
        }
        assert!(index.owner.len() < total, "compacted on the way");
        assert!(index.dead > 0 && index.dead < COMPACT_MIN_DEAD);
        for &i in left.iter().filter(|&&i| i % 7 == 0) {
            let cut = synthetic(i + 1);
            index.insert(&format!("https://p{i}.example/"), &cut.text, &cut.spans);
        }
        index.compact();
        assert_eq!((index.dead, index.owner.len()), (0, index.passages()));
        assert_sorted(&index);
        let mut fresh = Lexical::new();
        for &i in &left {
            if i % 7 != 0 {
                let cut = synthetic(i);
                fresh.insert(&format!("https://p{i}.example/"), &cut.text, &cut.spans);
            }
        }
        for &i in left.iter().filter(|&&i| i % 7 == 0) {
            let cut = synthetic(i + 1);
            fresh.insert(&format!("https://p{i}.example/"), &cut.text, &cut.spans);
        }
        assert_eq!(index.passages(), fresh.passages());
        assert_eq!(index.vocabulary(), fresh.vocabulary());
        assert_eq!(index.postings_bytes(), fresh.postings_bytes());
        for query in [
            "garden",
            "rust compiler",
            "chevaux recette",
            "vectors passages",
        ] {
            assert_eq!(
                index.search(query, &SiteFilter::default(), 50),
                fresh.search(query, &SiteFilter::default(), 50),
                "{query}"
            );
        }
    }
}
