use std::collections::{BTreeSet, VecDeque};

use super::*;
use crate::exclusions::Exclusions;
use crate::history::Page;
use crate::index::FORMAT_VERSION;

const NOW: i64 = 1_780_000_000_000;
const MINUTE: i64 = 60 * 1000;

fn item(url: &str, title: &str, ago_ms: i64) -> HistoryItem {
    HistoryItem {
        url: url.to_owned(),
        title: title.to_owned(),
        last_visit_ms: NOW - ago_ms,
        visit_count: 1,
    }
}

const CREME: &str = "https://cuisine.example/creme-brulee";
const CTE: &str = "https://blog.example/recursive-cte";
const OLD: &str = "https://imported.example/ancient";

/// 3,000 pages, one every 57 minutes (about 119 days), plus three the tests look for: one 2 hours
/// old, one 40 days old, one imported 200 days ago.
fn history() -> Vec<HistoryItem> {
    let mut items: Vec<HistoryItem> = (0..3_000)
        .map(|i| {
            item(
                &format!("https://site{}.example/page/{i}", i % 40),
                &format!("Filler page {i} about topic{}", i % 50),
                i * 57 * MINUTE + 30_000,
            )
        })
        .collect();
    items.push(item(CREME, "Crème brûlée facile", 2 * HOUR_MS));
    items.push(item(CTE, "Recursive CTEs: handling cycles", 40 * DAY_MS));
    items.push(item(OLD, "An ancient imported page", 200 * DAY_MS));
    items
}

/// The host with a simulated browser around it: a history table that answers reads as
/// `chrome.history.search` does (entries with a visit in the range), a snapshot store, and a log
/// of what the host asked for. Reads are served only when a test says so, so it can put events in
/// between.
struct Sim {
    host: Host,
    browser: Vec<HistoryItem>,
    stored: Option<Vec<u8>>,
    snapshot_reads: usize,
    reads: VecDeque<HistoryRead>,
    timers: usize,
    saves: usize,
    wakes: usize,
    forgotten: Vec<RemovedVisits>,
    /// What a follower of the index (topic search) holds from what it heard
    /// ([`Action::Follow`]); `None` until it heard every page listed.
    follower: Option<BTreeSet<String>>,
    /// How many times the follower heard that the index holds the whole history.
    completes: usize,
}

impl Sim {
    fn new(browser: Vec<HistoryItem>) -> Sim {
        Sim {
            host: Host::new(),
            browser,
            stored: None,
            snapshot_reads: 0,
            reads: VecDeque::new(),
            timers: 0,
            saves: 0,
            wakes: 0,
            completes: 0,
            forgotten: Vec::new(),
            follower: None,
        }
    }

    /// The worker restarts: a new host, the same browser and stored snapshot.
    fn restart(self) -> Sim {
        Sim {
            host: Host::new(),
            reads: VecDeque::new(),
            snapshot_reads: 0,
            wakes: 0,
            // A new worker's topic search hears every page again.
            follower: None,
            completes: 0,
            ..self
        }
    }

    /// Feeds `event` and carries out what the host says; then the follower holds exactly the
    /// index's pages, whatever the event.
    fn feed(&mut self, event: Event) {
        let excluding = matches!(event, Event::Exclusions { .. });
        let actions = self.host.handle(event);
        // What followers hear comes first: the pages, then that the index is complete.
        let follows: Vec<&Followed> = actions
            .iter()
            .map_while(|action| match action {
                Action::Follow(followed) => Some(followed),
                _ => None,
            })
            .collect();
        let all = actions
            .iter()
            .filter(|action| matches!(action, Action::Follow(_)))
            .count();
        assert_eq!(follows.len(), all, "the Follows come first: {actions:?}");
        match follows.as_slice() {
            [] | [_] => {}
            [first, Followed::Complete] => {
                assert!(!matches!(first, Followed::Complete), "{actions:?}")
            }
            _ => panic!("pages once and complete once at most: {actions:?}"),
        }
        for action in actions {
            match action {
                Action::Follow(followed) => self.follow(followed),
                Action::ReadSnapshot => self.snapshot_reads += 1,
                Action::ReadHistory(read) => self.reads.push_back(read),
                Action::PersistAfter { ms } => {
                    assert_eq!(ms, PERSIST_DELAY_MS);
                    self.timers += 1;
                }
                Action::Save { bytes } => {
                    self.stored = Some(bytes);
                    self.saves += 1;
                }
                Action::ForgetInConversation(removed) => self.forgotten.push(removed),
                Action::WakeWaiters => self.wakes += 1,
            }
        }
        // Topic search applies the excluded sites itself: it drops their pages at once.
        if excluding && let (Some(follower), Some(index)) = (&mut self.follower, self.host.index())
        {
            follower.retain(|url| index.page(url).is_some());
        }
        if let (Some(follower), Some(index)) = (&self.follower, self.host.index()) {
            let held: BTreeSet<String> = urls(&index.recent(i64::MIN, usize::MAX))
                .into_iter()
                .collect();
            assert_eq!(follower, &held, "the follower holds the index's pages");
        }
    }

    /// What topic search does with what the index tells it.
    fn follow(&mut self, followed: Followed) {
        match followed {
            Followed::Listed { pages, gone } => {
                let follower = self.follower.get_or_insert_with(BTreeSet::new);
                follower.extend(urls(&pages));
                for url in gone {
                    follower.remove(&url);
                }
            }
            Followed::Changed { indexed, gone } => {
                let Some(follower) = &mut self.follower else {
                    panic!("changes before every page was listed");
                };
                follower.extend(urls(&indexed));
                for url in gone {
                    follower.remove(&url);
                }
            }
            Followed::Cleared => {
                if let Some(follower) = &mut self.follower {
                    follower.clear();
                }
            }
            Followed::Complete => {
                assert!(
                    self.follower.is_some(),
                    "complete before every page was listed"
                );
                self.completes += 1;
            }
        }
    }

    fn give_snapshot(&mut self, bytes: Option<Vec<u8>>) {
        self.feed(Event::SnapshotRead { bytes, now_ms: NOW });
    }

    /// The one read that is out (the host never has two).
    fn take_read(&mut self) -> HistoryRead {
        assert_eq!(
            self.reads.len(),
            1,
            "exactly one read out: {:?}",
            self.reads
        );
        self.reads.pop_front().unwrap()
    }

    /// What the browser answers to `read` now.
    fn items_for(&self, read: &HistoryRead) -> Vec<HistoryItem> {
        self.browser
            .iter()
            .filter(|i| {
                i.last_visit_ms >= read.start_ms && read.end_ms.is_none_or(|e| i.last_visit_ms < e)
            })
            .cloned()
            .collect()
    }

    fn serve(&mut self, read: HistoryRead, items: Option<Vec<HistoryItem>>) {
        self.feed(Event::HistoryRead { id: read.id, items });
    }

    /// Serves the read that is out with the browser's current answer.
    fn serve_next(&mut self) -> HistoryRead {
        let read = self.take_read();
        let items = self.items_for(&read);
        self.serve(read.clone(), Some(items));
        read
    }

    /// Serves reads until none is out; returns them.
    fn serve_all(&mut self) -> Vec<HistoryRead> {
        let mut served = Vec::new();
        while !self.reads.is_empty() {
            served.push(self.serve_next());
        }
        served
    }

    fn persist_due(&mut self) {
        self.feed(Event::PersistDue);
    }

    fn ask(&self, question: Question) -> Reply {
        self.host.answer(&question, NOW)
    }

    /// The search's pages and whether it was partial; panics when the host does not answer now.
    fn search(&self, query: &str, start_ms: i64) -> (Vec<String>, Option<IndexProgress>) {
        match self.ask(Question::Search {
            query: query.to_owned(),
            start_ms,
            limit: 10,
        }) {
            Reply::Now(Answer::Pages { pages, indexing }) => (urls(&pages), indexing),
            other => panic!("no pages for {query:?}: {other:?}"),
        }
    }

    fn finds(&self, query: &str, url: &str) -> bool {
        self.search(query, 0).0.iter().any(|u| u == url)
    }

    /// A host building from scratch (no snapshot), its first slice out.
    fn building(browser: Vec<HistoryItem>) -> Sim {
        let mut sim = Sim::new(browser);
        sim.feed(Event::Need);
        sim.give_snapshot(None);
        sim
    }

    /// A complete, saved index, as after a first build and the save timer.
    fn built(browser: Vec<HistoryItem>) -> Sim {
        let mut sim = Sim::building(browser);
        sim.serve_all();
        sim.persist_due();
        assert!(sim.host.is_ready() && sim.stored.is_some());
        sim
    }
}

fn urls(pages: &[Page]) -> Vec<String> {
    pages.iter().map(|p| p.url.clone()).collect()
}

fn removed(urls: &[&str]) -> RemovedVisits {
    RemovedVisits {
        all_history: false,
        urls: urls.iter().map(|u| (*u).to_owned()).collect(),
    }
}

fn clear_all() -> RemovedVisits {
    RemovedVisits {
        all_history: true,
        urls: Vec::new(),
    }
}

#[test]
fn first_build_reads_slices_newest_first_and_recent_pages_are_searchable_first() {
    let mut sim = Sim::new(history());
    assert_eq!(
        sim.ask(Question::Warm),
        Reply::Now(Answer::Indexing {
            progress: IndexProgress::default()
        }),
        "a cold host answers at once"
    );
    sim.feed(Event::Need);
    sim.feed(Event::Need);
    assert_eq!(
        sim.snapshot_reads, 1,
        "one snapshot read, however many needs"
    );
    sim.give_snapshot(None);
    assert_eq!(sim.host.build_cause(), Some(BuildCause::NoSnapshot));
    let first = sim.reads[0].clone();
    assert_eq!(
        (first.start_ms, first.end_ms, first.after_ms),
        (NOW - FIRST_SLICE_MS, None, 0)
    );
    sim.serve_next();
    // After one slice: the last day is searchable and complete, older pages are not in yet.
    assert!(sim.finds("creme brulee", CREME));
    assert_eq!(
        sim.search("creme", NOW - DAY_MS).1,
        None,
        "the day is covered"
    );
    let (_, partial) = sim.search("creme", NOW - 7 * DAY_MS);
    assert_eq!(
        partial.map(|p| p.since_ms),
        Some(Some(NOW - FIRST_SLICE_MS))
    );
    assert!(!sim.finds("recursive cte", CTE));
    // The followers have every page so far, and know more are to come.
    assert!(sim.follower.is_some());
    assert_eq!(sim.completes, 0, "not complete after the first slice");

    let mut reads = vec![first];
    reads.extend(sim.serve_all());
    assert!(sim.host.is_ready());
    assert_eq!(sim.completes, 1, "complete once the build is over, once");
    // Slices go back in time without gaps, each overlapping the next; the last reads everything
    // older than the horizon.
    for pair in reads.windows(2) {
        assert_eq!(pair[1].end_ms, Some(pair[0].start_ms + SLICE_OVERLAP_MS));
        assert!(pair[1].start_ms < pair[0].start_ms);
        assert_eq!(pair[1].after_ms, SLICE_PAUSE_MS, "a pause between slices");
    }
    assert_eq!(reads.last().map(|r| r.start_ms), Some(0));
    assert!(reads.len() > 3, "several slices: {}", reads.len());
    for (query, url) in [("creme", CREME), ("recursive", CTE), ("ancient", OLD)] {
        assert!(sim.finds(query, url), "{url} after the build");
    }
    assert_eq!(
        sim.host.index().map(Index::len),
        Some(Index::build(history()).len()),
        "the same pages as one read of everything"
    );
    assert_eq!(
        sim.ask(Question::Warm),
        Reply::Now(Answer::Ready {
            pages: Index::build(history()).len(),
        })
    );
}

#[test]
fn slices_aim_at_the_target_size() {
    let rows: &[(i64, usize, i64)] = &[
        // (span, pages in it, next span)
        (DAY_MS, SLICE_TARGET_PAGES, DAY_MS),
        (DAY_MS, SLICE_TARGET_PAGES / 2, 2 * DAY_MS),
        (DAY_MS, 0, 4 * DAY_MS),
        (DAY_MS, 1, 4 * DAY_MS),
        (DAY_MS, SLICE_TARGET_PAGES * 10, DAY_MS / 2),
        (HOUR_MS, SLICE_TARGET_PAGES * 10, MIN_SLICE_MS),
        (20 * DAY_MS, 10, MAX_SLICE_MS),
    ];
    for &(span, pages, next) in rows {
        assert_eq!(next_span(span, pages), next, "span {span}, {pages} pages");
    }
    // In a build of a dense history, no slice but the last brings more than a few targets.
    let dense: Vec<HistoryItem> = (0..20_000)
        .map(|i| item(&format!("https://d.example/{i}"), "dense", i * 20_000))
        .collect();
    let mut sim = Sim::new(dense);
    sim.feed(Event::Need);
    sim.give_snapshot(None);
    while !sim.reads.is_empty() {
        let read = sim.reads[0].clone();
        let count = sim.items_for(&read).len();
        assert!(
            count <= 4 * SLICE_TARGET_PAGES || read.start_ms == 0,
            "{count} pages"
        );
        sim.serve_next();
    }
    assert_eq!(sim.host.index().map(Index::len), Some(20_000));
}

#[test]
fn a_request_in_each_state() {
    let warm = || Question::Warm;
    let search = || Question::Search {
        query: "creme".into(),
        start_ms: NOW - 7 * DAY_MS,
        limit: 5,
    };
    let keyword = || Question::Keyword {
        keyword: "recursive".into(),
        sites: Default::default(),
        start_ms: 0,
        limit: 5,
    };
    // Cold.
    let mut sim = Sim::new(history());
    for request in [warm(), search(), keyword()] {
        assert!(
            matches!(sim.ask(request), Reply::Now(Answer::Indexing { .. })),
            "cold"
        );
    }
    // Loading the snapshot: requests wait for it.
    sim.feed(Event::Need);
    for request in [warm(), search(), keyword()] {
        assert_eq!(sim.ask(request), Reply::AfterLoad, "loading");
    }
    // Building, first slice out: answered at once, partial, with the progress.
    sim.give_snapshot(None);
    assert_eq!(sim.wakes, 1, "the waiting requests are woken");
    assert_eq!(
        sim.ask(warm()),
        Reply::Now(Answer::Indexing {
            progress: IndexProgress {
                pages: 0,
                since_ms: None
            }
        })
    );
    assert_eq!(
        sim.ask(search()),
        Reply::Now(Answer::Pages {
            pages: Vec::new(),
            indexing: Some(IndexProgress {
                pages: 0,
                since_ms: None
            })
        })
    );
    // Building, the period covered: complete answers; a longer period is still partial.
    while sim
        .host
        .progress()
        .since_ms
        .is_none_or(|s| s > NOW - 7 * DAY_MS)
    {
        sim.serve_next();
    }
    let Reply::Now(Answer::Pages { pages, indexing }) = sim.ask(search()) else {
        panic!("pages expected");
    };
    assert_eq!((urls(&pages), indexing), (vec![CREME.to_owned()], None));
    assert!(matches!(
        sim.ask(keyword()),
        Reply::Now(Answer::Pages {
            indexing: Some(_),
            ..
        })
    ));
    // Ready.
    sim.serve_all();
    assert!(matches!(sim.ask(warm()), Reply::Now(Answer::Ready { .. })));
    let Reply::Now(Answer::Pages { pages, indexing }) = sim.ask(keyword()) else {
        panic!("pages expected");
    };
    assert_eq!((urls(&pages), indexing), (vec![CTE.to_owned()], None));
}

#[test]
fn a_saved_index_is_loaded_then_caught_up() {
    let sim = Sim::built(history());
    let mut sim = sim.restart();
    // A visit while the worker was stopped, and one while it loads.
    sim.browser.push(item(
        "https://new.example/while-stopped",
        "Zygopetalum care",
        0,
    ));
    sim.feed(Event::Need);
    assert_eq!(sim.ask(Question::Warm), Reply::AfterLoad);
    let during = item("https://new.example/during-load", "Orchid watering", 0);
    sim.browser.push(during.clone());
    sim.feed(Event::Visited(during));
    let saves_before = sim.saves;
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    assert_eq!(sim.wakes, 1);
    assert!(sim.host.is_ready(), "answers from the snapshot at once");
    assert_eq!(sim.completes, 1, "a loaded index is complete at once");
    assert!(sim.finds("orchid", "https://new.example/during-load"));
    let catch_up = sim.take_read();
    assert_eq!(
        (catch_up.start_ms, catch_up.end_ms),
        (NOW - 30_000 - CATCH_UP_MARGIN_MS, None),
        "from the snapshot's newest visit, minus the margin"
    );
    let items = sim.items_for(&catch_up);
    sim.serve(catch_up, Some(items));
    assert!(sim.finds("zygopetalum", "https://new.example/while-stopped"));
    assert_eq!(sim.completes, 1, "told once");
    sim.persist_due();
    assert_eq!(sim.saves, saves_before + 1, "the caught-up index is saved");
}

#[test]
fn a_snapshot_that_cannot_be_used_is_rebuilt() {
    let good = Sim::built(history()).stored.unwrap();
    let mut other_version = good.clone();
    other_version[4..6].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    let mut truncated = good.clone();
    truncated.truncate(good.len() / 2);
    let rows: Vec<(&str, Option<Vec<u8>>, BuildCause)> = vec![
        ("none saved", None, BuildCause::NoSnapshot),
        (
            "another format version",
            Some(other_version),
            BuildCause::OtherVersion,
        ),
        ("truncated", Some(truncated), BuildCause::Corrupt),
        ("not an index", Some(b"hello".to_vec()), BuildCause::Corrupt),
        ("empty", Some(Vec::new()), BuildCause::Corrupt),
    ];
    for (what, bytes, cause) in rows {
        let mut sim = Sim::new(history());
        sim.feed(Event::Need);
        sim.give_snapshot(bytes);
        assert_eq!(sim.host.build_cause(), Some(cause), "{what}");
        sim.serve_all();
        assert!(sim.finds("recursive", CTE), "{what}: rebuilt");
        sim.persist_due();
        assert!(
            sim.stored
                .as_deref()
                .is_some_and(|b| Index::from_bytes(b).is_ok()),
            "{what}: the rebuilt index replaces it"
        );
    }
}

#[test]
fn a_restart_mid_build_builds_again_and_nothing_half_built_is_saved() {
    let mut sim = Sim::building(history());
    sim.serve_next();
    sim.serve_next();
    sim.persist_due();
    assert_eq!(sim.saves, 0, "no save before the build is complete");
    let mut sim = sim.restart();
    sim.feed(Event::Need);
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    assert_eq!(sim.host.build_cause(), Some(BuildCause::NoSnapshot));
    sim.serve_all();
    assert!(sim.finds("ancient", OLD));
}

#[test]
fn a_page_removed_during_a_build_never_comes_back() {
    // Removed while the slice that holds it is being read (its answer predates the removal),
    // and another while an earlier slice is read (its own slice is read after the removal).
    let mut sim = Sim::building(history());
    let first = sim.take_read();
    let stale = sim.items_for(&first);
    assert!(stale.iter().any(|i| i.url == CREME));
    sim.browser.retain(|i| i.url != CREME && i.url != CTE);
    sim.feed(Event::Removed(removed(&[CREME, CTE])));
    sim.serve(first, Some(stale));
    sim.serve_all();
    assert!(
        !sim.finds("creme", CREME),
        "removed during its slice's read"
    );
    assert!(
        !sim.finds("recursive", CTE),
        "removed before its slice was read"
    );
    assert_eq!(sim.forgotten, vec![removed(&[CREME, CTE])]);
}

#[test]
fn a_page_removed_then_visited_again_during_a_read_stays() {
    let mut sim = Sim::building(history());
    let first = sim.take_read();
    let stale = sim.items_for(&first);
    sim.feed(Event::Removed(removed(&[CREME])));
    sim.feed(Event::Visited(item(CREME, "Crème brûlée, la vraie", 0)));
    sim.serve(first, Some(stale));
    assert!(sim.finds("vraie", CREME), "the new visit wins, in order");
}

#[test]
fn clear_all_during_a_build_or_a_load_leaves_an_empty_complete_index() {
    // During a build.
    let mut sim = Sim::building(history());
    sim.serve_next();
    let stale = sim.take_read();
    let items = sim.items_for(&stale);
    sim.browser.clear();
    sim.feed(Event::Removed(clear_all()));
    assert!(sim.host.is_ready());
    sim.serve(stale, Some(items));
    assert!(sim.reads.is_empty(), "the build ended");
    assert_eq!(
        sim.host.index().map(Index::len),
        Some(0),
        "the stale slice is ignored"
    );
    sim.feed(Event::Visited(item(
        "https://after.example/",
        "After the clear",
        0,
    )));
    assert!(sim.finds("after", "https://after.example/"));
    sim.persist_due();
    assert_eq!(sim.saves, 1, "the empty index replaces the old snapshot");

    // During a load.
    let saved = Sim::built(history());
    let mut sim = saved.restart();
    sim.feed(Event::Need);
    sim.browser.clear();
    sim.feed(Event::Removed(clear_all()));
    assert_eq!(sim.wakes, 1, "waiting requests are answered");
    let old = sim.stored.clone();
    sim.give_snapshot(old);
    assert_eq!(
        sim.host.index().map(Index::len),
        Some(0),
        "the old snapshot is ignored"
    );
    assert!(sim.reads.is_empty());
    sim.persist_due();
    assert_eq!(
        sim.stored
            .as_deref()
            .map(|b| Index::from_bytes(b).map(|i| i.len())),
        Some(Ok(0))
    );
    assert_eq!(sim.forgotten, vec![clear_all()]);
}

#[test]
fn changes_during_a_load_are_applied_once_it_is_loaded() {
    let mut sim = Sim::built(history()).restart();
    sim.feed(Event::Need);
    sim.feed(Event::Visited(item(
        "https://q.example/",
        "Queued visit",
        0,
    )));
    sim.feed(Event::Removed(removed(&[CTE])));
    sim.browser.retain(|i| i.url != CTE);
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    assert!(sim.finds("queued", "https://q.example/"));
    assert!(!sim.finds("recursive", CTE));
    // Removed during the catch-up read, whose answer predates it.
    let catch_up = sim.take_read();
    let stale = sim.items_for(&catch_up);
    sim.feed(Event::Removed(removed(&[CREME])));
    sim.serve(catch_up, Some(stale));
    assert!(!sim.finds("creme", CREME));
}

#[test]
fn a_failing_history_read_is_retried_then_given_up() {
    let mut sim = Sim::building(history());
    let first = sim.take_read();
    sim.serve(first.clone(), None);
    let retry = sim.take_read();
    assert_eq!(
        (retry.start_ms, retry.end_ms, retry.after_ms),
        (first.start_ms, first.end_ms, READ_RETRY_MS)
    );
    sim.serve(retry, None);
    let last = sim.take_read();
    sim.serve(last, None);
    assert!(sim.reads.is_empty());
    assert!(
        matches!(sim.ask(Question::Warm), Reply::Now(Answer::Indexing { .. })),
        "cold again"
    );
    // The next need starts over, and works once history can be read.
    sim.feed(Event::Need);
    sim.give_snapshot(None);
    sim.serve_all();
    assert!(sim.host.is_ready());

    // A catch-up that keeps failing keeps the loaded index.
    sim.persist_due();
    let mut sim = sim.restart();
    sim.feed(Event::Need);
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    for _ in 0..READ_ATTEMPTS {
        let read = sim.take_read();
        sim.serve(read, None);
    }
    assert!(sim.host.is_ready() && sim.finds("recursive", CTE));
}

#[test]
fn an_answer_to_an_old_read_is_ignored() {
    let mut sim = Sim::building(history());
    let first = sim.take_read();
    sim.serve(first.clone(), None);
    let retry = sim.take_read();
    // The failed attempt's answer comes after all: it is not the read that is out.
    let items = sim.items_for(&first);
    sim.serve(first, Some(items));
    assert_eq!(sim.host.index().map(Index::len), Some(0));
    sim.reads.push_back(retry);
    sim.serve_all();
    assert!(sim.host.is_ready());
}

#[test]
fn changes_are_saved_once_per_burst_and_never_mid_build() {
    let mut sim = Sim::built(history());
    let (timers, saves) = (sim.timers, sim.saves);
    for i in 0..5 {
        sim.feed(Event::Visited(item(
            &format!("https://burst.example/{i}"),
            "Burst",
            0,
        )));
    }
    assert_eq!(sim.timers, timers + 1, "one timer for the burst");
    sim.persist_due();
    assert_eq!(sim.saves, saves + 1);
    sim.persist_due();
    assert_eq!(sim.saves, saves + 1, "nothing new, nothing saved");

    let mut building = Sim::building(history());
    building.feed(Event::Visited(item(
        "https://b.example/",
        "During the build",
        0,
    )));
    assert_eq!(building.timers, 0, "no save is planned while building");
    building.serve_all();
    assert_eq!(building.timers, 1, "the finished build is saved");
    building.persist_due();
    let stored = Index::from_bytes(building.stored.as_deref().unwrap()).unwrap();
    assert!(stored.page("https://b.example/").is_some());
}

#[test]
fn every_removal_is_forgotten_in_the_conversation_whatever_the_state() {
    let rows: Vec<(&str, Sim)> = vec![
        ("cold", Sim::new(history())),
        ("loading", {
            let mut sim = Sim::new(history());
            sim.feed(Event::Need);
            sim
        }),
        ("building", Sim::building(history())),
        ("ready", Sim::built(history())),
    ];
    for (state, mut sim) in rows {
        sim.feed(Event::Removed(removed(&[CREME])));
        sim.feed(Event::Removed(clear_all()));
        assert_eq!(
            sim.forgotten,
            vec![removed(&[CREME]), clear_all()],
            "{state}"
        );
    }
}

#[test]
fn a_search_reads_the_questions_site_terms_and_a_keyword_its_filter() {
    let sim = Sim::built(history());
    // "filler page" matches every filler page: the filter keeps site7's only.
    let (found, indexing) = sim.search("site:SITE7.example filler page", 0);
    assert_eq!(indexing, None);
    assert_eq!(found.len(), 10);
    assert!(
        found
            .iter()
            .all(|u| u.starts_with("https://site7.example/")),
        "{found:?}"
    );
    // Only `site:`: the site's most recent pages.
    let (recent, _) = sim.search("site:cuisine.example", 0);
    assert_eq!(recent, [CREME]);
    // Excluded, and nothing of an unknown site.
    assert!(!sim.finds("-site:cuisine.example creme", CREME));
    assert!(sim.search("site:nowhere.example creme", 0).0.is_empty());
    // A keyword is never read for `site:` terms; its filter comes with it.
    let keyword = |keyword: &str, sites: &str| match sim.ask(Question::Keyword {
        keyword: keyword.into(),
        sites: crate::site_filter::parse(sites).filter,
        start_ms: 0,
        limit: 10,
    }) {
        Reply::Now(Answer::Pages { pages, .. }) => urls(&pages),
        other => panic!("{other:?}"),
    };
    assert_eq!(keyword("recursive", "site:blog.example"), [CTE]);
    assert!(keyword("recursive", "site:cuisine.example").is_empty());
}

#[test]
fn a_forgotten_page_goes_with_every_raw_entry_and_the_snapshot_is_saved_without_it() {
    let mut browser = history();
    browser.push(item(
        "https://cuisine.example/creme-brulee?utm_source=newsletter",
        "Crème brûlée facile",
        HOUR_MS,
    ));
    browser.push(item(
        "https://cuisine.example/creme-brulee#etape-2",
        "Crème brûlée facile",
        3 * HOUR_MS,
    ));
    let mut sim = Sim::built(browser);
    assert!(sim.finds("creme", CREME));
    let saves = sim.saves;
    sim.feed(Event::Forget(vec![CREME.to_owned()]));
    assert!(!sim.finds("creme", CREME), "gone at once");
    assert!(
        sim.forgotten.is_empty(),
        "the popup rewrites the conversation itself"
    );
    sim.persist_due();
    assert_eq!(sim.saves, saves + 1, "the change is saved");
    let stored = sim.stored.clone();
    let mut sim = sim.restart();
    sim.feed(Event::Need);
    sim.give_snapshot(stored);
    assert!(sim.finds("recursive", CTE), "the snapshot is loaded");
    assert!(!sim.finds("creme", CREME), "not in the saved snapshot");
}

#[test]
fn a_page_forgotten_during_a_read_never_comes_back() {
    let mut sim = Sim::building(history());
    let first = sim.take_read();
    let stale = sim.items_for(&first);
    assert!(stale.iter().any(|i| i.url == CREME));
    sim.browser.retain(|i| i.url != CREME);
    sim.feed(Event::Forget(vec![CREME.to_owned()]));
    sim.serve(first, Some(stale));
    sim.serve_all();
    assert!(!sim.finds("creme", CREME));
}

#[test]
fn forgetting_a_page_the_index_does_not_hold_changes_nothing_else() {
    let mut sim = Sim::built(history());
    let before = sim.host.index().map(Index::len);
    sim.feed(Event::Forget(vec![
        "https://never.example/visited".to_owned(),
        "javascript:alert(1)".to_owned(),
    ]));
    assert_eq!(sim.host.index().map(Index::len), before);
    assert!(sim.finds("recursive", CTE));
}

fn exclusions(text: &str) -> Event {
    Event::Exclusions {
        exclusions: Exclusions::parse(text).expect(text),
        now_ms: NOW,
    }
}

#[test]
fn excluded_sites_never_enter_the_index_and_leave_it_at_once() {
    // Known before the build: no read, visit or snapshot brings them in.
    let mut sim = Sim::new(history());
    sim.feed(exclusions("cuisine.example"));
    sim.feed(Event::Need);
    sim.give_snapshot(None);
    sim.serve_all();
    assert!(!sim.finds("creme brulee", CREME));
    assert!(sim.finds("recursive cte", CTE));
    sim.feed(Event::Visited(item(CREME, "Crème brûlée facile", 0)));
    assert!(!sim.finds("creme brulee", CREME), "a visit is not indexed");

    // Excluded once the index is complete: dropped now, and the change is saved.
    let mut sim = Sim::built(history());
    assert!(sim.finds("recursive cte", CTE));
    let saves = sim.saves;
    sim.feed(exclusions("*.example"));
    assert!(sim.reads.is_empty(), "adding a site reads nothing");
    assert!(!sim.finds("recursive cte", CTE));
    assert!(
        sim.search("", 0).0.is_empty(),
        "every page was of *.example"
    );
    sim.persist_due();
    assert_eq!(sim.saves, saves + 1);
    // A restarted worker loads the saved snapshot without them, and filters it too.
    let mut sim = sim.restart();
    sim.feed(exclusions("blog.example"));
    sim.feed(Event::Need);
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    assert!(!sim.finds("recursive cte", CTE));
}

#[test]
fn a_snapshot_saved_before_the_exclusion_is_filtered_when_loaded() {
    let sim = Sim::built(history());
    let mut sim = sim.restart();
    sim.feed(exclusions("blog.example"));
    sim.feed(Event::Need);
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    assert!(!sim.finds("recursive cte", CTE));
    assert!(sim.finds("creme brulee", CREME));
    sim.serve_all();
    assert!(!sim.finds("recursive cte", CTE), "nor by the catch-up");
}

#[test]
fn a_site_taken_off_the_list_comes_back_from_the_history() {
    // A complete index reads the whole history once more.
    let mut sim = Sim::new(history());
    sim.feed(exclusions("blog.example\ncuisine.example"));
    sim.feed(Event::Need);
    sim.give_snapshot(None);
    sim.serve_all();
    assert!(sim.host.is_ready());
    assert!(!sim.finds("recursive cte", CTE));
    sim.feed(exclusions("cuisine.example"));
    let read = sim.take_read();
    assert_eq!((read.start_ms, read.end_ms), (0, None));
    sim.reads.push_back(read);
    // A visit while the read is out is kept (replayed after the read's items).
    sim.feed(Event::Visited(item(
        CTE,
        "Recursive CTEs: handling cycles",
        0,
    )));
    sim.serve_all();
    assert!(sim.finds("recursive cte", CTE));
    assert!(!sim.finds("creme brulee", CREME), "still excluded");
    assert!(sim.host.is_ready());

    // A build starts again from now, keeping what it has.
    let mut sim = Sim::new(history());
    sim.feed(exclusions("cuisine.example"));
    sim.feed(Event::Need);
    sim.give_snapshot(None);
    sim.serve_next();
    sim.serve_next();
    let had = sim.host.index().map_or(0, Index::len);
    let old = sim.take_read();
    sim.feed(exclusions(""));
    assert_eq!(sim.host.progress().since_ms, None, "the build starts again");
    assert_eq!(sim.host.index().map_or(0, Index::len), had);
    let first = sim.take_read();
    assert_eq!((first.start_ms, first.end_ms), (NOW - FIRST_SLICE_MS, None));
    // The read that was out comes back: ignored.
    let items = sim.items_for(&old);
    sim.serve(old, Some(items));
    assert_eq!(sim.host.progress().since_ms, None);
    sim.reads.push_back(first);
    sim.serve_all();
    assert!(sim.host.is_ready());
    assert!(sim.finds("creme brulee", CREME));
    assert!(sim.finds("recursive cte", CTE));
}

// Pages kept after Chrome forgets them (`crate::archive`).

/// Chrome forgets `urls` (they leave the browser's history) and the worker hears of it at `NOW`.
fn chrome_removes(sim: &mut Sim, urls: &[&str]) {
    sim.browser.retain(|i| !urls.contains(&i.url.as_str()));
    sim.feed(Event::VisitRemoved {
        removed: removed(urls),
        now_ms: NOW,
    });
}

fn kept(sim: &Sim) -> usize {
    match sim.ask(Question::Kept) {
        Reply::Now(Answer::Kept { pages }) => pages,
        other => panic!("no count of kept pages: {other:?}"),
    }
}

/// A complete, saved index with the option as the worker read it from the settings.
fn built_with(keep: Option<bool>) -> Sim {
    let mut sim = Sim::built(history());
    if let Some(on) = keep {
        sim.feed(Event::KeepForgotten(on));
    }
    sim
}

#[test]
fn a_removal_is_kept_only_with_the_option_on_and_only_when_it_is_an_expiry() {
    // (option, what Chrome removes, pages still found, pages forgotten in the conversation)
    type Row = (
        Option<bool>,
        RemovedVisits,
        Vec<&'static str>,
        Vec<RemovedVisits>,
    );
    let rows: Vec<Row> = vec![
        (Some(true), removed(&[OLD]), vec![OLD, CTE], vec![]),
        (
            Some(true),
            removed(&[CTE]),
            vec![OLD],
            vec![removed(&[CTE])],
        ),
        (
            Some(true),
            removed(&[OLD, CTE]),
            vec![],
            vec![removed(&[OLD, CTE])],
        ),
        (
            Some(true),
            removed(&[OLD, "https://never.example/"]),
            vec![CTE],
            vec![removed(&[OLD, "https://never.example/"])],
        ),
        (Some(true), clear_all(), vec![], vec![clear_all()]),
        (
            Some(false),
            removed(&[OLD]),
            vec![CTE],
            vec![removed(&[OLD])],
        ),
        (None, removed(&[OLD]), vec![CTE], vec![removed(&[OLD])]),
    ];
    for (keep, removal, found, forgotten) in rows {
        let mut sim = built_with(keep);
        let name = format!("{keep:?} {removal:?}");
        let listed_old = removal.urls.iter().any(|u| u == OLD);
        sim.browser
            .retain(|i| !removal.all_history && !removal.urls.contains(&i.url));
        sim.feed(Event::VisitRemoved {
            removed: removal,
            now_ms: NOW,
        });
        for (query, url) in [("ancient", OLD), ("recursive", CTE)] {
            assert_eq!(sim.finds(query, url), found.contains(&url), "{name}: {url}");
        }
        assert_eq!(sim.forgotten, forgotten, "{name}");
        assert_eq!(
            kept(&sim),
            usize::from(listed_old && found.contains(&OLD)),
            "{name}"
        );
    }
}

#[test]
fn a_kept_page_survives_a_restart_and_its_catch_up() {
    let mut sim = built_with(Some(true));
    chrome_removes(&mut sim, &[OLD]);
    sim.persist_due();
    let mut sim = sim.restart();
    sim.feed(Event::KeepForgotten(true));
    sim.feed(Event::Need);
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    sim.serve_all();
    assert!(sim.finds("ancient", OLD));
    assert_eq!(kept(&sim), 1);
}

#[test]
fn a_removal_during_the_load_is_judged_against_the_loaded_index() {
    let mut sim = built_with(Some(true)).restart();
    sim.feed(Event::KeepForgotten(true));
    sim.feed(Event::Need);
    chrome_removes(&mut sim, &[OLD]);
    chrome_removes(&mut sim, &[CTE]);
    assert!(sim.forgotten.is_empty(), "judged before the index is known");
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    assert!(sim.finds("ancient", OLD));
    assert!(!sim.finds("recursive", CTE));
    assert_eq!(sim.forgotten, vec![removed(&[CTE])]);
    // While the history is being built from scratch, no page is known: every removal is a deletion.
    let mut sim = Sim::new(history());
    sim.feed(Event::KeepForgotten(true));
    sim.feed(Event::Need);
    chrome_removes(&mut sim, &[OLD]);
    sim.give_snapshot(None);
    sim.serve_all();
    assert!(!sim.finds("ancient", OLD));
    assert_eq!(sim.forgotten, vec![removed(&[OLD])]);
}

#[test]
fn turning_the_option_off_or_forgetting_kept_pages_forgets_them_everywhere() {
    for forget in [Event::KeepForgotten(false), Event::ForgetKept] {
        let mut sim = built_with(Some(true));
        chrome_removes(&mut sim, &[OLD]);
        sim.persist_due();
        let saves = sim.saves;
        sim.feed(forget.clone());
        assert!(!sim.finds("ancient", OLD), "{forget:?}");
        assert!(sim.finds("recursive", CTE), "{forget:?}");
        assert_eq!(kept(&sim), 0);
        assert_eq!(sim.forgotten, vec![removed(&[OLD])], "{forget:?}");
        sim.persist_due();
        assert_eq!(sim.saves, saves + 1, "{forget:?}: saved");
        let stored = Index::from_bytes(sim.stored.as_deref().unwrap()).unwrap();
        assert!(stored.page(OLD).is_none(), "{forget:?}");
    }
    // "Forget kept pages" leaves the option on: the next page Chrome forgets is kept.
    let mut sim = built_with(Some(true));
    sim.feed(Event::ForgetKept);
    sim.browser
        .push(item("https://later.example/", "Later", 100 * DAY_MS));
    sim.feed(Event::Visited(item(
        "https://later.example/",
        "Later",
        100 * DAY_MS,
    )));
    chrome_removes(&mut sim, &["https://later.example/"]);
    assert_eq!(kept(&sim), 1);
}

#[test]
fn a_snapshot_loaded_while_the_stored_option_is_off_forgets_its_kept_pages() {
    let snapshot = built_kept_snapshot();
    let browser: Vec<HistoryItem> = history().into_iter().filter(|i| i.url != OLD).collect();
    // Unknown (the settings could not be read): nothing kept is forgotten for it.
    for (keep, found) in [(Some(false), false), (None, true), (Some(true), true)] {
        let mut sim = Sim::new(browser.clone());
        if let Some(on) = keep {
            sim.feed(Event::KeepForgotten(on));
        }
        sim.feed(Event::Need);
        sim.give_snapshot(Some(snapshot.clone()));
        sim.serve_all();
        assert_eq!(sim.finds("ancient", OLD), found, "{keep:?}");
        let forgotten = if found { vec![] } else { vec![removed(&[OLD])] };
        assert_eq!(sim.forgotten, forgotten, "{keep:?}");
    }
}

/// The snapshot of a complete index in which Chrome forgot [`OLD`] and the index kept it.
fn built_kept_snapshot() -> Vec<u8> {
    let mut sim = built_with(Some(true));
    chrome_removes(&mut sim, &[OLD]);
    sim.persist_due();
    sim.stored.unwrap()
}

#[test]
fn a_kept_page_visited_again_is_chromes_again() {
    let mut sim = built_with(Some(true));
    chrome_removes(&mut sim, &[OLD]);
    sim.browser.push(item(OLD, "An ancient imported page", 0));
    sim.feed(Event::Visited(item(OLD, "An ancient imported page", 0)));
    assert_eq!(kept(&sim), 0);
    // Now recent: the user deleting it is a deletion.
    chrome_removes(&mut sim, &[OLD]);
    assert!(!sim.finds("ancient", OLD));
    assert_eq!(sim.forgotten, vec![removed(&[OLD])]);
}

#[test]
fn a_forget_asked_by_a_page_removes_a_kept_page_whatever_the_rule_says() {
    let mut sim = built_with(Some(true));
    chrome_removes(&mut sim, &[OLD]);
    // `chrome.history.deleteUrl` on a page Chrome forgot reports it as removed again: by the rule
    // it is still an expiry, so the page stays…
    chrome_removes(&mut sim, &[OLD]);
    assert!(sim.finds("ancient", OLD));
    // …and the page's own forget (`Event::Removed`) is what removes it.
    sim.feed(Event::Removed(removed(&[OLD])));
    assert!(!sim.finds("ancient", OLD));
    assert_eq!(kept(&sim), 0);
    assert_eq!(sim.forgotten, vec![removed(&[OLD])]);
}

#[test]
fn a_rebuild_from_scratch_loses_the_kept_pages() {
    let mut bytes = built_kept_snapshot();
    // Another format version (or a damaged snapshot): the history is read again, and Chrome no
    // longer has the kept page.
    bytes[4] = bytes[4].wrapping_add(1);
    let mut sim = Sim::new(history().into_iter().filter(|i| i.url != OLD).collect());
    sim.feed(Event::KeepForgotten(true));
    sim.feed(Event::Need);
    sim.give_snapshot(Some(bytes));
    assert_eq!(sim.host.build_cause(), Some(BuildCause::OtherVersion));
    sim.serve_all();
    assert!(!sim.finds("ancient", OLD));
    assert_eq!(kept(&sim), 0);
}

/// The raw entries the host gives for a page's removal, sorted; `None` when it cannot tell them.
fn entries(sim: &Sim, url: &str) -> Option<(Vec<String>, Option<IndexProgress>)> {
    match sim.ask(Question::Entries {
        url: url.to_owned(),
    }) {
        Reply::Now(Answer::Pages { pages, indexing }) => {
            let mut urls = urls(&pages);
            urls.sort();
            Some((urls, indexing))
        }
        Reply::Now(Answer::Indexing { .. }) | Reply::AfterLoad => None,
        other => panic!("no entries for {url}: {other:?}"),
    }
}

#[test]
fn a_page_s_raw_entries_come_from_a_complete_index_without_a_search() {
    let tracked = "https://cuisine.example/creme-brulee?utm_source=newsletter";
    // A variant visited long before the page's last visit: no time span around it would find it.
    let old_variant = "https://cuisine.example/creme-brulee#etape-2";
    let mut browser = history();
    browser.push(item(tracked, "Crème brûlée facile", HOUR_MS));
    browser.push(item(old_variant, "Crème brûlée", 80 * DAY_MS));
    let mut sim = Sim::built(browser);
    let mut expected = vec![CREME.to_owned(), tracked.to_owned(), old_variant.to_owned()];
    expected.sort();
    assert_eq!(entries(&sim, CREME), Some((expected.clone(), None)));
    // A raw URL is cleaned first; an unknown page has no entries; what is not a web page, none.
    assert_eq!(entries(&sim, tracked), Some((expected, None)));
    assert_eq!(
        entries(&sim, "https://nowhere.example/"),
        Some((Vec::new(), None))
    );
    assert_eq!(
        entries(&sim, "javascript:alert(1)"),
        Some((Vec::new(), None))
    );
    // A new variant visited now is among them at once.
    let fresh = "https://cuisine.example/creme-brulee?utm_medium=social";
    sim.feed(Event::Visited(item(fresh, "Crème brûlée facile", 0)));
    assert!(entries(&sim, CREME).unwrap().0.contains(&fresh.to_owned()));
    // Entries only History Chat keeps (Chrome forgot them) are not Chrome's to delete.
    let mut sim = built_with(Some(true));
    chrome_removes(&mut sim, &[OLD]);
    assert!(sim.host.index().unwrap().is_kept(OLD));
    assert_eq!(entries(&sim, OLD), Some((Vec::new(), None)));
}

#[test]
fn while_the_index_cannot_tell_every_entry_the_browser_is_searched() {
    // Cold, and loading: no answer of entries.
    let mut sim = Sim::new(history());
    assert_eq!(entries(&sim, CREME), None);
    sim.feed(Event::Need);
    assert_eq!(entries(&sim, CREME), None, "loading");
    // A build before its first slice cannot tell; after it, every entry visited since the slice's
    // start is known, and the browser finds the older ones.
    sim.give_snapshot(None);
    assert_eq!(entries(&sim, CREME), None, "no slice in yet");
    sim.serve_next();
    let (known, indexing) = entries(&sim, CREME).unwrap();
    assert_eq!(known, [CREME]);
    let since = indexing.and_then(|progress| progress.since_ms);
    assert!(
        since.is_some_and(|since| since <= NOW - 2 * HOUR_MS),
        "{since:?}"
    );
    let (known, indexing) = entries(&sim, CTE).unwrap();
    assert!(known.is_empty() && indexing.is_some(), "not reached yet");
    // A loaded snapshot catching up may miss newer entries.
    let sim = Sim::built(history());
    let stored = sim.stored.clone();
    let mut sim = sim.restart();
    sim.feed(Event::Need);
    sim.give_snapshot(stored);
    assert!(!sim.reads.is_empty(), "catching up");
    assert_eq!(entries(&sim, CREME), None, "catching up");
    sim.serve_all();
    assert_eq!(entries(&sim, CREME), Some((vec![CREME.to_owned()], None)));
    // An excluded site's pages never enter the index: the browser knows its entries.
    sim.feed(exclusions("cuisine.example"));
    assert_eq!(entries(&sim, CREME), None, "excluded");
}

// Events that could not be read: the history is read again.

/// The reads out now, each with the browser's answer as it is now (served later, they predate
/// whatever happens in between).
fn answered_now(sim: &mut Sim) -> Vec<(HistoryRead, Vec<HistoryItem>)> {
    let reads: Vec<HistoryRead> = sim.reads.drain(..).collect();
    reads
        .into_iter()
        .map(|read| {
            let items = sim.items_for(&read);
            (read, items)
        })
        .collect()
}

/// A restarted worker whose saved index is being loaded.
fn loading() -> Sim {
    let mut sim = Sim::built(history()).restart();
    sim.feed(Event::Need);
    sim
}

/// A loaded index catching up, its catch-up read out.
fn catching_up() -> Sim {
    let mut sim = loading();
    let stored = sim.stored.clone();
    sim.give_snapshot(stored);
    assert_eq!(sim.reads.len(), 1);
    sim
}

/// Gives the snapshot when it is being read, then serves every read.
fn settle(sim: &mut Sim) {
    if sim.snapshot_reads > 0 && sim.host.index().is_none() {
        let stored = sim.stored.clone();
        sim.give_snapshot(stored);
    }
    sim.serve_all();
}

#[test]
fn a_visit_that_could_not_be_read_is_read_from_the_history_in_every_state() {
    const LOST: &str = "https://lost.example/visit";
    let rows: Vec<(&str, Sim)> = vec![
        ("cold, a snapshot saved", Sim::built(history()).restart()),
        ("cold, no snapshot", Sim::new(history())),
        ("loading", loading()),
        ("building, first slice out", Sim::building(history())),
        ("building, a later slice out", {
            let mut sim = Sim::building(history());
            sim.serve_next();
            sim
        }),
        ("ready", Sim::built(history())),
        ("catching up after a load", catching_up()),
    ];
    for (state, mut sim) in rows {
        // The visit is recorded, but its event cannot be read; the reads out were answered before.
        let stale = answered_now(&mut sim);
        sim.browser.push(item(LOST, "Axolotl husbandry", 0));
        sim.feed(Event::VisitUnreadable { now_ms: NOW });
        let asked: Vec<HistoryRead> = sim.reads.drain(..).collect();
        for (read, items) in stale {
            sim.serve(read, Some(items));
        }
        sim.reads.extend(asked);
        settle(&mut sim);
        assert!(sim.host.is_ready(), "{state}");
        assert!(sim.finds("axolotl", LOST), "{state}");
        assert!(sim.forgotten.is_empty(), "{state}");
    }
    // A complete index reads the recent history at once, and saves what it brought.
    let mut sim = Sim::built(history());
    let saves = sim.saves;
    sim.browser.push(item(LOST, "Axolotl husbandry", 0));
    sim.feed(Event::VisitUnreadable { now_ms: NOW });
    let read = sim.take_read();
    assert_eq!(
        (read.start_ms, read.end_ms),
        (NOW - CATCH_UP_MARGIN_MS, None)
    );
    sim.reads.push_back(read);
    sim.serve_all();
    sim.persist_due();
    assert_eq!(sim.saves, saves + 1);
    // One read replaces the catch-up that was out, from the earlier of the two starts.
    let mut sim = catching_up();
    let catch_up = sim.reads[0].clone();
    sim.feed(Event::VisitUnreadable { now_ms: NOW });
    let read = sim.reads.pop_back().unwrap();
    assert_eq!(
        (read.start_ms, read.end_ms),
        (catch_up.start_ms, None),
        "covers the catch-up too"
    );
    // During a build, once it is complete: from the visit's time minus the margin.
    let mut sim = Sim::building(history());
    sim.feed(Event::VisitUnreadable { now_ms: NOW });
    let reads = sim.serve_all();
    let last = reads.last().unwrap();
    assert_eq!(
        (last.start_ms, last.end_ms),
        (NOW - CATCH_UP_MARGIN_MS, None)
    );
    assert_eq!(reads[reads.len() - 2].start_ms, 0, "after the last slice");
}

/// The forgotten removals with their URLs sorted (a verify lists them in the index's order).
fn forgotten_sorted(sim: &Sim) -> Vec<RemovedVisits> {
    sim.forgotten
        .iter()
        .cloned()
        .map(|mut removed| {
            removed.urls.sort();
            removed
        })
        .collect()
}

#[test]
fn a_removal_that_could_not_be_read_verifies_the_index_against_the_whole_history() {
    // (option, what Chrome no longer has, pages still found, forgotten in the conversation, kept)
    type Row = (
        Option<bool>,
        Vec<&'static str>,
        Vec<&'static str>,
        Vec<RemovedVisits>,
        usize,
    );
    let rows: Vec<Row> = vec![
        (
            None,
            vec![CREME],
            vec![CTE, OLD],
            vec![removed(&[CREME])],
            0,
        ),
        (Some(true), vec![OLD], vec![CREME, CTE, OLD], vec![], 1),
        (
            Some(true),
            vec![CTE, OLD],
            vec![CREME],
            vec![removed(&[CTE, OLD])],
            0,
        ),
        (
            Some(false),
            vec![OLD],
            vec![CREME, CTE],
            vec![removed(&[OLD])],
            0,
        ),
        (Some(true), vec![], vec![CREME, CTE, OLD], vec![], 0),
    ];
    for (keep, gone, found, forgotten, kept_pages) in rows {
        let name = format!("{keep:?} {gone:?}");
        let mut sim = built_with(keep);
        let saves = sim.saves;
        sim.browser.retain(|i| !gone.contains(&i.url.as_str()));
        sim.feed(Event::RemovalUnreadable { now_ms: NOW });
        assert!(sim.host.verifying(), "{name}");
        let read = sim.take_read();
        assert_eq!((read.start_ms, read.end_ms), (0, None), "{name}");
        assert!(
            entries(&sim, CREME).is_none(),
            "{name}: the entries are not known while it verifies"
        );
        sim.reads.push_back(read);
        sim.serve_all();
        assert!(!sim.host.verifying(), "{name}");
        for (query, url) in [("creme", CREME), ("recursive", CTE), ("ancient", OLD)] {
            assert_eq!(sim.finds(query, url), found.contains(&url), "{name}: {url}");
        }
        assert_eq!(forgotten_sorted(&sim), forgotten, "{name}");
        assert_eq!(kept(&sim), kept_pages, "{name}");
        // Saved, even when nothing changed; a restart loads it as it is now.
        sim.persist_due();
        assert_eq!(sim.saves, saves + 1, "{name}: saved");
        let mut sim = sim.restart();
        if let Some(on) = keep {
            sim.feed(Event::KeepForgotten(on));
        }
        sim.feed(Event::Need);
        let stored = sim.stored.clone();
        sim.give_snapshot(stored);
        sim.serve_all();
        for (query, url) in [("creme", CREME), ("recursive", CTE), ("ancient", OLD)] {
            assert_eq!(
                sim.finds(query, url),
                found.contains(&url),
                "{name}: {url} after a restart"
            );
        }
    }
}

#[test]
fn a_page_already_kept_is_not_verified_away() {
    let mut sim = built_with(Some(true));
    chrome_removes(&mut sim, &[OLD]);
    assert_eq!(kept(&sim), 1);
    sim.feed(Event::RemovalUnreadable { now_ms: NOW });
    sim.serve_all();
    assert!(sim.finds("ancient", OLD));
    assert_eq!(kept(&sim), 1);
    assert!(sim.forgotten.is_empty());
}

#[test]
fn changes_while_a_verify_is_out_are_replayed_and_a_page_visited_meanwhile_stays() {
    const NEW: &str = "https://new.example/while-verifying";
    let mut sim = Sim::built(history());
    sim.browser.retain(|i| i.url != CREME);
    sim.feed(Event::RemovalUnreadable { now_ms: NOW });
    // The read is answered now; a visit and a readable removal come before the answer is fed.
    let stale = answered_now(&mut sim);
    let new = item(NEW, "Quokka photography", 0);
    sim.browser.push(new.clone());
    sim.feed(Event::Visited(new));
    chrome_removes(&mut sim, &[CTE]);
    for (read, items) in stale {
        assert!(items.iter().any(|i| i.url == CTE) && !items.iter().any(|i| i.url == NEW));
        sim.serve(read, Some(items));
    }
    assert!(sim.host.is_ready() && sim.reads.is_empty());
    assert!(!sim.finds("creme", CREME), "verified away");
    assert!(
        !sim.finds("recursive", CTE),
        "removed meanwhile: the answer that still had it is not the last word"
    );
    assert!(sim.finds("quokka", NEW), "visited meanwhile: not judged");
    assert_eq!(sim.forgotten, vec![removed(&[CTE]), removed(&[CREME])]);
}

#[test]
fn a_removal_that_could_not_be_read_before_the_load_verifies_the_loaded_snapshot() {
    for (state, mut sim) in [
        ("cold", Sim::built(history()).restart()),
        ("loading", loading()),
    ] {
        sim.browser.retain(|i| i.url != CREME);
        sim.feed(Event::RemovalUnreadable { now_ms: NOW });
        assert!(sim.host.verifying(), "{state}");
        assert_eq!(sim.snapshot_reads, 1, "{state}");
        let stored = sim.stored.clone();
        sim.give_snapshot(stored);
        let read = sim.take_read();
        assert_eq!(
            (read.start_ms, read.end_ms),
            (0, None),
            "{state}: the verify is the catch-up"
        );
        sim.reads.push_back(read);
        sim.serve_all();
        assert!(!sim.finds("creme", CREME), "{state}");
        assert!(sim.finds("recursive", CTE), "{state}");
        assert_eq!(sim.forgotten, vec![removed(&[CREME])], "{state}");
        assert!(!sim.host.verifying(), "{state}");
    }
    // No usable snapshot: the build reads the history as it is now, nothing to verify.
    let mut sim = Sim::new(history());
    sim.feed(Event::Need);
    sim.browser.retain(|i| i.url != CREME);
    sim.feed(Event::RemovalUnreadable { now_ms: NOW });
    sim.give_snapshot(None);
    assert!(!sim.host.verifying());
    let reads = sim.serve_all();
    assert_eq!(reads.last().map(|r| r.start_ms), Some(0));
    assert!(reads.iter().all(|r| r.end_ms.is_some() || r.start_ms > 0));
    assert!(!sim.finds("creme", CREME));
}

#[test]
fn a_removal_that_could_not_be_read_during_a_build_is_verified_once_it_is_complete() {
    let mut sim = Sim::building(history());
    sim.serve_next();
    assert!(sim.finds("creme", CREME), "read in the first slice");
    // Both go while the second slice is out: CREME was read before, CTE will be read after.
    let stale = answered_now(&mut sim);
    let out_start = stale[0].0.start_ms;
    sim.browser.retain(|i| i.url != CREME && i.url != CTE);
    sim.feed(Event::RemovalUnreadable { now_ms: NOW });
    assert!(sim.host.verifying());
    for (read, items) in stale {
        sim.serve(read, Some(items));
    }
    let mut reads = Vec::new();
    while !sim.host.is_ready() {
        reads.push(sim.serve_next());
    }
    assert!(
        sim.finds("creme", CREME),
        "searchable until the build is complete"
    );
    let verify = sim.take_read();
    assert_eq!(
        (verify.start_ms, verify.end_ms),
        (out_start, None),
        "what was read, or out, when the removal came"
    );
    sim.reads.push_back(verify);
    sim.serve_all();
    assert!(!sim.finds("creme", CREME));
    assert!(!sim.finds("recursive", CTE));
    assert!(sim.finds("ancient", OLD));
    assert_eq!(sim.forgotten, vec![removed(&[CREME])]);
    assert!(!sim.host.verifying());
    sim.persist_due();
    let stored = Index::from_bytes(sim.stored.as_deref().unwrap()).unwrap();
    assert!(stored.page(CREME).is_none());
}

#[test]
fn a_verify_that_keeps_failing_is_owed_and_clear_all_or_a_lifted_exclusion_handle_one_out() {
    // Every attempt fails: the index stays, and the host says a save does not have the verify.
    let mut sim = Sim::built(history());
    sim.feed(Event::RemovalUnreadable { now_ms: NOW });
    for _ in 0..READ_ATTEMPTS {
        let read = sim.take_read();
        sim.serve(read, None);
    }
    assert!(sim.reads.is_empty() && sim.host.is_ready());
    assert!(sim.host.verifying(), "owed");
    // A later verify that succeeds pays it.
    sim.feed(Event::RemovalUnreadable { now_ms: NOW });
    sim.serve_all();
    assert!(!sim.host.verifying());

    // "Clear all" while it is out: nothing left to verify, its answer is ignored.
    let mut sim = Sim::built(history());
    sim.feed(Event::RemovalUnreadable { now_ms: NOW });
    let stale = answered_now(&mut sim);
    sim.browser.clear();
    sim.feed(Event::Removed(clear_all()));
    assert!(!sim.host.verifying());
    for (read, items) in stale {
        sim.serve(read, Some(items));
    }
    assert_eq!(sim.host.index().map(Index::len), Some(0));

    // A site taken off the list while it is out: the whole history is read again, still verifying.
    let mut sim = Sim::new(history());
    sim.feed(exclusions("cuisine.example"));
    sim.feed(Event::Need);
    sim.give_snapshot(None);
    sim.serve_all();
    sim.browser.retain(|i| i.url != CTE);
    sim.feed(Event::RemovalUnreadable { now_ms: NOW });
    let stale = answered_now(&mut sim);
    sim.feed(exclusions(""));
    let asked: Vec<HistoryRead> = sim.reads.drain(..).collect();
    assert_eq!(asked.len(), 1);
    for (read, items) in stale {
        sim.serve(read, Some(items));
    }
    sim.reads.extend(asked);
    assert!(sim.host.verifying());
    sim.serve_all();
    assert!(sim.finds("creme", CREME), "the site is back");
    assert!(!sim.finds("recursive", CTE), "verified away");
    assert_eq!(sim.forgotten, vec![removed(&[CTE])]);
}

#[test]
fn followers_hear_every_page_once_then_only_what_changed() {
    let mut sim = Sim::building(history());
    assert_eq!(
        sim.follower.as_ref().map(BTreeSet::len),
        Some(0),
        "a build lists its (empty) index at once"
    );
    sim.serve_all();
    let held = |sim: &Sim| sim.follower.as_ref().map_or(0, BTreeSet::len);
    assert_eq!(held(&sim), sim.host.index().map_or(0, Index::len));
    // Each event tells only what it touched (`Sim::feed` checks the follower against the index
    // after every event).
    let follows = |sim: &mut Sim, event: Event| -> Vec<Followed> {
        sim.host
            .handle(event)
            .into_iter()
            .filter_map(|action| match action {
                Action::Follow(followed) => Some(followed),
                _ => None,
            })
            .collect()
    };
    let visit = item("https://new.example/x?utm_source=y", "New page", 0);
    let told = follows(&mut sim, Event::Visited(visit));
    let Some(Followed::Changed { indexed, gone }) = told.first() else {
        panic!("a visit is a change: {told:?}");
    };
    assert_eq!(
        (urls(indexed), gone.clone()),
        (vec!["https://new.example/x".to_owned()], Vec::new())
    );
    let told = follows(&mut sim, Event::Forget(vec![CTE.to_owned()]));
    assert_eq!(
        told,
        [Followed::Changed {
            indexed: Vec::new(),
            gone: vec![CTE.to_owned()]
        }]
    );
    assert_eq!(follows(&mut sim, Event::PersistDue), []);
    assert_eq!(
        follows(&mut sim, Event::Removed(clear_all())),
        [Followed::Cleared]
    );
}
