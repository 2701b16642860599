//! What a result row's actions say: the count announced as the results change, and what removing
//! a page did (or why it could not).

use crate::failure::Failure;
use crate::i18n::plural;
use crate::rows::Removal;

/// The count announced politely to screen readers as the as-you-type results change:
/// "No results", "1 result", "5 results".
pub fn result_count(count: usize) -> String {
    match count {
        0 => t!("rows_no_results"),
        n => plural("rows_results", i64::try_from(n).unwrap_or(i64::MAX), &[]),
    }
}

/// What a removal did, as the status line says it.
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
        assert_eq!(
            Removal::AlreadyGone.message("CTEs"),
            "This page was already gone from your history; it is no longer shown: CTEs"
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
