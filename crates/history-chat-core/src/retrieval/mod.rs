//! Retrieval: the one plan that turns a question into the pages shown, whichever page runs it —
//! the popup as the user types, the worker for a committed question.
//!
//! The plan ([`retrieve`]) asks its [`Sources`] and decides what to fuse and where to cut:
//!
//! ```text
//!   words (lexical index, kept pages included) ──┬─ whole ──────────────────────────────┐
//!                                                └─ partial ─▶ browser's search ─▶ fuse ┤
//!                                                                                       ▼
//!   ranked sources, by their pause (topic search, …) ─▶ after each: fuse every list ─▶ cut
//! ```
//!
//! - The words' answer comes first and is shown at once ([`Stage::Words`]). While the index does
//!   not reach back to the period's start, what it has is shown as filling in
//!   ([`Stage::FillingIn`]) and the browser's own search is fused in ([`Stage::FilledIn`],
//!   [`fusion::fuse_with_browser`]): the browser's search exists only because the index may be
//!   partial.
//! - Then every ranked source ([`RankedSource`], listed in [`Sources::ranked`]) is asked, in
//!   order of its pause ([`Asking::pause_ms`]; ties in list order), for its pool
//!   ([`Asking::pool`]) of pages. After each answer that has pages, the words' answer and every
//!   ranked answer so far are fused by one RRF ([`fusion::fuse_placed`]; a [`Ranked`] answer
//!   says whether its pages lead or are fused) and shown ([`Stage::Ranked`]). An answer with no
//!   pages changes nothing; the words' answer never waits for a ranked source.
//! - Every answer is cut to [`RESULT_LIMIT`].
//!
//! The words' source is the lexical index, and the pages that only History Chat keeps (Chrome
//! forgot them, `crate::archive`) are the index's: the archive answers through the words' source.
//! The ranked sources are topic search (the semantic vectors: [`TOPIC_SEARCH`],
//! [`Ranked::topics`]), the pages' content ([`CONTENT_SEARCH`], [`Ranked::content`]) and the
//! bookmarks and open tabs ([`PLACES`], [`Ranked::places`]; asked only when the words' answer did
//! not have them fused in already, and the only source asked when a question names no history:
//! [`RankedSource::searches`]).
//!
//! **Adding a source** (a page's content, bookmarks, open tabs) is writing a [`RankedSource`]
//! and listing it; [`retrieve`] is not edited:
//!
//! ```
//! use history_chat_core::retrieval::fusion::Placement;
//! use history_chat_core::retrieval::{Asking, Finding, Ranked, RankedSource, SourceQuery};
//!
//! /// Bookmarks matching the question (cheap: asked at once, even as the user types).
//! struct Bookmarks;
//!
//! impl RankedSource for Bookmarks {
//!     fn asking(&self) -> Asking {
//!         Asking { pause_ms: 0, pool: 30 }
//!     }
//!
//!     fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
//!         Box::pin(async move {
//!             let _ = query.question; // … search the bookmarks
//!             Ranked { pages: Vec::new(), placement: Placement::Fused }
//!         })
//!     }
//! }
//!
//! // Listed beside topic search: `Sources { lexical, browser, ranked: &[&TopicSearch, &Bookmarks] }`.
//! let ranked: &[&dyn RankedSource] = &[&Bookmarks];
//! # assert_eq!(ranked.len(), 1);
//! ```
//!
//! The plan does no I/O and keeps no clock: the caller gives the sources, and [`Asker`] paces it
//! (the popup pauses between keystrokes and drops a superseded question) and hears each step.

pub mod eval;
pub mod fusion;

use std::fmt;
use std::future::Future;
use std::pin::Pin;

use crate::failure::Failure;
use crate::history::Page;
use crate::index::IndexProgress;
use crate::index::host::{Answer, BROWSER_SEARCH_DEBOUNCE_MS};
use crate::origin::{Origin, Origins};
use crate::period::Period;
use crate::search::RESULT_LIMIT;
use crate::semantic::Words;
use crate::site_filter;

use fusion::Placement;

/// While typing, topic search is asked this long after the words' answer is shown (and only if
/// nothing was typed meanwhile): a question's embedding costs the model tens of milliseconds, which
/// is not worth spending on every keystroke, and the words' answer must never wait for it. A
/// committed question asks at once. ([`TOPIC_SEARCH`]'s pause.)
pub const SEMANTIC_PAUSE_MS: u32 = 350;

/// Topic search's pages fused with the words' answer: as deep as the lexical pool fused with the
/// browser's ([`eval::SMART_POOL`] is 50 there), so a page the model ranks 20th can still come up
/// when the words also point at it; RRF makes the tail weigh little. ([`TOPIC_SEARCH`]'s pool.)
pub const SEMANTIC_POOL: usize = 30;

/// How topic search is asked: after [`SEMANTIC_PAUSE_MS`], for [`SEMANTIC_POOL`] pages.
pub const TOPIC_SEARCH: Asking = Asking {
    pause_ms: SEMANTIC_PAUSE_MS,
    pool: SEMANTIC_POOL,
};

/// How the bookmarks and open tabs are asked ([`Ranked::places`]): at once, even as the user
/// types (a pass over a few thousand entries held in memory, no model), for as many pages as are
/// shown.
pub const PLACES: Asking = Asking {
    pause_ms: 0,
    pool: RESULT_LIMIT,
};

/// Whether the bookmarks and open tabs are asked when a question names `origins`: when it names
/// either, or no source ([`RankedSource::searches`] of their source).
pub fn searches_places(origins: Origins) -> bool {
    origins.allows(Origin::Bookmark) || origins.allows(Origin::Tab)
}

/// How the pages' read content is asked: as topic search is (listed after it, it is asked right
/// after it, and the worker embeds the question once for both), for as many pages.
pub const CONTENT_SEARCH: Asking = TOPIC_SEARCH;

/// Whether the pages' read content is asked when a question names `origins`: it holds the
/// history's pages and the bookmarked ones ([`RankedSource::searches`] of its source).
pub fn searches_history_or_bookmarks(origins: Origins) -> bool {
    origins.allows(Origin::History) || origins.allows(Origin::Bookmark)
}

/// Whether topic search is asked when a question names `origins`: it holds the history's pages,
/// the bookmarked ones and the open tabs' outside the history, so every source.
pub fn searches_topics(origins: Origins) -> bool {
    searches_history_or_bookmarks(origins) || origins.allows(Origin::Tab)
}

/// How the plan is paced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// A committed question (Enter): every source at once.
    Committed,
    /// As the user types: the browser's search after [`BROWSER_SEARCH_DEBOUNCE_MS`], each ranked
    /// source after its pause ([`Asking::pause_ms`]; topic search's is [`SEMANTIC_PAUSE_MS`]),
    /// each only if the question is still the one typed.
    AsYouType,
}

/// A question to retrieve pages for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Retrieval<'a> {
    /// The question as typed, `site:` terms included.
    pub question: &'a str,
    /// The period searched.
    pub period: Period,
    /// The instant the period ends (ms since the Unix epoch).
    pub now_ms: i64,
    /// How the plan is paced.
    pub pace: Pace,
}

impl Retrieval<'_> {
    /// The period's start, ms since the Unix epoch.
    pub fn start_ms(&self) -> i64 {
        self.period.start_ms(self.now_ms)
    }
}

/// What a source is asked: the question, its period, and how many pages the plan wants of it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SourceQuery<'a> {
    /// The question as typed, `site:` terms included.
    pub question: &'a str,
    /// The period searched.
    pub period: Period,
    /// The instant the period ends (ms since the Unix epoch).
    pub now_ms: i64,
    /// The period's start (ms since the Unix epoch).
    pub start_ms: i64,
    /// At most this many pages.
    pub limit: usize,
}

/// A source of candidate pages: asked with a [`SourceQuery`], it answers in its own terms (a
/// ranked list, with what the plan needs to know to fuse it).
pub trait Source {
    /// What it answers.
    type Answer;
    /// Its answer to `query`.
    fn find(&self, query: &SourceQuery<'_>) -> impl Future<Output = Self::Answer>;
}

/// The lexical index's answer, best first.
#[derive(Debug, Clone, PartialEq)]
pub enum Lexical {
    /// The whole answer: the index covers the period.
    Whole(Vec<Page>),
    /// What it has so far (perhaps nothing), and how far it has got: the browser fills in.
    Partial {
        /// The pages it found.
        pages: Vec<Page>,
        /// How far it has got.
        progress: IndexProgress,
    },
    /// It may not answer, and no other source may either (the excluded sites are not known):
    /// why.
    Refused(Failure),
}

impl Lexical {
    /// The index's answer to a search, as the plan reads it: pages covering the period are the
    /// whole answer; pages from a build that does not reach back, or none while it cannot answer
    /// yet, are partial. No answer (`None`: the worker could not be asked, or not in time, or
    /// answered something else) is an empty partial answer: the browser's search alone.
    pub fn of_index(answer: Option<Answer>) -> Lexical {
        match answer {
            Some(Answer::Pages {
                pages,
                indexing: None,
            }) => Lexical::Whole(pages),
            Some(Answer::Pages {
                pages,
                indexing: Some(progress),
            }) => Lexical::Partial { pages, progress },
            Some(Answer::Indexing { progress }) => Lexical::Partial {
                pages: Vec::new(),
                progress,
            },
            Some(Answer::Ready { .. } | Answer::Kept { .. }) | None => Lexical::Partial {
                pages: Vec::new(),
                progress: IndexProgress::default(),
            },
        }
    }
}

/// What the plan needs to pace and ask a [`RankedSource`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Asking {
    /// As the user types ([`Pace::AsYouType`]), how long nothing must have been typed since the
    /// words' answer was shown (and the browser's fused in) before the source is asked: the plan
    /// waits the difference from the source asked before it. 0: at once, with no pause (a cheap
    /// source). The sources are asked in order of their pause; a committed question waits for
    /// none.
    pub pause_ms: u32,
    /// How many pages it is asked for ([`SourceQuery::limit`]).
    pub pool: usize,
}

/// A ranked source's answer: its pages, best first, and where they stand among the others'.
#[derive(Debug, Clone, PartialEq)]
pub struct Ranked {
    /// The pages, best first (perhaps none: nothing found, or the source cannot answer yet).
    pub pages: Vec<Page>,
    /// Whether its pages are fused by RRF with the words' answer and the other ranked sources',
    /// or lead them ([`fusion::fuse_placed`]).
    pub placement: Placement,
}

impl Ranked {
    /// No pages: the answer so far stands.
    pub fn none() -> Ranked {
        Ranked {
            pages: Vec::new(),
            placement: Placement::Fused,
        }
    }

    /// The pages' content's answer, best first (their passages' words and meaning): placed as
    /// topic search's are — leading when the words alone found no page of the period (what the
    /// pages said is then the best lead there is), fused by RRF beside the words' pages.
    pub fn content(pages: Vec<Page>, words: Words) -> Ranked {
        Ranked {
            pages,
            placement: Placement::of_topics(words),
        }
    }

    /// The bookmarks' and open tabs' answer, best first: fused by RRF with the others, so that
    /// a page found in the history and bookmarked rises, and shows once with both marks.
    pub fn places(pages: Vec<Page>) -> Ranked {
        Ranked {
            pages,
            placement: Placement::Fused,
        }
    }

    /// Topic search's answer, most similar first: its pages lead when the words alone found no
    /// page of the period ([`Words::Missed`]), and are fused by RRF beside one they found
    /// ([`Words::Found`], [`Placement::of_topics`]).
    pub fn topics(pages: Vec<Page>, words: Words) -> Ranked {
        Ranked {
            pages,
            placement: Placement::of_topics(words),
        }
    }
}

/// A ranked source's answer on its way: a boxed future, so that sources of different types stand
/// in one list ([`Sources::ranked`]).
pub type Finding<'a> = Pin<Box<dyn Future<Output = Ranked> + 'a>>;

/// A source of candidate pages the plan fuses with the words' answer: topic search today; a
/// page's content, bookmarks, open tabs tomorrow. It says how it is paced and asked
/// ([`Asking`]), and answers a ranked list with where it stands ([`Ranked`]). It handles its own
/// failures (the console keeps why): a source that cannot answer finds nothing, and the pages
/// found so far stand.
pub trait RankedSource {
    /// How the plan paces and asks it.
    fn asking(&self) -> Asking;
    /// Its answer to `query` (`query.limit` is [`Asking::pool`]).
    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a>;
    /// Whether it is asked when the question names `origins` (its source terms,
    /// [`crate::origin`]): a source of the history's pages (topic search, their content) is
    /// asked when the history is searched.
    fn searches(&self, origins: Origins) -> bool {
        origins.allows(Origin::History)
    }
}

/// The plan's sources: the words' source (the lexical index, which holds the kept pages too), the
/// browser's own search that fills in while the index is partial (`Err` with why the history could
/// not be read), and the ranked sources fused in after them.
#[derive(Clone, Copy)]
pub struct Sources<'s, L, B> {
    /// The lexical index.
    pub lexical: L,
    /// The browser's own search of its history.
    pub browser: B,
    /// The ranked sources (topic search, …), each asked after its pause; a step names one by
    /// its place here ([`Stage::Ranked`]).
    pub ranked: &'s [&'s dyn RankedSource],
}

impl<L: fmt::Debug, B: fmt::Debug> fmt::Debug for Sources<'_, L, B> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let asking: Vec<Asking> = self.ranked.iter().map(|s| s.asking()).collect();
        f.debug_struct("Sources")
            .field("lexical", &self.lexical)
            .field("browser", &self.browser)
            .field("ranked", &asking)
            .finish()
    }
}

/// Which answer a [`Step`] is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stage {
    /// The words' whole answer.
    Words,
    /// What the incomplete index has (perhaps nothing yet); the browser's search is coming.
    FillingIn,
    /// The index's pages with the browser's fused in.
    FilledIn,
    /// A ranked source's pages fused in: which one, by its place in [`Sources::ranked`].
    Ranked(usize),
}

/// One answer on the way to the final one.
#[derive(Debug, Clone, PartialEq)]
pub struct Step {
    /// Which answer it is.
    pub stage: Stage,
    /// The pages, best first, at most [`RESULT_LIMIT`].
    pub pages: Vec<Page>,
    /// How far the index had got, when the browser had to fill in.
    pub indexing: Option<IndexProgress>,
    /// No source is left to ask: no step follows, this one is the plan's answer. (A step that is
    /// not the last may be the answer too, when the sources after it find nothing.)
    pub last: bool,
}

/// Who runs the plan: paces it and hears its steps.
pub trait Asker {
    /// Whether the question is still wanted (the popup: nothing typed since). Asked after every
    /// wait; an unwanted question ends the plan, and nothing more is shown.
    fn wanted(&self) -> bool;
    /// Waits `ms` (only with [`Pace::AsYouType`]).
    fn pause(&self, ms: u32) -> impl Future<Output = ()>;
    /// A new answer to show.
    fn show(&self, step: Step);
}

/// How [`retrieve`] ended.
#[derive(Debug, Clone, PartialEq)]
pub enum Retrieved {
    /// The final pages (the last step shown: the words' answer when no ranked source found any),
    /// and how far the index had got when the browser filled in.
    Pages {
        /// The pages, best first, at most [`RESULT_LIMIT`].
        pages: Vec<Page>,
        /// How far the index had got, when the browser had to fill in.
        indexing: Option<IndexProgress>,
    },
    /// The question stopped being wanted before the end.
    Dropped,
}

/// Runs the plan for `retrieval` over `sources`, paced by and shown to `asker`. `Err` with why
/// when the history could not be searched at all (the index refused, or found
/// nothing and the browser's search failed); a failure of the browser's search beside pages the
/// index found, or of a ranked source, leaves the pages found.
pub async fn retrieve<L, B, A>(
    retrieval: &Retrieval<'_>,
    sources: &Sources<'_, L, B>,
    asker: &A,
) -> Result<Retrieved, Failure>
where
    L: Source<Answer = Lexical>,
    B: Source<Answer = Result<Vec<Page>, Failure>>,
    A: Asker,
{
    let typing = retrieval.pace == Pace::AsYouType;
    let query = |limit| SourceQuery {
        question: retrieval.question,
        period: retrieval.period,
        now_ms: retrieval.now_ms,
        start_ms: retrieval.start_ms(),
        limit,
    };
    // Source terms (`bookmark:`, `tab:`) may leave the history out: then neither the words' index
    // nor the browser's search is asked, and only the ranked sources of the sources named are.
    let origins = site_filter::parse(retrieval.question).origins;
    let words_last = !sources.ranked.iter().any(|source| source.searches(origins));
    let lexical = match origins.allows(Origin::History) {
        true => sources.lexical.find(&query(RESULT_LIMIT)).await,
        false => Lexical::Whole(Vec::new()),
    };
    if !asker.wanted() {
        return Ok(Retrieved::Dropped);
    }
    let (shown, indexing) = match lexical {
        Lexical::Refused(reason) => return Err(reason),
        Lexical::Whole(pages) => {
            asker.show(Step {
                stage: Stage::Words,
                pages: pages.clone(),
                indexing: None,
                last: words_last,
            });
            (pages, None)
        }
        Lexical::Partial { pages, progress } => {
            asker.show(Step {
                stage: Stage::FillingIn,
                pages: pages.clone(),
                indexing: Some(progress),
                last: false,
            });
            if typing {
                asker.pause(BROWSER_SEARCH_DEBOUNCE_MS).await;
                if !asker.wanted() {
                    return Ok(Retrieved::Dropped);
                }
            }
            let browser = match sources.browser.find(&query(RESULT_LIMIT)).await {
                Ok(browser) => browser,
                Err(reason) if pages.is_empty() => return Err(reason),
                // What the index found stands alone (the source says why in the console).
                Err(_) => Vec::new(),
            };
            if !asker.wanted() {
                return Ok(Retrieved::Dropped);
            }
            let mut filled = fusion::fuse_with_browser(&pages, &browser);
            filled.truncate(RESULT_LIMIT);
            asker.show(Step {
                stage: Stage::FilledIn,
                pages: filled.clone(),
                indexing: Some(progress),
                last: words_last,
            });
            (filled, Some(progress))
        }
    };
    // The ranked sources by their pause, ties in list order: each goes before the first with a
    // longer pause. (A handful of sources: no sort is linked into the popup for them.)
    let mut order: Vec<(usize, &dyn RankedSource, Asking)> = Vec::new();
    for (place, source) in sources.ranked.iter().enumerate() {
        if !source.searches(origins) {
            continue;
        }
        let asking = source.asking();
        let at = order
            .iter()
            .position(|(_, _, before)| before.pause_ms > asking.pause_ms)
            .unwrap_or(order.len());
        order.insert(at, (place, *source, asking));
    }
    let mut paused_ms = 0;
    let mut found: Vec<Ranked> = Vec::new();
    let mut fused: Option<Vec<Page>> = None;
    for (n, (place, source, asking)) in order.iter().enumerate() {
        if typing && asking.pause_ms > paused_ms {
            asker.pause(asking.pause_ms - paused_ms).await;
            paused_ms = asking.pause_ms;
            if !asker.wanted() {
                return Ok(Retrieved::Dropped);
            }
        }
        let ranked = source.find(&query(asking.pool)).await;
        if !asker.wanted() {
            return Ok(Retrieved::Dropped);
        }
        if ranked.pages.is_empty() {
            continue;
        }
        found.push(ranked);
        let lists: Vec<(&[Page], Placement)> = std::iter::once((&shown[..], Placement::Fused))
            .chain(found.iter().map(|r| (&r.pages[..], r.placement)))
            .collect();
        let mut pages = fusion::fuse_placed(&lists);
        pages.truncate(RESULT_LIMIT);
        asker.show(Step {
            stage: Stage::Ranked(*place),
            pages: pages.clone(),
            indexing,
            last: n + 1 == order.len(),
        });
        fused = Some(pages);
    }
    Ok(Retrieved::Pages {
        pages: fused.unwrap_or(shown),
        indexing,
    })
}

#[cfg(test)]
mod tests;
