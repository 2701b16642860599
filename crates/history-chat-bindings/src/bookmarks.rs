//! `chrome.bookmarks` (optional permission `bookmarks`, the "Search my bookmarks" switch): the
//! whole tree read once, and the events that change it followed. Without the permission the API
//! is missing (or, in a worker that had it, refuses every call): each call then fails with a
//! [`ChromeError`] and nothing is followed.

use history_chat_core::places::browser::{BookmarkChange, BookmarkNode};
use wasm_bindgen::prelude::*;

use crate::ChromeError;
use crate::error::settle;
use crate::js_json::from_js;
use crate::listeners;

#[wasm_bindgen]
extern "C" {
    #[wasm_bindgen(catch, js_namespace = ["chrome", "bookmarks"], js_name = getTree)]
    fn bookmarks_get_tree() -> Result<js_sys::Promise, JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "bookmarks", "onCreated"], js_name = addListener)]
    fn on_created(listener: &Closure<dyn Fn(JsValue, JsValue)>) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "bookmarks", "onRemoved"], js_name = addListener)]
    fn on_removed(listener: &Closure<dyn Fn(JsValue, JsValue)>) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "bookmarks", "onChanged"], js_name = addListener)]
    fn on_changed(listener: &Closure<dyn Fn(JsValue, JsValue)>) -> Result<(), JsValue>;
    #[wasm_bindgen(catch, js_namespace = ["chrome", "bookmarks", "onMoved"], js_name = addListener)]
    fn on_moved(listener: &Closure<dyn Fn(JsValue, JsValue)>) -> Result<(), JsValue>;
}

const GET_TREE: &str = "chrome.bookmarks.getTree";
const FOLLOW: &str = "chrome.bookmarks.on*.addListener";

/// The whole bookmarks tree (its roots).
pub async fn get_tree() -> Result<Vec<BookmarkNode>, ChromeError> {
    let tree = settle(GET_TREE, bookmarks_get_tree()).await?;
    from_js(GET_TREE, &tree)
}

/// A change to the bookmarks, as an event told it.
#[derive(Debug, Clone, PartialEq)]
pub enum BookmarkEvent {
    /// `onCreated`: a bookmark or folder added.
    Created(BookmarkNode),
    /// `onRemoved`: the node (and, a folder, what it held) is gone.
    Removed {
        /// The node's id.
        id: String,
    },
    /// `onChanged`: a new title, or a bookmark's new address.
    Changed {
        /// The node's id.
        id: String,
        /// What changed.
        change: BookmarkChange,
    },
    /// `onMoved`: the node is in another folder.
    Moved {
        /// The node's id.
        id: String,
        /// Its folder now.
        parent_id: String,
    },
    /// An event that could not be read: the tree should be read again.
    Unreadable,
}

/// Follows the bookmarks' events for the rest of the worker's life: each one to `handle`.
pub fn follow(handle: impl Fn(BookmarkEvent) + Clone + 'static) -> Result<(), ChromeError> {
    #[derive(serde::Deserialize, Default)]
    #[serde(rename_all = "camelCase", default)]
    struct Moved {
        parent_id: String,
    }
    let id_of = |id: &JsValue| id.as_string().filter(|id| !id.is_empty());
    let created = {
        let handle = handle.clone();
        Closure::<dyn Fn(JsValue, JsValue)>::new(move |_id: JsValue, node: JsValue| {
            handle(match from_js::<BookmarkNode>(FOLLOW, &node) {
                Ok(node) => BookmarkEvent::Created(node),
                Err(_) => BookmarkEvent::Unreadable,
            })
        })
    };
    let removed = {
        let handle = handle.clone();
        Closure::<dyn Fn(JsValue, JsValue)>::new(move |id: JsValue, _info: JsValue| {
            handle(match id_of(&id) {
                Some(id) => BookmarkEvent::Removed { id },
                None => BookmarkEvent::Unreadable,
            })
        })
    };
    let changed = {
        let handle = handle.clone();
        Closure::<dyn Fn(JsValue, JsValue)>::new(move |id: JsValue, change: JsValue| {
            let change = from_js::<BookmarkChange>(FOLLOW, &change);
            handle(match (id_of(&id), change) {
                (Some(id), Ok(change)) => BookmarkEvent::Changed { id, change },
                _ => BookmarkEvent::Unreadable,
            })
        })
    };
    let moved = Closure::<dyn Fn(JsValue, JsValue)>::new(move |id: JsValue, info: JsValue| {
        let moved = from_js::<Moved>(FOLLOW, &info);
        handle(match (id_of(&id), moved) {
            (Some(id), Ok(moved)) if !moved.parent_id.is_empty() => BookmarkEvent::Moved {
                id,
                parent_id: moved.parent_id,
            },
            _ => BookmarkEvent::Unreadable,
        })
    });
    listeners::keep(FOLLOW, created, on_created)?;
    listeners::keep(FOLLOW, removed, on_removed)?;
    listeners::keep(FOLLOW, changed, on_changed)?;
    listeners::keep(FOLLOW, moved, on_moved)
}
