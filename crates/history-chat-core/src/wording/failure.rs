//! What went wrong, as the pages say it: a failed browser call ([`BrowserFailure`]) and why a
//! request was not answered ([`Failure`]), as a phrase inside a message or as a sentence alone.

use std::fmt;

use crate::failure::{BrowserFailure, Failure};

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

#[cfg(test)]
mod tests {
    use super::*;

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
