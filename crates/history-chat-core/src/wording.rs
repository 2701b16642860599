//! The presentation layer: what the user reads about the engines' states and about failures,
//! composed from the typed values the protocol carries (an index's progress, topic search's, a
//! [`Failure`]). Every sentence is a catalogue message (`t!`, `plural`); nothing below this layer
//! words anything for these states.

use std::fmt;

use crate::display::relative_time;
use crate::failure::{BrowserFailure, Failure};
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

/// A failed browser call as a phrase fit for a message's `($1)`: "Chrome refused
/// chrome.history.search".
impl fmt::Display for BrowserFailure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            BrowserFailure::Refused { api } => t!("browser_refused", api),
            BrowserFailure::StorageFull => t!("browser_storage_full"),
            BrowserFailure::Unreadable { api } => t!("browser_unreadable", api),
        })
    }
}

/// Why a request was not answered, as a phrase fit for a message's `($1)` ("… could not start
/// ($1). Try again."), or a sentence of its own where it must say what to do
/// ([`Failure::sentence`]).
impl fmt::Display for Failure {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Failure::ExclusionsUnknown | Failure::SettingsUnreadable => {
                f.write_str(&t!("ask_settings_unreadable"))
            }
            Failure::Browser(failure) => failure.fmt(f),
            Failure::BadRequest { detail } => f.write_str(&t!("worker_bad_request", detail)),
            Failure::UnexpectedReply => f.write_str(&t!("worker_unexpected_reply")),
            Failure::WorkerCrashed => f.write_str(&t!("worker_crashed")),
        }
    }
}

impl Failure {
    /// The failure said alone, as a whole sentence with what to do: where the excluded sites
    /// are not known, why nothing is shown; anything else, that the history could not be
    /// searched, and why.
    pub fn sentence(&self) -> String {
        match self {
            Failure::ExclusionsUnknown => t!("worker_settings_unreadable"),
            other => t!("turn_history_unreadable", other),
        }
    }
}

/// "1 page", "12,345 pages".
fn pages(count: usize) -> String {
    plural("count_pages", i64::try_from(count).unwrap_or(i64::MAX), &[])
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_progress_line_says_how_many_pages_and_how_far_back() {
        const NOW: i64 = 1_780_000_000_000;
        let day = crate::period::DAY_MS;
        let rows: &[(usize, Option<i64>, &str)] = &[
            (0, None, "Indexing your history…"),
            (
                1,
                Some(NOW),
                "Indexing your history: 1 page so far, back to just now…",
            ),
            (
                12_345,
                Some(NOW - 3 * day),
                "Indexing your history: 12,345 pages so far, back to 3 days ago…",
            ),
            (
                1_000_000,
                Some(NOW - 3 * day),
                "Indexing your history: 1,000,000 pages so far, back to 3 days ago…",
            ),
            (
                999,
                Some(NOW - 3 * day),
                "Indexing your history: 999 pages so far, back to 3 days ago…",
            ),
        ];
        for &(pages, since_ms, expected) in rows {
            assert_eq!(IndexProgress { pages, since_ms }.status(NOW), expected);
        }
    }

    #[test]
    fn the_notices_say_whether_chrome_fills_in() {
        let building = IndexProgress {
            pages: 3,
            since_ms: Some(5),
        };
        let rows: &[(String, &str)] = &[
            (
                IndexProgress::default().notice(),
                "Indexing your history… meanwhile these come from Chrome's own search.",
            ),
            (
                building.notice(),
                "Indexing your history… Chrome's own search fills in the pages not indexed yet.",
            ),
            (
                building.filling_in(),
                "Indexing your history… Chrome's own search is filling in.",
            ),
        ];
        for (said, expected) in rows {
            assert_eq!(said, expected);
        }
    }

    #[test]
    fn topic_search_is_worded_for_the_options_page_and_quietly_for_the_popup() {
        let progress = |status, understood, total| SemanticProgress {
            status,
            understood,
            total,
        };
        let rows = [
            (
                progress(SemanticStatus::Off, 0, 0),
                "Topic search is off.",
                None,
            ),
            (
                progress(SemanticStatus::Loading, 0, 0),
                "Topic search is starting…",
                Some("Topic search is starting…"),
            ),
            (
                progress(SemanticStatus::Building, 1_234, 50_000),
                "Understanding your history: 1,234 of 50,000 pages so far. What is understood is already searchable.",
                Some("Topic search has understood 1,234 of 50,000 pages so far."),
            ),
            (
                progress(SemanticStatus::Ready, 1, 1),
                "Topic search is ready: 1 page understood.",
                None,
            ),
            (
                progress(
                    SemanticStatus::Unavailable(UnavailableReason::ModelMissing),
                    0,
                    9,
                ),
                "Topic search is unavailable: the on-device model's file is missing from the extension (reinstall it). Word search still works.",
                Some("Topic search is unavailable (see Options); word search works."),
            ),
            (
                progress(SemanticStatus::StorageFull, 2, 9),
                "Topic search is paused: the browser's storage for this extension is full. Free some space (or remove history), then reopen the browser; word search still works.",
                Some("Topic search is paused: the browser's storage is full (see Options)."),
            ),
        ];
        for (progress, options, popup) in rows {
            assert_eq!(progress.options_line(), options, "{progress:?}");
            assert_eq!(progress.popup_line().as_deref(), popup, "{progress:?}");
        }
    }

    #[test]
    fn a_failure_is_worded_for_where_it_is_shown() {
        let refused = Failure::Browser(BrowserFailure::Refused {
            api: "chrome.history.search".into(),
        });
        // (failure, inside a message's parentheses, said alone)
        let rows: [(Failure, &str, &str); 6] = [
            (
                refused,
                "Chrome refused chrome.history.search",
                "Your history could not be searched (Chrome refused chrome.history.search). Try again in a moment.",
            ),
            (
                Failure::Browser(BrowserFailure::StorageFull),
                "the browser's storage for this extension is full",
                "Your history could not be searched (the browser's storage for this extension is full). Try again in a moment.",
            ),
            (
                Failure::ExclusionsUnknown,
                "History Chat could not read its settings; it tries again by itself, so ask again in a moment",
                "History Chat could not read its settings, so it shows no pages for now: it must know which sites you excluded. It tries again by itself; ask again in a moment.",
            ),
            (
                Failure::SettingsUnreadable,
                "History Chat could not read its settings; it tries again by itself, so ask again in a moment",
                "Your history could not be searched (History Chat could not read its settings; it tries again by itself, so ask again in a moment). Try again in a moment.",
            ),
            (
                Failure::UnexpectedReply,
                "the background worker gave an answer this version does not understand",
                "Your history could not be searched (the background worker gave an answer this version does not understand). Try again in a moment.",
            ),
            (
                Failure::WorkerCrashed,
                "the background worker failed (if it keeps happening, reload History Chat from chrome://extensions)",
                "Your history could not be searched (the background worker failed (if it keeps happening, reload History Chat from chrome://extensions)). Try again in a moment.",
            ),
        ];
        for (failure, phrase, sentence) in rows {
            assert_eq!(failure.to_string(), phrase, "{failure:?}");
            assert_eq!(failure.sentence(), sentence, "{failure:?}");
        }
    }
}
