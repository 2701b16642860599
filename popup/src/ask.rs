//! What a question does, outside the components; lazily loaded (`#[lazy]`, their own chunks). A
//! committed question is the worker's ([`ask`]): it chooses the engine (the core's
//! `hosted_engine`) and runs the search — the local search, answered in the reply (what the index
//! found comes earlier, over the `ask` port), or either model, whose progress and answer come over
//! the port — so that the search outlives the popup. The as-you-type search ([`search_as_typed`])
//! runs here: the worker's index at once, the browser's search and topic search fused in after
//! pauses, for the latest keystroke only.

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::{ask_worker, ask_worker_within};
use history_chat_bindings::{log, now_ms};
use history_chat_core::ai::provider::Engine;
use history_chat_core::ask::AskReply;
use history_chat_core::conversation::StoredTurn;
use history_chat_core::history::Page;
use history_chat_core::index::fuse_with_browser;
use history_chat_core::index::host::{BROWSER_SEARCH_DEBOUNCE_MS, WORKER_PATIENCE_MS};
use history_chat_core::messages::{
    IndexProgress, Request, Response, SEMANTIC_PAUSE_MS, SEMANTIC_POOL,
};
use history_chat_core::period::Period;
use history_chat_core::search::RESULT_LIMIT;
use history_chat_core::semantic::{Words, fuse_semantic};
use history_chat_core::t;

use leptos::prelude::*;

use crate::conversation::{finish_turn, refresh_availability};
use crate::popup::{AlertMessage, State};

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
        Ok(Response::Failed { message }) => message,
        // Not an answer to `Ask` (a worker of another version). Printing it would pull every
        // message type's `Debug` into the popup for a reason nobody acts on.
        Ok(_) => t!("worker_unexpected_reply"),
        Err(error) => error.to_string(),
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

/// The matches shown while typing, before the question is committed.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct LiveAnswer {
    /// What was typed (its `site:` terms are named when nothing matches).
    pub(crate) typed: String,
    /// The pages.
    pub(crate) pages: Vec<Page>,
    /// The index could not answer for the whole period (it is still being built, or the worker
    /// did not answer): the browser's literal search fills in, and a notice says so.
    pub(crate) indexing: Option<IndexProgress>,
    /// What the index found so far, shown at once while the browser's search is still running.
    pub(crate) filling: bool,
}

/// Topic search's answer to a question.
struct Topics {
    /// Its pages (perhaps none: nothing close enough, or it cannot answer).
    pages: Vec<Page>,
    /// Whether the words alone found a page: where the topic pages go.
    words: Words,
}

/// Topic search's answer to `query`.
async fn understand(query: &str, start_ms: i64) -> Topics {
    let request = Request::Understand {
        query: query.to_owned(),
        start_ms,
        limit: SEMANTIC_POOL,
    };
    match ask_worker(&request).await {
        Ok(Response::Understood { pages, words, .. }) => Topics { pages, words },
        _ => Topics {
            pages: Vec::new(),
            words: Words::Found,
        },
    }
}

/// The words' answer with topic search's pages fused in, cut to what is shown.
fn with_topics(lexical: &[Page], topics: &Topics) -> Vec<Page> {
    let mut pages = fuse_semantic(lexical, &topics.pages, topics.words);
    pages.truncate(RESULT_LIMIT);
    pages
}

/// What the worker's index gives for a query at once.
enum IndexAnswer {
    /// The whole answer: the index covers the period.
    Whole(Vec<Page>),
    /// What it has so far (perhaps nothing), and how far it has got: the browser's search must
    /// fill in.
    Partial(Vec<Page>, IndexProgress),
}

/// Asks the worker's index for `query` over pages visited since `start_ms`.
async fn index_search(query: &str, start_ms: i64) -> IndexAnswer {
    let request = Request::Search {
        query: query.to_owned(),
        start_ms,
        limit: RESULT_LIMIT,
    };
    let answer = match ask_worker_within(&request, WORKER_PATIENCE_MS).await {
        Ok(answer) => answer,
        // The browser's search answers instead; the console keeps why.
        Err(error) => {
            log::failure("asking the worker's index", &error);
            None
        }
    };
    match answer {
        Some(Response::Pages {
            pages,
            indexing: None,
        }) => IndexAnswer::Whole(pages),
        Some(Response::Pages {
            pages,
            indexing: Some(progress),
        }) => IndexAnswer::Partial(pages, progress),
        Some(Response::Indexing { progress }) => IndexAnswer::Partial(Vec::new(), progress),
        // The worker failed or took too long: the browser's search alone.
        Some(
            Response::Ready { .. }
            | Response::Failed { .. }
            | Response::Understood { .. }
            | Response::Semantic { .. }
            | Response::Removed { .. }
            | Response::Kept { .. }
            | Response::Asked { .. }
            | Response::Cancelling { .. },
        )
        | None => IndexAnswer::Partial(Vec::new(), IndexProgress::default()),
    }
}

/// The browser's own search of its history ([`Request::BrowserSearch`]), run by the worker (so the
/// popup parses no URL); `Err` with why the history could not be read, or the worker asked.
async fn browser_search(question: &str, period: Period, now_ms: i64) -> Result<Vec<Page>, String> {
    let request = Request::BrowserSearch {
        question: question.to_owned(),
        period,
        now_ms,
    };
    match ask_worker(&request).await {
        Ok(Response::Pages { pages, .. }) => Ok(pages),
        Ok(Response::Failed { message }) => Err(message),
        // Not an answer to `BrowserSearch` (a worker of another version).
        Ok(_) => Err(t!("worker_unexpected_reply")),
        Err(error) => Err(error.to_string()),
    }
}

/// The index's pages fused with the browser's, cut to what is shown.
fn fill_in(index: &[Page], browser: &[Page]) -> Vec<Page> {
    let mut pages = fuse_with_browser(index, browser);
    pages.truncate(RESULT_LIMIT);
    pages
}

/// Shows the matches for what is typed so far: the worker's index at once; when it cannot answer
/// for the whole period, also — for the latest keystroke only (`current`), after a pause — the
/// browser's search fused in; then, after another pause, topic search's pages fused in (never
/// before the words' answer is shown).
async fn live_search(
    typed: String,
    period: Period,
    current: impl Fn() -> bool,
    show: impl Fn(LiveAnswer),
) {
    let now = now_ms();
    let start_ms = period.start_ms(now);
    let (shown, indexing) = match index_search(&typed, start_ms).await {
        IndexAnswer::Whole(pages) => {
            if !current() {
                return;
            }
            show(LiveAnswer {
                typed: typed.clone(),
                pages: pages.clone(),
                indexing: None,
                filling: false,
            });
            (pages, None)
        }
        IndexAnswer::Partial(partial, progress) => {
            if !current() {
                return;
            }
            // At once: what the index has (perhaps nothing yet), saying that more is coming.
            show(LiveAnswer {
                typed: typed.clone(),
                pages: partial.clone(),
                indexing: Some(progress),
                filling: true,
            });
            http::sleep(BROWSER_SEARCH_DEBOUNCE_MS, &Cancel::new()).await;
            if !current() {
                return;
            }
            let browser = browser_search(&typed, period, now)
                .await
                // What the index has stands alone; the console keeps why.
                .unwrap_or_else(|reason| {
                    log::failure("the browser's search as you type", &reason);
                    Vec::new()
                });
            if !current() {
                return;
            }
            let filled = fill_in(&partial, &browser);
            show(LiveAnswer {
                typed: typed.clone(),
                pages: filled.clone(),
                indexing: Some(progress),
                filling: false,
            });
            (filled, Some(progress))
        }
    };
    http::sleep(SEMANTIC_PAUSE_MS, &Cancel::new()).await;
    if !current() {
        return;
    }
    let topics = understand(&typed, start_ms).await;
    if !topics.pages.is_empty() && current() {
        show(LiveAnswer {
            typed: typed.clone(),
            pages: with_topics(&shown, &topics),
            indexing,
            filling: false,
        });
    }
}
