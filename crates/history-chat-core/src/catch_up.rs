//! Reading again the pages visited before content search was on: the options page's "Read the
//! pages of the last 7 / 30 days". The pages are downloaded again from their sites, which is the
//! one time History Chat asks a site for anything, and only because the user asked; so it is
//! gentle and it says first what it will do.
//!
//! - [`plan`]: which pages ([`Plan`]: the history's pages of the period, newest first, minus
//!   those already read and those of excluded sites), and how many per site, shown before it
//!   starts.
//! - [`CatchUp`]: the run, as a pure schedule the worker follows: at most [`CONCURRENCY`]
//!   downloads at a time and one request per site every [`SITE_INTERVAL_MS`]; each page ends read,
//!   skipped (nothing readable, not a page) or failed (the site did not answer); cancellable; kept
//!   in `chrome.storage.local` ([`CatchUp::to_stored`]) so a worker restart resumes it where it was.
//!
//! No clock, no I/O: the worker passes the time in and does the downloads.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};

use serde::{Deserialize, Serialize};

use crate::address::web_address;
use crate::exclusions::Exclusions;
use crate::history::Page;
use crate::period::DAY_MS;

/// Downloads at a time: two keep a catch-up of a month's pages to tens of minutes on an ordinary
/// connection without competing with the user's own browsing (Chrome opens six connections per
/// host; we take two in all).
pub const CONCURRENCY: usize = 2;

/// The least time between two requests to one site: a site is asked for at most one page a
/// second, far below what any site treats as a crawler's load.
pub const SITE_INTERVAL_MS: i64 = 1_000;

/// The periods offered: the last 7 and the last 30 days.
pub const DAYS: [u32; 2] = [7, 30];

/// The `chrome.storage.local` key of a catch-up in progress.
pub const STORAGE_KEY: &str = "content-catch-up";

/// What a catch-up would read, shown before it starts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// The period, in days.
    pub days: u32,
    /// The pages' addresses, newest visit first.
    pub urls: Vec<String>,
    /// The sites asked, each with its number of pages, most pages first (ties by name).
    pub sites: Vec<(String, usize)>,
}

/// The catch-up of the last `days` days: the pages of `pages` (the history as the index holds
/// it) visited since `now_ms − days`, newest first, without those already `read` and those
/// `excluded` (only `http(s)` pages are in the index).
pub fn plan(
    pages: &[Page],
    read: &HashSet<String>,
    excluded: &Exclusions,
    days: u32,
    now_ms: i64,
) -> Plan {
    let since = now_ms.saturating_sub(i64::from(days).saturating_mul(DAY_MS));
    let mut chosen: Vec<&Page> = pages
        .iter()
        .filter(|page| page.last_visit_ms >= since)
        .filter(|page| !read.contains(&page.url) && !excluded.excludes(&page.url))
        .collect();
    chosen.sort_by_key(|page| std::cmp::Reverse(page.last_visit_ms));
    let mut sites: BTreeMap<String, usize> = BTreeMap::new();
    for page in &chosen {
        *sites.entry(site_of(&page.url)).or_default() += 1;
    }
    let mut sites: Vec<(String, usize)> = sites.into_iter().collect();
    sites.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Plan {
        days,
        urls: chosen.into_iter().map(|page| page.url.clone()).collect(),
        sites,
    }
}

/// The site a page is asked of: its host and port as written (lower case for the host).
fn site_of(url: &str) -> String {
    match web_address(url) {
        Some(address) => match address.port {
            Some(port) => format!("{}:{port}", address.host.to_lowercase()),
            None => address.host.to_lowercase(),
        },
        None => String::new(),
    }
}

/// How a download ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Its text was read (and handed to the content store).
    Read,
    /// The site answered, with nothing to read (not a page, too few words, a login wall).
    Skipped,
    /// The site did not answer, or answered an error.
    Failed,
}

/// What the worker does next.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Next {
    /// Download this page now.
    Fetch(String),
    /// Nothing may start before this instant (ms since the Unix epoch): ask again then, or when
    /// a download ends.
    WaitUntil(i64),
    /// Nothing to start while downloads are out: ask again when one ends.
    Busy,
    /// Every page is done (or it was cancelled and nothing is out).
    Done,
}

/// How far a catch-up has got, for the options page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Progress {
    /// The period, in days.
    pub days: u32,
    /// Pages in the catch-up.
    pub total: usize,
    /// Pages read.
    pub read: usize,
    /// Pages the site answered with nothing to read.
    pub skipped: usize,
    /// Pages the site did not give.
    pub failed: usize,
    /// Whether it still runs (false once done or cancelled).
    pub running: bool,
    /// Downloads out now (after a cancel, those that still end as they will).
    #[serde(default)]
    pub out: usize,
}

impl Progress {
    /// Pages done, whatever their outcome.
    pub fn done(&self) -> usize {
        self.read + self.skipped + self.failed
    }
}

/// A catch-up run: the schedule of its downloads. See the [module docs](self).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CatchUp {
    days: u32,
    total: usize,
    waiting: VecDeque<String>,
    out: HashSet<String>,
    /// When each site may be asked next.
    site_free_at: HashMap<String, i64>,
    read: usize,
    skipped: usize,
    failed: usize,
    cancelled: bool,
}

/// A catch-up as `chrome.storage.local` keeps it: what is left, and the counts so far. A page
/// out when the worker stopped is asked again.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Stored {
    /// The period, in days.
    pub days: u32,
    /// Pages in the catch-up.
    pub total: usize,
    /// The pages not done yet, in order.
    pub left: Vec<String>,
    /// Pages read so far.
    pub read: usize,
    /// Pages skipped so far.
    pub skipped: usize,
    /// Pages failed so far.
    pub failed: usize,
}

impl CatchUp {
    /// The run of `plan`.
    pub fn new(plan: Plan) -> CatchUp {
        CatchUp {
            days: plan.days,
            total: plan.urls.len(),
            waiting: plan.urls.into(),
            ..CatchUp::default()
        }
    }

    /// A run resumed from what was stored (pages out when it was stored are asked again).
    pub fn resume(stored: Stored) -> CatchUp {
        let left = stored.left.len();
        CatchUp {
            days: stored.days,
            total: stored
                .total
                .max(stored.read + stored.skipped + stored.failed + left),
            waiting: stored.left.into(),
            read: stored.read,
            skipped: stored.skipped,
            failed: stored.failed,
            ..CatchUp::default()
        }
    }

    /// What to store so a restart resumes it; `None` once it is over (nothing to store).
    pub fn to_stored(&self) -> Option<Stored> {
        if self.cancelled || self.is_over() {
            return None;
        }
        let mut left: Vec<String> = self.out.iter().cloned().collect();
        left.sort_unstable();
        left.extend(self.waiting.iter().cloned());
        Some(Stored {
            days: self.days,
            total: self.total,
            left,
            read: self.read,
            skipped: self.skipped,
            failed: self.failed,
        })
    }

    /// What to do at `now_ms`: the first waiting page whose site may be asked now (a page is
    /// marked out when given), while fewer than [`CONCURRENCY`] are out.
    pub fn next(&mut self, now_ms: i64) -> Next {
        if self.cancelled || self.is_over() {
            return match self.out.is_empty() {
                true => Next::Done,
                false => Next::Busy,
            };
        }
        if self.out.len() >= CONCURRENCY || self.waiting.is_empty() {
            return Next::Busy;
        }
        let mut soonest: Option<i64> = None;
        let mut ready = None;
        for (at, url) in self.waiting.iter().enumerate() {
            let site = site_of(url);
            // One download per site at a time, as well as one request a second.
            let site_out = self.out.iter().any(|out| site_of(out) == site);
            let free_at = self.site_free_at.get(&site).copied().unwrap_or(i64::MIN);
            if !site_out && free_at <= now_ms {
                ready = Some((at, site));
                break;
            }
            if !site_out {
                soonest = Some(soonest.map_or(free_at, |s| s.min(free_at)));
            }
        }
        match ready {
            Some((at, site)) => {
                let Some(url) = self.waiting.remove(at) else {
                    return Next::Busy;
                };
                self.site_free_at
                    .insert(site, now_ms.saturating_add(SITE_INTERVAL_MS));
                self.out.insert(url.clone());
                Next::Fetch(url)
            }
            None => match soonest {
                Some(at) => Next::WaitUntil(at),
                None => Next::Busy,
            },
        }
    }

    /// The download of `url` ended with `outcome` (an answer for a page not out, after a cancel
    /// or twice, is ignored).
    pub fn finished(&mut self, url: &str, outcome: Outcome) {
        if !self.out.remove(url) {
            return;
        }
        match outcome {
            Outcome::Read => self.read += 1,
            Outcome::Skipped => self.skipped += 1,
            Outcome::Failed => self.failed += 1,
        }
    }

    /// Drops every page not started; the downloads out end as they will, and nothing more starts.
    pub fn cancel(&mut self) {
        self.cancelled = true;
        self.waiting.clear();
    }

    /// Pages removed from history (or of a site just excluded) are not read: they leave the run.
    pub fn forget(&mut self, gone: impl Fn(&str) -> bool) {
        let before = self.waiting.len();
        self.waiting.retain(|url| !gone(url));
        self.total -= before - self.waiting.len();
    }

    /// Every page is done: none waits, none is out.
    fn is_over(&self) -> bool {
        self.waiting.is_empty() && self.out.is_empty()
    }

    /// How far it has got.
    pub fn progress(&self) -> Progress {
        Progress {
            days: self.days,
            total: self.total,
            read: self.read,
            skipped: self.skipped,
            failed: self.failed,
            running: !(self.cancelled || self.is_over()),
            out: self.out.len(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const NOW: i64 = 1_800_000_000_000;

    fn page(url: &str, days_ago: i64) -> Page {
        Page {
            url: url.to_owned(),
            title: String::new(),
            last_visit_ms: NOW - days_ago * DAY_MS,
            visit_count: 1,
            passage: None,
            marks: Default::default(),
        }
    }

    #[test]
    fn the_plan_is_the_period_s_pages_newest_first_minus_those_read_and_excluded() {
        let pages = [
            page("https://a.example/1", 3),
            page("https://b.example/1", 1),
            page("https://a.example/2", 2),
            page("https://bank.example/x", 1),
            page("https://a.example/old", 12),
            page("https://c.example/read", 1),
        ];
        let read = HashSet::from(["https://c.example/read".to_owned()]);
        let excluded = Exclusions::parse("bank.example").unwrap_or_default();
        let week = plan(&pages, &read, &excluded, 7, NOW);
        assert_eq!(
            week.urls,
            [
                "https://b.example/1",
                "https://a.example/2",
                "https://a.example/1"
            ]
        );
        assert_eq!(
            week.sites,
            [("a.example".to_owned(), 2), ("b.example".to_owned(), 1)]
        );
        let month = plan(&pages, &read, &excluded, 30, NOW);
        assert_eq!(month.urls.len(), 4, "the 12-day-old page too");
        assert_eq!(month.days, 30);
    }

    /// Runs `catch_up` to the end with downloads that take `took_ms` each, in a simulated clock;
    /// returns each fetch with the time it started.
    fn run(catch_up: &mut CatchUp, took_ms: i64) -> Vec<(i64, String)> {
        let mut now = NOW;
        let mut started = Vec::new();
        let mut out: Vec<(i64, String)> = Vec::new();
        for _ in 0..10_000 {
            match catch_up.next(now) {
                Next::Fetch(url) => {
                    started.push((now - NOW, url.clone()));
                    out.push((now + took_ms, url));
                }
                Next::Done => return started,
                next => {
                    // Time moves to the next event: a download ending or a site freeing up.
                    out.sort();
                    let ends = out.first().map(|(at, _)| *at);
                    let wake = match next {
                        Next::WaitUntil(at) => Some(ends.map_or(at, |e| e.min(at))),
                        _ => ends,
                    };
                    let Some(wake) = wake else {
                        panic!("stuck: {next:?}");
                    };
                    now = now.max(wake);
                    while out.first().is_some_and(|(at, _)| *at <= now) {
                        let (_, url) = out.remove(0);
                        catch_up.finished(&url, Outcome::Read);
                    }
                }
            }
        }
        panic!("never ended");
    }

    fn planned(urls: &[&str]) -> CatchUp {
        CatchUp::new(Plan {
            days: 7,
            urls: urls.iter().map(|u| (*u).to_owned()).collect(),
            sites: Vec::new(),
        })
    }

    #[test]
    fn at_most_two_at_a_time_and_one_request_a_second_per_site() {
        let mut catch_up = planned(&[
            "https://a.example/1",
            "https://a.example/2",
            "https://a.example/3",
            "https://b.example/1",
            "https://c.example/1",
        ]);
        let started = run(&mut catch_up, 100);
        assert_eq!(
            started,
            [
                (0, "https://a.example/1".to_owned()),
                (0, "https://b.example/1".to_owned()),
                (100, "https://c.example/1".to_owned()),
                (1_000, "https://a.example/2".to_owned()),
                (2_000, "https://a.example/3".to_owned()),
            ]
        );
        let progress = catch_up.progress();
        assert_eq!(
            (progress.read, progress.total, progress.running),
            (5, 5, false)
        );
        // Never more than two out at once, whatever the durations.
        let mut many = planned(&[
            "https://a.example/1",
            "https://b.example/1",
            "https://c.example/1",
            "https://d.example/1",
        ]);
        let started = run(&mut many, 5_000);
        let starts: Vec<i64> = started.iter().map(|(at, _)| *at).collect();
        assert_eq!(starts, [0, 0, 5_000, 5_000]);
    }

    #[test]
    fn a_cancel_starts_nothing_more_and_a_restart_resumes_what_is_left() {
        let mut catch_up = planned(&[
            "https://a.example/1",
            "https://b.example/1",
            "https://c.example/1",
        ]);
        assert_eq!(
            catch_up.next(NOW),
            Next::Fetch("https://a.example/1".into())
        );
        assert_eq!(
            catch_up.next(NOW),
            Next::Fetch("https://b.example/1".into())
        );
        catch_up.finished("https://a.example/1", Outcome::Skipped);
        // The worker stops: what was out and what waits are stored, in that order.
        let Some(stored) = catch_up.to_stored() else {
            panic!("a running catch-up is stored");
        };
        assert_eq!(stored.left, ["https://b.example/1", "https://c.example/1"]);
        let mut resumed = CatchUp::resume(stored);
        assert_eq!(
            resumed.progress(),
            Progress {
                days: 7,
                total: 3,
                read: 0,
                skipped: 1,
                failed: 0,
                running: true,
                out: 0,
            }
        );
        assert_eq!(resumed.next(NOW), Next::Fetch("https://b.example/1".into()));
        resumed.cancel();
        assert_eq!(resumed.progress().out, 1, "one download still out");
        assert_eq!(resumed.next(NOW), Next::Busy, "the download out ends first");
        resumed.finished("https://b.example/1", Outcome::Failed);
        assert_eq!(resumed.next(NOW), Next::Done);
        assert_eq!(resumed.to_stored(), None, "nothing to resume");
        let progress = resumed.progress();
        assert_eq!(
            (progress.failed, progress.running, progress.out),
            (1, false, 0)
        );
        // An answer for a page not out is ignored.
        resumed.finished("https://c.example/1", Outcome::Read);
        assert_eq!(resumed.progress().read, 0);
    }

    #[test]
    fn pages_removed_meanwhile_leave_the_run() {
        let mut catch_up = planned(&["https://a.example/1", "https://bank.example/2"]);
        catch_up.forget(|url| url.contains("bank"));
        assert_eq!(catch_up.progress().total, 1);
        assert_eq!(run(&mut catch_up, 10).len(), 1);
    }
}
