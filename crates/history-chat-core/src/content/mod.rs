//! What pages said: the text of the pages the user visits (read with the user's consent, by
//! Readability in the extension's offscreen document), cut into passages, indexed by their words
//! and embedded on the device, to find a page by its content and show the passage that matched.
//!
//! - [`passages`]: a page's text kept and cut into passages ([`cut`]), and which are embedded.
//! - [`record`]: one page's content as stored in IndexedDB, versioned, its text deflated.
//! - [`lexical`]: BM25 over the passages, with compact postings: a page's best passage.
//! - [`vectors`]: the embedded passages' 8-bit vectors in fixed blocks, scanned with a question's
//!   vector: a page's best passage, kept when it stands out among the pages.
//! - [`mod@snippet`]: a passage cut to about 300 characters around the question's words, marked.
//! - [`host`]: the content store's life in the worker as a pure state machine (load the stored
//!   pages, read, store, embed newest first a few passages at a time, forget removed pages, keep
//!   to the cap), and the search, meaning first then words ([`ContentHost::search`]).
//!
//! ```text
//!   page read (offscreen document) ── Read ──▶ ContentHost ── Embed ──▶ model (off the thread)
//!                                               │  ▲  ◀── Embedded ─────┘
//!                                    Save /     │  │ Saved
//!                                    Delete     ▼  │
//!                                          IndexedDB (one record per page)
//!
//!   question ── model (query) ──────▶ PassageVectors ─┐ meaning first,
//!            └─ words ──────────────▶ Lexical ────────┴─ then words ──▶ ContentMatch { url, passage, span }
//! ```
//!
//! In the engines layer, beside the page index and topic search, whose folding, stems and
//! 8-bit vectors it reuses; like the rest of the core: no clock, no I/O, single-threaded.

pub mod host;
pub mod lexical;
pub mod passages;
mod progress;
pub mod record;
pub mod snippet;
pub mod vectors;

pub use host::{ContentHost, ContentMatch, ReadPage, ReadTicket};
pub use lexical::{Lexical, LexicalHit};
pub use passages::{Cut, CutRule, Embedding, Span, cut, cut_with};
pub use progress::{ContentProgress, ContentStatus};
pub use record::{Decoded, Deflated, PassageVector, RECORD_VERSION, Record, RecordError};
pub use snippet::{SNIPPET_CHARS, snippet};
pub use vectors::{CONTENT_STANDOUT, PassageVectors, VectorHit, VectorScan};

#[cfg(test)]
pub(crate) mod tests {
    use crate::semantic::DIM;

    /// A deterministic pseudo-random unit vector (xorshift, sums of uniforms), as topic search's
    /// tests draw them: unrelated seeds are nearly orthogonal.
    pub(crate) fn unit_vector(seed: u64) -> Vec<f32> {
        let mut state = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state >> 40) as f32 / (1u64 << 24) as f32 - 0.5
        };
        let v: Vec<f32> = (0..DIM).map(|_| next() + next() + next()).collect();
        let norm = v.iter().map(|x| x * x).sum::<f32>().sqrt();
        v.into_iter().map(|x| x / norm).collect()
    }
}
