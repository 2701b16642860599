//! What a result row offers besides its link: where a page opens for each key and mouse button,
//! the count announced as results change, and what the user is told of a removal (which the
//! core decides in `crate::removal`).

use serde::{Deserialize, Serialize};

use crate::address::Disposition;
use crate::failure::Failure;
use crate::i18n::plural;

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

/// The count announced politely to screen readers as the as-you-type results change:
/// "No results", "1 result", "5 results".
pub fn result_count(count: usize) -> String {
    match count {
        0 => t!("rows_no_results"),
        n => plural("rows_results", i64::try_from(n).unwrap_or(i64::MAX), &[]),
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

impl Removal {
    /// The status line after a removal, naming the page by its title (`title`, as shown).
    pub fn message(self, title: &str) -> String {
        match self {
            Removal::Removed => t!("rows_removed", title),
            Removal::AlreadyGone => t!("rows_already_gone", title),
        }
    }
}

/// The alert when the page could not be removed (`failure` says why: the browser refused the
/// deletion, or the worker could not be asked): nothing was taken out of the results, and trying
/// again is safe.
pub fn removal_failed(failure: &Failure) -> String {
    t!("rows_removal_failed", failure)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::failure::BrowserFailure;

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

    #[test]
    fn the_count_is_worded_for_zero_one_and_many() {
        for (count, expected) in [
            (0, "No results"),
            (1, "1 result"),
            (2, "2 results"),
            (25, "25 results"),
        ] {
            assert_eq!(result_count(count), expected);
        }
    }

    #[test]
    fn the_messages_name_the_page_and_what_to_do() {
        assert_eq!(
            Removal::Removed.message("Recursive CTEs"),
            "Removed from your history: Recursive CTEs"
        );
        let failed = removal_failed(&Failure::Browser(BrowserFailure::Refused {
            api: "chrome.history.deleteUrl".into(),
        }));
        assert!(
            failed.contains("Chrome refused chrome.history.deleteUrl"),
            "{failed}"
        );
        assert!(failed.contains("try again"), "{failed}");
    }
}
