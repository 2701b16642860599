//! The removals the index snapshot does not hold yet, kept where a restarted worker finds them.
//!
//! A removal is applied to the index at once but saved in its IndexedDB snapshot only later
//! ([`super::host::PERSIST_DELAY_MS`] after it, or once a load or build is done). Chrome stops an
//! idle worker whenever it likes; a worker stopped in between would restart from the old snapshot,
//! whose catch-up only adds visits, and the deleted page would be searchable again. So the worker
//! writes every removal to a journal in `chrome.storage.local` ([`STORAGE_KEY`]) before it feeds
//! it to the host, feeds the journal's entries again when it starts (with their own times, before
//! the snapshot is loaded: they are queued and applied to it), and drops the entries a successful
//! save holds ([`Journal::saved`]).
//!
//! The stored value is a list of [`Entry`], oldest first:
//! `[{"removal": {"visits": {"allHistory": false, "urls": ["https://a.example/"]}}, "nowMs": 1}]`,
//! `{"removal": {"pages": ["https://a.example/"]}, …}` for a page's own removal, and
//! `{"removal": "unreadable", …}` for a removal that could not be read (its replay verifies the
//! index). The key is not a conversation key ([`crate::conversation::KEY_PREFIX`]), so the
//! conversation never reads, prunes or clears it.
//!
//! Everything here is pure: the worker keeps one [`Journal`] in memory, writes
//! [`Journal::to_stored`] whole after each change (one write at a time, so the last one written
//! is the last state), and reads the stored one with [`read_stored`].

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::host::Event;
use crate::history::RemovedVisits;

/// The `chrome.storage.local` key of the journal.
pub const STORAGE_KEY: &str = "removals-pending";

/// What was removed.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Removal {
    /// `chrome.history.onVisitRemoved`, as it said: replayed as [`Event::VisitRemoved`].
    Visits(RemovedVisits),
    /// The user removed these pages (cleaned URLs) through a page ([`crate::messages::Request::Remove`]):
    /// replayed as [`Event::Forget`].
    Pages(Vec<String>),
    /// Pages were removed but which could not be read: replayed as [`Event::RemovalUnreadable`].
    Unreadable,
}

/// One removal, with when it came (an expiry is judged against that time).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Entry {
    /// What went.
    pub removal: Removal,
    /// When the worker heard of it, ms since the Unix epoch.
    pub now_ms: i64,
}

impl Entry {
    /// The host's event for this removal.
    pub fn event(&self) -> Event {
        match &self.removal {
            Removal::Visits(removed) => Event::VisitRemoved {
                removed: removed.clone(),
                now_ms: self.now_ms,
            },
            Removal::Pages(pages) => Event::Forget(pages.clone()),
            Removal::Unreadable => Event::RemovalUnreadable {
                now_ms: self.now_ms,
            },
        }
    }

    fn clears_all(&self) -> bool {
        matches!(
            self.removal,
            Removal::Visits(RemovedVisits {
                all_history: true,
                ..
            })
        )
    }
}

/// The stored journal's entries: nothing stored is none; a value that is not a list, or an
/// entry that cannot be read (damaged, or another version's), is an [`Removal::Unreadable`] at
/// `now_ms` (some removal is not known: the index is verified), once.
pub fn read_stored(stored: Option<Value>, now_ms: i64) -> Vec<Entry> {
    let unreadable = || Entry {
        removal: Removal::Unreadable,
        now_ms,
    };
    let values = match stored {
        None | Some(Value::Null) => return Vec::new(),
        Some(Value::Array(values)) => values,
        Some(_) => return vec![unreadable()],
    };
    let mut journal = Journal::default();
    for value in values {
        journal.record(serde_json::from_value(value).unwrap_or_else(|_| unreadable()));
    }
    journal.entries().cloned().collect()
}

/// What a save covers: the entries recorded before it was made, and whether the index had been
/// verified by then ([`super::host::Host::verifying`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SaveMark {
    through: u64,
    verified: bool,
}

/// The journal in memory: the entries in order, each with the number of its recording.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Journal {
    entries: Vec<(u64, Entry)>,
    next: u64,
}

impl Journal {
    /// An empty journal.
    pub fn new() -> Journal {
        Journal::default()
    }

    /// Records a removal that is about to be fed to the host. "Clear all history" makes every
    /// earlier entry moot (it empties the index, kept pages included), and one unreadable removal
    /// verifies for every earlier one: those are dropped.
    pub fn record(&mut self, entry: Entry) {
        if entry.clears_all() {
            self.entries.clear();
        } else if entry.removal == Removal::Unreadable {
            self.entries
                .retain(|(_, earlier)| earlier.removal != Removal::Unreadable);
        }
        self.entries.push((self.next, entry));
        self.next += 1;
    }

    /// Puts the entries read at start (then fed to the host) before those recorded since: they
    /// are older. Recorded now, so a save covers them like any other.
    pub fn restore(&mut self, stored: Vec<Entry>) {
        let since = std::mem::take(&mut self.entries);
        for entry in stored {
            self.record(entry);
        }
        let clear_since = since.iter().any(|(_, entry)| entry.clears_all());
        if clear_since {
            self.entries.clear();
        }
        let unreadable_since = since
            .iter()
            .any(|(_, entry)| entry.removal == Removal::Unreadable);
        if unreadable_since {
            self.entries
                .retain(|(_, earlier)| earlier.removal != Removal::Unreadable);
        }
        self.entries.extend(since);
    }

    /// What a save of the snapshot made now holds: every entry recorded (and so fed) so far, the
    /// unreadable ones only when `verifying` is false (the host's verify is done).
    pub fn mark(&self, verifying: bool) -> SaveMark {
        SaveMark {
            through: self.next,
            verified: !verifying,
        }
    }

    /// The save marked `mark` succeeded: drops what it holds. Whether the journal changed (and
    /// must be written).
    pub fn saved(&mut self, mark: SaveMark) -> bool {
        let before = self.entries.len();
        self.entries.retain(|(id, entry)| {
            *id >= mark.through || (entry.removal == Removal::Unreadable && !mark.verified)
        });
        self.entries.len() != before
    }

    /// The entries, oldest first.
    pub fn entries(&self) -> impl Iterator<Item = &Entry> {
        self.entries.iter().map(|(_, entry)| entry)
    }

    /// The value to store under [`STORAGE_KEY`]; `None` when nothing is pending (remove the key).
    pub fn to_stored(&self) -> Option<Value> {
        if self.entries.is_empty() {
            return None;
        }
        let entries: Vec<&Entry> = self.entries().collect();
        serde_json::to_value(entries).ok()
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::conversation;

    const NOW: i64 = 1_780_000_000_000;

    fn visits(urls: &[&str]) -> Entry {
        Entry {
            removal: Removal::Visits(RemovedVisits {
                all_history: false,
                urls: urls.iter().map(|u| (*u).to_owned()).collect(),
            }),
            now_ms: NOW,
        }
    }

    fn pages(urls: &[&str]) -> Entry {
        Entry {
            removal: Removal::Pages(urls.iter().map(|u| (*u).to_owned()).collect()),
            now_ms: NOW + 1,
        }
    }

    fn unreadable(now_ms: i64) -> Entry {
        Entry {
            removal: Removal::Unreadable,
            now_ms,
        }
    }

    fn clear_all() -> Entry {
        Entry {
            removal: Removal::Visits(RemovedVisits {
                all_history: true,
                urls: Vec::new(),
            }),
            now_ms: NOW + 2,
        }
    }

    fn journal(entries: &[Entry]) -> Journal {
        let mut journal = Journal::new();
        for entry in entries {
            journal.record(entry.clone());
        }
        journal
    }

    fn listed(journal: &Journal) -> Vec<Entry> {
        journal.entries().cloned().collect()
    }

    #[test]
    fn entries_are_stored_in_the_documented_shape_and_read_back() {
        let entries = [
            visits(&["https://a.example/"]),
            pages(&["https://b.example/"]),
            unreadable(NOW + 3),
        ];
        let stored = journal(&entries).to_stored();
        assert_eq!(
            stored,
            Some(json!([
                {"removal": {"visits": {"allHistory": false, "urls": ["https://a.example/"]}}, "nowMs": NOW},
                {"removal": {"pages": ["https://b.example/"]}, "nowMs": NOW + 1},
                {"removal": "unreadable", "nowMs": NOW + 3},
            ]))
        );
        assert_eq!(read_stored(stored, NOW + 10), entries);
        assert_eq!(
            Journal::new().to_stored(),
            None,
            "nothing pending: the key goes"
        );
    }

    #[test]
    fn each_entry_is_fed_as_the_hosts_event_with_its_own_time() {
        let rows = [
            (
                visits(&["https://a.example/"]),
                Event::VisitRemoved {
                    removed: RemovedVisits {
                        all_history: false,
                        urls: vec!["https://a.example/".to_owned()],
                    },
                    now_ms: NOW,
                },
            ),
            (
                pages(&["https://b.example/"]),
                Event::Forget(vec!["https://b.example/".to_owned()]),
            ),
            (unreadable(5), Event::RemovalUnreadable { now_ms: 5 }),
        ];
        for (entry, event) in rows {
            assert_eq!(entry.event(), event, "{entry:?}");
        }
    }

    #[test]
    fn a_journal_that_cannot_be_read_is_an_unreadable_removal() {
        let bad = unreadable(NOW);
        // (stored, entries read)
        let rows: Vec<(Option<Value>, Vec<Entry>)> = vec![
            (None, vec![]),
            (Some(Value::Null), vec![]),
            (Some(json!([])), vec![]),
            (Some(json!("removals")), vec![bad.clone()]),
            (Some(json!({"removal": "unreadable"})), vec![bad.clone()]),
            (
                Some(json!([
                    {"removal": {"visits": {"allHistory": false, "urls": ["https://a.example/"]}}, "nowMs": NOW},
                    {"removal": {"somethingNew": 1}, "nowMs": 4},
                    7,
                    {"removal": {"pages": ["https://b.example/"]}, "nowMs": NOW + 1},
                ])),
                vec![
                    visits(&["https://a.example/"]),
                    bad.clone(),
                    pages(&["https://b.example/"]),
                ],
            ),
            // The removal's fields are read leniently, as the event's are.
            (
                Some(json!([{"removal": {"visits": {"urls": null}}, "nowMs": NOW}])),
                vec![visits(&[])],
            ),
        ];
        for (stored, entries) in rows {
            assert_eq!(read_stored(stored.clone(), NOW), entries, "{stored:?}");
        }
    }

    #[test]
    fn clear_all_and_an_unreadable_removal_make_earlier_entries_moot() {
        let a = visits(&["https://a.example/"]);
        let b = pages(&["https://b.example/"]);
        // (recorded, left)
        let rows: Vec<(Vec<Entry>, Vec<Entry>)> = vec![
            (vec![a.clone(), b.clone()], vec![a.clone(), b.clone()]),
            (
                vec![a.clone(), unreadable(1), b.clone(), clear_all()],
                vec![clear_all()],
            ),
            (vec![clear_all(), a.clone()], vec![clear_all(), a.clone()]),
            (
                vec![unreadable(1), a.clone(), unreadable(2)],
                vec![a.clone(), unreadable(2)],
            ),
        ];
        for (recorded, left) in rows {
            assert_eq!(listed(&journal(&recorded)), left, "{recorded:?}");
        }
    }

    #[test]
    fn a_save_drops_the_entries_fed_before_it_and_unreadable_ones_once_verified() {
        let a = visits(&["https://a.example/"]);
        let b = pages(&["https://b.example/"]);
        // A save made after `a` (the host verifying or not), then `b` recorded, then the save
        // succeeds.
        for verifying in [false, true] {
            let mut journal = journal(&[unreadable(1), a.clone()]);
            let mark = journal.mark(verifying);
            journal.record(b.clone());
            assert!(journal.saved(mark));
            let left = if verifying {
                vec![unreadable(1), b.clone()]
            } else {
                vec![b.clone()]
            };
            assert_eq!(listed(&journal), left, "verifying: {verifying}");
            assert!(!journal.saved(mark), "nothing more to drop");
        }
        // Two saves, the earlier failing (its mark is never applied): the later drops both.
        let mut journal = journal(std::slice::from_ref(&a));
        journal.record(b.clone());
        let later = journal.mark(false);
        assert!(journal.saved(later));
        assert_eq!(journal.to_stored(), None);
        // Two saves landing in order: the earlier's mark after the later's drops nothing more.
        let mut two = Journal::new();
        two.record(a.clone());
        let first = two.mark(false);
        two.record(b.clone());
        let second = two.mark(false);
        assert!(two.saved(first) && two.saved(second));
        assert!(!two.saved(first));
        assert_eq!(two.to_stored(), None);
        // A mark taken before anything was recorded drops nothing recorded after it.
        let mut journal = Journal::new();
        let early = journal.mark(false);
        journal.record(a.clone());
        assert!(!journal.saved(early));
        assert_eq!(listed(&journal), [a]);
    }

    #[test]
    fn entries_read_at_start_go_before_those_recorded_meanwhile_and_are_covered_alike() {
        let a = visits(&["https://a.example/"]);
        let b = pages(&["https://b.example/"]);
        // An event came before the stored journal was read.
        let mut started = journal(std::slice::from_ref(&b));
        started.restore(vec![a.clone(), unreadable(1)]);
        assert_eq!(listed(&started), [a.clone(), unreadable(1), b.clone()]);
        let mark = started.mark(false);
        assert!(started.saved(mark));
        assert_eq!(started.to_stored(), None);
        // What came meanwhile supersedes what was stored, as if recorded after it.
        for (meanwhile, left) in [
            (clear_all(), vec![clear_all()]),
            (unreadable(2), vec![a.clone(), unreadable(2)]),
        ] {
            let mut started = journal(std::slice::from_ref(&meanwhile));
            started.restore(vec![unreadable(1), a.clone()]);
            assert_eq!(listed(&started), left, "{meanwhile:?}");
        }
    }

    #[test]
    fn the_journal_is_never_read_as_a_turn_nor_pruned_nor_cleared_with_the_conversation() {
        assert!(!STORAGE_KEY.starts_with(conversation::KEY_PREFIX));
        let turn = conversation::Turn::local(
            NOW,
            "q",
            crate::period::Period::Week,
            Ok(vec![crate::history::Page {
                url: "https://a.example/".to_owned(),
                title: "A".to_owned(),
                last_visit_ms: NOW - 1,
                visit_count: 1,
                passage: None,
                marks: Default::default(),
            }]),
        );
        let turn_key = conversation::turn_key(NOW, 1);
        let stored = journal(&[
            visits(&["https://a.example/"]),
            clear_all(),
            pages(&["https://a.example/"]),
        ])
        .to_stored()
        .unwrap();
        let items = || {
            vec![
                (STORAGE_KEY.to_owned(), stored.clone()),
                (turn_key.clone(), serde_json::to_value(&turn).unwrap()),
            ]
        };
        // Loaded long after, at the default retention: the journal is neither a turn, nor
        // unreadable, nor expired.
        let loaded = conversation::load(
            items(),
            NOW + 400 * crate::period::DAY_MS,
            Default::default(),
        );
        let keys = loaded
            .turns
            .iter()
            .map(|stored| &stored.key)
            .chain(&loaded.expired)
            .chain(&loaded.unreadable);
        for key in keys {
            assert_ne!(key, STORAGE_KEY);
        }
        // "Clear conversation" removes the turn only.
        let keys: Vec<String> = items().into_iter().map(|(key, _)| key).collect();
        assert_eq!(
            conversation::all_keys(keys.iter().map(String::as_str)),
            std::slice::from_ref(&turn_key)
        );
        // Forgetting removed pages, or marking running turns interrupted, rewrites turns only.
        let all = RemovedVisits {
            all_history: true,
            urls: Vec::new(),
        };
        let rewritten: Vec<String> = conversation::forget_removed(items(), &all)
            .into_iter()
            .map(|stored| stored.key)
            .collect();
        assert_eq!(rewritten, std::slice::from_ref(&turn_key));
        assert!(conversation::interrupted(items()).is_empty());
    }
}
