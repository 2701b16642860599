//! The history as the pages name it: the periods ("Last 7 days", "the last 7 days"), how long ago
//! a page was visited ("3 days ago"), the note on a page History Chat kept after Chrome forgot it,
//! and why a history entry is not shown.

use std::fmt;

use crate::clean::Rejection;
use crate::i18n::plural;
use crate::period::{DAY_MS, HOUR_MS, Period};

/// The periods' wording, for the selectors and the sentences that name them.
impl Period {
    /// The selector's label: "Last 7 days".
    pub fn label(self) -> String {
        match self {
            Period::Day => t!("period_day"),
            Period::Week => t!("period_week"),
            Period::Month => t!("period_month"),
            Period::Quarter => t!("period_quarter"),
            Period::All => t!("period_all"),
        }
    }

    /// The label inside a sentence: "the last 7 days".
    pub fn phrase(self) -> String {
        match self {
            Period::Day => t!("period_day_phrase"),
            Period::Week => t!("period_week_phrase"),
            Period::Month => t!("period_month_phrase"),
            Period::Quarter => t!("period_quarter_phrase"),
            Period::All => t!("period_all_phrase"),
        }
    }
}

/// "just now", "5 minutes ago", "3 hours ago", "yesterday", "3 days ago", "2 weeks ago",
/// "4 months ago", "2 years ago" — in the UI's language ("il y a 3 jours"). A time in the future
/// (clock skew) reads "just now".
pub fn relative_time(now_ms: i64, then_ms: i64) -> String {
    let ago = now_ms.saturating_sub(then_ms).max(0);
    match ago {
        _ if ago < 60_000 => t!("time_just_now"),
        _ if ago < HOUR_MS => plural("time_minutes_ago", ago / 60_000, &[]),
        _ if ago < DAY_MS => plural("time_hours_ago", ago / HOUR_MS, &[]),
        _ if ago < 2 * DAY_MS => t!("time_yesterday"),
        _ if ago < 14 * DAY_MS => plural("time_days_ago", ago / DAY_MS, &[]),
        _ if ago < 60 * DAY_MS => plural("time_weeks_ago", ago / (7 * DAY_MS), &[]),
        _ if ago < 365 * DAY_MS => plural("time_months_ago", ago / (30 * DAY_MS), &[]),
        _ => plural("time_years_ago", ago / (365 * DAY_MS), &[]),
    }
}

/// What a result row says of a page History Chat kept after Chrome forgot it
/// ([`crate::archive::past_chrome`]).
pub fn kept_note() -> String {
    t!("archive_kept_note")
}

/// Why a history entry is not shown, as a phrase.
impl fmt::Display for Rejection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&match self {
            Rejection::Invalid => t!("clean_invalid"),
            Rejection::NotWebPage { scheme } => t!("clean_not_web_page", scheme),
            Rejection::GoogleSearch => t!("clean_google_search"),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn relative_times() {
        let now = 1_780_000_000_000;
        let rows: &[(i64, &str)] = &[
            (-5_000, "just now"),
            (0, "just now"),
            (59_000, "just now"),
            (60_000, "1 minute ago"),
            (5 * 60_000, "5 minutes ago"),
            (HOUR_MS, "1 hour ago"),
            (3 * HOUR_MS, "3 hours ago"),
            (DAY_MS, "yesterday"),
            (3 * DAY_MS, "3 days ago"),
            (10 * DAY_MS, "10 days ago"),
            (15 * DAY_MS, "2 weeks ago"),
            (90 * DAY_MS, "3 months ago"),
            (800 * DAY_MS, "2 years ago"),
        ];
        for (ago, expected) in rows {
            assert_eq!(relative_time(now, now - ago), *expected, "{ago} ms ago");
        }
        assert!(relative_time(i64::MAX, i64::MIN).ends_with(" years ago"));
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))] // natively, the catalogues are compiled in
    fn relative_times_in_french() {
        let now = 1_780_000_000_000;
        let rows: &[(i64, &str)] = &[
            (0, "à l’instant"),
            (60_000, "il y a 1 minute"),
            (5 * 60_000, "il y a 5 minutes"),
            (3 * HOUR_MS, "il y a 3 heures"),
            (DAY_MS, "hier"),
            (3 * DAY_MS, "il y a 3 jours"),
            (15 * DAY_MS, "il y a 2 semaines"),
            (90 * DAY_MS, "il y a 3 mois"),
            (400 * DAY_MS, "il y a 1 an"),
            (800 * DAY_MS, "il y a 2 ans"),
        ];
        crate::i18n::with_catalogue(
            crate::i18n::Catalogue::parse(crate::i18n::FRENCH_CATALOGUE).unwrap(),
            || {
                for (ago, expected) in rows {
                    assert_eq!(relative_time(now, now - ago), *expected, "{ago} ms ago");
                }
            },
        );
    }
}
