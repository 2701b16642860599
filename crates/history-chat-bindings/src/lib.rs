//! The only code of History Chat that touches the browser's extension APIs (`chrome.*`).
//!
//! Every JS import is declared with `catch`, so an exception (an API missing in this context, a
//! quota hit, a closed port) comes back as a typed [`ChromeError`] instead of unwinding through Rust.
//! Data crosses the boundary as JSON text ([`js_json`]): integers stay integers, and what the
//! browser hands us is read by the core's lenient serde types.
//!
//! Nothing here uses `window`, so it works in the popup, the options page and the service worker
//! (but [`clipboard`], which only a page has).

pub mod clipboard;
pub mod embedder;
mod error;
pub mod gemini;
pub mod history;
pub mod hosts;
pub mod http;
pub mod i18n;
pub mod idb;
mod js_json;
pub mod log;
pub mod messages;
pub mod omnibox;
pub mod on_device;
pub mod permissions;
pub mod ports;
pub mod runtime;
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
