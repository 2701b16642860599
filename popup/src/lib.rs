//! History Chat's toolbar popup.
//!
//! The popup's static module script (`assets/popup.js`) initialises this wasm module and calls
//! [`mount_popup`]. Components only wire signals to the DOM; what a question does — which engine
//! answers and how it runs — is [`ask`]'s; searching, cleaning, wording and storage rules live in
//! `history-chat-core`, browser calls in `history-chat-bindings`. The options page is its own
//! module (`history-chat-options`), so the popup does not load it.
//!
//! The module is split at its `#[lazy]` functions (`scripts/build`, with `wasm_split_cli_support`):
//! the first module is the shell ([`popup`]: search box, period, status, alert), usable as soon as
//! it has loaded; the conversation ([`conversation`], [`result_row`]) and asking the worker
//! ([`ask`]) are chunks it fetches the first time each is called, the conversation's once the shell
//! has been painted.
//!
//! The modules, lowest first (each uses only those above it in this list):
//! - [`state`]: the signals every part shares, and what the shell shows of them.
//! - [`keyboard`]: arrow-key movement between the search box and the results.
//! - [`result_row`]: one page of an answer: its link, its actions (open, copy, remove).
//! - [`conversation`]: the stored turns and the as-you-type results, and the worker's port.
//! - [`ask`]: what a question does: the worker's search, Cancel, the as-you-type plan.
//! - [`popup`]: the shell that mounts the rest.

// Lowest first; each module uses only those above it in this list.
/// What a question does: the worker's search, its cancel, the as-you-type retrieval plan.
mod ask;
/// The conversation and the as-you-type list, and how a finished turn is shown and stored.
mod conversation;
/// Arrow-key movement through the results.
mod keyboard;
/// The shell at the top: header, search box, period, status, alert; mounts the rest.
mod popup;
/// One result row: its link, actions, and where a click opens it.
mod result_row;
/// The state every part shares: signals, the alert's message, the as-you-type answer.
mod state;

use wasm_bindgen::prelude::*;

/// Mounts the toolbar popup into `<body>`.
#[wasm_bindgen]
pub fn mount_popup() {
    console_error_panic_hook::set_once();
    history_chat_bindings::i18n::install();
    history_chat_bindings::hosts::install();
    leptos::mount::mount_to_body(popup::Popup);
}
