//! The only code of History Chat that touches the browser's extension APIs (`chrome.*`).
//!
//! Every JS import is declared with `catch`, so an exception (an API missing in this context, a
//! quota hit, a closed port) comes back as a typed [`ChromeError`] instead of unwinding through Rust.
//! Data crosses the boundary as JSON text ([`js_json`]): integers stay integers, and what the
//! browser hands us is read by the core's lenient serde types.
//!
//! Nothing here uses `window`, so it works in the popup, the options page and the service worker
//! (but [`clipboard`] and [`frame`], which only a page has).
//!
//! The modules, each one browser API (or one way of calling it):
//! - `error` (private): [`ChromeError`], what a failed call becomes, and the one way to await a
//!   browser promise; `js_json` (private): values across the boundary as JSON text.
//! - [`history`]: `chrome.history` — its search, the core's page sources over it and over the
//!   worker's index, a removal's deletions.
//! - [`storage`]: `chrome.storage` — settings in `sync`, the conversation and the worker's
//!   remembered state in `local`.
//! - [`idb`]: IndexedDB — the index's snapshot and topic search's vectors.
//! - [`messages`]: `chrome.runtime` messages between the pages and the worker; [`ports`]: the
//!   `ask` port that follows a search; [`runtime`]: the extension's own addresses.
//! - [`tabs`]: opening a result; [`omnibox`]: the address-bar keyword; [`clipboard`]: "Copy link";
//!   [`frame`]: waiting for a page's next paint;
//!   [`permissions`]: the optional permissions, asked in a click.
//! - [`scripting`]: the page reader's content script, registered with the excluded sites left
//!   out; [`reader`]: a page's or a PDF's text, extracted in the offscreen document.
//! - [`gemini`]: the Gemini API over [`http`] (`fetch` with a time limit and cancellation);
//!   [`on_device`]: Chrome's built-in model; [`embedder`]: topic search's model in the offscreen
//!   document (the one that also reads pages for [`reader`]).
//! - [`i18n`]: `chrome.i18n`, installed into the core's wording; [`hosts`]: the browser's URL
//!   parser, installed into the core's `site:` reading.
//! - [`log`]: the console line of a failure nobody is told of.

pub mod bookmarks;
pub mod clipboard;
pub mod embedder;
mod error;
pub mod frame;
pub mod gemini;
pub mod history;
pub mod hosts;
pub mod http;
pub mod i18n;
pub mod idb;
mod js_json;
mod listeners;
pub mod log;
pub mod messages;
pub mod omnibox;
pub mod on_device;
pub mod permissions;
pub mod ports;
pub mod reader;
pub mod runtime;
pub mod scripting;
pub mod storage;
pub mod tabs;

pub use error::ChromeError;

/// The current time in milliseconds since the Unix epoch (`Date.now()`): the one clock the
/// extension reads, passed into the core as a value.
pub fn now_ms() -> i64 {
    js_sys::Date::now() as i64
}

/// A random 32-bit number for storage-key nonces (not for secrets).
pub fn nonce() -> u32 {
    (js_sys::Math::random() * f64::from(u32::MAX)) as u32
}
