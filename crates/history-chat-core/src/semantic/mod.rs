//! The semantic index: one vector per page, to find a page from what it was about rather than
//! the words it used ("that article about saving energy at home" for "Réduire sa facture de
//! chauffage").
//!
//! The vectors come from an embedding model that runs elsewhere (multilingual-e5-small: [`DIM`]
//! components, L2-normalised, `passage: ` / `query: ` prefixes added by the model's crate); this
//! module never depends on it. It holds what the service worker decides and keeps:
//!
//! - [`passage`]: the text embedded for a page (title, host, path words), and [`page_hash`],
//!   which tells a stored vector from a stale one.
//! - [`Quantised`]: a vector in 8 bits a component; [`Vectors`]: all of them in one flat arena,
//!   scanned for a search ([`Vectors::search`], with [`SIMILARITY_FLOOR`]).
//! - [`Record`]: one page's vector as stored in IndexedDB, versioned.
//! - `crate::retrieval::fusion::fuse_semantic`: the lexical index's answer and the semantic one merged, as [`Words`] says:
//!   topic pages first when the words found nothing, by RRF beside a page the words found.
//! - [`host`]: the index's life in the worker as a pure state machine (load the stored vectors,
//!   embed the pages not understood yet newest first, a batch at a time, store, forget removed
//!   pages), with every timing and size constant of the build.
//!
//! ```text
//!   lexical index ── Pages / Removed ──▶ SemanticHost ── Embed ──▶ model (off the worker's thread)
//!                                          │    ▲  ◀── Embedded ──┘
//!                                  Save /  │    │ Saved
//!                                  Delete  ▼    │
//!                                       IndexedDB (one record per page)
//!
//!   question ── model (query) ──▶ Vectors::search ──▶ fuse_semantic(lexical, semantic, words)
//! ```
//!
//! Like the rest of the core: no clock, no I/O, single-threaded; the worker passes everything in.

pub mod host;
mod pace;
mod passage;
mod progress;
mod quantised;
mod record;
mod vectors;

use serde::{Deserialize, Serialize};

pub use host::SemanticHost;
pub use pace::{PACE_MIN_PAGES, PACE_MIN_SPAN_MS, PACE_WINDOW_MS, Pace, TimeLeft};
pub use passage::{
    PASSAGE_MAX_CHARS, PASSAGE_VERSION, PATH_WORD_MAX_CHARS, URL_PART_MAX_CHARS, is_path_noise,
    page_hash, passage,
};
pub use progress::{SemanticProgress, SemanticStatus, UnavailableReason};
pub use quantised::Quantised;
/// The 8-bit dot product and the components as its bytes, for the content's passage vectors
/// (`crate::content::vectors`), which scan the same way.
pub(crate) use quantised::{dot_bytes, to_bytes};
pub use record::{Entry, RECORD_VERSION, Record, RecordError};
pub use vectors::{Scan, Vectors};

/// Components of a vector (multilingual-e5-small's hidden size).
pub const DIM: usize = 384;

/// The least cosine similarity between a question and a page for the page to be a semantic hit.
/// e5's cosines are compressed: unrelated titles score 0.75–0.83 with almost any question (a
/// gibberish question reached 0.83 with "Netflix"), and a real match can score as little as 0.81
/// ("how to fix a flat bicycle tire" with "Réparer une crevaison en cinq minutes"), so no absolute
/// floor separates them: this one only drops what is plainly unrelated, and a hit must also stand
/// out from the period's pages ([`STANDOUT_Z`]). Measured on the evaluation set with the stand-out
/// rule: 0.78 keeps every topic page that 0.70 would (0.46 of topic questions answered in the
/// first five), 0.80 cost 0.06 of them, and no floor in that range changes what nonsense gets.
pub const SIMILARITY_FLOOR: f32 = 0.78;

/// A hit must be this many standard deviations above the mean similarity of the period's pages to
/// the question. Calibrated on the evaluation set's 1,237 pages (`eval/README.md`): at 2.6 σ two of
/// its ten nonsense questions get a hit (five at 2.3 σ) and topic questions find the most pages
/// (0.46 of them in the first five, against 0.44 at 2.3 σ and 0.40 at 2.8 σ, where no nonsense gets
/// through). On an 18-page history, the page "how to fix a flat bicycle tire" was about stands at
/// 2.7 σ, the best unrelated page for gibberish at 1.7 σ.
pub const STANDOUT_Z: f32 = 2.6;

/// [`STANDOUT_Z`] when the words alone found a page ([`Words::Found`]): topic pages then only add
/// to an answer that already has what was asked, and one that merely stands out among the few
/// pages understood so far would be noise ("sourdough" brought a Hacker News post in beside the
/// sourdough page while the index was being built: 2.5 σ among the 21 newest pages). On the
/// evaluation set no question whose words found a page loses anything at this deviation, or
/// with no topic page at all.
pub const STANDOUT_Z_BESIDE_WORDS: f32 = 3.0;

/// Below this many understood pages in the period, the mean and deviation say too little to tell
/// a match from noise, so topic search gives nothing (the words' answer stands alone).
pub const STANDOUT_MIN_PAGES: usize = 10;

/// A semantic hit must also be within this much of the best hit's similarity. e5's cosines are
/// compressed (unrelated titles score 0.75–0.82 with almost anything), so a question whose page
/// stands out (0.88) must not drag in the crowd just above the floor; a vague question, whose
/// pages are all about as close, keeps them all.
pub const SIMILARITY_MARGIN: f32 = 0.04;

/// A question needs at least this many letters or digits to go to the model: one or two
/// characters mean nothing to it (every page then scores alike, above any floor that lets real
/// questions through), and the words' answer already covers them.
pub const MIN_QUESTION_CHARS: usize = 3;

/// Whether `question` is worth embedding ([`MIN_QUESTION_CHARS`] letters or digits).
pub fn is_understandable(question: &str) -> bool {
    question.chars().filter(|c| c.is_alphanumeric()).count() >= MIN_QUESTION_CHARS
}

/// What the words alone did for a question ([`crate::index::Hit::complete`]): it decides how far
/// a topic page must stand out ([`STANDOUT_Z_BESIDE_WORDS`]) and where it goes in the answer
/// (`crate::retrieval::fusion::fuse_semantic`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Words {
    /// No page of the period matches every word of the question: what the words give shares a
    /// stray word with it at best, and topic search's pages lead the answer.
    #[default]
    Missed,
    /// A page of the period matches every word: the words' answer leads, topic pages join it by
    /// RRF.
    Found,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_questions_with_three_letters_or_digits_go_to_the_model() {
        let rows = [
            ("", false),
            ("x", false),
            ("  ab  ", false),
            ("🚲🔧🙂", false),
            ("?!…", false),
            ("vélo", true),
            ("a b c", true),
            ("5g", false),
            ("5g!4", true),
            ("自転車", true),
        ];
        for (question, want) in rows {
            assert_eq!(is_understandable(question), want, "{question:?}");
        }
    }
}
