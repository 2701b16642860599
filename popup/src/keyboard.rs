//! Arrow-key movement between the search box and the result links.

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
