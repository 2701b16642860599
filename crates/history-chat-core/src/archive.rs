//! Pages kept after Chrome forgets them (Options → "Keep pages searchable after Chrome forgets
//! them", off by default).
//!
//! Chrome deletes history older than about 90 days, and it reports that expiry through the same
//! `chrome.history.onVisitRemoved` event as a deletion by the user: Chromium dispatches the event from
//! its history-deletion observer and the extension API carries no expiry flag. So which removal is
//! an expiry must be inferred, and the inference must never keep something the user deleted.
//! [`classify`] is that rule: a removal is Chrome forgetting pages only when every URL it lists is
//! known to the index and had its newest visit at least [`EXPIRED_AFTER_MS`] ago. Everything else —
//! "clear all history", a recent page, a list mixing old and recent pages, a URL the index does not
//! know, an empty list — is the user's deletion, honoured at once, kept pages included.
//!
//! A kept page is not stored anywhere else: the index keeps it, with the knowledge that Chrome no
//! longer has it, and topic search keeps its vector because the index still holds the page. So
//! whatever removes a page from the index (a deletion, "forget kept pages", turning the option off,
//! a forget asked by a page) removes it everywhere.

use crate::history::RemovedVisits;
use crate::period::DAY_MS;

/// The age at which Chrome deletes history: `kExpireDaysThreshold` in Chromium's history backend,
/// 90 days. Chrome's expirer deletes a URL once its newest visit is older than this.
pub const CHROME_EXPIRY_MS: i64 = 90 * DAY_MS;

/// How much younger than [`CHROME_EXPIRY_MS`] a page may look and still be taken as expired: 2 days.
///
/// The margin only ever errs towards keeping a page Chrome was about to forget anyway. An expiry is
/// judged by the worker's clock when the event arrives, not by the clock Chrome's expirer used: the
/// system clock can be corrected between the two (NTP, a time-zone or daylight-saving change read by
/// a Chromium build that counts days locally), and the index's visit times are rounded down to the
/// millisecond. Without a margin, a page expired a little before its 90th day by such a difference
/// would be taken for a deletion and lost, which defeats the option. The price: a page the user
/// deletes in the last 2 days before Chrome would have forgotten it is kept — and it is shown as
/// kept, and can be removed from History Chat itself. Any page younger than 88 days is always
/// deleted when the user deletes it.
pub const EXPIRY_MARGIN_MS: i64 = 2 * DAY_MS;

/// A page whose newest visit is at least this old is one Chrome may have forgotten:
/// [`CHROME_EXPIRY_MS`] − [`EXPIRY_MARGIN_MS`] (88 days).
pub const EXPIRED_AFTER_MS: i64 = CHROME_EXPIRY_MS - EXPIRY_MARGIN_MS;

/// What an `onVisitRemoved` means, by [`classify`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Removal {
    /// Chrome forgot old pages: with the option on, the index keeps them.
    Expired,
    /// The user deleted history: honoured at once, whatever the option says.
    Deleted,
}

/// Whether `removed` is Chrome expiring old pages or the user deleting history, at `now_ms`.
///
/// `newest_visit` gives the newest visit the index knows of a raw URL (as the event lists it), or
/// `None` when the index does not hold it. Expired only when the list is not empty, is not "all
/// history", and every URL's newest visit is known and at least [`EXPIRED_AFTER_MS`] before
/// `now_ms`.
pub fn classify(
    removed: &RemovedVisits,
    newest_visit: impl Fn(&str) -> Option<i64>,
    now_ms: i64,
) -> Removal {
    if removed.all_history || removed.urls.is_empty() {
        return Removal::Deleted;
    }
    let cutoff = now_ms.saturating_sub(EXPIRED_AFTER_MS);
    let all_old = removed
        .urls
        .iter()
        .all(|url| newest_visit(url).is_some_and(|visit| visit <= cutoff));
    if all_old {
        Removal::Expired
    } else {
        Removal::Deleted
    }
}

/// Whether a page last visited at `last_visit_ms` is older than Chrome keeps history, at `now_ms`:
/// shown in the index, it is there because History Chat kept it.
pub fn past_chrome(last_visit_ms: i64, now_ms: i64) -> bool {
    last_visit_ms < now_ms.saturating_sub(CHROME_EXPIRY_MS)
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_780_000_000_000;

    fn removed(urls: &[&str]) -> RemovedVisits {
        RemovedVisits {
            all_history: false,
            urls: urls.iter().map(|u| (*u).to_owned()).collect(),
        }
    }

    /// The index of the table: two old pages, one on the edge of the margin, one just inside it,
    /// one recent page.
    fn newest(url: &str) -> Option<i64> {
        match url {
            "https://old.example/a" => Some(NOW - 120 * DAY_MS),
            "https://old.example/b" => Some(NOW - 91 * DAY_MS),
            "https://edge.example/" => Some(NOW - EXPIRED_AFTER_MS),
            "https://young.example/" => Some(NOW - EXPIRED_AFTER_MS + 1),
            "https://recent.example/" => Some(NOW - DAY_MS),
            _ => None,
        }
    }

    #[test]
    fn a_removal_is_an_expiry_only_when_every_url_is_known_and_old() {
        let rows: Vec<(&str, RemovedVisits, Removal)> = vec![
            (
                "one old page",
                removed(&["https://old.example/a"]),
                Removal::Expired,
            ),
            (
                "several old pages",
                removed(&["https://old.example/a", "https://old.example/b"]),
                Removal::Expired,
            ),
            (
                "exactly 88 days",
                removed(&["https://edge.example/"]),
                Removal::Expired,
            ),
            (
                "a millisecond under 88 days",
                removed(&["https://young.example/"]),
                Removal::Deleted,
            ),
            (
                "a recent page",
                removed(&["https://recent.example/"]),
                Removal::Deleted,
            ),
            (
                "old and recent mixed",
                removed(&["https://old.example/a", "https://recent.example/"]),
                Removal::Deleted,
            ),
            (
                "recent first, then old",
                removed(&["https://recent.example/", "https://old.example/b"]),
                Removal::Deleted,
            ),
            (
                "a URL the index does not know",
                removed(&["https://unknown.example/"]),
                Removal::Deleted,
            ),
            (
                "old and unknown mixed",
                removed(&["https://old.example/a", "https://unknown.example/"]),
                Removal::Deleted,
            ),
            ("no URL", removed(&[]), Removal::Deleted),
            (
                "all history",
                RemovedVisits {
                    all_history: true,
                    urls: Vec::new(),
                },
                Removal::Deleted,
            ),
            (
                "all history, even listing old pages",
                RemovedVisits {
                    all_history: true,
                    urls: vec!["https://old.example/a".into()],
                },
                Removal::Deleted,
            ),
        ];
        for (name, removal, expected) in rows {
            assert_eq!(classify(&removal, newest, NOW), expected, "{name}");
        }
    }

    #[test]
    fn a_clock_at_the_epoch_or_at_its_limits_never_makes_a_recent_page_expired() {
        let recent = |_: &str| Some(0);
        assert_eq!(
            classify(&removed(&["https://a/"]), recent, 0),
            Removal::Deleted
        );
        assert_eq!(
            classify(&removed(&["https://a/"]), |_| Some(0), i64::MIN),
            Removal::Deleted
        );
        assert_eq!(
            classify(&removed(&["https://a/"]), |_| Some(0), i64::MAX),
            Removal::Expired
        );
    }

    #[test]
    fn the_margin_keeps_only_pages_at_least_88_days_old() {
        assert_eq!(EXPIRED_AFTER_MS, 88 * DAY_MS);
        const { assert!(EXPIRY_MARGIN_MS > 0 && EXPIRY_MARGIN_MS < CHROME_EXPIRY_MS) };
    }

    #[test]
    fn past_chrome_is_older_than_90_days() {
        assert!(past_chrome(NOW - 91 * DAY_MS, NOW));
        assert!(!past_chrome(NOW - 90 * DAY_MS, NOW));
        assert!(!past_chrome(NOW - DAY_MS, NOW));
        assert!(!past_chrome(0, 0));
    }
}
