//! The semantic index's life in the service worker, as a pure state machine.
//!
//! The worker owns one [`SemanticHost`]. It feeds in what happens ([`Event`]: the switch, the
//! stored vectors were read, the lexical index gained or lost pages, the model answered a batch,
//! a write ended, a timer fired) and carries out what the host says ([`Action`]: read the store,
//! embed these passages, store these records, delete these, clear the store, set a timer, close
//! the model). Questions are answered by [`SemanticHost::search`] with a vector the worker had the
//! model make. Nothing here touches the browser, the model or a clock. Live with nothing to do
//! is "ready" only once the lexical index holds the whole history and has handed every page
//! ([`Event::Listed`]): before, the host cannot tell an empty history from pages still to come,
//! and says "loading".
//!
//! ```text
//!   (new) ── Start{true} ──▶ Loading ── StoreLoaded / StoreFailed ──▶ Live: Building ⇄ Ready
//!     │                        ▲                                        │         │
//!     │ Start{false}           │ SetEnabled(true)        model missing, │         │ quota
//!     ▼ SetEnabled(false)      │                         crashing, …    ▼         ▼
//!    Off ◀─────────────────────┴── SetEnabled(false) ──────────── Unavailable   StorageFull
//!                                                               (this session)  (until a removal)
//!
//!   a page's way:  to-do ── Embed ──▶ embedding ── Embedded ──▶ saving ── Saved ──▶ Vectors
//!                  ▲ newest first        │ EmbedFailed, broken      │ SaveFailed
//!                  └──── back in the to-do (RetryAfter)              └─▶ unsaved ── RetryDue ─▶ saving
//! ```
//!
//! - **Loading** reads the stored vectors, in chunks: each is searchable as soon as it is read (it
//!   was stored). A removal meanwhile deletes a record already read at once, and one still to come
//!   when it comes. Pages that come meanwhile wait, then each page is compared with its
//!   stored vector by [`super::page_hash`] (cheap: no passage is written for it): the same hash
//!   only updates its last visit; a new page, or one whose title came later or changed, goes to
//!   the to-do.
//! - **Building** embeds the to-do newest first, [`BATCH_PAGES`] at a time, one batch out at a
//!   time (embedding or saving, never both, never two). A page becomes searchable only once its
//!   record is stored: the to-do is never stored, it is what the pages the lexical index holds
//!   lack in the store, so a worker (or the document hosting the model) killed mid-batch just
//!   embeds that batch again at the next start, and a batch stored just before the kill is not
//!   embedded twice.
//! - A page **removed** while its batch is out is never made searchable, and its record is
//!   deleted if it was written. `Removal::All` clears the vectors, the to-do and the store.
//! - **Failures**: a crash (or vectors of the wrong count or length) puts the batch back and
//!   retries after a growing delay, [`EMBED_ATTEMPTS`] times in a row at most; a missing, corrupt
//!   or unsupported model makes the index [`SemanticStatus::Unavailable`] at once. A refused write
//!   for quota pauses the build ([`SemanticStatus::StorageFull`]) until a removal frees space or
//!   the next start; another refused write is retried like a crash ([`SAVE_ATTEMPTS`]).
//! - **Pauses**: no new batch starts while the user types or asks ([`Event::UserActive`], for
//!   [`USER_PAUSE_MS`] after the last time) or while the computer runs on a low battery
//!   ([`Event::BatteryLow`], [`SemanticStatus::Paused`]); the batch out finishes.
//! - **Off** (the user's switch): the store is cleared, the model closed, nothing is embedded and
//!   searches find nothing.
//!
//! What the worker guarantees in return: it carries out actions in order (IndexedDB runs
//! transactions on one store in the order they were made, so a `Delete` after a `Save` wins);
//! every [`Action::Embed`] gets one [`Event::Embedded`] or [`Event::EmbedFailed`] (a dead model
//! or document is `Crashed`), every [`Action::Save`] one [`Event::Saved`] or [`Event::SaveFailed`],
//! and a `Save` is one transaction (all its records or none); [`Event::Pages`] carries the lexical
//! index's pages as it gains or updates them (all of them once its snapshot is loaded, and after
//! [`Action::SendAllPages`]) and [`Event::Removed`] the pages it lost.
//!
//! Every constant of the build's timing and size lives here, with its reason.

use std::cmp::Reverse;
use std::collections::BTreeSet;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::passage::{page_hash_of, passage_of};
use super::{
    Entry, Quantised, Record, SIMILARITY_FLOOR, SIMILARITY_MARGIN, STANDOUT_MIN_PAGES, STANDOUT_Z,
    STANDOUT_Z_BESIDE_WORDS, SemanticProgress, SemanticStatus, UnavailableReason, Vectors, Words,
};
use crate::exclusions::Exclusions;
use crate::history::Page;
use crate::site_filter::SiteFilter;

/// Passages per [`Action::Embed`]. A passage of up to [`super::PASSAGE_MAX_CHARS`] characters is
/// about 100 tokens, tens of milliseconds for the model in WebAssembly; the question of a search
/// is embedded by the same model, after the batch it is running — so a batch must stay short
/// (a few hundred milliseconds at most) for a question never to wait long behind it. Eight also
/// makes a write of about 4 KB, one IndexedDB transaction per batch.
pub const BATCH_PAGES: usize = 8;

/// The delay before retrying after the first failure (a crash, broken vectors, a refused write
/// other than quota); each further failure in a row doubles it, up to [`RETRY_MAX_MS`]. A crashed
/// model's document is recreated by the worker, which takes about a second.
pub const RETRY_FIRST_MS: u32 = 1_000;
/// See [`RETRY_FIRST_MS`].
pub const RETRY_MAX_MS: u32 = 16_000;

/// A batch the model fails on (crash, wrong count or length of vectors) this many times in a row
/// makes the index [`UnavailableReason::ModelFailing`]: after 1 + 2 + 4 + 8 s of retries, the
/// model is not going to work in this session, and reloading it forever would only burn the CPU.
pub const EMBED_ATTEMPTS: u32 = 5;

/// Writes refused (other than for quota) this many times in a row make the index
/// [`UnavailableReason::StoreFailing`]: IndexedDB is broken for this profile.
pub const SAVE_ATTEMPTS: u32 = 5;

/// For the worker: once the host does not need the model ([`SemanticHost::needs_embedder`] is
/// false: the build is done, paused or impossible), the worker closes it after this long without
/// a question to embed. Loading the model costs about a second and its memory (tens of MB) while
/// open; five minutes covers a search session's questions. The host itself sends
/// [`Action::CloseEmbedder`] only when the model is no use at all (switched off, unavailable,
/// storage full), never while a build needs it.
pub const EMBEDDER_IDLE_MS: u32 = 5 * 60 * 1000;

/// How long after the user's last keystroke or question the build waits before its next batch:
/// longer than the pause between two keystrokes and between the last one and Enter (a question is
/// typed in bursts), short enough that a build barely slows while the popup stays open unused.
pub const USER_PAUSE_MS: u32 = 1_500;

/// Records per [`Event::StoreLoaded`] chunk, for the worker: reading one into the arena takes
/// 4–6 µs in WebAssembly, so a chunk of 2,000 holds the worker's thread 5–10 ms (up to about 40 ms
/// the few times the arena grows), where 50,000 records in one go hold it 0.2–0.3 s.
pub const STORE_CHUNK_RECORDS: usize = 2_000;

/// Pages per [`Event::Pages`], for the worker: comparing a page with its stored vector takes
/// 1.2–1.5 µs in WebAssembly, queueing a new one 1.5–3 µs, so 2,000 pages hold the worker's
/// thread 3–7 ms (the whole of a 50,000-page history in one event: 60–160 ms).
pub const PAGES_PER_EVENT: usize = 2_000;

/// The stand-out rule's parameters. What ships is [`StandoutRule::SHIPPED`]; the evaluation
/// (`history-chat-embedding`'s `eval` example) tries others with the same code.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct StandoutRule {
    /// The least similarity of any hit.
    pub floor: f32,
    /// A hit is within this of the best page's similarity; `None`: no such bound.
    pub margin: Option<f32>,
    /// Standard deviations above the period's mean a hit stands, when the words found nothing;
    /// `None`: no such bound.
    pub z: Option<f32>,
    /// The same, beside a page the words found ([`Words::Found`]).
    pub z_beside_words: Option<f32>,
}

impl StandoutRule {
    /// What ships: at least [`SIMILARITY_FLOOR`], within [`SIMILARITY_MARGIN`] of the best, and
    /// [`STANDOUT_Z`] standard deviations above the mean ([`STANDOUT_Z_BESIDE_WORDS`] beside the
    /// words' pages).
    pub const SHIPPED: StandoutRule = StandoutRule {
        floor: SIMILARITY_FLOOR,
        margin: Some(SIMILARITY_MARGIN),
        z: Some(STANDOUT_Z),
        z_beside_words: Some(STANDOUT_Z_BESIDE_WORDS),
    };

    /// The least similarity a hit needs among `all` (every page of the period, most similar
    /// first). With fewer than [`STANDOUT_MIN_PAGES`] pages to compare with, nothing is a hit
    /// (infinity).
    pub fn floor_among(self, all: &[(String, f32)], words: Words) -> f32 {
        let n = all.len().max(1) as f64;
        let mean = all.iter().map(|&(_, s)| f64::from(s)).sum::<f64>() / n;
        let variance = all
            .iter()
            .map(|&(_, s)| (f64::from(s) - mean).powi(2))
            .sum::<f64>()
            / n;
        let best = all.first().map(|&(_, similarity)| similarity);
        self.cut(best, all.len(), mean, variance.sqrt(), words)
    }

    /// [`StandoutRule::floor_among`] from the period's statistics ([`super::vectors::Scan`]):
    /// `best` is the best similarity (none: no hit), `pages` how many pages the mean and
    /// deviation are over.
    pub fn cut(
        self,
        best: Option<f32>,
        pages: usize,
        mean: f64,
        deviation: f64,
        words: Words,
    ) -> f32 {
        let Some(best) = best else {
            return self.floor;
        };
        if pages < STANDOUT_MIN_PAGES {
            return f32::INFINITY;
        }
        let z = match words {
            Words::Missed => self.z,
            Words::Found => self.z_beside_words,
        };
        let mut cut = self.floor;
        if let Some(margin) = self.margin {
            cut = cut.max(best - margin);
        }
        if let Some(z) = z {
            cut = cut.max((mean + f64::from(z) * deviation) as f32);
        }
        cut
    }
}

/// The least similarity a hit needs among `all` under the shipped rule
/// ([`StandoutRule::SHIPPED`], [`StandoutRule::floor_among`]).
pub fn standout_floor(all: &[(String, f32)], words: Words) -> f32 {
    StandoutRule::SHIPPED.floor_among(all, words)
}

/// [`standout_floor`] from the period's statistics ([`StandoutRule::cut`]).
pub fn standout_cut(
    best: Option<f32>,
    pages: usize,
    mean: f64,
    deviation: f64,
    words: Words,
) -> f32 {
    StandoutRule::SHIPPED.cut(best, pages, mean, deviation, words)
}

/// A stored record and its key, as IndexedDB holds it.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredRecord {
    /// The key: the page's cleaned URL.
    pub url: String,
    /// The value: [`Record::encode`].
    pub bytes: Vec<u8>,
}

/// Pages the lexical index lost.
#[derive(Debug, Clone, PartialEq)]
pub enum Removal {
    /// The whole history was cleared.
    All,
    /// These pages are gone (cleaned URLs of pages the lexical index no longer holds).
    Urls(Vec<String>),
}

/// Why the model did not embed a batch.
#[derive(Debug, Clone, PartialEq)]
pub enum EmbedFailure {
    /// The model asset is not in the extension.
    ModelMissing,
    /// The model asset does not load.
    ModelCorrupt,
    /// This browser cannot run the model.
    Unsupported,
    /// The model or the document hosting it died, or did not answer in time: retried.
    Crashed(String),
}

/// What happened, fed to [`SemanticHost::handle`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The worker started, with the user's switch. Sent once, first.
    Start {
        /// Semantic search is on.
        enabled: bool,
    },
    /// [`Action::LoadStore`] read these records: all of them, or the next chunk of at most
    /// [`STORE_CHUNK_RECORDS`] (`done: false` until the last), so the worker's thread serves
    /// requests between chunks. What is loaded is searchable at once.
    StoreLoaded {
        /// The records with their keys; those that do not decode are skipped and deleted.
        records: Vec<StoredRecord>,
        /// This was the last chunk.
        done: bool,
    },
    /// [`Action::LoadStore`] failed (perhaps after some chunks): what was not loaded is embedded
    /// again (and stored over what is there, key by key).
    StoreFailed,
    /// Pages the lexical index gained or updated (cleaned, merged), at most [`PAGES_PER_EVENT`]
    /// at a time.
    Pages(Vec<Page>),
    /// The lexical index holds the whole history (loaded, or its first build over) and has handed
    /// every page (the [`Event::Pages`] before this); what follows are changes. Until then the
    /// host is not "ready": it cannot tell an empty history, or a pause in the build's reads, from
    /// pages still to come.
    Listed,
    /// Pages the lexical index lost.
    Removed(Removal),
    /// The model's vectors for [`Action::Embed`]'s passages, in order.
    Embedded {
        /// Which batch.
        batch: u64,
        /// One L2-normalised vector of [`super::DIM`] components per passage.
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
    /// The timer set by [`Action::RetryAfter`] fired.
    RetryDue,
    /// The user is typing or asking (a keystroke's search, a committed question): no new batch
    /// starts until [`Event::UserIdle`], so that what they asked for has the machine (the pages'
    /// model holds a core for half a second a batch); the batch out finishes.
    UserActive,
    /// The user has done nothing for [`USER_PAUSE_MS`]: the build goes on.
    UserIdle,
    /// The computer runs on a low battery (`true`: [`crate::power::Battery::is_low`]) or no
    /// longer does: no new batch starts meanwhile ([`SemanticStatus::Paused`]), the batch out
    /// finishes.
    BatteryLow(bool),
    /// The user turned semantic search on or off.
    SetEnabled(bool),
    /// The excluded sites ([`crate::exclusions`]), when the worker starts and whenever they
    /// change: their pages' vectors are deleted (stored or to come), and their pages never
    /// embedded. A site taken off the list comes back through the lexical index's pages.
    Exclusions(Exclusions),
}

/// What the worker must do, returned by [`SemanticHost::handle`], in order.
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Read every record of the store, then feed [`Event::StoreLoaded`] (in chunks) or
    /// [`Event::StoreFailed`].
    LoadStore,
    /// Embed these passages (as passages: the model's `passage: ` prefix), then feed
    /// [`Event::Embedded`] or [`Event::EmbedFailed`].
    Embed {
        /// Fed back.
        batch: u64,
        /// At most [`BATCH_PAGES`], newest pages first.
        passages: Vec<String>,
    },
    /// Write these records in one transaction (each over any record of the same key), then feed
    /// [`Event::Saved`] or [`Event::SaveFailed`].
    Save {
        /// Fed back.
        batch: u64,
        /// The records.
        records: Vec<StoredRecord>,
    },
    /// Delete the records of these keys (those absent are no error).
    Delete {
        /// Cleaned URLs.
        urls: Vec<String>,
    },
    /// Delete every record.
    ClearStore,
    /// Feed [`Event::RetryDue`] in this many milliseconds.
    RetryAfter {
        /// The delay.
        ms: u32,
    },
    /// Close the model and free its memory (see [`EMBEDDER_IDLE_MS`] for closing when idle).
    CloseEmbedder,
    /// Feed [`Event::Pages`] with every page the lexical index holds (after the switch was turned
    /// back on: pages that came while it was off were not kept).
    SendAllPages,
}

/// A page waiting to be embedded (its passage is written when its batch goes out).
#[derive(Debug, Clone, PartialEq)]
struct Pending {
    last_visit_ms: i64,
    title: String,
    /// [`super::page_hash`].
    hash: u64,
}

/// The pages to embed, newest first.
#[derive(Debug, Default)]
struct Todo {
    order: BTreeSet<(Reverse<i64>, String)>,
    pages: HashMap<String, Pending>,
}

impl Todo {
    fn insert(&mut self, url: String, pending: Pending) {
        if let Some(old) = self.pages.remove(&url) {
            self.order
                .remove(&(Reverse(old.last_visit_ms), url.clone()));
        }
        self.order
            .insert((Reverse(pending.last_visit_ms), url.clone()));
        self.pages.insert(url, pending);
    }

    fn remove(&mut self, url: &str) -> Option<Pending> {
        let pending = self.pages.remove(url)?;
        self.order
            .remove(&(Reverse(pending.last_visit_ms), url.to_owned()));
        Some(pending)
    }

    fn pop_newest(&mut self) -> Option<(String, Pending)> {
        let (_, url) = self.order.pop_first()?;
        let pending = self.pages.remove(&url)?;
        Some((url, pending))
    }

    fn contains(&self, url: &str) -> bool {
        self.pages.contains_key(url)
    }

    fn is_empty(&self) -> bool {
        self.pages.is_empty()
    }

    fn clear(&mut self) {
        *self = Todo::default();
    }
}

/// The batch out (or waiting to be written again).
#[derive(Debug)]
struct Batch {
    /// The id of the action out for it.
    id: u64,
    items: Vec<Item>,
    stage: Stage,
}

#[derive(Debug)]
struct Item {
    url: String,
    pending: Pending,
    /// Removed (or the index cleared or switched off) since the batch went out: never made
    /// searchable, and its record deleted if it was written.
    removed: bool,
}

#[derive(Debug)]
enum Stage {
    /// [`Action::Embed`] is out.
    Embedding,
    /// [`Action::Save`] is out; one vector per item.
    Saving(Vec<Quantised>),
    /// Embedded, not written: waiting for a retry or for space. Nothing is out.
    Unsaved(Vec<Quantised>),
}

/// Why no batch goes out although there is work.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Hold {
    /// A [`Action::RetryAfter`] timer is set.
    Retry,
    /// The last write was refused for quota.
    StorageFull,
}

#[derive(Debug)]
enum Phase {
    /// Before the stored vectors are in: pages and removals wait here.
    Loading(Loading),
    /// Switched off.
    Off,
    /// The stored vectors are in; building or ready.
    Live,
}

impl Default for Phase {
    fn default() -> Phase {
        Phase::Loading(Loading::default())
    }
}

#[derive(Debug, Default)]
struct Loading {
    read: StoreRead,
    /// Pages that came meanwhile, in order.
    pages: Vec<Page>,
    /// Pages removed meanwhile: their stored records are deleted, not loaded.
    removed: HashSet<String>,
}

#[derive(Debug, Default, Clone, Copy, PartialEq, Eq)]
enum StoreRead {
    /// Waiting for [`Event::Start`].
    #[default]
    NotAsked,
    /// A write is out (from before the switch went off and on): the store is read after it, so
    /// its records are deleted before the read and never loaded.
    AfterSave,
    /// [`Action::LoadStore`] is out.
    Out,
}

/// The semantic index and its lifecycle. See the [module docs](self).
#[derive(Debug, Default)]
pub struct SemanticHost {
    phase: Phase,
    vectors: Vectors,
    todo: Todo,
    batch: Option<Batch>,
    hold: Option<Hold>,
    unavailable: Option<UnavailableReason>,
    /// Embedding failures in a row.
    embed_failures: u32,
    /// Write failures (not quota) in a row.
    save_failures: u32,
    /// Stored records that could not be read at load.
    skipped: u32,
    next_id: u64,
    /// The excluded sites: never embedded, never kept.
    exclusions: Exclusions,
    /// [`Event::Listed`] came.
    listed: bool,
    /// Between [`Event::UserActive`] and [`Event::UserIdle`]: no new batch.
    user_active: bool,
    /// [`Event::BatteryLow`]: no new batch.
    battery_low: bool,
}

impl SemanticHost {
    /// A host waiting for [`Event::Start`].
    pub fn new() -> SemanticHost {
        SemanticHost::default()
    }

    /// Applies an event; returns what the worker must do, in order.
    pub fn handle(&mut self, event: Event) -> Vec<Action> {
        let mut actions = Vec::new();
        match event {
            Event::Start { enabled } => self.start(enabled, &mut actions),
            Event::SetEnabled(true) => self.enable(&mut actions),
            Event::SetEnabled(false) => self.disable(&mut actions),
            Event::StoreLoaded { records, done } => self.loaded(records, done, &mut actions),
            Event::StoreFailed => self.loaded(Vec::new(), true, &mut actions),
            Event::Pages(pages) => self.pages(pages, &mut actions),
            Event::Listed => self.listed = true,
            Event::Exclusions(exclusions) => self.exclude(exclusions, &mut actions),
            Event::Removed(Removal::All) => self.clear(&mut actions),
            Event::Removed(Removal::Urls(urls)) => self.remove(urls, &mut actions),
            Event::Embedded { batch, vectors } => self.embedded(batch, vectors, &mut actions),
            Event::EmbedFailed { batch, failure } => {
                self.embed_failed(batch, failure, &mut actions)
            }
            Event::Saved { batch } => self.saved(batch, &mut actions),
            Event::SaveFailed { batch, quota } => self.save_failed(batch, quota, &mut actions),
            Event::UserActive => self.user_active = true,
            Event::UserIdle => {
                self.user_active = false;
                self.pump(&mut actions);
            }
            Event::BatteryLow(low) => {
                self.battery_low = low;
                self.pump(&mut actions);
            }
            Event::RetryDue => {
                if self.hold == Some(Hold::Retry) {
                    self.resume(&mut actions);
                }
            }
        }
        actions
    }

    /// The stored pages last visited at or after `start_ms` (and the ageless ones, whatever their
    /// last visit: [`SemanticHost::set_ageless`]) that stand out in similarity to
    /// `query` (the question's vector; [`standout_cut`], as `words` says), most similar first, at
    /// most `limit`: among those loaded so far while loading, nothing when switched off. The
    /// worker turns the URLs into pages through the lexical index, so a vector whose page it no
    /// longer holds is never shown.
    pub fn search(
        &self,
        query: &[f32],
        start_ms: i64,
        limit: usize,
        words: Words,
    ) -> Vec<(String, f32)> {
        self.search_in(query, &SiteFilter::default(), start_ms, limit, words)
    }

    /// [`SemanticHost::search`] among the pages `sites` allows: the stand-out cut is computed
    /// over those pages alone ([`Vectors::scan_in`]).
    pub fn search_in(
        &self,
        query: &[f32],
        sites: &SiteFilter,
        start_ms: i64,
        limit: usize,
        words: Words,
    ) -> Vec<(String, f32)> {
        match self.phase {
            Phase::Live | Phase::Loading(_) => {
                let scan = self
                    .vectors
                    .scan_in(query, sites, start_ms, limit, SIMILARITY_FLOOR);
                let best = scan.hits.first().map(|&(_, similarity)| similarity);
                let cut = standout_cut(best, scan.pages, scan.mean, scan.deviation, words);
                let mut hits = scan.hits;
                hits.retain(|&(_, similarity)| similarity >= cut);
                hits
            }
            Phase::Off => Vec::new(),
        }
    }

    /// The pages found whatever the period from now on are `urls` (the bookmarked ones), those
    /// before not ([`Vectors::set_ageless`]): a search of any period scans them.
    pub fn set_ageless(&mut self, urls: impl IntoIterator<Item = String>) {
        self.vectors.set_ageless(urls);
    }

    /// `urls` are found whatever the period too (`true`: bookmarked), or no longer (`false`).
    pub fn mark_ageless(&mut self, urls: impl IntoIterator<Item = String>, ageless: bool) {
        self.vectors.mark_ageless(urls, ageless);
    }

    /// Every page held — a vector, to embed, in the batch out — once the store is loaded (`None`
    /// while it loads, or switched off): what the worker checks against the history and the
    /// bookmarks.
    pub fn held_urls(&self) -> Option<Vec<String>> {
        if !matches!(self.phase, Phase::Live) {
            return None;
        }
        let mut urls: Vec<String> = self.vectors.urls().map(|(url, _)| url.to_owned()).collect();
        urls.extend(self.todo.pages.keys().cloned());
        if let Some(batch) = &self.batch {
            urls.extend(
                batch
                    .items
                    .iter()
                    .filter(|item| !item.removed)
                    .map(|item| item.url.clone()),
            );
        }
        urls.sort_unstable();
        urls.dedup();
        Some(urls)
    }

    /// The state and counts, for the pages.
    pub fn progress(&self) -> SemanticProgress {
        let status = match self.phase {
            Phase::Off => SemanticStatus::Off,
            Phase::Loading(_) => SemanticStatus::Loading,
            Phase::Live => match (self.unavailable, self.hold) {
                (Some(reason), _) => SemanticStatus::Unavailable(reason),
                (None, Some(Hold::StorageFull)) => SemanticStatus::StorageFull,
                // Nothing to do yet, but the lexical index has not said it has no more pages.
                _ if self.batch.is_none() && self.todo.is_empty() && !self.listed => {
                    SemanticStatus::Loading
                }
                _ if self.batch.is_none() && self.todo.is_empty() => SemanticStatus::Ready,
                _ if self.battery_low => SemanticStatus::Paused,
                _ => SemanticStatus::Building,
            },
        };
        // Pages being embedded again (their passage changed) are understood already.
        let waiting = self
            .todo
            .pages
            .keys()
            .filter(|url| !self.vectors.contains(url))
            .count();
        let in_flight = self.batch.as_ref().map_or(0, |batch| {
            batch
                .items
                .iter()
                .filter(|i| {
                    !i.removed && !self.vectors.contains(&i.url) && !self.todo.contains(&i.url)
                })
                .count()
        });
        let understood = self.vectors.len();
        let count = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        SemanticProgress {
            status,
            understood: count(understood),
            total: count(understood + waiting + in_flight),
        }
    }

    /// Whether the host still has pages for the model to embed (a batch out, or a to-do it is
    /// allowed to work on): while it does, the worker must not close the model for idleness.
    pub fn needs_embedder(&self) -> bool {
        let embedding = matches!(
            self.batch,
            Some(Batch {
                stage: Stage::Embedding,
                ..
            })
        );
        matches!(self.phase, Phase::Live)
            && self.unavailable.is_none()
            && self.hold != Some(Hold::StorageFull)
            && (embedding || (!self.todo.is_empty() && !self.battery_low))
    }

    /// Whether a question would be embedded now: some page is understood, the index is not off,
    /// and the model is not known to be missing, damaged or unsupported (which no question's
    /// model could get past; one failing on the pages' batches may still embed a question). The
    /// worker embeds a question only then, and has the questions' model loaded ahead of the first
    /// question when the popup opens (a question otherwise waits for the load).
    pub fn answers_questions(&self) -> bool {
        let model_lost = matches!(
            self.unavailable,
            Some(
                UnavailableReason::ModelMissing
                    | UnavailableReason::ModelCorrupt
                    | UnavailableReason::Unsupported
            )
        );
        !matches!(self.phase, Phase::Off) && !self.vectors.is_empty() && !model_lost
    }

    /// The vectors held (searchable).
    pub fn vectors(&self) -> &Vectors {
        &self.vectors
    }

    /// Stored records that could not be read at the last load (another version, corrupt); they
    /// were deleted and their pages go to the to-do.
    pub fn skipped(&self) -> u32 {
        self.skipped
    }

    fn start(&mut self, enabled: bool, actions: &mut Vec<Action>) {
        if !enabled {
            self.disable(actions);
            return;
        }
        match &self.phase {
            Phase::Loading(loading) if loading.read == StoreRead::NotAsked => {
                self.read_store(actions)
            }
            Phase::Off => self.enable(actions),
            Phase::Live if self.hold == Some(Hold::StorageFull) => self.resume(actions),
            Phase::Loading(_) | Phase::Live => {}
        }
    }

    fn enable(&mut self, actions: &mut Vec<Action>) {
        match &self.phase {
            Phase::Off => {
                self.phase = Phase::default();
                self.read_store(actions);
                actions.push(Action::SendAllPages);
            }
            // Turned on before the worker's start: as a start.
            Phase::Loading(loading) if loading.read == StoreRead::NotAsked => {
                self.read_store(actions)
            }
            Phase::Loading(_) | Phase::Live => {}
        }
    }

    fn disable(&mut self, actions: &mut Vec<Action>) {
        if matches!(self.phase, Phase::Off) {
            return;
        }
        self.phase = Phase::Off;
        self.vectors.clear();
        self.todo.clear();
        self.forget_batch();
        self.hold = None;
        self.unavailable = None;
        self.embed_failures = 0;
        self.save_failures = 0;
        self.skipped = 0;
        actions.push(Action::ClearStore);
        actions.push(Action::CloseEmbedder);
    }

    /// Asks for the store, or waits for the write that is out.
    fn read_store(&mut self, actions: &mut Vec<Action>) {
        let saving = matches!(
            self.batch,
            Some(Batch {
                stage: Stage::Saving(_),
                ..
            })
        );
        if let Phase::Loading(loading) = &mut self.phase {
            if saving {
                loading.read = StoreRead::AfterSave;
            } else {
                loading.read = StoreRead::Out;
                actions.push(Action::LoadStore);
            }
        }
    }

    fn loaded(&mut self, records: Vec<StoredRecord>, done: bool, actions: &mut Vec<Action>) {
        let Phase::Loading(loading) = &mut self.phase else {
            // A read that no longer matters (switched off, or cleared meanwhile).
            return;
        };
        if loading.read != StoreRead::Out {
            return;
        }
        let mut delete = Vec::new();
        self.vectors.reserve(records.len());
        for StoredRecord { url, bytes } in records {
            if loading.removed.contains(&url) || self.exclusions.excludes(&url) {
                delete.push(url);
            } else if self.vectors.load_record(&url, &bytes).is_err() {
                // Another version, corrupt, or under another key: its page is embedded again.
                self.skipped = self.skipped.saturating_add(1);
                delete.push(url);
            }
        }
        if !delete.is_empty() {
            actions.push(Action::Delete { urls: delete });
        }
        if !done {
            return;
        }
        let pages = std::mem::take(&mut loading.pages);
        self.phase = Phase::Live;
        for page in pages {
            self.offer(page);
        }
        self.pump(actions);
    }

    fn pages(&mut self, mut pages: Vec<Page>, actions: &mut Vec<Action>) {
        self.exclusions.retain_pages(&mut pages);
        match &mut self.phase {
            Phase::Off => {}
            Phase::Loading(loading) => loading.pages.extend(pages),
            Phase::Live => {
                for page in pages {
                    self.offer(page);
                }
                self.pump(actions);
            }
        }
    }

    /// Compares a page with what is held for it: the same [`super::page_hash`] only updates its
    /// last visit; otherwise it goes to the to-do (replacing what was there).
    fn offer(&mut self, page: Page) {
        let hash = page_hash_of(&page.url, &page.title);
        let Page {
            url,
            title,
            last_visit_ms,
            ..
        } = page;
        let in_batch = self
            .batch
            .as_mut()
            .and_then(|b| b.items.iter_mut().find(|i| i.url == url && !i.removed));
        if let Some(item) = in_batch {
            if item.pending.hash == hash {
                item.pending.last_visit_ms = last_visit_ms;
                self.todo.remove(&url);
            } else {
                // Stored as it is when its batch is written, then embedded again.
                self.todo.insert(
                    url,
                    Pending {
                        last_visit_ms,
                        title,
                        hash,
                    },
                );
            }
            return;
        }
        if self.vectors.touch(&url, hash, last_visit_ms) {
            if !self.todo.is_empty() {
                self.todo.remove(&url);
            }
            return;
        }
        self.todo.insert(
            url,
            Pending {
                last_visit_ms,
                title,
                hash,
            },
        );
    }

    /// New excluded sites: every page of theirs held (a vector, a page to do, in the batch out,
    /// or waiting for the load) is removed as if the lexical index had lost it.
    fn exclude(&mut self, exclusions: Exclusions, actions: &mut Vec<Action>) {
        self.exclusions = exclusions;
        if self.exclusions.is_empty() {
            return;
        }
        let excluded = |url: &&str| self.exclusions.excludes(url);
        let mut urls: HashSet<&str> = self
            .vectors
            .urls()
            .map(|(url, _)| url)
            .filter(excluded)
            .collect();
        urls.extend(self.todo.pages.keys().map(String::as_str).filter(excluded));
        if let Some(batch) = &self.batch {
            urls.extend(batch.items.iter().map(|i| i.url.as_str()).filter(excluded));
        }
        if let Phase::Loading(loading) = &self.phase {
            urls.extend(
                loading
                    .pages
                    .iter()
                    .map(|p| p.url.as_str())
                    .filter(excluded),
            );
        }
        let urls: Vec<String> = urls.into_iter().map(str::to_owned).collect();
        if !urls.is_empty() {
            self.remove(urls, actions);
        }
    }

    fn remove(&mut self, urls: Vec<String>, actions: &mut Vec<Action>) {
        match &mut self.phase {
            Phase::Off => {}
            Phase::Loading(loading) => {
                let gone: HashSet<&str> = urls.iter().map(String::as_str).collect();
                loading.pages.retain(|p| !gone.contains(p.url.as_str()));
                // Already loaded (a chunk came): deleted now; in a chunk to come: deleted then.
                let delete: Vec<String> = urls
                    .iter()
                    .filter(|url| self.vectors.remove(url))
                    .cloned()
                    .collect();
                if !delete.is_empty() {
                    actions.push(Action::Delete { urls: delete });
                }
                loading.removed.extend(urls);
            }
            Phase::Live => {
                let gone: HashSet<&str> = urls.iter().map(String::as_str).collect();
                if let Some(batch) = &mut self.batch {
                    for item in &mut batch.items {
                        item.removed |= gone.contains(item.url.as_str());
                    }
                }
                let mut delete = Vec::new();
                for url in urls {
                    self.todo.remove(&url);
                    if self.vectors.remove(&url) {
                        delete.push(url);
                    }
                }
                let freed = !delete.is_empty();
                if freed {
                    actions.push(Action::Delete { urls: delete });
                }
                if freed && self.hold == Some(Hold::StorageFull) {
                    self.resume(actions);
                } else {
                    self.pump(actions);
                }
            }
        }
    }

    fn clear(&mut self, actions: &mut Vec<Action>) {
        match &mut self.phase {
            Phase::Off => {}
            Phase::Loading(loading) => {
                actions.push(Action::ClearStore);
                self.vectors.clear();
                loading.pages.clear();
                loading.removed.clear();
                if loading.read != StoreRead::NotAsked {
                    // The store is empty now: the read that is out (or waits) would bring back
                    // what was just cleared.
                    self.phase = Phase::Live;
                }
            }
            Phase::Live => {
                actions.push(Action::ClearStore);
                self.vectors.clear();
                self.todo.clear();
                self.forget_batch();
                if self.hold == Some(Hold::StorageFull) {
                    self.resume(actions);
                }
            }
        }
    }

    fn embedded(&mut self, id: u64, vectors: Vec<Vec<f32>>, actions: &mut Vec<Action>) {
        let Some(batch) = self.take_batch(id, |s| matches!(s, Stage::Embedding)) else {
            return;
        };
        let quantised: Option<Vec<Quantised>> = if vectors.len() == batch.items.len() {
            vectors.iter().map(|v| Quantised::from_f32(v)).collect()
        } else {
            None
        };
        let Some(quantised) = quantised else {
            // The model answered with something else than one vector per passage: as a crash.
            self.requeue(batch.items);
            if matches!(self.phase, Phase::Live) {
                self.crashed(actions);
            }
            return;
        };
        self.embed_failures = 0;
        let (items, vectors): (Vec<Item>, Vec<Quantised>) = batch
            .items
            .into_iter()
            .zip(quantised)
            .filter(|(item, _)| !item.removed)
            .unzip();
        self.write(items, vectors, actions);
    }

    fn embed_failed(&mut self, id: u64, failure: EmbedFailure, actions: &mut Vec<Action>) {
        let Some(batch) = self.take_batch(id, |s| matches!(s, Stage::Embedding)) else {
            return;
        };
        self.requeue(batch.items);
        if !matches!(self.phase, Phase::Live) {
            // A batch of before the switch went off: its failure says nothing now.
            return;
        }
        let reason = match failure {
            EmbedFailure::Crashed(_) => return self.crashed(actions),
            EmbedFailure::ModelMissing => UnavailableReason::ModelMissing,
            EmbedFailure::ModelCorrupt => UnavailableReason::ModelCorrupt,
            EmbedFailure::Unsupported => UnavailableReason::Unsupported,
        };
        self.give_up(reason, actions);
    }

    fn saved(&mut self, id: u64, actions: &mut Vec<Action>) {
        let Some(batch) = self.take_batch(id, |s| matches!(s, Stage::Saving(_))) else {
            return;
        };
        let Stage::Saving(vectors) = batch.stage else {
            return;
        };
        self.save_failures = 0;
        let mut delete = Vec::new();
        for (item, vector) in batch.items.into_iter().zip(vectors) {
            if item.removed {
                delete.push(item.url);
            } else {
                let entry = Entry {
                    vector,
                    page_hash: item.pending.hash,
                    last_visit_ms: item.pending.last_visit_ms,
                };
                self.vectors.insert(item.url, entry);
            }
        }
        if !delete.is_empty() {
            actions.push(Action::Delete { urls: delete });
        }
        self.read_store_after_save(actions);
        self.pump(actions);
    }

    fn save_failed(&mut self, id: u64, quota: bool, actions: &mut Vec<Action>) {
        let Some(batch) = self.take_batch(id, |s| matches!(s, Stage::Saving(_))) else {
            return;
        };
        let Stage::Saving(vectors) = batch.stage else {
            return;
        };
        // Nothing was written: removed pages are simply dropped.
        let (items, vectors): (Vec<Item>, Vec<Quantised>) = batch
            .items
            .into_iter()
            .zip(vectors)
            .filter(|(item, _)| !item.removed)
            .unzip();
        if !matches!(self.phase, Phase::Live) {
            self.read_store_after_save(actions);
            return;
        }
        if quota {
            self.keep_unsaved(items, vectors);
            self.hold = Some(Hold::StorageFull);
            actions.push(Action::CloseEmbedder);
            return;
        }
        self.save_failures += 1;
        if self.save_failures >= SAVE_ATTEMPTS {
            self.requeue(items);
            self.give_up(UnavailableReason::StoreFailing, actions);
        } else {
            self.keep_unsaved(items, vectors);
            self.hold = Some(Hold::Retry);
            actions.push(Action::RetryAfter {
                ms: retry_delay(self.save_failures),
            });
        }
    }

    /// Ends a hold: writes the batch kept unsaved, or starts the next one.
    fn resume(&mut self, actions: &mut Vec<Action>) {
        self.hold = None;
        match self.take_batch_if(|s| matches!(s, Stage::Unsaved(_))) {
            Some(Batch {
                items,
                stage: Stage::Unsaved(vectors),
                ..
            }) => {
                let (items, vectors) = items
                    .into_iter()
                    .zip(vectors)
                    .filter(|(item, _)| !item.removed)
                    .unzip();
                self.write(items, vectors, actions);
            }
            _ => self.pump(actions),
        }
    }

    /// Sends the next batch when nothing holds it.
    fn pump(&mut self, actions: &mut Vec<Action>) {
        let idle = matches!(self.phase, Phase::Live)
            && self.unavailable.is_none()
            && self.hold.is_none()
            && !self.user_active
            && !self.battery_low
            && self.batch.is_none();
        if !idle {
            return;
        }
        let mut items = Vec::with_capacity(BATCH_PAGES);
        while items.len() < BATCH_PAGES {
            let Some((url, pending)) = self.todo.pop_newest() else {
                break;
            };
            items.push(Item {
                url,
                pending,
                removed: false,
            });
        }
        if items.is_empty() {
            return;
        }
        let id = self.next_id();
        actions.push(Action::Embed {
            batch: id,
            passages: items
                .iter()
                .map(|i| passage_of(&i.url, &i.pending.title))
                .collect(),
        });
        self.batch = Some(Batch {
            id,
            items,
            stage: Stage::Embedding,
        });
    }

    /// Sends the embedded pages' records (or, when none is left, the next batch).
    fn write(&mut self, items: Vec<Item>, vectors: Vec<Quantised>, actions: &mut Vec<Action>) {
        if items.is_empty() {
            self.pump(actions);
            return;
        }
        let id = self.next_id();
        let records = items
            .iter()
            .zip(&vectors)
            .map(|(item, vector)| StoredRecord {
                url: item.url.clone(),
                bytes: Record {
                    url: item.url.clone(),
                    page_hash: item.pending.hash,
                    last_visit_ms: item.pending.last_visit_ms,
                    scale: vector.scale(),
                    q: vector.q().to_vec(),
                }
                .encode(),
            })
            .collect();
        actions.push(Action::Save { batch: id, records });
        self.batch = Some(Batch {
            id,
            items,
            stage: Stage::Saving(vectors),
        });
    }

    fn keep_unsaved(&mut self, items: Vec<Item>, vectors: Vec<Quantised>) {
        if !items.is_empty() {
            self.batch = Some(Batch {
                id: 0,
                items,
                stage: Stage::Unsaved(vectors),
            });
        }
    }

    fn crashed(&mut self, actions: &mut Vec<Action>) {
        self.embed_failures += 1;
        if self.embed_failures >= EMBED_ATTEMPTS {
            self.give_up(UnavailableReason::ModelFailing, actions);
        } else {
            self.hold = Some(Hold::Retry);
            actions.push(Action::RetryAfter {
                ms: retry_delay(self.embed_failures),
            });
        }
    }

    fn give_up(&mut self, reason: UnavailableReason, actions: &mut Vec<Action>) {
        self.unavailable = Some(reason);
        self.hold = None;
        actions.push(Action::CloseEmbedder);
    }

    /// Puts a batch's pages back in the to-do (unless removed, or there in a newer version).
    fn requeue(&mut self, items: Vec<Item>) {
        for item in items {
            if !item.removed && !self.todo.contains(&item.url) {
                self.todo.insert(item.url, item.pending);
            }
        }
    }

    /// Marks every page of the batch removed; drops it unless something is out for it.
    fn forget_batch(&mut self) {
        if let Some(batch) = &mut self.batch {
            for item in &mut batch.items {
                item.removed = true;
            }
        }
        self.take_batch_if(|s| matches!(s, Stage::Unsaved(_)));
    }

    fn read_store_after_save(&mut self, actions: &mut Vec<Action>) {
        if let Phase::Loading(loading) = &mut self.phase
            && loading.read == StoreRead::AfterSave
        {
            loading.read = StoreRead::Out;
            actions.push(Action::LoadStore);
        }
    }

    /// The batch, when `id` is the action out for it and it is at that stage.
    fn take_batch(&mut self, id: u64, stage: impl Fn(&Stage) -> bool) -> Option<Batch> {
        self.batch.take_if(|b| b.id == id && stage(&b.stage))
    }

    fn take_batch_if(&mut self, stage: impl Fn(&Stage) -> bool) -> Option<Batch> {
        self.batch.take_if(|b| stage(&b.stage))
    }

    fn next_id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }
}

/// The delay before the next attempt after `failures` failures in a row: [`RETRY_FIRST_MS`],
/// doubled for each further failure, at most [`RETRY_MAX_MS`].
pub fn retry_delay(failures: u32) -> u32 {
    let doublings = failures.saturating_sub(1).min(16);
    RETRY_FIRST_MS
        .saturating_mul(1 << doublings)
        .min(RETRY_MAX_MS)
}

#[cfg(test)]
mod tests;
