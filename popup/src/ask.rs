//! What a committed question does, outside the components: which engine answers (the core's
//! [`choose`] and [`engine_for`]) and that engine's run — the local search here (what the index
//! found shown early, then the browser's search and topic search fused in), Gemini by the service
//! worker (it outlives the popup; progress and the answer come over the `ask` port), Chrome's
//! built-in model here, its session prepared first and closed when it died. The popup's components
//! only wire signals to [`Hooks`] and show what [`ask`] returns. The as-you-type search
//! ([`live_search`]) shares the local pieces.

use history_chat_bindings::history::{ChromeHistory, IndexedHistory};
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::{ask_worker, ask_worker_within};
use history_chat_bindings::on_device::{self, OnDevice, OnDeviceSearch};
use history_chat_bindings::{ChromeError, nonce, now_ms};
use history_chat_core::ai::model::{LanguageModel, ModelFailure};
use history_chat_core::ai::pipeline::{AiInput, ai_search};
use history_chat_core::ai::provider::{Availability, Choice, Engine, Fallback, choose, engine_for};
use history_chat_core::ask::{AskReply, Busy};
use history_chat_core::conversation::{StoredTurn, Turn, TurnError, TurnNote, turn_key};
use history_chat_core::history::Page;
use history_chat_core::index::fuse_with_browser;
use history_chat_core::index::host::{BROWSER_SEARCH_DEBOUNCE_MS, WORKER_PATIENCE_MS};
use history_chat_core::messages::{
    IndexProgress, Request, Response, SEMANTIC_PAUSE_MS, SEMANTIC_POOL,
};
use history_chat_core::period::Period;
use history_chat_core::search::{RESULT_LIMIT, local_search};
use history_chat_core::semantic::{Words, fuse_semantic};
use history_chat_core::settings::Settings;

/// Chrome's built-in model as a question needs it: its session made ready (which may download the
/// model), a search over it, and closed when it died.
pub(crate) trait Device {
    /// The model a search asks.
    type Search: LanguageModel;
    /// Makes the session ready; `download` hears the download's progress (0..1).
    async fn prepare(&self, download: impl Fn(f64) + 'static) -> Result<(), ModelFailure>;
    /// The model for one search, stopped by `cancel`.
    fn for_search(&self, cancel: Cancel) -> Self::Search;
    /// Drops the session, so the next question starts a new one.
    fn close(&self);
    /// What Chrome says of the model now.
    async fn availability(&self) -> Availability;
}

impl Device for OnDevice {
    type Search = OnDeviceSearch;

    async fn prepare(&self, download: impl Fn(f64) + 'static) -> Result<(), ModelFailure> {
        OnDevice::prepare(self, download).await
    }

    fn for_search(&self, cancel: Cancel) -> OnDeviceSearch {
        OnDevice::for_search(self, cancel)
    }

    fn close(&self) {
        OnDevice::close(self);
    }

    async fn availability(&self) -> Availability {
        on_device::availability().await
    }
}

/// How [`ask`] reports while it runs: each a signal's setter in the popup.
pub(crate) struct Hooks<S, E, D, A> {
    /// The status line.
    pub(crate) status: S,
    /// An early local answer (what the index found, before the browser's search fills in).
    pub(crate) early: E,
    /// The model's download progress, `None` once it ended.
    pub(crate) download: D,
    /// What Chrome now says of its model (after its session failed).
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

/// Answers `question` over `period` with the engine `settings` and `on_device` choose.
pub(crate) async fn ask(
    question: String,
    period: Period,
    settings: &Settings,
    on_device: Availability,
    device: &impl Device,
    cancel: Cancel,
    hooks: &Hooks<
        impl Fn(String),
        impl Fn(StoredTurn),
        impl Fn(Option<f64>) + Copy + 'static,
        impl Fn(Availability),
    >,
) -> Asked {
    let Choice { engine, fallback } = choose(settings.provider, settings.has_api_key(), on_device);
    let mut stored = match engine_for(&question, engine) {
        Engine::Local => ask_locally(question, period, &hooks.early).await,
        Engine::Gemini => match in_worker(&question, period).await {
            Some(asked) => return asked,
            // The key went since the popup read the settings: as without one.
            None => {
                let mut local = ask_locally(question, period, |_| ()).await;
                local.turn.note = Some(TurnNote::Fallback(Fallback::NoApiKey));
                local
            }
        },
        Engine::OnDevice => {
            let download = hooks.download;
            let prepared = device.prepare(move |loaded| download(Some(loaded))).await;
            (hooks.download)(None);
            match prepared {
                Ok(()) => {
                    let search = device.for_search(cancel);
                    let stored = ask_ai(
                        &search,
                        Engine::OnDevice,
                        question,
                        period,
                        settings,
                        &hooks.status,
                    )
                    .await;
                    if stored.turn.model_unavailable() {
                        // The session died or the model went away: start afresh next time.
                        device.close();
                        (hooks.availability)(device.availability().await);
                    }
                    stored
                }
                Err(failure) => {
                    device.close();
                    (hooks.availability)(device.availability().await);
                    let mut local = ask_locally(question, period, |_| ()).await;
                    local.turn.note = Some(TurnNote::OnDeviceFailed { failure });
                    local
                }
            }
        }
    };
    if stored.turn.note.is_none() {
        stored.turn.note = fallback.map(TurnNote::Fallback);
    }
    Asked::Answered(Box::new(stored))
}

/// Has the worker run a Gemini search ([`Request::Ask`]); `None` when it is not the worker's to
/// run ([`AskReply::NotHosted`]).
async fn in_worker(question: &str, period: Period) -> Option<Asked> {
    let request = Request::Ask {
        question: question.to_owned(),
        period,
    };
    Some(match ask_worker(&request).await {
        Ok(Response::Asked { reply }) => match reply {
            AskReply::Started { key } => Asked::InWorker(key),
            AskReply::Busy(busy) => Asked::Refused(busy),
            AskReply::NotHosted => return None,
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
            | Response::Forgotten { .. }
            | Response::Kept { .. }
            | Response::Asked { .. }
            | Response::Cancelling { .. },
        )
        | None => IndexAnswer::Partial(Vec::new(), IndexProgress::default()),
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
            let browser = local_search(&ChromeHistory, &typed, period, now)
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
) -> Result<(Vec<Page>, Option<IndexProgress>), ChromeError> {
    match index_search(question, period.start_ms(now)).await {
        IndexAnswer::Whole(pages) => Ok((pages, None)),
        IndexAnswer::Partial(partial, progress) if !partial.is_empty() => {
            // What the index found is shown at once, and stands even if the browser fails.
            early(&partial, progress);
            let browser = local_search(&ChromeHistory, question, period, now)
                .await
                .unwrap_or_default();
            Ok((fill_in(&partial, &browser), Some(progress)))
        }
        IndexAnswer::Partial(_, progress) => {
            let pages = local_search(&ChromeHistory, question, period, now).await?;
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
        Err(error) => Err(TurnError::HistoryUnreadable {
            detail: error.to_string(),
        }),
    };
    let mut turn = Turn::local(at_ms, &question, period, outcome);
    turn.note = indexing.map(|progress| TurnNote::Indexing { progress });
    StoredTurn { key, turn }
}

/// Runs the AI pipeline with `model` in this page (the on-device engine), reporting each step in
/// `status`.
async fn ask_ai(
    model: &impl LanguageModel,
    engine: Engine,
    question: String,
    period: Period,
    settings: &Settings,
    status: &impl Fn(String),
) -> StoredTurn {
    let at_ms = now_ms();
    let (model_name, fallback_model) = settings.models_for(engine);
    let input = AiInput {
        question: question.clone(),
        period,
        depth: settings.depth,
        now_ms: at_ms,
        model: model_name,
        fallback_model,
    };
    let source = IndexedHistory::new(settings.exclusions());
    let answer = ai_search(&source, model, input, &mut |progress| {
        status(progress.message(engine))
    })
    .await;
    let turn = Turn::from_ai(at_ms, &question, period, engine, settings.depth, answer);
    StoredTurn {
        key: turn_key(at_ms, nonce()),
        turn,
    }
}
