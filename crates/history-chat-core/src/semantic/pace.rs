//! How long topic search's build has left, at the pace a page watching it has seen: the options
//! page reads the progress every half second while the pages are being understood, and feeds each
//! reading to a [`Pace`]. The pace is the pages understood over the last [`PACE_WINDOW_MS`]; no
//! estimate is given before [`PACE_MIN_SPAN_MS`] of watching and [`PACE_MIN_PAGES`] pages
//! understood meanwhile, so a guess from one batch is never shown.

use std::collections::VecDeque;

use super::{SemanticProgress, SemanticStatus};

/// The pace is measured over this much of the latest readings.
pub const PACE_WINDOW_MS: i64 = 2 * 60 * 1000;
/// No estimate before the build has been watched this long.
pub const PACE_MIN_SPAN_MS: i64 = 10 * 1000;
/// No estimate before this many pages were understood while watched.
pub const PACE_MIN_PAGES: u32 = 3;

/// The time a build has left, in milliseconds (worded by the presentation layer).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
pub struct TimeLeft(pub i64);

/// The readings of a build's progress, and the time left they give.
#[derive(Debug, Default, Clone)]
pub struct Pace {
    /// (when, pages understood), oldest first.
    readings: VecDeque<(i64, u32)>,
}

impl Pace {
    /// Takes a reading of the progress at `now_ms`, and says how long the build has left at the
    /// pace seen: `None` while it is not building, or not watched for long enough yet.
    pub fn observe(&mut self, now_ms: i64, progress: &SemanticProgress) -> Option<TimeLeft> {
        if progress.status != SemanticStatus::Building {
            self.readings.clear();
            return None;
        }
        let went_back = self
            .readings
            .back()
            .is_some_and(|&(at, understood)| progress.understood < understood || now_ms < at);
        if went_back {
            // Turned off and on, or pages removed, or the clock moved back: start again.
            self.readings.clear();
        }
        self.readings.push_back((now_ms, progress.understood));
        // Keep the window, and always the reading just before it (the pace spans all of it).
        while self.readings.len() > 2
            && self
                .readings
                .get(1)
                .is_some_and(|&(at, _)| now_ms - at >= PACE_WINDOW_MS)
        {
            self.readings.pop_front();
        }
        let &(since, understood_then) = self.readings.front()?;
        let span = now_ms - since;
        let done = progress.understood - understood_then;
        if span < PACE_MIN_SPAN_MS || done < PACE_MIN_PAGES {
            return None;
        }
        let left = i64::from(progress.total.saturating_sub(progress.understood));
        Some(TimeLeft(left.saturating_mul(span) / i64::from(done)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn building(understood: u32, total: u32) -> SemanticProgress {
        SemanticProgress {
            status: SemanticStatus::Building,
            understood,
            total,
        }
    }

    /// Feeds (seconds, understood) readings of a build of `total` pages; the last answer.
    fn after(readings: &[(i64, u32)], total: u32) -> Option<TimeLeft> {
        let mut pace = Pace::default();
        let mut left = None;
        for &(second, understood) in readings {
            left = pace.observe(second * 1000, &building(understood, total));
        }
        left
    }

    #[test]
    fn the_time_left_is_the_pages_left_at_the_pace_seen() {
        let minutes = |m: i64| Some(TimeLeft(m * 60 * 1000));
        /// What, the (second, understood) readings, the pages in all, the time left said.
        type Row<'a> = (&'a str, &'a [(i64, u32)], u32, Option<TimeLeft>);
        let rows: &[Row] = &[
            ("no reading long enough yet", &[(0, 0), (5, 20)], 1000, None),
            (
                "too few pages understood while watched",
                &[(0, 10), (30, 12)],
                1000,
                None,
            ),
            // 4 pages a second: 960 left take 240 s.
            ("4 pages a second", &[(0, 0), (10, 40)], 1000, minutes(4)),
            (
                "the first reading counts from where it was",
                &[(0, 500), (20, 580)],
                1000,
                Some(TimeLeft(105_000)),
            ),
            ("nothing left", &[(0, 0), (10, 100)], 100, Some(TimeLeft(0))),
            // 50,000 pages at 4.2 a second, watched for a minute.
            (
                "a big history",
                &[(0, 0), (60, 252)],
                50_000,
                Some(TimeLeft(11_844_761)),
            ),
            // Only the last two minutes count: fast at first (100 in 10 s), then 1 a second.
            (
                "the pace of the last two minutes",
                &[(0, 0), (10, 100), (130, 220), (250, 340)],
                1340,
                Some(TimeLeft(1_000_000)),
            ),
        ];
        for (what, readings, total, expected) in rows {
            assert_eq!(after(readings, *total), *expected, "{what}");
        }
    }

    #[test]
    fn a_build_that_went_back_or_stopped_starts_the_pace_again() {
        let mut pace = Pace::default();
        assert_eq!(pace.observe(0, &building(0, 1000)), None);
        assert!(pace.observe(20_000, &building(100, 1000)).is_some());
        // Turned off and on: fewer pages understood than before.
        assert_eq!(pace.observe(21_000, &building(0, 1000)), None, "went back");
        assert_eq!(
            pace.observe(25_000, &building(50, 1000)),
            None,
            "4 s watched since"
        );
        assert!(pace.observe(31_000, &building(100, 1000)).is_some());
        // Ready, then building again (new visits): the old readings do not count.
        let ready = SemanticProgress {
            status: SemanticStatus::Ready,
            understood: 1000,
            total: 1000,
        };
        assert_eq!(pace.observe(40_000, &ready), None, "ready");
        assert_eq!(
            pace.observe(41_000, &building(1000, 1010)),
            None,
            "a new build"
        );
        assert_eq!(
            pace.observe(45_000, &building(1004, 1010)),
            None,
            "4 s watched"
        );
        // The clock moved back: start again rather than divide by a negative span.
        assert_eq!(
            pace.observe(1_000, &building(1005, 1010)),
            None,
            "clock back"
        );
    }
}
