//! The engines' progress: the index's lines while it is built (the popup's status, the notices
//! over what it found) and topic search's (the options page's line, the popup's quiet one).

use super::history::relative_time;
use super::pages;
use crate::i18n::number;
use crate::index::IndexProgress;
use crate::semantic::{SemanticProgress, SemanticStatus, TimeLeft, UnavailableReason};

/// The index's wording, for the popup.
impl IndexProgress {
    /// The popup's line while the index is built: "Indexing your history: 12,345 pages so far,
    /// back to 3 days ago…".
    pub fn status(&self, now_ms: i64) -> String {
        match self.since_ms {
            None => t!("index_indexing"),
            Some(since) => t!(
                "index_indexing_back_to",
                pages(self.pages),
                relative_time(now_ms, since)
            ),
        }
    }

    /// The notice over what the incomplete index found (perhaps nothing yet), shown at once while
    /// the browser's search is still running.
    pub fn filling_in(&self) -> String {
        t!("index_filling_in")
    }

    /// The notice above results the index could not give alone.
    pub fn notice(&self) -> String {
        match self.since_ms {
            None => t!("index_meanwhile_browser"),
            Some(_) => t!("index_browser_fills_in"),
        }
    }
}

/// Topic search's wording, for the options page and the popup.
impl SemanticProgress {
    /// The options page's line under the switch.
    pub fn options_line(&self) -> String {
        match self.status {
            SemanticStatus::Off => t!("topic_off"),
            SemanticStatus::Loading => t!("topic_starting"),
            SemanticStatus::Building => t!(
                "topic_building",
                number(i64::from(self.understood)),
                pages(self.total as usize)
            ),
            SemanticStatus::Paused => t!(
                "topic_paused",
                number(i64::from(self.understood)),
                pages(self.total as usize)
            ),
            SemanticStatus::Ready => t!("topic_ready", pages(self.understood as usize)),
            SemanticStatus::Unavailable(reason) => t!("topic_unavailable", unavailable(reason)),
            SemanticStatus::StorageFull => t!("topic_storage_full"),
        }
    }

    /// The options page's line, with the time the build has left where it is known.
    pub fn options_line_left(&self, left: Option<TimeLeft>) -> String {
        match (self.status, left) {
            (SemanticStatus::Building, Some(left)) => t!(
                "topic_building_left",
                number(i64::from(self.understood)),
                pages(self.total as usize),
                left.words()
            ),
            _ => self.options_line(),
        }
    }

    /// The popup's quiet line while topic search cannot answer for everything yet; `None` once
    /// it can (or when it is off).
    pub fn popup_line(&self) -> Option<String> {
        match self.status {
            SemanticStatus::Off | SemanticStatus::Ready => None,
            SemanticStatus::Loading => Some(t!("topic_starting")),
            SemanticStatus::Building => Some(t!(
                "topic_popup_building",
                number(i64::from(self.understood)),
                pages(self.total as usize)
            )),
            SemanticStatus::Paused => Some(t!(
                "topic_popup_paused",
                number(i64::from(self.understood)),
                pages(self.total as usize)
            )),
            SemanticStatus::Unavailable(_) => Some(t!("topic_popup_unavailable")),
            SemanticStatus::StorageFull => Some(t!("topic_popup_storage_full")),
        }
    }
}

/// A build's time left, in words: "about 12 min left", "about 3 h 10 min left".
impl TimeLeft {
    /// Minutes rounded up under an hour; to ten minutes under ten hours; hours beyond.
    pub fn words(&self) -> String {
        const MINUTE: i64 = 60 * 1000;
        let ms = self.0.max(0);
        if ms < MINUTE {
            return t!("time_left_under_minute");
        }
        let minutes = (ms + MINUTE - 1) / MINUTE;
        if minutes < 60 {
            return t!("time_left_minutes", number(minutes));
        }
        if minutes < 10 * 60 {
            let tens = (minutes + 5) / 10;
            let (hours, rest) = (tens / 6, tens % 6 * 10);
            return if rest == 0 {
                t!("time_left_hours", number(hours))
            } else {
                t!("time_left_hours_minutes", number(hours), number(rest))
            };
        }
        t!("time_left_hours", number((minutes + 30) / 60))
    }
}

fn unavailable(reason: UnavailableReason) -> String {
    match reason {
        UnavailableReason::ModelMissing => t!("topic_unavailable_model_missing"),
        UnavailableReason::ModelCorrupt => t!("topic_unavailable_model_corrupt"),
        UnavailableReason::Unsupported => t!("topic_unavailable_unsupported"),
        UnavailableReason::ModelFailing => t!("topic_unavailable_model_failing"),
        UnavailableReason::StoreFailing => t!("topic_unavailable_store_failing"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_index_progress_line_says_how_many_pages_and_how_far_back() {
        const NOW: i64 = 1_780_000_000_000;
        let day = crate::period::DAY_MS;
        let rows: &[(usize, Option<i64>, &str)] = &[
            (0, None, "Indexing your history…"),
            (
                1,
                Some(NOW),
                "Indexing your history: 1 page so far, back to just now…",
            ),
            (
                12_345,
                Some(NOW - 3 * day),
                "Indexing your history: 12,345 pages so far, back to 3 days ago…",
            ),
            (
                1_000_000,
                Some(NOW - 3 * day),
                "Indexing your history: 1,000,000 pages so far, back to 3 days ago…",
            ),
            (
                999,
                Some(NOW - 3 * day),
                "Indexing your history: 999 pages so far, back to 3 days ago…",
            ),
        ];
        for &(pages, since_ms, expected) in rows {
            assert_eq!(IndexProgress { pages, since_ms }.status(NOW), expected);
        }
    }

    #[test]
    fn the_notices_say_whether_chrome_fills_in() {
        let building = IndexProgress {
            pages: 3,
            since_ms: Some(5),
        };
        let rows: &[(String, &str)] = &[
            (
                IndexProgress::default().notice(),
                "Indexing your history… meanwhile these come from Chrome's own search.",
            ),
            (
                building.notice(),
                "Indexing your history… Chrome's own search fills in the pages not indexed yet.",
            ),
            (
                building.filling_in(),
                "Indexing your history… Chrome's own search is filling in.",
            ),
        ];
        for (said, expected) in rows {
            assert_eq!(said, expected);
        }
    }

    #[test]
    fn topic_search_is_worded_for_the_options_page_and_quietly_for_the_popup() {
        let progress = |status, understood, total| SemanticProgress {
            status,
            understood,
            total,
        };
        let rows = [
            (
                progress(SemanticStatus::Off, 0, 0),
                "Topic search is off.",
                None,
            ),
            (
                progress(SemanticStatus::Loading, 0, 0),
                "Topic search is starting…",
                Some("Topic search is starting…"),
            ),
            (
                progress(SemanticStatus::Building, 1_234, 50_000),
                "Understanding your history: 1,234 of 50,000 pages so far. What is understood is already searchable.",
                Some("Topic search has understood 1,234 of 50,000 pages so far."),
            ),
            (
                progress(SemanticStatus::Paused, 1_234, 50_000),
                "Topic search is paused while your computer runs on a low battery: 1,234 of 50,000 pages understood so far, and searchable. It goes on once the computer is charging.",
                Some(
                    "Topic search is paused while the battery is low (1,234 of 50,000 pages understood).",
                ),
            ),
            (
                progress(SemanticStatus::Ready, 1, 1),
                "Topic search is ready: 1 page understood.",
                None,
            ),
            (
                progress(
                    SemanticStatus::Unavailable(UnavailableReason::ModelMissing),
                    0,
                    9,
                ),
                "Topic search is unavailable: the on-device model's file is missing from the extension (reinstall it). Word search still works.",
                Some("Topic search is unavailable (see Options); word search works."),
            ),
            (
                progress(SemanticStatus::StorageFull, 2, 9),
                "Topic search is paused: the browser's storage for this extension is full. Free some space (or remove history), then reopen the browser; word search still works.",
                Some("Topic search is paused: the browser's storage is full (see Options)."),
            ),
        ];
        for (progress, options, popup) in rows {
            assert_eq!(progress.options_line(), options, "{progress:?}");
            assert_eq!(progress.popup_line().as_deref(), popup, "{progress:?}");
            // The time left is said only while building.
            let left = progress.options_line_left(Some(TimeLeft(90_000)));
            if progress.status == SemanticStatus::Building {
                assert_eq!(
                    left,
                    "Understanding your history: 1,234 of 50,000 pages so far, about 2 min left. What is understood is already searchable."
                );
            } else {
                assert_eq!(left, options, "{progress:?}");
            }
        }
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))] // natively, the catalogues are compiled in
    fn the_time_left_is_rounded_as_a_person_would_say_it() {
        const MIN: i64 = 60 * 1000;
        let rows: &[(i64, &str, &str)] = &[
            (-5, "less than a minute left", "encore moins d’une minute"),
            (
                59_999,
                "less than a minute left",
                "encore moins d’une minute",
            ),
            (MIN, "about 1 min left", "encore environ 1 min"),
            (MIN + 1, "about 2 min left", "encore environ 2 min"),
            (59 * MIN, "about 59 min left", "encore environ 59 min"),
            (60 * MIN, "about 1 h left", "encore environ 1 h"),
            (64 * MIN, "about 1 h left", "encore environ 1 h"),
            (
                65 * MIN,
                "about 1 h 10 min left",
                "encore environ 1 h 10 min",
            ),
            (
                198 * MIN,
                "about 3 h 20 min left",
                "encore environ 3 h 20 min",
            ),
            (
                9 * 60 * MIN + 56 * MIN,
                "about 10 h left",
                "encore environ 10 h",
            ),
            (
                10 * 60 * MIN + 29 * MIN,
                "about 10 h left",
                "encore environ 10 h",
            ),
            (
                1_000 * 60 * MIN,
                "about 1,000 h left",
                "encore environ 1\u{202f}000 h",
            ),
        ];
        for &(ms, english, _) in rows {
            assert_eq!(TimeLeft(ms).words(), english, "{ms} ms");
        }
        crate::i18n::with_catalogue(
            crate::i18n::Catalogue::parse(crate::i18n::FRENCH_CATALOGUE).unwrap(),
            || {
                for &(ms, _, french) in rows {
                    assert_eq!(TimeLeft(ms).words(), french, "{ms} ms");
                }
            },
        );
    }
}
