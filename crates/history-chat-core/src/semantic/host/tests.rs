use std::collections::{BTreeMap, HashSet};
use std::hash::{DefaultHasher, Hash, Hasher};

use super::*;
use crate::semantic::quantised::tests::unit_vector;
use crate::semantic::{DIM, RECORD_VERSION, page_hash, passage};

const NOW: i64 = 1_780_000_000_000;
const MINUTE: i64 = 60 * 1000;

fn page(url: &str, title: &str, ago_ms: i64) -> Page {
    Page {
        url: url.to_owned(),
        title: title.to_owned(),
        last_visit_ms: NOW - ago_ms,
        visit_count: 1,
        passage: None,
        marks: Default::default(),
    }
}

/// `n` pages, one a minute, newest first: `https://p{i}.example/` titled "Page {i} about topic
/// {i}".
fn history(n: i64) -> Vec<Page> {
    (0..n)
        .map(|i| {
            page(
                &format!("https://p{i}.example/"),
                &format!("Page {i} about topic {i}"),
                i * MINUTE,
            )
        })
        .collect()
}

/// The model stand-in: a unit vector drawn from the passage, so unrelated passages are nearly
/// orthogonal (cosine about ±0.05) and a question embedded from a page's passage finds that page.
fn embed(passage: &str) -> Vec<f32> {
    let mut hasher = DefaultHasher::new();
    passage.hash(&mut hasher);
    unit_vector(hasher.finish())
}

#[derive(Debug)]
enum Out {
    Embed {
        batch: u64,
        passages: Vec<String>,
    },
    Save {
        batch: u64,
        records: Vec<StoredRecord>,
    },
}

/// The host with a simulated worker around it: an IndexedDB store (key → bytes), a model, timers,
/// and a log of what the host asked for. The one batch out (an `Embed` or a `Save`) is answered
/// only when a test says so, so it can put events in between; every action is checked against
/// the host's promises (never two batches out, never two store reads, batches of at most
/// [`BATCH_PAGES`]).
struct Sim {
    host: SemanticHost,
    store: BTreeMap<String, Vec<u8>>,
    /// Every record written: (key, page hash).
    writes: Vec<(String, u64)>,
    out: Option<Out>,
    load_out: bool,
    loads: usize,
    timers: Vec<u32>,
    closes: usize,
    clears: usize,
    deleted: Vec<String>,
    send_all: usize,
    /// Every batch of passages the model was asked for, in order.
    embedded: Vec<Vec<String>>,
}

/// A host the lexical index has handed its pages to (its handover, [`Event::Listed`], comes first
/// here: the pages the tests feed are then changes, which is what the host makes of them anyway).
fn listed_host() -> SemanticHost {
    let mut host = SemanticHost::new();
    host.handle(Event::Listed);
    host
}

impl Sim {
    fn new() -> Sim {
        Sim {
            host: listed_host(),
            store: BTreeMap::new(),
            writes: Vec::new(),
            out: None,
            load_out: false,
            loads: 0,
            timers: Vec::new(),
            closes: 0,
            clears: 0,
            deleted: Vec::new(),
            send_all: 0,
            embedded: Vec::new(),
        }
    }

    /// Started, the (empty) store loaded, `pages` fed: the first batch is out.
    fn started(pages: Vec<Page>) -> Sim {
        let mut sim = Sim::new();
        sim.feed(Event::Start { enabled: true });
        sim.serve_load();
        sim.feed(Event::Pages(pages));
        sim
    }

    /// Started with `pages`, built to the end.
    fn built(pages: Vec<Page>) -> Sim {
        let mut sim = Sim::started(pages);
        sim.run();
        assert_eq!(sim.host.progress().status, SemanticStatus::Ready);
        sim
    }

    /// The worker (or the whole browser) is killed: a new host, the same store, nothing fed yet.
    /// Whatever was out is lost.
    fn reborn(self) -> Sim {
        Sim {
            host: listed_host(),
            out: None,
            load_out: false,
            embedded: Vec::new(),
            deleted: Vec::new(),
            loads: 0,
            ..self
        }
    }

    /// [`Sim::reborn`], then started with the same lexical index (`pages`).
    fn restart(self, pages: Vec<Page>) -> Sim {
        let mut sim = self.reborn();
        sim.feed(Event::Start { enabled: true });
        sim.serve_load();
        sim.feed(Event::Pages(pages));
        sim
    }

    fn feed(&mut self, event: Event) {
        for action in self.host.handle(event) {
            match action {
                Action::LoadStore => {
                    assert!(!self.load_out, "two store reads out");
                    self.load_out = true;
                    self.loads += 1;
                }
                Action::Embed { batch, passages } => {
                    assert!(self.out.is_none(), "a batch out already: {:?}", self.out);
                    assert!((1..=BATCH_PAGES).contains(&passages.len()), "{passages:?}");
                    self.embedded.push(passages.clone());
                    self.out = Some(Out::Embed { batch, passages });
                }
                Action::Save { batch, records } => {
                    assert!(self.out.is_none(), "a batch out already: {:?}", self.out);
                    assert!((1..=BATCH_PAGES).contains(&records.len()));
                    self.out = Some(Out::Save { batch, records });
                }
                Action::Delete { urls } => {
                    for url in urls {
                        self.store.remove(&url);
                        self.deleted.push(url);
                    }
                }
                Action::ClearStore => {
                    self.store.clear();
                    self.clears += 1;
                }
                Action::RetryAfter { ms } => self.timers.push(ms),
                Action::CloseEmbedder => self.closes += 1,
                Action::SendAllPages => self.send_all += 1,
            }
        }
    }

    /// Answers the store read with everything stored, in chunks of `chunk`.
    fn serve_load_in_chunks(&mut self, chunk: usize) {
        assert!(self.load_out, "no store read out");
        self.load_out = false;
        let records: Vec<StoredRecord> = self
            .store
            .iter()
            .map(|(url, bytes)| StoredRecord {
                url: url.clone(),
                bytes: bytes.clone(),
            })
            .collect();
        let chunks: Vec<Vec<StoredRecord>> =
            records.chunks(chunk.max(1)).map(<[_]>::to_vec).collect();
        if chunks.is_empty() {
            self.feed(Event::StoreLoaded {
                records: Vec::new(),
                done: true,
            });
        }
        let last = chunks.len().saturating_sub(1);
        for (i, records) in chunks.into_iter().enumerate() {
            self.feed(Event::StoreLoaded {
                records,
                done: i == last,
            });
        }
    }

    fn serve_load(&mut self) {
        self.serve_load_in_chunks(usize::MAX);
    }

    fn take_embed(&mut self) -> (u64, Vec<String>) {
        match self.out.take() {
            Some(Out::Embed { batch, passages }) => (batch, passages),
            other => panic!("no Embed out: {other:?}"),
        }
    }

    fn take_save(&mut self) -> (u64, Vec<StoredRecord>) {
        match self.out.take() {
            Some(Out::Save { batch, records }) => (batch, records),
            other => panic!("no Save out: {other:?}"),
        }
    }

    /// The model embeds the batch out; returns its passages.
    fn embed_next(&mut self) -> Vec<String> {
        let (batch, passages) = self.take_embed();
        let vectors = passages.iter().map(|p| embed(p)).collect();
        self.feed(Event::Embedded { batch, vectors });
        passages
    }

    /// Writes the records out into the store, as one transaction, without telling the host.
    fn write(&mut self, records: &[StoredRecord]) {
        for record in records {
            let decoded = Record::decode(&record.bytes).unwrap();
            assert_eq!(decoded.url, record.url, "a record under its own key");
            self.writes.push((record.url.clone(), decoded.page_hash));
            self.store.insert(record.url.clone(), record.bytes.clone());
        }
    }

    /// The store writes the batch out; returns its keys.
    fn save_next(&mut self) -> Vec<String> {
        let (batch, records) = self.take_save();
        self.write(&records);
        self.feed(Event::Saved { batch });
        records.into_iter().map(|r| r.url).collect()
    }

    /// Answers whatever is out; false when nothing is.
    fn step(&mut self) -> bool {
        match &self.out {
            Some(Out::Embed { .. }) => {
                self.embed_next();
            }
            Some(Out::Save { .. }) => {
                self.save_next();
            }
            None => return false,
        }
        true
    }

    fn run(&mut self) {
        for _ in 0..100_000 {
            if !self.step() {
                return;
            }
        }
        panic!("the build never ends");
    }

    /// The pages a question embedded from `page`'s passage finds among the searchable vectors, in
    /// the last `since_ms` (the stand-out cut aside: these histories are a few pages, and
    /// `a_search_keeps_only_pages_that_stand_out` tests it).
    fn search_since(&self, page: &Page, start_ms: i64) -> Vec<String> {
        self.host
            .vectors()
            .search(&embed(&passage(page)), start_ms, 10, SIMILARITY_FLOOR)
            .into_iter()
            .map(|(url, _)| url)
            .collect()
    }

    fn finds(&self, page: &Page) -> bool {
        self.search_since(page, 0).contains(&page.url)
    }

    fn status(&self) -> SemanticStatus {
        self.host.progress().status
    }

    fn counts(&self) -> (u32, u32) {
        let progress = self.host.progress();
        (progress.understood, progress.total)
    }

    /// How many times each key was written.
    fn writes_of(&self, url: &str) -> usize {
        self.writes.iter().filter(|(u, _)| u == url).count()
    }

    fn embedded_passages(&self) -> Vec<String> {
        self.embedded.iter().flatten().cloned().collect()
    }
}

#[test]
fn a_first_build_embeds_newest_first_and_a_page_is_searchable_once_stored() {
    let pages = history(40);
    let mut sim = Sim::new();
    assert_eq!(sim.status(), SemanticStatus::Loading);
    sim.feed(Event::Start { enabled: true });
    assert_eq!(sim.loads, 1);
    sim.serve_load();
    assert_eq!(sim.status(), SemanticStatus::Ready, "nothing to do yet");
    // The lexical index's pages, in no particular order.
    let mut shuffled = pages.clone();
    shuffled.reverse();
    shuffled.swap(3, 17);
    sim.feed(Event::Pages(shuffled));
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Building, (0, 40))
    );

    let first = sim.embed_next();
    let newest: Vec<String> = pages[..BATCH_PAGES].iter().map(passage).collect();
    assert_eq!(first, newest, "the newest pages first, newest first");
    // Embedded, not stored yet: not searchable.
    assert!(!sim.finds(&pages[0]));
    assert_eq!(sim.counts(), (0, 40));
    let keys = sim.save_next();
    assert_eq!(keys.len(), BATCH_PAGES);
    assert!(sim.finds(&pages[0]) && sim.finds(&pages[BATCH_PAGES - 1]));
    assert!(!sim.finds(&pages[BATCH_PAGES]));
    assert_eq!(sim.counts(), (BATCH_PAGES as u32, 40));

    sim.run();
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Ready, (40, 40))
    );
    let order: Vec<String> = pages.iter().map(passage).collect();
    assert_eq!(sim.embedded_passages(), order, "newest first, each once");
    for p in &pages {
        assert!(sim.finds(p), "{}", p.url);
        assert_eq!(sim.writes_of(&p.url), 1);
        let record = Record::decode(&sim.store[&p.url]).unwrap();
        assert_eq!(
            (record.page_hash, record.last_visit_ms),
            (page_hash(p), p.last_visit_ms)
        );
    }
    assert_eq!(
        sim.store.values().next().map(|b| b[0]),
        Some(RECORD_VERSION)
    );
    // A question finds its page first; the floor keeps unrelated pages out.
    assert_eq!(sim.search_since(&pages[7], 0), [pages[7].url.clone()]);
    assert!(
        sim.host
            .search(&unit_vector(999), 0, 10, Words::Missed)
            .is_empty()
    );
    assert_eq!(sim.closes, 0, "the model stays open for questions");
    assert!(!sim.host.needs_embedder());
}

#[test]
fn no_batch_starts_while_the_user_types_or_asks_the_one_out_finishes() {
    let pages = history(3 * BATCH_PAGES as i64);
    let mut sim = Sim::started(pages.clone());
    // A keystroke while the first batch is out: it is embedded and stored all the same.
    sim.feed(Event::UserActive);
    sim.embed_next();
    sim.save_next();
    assert!(sim.finds(&pages[0]));
    assert!(sim.out.is_none(), "no next batch while the user is active");
    assert_eq!(sim.status(), SemanticStatus::Building);
    // More keystrokes change nothing; a page visited meanwhile waits too.
    sim.feed(Event::UserActive);
    let visited = page("https://new.example/", "New page", 0);
    sim.feed(Event::Pages(vec![visited.clone()]));
    assert!(sim.out.is_none());
    // The user stopped: the build goes on, newest first, to the end.
    sim.feed(Event::UserIdle);
    assert_eq!(sim.embed_next()[0], passage(&visited));
    sim.run();
    assert_eq!(
        (sim.status(), sim.counts()),
        (
            SemanticStatus::Ready,
            (3 * BATCH_PAGES as u32 + 1, 3 * BATCH_PAGES as u32 + 1)
        )
    );
    // Idle with nothing to do, or active and then idle: nothing is sent.
    sim.feed(Event::UserActive);
    sim.feed(Event::UserIdle);
    assert!(sim.out.is_none());
}

#[test]
fn a_worker_killed_mid_batch_embeds_that_batch_again_and_stores_nothing_twice() {
    #[derive(Debug, Clone, Copy)]
    enum Kill {
        WhileEmbedding,
        WhileSavingBeforeTheWrite,
        AfterTheWriteBeforeSaved,
    }
    for kill in [
        Kill::WhileEmbedding,
        Kill::WhileSavingBeforeTheWrite,
        Kill::AfterTheWriteBeforeSaved,
    ] {
        let pages = history(30);
        let mut sim = Sim::started(pages.clone());
        for _ in 0..4 {
            sim.step();
        }
        // Two batches stored; the third is out.
        let third: Vec<String> = pages[2 * BATCH_PAGES..3 * BATCH_PAGES]
            .iter()
            .map(|p| p.url.clone())
            .collect();
        match kill {
            Kill::WhileEmbedding => {}
            Kill::WhileSavingBeforeTheWrite => {
                sim.embed_next();
            }
            Kill::AfterTheWriteBeforeSaved => {
                sim.embed_next();
                let (_, records) = sim.take_save();
                sim.write(&records);
            }
        }
        let stored_before: HashSet<String> = sim.store.keys().cloned().collect();
        let mut sim = sim.restart(pages.clone());
        assert_eq!(sim.counts().0 as usize, stored_before.len(), "{kill:?}");
        sim.run();
        for p in &pages {
            assert!(sim.finds(p), "{kill:?}: {}", p.url);
            assert_eq!(sim.writes_of(&p.url), 1, "{kill:?}: {} stored once", p.url);
        }
        let again: Vec<String> = sim.embedded_passages();
        let third_again = pages
            .iter()
            .filter(|p| third.contains(&p.url))
            .all(|p| again.contains(&passage(p)));
        match kill {
            Kill::AfterTheWriteBeforeSaved => assert!(
                !again.iter().any(|t| pages
                    .iter()
                    .any(|p| passage(p) == *t && stored_before.contains(&p.url))),
                "a stored batch is not embedded again"
            ),
            _ => assert!(third_again, "{kill:?}: the lost batch is embedded again"),
        }
    }
}

#[test]
fn a_page_removed_while_its_batch_is_out_never_becomes_searchable() {
    let pages = history(20);
    let gone = pages[1].clone();
    for while_saving in [false, true] {
        let mut sim = Sim::started(pages.clone());
        if while_saving {
            sim.embed_next();
        }
        sim.feed(Event::Removed(Removal::Urls(vec![gone.url.clone()])));
        sim.run();
        assert!(!sim.finds(&gone), "saving: {while_saving}");
        assert!(!sim.store.contains_key(&gone.url), "saving: {while_saving}");
        assert!(sim.finds(&pages[0]) && sim.finds(&pages[2]));
        assert_eq!(sim.counts(), (19, 19));
        if while_saving {
            // The write went out before the removal: the record is deleted after it.
            assert_eq!(sim.writes_of(&gone.url), 1);
            assert_eq!(sim.deleted, std::slice::from_ref(&gone.url));
        } else {
            assert_eq!(sim.writes_of(&gone.url), 0, "never written");
        }
    }
    // Removed, then visited again, while its batch is out: it comes back, embedded again.
    let mut sim = Sim::started(pages.clone());
    sim.embed_next();
    sim.feed(Event::Removed(Removal::Urls(vec![gone.url.clone()])));
    let back = page(&gone.url, &gone.title, 0);
    sim.feed(Event::Pages(vec![back.clone()]));
    sim.run();
    assert!(sim.finds(&back));
    assert_eq!(sim.host.vectors().last_visit_ms(&back.url), Some(NOW));
    assert!(sim.store.contains_key(&back.url));
    // A stored page removed: deleted at once.
    let mut sim = Sim::built(pages.clone());
    sim.feed(Event::Removed(Removal::Urls(vec![
        pages[5].url.clone(),
        "https://never.example/".into(),
    ])));
    assert_eq!(sim.deleted, [pages[5].url.clone()]);
    assert!(!sim.finds(&pages[5]));
    assert_eq!(sim.counts(), (19, 19));
}

#[test]
fn removing_everything_clears_the_vectors_the_to_do_and_the_store() {
    let pages = history(30);
    let mut sim = Sim::started(pages.clone());
    sim.step();
    sim.step();
    sim.embed_next();
    // A write is out when the history is cleared.
    sim.feed(Event::Removed(Removal::All));
    assert_eq!(sim.clears, 1);
    assert!(sim.store.is_empty());
    assert_eq!(sim.counts(), (0, 0));
    assert!(!sim.finds(&pages[0]));
    let (batch, records) = sim.take_save();
    sim.write(&records);
    sim.feed(Event::Saved { batch });
    assert!(sim.store.is_empty(), "the late write is deleted");
    assert!(sim.out.is_none(), "nothing more to embed");
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Ready, (0, 0))
    );
    // Life goes on.
    let after = page("https://after.example/", "After the clear", 0);
    sim.feed(Event::Pages(vec![after.clone()]));
    sim.run();
    assert!(sim.finds(&after));
    assert_eq!(sim.store.len(), 1);

    // While loading: the read that was out is ignored (it predates the clear).
    let mut sim = Sim::built(pages.clone()).reborn();
    sim.feed(Event::Start { enabled: true });
    let old: Vec<StoredRecord> = sim
        .store
        .iter()
        .map(|(url, bytes)| StoredRecord {
            url: url.clone(),
            bytes: bytes.clone(),
        })
        .collect();
    assert_eq!(old.len(), 30);
    sim.feed(Event::Removed(Removal::All));
    sim.feed(Event::StoreLoaded {
        records: old,
        done: true,
    });
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Ready, (0, 0))
    );
    assert!(sim.store.is_empty() && !sim.finds(&pages[0]));
}

#[test]
fn a_page_whose_title_came_later_is_embedded_again() {
    let untitled = page("https://news.example/2024/mars-rover-lands", "", 0);
    let titled = page(&untitled.url, "NASA's rover touches down on Mars", 0);
    let mut pages = history(10);
    pages.push(untitled.clone());
    let mut sim = Sim::built(pages.clone());
    assert!(sim.finds(&untitled));
    sim.feed(Event::Pages(vec![titled.clone()]));
    assert_eq!(sim.counts(), (11, 11), "counted once while embedded again");
    assert_eq!(sim.embed_next(), [passage(&titled)]);
    sim.save_next();
    assert!(sim.finds(&titled) && !sim.finds(&untitled));
    let record = Record::decode(&sim.store[&titled.url]).unwrap();
    assert_eq!(record.page_hash, page_hash(&titled));

    // The title comes while the untitled version's batch is out: both are stored, in order.
    let mut sim = Sim::started(vec![untitled.clone()]);
    sim.feed(Event::Pages(vec![titled.clone()]));
    sim.run();
    assert_eq!(
        sim.embedded_passages(),
        [passage(&untitled), passage(&titled)]
    );
    assert!(sim.finds(&titled));
    assert_eq!(
        Record::decode(&sim.store[&titled.url]).unwrap().page_hash,
        page_hash(&titled)
    );
    // And back to the first title while the second is out: embedded a third time, last wins.
    let mut sim = Sim::built(vec![untitled.clone()]);
    sim.feed(Event::Pages(vec![titled.clone()]));
    sim.feed(Event::Pages(vec![untitled.clone()]));
    sim.run();
    assert!(sim.finds(&untitled));
    assert_eq!(
        Record::decode(&sim.store[&untitled.url]).unwrap().page_hash,
        page_hash(&untitled)
    );
}

#[test]
fn a_page_visited_again_only_moves_its_last_visit() {
    let pages = history(10);
    let mut sim = Sim::built(pages.clone());
    let old = pages[9].clone();
    assert!(
        sim.search_since(&old, NOW - MINUTE).is_empty(),
        "out of the period"
    );
    let again = page(&old.url, &old.title, 0);
    sim.feed(Event::Pages(vec![again.clone()]));
    assert!(sim.out.is_none(), "not embedded again");
    assert_eq!(
        sim.search_since(&again, NOW - MINUTE),
        std::slice::from_ref(&old.url)
    );
    assert_eq!(sim.status(), SemanticStatus::Ready);
    // While its batch is being embedded: stored with the new visit. While it is being written:
    // the new visit is kept in memory (records are not rewritten for a visit; the lexical index's
    // pages bring it again at the next start).
    for while_saving in [false, true] {
        let mut sim = Sim::started(pages.clone());
        if while_saving {
            sim.embed_next();
        }
        let first = page(&pages[0].url, &pages[0].title, -MINUTE);
        sim.feed(Event::Pages(vec![first.clone()]));
        sim.run();
        assert_eq!(sim.embedded_passages().len(), 10, "not embedded again");
        assert_eq!(
            sim.host.vectors().last_visit_ms(&first.url),
            Some(NOW + MINUTE)
        );
        let record = Record::decode(&sim.store[&first.url]).unwrap();
        let stored_visit = if while_saving { NOW } else { NOW + MINUTE };
        assert_eq!(record.last_visit_ms, stored_visit, "saving: {while_saving}");
        let mut sim = sim.restart(vec![first.clone()]);
        assert_eq!(
            sim.host.vectors().last_visit_ms(&first.url),
            Some(NOW + MINUTE)
        );
        assert!(sim.out.is_none());
        sim.run();
    }
}

#[test]
fn broken_vectors_fail_the_batch_which_is_retried() {
    type Broken = fn(usize) -> Vec<Vec<f32>>;
    let rows: Vec<(&str, Broken)> = vec![
        ("one vector short", |n| vec![unit_vector(1); n - 1]),
        ("one too many", |n| vec![unit_vector(1); n + 1]),
        ("a short vector", |n| {
            let mut v = vec![unit_vector(1); n];
            v[0].pop();
            v
        }),
        ("a NaN", |n| {
            let mut v = vec![unit_vector(1); n];
            v[n - 1][7] = f32::NAN;
            v
        }),
    ];
    for (what, broken) in rows {
        let pages = history(12);
        let mut sim = Sim::started(pages.clone());
        let (batch, passages) = sim.take_embed();
        sim.feed(Event::Embedded {
            batch,
            vectors: broken(passages.len()),
        });
        assert_eq!(sim.timers, [RETRY_FIRST_MS], "{what}");
        assert!(sim.out.is_none() && sim.store.is_empty(), "{what}");
        assert_eq!(sim.counts(), (0, 12), "{what}: back in the to-do");
        sim.feed(Event::Pages(vec![page("https://new.example/", "New", -1)]));
        assert!(
            sim.out.is_none(),
            "{what}: nothing goes out before the retry"
        );
        sim.feed(Event::RetryDue);
        sim.run();
        assert_eq!(sim.counts(), (13, 13), "{what}");
        assert!(pages.iter().all(|p| sim.finds(p)), "{what}");
    }
}

#[test]
fn a_crashing_model_is_retried_with_backoff_then_unavailable() {
    let pages = history(12);
    let mut sim = Sim::started(pages.clone());
    let crash = |sim: &mut Sim| {
        let (batch, _) = sim.take_embed();
        sim.feed(Event::EmbedFailed {
            batch,
            failure: EmbedFailure::Crashed("offscreen document gone".into()),
        });
    };
    for _ in 1..EMBED_ATTEMPTS {
        crash(&mut sim);
        assert_eq!(sim.status(), SemanticStatus::Building);
        sim.feed(Event::RetryDue);
    }
    assert_eq!(sim.timers, [1_000, 2_000, 4_000, 8_000]);
    crash(&mut sim);
    assert_eq!(
        sim.status(),
        SemanticStatus::Unavailable(UnavailableReason::ModelFailing)
    );
    assert_eq!(sim.closes, 1);
    assert_eq!(sim.timers.len(), 4, "no more retries");
    for event in [
        Event::RetryDue,
        Event::Pages(vec![page("https://more.example/", "More", 0)]),
    ] {
        sim.feed(event);
        assert!(sim.out.is_none(), "no more Embed");
    }
    assert!(!sim.host.needs_embedder());
    assert_eq!(sim.counts(), (0, 13));

    // A success in between starts the count again.
    let mut sim = Sim::started(history(40));
    for _ in 0..3 {
        for _ in 1..EMBED_ATTEMPTS {
            crash(&mut sim);
            sim.feed(Event::RetryDue);
        }
        sim.step();
        sim.step();
    }
    assert_eq!(sim.status(), SemanticStatus::Building);
    sim.run();
    assert_eq!(sim.counts(), (40, 40));
}

#[test]
fn a_missing_corrupt_or_unsupported_model_makes_the_index_unavailable() {
    let rows = [
        (EmbedFailure::ModelMissing, UnavailableReason::ModelMissing),
        (EmbedFailure::ModelCorrupt, UnavailableReason::ModelCorrupt),
        (EmbedFailure::Unsupported, UnavailableReason::Unsupported),
    ];
    for (failure, reason) in rows {
        // Some pages understood in an earlier session.
        let stored = history(8);
        let mut pages = stored.clone();
        pages.extend(history(20).into_iter().skip(8));
        let mut sim = Sim::built(stored.clone()).restart(pages.clone());
        let (batch, _) = sim.take_embed();
        sim.feed(Event::EmbedFailed {
            batch,
            failure: failure.clone(),
        });
        assert_eq!(
            sim.status(),
            SemanticStatus::Unavailable(reason),
            "{reason:?}"
        );
        assert_eq!((sim.closes, sim.timers.len()), (1, 0), "{reason:?}");
        sim.feed(Event::Pages(vec![page("https://x.example/", "X", 0)]));
        sim.feed(Event::RetryDue);
        assert!(sim.out.is_none(), "{reason:?}: no more Embed");
        assert_eq!(sim.counts(), (8, 21), "{reason:?}");
        // The switch off and on tries again.
        sim.feed(Event::SetEnabled(false));
        sim.feed(Event::SetEnabled(true));
        assert_eq!(sim.send_all, 1);
        sim.serve_load();
        sim.feed(Event::Pages(pages.clone()));
        sim.run();
        assert_eq!(
            (sim.status(), sim.counts()),
            (SemanticStatus::Ready, (20, 20))
        );
    }
}

#[test]
fn a_full_storage_pauses_the_build_until_a_removal_frees_space() {
    let pages = history(30);
    let mut sim = Sim::started(pages.clone());
    sim.step();
    sim.step();
    sim.embed_next();
    let (batch, refused) = sim.take_save();
    sim.feed(Event::SaveFailed { batch, quota: true });
    assert_eq!(sim.status(), SemanticStatus::StorageFull);
    assert_eq!(sim.closes, 1, "the model is no use meanwhile");
    assert_eq!(sim.counts(), (8, 30));
    assert!(sim.finds(&pages[0]), "what is stored stays searchable");
    sim.feed(Event::Pages(vec![page("https://new.example/", "New", -1)]));
    sim.feed(Event::RetryDue);
    assert!(sim.out.is_none(), "paused");
    assert!(!sim.host.needs_embedder());
    // A removal of something not stored frees nothing.
    sim.feed(Event::Removed(Removal::Urls(vec![pages[29].url.clone()])));
    assert!(sim.out.is_none());
    // A stored page removed: the refused write is tried again, not re-embedded.
    let embedded = sim.embedded_passages().len();
    sim.feed(Event::Removed(Removal::Urls(vec![pages[3].url.clone()])));
    let (batch, again) = sim.take_save();
    assert_eq!(again, refused);
    assert_eq!(sim.embedded_passages().len(), embedded);
    sim.write(&again);
    sim.feed(Event::Saved { batch });
    sim.run();
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Ready, (29, 29))
    );

    // Or the next start resumes.
    let mut sim = Sim::started(pages.clone());
    sim.embed_next();
    let (batch, _) = sim.take_save();
    sim.feed(Event::SaveFailed { batch, quota: true });
    let mut sim = sim.restart(pages.clone());
    sim.run();
    assert_eq!(sim.counts(), (30, 30));
}

#[test]
fn a_failing_write_is_retried_without_embedding_again_then_given_up() {
    let pages = history(12);
    let mut sim = Sim::started(pages.clone());
    sim.embed_next();
    let (batch, first) = sim.take_save();
    sim.feed(Event::SaveFailed {
        batch,
        quota: false,
    });
    assert_eq!(sim.timers, [RETRY_FIRST_MS]);
    assert!(sim.out.is_none());
    sim.feed(Event::RetryDue);
    let (batch, second) = sim.take_save();
    assert_eq!(second, first, "the same records, not embedded again");
    sim.write(&second);
    sim.feed(Event::Saved { batch });
    sim.run();
    assert_eq!((sim.counts(), sim.embedded.len()), ((12, 12), 2));

    let mut sim = Sim::started(pages.clone());
    sim.embed_next();
    for attempt in 1..=SAVE_ATTEMPTS {
        let (batch, _) = sim.take_save();
        sim.feed(Event::SaveFailed {
            batch,
            quota: false,
        });
        if attempt < SAVE_ATTEMPTS {
            sim.feed(Event::RetryDue);
        }
    }
    assert_eq!(
        sim.status(),
        SemanticStatus::Unavailable(UnavailableReason::StoreFailing)
    );
    assert_eq!(sim.timers, [1_000, 2_000, 4_000, 8_000]);
    assert_eq!(sim.counts(), (0, 12));
    assert!(sim.out.is_none());
}

#[test]
fn switched_off_the_store_is_cleared_and_nothing_is_embedded() {
    let pages = history(20);
    let mut sim = Sim::built(pages.clone()).reborn();
    sim.feed(Event::Start { enabled: false });
    assert_eq!((sim.clears, sim.closes, sim.loads), (1, 1, 0));
    assert!(sim.store.is_empty());
    sim.feed(Event::Pages(pages.clone()));
    sim.feed(Event::RetryDue);
    assert!(sim.out.is_none());
    assert_eq!((sim.status(), sim.counts()), (SemanticStatus::Off, (0, 0)));
    assert!(
        sim.host
            .search(&embed(&passage(&pages[0])), 0, 10, Words::Missed)
            .is_empty()
    );
    sim.feed(Event::SetEnabled(false));
    assert_eq!(sim.clears, 1, "already off");
    // Back on: the store is read, the worker sends every page again.
    sim.feed(Event::SetEnabled(true));
    assert_eq!((sim.loads, sim.send_all), (1, 1));
    sim.serve_load();
    sim.feed(Event::Pages(pages.clone()));
    sim.run();
    assert!(pages.iter().all(|p| sim.finds(p)));

    // Off while a write is out, on again before it ends: the store is read only after it, and
    // what it wrote is deleted first.
    let mut sim = Sim::started(pages.clone());
    sim.step();
    sim.step();
    sim.embed_next();
    sim.feed(Event::SetEnabled(false));
    assert_eq!(sim.status(), SemanticStatus::Off);
    sim.feed(Event::SetEnabled(true));
    assert_eq!(sim.loads, 1, "the read waits for the write");
    let (batch, records) = sim.take_save();
    sim.write(&records);
    sim.feed(Event::Saved { batch });
    assert!(sim.store.is_empty(), "the late write is deleted");
    assert_eq!(sim.loads, 2);
    sim.serve_load();
    assert_eq!(sim.counts(), (0, 0));
    sim.feed(Event::Pages(pages.clone()));
    sim.run();
    assert_eq!(sim.counts(), (20, 20));
    // Off while embedding: the batch's answer is dropped.
    let mut sim = Sim::started(pages.clone());
    sim.feed(Event::SetEnabled(false));
    sim.embed_next();
    assert!(sim.out.is_none() && sim.store.is_empty());
}

#[test]
fn a_thousand_pages_arriving_during_a_build_are_all_embedded_newest_first() {
    let first = history(200);
    let mut sim = Sim::started(first.clone());
    let mut offered: Vec<Page> = first.clone();
    // The pages offered and not embedded yet, newest first, as the simulated worker knows them.
    let mut waiting: BTreeMap<(std::cmp::Reverse<i64>, String), String> = first
        .iter()
        .map(|p| {
            (
                (std::cmp::Reverse(p.last_visit_ms), p.url.clone()),
                passage(p),
            )
        })
        .collect();
    let mut checked = 0;
    // Each Embed takes the newest pages not embedded yet, as known when it goes out.
    let mut check = |sim: &Sim, waiting: &mut BTreeMap<_, String>| {
        if sim.embedded.len() == checked {
            return;
        }
        checked = sim.embedded.len();
        let batch = &sim.embedded[checked - 1];
        let newest: Vec<String> = (0..batch.len())
            .filter_map(|_| waiting.pop_first().map(|(_, passage)| passage))
            .collect();
        assert_eq!(*batch, newest, "batch {checked}");
    };
    check(&sim, &mut waiting);
    for next in 0..1_000 {
        // One visit after another, each newer than everything so far, between the model's and
        // the store's answers.
        let visit = page(
            &format!("https://visit{next}.example/"),
            &format!("Visit {next}"),
            -(next + 1) * 1_000,
        );
        waiting.insert(
            (std::cmp::Reverse(visit.last_visit_ms), visit.url.clone()),
            passage(&visit),
        );
        offered.push(visit.clone());
        sim.feed(Event::Pages(vec![visit]));
        check(&sim, &mut waiting);
        sim.step();
        check(&sim, &mut waiting);
    }
    while sim.step() {
        check(&sim, &mut waiting);
    }
    assert!(waiting.is_empty());
    sim.run();
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Ready, (1_200, 1_200))
    );
    assert_eq!(sim.store.len(), 1_200);
    assert!(offered.iter().all(|p| sim.writes_of(&p.url) == 1));
    assert!(sim.finds(&offered[1_199]) && sim.finds(&offered[0]));
}

#[test]
fn unreadable_records_are_skipped_counted_and_deleted() {
    let pages = history(20);
    let mut sim = Sim::built(pages.clone());
    let mut other_version = sim.store[&pages[0].url].clone();
    other_version[0] = RECORD_VERSION + 1;
    sim.store.insert(pages[0].url.clone(), other_version);
    sim.store
        .insert(pages[1].url.clone(), b"\x01garbage".to_vec());
    // A record under another page's key.
    let misplaced = sim.store[&pages[3].url].clone();
    sim.store.insert(pages[2].url.clone(), misplaced);
    sim.store.insert("https://gone.example/".into(), Vec::new());
    let mut sim = sim.reborn();
    sim.feed(Event::Start { enabled: true });
    sim.serve_load_in_chunks(3);
    assert_eq!(sim.host.skipped(), 4);
    let mut deleted = sim.deleted.clone();
    deleted.sort();
    let mut want = vec![
        pages[0].url.clone(),
        pages[1].url.clone(),
        pages[2].url.clone(),
        "https://gone.example/".to_owned(),
    ];
    want.sort();
    assert_eq!(deleted, want);
    assert_eq!(sim.counts(), (17, 17));
    sim.feed(Event::Pages(pages.clone()));
    sim.run();
    assert_eq!(
        sim.embedded_passages(),
        pages[..3].iter().map(passage).collect::<Vec<_>>(),
        "only the unreadable ones are embedded again"
    );
    assert!(pages.iter().all(|p| sim.finds(p)));
}

#[test]
fn changes_during_the_load_are_applied_once_it_is_loaded() {
    let pages = history(20);
    let mut sim = Sim::built(pages.clone()).reborn();
    sim.feed(Event::Start { enabled: true });
    // Before the store is read: a page removed, a new one, a title changed.
    let retitled = page(&pages[4].url, "A better title", 0);
    let new = page("https://new.example/", "New page", -MINUTE);
    sim.feed(Event::Removed(Removal::Urls(vec![pages[2].url.clone()])));
    sim.feed(Event::Pages(vec![new.clone(), retitled.clone()]));
    assert_eq!(sim.status(), SemanticStatus::Loading);
    // The first chunk comes; a page of it and one of a later chunk are removed in between.
    assert!(sim.load_out);
    sim.load_out = false;
    let records: Vec<StoredRecord> = sim
        .store
        .iter()
        .map(|(url, bytes)| StoredRecord {
            url: url.clone(),
            bytes: bytes.clone(),
        })
        .collect();
    let (head, tail) = records.split_at(10);
    sim.feed(Event::StoreLoaded {
        records: head.to_vec(),
        done: false,
    });
    assert_eq!(sim.status(), SemanticStatus::Loading);
    let early = head[0].url.clone();
    let late = tail[5].url.clone();
    let early_page = pages.iter().find(|p| p.url == early).unwrap().clone();
    assert!(sim.finds(&early_page), "searchable as soon as loaded");
    sim.feed(Event::Removed(Removal::Urls(vec![
        early.clone(),
        late.clone(),
    ])));
    sim.feed(Event::StoreLoaded {
        records: tail.to_vec(),
        done: true,
    });
    let mut deleted = sim.deleted.clone();
    deleted.sort();
    let mut want = vec![pages[2].url.clone(), early.clone(), late.clone()];
    want.sort();
    assert_eq!(deleted, want);
    sim.run();
    assert_eq!(sim.embedded_passages(), [passage(&new), passage(&retitled)]);
    assert!(sim.finds(&new) && sim.finds(&retitled));
    for url in [&pages[2].url, &early, &late] {
        assert!(!sim.store.contains_key(url), "{url}");
        assert!(!sim.host.vectors().contains(url), "{url}");
    }
    assert_eq!(sim.counts(), (18, 18));
}

#[test]
fn answers_that_do_not_match_the_batch_out_are_ignored() {
    let pages = history(10);
    let mut sim = Sim::started(pages.clone());
    let (batch, passages) = sim.take_embed();
    let vectors: Vec<Vec<f32>> = passages.iter().map(|p| embed(p)).collect();
    for event in [
        Event::Embedded {
            batch: batch + 7,
            vectors: vectors.clone(),
        },
        Event::Saved { batch },
        Event::SaveFailed { batch, quota: true },
        Event::EmbedFailed {
            batch: batch + 1,
            failure: EmbedFailure::ModelMissing,
        },
        Event::StoreLoaded {
            records: Vec::new(),
            done: true,
        },
        Event::Start { enabled: true },
    ] {
        sim.feed(event);
        assert_eq!(sim.status(), SemanticStatus::Building);
        assert!(sim.out.is_none());
    }
    sim.feed(Event::Embedded { batch, vectors });
    let (save, records) = sim.take_save();
    // An answer to the embedding, again: not the Save out.
    sim.feed(Event::Embedded {
        batch,
        vectors: Vec::new(),
    });
    assert!(sim.timers.is_empty());
    sim.write(&records);
    sim.feed(Event::Saved { batch: save });
    sim.run();
    assert_eq!(sim.counts(), (10, 10));
}

#[test]
fn progress_in_each_state() {
    let pages = history(12);
    let mut sim = Sim::new();
    let progress = |sim: &Sim| sim.host.progress();
    assert_eq!(
        progress(&sim),
        SemanticProgress {
            status: SemanticStatus::Loading,
            understood: 0,
            total: 0
        }
    );
    sim.feed(Event::Start { enabled: true });
    sim.feed(Event::Pages(pages.clone()));
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Loading, (0, 0))
    );
    sim.serve_load();
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Building, (0, 12))
    );
    assert!(sim.host.needs_embedder());
    sim.embed_next();
    assert_eq!(sim.counts(), (0, 12), "in flight counts");
    sim.save_next();
    assert_eq!(sim.counts(), (8, 12));
    sim.run();
    assert_eq!(
        (sim.status(), sim.counts()),
        (SemanticStatus::Ready, (12, 12))
    );
    sim.feed(Event::SetEnabled(false));
    assert_eq!((sim.status(), sim.counts()), (SemanticStatus::Off, (0, 0)));
}

#[test]
fn retry_delays_double_up_to_the_cap() {
    let rows = [
        (1, 1_000),
        (2, 2_000),
        (3, 4_000),
        (4, 8_000),
        (5, 16_000),
        (6, RETRY_MAX_MS),
        (40, RETRY_MAX_MS),
        (u32::MAX, RETRY_MAX_MS),
        (0, RETRY_FIRST_MS),
    ];
    for (failures, ms) in rows {
        assert_eq!(retry_delay(failures), ms, "{failures}");
    }
}

#[test]
fn the_model_vectors_are_of_the_model_dimension() {
    // The stand-in is what the real model gives: DIM components, unit length.
    let v = embed("anything");
    let norm: f32 = v.iter().map(|x| x * x).sum::<f32>().sqrt();
    assert_eq!(v.len(), DIM);
    assert!((norm - 1.0).abs() < 1e-5);
}

#[test]
fn a_search_keeps_only_pages_that_stand_out() {
    let pages: Vec<Page> = (0..12)
        .map(|i| {
            page(
                &format!("https://p{i}.example/"),
                &format!("Page {i}"),
                i * MINUTE,
            )
        })
        .collect();
    let mut sim = Sim::built(pages[..9].to_vec());
    let asked = embed(&passage(&pages[0]));
    let found = |sim: &Sim, words| -> Vec<String> {
        let hits = sim.host.search(&asked, 0, 10, words);
        hits.into_iter().map(|(url, _)| url).collect()
    };
    assert!(sim.finds(&pages[0]), "stored and searchable");
    assert_eq!(
        found(&sim, Words::Missed),
        Vec::<String>::new(),
        "9 pages: too few to tell"
    );
    sim.feed(Event::Pages(pages[9..].to_vec()));
    sim.run();
    let want = vec![pages[0].url.clone()];
    assert_eq!(
        found(&sim, Words::Missed),
        want,
        "the page asked for, alone"
    );
    assert_eq!(
        found(&sim, Words::Found),
        want,
        "beside the words' page too"
    );
    let last_five_minutes = sim.host.search(&asked, NOW - 5 * MINUTE, 10, Words::Missed);
    assert_eq!(
        last_five_minutes,
        Vec::new(),
        "6 pages in the period: too few to tell"
    );
}

#[test]
fn a_hit_must_stand_out_from_the_period() {
    let sims = |values: &[f32]| -> Vec<(String, f32)> {
        let mut all: Vec<(String, f32)> = values
            .iter()
            .enumerate()
            .map(|(i, &s)| (format!("https://p{i}.example/"), s))
            .collect();
        all.sort_by(|a, b| b.1.total_cmp(&a.1));
        all
    };
    let flat = [
        0.83, 0.82, 0.81, 0.80, 0.80, 0.79, 0.79, 0.78, 0.78, 0.77, 0.77, 0.76,
    ];
    // One page 2.7 σ above the rest, one 3.1 σ above.
    let mut standing = flat;
    standing[0] = 0.87;
    let mut far = flat;
    far[0] = 0.95;
    type Row = (&'static str, Vec<(String, f32)>, Words, usize);
    let rows: [Row; 8] = [
        ("nothing to compare with", sims(&[]), Words::Missed, 0),
        (
            "a flat crowd (gibberish): nothing stands out",
            sims(&flat),
            Words::Missed,
            0,
        ),
        (
            "one page stands out: it alone",
            sims(&standing),
            Words::Missed,
            1,
        ),
        (
            "beside a page the words found, 2.7 σ is not enough",
            sims(&standing),
            Words::Found,
            0,
        ),
        (
            "beside a page the words found, 3.1 σ is",
            sims(&far),
            Words::Found,
            1,
        ),
        (
            "nine pages: too few to tell, however far one stands",
            sims(&far[..9]),
            Words::Missed,
            0,
        ),
        ("ten pages are enough", sims(&far[..10]), Words::Missed, 1),
        (
            "few pages close together: nothing",
            sims(&[0.86, 0.84, 0.81, 0.79]),
            Words::Missed,
            0,
        ),
    ];
    for (what, all, words, want) in rows {
        let cut = super::standout_floor(&all, words);
        let kept = all.iter().filter(|&&(_, s)| s >= cut).count();
        assert_eq!(kept, want, "{what}: cut {cut}");
    }
}

fn excluding(text: &str) -> Event {
    Event::Exclusions(crate::exclusions::Exclusions::parse(text).expect(text))
}

#[test]
fn excluded_sites_are_deleted_and_never_embedded() {
    let pages = history(20);
    // Stored, to do, and in the batch out: all go when their site is excluded.
    let mut sim = Sim::built(pages[..10].to_vec());
    sim.feed(Event::Pages(pages[10..].to_vec()));
    assert!(sim.out.is_some(), "a batch is out");
    sim.feed(excluding("p3.example\np12.example\np19.example"));
    sim.run();
    for gone in [&pages[3], &pages[12], &pages[19]] {
        assert!(!sim.finds(gone), "{}", gone.url);
        assert!(!sim.store.contains_key(&gone.url), "{}", gone.url);
    }
    assert!(sim.deleted.contains(&pages[3].url));
    assert!(sim.finds(&pages[0]) && sim.finds(&pages[15]));
    assert_eq!(sim.counts(), (17, 17));
    // A page of an excluded site offered later is not embedded.
    let before = sim.embedded_passages().len();
    sim.feed(Event::Pages(vec![page(
        "https://p3.example/",
        "Page 3 again",
        0,
    )]));
    sim.run();
    assert_eq!(sim.embedded_passages().len(), before);
    // Records stored before the exclusion are deleted when loaded, not loaded.
    let mut sim = Sim::built(pages.clone()).reborn();
    sim.feed(excluding("*.p4.example"));
    sim.feed(Event::Start { enabled: true });
    sim.serve_load();
    assert!(!sim.store.contains_key(&pages[4].url));
    assert!(!sim.finds(&pages[4]));
    // Taken off the list: the lexical index's pages bring it back.
    sim.feed(excluding(""));
    sim.feed(Event::Pages(vec![pages[4].clone()]));
    sim.run();
    assert!(sim.finds(&pages[4]));
}

#[test]
fn nothing_to_do_is_not_ready_until_the_lexical_index_has_handed_its_pages() {
    let mut host = SemanticHost::new();
    host.handle(Event::Start { enabled: true });
    host.handle(Event::StoreLoaded {
        records: Vec::new(),
        done: true,
    });
    // An empty store and no page yet: an empty history, or pages still to come?
    assert_eq!(host.progress().status, SemanticStatus::Loading);
    host.handle(Event::Listed);
    assert_eq!(
        host.progress().status,
        SemanticStatus::Ready,
        "an empty history"
    );
}

#[test]
fn a_question_is_embedded_only_when_something_can_answer_it() {
    // (what happened, whether a question would be embedded)
    let pages = history(12);
    let mut cases: Vec<(&str, Sim, bool)> = Vec::new();
    cases.push(("new", Sim::new(), false));
    cases.push((
        "started, nothing understood yet",
        Sim::started(pages.clone()),
        false,
    ));
    let mut one = Sim::started(pages.clone());
    one.step();
    one.step();
    cases.push(("a first batch stored", one, true));
    cases.push(("built", Sim::built(pages.clone()), true));
    let mut off = Sim::built(pages.clone());
    off.feed(Event::SetEnabled(false));
    cases.push(("switched off", off, false));
    // A later page's batch fails: the pages understood stay, but a model gone for good embeds no
    // question in this session, where a crash is retried.
    let failed_later = |failure: EmbedFailure| {
        let mut sim = Sim::built(pages.clone());
        sim.feed(Event::Pages(vec![page(
            "https://new.example/",
            "New page",
            0,
        )]));
        let (batch, _) = sim.take_embed();
        sim.feed(Event::EmbedFailed { batch, failure });
        sim
    };
    let lost = failed_later(EmbedFailure::ModelMissing);
    assert_eq!(
        lost.status(),
        SemanticStatus::Unavailable(UnavailableReason::ModelMissing)
    );
    cases.push(("the model lost, pages understood", lost, false));
    cases.push((
        "a crash, retried",
        failed_later(EmbedFailure::Crashed("gone".into())),
        true,
    ));
    for (what, sim, want) in cases {
        assert_eq!(sim.host.answers_questions(), want, "{what}");
    }
}

#[test]
fn no_batch_starts_on_a_low_battery_and_the_build_goes_on_once_charging() {
    let pages = history(3 * BATCH_PAGES as i64);
    let mut sim = Sim::started(pages.clone());
    // The battery runs low while the first batch is out: it is embedded and stored all the same.
    sim.feed(Event::BatteryLow(true));
    assert_eq!(sim.status(), SemanticStatus::Paused);
    sim.embed_next();
    sim.save_next();
    assert!(sim.finds(&pages[0]));
    assert!(sim.out.is_none(), "no next batch on a low battery");
    assert_eq!(sim.status(), SemanticStatus::Paused);
    assert!(sim.host.progress().is_moving());
    // Nothing holds the model open meanwhile; the user's pause ending changes nothing.
    assert!(!sim.host.needs_embedder());
    sim.feed(Event::UserActive);
    sim.feed(Event::UserIdle);
    assert!(sim.out.is_none());
    // Still low: nothing. Charging: the build goes on to the end, and says so.
    sim.feed(Event::BatteryLow(true));
    assert!(sim.out.is_none());
    sim.feed(Event::BatteryLow(false));
    assert_eq!(sim.status(), SemanticStatus::Building);
    assert!(sim.host.needs_embedder());
    sim.run();
    assert_eq!(sim.status(), SemanticStatus::Ready);
    // Low with nothing left to do is ready, not paused.
    sim.feed(Event::BatteryLow(true));
    assert_eq!(sim.status(), SemanticStatus::Ready);
}

#[test]
fn a_bookmarked_page_is_found_whatever_the_period_including_after_a_restart() {
    let pages = history(10);
    let old = pages[9].clone();
    let within = NOW - 5 * MINUTE;
    let mut sim = Sim::built(pages.clone());
    assert!(!sim.search_since(&old, within).contains(&old.url));
    sim.host.mark_ageless([old.url.clone()], true);
    assert_eq!(sim.search_since(&old, within)[0], old.url);
    // Told before the stored vectors are read again: it holds when they come.
    let mut sim = sim.reborn();
    sim.host.set_ageless([old.url.clone()]);
    sim.feed(Event::Start { enabled: true });
    assert_eq!(sim.host.held_urls(), None, "not known while loading");
    sim.serve_load();
    assert_eq!(sim.search_since(&old, within)[0], old.url);
    sim.host.set_ageless([]);
    assert!(!sim.search_since(&old, within).contains(&old.url));
}

#[test]
fn the_pages_held_are_the_vectors_the_to_do_and_the_batch_out() {
    let pages = history(20);
    let mut sim = Sim::started(pages.clone());
    let (_, out) = sim.take_embed();
    assert_eq!(out.len(), BATCH_PAGES);
    let mut want: Vec<String> = pages.iter().map(|p| p.url.clone()).collect();
    want.sort();
    assert_eq!(sim.host.held_urls(), Some(want.clone()));
    sim.feed(Event::Removed(Removal::Urls(vec![
        pages[0].url.clone(),
        pages[19].url.clone(),
    ])));
    want.retain(|url| *url != pages[0].url && *url != pages[19].url);
    assert_eq!(sim.host.held_urls(), Some(want));
    sim.feed(Event::SetEnabled(false));
    assert_eq!(sim.host.held_urls(), None);
}
