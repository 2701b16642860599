//! The bookmarks and open tabs kept in memory, and the search over them.
//!
//! A [`Shelf`] holds [`Entry`]s, each with its words folded as the lexical index folds them
//! ([`crate::index::text`]: accents, case, camelCase parts, English and French stems). A question
//! finds the entries holding **every** word it has (the last one, while it is being typed, as a
//! prefix); each word counts where it matched best:
//!
//! | where           | weight | why |
//! |-----------------|--------|-----|
//! | title           | 2.0    | what the user read (Chrome's tab search weighs the title 2× the host) |
//! | a folder's name | 2.0    | the user's own word for what it holds: as strong as the title (at 1.5, "school handling" put five W3Schools pages about handling before the page filed in School) |
//! | host            | 1.0    | the site |
//! | path and query  | 0.5    | ids and slugs: a hint |
//!
//! A word found whole counts its weight, by a shared stem 0.9 of it, as a prefix 0.6 of it. Ties
//! go to the most recent (a tab last active, a bookmark last added). A question of no words (a
//! source term alone, `tab:`) lists every entry, most recent first.
//!
//! A question looks only at the entries holding its words (postings of every folded word and
//! stem; a word being typed looks through the words it begins), then scores those: a fraction of a
//! millisecond among 5,000 bookmarks (BENCHMARKS.md has the figures, natively and in the
//! extension).

use std::collections::HashMap;

use crate::address::split_address;
use crate::history::{Bookmarked, Marks, OpenTab, Page};
use crate::index::text::{Parts, Scratch, Stemmers, fold_words_with};
use crate::site_filter::SiteFilter;

/// Where a word of an entry stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Field {
    Title,
    Folder,
    Host,
    Path,
}

impl Field {
    fn weight(self) -> f32 {
        match self {
            Field::Title => 2.0,
            Field::Folder => 2.0,
            Field::Host => 1.0,
            Field::Path => 0.5,
        }
    }
}

/// A word of an entry: folded, with its English and French stems.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Word {
    field: Field,
    folded: String,
    stems: [String; 2],
}

/// Which source an entry is from, with what that source says of it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Kind {
    /// A bookmark: its folders, when it was added.
    Bookmark(Bookmarked),
    /// An open tab.
    Tab(OpenTab),
}

/// One bookmark or open tab, searchable.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The source's id for it: a bookmark's node id, a tab's id.
    pub key: String,
    /// Its address, cleaned ([`crate::clean::clean_url`]): how it is matched with the history's
    /// pages.
    pub url: String,
    /// Its title (perhaps empty).
    pub title: String,
    /// The source, and what it says.
    pub kind: Kind,
    /// When it was last active (a tab) or added (a bookmark), ms since the Unix epoch; 0: not
    /// known.
    pub recent_ms: i64,
    words: Vec<Word>,
}

impl Entry {
    /// An entry of `kind` for the cleaned address `url`, titled `title`; its words are folded
    /// once, here.
    pub fn new(key: String, url: String, title: String, kind: Kind, recent_ms: i64) -> Entry {
        let mut words = Vec::new();
        let stemmers = Stemmers::default();
        let mut scratch = Scratch::default();
        let mut add = |field: Field, text: &str| {
            fold_words_with(&mut scratch, text, Parts::Split, |folded| {
                if !words
                    .iter()
                    .any(|w: &Word| w.folded == folded && w.field == field)
                {
                    words.push(Word {
                        field,
                        folded: folded.to_owned(),
                        stems: stemmers.stems(folded),
                    });
                }
            });
        };
        add(Field::Title, &title);
        if let Kind::Bookmark(bookmark) = &kind {
            for folder in &bookmark.folders {
                add(Field::Folder, folder);
            }
        }
        if let Some(address) = split_address(&url) {
            add(Field::Host, address.host);
            add(Field::Path, address.rest);
        }
        Entry {
            key,
            url,
            title,
            kind,
            recent_ms,
            words,
        }
    }

    /// The page this entry shows as: outside the history until fused with it, marked with its
    /// source. A tab's last activity stands for its last visit; a bookmark has none.
    pub fn page(&self) -> Page {
        let (marks, last_visit_ms) = match &self.kind {
            Kind::Bookmark(bookmark) => (
                Marks {
                    bookmark: Some(bookmark.clone()),
                    tab: None,
                    outside_history: true,
                },
                0,
            ),
            Kind::Tab(tab) => (
                Marks {
                    bookmark: None,
                    tab: Some(*tab),
                    outside_history: true,
                },
                self.recent_ms,
            ),
        };
        Page {
            url: self.url.clone(),
            title: self.title.clone(),
            last_visit_ms,
            visit_count: 0,
            passage: None,
            marks,
        }
    }

    /// How well the entry holds every one of `query`'s words; `None` when one is missing.
    fn score(&self, query: &[QueryWord]) -> Option<f32> {
        let mut total = 0.0;
        for word in query {
            let best = self
                .words
                .iter()
                .filter_map(|w| {
                    let likeness = if w.folded == word.folded {
                        1.0
                    } else if w.stems.iter().any(|s| word.stems.contains(s)) {
                        0.9
                    } else if word.prefix && w.folded.starts_with(&word.folded) {
                        0.6
                    } else {
                        return None;
                    };
                    Some(likeness * w.field.weight())
                })
                .fold(None, |best: Option<f32>, s| {
                    Some(best.map_or(s, |b| b.max(s)))
                })?;
            total += best;
        }
        Some(total)
    }
}

/// A word of the question: folded, its stems, and whether it is being typed (a prefix).
#[derive(Debug, Clone, PartialEq, Eq)]
struct QueryWord {
    folded: String,
    stems: [String; 2],
    prefix: bool,
}

/// The words of `words` (a question without its `site:` and source terms; a trailing space means
/// its last word is finished), folded as an entry's are.
fn query_words(words: &str) -> Vec<QueryWord> {
    let stemmers = Stemmers::default();
    let mut folded = Vec::new();
    let mut scratch = Scratch::default();
    fold_words_with(&mut scratch, words, Parts::Whole, |w| {
        if !folded.iter().any(|f: &String| f == w) {
            folded.push(w.to_owned());
        }
    });
    let typing = !words.ends_with(char::is_whitespace);
    let last = folded.len().saturating_sub(1);
    folded
        .into_iter()
        .enumerate()
        .map(|(n, folded)| QueryWord {
            stems: stemmers.stems(&folded),
            prefix: typing && n == last,
            folded,
        })
        .collect()
}

/// Entries of one source, searchable.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Shelf {
    entries: Vec<Entry>,
    /// Each folded word and each stem of the entries → the entries holding it, ascending: a
    /// question looks at the entries holding its words only (a few among thousands), not at
    /// every entry.
    postings: HashMap<String, Vec<u32>>,
}

impl Shelf {
    /// A shelf of `entries`.
    pub fn new(entries: Vec<Entry>) -> Shelf {
        let mut postings: HashMap<String, Vec<u32>> = HashMap::new();
        for (at, entry) in entries.iter().enumerate() {
            let at = at as u32;
            for word in &entry.words {
                let keys = std::iter::once(&word.folded).chain(word.stems.iter());
                for key in keys {
                    let list = postings.entry(key.clone()).or_default();
                    if list.last() != Some(&at) {
                        list.push(at);
                    }
                }
            }
        }
        Shelf { entries, postings }
    }

    /// How many entries it holds.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Its entries.
    pub fn entries(&self) -> &[Entry] {
        &self.entries
    }

    /// Its entries, taken.
    pub fn into_entries(self) -> Vec<Entry> {
        self.entries
    }

    /// The entries that may hold `word` (the word, a stem of it, or, being typed, a word it
    /// begins): a superset of those [`Entry::score`] accepts, ascending.
    fn candidates(&self, word: &QueryWord) -> Vec<u32> {
        let mut found: Vec<u32> = Vec::new();
        let keys = std::iter::once(&word.folded).chain(word.stems.iter());
        for key in keys {
            found.extend(self.postings.get(key).into_iter().flatten());
        }
        if word.prefix {
            for (key, list) in &self.postings {
                if key.len() > word.folded.len() && key.starts_with(&word.folded) {
                    found.extend(list);
                }
            }
        }
        found.sort_unstable();
        found.dedup();
        found
    }

    /// The entries holding every word of `words` whose address `sites` allows, best first, each
    /// with its score; every entry allowed, most recent first, when `words` has none.
    pub fn search<'s>(&'s self, words: &str, sites: &SiteFilter) -> Vec<(&'s Entry, f32)> {
        let query = query_words(words);
        let mut found: Vec<(&Entry, f32)> = match query.split_first() {
            None => self.entries.iter().map(|e| (e, 0.0)).collect(),
            Some((first, rest)) => {
                let mut ids = self.candidates(first);
                for word in rest {
                    if ids.is_empty() {
                        break;
                    }
                    let more = self.candidates(word);
                    ids.retain(|id| more.binary_search(id).is_ok());
                }
                ids.into_iter()
                    .filter_map(|id| self.entries.get(id as usize))
                    .filter_map(|e| Some((e, e.score(&query)?)))
                    .collect()
            }
        };
        found.retain(|(e, _)| sites.allows(&e.url));
        found.sort_by(|(a, sa), (b, sb)| sb.total_cmp(sa).then(b.recent_ms.cmp(&a.recent_ms)));
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::site_filter;

    fn bookmark(url: &str, title: &str, folders: &[&str], added_ms: i64) -> Entry {
        let kind = Kind::Bookmark(Bookmarked {
            folders: folders.iter().map(|f| f.to_string()).collect(),
            added_ms,
        });
        Entry::new(url.into(), url.into(), title.into(), kind, added_ms)
    }

    fn tab(url: &str, title: &str, tab_id: i32, recent_ms: i64) -> Entry {
        let kind = Kind::Tab(OpenTab {
            tab_id,
            window_id: 1,
        });
        Entry::new(
            tab_id.to_string(),
            url.into(),
            title.into(),
            kind,
            recent_ms,
        )
    }

    fn shelf() -> Shelf {
        Shelf::new(vec![
            bookmark(
                "https://doc.rust-lang.org/book/ch16-00-concurrency.html",
                "Fearless Concurrency",
                &["Bookmarks bar", "Rust", "Async"],
                30,
            ),
            bookmark(
                "https://www.marmiton.org/recettes/tarte-tatin.aspx",
                "Tarte Tatin facile",
                &["Other bookmarks", "Cuisine", "Desserts"],
                20,
            ),
            bookmark(
                "https://tokio.rs/tokio/tutorial",
                "Tutorial",
                &["Bookmarks bar", "Rust"],
                10,
            ),
            tab(
                "https://github.com/rust-lang/rust/issues/1",
                "Tracking issue for async closures",
                4,
                50,
            ),
        ])
    }

    fn urls(found: &[(&Entry, f32)]) -> Vec<String> {
        found.iter().map(|(e, _)| e.url.clone()).collect()
    }

    #[test]
    fn every_word_must_match_somewhere_and_where_it_matched_ranks_it() {
        let shelf = shelf();
        let none = SiteFilter::default();
        // (question words, the addresses found, best first)
        let rows: &[(&str, &[&str])] = &[
            // Folder words find what the folder holds; the title's match leads.
            (
                "async ",
                &[
                    "https://github.com/rust-lang/rust/issues/1",
                    "https://doc.rust-lang.org/book/ch16-00-concurrency.html",
                ],
            ),
            // A folder's name only, accents and case folded.
            (
                "DESSERTS ",
                &["https://www.marmiton.org/recettes/tarte-tatin.aspx"],
            ),
            (
                "dessert ",
                &["https://www.marmiton.org/recettes/tarte-tatin.aspx"],
            ),
            // Every word: "rust tutorial" is the tutorial alone.
            ("rust tutorial ", &["https://tokio.rs/tokio/tutorial"]),
            // A word being typed is a prefix.
            ("tut", &["https://tokio.rs/tokio/tutorial"]),
            ("tut ", &[]),
            // The host.
            (
                "marmiton ",
                &["https://www.marmiton.org/recettes/tarte-tatin.aspx"],
            ),
            ("nothing here ", &[]),
        ];
        for (words, expected) in rows {
            assert_eq!(urls(&shelf.search(words, &none)), *expected, "{words:?}");
        }
    }

    #[test]
    fn no_words_lists_every_entry_most_recent_first_within_the_sites() {
        let shelf = shelf();
        let all = urls(&shelf.search("", &SiteFilter::default()));
        assert_eq!(
            all,
            [
                "https://github.com/rust-lang/rust/issues/1",
                "https://doc.rust-lang.org/book/ch16-00-concurrency.html",
                "https://www.marmiton.org/recettes/tarte-tatin.aspx",
                "https://tokio.rs/tokio/tutorial",
            ]
        );
        let rust = site_filter::parse("site:rust-lang.org").filter;
        assert_eq!(
            urls(&shelf.search("", &rust)),
            ["https://doc.rust-lang.org/book/ch16-00-concurrency.html"]
        );
    }

    #[test]
    fn an_entry_shows_as_a_page_outside_the_history_marked_with_its_source() {
        let shelf = shelf();
        let page = shelf.entries()[0].page();
        assert!(page.marks.outside_history);
        assert_eq!(
            page.marks.bookmark.as_ref().map(|b| b.folders.len()),
            Some(3)
        );
        assert_eq!(page.last_visit_ms, 0, "a bookmark has no visit of its own");
        let page = shelf.entries()[3].page();
        assert_eq!(page.marks.tab.map(|t| t.tab_id), Some(4));
        assert_eq!(page.last_visit_ms, 50, "a tab's last activity");
    }
}
