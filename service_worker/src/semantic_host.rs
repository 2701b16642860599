//! Glue between the browser and the semantic index's state machine
//! ([`history_chat_core::semantic::host`]): feeds it what happens (the worker starting, the lexical
//! index's changes, the model's and IndexedDB's answers, its retry timer) and carries out what it
//! says (read the stored vectors, have the offscreen document's model embed a batch, store, delete,
//! close the model). Every decision is the core's; this module only moves data.
//!
//! The model runs in an offscreen document's dedicated worker ([`embedder`]), never on this
//! worker's thread, so the pages' requests are answered while pages are being understood.

use std::cell::{Cell, RefCell};

use history_chat_bindings::embedder::{self, TextKind};
use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::idb::{self, Records};
use history_chat_bindings::log;
use history_chat_core::history::Page;
use history_chat_core::messages::{QUERY_PATIENCE_MS, Response};
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
}

/// The lexical index lost pages.
pub fn removed(removal: Removal) {
    feed(Event::Removed(removal));
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

/// The pages closest in meaning to `query`, visited since `start_ms`: the question's words (its
/// `site:` terms taken out) are embedded by the model (ahead of any batch of pages), the stored
/// vectors of the sites' pages are scanned, and the URLs are turned into pages by the lexical index
/// (a page it no longer holds is never shown).
pub async fn understand(query: &str, start_ms: i64, limit: usize) -> Response {
    let progress = HOST.with_borrow(SemanticHost::progress);
    let searchable = answers_questions();
    let site_filter::SiteQuestion {
        words: query,
        filter: sites,
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
            index_host::pages_of(hits.into_iter().map(|(url, _)| url))
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
    let actions = HOST.with_borrow_mut(|host| host.handle(event));
    for action in actions {
        perform(action);
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
        Action::SendAllPages => pages(index_host::all_pages()),
    }
}
