//! Glue around the core's [`Asks`]: runs the popups' AI searches in the worker — Gemini over HTTP,
//! Chrome's built-in model through its Prompt API — so that a search outlives the popup that asked
//! ([`history_chat_core::ask`]). It writes the started turn, runs [`ai_search`] with the worker's
//! own index as the page source, sends each step to the open popups over the `ask` port, and
//! writes the answer over the started turn, whatever popup is open.
//! While a search runs it keeps the worker awake ([`KEEP_ALIVE_MS`]); a worker that starts marks
//! the turns a stopped one left running as interrupted before it tells any popup anything.

use std::cell::{Cell, RefCell};

use futures_channel::oneshot;
use history_chat_bindings::gemini::GeminiModel;
use history_chat_bindings::history::{IndexAnswers, IndexedHistory};
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::on_device::{self, OnDevice};
use history_chat_bindings::{ChromeError, nonce, now_ms, ports, runtime, storage};
use history_chat_core::ai::model::LanguageModel;
use history_chat_core::ai::pipeline::{AiInput, ai_search};
use history_chat_core::ai::provider::{Availability, Engine};
use history_chat_core::ask::{
    AskReply, AskUpdate, Asks, HostedEngine, KEEP_ALIVE_MS, hosted_engine,
};
use history_chat_core::conversation::{Turn, TurnNote, turn_key};
use history_chat_core::history::RemovedVisits;
use history_chat_core::messages::{Request, Response};
use history_chat_core::period::Period;
use history_chat_core::settings::Settings;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use crate::index_host;

thread_local! {
    static ASKS: RefCell<Asks> = RefCell::new(Asks::default());
    /// Aborts the running search's model calls and waits (the user's Cancel).
    static CANCEL: RefCell<Option<Cancel>> = const { RefCell::new(None) };
    /// Chrome's built-in model: one session for every on-device search of this worker's life,
    /// made on the first and closed when the model failed (the next search makes a new one).
    static DEVICE: OnDevice = OnDevice::new();
    /// Whether the turns a stopped worker left running are marked interrupted.
    static SWEPT: Cell<bool> = const { Cell::new(false) };
    /// Popups and questions waiting for that.
    static SWEEP_WAITERS: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
}

/// The worker started: no search runs, so every turn stored as running was left by a worker the
/// browser stopped; they are marked interrupted before any popup is told the state.
pub fn start() {
    spawn_local(async {
        // A failed write leaves them running in storage; popups still show them as interrupted,
        // since the worker says no search runs.
        let _ = storage::mark_interrupted().await;
        SWEPT.set(true);
        for waiter in SWEEP_WAITERS.take() {
            let _ = waiter.send(());
        }
    });
}

async fn swept() {
    if SWEPT.get() {
        return;
    }
    let (ready, wait) = oneshot::channel();
    SWEEP_WAITERS.with_borrow_mut(|waiters| waiters.push(ready));
    let _ = wait.await;
}

/// `chrome.runtime.onConnect`: a popup's `ask` port, told the state at once.
pub async fn connected(port: JsValue) {
    swept().await;
    let state = ASKS.with_borrow(Asks::state);
    ports::accept(port, &state);
}

/// [`Request::Ask`]: starts the search, or says why not. The engine is chosen here, from what
/// the worker reads itself (the settings, and where they may use it Chrome's model's availability
/// in this worker), since either may have changed since the popup read them; Chrome's model's
/// session is made ready first, so that a model that fails to start leaves the popup a local
/// search with a note rather than a started turn.
pub async fn ask(question: String, period: Period) -> Response {
    swept().await;
    let settings = match storage::load_settings().await {
        Ok(settings) => settings,
        // Unreadable settings are not "no key": the popup says the search could not start, rather
        // than search locally with a note that no key is set.
        Err(error) => {
            return Response::Failed {
                message: error.to_string(),
            };
        }
    };
    let on_device = match settings.provider.may_use_device() {
        true => on_device::availability().await,
        // Not asked: `choose` does not read it for these providers.
        false => Availability::Unsupported,
    };
    let engine = match hosted_engine(
        settings.provider,
        settings.has_api_key(),
        on_device,
        &question,
    ) {
        Ok(engine) => engine,
        Err(note) => {
            return Response::Asked {
                reply: AskReply::Local { note },
            };
        }
    };
    if engine == HostedEngine::OnDevice && ASKS.with_borrow(Asks::state) == AskUpdate::Idle {
        // The model is "available": making the session needs no click (no download).
        if let Err(failure) = DEVICE.with(OnDevice::clone).prepare(|_| ()).await {
            DEVICE.with(OnDevice::close);
            return Response::Asked {
                reply: AskReply::Local {
                    note: Some(TurnNote::OnDeviceFailed { failure }),
                },
            };
        }
    }
    let at_ms = now_ms();
    let key = turn_key(at_ms, nonce());
    let started =
        ASKS.with_borrow_mut(|asks| asks.start(key.clone(), &question, period, engine.engine()));
    let reply = match started {
        Err(busy) => AskReply::Busy(busy),
        Ok(update) => {
            let cancel = Cancel::new();
            CANCEL.set(Some(cancel.clone()));
            ports::broadcast(&update);
            let search = Search {
                key: key.clone(),
                at_ms,
                question,
                period,
                engine: engine.engine(),
            };
            match engine {
                HostedEngine::OnDevice => {
                    let model = DEVICE.with(|device| device.for_search(cancel));
                    spawn_local(run(search, settings, model));
                }
                HostedEngine::Gemini => {
                    let model = GeminiModel::new(settings.api_key(), cancel);
                    spawn_local(run(search, settings, model));
                }
            }
            AskReply::Started { key }
        }
    };
    Response::Asked { reply }
}

/// [`Request::CancelAsk`]: the running search stops (its model calls and waits are aborted) and
/// ends as cancelled, with what it found until then.
pub fn cancel(key: Option<String>) -> Response {
    let update = ASKS.with_borrow_mut(|asks| asks.cancel(key.as_deref()));
    if let Some(update) = &update {
        CANCEL.with_borrow(|cancel| cancel.as_ref().map(Cancel::cancel));
        ports::broadcast(update);
    }
    Response::Cancelling {
        cancelled: update.is_some(),
    }
}

/// Pages deleted from history (by a popup, on Chrome's history page, or the whole history
/// cleared): the running search's answer leaves them out.
pub fn removed_visits(removed: &RemovedVisits) {
    ASKS.with_borrow_mut(|asks| asks.removed_visits(removed));
}

/// One search the worker runs.
struct Search {
    key: String,
    at_ms: i64,
    question: String,
    period: Period,
    engine: Engine,
}

async fn run(search: Search, settings: Settings, model: impl LanguageModel) {
    let Search {
        key,
        at_ms,
        question,
        period,
        engine,
    } = search;
    let awake = Cancel::new();
    spawn_local(keep_awake(awake.clone()));
    // Written first, so that a worker stopped mid-search leaves a turn that says so. Should the
    // write fail, the search still runs, and the answer's own write reports the failure.
    let _ = storage::save_turn(&key, &Turn::started(at_ms, &question, period, engine)).await;
    let (model_name, fallback_model) = settings.models_for(engine);
    let input = AiInput {
        question: question.clone(),
        period,
        depth: settings.depth,
        now_ms: at_ms,
        model: model_name,
        fallback_model,
    };
    let source = IndexedHistory::answered_by(settings.exclusions(), OwnIndex);
    let answer = ai_search(&source, &model, input, &mut |progress| {
        if let Some(update) = ASKS.with_borrow_mut(|asks| asks.progress(&key, progress)) {
            ports::broadcast(&update);
        }
    })
    .await;
    let turn = Turn::from_ai(at_ms, &question, period, engine, settings.depth, answer);
    if engine == Engine::OnDevice && turn.model_unavailable() {
        // The session died or the model went away: the next question starts a new one.
        DEVICE.with(OnDevice::close);
    }
    awake.cancel();
    CANCEL.set(None);
    let Some(turn) = ASKS.with_borrow_mut(|asks| asks.finish(&key, turn)) else {
        return;
    };
    let mut saved = storage::save_turn(&key, &turn).await;
    let turn = match ASKS.with_borrow_mut(|asks| asks.saved(&key, turn.clone())) {
        // A page was removed while the answer was being written: written again without.
        Some(again) => {
            saved = storage::save_turn(&key, &again).await;
            again
        }
        None => turn,
    };
    let save_failed = saved.err().map(|error| error.to_string());
    ports::broadcast(&AskUpdate::Finished {
        key,
        turn,
        save_failed,
    });
}

/// Resets the browser's idle timer of the worker every [`KEEP_ALIVE_MS`] until `done` fires.
async fn keep_awake(done: Cancel) {
    loop {
        http::sleep(KEEP_ALIVE_MS, &done).await;
        if done.is_cancelled() {
            return;
        }
        let _ = runtime::keep_alive().await;
    }
}

/// The worker's own index, asked directly (a worker cannot message itself).
struct OwnIndex;

impl IndexAnswers for OwnIndex {
    async fn answer(&self, request: Request) -> Result<Response, ChromeError> {
        Ok(index_host::answer(request).await)
    }
}
