//! The local search of a committed question, run by the worker for the popup that asked (so that
//! it ends, and its answer is written, even when that popup closes). The plan is the core's
//! ([`retrieve`]); this module gives it the worker's own sources — the lexical index, the
//! browser's search, and the ranked sources (topic search) — and makes turns of its steps.

use std::cell::Cell;

use history_chat_bindings::{http, log};
use history_chat_core::conversation::{Turn, TurnError, TurnNote};
use history_chat_core::failure::Failure;
use history_chat_core::history::Page;
use history_chat_core::index::host::{Question, WORKER_PATIENCE_MS};
use history_chat_core::messages::Response;
use history_chat_core::origin::Origins;
use history_chat_core::period::Period;
use history_chat_core::retrieval::{
    Asker, Asking, CONTENT_SEARCH, Finding, Lexical, PLACES, Pace, Ranked, RankedSource, Retrieval,
    Retrieved, Source, SourceQuery, Sources, Stage, Step, TOPIC_SEARCH, retrieve,
    searches_history_or_bookmarks, searches_places, searches_topics,
};

use crate::{content_host, index_host, places_host, semantic_host};

/// Searches `question` over `period`, as asked at `at_ms`, and makes it a local turn; a failure
/// becomes the turn's error, with what to do. Each answer on the way (what the words found, the
/// browser's pages fused in, a ranked source's before the last) is given to `early` as a turn
/// that says how far the index had got; the answer carries no note (the caller's is why not the
/// engine the user chose).
pub async fn answer(at_ms: i64, question: &str, period: Period, early: impl Fn(Turn)) -> Turn {
    let retrieval = Retrieval {
        question,
        period,
        now_ms: at_ms,
        pace: Pace::Committed,
    };
    // Whether the index's answer had the bookmarks and tabs fused in already.
    let places = Cell::new(false);
    let sources = Sources {
        lexical: OwnIndex { places: &places },
        browser: BrowserSearch,
        ranked: &[
            &TopicSearch,
            &ContentSearch,
            &PlacesSearch { places: &places },
        ],
    };
    let asker = Early {
        early: |step: Step| {
            let note = match step.stage {
                Stage::FillingIn => Some(TurnNote::FillingIn),
                _ => step
                    .indexing
                    .map(|progress| TurnNote::Indexing { progress }),
            };
            let mut pages = step.pages;
            places_host::mark_pages(&mut pages);
            let mut turn = Turn::local(at_ms, question, period, Ok(pages));
            turn.note = note;
            early(turn);
        },
    };
    let outcome = match retrieve(&retrieval, &sources, &asker).await {
        Ok(Retrieved::Pages { mut pages, .. }) => {
            places_host::mark_pages(&mut pages);
            Ok(pages)
        }
        // A committed question is always wanted.
        Ok(Retrieved::Dropped) => Ok(Vec::new()),
        Err(failure) => Err(TurnError::SearchFailed { failure }),
    };
    Turn::local(at_ms, question, period, outcome)
}

/// Hears the plan's steps: every one but the last, when it has pages, is an early turn (the last
/// is the answer itself).
struct Early<F> {
    early: F,
}

impl<F: Fn(Step)> Asker for Early<F> {
    fn wanted(&self) -> bool {
        true
    }

    async fn pause(&self, _ms: u32) {}

    fn show(&self, step: Step) {
        if !step.last && !step.pages.is_empty() {
            (self.early)(step);
        }
    }
}

/// The worker's own lexical index.
/// The worker's own lexical index, with the bookmarks and open tabs fused in when they are ready
/// (`places` says whether they were).
struct OwnIndex<'c> {
    places: &'c Cell<bool>,
}

impl Source for OwnIndex<'_> {
    type Answer = Lexical;

    async fn find(&self, query: &SourceQuery<'_>) -> Lexical {
        let question = Question::Search {
            query: query.question.to_owned(),
            start_ms: query.start_ms,
            limit: query.limit,
        };
        // The index answers in milliseconds, even mid-build; only a snapshot being read makes it
        // wait, and then no longer than the browser's search takes.
        match http::within(WORKER_PATIENCE_MS, index_host::ask(question)).await {
            Some(Ok(answer)) => {
                let answer = places_host::fuse_into(query.question, query.limit, answer.into());
                self.places
                    .set(matches!(answer, Response::Pages { places: true, .. }));
                Lexical::of_index(answer.into_index_answer())
            }
            // Refused (the excluded sites are not known): the browser's search would be too.
            Some(Err(Response::Failed { failure })) => Lexical::Refused(failure),
            // The index could not answer, or not in time: the browser's search alone.
            Some(Err(_)) | None => Lexical::of_index(None),
        }
    }
}

/// The browser's own search of its history; `Err` with why it could not be read.
struct BrowserSearch;

impl Source for BrowserSearch {
    type Answer = Result<Vec<Page>, Failure>;

    async fn find(&self, query: &SourceQuery<'_>) -> Self::Answer {
        let answer = index_host::browser_search(query.question, query.period, query.now_ms).await;
        let pages = match answer {
            Response::Pages { pages, .. } => Ok(pages),
            Response::Failed { failure } => Err(failure),
            _ => Err(Failure::UnexpectedReply),
        };
        // Beside pages the index found, the plan goes on without the browser's: the console
        // keeps why.
        if let Err(reason) = &pages {
            log::failure("the browser's search filling in", reason);
        }
        pages
    }
}

/// Topic search; nothing when it cannot answer.
struct TopicSearch;

impl RankedSource for TopicSearch {
    fn asking(&self) -> Asking {
        TOPIC_SEARCH
    }

    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
        Box::pin(async move {
            let places = places_host::place_pages;
            let (question, start_ms, limit) = (query.question, query.start_ms, query.limit);
            let mut understood = semantic_host::understand(question, start_ms, limit, places).await;
            places_host::words_found(query.question, &mut understood);
            match understood {
                Response::Understood { pages, words, .. } => Ranked::topics(pages, words),
                _ => Ranked::none(),
            }
        })
    }

    fn searches(&self, origins: Origins) -> bool {
        searches_topics(origins)
    }
}

/// What the pages said (their read content).
struct ContentSearch;

impl RankedSource for ContentSearch {
    fn asking(&self) -> Asking {
        CONTENT_SEARCH
    }

    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
        Box::pin(async move {
            let places = places_host::place_pages;
            let mut found =
                content_host::search(query.question, query.start_ms, query.limit, places).await;
            places_host::words_found(query.question, &mut found);
            match found {
                Response::ContentFound { pages, words } => Ranked::content(pages, words),
                _ => Ranked::none(),
            }
        })
    }

    fn searches(&self, origins: Origins) -> bool {
        searches_history_or_bookmarks(origins)
    }
}

/// The bookmarks and open tabs (their switches on); nothing when both are off, or when the
/// index's answer had them fused in already.
struct PlacesSearch<'c> {
    places: &'c Cell<bool>,
}

impl RankedSource for PlacesSearch<'_> {
    fn asking(&self) -> Asking {
        PLACES
    }

    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
        Box::pin(async move {
            if self.places.get() {
                return Ranked::none();
            }
            match places_host::search(query.question, query.limit).await {
                Response::Pages { pages, .. } => Ranked::places(pages),
                _ => Ranked::none(),
            }
        })
    }

    fn searches(&self, origins: Origins) -> bool {
        searches_places(origins)
    }
}
