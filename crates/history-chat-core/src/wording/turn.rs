//! What a turn of the conversation says besides its pages: why it has no answer or only part of
//! one ([`TurnError`]), and how it was answered ([`TurnNote`]).

use super::ai::unavailable_reason;
use crate::ai::model::ModelFailure;
use crate::ai::provider::Engine;
use crate::conversation::{TurnError, TurnNote};
use crate::index::IndexProgress;

/// A turn's failure, as the popup says it.
impl TurnError {
    /// One sentence for the user: what happened and what to do. `engine` names the model that
    /// failed.
    pub fn message(&self, engine: Engine) -> String {
        match self {
            TurnError::SearchFailed { failure } => failure.sentence(),
            TurnError::HistoryUnreadable { detail } => t!("turn_history_unreadable", detail),
            TurnError::Model { failure } => failure.user_message(engine),
            TurnError::Cancelled => t!("failure_cancelled"),
            TurnError::Interrupted => t!("failure_interrupted"),
            TurnError::Worded(text) => text.clone(),
        }
    }
}

/// A turn's note, as the popup says it.
impl TurnNote {
    /// One sentence for the user.
    pub fn message(&self) -> String {
        match self {
            TurnNote::Fallback(fallback) => fallback.message(),
            TurnNote::OnDeviceFailed {
                failure: ModelFailure::Unavailable { reason },
            } => t!("note_on_device_unavailable", unavailable_reason(reason)),
            TurnNote::OnDeviceFailed { failure } => t!(
                "fallback_searched_locally",
                failure.user_message(Engine::OnDevice)
            ),
            TurnNote::FillingIn => IndexProgress::default().filling_in(),
            TurnNote::Indexing { progress } => progress.notice(),
            TurnNote::Worded(text) => text.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::provider::Fallback;
    use crate::failure::{BrowserFailure, Failure};

    #[test]
    fn a_turns_failure_is_worded_for_the_engine_that_answered() {
        let timeout = TurnError::Model {
            failure: ModelFailure::Timeout,
        };
        let rows: &[(TurnError, Engine, &str)] = &[
            (
                timeout.clone(),
                Engine::OnDevice,
                "Chrome's built-in model took too long to answer. Try again.",
            ),
            (
                timeout,
                Engine::Gemini,
                "Gemini took too long to answer. Try again.",
            ),
            (TurnError::Cancelled, Engine::Gemini, "Search cancelled."),
            (
                TurnError::SearchFailed {
                    failure: Failure::Browser(BrowserFailure::Refused {
                        api: "chrome.history.search".into(),
                    }),
                },
                Engine::Local,
                "Your history could not be searched (Chrome refused chrome.history.search). Try again in a moment.",
            ),
            (
                TurnError::SearchFailed {
                    failure: Failure::ExclusionsUnknown,
                },
                Engine::Local,
                "History Chat could not read its settings, so it shows no pages for now: it must know which sites you excluded. It tries again by itself; ask again in a moment.",
            ),
            // As an earlier version stored it: its reason already worded.
            (
                TurnError::HistoryUnreadable {
                    detail: "backend gone".into(),
                },
                Engine::Local,
                "Your history could not be searched (backend gone). Try again in a moment.",
            ),
            (
                TurnError::Worded("Gemini returned an empty answer. Try again.".into()),
                Engine::OnDevice,
                "Gemini returned an empty answer. Try again.",
            ),
        ];
        for (error, engine, worded) in rows {
            assert_eq!(error.message(*engine), *worded, "{error:?}");
        }
    }

    #[test]
    fn a_turns_note_says_how_it_was_answered() {
        let rows: &[(TurnNote, &str)] = &[
            (
                TurnNote::Fallback(Fallback::NoApiKey),
                "No Gemini API key is set: add one in Options. Searched locally.",
            ),
            (
                TurnNote::OnDeviceFailed {
                    failure: ModelFailure::Unavailable {
                        reason: "session destroyed".into(),
                    },
                },
                "The on-device model is not available (session destroyed). Searched locally.",
            ),
            (
                TurnNote::OnDeviceFailed {
                    failure: ModelFailure::Unavailable {
                        reason: String::new(),
                    },
                },
                "The on-device model is not available (the model failed). Searched locally.",
            ),
            (
                TurnNote::OnDeviceFailed {
                    failure: ModelFailure::Timeout,
                },
                "Chrome's built-in model took too long to answer. Try again. Searched locally.",
            ),
            (
                TurnNote::Indexing {
                    progress: IndexProgress {
                        pages: 10,
                        since_ms: None,
                    },
                },
                "Indexing your history… meanwhile these come from Chrome's own search.",
            ),
            (
                TurnNote::FillingIn,
                "Indexing your history… Chrome's own search is filling in.",
            ),
            (
                TurnNote::Worded("Searched locally.".into()),
                "Searched locally.",
            ),
        ];
        for (note, worded) in rows {
            assert_eq!(note.message(), *worded, "{note:?}");
        }
    }
}
