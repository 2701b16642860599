//! Glue around the core's [`Asks`]: runs the popups' searches in the worker, so that a search
//! outlives the popup that asked ([`history_chat_core::ask`]). An AI search — Gemini over HTTP,
//! Chrome's built-in model through its Prompt API — writes the started turn, runs [`ai_search`]
//! with the worker's own index as the page source, sends each step to the open popups over the
//! `ask` port, and writes the answer over the started turn, whatever popup is open. A question no
//! model answers is searched locally ([`local_search`]), its answer written and given in the reply.
//! While an AI search runs it keeps the worker awake ([`KEEP_ALIVE_MS`]); a worker that starts marks
//! the turns a stopped one left running as interrupted before it tells any popup anything.

use std::cell::{Cell, RefCell};

use futures_channel::oneshot;
use history_chat_bindings::gemini::GeminiModel;
use history_chat_bindings::history::{IndexAnswers, IndexedHistory};
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::on_device::{self, OnDevice};
use history_chat_bindings::{log, nonce, now_ms, ports, runtime, storage};
use history_chat_core::ai::model::LanguageModel;
use history_chat_core::ai::pipeline::{AiInput, ai_search};
use history_chat_core::ai::provider::{Availability, Engine};
use history_chat_core::ask::{
    AskReply, AskUpdate, Asks, HostedEngine, KEEP_ALIVE_MS, hosted_engine,
};
use history_chat_core::conversation::{Turn, TurnNote, key_time_ms, turn_key};
use history_chat_core::failure::Failure;
use history_chat_core::history::RemovedVisits;
use history_chat_core::index::host::{Answer, Question};
use history_chat_core::messages::Response;
use history_chat_core::period::Period;
use history_chat_core::settings::Settings;
use wasm_bindgen::JsValue;
use wasm_bindgen_futures::spawn_local;

use crate::{index_host, local_search, places_host, settings_host};

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
        // since the worker says no search runs: logged.
        if let Err(error) = storage::mark_interrupted().await {
            log::failure(
                "marking the searches a stopped worker left as interrupted",
                &error,
            );
        }
        SWEPT.set(true);
        for waiter in SWEEP_WAITERS.take() {
            // A waiter whose request ended needs nothing.
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
    if wait.await.is_err() {
        log::note("a wait for the interrupted searches' sweep ended early");
    }
}

/// `chrome.runtime.onConnect`: a popup's `ask` port, told the state at once.
pub async fn connected(port: JsValue) {
    swept().await;
    let state = ASKS.with_borrow(Asks::state);
    ports::accept(port, &state);
}

/// [`Request::Ask`](history_chat_core::messages::Request::Ask): starts the search, or says why not. The engine is chosen here, from what
/// the worker reads itself (the settings, and where they may use it Chrome's model's availability
/// in this worker), since either may have changed since the popup read them; Chrome's model's
/// session is made ready first, so that a model that fails to start leaves a local search with a
/// note rather than a started turn. A local search is answered when it is done.
pub async fn ask(question: String, period: Period, key: String) -> Response {
    swept().await;
    // The popup's key, unless it is not one (the turn's time is read from it).
    let (key, at_ms) = match key_time_ms(&key) {
        Some(at_ms) => (key, at_ms),
        None => {
            let at_ms = now_ms();
            (turn_key(at_ms, nonce()), at_ms)
        }
    };
    let settings = match storage::load_settings().await {
        // A read that succeeds tells the indexes too (they may be waiting for one).
        Ok(settings) => {
            settings_host::read_now(&settings);
            settings
        }
        // Unreadable settings are not "no key": the popup says the search could not start, rather
        // than search locally with a note that no key is set.
        Err(error) => {
            log::failure("reading the settings for a question", &error);
            return Response::Failed {
                failure: Failure::SettingsUnreadable,
            };
        }
    };
    let on_device = match settings.provider.may_use_device() {
        true => on_device::availability().await,
        // Not asked: `choose` does not read it for these providers.
        false => Availability::Unsupported,
    };
    let search = Search {
        key,
        at_ms,
        question,
        period,
    };
    let engine = match hosted_engine(
        settings.provider,
        settings.has_api_key(),
        on_device,
        &search.question,
    ) {
        Ok(engine) => engine,
        Err(note) => return search_locally(search, note).await,
    };
    if engine == HostedEngine::OnDevice && ASKS.with_borrow(Asks::state) == AskUpdate::Idle {
        // The model is "available": making the session needs no click (no download).
        if let Err(failure) = DEVICE.with(OnDevice::clone).prepare(|_| ()).await {
            DEVICE.with(OnDevice::close);
            return search_locally(search, Some(TurnNote::OnDeviceFailed { failure })).await;
        }
    }
    let started = ASKS.with_borrow_mut(|asks| {
        asks.start(
            search.key.clone(),
            &search.question,
            period,
            engine.engine(),
        )
    });
    let reply = match started {
        Err(busy) => AskReply::Busy(busy),
        Ok(update) => {
            let cancel = Cancel::new();
            CANCEL.set(Some(cancel.clone()));
            ports::broadcast(&update);
            let key = search.key.clone();
            match engine {
                HostedEngine::OnDevice => {
                    let model = DEVICE.with(|device| device.for_search(cancel));
                    spawn_local(run(search, engine.engine(), settings, model));
                }
                HostedEngine::Gemini => {
                    let model = GeminiModel::new(settings.api_key(), cancel);
                    spawn_local(run(search, engine.engine(), settings, model));
                }
            }
            AskReply::Started { key }
        }
    };
    Response::Asked { reply }
}

/// The local search of `search`, with `note` saying why not the engine the user chose: what the
/// index found goes to the popup at once, the answer is written (without the pages removed
/// meanwhile) and given in the reply.
async fn search_locally(search: Search, note: Option<TurnNote>) -> Response {
    let Search {
        key,
        at_ms,
        question,
        period,
    } = search;
    ASKS.with_borrow_mut(|asks| asks.start_local(&key));
    let early = |turn: Turn| {
        ports::broadcast(&AskUpdate::Early {
            key: key.clone(),
            turn,
        });
    };
    let mut turn = local_search::answer(at_ms, &question, period, early).await;
    turn.note = note;
    let turn = ASKS.with_borrow_mut(|asks| asks.finish_local(&key, turn));
    let mut saved = storage::save_turn(&key, &turn).await;
    let turn = match ASKS.with_borrow_mut(|asks| asks.saved_local(&key, turn.clone())) {
        // A page was removed while the answer was being written: written again without.
        Some(again) => {
            saved = storage::save_turn(&key, &again).await;
            again
        }
        None => turn,
    };
    Response::Asked {
        reply: AskReply::Answered {
            key,
            turn: Box::new(turn),
            save_failed: saved.err().map(|error| error.to_string()),
        },
    }
}

/// [`Request::CancelAsk`](history_chat_core::messages::Request::CancelAsk): the running search stops (its model calls and waits are aborted) and
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

/// One question the worker searches.
struct Search {
    key: String,
    at_ms: i64,
    question: String,
    period: Period,
}

async fn run(search: Search, engine: Engine, settings: Settings, model: impl LanguageModel) {
    let Search {
        key,
        at_ms,
        question,
        period,
    } = search;
    let awake = Cancel::new();
    spawn_local(keep_awake(awake.clone()));
    // Written first, so that a worker stopped mid-search leaves a turn that says so. Should the
    // write fail, the search still runs, and the answer's own write reports the failure.
    if let Err(error) =
        storage::save_turn(&key, &Turn::started(at_ms, &question, period, engine)).await
    {
        log::failure("saving the started turn", &error);
    }
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
    let mut turn = Turn::from_ai(at_ms, &question, period, engine, settings.depth, answer);
    // The pages picked that are bookmarked or open in a tab say so, as a local answer's do.
    for picked in &mut turn.results {
        places_host::mark_pages(std::slice::from_mut(&mut picked.page));
    }
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
        // The next tick tries again; should every one fail, the search ends interrupted.
        if let Err(error) = runtime::keep_alive().await {
            log::failure("keeping the worker awake during a search", &error);
        }
    }
}

/// The worker's own index, asked directly (a worker cannot message itself).
struct OwnIndex;

impl IndexAnswers for OwnIndex {
    async fn answer(&self, question: Question) -> Option<Answer> {
        index_host::ask(question).await.ok()
    }
}
