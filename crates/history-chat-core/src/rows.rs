//! What a result row offers besides its link: where a page opens for each key and mouse button,
//! and what a removal did ([`Removal`]; the removal itself is decided in `crate::removal`).

use serde::{Deserialize, Serialize};

use crate::address::Disposition;
use crate::history::{OpenTab, RankedPage};

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

/// What activating a result does ([`row_action`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RowAction {
    /// Bring the open tab showing it to the front (its window focused).
    SwitchToTab(OpenTab),
    /// Open it where the held keys say ([`open_disposition`]).
    Open(Disposition),
}

/// What activating a result does: on a page open in a tab, Enter or a click with no key held
/// switches to that tab ("Switch to tab", the row's default); any key held, or the middle button,
/// opens the page as any result opens ([`open_disposition`]) — a second copy, where asked.
pub fn row_action(keys: OpenKeys, tab: Option<OpenTab>) -> RowAction {
    match tab {
        Some(tab) if keys == OpenKeys::default() => RowAction::SwitchToTab(tab),
        _ => RowAction::Open(open_disposition(keys)),
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

/// The rows of an answer that replaces an early one while the user is on it (the pointer over its
/// rows, or the focus in one): the rows shown stay where they are — each with the answer's fresher
/// page when it still holds it, kept as shown when it does not, so no row moves or vanishes under
/// the pointer — and every page the answer adds (topic search's, the browser's) follows, in the
/// answer's order. The stored turn keeps the answer's own ranking; a later opening shows that.
pub fn kept_in_place(shown: &[RankedPage], answer: Vec<RankedPage>) -> Vec<RankedPage> {
    let mut answer: Vec<Option<RankedPage>> = answer.into_iter().map(Some).collect();
    let mut rows = Vec::with_capacity(shown.len() + answer.len());
    for page in shown {
        let fresher = answer
            .iter_mut()
            .find(|a| a.as_ref().is_some_and(|a| a.page.url == page.page.url))
            .and_then(Option::take);
        rows.push(fresher.unwrap_or_else(|| page.clone()));
    }
    rows.extend(answer.into_iter().flatten());
    rows
}

#[cfg(test)]
mod tests {

    #[test]
    fn a_tab_row_switches_to_its_tab_unless_a_key_asks_for_a_copy() {
        let open = OpenTab {
            tab_id: 3,
            window_id: 2,
        };
        let tab = Some(open);
        let plain = OpenKeys::default();
        let ctrl = OpenKeys {
            ctrl: true,
            ..plain
        };
        let shift = OpenKeys {
            shift: true,
            ..plain
        };
        let middle = OpenKeys {
            middle: true,
            ..plain
        };
        let rows: &[(OpenKeys, Option<OpenTab>, RowAction)] = &[
            (plain, tab, RowAction::SwitchToTab(open)),
            (ctrl, tab, RowAction::Open(Disposition::NewBackgroundTab)),
            (shift, tab, RowAction::Open(Disposition::CurrentTab)),
            (middle, tab, RowAction::Open(Disposition::NewBackgroundTab)),
            (plain, None, RowAction::Open(Disposition::NewForegroundTab)),
        ];
        for (keys, tab, expected) in rows {
            assert_eq!(row_action(*keys, *tab), *expected, "{keys:?} {tab:?}");
        }
    }
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

    fn ranked(url: &str, visits: u32) -> RankedPage {
        RankedPage {
            page: crate::history::Page {
                url: format!("https://{url}/"),
                title: url.to_owned(),
                last_visit_ms: 0,
                visit_count: visits,
                passage: None,
                marks: Default::default(),
            },
            reason: String::new(),
        }
    }

    #[test]
    fn the_rows_shown_stay_in_place_and_the_added_pages_follow() {
        // (shown, answer, rows: each page's name and visit count, so the fresher one is seen)
        type Case = (
            &'static [&'static str],
            &'static [&'static str],
            &'static [(&'static str, u32)],
        );
        let table: [Case; 6] = [
            // Topic search's page ranked first by the answer comes after the shown rows.
            (
                &["a", "b"],
                &["t", "a", "b"],
                &[("a", 2), ("b", 2), ("t", 2)],
            ),
            // Reordered by the answer: the shown order holds.
            (
                &["a", "b", "c"],
                &["c", "a", "b"],
                &[("a", 2), ("b", 2), ("c", 2)],
            ),
            // A shown page the answer left out (cut by the fusion) stays, as it was shown.
            (&["a", "b"], &["t", "a"], &[("a", 2), ("b", 1), ("t", 2)]),
            // Every added page follows, however many were shown.
            (
                &["a", "b", "c"],
                &["t", "u", "a"],
                &[("a", 2), ("b", 1), ("c", 1), ("t", 2), ("u", 2)],
            ),
            // Nothing shown: the answer as it is.
            (&[], &["t", "a"], &[("t", 2), ("a", 2)]),
            // The same pages: nothing moves.
            (&["a", "b"], &["a", "b"], &[("a", 2), ("b", 2)]),
        ];
        for (shown, answer, expected) in table {
            let shown: Vec<RankedPage> = shown.iter().map(|u| ranked(u, 1)).collect();
            let answer: Vec<RankedPage> = answer.iter().map(|u| ranked(u, 2)).collect();
            let rows: Vec<(String, u32)> = kept_in_place(&shown, answer.clone())
                .into_iter()
                .map(|r| (r.page.title, r.page.visit_count))
                .collect();
            let expected: Vec<(String, u32)> = expected
                .iter()
                .map(|(u, v)| ((*u).to_owned(), *v))
                .collect();
            assert_eq!(rows, expected, "shown {shown:?}, answer {answer:?}");
        }
    }
}
