//! What pages said: the text of the pages the user visits (read with the user's consent, by
//! Readability in the extension's offscreen document), cut into passages, indexed by their words
//! and embedded on the device, to find a page by its content and show the passage that matched.
//!
//! - [`passages`]: a page's text kept and cut into passages ([`cut`]), and which are embedded.
//! - [`record`]: one page's content as stored in IndexedDB, versioned, its text deflated.
//! - [`lexical`]: BM25 over the passages, with compact postings: a page's best passage.
//! - [`snippet`]: a passage cut to about 300 characters around the question's words, marked.
//! - [`vectors`]: the embedded passages' 8-bit vectors in one arena, scanned with a question's
//!   vector: a page's best passage, kept when it stands out among the pages.

pub mod lexical;
pub mod passages;
pub mod record;
pub mod snippet;
pub mod vectors;

pub use lexical::{Lexical, LexicalHit};
pub use passages::{Cut, CutRule, Embedding, Span, cut, cut_with};
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
