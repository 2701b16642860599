//! What a result row offers besides its link: where a page opens for each key and mouse button,
//! and what a removal did ([`Removal`]; the removal itself is decided in `crate::removal`).

use serde::{Deserialize, Serialize};

use crate::address::Disposition;

/// The modifier keys (and the mouse button) of the event that opens a result.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OpenKeys {
    /// Shift held.
    pub shift: bool,
    /// Ctrl held.
    pub ctrl: bool,
    /// ⌘ (Meta) held: Ctrl's role on a Mac.
    pub meta: bool,
    /// The middle mouse button (a click with the wheel).
    pub middle: bool,
}

/// Where a result opens, as in a browser's own links: Enter or a click in a new tab, in front;
/// Ctrl/⌘ (with Enter or a click) or the middle button in a new tab left behind, so the popup stays
/// open on the results; Shift in the current tab (the tab the popup was opened over). Ctrl/⌘ with
/// Shift brings the new tab to the front, as Chrome does for links.
pub fn open_disposition(keys: OpenKeys) -> Disposition {
    let background = keys.ctrl || keys.meta || keys.middle;
    match (background, keys.shift) {
        (true, true) => Disposition::NewForegroundTab,
        (true, false) => Disposition::NewBackgroundTab,
        (false, true) => Disposition::CurrentTab,
        (false, false) => Disposition::NewForegroundTab,
    }
}

/// What happened when the user removed a page, for the status line.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Removal {
    /// Its entries were deleted from the browser's history (and the page from the index and the
    /// stored answers).
    Removed,
    /// The browser's history no longer held it (deleted meanwhile, elsewhere): it is taken out of
    /// the index and the answers all the same.
    AlreadyGone,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn each_key_and_button_opens_where_a_browser_link_would() {
        let keys = |shift, ctrl, meta, middle| OpenKeys {
            shift,
            ctrl,
            meta,
            middle,
        };
        let table = [
            (
                keys(false, false, false, false),
                Disposition::NewForegroundTab,
            ),
            (keys(true, false, false, false), Disposition::CurrentTab),
            (
                keys(false, true, false, false),
                Disposition::NewBackgroundTab,
            ),
            (
                keys(false, false, true, false),
                Disposition::NewBackgroundTab,
            ),
            (
                keys(false, false, false, true),
                Disposition::NewBackgroundTab,
            ),
            (
                keys(true, true, false, false),
                Disposition::NewForegroundTab,
            ),
            (
                keys(true, false, true, false),
                Disposition::NewForegroundTab,
            ),
            (
                keys(true, false, false, true),
                Disposition::NewForegroundTab,
            ),
        ];
        for (keys, expected) in table {
            assert_eq!(open_disposition(keys), expected, "{keys:?}");
        }
    }
}
