//! What one host tells the others, through one dispatcher: a host emits an [`Event`]
//! ([`emit`]), and the dispatcher the worker installs at start ([`install`], `lib.rs`) hands it
//! to the hosts that follow it. So no host calls another above it: the settings and the removal
//! journal sit below the lexical index, which sits below topic search and the searches, and what
//! goes up goes as an event. Delivery is synchronous, in the order emitted, as a direct call was.

use std::cell::Cell;
use std::collections::HashSet;

use history_chat_bindings::log;
use history_chat_core::history::{Page, RemovedVisits};
use history_chat_core::index::journal::Entry as JournalEntry;
use history_chat_core::semantic::host::Removal;
use history_chat_core::settings::KnownSettings;

/// Something a host did that others follow.
#[derive(Debug, Clone)]
pub enum Event {
    /// The settings were read or changed (or the worker remembered them): both indexes adopt them.
    SettingsKnown(KnownSettings),
    /// The removal journal was read: this entry is applied to the lexical index again.
    Replay(JournalEntry),
    /// The lexical index holds these pages, new or changed: topic search follows them.
    PagesIndexed(Vec<Page>),
    /// The lexical index holds the whole history (loaded, or its first build over), and every
    /// page has been handed over ([`Event::PagesIndexed`]).
    PagesListed,
    /// Pages left the lexical index: topic search deletes their vectors.
    PagesRemoved(Removal),
    /// Pages were removed from history: a running AI search leaves them out of its answer.
    VisitsRemoved(RemovedVisits),
    /// Bookmarks were added (cleaned addresses, not of an excluded site): their pages are read
    /// when reading is on.
    Bookmarked(Vec<String>),
    /// Bookmarks were added or retitled: their pages as the bookmarks give them now (told once the
    /// bookmarks' shelf is made again, one event for a burst), understood by their title when
    /// outside the history.
    BookmarksTitled(Vec<Page>),
    /// These pages are no longer bookmarked: what was read of them for that alone goes.
    Unbookmarked(Vec<String>),
    /// The bookmarked pages as now known: after the bookmarks were read, or none when their
    /// switch is off. What was read or understood of any other page outside the history goes.
    BookmarksKnown(HashSet<String>),
    /// The open tabs' pages as now known: after the tabs were read and after a burst of tab
    /// events, or none when their switch is off.
    TabsKnown(Vec<Page>),
}

thread_local! {
    static DISPATCH: Cell<Option<fn(Event)>> = const { Cell::new(None) };
}

/// Makes `dispatch` the one receiver of every event; the worker does it first thing at start.
pub fn install(dispatch: fn(Event)) {
    DISPATCH.set(Some(dispatch));
}

/// Hands `event` to the dispatcher.
pub fn emit(event: Event) {
    match DISPATCH.get() {
        Some(dispatch) => dispatch(event),
        // Cannot happen once started: `start` installs the dispatcher before any host runs.
        None => log::note("an event came before the worker started; it is dropped"),
    }
}
