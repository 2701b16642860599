//! Glue between the browser and the semantic index's state machine
//! ([`history_chat_core::semantic::host`]): feeds it what happens (the worker starting, the lexical
//! index's changes, the model's and IndexedDB's answers, its retry timer) and carries out what it
//! says (read the stored vectors, have the offscreen document's model embed a batch, store, delete,
//! close the model). Every decision is the core's; this module only moves data.
//!
//! The model runs in an offscreen document's dedicated worker ([`embedder`]), never on this
//! worker's thread, so the pages' requests are answered while pages are being understood.
//!
//! **Bookmarks and open tabs** (their switches on): a bookmarked or open page is found whatever
//! the period (the host's ageless pages), and one outside the history is understood by its
//! bookmark's or tab's title, its vector kept while it is bookmarked or open ([`bookmarks_known`],
//! [`bookmarked`], [`unbookmarked`], [`tabs_known`]); once the history and the store are known
//! whole, every page held that is neither in the history nor bookmarked nor open goes (both
//! switches off: every page outside the history). The dispatcher hands the places' pages in:
//! this host never asks them.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;

use history_chat_bindings::embedder::{self, TextKind};
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::idb::{self, Records};
use history_chat_bindings::log;
use history_chat_core::history::Page;
use history_chat_core::messages::{QUERY_PATIENCE_MS, Response};
use history_chat_core::origin::Origins;
use history_chat_core::semantic::host::{
    Action, EMBEDDER_IDLE_MS, Event, PAGES_PER_EVENT, Removal, STORE_CHUNK_RECORDS, SemanticHost,
};
use history_chat_core::semantic::{PASSAGE_MAX_CHARS, is_understandable};
use history_chat_core::settings::KnownSettings;
use history_chat_core::site_filter;

use wasm_bindgen_futures::spawn_local;

use crate::index_host;
use crate::record_store::{self, Saved};

thread_local! {
    static HOST: RefCell<SemanticHost> = RefCell::new(SemanticHost::new());

    static STARTED: Cell<bool> = const { Cell::new(false) };
    /// The last question embedded, and its vector ([`question_vector`]).
    static LAST_QUESTION: RefCell<Option<(String, Vec<f32>)>> = const { RefCell::new(None) };
    /// The lexical index holds the whole history ([`listed`]).
    static LISTED: Cell<bool> = const { Cell::new(false) };
    /// The bookmarked pages as last known, by URL (their bookmark's title, when added).
    static BOOKMARKS: RefCell<HashMap<String, Page>> = RefCell::new(HashMap::new());
    /// The open tabs' pages as last known, by URL (their tab's title, when last used).
    static TABS: RefCell<HashMap<String, Page>> = RefCell::new(HashMap::new());
    /// The bookmarks were told whole ([`bookmarks_known`]) since the last sweep of the pages
    /// outside the history.
    static SWEEP: Cell<bool> = const { Cell::new(false) };
    /// The open tabs were told whole once ([`tabs_known`]): before, the sweep would delete the
    /// vectors of pages known only as open tabs, to make them again.
    static TABS_TOLD: Cell<bool> = const { Cell::new(false) };
}

/// What is known of the settings changed ([`crate::settings_host`]): the excluded sites go to the
/// semantic index (their pages' vectors go), and once both they and the switch are known, it
/// starts, once per worker life (then the options page's switch comes as a request). While they
/// are not known it does not start: no page is loaded or embedded before the index knows which
/// sites to leave out.
pub fn settings_known(known: &KnownSettings) {
    let Some(exclusions) = known.exclusions() else {
        return;
    };
    // Before the start: no page of an excluded site is loaded or embedded.
    feed(Event::Exclusions(exclusions));
    if let Some(switch) = known.semantic_search()
        && !STARTED.replace(true)
    {
        feed(Event::Start {
            enabled: switch.is_on(),
        });
    }
}

/// The user is typing or asking (`true`), or has stopped for a while (`false`): no new batch of
/// pages starts meanwhile (the pause is timed by `lib.rs`'s `user_active`).
pub fn user_active(active: bool) {
    feed(if active {
        Event::UserActive
    } else {
        Event::UserIdle
    });
}

/// The computer runs on a low battery (`true`), or no longer does: no batch of pages starts
/// meanwhile.
pub fn battery_low(low: bool) {
    feed(Event::BatteryLow(low));
}

/// The lexical index gained or updated these pages.
pub fn pages(mut pages: Vec<Page>) {
    while !pages.is_empty() {
        let rest = pages.split_off(pages.len().min(PAGES_PER_EVENT));
        feed(Event::Pages(pages));
        pages = rest;
    }
}

/// The lexical index has handed every page it holds (then only changes follow).
pub fn listed() {
    feed(Event::Listed);
    LISTED.set(true);
    offer_places(None);
    sweep();
}

/// The lexical index lost pages: their vectors go, but those of bookmarked or open pages (found
/// now as such, whatever their age). Everything removed: the bookmarks' and tabs' pages are
/// understood again.
pub fn removed(removal: Removal) {
    match removal {
        Removal::Urls(mut urls) => {
            urls.retain(|url| !is_place(url));
            if !urls.is_empty() {
                feed(Event::Removed(Removal::Urls(urls)));
            }
        }
        Removal::All => {
            feed(Event::Removed(Removal::All));
            offer_places(None);
        }
    }
}

/// The bookmarked pages as now known, whole (none: the bookmarks' switch is off): each is found
/// whatever the period; those outside the history are understood by their bookmark's title; and,
/// once the history and the store are known whole, every page held that is neither in the history
/// nor among them goes.
pub fn bookmarks_known(pages: Vec<Page>) {
    BOOKMARKS.set(pages.into_iter().map(|p| (p.url.clone(), p)).collect());
    set_ageless();
    SWEEP.set(true);
    offer_places(None);
    sweep();
}

/// The open tabs' pages as now known, whole (none: the tabs' switch is off): each is found
/// whatever the period, those outside the history understood by their tab's title; a page no
/// longer open, nor bookmarked, loses its vector when outside the history.
pub fn tabs_known(pages: Vec<Page>) {
    let open: HashMap<String, Page> = pages.into_iter().map(|p| (p.url.clone(), p)).collect();
    let before = TABS.replace(open);
    TABS_TOLD.set(true);
    set_ageless();
    let closed: Vec<String> = before.into_keys().filter(|url| !is_place(url)).collect();
    forget_outside_history(closed);
    let urls: Vec<String> = TABS.with_borrow(|tabs| tabs.keys().cloned().collect());
    offer_places(Some(&urls));
    sweep();
}

/// Whether the page at `url` is bookmarked or open, as last told.
fn is_place(url: &str) -> bool {
    BOOKMARKS.with_borrow(|bookmarks| bookmarks.contains_key(url))
        || TABS.with_borrow(|tabs| tabs.contains_key(url))
}

/// The host's ageless pages: every page bookmarked or open.
fn set_ageless() {
    let mut urls: Vec<String> =
        BOOKMARKS.with_borrow(|bookmarks| bookmarks.keys().cloned().collect());
    TABS.with_borrow(|tabs| urls.extend(tabs.keys().cloned()));
    HOST.with_borrow_mut(|host| host.set_ageless(urls));
}

/// The vectors of those of `urls` outside the history go (once the whole history is known;
/// until then the sweep sees to them).
fn forget_outside_history(urls: Vec<String>) {
    if !LISTED.get() || urls.is_empty() {
        return;
    }
    let gone = index_host::outside_history(urls);
    if !gone.is_empty() {
        feed(Event::Removed(Removal::Urls(gone)));
    }
}

/// These pages were bookmarked (added, given a new address, or retitled): found whatever the
/// period, and understood by their bookmark's title when outside the history.
pub fn bookmarked(pages: Vec<Page>) {
    let urls: Vec<String> = pages.iter().map(|page| page.url.clone()).collect();
    HOST.with_borrow_mut(|host| host.mark_ageless(urls.iter().cloned(), true));
    BOOKMARKS.with_borrow_mut(|bookmarks| {
        bookmarks.extend(pages.into_iter().map(|page| (page.url.clone(), page)));
    });
    offer_places(Some(&urls));
}

/// These pages are no longer bookmarked: unless open in a tab, found in their period only, and
/// the vectors of those outside the history go.
pub fn unbookmarked(urls: Vec<String>) {
    BOOKMARKS.with_borrow_mut(|bookmarks| {
        for url in &urls {
            bookmarks.remove(url);
        }
    });
    let urls: Vec<String> = urls.into_iter().filter(|url| !is_place(url)).collect();
    HOST.with_borrow_mut(|host| host.mark_ageless(urls.iter().cloned(), false));
    forget_outside_history(urls);
}

/// Has the host understand the bookmarked and open pages outside the history (`only` those of
/// these addresses), by their bookmark's title (else their tab's), newest first — once the whole
/// history is known, so that a page of the history is understood by its own title only.
fn offer_places(only: Option<&[String]>) {
    if !LISTED.get() {
        return;
    }
    let wanted: Vec<String> = match only {
        Some(urls) => urls.iter().filter(|url| is_place(url)).cloned().collect(),
        None => {
            let mut urls: Vec<String> =
                BOOKMARKS.with_borrow(|bookmarks| bookmarks.keys().cloned().collect());
            TABS.with_borrow(|tabs| {
                urls.extend(tabs.keys().filter(|url| !is_bookmarked(url)).cloned());
            });
            urls
        }
    };
    if wanted.is_empty() {
        return;
    }
    let outside: Vec<Page> = index_host::outside_history(wanted)
        .iter()
        .filter_map(|url| {
            let bookmark = BOOKMARKS.with_borrow(|bookmarks| bookmarks.get(url).cloned());
            match bookmark {
                Some(page) => Some(Page {
                    last_visit_ms: page.marks.bookmark.as_ref().map_or(0, |b| b.added_ms),
                    ..page
                }),
                None => TABS.with_borrow(|tabs| tabs.get(url).cloned()),
            }
        })
        .collect();
    pages(outside);
}

/// Whether the page at `url` is bookmarked, as last told.
fn is_bookmarked(url: &str) -> bool {
    BOOKMARKS.with_borrow(|bookmarks| bookmarks.contains_key(url))
}

/// Once the history and the stored vectors are known whole, after the bookmarks were told whole
/// (and the open tabs once): the pages held that are neither in the history nor bookmarked nor
/// open go.
fn sweep() {
    if !LISTED.get() || !SWEEP.get() || !TABS_TOLD.get() {
        return;
    }
    let Some(held) = HOST.with_borrow(SemanticHost::held_urls) else {
        return;
    };
    SWEEP.set(false);
    let gone = index_host::outside_history(held.into_iter().filter(|url| !is_place(url)));
    if !gone.is_empty() {
        feed(Event::Removed(Removal::Urls(gone)));
    }
}

/// The options page's switch.
pub fn set_enabled(enabled: bool) -> Response {
    feed(Event::SetEnabled(enabled));
    state()
}

/// Topic search's state, for the pages.
pub fn state() -> Response {
    Response::Semantic {
        progress: HOST.with_borrow(SemanticHost::progress),
    }
}

/// The pages closest in meaning to `query`, visited since `start_ms`, and the bookmarked and open
/// ones whatever their age: the question's words (its `site:` and source terms taken out) are
/// embedded by the model (ahead of any batch of pages), the stored vectors of the sites' pages are
/// scanned, and the URLs are turned into pages by the lexical index, else as bookmarks or tabs
/// (`places` gives the pages of those of its addresses bookmarked or open now), as the source terms
/// allow: a page none holds is never shown.
pub async fn understand(
    query: &str,
    start_ms: i64,
    limit: usize,
    places: impl FnOnce(&[String], Origins) -> Vec<Page>,
) -> Response {
    let progress = HOST.with_borrow(SemanticHost::progress);
    let searchable = answers_questions();
    let site_filter::SiteQuestion {
        words: query,
        filter: sites,
        origins,
        ..
    } = site_filter::parse(query);
    let query = query.as_str();
    let words = index_host::words(query, &sites, start_ms);
    if !is_understandable(query) || !searchable {
        return Response::Understood {
            pages: Vec::new(),
            words,
            progress,
        };
    }
    let pages = match question_vector(query).await {
        Some(vector) => {
            let hits =
                HOST.with_borrow(|host| host.search_in(&vector, &sites, start_ms, limit, words));
            let urls: Vec<String> = hits.into_iter().map(|(url, _)| url).collect();
            index_host::history_or_places(&urls, start_ms, origins, places)
        }
        None => Vec::new(),
    };
    Response::Understood {
        pages,
        words,
        progress: HOST.with_borrow(SemanticHost::progress),
    }
}

/// Whether topic search would embed a question now ([`SemanticHost::answers_questions`]).
pub fn answers_questions() -> bool {
    HOST.with_borrow(SemanticHost::answers_questions)
}

/// Has the questions' model loaded now rather than at the next question (`lib.rs` asks when the
/// popup opens and a question would be embedded); loaded already, this costs a message to the
/// model's document. A failure is logged: the question will meet it and say so.
pub fn load_question_model() {
    spawn_local(async {
        if let Err(error) = embedder::warm(TextKind::Query, EMBEDDER_IDLE_MS).await {
            log::failure("loading the questions' model", &error);
        }
    });
}

/// The model's vector of a question (its words, `site:` terms taken out), made once for topic
/// search and the pages' content alike: the last one is kept, since both ask for the same
/// question one after the other. `None` when the model cannot make it (the words' answer then
/// stands alone; the build's own batches report lasting failures).
pub async fn question_vector(query: &str) -> Option<Vec<f32>> {
    // A question is cut as a page's text is: a 5,000-character one would hold the model for
    // seconds, and its first sentences say what it is about.
    let asked: String = query.chars().take(PASSAGE_MAX_CHARS).collect();
    if let Some(vector) = LAST_QUESTION.with_borrow(|last| {
        last.as_ref()
            .filter(|(q, _)| *q == asked)
            .map(|(_, v)| v.clone())
    }) {
        return Some(vector);
    }
    let texts = [asked.clone()];
    match embedder::embed(TextKind::Query, &texts, QUERY_PATIENCE_MS, EMBEDDER_IDLE_MS).await {
        Ok(mut vectors) => {
            let vector = vectors.pop()?;
            LAST_QUESTION.set(Some((asked, vector.clone())));
            Some(vector)
        }
        Err(error) => {
            log::failure("embedding a question", &error);
            None
        }
    }
}

fn feed(event: Event) {
    let loaded = matches!(
        event,
        Event::StoreLoaded { done: true, .. } | Event::StoreFailed
    );
    let actions = HOST.with_borrow_mut(|host| host.handle(event));
    for action in actions {
        perform(action);
    }
    if loaded {
        sweep();
    }
}

fn perform(action: Action) {
    match action {
        Action::LoadStore => spawn_local(async {
            // After the lexical index: a question asked as the worker starts comes first.
            index_host::loaded().await;
            let read = record_store::load_in_chunks(
                Records::Vectors,
                STORE_CHUNK_RECORDS,
                |records, done| feed(Event::StoreLoaded { records, done }),
            )
            .await;
            if !read {
                feed(Event::StoreFailed);
            }
        }),
        Action::Embed { batch, passages } => spawn_local(async move {
            let event =
                match embedder::embed(TextKind::Passage, &passages, 0, EMBEDDER_IDLE_MS).await {
                    Ok(vectors) => Event::Embedded { batch, vectors },
                    Err(error) => Event::EmbedFailed {
                        batch,
                        failure: record_store::embed_failure(error),
                    },
                };
            feed(event);
        }),
        Action::Save { batch, records } => spawn_local(async move {
            let event = match record_store::save(Records::Vectors, records).await {
                Saved::Written => Event::Saved { batch },
                Saved::Failed { quota } => Event::SaveFailed { batch, quota },
            };
            feed(event);
        }),
        Action::Delete { urls } => spawn_local(async move {
            // A record left behind is never shown (a search turns URLs into pages through the
            // lexical index, which no longer holds it), and the next load drops it: logged.
            if let Err(error) = idb::delete_records(Records::Vectors, &urls).await {
                log::failure("deleting the vectors of removed pages", &error);
            }
        }),
        Action::ClearStore => spawn_local(async {
            // Logged, as a delete is: nothing left behind is ever shown.
            if let Err(error) = idb::clear_records(Records::Vectors).await {
                log::failure("clearing the stored vectors", &error);
            }
        }),
        Action::RetryAfter { ms } => spawn_local(async move {
            http::sleep(ms, &Cancel::new()).await;
            feed(Event::RetryDue);
        }),
        Action::CloseEmbedder => spawn_local(embedder::close()),
        Action::SendAllPages => {
            pages(index_host::all_pages());
            offer_places(None);
        }
    }
}
