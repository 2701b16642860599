//! What pages said: the text of the pages the user visits (read with the user's consent, by
//! Readability in the extension's offscreen document), cut into passages, indexed by their words
//! and embedded on the device, to find a page by its content and show the passage that matched.
//!
//! - [`passages`]: a page's text kept and cut into passages ([`cut`]), and which are embedded.

pub mod passages;

pub use passages::{Cut, CutRule, Embedding, Span, cut, cut_with};
