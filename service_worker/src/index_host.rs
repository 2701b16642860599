//! The local search index, held by the service worker.
//!
//! Life cycle: the first need (a page's message, a history event, the worker starting) loads the
//! snapshot from IndexedDB — or, the very first time or after a format change, builds the index from
//! the whole history with one `chrome.history.search` — then catches up with visits newer than the
//! snapshot. Changes that arrive while it loads are queued and applied after. Every change schedules
//! a snapshot write, coalesced over [`PERSIST_DELAY_MS`], so a worker restart costs a load, not a
//! rebuild. Pages ask while it loads get [`Response::Indexing`] and use the browser's search.

use std::cell::RefCell;

use history_chat_bindings::history::ChromeHistory;
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::{idb, now_ms, storage};
use history_chat_core::clean::clean_url;
use history_chat_core::history::{HistoryItem, Page, RemovedVisits, clean_and_merge};
use history_chat_core::index::{Index, fuse_with_browser};
use history_chat_core::messages::{Request, Response};
use history_chat_core::search::{HistoryQuery, HistorySource, history_query_since};
use wasm_bindgen_futures::spawn_local;

/// IndexedDB key of the snapshot.
const SNAPSHOT_KEY: &str = "history-index";

/// Changes are written this long after the last one: a burst of visits (a page with redirects, a
/// session restore) costs one write, and the worker stays alive far longer than this after an event.
const PERSIST_DELAY_MS: u32 = 2_000;

/// On load from a snapshot, visits since this long before the snapshot's newest visit are asked
/// again, so a visit recorded while the snapshot was being written is not missed.
const CATCH_UP_MARGIN_MS: i64 = 5 * 60 * 1000;

/// A change to the history, from the browser's events.
#[derive(Debug)]
pub enum Change {
    /// `onVisited`.
    Visited(HistoryItem),
    /// `onVisitRemoved`.
    Removed(RemovedVisits),
}

#[derive(Default)]
enum State {
    /// Not loaded (the worker just started, or the last load failed).
    #[default]
    Cold,
    /// Loading or building; changes wait here.
    Loading(Vec<Change>),
    /// Ready to answer.
    Ready(Index),
}

#[derive(Default)]
struct Host {
    state: State,
    /// The load in progress builds from the whole history (seconds), rather than reading the
    /// snapshot (a fraction of a second): requests then get `Indexing` without waiting.
    building: bool,
    persist_scheduled: bool,
}

thread_local! {
    static HOST: RefCell<Host> = RefCell::new(Host::default());
}

/// Starts loading the index if nobody did yet.
pub fn warm() {
    let start = HOST.with_borrow_mut(|host| match host.state {
        State::Cold => {
            host.state = State::Loading(Vec::new());
            true
        }
        State::Loading(_) | State::Ready(_) => false,
    });
    if start {
        spawn_local(load());
    }
}

/// Applies a history change now, or after the load in progress. Pages deleted from history are
/// also taken out of the stored conversation's answers.
pub fn apply(change: Change) {
    warm();
    if let Change::Removed(removed) = &change {
        spawn_local(forget_in_conversation(removed.clone()));
    }
    let applied = HOST.with_borrow_mut(|host| match &mut host.state {
        State::Ready(index) => {
            change_index(index, change);
            true
        }
        State::Loading(queue) => {
            queue.push(change);
            false
        }
        State::Cold => false,
    });
    if applied {
        schedule_persist();
    }
}

/// Drops deleted pages from past answers: every result after "clear all history", else the results
/// whose cleaned URL is one of the removed ones (compared cleaned, as the conversation stores them).
async fn forget_in_conversation(removed: RemovedVisits) {
    let gone: Vec<String> = removed
        .urls
        .iter()
        .filter_map(|url| clean_url(url).ok().map(String::from))
        .collect();
    let all = removed.all_history;
    // A failure leaves old answers in place; the index and new answers are already right.
    let _ = storage::forget_in_conversation(|url| !all && !gone.iter().any(|g| g == url)).await;
}

fn change_index(index: &mut Index, change: Change) {
    match change {
        Change::Visited(item) => index.upsert(item),
        Change::Removed(RemovedVisits {
            all_history: true, ..
        }) => index.clear(),
        Change::Removed(RemovedVisits { urls, .. }) => index.remove_urls(&urls),
    }
}

/// A page's request waits at most this long for the snapshot being read (measured 0.2–0.5 s at
/// 50,000 pages on a loaded machine); a build from scratch is not waited for: it takes seconds,
/// and the page uses the browser's search meanwhile.
const LOAD_PATIENCE_MS: u32 = 550;
/// How often a waiting request looks again.
const LOAD_POLL_MS: u32 = 10;

/// Answers a page.
pub async fn answer(request: Request) -> Response {
    warm();
    let mut waited = 0;
    while waited < LOAD_PATIENCE_MS
        && HOST.with_borrow(|host| matches!(host.state, State::Loading(_)) && !host.building)
    {
        http::sleep(LOAD_POLL_MS, &Cancel::new()).await;
        waited += LOAD_POLL_MS;
    }
    let now = now_ms();
    match request {
        Request::Warm => with_index(|index| Response::Ready { pages: index.len() }),
        Request::Keyword {
            keyword,
            start_ms,
            limit,
        } => with_index(|index| Response::Pages {
            pages: index
                .search_keyword(&keyword, start_ms, now, limit)
                .into_iter()
                .map(|hit| hit.page)
                .collect(),
        }),
        Request::Search {
            query,
            start_ms,
            limit,
            literal,
        } => {
            // Asked first, so the browser's search runs while nothing holds the index.
            let browser = if literal {
                Some(literal_search(&query, start_ms).await)
            } else {
                None
            };
            with_index(|index| {
                let hits = index.search(&query, start_ms, now, limit);
                let pages = match &browser {
                    Some(Ok(browser)) => fuse_with_browser(&hits, browser)
                        .into_iter()
                        .take(limit)
                        .collect(),
                    _ => hits.into_iter().map(|hit| hit.page).collect(),
                };
                Response::Pages { pages }
            })
        }
    }
}

fn with_index(answer: impl FnOnce(&Index) -> Response) -> Response {
    HOST.with_borrow(|host| match &host.state {
        State::Ready(index) => answer(index),
        State::Cold | State::Loading(_) => Response::Indexing,
    })
}

/// The browser's own search for the same words, cleaned and merged, most recent first.
async fn literal_search(query: &str, start_ms: i64) -> Result<Vec<Page>, ()> {
    let request = history_query_since(query, start_ms);
    ChromeHistory
        .search(&request)
        .await
        .map(clean_and_merge)
        .map_err(drop)
}

async fn load() {
    let (mut index, from_snapshot) = match read_snapshot().await {
        Some(index) => (index, true),
        None => match build().await {
            Some(index) => (index, false),
            None => {
                // History could not be read: try again at the next need.
                HOST.with_borrow_mut(|host| {
                    host.state = State::Cold;
                    host.building = false;
                });
                return;
            }
        },
    };
    let caught_up = if from_snapshot {
        catch_up(&mut index).await
    } else {
        0
    };
    let queued = HOST.with_borrow_mut(|host| match std::mem::take(&mut host.state) {
        State::Loading(queue) => queue,
        State::Cold | State::Ready(_) => Vec::new(),
    });
    let changed = !from_snapshot || caught_up > 0 || !queued.is_empty();
    for change in queued {
        change_index(&mut index, change);
    }
    HOST.with_borrow_mut(|host| {
        host.state = State::Ready(index);
        host.building = false;
    });
    if changed {
        schedule_persist();
    }
}

async fn read_snapshot() -> Option<Index> {
    let bytes = idb::get(SNAPSHOT_KEY).await.ok()??;
    Index::from_bytes(&bytes).ok()
}

/// The whole history, in one call.
async fn build() -> Option<Index> {
    HOST.with_borrow_mut(|host| host.building = true);
    let everything = HistoryQuery {
        text: String::new(),
        start_time: 0.0,
        max_results: 0,
    };
    ChromeHistory
        .search(&everything)
        .await
        .ok()
        .map(Index::build)
}

/// Visits since the snapshot was written (events cannot have been missed while the worker was
/// stopped — they wake it — but one may land between a write and the worker stopping). Returns how
/// many visits were applied.
async fn catch_up(index: &mut Index) -> usize {
    let newest = index
        .recent(0, 1)
        .first()
        .map_or(0, |page| page.last_visit_ms);
    let since = HistoryQuery {
        text: String::new(),
        start_time: newest.saturating_sub(CATCH_UP_MARGIN_MS).max(0) as f64,
        max_results: 0,
    };
    let items = ChromeHistory.search(&since).await.unwrap_or_default();
    let count = items.len();
    for item in items {
        index.upsert(item);
    }
    count
}

fn schedule_persist() {
    let schedule =
        HOST.with_borrow_mut(|host| !std::mem::replace(&mut host.persist_scheduled, true));
    if schedule {
        spawn_local(async {
            http::sleep(PERSIST_DELAY_MS, &Cancel::new()).await;
            let bytes = HOST.with_borrow_mut(|host| {
                host.persist_scheduled = false;
                match &host.state {
                    State::Ready(index) => Some(index.to_bytes()),
                    State::Cold | State::Loading(_) => None,
                }
            });
            if let Some(bytes) = bytes {
                // A failed write only costs a rebuild at the next start.
                let _ = idb::put(SNAPSHOT_KEY, &bytes).await;
            }
        });
    }
}
