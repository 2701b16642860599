//! The periods a search can cover, and their arithmetic.

use serde::{Deserialize, Serialize};

/// Milliseconds in one hour.
pub const HOUR_MS: i64 = 60 * 60 * 1000;
/// Milliseconds in one day.
pub const DAY_MS: i64 = 24 * HOUR_MS;

/// How far back a search looks. Stored and exchanged as `24h`, `7d`, `30d`, `90d`, `all` (the values
/// of the popup's "Period" selector; `all` is offered only while pages are kept after Chrome forgets
/// them, see [`Period::choices`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default, Serialize, Deserialize)]
pub enum Period {
    /// The last 24 hours.
    #[serde(rename = "24h")]
    Day,
    /// The last 7 days.
    #[default]
    #[serde(rename = "7d")]
    Week,
    /// The last 30 days.
    #[serde(rename = "30d")]
    Month,
    /// The last 90 days: Chrome keeps about 90 days of history, so this is about everything.
    #[serde(rename = "90d")]
    Quarter,
    /// Everything the index holds, from the epoch on: with "Keep pages searchable after Chrome
    /// forgets them" on, that reaches past Chrome's 90 days.
    #[serde(rename = "all")]
    All,
}

impl Period {
    /// Every period, shortest first.
    pub const ALL: [Period; 5] = [
        Period::Day,
        Period::Week,
        Period::Month,
        Period::Quarter,
        Period::All,
    ];

    /// The periods the selectors offer: "All time" only while pages are kept after Chrome forgets
    /// them (without that it would mean the same as 3 months).
    pub fn choices(keep_forgotten: bool) -> &'static [Period] {
        if keep_forgotten {
            &Period::ALL
        } else {
            &Period::ALL[..4]
        }
    }

    /// The period to search when `self` was chosen (or stored as the default) but "All time" is no
    /// longer offered: the longest one offered.
    pub fn offered(self, keep_forgotten: bool) -> Period {
        match self {
            Period::All if !keep_forgotten => Period::Quarter,
            period => period,
        }
    }

    /// The period's length in milliseconds ([`i64::MAX`] for [`Period::All`]).
    pub const fn duration_ms(self) -> i64 {
        match self {
            Period::All => i64::MAX,
            Period::Day => DAY_MS,
            Period::Week => 7 * DAY_MS,
            Period::Month => 30 * DAY_MS,
            Period::Quarter => 90 * DAY_MS,
        }
    }

    /// The first instant the period covers, given the current time (ms since the Unix epoch).
    /// Never negative, whatever the clock says.
    pub const fn start_ms(self, now_ms: i64) -> i64 {
        let start = now_ms.saturating_sub(self.duration_ms());
        if start < 0 { 0 } else { start }
    }

    /// The value used in storage and in the selector (`24h`, `7d`, `30d`, `90d`).
    pub const fn as_str(self) -> &'static str {
        match self {
            Period::Day => "24h",
            Period::Week => "7d",
            Period::Month => "30d",
            Period::Quarter => "90d",
            Period::All => "all",
        }
    }

    /// Parses [`Period::as_str`]'s values.
    pub fn parse(value: &str) -> Option<Period> {
        Period::ALL
            .into_iter()
            .find(|period| period.as_str() == value)
    }

    /// The next longer period, to suggest when nothing was found; `None` for the longest Chrome
    /// keeps (3 months) and for "All time" (which is not always offered).
    pub const fn longer(self) -> Option<Period> {
        match self {
            Period::Day => Some(Period::Week),
            Period::Week => Some(Period::Month),
            Period::Month => Some(Period::Quarter),
            Period::Quarter | Period::All => None,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_780_000_000_000;

    #[test]
    fn start_is_now_minus_the_period() {
        for (period, days_back) in [
            (Period::Day, 1),
            (Period::Week, 7),
            (Period::Month, 30),
            (Period::Quarter, 90),
        ] {
            assert_eq!(period.start_ms(NOW), NOW - days_back * DAY_MS, "{period:?}");
        }
    }

    #[test]
    fn a_visit_ten_days_ago_is_inside_30_days_and_outside_7() {
        let visit = NOW - 10 * DAY_MS;
        assert!(visit >= Period::Month.start_ms(NOW));
        assert!(visit < Period::Week.start_ms(NOW));
    }

    #[test]
    fn start_never_goes_below_the_epoch() {
        assert_eq!(Period::Quarter.start_ms(5), 0);
        assert_eq!(Period::Day.start_ms(i64::MIN), 0);
        assert_eq!(Period::Day.start_ms(i64::MAX), i64::MAX - DAY_MS);
    }

    #[test]
    fn all_time_starts_at_the_epoch_whatever_the_clock() {
        for now in [0, 5, NOW, i64::MAX, i64::MIN] {
            assert_eq!(Period::All.start_ms(now), 0, "{now}");
        }
    }

    #[test]
    fn all_time_is_offered_only_while_pages_are_kept() {
        assert_eq!(
            Period::choices(false),
            [Period::Day, Period::Week, Period::Month, Period::Quarter]
        );
        assert_eq!(Period::choices(true), Period::ALL);
        assert_eq!(Period::All.offered(false), Period::Quarter);
        assert_eq!(Period::All.offered(true), Period::All);
        for period in Period::choices(false) {
            assert_eq!(period.offered(false), *period);
        }
    }

    #[test]
    fn values_round_trip_through_text_and_serde() {
        for period in Period::ALL {
            assert_eq!(Period::parse(period.as_str()), Some(period));
            let json = serde_json::to_string(&period).unwrap();
            assert_eq!(json, format!("\"{}\"", period.as_str()));
            assert_eq!(serde_json::from_str::<Period>(&json).unwrap(), period);
        }
        assert_eq!(Period::parse("1y"), None);
    }

    #[test]
    fn longer_walks_up_to_three_months() {
        assert_eq!(Period::Day.longer(), Some(Period::Week));
        assert_eq!(Period::Week.longer(), Some(Period::Month));
        assert_eq!(Period::Month.longer(), Some(Period::Quarter));
        assert_eq!(Period::Quarter.longer(), None);
        assert_eq!(Period::All.longer(), None);
    }
}
