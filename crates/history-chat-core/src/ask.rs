//! Searches hosted by the service worker, so that a search outlives the popup that asked.
//!
//! A popup sends [`crate::messages::Request::Ask`], naming the turn's key. An AI search (Gemini or
//! Chrome's built-in model) starts ([`Asks::start`]), writes a [`Turn::started`] turn (so a worker
//! the browser stops leaves a turn that says so), and sends every change as an [`AskUpdate`] to
//! each open popup over a port: the state on connect, each step, and the finished turn, which it
//! writes over the started one whatever popup is open. One AI search runs at a time; a second
//! question while one runs is refused ([`Busy`]), and the popup says so. A question no model
//! answers is searched locally by the worker too ([`Asks::start_local`]): what the index found
//! comes over the port at once ([`AskUpdate::Early`]), the whole answer in the reply
//! ([`AskReply::Answered`]), written first; local searches run side by side. [`Asks`] is the pure
//! bookkeeping; the worker's `ask_host` carries it out.

use std::collections::{HashMap, HashSet};

use serde::{Deserialize, Serialize};

use crate::ai::pipeline::Progress;
use crate::ai::provider::{Availability, Choice, Engine, Provider, choose, engine_for};
use crate::clean::clean_url;
use crate::conversation::{Turn, TurnNote};
use crate::history::RemovedVisits;
use crate::period::Period;

/// While a search runs, the worker calls a cheap extension API this often: each call resets the
/// browser's 30-second idle timer of an MV3 worker, which a model call that waits (a slow answer,
/// a retry delay of 20 s) would otherwise outlast. Nothing is called once the search ends, so the
/// worker is left to sleep as soon as it has nothing to do.
pub const KEEP_ALIVE_MS: u32 = 20_000;

/// A popup whose port to the worker closed (the browser stopped the worker) connects again after
/// this long: soon enough that the next search's progress is seen, and never a tight loop when a
/// worker cannot start at all.
pub const RECONNECT_MS: u32 = 500;

/// The search that is running, as a popup shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct RunningAsk {
    /// The turn's storage key (the started turn is written under it, then the answer).
    pub key: String,
    /// The question as typed.
    pub question: String,
    /// The period searched.
    pub period: Period,
    /// The engine answering.
    pub engine: Engine,
    /// The pipeline's last step; `None` before the first.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub progress: Option<Progress>,
    /// The user asked to cancel; the search is winding down.
    #[serde(default)]
    pub cancelling: bool,
}

/// What the worker tells the open popups about its searches. Externally tagged, as
/// [`crate::messages::Response`] is, so that the popup reads it without serde's buffering.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum AskUpdate {
    /// No search runs.
    Idle,
    /// A search runs; sent when it starts and at every step.
    Running(RunningAsk),
    /// A search ended and its turn is written (or could not be: `saved` says why).
    Finished {
        /// The turn's storage key.
        key: String,
        /// The answer.
        turn: Turn,
        /// Why the turn could not be stored, if it could not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        save_failed: Option<String>,
    },
    /// What a local search found at once, while the browser's search fills in an incomplete
    /// index: shown by the popup that asked (it named the key) until the answer replaces it.
    Early {
        /// The turn's storage key.
        key: String,
        /// The early answer.
        turn: Turn,
    },
}

/// The worker's answer to [`crate::messages::Request::Ask`].
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum AskReply {
    /// The search runs under this key; its progress comes over the port.
    Started {
        /// The turn's storage key.
        key: String,
    },
    /// Another search is running: this question was not asked.
    Busy(Busy),
    /// No model answers this question (none is set up, the key went, Chrome's model is not ready
    /// or failed to start, …): the worker searched locally, and wrote the answer (or could not:
    /// `save_failed` says why). Its note says why not the engine the user chose, when it was not
    /// the local search.
    Answered {
        /// The turn's storage key.
        key: String,
        /// The answer.
        turn: Box<Turn>,
        /// Why the turn could not be stored, if it could not.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        save_failed: Option<String>,
    },
}

/// A model the worker runs a search with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostedEngine {
    /// Gemini over HTTP, with the user's key.
    Gemini,
    /// Chrome's built-in model, through the Prompt API.
    OnDevice,
}

impl HostedEngine {
    /// The engine a turn names.
    pub const fn engine(self) -> Engine {
        match self {
            HostedEngine::Gemini => Engine::Gemini,
            HostedEngine::OnDevice => Engine::OnDevice,
        }
    }
}

/// Which model the worker asks for `question`, as [`choose`] and [`engine_for`] decide with what the
/// worker reads itself (the settings, and Chrome's model's `on_device` availability — read only
/// when `provider` [may use it](Provider::may_use_device)): `Ok` with the model, or `Err` with the
/// note of a local search.
pub fn hosted_engine(
    provider: Provider,
    has_key: bool,
    on_device: Availability,
    question: &str,
) -> Result<HostedEngine, Option<TurnNote>> {
    let Choice { engine, fallback } = choose(provider, has_key, on_device);
    match engine_for(question, engine) {
        Engine::Local => Err(fallback.map(TurnNote::Fallback)),
        Engine::Gemini => Ok(HostedEngine::Gemini),
        Engine::OnDevice => Ok(HostedEngine::OnDevice),
    }
}

/// A question refused because another search is running.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Busy {
    /// The question being searched.
    pub question: String,
}

/// Pages deleted from history while a search ran, to leave out of its answer.
#[derive(Debug, Default)]
struct Removals {
    /// Cleaned URLs removed since the search started.
    urls: HashSet<String>,
    /// The whole history was cleared since the search started.
    cleared: bool,
}

impl Removals {
    fn note(&mut self, removed: &RemovedVisits) {
        self.cleared |= removed.all_history;
        let cleaned = removed.urls.iter().filter_map(|raw| clean_url(raw).ok());
        self.urls.extend(cleaned.map(String::from));
    }

    /// Drops from `turn` the pages removed so far, and forgets the removals; whether any went.
    fn drop_from(&mut self, turn: &mut Turn) -> bool {
        let changed = if self.cleared {
            let had = !turn.results.is_empty();
            turn.results.clear();
            had
        } else {
            turn.drop_pages(&self.urls)
        };
        *self = Removals::default();
        changed
    }
}

/// The worker's searches: its one AI search (what runs), the local searches under way (their
/// keys), and the pages removed from history while each ran.
#[derive(Debug, Default)]
pub struct Asks {
    running: Option<RunningAsk>,
    /// The finished AI search whose answer is being written (its key).
    saving: Option<String>,
    /// Removed while the AI search ran, or while its answer was being written.
    removed: Removals,
    /// Each local search under way, from its start until its answer is written.
    local: HashMap<String, Removals>,
}

impl Asks {
    /// Starts a search under `key`, or refuses it while another runs.
    pub fn start(
        &mut self,
        key: String,
        question: &str,
        period: Period,
        engine: Engine,
    ) -> Result<AskUpdate, Busy> {
        if let Some(running) = &self.running {
            return Err(Busy {
                question: running.question.clone(),
            });
        }
        let running = RunningAsk {
            key,
            question: question.trim().to_owned(),
            period,
            engine,
            progress: None,
            cancelling: false,
        };
        self.running = Some(running.clone());
        self.removed = Removals::default();
        Ok(AskUpdate::Running(running))
    }

    /// Starts a local search under `key`. Local searches do not wait for each other nor for the
    /// AI search: each is quick, and asks the model nothing.
    pub fn start_local(&mut self, key: &str) {
        self.local.insert(key.to_owned(), Removals::default());
    }

    /// The local search under `key` found `turn`: the turn to write, without the pages removed
    /// while it ran (removals are still followed until [`Asks::saved_local`]).
    pub fn finish_local(&mut self, key: &str, mut turn: Turn) -> Turn {
        if let Some(removals) = self.local.get_mut(key) {
            removals.drop_from(&mut turn);
        }
        turn
    }

    /// The answer of the local search `key` is written: when pages were removed while it was
    /// being written, the turn to write again without them. The search is over.
    pub fn saved_local(&mut self, key: &str, mut turn: Turn) -> Option<Turn> {
        let mut removals = self.local.remove(key)?;
        removals.drop_from(&mut turn).then_some(turn)
    }

    /// A step of the search under `key`; `None` (nothing to tell) when that search is not the one
    /// running.
    pub fn progress(&mut self, key: &str, progress: Progress) -> Option<AskUpdate> {
        let running = self.running.as_mut().filter(|r| r.key == key)?;
        running.progress = Some(progress);
        Some(AskUpdate::Running(running.clone()))
    }

    /// The user asked to cancel the search under `key` (any popup: `None` is whatever runs).
    /// Returns the update to send when a search is now cancelling; the caller aborts its work.
    pub fn cancel(&mut self, key: Option<&str>) -> Option<AskUpdate> {
        let running = self
            .running
            .as_mut()
            .filter(|r| key.is_none_or(|key| r.key == key) && !r.cancelling)?;
        running.cancelling = true;
        Some(AskUpdate::Running(running.clone()))
    }

    /// Pages deleted from history while searches run — by the popup's "Remove from history", or
    /// anywhere else (Chrome's own history page too, as `chrome.history.onVisitRemoved` reports
    /// them; raw or cleaned URLs alike): no running search's answer will hold them, and a
    /// cleared history leaves them empty.
    pub fn removed_visits(&mut self, removed: &RemovedVisits) {
        if self.running.is_some() || self.saving.is_some() {
            self.removed.note(removed);
        }
        for removals in self.local.values_mut() {
            removals.note(removed);
        }
    }

    /// The search under `key` ended with `turn`: the turn to write, without the pages removed
    /// while it ran. `None` when that search is not the one running (it was already finished:
    /// nothing is written twice).
    pub fn finish(&mut self, key: &str, mut turn: Turn) -> Option<Turn> {
        self.running.take_if(|r| r.key == key)?;
        self.removed.drop_from(&mut turn);
        self.saving = Some(key.to_owned());
        turn.running = false;
        Some(turn)
    }

    /// The answer of `key` is written: when pages were removed while it was being written, the
    /// turn to write again without them.
    pub fn saved(&mut self, key: &str, mut turn: Turn) -> Option<Turn> {
        self.saving.take_if(|saving| saving == key)?;
        self.removed.drop_from(&mut turn).then_some(turn)
    }

    /// What a popup that connects is told.
    pub fn state(&self) -> AskUpdate {
        match &self.running {
            Some(running) => AskUpdate::Running(running.clone()),
            None => AskUpdate::Idle,
        }
    }
}

#[cfg(test)]
mod tests;
