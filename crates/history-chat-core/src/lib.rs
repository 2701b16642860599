//! The pure logic of History Chat.
//!
//! Everything here is plain Rust, tested natively with `cargo test`: no `wasm-bindgen`, `web-sys` or
//! `js-sys`, no clock and no I/O. The host (the extension's bindings crate, or a test) passes in the
//! current time, the history items and the stored data, and gets typed values back.
//!
//! The modules stand in layers, lowest first; a module uses its own layer and those below it,
//! never one above (the `history-chat-architecture` crate's test checks every import, and
//! `ARCHITECTURE.md` draws the layers):
//!
//! **Primitives** — what every part reads, using nothing of ours:
//! - [`i18n`]: every sentence the user reads, by key, from the English and French catalogues
//!   (`_locales/`); [`t!`] words one (in the core, only [`wording`] calls it).
//! - `lenient` (private): serde helpers that give an unreadable stored value its default.
//! - `percent` (private): the one percent-decoder of URL pieces.
//! - [`address`]: an `http(s)` address read as text — the one split of a host, path and query —
//!   and where Chrome asks for a page to open.
//! - [`period`]: the search periods ("last 7 days") and their arithmetic.
//! - [`api_key`]: the Gemini key as a type that cannot be printed.
//! - [`failure`]: what went wrong, as values the wire and the stored turns carry.
//! - [`power`]: the battery as the browser tells it, and when background work waits for it.
//!
//! **History** — the browser's history as History Chat understands it:
//! - [`clean`]: URL normalisation (what never reaches the user or a model).
//! - [`history`]: history items as the browser gives them, and pages once cleaned and merged.
//! - [`exclusions`]: the excluded sites, parsed, and which pages they exclude.
//! - [`site_filter`]: the `site:` terms of a question and which pages they keep.
//! - [`archive`]: pages kept after Chrome forgets them (expiry told from deletion).
//! - [`display`]: readable URLs and titles, the site icon's address.
//!
//! **Engines** — what answers a question about pages:
//! - [`index`]: the lexical index (folding, stems, typos, BM25F, snapshot) and its life in the
//!   worker ([`index::host`]).
//! - [`semantic`]: the semantic vectors (passages, 8-bit vectors, records) and their life in the
//!   worker ([`semantic::host`]).
//! - [`content`]: what pages said (their text read on visit, passages, words and vectors over
//!   them, snippets) and its life in the worker ([`content::host`]).
//!
//! **Retrieval** — from a question to the pages shown:
//! - [`search`]: the [`search::PageSource`] shape and the literal local search over it.
//! - [`retrieval`]: the one plan (sources, fusion, cut), its fusion and its evaluation.
//!
//! **AI** — a model picks the pages:
//! - [`ai`]: engine choice, keyword expansion, budgeted retrieval and ranking, against a model
//!   trait.
//! - [`gemini`]: the Gemini API's wire format.
//!
//! **App** — the state the pages keep and what they offer:
//! - [`settings`]: the user's settings, read leniently.
//! - [`conversation`]: the conversation log: turns, storage keys, retention.
//! - [`ask`]: the searches the worker hosts, and their updates to the popup.
//! - [`catch_up`]: reading again, from their sites, the pages visited before content search was
//!   on (the plan shown first, then a gentle schedule of downloads).
//! - [`rows`]: what a result row offers (open modes, the entries a removal deletes).
//! - [`omnibox`]: the address-bar keyword's suggestions and what Enter opens.
//! - [`reading`]: which visited pages have their content read (the switch, the tab, the site).
//!
//! **Protocol and presentation** — between the pages and the worker, and what the user reads:
//! - [`messages`]: the one request/response enum between the extension's pages and its worker.
//! - [`wording`]: every sentence the core composes, from the typed values of the layers below
//!   (one file per subject: progress, failures, history, search, rows, turns, AI, the hosted
//!   search, settings, the address bar); nothing else in the core calls `t!`, `plural` or
//!   `number`.

#[macro_use]
pub mod i18n;
mod lenient;
mod percent;

pub mod address;
pub mod api_key;
pub mod failure;
pub mod period;
pub mod power;

pub mod archive;
pub mod clean;
pub mod display;
pub mod exclusions;
pub mod history;
pub mod origin;
pub mod site_filter;

pub mod content;
pub mod index;
pub mod places;
pub mod semantic;

pub mod retrieval;
pub mod search;

pub mod ai;
pub mod gemini;

pub mod ask;
pub mod catch_up;
pub mod conversation;
pub mod omnibox;
pub mod reading;
pub mod removal;
pub mod rows;
pub mod settings;

pub mod messages;
pub mod wording;
