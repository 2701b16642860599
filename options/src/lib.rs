//! History Chat's options page, its own wasm module so the popup does not load it.
//!
//! The page's static module script (`assets/options.js`) initialises this module and calls
//! [`mount_options`]. Components only wire signals to the DOM: validation, wording and storage rules
//! live in `history-chat-core`, browser calls in `history-chat-bindings`.

mod content;
mod options;
mod places;
mod saving;

use wasm_bindgen::prelude::*;

/// Mounts the options page into `<body>`.
#[wasm_bindgen]
pub fn mount_options() {
    console_error_panic_hook::set_once();
    history_chat_bindings::i18n::install();
    history_chat_bindings::hosts::install();
    leptos::mount::mount_to_body(options::Options);
}
