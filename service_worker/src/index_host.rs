//! Glue between the browser and the index's state machine ([`history_chat_core::index::host`]):
//! feeds it what happens (the worker starting, history events, the answers to the reads it asked
//! for, its save timer) and carries out what it says (read the IndexedDB snapshot, read a slice of
//! `chrome.history`, set a timer, save, forget removed pages in the conversation). Every decision —
//! when to load, build, catch up, save, how to answer — is the core's; this module only moves data.
//!
//! A page's request that arrives while the snapshot is read waits for the load to end (a ready
//! signal, no polling); at any other time it is answered at once.

use std::cell::RefCell;

use futures_channel::oneshot;
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::{history, idb, now_ms, storage};
use history_chat_core::history::{HistoryItem, RemovedVisits};
use history_chat_core::index::host::{Action, Event, Host, Reply};
use history_chat_core::messages::{Request, Response};
use wasm_bindgen_futures::spawn_local;

/// IndexedDB key of the snapshot.
const SNAPSHOT_KEY: &str = "history-index";

thread_local! {
    static HOST: RefCell<Host> = RefCell::new(Host::new());
    /// Requests waiting for the snapshot load to end.
    static WAITERS: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
}

/// Starts loading the index if nobody did yet.
pub fn warm() {
    feed(Event::Need);
}

/// `chrome.history.onVisited`.
pub fn visited(item: HistoryItem) {
    feed(Event::Visited(item));
}

/// `chrome.history.onVisitRemoved`.
pub fn removed(removed: RemovedVisits) {
    feed(Event::Removed(removed));
}

/// Answers a page.
pub async fn answer(request: Request) -> Response {
    warm();
    loop {
        match HOST.with_borrow(|host| host.answer(&request, now_ms())) {
            Reply::Now(response) => return response,
            Reply::AfterLoad => {
                let (ready, wait) = oneshot::channel();
                WAITERS.with_borrow_mut(|waiters| waiters.push(ready));
                // A dropped sender (cannot happen while the worker lives) also ends the wait.
                let _ = wait.await;
            }
        }
    }
}

/// Hands `event` to the host, then carries out its actions (outside the host's borrow: an action
/// may feed the next event).
fn feed(event: Event) {
    let actions = HOST.with_borrow_mut(|host| host.handle(event));
    for action in actions {
        perform(action);
    }
}

fn perform(action: Action) {
    match action {
        Action::ReadSnapshot => spawn_local(async {
            // An unreadable store is no snapshot: the index is rebuilt.
            let bytes = idb::get(SNAPSHOT_KEY).await.ok().flatten();
            feed(Event::SnapshotRead {
                bytes,
                now_ms: now_ms(),
            });
        }),
        Action::ReadHistory(read) => spawn_local(async move {
            if read.after_ms > 0 {
                http::sleep(read.after_ms, &Cancel::new()).await;
            }
            let items = history::search_items("", read.start_ms, read.end_ms, 0)
                .await
                .ok();
            feed(Event::HistoryRead { id: read.id, items });
        }),
        Action::PersistAfter { ms } => spawn_local(async move {
            http::sleep(ms, &Cancel::new()).await;
            feed(Event::PersistDue);
        }),
        Action::Save { bytes } => spawn_local(async move {
            // A failed write only costs a rebuild at the next start.
            let _ = idb::put(SNAPSHOT_KEY, &bytes).await;
        }),
        Action::ForgetInConversation(removed) => spawn_local(async move {
            // A failure leaves old answers in place; the index and new answers are already right.
            let _ = storage::forget_in_conversation(&removed).await;
        }),
        Action::WakeWaiters => {
            for waiter in WAITERS.take() {
                let _ = waiter.send(());
            }
        }
    }
}
