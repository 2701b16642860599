//! Arrow-key movement between the search box and the result links. (The search box's own keys
//! over the as-you-type results — the highlight, `aria-activedescendant` — are the popup's
//! `combobox_key`; these move the focus itself.)

use wasm_bindgen::JsCast;
use web_sys::{HtmlElement, KeyboardEvent};

/// The elements the arrow keys move between, in document order.
const FOCUSABLE: &str = "input[type=search], a.result-link";

/// On ArrowDown/ArrowUp from the search box or a result, moves focus to the next/previous one.
/// Other keys, and arrows pressed elsewhere (the period selector), are left alone.
pub fn move_focus(event: &KeyboardEvent) {
    let step: isize = match event.key().as_str() {
        "ArrowDown" => 1,
        "ArrowUp" => -1,
        _ => return,
    };
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return;
    };
    let Ok(nodes) = document.query_selector_all(FOCUSABLE) else {
        return;
    };
    let elements: Vec<HtmlElement> = (0..nodes.length())
        .filter_map(|i| nodes.item(i))
        .filter_map(|node| node.dyn_into::<HtmlElement>().ok())
        .collect();
    let active = document.active_element();
    let Some(current) = elements
        .iter()
        .position(|element| Some(element.as_ref()) == active.as_ref())
    else {
        return;
    };
    let next = current
        .saturating_add_signed(step)
        .min(elements.len().saturating_sub(1));
    if let Some(element) = elements.get(next) {
        event.prevent_default();
        // Focus can only fail on a detached element; then there is nothing to move to.
        let _ = element.focus();
    }
}

/// Moves focus to the first result link below the as-you-type results (the conversation's): where
/// ArrowDown goes past the last highlighted match. Says whether there was one.
pub fn focus_first_outside_live() -> bool {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return false;
    };
    let Ok(Some(first)) = document.query_selector("section.conversation a.result-link") else {
        return false;
    };
    match first.dyn_into::<HtmlElement>() {
        Ok(link) => link.focus().is_ok(),
        Err(_) => false,
    }
}
