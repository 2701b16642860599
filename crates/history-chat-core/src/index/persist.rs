//! Saving and loading the index, so a service-worker restart costs a load, not a rebuild.
//!
//! Format: the 4 magic bytes `HCIX`, a little-endian `u16` [`FORMAT_VERSION`], then a
//! [postcard](https://docs.rs/postcard) body (compact varints, no field names). The body holds what
//! is expensive to recompute — the pages with their raw URLs, the vocabulary with its
//! occurrence lists — and not what is cheap: the hash maps and typo signatures are rebuilt on load.
//! Removed pages and unused words are dropped on save (ids are compacted), occurrence lists are
//! sorted and their page ids delta-encoded, and words are saved in text order so the prefix order
//! needs no sort on load.
//!
//! Any other version, or bytes that do not decode into a consistent index, is a [`LoadError`]: the
//! caller rebuilds from `chrome.history`.
//!
//! A second, smaller snapshot holds the recently visited pages alone ([`Index::recent_to_bytes`]):
//! the magic `HCIR`, the same version, the span's start (`i64`, little-endian), then a body of the
//! same layout. A worker that starts reads and loads it first, and answers a question about a
//! period it covers while the whole snapshot is read and decoded ([`super::host`]).

use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

use super::score::FieldCounts;
use super::{Doc, Index, Posting, Shape, Term, typo};

/// The magic and the version.
const HEADER_LEN: usize = 6;
/// The most a load reserves for a list before its items come (8 MB, some 90,000 pages' worth).
const MAX_RESERVED_BYTES: usize = 8 << 20;
/// Magic bytes at the start of a saved index.
const MAGIC: &[u8; 4] = b"HCIX";
/// Magic bytes at the start of a saved recent part ([`Index::recent_to_bytes`]).
const MAGIC_RECENT: &[u8; 4] = b"HCIR";

/// Version of the saved format. Bump it whenever the body or the tokenisation changes: an index
/// saved by another version is rebuilt, never misread. A rebuild reads Chrome's history, which no
/// longer has the pages kept after Chrome forgot them ([`crate::archive`]): they are lost, and the
/// options page says so. Version 2 added that mark to each history URL (no version-1 index holds a
/// kept page, so nothing is lost moving to it); a later bump that must not lose them has to read
/// the kept pages out of the old body before rebuilding.
pub const FORMAT_VERSION: u16 = 2;

/// Why saved bytes could not be loaded. In every case the caller rebuilds the index.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LoadError {
    /// Not a saved index (too short, or another magic).
    #[error("not a saved history index")]
    NotAnIndex,
    /// Saved by another version of the extension.
    #[error("saved index has format version {found}, expected {FORMAT_VERSION}")]
    Version {
        /// The version found in the header.
        found: u16,
    },
    /// The body is truncated or inconsistent.
    #[error("saved index is corrupt: {0}")]
    Corrupt(String),
}

/// The saved body: borrowed from the index, so saving copies nothing but the occurrence lists
/// (which are renumbered and delta-encoded anyway). Loaded an item at a time ([`Loader`]).
#[derive(Serialize)]
struct SnapshotRef<'a> {
    docs: Vec<&'a Doc>,
    terms: Vec<SavedTermRef<'a>>,
}

#[derive(Serialize)]
struct SavedTermRef<'a> {
    text: &'a str,
    postings: Vec<(u32, [u8; 4])>,
}

#[derive(Deserialize)]
struct SavedTerm {
    text: Box<str>,
    /// `(page id − previous page id, [title, host, path, query] counts)`, decoded straight into
    /// the index's own occurrence list (the page ids are made absolute in place).
    postings: Vec<SavedPosting>,
}

/// One saved occurrence, read as the `(u32, [u8; 4])` pair [`SavedTermRef`] writes.
#[derive(Deserialize)]
#[serde(from = "(u32, [u8; 4])")]
struct SavedPosting(Posting);

impl From<(u32, [u8; 4])> for SavedPosting {
    fn from((delta, counts): (u32, [u8; 4])) -> Self {
        SavedPosting(Posting {
            doc: delta,
            counts: counts_from_bytes(counts),
        })
    }
}

impl Index {
    /// The index as bytes, for `chrome.storage.local` or IndexedDB.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut bytes = header(MAGIC);
        bytes.extend_from_slice(&self.body(|_| true));
        bytes
    }

    /// The pages last visited at or after `since_ms` alone, as a snapshot of their own (the magic
    /// `HCIR`, the version, `since_ms`, then a body of the same layout): an index of those pages,
    /// which answers a search over a period that starts at or after `since_ms` as the whole index
    /// would find it (its scores weigh words against those pages only).
    pub fn recent_to_bytes(&self, since_ms: i64) -> Vec<u8> {
        let mut bytes = header(MAGIC_RECENT);
        bytes.extend_from_slice(&since_ms.to_le_bytes());
        bytes.extend_from_slice(&self.body(|doc| doc.last_visit_ms >= since_ms));
        bytes
    }

    /// The body of the pages `keep` keeps, their ids compacted (removed pages are dropped too).
    fn body(&self, keep: impl Fn(&Doc) -> bool) -> Vec<u8> {
        let mut new_doc_id: Vec<u32> = vec![u32::MAX; self.docs.len()];
        let mut docs = Vec::with_capacity(self.live);
        for (old, doc) in self.docs.iter().enumerate() {
            if let Some(doc) = doc
                && keep(doc)
            {
                new_doc_id[old] = docs.len() as u32;
                docs.push(doc);
            }
        }
        let terms = self
            .sorted_terms
            .iter()
            .map(|&t| &self.terms[t as usize])
            .filter_map(|term| {
                let mut postings: Vec<(u32, [u8; 4])> = term
                    .postings
                    .iter()
                    .filter(|p| new_doc_id[p.doc as usize] != u32::MAX)
                    .map(|p| (new_doc_id[p.doc as usize], counts_to_bytes(p.counts)))
                    .collect();
                if postings.is_empty() {
                    return None;
                }
                postings.sort_unstable_by_key(|p| p.0);
                let mut previous = 0;
                for p in &mut postings {
                    let id = p.0;
                    p.0 = id - previous;
                    previous = id;
                }
                Some(SavedTermRef {
                    text: &term.text,
                    postings,
                })
            })
            .collect();
        // Serialising plain structs into a Vec cannot fail; an empty body would be rejected on load.
        postcard::to_allocvec(&SnapshotRef { docs, terms }).unwrap_or_default()
    }

    /// Loads an index saved by [`Index::to_bytes`] of the same [`FORMAT_VERSION`], in one go
    /// ([`Loader`] does it a slice at a time).
    pub fn from_bytes(bytes: &[u8]) -> Result<Index, LoadError> {
        Loader::new(bytes.to_vec())?.finish()
    }

    /// Loads a recent part saved by [`Index::recent_to_bytes`] of the same [`FORMAT_VERSION`]:
    /// its pages, and the start of the span it holds every page of.
    pub fn recent_from_bytes(bytes: &[u8]) -> Result<(Index, i64), LoadError> {
        let rest = body(MAGIC_RECENT, bytes)?;
        let Some((since, _)) = rest.split_first_chunk::<8>() else {
            return Err(corrupt("no span in a recent part"));
        };
        let index = Loader::at(bytes.to_vec(), HEADER_LEN + 8)?.finish()?;
        Ok((index, i64::from_le_bytes(*since)))
    }

    /// Adds the next saved page.
    fn load_doc(&mut self, doc: Doc) -> Result<(), LoadError> {
        if doc.backing.is_empty() {
            return Err(corrupt("page without raw URL"));
        }
        let id = self.docs.len() as u32;
        self.title_len_sum += u64::from(doc.title_len);
        self.url_len_sum += u64::from(doc.url_len);
        if self.by_url.insert(doc.url.clone(), id).is_some() {
            return Err(corrupt("duplicate page"));
        }
        self.docs.push(Some(doc));
        self.live += 1;
        Ok(())
    }

    /// Adds the next saved word, once every page is loaded.
    fn load_term(&mut self, saved: SavedTerm) -> Result<(), LoadError> {
        if self
            .terms
            .last()
            .is_some_and(|previous| previous.text >= saved.text)
        {
            return Err(corrupt("words out of order"));
        }
        let mut postings = saved.postings;
        let mut doc = 0u32;
        for SavedPosting(posting) in &mut postings {
            doc = doc
                .checked_add(posting.doc)
                .ok_or_else(|| corrupt("page id"))?;
            if doc as usize >= self.docs.len() {
                return Err(corrupt("page id out of range"));
            }
            posting.doc = doc;
        }
        let id = self.terms.len() as u32;
        self.shapes.push(Shape {
            sig: typo::signature(&saved.text),
            chars: saved.text.chars().count().min(255) as u8,
        });
        self.term_ids.insert(saved.text.clone(), id);
        self.sorted_terms.push(id);
        self.terms.push(Term {
            text: saved.text,
            postings: postings.into_iter().map(|SavedPosting(p)| p).collect(),
        });
        Ok(())
    }
}

/// A saved index being loaded a slice at a time ([`Loader::step`]): decoding a whole snapshot of
/// 50,000 pages holds the service worker's thread for over 100 ms, and a page's request that comes
/// meanwhile would wait for all of it. The worker answers between the slices.
#[derive(Debug)]
pub struct Loader {
    bytes: Vec<u8>,
    /// Where the next item starts in `bytes`.
    at: usize,
    index: Index,
    /// The items of the list being read that are left: the pages, then the words.
    left: usize,
    words: bool,
}

/// What a [`Loader::step`] got to.
#[derive(Debug)]
pub enum Loaded {
    /// More is left: the next step goes on from here.
    Partly(Loader),
    /// The whole index.
    Done(Index),
}

impl Loader {
    /// Starts loading an index saved by [`Index::to_bytes`]: the header is checked here, the body
    /// decoded by the steps.
    pub fn new(bytes: Vec<u8>) -> Result<Loader, LoadError> {
        body(MAGIC, &bytes)?;
        Loader::at(bytes, HEADER_LEN)
    }

    /// A loader of the body that starts at `at` (postcard writes each list as its length, then
    /// its items: the pages, then the words).
    fn at(bytes: Vec<u8>, at: usize) -> Result<Loader, LoadError> {
        let mut loader = Loader {
            bytes,
            at,
            index: Index::new(),
            left: 0,
            words: false,
        };
        loader.left = loader.count()?;
        let room = loader.room::<Option<Doc>>(loader.left);
        loader.index.docs.reserve(room);
        loader.index.by_url.reserve(room);
        Ok(loader)
    }

    /// Decodes up to `items` more pages or words.
    pub fn step(mut self, items: usize) -> Result<Loaded, LoadError> {
        for _ in 0..items {
            if self.left > 0 {
                self.left -= 1;
                if self.words {
                    let saved = self.take()?;
                    self.index.load_term(saved)?;
                } else {
                    let doc = self.take()?;
                    self.index.load_doc(doc)?;
                }
            } else if !self.words {
                self.words = true;
                self.left = self.count()?;
                let room = self.room::<Term>(self.left);
                self.index.terms.reserve(room);
                self.index.term_ids.reserve(room);
            } else {
                break;
            }
        }
        Ok(match (self.words, self.left) {
            (true, 0) => Loaded::Done(self.index),
            _ => Loaded::Partly(self),
        })
    }

    /// Every step at once.
    fn finish(self) -> Result<Index, LoadError> {
        match self.step(usize::MAX)? {
            Loaded::Done(index) => Ok(index),
            // A step of every item ends with the words.
            Loaded::Partly(_) => Err(corrupt("a load that did not end")),
        }
    }

    /// The next item.
    fn take<T: DeserializeOwned>(&mut self) -> Result<T, LoadError> {
        let rest = self.bytes.get(self.at..).unwrap_or_default();
        let (value, after) =
            postcard::take_from_bytes::<T>(rest).map_err(|e| LoadError::Corrupt(e.to_string()))?;
        self.at += rest.len() - after.len();
        Ok(value)
    }

    /// A list's length, as postcard writes it: a varint, 32 or 64 bits wide when written (the same
    /// bytes for any length that fits either).
    fn count(&mut self) -> Result<usize, LoadError> {
        let count: u64 = self.take()?;
        usize::try_from(count).map_err(|_| corrupt("list length"))
    }

    /// Room to make for `count` items of `T`: no more than the bytes left could hold (each takes
    /// at least one), nor more than [`MAX_RESERVED_BYTES`] (the vectors grow past it as items
    /// come), so that a corrupt length cannot ask for a huge allocation.
    fn room<T>(&self, count: usize) -> usize {
        count
            .min(self.bytes.len().saturating_sub(self.at))
            .min(MAX_RESERVED_BYTES / size_of::<T>().max(1))
    }
}

fn corrupt(what: &str) -> LoadError {
    LoadError::Corrupt(what.to_owned())
}

/// The magic and the version, which every saved snapshot starts with.
fn header(magic: &[u8; 4]) -> Vec<u8> {
    let mut bytes = Vec::new();
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
    bytes
}

/// What follows the header, once `magic` and the version are checked.
fn body<'a>(magic: &[u8; 4], bytes: &'a [u8]) -> Result<&'a [u8], LoadError> {
    if bytes.len() < HEADER_LEN || &bytes[..4] != magic {
        return Err(LoadError::NotAnIndex);
    }
    let found = u16::from_le_bytes([bytes[4], bytes[5]]);
    if found != FORMAT_VERSION {
        return Err(LoadError::Version { found });
    }
    Ok(&bytes[HEADER_LEN..])
}

fn counts_to_bytes(c: FieldCounts) -> [u8; 4] {
    [c.title, c.host, c.path, c.query]
}

fn counts_from_bytes([title, host, path, query]: [u8; 4]) -> FieldCounts {
    FieldCounts {
        title,
        host,
        path,
        query,
    }
}
