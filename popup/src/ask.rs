//! What a question does, outside the components; lazily loaded (`#[lazy]`, their own chunks). A
//! committed question is the worker's ([`ask`]): it chooses the engine (the core's
//! `hosted_engine`) and runs the search — the local search, answered in the reply (what the index
//! found comes earlier, over the `ask` port), or either model, whose progress and answer come over
//! the port — so that the search outlives the popup. The as-you-type search ([`search_as_typed`])
//! runs here: the worker's index at once, the browser's search and the ranked sources (topic
//! search) fused in after pauses, for the latest keystroke only.

use std::cell::Cell;

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::{ask_worker, ask_worker_within};
use history_chat_bindings::{log, now_ms};
use history_chat_core::ai::provider::Engine;
use history_chat_core::ask::AskReply;
use history_chat_core::conversation::StoredTurn;
use history_chat_core::failure::Failure;
use history_chat_core::history::Page;
use history_chat_core::index::host::WORKER_PATIENCE_MS;
use history_chat_core::messages::{Request, Response};
use history_chat_core::origin::Origins;
use history_chat_core::period::Period;
use history_chat_core::retrieval::{
    Asker, Asking, CONTENT_SEARCH, Finding, Lexical, PLACES, Pace, Ranked, RankedSource, Retrieval,
    Source, SourceQuery, Sources, Stage, Step, TOPIC_SEARCH, retrieve,
    searches_history_or_bookmarks, searches_places, searches_topics,
};
use history_chat_core::t;

use leptos::prelude::*;

use crate::conversation::{finish_turn, refresh_availability};
use crate::state::{AlertMessage, LiveAnswer, State};

/// Has the worker search `question` over `period`, its turn stored under `key`
/// ([`Request::Ask`]), and shows what comes of it: a local answer at once; for a model's search,
/// the port says how it goes ([`crate::conversation`]).
#[lazy]
pub(crate) async fn ask(state: State, key: String, question: String, period: Period) {
    let request = Request::Ask {
        question,
        period,
        key,
    };
    let failed = match ask_worker(&request).await {
        Ok(Response::Asked { reply }) => match reply {
            AskReply::Answered {
                key,
                turn,
                save_failed,
            } => {
                if turn.mode == Engine::Local
                    && turn.note.is_some()
                    && state
                        .settings
                        .with_untracked(|s| s.provider.may_use_device())
                {
                    // Not the model the user chose: the chip and the download line say what
                    // Chrome's model is now.
                    refresh_availability(state);
                }
                state.busy.set(false);
                finish_turn(state, StoredTurn { key, turn: *turn }, save_failed);
                return;
            }
            // The worker runs it; how it goes and its answer come over the `ask` port.
            AskReply::Started { key } => {
                if std::mem::take(&mut *state.cancel_wanted.write_value()) {
                    leptos::task::spawn_local(cancel_now(state, key.clone()));
                }
                // Its answer may already have come (a worker faster than this reply).
                match state
                    .turns
                    .with_untracked(|shown| shown.iter().any(|s| s.key == key))
                {
                    true => state.question.set(String::new()),
                    false => state.asked_here.set_value(Some(key)),
                }
                return;
            }
            // Refused: another AI search runs.
            AskReply::Busy(busy) => {
                state.asked_here.set_value(None);
                state.alert.set(AlertMessage::new(busy.message()));
                state.status.set(String::new());
                state.busy.set(state.worker_ask.get_untracked().is_some());
                return;
            }
        },
        // The worker could not read the settings: said, and the question stays in the box.
        Ok(Response::Failed { failure }) => failure,
        // Not an answer to `Ask` (a worker of another version). Printing it would pull every
        // message type's `Debug` into the popup for a reason nobody acts on.
        Ok(_) => Failure::UnexpectedReply,
        Err(error) => error.failure().into(),
    };
    state.asked_here.set_value(None);
    state
        .alert
        .set(AlertMessage::new(t!("popup_ask_failed", failed)));
    state.status.set(String::new());
    state.busy.set(false);
}

/// Has the worker cancel its search `key` ([`Request::CancelAsk`]); the turn then ends as
/// cancelled, over the `ask` port.
#[lazy]
pub(crate) async fn cancel(state: State, key: String) {
    cancel_now(state, key).await;
}

async fn cancel_now(state: State, key: String) {
    let request = Request::CancelAsk { key: Some(key) };
    if let Err(error) = ask_worker::<Response>(&request).await {
        state
            .alert
            .set(AlertMessage::new(t!("popup_ask_failed", error)));
    }
}

/// The as-you-type search for keystroke `seq` (`typed`, over `period`), shown while it is still
/// the latest one; pages removed from history meanwhile are left out.
#[lazy]
pub(crate) async fn search_as_typed(state: State, typed: String, period: Period, seq: u64) {
    let current = move || state.live_seq.try_get_value() == Some(seq);
    let show = move |mut answer: LiveAnswer| {
        state
            .removed
            .with_untracked(|gone| answer.pages.retain(|page| !gone.contains(&page.url)));
        state.live.set(Some(answer));
    };
    live_search(typed, period, current, show).await;
}

/// The worker's lexical index, asked over the message channel; `places` says whether its answer
/// had the bookmarks and open tabs fused in.
struct WorkerIndex<'c> {
    places: &'c Cell<bool>,
}

impl Source for WorkerIndex<'_> {
    type Answer = Lexical;

    async fn find(&self, query: &SourceQuery<'_>) -> Lexical {
        let request = Request::Search {
            query: query.question.to_owned(),
            start_ms: query.start_ms,
            limit: query.limit,
        };
        let answer = match ask_worker_within(&request, WORKER_PATIENCE_MS).await {
            Ok(answer) => answer,
            // The browser's search answers instead; the console keeps why.
            Err(error) => {
                log::failure("asking the worker's index", &error);
                None
            }
        };
        self.places
            .set(matches!(answer, Some(Response::Pages { places: true, .. })));
        Lexical::of_index(answer.and_then(Response::into_index_answer))
    }
}

/// The browser's own search of its history ([`Request::BrowserSearch`]), run by the worker (so the
/// popup parses no URL). A failure leaves what the index has standing alone (the console keeps
/// why), as typing goes on.
struct BrowserSearch;

impl Source for BrowserSearch {
    type Answer = Result<Vec<Page>, Failure>;

    async fn find(&self, query: &SourceQuery<'_>) -> Self::Answer {
        let request = Request::BrowserSearch {
            question: query.question.to_owned(),
            period: query.period,
            now_ms: query.now_ms,
        };
        let failure = match ask_worker(&request).await {
            Ok(Response::Pages { pages, .. }) => return Ok(pages),
            Ok(Response::Failed { failure }) => failure,
            // Not an answer to `BrowserSearch` (a worker of another version).
            Ok(_) => Failure::UnexpectedReply,
            Err(error) => error.failure().into(),
        };
        log::failure("the browser's search as you type", &failure);
        Ok(Vec::new())
    }
}

/// Topic search, run by the worker ([`Request::Understand`]); nothing when it cannot answer.
struct TopicSearch;

impl RankedSource for TopicSearch {
    fn asking(&self) -> Asking {
        TOPIC_SEARCH
    }

    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
        let request = Request::Understand {
            query: query.question.to_owned(),
            start_ms: query.start_ms,
            limit: query.limit,
        };
        Box::pin(async move {
            match ask_worker(&request).await {
                Ok(Response::Understood { pages, words, .. }) => Ranked::topics(pages, words),
                _ => Ranked::none(),
            }
        })
    }

    fn searches(&self, origins: Origins) -> bool {
        searches_topics(origins)
    }
}

/// What the pages said (their content, read when visited or bookmarked), searched by the worker
/// ([`Request::ContentSearch`]); nothing when content search is off or cannot answer.
struct ContentSearch;

impl RankedSource for ContentSearch {
    fn asking(&self) -> Asking {
        CONTENT_SEARCH
    }

    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
        let request = Request::ContentSearch {
            query: query.question.to_owned(),
            start_ms: query.start_ms,
            limit: query.limit,
        };
        Box::pin(async move {
            match ask_worker(&request).await {
                Ok(Response::ContentFound { pages, words }) => Ranked::content(pages, words),
                _ => Ranked::none(),
            }
        })
    }

    fn searches(&self, origins: Origins) -> bool {
        searches_history_or_bookmarks(origins)
    }
}

/// The popup as the plan's asker: pauses between keystrokes, drops a question typed over, and
/// shows each step as the live answer.
struct Typing<C, S> {
    typed: String,
    current: C,
    show: S,
}

impl<C: Fn() -> bool, S: Fn(LiveAnswer)> Asker for Typing<C, S> {
    fn wanted(&self) -> bool {
        (self.current)()
    }

    async fn pause(&self, ms: u32) {
        http::sleep(ms, &Cancel::new()).await;
    }

    fn show(&self, step: Step) {
        (self.show)(LiveAnswer {
            typed: self.typed.clone(),
            pages: step.pages,
            indexing: step.indexing,
            filling: step.stage == Stage::FillingIn,
        });
    }
}

/// Shows the matches for what is typed so far, by the core's plan ([`retrieve`], paced as the
/// user types): the worker's index at once; when it cannot answer for the whole period, the
/// browser's search fused in after a pause; then each ranked source listed here (topic search),
/// after its own pause, its pages fused in (never before the words' answer is shown) — each for
/// the latest keystroke only.
async fn live_search(
    typed: String,
    period: Period,
    current: impl Fn() -> bool,
    show: impl Fn(LiveAnswer),
) {
    let retrieval = Retrieval {
        question: &typed,
        period,
        now_ms: now_ms(),
        pace: Pace::AsYouType,
    };
    // Whether the index's answer had the bookmarks and tabs fused in already (the worker does
    // when they are ready: one message, one list drawn).
    let places = Cell::new(false);
    let sources = Sources {
        lexical: WorkerIndex { places: &places },
        browser: BrowserSearch,
        ranked: &[
            &TopicSearch,
            &ContentSearch,
            &PlacesSearch { places: &places },
        ],
    };
    let asker = Typing {
        typed: typed.clone(),
        current,
        show,
    };
    // Every source's failure is already handled by the source: the plan cannot fail here.
    if let Err(reason) = retrieve(&retrieval, &sources, &asker).await {
        log::failure("the search as you type", &reason);
    }
}

/// The bookmarks and open tabs (their switches on), searched by the worker
/// ([`Request::Places`]) when the index's answer did not have them fused in; nothing when both
/// are off or it cannot answer.
struct PlacesSearch<'c> {
    places: &'c Cell<bool>,
}

impl RankedSource for PlacesSearch<'_> {
    fn asking(&self) -> Asking {
        PLACES
    }

    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
        let request = Request::Places {
            query: query.question.to_owned(),
            limit: query.limit,
        };
        Box::pin(async move {
            if self.places.get() {
                return Ranked::none();
            }
            match ask_worker(&request).await {
                Ok(Response::Pages { pages, .. }) => Ranked::places(pages),
                _ => Ranked::none(),
            }
        })
    }

    fn searches(&self, origins: Origins) -> bool {
        searches_places(origins)
    }
}
