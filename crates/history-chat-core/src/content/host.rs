//! The content store's life in the service worker, as a pure state machine.
//!
//! The worker owns one [`ContentHost`]. It feeds in what happens ([`Event`]: the switch, the
//! stored pages were read, a page was read, the model answered, a write ended, pages were removed,
//! the excluded sites or the cap changed, a timer fired) and carries out what the host says
//! ([`Action`]: read the store, store these records, delete these, clear the store, embed these
//! passages, set a timer). Questions are answered by [`ContentHost::search`]. Nothing here touches
//! the browser, the model or a clock, in the manner of [`crate::semantic::host`].
//!
//! ```text
//!   (new) ── Start{true} ──▶ Loading ── StoreLoaded{done} ──▶ Live: Reading ⇄ Ready
//!     │          ▲   │ StoreFailed: retried (RetryAfter),       │            │ quota
//!     │          │   └─ LOAD_ATTEMPTS times, then ──▶ Unavailable (this session)
//!     ▼ Start{false} / SetEnabled(false)                         ▼            ▼
//!    Off ◀──────────────────── SetEnabled(false) ─────────────────── StorageFull (until space)
//!
//!   a page's way:  Read ──▶ held (searchable by its words) ── Save ──▶ stored (vectors: none yet)
//!                             └─ its passages ── Embed ──▶ vectors (searchable by meaning)
//!                                   (newest page first)      └─ page complete ── Save ──▶ stored
//!                                                                   final: its text dropped ◀──┘
//!   its text: held from the Read (or a load of a record not final) until its record is final
//! ```
//!
//! - **A page read** ([`Event::Read`]) is cut into passages ([`super::cut`]), indexed by its words
//!   at once, and stored right away (its text cannot be read again: it is written before its
//!   passages are embedded, with no vectors). Its embedded passages go to the model
//!   [`EMBED_BATCH_PASSAGES`] at a time, newest page first, one batch out at a time; once a page's
//!   passages all have vectors, its record is written again with them. Writes go
//!   [`SAVE_BATCH_PAGES`] records a transaction, one transaction out at a time. A page read again
//!   replaces what was held for it (and its record, by key). A page read while switched off,
//!   of an excluded site, of fewer than [`super::passages::MIN_WORDS`] words, or whose read
//!   began before a removal of it ([`ReadTicket`]) is not kept.
//! - **Texts**: a page's text is needed to embed its passages and to write its record (text and
//!   vectors), so it is held in memory (deflated) from its read until its record is *final* —
//!   written, at the page's current version, with a vector for every embedded passage — and then
//!   dropped: nothing writes or embeds a final page again, and a page found shows its passage
//!   from its stored record ([`ContentMatch::passage`], the worker reading the records of the
//!   pages it shows). A text comes back only with a new read of the page, or a load of a record
//!   that is not final. A page whose record cannot become final this session (the model
//!   unavailable, the store failing) keeps its text.
//! - **Loading** reads the stored records in chunks ([`STORE_CHUNK_RECORDS`]); each page is
//!   searchable when its chunk is in, and its passages without a vector go to the model. Pages read
//!   meanwhile are searchable at once and stored once the load is done; a stored record of a page
//!   read meanwhile is older and is not loaded. A record that does not decode is skipped and
//!   deleted ([`ContentHost::skipped`]).
//! - **Removals**: a removed page's content is forgotten and its record deleted at once; one in a
//!   write that is out is deleted after the write; vectors that come for it are dropped.
//!   [`Removal::All`] and switching off clear the store. While loading, a record of a removed page
//!   is deleted when its chunk comes. A new excluded site's pages are removed at once.
//! - **The cap** ([`DEFAULT_CAP_BYTES`], [`Event::SetCap`]): when the stored bytes pass it, the
//!   pages read longest ago are removed first. A page counts the bytes of its encoded record once
//!   all its embedded passages have vectors (the record's size with no vector, plus
//!   [`STORED_VECTOR_BYTES`] per embedded passage): the store grows to that as the model works,
//!   and a page never has to be evicted for its own vectors.
//! - **Failures**: a crash of the model (or vectors of the wrong count or length) puts the batch
//!   back and retries after a growing delay (topic search's [`retry_delay`]), at most
//!   [`EMBED_ATTEMPTS`] times in a row; a missing, corrupt or unsupported model stops the
//!   embedding at once ([`ContentProgress::model`]) — pages are still read, stored and found by
//!   their words. A write refused for quota holds the writes and the reading
//!   ([`ContentStatus::StorageFull`]) until a removal frees space, the cap changes or the worker
//!   restarts; another refused write is retried like a crash, at most [`SAVE_ATTEMPTS`] times, and
//!   a failed load [`LOAD_ATTEMPTS`] times, before the store is
//!   [`UnavailableReason::StoreFailing`] for the session.
//!
//! What the worker guarantees in return: it carries out actions in order (IndexedDB runs
//! transactions on one store in the order they were made, so a `Delete` after a `Save` wins);
//! every [`Action::LoadStore`] gets [`Event::StoreLoaded`] chunks up to `done` or one
//! [`Event::StoreFailed`], every [`Action::Embed`] one [`Event::Embedded`] or
//! [`Event::EmbedFailed`], every [`Action::Save`] one [`Event::Saved`] or [`Event::SaveFailed`]
//! (a `Save` is one transaction), every [`Action::RetryAfter`] one [`Event::RetryDue`]; the
//! answers of two store reads never interleave (a read asked before a clear is told apart by its
//! order); and it takes a [`ContentHost::ticket`] when it starts reading a page, before it asks
//! for its text.

use std::cmp::Reverse;
use std::collections::{BTreeSet, VecDeque};

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::lexical::Lexical;
use super::passages::{Span, cut};
use super::progress::{ContentProgress, ContentStatus};
use super::record::{Deflated, PassageVector, Record};
use super::snippet::snippet;
use super::vectors::{CONTENT_STANDOUT, PassageVectors};
use crate::clean::clean_url;
use crate::exclusions::Exclusions;
use crate::history::Passage;
use crate::semantic::host::{EMBED_ATTEMPTS, SAVE_ATTEMPTS, retry_delay};
use crate::semantic::{Quantised, UnavailableReason};
use crate::site_filter::SiteFilter;

pub use crate::semantic::host::{EmbedFailure, Removal, StoredRecord};

/// Passages per [`Action::Embed`]. A passage of about 120 words is about 200 of the model's
/// tokens, twice a title: four passages are the tokens of topic search's batch of eight titles
/// (`semantic::host::BATCH_PAGES`), a few hundred milliseconds of the model, so a question's
/// vector (made by the same model, after the batch it is running) never waits long.
pub const EMBED_BATCH_PASSAGES: usize = 4;

/// Records per [`Action::Save`]: one IndexedDB transaction. A record is about 5–10 KB, so a
/// transaction of 16 is 100–150 KB, written in a few milliseconds; pages are read one at a time
/// as the user browses, so a write rarely holds more than one or two.
pub const SAVE_BATCH_PAGES: usize = 16;

/// The store's cap when the user has not set one: 500 MB (MiB), about 60,000 pages at the
/// expected 8 KB a page — years of reading for most people, a small share of a disk.
pub const DEFAULT_CAP_BYTES: u64 = 500 * 1024 * 1024;

/// What an embedded passage's vector adds to its record: postcard's `Some` tag, the scale (an
/// `f32`), the components' length (a varint of two bytes for 384) and the 384 components, less the
/// one byte of `None` it replaces. A test checks it against the encoder.
pub const STORED_VECTOR_BYTES: u64 = 1 + 4 + 2 + 384 - 1;

/// A title longer than this is cut (on a character boundary) before it is stored: a title is
/// shown on one line; Chrome itself keeps 1,024 characters of one.
pub const MAX_TITLE_CHARS: usize = 1_024;

/// Stored-record reads failing this many times in a row make the store
/// [`UnavailableReason::StoreFailing`] for the session, as [`SAVE_ATTEMPTS`] writes do: after
/// 1 + 2 + 4 + 8 s of retries IndexedDB is broken for this profile.
pub const LOAD_ATTEMPTS: u32 = 5;

/// Records per [`Event::StoreLoaded`] chunk, for the worker: a record is inflated and its words
/// indexed again as it comes — 0.5–1 ms for a page of 1,000 words natively (the `content_bench`
/// example; WebAssembly is slower) — so a chunk of 25 holds the worker's thread some 15–30 ms
/// natively, and the popup's requests are served between chunks.
pub const STORE_CHUNK_RECORDS: usize = 25;

/// Removed URLs remembered to check the reads in flight against ([`ReadTicket`]). A read takes a
/// second or two (the page's HTML to the offscreen document and back); 10,000 URLs are more than
/// any removal during one, and a read older than what is remembered is dropped to be safe.
pub const REMOVED_URLS_REMEMBERED: usize = 10_000;

/// Hits taken from each of the lexical and the vector search: the head of each list, more than
/// the plan ever shows.
pub const FUSION_POOL: usize = 50;

/// Where the removals stood when the worker began reading a page ([`ContentHost::ticket`]): a
/// read that comes back after a removal of its page (or after "clear all", or the switch turned
/// off) is dropped, so a page removed while it was being read is never stored.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Default)]
pub struct ReadTicket(u64);

/// A page's readable text, as the offscreen document extracted it.
#[derive(Debug, Clone, PartialEq)]
pub struct ReadPage {
    /// The page's URL (cleaned here again: a URL `clean_url` refuses is not kept).
    pub url: String,
    /// Its title (untrusted text).
    pub title: String,
    /// Its readable text, as extracted (untrusted text; normalised by [`super::cut`]).
    pub text: String,
    /// [`ContentHost::ticket`] when the worker began reading it.
    pub ticket: ReadTicket,
}

/// What happened, fed to [`ContentHost::handle`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The worker started, with the user's switch. Sent once, first.
    Start {
        /// Reading pages is on.
        enabled: bool,
    },
    /// The user turned reading pages on or off (off clears the store).
    SetEnabled(bool),
    /// [`Action::LoadStore`] read these records: the next chunk of at most
    /// [`STORE_CHUNK_RECORDS`], `done` on the last.
    StoreLoaded {
        /// The records with their keys; those that do not decode are skipped and deleted.
        records: Vec<StoredRecord>,
        /// This was the last chunk.
        done: bool,
    },
    /// [`Action::LoadStore`] failed (perhaps after some chunks).
    StoreFailed,
    /// A page was read.
    Read {
        /// What was read.
        page: ReadPage,
        /// Now, ms since the Unix epoch (the page's read time: the oldest go first at the cap).
        now_ms: i64,
    },
    /// The model's vectors for [`Action::Embed`]'s texts, in order.
    Embedded {
        /// Which batch.
        batch: u64,
        /// One L2-normalised vector of [`crate::semantic::DIM`] components per text.
        vectors: Vec<Vec<f32>>,
    },
    /// The model did not embed the batch.
    EmbedFailed {
        /// Which batch.
        batch: u64,
        /// Why.
        failure: EmbedFailure,
    },
    /// [`Action::Save`]'s records are written.
    Saved {
        /// Which batch.
        batch: u64,
    },
    /// [`Action::Save`]'s transaction failed: nothing was written.
    SaveFailed {
        /// Which batch.
        batch: u64,
        /// The browser refused for quota (`QuotaExceededError`).
        quota: bool,
    },
    /// Pages removed from the history (cleaned URLs), or all of it.
    Removed(Removal),
    /// The excluded sites, when the worker starts and whenever they change: their pages'
    /// content is deleted, and their pages never read.
    Exclusions(Exclusions),
    /// The store's cap, in bytes (see [`DEFAULT_CAP_BYTES`]).
    SetCap {
        /// The cap.
        bytes: u64,
    },
    /// The timer set by [`Action::RetryAfter`] fired.
    RetryDue,
    /// The user is typing or asking: no new batch of passages is embedded until
    /// [`Event::UserIdle`] (as topic search's build: [`crate::semantic::host::Event::UserActive`]);
    /// the batch out finishes, and reading and storing pages go on.
    UserActive,
    /// The user has done nothing for [`crate::semantic::host::USER_PAUSE_MS`].
    UserIdle,
    /// The computer runs on a low battery (`true`: [`crate::power::Battery::is_low`]) or no
    /// longer does: no batch of passages is embedded meanwhile ([`ContentStatus::Paused`]); the
    /// batch out finishes, and reading and storing pages go on.
    BatteryLow(bool),
}

/// What the worker must do, returned by [`ContentHost::handle`], in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Read every record of the store, then feed [`Event::StoreLoaded`] in chunks of at most
    /// [`STORE_CHUNK_RECORDS`], or [`Event::StoreFailed`].
    LoadStore,
    /// Write these records in one transaction (each over any record of the same key), then feed
    /// [`Event::Saved`] or [`Event::SaveFailed`].
    Save {
        /// Fed back.
        batch: u64,
        /// The records ([`Record::encode`]) and their keys.
        records: Vec<StoredRecord>,
    },
    /// Delete the records of these keys (those absent are no error).
    Delete {
        /// Cleaned URLs.
        urls: Vec<String>,
    },
    /// Delete every record.
    Clear,
    /// Embed these passages' texts (with the model's `passage: ` prefix), then feed
    /// [`Event::Embedded`] or [`Event::EmbedFailed`].
    Embed {
        /// Fed back.
        batch: u64,
        /// At most [`EMBED_BATCH_PASSAGES`].
        texts: Vec<String>,
    },
    /// Feed [`Event::RetryDue`] in this many milliseconds.
    RetryAfter {
        /// The delay.
        ms: u32,
    },
}

/// A page found by what it said ([`ContentHost::search`]): which of its passages matched, and
/// where its text is to show that passage ([`ContentMatch::passage`]). The host does not hold the
/// texts of pages whose record is final (see the [module docs](self)): the worker reads those
/// pages' records from the store, for the pages it shows only.
#[derive(Debug, Clone, PartialEq)]
pub struct ContentMatch {
    /// The page's cleaned URL.
    pub url: String,
    /// The passage that matched: an index into the page's spans.
    pub passage: u16,
    /// Where that passage stands in the page's text.
    pub span: Span,
    /// When the page was read: the stored record must be of this read to show its passage.
    pub read_ms: i64,
    /// The page's text when the host still holds it (its record may not be written yet, or not
    /// whole); `None`: it is in the page's stored record only.
    pub text: Option<Deflated>,
}

impl ContentMatch {
    /// Whether the passage is made from the page's stored record ([`ContentMatch::passage`]):
    /// the worker reads the records of these pages.
    pub fn needs_record(&self) -> bool {
        self.text.is_none()
    }

    /// The passage that matched, as shown: cut around the question's words (`query_text`, its
    /// `site:` terms taken out) and marked ([`snippet`]). From the text the host held when it
    /// found the page, else from `record`, the page's stored record as read back (its bytes, as
    /// [`Record::encode`] wrote them). `None` when there is no text to cut it from: no record,
    /// one that does not decode, of another page or another read of it (read again since), or
    /// whose passage is not where the host found it. Pure: the worker reads, this cuts.
    pub fn passage(&self, record: Option<&[u8]>, query_text: &str) -> Option<Passage> {
        let text = match &self.text {
            Some(text) => text.inflate().ok()?,
            None => {
                let decoded = Record::decode(record?).ok()?;
                let record = &decoded.record;
                let same = record.url == self.url
                    && record.read_ms == self.read_ms
                    && record.spans.get(usize::from(self.passage)) == Some(&self.span);
                if !same {
                    return None;
                }
                decoded.text
            }
        };
        Some(snippet(text.get(self.span.range())?, query_text))
    }
}

/// Where a page's text is: the one rule of when the host keeps it in memory.
///
/// A page's text is needed to embed its passages and to write its record (which holds the text
/// and the vectors); a snippet is cut from the stored record. So the text is [`Text::Held`] from
/// the page's read (or its load) until its record is *final* — written, at the page's current
/// version, with a vector for every embedded passage —, and [`Text::InStore`] after. Nothing
/// needs it again: only a passage without a vector is embedded, and only a page whose vectors
/// changed (or that was read again) is written again, neither of which a final record has. A
/// record loaded final is never held; one loaded with passages left to embed is held until it is
/// final again. (A later version that embeds the texts again — a new model — reads them from the
/// records as it loads them, the one way a text comes back besides a new read.) A page held while
/// its record cannot become final this session (the model unavailable, the store failing) keeps
/// its text, as every page did before.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Text {
    /// In memory, deflated.
    Held(Deflated),
    /// Only in the page's final stored record.
    InStore,
}

impl Text {
    fn held(&self) -> Option<&Deflated> {
        match self {
            Text::Held(text) => Some(text),
            Text::InStore => None,
        }
    }
}

/// A page in the answer of the lexical and the vector hits.
#[derive(Debug, Clone, Copy)]
struct Fused {
    /// Its best passage by its words, and by meaning.
    by_words: Option<u16>,
    by_meaning: Option<u16>,
}

/// What is held for a page.
#[derive(Debug, Clone)]
struct Held {
    title: String,
    read_ms: i64,
    /// Its text, while its record is not final ([`Text`]).
    text: Text,
    spans: Box<[Span]>,
    /// The passages embedded (indices into `spans`, increasing).
    embedded: Box<[u16]>,
    /// Embedded passages not sent to the model yet.
    pending: Vec<u16>,
    /// Changes with every change of what is held (a read, vectors): a write or a batch of vectors
    /// is matched with the page as it was.
    version: u64,
    /// Which read of the page this is: vectors of another read's passages are dropped.
    read: u64,
    /// The page's bytes, as counted against the cap ([`STORED_VECTOR_BYTES`]).
    bytes: u64,
    /// A record of the page is in the store (perhaps an older one).
    stored: bool,
    /// Vectors are held that no stored record has.
    vectors_unsaved: bool,
}

/// The write out.
#[derive(Debug)]
struct SaveOut {
    id: u64,
    items: Vec<SaveItem>,
}

#[derive(Debug)]
struct SaveItem {
    url: String,
    version: u64,
    /// The record written has a vector for every embedded passage: once written, and the page
    /// still at `version`, it is final ([`Text`]).
    whole: bool,
    /// Removed since the write went out: deleted once it is written.
    removed: bool,
}

/// The batch at the model.
#[derive(Debug)]
struct EmbedOut {
    id: u64,
    items: Vec<EmbedItem>,
}

#[derive(Debug)]
struct EmbedItem {
    url: String,
    read: u64,
    passage: u16,
}

/// Why no write or batch goes out although there is work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hold {
    /// A [`Action::RetryAfter`] timer is set.
    Retry,
    /// The last write was refused for quota.
    StorageFull,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum StoreRead {
    /// Waiting for [`Event::Start`].
    #[default]
    NotAsked,
    /// [`Action::LoadStore`] is out.
    Out,
    /// A retry timer is set for it.
    Waiting,
    /// A read asked before a clear is still being answered: this one is asked when it ends.
    AfterStale,
}

#[derive(Debug, Default)]
struct Loading {
    read: StoreRead,
    attempts: u32,
    /// Pages removed meanwhile: their stored records are deleted, not loaded.
    removed: HashSet<String>,
}

#[derive(Debug)]
enum Phase {
    /// Before the stored records are in.
    Loading(Loading),
    /// Switched off.
    Off,
    /// The stored records are in (or could not be read: [`ContentHost::store_failing`]).
    Live,
}

impl Default for Phase {
    fn default() -> Phase {
        Phase::Loading(Loading::default())
    }
}

/// The content store and its lifecycle. See the [module docs](self).
#[derive(Debug)]
pub struct ContentHost {
    phase: Phase,
    pages: HashMap<String, Held>,
    lexical: Lexical,
    vectors: PassageVectors,
    /// Pages by read time, oldest first: who goes first at the cap.
    by_read: BTreeSet<(i64, String)>,
    /// Pages with passages to send to the model, newest read first.
    todo: BTreeSet<(Reverse<i64>, String)>,
    /// Pages whose record must be written (now).
    unsaved: BTreeSet<String>,
    save_out: Option<SaveOut>,
    embed_out: Option<EmbedOut>,
    save_hold: Option<Hold>,
    embed_hold: bool,
    /// Between [`Event::UserActive`] and [`Event::UserIdle`]: no new batch of passages.
    user_active: bool,
    /// [`Event::BatteryLow`]: no new batch of passages.
    battery_low: bool,
    /// Why the model cannot run, once it is known not to.
    model: Option<UnavailableReason>,
    /// The store cannot be read or written this session.
    store_failing: bool,
    embed_failures: u32,
    save_failures: u32,
    skipped: u32,
    bytes: u64,
    cap: u64,
    exclusions: Exclusions,
    /// Removals so far (see [`ReadTicket`]).
    epoch: u64,
    /// The last clear of everything (all removed, switched off).
    cleared_at: u64,
    /// The URLs removed lately, with their removal's epoch.
    removed_log: VecDeque<(u64, String)>,
    /// The newest epoch of a URL no longer remembered.
    forgotten_at: u64,
    /// Store reads asked before a clear (switched off, all removed) and not answered to their end
    /// yet: their chunks hold what was cleared, and are ignored.
    stale_reads: u32,
    next_id: u64,
}

impl Default for ContentHost {
    fn default() -> ContentHost {
        ContentHost {
            phase: Phase::default(),
            pages: HashMap::default(),
            lexical: Lexical::default(),
            vectors: PassageVectors::default(),
            by_read: BTreeSet::new(),
            todo: BTreeSet::new(),
            unsaved: BTreeSet::new(),
            save_out: None,
            embed_out: None,
            save_hold: None,
            embed_hold: false,
            user_active: false,
            battery_low: false,
            model: None,
            store_failing: false,
            embed_failures: 0,
            save_failures: 0,
            skipped: 0,
            bytes: 0,
            cap: DEFAULT_CAP_BYTES,
            exclusions: Exclusions::default(),
            epoch: 0,
            cleared_at: 0,
            removed_log: VecDeque::new(),
            forgotten_at: 0,
            stale_reads: 0,
            next_id: 0,
        }
    }
}

impl ContentHost {
    /// A host waiting for [`Event::Start`].
    pub fn new() -> ContentHost {
        ContentHost::default()
    }

    /// Applies an event; returns what the worker must do, in order.
    pub fn handle(&mut self, event: Event) -> Vec<Action> {
        let mut actions = Vec::new();
        match event {
            Event::Start { enabled } => self.start(enabled, &mut actions),
            Event::SetEnabled(true) => self.enable(&mut actions),
            Event::SetEnabled(false) => self.disable(&mut actions),
            Event::StoreLoaded { records, done } => self.loaded(records, done, &mut actions),
            Event::StoreFailed => self.load_failed(&mut actions),
            Event::Read { page, now_ms } => self.read(page, now_ms, &mut actions),
            Event::Embedded { batch, vectors } => self.embedded(batch, vectors, &mut actions),
            Event::EmbedFailed { batch, failure } => {
                self.embed_failed(batch, failure, &mut actions)
            }
            Event::Saved { batch } => self.saved(batch, &mut actions),
            Event::SaveFailed { batch, quota } => self.save_failed(batch, quota, &mut actions),
            Event::Removed(Removal::All) => self.clear(&mut actions),
            Event::Removed(Removal::Urls(urls)) => self.remove(urls, &mut actions),
            Event::Exclusions(exclusions) => self.exclude(exclusions, &mut actions),
            Event::SetCap { bytes } => self.set_cap(bytes, &mut actions),
            Event::RetryDue => self.retry_due(&mut actions),
            Event::UserActive => self.user_active = true,
            Event::UserIdle => {
                self.user_active = false;
                self.pump(&mut actions);
            }
            Event::BatteryLow(low) => {
                self.battery_low = low;
                self.pump(&mut actions);
            }
        }
        self.lexical.settle();
        actions
    }

    /// The ticket of a read the worker begins now (see [`ReadTicket`]).
    pub fn ticket(&self) -> ReadTicket {
        ReadTicket(self.epoch)
    }

    /// The pages `sites` allows that said something matching the question, best first, at most
    /// `limit`: with the question's vector, those whose best passage stands out in meaning
    /// ([`super::vectors`], [`CONTENT_STANDOUT`]), most similar first; then those whose passages
    /// hold its words (`query_text`: the question without its `site:` terms; [`super::lexical`]),
    /// best first. Each comes with the passage that matched best — the one its words matched
    /// when they did, else the one closest in meaning —, shown by [`ContentMatch::passage`] (cut
    /// around the question's words, marked) from the text held or the page's stored record.
    /// Nothing while switched off; what is loaded while loading.
    ///
    /// **Meaning first, not RRF**: the stand-out rule already keeps only the pages that stand out
    /// — one or two when a page holds the question's words, about seven for a paraphrase —, while
    /// the words always find pages sharing a stray word with a paraphrase or a question in the
    /// other language. Measured on the content evaluation (`history-chat-embedding`'s
    /// `content_vectors` example), RRF of the two lists kept the page sought in the top five for
    /// 0.54 of the paraphrases and 0.68 of the cross-language questions, weighting meaning 1.5–3×
    /// for 0.65 and 0.71; meaning first keeps all the vectors find (0.78, 0.75), and the body,
    /// deep-fact and navigation-trap questions stay at 1.00.
    pub fn search(
        &self,
        query_text: &str,
        query_vector: Option<&[f32]>,
        sites: &SiteFilter,
        limit: usize,
    ) -> Vec<ContentMatch> {
        if matches!(self.phase, Phase::Off) || limit == 0 {
            return Vec::new();
        }
        let words = self.lexical.search(query_text, sites, FUSION_POOL);
        let meanings = query_vector
            .map(|q| {
                self.vectors
                    .search(q, sites, FUSION_POOL, &CONTENT_STANDOUT)
            })
            .unwrap_or_default();
        // The pages standing out in meaning first, then those of the words (see above).
        let mut ranked: Vec<(&str, Fused)> = Vec::with_capacity(meanings.len() + words.len());
        for hit in &meanings {
            ranked.push((
                hit.url.as_str(),
                Fused {
                    by_words: None,
                    by_meaning: Some(hit.passage),
                },
            ));
        }
        for hit in &words {
            match ranked.iter_mut().find(|(url, _)| *url == hit.url) {
                Some((_, found)) => found.by_words = Some(hit.passage),
                None => ranked.push((
                    hit.url.as_str(),
                    Fused {
                        by_words: Some(hit.passage),
                        by_meaning: None,
                    },
                )),
            }
        }
        ranked
            .into_iter()
            .filter_map(|(url, found)| {
                let held = self.pages.get(url)?;
                let passage = found.by_words.or(found.by_meaning)?;
                let span = *held.spans.get(usize::from(passage))?;
                Some(ContentMatch {
                    url: url.to_owned(),
                    passage,
                    span,
                    read_ms: held.read_ms,
                    text: held.text.held().cloned(),
                })
            })
            .take(limit)
            .collect()
    }

    /// Whether the content of the page at `url` (cleaned) is held: a catch-up reads only the
    /// pages that are not.
    pub fn holds(&self, url: &str) -> bool {
        self.pages.contains_key(url)
    }

    /// The pages whose content is held, once the store is loaded (`None` while it loads, or
    /// reading is off): what the worker checks against the history and the bookmarks.
    pub fn held_urls(&self) -> Option<Vec<String>> {
        matches!(self.phase, Phase::Live).then(|| self.pages.keys().cloned().collect())
    }

    /// The state and counts, for the options page.
    pub fn progress(&self) -> ContentProgress {
        let status = match self.phase {
            Phase::Off => ContentStatus::Off,
            Phase::Loading(_) => ContentStatus::Loading,
            Phase::Live if self.store_failing => {
                ContentStatus::Unavailable(UnavailableReason::StoreFailing)
            }
            Phase::Live if self.save_hold == Some(Hold::StorageFull) => ContentStatus::StorageFull,
            Phase::Live => {
                let embedding =
                    self.embed_out.is_some() || (self.model.is_none() && !self.todo.is_empty());
                let saving = self.save_out.is_some() || !self.unsaved.is_empty();
                if embedding && self.battery_low && self.embed_out.is_none() && !saving {
                    ContentStatus::Paused
                } else if embedding || saving {
                    ContentStatus::Reading
                } else {
                    ContentStatus::Ready
                }
            }
        };
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        let total: usize = self.pages.values().map(|h| h.embedded.len()).sum();
        ContentProgress {
            status,
            pages: count(self.pages.len()),
            passages_embedded: count(self.vectors.len()),
            passages_total: count(total),
            bytes: self.bytes,
            model: self.model,
        }
    }

    /// Whether the host has passages for the model (a batch out, or some to send): while it does,
    /// the worker must not close the model for idleness.
    pub fn needs_embedder(&self) -> bool {
        self.embed_out.is_some()
            || (matches!(self.phase, Phase::Live)
                && self.embedding_allowed()
                && !self.todo.is_empty())
    }

    /// Stored records that could not be read at the last load (another version, corrupt); they
    /// were deleted.
    pub fn skipped(&self) -> u32 {
        self.skipped
    }

    /// The words' index (for the evaluation and the measurements).
    pub fn lexical(&self) -> &Lexical {
        &self.lexical
    }

    /// The passages' vectors (for the evaluation and the measurements).
    pub fn vectors(&self) -> &PassageVectors {
        &self.vectors
    }

    /// Bytes on the heap of what is held per page besides the words' index and the vectors,
    /// roughly: each page's deflated text while it is held (see the [module docs](self)), spans,
    /// title and URL (three copies: the map, the read-time order, the queues), and the maps at
    /// their capacity.
    pub fn pages_heap_bytes(&self) -> usize {
        let per_page: usize = self
            .pages
            .iter()
            .map(|(url, held)| {
                3 * url.len()
                    + held.title.capacity()
                    + held.text.held().map_or(0, Deflated::len)
                    + held.spans.len() * size_of::<Span>()
                    + (held.embedded.len() + held.pending.capacity()) * 2
            })
            .sum();
        per_page
            + self.pages.capacity() * 8 / 7 * (size_of::<(String, Held)>() + 1)
            + self.by_read.len() * (size_of::<(i64, String)>() + 16)
            + self.todo.len() * (size_of::<(Reverse<i64>, String)>() + 16)
    }

    fn start(&mut self, enabled: bool, actions: &mut Vec<Action>) {
        if !enabled {
            self.disable(actions);
            return;
        }
        self.enable(actions);
    }

    fn enable(&mut self, actions: &mut Vec<Action>) {
        match &mut self.phase {
            Phase::Off => {
                self.phase = Phase::default();
                self.read_store(actions);
            }
            Phase::Loading(loading) if loading.read == StoreRead::NotAsked => {
                self.read_store(actions);
            }
            Phase::Loading(_) | Phase::Live => {}
        }
    }

    /// Asks for the store, or waits for a read asked before a clear to end (one read out at a
    /// time).
    fn read_store(&mut self, actions: &mut Vec<Action>) {
        if let Phase::Loading(loading) = &mut self.phase {
            if self.stale_reads > 0 {
                loading.read = StoreRead::AfterStale;
            } else {
                loading.read = StoreRead::Out;
                actions.push(Action::LoadStore);
            }
        }
    }

    /// The end of a store read asked before a clear: ignored, and the read waiting for it asked.
    fn stale_read_ended(&mut self, actions: &mut Vec<Action>) {
        self.stale_reads -= 1;
        if let Phase::Loading(loading) = &self.phase
            && loading.read == StoreRead::AfterStale
        {
            self.read_store(actions);
        }
    }

    fn disable(&mut self, actions: &mut Vec<Action>) {
        if matches!(self.phase, Phase::Off) {
            return;
        }
        self.forget_everything();
        self.phase = Phase::Off;
        self.model = None;
        self.store_failing = false;
        self.skipped = 0;
        actions.push(Action::Clear);
    }

    /// Forgets every page, what is out and every hold; reads begun before are dropped, and so is
    /// a store read that is out.
    fn forget_everything(&mut self) {
        if let Phase::Loading(Loading {
            read: StoreRead::Out,
            ..
        }) = self.phase
        {
            self.stale_reads += 1;
        }
        self.pages.clear();
        self.lexical.clear();
        self.vectors.clear();
        self.by_read.clear();
        self.todo.clear();
        self.unsaved.clear();
        // What is out is answered later and ignored (its batch is gone).
        self.save_out = None;
        self.embed_out = None;
        self.save_hold = None;
        self.embed_hold = false;
        self.embed_failures = 0;
        self.save_failures = 0;
        self.bytes = 0;
        self.epoch += 1;
        self.cleared_at = self.epoch;
        self.removed_log.clear();
    }

    fn loaded(&mut self, records: Vec<StoredRecord>, done: bool, actions: &mut Vec<Action>) {
        if self.stale_reads > 0 {
            // A chunk of a read asked before a clear.
            if done {
                self.stale_read_ended(actions);
            }
            return;
        }
        let Phase::Loading(loading) = &mut self.phase else {
            // A read that no longer matters (switched off, or cleared meanwhile).
            return;
        };
        if loading.read != StoreRead::Out {
            return;
        }
        let removed = std::mem::take(&mut loading.removed);
        let mut delete = Vec::new();
        for StoredRecord { url, bytes } in records {
            if removed.contains(&url) || self.exclusions.excludes(&url) {
                delete.push(url);
                continue;
            }
            if self.pages.contains_key(&url) {
                // Read meanwhile: what is held is newer, and is written over it.
                continue;
            }
            let decoded = match Record::decode(&bytes) {
                Ok(decoded) if decoded.record.url == url => decoded,
                _ => {
                    self.skipped = self.skipped.saturating_add(1);
                    delete.push(url);
                    continue;
                }
            };
            let record = decoded.record;
            let mut pending = Vec::new();
            for PassageVector { passage, vector } in &record.vectors {
                match vector {
                    Some(vector) => self.vectors.insert(&url, *passage, vector),
                    None => pending.push(*passage),
                }
            }
            self.lexical.insert(&url, &decoded.text, &record.spans);
            let version = self.next_id();
            // A final record's text stays in the store; one with passages to embed is held.
            let text = if pending.is_empty() {
                Text::InStore
            } else {
                Text::Held(record.text)
            };
            let held = Held {
                title: record.title,
                read_ms: record.read_ms,
                text,
                embedded: record.vectors.iter().map(|v| v.passage).collect(),
                spans: record.spans.into(),
                pending,
                version,
                read: version,
                bytes: bytes.len() as u64
                    + STORED_VECTOR_BYTES
                        * record.vectors.iter().filter(|v| v.vector.is_none()).count() as u64,
                stored: true,
                vectors_unsaved: false,
            };
            self.hold(url, held);
        }
        if !delete.is_empty() {
            actions.push(Action::Delete { urls: delete });
        }
        if done {
            self.phase = Phase::Live;
            self.enforce_cap(actions);
            self.pump(actions);
        } else if let Phase::Loading(loading) = &mut self.phase {
            loading.removed = removed;
        }
    }

    fn load_failed(&mut self, actions: &mut Vec<Action>) {
        if self.stale_reads > 0 {
            self.stale_read_ended(actions);
            return;
        }
        let Phase::Loading(loading) = &mut self.phase else {
            return;
        };
        if loading.read != StoreRead::Out {
            return;
        }
        loading.attempts += 1;
        if loading.attempts < LOAD_ATTEMPTS {
            loading.read = StoreRead::Waiting;
            actions.push(Action::RetryAfter {
                ms: retry_delay(loading.attempts),
            });
            return;
        }
        // The store cannot be read: what was loaded stays searchable, nothing more is kept, and
        // every removal is deleted from the store whatever is held (its content is unknown).
        let removed: Vec<String> = loading.removed.drain().collect();
        if !removed.is_empty() {
            actions.push(Action::Delete { urls: removed });
        }
        self.phase = Phase::Live;
        self.store_failing = true;
    }

    fn read(&mut self, page: ReadPage, now_ms: i64, actions: &mut Vec<Action>) {
        let ReadPage {
            url,
            title,
            text,
            ticket,
        } = page;
        let readable = match self.phase {
            Phase::Off => false,
            Phase::Loading(_) => true,
            Phase::Live => !self.store_failing && self.save_hold != Some(Hold::StorageFull),
        };
        if !readable {
            return;
        }
        let Ok(url) = clean_url(&url).map(String::from) else {
            return;
        };
        if self.exclusions.excludes(&url) || self.stale(ticket, &url) {
            return;
        }
        let page = cut(&text);
        if page.is_empty() {
            // Nothing worth keeping (now): what was read of it before stays.
            return;
        }
        let stored = self.forget(&url).is_some_and(|old| old.stored);
        let title = match title.char_indices().nth(MAX_TITLE_CHARS) {
            Some((at, _)) => title[..at].to_owned(),
            None => title,
        };
        self.lexical.insert(&url, &page.text, &page.spans);
        let version = self.next_id();
        let mut held = Held {
            title,
            read_ms: now_ms,
            text: Text::Held(Deflated::of(&page.text)),
            spans: page.spans.into(),
            embedded: page.embedded.clone().into(),
            pending: page.embedded,
            version,
            read: version,
            bytes: 0,
            stored,
            vectors_unsaved: false,
        };
        held.bytes = self
            .record(&url, &held)
            .map_or(0, |record| record.encoded_len() as u64)
            + STORED_VECTOR_BYTES * held.embedded.len() as u64;
        self.unsaved.insert(url.clone());
        self.hold(url, held);
        if matches!(self.phase, Phase::Live) {
            self.enforce_cap(actions);
            self.pump(actions);
        }
    }

    /// Whether a read of `url` begun at `ticket` began before a removal of it.
    fn stale(&self, ticket: ReadTicket, url: &str) -> bool {
        let ReadTicket(at) = ticket;
        at < self.cleared_at
            || at < self.forgotten_at
            || self
                .removed_log
                .iter()
                .rev()
                .take_while(|(epoch, _)| *epoch > at)
                .any(|(_, removed)| removed == url)
    }

    /// Adds a page to what is held (its words already indexed, its vectors inserted).
    fn hold(&mut self, url: String, held: Held) {
        self.bytes += held.bytes;
        self.by_read.insert((held.read_ms, url.clone()));
        if !held.pending.is_empty() {
            self.todo.insert((Reverse(held.read_ms), url.clone()));
        }
        self.pages.insert(url, held);
    }

    /// Forgets what is held for `url` (words, vectors, its place in every queue); what was held.
    fn forget(&mut self, url: &str) -> Option<Held> {
        let held = self.pages.remove(url)?;
        self.lexical.remove(url);
        self.vectors.remove(url);
        self.by_read.remove(&(held.read_ms, url.to_owned()));
        self.todo.remove(&(Reverse(held.read_ms), url.to_owned()));
        self.unsaved.remove(url);
        self.bytes = self.bytes.saturating_sub(held.bytes);
        Some(held)
    }

    /// The page's record as it would be written now; `None` when its text is no longer held:
    /// its stored record is final, and is this one ([`Text`]).
    fn record(&self, url: &str, held: &Held) -> Option<Record> {
        let text = held.text.held()?.clone();
        let mut vectors: HashMap<u16, Quantised> = self.vectors.of(url).into_iter().collect();
        Some(Record {
            url: url.to_owned(),
            title: held.title.clone(),
            read_ms: held.read_ms,
            text,
            spans: held.spans.to_vec(),
            vectors: held
                .embedded
                .iter()
                .map(|&passage| PassageVector {
                    passage,
                    vector: vectors.remove(&passage),
                })
                .collect(),
        })
    }

    fn remove(&mut self, urls: Vec<String>, actions: &mut Vec<Action>) {
        if matches!(self.phase, Phase::Off) || urls.is_empty() {
            return;
        }
        self.epoch += 1;
        for url in &urls {
            if self.removed_log.len() >= REMOVED_URLS_REMEMBERED
                && let Some((epoch, _)) = self.removed_log.pop_front()
            {
                self.forgotten_at = self.forgotten_at.max(epoch);
            }
            self.removed_log.push_back((self.epoch, url.clone()));
        }
        let mut delete = Vec::new();
        let in_write: HashSet<&str> = urls.iter().map(String::as_str).collect();
        if let Some(save) = &mut self.save_out {
            for item in &mut save.items {
                item.removed |= in_write.contains(item.url.as_str());
            }
        }
        for url in &urls {
            if let Some(held) = self.forget(url)
                && held.stored
            {
                delete.push(url.clone());
            }
        }
        match &mut self.phase {
            Phase::Loading(loading) => loading.removed.extend(urls),
            // What the store holds is unknown: delete every removed page's record.
            Phase::Live if self.store_failing => delete = urls,
            Phase::Live | Phase::Off => {}
        }
        let freed = !delete.is_empty();
        if freed {
            actions.push(Action::Delete { urls: delete });
        }
        if freed && self.save_hold == Some(Hold::StorageFull) {
            self.save_hold = None;
        }
        self.pump(actions);
    }

    fn clear(&mut self, actions: &mut Vec<Action>) {
        if matches!(self.phase, Phase::Off) {
            return;
        }
        self.forget_everything();
        actions.push(Action::Clear);
        if let Phase::Loading(loading) = &mut self.phase {
            loading.removed.clear();
            if loading.read != StoreRead::NotAsked {
                // The store is empty now: the read that is out (or waits) would bring back what
                // was just cleared.
                self.phase = Phase::Live;
            }
        }
    }

    fn exclude(&mut self, exclusions: Exclusions, actions: &mut Vec<Action>) {
        self.exclusions = exclusions;
        if self.exclusions.is_empty() {
            return;
        }
        let excluded: Vec<String> = self
            .pages
            .keys()
            .filter(|url| self.exclusions.excludes(url))
            .cloned()
            .collect();
        if !excluded.is_empty() {
            self.remove(excluded, actions);
        }
    }

    fn set_cap(&mut self, bytes: u64, actions: &mut Vec<Action>) {
        self.cap = bytes;
        if matches!(self.phase, Phase::Live) {
            self.enforce_cap(actions);
            if self.save_hold == Some(Hold::StorageFull) {
                // Another cap: try writing again (if the browser still refuses, this comes back).
                self.save_hold = None;
            }
            self.pump(actions);
        }
    }

    /// Removes the pages read longest ago until the bytes are within the cap.
    fn enforce_cap(&mut self, actions: &mut Vec<Action>) {
        let mut evicted = Vec::new();
        while self.bytes > self.cap {
            let Some((_, url)) = self.by_read.first().cloned() else {
                break;
            };
            self.forget(&url);
            evicted.push(url);
        }
        if evicted.is_empty() {
            return;
        }
        let mut delete = Vec::new();
        let gone: HashSet<&str> = evicted.iter().map(String::as_str).collect();
        if let Some(save) = &mut self.save_out {
            for item in &mut save.items {
                item.removed |= gone.contains(item.url.as_str());
            }
        }
        // Evicted pages were stored, or are being written (deleted after), or were never written.
        delete.extend(evicted.iter().cloned());
        actions.push(Action::Delete { urls: delete });
    }

    fn retry_due(&mut self, actions: &mut Vec<Action>) {
        if let Phase::Loading(loading) = &mut self.phase {
            if loading.read == StoreRead::Waiting {
                loading.read = StoreRead::Out;
                actions.push(Action::LoadStore);
            }
            return;
        }
        if self.save_hold == Some(Hold::Retry) {
            self.save_hold = None;
        }
        self.embed_hold = false;
        self.pump(actions);
    }

    fn embedded(&mut self, id: u64, vectors: Vec<Vec<f32>>, actions: &mut Vec<Action>) {
        let Some(batch) = self.embed_out.take_if(|b| b.id == id) else {
            return;
        };
        let quantised: Option<Vec<Quantised>> = if vectors.len() == batch.items.len() {
            vectors.iter().map(|v| Quantised::from_f32(v)).collect()
        } else {
            None
        };
        let Some(quantised) = quantised else {
            // Something else than one vector per passage: as a crash.
            self.requeue(batch.items);
            self.crashed(actions);
            return;
        };
        self.embed_failures = 0;
        let mut touched: Vec<String> = Vec::new();
        for (item, vector) in batch.items.into_iter().zip(quantised) {
            let version = self.next_id();
            let Some(held) = self.pages.get_mut(&item.url) else {
                continue;
            };
            if held.read != item.read {
                continue;
            }
            self.vectors.insert(&item.url, item.passage, &vector);
            held.version = version;
            held.vectors_unsaved = true;
            if touched.last() != Some(&item.url) {
                touched.push(item.url);
            }
        }
        for url in touched {
            if self.pages.get(&url).is_some_and(|h| h.pending.is_empty()) {
                self.unsaved.insert(url);
            }
        }
        self.pump(actions);
    }

    fn embed_failed(&mut self, id: u64, failure: EmbedFailure, actions: &mut Vec<Action>) {
        let Some(batch) = self.embed_out.take_if(|b| b.id == id) else {
            return;
        };
        self.requeue(batch.items);
        let reason = match failure {
            EmbedFailure::Crashed(_) => return self.crashed(actions),
            EmbedFailure::ModelMissing => UnavailableReason::ModelMissing,
            EmbedFailure::ModelCorrupt => UnavailableReason::ModelCorrupt,
            EmbedFailure::Unsupported => UnavailableReason::Unsupported,
        };
        self.give_up_model(reason, actions);
    }

    fn crashed(&mut self, actions: &mut Vec<Action>) {
        self.embed_failures += 1;
        if self.embed_failures >= EMBED_ATTEMPTS {
            self.give_up_model(UnavailableReason::ModelFailing, actions);
        } else {
            self.embed_hold = true;
            actions.push(Action::RetryAfter {
                ms: retry_delay(self.embed_failures),
            });
        }
    }

    /// The model cannot run: nothing more is embedded this session, and the vectors of pages
    /// embedded in part are written now.
    fn give_up_model(&mut self, reason: UnavailableReason, actions: &mut Vec<Action>) {
        self.model = Some(reason);
        self.embed_hold = false;
        let partial: Vec<String> = self
            .pages
            .iter()
            .filter(|(_, held)| held.vectors_unsaved)
            .map(|(url, _)| url.clone())
            .collect();
        self.unsaved.extend(partial);
        self.pump(actions);
    }

    /// Puts a batch's passages back to be embedded (those of pages still held as they were).
    fn requeue(&mut self, items: Vec<EmbedItem>) {
        for item in items.into_iter().rev() {
            let Some(held) = self.pages.get_mut(&item.url) else {
                continue;
            };
            if held.read != item.read || held.pending.contains(&item.passage) {
                continue;
            }
            held.pending.insert(0, item.passage);
            self.todo.insert((Reverse(held.read_ms), item.url));
        }
    }

    fn saved(&mut self, id: u64, actions: &mut Vec<Action>) {
        let Some(save) = self.save_out.take_if(|s| s.id == id) else {
            return;
        };
        self.save_failures = 0;
        let mut delete = Vec::new();
        for item in save.items {
            if item.removed {
                // Removed while it was written: deleted after the write (a page read again
                // meanwhile is written again after the delete).
                if let Some(held) = self.pages.get_mut(&item.url) {
                    held.stored = false;
                }
                delete.push(item.url);
                continue;
            }
            if let Some(held) = self.pages.get_mut(&item.url) {
                held.stored = true;
                if held.version == item.version {
                    held.vectors_unsaved = false;
                    if item.whole {
                        // Final: the store holds this very page, every vector in it.
                        held.text = Text::InStore;
                    }
                }
            }
        }
        if !delete.is_empty() {
            actions.push(Action::Delete { urls: delete });
        }
        self.pump(actions);
    }

    fn save_failed(&mut self, id: u64, quota: bool, actions: &mut Vec<Action>) {
        let Some(save) = self.save_out.take_if(|s| s.id == id) else {
            return;
        };
        // Nothing was written: removed pages are simply dropped, the others written again.
        for item in save.items {
            if !item.removed && self.pages.contains_key(&item.url) {
                self.unsaved.insert(item.url);
            }
        }
        if quota {
            self.save_hold = Some(Hold::StorageFull);
            return;
        }
        self.save_failures += 1;
        if self.save_failures >= SAVE_ATTEMPTS {
            self.store_failing = true;
            self.unsaved.clear();
        } else {
            self.save_hold = Some(Hold::Retry);
            actions.push(Action::RetryAfter {
                ms: retry_delay(self.save_failures),
            });
        }
    }

    fn embedding_allowed(&self) -> bool {
        self.model.is_none()
            && !self.store_failing
            && !self.embed_hold
            && !self.user_active
            && !self.battery_low
            && self.save_hold != Some(Hold::StorageFull)
    }

    /// Sends the next write and the next batch when nothing holds them.
    fn pump(&mut self, actions: &mut Vec<Action>) {
        if !matches!(self.phase, Phase::Live) {
            return;
        }
        self.pump_save(actions);
        self.pump_embed(actions);
    }

    fn pump_save(&mut self, actions: &mut Vec<Action>) {
        if self.store_failing || self.save_hold.is_some() || self.save_out.is_some() {
            return;
        }
        let mut items = Vec::new();
        let mut records = Vec::new();
        while items.len() < SAVE_BATCH_PAGES {
            let Some(url) = self.unsaved.pop_first() else {
                break;
            };
            let Some(held) = self.pages.get(&url) else {
                continue;
            };
            let Some(record) = self.record(&url, held) else {
                // Its stored record is final, and is what would be written.
                continue;
            };
            let whole = record.vectors.iter().all(|v| v.vector.is_some());
            records.push(StoredRecord {
                url: url.clone(),
                bytes: record.encode(),
            });
            items.push(SaveItem {
                url,
                version: held.version,
                whole,
                removed: false,
            });
        }
        if items.is_empty() {
            return;
        }
        let id = self.next_id();
        actions.push(Action::Save { batch: id, records });
        self.save_out = Some(SaveOut { id, items });
    }

    fn pump_embed(&mut self, actions: &mut Vec<Action>) {
        if self.embed_out.is_some() || !self.embedding_allowed() {
            return;
        }
        let mut items = Vec::new();
        let mut texts = Vec::new();
        while items.len() < EMBED_BATCH_PASSAGES {
            let Some((key, url)) = self.todo.first().map(|(k, u)| (*k, u.clone())) else {
                break;
            };
            let Some(held) = self.pages.get_mut(&url) else {
                self.todo.remove(&(key, url));
                continue;
            };
            // A page with passages to embed holds its text ([`Text`]). Were it not, its passages
            // would wait, unsent, for the page's next read or load (which bring the text).
            let Some(deflated) = held.text.held() else {
                self.todo.remove(&(key, url));
                continue;
            };
            let text = deflated.inflate().unwrap_or_default();
            while items.len() < EMBED_BATCH_PASSAGES && !held.pending.is_empty() {
                let passage = held.pending.remove(0);
                let Some(piece) = held
                    .spans
                    .get(usize::from(passage))
                    .and_then(|span| text.get(span.range()))
                else {
                    continue;
                };
                texts.push(piece.to_owned());
                items.push(EmbedItem {
                    url: url.clone(),
                    read: held.read,
                    passage,
                });
            }
            if held.pending.is_empty() {
                self.todo.remove(&(key, url));
            }
        }
        if items.is_empty() {
            return;
        }
        let id = self.next_id();
        actions.push(Action::Embed { batch: id, texts });
        self.embed_out = Some(EmbedOut { id, items });
    }

    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

#[cfg(test)]
mod tests;
