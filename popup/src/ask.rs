//! What a question does, outside the components. A committed question is the worker's
//! ([`ask`]): it chooses the engine (the core's `hosted_engine`) and runs the search — the local
//! search, answered in the reply (what the index found comes earlier, over the `ask` port), or
//! either model, whose progress and answer come over the port — so that the search outlives the
//! popup. The as-you-type search ([`live_search`]) runs here: the worker's index at once, the
//! browser's search and topic search fused in after pauses, for the latest keystroke only.

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::{ask_worker, ask_worker_within};
use history_chat_bindings::now_ms;
use history_chat_core::ask::{AskReply, Busy};
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

/// What a committed question led to.
pub(crate) enum Asked {
    /// Searched locally by the worker: the turn it wrote, and why it could not, if it could not.
    Answered(Box<StoredTurn>, Option<String>),
    /// A model answers it: the worker runs the search under this key.
    InWorker(String),
    /// Refused: another AI search runs.
    Refused(Busy),
    /// The worker could not be asked, or could not start (its reason).
    Failed(String),
}

/// Has the worker search `question` over `period`, its turn stored under `key`
/// ([`Request::Ask`]).
pub(crate) async fn ask(key: String, question: String, period: Period) -> Asked {
    let request = Request::Ask {
        question,
        period,
        key,
    };
    match ask_worker(&request).await {
        Ok(Response::Asked { reply }) => match reply {
            AskReply::Started { key } => Asked::InWorker(key),
            AskReply::Busy(busy) => Asked::Refused(busy),
            AskReply::Answered {
                key,
                turn,
                save_failed,
            } => Asked::Answered(Box::new(StoredTurn { key, turn: *turn }), save_failed),
        },
        // The worker could not read the settings: said, and the question stays in the box.
        Ok(Response::Failed { message }) => Asked::Failed(message),
        // Not an answer to `Ask` (a worker of another version). Printing it would pull every
        // message type's `Debug` into the popup for a reason nobody acts on.
        Ok(_) => Asked::Failed(String::from("unexpected reply")),
        Err(error) => Asked::Failed(error.to_string()),
    }
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
