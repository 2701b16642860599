//! What a search says of its outcome: how many pages it found, or that nothing matched and what to
//! try next (a longer period, other words, another site), and the line while typing when nothing
//! matches yet; the question's `site:` filter as those lines name it, and the line about `site:`
//! terms that are no filter.

use crate::i18n::plural;
use crate::origin::Origin;
use crate::period::Period;
use crate::site_filter::{self, Site, SiteFilter, SiteQuestion};

/// What the status line says after a search: "3 pages found", or why nothing was.
pub fn outcome_message(question: &str, period: Period, found: usize) -> String {
    match found {
        0 => no_results_message(question, period),
        n => plural("search_pages_found", n as i64, &[]),
    }
}

/// The line while typing when the index matches nothing yet, naming the `site:` filter if any:
/// `No match yet from github.com — press Enter to search.`
pub fn no_match_yet(question: &str) -> String {
    let scope = site_filter::parse(question).filter.scope();
    match scope.is_empty() {
        true => t!("search_no_match_yet"),
        false => t!("search_no_match_yet_from", scope),
    }
}

/// The answer when nothing was found, with what to try next. A `site:` filter is named, and the
/// question's words are quoted without it.
///
/// `Nothing in the last 7 days matches “foo” — try the last 30 days.`
/// `Nothing from github.com in the last 7 days matches “foo” — try the last 30 days.`
pub fn no_results_message(question: &str, period: Period) -> String {
    let asked = site_filter::parse(question);
    let words = asked.words.trim();
    // Only bookmarks or open tabs asked for: no period applies, and their switches may be off.
    if !asked.origins.allows(Origin::History) {
        return match words.is_empty() {
            true => t!("search_nothing_places"),
            false => t!("search_nothing_places_matches", words),
        };
    }
    let from = asked.filter.scope();
    let what = match (words.is_empty(), from.is_empty()) {
        (true, true) => t!("search_nothing_in_period", period.phrase()),
        (true, false) => t!("search_nothing_from_in_period", from, period.phrase()),
        (false, true) => t!("search_nothing_matches", period.phrase(), words),
        (false, false) => t!("search_nothing_from_matches", from, period.phrase(), words),
    };
    match period.longer() {
        Some(longer) => t!("search_try_period", what, longer.phrase()),
        None if words.is_empty() && from.is_empty() => t!("search_nothing_end", what),
        None if words.is_empty() => t!("search_try_site", what),
        None if from.is_empty() => t!("search_try_words", what),
        None => t!("search_try_words_or_site", what),
    }
}

/// The `site:` filter as the search lines name it.
impl SiteFilter {
    /// "from github.com", "from a.com or b.com (but not c.com)", "outside x.com", or nothing:
    /// for the user's messages.
    pub fn scope(&self) -> String {
        let names = |sites: &[Site]| {
            sites
                .iter()
                .map(Site::label)
                .collect::<Vec<_>>()
                .join(&t!("site_or"))
        };
        match (self.include.is_empty(), self.exclude.is_empty()) {
            (false, true) => t!("site_from", names(&self.include)),
            (true, false) => t!("site_outside", names(&self.exclude)),
            (false, false) => t!(
                "site_from_but_not",
                names(&self.include),
                names(&self.exclude)
            ),
            (true, true) => String::new(),
        }
    }
}

/// The question's bad `site:` terms, as the popup says them.
impl SiteQuestion {
    /// The plain line about the bad terms, if any: "“site:https://” is not a site filter
    /// (write site:example.com), so it was searched as words."
    pub fn rejected_notice(&self) -> Option<String> {
        let quoted: Vec<String> = self
            .rejected
            .iter()
            .map(|term| t!("quoted", term))
            .collect();
        match quoted.as_slice() {
            [] => None,
            [one] => Some(t!("site_rejected_one", one)),
            many => Some(t!(
                "site_rejected_many",
                many.join(&t!("site_list_separator"))
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_search_says_what_it_found_or_what_to_try_next() {
        let rows: &[(&str, Period, usize, &str)] = &[
            ("cte", Period::Week, 3, "3 pages found"),
            ("cte", Period::Week, 1, "1 page found"),
            (
                "foo",
                Period::Week,
                0,
                "Nothing in the last 7 days matches “foo” — try the last 30 days.",
            ),
            (
                "foo",
                Period::Day,
                0,
                "Nothing in the last 24 hours matches “foo” — try the last 7 days.",
            ),
            (
                "tab: foo",
                Period::Day,
                0,
                "No bookmark or open tab matches “foo”. They are searched only when their switches are on: Options → Bookmarks and open tabs.",
            ),
            (
                "favori:",
                Period::Day,
                0,
                "No bookmark or open tab to show. They are searched only when their switches are on: Options → Bookmarks and open tabs.",
            ),
            (
                "foo",
                Period::Quarter,
                0,
                "Nothing in the last 3 months matches “foo” — try fewer or other words.",
            ),
            (
                "  ",
                Period::Month,
                0,
                "Nothing in your history for the last 30 days — try the last 3 months.",
            ),
            (
                "",
                Period::Quarter,
                0,
                "Nothing in your history for the last 3 months.",
            ),
            (
                "site:github.com cte  cycles",
                Period::Week,
                0,
                "Nothing from github.com in the last 7 days matches “cte cycles” — try the last 30 days.",
            ),
            (
                "site:github.com",
                Period::Week,
                0,
                "Nothing from github.com in the last 7 days — try the last 30 days.",
            ),
            (
                "site:github.com",
                Period::Quarter,
                0,
                "Nothing from github.com in the last 3 months — try another site.",
            ),
            (
                "cte site:a.com site:b.com",
                Period::Quarter,
                0,
                "Nothing from a.com or b.com in the last 3 months matches “cte” — try fewer or other words, or another site.",
            ),
            (
                "-site:a.com cte",
                Period::Day,
                0,
                "Nothing outside a.com in the last 24 hours matches “cte” — try the last 7 days.",
            ),
            (
                "site:https:// cte",
                Period::Day,
                0,
                "Nothing in the last 24 hours matches “site:https:// cte” — try the last 7 days.",
            ),
        ];
        for (question, period, found, expected) in rows {
            assert_eq!(outcome_message(question, *period, *found), *expected);
        }
        assert_eq!(no_match_yet("cte"), "No match yet — press Enter to search.");
        assert_eq!(
            no_match_yet("site:github.com cte"),
            "No match yet from github.com — press Enter to search."
        );
    }

    #[test]
    fn a_filter_is_named_by_its_sites_and_bad_terms_are_said_plainly() {
        let rows = [
            (
                "site:BÜCHER.de:8080 -site:xn--i-7iq.ws",
                "from bücher.de:8080 (but not i❤.ws)",
            ),
            (
                "site:github.com rust site:GITLAB.com site:www.github.com -site:gist.github.com",
                "from github.com or gitlab.com (but not gist.github.com)",
            ),
            ("-site:x.com", "outside x.com"),
            ("cte", ""),
        ];
        for (question, scope) in rows {
            assert_eq!(
                site_filter::parse(question).filter.scope(),
                scope,
                "{question}"
            );
        }
        let rows = [
            ("site:github.com cte", None),
            (
                "site:https:// site:github.com cte",
                Some(
                    "“site:https://” is not a site filter (write site:example.com), so it was searched as words.",
                ),
            ),
            (
                "site: site:*.*",
                Some(
                    "“site:”, “site:*.*” are not site filters (write site:example.com), so they were searched as words.",
                ),
            ),
        ];
        for (question, notice) in rows {
            assert_eq!(
                site_filter::parse(question).rejected_notice().as_deref(),
                notice,
                "{question}"
            );
        }
    }
}
