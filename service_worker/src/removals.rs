//! The journal of removals the index snapshot does not hold yet (the core's
//! [`history_chat_core::index::journal`]): a deletion is honoured even when the browser stops the
//! worker between the event and the snapshot's save.
//!
//! Every removal fed to the index host (`onVisitRemoved`, readable or not, and a page's own
//! "Remove from history") is recorded here first ([`record`]): in memory, and written whole to
//! `chrome.storage.local` (one item,
//! [`STORAGE_KEY`](history_chat_core::index::journal::STORAGE_KEY)), one write at a time, so the last
//! write ends with the last state. When the worker starts ([`start`]) the stored journal is read
//! and each entry fed again with its own time ([`Event::Replay`], applied by the lexical index); the snapshot's load
//! waits for that ([`restored`]), so the removals are queued and applied to the loaded snapshot.
//! A snapshot saved successfully holds every removal fed before its [`Action::Save`] was returned
//! (the host is synchronous): those entries are dropped ([`mark`], [`saved`]), an unreadable
//! removal's only once the host's verify is done.
//!
//! Failures are logged: a journal that cannot be read is an unreadable removal (the index is
//! verified); a write that fails leaves the removal applied in memory, and the next one writes the
//! whole journal again.
//!
//! [`Action::Save`]: history_chat_core::index::host::Action::Save

use std::cell::{Cell, RefCell};

use futures_channel::oneshot;
use history_chat_bindings::{log, now_ms, storage};
use history_chat_core::index::journal::{Entry, Journal, Removal, SaveMark};
use wasm_bindgen_futures::spawn_local;

use crate::events::{self, Event};

/// Where the journal's write stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Writing {
    /// None running.
    Idle,
    /// One is running, and the journal has not changed since it started.
    Running,
    /// One is running, and another must follow it.
    Again,
}

thread_local! {
    static JOURNAL: RefCell<Journal> = RefCell::new(Journal::new());
    /// The stored journal was read and fed to the host. Until then nothing is written: a write
    /// would replace what is stored before it was read.
    static RESTORED: Cell<bool> = const { Cell::new(false) };
    /// A removal was recorded before the stored journal was read: write once it is.
    static WANTED: Cell<bool> = const { Cell::new(false) };
    static RESTORE_WAITERS: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
    static WRITING: Cell<Writing> = const { Cell::new(Writing::Idle) };
}

/// Reads the stored journal and feeds its removals to the index host; called once, when the
/// worker starts.
pub fn start() {
    spawn_local(async {
        let now_ms = now_ms();
        let stored = match storage::load_removals(now_ms).await {
            Ok(entries) => entries,
            Err(error) => {
                // Removals may be in it: the index is verified against the history instead.
                log::failure(
                    "reading the journal of removals (the index is verified)",
                    &error,
                );
                vec![Entry {
                    removal: Removal::Unreadable,
                    now_ms,
                }]
            }
        };
        let replay = stored.clone();
        JOURNAL.with_borrow_mut(|journal| journal.restore(stored));
        for entry in &replay {
            events::emit(Event::Replay(entry.clone()));
        }
        RESTORED.set(true);
        for waiter in RESTORE_WAITERS.take() {
            // A waiter whose task ended needs nothing.
            let _ = waiter.send(());
        }
        if WANTED.replace(false) || !replay.is_empty() {
            write();
        }
    });
}

/// Waits until the stored journal has been fed to the index host.
pub async fn restored() {
    while !RESTORED.get() {
        let (ready, wait) = oneshot::channel();
        RESTORE_WAITERS.with_borrow_mut(|waiters| waiters.push(ready));
        if wait.await.is_err() {
            log::note("a wait for the journal of removals ended without it; looking again");
        }
    }
}

/// Records a removal that is about to be fed to the index host, at `now_ms`, and writes the
/// journal.
pub fn record(removal: Removal, now_ms: i64) {
    JOURNAL.with_borrow_mut(|journal| journal.record(Entry { removal, now_ms }));
    write();
}

/// What a save of the snapshot returned by the host now holds; `verifying`: the host's
/// [`history_chat_core::index::host::Host::verifying`].
pub fn mark(verifying: bool) -> SaveMark {
    JOURNAL.with_borrow(|journal| journal.mark(verifying))
}

/// The save marked `mark` succeeded: drops the entries it holds.
pub fn saved(mark: SaveMark) {
    if JOURNAL.with_borrow_mut(|journal| journal.saved(mark)) {
        write();
    }
}

/// Writes the whole journal after the write running, if any (several changes meanwhile cost one).
fn write() {
    if !RESTORED.get() {
        WANTED.set(true);
        return;
    }
    match WRITING.get() {
        Writing::Idle => {
            WRITING.set(Writing::Running);
            spawn_local(write_until_done());
        }
        Writing::Running => WRITING.set(Writing::Again),
        Writing::Again => {}
    }
}

async fn write_until_done() {
    loop {
        let stored = JOURNAL.with_borrow(Journal::to_stored);
        if let Err(error) = storage::save_removals(stored).await {
            // The removal is applied in memory; the next change writes the whole journal again.
            log::failure("writing the journal of removals", &error);
        }
        if WRITING.get() == Writing::Again {
            WRITING.set(Writing::Running);
        } else {
            WRITING.set(Writing::Idle);
            return;
        }
    }
}
