use std::collections::BTreeMap;
use std::hash::{DefaultHasher, Hash, Hasher};

use super::*;
use crate::content::passages::cut;
use crate::content::record::Decoded;
use crate::content::tests::unit_vector;
use crate::site_filter;

const NOW: i64 = 1_780_000_000_000;
const MINUTE: i64 = 60 * 1000;

fn url(i: usize) -> String {
    format!("https://p{i}.example/notes")
}

/// Page `i`'s text: `sentences` sentences of 16 words, each naming `zeta{i}` (so the words find
/// it) and its number (so every passage's text differs).
fn text(i: usize, sentences: usize) -> String {
    (0..sentences)
        .map(|j| {
            format!(
                "Sentence {j} of zeta{i} tells how the garden grows tomatoes and beans in warm rain."
            )
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The model stand-in: a unit vector drawn from the text, so different passages are nearly
/// orthogonal and a question embedded from a passage's text finds that passage.
fn embed(text: &str) -> Vec<f32> {
    let mut hasher = DefaultHasher::new();
    text.hash(&mut hasher);
    unit_vector(hasher.finish())
}

/// The host with a simulated worker around it: an IndexedDB store (key → bytes) that runs
/// transactions in the order they were made (a write out is applied before a delete or clear made
/// after it), a model, timers, and a log of what the host asked for. A write or a batch out is
/// answered only when a test says so; every action is checked against the host's promises (one
/// write, one batch and one store read out at most, batches within their sizes, records that
/// decode under their own key).
struct Sim {
    host: ContentHost,
    store: BTreeMap<String, Vec<u8>>,
    /// The write out: its batch, its records, and whether they are in the store already.
    save: Option<(u64, Vec<StoredRecord>, bool)>,
    embed: Option<(u64, Vec<String>)>,
    load_out: bool,
    loads: usize,
    timers: Vec<u32>,
    clears: usize,
    deleted: Vec<String>,
    /// Every text the model was asked for, in order.
    embedded: Vec<String>,
    /// Every key written, in order.
    writes: Vec<String>,
}

/// A page found, as the worker shows it.
#[derive(Debug)]
struct Shown {
    url: String,
    passage: Passage,
}

impl Sim {
    fn new() -> Sim {
        Sim {
            host: ContentHost::new(),
            store: BTreeMap::new(),
            save: None,
            embed: None,
            load_out: false,
            loads: 0,
            timers: Vec::new(),
            clears: 0,
            deleted: Vec::new(),
            embedded: Vec::new(),
            writes: Vec::new(),
        }
    }

    /// Started, the store loaded: live.
    fn started() -> Sim {
        let mut sim = Sim::new();
        sim.feed(Event::Start { enabled: true });
        sim.serve_load(usize::MAX);
        sim
    }

    /// The worker is killed: a new host, the same store, nothing fed yet; whatever was out is
    /// lost (a write out and not applied never happened).
    fn reborn(self) -> Sim {
        Sim {
            host: ContentHost::new(),
            save: None,
            embed: None,
            load_out: false,
            loads: 0,
            timers: Vec::new(),
            embedded: Vec::new(),
            deleted: Vec::new(),
            ..self
        }
    }

    fn feed(&mut self, event: Event) {
        for action in self.host.handle(event) {
            match action {
                Action::LoadStore => {
                    assert!(!self.load_out, "two store reads out");
                    self.load_out = true;
                    self.loads += 1;
                }
                Action::Save { batch, records } => {
                    assert!(self.save.is_none(), "two writes out");
                    assert!((1..=SAVE_BATCH_PAGES).contains(&records.len()));
                    for record in &records {
                        let decoded = Record::decode(&record.bytes).unwrap();
                        assert_eq!(decoded.record.url, record.url, "a record under its key");
                    }
                    self.save = Some((batch, records, false));
                }
                Action::Delete { urls } => {
                    self.apply_write();
                    for url in urls {
                        self.store.remove(&url);
                        self.deleted.push(url);
                    }
                }
                Action::Clear => {
                    self.apply_write();
                    self.store.clear();
                    self.clears += 1;
                }
                Action::Embed { batch, texts } => {
                    assert!(self.embed.is_none(), "two batches out");
                    assert!((1..=EMBED_BATCH_PASSAGES).contains(&texts.len()));
                    self.embedded.extend(texts.iter().cloned());
                    self.embed = Some((batch, texts));
                }
                Action::RetryAfter { ms } => self.timers.push(ms),
            }
        }
    }

    /// The write out lands in the store (before anything made after it).
    fn apply_write(&mut self) {
        if let Some((_, records, written)) = &mut self.save
            && !*written
        {
            for record in records.iter() {
                self.writes.push(record.url.clone());
                self.store.insert(record.url.clone(), record.bytes.clone());
            }
            *written = true;
        }
    }

    /// Answers the store read with everything stored, in chunks of `chunk`.
    fn serve_load(&mut self, chunk: usize) {
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
        let chunks: Vec<Vec<StoredRecord>> = records.chunks(chunk).map(<[_]>::to_vec).collect();
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

    fn fail_load(&mut self) {
        assert!(self.load_out, "no store read out");
        self.load_out = false;
        self.feed(Event::StoreFailed);
    }

    /// Page `i` is read now (its ticket taken now).
    fn read(&mut self, i: usize, sentences: usize, now_ms: i64) {
        let page = ReadPage {
            url: url(i),
            title: "Notes".to_owned(),
            text: text(i, sentences),
            ticket: self.host.ticket(),
        };
        self.feed(Event::Read { page, now_ms });
    }

    fn take_embed(&mut self) -> (u64, Vec<String>) {
        self.embed.take().expect("no batch out")
    }

    /// The model embeds the batch out; returns its texts.
    fn embed_next(&mut self) -> Vec<String> {
        let (batch, texts) = self.take_embed();
        let vectors = texts.iter().map(|t| embed(t)).collect();
        self.feed(Event::Embedded { batch, vectors });
        texts
    }

    /// The store writes the write out; returns its keys.
    fn save_next(&mut self) -> Vec<String> {
        self.apply_write();
        let (batch, records, _) = self.save.take().expect("no write out");
        self.feed(Event::Saved { batch });
        records.into_iter().map(|r| r.url).collect()
    }

    /// Answers what is out (a write first); false when nothing is.
    fn step(&mut self) -> bool {
        if self.save.is_some() {
            self.save_next();
        } else if self.embed.is_some() {
            self.embed_next();
        } else {
            return false;
        }
        true
    }

    /// Answers everything (store reads, writes, batches, timers) until nothing is left.
    fn run(&mut self) {
        for _ in 0..10_000 {
            if self.step() {
                continue;
            }
            if self.load_out {
                self.serve_load(3);
            } else if self.timers.pop().is_some() {
                self.feed(Event::RetryDue);
            } else {
                return;
            }
        }
        panic!("the work never ends");
    }

    fn status(&self) -> ContentStatus {
        self.host.progress().status
    }

    /// [`ContentHost::search`] shown as the worker shows it: each page's passage from the text
    /// the host held, else from its record in the store ([`ContentMatch::passage`]); every page
    /// found must show one.
    fn search(
        &self,
        query: &str,
        vector: Option<&[f32]>,
        sites: &SiteFilter,
        limit: usize,
    ) -> Vec<Shown> {
        self.host
            .search(query, vector, sites, limit)
            .into_iter()
            .map(|found| {
                let record = found
                    .needs_record()
                    .then(|| self.store.get(&found.url).map(Vec::as_slice))
                    .flatten();
                let passage = found
                    .passage(record, query)
                    .unwrap_or_else(|| panic!("no passage for {}", found.url));
                Shown {
                    url: found.url,
                    passage,
                }
            })
            .collect()
    }

    /// Whether the host holds the text of page `i` (`None`: it holds no page `i`).
    fn holds_text(&self, i: usize) -> Option<bool> {
        self.host
            .pages
            .get(&url(i))
            .map(|held| held.text != Text::InStore)
    }

    /// The URLs found by `query`'s words.
    fn finds(&self, query: &str) -> Vec<String> {
        self.search(query, None, &SiteFilter::default(), 20)
            .into_iter()
            .map(|h| h.url)
            .collect()
    }

    fn stored(&self, i: usize) -> Option<Decoded> {
        self.store.get(&url(i)).map(|b| Record::decode(b).unwrap())
    }

    fn stored_vectors(&self, i: usize) -> Vec<bool> {
        self.stored(i)
            .map(|d| {
                d.record
                    .vectors
                    .iter()
                    .map(|v| v.vector.is_some())
                    .collect()
            })
            .unwrap_or_default()
    }

    fn writes_of(&self, i: usize) -> usize {
        self.writes.iter().filter(|u| **u == url(i)).count()
    }

    /// What must hold once everything is answered: no record of a page the host does not hold
    /// (unless it does not know what the store holds); when ready and the model runs, every page
    /// held stored whole, and the bytes counted those of the store.
    fn check(&self, what: &str) {
        let progress = self.host.progress();
        if !self.host.store_failing {
            for key in self.store.keys() {
                assert!(
                    self.host.pages.contains_key(key),
                    "{what}: orphan record {key}"
                );
            }
        }
        if progress.status == ContentStatus::Off {
            assert!(self.store.is_empty(), "{what}: off, yet stored");
        }
        if progress.status == ContentStatus::Ready && progress.model.is_none() {
            assert_eq!(
                progress.passages_embedded, progress.passages_total,
                "{what}"
            );
            let stored: u64 = self.store.values().map(|b| b.len() as u64).sum();
            assert_eq!(stored, progress.bytes, "{what}: bytes counted");
            for (key, held) in &self.host.pages {
                let record = Record::decode(&self.store[key]).unwrap().record;
                assert!(
                    record.vectors.iter().all(|v| v.vector.is_some()),
                    "{what}: {key}"
                );
                // Every record final: no text is left in memory.
                assert_eq!(held.text, Text::InStore, "{what}: {key}'s text held");
            }
        }
        // A text is out of memory only when the store holds that very page's final record.
        for (key, held) in &self.host.pages {
            if held.text == Text::InStore {
                let record = self
                    .store
                    .get(key)
                    .map(|b| Record::decode(b).unwrap().record);
                assert!(
                    record.is_some_and(|r| r.read_ms == held.read_ms
                        && r.vectors.len() == held.embedded.len()
                        && r.vectors.iter().all(|v| v.vector.is_some())),
                    "{what}: {key}'s text dropped with no final record"
                );
            }
        }
        let held: u64 = self.host.pages.values().map(|h| h.bytes).sum();
        assert_eq!(held, progress.bytes, "{what}");
    }
}

#[test]
fn a_page_read_is_found_by_its_words_at_once_then_stored_then_embedded() {
    let mut sim = Sim::started();
    assert_eq!(sim.status(), ContentStatus::Ready);
    sim.read(0, 20, NOW);
    let page = cut(&text(0, 20));
    assert_eq!(page.spans.len(), 3);
    // Searchable by its words before anything is written.
    let hits = sim.search("zeta0 tomato", None, &SiteFilter::default(), 5);
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].url, url(0));
    let marked: Vec<&str> = hits[0]
        .passage
        .pieces()
        .into_iter()
        .filter(|(_, m)| *m)
        .map(|(t, _)| t)
        .collect();
    assert!(
        marked.contains(&"zeta0") && marked.contains(&"tomatoes"),
        "{marked:?}"
    );
    assert_eq!(sim.status(), ContentStatus::Reading);
    // Its text is written at once, with no vector.
    assert!(sim.save.is_some() && sim.embed.is_some());
    sim.save_next();
    let stored = sim.stored(0).unwrap();
    assert_eq!(stored.text, page.text);
    assert_eq!(stored.record.spans, page.spans);
    assert_eq!(stored.record.title, "Notes");
    assert_eq!(stored.record.read_ms, NOW);
    assert_eq!(sim.stored_vectors(0), [false, false, false]);
    // The model gets the passages' texts.
    let texts = sim.embed_next();
    assert_eq!(texts, [page.passage(0), page.passage(1), page.passage(2)]);
    // Found by meaning at once; written again with its vectors.
    let by_meaning = sim.search("", Some(&embed(page.passage(1))), &SiteFilter::default(), 5);
    assert!(by_meaning.is_empty(), "one page cannot stand out among one");
    assert_eq!(sim.host.vectors().len(), 3);
    sim.save_next();
    assert_eq!(sim.stored_vectors(0), [true, true, true]);
    let progress = sim.host.progress();
    assert_eq!(
        (
            progress.status,
            progress.pages,
            progress.passages_embedded,
            progress.passages_total
        ),
        (ContentStatus::Ready, 1, 3, 3)
    );
    assert_eq!(progress.bytes, sim.store[&url(0)].len() as u64);
    assert_eq!(sim.writes_of(0), 2);
    sim.check("one page");
}

#[test]
fn pages_are_embedded_newest_first_a_few_passages_at_a_time() {
    let mut sim = Sim::started();
    for i in 0..5 {
        sim.read(i, 20, NOW + i as i64 * MINUTE);
    }
    // The first page's batch went out at its read; then the newest pages first.
    sim.run();
    let order: Vec<usize> = sim
        .embedded
        .iter()
        .map(|t| (0..5).find(|&i| t.contains(&format!("zeta{i} "))).unwrap())
        .collect();
    assert_eq!(order, [0, 0, 0, 4, 4, 4, 3, 3, 3, 2, 2, 2, 1, 1, 1]);
    for i in 0..5 {
        assert_eq!(sim.stored_vectors(i), [true, true, true], "{i}");
        assert_eq!(sim.writes_of(i), 2, "{i}: text, then vectors");
    }
    sim.check("five pages");
    // A long page: eight passages embedded, four at a time, written once they all are.
    sim.read(9, 80, NOW + 10 * MINUTE);
    let page = cut(&text(9, 80));
    assert!(page.spans.len() > EMBEDDED_PASSAGES, "{}", page.spans.len());
    sim.save_next();
    sim.embed_next();
    assert!(sim.save.is_none(), "half embedded: not written yet");
    assert_eq!(sim.embed.as_ref().map(|e| e.1.len()), Some(4));
    sim.run();
    assert_eq!(sim.stored_vectors(9), vec![true; EMBEDDED_PASSAGES]);
    sim.check("a long page");
}

use crate::content::passages::EMBEDDED_PASSAGES;

#[test]
fn no_batch_of_passages_starts_while_the_user_types_the_pages_are_still_read_and_stored() {
    let mut sim = Sim::started();
    sim.feed(Event::UserActive);
    // A page read meanwhile: found by its words, its text stored, its passages not sent.
    sim.read(0, 20, NOW);
    sim.save_next();
    assert!(sim.embed.is_none(), "no batch while the user is active");
    assert_eq!(sim.stored_vectors(0), [false, false, false]);
    // The user stopped: its passages are embedded, then stored.
    sim.feed(Event::UserIdle);
    assert!(sim.embed.is_some());
    sim.run();
    assert_eq!(sim.stored_vectors(0), [true, true, true]);
    sim.check("after the pause");
}

#[test]
fn no_batch_of_passages_starts_on_a_low_battery_the_pages_are_still_read_and_stored() {
    let mut sim = Sim::started();
    sim.feed(Event::BatteryLow(true));
    // A page read meanwhile: found by its words, its text stored, its passages not sent.
    sim.read(0, 20, NOW);
    sim.save_next();
    assert!(sim.embed.is_none(), "no batch on a low battery");
    assert_eq!(sim.stored_vectors(0), [false, false, false]);
    assert_eq!(sim.status(), ContentStatus::Paused);
    assert!(!sim.host.needs_embedder());
    // The user's pause ending changes nothing.
    sim.feed(Event::UserActive);
    sim.feed(Event::UserIdle);
    assert!(sim.embed.is_none());
    // Charging: its passages are embedded, then stored.
    sim.feed(Event::BatteryLow(false));
    assert!(sim.embed.is_some());
    assert_eq!(sim.status(), ContentStatus::Reading);
    sim.run();
    assert_eq!(sim.stored_vectors(0), [true, true, true]);
    assert_eq!(sim.status(), ContentStatus::Ready);
    sim.check("after the battery");
}

#[test]
fn a_restarted_worker_loads_the_store_and_embeds_only_what_was_not() {
    let mut sim = Sim::started();
    for i in 0..6 {
        sim.read(i, 20, NOW + i as i64 * MINUTE);
        sim.save_next();
    }
    // Page 0's batch is embedded and written; then the worker dies with page 5's batch out.
    sim.embed_next();
    sim.save_next();
    assert!(sim.embed.is_some());
    let mut sim = sim.reborn();
    sim.feed(Event::Start { enabled: true });
    assert_eq!(sim.status(), ContentStatus::Loading);
    sim.serve_load(2);
    // Every page is searchable by its words at once.
    for i in 0..6 {
        assert_eq!(sim.finds(&format!("zeta{i}")), [url(i)], "{i}");
    }
    assert_eq!(sim.host.progress().passages_embedded, 3);
    sim.run();
    let again: Vec<usize> = sim
        .embedded
        .iter()
        .map(|t| (0..6).find(|&i| t.contains(&format!("zeta{i} "))).unwrap())
        .collect();
    assert!(!again.contains(&0), "page 0's vectors were stored");
    assert_eq!(again.len(), 15);
    for i in 0..6 {
        assert_eq!(sim.stored_vectors(i), [true, true, true], "{i}");
    }
    sim.check("restarted");
}

#[test]
fn a_page_read_while_loading_is_searchable_and_its_older_record_is_not_loaded() {
    let mut sim = Sim::started();
    sim.read(1, 20, NOW - MINUTE);
    sim.run();
    let mut sim = sim.reborn();
    sim.feed(Event::Start { enabled: true });
    // Read again while the store is being read: a new text.
    let page = ReadPage {
        url: url(1),
        title: "New title".into(),
        text: text(1, 20).replace("tomatoes", "pumpkins"),
        ticket: sim.host.ticket(),
    };
    sim.feed(Event::Read { page, now_ms: NOW });
    assert_eq!(sim.finds("pumpkin"), [url(1)]);
    assert!(
        sim.save.is_none() && sim.embed.is_none(),
        "nothing out while loading"
    );
    sim.serve_load(1);
    assert!(
        sim.finds("tomatoes").is_empty(),
        "the stored record is older"
    );
    sim.run();
    let stored = sim.stored(1).unwrap();
    assert!(stored.text.contains("pumpkins") && stored.record.title == "New title");
    assert_eq!(stored.record.read_ms, NOW);
    sim.check("read while loading");
}

#[test]
fn a_page_read_again_replaces_what_was_held_and_stored() {
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    sim.read(1, 20, NOW);
    sim.run();
    let page = ReadPage {
        url: url(0),
        title: "Notes".into(),
        text: text(0, 40).replace("garden", "orchard"),
        ticket: sim.host.ticket(),
    };
    sim.feed(Event::Read {
        page,
        now_ms: NOW + MINUTE,
    });
    assert!(sim.finds("garden").contains(&url(1)) && !sim.finds("garden").contains(&url(0)));
    assert_eq!(sim.finds("orchard"), [url(0)]);
    sim.run();
    let stored = sim.stored(0).unwrap();
    assert!(stored.text.contains("orchard") && !stored.text.contains("garden"));
    assert_eq!(stored.record.read_ms, NOW + MINUTE);
    assert_eq!(sim.stored_vectors(0).len(), stored.record.vectors.len());
    assert!(sim.stored_vectors(0).iter().all(|&v| v));
    // A read of too few words keeps what was read before.
    let short = ReadPage {
        url: url(0),
        title: "Notes".into(),
        text: "Page not found.".into(),
        ticket: sim.host.ticket(),
    };
    sim.feed(Event::Read {
        page: short,
        now_ms: NOW + 2 * MINUTE,
    });
    assert_eq!(sim.finds("orchard"), [url(0)]);
    sim.check("read again");
}

#[test]
fn a_page_removed_while_it_is_written_or_embedded_is_never_kept() {
    // Removed while its text's write and its batch are out.
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    sim.read(1, 20, NOW);
    sim.feed(Event::Removed(Removal::Urls(vec![url(0)])));
    assert!(sim.finds("zeta0").is_empty());
    sim.run();
    assert!(
        sim.stored(0).is_none(),
        "written, then deleted after the write"
    );
    assert!(sim.deleted.contains(&url(0)));
    assert!(
        sim.host.vectors().of(&url(0)).is_empty(),
        "its late vectors dropped"
    );
    assert_eq!(sim.stored_vectors(1), [true, true, true]);
    sim.check("removed while out");

    // A stored page removed: deleted at once.
    sim.feed(Event::Removed(Removal::Urls(vec![url(1), url(77)])));
    assert!(sim.stored(1).is_none());
    assert_eq!(sim.deleted.last(), Some(&url(1)));
    assert_eq!(sim.host.progress().pages, 0);
    sim.check("removed stored");
}

#[test]
fn a_page_removed_while_it_was_being_read_is_never_stored() {
    type Remove = fn(&mut Sim);
    let rows: &[(&str, Remove)] = &[
        ("its URL removed", |sim| {
            sim.feed(Event::Removed(Removal::Urls(vec![url(0)])))
        }),
        ("all removed", |sim| sim.feed(Event::Removed(Removal::All))),
        ("switched off and on", |sim| {
            sim.feed(Event::SetEnabled(false));
            sim.feed(Event::SetEnabled(true));
            sim.serve_load(1);
        }),
    ];
    for (what, remove) in rows {
        let mut sim = Sim::started();
        let ticket = sim.host.ticket();
        remove(&mut sim);
        let page = ReadPage {
            url: url(0),
            title: "Notes".into(),
            text: text(0, 20),
            ticket,
        };
        sim.feed(Event::Read { page, now_ms: NOW });
        sim.run();
        assert!(sim.finds("zeta0").is_empty(), "{what}");
        assert!(sim.stored(0).is_none() && sim.writes.is_empty(), "{what}");
        // Another page's removal does not drop it; a read begun after the removal is kept.
        let ticket_after = sim.host.ticket();
        sim.feed(Event::Removed(Removal::Urls(vec![url(5)])));
        let page = ReadPage {
            url: url(0),
            title: "Notes".into(),
            text: text(0, 20),
            ticket: ticket_after,
        };
        sim.feed(Event::Read { page, now_ms: NOW });
        sim.run();
        assert!(sim.stored(0).is_some(), "{what}: read again after");
        sim.check(what);
    }
    // A read older than the removals remembered is dropped, to be safe.
    let mut sim = Sim::started();
    let ticket = sim.host.ticket();
    let many: Vec<String> = (100..100 + REMOVED_URLS_REMEMBERED + 1).map(url).collect();
    sim.feed(Event::Removed(Removal::Urls(many)));
    let page = ReadPage {
        url: url(0),
        title: "Notes".into(),
        text: text(0, 20),
        ticket,
    };
    sim.feed(Event::Read { page, now_ms: NOW });
    assert!(sim.finds("zeta0").is_empty());
}

#[test]
fn removing_everything_clears_the_store_and_what_is_out_is_ignored() {
    let mut sim = Sim::started();
    for i in 0..4 {
        sim.read(i, 20, NOW + i as i64);
    }
    sim.save_next();
    assert!(sim.save.is_some() && sim.embed.is_some());
    sim.feed(Event::Removed(Removal::All));
    assert_eq!(sim.clears, 1);
    assert!(
        sim.store.is_empty(),
        "the write out landed first, then the clear"
    );
    assert_eq!(sim.host.progress().pages, 0);
    assert!(sim.finds("zeta1").is_empty());
    sim.run();
    assert!(sim.store.is_empty(), "late answers bring nothing back");
    assert_eq!(sim.status(), ContentStatus::Ready);
    // Life goes on.
    sim.read(7, 20, NOW + MINUTE);
    sim.run();
    assert_eq!(sim.store.len(), 1);
    sim.check("after a clear");

    // While loading: the read out is ignored (it predates the clear), even in chunks.
    let mut sim = sim.reborn();
    sim.feed(Event::Start { enabled: true });
    sim.feed(Event::Removed(Removal::All));
    assert!(sim.store.is_empty());
    assert_eq!(sim.status(), ContentStatus::Ready);
    sim.store.insert(url(7), Vec::new());
    sim.serve_load(1);
    assert!(sim.host.pages.is_empty());
    sim.store.clear();
    sim.check("cleared while loading");
}

#[test]
fn excluded_sites_are_never_read_and_deleted_at_once() {
    let excluded = |lines: &[&str]| Exclusions::from_lines(lines);
    let mut sim = Sim::started();
    for i in 0..3 {
        sim.read(i, 20, NOW);
    }
    sim.run();
    sim.feed(Event::Exclusions(excluded(&["p1.example"])));
    assert!(sim.stored(1).is_none());
    assert!(sim.finds("zeta1").is_empty());
    assert_eq!(sim.host.progress().pages, 2);
    // Read again: not kept.
    sim.read(1, 20, NOW + MINUTE);
    sim.run();
    assert!(sim.stored(1).is_none() && sim.finds("zeta1").is_empty());
    sim.check("excluded");
    // Stored records of a site excluded while the worker was away are deleted at load.
    let mut sim = sim.reborn();
    sim.feed(Event::Exclusions(excluded(&["*.example"])));
    sim.feed(Event::Start { enabled: true });
    sim.serve_load(1);
    assert!(sim.store.is_empty() && sim.host.pages.is_empty());
    sim.check("excluded at load");
}

#[test]
fn past_the_cap_the_pages_read_longest_ago_go_first() {
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    sim.run();
    let one = sim.host.progress().bytes;
    sim.feed(Event::SetCap {
        bytes: 3 * one + one / 2,
    });
    for i in 1..6 {
        sim.read(i, 20, NOW + i as i64 * MINUTE);
    }
    sim.run();
    let kept: Vec<usize> = (0..6).filter(|&i| sim.stored(i).is_some()).collect();
    assert_eq!(kept, [3, 4, 5]);
    assert_eq!(sim.finds("garden").len(), 3);
    assert!(sim.host.progress().bytes <= 3 * one + one / 2);
    sim.check("capped");
    // A lower cap evicts at once, oldest first.
    sim.feed(Event::SetCap {
        bytes: one + one / 2,
    });
    assert_eq!(
        (0..6)
            .filter(|&i| sim.stored(i).is_some())
            .collect::<Vec<_>>(),
        [5]
    );
    sim.feed(Event::SetCap { bytes: 0 });
    assert!(sim.store.is_empty() && sim.host.pages.is_empty());
    sim.check("no room");
}

#[test]
fn a_crash_is_retried_and_a_model_that_cannot_run_stops_the_embedding_only() {
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    sim.save_next();
    let (batch, texts) = sim.take_embed();
    sim.feed(Event::EmbedFailed {
        batch,
        failure: EmbedFailure::Crashed("worker died".into()),
    });
    assert_eq!(sim.timers, [1_000]);
    assert!(sim.embed.is_none(), "nothing until the timer");
    sim.timers.clear();
    sim.feed(Event::RetryDue);
    assert_eq!(
        sim.embed.as_ref().map(|e| &e.1),
        Some(&texts),
        "the same passages"
    );
    // Vectors of the wrong count are a crash too.
    let (batch, _) = sim.take_embed();
    sim.feed(Event::Embedded {
        batch,
        vectors: vec![vec![0.1; 3]],
    });
    assert_eq!(sim.timers, [2_000]);
    for attempt in 3..=EMBED_ATTEMPTS {
        sim.timers.clear();
        sim.feed(Event::RetryDue);
        let (batch, _) = sim.take_embed();
        sim.feed(Event::EmbedFailed {
            batch,
            failure: EmbedFailure::Crashed("again".into()),
        });
        assert!(attempt == EMBED_ATTEMPTS || !sim.timers.is_empty());
    }
    let progress = sim.host.progress();
    assert_eq!(progress.model, Some(UnavailableReason::ModelFailing));
    assert_eq!(progress.status, ContentStatus::Ready);
    assert!(!sim.host.needs_embedder());
    // Pages are still read, stored and found by their words.
    sim.read(1, 20, NOW + MINUTE);
    sim.run();
    assert!(sim.embed.is_none());
    assert_eq!(sim.stored_vectors(1), [false, false, false]);
    assert_eq!(sim.finds("zeta1"), [url(1)]);
    sim.check("model failing");

    // A missing model stops at once; the vectors of a page embedded in part are written.
    let mut sim = Sim::started();
    sim.read(9, 80, NOW);
    sim.save_next();
    sim.embed_next();
    let (batch, _) = sim.take_embed();
    sim.feed(Event::EmbedFailed {
        batch,
        failure: EmbedFailure::ModelMissing,
    });
    assert!(sim.timers.is_empty());
    sim.run();
    let mut want = vec![true; 4];
    want.extend([false; EMBEDDED_PASSAGES - 4]);
    assert_eq!(sim.stored_vectors(9), want);
    assert_eq!(
        sim.host.progress().model,
        Some(UnavailableReason::ModelMissing)
    );
    sim.check("model missing");
}

#[test]
fn a_failing_store_is_retried_then_given_up_and_a_full_one_waits_for_room() {
    // Reading the store fails: retried, then given up for the session.
    let mut sim = Sim::new();
    sim.feed(Event::Start { enabled: true });
    for attempt in 1..LOAD_ATTEMPTS {
        sim.fail_load();
        assert_eq!(sim.timers.pop(), Some(retry_delay(attempt)));
        sim.feed(Event::RetryDue);
    }
    sim.fail_load();
    assert_eq!(
        sim.status(),
        ContentStatus::Unavailable(UnavailableReason::StoreFailing)
    );
    sim.read(0, 20, NOW);
    assert!(
        sim.finds("zeta0").is_empty() && sim.save.is_none(),
        "nothing kept"
    );
    // What the store holds is unknown: every removal is deleted from it.
    sim.store.insert(url(3), vec![1]);
    sim.feed(Event::Removed(Removal::Urls(vec![url(3)])));
    assert!(sim.store.is_empty());

    // A write fails: retried; then given up.
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    for attempt in 1..=SAVE_ATTEMPTS {
        let (batch, _, _) = sim.save.take().expect("a write out");
        sim.feed(Event::SaveFailed {
            batch,
            quota: false,
        });
        if attempt < SAVE_ATTEMPTS {
            assert_eq!(sim.timers.pop(), Some(retry_delay(attempt)));
            sim.feed(Event::RetryDue);
        }
    }
    assert_eq!(
        sim.status(),
        ContentStatus::Unavailable(UnavailableReason::StoreFailing)
    );
    assert_eq!(
        sim.finds("zeta0"),
        [url(0)],
        "what is held stays searchable"
    );

    // The disk is full: no more reading until room is made.
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    sim.run();
    sim.read(1, 20, NOW + MINUTE);
    let (batch, _, _) = sim.save.take().unwrap();
    sim.feed(Event::SaveFailed { batch, quota: true });
    assert_eq!(sim.status(), ContentStatus::StorageFull);
    assert!(sim.timers.is_empty());
    sim.read(2, 20, NOW + 2 * MINUTE);
    assert!(sim.finds("zeta2").is_empty(), "not read while full");
    assert_eq!(sim.finds("zeta1"), [url(1)], "held, waiting");
    sim.feed(Event::Removed(Removal::Urls(vec![url(0)])));
    assert!(sim.save.is_some(), "room made: written again");
    sim.run();
    assert!(sim.stored(1).is_some());
    sim.check("room made");
}

#[test]
fn switched_off_nothing_is_kept_and_on_again_the_store_is_read() {
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    sim.run();
    sim.read(1, 20, NOW);
    sim.feed(Event::SetEnabled(false));
    assert_eq!((sim.status(), sim.clears), (ContentStatus::Off, 1));
    assert!(sim.store.is_empty());
    sim.run();
    assert!(sim.store.is_empty());
    sim.read(2, 20, NOW);
    assert!(sim.finds("zeta2").is_empty() && sim.finds("zeta0").is_empty());
    sim.check("off");
    sim.feed(Event::SetEnabled(true));
    assert_eq!((sim.status(), sim.loads), (ContentStatus::Loading, 2));
    sim.serve_load(1);
    sim.read(2, 20, NOW);
    sim.run();
    assert!(sim.stored(2).is_some());
    sim.check("on again");

    // Started off: the store is cleared (what an earlier version left).
    let mut sim = Sim::new();
    sim.store.insert(url(0), vec![1, 2]);
    sim.feed(Event::Start { enabled: false });
    assert!(sim.store.is_empty() && sim.loads == 0);

    // Off and on while the store is being read: the first read's chunks are ignored.
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    sim.run();
    let mut sim = sim.reborn();
    sim.feed(Event::Start { enabled: true });
    let old: Vec<StoredRecord> = sim
        .store
        .iter()
        .map(|(url, bytes)| StoredRecord {
            url: url.clone(),
            bytes: bytes.clone(),
        })
        .collect();
    sim.feed(Event::SetEnabled(false));
    sim.feed(Event::SetEnabled(true));
    assert_eq!(sim.loads, 1, "the new read waits for the old one");
    sim.load_out = false;
    sim.feed(Event::StoreLoaded {
        records: old,
        done: true,
    });
    assert!(sim.host.pages.is_empty(), "the old read's records");
    assert_eq!((sim.status(), sim.loads), (ContentStatus::Loading, 2));
    sim.serve_load(1);
    assert_eq!(sim.status(), ContentStatus::Ready);
    sim.check("stale read");
}

#[test]
fn unreadable_records_are_skipped_and_deleted() {
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    sim.read(1, 20, NOW);
    sim.run();
    let mut sim = sim.reborn();
    let bytes = sim.store[&url(0)].clone();
    sim.store.insert(url(2), bytes);
    sim.store.insert(url(3), vec![RECORD_VERSION + 1, 1, 2, 3]);
    sim.store.insert(url(4), Vec::new());
    sim.feed(Event::Start { enabled: true });
    sim.serve_load(2);
    assert_eq!(sim.host.skipped(), 3);
    assert_eq!(
        sim.store.keys().cloned().collect::<Vec<_>>(),
        [url(0), url(1)]
    );
    sim.check("skipped");
}

use crate::content::record::RECORD_VERSION;

#[test]
fn a_search_puts_meaning_first_then_words_and_shows_the_passage_that_matched() {
    let mut sim = Sim::started();
    for i in 0..12 {
        sim.read(i, 20, NOW + i as i64);
    }
    // Page 20 says "zebra" in its first passage; page 21 too, and its second passage is what the
    // question's vector is about.
    let with_zebra = |i: usize| {
        let mut text = text(i, 20);
        text.insert_str(0, "A zebra crossed. ");
        text
    };
    for i in [20, 21] {
        let page = ReadPage {
            url: url(i),
            title: "Notes".into(),
            text: with_zebra(i),
            ticket: sim.host.ticket(),
        };
        sim.feed(Event::Read { page, now_ms: NOW });
    }
    sim.run();
    let both = cut(&with_zebra(21));
    let question = embed(both.passage(1));
    let hits = sim.search("zebra", Some(&question), &SiteFilter::default(), 10);
    let urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(urls, [url(21), url(20)]);
    // The passage its words matched, marked — not the one its vector matched.
    assert!(hits[0].passage.text.starts_with("A zebra crossed."));
    assert_eq!(hits[0].passage.pieces()[1], ("zebra", true));
    // Found by meaning alone: its passage, from its beginning, nothing marked.
    let page = cut(&text(7, 20));
    let hits = sim.search(
        "nothing matches this",
        Some(&embed(page.passage(2))),
        &SiteFilter::default(),
        10,
    );
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].url, url(7));
    assert!(hits[0].passage.marks.is_empty());
    assert!(
        page.passage(2)
            .starts_with(hits[0].passage.text.trim_end_matches('…'))
    );
    // A page standing out in meaning leads those that only share the question's words.
    let hits = sim.search(
        "zebra",
        Some(&embed(page.passage(2))),
        &SiteFilter::default(),
        10,
    );
    let mut urls: Vec<&str> = hits.iter().map(|h| h.url.as_str()).collect();
    assert_eq!(urls.remove(0), url(7));
    urls.sort_unstable();
    assert_eq!(urls, [url(20), url(21)]);
    // site: filters both.
    let other = site_filter::parse("site:p20.example").filter;
    let hits = sim.search("zebra", Some(&question), &other, 10);
    assert_eq!(
        hits.iter().map(|h| h.url.as_str()).collect::<Vec<_>>(),
        [url(20)]
    );
    assert!(
        sim.search("zebra", None, &SiteFilter::default(), 0)
            .is_empty()
    );
}

#[test]
fn a_vector_adds_what_the_encoder_says() {
    let page = cut(&text(0, 20));
    let none = Record {
        url: url(0),
        title: "Notes".into(),
        read_ms: NOW,
        text: Deflated::of(&page.text),
        spans: page.spans.clone(),
        vectors: page
            .embedded
            .iter()
            .map(|&passage| PassageVector {
                passage,
                vector: None,
            })
            .collect(),
    };
    let mut all = none.clone();
    for v in &mut all.vectors {
        v.vector = Quantised::from_f32(&unit_vector(u64::from(v.passage)));
    }
    let n = page.embedded.len() as u64;
    assert_eq!(
        all.encode().len() as u64,
        none.encode().len() as u64 + n * STORED_VECTOR_BYTES
    );
}

/// The phases a host can be in, each reached the way the worker gets there.
fn in_phase(phase: &str) -> Sim {
    match phase {
        "new" => Sim::new(),
        "loading" => {
            let mut sim = Sim::started();
            sim.read(0, 20, NOW);
            sim.run();
            let mut sim = sim.reborn();
            sim.feed(Event::Start { enabled: true });
            sim
        }
        "ready" => {
            let mut sim = Sim::started();
            sim.read(0, 20, NOW);
            sim.read(1, 20, NOW + 1);
            sim.run();
            sim
        }
        "busy" => {
            let mut sim = in_phase("ready");
            sim.read(2, 80, NOW + 2);
            sim.read(3, 20, NOW + 3);
            assert!(sim.save.is_some() && sim.embed.is_some());
            sim
        }
        "off" => {
            let mut sim = in_phase("ready");
            sim.feed(Event::SetEnabled(false));
            sim
        }
        "storage full" => {
            let mut sim = in_phase("ready");
            sim.read(2, 20, NOW + 2);
            let (batch, _, _) = sim.save.take().unwrap();
            sim.feed(Event::SaveFailed { batch, quota: true });
            sim
        }
        "model gone" => {
            let mut sim = in_phase("busy");
            let (batch, _) = sim.take_embed();
            sim.feed(Event::EmbedFailed {
                batch,
                failure: EmbedFailure::Unsupported,
            });
            sim
        }
        "store failing" => {
            let mut sim = in_phase("busy");
            for _ in 0..SAVE_ATTEMPTS {
                sim.run_embeds_only();
                let Some((batch, _, _)) = sim.save.take() else {
                    break;
                };
                sim.feed(Event::SaveFailed {
                    batch,
                    quota: false,
                });
                sim.timers.clear();
                sim.feed(Event::RetryDue);
            }
            sim
        }
        other => panic!("no phase {other}"),
    }
}

impl Sim {
    fn run_embeds_only(&mut self) {
        while self.embed.is_some() {
            self.embed_next();
        }
    }
}

#[test]
fn every_event_in_every_phase_keeps_the_promises() {
    let phases = [
        "new",
        "loading",
        "ready",
        "busy",
        "off",
        "storage full",
        "model gone",
        "store failing",
    ];
    type Make = fn(&Sim) -> Event;
    let events: &[(&str, Make)] = &[
        ("start on", |_| Event::Start { enabled: true }),
        ("start off", |_| Event::Start { enabled: false }),
        ("on", |_| Event::SetEnabled(true)),
        ("off", |_| Event::SetEnabled(false)),
        ("loaded", |sim| Event::StoreLoaded {
            records: sim
                .store
                .iter()
                .map(|(url, bytes)| StoredRecord {
                    url: url.clone(),
                    bytes: bytes.clone(),
                })
                .collect(),
            done: true,
        }),
        ("loaded garbage", |_| Event::StoreLoaded {
            records: vec![StoredRecord {
                url: url(40),
                bytes: vec![9, 9],
            }],
            done: false,
        }),
        ("load failed", |_| Event::StoreFailed),
        ("read", |sim| Event::Read {
            page: ReadPage {
                url: url(30),
                title: "New".into(),
                text: text(30, 20),
                ticket: sim.host.ticket(),
            },
            now_ms: NOW + MINUTE,
        }),
        ("read again", |sim| Event::Read {
            page: ReadPage {
                url: url(0),
                title: "Again".into(),
                text: text(0, 30),
                ticket: sim.host.ticket(),
            },
            now_ms: NOW + MINUTE,
        }),
        ("embedded", |sim| Event::Embedded {
            batch: sim.embed.as_ref().map_or(999, |e| e.0),
            vectors: sim
                .embed
                .as_ref()
                .map(|e| e.1.iter().map(|t| embed(t)).collect())
                .unwrap_or_default(),
        }),
        ("embed crashed", |sim| Event::EmbedFailed {
            batch: sim.embed.as_ref().map_or(999, |e| e.0),
            failure: EmbedFailure::Crashed("crash".into()),
        }),
        ("saved late", |_| Event::Saved { batch: 999 }),
        ("save failed late", |_| Event::SaveFailed {
            batch: 999,
            quota: true,
        }),
        ("all removed", |_| Event::Removed(Removal::All)),
        ("removed", |_| {
            Event::Removed(Removal::Urls(vec![url(0), url(2)]))
        }),
        ("excluded", |_| {
            Event::Exclusions(Exclusions::from_lines(&["p1.example"]))
        }),
        ("no cap", |_| Event::SetCap { bytes: 0 }),
        ("a large cap", |_| Event::SetCap { bytes: u64::MAX }),
        ("retry due", |_| Event::RetryDue),
    ];
    for phase in phases {
        for (name, make) in events {
            let what = format!("{name} when {phase}");
            let mut sim = in_phase(phase);
            let event = make(&sim);
            // The event's answer is the sim's to give now, not later.
            if matches!(event, Event::Embedded { batch, .. } | Event::EmbedFailed { batch, .. } if batch != 999)
            {
                sim.embed = None;
            }
            if matches!(
                event,
                Event::StoreLoaded { done: true, .. } | Event::StoreFailed
            ) {
                sim.load_out = false;
            }
            sim.feed(event);
            sim.run();
            sim.check(&what);
            // Whatever happened, a page read now is held (or not) consistently.
            sim.read(31, 20, NOW + 2 * MINUTE);
            sim.run();
            sim.check(&format!("{what}, then a read"));
        }
    }
}

/// The rule of [`Text`], step by step: a page's text stays in memory until its record is final
/// (written, at the page's current version, with every embedded passage's vector), and comes
/// back only with a new read or a load of a record that is not final. Each case runs its steps
/// on a live host and says whether page 0's text is held then (`None`: the page is not held).
#[test]
fn a_page_s_text_is_held_until_its_record_is_final() {
    type Step = fn(&mut Sim);
    fn read(sim: &mut Sim) {
        sim.read(0, 20, NOW);
    }
    fn read_long(sim: &mut Sim) {
        sim.read(0, 80, NOW);
        let embedded = sim.host.pages[&url(0)].embedded.len();
        assert!(embedded > EMBED_BATCH_PASSAGES, "{embedded} embedded");
    }
    fn save(sim: &mut Sim) {
        sim.save_next();
    }
    fn embed_batch(sim: &mut Sim) {
        sim.embed_next();
    }
    fn run(sim: &mut Sim) {
        sim.run();
    }
    fn fail_save(sim: &mut Sim) {
        let (batch, _, _) = sim.save.take().expect("no write out");
        sim.feed(Event::SaveFailed {
            batch,
            quota: false,
        });
    }
    fn refuse_save(sim: &mut Sim) {
        let (batch, _, _) = sim.save.take().expect("no write out");
        sim.feed(Event::SaveFailed { batch, quota: true });
    }
    fn crash(sim: &mut Sim) {
        let (batch, _) = sim.take_embed();
        sim.feed(Event::EmbedFailed {
            batch,
            failure: EmbedFailure::Crashed("oom".into()),
        });
    }
    fn model_missing(sim: &mut Sim) {
        let (batch, _) = sim.take_embed();
        sim.feed(Event::EmbedFailed {
            batch,
            failure: EmbedFailure::ModelMissing,
        });
    }
    fn remove(sim: &mut Sim) {
        sim.feed(Event::Removed(Removal::Urls(vec![url(0)])));
    }
    fn restart(sim: &mut Sim) {
        let old = std::mem::replace(sim, Sim::new());
        *sim = old.reborn();
        sim.feed(Event::Start { enabled: true });
        sim.serve_load(usize::MAX);
    }
    fn evict(sim: &mut Sim) {
        sim.read(1, 20, NOW + MINUTE);
        sim.run();
        let bytes = sim.host.pages[&url(1)].bytes;
        sim.feed(Event::SetCap { bytes });
    }
    let cases: &[(&str, &[Step], Option<bool>)] = &[
        ("read, nothing answered", &[read], Some(true)),
        ("written with no vector", &[read, save], Some(true)),
        (
            "embedded, not written again",
            &[read, save, embed_batch],
            Some(true),
        ),
        (
            "written whole: final",
            &[read, save, embed_batch, save],
            Some(false),
        ),
        ("everything answered", &[read, run], Some(false)),
        ("final, then read again", &[read, run, read], Some(true)),
        (
            "read again, then final",
            &[read, run, read, run],
            Some(false),
        ),
        (
            "a long page: one batch of several embedded (not written: not whole)",
            &[read_long, save, embed_batch],
            Some(true),
        ),
        (
            "a long page: every batch embedded and written",
            &[read_long, run],
            Some(false),
        ),
        (
            "the whole write failed: to be written again",
            &[read, save, embed_batch, fail_save],
            Some(true),
        ),
        (
            "the whole write failed, retried and written",
            &[read, save, embed_batch, fail_save, run],
            Some(false),
        ),
        (
            "the whole write refused for quota",
            &[read, save, embed_batch, refuse_save],
            Some(true),
        ),
        (
            "the model crashed: its batch back",
            &[read, save, crash],
            Some(true),
        ),
        (
            "the model crashed, then embedded",
            &[read, save, crash, run],
            Some(false),
        ),
        (
            "no model: passages left to embed (next session)",
            &[read, save, model_missing, run],
            Some(true),
        ),
        (
            "removed while written whole",
            &[read, save, embed_batch, remove],
            None,
        ),
        (
            "removed while written whole, read again",
            &[read, save, embed_batch, remove, read, run],
            Some(false),
        ),
        (
            "a restart loads a final record",
            &[read, run, restart],
            Some(false),
        ),
        (
            "a restart loads a record with no vector",
            &[read, save, restart],
            Some(true),
        ),
        (
            "loaded with no vector, then embedded and written",
            &[read, save, restart, run],
            Some(false),
        ),
        ("evicted by the cap", &[read, run, evict], None),
        (
            "evicted while embedded",
            &[read, save, embed_batch, evict],
            None,
        ),
    ];
    for (what, steps, held) in cases {
        let mut sim = Sim::started();
        for step in *steps {
            step(&mut sim);
        }
        assert_eq!(sim.holds_text(0), *held, "{what}");
        sim.check(what);
    }
}

/// A page whose text is no longer held shows its passage from its stored record, the same one
/// it showed from the text; a record that cannot be read, or is of another read of the page,
/// shows none (the page is still found).
#[test]
fn a_final_page_s_passage_comes_from_its_record() {
    let mut sim = Sim::started();
    sim.read(0, 20, NOW);
    let found = sim
        .host
        .search("zeta0 tomato", None, &SiteFilter::default(), 5);
    assert_eq!(found.len(), 1);
    assert!(!found[0].needs_record());
    let from_text = found[0].passage(None, "zeta0 tomato").unwrap();
    sim.run();
    assert_eq!(sim.holds_text(0), Some(false));
    let found = sim
        .host
        .search("zeta0 tomato", None, &SiteFilter::default(), 5)
        .remove(0);
    assert!(found.needs_record());
    let record = sim.store[&url(0)].clone();
    assert_eq!(
        found.passage(Some(&record), "zeta0 tomato"),
        Some(from_text)
    );
    // No record, one that does not decode, another page's, another read's.
    assert_eq!(found.passage(None, "zeta0 tomato"), None);
    assert_eq!(found.passage(Some(&record[..10]), "zeta0 tomato"), None);
    sim.read(1, 20, NOW);
    sim.run();
    let other = sim.store[&url(1)].clone();
    assert_eq!(found.passage(Some(&other), "zeta0 tomato"), None);
    let mut again = Record::decode(&record).unwrap().record;
    again.read_ms += MINUTE;
    assert_eq!(found.passage(Some(&again.encode()), "zeta0 tomato"), None);
}
