//! The index's life in the service worker, as a pure state machine.
//!
//! The worker owns one [`Host`]. It feeds in what happens ([`Event`]: something needs the index, the
//! snapshot was read, a slice of history was read, a visit, a removal, the save timer fired) and
//! carries out what the host says ([`Action`]: read the snapshot, read this slice of history, set
//! the save timer, save these bytes, forget these pages in the conversation, wake the requests that
//! waited for the load). Pages' requests are answered by [`Host::answer`]. Nothing here touches the
//! browser or a clock: the worker passes the time in.
//!
//! ```text
//!            Need                SnapshotRead(ok)            HistoryRead (catch-up)
//!   Cold ──────────▶ Loading ─────────────────▶ Live{Complete, catching up} ───▶ Live{Complete}
//!                       │  SnapshotRead(none, other version, corrupt)
//!                       ▼
//!                    Live{Building} ── HistoryRead (slice after slice, newest first) ──▶ Live{Complete}
//! ```
//!
//! - **Loading** reads the saved snapshot (a fraction of a second at 50,000 pages). Requests wait
//!   for it ([`Reply::AfterLoad`]: the worker parks them until [`Action::WakeWaiters`]); changes
//!   are queued and applied once it is loaded.
//! - **Building** (no snapshot, another format version, or a corrupt one) reads the history in
//!   time slices, newest first, one read at a time with a pause between them
//!   ([`SLICE_PAUSE_MS`]), so the browser's own searches and the popup are served in between and
//!   recent pages are searchable first. Requests are answered at once from what is indexed, with
//!   the progress when the index does not reach back to the period's start yet.
//! - **Ready** (`Live` with `Complete` coverage) answers everything at once and saves changes,
//!   coalesced over [`PERSIST_DELAY_MS`].
//!
//! A change (visit or removal) that arrives while a history read is out is applied at once *and*
//! replayed after the read's items, in order: the read may have been answered before the change,
//! so a removed page must not come back from it, nor a re-visited one be dropped. "Clear all
//! history" during a build or a load ends it: the history is empty, so the (empty) index is
//! complete, and whatever read was out is ignored when it comes back.
//!
//! **An event that cannot be read** is not lost: the history is read again instead.
//! [`Event::VisitUnreadable`] (an `onVisited` whose item could not be read) re-reads the recent
//! history, from [`CATCH_UP_MARGIN_MS`] before the event, merged into the index as the catch-up
//! after a load is: at once when the index is complete (a read that is out is replaced by one
//! covering both); once it is complete when it is being built (its first slice may have been
//! answered before the visit, and later slices end in the past); and not at all while it is cold
//! or loading, since the catch-up after the load reads from the snapshot's newest visit (older
//! than anything happening now), and a build's first slice is asked after the event.
//! [`Event::RemovalUnreadable`] (an `onVisitRemoved` that could not be read: pages went, we do not
//! know which) *verifies* the index: the whole history is read once, merged as a catch-up is, and
//! every raw URL the index holds as Chrome's (not a kept one: kept URLs are exactly those Chrome no
//! longer has) that the read lacks is gone — judged as one history removal at the event's time,
//! like [`Event::VisitRemoved`] (kept with the option on when [`crate::archive::classify`] calls
//! the whole set an expiry, otherwise a deletion, forgotten in the conversation too), and saved. A
//! URL visited after the verify was asked is not judged (the read may predate the visit), and the
//! changes that came meanwhile are replayed after it, as after any read. While cold or loading the
//! need is remembered and the read after the load is the verify (the snapshot may hold the removed
//! pages); a load that ends in a build needs none (every slice is read after the event). While
//! building, the pages already read (those from the slice out at the event on) are verified once
//! the build is complete, rather than the build started again: the slices read after the event
//! are the history as it is, so only what came before needs checking, and a restart would throw
//! away everything searchable so far; until then those pages stay searchable (a build takes
//! seconds). [`Host::verifying`] says whether a save made now still lacks a verify (the worker's
//! journal of removals keeps an unreadable removal until a save that has it).
//!
//! **Excluded sites** ([`Event::Exclusions`], [`crate::exclusions`]) are never indexed: a read's
//! items, a visit and a loaded snapshot are filtered before they reach the index, and a site just
//! excluded is dropped from it at once. When a site comes off the list its pages are read from the
//! history again: a complete index reads the whole history once more (merged into what it holds,
//! as a catch-up is); a build starts again from now, keeping what it has.
//!
//! **Pages kept after Chrome forgets them** ([`crate::archive`]): the history's own removals come
//! as [`Event::VisitRemoved`], judged by [`crate::archive::classify`] against the index as it is
//! when the removal is applied (after the snapshot is loaded, when it comes during the load). With
//! the option on ([`Event::KeepForgotten`]), an expiry marks the pages kept instead of removing them;
//! anything else — and every removal while the option is off or not known yet — is a deletion,
//! honoured at once, kept pages included. [`Event::Removed`] removes unconditionally (a forget
//! asked by a page). Turning the option off, or [`Event::ForgetKept`], forgets every kept page, in
//! the index and the conversation; so does loading a snapshot while the stored option is off. A
//! build from scratch reads Chrome's history, which no longer has the kept pages: they are lost.
//!
//! Every constant of the index's timing lives here, the pages' patience included, so each can be
//! read against the others.

mod follow;

use std::collections::HashSet;

pub use follow::Followed;
use follow::Touched;

use crate::archive::{self, Removal};
use crate::clean::clean_url;
use crate::exclusions::Exclusions;
use crate::history::Page;
use crate::history::{HistoryItem, RemovedVisits};
use crate::index::IndexProgress;
use crate::index::{Hit, Index};
use crate::period::{DAY_MS, HOUR_MS};
use crate::site_filter::{self, SiteFilter};

/// Changes are saved this long after the first unsaved one: a burst of visits (a page with
/// redirects, a session restore) costs one write, and Chrome keeps the worker alive far longer
/// than this (about 30 s) after an event.
pub const PERSIST_DELAY_MS: u32 = 2_000;

/// After loading a snapshot, visits since this long before its newest visit are read again: a
/// visit recorded while the snapshot was being written is not missed (events cannot be missed while
/// the worker is stopped — they wake it — but one may land between a write and the worker
/// stopping).
pub const CATCH_UP_MARGIN_MS: i64 = 5 * 60 * 1000;

/// The first slice of a build: the last day, which is what most questions are about, searchable
/// after one small read.
pub const FIRST_SLICE_MS: i64 = DAY_MS;

/// Pages a slice should bring: a read of about this many entries takes tens of milliseconds in
/// Chrome's history backend, so a search the popup sends meanwhile waits at most that long behind
/// it. The next slice's span is scaled from the last one's count towards this.
pub const SLICE_TARGET_PAGES: usize = 2_000;

/// Bounds of a slice's span: an hour (a burst of browsing cannot make slices tiny and many), 30
/// days (a sparse history is read in a few reads).
pub const MIN_SLICE_MS: i64 = HOUR_MS;
/// See [`MIN_SLICE_MS`].
pub const MAX_SLICE_MS: i64 = 30 * DAY_MS;

/// Once the slices reach this far back, the rest of the history (usually nothing: Chrome expires
/// visits after about 90 days; imported history can be older) is read in one last slice.
pub const SLICE_HORIZON_MS: i64 = 100 * DAY_MS;

/// Slices overlap by this much, so a visit exactly on a boundary is in one of them whatever the
/// browser does with the bounds (a page read twice is merged, not doubled).
pub const SLICE_OVERLAP_MS: i64 = 1_000;

/// The pause between two slices: the worker's event loop and the browser's history backend serve
/// the popup's requests in between.
pub const SLICE_PAUSE_MS: u32 = 15;

/// A failed history read is tried this many times in all, [`READ_RETRY_MS`] apart; then the index
/// goes back to cold and the next need starts again.
pub const READ_ATTEMPTS: u32 = 3;
/// See [`READ_ATTEMPTS`].
pub const READ_RETRY_MS: u32 = 500;

/// How long reading and decoding the snapshot takes at 50,000 pages (measured 0.2–0.5 s on a
/// loaded 2-core machine): requests wait that long for a load, never for a build.
pub const EXPECTED_LOAD_MS: u32 = 500;

/// How long a page waits for the index's answer before it has the browser's search answer instead
/// (the browser's own search, which the worker runs without the index). Twice
/// [`EXPECTED_LOAD_MS`]: the only time the worker makes a request wait is while it reads its
/// snapshot; otherwise it answers in milliseconds, even mid-build.
pub const WORKER_PATIENCE_MS: u32 = 2 * EXPECTED_LOAD_MS;

/// When the index cannot answer for the whole period, a page runs the browser's search (hundreds
/// of milliseconds on a big history) only for a keystroke not followed by another within this time.
pub const BROWSER_SEARCH_DEBOUNCE_MS: u32 = 150;

/// While the index is built, an open popup asks for its progress this often, to say how far it
/// has got (a message costs the worker microseconds).
pub const PROGRESS_REFRESH_MS: u32 = 500;

/// Identifies a history read, so an answer to a read that no longer matters is ignored.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ReadId(u64);

/// A read of the history the worker must make: every entry with a visit in `[start_ms, end_ms)`
/// (`end_ms: None`: up to now), after waiting `after_ms`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HistoryRead {
    /// Fed back with the items in [`Event::HistoryRead`].
    pub id: ReadId,
    /// Oldest visit time, ms since the Unix epoch.
    pub start_ms: i64,
    /// Visits before this; `None` for no upper bound.
    pub end_ms: Option<i64>,
    /// Wait this long before reading.
    pub after_ms: u32,
}

/// What happened, fed to [`Host::handle`].
#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// Something needs the index (the worker started, a page asked): starts loading when cold.
    Need,
    /// The snapshot was read: its bytes, or `None` when there is none or it could not be read.
    SnapshotRead {
        /// The stored bytes.
        bytes: Option<Vec<u8>>,
        /// The current time, ms since the Unix epoch: a build cuts its slices back from it.
        now_ms: i64,
    },
    /// A history read ended: its items, or `None` when it failed.
    HistoryRead {
        /// Which read.
        id: ReadId,
        /// The entries, as the browser gave them.
        items: Option<Vec<HistoryItem>>,
    },
    /// `chrome.history.onVisited`: the visited entry.
    Visited(HistoryItem),
    /// Pages to remove whatever the expiry rule says (a forget asked by a page; also what a
    /// deletion by the user amounts to).
    Removed(RemovedVisits),
    /// A result's "Remove from history", once the browser deleted the page: the user removed these pages
    /// (cleaned or raw URLs) from the browser's history. Each whole page goes at once, every raw
    /// entry merged into it, whatever [`Event::Removed`] would keep; like a removal it is applied
    /// again after a history read that was out when it came, and saved like any change. The
    /// conversation is the worker's removal's to rewrite.
    Forget(Vec<String>),
    /// `chrome.history.onVisitRemoved`: what Chrome removed, at `now_ms` — Chrome forgetting old
    /// pages or the user deleting history, told apart by [`crate::archive::classify`].
    VisitRemoved {
        /// What the event says.
        removed: RemovedVisits,
        /// When it came, ms since the Unix epoch.
        now_ms: i64,
    },
    /// The "Keep pages searchable after Chrome forgets them" setting, as stored (at start) or as
    /// just changed. Off forgets every kept page.
    KeepForgotten(bool),
    /// Forget every page kept after Chrome forgot it (the options page's button). Ignored while the
    /// snapshot is read: the worker waits for the load first.
    ForgetKept,
    /// The timer set by [`Action::PersistAfter`] fired.
    PersistDue,
    /// `chrome.history.onVisited` with an item that could not be read, at `now_ms`: the recent
    /// history is read again (see the [module docs](self)).
    VisitUnreadable {
        /// When it came, ms since the Unix epoch.
        now_ms: i64,
    },
    /// `chrome.history.onVisitRemoved` with an argument that could not be read, at `now_ms` (or
    /// the worker's journal of removals could not be read): pages were removed, we cannot tell
    /// which, so the index is verified against the whole history (see the [module docs](self)).
    RemovalUnreadable {
        /// When it came, ms since the Unix epoch: the verify's removal is judged at this time.
        now_ms: i64,
    },
    /// The excluded sites, read from the settings when the worker starts and again whenever they
    /// change (the first may come at any point of the index's life).
    Exclusions {
        /// The sites.
        exclusions: Exclusions,
        /// The current time, ms since the Unix epoch: a build started again cuts from it.
        now_ms: i64,
    },
}

/// What the worker must do, returned by [`Host::handle`].
#[derive(Debug, Clone, PartialEq)]
pub enum Action {
    /// Tell the indexes that follow this one (topic search) what changed in its pages. Always
    /// first of an event's actions.
    Follow(Followed),
    /// Read the snapshot, then feed [`Event::SnapshotRead`].
    ReadSnapshot,
    /// Read this slice of history, then feed [`Event::HistoryRead`].
    ReadHistory(HistoryRead),
    /// Feed [`Event::PersistDue`] in this many milliseconds.
    PersistAfter {
        /// The delay.
        ms: u32,
    },
    /// Save these bytes as the snapshot. They hold every event handled before this action was
    /// returned (a failed write costs a rebuild or an older snapshot at the next start, where the
    /// worker's journal of removals replays what it lacks).
    Save {
        /// [`Index::to_bytes`].
        bytes: Vec<u8>,
    },
    /// Take these pages out of the answers stored in the conversation.
    ForgetInConversation(RemovedVisits),
    /// The load ended: ask [`Host::answer`] again for the requests that got [`Reply::AfterLoad`].
    WakeWaiters,
}

/// What the index is asked: the worker maps the pages' requests onto these, and asks its own
/// questions (AI mode's keywords, a removal's entries) directly.
#[derive(Debug, Clone, PartialEq)]
pub enum Question {
    /// The popup opened: load the index now if it is not loaded. [`Answer::Ready`] or
    /// [`Answer::Indexing`].
    Warm,
    /// The pages matching what the user typed (`site:` terms read), best first. [`Answer::Pages`].
    Search {
        /// What the user typed.
        query: String,
        /// Period start, ms since the Unix epoch.
        start_ms: i64,
        /// At most this many pages.
        limit: usize,
    },
    /// AI mode's retrieval: the pages matching one keyword, most relevant first.
    /// [`Answer::Pages`].
    Keyword {
        /// One keyword (never read for `site:` terms: it comes from a model).
        keyword: String,
        /// Only pages these sites allow: the question's filter.
        sites: SiteFilter,
        /// Period start, ms since the Unix epoch.
        start_ms: i64,
        /// At most this many pages.
        limit: usize,
    },
    /// The raw history entries merged into the page `url` (cleaned, as shown), as the index holds
    /// them, so that deleting the page needs no search of the whole history ([`Host::answer`]
    /// says when the index can tell). [`crate::removal::plan`] reads the answer.
    Entries {
        /// The page's URL (cleaned, as shown; a raw URL is cleaned first).
        url: String,
    },
    /// How many pages are kept after Chrome forgot them. [`Answer::Kept`].
    Kept,
}

/// The index's answer to a [`Question`].
#[derive(Debug, Clone, PartialEq)]
pub enum Answer {
    /// The index is loaded and complete.
    Ready {
        /// Pages in the index.
        pages: usize,
    },
    /// The index is still being loaded or built: use the browser's search meanwhile.
    Indexing {
        /// How far it has got.
        progress: IndexProgress,
    },
    /// The pages found, best first.
    Pages {
        /// The pages.
        pages: Vec<Page>,
        /// `None`: the index covers the whole period asked, so this is the whole answer. `Some`:
        /// it does not reach back to the period's start yet (the browser finds the older pages).
        indexing: Option<IndexProgress>,
    },
    /// How many pages History Chat keeps that Chrome has forgotten.
    Kept {
        /// Pages only History Chat has.
        pages: usize,
    },
}

/// How [`Host::answer`] answers a question.
#[derive(Debug, Clone, PartialEq)]
pub enum Reply {
    /// This, now.
    Now(Answer),
    /// The snapshot is being read: ask again after [`Action::WakeWaiters`].
    AfterLoad,
}

/// Why the index is being built rather than loaded.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BuildCause {
    /// No snapshot was saved (first start, or the worker stopped before the first save).
    NoSnapshot,
    /// The snapshot was saved by another format version.
    OtherVersion,
    /// The snapshot could not be decoded.
    Corrupt,
}

/// How much of the history the index holds.
#[derive(Debug, Clone, PartialEq)]
enum Coverage {
    /// All of it (built, or loaded and caught up or catching up).
    Complete,
    /// Being built, newest first.
    Building(Build),
}

#[derive(Debug, Clone, PartialEq)]
struct Build {
    cause: BuildCause,
    /// When the build started: slices are cut from this instant back.
    started_ms: i64,
    /// Every visit at or after this is indexed (`None` before the first slice came in).
    since_ms: Option<i64>,
    /// The span of the slice being read.
    span_ms: i64,
    /// A read to make once the build is complete: an event that could not be read came meanwhile.
    then: Option<Recheck>,
}

/// A read of the history, to now, that re-checks the index after an event that could not be read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Recheck {
    /// Visits from here on are read.
    start_ms: i64,
    /// A verify, judged at this time: what the index holds as Chrome's with a newest visit at or
    /// after `start_ms` and the read lacks is gone.
    verify_at: Option<i64>,
}

impl Recheck {
    /// One read that does what both would: from the earlier start, a verify if either is (judged
    /// at the earlier time, which calls fewer pages expired).
    fn and(self, other: Recheck) -> Recheck {
        Recheck {
            start_ms: self.start_ms.min(other.start_ms),
            verify_at: match (self.verify_at, other.verify_at) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            },
        }
    }
}

/// The history read that is out, and the changes applied since it was asked for.
#[derive(Debug, Clone, PartialEq)]
struct Pending {
    read: HistoryRead,
    attempt: u32,
    since: Vec<Change>,
    /// The read verifies the index ([`Recheck::verify_at`]), judged at this time.
    verify_at: Option<i64>,
}

#[derive(Debug, Clone, PartialEq)]
enum Change {
    Visited(HistoryItem),
    Removed(RemovedVisits),
    Forgot(Vec<String>),
    /// Raw URLs Chrome forgot, kept by the index.
    Keep(Vec<String>),
    /// A history removal not judged yet (it came while the snapshot was read).
    VisitRemoved {
        removed: RemovedVisits,
        now_ms: i64,
    },
}

#[derive(Debug, Default)]
enum Phase {
    /// Not loaded: the worker just started, or history could not be read.
    #[default]
    Cold,
    /// Reading the snapshot; changes wait here, and whether the loaded index must be verified
    /// (an unreadable removal came, at this time).
    Loading {
        queued: Vec<Change>,
        verify_at: Option<i64>,
    },
    /// The index answers; `pending` is the history read that is out (the slices of a build, or
    /// the catch-up after a load), if any.
    Live {
        index: Box<Index>,
        coverage: Coverage,
        pending: Option<Pending>,
    },
}

/// The index and its lifecycle. See the [module docs](self).
#[derive(Debug, Default)]
pub struct Host {
    phase: Phase,
    /// Changes not saved yet.
    dirty: bool,
    /// A [`Action::PersistAfter`] timer is set.
    persist_set: bool,
    next_read: u64,
    /// The excluded sites: their pages never enter the index.
    exclusions: Exclusions,
    /// The "keep pages after Chrome forgets them" setting; `None` until the worker has read it
    /// (then every removal is a deletion, and nothing kept is forgotten for it).
    keep_forgotten: Option<bool>,
    /// A verify failed every attempt: the index may still hold removed pages until the next start.
    verify_owed: bool,
    /// Every page has been listed to the followers ([`Followed::Listed`]): only changes follow.
    listed: bool,
    /// The followers have heard that the index holds the whole history ([`Followed::Complete`]).
    told_complete: bool,
}

impl Host {
    /// A cold host (the worker just started).
    pub fn new() -> Host {
        Host::default()
    }

    /// Applies an event; returns what the worker must do, in order: first what the followers
    /// must hear of it ([`Action::Follow`]), when anything.
    pub fn handle(&mut self, event: Event) -> Vec<Action> {
        let touched = self.touched(&event);
        let mut actions = self.apply(event);
        let forgotten = actions.iter().filter_map(|action| match action {
            Action::ForgetInConversation(removed) => Some(removed),
            _ => None,
        });
        let touched = follow::with_forgotten(touched, forgotten);
        let mut listed = self.listed;
        let followed = follow::followed(touched, self.index(), &mut listed);
        self.listed = listed;
        let mut told = Vec::new();
        if let Some(followed) = followed {
            told.push(Action::Follow(followed));
        }
        let complete = matches!(
            self.phase,
            Phase::Live {
                coverage: Coverage::Complete,
                ..
            }
        );
        if self.listed && complete && !std::mem::replace(&mut self.told_complete, true) {
            told.push(Action::Follow(Followed::Complete));
        }
        actions.splice(0..0, told);
        actions
    }

    /// The pages `event` may change (known before it is handled: the kept pages an "off" drops
    /// are known only then).
    fn touched(&self, event: &Event) -> Touched {
        match event {
            Event::HistoryRead {
                items: Some(items), ..
            } => {
                let raw: Vec<String> = items.iter().map(|item| item.url.clone()).collect();
                Touched::Urls(follow::cleaned(&raw))
            }
            Event::Visited(item) => Touched::Urls(follow::cleaned(std::slice::from_ref(&item.url))),
            Event::Removed(removed) if removed.all_history => Touched::All,
            Event::Removed(removed) | Event::VisitRemoved { removed, .. } => {
                Touched::Urls(follow::cleaned(&removed.urls))
            }
            // Already cleaned: a page's removal names pages as the index does.
            Event::Forget(pages) => Touched::Urls(pages.clone()),
            Event::KeepForgotten(false) | Event::ForgetKept => {
                Touched::Urls(self.index().map(Index::kept_urls).unwrap_or_default())
            }
            _ => Touched::Nothing,
        }
    }

    /// Applies an event; returns what the worker must do, in order.
    fn apply(&mut self, event: Event) -> Vec<Action> {
        let mut actions = Vec::new();
        match event {
            Event::Need => self.need(&mut actions),
            Event::SnapshotRead { bytes, now_ms } => self.loaded(bytes, now_ms, &mut actions),
            Event::HistoryRead { id, items } => self.history_read(id, items, &mut actions),
            Event::Visited(item) => self.change(Change::Visited(item), &mut actions),
            Event::Removed(removed) => self.deleted(removed, &mut actions),
            Event::VisitRemoved { removed, now_ms } => {
                self.visit_removed(removed, now_ms, &mut actions)
            }
            Event::Forget(urls) => self.change(Change::Forgot(urls), &mut actions),
            Event::Exclusions { exclusions, now_ms } => {
                self.exclude(exclusions, now_ms, &mut actions)
            }
            Event::KeepForgotten(on) => {
                self.keep_forgotten = Some(on);
                if !on {
                    self.forget_kept(&mut actions);
                }
            }
            Event::ForgetKept => self.forget_kept(&mut actions),
            Event::VisitUnreadable { now_ms } => self.recheck(false, now_ms, &mut actions),
            Event::RemovalUnreadable { now_ms } => self.recheck(true, now_ms, &mut actions),
            Event::PersistDue => {
                self.persist_set = false;
                if let Phase::Live {
                    index,
                    coverage: Coverage::Complete,
                    ..
                } = &self.phase
                    && self.dirty
                {
                    self.dirty = false;
                    actions.push(Action::Save {
                        bytes: index.to_bytes(),
                    });
                }
            }
        }
        actions
    }

    /// Answers `question` at `now_ms`.
    pub fn answer(&self, question: &Question, now_ms: i64) -> Reply {
        let live = match &self.phase {
            Phase::Cold => {
                return Reply::Now(Answer::Indexing {
                    progress: IndexProgress::default(),
                });
            }
            Phase::Loading { .. } => return Reply::AfterLoad,
            Phase::Live {
                index,
                coverage,
                pending,
            } => (index, coverage, pending),
        };
        let (index, coverage, pending) = live;
        let progress = self.progress();
        // `None` when the index answers for the whole period.
        let partial = |start_ms: i64| match coverage {
            Coverage::Complete => None,
            Coverage::Building(_) => (!progress.covers(start_ms)).then_some(progress),
        };
        let pages = |hits: Vec<Hit>, start_ms: i64| Answer::Pages {
            pages: hits.into_iter().map(|hit| hit.page).collect(),
            indexing: partial(start_ms),
        };
        Reply::Now(match question {
            Question::Warm => match coverage {
                // Whether the last save was refused is the worker's to say (the host never hears).
                Coverage::Complete => Answer::Ready { pages: index.len() },
                Coverage::Building(_) => Answer::Indexing { progress },
            },
            Question::Search {
                query,
                start_ms,
                limit,
            } => {
                let asked = site_filter::parse(query);
                pages(
                    index.search_in(&asked.words, &asked.filter, *start_ms, now_ms, *limit),
                    *start_ms,
                )
            }
            Question::Keyword {
                keyword,
                sites,
                start_ms,
                limit,
            } => pages(
                index.search_keyword_in(keyword, sites, *start_ms, now_ms, *limit),
                *start_ms,
            ),
            Question::Entries { url } => self.entries(index, coverage, pending.is_some(), url),
            Question::Kept => Answer::Kept {
                pages: index.kept_len(),
            },
        })
    }

    /// The answer to [`Question::Entries`]: the raw entries the index holds for the page at `url`,
    /// with how far back they are every entry Chrome has. A complete index with no read out holds
    /// every entry (`indexing: None`); a build holds every entry last visited since its
    /// `since_ms` (`Some`, the browser finds the older ones). The index cannot tell before its
    /// first slice, while it catches up after a load (newer entries may be missing) or re-reads
    /// the history, nor for an excluded site (its pages never enter): then
    /// [`Answer::Indexing`], and the browser is searched. A URL that is not a web page has no
    /// entries.
    fn entries(&self, index: &Index, coverage: &Coverage, reading: bool, url: &str) -> Answer {
        let progress = self.progress();
        let Ok(page) = clean_url(url) else {
            return Answer::Pages {
                pages: Vec::new(),
                indexing: None,
            };
        };
        let indexing = match coverage {
            _ if self.exclusions.excludes(page.as_str()) => return Answer::Indexing { progress },
            Coverage::Complete if reading => return Answer::Indexing { progress },
            Coverage::Complete => None,
            Coverage::Building(Build { since_ms: None, .. }) => {
                return Answer::Indexing { progress };
            }
            Coverage::Building(_) => Some(progress),
        };
        Answer::Pages {
            pages: index.entries_of(page.as_str()),
            indexing,
        }
    }

    /// How far the index has got: complete coverage reports the oldest instant possible.
    pub fn progress(&self) -> IndexProgress {
        match &self.phase {
            Phase::Cold | Phase::Loading { .. } => IndexProgress::default(),
            Phase::Live {
                index, coverage, ..
            } => IndexProgress {
                pages: index.len(),
                since_ms: match coverage {
                    Coverage::Complete => Some(i64::MIN),
                    Coverage::Building(build) => build.since_ms,
                },
            },
        }
    }

    /// Whether the index is complete and answers everything at once.
    pub fn is_ready(&self) -> bool {
        matches!(
            self.phase,
            Phase::Live {
                coverage: Coverage::Complete,
                ..
            }
        )
    }

    /// Why the index is being built, while it is.
    pub fn build_cause(&self) -> Option<BuildCause> {
        match &self.phase {
            Phase::Live {
                coverage: Coverage::Building(build),
                ..
            } => Some(build.cause),
            _ => None,
        }
    }

    /// The index, once loaded (complete or not).
    pub fn index(&self) -> Option<&Index> {
        match &self.phase {
            Phase::Live { index, .. } => Some(index),
            Phase::Cold | Phase::Loading { .. } => None,
        }
    }

    /// Whether a verify of the index against the history ([`Event::RemovalUnreadable`]) is still
    /// to come, out, or failed: then a snapshot saved now may hold pages removed from the history.
    pub fn verifying(&self) -> bool {
        self.verify_owed
            || match &self.phase {
                Phase::Cold => false,
                Phase::Loading { verify_at, .. } => verify_at.is_some(),
                Phase::Live {
                    coverage, pending, ..
                } => {
                    pending.as_ref().is_some_and(|p| p.verify_at.is_some())
                        || matches!(
                            coverage,
                            Coverage::Building(Build {
                                then: Some(Recheck {
                                    verify_at: Some(_),
                                    ..
                                }),
                                ..
                            })
                        )
                }
            }
    }

    fn need(&mut self, actions: &mut Vec<Action>) {
        if matches!(self.phase, Phase::Cold) {
            self.phase = Phase::Loading {
                queued: Vec::new(),
                verify_at: None,
            };
            actions.push(Action::ReadSnapshot);
        }
    }

    fn loaded(&mut self, bytes: Option<Vec<u8>>, now_ms: i64, actions: &mut Vec<Action>) {
        let Phase::Loading { queued, verify_at } = &mut self.phase else {
            // A load that no longer matters ("clear all" ended it).
            return;
        };
        let queued = std::mem::take(queued);
        let verify_at = verify_at.take();
        actions.push(Action::WakeWaiters);
        let loaded = match bytes.as_deref().map(Index::from_bytes) {
            Some(Ok(index)) => Ok(index),
            None => Err(BuildCause::NoSnapshot),
            Some(Err(crate::index::LoadError::Version { .. })) => Err(BuildCause::OtherVersion),
            Some(Err(_)) => Err(BuildCause::Corrupt),
        };
        match loaded {
            Ok(mut index) => {
                // From the snapshot's own newest visit: the queued visits are newer still, and
                // visits made while the worker was stopped lie in between.
                let newest = index.recent(0, 1).first().map_or(0, |p| p.last_visit_ms);
                let dropped = index.remove_where(|url| self.exclusions.excludes(url));
                let mut changed = !queued.is_empty() || !dropped.is_empty();
                for change in queued {
                    let change = judge(self.keep_forgotten, &index, change, actions);
                    apply(&mut index, change, &self.exclusions);
                }
                if self.keep_forgotten == Some(false) {
                    // Turned off while the worker was stopped (or on another computer).
                    let forgotten = index.forget_kept();
                    if !forgotten.is_empty() {
                        changed = true;
                        actions.push(Action::ForgetInConversation(RemovedVisits {
                            all_history: false,
                            urls: forgotten,
                        }));
                    }
                }
                // An unreadable removal came: the whole history is read instead, and verifies it.
                let start = match verify_at {
                    Some(_) => 0,
                    None => newest.saturating_sub(CATCH_UP_MARGIN_MS).max(0),
                };
                let read = self.read(start, None, 0);
                actions.push(Action::ReadHistory(read.clone()));
                self.phase = Phase::Live {
                    index: Box::new(index),
                    coverage: Coverage::Complete,
                    pending: Some(Pending {
                        read,
                        attempt: 1,
                        since: Vec::new(),
                        verify_at,
                    }),
                };
                if changed {
                    self.mark_dirty(actions);
                }
            }
            Err(cause) => {
                // Changes queued during the load are older than the first slice's read: it will
                // see them in the browser's history. A removal among them is a deletion (the
                // empty index knows no page), to be forgotten in the conversation too. A verify
                // that was wanted has nothing to check: every slice is read after it was asked.
                let empty = Index::new();
                for change in queued {
                    judge(self.keep_forgotten, &empty, change, actions);
                }
                self.start_build(cause, now_ms, actions);
            }
        }
    }

    fn start_build(&mut self, cause: BuildCause, now_ms: i64, actions: &mut Vec<Action>) {
        let read = self.read(now_ms.saturating_sub(FIRST_SLICE_MS), None, 0);
        actions.push(Action::ReadHistory(read.clone()));
        self.phase = Phase::Live {
            index: Box::default(),
            coverage: Coverage::Building(Build {
                cause,
                started_ms: now_ms,
                since_ms: None,
                span_ms: FIRST_SLICE_MS,
                then: None,
            }),
            pending: Some(Pending {
                read,
                attempt: 1,
                since: Vec::new(),
                verify_at: None,
            }),
        };
    }

    fn history_read(
        &mut self,
        id: ReadId,
        items: Option<Vec<HistoryItem>>,
        actions: &mut Vec<Action>,
    ) {
        let Phase::Live {
            index,
            coverage,
            pending,
        } = &mut self.phase
        else {
            return;
        };
        let Some(out) = pending.take_if(|p| p.read.id == id) else {
            // An answer to a read that no longer matters.
            return;
        };
        let Some(items) = items else {
            if out.attempt < READ_ATTEMPTS {
                let read = HistoryRead {
                    id: ReadId(self.next_read),
                    after_ms: READ_RETRY_MS,
                    ..out.read
                };
                self.next_read += 1;
                actions.push(Action::ReadHistory(read.clone()));
                *pending = Some(Pending {
                    read,
                    attempt: out.attempt + 1,
                    since: out.since,
                    verify_at: out.verify_at,
                });
            } else if matches!(coverage, Coverage::Building(_)) {
                // History cannot be read: start again at the next need.
                self.phase = Phase::Cold;
            } else if out.verify_at.is_some() {
                // Removed pages may stay until the next start, which verifies again (the worker
                // keeps the unreadable removal in its journal while this is owed).
                self.verify_owed = true;
            }
            // A catch-up that keeps failing is given up: events keep the index in step anyway.
            return;
        };
        let count = items.len();
        // What the index holds as Chrome's and the read lacks, but for what was visited since the
        // read was asked (its answer may predate the visit; the visit is replayed below).
        let gone = out.verify_at.map(|now_ms| {
            let read: HashSet<&str> = items.iter().map(|item| item.url.as_str()).collect();
            let visited: HashSet<&str> = out
                .since
                .iter()
                .filter_map(|change| match change {
                    Change::Visited(item) => Some(item.url.as_str()),
                    _ => None,
                })
                .collect();
            let urls: Vec<String> = index
                .chrome_urls_since(out.read.start_ms)
                .into_iter()
                .filter(|url| !read.contains(url.as_str()) && !visited.contains(url.as_str()))
                .collect();
            (urls, now_ms)
        });
        if gone.is_some() && out.read.start_ms <= 0 {
            self.verify_owed = false;
        }
        index.extend(
            items
                .into_iter()
                .filter(|item| !self.exclusions.excludes(&item.url)),
        );
        let verified = gone.is_some();
        if let Some((urls, now_ms)) = gone
            && !urls.is_empty()
        {
            let removal = Change::VisitRemoved {
                removed: RemovedVisits {
                    all_history: false,
                    urls,
                },
                now_ms,
            };
            let change = judge(self.keep_forgotten, index, removal, actions);
            apply(index, change, &self.exclusions);
        }
        for change in out.since {
            apply(index, change, &self.exclusions);
        }
        match coverage {
            Coverage::Complete => {
                // A verify is saved even when it changed nothing: the save is what tells the
                // worker's journal that the unreadable removal is honoured.
                if count > 0 || verified {
                    self.mark_dirty(actions);
                }
            }
            Coverage::Building(build) => {
                let start = out.read.start_ms;
                if start <= 0 {
                    if let Some(recheck) = build.then.take() {
                        let read = HistoryRead {
                            id: ReadId(self.next_read),
                            start_ms: recheck.start_ms,
                            end_ms: None,
                            after_ms: SLICE_PAUSE_MS,
                        };
                        self.next_read += 1;
                        actions.push(Action::ReadHistory(read.clone()));
                        *pending = Some(Pending {
                            read,
                            attempt: 1,
                            since: Vec::new(),
                            verify_at: recheck.verify_at,
                        });
                    }
                    *coverage = Coverage::Complete;
                    self.mark_dirty(actions);
                    return;
                }
                build.since_ms = Some(start);
                build.span_ms = next_span(build.span_ms, count);
                let next_start = start.saturating_sub(build.span_ms);
                let next_start = if next_start <= build.started_ms.saturating_sub(SLICE_HORIZON_MS)
                {
                    0
                } else {
                    next_start
                };
                let read = HistoryRead {
                    id: ReadId(self.next_read),
                    start_ms: next_start,
                    end_ms: Some(start.saturating_add(SLICE_OVERLAP_MS)),
                    after_ms: SLICE_PAUSE_MS,
                };
                self.next_read += 1;
                actions.push(Action::ReadHistory(read.clone()));
                *pending = Some(Pending {
                    read,
                    attempt: 1,
                    since: Vec::new(),
                    verify_at: None,
                });
            }
        }
    }

    /// An event that could not be read, at `now_ms`: a visit (`removal: false`), whose recent
    /// history is read again, or a removal, which verifies the index (see the [module docs](self)).
    fn recheck(&mut self, removal: bool, now_ms: i64, actions: &mut Vec<Action>) {
        self.need(actions);
        let recent = now_ms.saturating_sub(CATCH_UP_MARGIN_MS).max(0);
        match &mut self.phase {
            // The load's catch-up (or a build's first slice) reads the recent history anyway.
            Phase::Cold | Phase::Loading { .. } if !removal => {}
            Phase::Cold => {}
            Phase::Loading { verify_at, .. } => {
                *verify_at = Some(verify_at.map_or(now_ms, |at| at.min(now_ms)));
            }
            Phase::Live {
                coverage: Coverage::Building(build),
                pending,
                ..
            } => {
                let recheck = if removal {
                    // What was read, and the slice out (its answer may predate the removal).
                    Recheck {
                        start_ms: pending.as_ref().map_or(0, |p| p.read.start_ms),
                        verify_at: Some(now_ms),
                    }
                } else {
                    Recheck {
                        start_ms: recent,
                        verify_at: None,
                    }
                };
                build.then = Some(build.then.map_or(recheck, |then| then.and(recheck)));
            }
            Phase::Live {
                coverage: Coverage::Complete,
                ..
            } => {
                let recheck = if removal {
                    Recheck {
                        start_ms: 0,
                        verify_at: Some(now_ms),
                    }
                } else {
                    Recheck {
                        start_ms: recent,
                        verify_at: None,
                    }
                };
                self.reread(recheck, actions);
            }
        }
    }

    /// A complete index reads the history from `recheck.start_ms` to now, merged into what it
    /// holds. A read that is out is ignored when it comes back: this one does what it would have
    /// done too (from the earlier start, a verify if either is), and is asked after every change
    /// applied meanwhile, so it has them.
    fn reread(&mut self, recheck: Recheck, actions: &mut Vec<Action>) {
        let Phase::Live {
            coverage: Coverage::Complete,
            pending,
            ..
        } = &mut self.phase
        else {
            return;
        };
        let recheck = match pending.take() {
            Some(out) => recheck.and(Recheck {
                start_ms: out.read.start_ms,
                verify_at: out.verify_at,
            }),
            None => recheck,
        };
        let read = HistoryRead {
            id: ReadId(self.next_read),
            start_ms: recheck.start_ms,
            end_ms: None,
            after_ms: 0,
        };
        self.next_read += 1;
        actions.push(Action::ReadHistory(read.clone()));
        *pending = Some(Pending {
            read,
            attempt: 1,
            since: Vec::new(),
            verify_at: recheck.verify_at,
        });
    }

    /// A removal to honour whatever the option says.
    fn deleted(&mut self, removed: RemovedVisits, actions: &mut Vec<Action>) {
        actions.push(Action::ForgetInConversation(removed.clone()));
        self.change(Change::Removed(removed), actions);
    }

    /// A history removal: judged now against the index, or once the snapshot is loaded.
    fn visit_removed(&mut self, removed: RemovedVisits, now_ms: i64, actions: &mut Vec<Action>) {
        self.need(actions);
        if removed.all_history {
            return self.deleted(removed, actions);
        }
        let change = Change::VisitRemoved { removed, now_ms };
        let change = match &self.phase {
            Phase::Live { index, .. } => judge(self.keep_forgotten, index, change, actions),
            Phase::Cold | Phase::Loading { .. } => change,
        };
        self.change(change, actions);
    }

    /// Forgets every kept page (in the conversation too).
    fn forget_kept(&mut self, actions: &mut Vec<Action>) {
        let Phase::Live {
            index, coverage, ..
        } = &mut self.phase
        else {
            return;
        };
        let forgotten = index.forget_kept();
        if forgotten.is_empty() {
            return;
        }
        let complete = matches!(coverage, Coverage::Complete);
        actions.push(Action::ForgetInConversation(RemovedVisits {
            all_history: false,
            urls: forgotten,
        }));
        if complete {
            self.mark_dirty(actions);
        }
    }

    fn change(&mut self, change: Change, actions: &mut Vec<Action>) {
        self.need(actions);
        let clear_all = matches!(
            &change,
            Change::Removed(RemovedVisits {
                all_history: true,
                ..
            })
        );
        match &mut self.phase {
            Phase::Cold => {}
            Phase::Loading { queued, .. } if !clear_all => queued.push(change),
            Phase::Loading { .. } => {
                // The history is empty now: nothing to load, nothing to build, nothing to verify.
                self.verify_owed = false;
                self.phase = Phase::Live {
                    index: Box::default(),
                    coverage: Coverage::Complete,
                    pending: None,
                };
                actions.push(Action::WakeWaiters);
                self.mark_dirty(actions);
            }
            Phase::Live {
                index,
                coverage,
                pending,
            } => {
                if clear_all {
                    index.clear();
                    self.verify_owed = false;
                    // Whatever read is out would bring back what was just cleared.
                    *pending = None;
                    *coverage = Coverage::Complete;
                } else {
                    if let Some(pending) = pending {
                        pending.since.push(change.clone());
                    }
                    apply(index, change, &self.exclusions);
                }
                if matches!(coverage, Coverage::Complete) {
                    self.mark_dirty(actions);
                }
            }
        }
    }

    /// New excluded sites: their pages leave the index; a site taken off the list has its pages
    /// read again (see the [module docs](self)).
    fn exclude(&mut self, exclusions: Exclusions, now_ms: i64, actions: &mut Vec<Action>) {
        let lifted = self.exclusions.lifted_by(&exclusions);
        self.exclusions = exclusions;
        let id = ReadId(self.next_read);
        let Phase::Live {
            index,
            coverage,
            pending,
        } = &mut self.phase
        else {
            // Cold or loading: the snapshot and every read are filtered when they come.
            return;
        };
        let dropped = index.remove_where(|url| self.exclusions.excludes(url));
        let complete = matches!(coverage, Coverage::Complete);
        if lifted && let Coverage::Building(build) = coverage {
            self.next_read += 1;
            // The slices read so far lacked the site's pages: start again from now (a read to
            // make once complete is still to make: what was read before is kept).
            *build = Build {
                cause: build.cause,
                started_ms: now_ms,
                since_ms: None,
                span_ms: FIRST_SLICE_MS,
                then: build.then,
            };
            let read = HistoryRead {
                id,
                start_ms: now_ms.saturating_sub(FIRST_SLICE_MS),
                end_ms: None,
                after_ms: 0,
            };
            actions.push(Action::ReadHistory(read.clone()));
            // The read out before is ignored when it comes back; this one covers it.
            *pending = Some(Pending {
                read,
                attempt: 1,
                since: Vec::new(),
                verify_at: None,
            });
        }
        if lifted && complete {
            // The whole history again (with what a read out would have done).
            self.reread(
                Recheck {
                    start_ms: 0,
                    verify_at: None,
                },
                actions,
            );
        }
        if !dropped.is_empty() && complete {
            self.mark_dirty(actions);
        }
    }

    fn mark_dirty(&mut self, actions: &mut Vec<Action>) {
        self.dirty = true;
        if !self.persist_set {
            self.persist_set = true;
            actions.push(Action::PersistAfter {
                ms: PERSIST_DELAY_MS,
            });
        }
    }

    fn read(&mut self, start_ms: i64, end_ms: Option<i64>, after_ms: u32) -> HistoryRead {
        let id = ReadId(self.next_read);
        self.next_read += 1;
        HistoryRead {
            id,
            start_ms,
            end_ms,
            after_ms,
        }
    }
}

/// The next slice's span: the last one's scaled towards [`SLICE_TARGET_PAGES`], at most halved or
/// quadrupled at a time, within [`MIN_SLICE_MS`]..=[`MAX_SLICE_MS`].
pub fn next_span(span_ms: i64, pages: usize) -> i64 {
    let scaled = if pages == 0 {
        span_ms.saturating_mul(4)
    } else {
        (span_ms as f64 * SLICE_TARGET_PAGES as f64 / pages as f64) as i64
    };
    scaled
        .clamp(span_ms / 2, span_ms.saturating_mul(4))
        .clamp(MIN_SLICE_MS, MAX_SLICE_MS)
}

/// What a change amounts to against `index`, with the keep option `keep`: a history removal becomes
/// kept pages (an expiry, with the option on) or a deletion (also forgotten in the conversation);
/// other changes are as they are.
fn judge(keep: Option<bool>, index: &Index, change: Change, actions: &mut Vec<Action>) -> Change {
    let Change::VisitRemoved { removed, now_ms } = change else {
        return change;
    };
    let kind = match keep {
        Some(true) => archive::classify(&removed, |url| index.newest_visit_of(url), now_ms),
        Some(false) | None => Removal::Deleted,
    };
    match kind {
        Removal::Expired => Change::Keep(removed.urls),
        Removal::Deleted => {
            actions.push(Action::ForgetInConversation(removed.clone()));
            Change::Removed(removed)
        }
    }
}

fn apply(index: &mut Index, change: Change, exclusions: &Exclusions) {
    match change {
        Change::Visited(item) if exclusions.excludes(&item.url) => {}
        Change::Visited(item) => index.upsert(item),
        Change::Removed(RemovedVisits {
            all_history: true, ..
        }) => index.clear(),
        Change::Removed(RemovedVisits { urls, .. }) => index.remove_urls(&urls),
        Change::Forgot(urls) => {
            index.forget_pages(&urls);
        }
        Change::Keep(urls) => index.keep_urls(&urls),
        // Judged before it is applied ([`Host::judge`]); never reaches here unjudged.
        Change::VisitRemoved { .. } => {}
    }
}

#[cfg(test)]
mod tests;
