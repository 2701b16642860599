//! What every section of the options page shares: the page's outcome lines ([`Feedback`]) and
//! the one way a section changes the stored settings ([`save`], [`store`]).

use history_chat_bindings::{log, storage};
use history_chat_core::settings::Settings;
use history_chat_core::t;
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The page's outcome lines: `role="status"` for what worked, `role="alert"` for what did not.
#[derive(Clone, Copy)]
pub(crate) struct Feedback {
    pub(crate) status: RwSignal<String>,
    pub(crate) alert: RwSignal<Option<String>>,
}

impl Feedback {
    pub(crate) fn ok(self, message: impl Into<String>) {
        self.alert.set(None);
        self.status.set(message.into());
    }

    /// Clears both lines as a new change starts, so that neither tells of the one before: a second
    /// "Saved" is then a new one (and read out again), not the first one still showing.
    pub(crate) fn clear(self) {
        self.alert.set(None);
        self.status.set(String::new());
    }

    pub(crate) fn fail(self, message: impl Into<String>) {
        self.status.set(String::new());
        self.alert.set(Some(message.into()));
    }
}

/// Changes the stored settings with `edit` — applied to them as they are stored now, so that only
/// what the user just changed is written and another page's change to another field is kept — then
/// shows what was stored. The outcome lines are cleared as it starts. Nothing is written when they
/// cannot be read; a refused write (storage full, or otherwise) leaves the stored settings as they
/// were, and the page shows those. Whether it was stored.
pub(crate) async fn save(
    settings: RwSignal<Option<Settings>>,
    edit: impl FnOnce(&mut Settings),
    feedback: Feedback,
) -> bool {
    feedback.clear();
    match storage::update_settings(edit).await {
        Ok(stored) => {
            settings.set(Some(stored));
            true
        }
        Err(error) => {
            log::failure("saving the settings", &error);
            feedback.fail(match error.is_quota() {
                true => t!("options_not_saved_full"),
                false => t!("options_not_saved", error),
            });
            // The controls show the settings as they still are.
            settings.update(|_| {});
            false
        }
    }
}

/// [`save`], then says `done`.
pub(crate) fn store(
    settings: RwSignal<Option<Settings>>,
    edit: impl FnOnce(&mut Settings) + 'static,
    feedback: Feedback,
    done: String,
) {
    spawn_local(async move {
        if save(settings, edit, feedback).await {
            feedback.ok(done);
        }
    });
}
