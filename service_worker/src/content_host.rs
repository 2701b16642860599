//! Glue between the browser and the content store's state machine
//! ([`history_chat_core::content::host`]): feeds it what happens (the worker starting with the
//! settings, a page the reader sent, the model's and IndexedDB's answers, removals, its retry
//! timer) and carries out what it says (read the stored pages, store, delete, clear, have the
//! offscreen document's model embed passages). Every decision is the core's; this module only
//! moves data.
//!
//! - **Reading.** The reader (the content script `reader.js`, registered here with the excluded
//!   sites' match patterns while the switch is on and the browser grants the access) sends a
//!   page's rendered HTML; [`page_read`] checks who sent it ([`reading::may_read`]: the switch
//!   known and on, a top frame of a normal tab, a web page, not an excluded site), has the
//!   offscreen document extract its text (Readability) and hands it to the store. A PDF in
//!   Chrome's viewer is read from its address ([`pdf_seen`]). Nothing is logged with a page's
//!   address or text.
//! - **Searching** ([`search`]): the question's words and its vector (the one topic search made,
//!   [`crate::semantic_host::question_vector`]) against the passages; the pages come from the
//!   lexical index (a page it no longer holds is never shown), of the period only, or else from
//!   the bookmarks (a page bookmarked now, whatever its age), each with the passage that matched:
//!   cut from the text the store holds, else from the page's record, the shown pages' records read
//!   in one transaction (a record that cannot be read: no passage).
//! - **Removals** come from the lexical index ([`removed`], the dispatcher's `PagesRemoved`):
//!   whatever leaves it leaves the content store too. A page outside the history is kept only
//!   while it is bookmarked ([`unbookmarked`], [`keep_bookmarked`]).

use std::cell::{Cell, RefCell};
use std::collections::{HashMap, HashSet};

use history_chat_bindings::embedder::{self, TextKind};
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::idb::{self, Records};
use history_chat_bindings::messages::Sender;
use history_chat_bindings::reader::{self, Extracted, ReaderError};
use history_chat_bindings::{log, now_ms, permissions, scripting};
use history_chat_core::catch_up::Progress;
use history_chat_core::content::host::{
    Action, ContentHost, ContentMatch, Event, ReadPage, Removal, STORE_CHUNK_RECORDS,
};
use history_chat_core::content::passages::MIN_WORDS;
use history_chat_core::exclusions::Exclusions;
use history_chat_core::history::Page;
use history_chat_core::messages::{ContentState, Response};
use history_chat_core::origin::Origins;
use history_chat_core::reading::{self, page_text};
use history_chat_core::semantic::host::EMBEDDER_IDLE_MS;
use history_chat_core::settings::KnownSettings;
use history_chat_core::site_filter;
use wasm_bindgen_futures::spawn_local;

use crate::record_store::{self, Saved};
use crate::{index_host, semantic_host, settings_host};

thread_local! {
    static HOST: RefCell<ContentHost> = RefCell::new(ContentHost::new());
    /// The switch as last known, once the host has started.
    static ENABLED: Cell<Option<bool>> = const { Cell::new(None) };
    /// The excluded sites the reader's registration leaves out, as last registered.
    static REGISTERED_FOR: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
    /// Whether the browser grants the access reading needs, as last checked.
    static ACCESS: Cell<bool> = const { Cell::new(false) };
    /// The lexical index holds the whole history ([`history_listed`]).
    static LISTED: Cell<bool> = const { Cell::new(false) };
    /// The bookmarked pages to keep the content of, besides the history's, until the store and
    /// the history are known whole ([`keep_bookmarked`]).
    static KEEP: RefCell<Option<HashSet<String>>> = const { RefCell::new(None) };
}

/// The computer runs on a low battery (`true`), or no longer does: no batch of passages starts
/// meanwhile.
pub fn battery_low(low: bool) {
    feed(Event::BatteryLow(low));
}

/// The user is typing or asking (`true`), or has stopped for a while (`false`): no new batch of
/// passages is embedded meanwhile (timed by `lib.rs`'s `user_active`).
pub fn user_active(active: bool) {
    feed(if active {
        Event::UserActive
    } else {
        Event::UserIdle
    });
}

/// What is known of the settings changed ([`crate::settings_host`]): the excluded sites and the
/// cap go to the store, and once the switch is known the store starts (once per worker life;
/// later the switch comes as a change too, or from the options page's request), and the reader's
/// registration follows the switch and the excluded sites.
pub fn settings_known(known: &KnownSettings) {
    let Some(exclusions) = known.exclusions() else {
        return;
    };
    feed(Event::Exclusions(exclusions.clone()));
    if let Some(cap) = known.content_cap() {
        feed(Event::SetCap { bytes: cap.bytes() });
    }
    let Some(on) = known.read_content() else {
        return;
    };
    match ENABLED.replace(Some(on)) {
        None => feed(Event::Start { enabled: on }),
        Some(was) if was != on => feed(Event::SetEnabled(on)),
        Some(_) => {}
    }
    spawn_local(follow_switch(on, exclusions));
}

/// The options page's switch (saved in the settings first; the access asked in the click): the
/// store starts or is cleared, the reader is registered or not.
pub async fn set_enabled(enabled: bool) {
    if ENABLED.replace(Some(enabled)) != Some(enabled) {
        feed(Event::SetEnabled(enabled));
    }
    let exclusions = settings_host::known().await.exclusions();
    follow_switch(enabled, exclusions.unwrap_or_default()).await;
}

/// Registers the reader (with `exclusions` left out) while reading is on and the browser grants
/// the access; unregisters it otherwise.
async fn follow_switch(on: bool, exclusions: Exclusions) {
    let access = match permissions::has_content_access().await {
        Ok(access) => access,
        Err(error) => {
            log::failure("checking the access to read pages", &error);
            false
        }
    };
    ACCESS.set(access);
    if on && access {
        let patterns = exclusions.match_patterns();
        if REGISTERED_FOR.with_borrow(|held| held.as_ref() == Some(&patterns)) {
            return;
        }
        match scripting::register_reader(&patterns).await {
            Ok(()) => REGISTERED_FOR.set(Some(patterns)),
            Err(error) => log::failure("registering the page reader", &error),
        }
        return;
    }
    REGISTERED_FOR.set(None);
    if !access {
        // Without the `scripting` permission nothing can be registered either.
        return;
    }
    if let Err(error) = scripting::unregister_reader().await {
        log::failure("unregistering the page reader", &error);
    }
}

/// The content store's state, with the catch-up's (`catch_up`) and whether the access is
/// granted, for the options page.
pub async fn state(catch_up: Option<Progress>) -> Response {
    let access = match permissions::has_content_access().await {
        Ok(access) => access,
        Err(error) => {
            log::failure("checking the access to read pages", &error);
            ACCESS.get()
        }
    };
    ACCESS.set(access);
    let bookmarks = match permissions::has_api(permissions::BOOKMARKS_PERMISSION).await {
        Ok(granted) => granted,
        Err(error) => {
            // Not offered this time; the next state asked reads it again.
            log::failure("checking the bookmarks' permission", &error);
            false
        }
    };
    Response::Content {
        state: ContentState {
            progress: HOST.with_borrow(ContentHost::progress),
            catch_up,
            access,
            bookmarks,
        },
    }
}

/// The reader sent a page's rendered HTML ([`history_chat_core::messages::Request::PageRead`]):
/// read it if the settings and who sent it allow ([`reading::may_read`], judged on the browser's
/// `sender`, never the message's own address). Answers at once; the reading goes on.
pub async fn page_read(sender: Sender, html: String) -> Response {
    let known = settings_host::known().await;
    if let Ok(url) = reading::may_read(&sender.visit(), &known) {
        let ticket = HOST.with_borrow(ContentHost::ticket);
        spawn_local(async move {
            let read = reader::extract_html(&url, &html).await;
            stored(url, ticket, read);
        });
    }
    Response::Noted
}

/// The reader saw a PDF in Chrome's viewer ([`history_chat_core::messages::Request::PdfSeen`]):
/// read from its address, if allowed as a page is.
pub async fn pdf_seen(sender: Sender) -> Response {
    let known = settings_host::known().await;
    if let Ok(url) = reading::may_read(&sender.visit(), &known) {
        let ticket = HOST.with_borrow(ContentHost::ticket);
        spawn_local(async move {
            let read = reader::extract_pdf(&url).await;
            stored(url, ticket, read);
        });
    }
    Response::Noted
}

/// Reads the page at `url` from its address, for a catch-up: a web page's HTML or a PDF, as the
/// offscreen document finds it. `Ok(true)`: read and handed to the store; `Ok(false)`: the site
/// answered with nothing to read.
pub async fn read_from_site(url: String) -> Result<bool, ReaderError> {
    let ticket = HOST.with_borrow(ContentHost::ticket);
    match reader::extract_url(&url).await {
        // A page its site sends as an empty shell its scripts fill (read only when visited) has
        // nothing to keep: skipped, as the store would skip it.
        Ok(extracted) if (extracted.words as usize) < MIN_WORDS => Ok(false),
        Ok(extracted) => {
            stored(url, ticket, Ok(extracted));
            Ok(true)
        }
        Err(ReaderError::NoText | ReaderError::NotPdf(_) | ReaderError::TooLarge(_)) => Ok(false),
        Err(error) => Err(error),
    }
}

/// Hands what the reader extracted to the store (the title leading the text when the body lacks
/// it: [`page_text`]).
fn stored(
    url: String,
    ticket: history_chat_core::content::host::ReadTicket,
    read: Result<Extracted, ReaderError>,
) {
    match read {
        Ok(Extracted { title, text, .. }) => feed(Event::Read {
            page: ReadPage {
                url,
                text: page_text(&title, &text),
                title,
                ticket,
            },
            now_ms: now_ms(),
        }),
        // Nothing readable is no failure; anything else is written down, without the page.
        Err(ReaderError::NoText) => {}
        Err(error) => log::failure("reading a page's text", &error),
    }
}

/// Pages that left the lexical index (removed from the history, excluded, or all of it): their
/// content goes too.
pub fn removed(removal: Removal) {
    feed(Event::Removed(removal));
}

/// The lexical index holds the whole history (the dispatcher's `PagesListed`): which held page is
/// outside it can be told now.
pub fn history_listed() {
    LISTED.set(true);
    sweep();
}

/// These pages are no longer bookmarked: the content of those outside the history goes (once
/// the whole history is known; until then the next [`keep_bookmarked`] sees to them).
pub fn unbookmarked(urls: Vec<String>) {
    if LISTED.get() {
        forget_outside_history(urls.into_iter().filter(|url| holds(url)).collect(), |_| {
            false
        });
    }
}

/// The bookmarked pages as now known (none: the bookmarks' switch is off): the content held of
/// any page neither in the history nor among them goes, as soon as both the history and the store
/// are known whole.
pub fn keep_bookmarked(bookmarked: HashSet<String>) {
    KEEP.set(Some(bookmarked));
    sweep();
}

/// Carries out the [`keep_bookmarked`] waiting, if the history and the store are known whole.
fn sweep() {
    if !LISTED.get() || KEEP.with_borrow(Option::is_none) {
        return;
    }
    let Some(held) = HOST.with_borrow(ContentHost::held_urls) else {
        return;
    };
    let Some(bookmarked) = KEEP.take() else {
        return;
    };
    forget_outside_history(held, |url| bookmarked.contains(url));
}

/// Forgets the content of those of `urls` the lexical index does not hold, but those `kept`.
fn forget_outside_history(urls: Vec<String>, kept: impl Fn(&str) -> bool) {
    let gone = index_host::outside_history(urls.into_iter().filter(|url| !kept(url)));
    if !gone.is_empty() {
        feed(Event::Removed(Removal::Urls(gone)));
    }
}

/// Pages the content store holds, by URL: for the catch-up, which reads only the others.
pub fn holds(url: &str) -> bool {
    HOST.with_borrow(|host| host.holds(url))
}

/// Whether some page's content is held: a search then embeds its question.
pub fn searchable() -> bool {
    HOST.with_borrow(|host| host.progress().pages > 0)
}

/// The pages that said something matching `query` (its `site:` and source terms taken out),
/// best first, at most `limit`, each with the passage that matched: the history's pages visited
/// since `start_ms`, and the bookmarked pages whatever their age (`places` gives the pages of
/// those of its addresses bookmarked or open now, [`index_host::history_or_places`]); each as the
/// question's source terms allow.
/// Also whether the words alone found a page of the period (how the plan places them).
pub async fn search(
    query: &str,
    start_ms: i64,
    limit: usize,
    places: impl FnOnce(&[String], Origins) -> Vec<Page>,
) -> Response {
    let site_filter::SiteQuestion {
        words: query,
        filter: sites,
        origins,
        ..
    } = site_filter::parse(query);
    let words = index_host::words(&query, &sites, start_ms);
    if !searchable() || query.trim().is_empty() {
        return Response::ContentFound {
            pages: Vec::new(),
            words,
        };
    }
    let vector = semantic_host::question_vector(&query).await;
    // Asked for more than shown: the period's filter comes after.
    let found = HOST.with_borrow(|host| host.search(&query, vector.as_deref(), &sites, limit * 4));
    let mut matches: HashMap<String, ContentMatch> = HashMap::new();
    let mut urls = Vec::with_capacity(found.len());
    for hit in found {
        urls.push(hit.url.clone());
        matches.insert(hit.url.clone(), hit);
    }
    // A page is shown as the history's when it is one of the period's, else as a bookmark or tab.
    let mut pages = index_host::history_or_places(&urls, start_ms, origins, places);
    pages.truncate(limit);
    // The texts the store no longer holds are in the shown pages' records.
    let wanted: Vec<String> = pages
        .iter()
        .filter(|page| {
            matches
                .get(&page.url)
                .is_some_and(ContentMatch::needs_record)
        })
        .map(|page| page.url.clone())
        .collect();
    let records = stored_records(&wanted).await;
    for page in &mut pages {
        let record = records.get(&page.url).map(Vec::as_slice);
        page.passage = matches
            .get(&page.url)
            .and_then(|found| found.passage(record, &query));
    }
    Response::ContentFound { pages, words }
}

/// The stored records of `urls`, read in one transaction, by URL. A record that cannot be read
/// is missing (its page is shown without a passage); a failed read is logged, without the pages.
async fn stored_records(urls: &[String]) -> HashMap<String, Vec<u8>> {
    if urls.is_empty() {
        return HashMap::new();
    }
    match idb::get_records(Records::Content, urls).await {
        Ok(records) => urls
            .iter()
            .zip(records)
            .filter_map(|(url, bytes)| Some((url.clone(), bytes?)))
            .collect(),
        Err(error) => {
            log::failure("reading the passages of the pages found", &error);
            HashMap::new()
        }
    }
}

fn feed(event: Event) {
    let loaded = matches!(event, Event::StoreLoaded { done: true, .. });
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
                Records::Content,
                STORE_CHUNK_RECORDS,
                |records, done| feed(Event::StoreLoaded { records, done }),
            )
            .await;
            if !read {
                feed(Event::StoreFailed);
            }
        }),
        Action::Save { batch, records } => spawn_local(async move {
            let event = match record_store::save(Records::Content, records).await {
                Saved::Written => Event::Saved { batch },
                Saved::Failed { quota } => Event::SaveFailed { batch, quota },
            };
            feed(event);
        }),
        Action::Delete { urls } => spawn_local(async move {
            // A record left behind is never shown (a search turns URLs into pages through the
            // lexical index, which no longer holds it), and the next load drops it: logged.
            if let Err(error) = idb::delete_records(Records::Content, &urls).await {
                log::failure("deleting the content of removed pages", &error);
            }
        }),
        Action::Clear => spawn_local(async {
            if let Err(error) = idb::clear_records(Records::Content).await {
                log::failure("clearing the pages' content", &error);
            }
        }),
        Action::Embed { batch, texts } => spawn_local(async move {
            let event = match embedder::embed(TextKind::Passage, &texts, 0, EMBEDDER_IDLE_MS).await
            {
                Ok(vectors) => Event::Embedded { batch, vectors },
                Err(error) => Event::EmbedFailed {
                    batch,
                    failure: record_store::embed_failure(error),
                },
            };
            feed(event);
        }),
        Action::RetryAfter { ms } => spawn_local(async move {
            http::sleep(ms, &Cancel::new()).await;
            feed(Event::RetryDue);
        }),
    }
}
