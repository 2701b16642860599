//! Retrieval: the one plan that turns a question into the pages shown, whichever page runs it —
//! the popup as the user types, the worker for a committed question.
//!
//! The plan ([`retrieve`]) asks its [`Sources`], each behind the one [`Source`] interface, and
//! decides what to fuse and where to cut:
//!
//! ```text
//!   words (lexical index, kept pages included) ──┬─ whole ────────────────────────────┐
//!                                                └─ partial ─▶ browser's search ─▶ fuse ┤
//!                                                                                       ▼
//!                                            topic search (semantic vectors) ─▶ fuse ─▶ cut
//! ```
//!
//! - The words' answer comes first and is shown at once ([`Stage::Words`]). While the index does
//!   not reach back to the period's start, what it has is shown as filling in
//!   ([`Stage::FillingIn`]) and the browser's own search is fused in ([`Stage::FilledIn`],
//!   [`fusion::fuse_with_browser`]).
//! - Topic search's pages are fused in last ([`Stage::Topics`], [`fusion::fuse_semantic`]), only
//!   when it found any: the words' answer never waits for the model.
//! - Every answer is cut to [`RESULT_LIMIT`].
//!
//! The pages that only History Chat keeps (Chrome forgot them, `crate::archive`) are the lexical
//! index's: the words' source answers for them. A new source (a page's content, bookmarks, open
//! tabs) is a [`Source`] whose ranked pages the plan fuses in; the callers only say how to ask it.
//!
//! The plan does no I/O and keeps no clock: the caller gives the sources, and [`Asker`] paces it
//! (the popup pauses between keystrokes and drops a superseded question) and hears each step.

pub mod eval;
pub mod fusion;

use std::future::Future;

use crate::failure::Failure;
use crate::history::Page;
use crate::index::IndexProgress;
use crate::index::host::{Answer, BROWSER_SEARCH_DEBOUNCE_MS};
use crate::period::Period;
use crate::search::RESULT_LIMIT;
use crate::semantic::Words;

/// While typing, topic search is asked this long after the words' answer is shown (and only if
/// nothing was typed meanwhile): a question's embedding costs the model tens of milliseconds, which
/// is not worth spending on every keystroke, and the words' answer must never wait for it. A
/// committed question asks at once.
pub const SEMANTIC_PAUSE_MS: u32 = 350;

/// Topic search's pages fused with the words' answer: as deep as the lexical pool fused with the
/// browser's ([`eval::SMART_POOL`] is 50 there), so a page the model ranks 20th can still come up
/// when the words also point at it; RRF makes the tail weigh little.
pub const SEMANTIC_POOL: usize = 30;

/// How the plan is paced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pace {
    /// A committed question (Enter): every source at once.
    Committed,
    /// As the user types: the browser's search after [`BROWSER_SEARCH_DEBOUNCE_MS`], topic search
    /// after [`SEMANTIC_PAUSE_MS`], each only if the question is still the one typed.
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

/// Topic search's answer, most similar first.
#[derive(Debug, Clone, PartialEq)]
pub struct Topics {
    /// The pages (perhaps none: nothing close enough, or topic search cannot answer yet).
    pub pages: Vec<Page>,
    /// Whether the words alone found a page of the period: how the pages are fused.
    pub words: Words,
}

impl Topics {
    /// No topic pages: the words' answer stands.
    pub fn none() -> Topics {
        Topics {
            pages: Vec::new(),
            words: Words::Found,
        }
    }
}

/// The plan's sources, today's four: the lexical index (which holds the kept pages too), the
/// browser's own search (`Err` with why the history could not be read), topic search.
#[derive(Debug, Clone, Copy)]
pub struct Sources<L, B, T> {
    /// The lexical index.
    pub lexical: L,
    /// The browser's own search of its history.
    pub browser: B,
    /// Topic search.
    pub topics: T,
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
    /// Topic search's pages fused in: the last step.
    Topics,
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
    /// The final pages (the last step shown, or the words' answer when topic search added none),
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
/// index found, or of topic search, leaves the pages found.
pub async fn retrieve<L, B, T, A>(
    retrieval: &Retrieval<'_>,
    sources: &Sources<L, B, T>,
    asker: &A,
) -> Result<Retrieved, Failure>
where
    L: Source<Answer = Lexical>,
    B: Source<Answer = Result<Vec<Page>, Failure>>,
    T: Source<Answer = Topics>,
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
    let lexical = sources.lexical.find(&query(RESULT_LIMIT)).await;
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
            });
            (pages, None)
        }
        Lexical::Partial { pages, progress } => {
            asker.show(Step {
                stage: Stage::FillingIn,
                pages: pages.clone(),
                indexing: Some(progress),
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
            });
            (filled, Some(progress))
        }
    };
    if typing {
        asker.pause(SEMANTIC_PAUSE_MS).await;
        if !asker.wanted() {
            return Ok(Retrieved::Dropped);
        }
    }
    let topics = sources.topics.find(&query(SEMANTIC_POOL)).await;
    if !asker.wanted() {
        return Ok(Retrieved::Dropped);
    }
    if topics.pages.is_empty() {
        return Ok(Retrieved::Pages {
            pages: shown,
            indexing,
        });
    }
    let mut pages = fusion::fuse_semantic(&shown, &topics.pages, topics.words);
    pages.truncate(RESULT_LIMIT);
    asker.show(Step {
        stage: Stage::Topics,
        pages: pages.clone(),
        indexing,
    });
    Ok(Retrieved::Pages { pages, indexing })
}

#[cfg(test)]
mod tests;
