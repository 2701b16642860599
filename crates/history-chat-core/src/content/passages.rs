//! A page's text cut into passages: what is indexed by words, embedded, and shown as a snippet.
//!
//! [`cut`] takes the readable text of a page (Readability's, or pdf.js's) and gives the text as
//! kept — white space collapsed to one space, control and invisible characters dropped, at most
//! [`MAX_KEPT_WORDS`] words and [`MAX_KEPT_CHARS`] characters — and its passages as byte ranges
//! of it ([`Span`]): about [`PASSAGE_WORDS`] words each, overlapping by about [`OVERLAP_WORDS`],
//! ending at a sentence's end and starting at a sentence's start where one is near, so a passage
//! reads well as a snippet and a fact at a passage's edge is whole in one of the two. It also says
//! which passages are embedded (at most [`EMBEDDED_PASSAGES`], [`Embedding`]). A page of fewer
//! than [`MIN_WORDS`] words keeps nothing.
//!
//! A "word" here is a run of characters between spaces, and a run longer than
//! [`LONG_WORD_CHARS`] counts as one word per [`LONG_WORD_CHARS`] characters (a passage may end
//! inside it): a base64 blob, a long URL, or a text written without spaces (Chinese, Japanese)
//! then makes passages of a bounded size too, and [`PASSAGE_MAX_CHARS`] bounds them in characters.
//!
//! Every size here is a first choice, measured but not yet tuned on the content evaluation
//! (BENCHMARKS.md, "Page content": the questions words answer meet their targets, those only the
//! vectors can answer do not yet); they are kept in this one place, and [`CutRule`] lets the
//! evaluation (`history-chat-embedding`'s `content_vectors` example) try others with the same code.

use serde::{Deserialize, Serialize};

use crate::index::text::MAX_WORD_CHARS;

/// Words in a passage (before it is moved to a sentence's end). 120 words are about 160–200 of
/// the embedding model's tokens, well inside multilingual-e5-small's 512, and about 750
/// characters: enough to hold a fact and its context, short enough that one vector still says
/// what the passage is about and that a snippet is a small cut of it. Chrome's history search
/// uses passages of at most 100 words; the reference write-up of issue 29, 250.
pub const PASSAGE_WORDS: usize = 120;

/// Words a passage shares with the next one. A fact stated across a passage boundary is then
/// whole in one of the two (a sentence is about 20 words), for a sixth more words indexed.
pub const OVERLAP_WORDS: usize = 20;

/// Passages embedded per page, at most. A passage costs the model about 100 ms in WebAssembly
/// and 390 bytes of storage: eight is the first 800–900 words of a page (most pages whole), 3 KB
/// a page, and under a second of the model's time a page. Chrome embeds up to 10 passages of
/// 100 words. The passages not embedded are still searched by their words.
pub const EMBEDDED_PASSAGES: usize = 8;

/// Words of a page kept, at most (the rest is dropped before anything is cut). 3,000 words are a
/// long article (most are under 1,500); a book-length page would otherwise cost 100 times a
/// normal one in storage and in the index, for text nobody searches a history for.
pub const MAX_KEPT_WORDS: usize = 3_000;

/// Characters of a page kept, at most: [`MAX_KEPT_WORDS`] of the longest ordinary words, and the
/// bound for text with few spaces (30,000 characters of Chinese are a long article too). It
/// also bounds what a stored record may inflate to (`super::record::MAX_TEXT_BYTES`).
pub const MAX_KEPT_CHARS: usize = 30_000;

/// Below this many words a page keeps nothing: a login form, an error page, a video's caption or
/// a page whose text did not load say nothing its title does not ("a handful of words", issue 29).
pub const MIN_WORDS: usize = 40;

/// Characters in a passage, at most, whatever its words: 120 long words, or text without spaces,
/// would otherwise make a passage the model truncates (it reads 512 tokens) and a snippet no cut
/// can centre.
pub const PASSAGE_MAX_CHARS: usize = 1_000;

/// A run of characters without a space counts as one word per this many characters. The
/// lexical index drops words longer than [`MAX_WORD_CHARS`] anyway (an id, a hash, a URL), so
/// a longer run is no word a person types.
pub const LONG_WORD_CHARS: usize = MAX_WORD_CHARS;

/// How far (in words) a passage's end may move from [`PASSAGE_WORDS`] to end at a sentence's end:
/// up to this many words earlier, up to half as many later. A sentence is about 20 words, so
/// one is almost always that near; a text without punctuation (a list, a table) ends where the
/// count says.
pub const SENTENCE_SLACK_WORDS: usize = 25;

/// When fewer than this many words would be left after a passage, the passage takes them (within
/// [`PASSAGE_MAX_CHARS`]): a last passage of a few words would be all overlap, and its snippet
/// a fragment.
pub const TAIL_WORDS: usize = 30;

/// Which passages of a page are embedded, when it has more than [`EMBEDDED_PASSAGES`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Embedding {
    /// The first ones (Chrome's choice): where a page says what it is about.
    First,
    /// Evenly over the page, the first always: a long page is found by what its middle and end
    /// are about too. Shipped until the evaluation says otherwise: on pages of
    /// [`EMBEDDED_PASSAGES`] passages or fewer (most pages) both choices are the same.
    Spread,
}

/// The sizes [`cut_with`] uses. [`CutRule::SHIPPED`] is what the extension uses; the evaluation
/// tries others with the same code.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CutRule {
    /// See [`PASSAGE_WORDS`].
    pub passage_words: usize,
    /// See [`OVERLAP_WORDS`].
    pub overlap_words: usize,
    /// See [`EMBEDDED_PASSAGES`].
    pub embedded: usize,
    /// Which passages are embedded.
    pub embedding: Embedding,
    /// See [`MAX_KEPT_WORDS`].
    pub max_kept_words: usize,
    /// See [`MIN_WORDS`].
    pub min_words: usize,
}

impl CutRule {
    /// What ships: the constants of this module, [`Embedding::Spread`].
    pub const SHIPPED: CutRule = CutRule {
        passage_words: PASSAGE_WORDS,
        overlap_words: OVERLAP_WORDS,
        embedded: EMBEDDED_PASSAGES,
        embedding: Embedding::Spread,
        max_kept_words: MAX_KEPT_WORDS,
        min_words: MIN_WORDS,
    };
}

impl Default for CutRule {
    fn default() -> CutRule {
        CutRule::SHIPPED
    }
}

/// A passage: a byte range of the kept text, on character boundaries (`start < end`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub struct Span {
    /// The first byte.
    pub start: u32,
    /// One past the last byte.
    pub end: u32,
}

impl Span {
    /// The range, to index the text with.
    pub fn range(self) -> std::ops::Range<usize> {
        self.start as usize..self.end as usize
    }
}

/// A page's text as kept, and its passages.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cut {
    /// The text kept: white space collapsed to single spaces, no control character, trimmed;
    /// empty when the page had fewer than [`MIN_WORDS`] words.
    pub text: String,
    /// The passages, in order: byte ranges of `text`, each starting at or after the one before.
    pub spans: Vec<Span>,
    /// Which passages are embedded: indices into `spans`, increasing.
    pub embedded: Vec<u16>,
}

impl Cut {
    /// Whether nothing is kept (too few words).
    pub fn is_empty(&self) -> bool {
        self.spans.is_empty()
    }

    /// Passage `i`'s text (empty when there is none).
    pub fn passage(&self, i: usize) -> &str {
        self.spans
            .get(i)
            .and_then(|span| self.text.get(span.range()))
            .unwrap_or("")
    }
}

/// Invisible characters dropped from the text (besides control characters): they would split a
/// word in two for the index (`infor\u{AD}mation`) and show as nothing. ZWJ and ZWNJ stay: they
/// shape emoji and Persian.
const INVISIBLE: &[char] = &['\u{AD}', '\u{200B}', '\u{2060}', '\u{FEFF}'];

/// What ends a sentence when a word ends with it (before closing quotes and brackets).
const SENTENCE_ENDS: &[char] = &['.', '!', '?', '…', '。', '！', '？'];

/// Closing marks a sentence's end may be followed by (`"Stop."`, `(see below.)`).
const CLOSERS: &[char] = &['"', '\'', '”', '’', '»', ')', ']'];

/// [`cut_with`] by [`CutRule::SHIPPED`].
pub fn cut(text: &str) -> Cut {
    cut_with(text, &CutRule::SHIPPED)
}

/// One word of the kept text: its byte range, its first character's index, and whether it ends
/// a sentence.
#[derive(Debug, Clone, Copy)]
struct Word {
    start: usize,
    end: usize,
    char_start: usize,
    char_end: usize,
    ends_sentence: bool,
}

/// `text` kept and cut into passages as `rule` says (see the [module docs](self)).
pub fn cut_with(text: &str, rule: &CutRule) -> Cut {
    let (kept, words) = keep(text, rule.max_kept_words.max(1));
    if words.len() < rule.min_words.max(1) {
        return Cut::default();
    }
    let bounds = passages(&words, rule);
    let spans: Vec<Span> = bounds
        .iter()
        .map(|&(first, end)| Span {
            start: words[first].start as u32,
            end: words[end - 1].end as u32,
        })
        .collect();
    let embedded = choose(spans.len(), rule.embedded, rule.embedding);
    Cut {
        text: kept,
        spans,
        embedded,
    }
}

/// The text normalised and capped, and its words.
fn keep(text: &str, max_words: usize) -> (String, Vec<Word>) {
    let mut kept = String::with_capacity(text.len().min(4 * MAX_KEPT_CHARS));
    let mut words: Vec<Word> = Vec::new();
    let mut chars = 0usize;
    // The word being read: where it started, in bytes and characters, and whether it continues a
    // long run (see LONG_WORD_CHARS) rather than starting after a space.
    let mut current: Option<(usize, usize, bool)> = None;
    let mut pending_space = false;
    let close = |words: &mut Vec<Word>, kept: &str, (start, char_start, _), chars: usize| {
        let piece: &str = &kept[start..];
        let last = piece.trim_end_matches(CLOSERS).chars().next_back();
        words.push(Word {
            start,
            end: kept.len(),
            char_start,
            char_end: chars,
            ends_sentence: last.is_some_and(|c| SENTENCE_ENDS.contains(&c)),
        });
    };
    for c in text.chars() {
        if c.is_whitespace() {
            if let Some(word) = current.take() {
                close(&mut words, &kept, word, chars);
                if words.len() >= max_words {
                    break;
                }
            }
            pending_space = !kept.is_empty();
            continue;
        }
        if c.is_control() || INVISIBLE.contains(&c) {
            continue;
        }
        if chars + 1 + usize::from(pending_space) > MAX_KEPT_CHARS {
            // A word cut by the cap is dropped; a piece of a long run is kept (it is cut anyway).
            current = current.filter(|&(_, _, continues)| continues);
            break;
        }
        if pending_space {
            kept.push(' ');
            chars += 1;
            pending_space = false;
        }
        match current {
            Some(word) if chars - word.1 >= LONG_WORD_CHARS => {
                // A long run: one word per LONG_WORD_CHARS characters.
                close(&mut words, &kept, word, chars);
                if words.len() >= max_words {
                    current = None;
                    break;
                }
                current = Some((kept.len(), chars, true));
            }
            Some(_) => {}
            None => current = Some((kept.len(), chars, false)),
        }
        kept.push(c);
        chars += 1;
    }
    if let Some(word) = current
        && words.len() < max_words
    {
        close(&mut words, &kept, word, chars);
    }
    // What the caps cut after the last word (a space, part of a word) goes.
    let end = words.last().map_or(0, |w| w.end);
    kept.truncate(end);
    (kept, words)
}

/// The passages as ranges of word indices `(first, end)`.
fn passages(words: &[Word], rule: &CutRule) -> Vec<(usize, usize)> {
    let n = words.len();
    let size = rule.passage_words.max(1);
    let mut bounds = Vec::new();
    let mut first = 0usize;
    loop {
        let target = first + size;
        let mut end = if target + TAIL_WORDS.min(size / 2) >= n {
            n
        } else {
            sentence_end_near(words, first, target)
        };
        // Within the character cap (at least one word: a word is at most LONG_WORD_CHARS).
        let limit = words[first].char_start + PASSAGE_MAX_CHARS;
        if words[end - 1].char_end > limit {
            end = first + words[first..end].partition_point(|w| w.char_end <= limit);
            end = end.max(first + 1);
            if end < n {
                // Back to a sentence's end if one is in the cut's last quarter.
                let floor = first + (end - first) * 3 / 4;
                if let Some(e) = (floor.max(first + 1)..end)
                    .rev()
                    .find(|&e| words[e - 1].ends_sentence)
                {
                    end = e;
                }
            }
        }
        bounds.push((first, end));
        if end >= n {
            return bounds;
        }
        first = next_start(words, first, end, rule.overlap_words);
    }
}

/// Where a passage starting at `first` ends (exclusive), near `target`: after the word closest
/// to it that ends a sentence, within [`SENTENCE_SLACK_WORDS`] before and half that after;
/// `target` when none does.
fn sentence_end_near(words: &[Word], first: usize, target: usize) -> usize {
    let n = words.len();
    let low = target.saturating_sub(SENTENCE_SLACK_WORDS).max(first + 1);
    let high = (target + SENTENCE_SLACK_WORDS / 2).min(n);
    (low..=high)
        .filter(|&e| words[e - 1].ends_sentence)
        .min_by_key(|&e| (e.abs_diff(target), e))
        .unwrap_or(target.min(n))
}

/// Where the passage after `[first, end)` starts: `overlap` words before `end` (at most a third
/// of the passage), moved to a sentence's start when one is near; always after `first`.
fn next_start(words: &[Word], first: usize, end: usize, overlap: usize) -> usize {
    let overlap = overlap.min((end - first) / 3);
    let ideal = end - overlap;
    let low = end.saturating_sub(2 * overlap).max(first + 1);
    let high = end - overlap / 2;
    (low..=high)
        .filter(|&s| s > 0 && words[s - 1].ends_sentence)
        .min_by_key(|&s| (s.abs_diff(ideal), s))
        .unwrap_or(ideal)
        .max(first + 1)
}

/// Which of `passages` passages are embedded: at most `count`, as `embedding` says.
fn choose(passages: usize, count: usize, embedding: Embedding) -> Vec<u16> {
    let count = count.min(passages).min(usize::from(u16::MAX));
    match embedding {
        Embedding::First => (0..count as u16).collect(),
        // i × n / count: the first passage, then evenly spaced, increasing, no repeat.
        Embedding::Spread => (0..count)
            .map(|i| (i * passages / count.max(1)) as u16)
            .collect(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `n` words, a sentence every `sentence` words: "w0 w1 … w9. w10 …".
    fn words(n: usize, sentence: usize) -> String {
        (0..n)
            .map(|i| {
                if (i + 1) % sentence == 0 {
                    format!("w{i}.")
                } else {
                    format!("w{i}")
                }
            })
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn word_count(text: &str) -> usize {
        text.split(' ').filter(|w| !w.is_empty()).count()
    }

    #[test]
    fn the_text_is_normalised_and_short_pages_keep_nothing() {
        let rows: &[(&str, &str)] = &[
            ("  a\t\tb\n\nc  ", "a b c"),
            ("a\u{0}b\u{7}c d", "abc d"),
            (
                "infor\u{AD}mation zero\u{200B}width",
                "information zerowidth",
            ),
            ("non\u{A0}breaking\u{2003}spaces", "non breaking spaces"),
            ("emoji 👩\u{200D}💻 kept", "emoji 👩\u{200D}💻 kept"),
        ];
        let rule = CutRule {
            min_words: 1,
            ..CutRule::SHIPPED
        };
        for (text, want) in rows {
            assert_eq!(cut_with(text, &rule).text, *want, "{text:?}");
        }
        let short = words(MIN_WORDS - 1, 10);
        assert!(cut(&short).is_empty());
        assert_eq!(cut(&short).text, "");
        assert!(cut("").is_empty() && cut(" \n\t ").is_empty());
        let enough = words(MIN_WORDS, 10);
        let page = cut(&enough);
        assert_eq!((page.text.as_str(), page.spans.len()), (enough.as_str(), 1));
        assert_eq!(page.passage(0), enough);
        assert_eq!(page.embedded, [0]);
    }

    #[test]
    fn the_kept_text_is_capped_in_words_and_characters() {
        let long = words(MAX_KEPT_WORDS + 500, 12);
        let page = cut(&long);
        assert_eq!(word_count(&page.text), MAX_KEPT_WORDS);
        assert!(long.starts_with(&page.text));
        // Long words: the character cap comes first, on a word's end.
        let wide = vec!["abcdefghijklmnopqrst"; 2_000].join(" ");
        let page = cut(&wide);
        assert!(page.text.chars().count() <= MAX_KEPT_CHARS);
        assert!(page.text.chars().count() > MAX_KEPT_CHARS - 21);
        assert!(page.text.ends_with("qrst"));
        // Text without spaces: one word per LONG_WORD_CHARS characters, passages capped.
        let chinese: String = "这是一个很长的句子没有空格。".repeat(3_000);
        let page = cut(&chinese);
        assert!(!page.is_empty());
        assert_eq!(page.text.chars().count(), MAX_KEPT_CHARS);
        for i in 0..page.spans.len() {
            let chars = page.passage(i).chars().count();
            assert!((1..=PASSAGE_MAX_CHARS).contains(&chars), "{i}: {chars}");
        }
    }

    #[test]
    fn passages_overlap_and_end_at_sentence_ends() {
        // Sentences of 15 words: every passage ends after a full stop and starts a sentence.
        let text = words(1_000, 15);
        let page = cut(&text);
        assert!(page.spans.len() >= 9, "{}", page.spans.len());
        let mut previous: Option<Span> = None;
        for (i, span) in page.spans.iter().enumerate() {
            let passage = page.passage(i);
            let n = word_count(passage);
            if i + 1 < page.spans.len() {
                assert!(passage.ends_with('.'), "{i}: {passage}");
                let (low, high) = (
                    PASSAGE_WORDS - SENTENCE_SLACK_WORDS,
                    PASSAGE_WORDS + SENTENCE_SLACK_WORDS / 2,
                );
                assert!((low..=high).contains(&n), "{i}: {n} words");
            }
            if let Some(previous) = previous {
                assert!(span.start > previous.start && span.start < previous.end);
                let shared = word_count(&page.text[span.start as usize..previous.end as usize]);
                assert!(
                    (OVERLAP_WORDS / 2..=2 * OVERLAP_WORDS).contains(&shared),
                    "{shared}"
                );
                // It starts a sentence: the word before it ended one.
                assert!(page.text[..span.start as usize].trim_end().ends_with('.'));
            }
            previous = Some(*span);
        }
        // The whole text is covered, to its last word.
        assert_eq!(page.spans[0].start, 0);
        assert_eq!(
            page.spans.last().map(|s| s.end as usize),
            Some(page.text.len())
        );
    }

    #[test]
    fn without_punctuation_passages_have_the_set_size_and_the_tail_joins_the_last() {
        let text = words(500, 1_000);
        let page = cut(&text);
        let sizes: Vec<usize> = (0..page.spans.len())
            .map(|i| word_count(page.passage(i)))
            .collect();
        // 0–120, 100–220, 200–320, 300–420, 400–500 (a tail of 80 words is a passage of its own).
        assert_eq!(sizes, [120, 120, 120, 120, 100]);
        // A tail shorter than TAIL_WORDS joins the passage before.
        let page = cut(&words(130, 1_000));
        assert_eq!(page.spans.len(), 1);
        assert_eq!(word_count(page.passage(0)), 130);
    }

    #[test]
    fn spans_are_on_character_boundaries() {
        let text = "Crème brûlée à la française, très facile. ".repeat(200);
        let page = cut(&text);
        for (i, span) in page.spans.iter().enumerate() {
            assert!(page.text.get(span.range()).is_some(), "{i}: {span:?}");
            assert!(!page.passage(i).starts_with(' ') && !page.passage(i).ends_with(' '));
        }
    }

    #[test]
    fn which_passages_are_embedded() {
        let rows: &[(usize, usize, Embedding, &[u16])] = &[
            (3, 8, Embedding::First, &[0, 1, 2]),
            (3, 8, Embedding::Spread, &[0, 1, 2]),
            (20, 8, Embedding::First, &[0, 1, 2, 3, 4, 5, 6, 7]),
            (20, 8, Embedding::Spread, &[0, 2, 5, 7, 10, 12, 15, 17]),
            (9, 8, Embedding::Spread, &[0, 1, 2, 3, 4, 5, 6, 7]),
            (30, 4, Embedding::Spread, &[0, 7, 15, 22]),
            (5, 0, Embedding::Spread, &[]),
            (0, 8, Embedding::Spread, &[]),
        ];
        for &(passages, count, embedding, want) in rows {
            assert_eq!(
                choose(passages, count, embedding),
                want,
                "{passages} {count} {embedding:?}"
            );
        }
        let page = cut(&words(2_000, 15));
        assert_eq!(page.embedded.len(), EMBEDDED_PASSAGES);
        assert_eq!(page.embedded[0], 0);
        assert!(page.embedded.windows(2).all(|w| w[0] < w[1]));
        assert!(usize::from(*page.embedded.last().unwrap()) >= page.spans.len() / 2);
    }
}
