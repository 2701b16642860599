//! The popup's state, at the bottom of its modules: the signals every part shares ([`State`]), the
//! alert line's message, the as-you-type answer, and the ids the search box and the live list
//! share. No view code: the views (`result_row`, `conversation`, `popup`) and the operations
//! (`ask`) read and write it; it uses none of them.

use std::collections::HashSet;

use history_chat_core::ai::provider::{Availability, Engine, choose};
use history_chat_core::ask::RunningAsk;
use history_chat_core::conversation::StoredTurn;
use history_chat_core::history::Page;
use history_chat_core::messages::IndexProgress;
use history_chat_core::period::Period;
use history_chat_core::settings::Settings;
use leptos::html::Input;
use leptos::prelude::*;

/// The id of the as-you-type results' listbox (the search box's `aria-controls`).
pub(crate) const LIVE_LIST_ID: &str = "live-results";

/// The id of the `index`-th as-you-type result (the search box's `aria-activedescendant`).
pub(crate) fn live_option_id(index: usize) -> String {
    format!("live-option-{index}")
}

/// A failure the user must see (the `role="alert"` line), with a way to the options page when the
/// fix is there.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct AlertMessage {
    pub(crate) text: String,
    pub(crate) offer_options: bool,
}

impl AlertMessage {
    pub(crate) fn new(text: String) -> Option<AlertMessage> {
        Some(AlertMessage {
            text,
            offer_options: false,
        })
    }
}

/// Everything the popup's parts share: its signals, one copyable handle (also the components'
/// context). The lazily loaded parts take it as their one argument.
#[derive(Clone, Copy)]
pub(crate) struct State {
    pub(crate) settings: RwSignal<Settings>,
    pub(crate) period: RwSignal<Period>,
    /// What the search box holds.
    pub(crate) question: RwSignal<String>,
    /// The conversation, newest turn first.
    pub(crate) turns: RwSignal<Vec<StoredTurn>>,
    /// A committed question is being answered (here or by the worker).
    pub(crate) busy: RwSignal<bool>,
    pub(crate) status: RwSignal<String>,
    /// The AI search the worker runs (whichever popup asked)…
    pub(crate) worker_ask: RwSignal<Option<RunningAsk>>,
    /// … and whether the worker said yet.
    pub(crate) ask_known: RwSignal<bool>,
    /// The key of the worker's search this popup asked, so its question box is cleared when done.
    pub(crate) asked_here: StoredValue<Option<String>>,
    /// Cancel was clicked before the worker said which search it runs: sent once it says.
    pub(crate) cancel_wanted: StoredValue<bool>,
    /// The as-you-type matches, and the keystroke they answer (older answers are dropped).
    pub(crate) live: RwSignal<Option<LiveAnswer>>,
    pub(crate) live_seq: StoredValue<u64>,
    /// What Chrome says of its built-in model (`None` until it has said).
    pub(crate) availability: RwSignal<Option<Availability>>,
    pub(crate) alert: WriteSignal<Option<AlertMessage>>,
    /// Pages removed from history since the popup opened (cleaned URLs): never shown again, even
    /// by a search that was running when they were removed.
    pub(crate) removed: RwSignal<HashSet<String>>,
    /// The highlighted as-you-type result (its URL), while the search box has the arrows.
    pub(crate) highlight: RwSignal<Option<String>>,
    pub(crate) search_box: NodeRef<Input>,
    /// Where site icons come from (`chrome-extension://<id>/_favicon/`), once the optional
    /// `favicon` permission is known to be granted; `None`: rows show the placeholder.
    pub(crate) site_icons: RwSignal<Option<String>>,
}

impl State {
    /// The engine that answers a committed question, as far as the popup knows.
    pub(crate) fn engine(self) -> Engine {
        let availability = self.availability.get().unwrap_or_default();
        self.settings
            .with(|s| choose(s.provider, s.has_api_key(), availability).engine)
    }

    /// Why on-device AI is not answering, when the user would want it to (one line).
    pub(crate) fn device_note(self) -> Option<String> {
        let known = self.availability.get()?;
        let wanted = self.settings.with(|s| s.provider.may_use_device());
        wanted.then(|| known.reason()).flatten()
    }
}

/// "Retry" of an interrupted search: asks the question again in its period.
#[derive(Clone, Copy)]
pub(crate) struct Retry(pub(crate) Callback<(String, Period)>);

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
