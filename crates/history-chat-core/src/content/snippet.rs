//! A passage as shown under a page's title: cut to about [`SNIPPET_CHARS`] characters around
//! the question's words, those words marked.
//!
//! A word of the passage is marked when it matches a word of the question as the content's
//! lexical index matches them ([`super::lexical`]): folded the same way ([`crate::index::text`]:
//! "brûlée" for "brulee", "ŒUVRE" for "oeuvre"), or sharing its English or French stem
//! ("running" for "run", "chevaux" for "cheval"). Words are read on the passage's own text, with
//! their byte offsets — a run of letters, digits and combining marks folded by `fold_words` — so
//! a mark is a range of what the user reads, whatever folding did to it.
//!
//! The cut keeps the run of the passage with the most of the question's different words (then the
//! most marks) in [`SNIPPET_CHARS`], with a third of what is left before it and two thirds after;
//! it starts after a space (at a sentence's start when one is in reach) and ends before one, and
//! "…" stands where text was cut. A passage without any of the question's words (found by its
//! vector) shows its beginning.

use unicode_normalization::char::is_combining_mark;

use crate::history::Passage;
use crate::index::score::{MAX_QUERY_WORDS, MAX_SUFFIX_BYTES, STEM_PREFIX_MIN_CHARS};
use crate::index::text::{Parts, Stemmers, fold_words, query_words};

/// Characters of a passage shown, at most (ellipses aside): two or three lines under a result's
/// title in the popup, about 50 words — enough to read a fact in its sentence.
pub const SNIPPET_CHARS: usize = 300;

/// What stands where the passage was cut.
pub const ELLIPSIS: &str = "…";

/// A question's word, with what a passage's word must have to share its stem.
#[derive(Debug)]
struct QueryWord {
    word: String,
    /// English and French stems.
    stems: [String; 2],
    /// What a word with that stem starts with: the stem minus its last character (Snowball only
    /// rewrites a word's end), as the lexical index's stem ranges.
    prefixes: [String; 2],
}

impl QueryWord {
    fn new(word: String, stemmers: &Stemmers) -> QueryWord {
        let stems = stemmers.stems(&word);
        let prefixes = stems.clone().map(|stem| {
            let chars = stem.chars().count();
            let keep = chars
                .saturating_sub(1)
                .max(STEM_PREFIX_MIN_CHARS)
                .min(chars);
            stem.chars().take(keep).collect()
        });
        QueryWord {
            word,
            stems,
            prefixes,
        }
    }

    /// Whether a passage's folded word matches this one.
    fn matches(&self, folded: &str, stemmers: &Stemmers) -> bool {
        if folded == self.word {
            return true;
        }
        let may = |k: usize| {
            folded.starts_with(&self.prefixes[k])
                && folded.len() <= self.stems[k].len() + MAX_SUFFIX_BYTES
        };
        (may(0) && stemmers.english(folded) == self.stems[0])
            || (may(1) && stemmers.french(folded) == self.stems[1])
    }
}

/// A word of the passage: its byte range and the question's word it matches, if any.
#[derive(Debug, Clone, Copy)]
struct Token {
    start: usize,
    end: usize,
    matches: Option<usize>,
}

/// `passage` cut to at most [`SNIPPET_CHARS`] characters around the words of `query` it holds,
/// with those words marked (see the [module docs](self)). `query` is the question's words
/// (`site:` terms taken out).
pub fn snippet(passage: &str, query: &str) -> Passage {
    let stemmers = Stemmers::default();
    let mut words = query_words(query);
    let mut seen = std::collections::HashSet::new();
    words.retain(|w| seen.insert(w.clone()));
    words.truncate(MAX_QUERY_WORDS);
    let words: Vec<QueryWord> = words
        .into_iter()
        .map(|w| QueryWord::new(w, &stemmers))
        .collect();
    let tokens = tokens(passage, &words, &stemmers);
    // Character index → byte offset (and the end).
    let bytes: Vec<usize> = passage
        .char_indices()
        .map(|(at, _)| at)
        .chain([passage.len()])
        .collect();
    let chars = bytes.len() - 1;
    let char_of = |byte: usize| bytes.partition_point(|&b| b < byte);
    let (low, high) = match best_run(&tokens, words.len(), SNIPPET_CHARS, &char_of) {
        None => (0, passage.len()),
        Some((first, last)) => {
            let (start, end) = (char_of(tokens[first].start), char_of(tokens[last].end));
            let slack = SNIPPET_CHARS.saturating_sub(end - start);
            let mut low = start.saturating_sub(slack / 3);
            let high = (low + SNIPPET_CHARS).min(chars);
            low = low.min(high.saturating_sub(SNIPPET_CHARS));
            (
                start_after_space(passage, bytes[low], tokens[first].start),
                bytes[high],
            )
        }
    };
    // The window's length in characters, then its end before a space.
    let high = if char_of(high) - char_of(low) > SNIPPET_CHARS {
        bytes[char_of(low) + SNIPPET_CHARS]
    } else {
        high
    };
    let last_mark = tokens
        .iter()
        .filter(|t| t.matches.is_some() && t.start >= low && t.end <= high)
        .map(|t| t.end)
        .max()
        .unwrap_or(low);
    let high = end_before_space(passage, high, last_mark);
    let prefix = if low > 0 { ELLIPSIS } else { "" };
    let suffix = if high < passage.len() { ELLIPSIS } else { "" };
    let shift = prefix.len();
    let marks = tokens
        .iter()
        .filter(|t| t.matches.is_some() && t.start >= low && t.end <= high)
        .map(|t| ((t.start - low + shift) as u32, (t.end - low + shift) as u32))
        .collect();
    Passage {
        text: format!("{prefix}{}{suffix}", &passage[low..high]),
        marks,
    }
}

/// The passage's words (runs of letters, digits and combining marks), each with the question's
/// word it matches.
fn tokens(passage: &str, words: &[QueryWord], stemmers: &Stemmers) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut start: Option<usize> = None;
    let word_char = |c: char| c.is_alphanumeric() || is_combining_mark(c);
    for (at, c) in passage.char_indices().chain([(passage.len(), ' ')]) {
        match (start, word_char(c)) {
            (None, true) => start = Some(at),
            (Some(from), false) => {
                start = None;
                let mut matches = None;
                if !words.is_empty() {
                    fold_words(&passage[from..at], Parts::Whole, |folded| {
                        if matches.is_none() {
                            matches = words.iter().position(|w| w.matches(folded, stemmers));
                        }
                    });
                }
                tokens.push(Token {
                    start: from,
                    end: at,
                    matches,
                });
            }
            _ => {}
        }
    }
    tokens
}

/// The matched tokens `(first, last)` whose run, at most `budget` characters long, holds the
/// most of the question's different words, then the most matches; the earliest of equals. `None`
/// when no token matches.
fn best_run(
    tokens: &[Token],
    words: usize,
    budget: usize,
    char_of: &impl Fn(usize) -> usize,
) -> Option<(usize, usize)> {
    let matched: Vec<usize> = (0..tokens.len())
        .filter(|&i| tokens[i].matches.is_some())
        .collect();
    let mut best: Option<((usize, usize), (usize, usize))> = None;
    let mut present = vec![0usize; words];
    for (a, &first) in matched.iter().enumerate() {
        present.iter_mut().for_each(|p| *p = 0);
        let start = char_of(tokens[first].start);
        let mut last = first;
        let mut count = 0;
        for &i in &matched[a..] {
            if char_of(tokens[i].end) - start > budget && i != first {
                break;
            }
            if let Some(w) = tokens[i].matches {
                present[w] += 1;
            }
            last = i;
            count += 1;
        }
        let different = present.iter().filter(|&&p| p > 0).count();
        let score = (different, count);
        if best.is_none_or(|(_, b)| score > b) {
            best = Some(((first, last), score));
        }
    }
    best.map(|(run, _)| run)
}

/// Where a cut starting near `low` begins: at the first sentence's start (after ". ") between
/// `low` and `first_mark`, else after the first space there, else at `first_mark`.
fn start_after_space(passage: &str, low: usize, first_mark: usize) -> usize {
    if low == 0 {
        return 0;
    }
    let reach = &passage[low..first_mark];
    let sentence = ['.', '!', '?', '…']
        .iter()
        .filter_map(|end| {
            reach
                .find(&format!("{end} "))
                .map(|at| at + end.len_utf8() + 1)
        })
        .min();
    match sentence.or_else(|| reach.find(' ').map(|at| at + 1)) {
        Some(at) => low + at,
        None => first_mark,
    }
}

/// Where a cut ending near `high` ends: before the last space between `last_mark` and `high`,
/// else at `high` (the end, or the end of the last mark).
fn end_before_space(passage: &str, high: usize, last_mark: usize) -> usize {
    if high >= passage.len() {
        return passage.len();
    }
    if passage[high..].starts_with(' ') {
        return high;
    }
    match passage[last_mark..high].rfind(' ') {
        Some(at) => last_mark + at,
        // A run without spaces (Chinese, a long address): cut on the character boundary.
        None => high,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The marked words of a snippet, as shown.
    fn marked(passage: &Passage) -> Vec<&str> {
        passage
            .pieces()
            .into_iter()
            .filter(|(_, marked)| *marked)
            .map(|(text, _)| text)
            .collect()
    }

    #[test]
    fn the_question_s_words_are_marked_folded_and_by_stem() {
        let rows: &[(&str, &str, &[&str])] = &[
            (
                "La crème brûlée se prépare la veille.",
                "brulee",
                &["brûlée"],
            ),
            (
                "La CRÈME BRÛLÉE, puis la crème anglaise.",
                "creme brûlée",
                &["CRÈME", "BRÛLÉE", "crème"],
            ),
            (
                "He was running late; runs are hard.",
                "run",
                &["running", "runs"],
            ),
            ("Les chevaux courent vite.", "cheval", &["chevaux"]),
            ("Un cœur d'œuvre.", "oeuvre coeur", &["cœur", "œuvre"]),
            ("Recipes: three recipes!", "recipe", &["Recipes", "recipes"]),
            (
                "Rust 1.80 released in 2024.",
                "2024 rust",
                &["Rust", "2024"],
            ),
            ("The cat and the hat.", "the and", &[]),
            ("Nothing here matches.", "sourdough", &[]),
            ("une e\u{301}cole", "ecole", &["e\u{301}cole"]),
        ];
        for (passage, query, want) in rows {
            let shown = snippet(passage, query);
            assert_eq!(shown.text, *passage, "{query}: short passages are whole");
            assert_eq!(marked(&shown), *want, "{query}");
        }
    }

    #[test]
    fn a_long_passage_is_cut_around_its_best_run_of_words() {
        let filler = "Lorem ipsum dolor sit amet, consectetur adipiscing elit. ";
        let passage = format!(
            "{}The sourdough starter alone is here. {}Feed the sourdough starter with rye flour and water every day. {}",
            filler.repeat(4),
            filler.repeat(6),
            filler.repeat(5)
        );
        let shown = snippet(&passage, "sourdough starter flour");
        assert!(shown.text.starts_with(ELLIPSIS) && shown.text.ends_with(ELLIPSIS));
        let inner = shown
            .text
            .trim_start_matches(ELLIPSIS)
            .trim_end_matches(ELLIPSIS);
        assert!(
            inner.chars().count() <= SNIPPET_CHARS,
            "{}",
            inner.chars().count()
        );
        assert!(passage.contains(inner));
        // The run with all three words, not the earlier one with two.
        assert_eq!(marked(&shown), ["sourdough", "starter", "flour"]);
        // It starts at a sentence's start, and ends before a space.
        assert!(
            inner.starts_with("Lorem") || inner.starts_with("Feed"),
            "{inner}"
        );
        assert!(!inner.ends_with(' ') && !inner.starts_with(' '));
    }

    #[test]
    fn cuts_fall_on_character_boundaries_and_marks_stay_in_the_text() {
        let passage = "Une crème brûlée à l’érable, très fine et dorée à la flamme. ".repeat(12);
        for query in ["brulee", "erable flamme", "dorée", "nothing", ""] {
            let shown = snippet(&passage, query);
            let inner_chars = shown.text.chars().count();
            assert!(inner_chars <= SNIPPET_CHARS + 2, "{query}: {inner_chars}");
            for &(start, end) in &shown.marks {
                assert!(
                    shown.text.get(start as usize..end as usize).is_some(),
                    "{query}"
                );
            }
            // Every mark is shown as marked.
            assert_eq!(marked(&shown).len(), shown.marks.len(), "{query}");
        }
        // Found by its vector, no word matches: the beginning.
        let shown = snippet(&passage, "sourdough");
        assert!(shown.text.starts_with("Une crème brûlée") && shown.text.ends_with(ELLIPSIS));
        assert!(shown.marks.is_empty());
    }

    #[test]
    fn a_match_at_the_end_shows_the_end() {
        let passage = format!("{}the final word is zucchini.", "word ".repeat(100));
        let shown = snippet(&passage, "zucchini");
        assert!(shown.text.starts_with(ELLIPSIS));
        assert!(shown.text.ends_with("zucchini."), "{}", shown.text);
        assert_eq!(marked(&shown), ["zucchini"]);
        assert!(shown.text.chars().count() <= SNIPPET_CHARS + 1);
    }
}
