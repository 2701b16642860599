//! The presentation layer: what the user reads about the engines' states, composed from the typed
//! values the protocol carries (an index's progress, topic search's). Every sentence is a catalogue
//! message (`t!`, `plural`); nothing below this layer words anything for these states.

use crate::display::relative_time;
use crate::i18n::{number, plural};
use crate::index::IndexProgress;
use crate::semantic::{SemanticProgress, SemanticStatus, UnavailableReason};

/// The index's wording, for the popup.
impl IndexProgress {
    /// The popup's line while the index is built: "Indexing your history: 12,345 pages so far,
    /// back to 3 days ago…".
    pub fn status(&self, now_ms: i64) -> String {
        match self.since_ms {
            None => t!("index_indexing"),
            Some(since) => t!(
                "index_indexing_back_to",
                pages(self.pages),
                relative_time(now_ms, since)
            ),
        }
    }

    /// The notice over what the incomplete index found (perhaps nothing yet), shown at once while
    /// the browser's search is still running.
    pub fn filling_in(&self) -> String {
        t!("index_filling_in")
    }

    /// The notice above results the index could not give alone.
    pub fn notice(&self) -> String {
        match self.since_ms {
            None => t!("index_meanwhile_browser"),
            Some(_) => t!("index_browser_fills_in"),
        }
    }
}

/// Topic search's wording, for the options page and the popup.
impl SemanticProgress {
    /// The options page's line under the switch.
    pub fn options_line(&self) -> String {
        match self.status {
            SemanticStatus::Off => t!("topic_off"),
            SemanticStatus::Loading => t!("topic_starting"),
            SemanticStatus::Building => t!(
                "topic_building",
                number(i64::from(self.understood)),
                pages(self.total as usize)
            ),
            SemanticStatus::Ready => t!("topic_ready", pages(self.understood as usize)),
            SemanticStatus::Unavailable(reason) => t!("topic_unavailable", unavailable(reason)),
            SemanticStatus::StorageFull => t!("topic_storage_full"),
        }
    }

    /// The popup's quiet line while topic search cannot answer for everything yet; `None` once
    /// it can (or when it is off).
    pub fn popup_line(&self) -> Option<String> {
        match self.status {
            SemanticStatus::Off | SemanticStatus::Ready => None,
            SemanticStatus::Loading => Some(t!("topic_starting")),
            SemanticStatus::Building => Some(t!(
                "topic_popup_building",
                number(i64::from(self.understood)),
                pages(self.total as usize)
            )),
            SemanticStatus::Unavailable(_) => Some(t!("topic_popup_unavailable")),
            SemanticStatus::StorageFull => Some(t!("topic_popup_storage_full")),
        }
    }
}

fn unavailable(reason: UnavailableReason) -> String {
    match reason {
        UnavailableReason::ModelMissing => t!("topic_unavailable_model_missing"),
        UnavailableReason::ModelCorrupt => t!("topic_unavailable_model_corrupt"),
        UnavailableReason::Unsupported => t!("topic_unavailable_unsupported"),
        UnavailableReason::ModelFailing => t!("topic_unavailable_model_failing"),
        UnavailableReason::StoreFailing => t!("topic_unavailable_store_failing"),
    }
}

/// "1 page", "12,345 pages".
fn pages(count: usize) -> String {
    plural("count_pages", i64::try_from(count).unwrap_or(i64::MAX), &[])
}
