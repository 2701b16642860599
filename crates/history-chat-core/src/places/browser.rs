//! The shapes `chrome.bookmarks` and `chrome.tabs` give, with the fields History Chat reads. Every
//! field is optional here: a value of another type is read as missing
//! (`lenient::or_default`), and whoever reads a node or a tab decides what a missing
//! field means (a bookmark with no address is a folder; a tab with no id is skipped).

use serde::Deserialize;

use crate::lenient::or_default;

/// One node of `chrome.bookmarks.getTree()`'s answer (`BookmarkTreeNode`): a folder (no `url`) or
/// a bookmark, with its children when the API gives them.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BookmarkNode {
    /// The node's id (unique, kept across sessions).
    #[serde(deserialize_with = "or_default")]
    pub id: String,
    /// Its folder's id; none for the root.
    #[serde(deserialize_with = "or_default")]
    pub parent_id: Option<String>,
    /// Its title (a folder's name).
    #[serde(deserialize_with = "or_default")]
    pub title: String,
    /// The bookmarked address; none for a folder.
    #[serde(deserialize_with = "or_default")]
    pub url: Option<String>,
    /// When it was added, ms since the Unix epoch.
    #[serde(deserialize_with = "or_default")]
    pub date_added: Option<f64>,
    /// Its children (a folder's, in order), when given.
    #[serde(deserialize_with = "or_default")]
    pub children: Option<Vec<BookmarkNode>>,
}

/// `chrome.bookmarks.onChanged`'s `changeInfo`: the new title, and the new address of a bookmark.
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct BookmarkChange {
    /// The new title.
    #[serde(deserialize_with = "or_default")]
    pub title: Option<String>,
    /// The new address (a bookmark's).
    #[serde(deserialize_with = "or_default")]
    pub url: Option<String>,
}

/// One tab of `chrome.tabs.query` or `onUpdated` (`Tab`), with the `tabs` permission (which gives
/// its address and title).
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct TabInfo {
    /// The tab's id; none for a tab of another kind (devtools).
    #[serde(deserialize_with = "or_default")]
    pub id: Option<i32>,
    /// Its window.
    #[serde(deserialize_with = "or_default")]
    pub window_id: i32,
    /// Its address.
    #[serde(deserialize_with = "or_default")]
    pub url: Option<String>,
    /// Its title.
    #[serde(deserialize_with = "or_default")]
    pub title: Option<String>,
    /// When it was last the active tab, ms since the Unix epoch.
    #[serde(deserialize_with = "or_default")]
    pub last_accessed: Option<f64>,
    /// A tab of an incognito window (shown only if the user allowed the extension there).
    #[serde(deserialize_with = "or_default")]
    pub incognito: bool,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_node_of_odd_shape_is_read_with_what_it_has() {
        let node: BookmarkNode = serde_json::from_value(serde_json::json!({
            "id": "4", "parentId": 1, "title": null, "url": "https://a.example/",
            "dateAdded": "yesterday", "children": [{"id": "5"}, 7]
        }))
        .unwrap_or_default();
        // A child of another type spoils the list only: the node keeps the rest.
        assert_eq!(node.id, "4");
        assert_eq!(node.parent_id, None);
        assert_eq!(node.title, "");
        assert_eq!(node.url.as_deref(), Some("https://a.example/"));
        assert_eq!(node.date_added, None);
        assert_eq!(node.children, None);

        let tab: TabInfo = serde_json::from_value(serde_json::json!({
            "id": 3, "windowId": "w", "url": "https://b.example/x", "title": 9, "lastAccessed": 1.5e12
        }))
        .unwrap_or_default();
        assert_eq!(tab.id, Some(3));
        assert_eq!(tab.window_id, 0);
        assert_eq!(tab.title, None);
        assert_eq!(tab.last_accessed, Some(1.5e12));
    }
}
