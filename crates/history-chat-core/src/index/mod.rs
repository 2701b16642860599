//! A local full-text index of the whole history: find a page from the words you remember, as you
//! type, without a key and without the network.
//!
//! `chrome.history.search` only finds pages whose title or URL contain every query word as typed,
//! in any order (its matcher is simulated in [`literal`]): "handle cycle recursive cte" finds
//! nothing for "Recursive CTEs: handling cycles", nor "cafe" for "café", a typo, a plural or a
//! sentence. The [`Index`] is built from the whole history (read newest first, in slices, by
//! [`host`]), kept up to date from `onVisited` / `onVisitRemoved`, saved with [`Index::to_bytes`]
//! and loaded with [`Index::from_bytes`] when the service worker restarts.
//!
//! - Documents are pages keyed by their cleaned URL ([`crate::clean::clean_url`]); several raw URLs
//!   merge into one page as in [`crate::history::clean_and_merge`], and the index remembers which
//!   raw URLs back a page, so removing one removes the page only when none is left.
//! - Words come from the title, the host (minus `www` and the TLD), the path segments and the query
//!   values, folded and split by [`text`].
//! - A query word matches itself, words sharing its English/French stem (computed at query time,
//!   see `Index::same_stem`), and words one typo away
//!   ([`typo`], words of [`score::TYPO_MIN_CHARS`] or more); the last word — the one being typed —
//!   also matches as a prefix. Scoring is BM25F plus a small recency/visits prior ([`score`]).
//! - [`literal`] simulates the browser's matcher (`crate::retrieval::eval` measures the index
//!   fused with it on a fixed set; the fusion is `crate::retrieval::fusion`'s).
//!
//! Everything is single-threaded, clock-free and I/O-free, so it runs the same in the extension's
//! WebAssembly and in native tests.

pub mod host;
pub mod journal;
pub mod literal;
mod persist;
mod progress;
pub mod score;
pub mod text;
pub mod typo;

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tokenisation_tests;

use rustc_hash::FxHashMap as HashMap;
use serde::{Deserialize, Serialize};

pub use persist::{FORMAT_VERSION, LoadError};
pub use progress::IndexProgress;

use crate::address::split_address;
use crate::clean::clean_url;
use crate::history::{HistoryItem, Page};
use crate::percent::{InvalidUtf8, percent_decode};
use crate::site_filter::SiteFilter;
use score::FieldCounts;
use text::{Parts, Scratch, Stemmers, fold_words_with};

/// One search result: the page and its score (higher is better; only comparable within one
/// answer).
#[derive(Debug, Clone, PartialEq)]
pub struct Hit {
    /// The page, as [`crate::history::clean_and_merge`] would give it.
    pub page: Page,
    /// The relevance score; 0 for the "recent pages" answer to an empty query.
    pub score: f32,
    /// Every word of the query matched the page (exactly, by stem, with a typo or as a prefix):
    /// the words alone found it. False for the "recent pages" answer to an empty query.
    pub complete: bool,
}

/// One raw history URL behind a page, with what the browser said about it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Backing {
    /// The raw URL; `None` when it is the cleaned URL itself (the common case, stored once).
    raw: Option<Box<str>>,
    last_visit_ms: i64,
    visit_count: u32,
    /// Chrome no longer has this URL (it expired it) and the index keeps it
    /// ([`crate::archive`]); a new visit clears it.
    kept: bool,
}

/// A page in the index.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
struct Doc {
    url: Box<str>,
    title: Box<str>,
    last_visit_ms: i64,
    visit_count: u32,
    /// Last visit of the raw URL whose title we kept (the merge rule of `clean_and_merge`).
    title_visit_ms: i64,
    /// Indexed words in the title, and in the URL (host, path and query together).
    title_len: u16,
    url_len: u16,
    backing: Vec<Backing>,
}

impl Doc {
    /// Chrome forgot every history URL behind the page; History Chat keeps it.
    fn is_kept(&self) -> bool {
        !self.backing.is_empty() && self.backing.iter().all(|b| b.kept)
    }

    fn page(&self) -> Page {
        Page {
            url: self.url.to_string(),
            title: self.title.to_string(),
            last_visit_ms: self.last_visit_ms,
            visit_count: self.visit_count,
            passage: None,
            marks: Default::default(),
        }
    }
}

/// One occurrence list entry: a page and the word's counts in its fields.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Posting {
    doc: u32,
    counts: FieldCounts,
}

/// A vocabulary word.
#[derive(Debug, Clone, PartialEq)]
struct Term {
    text: Box<str>,
    postings: Vec<Posting>,
}

/// What the typo scan reads for each word: its letter signature and length in characters.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Shape {
    sig: u32,
    chars: u8,
}

/// The full-text index over the history. See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct Index {
    /// Pages by id; `None` once removed (ids are compacted by [`Index::to_bytes`]).
    docs: Vec<Option<Doc>>,
    by_url: HashMap<Box<str>, u32>,
    live: usize,
    title_len_sum: u64,
    url_len_sum: u64,
    terms: Vec<Term>,
    shapes: Vec<Shape>,
    term_ids: HashMap<Box<str>, u32>,
    /// Term ids in the order of their text, for prefix ranges.
    sorted_terms: Vec<u32>,
}

/// Which field a word was found in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Field {
    Title,
    Host,
    Path,
    Query,
}

/// Calls `emit` with every indexed word of a page and the field it is in: the title (its first
/// [`score::MAX_TITLE_BYTES`]), the host labels (minus the TLD and [`text::HOST_NOISE`]), the
/// path segments (minus [`text::PATH_NOISE`]) and the query values. The URL is a cleaned one
/// (`http(s)://host[:port]/path[?query]`, no fragment), split as text ([`split_address`]): parsing
/// it again would cost more than the whole tokenisation.
fn page_words(scratch: &mut Scratch, title: &str, url: &str, mut emit: impl FnMut(&str, Field)) {
    let title = truncate(title, score::MAX_TITLE_BYTES);
    fold_words_with(scratch, title, Parts::Split, |w| emit(w, Field::Title));
    let (host, (path, query)) = split_address(url).map_or(("", ("", "")), |address| {
        (address.host_name(), address.path_and_query())
    });
    // Every label but the last (the TLD), unless the host is a single label (`localhost`).
    let labels = host.rsplit_once('.').map_or(host, |(labels, _)| labels);
    for label in labels.split('.') {
        if !text::HOST_NOISE.contains(&label) {
            fold_words_with(scratch, label, Parts::Split, |w| emit(w, Field::Host));
        }
    }
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let segment = percent_decode(segment, false, InvalidUtf8::Replace);
        fold_words_with(scratch, &segment, Parts::Split, |w| {
            if !text::PATH_NOISE.contains(&w) {
                emit(w, Field::Path)
            }
        });
    }
    for pair in query.split('&') {
        let value = pair.split_once('=').map_or("", |(_, v)| v);
        if !value.is_empty() {
            let value = percent_decode(value, true, InvalidUtf8::Replace);
            fold_words_with(scratch, &value, Parts::Split, |w| emit(w, Field::Query));
        }
    }
}

/// The longest prefix of `s` of at most `max` bytes that ends on a character boundary.
fn truncate(s: &str, max: usize) -> &str {
    if s.len() <= max {
        return s;
    }
    let mut end = max;
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    &s[..end]
}

/// Buffers reused across the pages of one build or update.
#[derive(Debug, Default)]
struct Work {
    scratch: Scratch,
    occurrences: Vec<(u32, Field)>,
}

/// A query word's matches in the vocabulary: term id → variant weight.
type Variants = Vec<(u32, f32)>;

impl Index {
    /// An empty index.
    pub fn new() -> Index {
        Index::default()
    }

    /// Builds the index from the whole history, in any order. Items whose URL is rejected by
    /// [`clean_url`] are skipped.
    pub fn build(items: impl IntoIterator<Item = HistoryItem>) -> Index {
        let mut index = Index::new();
        // Merge first, index each page once.
        let mut fresh: Vec<u32> = Vec::new();
        for item in items {
            if let Some((id, true)) = index.merge(item) {
                fresh.push(id);
            }
        }
        let mut work = Work::default();
        for id in fresh {
            index.index_doc(id, &mut work, false);
        }
        index.sort_terms();
        index
    }

    /// Number of pages.
    pub fn len(&self) -> usize {
        self.live
    }

    /// Whether the index has no page.
    pub fn is_empty(&self) -> bool {
        self.live == 0
    }

    /// Number of distinct indexed words (including words no page uses any more, until the next
    /// save/load).
    pub fn vocabulary_len(&self) -> usize {
        self.terms.len()
    }

    /// Forgets everything (`onVisitRemoved` with `allHistory: true`).
    pub fn clear(&mut self) {
        *self = Index::new();
    }

    /// Records a visit (`chrome.history.onVisited` gives the full item): adds the page, or updates
    /// its visits and — when this raw URL's visit is the newest with a title — its title.
    pub fn upsert(&mut self, item: HistoryItem) {
        self.upsert_with(item, &mut Work::default(), true);
    }

    /// Adds a batch of history items — a slice of history read while the index is first built, or
    /// the visits caught up after loading a snapshot — as [`Index::upsert`] would one by one, with
    /// the prefix order of the vocabulary updated once for the whole batch (a sorted insert per new
    /// word would cost a shift of the whole vocabulary each).
    pub fn extend(&mut self, items: impl IntoIterator<Item = HistoryItem>) {
        let first_new_term = self.terms.len();
        let mut work = Work::default();
        for item in items {
            self.upsert_with(item, &mut work, false);
        }
        self.sort_new_terms(first_new_term);
    }

    fn upsert_with(&mut self, item: HistoryItem, work: &mut Work, keep_sorted: bool) {
        let Some(url) = clean_url(&item.url).ok().map(String::from) else {
            return;
        };
        let old_title = self
            .by_url
            .get(url.as_str())
            .and_then(|&id| self.doc(id))
            .map(|doc| (doc.title.clone(), doc.url.clone()));
        let Some((id, is_new)) = self.merge_cleaned(item, url) else {
            return;
        };
        if is_new {
            self.index_doc(id, work, keep_sorted);
        } else if let Some((old_title, url)) = old_title
            && self.doc(id).is_some_and(|doc| doc.title != old_title)
        {
            self.unindex(id, &old_title, &url);
            self.index_doc(id, work, keep_sorted);
        }
    }

    /// Forgets whole pages (the user removed them from history): each URL is cleaned, and the page
    /// it names goes with every raw entry merged into it. Returns how many of them the index held.
    pub fn forget_pages(&mut self, urls: &[String]) -> usize {
        let mut forgotten = 0;
        for url in urls {
            let Ok(url) = clean_url(url) else {
                continue;
            };
            if let Some(&id) = self.by_url.get(url.as_str()) {
                self.remove_doc(id);
                forgotten += 1;
            }
        }
        forgotten
    }

    /// Forgets raw URLs (`onVisitRemoved` with `urls`). A page goes when its last raw URL does;
    /// otherwise its last visit and visit count are recomputed from the raw URLs left (its title
    /// stays: it is still that page's title).
    pub fn remove_urls(&mut self, raw_urls: &[String]) {
        for raw in raw_urls {
            let Some((id, doc, at)) = self.backing_of_mut(raw) else {
                continue;
            };
            doc.backing.remove(at);
            if doc.backing.is_empty() {
                self.remove_doc(id);
            } else {
                doc.last_visit_ms = doc
                    .backing
                    .iter()
                    .map(|b| b.last_visit_ms)
                    .max()
                    .unwrap_or(0);
                doc.visit_count = doc
                    .backing
                    .iter()
                    .fold(0u32, |sum, b| sum.saturating_add(b.visit_count));
            }
        }
    }

    /// Forgets every page whose cleaned URL `gone` says is to go (the sites just excluded, see
    /// [`crate::exclusions`]); returns their cleaned URLs.
    pub fn remove_where(&mut self, gone: impl Fn(&str) -> bool) -> Vec<String> {
        let ids: Vec<(u32, String)> = self
            .docs
            .iter()
            .enumerate()
            .filter_map(|(id, doc)| {
                let doc = doc.as_ref()?;
                gone(&doc.url).then(|| (id as u32, doc.url.to_string()))
            })
            .collect();
        ids.into_iter()
            .map(|(id, url)| {
                self.remove_doc(id);
                url
            })
            .collect()
    }

    /// The newest visit the index knows of a raw history URL (as `onVisitRemoved` lists it), or
    /// `None` when no page holds that URL: what [`crate::archive::classify`] judges an expiry by.
    pub fn newest_visit_of(&self, raw_url: &str) -> Option<i64> {
        self.backing_of(raw_url)
            .map(|backing| backing.last_visit_ms)
    }

    /// The raw history URLs the index holds as Chrome's (kept ones left out) whose newest visit is
    /// at or after `start_ms`: what a read of the history from `start_ms` must bring back, unless
    /// Chrome lost them since (see [`host::Event::RemovalUnreadable`]).
    pub fn chrome_urls_since(&self, start_ms: i64) -> Vec<String> {
        self.docs
            .iter()
            .flatten()
            .flat_map(|doc| {
                doc.backing
                    .iter()
                    .filter(move |b| !b.kept && b.last_visit_ms >= start_ms)
                    .map(|b| b.raw.as_deref().unwrap_or(&doc.url).to_owned())
            })
            .collect()
    }

    /// Marks raw URLs as kept after Chrome forgot them ([`crate::archive::Removal::Expired`]): the
    /// pages stay searchable; a new visit of a URL makes it Chrome's again. URLs the index does not
    /// hold are ignored.
    pub fn keep_urls(&mut self, raw_urls: &[String]) {
        for raw in raw_urls {
            if let Some((_, doc, at)) = self.backing_of_mut(raw)
                && let Some(backing) = doc.backing.get_mut(at)
            {
                backing.kept = true;
            }
        }
    }

    /// Whether the page at this cleaned URL is only there because History Chat kept it: Chrome
    /// forgot every history URL behind it.
    pub fn is_kept(&self, cleaned_url: &str) -> bool {
        self.by_url
            .get(cleaned_url)
            .and_then(|&id| self.doc(id))
            .is_some_and(Doc::is_kept)
    }

    /// How many pages are only there because History Chat kept them ([`Index::is_kept`]).
    pub fn kept_len(&self) -> usize {
        self.docs
            .iter()
            .flatten()
            .filter(|doc| doc.is_kept())
            .count()
    }

    /// The cleaned URLs of the pages that hold a kept history URL (those [`Index::forget_kept`]
    /// may remove or change).
    pub fn kept_urls(&self) -> Vec<String> {
        self.docs
            .iter()
            .flatten()
            .filter(|doc| doc.backing.iter().any(|b| b.kept))
            .map(|doc| doc.url.to_string())
            .collect()
    }

    /// Forgets every history URL kept after Chrome forgot it, as [`Index::remove_urls`] would
    /// (a page goes with its last URL); returns the raw URLs forgotten, for the conversation.
    pub fn forget_kept(&mut self) -> Vec<String> {
        let raw: Vec<String> = self
            .docs
            .iter()
            .flatten()
            .flat_map(|doc| {
                doc.backing
                    .iter()
                    .filter(|b| b.kept)
                    .map(|b| b.raw.as_deref().unwrap_or(&doc.url).to_owned())
            })
            .collect();
        self.remove_urls(&raw);
        raw
    }

    /// Where a raw history URL is backed: its page's id and the position of its [`Backing`] in
    /// that page. The URL is cleaned to find the page, then matched against the page's raw URLs
    /// as [`Index::merge_cleaned`] stored them (`None` for the cleaned URL itself). `None` when
    /// the URL does not clean, no page has its cleaned URL, or the page has no such raw URL (a
    /// variant Chrome never reported to the index).
    fn locate(&self, raw_url: &str) -> Option<(u32, usize)> {
        let url = clean_url(raw_url).ok()?;
        let id = *self.by_url.get(url.as_str())?;
        let key = (raw_url != url.as_str()).then_some(raw_url);
        let at = self
            .doc(id)?
            .backing
            .iter()
            .position(|b| b.raw.as_deref() == key)?;
        Some((id, at))
    }

    /// The backing of a raw history URL ([`Index::locate`]).
    fn backing_of(&self, raw_url: &str) -> Option<&Backing> {
        let (id, at) = self.locate(raw_url)?;
        self.doc(id)?.backing.get(at)
    }

    /// The page id, the page (to change) and the position of the backing of a raw history URL
    /// ([`Index::locate`]); the position is in range of the page's `backing`.
    fn backing_of_mut(&mut self, raw_url: &str) -> Option<(u32, &mut Doc, usize)> {
        let (id, at) = self.locate(raw_url)?;
        let doc = self.docs.get_mut(id as usize)?.as_mut()?;
        Some((id, doc, at))
    }

    /// The raw history entries merged into the page at this cleaned URL that Chrome still holds
    /// (kept ones left out), each as a [`Page`] with its raw URL, its own last visit and visit
    /// count, and the page's title; empty when no page has that URL.
    pub fn entries_of(&self, cleaned_url: &str) -> Vec<Page> {
        let Some(doc) = self.by_url.get(cleaned_url).and_then(|&id| self.doc(id)) else {
            return Vec::new();
        };
        doc.backing
            .iter()
            .filter(|b| !b.kept)
            .map(|b| Page {
                url: b.raw.as_deref().unwrap_or(&doc.url).to_owned(),
                title: doc.title.to_string(),
                last_visit_ms: b.last_visit_ms,
                visit_count: b.visit_count,
                passage: None,
                marks: Default::default(),
            })
            .collect()
    }

    /// Whether a cleaned URL's page is indexed ([`Index::page`] without making the page).
    pub fn holds(&self, cleaned_url: &str) -> bool {
        self.by_url
            .get(cleaned_url)
            .is_some_and(|&id| self.doc(id).is_some())
    }

    /// The page for a cleaned URL, if indexed.
    pub fn page(&self, cleaned_url: &str) -> Option<Page> {
        let id = *self.by_url.get(cleaned_url)?;
        self.doc(id).map(Doc::page)
    }

    /// The most recently visited pages whose last visit is at or after `start_ms`, newest first.
    pub fn recent(&self, start_ms: i64, limit: usize) -> Vec<Page> {
        self.recent_in(&SiteFilter::default(), start_ms, limit)
    }

    /// [`Index::recent`] among the pages `sites` allows.
    pub fn recent_in(&self, sites: &SiteFilter, start_ms: i64, limit: usize) -> Vec<Page> {
        let mut docs: Vec<&Doc> = self
            .docs
            .iter()
            .flatten()
            .filter(|doc| doc.last_visit_ms >= start_ms && sites.allows(&doc.url))
            .collect();
        let by_recency = |a: &&Doc, b: &&Doc| {
            b.last_visit_ms
                .cmp(&a.last_visit_ms)
                .then(a.url.cmp(&b.url))
        };
        if limit < docs.len() {
            if limit == 0 {
                return Vec::new();
            }
            docs.select_nth_unstable_by(limit - 1, by_recency);
            docs.truncate(limit);
        }
        docs.sort_unstable_by(by_recency);
        docs.into_iter().map(Doc::page).collect()
    }

    /// Searches as the user types: every word is matched exactly, by stem and with one typo
    /// (words of five letters or more); the last word also as a prefix unless the query ends with
    /// a space. Only pages last visited at or after `start_ms`; best first, at most `limit`.
    /// A query with no searchable word (empty, stop words, punctuation, emoji) gives the most
    /// recent pages of the period, with score 0.
    pub fn search(&self, query: &str, start_ms: i64, now_ms: i64, limit: usize) -> Vec<Hit> {
        self.search_in(query, &SiteFilter::default(), start_ms, now_ms, limit)
    }

    /// [`Index::search`] among the pages `sites` allows ([`crate::site_filter`]): the others are
    /// left out before ranking, so the best `limit` are the filter's best. `query` is the
    /// question's words, its `site:` terms taken out ([`crate::site_filter::parse`]).
    pub fn search_in(
        &self,
        query: &str,
        sites: &SiteFilter,
        start_ms: i64,
        now_ms: i64,
        limit: usize,
    ) -> Vec<Hit> {
        let typing = !query.ends_with(char::is_whitespace);
        let words = self.plan(query, typing);
        if words.is_empty() {
            return self
                .recent_in(sites, start_ms, limit)
                .into_iter()
                .map(|page| Hit {
                    page,
                    score: 0.0,
                    complete: false,
                })
                .collect();
        }
        self.run(&words, sites, start_ms, now_ms, limit)
    }

    /// Whether a page that `sites` allows, last visited at or after `start_ms`, matches every word
    /// of `query` ([`Hit::complete`]) among the `limit` best: the words alone found what was asked.
    pub fn finds_every_word_in(
        &self,
        query: &str,
        sites: &SiteFilter,
        start_ms: i64,
        now_ms: i64,
        limit: usize,
    ) -> bool {
        self.search_in(query, sites, start_ms, now_ms, limit)
            .iter()
            .any(|hit| hit.complete)
    }

    /// The pages matching one keyword (AI mode's per-keyword retrieval, [`crate::ai::budget`]), in
    /// relevance order, within the period, at most `limit`. The keyword matches like a query's
    /// last word (exact, stem, typo, prefix); a keyword with no searchable word matches nothing.
    pub fn search_keyword(
        &self,
        keyword: &str,
        start_ms: i64,
        now_ms: i64,
        limit: usize,
    ) -> Vec<Hit> {
        self.search_keyword_in(keyword, &SiteFilter::default(), start_ms, now_ms, limit)
    }

    /// [`Index::search_keyword`] among the pages `sites` allows (left out before ranking).
    pub fn search_keyword_in(
        &self,
        keyword: &str,
        sites: &SiteFilter,
        start_ms: i64,
        now_ms: i64,
        limit: usize,
    ) -> Vec<Hit> {
        let words = self.plan(keyword, true);
        if words.is_empty() {
            return Vec::new();
        }
        self.run(&words, sites, start_ms, now_ms, limit)
    }

    /// Approximate heap memory held by the index, in bytes (capacities of its vectors, strings and
    /// maps; allocator overhead not counted).
    pub fn heap_bytes(&self) -> usize {
        use std::mem::size_of;
        // A hash map slot: key + value + one control byte.
        let map = |cap: usize, entry: usize| cap * (entry + 1);
        let docs: usize = self
            .docs
            .iter()
            .flatten()
            .map(|doc| {
                doc.url.len()
                    + doc.title.len()
                    + doc.backing.capacity() * size_of::<Backing>()
                    + doc
                        .backing
                        .iter()
                        .map(|b| b.raw.as_ref().map_or(0, |r| r.len()))
                        .sum::<usize>()
            })
            .sum();
        let terms: usize = self
            .terms
            .iter()
            .map(|t| t.text.len() * 2 + t.postings.capacity() * size_of::<Posting>())
            .sum();
        docs + self.docs.capacity() * size_of::<Option<Doc>>()
            + self.by_url.keys().map(|k| k.len()).sum::<usize>()
            + map(self.by_url.capacity(), size_of::<(Box<str>, u32)>())
            + terms
            + self.terms.capacity() * size_of::<Term>()
            + self.shapes.capacity() * size_of::<Shape>()
            + map(self.term_ids.capacity(), size_of::<(Box<str>, u32)>())
            + self.sorted_terms.capacity() * 4
    }

    fn doc(&self, id: u32) -> Option<&Doc> {
        self.docs.get(id as usize).and_then(Option::as_ref)
    }

    /// Merges an item's metadata into its page (creating it), without touching the postings.
    /// Returns the page id and whether it is new.
    fn merge(&mut self, item: HistoryItem) -> Option<(u32, bool)> {
        let url = String::from(clean_url(&item.url).ok()?);
        self.merge_cleaned(item, url)
    }

    /// [`Index::merge`] with the item's URL already cleaned (`url`).
    fn merge_cleaned(&mut self, item: HistoryItem, url: String) -> Option<(u32, bool)> {
        let raw = (item.url != url).then(|| Box::<str>::from(item.url.as_str()));
        let title = item.title.trim();
        if let Some(&id) = self.by_url.get(url.as_str()) {
            let doc = self.docs.get_mut(id as usize)?.as_mut()?;
            match doc.backing.iter_mut().find(|b| b.raw == raw) {
                Some(backing) => {
                    backing.last_visit_ms = backing.last_visit_ms.max(item.last_visit_ms);
                    backing.visit_count = item.visit_count;
                    // Chrome has the URL again.
                    backing.kept = false;
                }
                None => doc.backing.push(Backing {
                    raw,
                    last_visit_ms: item.last_visit_ms,
                    visit_count: item.visit_count,
                    kept: false,
                }),
            }
            doc.last_visit_ms = doc.last_visit_ms.max(item.last_visit_ms);
            doc.visit_count = doc
                .backing
                .iter()
                .fold(0u32, |sum, b| sum.saturating_add(b.visit_count));
            let newer = item.last_visit_ms > doc.title_visit_ms || doc.title.is_empty();
            if !title.is_empty() && newer {
                doc.title = title.into();
                doc.title_visit_ms = item.last_visit_ms;
            }
            return Some((id, false));
        }
        let id = u32::try_from(self.docs.len()).ok()?;
        let url: Box<str> = url.into();
        self.by_url.insert(url.clone(), id);
        self.docs.push(Some(Doc {
            url,
            title: title.into(),
            last_visit_ms: item.last_visit_ms,
            visit_count: item.visit_count,
            title_visit_ms: item.last_visit_ms,
            title_len: 0,
            url_len: 0,
            backing: vec![Backing {
                raw,
                last_visit_ms: item.last_visit_ms,
                visit_count: item.visit_count,
                kept: false,
            }],
        }));
        self.live += 1;
        Some((id, true))
    }

    /// Adds a page's words to the postings (the page has none yet). `keep_sorted`: keep the prefix
    /// order up to date for each new word (incremental updates); a build sorts once at the end.
    fn index_doc(&mut self, id: u32, work: &mut Work, keep_sorted: bool) {
        // The page is taken out while its words are interned (no copy of its title and URL).
        let Some(doc) = self.docs.get_mut(id as usize).and_then(Option::take) else {
            return;
        };
        let Work {
            scratch,
            occurrences,
        } = work;
        occurrences.clear();
        page_words(scratch, &doc.title, &doc.url, |word, field| {
            occurrences.push((self.intern(word, keep_sorted), field));
        });
        self.docs[id as usize] = Some(doc);
        occurrences.sort_unstable();
        let (mut title_len, mut url_len) = (0u16, 0u16);
        let mut at = 0;
        while at < occurrences.len() {
            let term = occurrences[at].0;
            let mut counts = FieldCounts::default();
            while let Some(&(t, field)) = occurrences.get(at)
                && t == term
            {
                let (count, len) = match field {
                    Field::Title => (&mut counts.title, &mut title_len),
                    Field::Host => (&mut counts.host, &mut url_len),
                    Field::Path => (&mut counts.path, &mut url_len),
                    Field::Query => (&mut counts.query, &mut url_len),
                };
                *count = count.saturating_add(1);
                *len = len.saturating_add(1);
                at += 1;
            }
            self.terms[term as usize]
                .postings
                .push(Posting { doc: id, counts });
        }
        self.title_len_sum += u64::from(title_len);
        self.url_len_sum += u64::from(url_len);
        if let Some(Some(doc)) = self.docs.get_mut(id as usize) {
            doc.title_len = title_len;
            doc.url_len = url_len;
        }
    }

    /// Removes a page's postings, given the title and URL it was indexed with.
    fn unindex(&mut self, id: u32, title: &str, url: &str) {
        let mut terms: Vec<u32> = Vec::new();
        page_words(&mut Scratch::default(), title, url, |word, _| {
            if let Some(&term) = self.term_ids.get(word) {
                terms.push(term);
            }
        });
        terms.sort_unstable();
        terms.dedup();
        for term in terms {
            let postings = &mut self.terms[term as usize].postings;
            if let Some(at) = postings.iter().position(|p| p.doc == id) {
                postings.swap_remove(at);
            }
        }
        let (title_len, url_len) = self.doc(id).map_or((0, 0), |d| (d.title_len, d.url_len));
        self.title_len_sum = self.title_len_sum.saturating_sub(u64::from(title_len));
        self.url_len_sum = self.url_len_sum.saturating_sub(u64::from(url_len));
    }

    fn remove_doc(&mut self, id: u32) {
        let Some(doc) = self.doc(id) else {
            return;
        };
        let (title, url) = (doc.title.clone(), doc.url.clone());
        self.unindex(id, &title, &url);
        self.by_url.remove(&url);
        self.docs[id as usize] = None;
        self.live -= 1;
    }

    /// The id of a word, added to the vocabulary if new.
    fn intern(&mut self, word: &str, keep_sorted: bool) -> u32 {
        if let Some(&id) = self.term_ids.get(word) {
            return id;
        }
        let id = self.terms.len() as u32;
        let text: Box<str> = word.into();
        self.term_ids.insert(text.clone(), id);
        self.shapes.push(Shape {
            sig: typo::signature(word),
            chars: word.chars().count().min(255) as u8,
        });
        if keep_sorted {
            let at = self
                .sorted_terms
                .partition_point(|&t| *self.terms[t as usize].text < *word);
            self.sorted_terms.insert(at, id);
        }
        self.terms.push(Term {
            text,
            postings: Vec::new(),
        });
        id
    }

    /// Puts the words interned since `first_new` (unsorted) into the prefix order: sorts them, then
    /// merges them with the words already in order.
    fn sort_new_terms(&mut self, first_new: usize) {
        if first_new >= self.terms.len() {
            return;
        }
        let terms = &self.terms;
        let text = |t: u32| &*terms[t as usize].text;
        let mut fresh: Vec<u32> = (first_new as u32..terms.len() as u32).collect();
        fresh.sort_unstable_by(|&a, &b| text(a).cmp(text(b)));
        let old = std::mem::take(&mut self.sorted_terms);
        let mut merged = Vec::with_capacity(old.len() + fresh.len());
        let (mut i, mut j) = (0, 0);
        while i < old.len() && j < fresh.len() {
            if text(old[i]) <= text(fresh[j]) {
                merged.push(old[i]);
                i += 1;
            } else {
                merged.push(fresh[j]);
                j += 1;
            }
        }
        merged.extend_from_slice(&old[i..]);
        merged.extend_from_slice(&fresh[j..]);
        self.sorted_terms = merged;
    }

    /// Rebuilds the prefix order of the whole vocabulary.
    fn sort_terms(&mut self) {
        let mut sorted: Vec<u32> = (0..self.terms.len() as u32).collect();
        sorted.sort_unstable_by(|&a, &b| {
            self.terms[a as usize]
                .text
                .cmp(&self.terms[b as usize].text)
        });
        self.sorted_terms = sorted;
    }

    /// The variants of each query word (deduplicated, stop words dropped, at most
    /// [`score::MAX_QUERY_WORDS`]). `prefix_last`: the last word may be unfinished.
    fn plan(&self, query: &str, prefix_last: bool) -> Vec<Variants> {
        let mut words = text::query_words(query);
        let mut seen = Vec::new();
        words.retain(|w| {
            let new = !seen.contains(w);
            seen.push(w.clone());
            new
        });
        words.truncate(score::MAX_QUERY_WORDS);
        let last = words.len().saturating_sub(1);
        let stemmers = Stemmers::default();
        words
            .iter()
            .enumerate()
            .map(|(i, word)| self.variants(word, prefix_last && i == last, &stemmers))
            .collect()
    }

    fn variants(&self, word: &str, prefix: bool, stemmers: &Stemmers) -> Variants {
        let mut found: HashMap<u32, f32> = HashMap::default();
        let mut add = |term: u32, weight: f32| {
            let w = found.entry(term).or_insert(0.0);
            *w = w.max(weight);
        };
        if let Some(&term) = self.term_ids.get(word) {
            add(term, score::EXACT_WEIGHT);
        }
        for term in self.same_stem(word, stemmers) {
            add(term, score::STEM_WEIGHT);
        }
        let chars = word.chars().count();
        if prefix && chars >= score::PREFIX_MIN_CHARS {
            let from = self
                .sorted_terms
                .partition_point(|&t| *self.terms[t as usize].text < *word);
            let completions: Vec<u32> = self.sorted_terms[from..]
                .iter()
                .copied()
                .take_while(|&t| self.terms[t as usize].text.starts_with(word))
                .collect();
            for term in self.most_frequent(completions, score::MAX_PREFIX_TERMS) {
                add(term, score::PREFIX_WEIGHT);
            }
        }
        if chars >= score::TYPO_MIN_CHARS {
            let sig = typo::signature(word);
            let near: Vec<u32> = self
                .shapes
                .iter()
                .enumerate()
                .filter(|(_, s)| typo::may_be_one_edit(sig, chars, s.sig, usize::from(s.chars)))
                .map(|(t, _)| t as u32)
                .filter(|&t| typo::within_one_edit(word, &self.terms[t as usize].text))
                .collect();
            for term in self.most_frequent(near, score::MAX_TYPO_TERMS) {
                add(term, score::TYPO_WEIGHT);
            }
        }
        found.into_iter().collect()
    }

    /// The vocabulary words sharing `word`'s English or French stem (`cycles` for `cycle`,
    /// `chevaux` for `cheval`).
    ///
    /// Stems are computed at query time, not stored: Snowball only rewrites the end of a word, so
    /// every word with stem `s` starts with `s` minus its last character (`queri` ← `query`,
    /// `cheval` ← `chevaux`). The words in that prefix range of the sorted vocabulary (at most
    /// [`score::MAX_STEM_CANDIDATES`]) are stemmed and compared. This costs tens of microseconds
    /// per query word and saves stemming the whole vocabulary at build time, its tables in memory
    /// and in the saved index.
    fn same_stem(&self, word: &str, stemmers: &Stemmers) -> Vec<u32> {
        let stems = stemmers.stems(word);
        let mut candidates: Vec<u32> = Vec::new();
        for stem in &stems {
            let chars = stem.chars().count();
            let keep = chars
                .saturating_sub(1)
                .max(score::STEM_PREFIX_MIN_CHARS)
                .min(chars);
            let end = stem
                .char_indices()
                .nth(keep)
                .map_or(stem.len(), |(at, _)| at);
            let prefix = &stem[..end];
            let from = self
                .sorted_terms
                .partition_point(|&t| *self.terms[t as usize].text < *prefix);
            let max_len = stem.len() + score::MAX_SUFFIX_BYTES;
            candidates.extend(
                self.sorted_terms[from..]
                    .iter()
                    .copied()
                    .take_while(|&t| self.terms[t as usize].text.starts_with(prefix))
                    .filter(|&t| self.terms[t as usize].text.len() <= max_len)
                    .take(score::MAX_STEM_CANDIDATES),
            );
        }
        candidates.sort_unstable();
        candidates.dedup();
        candidates.retain(|&t| {
            let term = &self.terms[t as usize];
            if term.postings.is_empty() {
                return false;
            }
            let text = &term.text;
            *text.as_ref() == *word
                || stemmers.english(text) == stems[0]
                || stemmers.french(text) == stems[1]
        });
        candidates
    }

    /// The `max` terms with the most pages, and none without pages.
    fn most_frequent(&self, mut terms: Vec<u32>, max: usize) -> Vec<u32> {
        let df = |t: &u32| std::cmp::Reverse(self.terms[*t as usize].postings.len());
        terms.retain(|t| !self.terms[*t as usize].postings.is_empty());
        if terms.len() > max {
            terms.select_nth_unstable_by_key(max - 1, df);
            terms.truncate(max);
        }
        terms
    }

    /// Scores every page `sites` allows matching at least one word and returns the best `limit`.
    fn run(
        &self,
        words: &[Variants],
        sites: &SiteFilter,
        start_ms: i64,
        now_ms: i64,
        limit: usize,
    ) -> Vec<Hit> {
        if limit == 0 || self.live == 0 {
            return Vec::new();
        }
        let n = self.docs.len();
        // Whether each page passes the filter: 0 not asked yet, 1 yes, 2 no (asked once a page).
        let mut allowed = vec![if sites.is_empty() { 1u8 } else { 0 }; n];
        let live = self.live.max(1) as f32;
        let avg_title = self.title_len_sum as f32 / live;
        let avg_url = self.url_len_sum as f32 / live;
        let mut total = vec![0.0f32; n];
        let mut matched = vec![0u8; n];
        let mut current = vec![0.0f32; n];
        let mut touched: Vec<u32> = Vec::new();
        let mut candidates: Vec<u32> = Vec::new();
        for variants in words {
            for &(term, weight) in variants {
                let postings = &self.terms[term as usize].postings;
                let idf = score::idf(self.live, postings.len());
                for posting in postings {
                    let d = posting.doc as usize;
                    let Some(doc) = self.docs[d].as_ref() else {
                        continue;
                    };
                    if doc.last_visit_ms < start_ms {
                        continue;
                    }
                    if allowed[d] == 0 {
                        allowed[d] = if sites.allows(&doc.url) { 1 } else { 2 };
                    }
                    if allowed[d] == 2 {
                        continue;
                    }
                    let title_norm = score::length_norm(doc.title_len, avg_title, score::TITLE_B);
                    let url_norm = score::length_norm(doc.url_len, avg_url, score::URL_B);
                    let s = weight * score::bm25f(posting.counts, title_norm, url_norm, idf);
                    // Strictly positive, so "touched" is `current > 0`.
                    let s = s.max(f32::MIN_POSITIVE);
                    if current[d] == 0.0 {
                        touched.push(posting.doc);
                    }
                    current[d] = current[d].max(s);
                }
            }
            for d in touched.drain(..) {
                let d = d as usize;
                if matched[d] == 0 {
                    candidates.push(d as u32);
                }
                total[d] += current[d];
                matched[d] = matched[d].saturating_add(1);
                current[d] = 0.0;
            }
        }
        let mut hits: Vec<(f32, &Doc, bool)> = candidates
            .into_iter()
            .filter_map(|d| {
                let doc = self.docs[d as usize].as_ref()?;
                let matched = usize::from(matched[d as usize]);
                let text = total[d as usize] * score::coverage(matched, words.len());
                let prior = score::prior(doc.last_visit_ms, doc.visit_count, now_ms);
                let complete = matched == words.len();
                Some((text * (1.0 + score::PRIOR_WEIGHT * prior), doc, complete))
            })
            .collect();
        let order = |a: &(f32, &Doc, bool), b: &(f32, &Doc, bool)| {
            b.0.total_cmp(&a.0)
                .then(b.1.last_visit_ms.cmp(&a.1.last_visit_ms))
                .then(a.1.url.cmp(&b.1.url))
        };
        if limit < hits.len() {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(order);
        hits.into_iter()
            .map(|(score, doc, complete)| Hit {
                page: doc.page(),
                score,
                complete,
            })
            .collect()
    }
}
