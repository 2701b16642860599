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

use serde::{Deserialize, Serialize};

use super::score::FieldCounts;
use super::{Doc, Index, Posting, Shape, Term, typo};

/// Magic bytes at the start of a saved index.
const MAGIC: &[u8; 4] = b"HCIX";

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

/// The saved body, as loaded.
#[derive(Deserialize)]
struct Snapshot {
    docs: Vec<Doc>,
    terms: Vec<SavedTerm>,
}

/// The same body as saved: borrowed from the index, so saving copies nothing but the occurrence
/// lists (which are renumbered and delta-encoded anyway).
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
    /// `(page id − previous page id, [title, host, path, query] counts)`.
    postings: Vec<(u32, [u8; 4])>,
}

impl Index {
    /// The index as bytes, for `chrome.storage.local` or IndexedDB.
    pub fn to_bytes(&self) -> Vec<u8> {
        let mut new_doc_id: Vec<u32> = vec![u32::MAX; self.docs.len()];
        let mut docs = Vec::with_capacity(self.live);
        for (old, doc) in self.docs.iter().enumerate() {
            if let Some(doc) = doc {
                new_doc_id[old] = docs.len() as u32;
                docs.push(doc);
            }
        }
        let terms = self
            .sorted_terms
            .iter()
            .map(|&t| &self.terms[t as usize])
            .filter(|term| !term.postings.is_empty())
            .map(|term| {
                let mut postings: Vec<(u32, [u8; 4])> = term
                    .postings
                    .iter()
                    .map(|p| (new_doc_id[p.doc as usize], counts_to_bytes(p.counts)))
                    .collect();
                postings.sort_unstable_by_key(|p| p.0);
                let mut previous = 0;
                for p in &mut postings {
                    let id = p.0;
                    p.0 = id - previous;
                    previous = id;
                }
                SavedTermRef {
                    text: &term.text,
                    postings,
                }
            })
            .collect();
        let snapshot = SnapshotRef { docs, terms };
        let mut bytes = Vec::new();
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(&FORMAT_VERSION.to_le_bytes());
        // Serialising plain structs into a Vec cannot fail; an empty body would be rejected on load.
        if let Ok(body) = postcard::to_allocvec(&snapshot) {
            bytes.extend_from_slice(&body);
        }
        bytes
    }

    /// Loads an index saved by [`Index::to_bytes`] of the same [`FORMAT_VERSION`].
    pub fn from_bytes(bytes: &[u8]) -> Result<Index, LoadError> {
        if bytes.len() < 6 || &bytes[..4] != MAGIC {
            return Err(LoadError::NotAnIndex);
        }
        let found = u16::from_le_bytes([bytes[4], bytes[5]]);
        if found != FORMAT_VERSION {
            return Err(LoadError::Version { found });
        }
        let snapshot: Snapshot =
            postcard::from_bytes(&bytes[6..]).map_err(|e| LoadError::Corrupt(e.to_string()))?;
        let corrupt = |what: &str| LoadError::Corrupt(what.to_owned());

        let mut index = Index::new();
        let doc_count = snapshot.docs.len();
        index.by_url.reserve(doc_count);
        for (id, doc) in snapshot.docs.into_iter().enumerate() {
            if doc.backing.is_empty() {
                return Err(corrupt("page without raw URL"));
            }
            index.title_len_sum += u64::from(doc.title_len);
            index.url_len_sum += u64::from(doc.url_len);
            if index.by_url.insert(doc.url.clone(), id as u32).is_some() {
                return Err(corrupt("duplicate page"));
            }
            index.docs.push(Some(doc));
        }
        index.live = doc_count;

        index.terms.reserve(snapshot.terms.len());
        index.term_ids.reserve(snapshot.terms.len());
        let mut previous_text: Option<Box<str>> = None;
        for (id, saved) in snapshot.terms.into_iter().enumerate() {
            let id = id as u32;
            if previous_text.as_ref().is_some_and(|p| *p >= saved.text) {
                return Err(corrupt("words out of order"));
            }
            let mut postings = Vec::with_capacity(saved.postings.len());
            let mut doc = 0u32;
            for (delta, counts) in saved.postings {
                doc = doc.checked_add(delta).ok_or_else(|| corrupt("page id"))?;
                if doc as usize >= doc_count {
                    return Err(corrupt("page id out of range"));
                }
                postings.push(Posting {
                    doc,
                    counts: counts_from_bytes(counts),
                });
            }
            index.shapes.push(Shape {
                sig: typo::signature(&saved.text),
                chars: saved.text.chars().count().min(255) as u8,
            });
            index.term_ids.insert(saved.text.clone(), id);
            index.sorted_terms.push(id);
            previous_text = Some(saved.text.clone());
            index.terms.push(Term {
                text: saved.text,
                postings,
            });
        }
        Ok(index)
    }
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
