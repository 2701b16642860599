//! The pure logic of History Chat.
//!
//! Everything here is plain Rust, tested natively with `cargo test`: no `wasm-bindgen`, `web-sys` or
//! `js-sys`, no clock and no I/O. The host (the extension's bindings crate, or a test) passes in the
//! current time, the history items and the stored data, and gets typed values back.
//!
//! - [`i18n`]: every sentence the user reads, by key, from the English and French catalogues
//!   (`_locales/`); [`t!`] words one.
//! - [`clean`]: URL normalisation and the exclusion rules (what never reaches the user or a model).
//! - [`archive`]: pages kept after Chrome forgets them: which `onVisitRemoved` is Chrome's expiry
//!   and which is the user's deletion.
//! - [`history`]: history items as the browser gives them, and pages once cleaned and merged.
//! - [`period`]: the search periods ("last 7 days") and their arithmetic.
//! - [`address`]: an `http(s)` address read as text (host, path; whether a link may open), for
//!   the popup, which links no URL parser.
//! - [`display`]: readable URLs, titles (the URL when there is none) and relative times, for the UI.
//! - [`settings`]: the user's settings, loaded leniently so older and newer versions can share them.
//! - [`exclusions`]: the excluded sites of the settings (one host or `*.domain` per line): parsed
//!   and validated, and which pages they exclude from the index, the answers and the models.
//! - [`conversation`]: the conversation log: turns, their storage keys, retention.
//! - [`search`]: retrieval's one shape, the [`search::PageSource`] trait (cleaned, merged pages
//!   for a [`search::PageQuery`]), the local search over it, and its status wording.
//! - [`index`]: the local full-text index: word folding and stems, typo matching, BM25F scoring,
//!   fusion with the browser's results, the versioned snapshot, the recall evaluation, and the
//!   index's life in the service worker as a state machine ([`index::host`]).
//! - [`semantic`]: the semantic index: the passage embedded for a page, 8-bit vectors in one flat
//!   arena scanned with a similarity floor, their versioned IndexedDB records, fusion with the
//!   lexical answer, and the index's life in the service worker as a state machine
//!   ([`semantic::host`]). The vectors come from a model elsewhere; nothing here depends on it.
//! - [`site_filter`]: the `site:` terms of a question (`site:github.com cte`), and which pages
//!   they keep; applied before ranking by every search.
//! - [`messages`]: the one request/response enum between the extension's pages and its service
//!   worker.
//! - [`omnibox`]: the address-bar keyword: suggestions (escaped XML, matched words marked), the
//!   default suggestion, and what Enter opens.
//! - [`rows`]: what a result row offers: where a page opens for each key, the announced count,
//!   and removing a page from history (every raw entry merged into it).
//! - [`ai`]: AI mode: engine choice, keyword expansion, budgeted retrieval and ranking, against a
//!   model trait.
//! - [`gemini`]: the Gemini API's wire format: request bodies, and what responses mean.
//! - `percent` (private): the one percent-decoder of URL pieces, for [`display`] and [`index`].
//! - `lenient` (private): serde helpers that give an unreadable stored value its default instead of
//!   failing the whole record.

#[macro_use]
pub mod i18n;

pub mod address;
pub mod ai;
pub mod api_key;
pub mod archive;
pub mod ask;
pub mod clean;
pub mod conversation;
pub mod display;
pub mod exclusions;
pub mod gemini;
pub mod history;
pub mod index;
mod lenient;
pub mod messages;
pub mod omnibox;
mod percent;
pub mod period;
pub mod rows;
pub mod search;
pub mod semantic;
pub mod settings;
pub mod site_filter;
pub mod wording;
