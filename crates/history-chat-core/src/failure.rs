//! What went wrong, as values: a call into the browser that failed ([`BrowserFailure`]) and why a
//! page's request could not be answered ([`Failure`]). They cross the wire and are stored in turns
//! as they are; the presentation layer words them when they are shown (`crate::wording`), in the
//! language of the page that shows them.

use serde::{Deserialize, Serialize};

/// A call into the browser that did not give what was asked, as the user is told of it: which
/// call, and how it failed. The browser's own words (English, whatever the UI's language) are not
/// here: they go to the console where the call was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum BrowserFailure {
    /// The call threw or its promise was rejected.
    Refused {
        /// The API called, such as `chrome.history.search`.
        api: String,
    },
    /// A write refused because the extension's storage is full: nothing of it was written.
    StorageFull,
    /// The call answered with data that could not be read.
    Unreadable {
        /// The API called.
        api: String,
    },
}

/// Why the worker, or a page asking it, could not answer: what the protocol carries instead of a
/// sentence ([`crate::messages::Response::Failed`]), what a search that could not run keeps.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Failure {
    /// The excluded sites are not known (the settings could not be read and none are
    /// remembered): nothing that must leave them out is answered. The worker tries again.
    ExclusionsUnknown,
    /// The settings could not be read when a question came: it was not searched.
    SettingsUnreadable,
    /// A call into the browser failed (the history's search, a deletion, the message channel).
    Browser(BrowserFailure),
    /// The worker could not read the request (a page of another version): what did not parse,
    /// as the JSON reader said it.
    BadRequest {
        /// The reader's words.
        detail: String,
    },
    /// The worker answered something this page does not expect (a worker of another version).
    UnexpectedReply,
    /// The worker's module threw while answering (`assets/service_worker.js` answers so).
    WorkerCrashed,
}

impl From<BrowserFailure> for Failure {
    fn from(failure: BrowserFailure) -> Failure {
        Failure::Browser(failure)
    }
}
