//! Glue between the browser and the index's state machine ([`history_chat_core::index::host`]):
//! feeds it what happens (the worker starting, history events, the answers to the reads it asked
//! for, its save timer) and carries out what it says (tell topic search what changed, read the
//! IndexedDB snapshot, read a slice of `chrome.history`, set a timer, save, forget removed pages
//! in the conversation). A page's own removal is the core's plan ([`removal::plan`]) carried
//! out here. Every decision — when to load, build, catch up, save, how to answer, what topic
//! search follows, what a removal deletes — is the core's; this module only moves data.
//!
//! A page's request that arrives while the snapshot is read waits for the load to end (a ready
//! signal, no polling); at any other time it is answered at once. The settings come from
//! [`crate::settings_host`] ([`settings_known`]): the snapshot is not read before the excluded sites
//! are known, requests wait for the first read of the settings, and while the excluded sites are
//! not known at all (the read failed and nothing is remembered) every request is refused with a
//! sentence saying why — the index fails closed, it never answers as if no site were excluded.
//!
//! The "Keep pages searchable after Chrome forgets them" option is given to the host with the
//! sites, before the snapshot is read, so a removal that woke the worker is judged with it; the
//! options page's switch and its "Forget kept pages" come as requests ([`set_keep_forgotten`],
//! [`forget_kept`]). Pages that leave the index for any reason leave topic search too.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use futures_channel::oneshot;
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::{history, idb, log, now_ms, storage};
use history_chat_core::exclusions::Exclusions;
use history_chat_core::failure::Failure;
use history_chat_core::history::{HistoryItem, Page, RemovedVisits};
use history_chat_core::index::host::{Action, Answer, Event, Followed, Host, Question, Reply};
use history_chat_core::index::journal::{Entry as JournalEntry, Removal as JournalRemoval};
use history_chat_core::messages::Response;
use history_chat_core::origin::{Origin, Origins};
use history_chat_core::period::Period;
use history_chat_core::removal::{self, Forgetting};
use history_chat_core::retrieval::SEMANTIC_POOL;
use history_chat_core::rows::Removal;
use history_chat_core::search::local_search;
use history_chat_core::semantic::Words;
use history_chat_core::semantic::host::Removal as VectorRemoval;
use history_chat_core::settings::KnownSettings;
use history_chat_core::site_filter::SiteFilter;
use wasm_bindgen_futures::spawn_local;

use crate::events::{self, Event as Told};
use crate::{removals, settings_host};

/// IndexedDB key of the snapshot.
const SNAPSHOT_KEY: &str = "history-index";

thread_local! {
    static HOST: RefCell<Host> = RefCell::new(Host::new());
    /// Requests waiting for the snapshot load to end.
    static WAITERS: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
    /// The excluded sites the index was given, once known (read, or remembered from the last read).
    static EXCLUSIONS: RefCell<Option<Exclusions>> = const { RefCell::new(None) };
    /// The snapshot's read, waiting for the excluded sites to be known.
    static EXCLUSION_WAITERS: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
    /// The browser refused the last save of the snapshot for lack of room.
    static SNAPSHOT_REFUSED: Cell<bool> = const { Cell::new(false) };
    /// The "keep pages after Chrome forgets them" option the index was given, once known.
    static KEEP_FORGOTTEN: Cell<Option<bool>> = const { Cell::new(None) };
}

/// What is known of the settings changed ([`crate::settings_host`]: read, remembered, or a
/// change): the "keep pages" option and the excluded sites go to the index when known (sites no
/// longer known keep the last ones, never none), and the first time the sites are known the index
/// starts loading.
pub fn settings_known(known: &KnownSettings) {
    if let Some(keep) = known.keep_forgotten()
        && KEEP_FORGOTTEN.replace(Some(keep)) != Some(keep)
    {
        feed(Event::KeepForgotten(keep));
    }
    let Some(exclusions) = known.exclusions() else {
        return;
    };
    let (first, changed) = EXCLUSIONS.with_borrow_mut(|held| {
        let first = held.is_none();
        let changed = held.as_ref() != Some(&exclusions);
        *held = Some(exclusions.clone());
        (first, changed)
    });
    if changed {
        feed(Event::Exclusions {
            exclusions,
            now_ms: now_ms(),
        });
    }
    for waiter in EXCLUSION_WAITERS.take() {
        // A waiter whose task ended needs nothing.
        let _ = waiter.send(());
    }
    if first {
        warm();
    }
}

/// Waits until the excluded sites are known (the snapshot is not read before: a loaded index is
/// filtered with them, and topic search follows it).
async fn exclusions_known() {
    while EXCLUSIONS.with_borrow(Option::is_none) {
        let (ready, wait) = oneshot::channel();
        EXCLUSION_WAITERS.with_borrow_mut(|waiters| waiters.push(ready));
        if wait.await.is_err() {
            log::note("a wait for the excluded sites ended without them; looking again");
        }
    }
}

/// The excluded sites, once known.
fn exclusions() -> Option<Exclusions> {
    EXCLUSIONS.with_borrow(Clone::clone)
}

/// Starts loading the index if nobody did yet.
pub fn warm() {
    feed(Event::Need);
}

/// `chrome.history.onVisited`.
pub fn visited(item: HistoryItem) {
    feed(Event::Visited(item));
}

/// `chrome.history.onVisited` with an item that could not be read: the recent history is read
/// again.
pub fn visit_unreadable() {
    feed(Event::VisitUnreadable { now_ms: now_ms() });
}

/// `chrome.history.onVisitRemoved`: Chrome forgetting old pages or the user deleting history (the
/// core tells which). Journaled first ([`crate::removals`]), so a restart before the snapshot is
/// saved replays it.
pub fn removed(removed: RemovedVisits) {
    let now_ms = now_ms();
    removals::record(JournalRemoval::Visits(removed.clone()), now_ms);
    feed(Event::VisitRemoved { removed, now_ms });
}

/// `chrome.history.onVisitRemoved` with an argument that could not be read: the index is verified
/// against the whole history (journaled too, so a restart before that is saved verifies again).
pub fn removal_unreadable() {
    let now_ms = now_ms();
    removals::record(JournalRemoval::Unreadable, now_ms);
    feed(Event::RemovalUnreadable { now_ms });
}

/// A removal of the journal read when the worker starts, fed as when it came (with its own time).
/// A page's own removal rewrites the stored conversation again (the worker may have stopped
/// before it did).
pub fn replay(entry: &JournalEntry) {
    let JournalRemoval::Pages(pages) = &entry.removal else {
        return feed(entry.event());
    };
    let removed = forget(Forgetting::pages(pages.clone()));
    spawn_local(async move {
        if let Err(error) = storage::forget_in_conversation(&removed).await {
            log::failure(
                "removing replayed removals from the stored conversation",
                &error,
            );
        }
    });
}

/// The options page's "Keep pages searchable after Chrome forgets them" (already saved): off
/// forgets every kept page. Answers how many are kept, once the index is loaded.
pub async fn set_keep_forgotten(enabled: bool) -> Response {
    KEEP_FORGOTTEN.set(Some(enabled));
    feed(Event::KeepForgotten(enabled));
    answer(Question::Kept).await
}

/// The options page's "Forget kept pages": waits for the index to be loaded, forgets every kept
/// page, and answers how many are left (none).
pub async fn forget_kept() -> Response {
    if let Err(refused) = ask(Question::Kept).await {
        return refused;
    }
    feed(Event::ForgetKept);
    answer(Question::Kept).await
}

/// [`Request::Remove`](history_chat_core::messages::Request::Remove): a result's "Remove from
/// history", carried out as the core's plan says ([`removal::plan`], from what this index knows
/// of the page's entries): the browser's history first, then the journal, then the indexes, a
/// running search and the stored conversation ([`forget`]). Run here rather than in the popup,
/// it ends even when the popup closes meanwhile. A deletion the browser refuses fails the whole
/// removal, with nothing else changed.
pub async fn remove(url: String) -> Response {
    let entries = ask(Question::Entries { url: url.clone() }).await.ok();
    let Some(plan) = removal::plan(&url, entries) else {
        // No web page: none was shown, and the history holds none to delete.
        return Response::Removed {
            removal: Removal::AlreadyGone,
            conversation_error: None,
        };
    };
    let removal = match history::delete_page(&plan.history).await {
        Ok(removal) => removal,
        Err(error) => {
            return Response::Failed {
                failure: Failure::Browser(error.failure()),
            };
        }
    };
    removals::record(plan.journal, now_ms());
    let removed = forget(plan.forget);
    let conversation_error = storage::forget_in_conversation(&removed)
        .await
        .err()
        .map(|error| error.failure());
    Response::Removed {
        removal,
        conversation_error,
    }
}

/// [`Request::BrowserSearch`](history_chat_core::messages::Request::BrowserSearch): the browser's own search of its history, for a page whose index
/// answer does not reach back far enough. Needs no index, so it never waits for the snapshot.
pub async fn browser_search(question: &str, period: Period, now_ms: i64) -> Response {
    settings_host::known().await;
    let Some(excluded) = exclusions() else {
        return settings_host::unknown_exclusions();
    };
    let source = history::ChromeHistory::excluding(excluded);
    match local_search(&source, question, period, now_ms).await {
        Ok(pages) => Response::Pages {
            pages,
            indexing: None,
            places: false,
        },
        Err(error) => Response::Failed {
            failure: Failure::Browser(error.failure()),
        },
    }
}

/// Carries out what the core decided removed pages leave behind ([`Forgetting`], once
/// journaled): the lexical index drops the whole pages now (or as soon as its snapshot is loaded,
/// before any request is answered) and saves the change like any other; topic search deletes
/// their vectors at once, whatever either index's phase; a running AI search leaves them out.
/// Gives what the stored conversation must forget.
fn forget(forgetting: Forgetting) -> RemovedVisits {
    let Forgetting {
        index,
        vectors,
        conversation,
    } = forgetting;
    feed(index);
    events::emit(Told::VisitsRemoved(conversation.clone()));
    events::emit(Told::PagesRemoved(vectors));
    conversation
}

/// Answers a page's question about the index, as the pages read it.
pub async fn answer(question: Question) -> Response {
    match ask(question).await {
        Ok(Answer::Ready { pages }) => Response::Ready {
            pages,
            storage_full: SNAPSHOT_REFUSED.get(),
        },
        Ok(answer) => answer.into(),
        Err(refused) => refused,
    }
}

/// The index's answer to `question`, once the settings are known and the snapshot read; `Err`
/// with what to tell the page when it may not answer (the excluded sites are not known).
pub async fn ask(question: Question) -> Result<Answer, Response> {
    settings_host::known().await;
    if exclusions().is_none() {
        // Its answers would have to leave the excluded sites out, and they are not known.
        return Err(settings_host::unknown_exclusions());
    }
    warm();
    loop {
        match HOST.with_borrow(|host| host.answer(&question, now_ms())) {
            Reply::Now(answer) => return Ok(answer),
            Reply::AfterLoad => {
                let (ready, wait) = oneshot::channel();
                WAITERS.with_borrow_mut(|waiters| waiters.push(ready));
                // A dropped sender (cannot happen while the worker lives) also ends the wait.
                if wait.await.is_err() {
                    log::note("a wait for the index's load ended early; asking again");
                }
            }
        }
    }
}

/// Returns once the index has been read at this worker's start (its snapshot loaded, or its build
/// begun), asking for it if nothing has: topic search's and the pages' content's stores wait for it
/// before reading theirs, so that a page's first question after the worker starts is not answered
/// after tens of thousands of stored vectors have been decoded on this thread.
pub async fn loaded() {
    warm();
    while HOST.with_borrow(|host| host.index().is_none()) {
        let (ready, wait) = oneshot::channel();
        WAITERS.with_borrow_mut(|waiters| waiters.push(ready));
        if wait.await.is_err() {
            log::note("a wait for the index's load ended early; looking again");
        }
    }
}

/// The lexical index's pages for these cleaned URLs, in order; those it does not hold are left out.
pub fn pages_of(urls: impl IntoIterator<Item = String>) -> Vec<Page> {
    HOST.with_borrow(|host| match host.index() {
        Some(index) => urls
            .into_iter()
            .filter_map(|url| index.page(&url))
            .collect(),
        None => Vec::new(),
    })
}

/// Those of `urls` (cleaned) whose page the lexical index does not hold, in order: pages outside
/// the history (all of them while the index is not loaded).
pub fn outside_history(urls: impl IntoIterator<Item = String>) -> Vec<String> {
    HOST.with_borrow(|host| match host.index() {
        Some(index) => urls.into_iter().filter(|url| !index.holds(url)).collect(),
        None => urls.into_iter().collect(),
    })
}

/// The pages found by meaning or by what they said at `urls`, in that order, as a search shows
/// them: the history's page when the index holds it and it was visited since `start_ms`, else the
/// bookmark's or open tab's (`places` gives the pages of those of its addresses bookmarked or open
/// now, whatever their age, as the origins it is given allow); each as the question's source terms
/// (`origins`) allow. Others are left out.
pub fn history_or_places(
    urls: &[String],
    start_ms: i64,
    origins: Origins,
    places: impl FnOnce(&[String], Origins) -> Vec<Page>,
) -> Vec<Page> {
    let mut shown: HashMap<String, Page> = HashMap::new();
    if origins.allows(Origin::History) {
        let recent = pages_of(urls.iter().cloned())
            .into_iter()
            .filter(|page| page.last_visit_ms >= start_ms);
        shown.extend(recent.map(|page| (page.url.clone(), page)));
    }
    if origins.allows(Origin::Bookmark) || origins.allows(Origin::Tab) {
        let others: Vec<String> = urls
            .iter()
            .filter(|url| !shown.contains_key(*url))
            .cloned()
            .collect();
        if !others.is_empty() {
            shown.extend(
                places(&others, origins)
                    .into_iter()
                    .map(|p| (p.url.clone(), p)),
            );
        }
    }
    urls.iter().filter_map(|url| shown.remove(url)).collect()
}

/// Whether a page `sites` allows, visited since `start_ms`, matches every word of `query` among
/// the lexical index's best [`SEMANTIC_POOL`]: then topic search only adds pages that stand out
/// further ([`Words`]). `Missed` while the index is not loaded.
pub fn words(query: &str, sites: &SiteFilter, start_ms: i64) -> Words {
    let found = HOST.with_borrow(|host| {
        host.index().is_some_and(|index| {
            index.finds_every_word_in(query, sites, start_ms, now_ms(), SEMANTIC_POOL)
        })
    });
    if found { Words::Found } else { Words::Missed }
}

/// How many pages the lexical index holds (0 while it is not loaded).
pub fn page_count() -> usize {
    HOST.with_borrow(|host| host.index().map_or(0, |index| index.len()))
}

/// Every page of the lexical index, newest first.
pub fn all_pages() -> Vec<Page> {
    HOST.with_borrow(|host| {
        host.index()
            .map(|index| index.recent(i64::MIN, usize::MAX))
            .unwrap_or_default()
    })
}

/// Hands `event` to the host, then carries out its actions (outside the host's borrow: an action
/// may feed the next event), the first of which tells topic search what changed.
fn feed(event: Event) {
    let actions = HOST.with_borrow_mut(|host| host.handle(event));
    for action in actions {
        perform(action);
    }
}

/// Passes on to topic search what the lexical index says changed in its pages.
fn follow(followed: Followed) {
    let gone = match followed {
        Followed::Cleared => return events::emit(Told::PagesRemoved(VectorRemoval::All)),
        Followed::Listed { pages, gone } => {
            events::emit(Told::PagesIndexed(pages));
            gone
        }
        Followed::Complete => return events::emit(Told::PagesListed),
        Followed::Changed { indexed, gone } => {
            if !indexed.is_empty() {
                events::emit(Told::PagesIndexed(indexed));
            }
            gone
        }
    };
    if !gone.is_empty() {
        events::emit(Told::PagesRemoved(VectorRemoval::Urls(gone)));
    }
}

fn perform(action: Action) {
    match action {
        Action::Follow(followed) => follow(followed),
        Action::ReadSnapshot => spawn_local(async {
            // The excluded sites and the "keep" option (when known) are the host's before it loads.
            exclusions_known().await;
            // An unreadable store is no snapshot: the index is rebuilt (and the failure logged).
            let bytes = idb::get(SNAPSHOT_KEY).await.unwrap_or_else(|error| {
                log::failure("reading the index snapshot (the index is rebuilt)", &error);
                None
            });
            // The journal's removals are queued first, so they are applied to the loaded snapshot.
            removals::restored().await;
            feed(Event::SnapshotRead {
                bytes,
                now_ms: now_ms(),
            });
        }),
        Action::ReadHistory(read) => spawn_local(async move {
            if read.after_ms > 0 {
                http::sleep(read.after_ms, &Cancel::new()).await;
            }
            // A failed read is the host's to retry (`READ_ATTEMPTS`); logged here.
            let items = history::search_items("", read.start_ms, read.end_ms, 0)
                .await
                .map_err(|error| log::failure("reading a slice of the history", &error))
                .ok();
            feed(Event::HistoryRead { id: read.id, items });
        }),
        Action::PersistAfter { ms } => spawn_local(async move {
            http::sleep(ms, &Cancel::new()).await;
            feed(Event::PersistDue);
        }),
        Action::Save { bytes } => {
            // The bytes hold every removal fed so far (the host's verify aside, when one is due).
            let mark = removals::mark(HOST.with_borrow(Host::verifying));
            spawn_local(async move {
                match idb::put(SNAPSHOT_KEY, &bytes).await {
                    Ok(()) => {
                        SNAPSHOT_REFUSED.set(false);
                        removals::saved(mark);
                    }
                    // The next start loads an older snapshot (or builds) and the journal, kept,
                    // replays the removals it lacks; a refusal for room is said in the popup.
                    Err(error) => {
                        SNAPSHOT_REFUSED.set(error.is_quota());
                        log::failure("saving the index snapshot", &error);
                    }
                }
            });
        }
        Action::ForgetInConversation(removed) => {
            // The search running now writes its answer later: it must leave them out too.
            events::emit(Told::VisitsRemoved(removed.clone()));
            spawn_local(async move {
                // A failure leaves old answers in place; the index and new answers are already right.
                if let Err(error) = storage::forget_in_conversation(&removed).await {
                    log::failure(
                        "removing deleted pages from the stored conversation",
                        &error,
                    );
                }
            });
        }
        Action::WakeWaiters => {
            for waiter in WAITERS.take() {
                // A waiter whose request ended needs nothing.
                let _ = waiter.send(());
            }
        }
    }
}
