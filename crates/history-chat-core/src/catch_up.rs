//! Reading again the pages visited before content search was on — the options page's "Read the
//! pages of the last 7 / 30 days" — and the bookmarked pages — "Read my bookmarked pages", and
//! each bookmark as it is added. The pages are downloaded from their sites, which is the one time
//! History Chat asks a site for anything, and only because the user asked; so it is gentle and it
//! says first what it will do.
//!
//! - [`plan`] and [`plan_bookmarks`]: which pages ([`Plan`]: the history's pages of the period,
//!   newest first, or the bookmarks, newest added first; minus those already read and those of
//!   excluded sites), and how many per site, shown before it starts. What a run reads is its
//!   [`Reach`].
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

/// What a run reads: the history's pages of the last days, or the bookmarked pages. On the wire
/// `{"days": 7}` or `"bookmarks"`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Reach {
    /// The pages visited in the last this many days (one of [`DAYS`]).
    Days(u32),
    /// The bookmarked pages (the bookmarks' switch on).
    Bookmarks,
}

impl Default for Reach {
    fn default() -> Reach {
        Reach::Days(DAYS[0])
    }
}

/// What a catch-up would read, shown before it starts.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Plan {
    /// What it reads.
    pub reach: Reach,
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
    let chosen = pages
        .iter()
        .filter(|page| page.last_visit_ms >= since)
        .map(|page| (page.url.as_str(), page.last_visit_ms));
    planned(Reach::Days(days), chosen, read, excluded)
}

/// The reading of the bookmarked pages: `bookmarks` (each web bookmark's cleaned address and when
/// it was added, as the bookmarks' host keeps them), newest added first, each address once,
/// without those already `read` and those `excluded`.
pub fn plan_bookmarks(
    bookmarks: &[(String, i64)],
    read: &HashSet<String>,
    excluded: &Exclusions,
) -> Plan {
    let chosen = bookmarks.iter().map(|(url, at)| (url.as_str(), *at));
    planned(Reach::Bookmarks, chosen, read, excluded)
}

/// The plan of `reach` over `chosen` (addresses with the instant they are ordered by, newest
/// first), without those `read` or `excluded`, each address once.
fn planned<'p>(
    reach: Reach,
    chosen: impl Iterator<Item = (&'p str, i64)>,
    read: &HashSet<String>,
    excluded: &Exclusions,
) -> Plan {
    let mut chosen: Vec<(&str, i64)> = chosen
        .filter(|(url, _)| !read.contains(*url) && !excluded.excludes(url))
        .collect();
    chosen.sort_by_key(|(url, at)| (std::cmp::Reverse(*at), *url));
    let mut seen: HashSet<&str> = HashSet::new();
    chosen.retain(|(url, _)| seen.insert(url));
    let mut sites: BTreeMap<String, usize> = BTreeMap::new();
    for (url, _) in &chosen {
        *sites.entry(site_of(url)).or_default() += 1;
    }
    let mut sites: Vec<(String, usize)> = sites.into_iter().collect();
    sites.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
    Plan {
        reach,
        urls: chosen.into_iter().map(|(url, _)| url.to_owned()).collect(),
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
    /// What it reads.
    pub reach: Reach,
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
    reach: Reach,
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
    /// What it reads; absent in what earlier versions stored, which read the last `days` days.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reach: Option<Reach>,
    /// The period, in days, as earlier versions stored it (0 for the bookmarks).
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
            reach: plan.reach,
            total: plan.urls.len(),
            waiting: plan.urls.into(),
            ..CatchUp::default()
        }
    }

    /// A run resumed from what was stored (pages out when it was stored are asked again).
    pub fn resume(stored: Stored) -> CatchUp {
        let left = stored.left.len();
        CatchUp {
            reach: stored.reach.unwrap_or(Reach::Days(stored.days)),
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
            reach: Some(self.reach),
            days: match self.reach {
                Reach::Days(days) => days,
                Reach::Bookmarks => 0,
            },
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

    /// A page to read after those waiting (a bookmark just added): counted in the run, unless it
    /// waits or is out already. Whether it was added.
    pub fn add(&mut self, url: &str) -> bool {
        if self.cancelled || self.out.contains(url) || self.waiting.iter().any(|w| w == url) {
            return false;
        }
        self.waiting.push_back(url.to_owned());
        self.total += 1;
        true
    }

    /// What it reads.
    pub fn reach(&self) -> Reach {
        self.reach
    }

    /// Whether pages wait or are out, and it was not cancelled.
    pub fn is_running(&self) -> bool {
        !(self.cancelled || self.is_over())
    }

    /// Every page is done: none waits, none is out.
    fn is_over(&self) -> bool {
        self.waiting.is_empty() && self.out.is_empty()
    }

    /// How far it has got.
    pub fn progress(&self) -> Progress {
        Progress {
            reach: self.reach,
            total: self.total,
            read: self.read,
            skipped: self.skipped,
            failed: self.failed,
            running: self.is_running(),
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
        assert_eq!(month.reach, Reach::Days(30));
    }

    #[test]
    fn the_bookmarks_plan_is_every_bookmark_newest_added_first_once_minus_read_and_excluded() {
        let at = |days_ago: i64| NOW - days_ago * DAY_MS;
        let bookmarks = [
            ("https://a.example/old".to_owned(), at(400)),
            ("https://b.example/new".to_owned(), at(1)),
            ("https://bank.example/x".to_owned(), at(2)),
            ("https://c.example/read".to_owned(), at(3)),
            // The same page in two folders: read once.
            ("https://a.example/twice".to_owned(), at(5)),
            ("https://a.example/twice".to_owned(), at(9)),
        ];
        let read = HashSet::from(["https://c.example/read".to_owned()]);
        let excluded = Exclusions::parse("bank.example").unwrap_or_default();
        let plan = plan_bookmarks(&bookmarks, &read, &excluded);
        assert_eq!(plan.reach, Reach::Bookmarks);
        assert_eq!(
            plan.urls,
            [
                "https://b.example/new",
                "https://a.example/twice",
                "https://a.example/old"
            ],
            "whatever their age, newest added first"
        );
        assert_eq!(
            plan.sites,
            [("a.example".to_owned(), 2), ("b.example".to_owned(), 1)]
        );
    }

    #[test]
    fn a_page_added_to_a_run_is_read_after_those_waiting_once() {
        let mut catch_up = CatchUp::new(Plan {
            reach: Reach::Bookmarks,
            urls: vec!["https://a.example/1".to_owned()],
            sites: Vec::new(),
        });
        assert!(catch_up.add("https://b.example/new"));
        assert!(!catch_up.add("https://b.example/new"), "waiting already");
        assert_eq!(
            catch_up.next(NOW),
            Next::Fetch("https://a.example/1".into())
        );
        assert!(!catch_up.add("https://a.example/1"), "out already");
        assert_eq!(catch_up.progress().total, 2);
        assert_eq!(
            catch_up.next(NOW),
            Next::Fetch("https://b.example/new".into())
        );
        catch_up.cancel();
        assert!(
            !catch_up.add("https://c.example/3"),
            "a cancelled run takes none"
        );
        assert_eq!(catch_up.reach(), Reach::Bookmarks);
    }

    #[test]
    fn the_reach_is_stored_and_what_earlier_versions_stored_reads_as_their_days() {
        let mut run = CatchUp::new(Plan {
            reach: Reach::Bookmarks,
            urls: vec!["https://a.example/1".to_owned()],
            sites: Vec::new(),
        });
        let Some(stored) = run.to_stored() else {
            panic!("a running catch-up is stored");
        };
        let json = serde_json::to_value(&stored).unwrap();
        assert_eq!(json["reach"], serde_json::json!("bookmarks"));
        let back: Stored = serde_json::from_value(json).unwrap();
        assert_eq!(CatchUp::resume(back).reach(), Reach::Bookmarks);
        let earlier: Stored = serde_json::from_value(serde_json::json!({
            "days": 30, "total": 2, "left": ["https://a.example/1"], "read": 1
        }))
        .unwrap();
        assert_eq!(CatchUp::resume(earlier).reach(), Reach::Days(30));
        run.cancel();
        assert_eq!(run.to_stored(), None);
        let week = serde_json::to_value(Reach::Days(7)).unwrap();
        assert_eq!(week, serde_json::json!({"days": 7}));
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
            reach: Reach::Days(7),
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
                reach: Reach::Days(7),
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
