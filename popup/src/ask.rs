//! What a committed question does, outside the components: which engine answers (the core's
//! [`choose`] and [`engine_for`]) and that engine's run — the local search here (what the index
//! found shown early, then the browser's search, which the worker runs too, and topic search fused
//! in), either model (Gemini, or Chrome's built-in one) by the service worker, which outlives the
//! popup (progress and the answer come over the `ask` port). The popup's components only wire
//! signals to [`Hooks`] and show what [`ask`] returns. The as-you-type search ([`live_search`])
//! shares the local pieces.

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::{ask_worker, ask_worker_within};
use history_chat_bindings::on_device;
use history_chat_bindings::{nonce, now_ms};
use history_chat_core::ai::provider::{Availability, Choice, Engine, choose, engine_for};
use history_chat_core::ask::{AskReply, Busy};
use history_chat_core::conversation::{StoredTurn, Turn, TurnError, TurnNote, turn_key};
use history_chat_core::history::Page;
use history_chat_core::index::fuse_with_browser;
use history_chat_core::index::host::{BROWSER_SEARCH_DEBOUNCE_MS, WORKER_PATIENCE_MS};
use history_chat_core::messages::{
    IndexProgress, Request, Response, SEMANTIC_PAUSE_MS, SEMANTIC_POOL,
};
use history_chat_core::period::Period;
use history_chat_core::search::RESULT_LIMIT;
use history_chat_core::semantic::{Words, fuse_semantic};
use history_chat_core::settings::Settings;

/// How [`ask`] reports while it runs: each a signal's setter in the popup.
pub(crate) struct Hooks<E, A> {
    /// An early local answer (what the index found, before the browser's search fills in).
    pub(crate) early: E,
    /// What Chrome now says of its model (after the worker could not use it).
    pub(crate) availability: A,
}

/// What a committed question led to.
pub(crate) enum Asked {
    /// Answered here: the turn to store and show.
    Answered(Box<StoredTurn>),
    /// The worker runs it under this key.
    InWorker(String),
    /// Refused: another search runs.
    Refused(Busy),
    /// The worker could not be asked (its reason).
    Failed(String),
}

/// Answers `question` over `period` with the engine `settings` and `on_device` choose: the local
/// search here, either model in the worker (which may find it cannot run it now, and say why).
pub(crate) async fn ask(
    question: String,
    period: Period,
    settings: &Settings,
    on_device: Availability,
    hooks: &Hooks<impl Fn(StoredTurn), impl Fn(Availability)>,
) -> Asked {
    let Choice { engine, fallback } = choose(settings.provider, settings.has_api_key(), on_device);
    let stored = match engine_for(&question, engine) {
        Engine::Local => {
            let mut local = ask_locally(question, period, &hooks.early).await;
            local.turn.note = fallback.map(TurnNote::Fallback);
            local
        }
        Engine::Gemini | Engine::OnDevice => match in_worker(&question, period).await {
            Ok(asked) => return asked,
            // The key went, or Chrome's model is not ready or failed to start.
            Err(note) => {
                if settings.provider.may_use_device() {
                    (hooks.availability)(on_device::availability().await);
                }
                let mut local = ask_locally(question, period, |_| ()).await;
                local.turn.note = note;
                local
            }
        },
    };
    Asked::Answered(Box::new(stored))
}

/// Has the worker run the AI search ([`Request::Ask`]); `Err` with the note of a local search when
/// it finds no model can answer now ([`AskReply::Local`]).
async fn in_worker(question: &str, period: Period) -> Result<Asked, Option<TurnNote>> {
    let request = Request::Ask {
        question: question.to_owned(),
        period,
    };
    Ok(match ask_worker(&request).await {
        Ok(Response::Asked { reply }) => match reply {
            AskReply::Started { key } => Asked::InWorker(key),
            AskReply::Busy(busy) => Asked::Refused(busy),
            AskReply::Local { note } => return Err(note),
        },
        // The worker could not read the settings: said, and the question stays in the box.
        Ok(Response::Failed { message }) => Asked::Failed(message),
        // Not an answer to `Ask` (a worker of another version). Printing it would pull every
        // message type's `Debug` into the popup for a reason nobody acts on.
        Ok(_) => Asked::Failed(String::from("unexpected reply")),
        Err(error) => Asked::Failed(error.to_string()),
    })
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
    match ask_worker_within(&request, WORKER_PATIENCE_MS).await {
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
        Ok(_) => Err(String::from("unexpected reply")),
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
pub(crate) async fn live_search(
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
                .unwrap_or_default();
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

/// The smart local search for a committed question: the worker's index, at once; while the index
/// does not reach back to the period's start, fused with the browser's own search. Also says how
/// far indexing had got when the browser had to fill in.
async fn smart_local_search(
    question: &str,
    period: Period,
    now: i64,
    early: impl FnOnce(&[Page], IndexProgress),
) -> Result<(Vec<Page>, Option<IndexProgress>), String> {
    match index_search(question, period.start_ms(now)).await {
        IndexAnswer::Whole(pages) => Ok((pages, None)),
        IndexAnswer::Partial(partial, progress) if !partial.is_empty() => {
            // What the index found is shown at once, and stands even if the browser fails.
            early(&partial, progress);
            let browser = browser_search(question, period, now)
                .await
                .unwrap_or_default();
            Ok((fill_in(&partial, &browser), Some(progress)))
        }
        IndexAnswer::Partial(_, progress) => {
            let pages = browser_search(question, period, now).await?;
            Ok((pages, Some(progress)))
        }
    }
}

/// Runs one local search and makes it a turn; a failure becomes the turn's error, with what to do.
/// What the words found is given to `early` at once (same key as the final turn) while the
/// browser's search fills in an incomplete index and topic search looks for pages about the
/// question; the final turn fuses them all.
async fn ask_locally(question: String, period: Period, early: impl Fn(StoredTurn)) -> StoredTurn {
    let at_ms = now_ms();
    let key = turn_key(at_ms, nonce());
    let show_early = |pages: &[Page], note: Option<TurnNote>| {
        let mut turn = Turn::local(at_ms, &question, period, Ok(pages.to_vec()));
        turn.note = note;
        early(StoredTurn {
            key: key.clone(),
            turn,
        });
    };
    let outcome = smart_local_search(&question, period, at_ms, |partial, _| {
        show_early(partial, Some(TurnNote::FillingIn))
    })
    .await;
    let indexing = outcome.as_ref().ok().and_then(|(_, progress)| *progress);
    let outcome = match outcome {
        Ok((pages, _)) => {
            if !pages.is_empty() {
                show_early(
                    &pages,
                    indexing.map(|progress| TurnNote::Indexing { progress }),
                );
            }
            let topics = understand(&question, period.start_ms(at_ms)).await;
            Ok(with_topics(&pages, &topics))
        }
        Err(detail) => Err(TurnError::HistoryUnreadable { detail }),
    };
    let mut turn = Turn::local(at_ms, &question, period, outcome);
    turn.note = indexing.map(|progress| TurnNote::Indexing { progress });
    StoredTurn { key, turn }
}
