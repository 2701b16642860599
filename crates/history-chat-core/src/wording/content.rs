//! Reading pages, as the options page says it: the content store's line (how many pages are read,
//! the room they take, how far their passages are understood), the catch-up's line, and what a
//! catch-up would ask for before it starts.

use super::pages;
use crate::catch_up::Reach;
use crate::content::{ContentProgress, ContentStatus};
use crate::i18n::{number, plural};
use crate::messages::{CatchUpSummary, ContentState};
use crate::semantic::UnavailableReason;
use crate::settings::ContentCap;

/// The options page's line under the content switch.
pub fn state_line(state: &ContentState) -> String {
    let progress = &state.progress;
    if progress.status != ContentStatus::Off && !state.access {
        return t!("content_no_access");
    }
    let held = || {
        t!(
            "content_held",
            pages(progress.pages as usize),
            size(progress.bytes)
        )
    };
    let line = match progress.status {
        ContentStatus::Off => t!("content_off"),
        ContentStatus::Loading => t!("content_loading"),
        ContentStatus::Reading if progress.passages_embedded < progress.passages_total => t!(
            "content_understanding",
            held(),
            number(i64::from(progress.passages_embedded)),
            number(i64::from(progress.passages_total))
        ),
        ContentStatus::Paused => t!(
            "content_paused",
            held(),
            number(i64::from(progress.passages_embedded)),
            number(i64::from(progress.passages_total))
        ),
        ContentStatus::Reading | ContentStatus::Ready => held(),
        ContentStatus::StorageFull => t!("content_storage_full", held()),
        ContentStatus::Unavailable(_) => t!("content_store_failing", held()),
    };
    match progress.model {
        Some(reason) if progress.status != ContentStatus::Off => {
            format!("{line} {}", t!("content_words_only", model(reason)))
        }
        _ => line,
    }
}

/// Whether the options page shows a progress bar for the content's passages (while some wait
/// for the model), and its value and maximum.
pub fn understanding(progress: &ContentProgress) -> Option<(u32, u32)> {
    (progress.status == ContentStatus::Reading
        && progress.model.is_none()
        && progress.passages_embedded < progress.passages_total)
        .then_some((progress.passages_embedded, progress.passages_total))
}

/// The catch-up's line: how far it has got, or how it ended.
pub fn catch_up_line(state: &ContentState) -> Option<String> {
    let catch_up = state.catch_up?;
    let done = number(catch_up.done() as i64);
    let total = number(catch_up.total as i64);
    let unread = catch_up.skipped + catch_up.failed;
    Some(match (catch_up.running, unread) {
        (true, _) => match catch_up.reach {
            Reach::Days(days) => {
                t!(
                    "content_catch_up_running",
                    number(i64::from(days)),
                    done,
                    total
                )
            }
            Reach::Bookmarks => t!("content_catch_up_bookmarks_running", done, total),
        },
        (false, 0) if catch_up.done() == catch_up.total => {
            plural("content_catch_up_done", catch_up.total as i64, &[])
        }
        (false, _) if catch_up.done() < catch_up.total => t!(
            "content_catch_up_cancelled",
            number(catch_up.read as i64),
            total
        ),
        (false, _) => t!(
            "content_catch_up_done_some",
            number(catch_up.read as i64),
            total,
            plural("content_catch_up_unread", unread as i64, &[])
        ),
    })
}

/// What a catch-up would ask for, said before it starts: how many pages, from which sites (the
/// first few named), and how.
pub fn plan_line(plan: &CatchUpSummary) -> String {
    if plan.pages == 0 {
        return match plan.reach {
            Reach::Days(days) => t!("content_plan_nothing", number(i64::from(days))),
            Reach::Bookmarks => t!("content_plan_bookmarks_nothing"),
        };
    }
    const NAMED: usize = 5;
    let named: Vec<String> = plan
        .sites
        .iter()
        .take(NAMED)
        .map(|(site, count)| t!("content_plan_site", site, number(*count as i64)))
        .collect();
    let mut sites = named.join(", ");
    let others = plan.sites.len().saturating_sub(NAMED);
    if others > 0 {
        sites = t!("content_plan_more_sites", sites, number(others as i64));
    }
    let count = pages(plan.pages);
    let from = plural("content_plan_sites", plan.sites.len() as i64, &[]);
    match plan.reach {
        Reach::Days(_) => t!("content_plan", count, from, sites),
        Reach::Bookmarks => t!("content_plan_bookmarks", count, from, sites),
    }
}

/// The options page's refusal of a typed cap: the bounds it must be within.
pub fn cap_refused() -> String {
    t!(
        "options_content_cap_refused",
        number(i64::from(ContentCap::MIN_MB)),
        number(i64::from(ContentCap::MAX_MB))
    )
}

/// A size in storage, as the user counts it: "820 KB", "12.5 MB", "1.2 GB".
pub fn size(bytes: u64) -> String {
    const KB: u64 = 1_000;
    const MB: u64 = 1_000_000;
    const GB: u64 = 1_000_000_000;
    // One decimal under 100 of a unit, none above: "12.5 MB", "250 MB".
    let scaled = |unit: u64| -> String {
        let tenths = (bytes.saturating_mul(10) + unit / 2) / unit;
        match tenths {
            0..1_000 if !tenths.is_multiple_of(10) => {
                t!(
                    "size_decimal",
                    number((tenths / 10) as i64),
                    (tenths % 10).to_string()
                )
            }
            _ => number(((bytes + unit / 2) / unit) as i64),
        }
    };
    match bytes {
        0..MB => t!("size_kb", number(((bytes + KB / 2) / KB) as i64)),
        MB..GB => t!("size_mb", scaled(MB)),
        _ => t!("size_gb", scaled(GB)),
    }
}

fn model(reason: UnavailableReason) -> String {
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
    use crate::catch_up::Progress;

    fn state(status: ContentStatus, embedded: u32, total: u32) -> ContentState {
        ContentState {
            progress: ContentProgress {
                status,
                pages: 1_234,
                passages_embedded: embedded,
                passages_total: total,
                bytes: 12_500_000,
                model: None,
            },
            catch_up: None,
            access: true,
            bookmarks: false,
        }
    }

    #[test]
    fn the_switch_s_line_says_what_is_read_and_what_it_takes() {
        let no_model = ContentState {
            progress: ContentProgress {
                model: Some(UnavailableReason::Unsupported),
                ..state(ContentStatus::Ready, 0, 40).progress
            },
            ..state(ContentStatus::Ready, 0, 40)
        };
        let revoked = ContentState {
            access: false,
            ..state(ContentStatus::Ready, 9, 9)
        };
        let rows = [
            (state(ContentStatus::Off, 0, 0), "Off: no page is read."),
            (
                state(ContentStatus::Loading, 0, 0),
                "Loading the pages read so far…",
            ),
            (
                state(ContentStatus::Reading, 300, 900),
                "1,234 pages read (12.5 MB). Understanding their passages: 300 of 900.",
            ),
            (
                state(ContentStatus::Paused, 300, 900),
                "1,234 pages read (12.5 MB). Understanding their passages is paused while your computer runs on a low battery (300 of 900); it goes on once the computer is charging.",
            ),
            (
                state(ContentStatus::Ready, 900, 900),
                "1,234 pages read (12.5 MB).",
            ),
            (
                state(ContentStatus::StorageFull, 900, 900),
                "1,234 pages read (12.5 MB). Paused: the browser's storage for this extension is full.",
            ),
            (
                no_model,
                "1,234 pages read (12.5 MB). They are found by their words only: this browser cannot run the on-device model.",
            ),
            (
                revoked,
                "Chrome no longer lets History Chat read the sites (access was taken back in chrome://extensions). Allow it again with the button below.",
            ),
        ];
        for (state, line) in rows {
            assert_eq!(state_line(&state), line, "{state:?}");
        }
        assert_eq!(
            understanding(&state(ContentStatus::Reading, 300, 900).progress),
            Some((300, 900))
        );
        assert_eq!(
            understanding(&state(ContentStatus::Ready, 900, 900).progress),
            None
        );
    }

    #[test]
    fn the_catch_up_s_line_says_how_far_and_how_it_ended() {
        let with = |catch_up: Progress| ContentState {
            catch_up: Some(catch_up),
            ..state(ContentStatus::Reading, 1, 2)
        };
        let run = Progress {
            reach: Reach::Days(30),
            total: 150,
            read: 10,
            skipped: 1,
            failed: 1,
            running: true,
            out: 2,
        };
        let rows = [
            (
                run,
                "Reading the pages of the last 30 days again: 12 of 150 done.",
            ),
            (
                Progress {
                    read: 150,
                    skipped: 0,
                    failed: 0,
                    running: false,
                    ..run
                },
                "Done: the 150 pages were read.",
            ),
            (
                Progress {
                    reach: Reach::Bookmarks,
                    total: 1,
                    read: 1,
                    skipped: 0,
                    failed: 0,
                    running: false,
                    out: 0,
                },
                "Done: the page was read.",
            ),
            (
                Progress {
                    read: 140,
                    skipped: 6,
                    failed: 4,
                    running: false,
                    ..run
                },
                "Done: 140 of 150 pages read (10 had nothing to read or did not answer).",
            ),
            (
                Progress {
                    running: false,
                    ..run
                },
                "Stopped: 10 of 150 pages were read.",
            ),
            (
                Progress {
                    reach: Reach::Bookmarks,
                    ..run
                },
                "Reading your bookmarked pages: 12 of 150 done.",
            ),
        ];
        for (catch_up, line) in rows {
            assert_eq!(catch_up_line(&with(catch_up)).as_deref(), Some(line));
        }
        assert_eq!(catch_up_line(&state(ContentStatus::Ready, 1, 1)), None);
    }

    #[test]
    fn a_plan_names_the_pages_and_the_first_sites() {
        let planned = |reach, pages, sites: &[(&str, usize)]| CatchUpSummary {
            reach,
            pages,
            sites: sites.iter().map(|(s, n)| ((*s).to_owned(), *n)).collect(),
        };
        let plan = |pages, sites: &[(&str, usize)]| planned(Reach::Days(7), pages, sites);
        let rows = [
            (plan(0, &[]), "No page of the last 7 days is left to read."),
            (
                planned(Reach::Bookmarks, 0, &[]),
                "Every bookmarked page is read already.",
            ),
            (
                planned(Reach::Bookmarks, 2, &[("a.example", 2)]),
                "This will download 2 pages from 1 site (a.example: 2), without your cookies, two at a time and at most one a second per site. Each bookmark you add from now on is read too.",
            ),
            (
                plan(3, &[("a.example", 3)]),
                "This will download 3 pages again from 1 site (a.example: 3), without your cookies, two at a time and at most one a second per site.",
            ),
            (
                plan(
                    21,
                    &[("a", 6), ("b", 5), ("c", 4), ("d", 3), ("e", 2), ("f", 1)],
                ),
                "This will download 21 pages again from 6 sites (a: 6, b: 5, c: 4, d: 3, e: 2 and 1 more), without your cookies, two at a time and at most one a second per site.",
            ),
        ];
        for (plan, line) in rows {
            assert_eq!(plan_line(&plan), line, "{plan:?}");
        }
    }

    #[test]
    fn a_refused_cap_names_the_bounds() {
        assert_eq!(
            cap_refused(),
            "The room must be a whole number of MB from 50 to 10,000: nothing was saved."
        );
    }

    #[test]
    fn sizes_read_as_people_count_them() {
        let rows = [
            (0, "0 KB"),
            (999, "1 KB"),
            (820_000, "820 KB"),
            (12_500_000, "12.5 MB"),
            (12_000_000, "12 MB"),
            (250_000_000, "250 MB"),
            (1_200_000_000, "1.2 GB"),
        ];
        for (bytes, said) in rows {
            assert_eq!(size(bytes), said, "{bytes}");
        }
    }
}
