//! The bookmarks and open tabs, glue around the core's `places::host::Places`: each read whole
//! when its permission is granted (at the worker's start, or when the options page's switch
//! grants it), then kept current by the browser's events; emptied when the permission is taken
//! back. Nothing of it is stored: a worker reads them again when it starts.
//!
//! The events are followed only once the permission is known to be granted (listeners added
//! then, not at the script's top level): a bookmark or tab changed while the worker sleeps does
//! not wake it, and the next worker reads everything again. At a worker's start the sources are
//! read when first needed — the first search, once answered without them — and after the
//! index's load, so that the first answer after a restart is not held up by them; a switch
//! turned on reads its source at once. The searchable
//! shelves are made right after a read and shortly after a burst of events, so that a keystroke
//! seldom pays for it. A search asked apart ([`search`]) waits for the first read of each source
//! that is on, and for the excluded sites, so that it never shows a page of an excluded site nor
//! misses what the browser has; one fused into the index's answer ([`fuse_into`]) never waits.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use futures_channel::oneshot;
use history_chat_bindings::bookmarks::{self, BookmarkEvent};
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::tabs::{self, TabEvent};
use history_chat_bindings::{log, permissions, storage};
use history_chat_core::history::Page;
use history_chat_core::messages::Response;
use history_chat_core::origin::{Origin, Origins};
use history_chat_core::places::host::Places;
use history_chat_core::retrieval::fusion;
use history_chat_core::semantic::Words;
use history_chat_core::settings::KnownSettings;
use wasm_bindgen_futures::spawn_local;

use crate::events::{self, Event};
use crate::{index_host, settings_host};

/// Where a source's read stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Reading {
    /// No read running.
    Idle,
    /// A read runs.
    Running,
    /// A read runs and an event came meanwhile: read again when it ends (the answer may be
    /// older than the event).
    Again,
}

thread_local! {
    static PLACES: RefCell<Places> = RefCell::new(Places::new());
    static EXCLUSIONS_KNOWN: Cell<bool> = const { Cell::new(false) };
    static BOOKMARKS_READ: Cell<Reading> = const { Cell::new(Reading::Idle) };
    static TABS_READ: Cell<Reading> = const { Cell::new(Reading::Idle) };
    static FOLLOWING_BOOKMARKS: Cell<bool> = const { Cell::new(false) };
    static FOLLOWING_TABS: Cell<bool> = const { Cell::new(false) };
    /// Granted, and not read yet: read when first needed ([`ensure_reads`]).
    static BOOKMARKS_WANTED: Cell<bool> = const { Cell::new(false) };
    static TABS_WANTED: Cell<bool> = const { Cell::new(false) };
    /// Whether the permissions were checked once since the worker started.
    static CHECKED: Cell<bool> = const { Cell::new(false) };
    /// Whether a remaking of the shelves is planned ([`refresh_soon`]).
    static REFRESH_PLANNED: Cell<bool> = const { Cell::new(false) };
    /// Searches waiting for the permissions' check and the reads it started.
    static WAITERS: RefCell<Vec<oneshot::Sender<()>>> = const { RefCell::new(Vec::new()) };
    /// Pages bookmarked or retitled since the shelves were last made: told with their bookmark's
    /// page once they are ([`refresh_soon`]), so that an import is one making, not thousands.
    static TITLED: RefCell<Vec<String>> = const { RefCell::new(Vec::new()) };
    /// A tab event came since the shelves were last made: the open tabs' pages are told once
    /// they are ([`refresh_soon`]).
    static TABS_CHANGED: Cell<bool> = const { Cell::new(false) };
}

/// The worker started: checks which sources are on. They are read when first needed (a search
/// after the worker's first answer, [`ensure_reads`]), so that the first answer after a restart
/// never waits behind thousands of bookmarks.
pub fn start() {
    spawn_local(async {
        check_permissions(false).await;
    });
}

/// `chrome.permissions.onAdded` / `onRemoved`: a switch went on or off (a source turned on is read
/// at once). A source whose permission
/// is not held leaves the stored conversation too (its marks, and the rows found only there), so
/// that nothing of it stays stored.
pub fn permissions_changed() {
    spawn_local(async {
        for (origin, granted) in check_permissions(true).await {
            if granted != Some(false) {
                continue;
            }
            if let Err(error) = storage::forget_origin_in_conversation(origin).await {
                // The rows stay in the old answers; nothing new is kept of the source.
                log::failure(
                    "removing bookmarks or tabs from the stored conversation",
                    &error,
                );
            }
        }
    });
}

/// The settings are known: the excluded sites leave both sources.
pub fn settings_known(known: &KnownSettings) {
    if let Some(exclusions) = known.exclusions() {
        PLACES.with_borrow_mut(|places| places.set_exclusions(exclusions.clone()));
        EXCLUSIONS_KNOWN.set(true);
        refresh_soon();
    }
}

/// The bookmarks and open tabs matching `query`, best first, at most `limit`
/// ([`Places::search`]): once the excluded sites are known and the first reads are done. While
/// the excluded sites cannot be known (the settings unreadable), it refuses, as the index does.
pub async fn search(query: &str, limit: usize) -> Response {
    if !ready().await {
        return settings_host::unknown_exclusions();
    }
    let pages = PLACES.with_borrow_mut(|places| places.search(query, limit));
    Response::Pages {
        pages,
        indexing: None,
        places: false,
    }
}

/// Returns once the excluded sites are known and the first reads of the sources that are on are
/// done; `false` when the excluded sites cannot be known (the settings unreadable).
async fn ready() -> bool {
    if !EXCLUSIONS_KNOWN.get() {
        settings_known(&settings_host::known().await);
        if !EXCLUSIONS_KNOWN.get() {
            return false;
        }
    }
    ensure_reads();
    while !settled() {
        let (ready, wait) = oneshot::channel();
        WAITERS.with_borrow_mut(|waiters| waiters.push(ready));
        if wait.await.is_err() {
            log::note("a wait for the bookmarks and tabs ended without them; looking again");
        }
    }
    true
}

/// Every bookmarked web page not of an excluded site, with when it was bookmarked, once the
/// bookmarks are read: for reading their pages. `None` while the bookmarks are off, or the
/// excluded sites cannot be known.
pub async fn bookmarks_to_read() -> Option<Vec<(String, i64)>> {
    if !ready().await {
        return None;
    }
    PLACES.with_borrow(Places::bookmarked)
}

/// Whether the page at `url` (cleaned) is bookmarked now, as far as the worker knows.
pub fn is_bookmarked(url: &str) -> bool {
    PLACES.with_borrow(|places| places.is_bookmarked(url))
}

/// The bookmarks' pages for those of `urls` that are bookmarked, with what is held now (no
/// wait).
pub fn bookmark_pages(urls: &[String]) -> Vec<Page> {
    PLACES.with_borrow_mut(|places| places.bookmark_pages(urls))
}

/// The pages of those of `urls` bookmarked or open now, as `origins` allows, with what is held
/// now (no wait): what topic search and the pages' content found outside the history.
pub fn place_pages(urls: &[String], origins: Origins) -> Vec<Page> {
    PLACES.with_borrow_mut(|places| places.place_pages(urls, origins))
}

/// The index's answer to a search with the bookmarks and open tabs matching `query` fused in
/// (RRF, the index's list first; cut to `limit`), when they are ready — the excluded sites known,
/// the first reads done — so that typing shows every source in one answer, one message. Not
/// ready, or not an answer with pages: the answer as it was, which says so (`places: false`),
/// and the asker asks them apart ([`search`]).
pub fn fuse_into(query: &str, limit: usize, response: Response) -> Response {
    let Response::Pages {
        pages, indexing, ..
    } = response
    else {
        return response;
    };
    if !EXCLUSIONS_KNOWN.get() || !settled() {
        // This answer goes without them; the next ones will have them.
        ensure_reads();
        return Response::Pages {
            pages,
            indexing,
            places: false,
        };
    }
    let found = PLACES.with_borrow_mut(|places| places.search(query, limit));
    let mut pages = match found.is_empty() {
        true => pages,
        false => fusion::fuse(&pages, &found),
    };
    pages.truncate(limit);
    Response::Pages {
        pages,
        indexing,
        places: true,
    }
}

/// A topic or content answer whose words found no page of the history says they did when a
/// bookmark or open tab held now matches every word of `query` (its source and `site:` terms
/// read): that page is in the words' answer, which then leads, as a page of the history matching
/// every word would (`Placement::of_topics`). No wait: what is held now.
pub fn words_found(query: &str, response: &mut Response) {
    if let Response::Understood { words, .. } | Response::ContentFound { words, .. } = response
        && *words == Words::Missed
        && EXCLUSIONS_KNOWN.get()
        && settled()
        && PLACES.with_borrow_mut(|places| !places.search(query, 1).is_empty())
    {
        *words = Words::Found;
    }
}

/// Marks the pages of an answer to a page (the index's, topic search's, the content's, the
/// browser's) that are bookmarked or open in a tab, with what is held now (no wait): a row says so
/// whichever source found it.
pub fn mark(response: &mut Response) {
    if let Response::Pages { pages, .. }
    | Response::Understood { pages, .. }
    | Response::ContentFound { pages, .. } = response
    {
        mark_pages(pages);
    }
}

/// [`mark`] for a list of pages.
pub fn mark_pages(pages: &mut [Page]) {
    PLACES.with_borrow_mut(|places| places.mark(pages));
}

/// Starts the reads of the sources granted and not read yet.
fn ensure_reads() {
    for (origin, wanted) in [
        (Origin::Bookmark, &BOOKMARKS_WANTED),
        (Origin::Tab, &TABS_WANTED),
    ] {
        if wanted.replace(false) {
            start_read(origin);
        }
    }
}

/// Whether the permissions were checked, every source granted read, and none still waiting for
/// its first answer from the browser (one whose answer is in counts as read: a search makes what
/// is left of its shelf).
fn settled() -> bool {
    let first_read = |reading: Reading, holds: bool| reading != Reading::Idle && !holds;
    CHECKED.get()
        && !BOOKMARKS_WANTED.get()
        && !TABS_WANTED.get()
        && !PLACES.with_borrow(|places| {
            first_read(BOOKMARKS_READ.get(), places.holds(Origin::Bookmark))
                || first_read(TABS_READ.get(), places.holds(Origin::Tab))
        })
}

fn wake_waiters() {
    if settled() {
        for waiter in WAITERS.take() {
            // A search that stopped waiting (its popup closed) is no concern.
            let _ = waiter.send(());
        }
    }
}

/// Reads each source whose permission is granted (at once with `read_now`, or else when first
/// needed), empties each whose permission is not; says which are granted (`None`: the browser
/// could not say, and nothing is dropped for it).
async fn check_permissions(read_now: bool) -> [(Origin, Option<bool>); 2] {
    let mut held = [(Origin::Bookmark, None), (Origin::Tab, None)];
    let sources = [
        (Origin::Bookmark, permissions::BOOKMARKS_PERMISSION),
        (Origin::Tab, permissions::TABS_PERMISSION),
    ];
    for (at, (origin, permission)) in sources.into_iter().enumerate() {
        let granted = match permissions::has_api(permission).await {
            Ok(granted) => granted,
            Err(error) => {
                // Searched as not granted (the source stays empty until the next change), but
                // not forgotten from the conversation: the browser did not say it was taken back.
                log::failure("checking a permission of bookmarks or tabs", &error);
                match origin {
                    Origin::Tab => TABS_WANTED.set(false),
                    _ => BOOKMARKS_WANTED.set(false),
                }
                PLACES.with_borrow_mut(|places| places.clear(origin));
                continue;
            }
        };
        held[at] = (origin, Some(granted));
        let wanted = match origin {
            Origin::Tab => &TABS_WANTED,
            _ => &BOOKMARKS_WANTED,
        };
        if granted {
            follow(origin);
            if !PLACES.with_borrow(|places| places.holds(origin)) {
                match read_now {
                    true => start_read(origin),
                    false => wanted.set(true),
                }
            }
        } else {
            wanted.set(false);
            PLACES.with_borrow_mut(|places| places.clear(origin));
            match origin {
                Origin::Bookmark => events::emit(Event::BookmarksKnown(HashSet::new())),
                _ => events::emit(Event::TabsKnown(Vec::new())),
            }
        }
    }
    CHECKED.set(true);
    wake_waiters();
    held
}

/// Adds the source's listeners, once per worker (the browser holds them until it stops the
/// worker).
fn follow(origin: Origin) {
    let following = match origin {
        Origin::History => return,
        Origin::Bookmark => &FOLLOWING_BOOKMARKS,
        Origin::Tab => &FOLLOWING_TABS,
    };
    if following.get() {
        return;
    }
    let added = match origin {
        Origin::Tab => tabs::follow(tab_event),
        _ => bookmarks::follow(bookmark_event),
    };
    match added {
        Ok(()) => following.set(true),
        // The next check tries again; meanwhile a read at each check keeps the source whole.
        Err(error) => log::failure("following the bookmarks or open tabs", &error),
    }
}

/// The reads' state of `origin`.
fn reading(origin: Origin) -> &'static std::thread::LocalKey<Cell<Reading>> {
    match origin {
        Origin::Tab => &TABS_READ,
        _ => &BOOKMARKS_READ,
    }
}

/// Reads `origin` whole, unless a read runs (which then reads again once done).
fn start_read(origin: Origin) {
    let state = reading(origin);
    match state.get() {
        Reading::Idle => {
            state.set(Reading::Running);
            spawn_local(read(origin));
        }
        Reading::Running | Reading::Again => state.set(Reading::Again),
    }
}

async fn read(origin: Origin) {
    let state = reading(origin);
    // After the index's load: a first answer after the worker starts is not held up by reading
    // thousands of bookmarks on this thread.
    index_host::loaded().await;
    loop {
        let read = match origin {
            Origin::Tab => tabs::query_all()
                .await
                .map(|tabs| PLACES.with_borrow_mut(|places| places.load_tabs(&tabs))),
            _ => bookmarks::get_tree()
                .await
                .map(|tree| PLACES.with_borrow_mut(|places| places.load_bookmarks(&tree))),
        };
        if let Err(error) = read {
            // The permission was taken back meanwhile, or the browser refused: the source stays
            // as it was (empty at first); the next change reads it again.
            log::failure("reading the bookmarks or open tabs", &error);
        }
        // A search waiting for this first read goes on now: it makes what is left of the
        // shelves at once (`Places::search`), rather than after every slice below.
        wake_waiters();
        // The shelves made now, not at the first keystroke, a slice at a time: a question
        // asked meanwhile is answered between two slices.
        while !PLACES.with_borrow_mut(|places| places.refresh_some(BUILD_SLICE)) {
            http::sleep(0, &Cancel::new()).await;
        }
        if state.get() == Reading::Again {
            state.set(Reading::Running);
            continue;
        }
        state.set(Reading::Idle);
        break;
    }
    if origin == Origin::Bookmark
        && let Some(held) = PLACES.with_borrow(Places::bookmarked)
    {
        events::emit(Event::BookmarksKnown(
            held.into_iter().map(|(url, _)| url).collect(),
        ));
    }
    if origin == Origin::Tab
        && let Some(open) = PLACES.with_borrow_mut(Places::tab_pages)
    {
        events::emit(Event::TabsKnown(open));
    }
    wake_waiters();
}

/// Bookmarks whose words are folded in one slice after a read: about 20 ms of the worker's thread
/// (5,000 take 137 ms natively, two to three times that in WebAssembly), so that a keystroke
/// waits at most that long behind a first read.
const BUILD_SLICE: usize = 250;

/// After an event, the shelves are made again this long after it (once for a burst: an import
/// is thousands of `onCreated`), so that the next keystroke finds them made.
const REFRESH_AFTER_MS: u32 = 100;

/// Makes the shelves again [`REFRESH_AFTER_MS`] from now, unless that is planned already.
fn refresh_soon() {
    if REFRESH_PLANNED.replace(true) {
        return;
    }
    spawn_local(async {
        http::sleep(REFRESH_AFTER_MS, &Cancel::new()).await;
        REFRESH_PLANNED.set(false);
        let titled = TITLED.take();
        let tabs_changed = TABS_CHANGED.take();
        let (pages, open) = PLACES.with_borrow_mut(|places| {
            places.refresh();
            let open = tabs_changed.then(|| places.tab_pages()).flatten();
            (places.bookmark_pages(&titled), open)
        });
        if !pages.is_empty() {
            events::emit(Event::BookmarksTitled(pages));
        }
        if let Some(open) = open {
            events::emit(Event::TabsKnown(open));
        }
    });
}

/// A bookmark event: applied, or (unreadable, or a read running) the tree read again.
fn bookmark_event(event: BookmarkEvent) {
    if BOOKMARKS_READ.get() != Reading::Idle || event == BookmarkEvent::Unreadable {
        start_read(Origin::Bookmark);
        return;
    }
    // What the others are told, once the places are no longer borrowed: the pages it brought,
    // and those no longer bookmarked.
    let none = Vec::new;
    let (came, retitled, left) = PLACES.with_borrow_mut(|places| match &event {
        BookmarkEvent::Created(node) => (places.bookmark_created(node), none(), none()),
        BookmarkEvent::Removed { id } => (none(), none(), places.bookmark_removed(id)),
        BookmarkEvent::Changed { id, change } => {
            let left = places.bookmark_changed(id, change);
            // A new address is a page added: read as one is.
            let came: Vec<String> = change
                .url
                .as_ref()
                .and(places.bookmark_url(id))
                .into_iter()
                .collect();
            let retitled = match (&change.title, came.is_empty()) {
                (Some(_), true) => places.bookmark_url(id).into_iter().collect(),
                _ => none(),
            };
            (came, retitled, left)
        }
        BookmarkEvent::Moved { id, parent_id } => {
            places.bookmark_moved(id, parent_id);
            (none(), none(), none())
        }
        BookmarkEvent::Unreadable => (none(), none(), none()),
    });
    TITLED.with_borrow_mut(|titled| titled.extend(came.iter().chain(&retitled).cloned()));
    refresh_soon();
    if !came.is_empty() {
        events::emit(Event::Bookmarked(came));
    }
    if !left.is_empty() {
        events::emit(Event::Unbookmarked(left));
    }
}

/// A tab event: applied, or (unreadable, or a read running) the tabs read again.
fn tab_event(event: TabEvent) {
    if TABS_READ.get() != Reading::Idle || event == TabEvent::Unreadable {
        start_read(Origin::Tab);
        return;
    }
    PLACES.with_borrow_mut(|places| match &event {
        TabEvent::Updated(tab) => places.tab_updated(tab),
        TabEvent::Removed { id } => places.tab_removed(*id),
        TabEvent::Unreadable => {}
    });
    TABS_CHANGED.set(true);
    refresh_soon();
}
