//! History Chat's pages: the toolbar popup and the options page.
//!
//! Each page's static module script (`assets/popup.js`, `assets/options.js`) initialises this wasm
//! module and calls its mount function. Components only wire signals to the DOM: searching, cleaning,
//! wording and storage rules live in `history-chat-core`, browser calls in `history-chat-bindings`.

mod keyboard;
mod options;
mod popup;

use wasm_bindgen::prelude::*;

/// Mounts the toolbar popup into `<body>`.
#[wasm_bindgen]
pub fn mount_popup() {
    console_error_panic_hook::set_once();
    history_chat_bindings::i18n::install();
    leptos::mount::mount_to_body(popup::Popup);
}

/// Mounts the options page into `<body>`.
#[wasm_bindgen]
pub fn mount_options() {
    console_error_panic_hook::set_once();
    history_chat_bindings::i18n::install();
    leptos::mount::mount_to_body(options::Options);
}
