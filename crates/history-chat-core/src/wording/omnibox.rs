//! The address-bar keyword's default suggestion: what Enter will do, as XML Chrome styles (the
//! catalogue's `omnibox_…` messages hold the `<match>`, `<url>` and `<dim>` tags; `%s` is Chrome's
//! stand-in for the input), and how far the index has got while it is built.

use crate::omnibox::{Answer, DefaultSuggestion, aside};

/// The default suggestion while nothing searchable is typed (and when the keyword mode starts).
pub fn prompt() -> String {
    t!("omnibox_prompt")
}

/// The default suggestion's wording.
impl Answer {
    /// For `chrome.omnibox.setDefaultSuggestion`: what Enter will do, then, while the index is
    /// built, its progress line (as of `now_ms`) dimmed.
    pub fn default_description(&self, now_ms: i64) -> String {
        let mut description = match self.default {
            DefaultSuggestion::Prompt => prompt(),
            DefaultSuggestion::OpenAddress => t!("omnibox_open_address"),
            DefaultSuggestion::HistoryEmpty => t!("omnibox_history_empty"),
            DefaultSuggestion::OpenBest => t!("omnibox_open_best"),
            DefaultSuggestion::NoMatch => t!("omnibox_no_match"),
            DefaultSuggestion::NoneYet => t!("omnibox_none_yet"),
        };
        if let Some(progress) = self.indexing {
            description.push_str(&aside(&progress.status(now_ms)));
        }
        description
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::index::IndexProgress;
    use crate::period::DAY_MS;

    const NOW: i64 = 1_800_000_000_000;

    #[test]
    fn the_default_suggestion_says_what_enter_does_and_how_far_the_index_is() {
        let building = |since_ms| {
            Some(IndexProgress {
                pages: 12,
                since_ms,
            })
        };
        let rows = [
            (
                DefaultSuggestion::Prompt,
                None,
                "Search your history: type what you remember about a page",
            ),
            (
                DefaultSuggestion::OpenBest,
                None,
                "Open the best match in your history for <match>%s</match>",
            ),
            (
                DefaultSuggestion::NoMatch,
                None,
                "No page in your history matches <match>%s</match>",
            ),
            (
                DefaultSuggestion::HistoryEmpty,
                None,
                "Your history is empty: there is nothing to search yet",
            ),
            (DefaultSuggestion::OpenAddress, None, "Open <url>%s</url>"),
            (
                DefaultSuggestion::NoneYet,
                building(Some(NOW - 3 * DAY_MS)),
                "No page found yet for <match>%s</match> <dim>(Indexing your history: 12 pages so far, back to 3 days ago…)</dim>",
            ),
            (
                DefaultSuggestion::OpenBest,
                building(None),
                "Open the best match in your history for <match>%s</match> <dim>(Indexing your history…)</dim>",
            ),
            (
                DefaultSuggestion::Prompt,
                building(None),
                "Search your history: type what you remember about a page <dim>(Indexing your history…)</dim>",
            ),
        ];
        for (default, indexing, want) in rows {
            let answer = Answer {
                default,
                indexing,
                suggestions: Vec::new(),
            };
            assert_eq!(answer.default_description(NOW), want, "{answer:?}");
        }
    }
}
