//! The address-bar keyword (`hc`, manifest `omnibox.keyword`): what Chrome is given to show as the
//! user types after it, and what Enter does.
//!
//! Chrome parses every description as an XML fragment (`<fragment>…</fragment>`, in an isolated
//! process) and styles three elements: `<match>` (the words that matched), `<url>` and `<dim>`. An
//! unbalanced tag, a stray `&` or a control character makes the whole call fail ("Invalid XML"), and
//! markup in a title would be taken as styling. So every piece of untrusted text — titles and URLs
//! from the history, the index's progress line — goes through [`escape_xml`] after [`clean_text`];
//! only this module writes tags.
//!
//! - [`answer`]: the suggestions for what was typed (the index's best pages, matched words in
//!   `<match>`, the readable address in `<url>`) and the default suggestion, which says what Enter
//!   will do ([`DefaultSuggestion`]): open the best match, nothing (no match, nothing typed), or
//!   the typed address. Its words are the catalogue's, put together by `wording::omnibox`.
//! - [`entered`]: what Enter means. A picked suggestion sends its `content`, the page's cleaned URL,
//!   which is opened; an `http(s)` address typed in full is opened too; other text opens the index's
//!   best match for it, as the default suggestion promised; an empty input, text with no searchable
//!   word, or no match opens nothing. Only `http(s)` URLs are ever opened.
//! - [`Disposition`](crate::address::Disposition), among the addresses: where Chrome asks for the
//!   page (this tab, a new one in front or behind).
//!
//! Nothing here, nor in the worker's handlers, makes a network request: the suggestions come from
//! the local index alone, whatever the settings.

use serde::Serialize;

use crate::clean::is_openable;
use crate::display::readable_url;
use crate::history::Page;
use crate::index::IndexProgress;
use crate::index::score::{PREFIX_MIN_CHARS, TYPO_MIN_CHARS};
use crate::index::text::{Parts, fold_words, query_words, stems};
use crate::index::typo::within_one_edit;

/// The keyword declared in `manifest.json` (`"omnibox": {"keyword": "hc"}`): "History Chat".
pub const KEYWORD: &str = "hc";

/// At most this many suggestions are sent. Chrome's desktop omnibox shows at most 8 rows
/// (`AutocompleteResult::GetMaxMatches`), and in keyword mode the first is the default suggestion:
/// more would be dropped unseen.
pub const MAX_SUGGESTIONS: usize = 7;

/// A title is cut to this many characters (with an ellipsis) before it is escaped: a row shows
/// less than this, and a 10,000-character title would only cost the browser's XML parser.
pub const MAX_TITLE_CHARS: usize = 120;

/// One suggestion, in `chrome.omnibox.SuggestResult`'s shape.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Suggestion {
    /// What Chrome puts in the address bar when the suggestion is picked, and sends back on Enter:
    /// the page's cleaned URL.
    pub content: String,
    /// The row's text: XML, escaped, with `<match>` and `<url>` styling.
    pub description: String,
}

/// How far the index covers the history, as the worker passes it in.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Coverage {
    /// The index holds the whole history: this many pages (none: the history is empty).
    Whole {
        /// Pages in the index.
        pages: usize,
    },
    /// The index is still being built (or loaded), newest pages first.
    Building(IndexProgress),
}

/// What the default suggestion says Enter will do (worded, with `%s` standing for the input, by
/// `Answer::default_description`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DefaultSuggestion {
    /// Nothing searchable is typed (and the keyword mode has just started): an invitation to
    /// type what one remembers of a page.
    Prompt,
    /// An `http(s)` address is typed in full: Enter opens it.
    OpenAddress,
    /// The history is empty: there is nothing to search yet.
    HistoryEmpty,
    /// Enter opens the best match, the first suggestion.
    OpenBest,
    /// No page of the whole history matches.
    NoMatch,
    /// No page matches yet: the index is still being built.
    NoneYet,
}

/// What Chrome is given for one input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Answer {
    /// For `chrome.omnibox.setDefaultSuggestion`: what Enter will do.
    pub default: DefaultSuggestion,
    /// How far the index has got while it is built, said after the default suggestion; `None`
    /// once it holds the whole history.
    pub indexing: Option<IndexProgress>,
    /// For the `suggest` callback, best first, at most [`MAX_SUGGESTIONS`].
    pub suggestions: Vec<Suggestion>,
}

/// The suggestions and the default suggestion for `input`, given the index's best `pages` for it
/// (most relevant first; for an input without a searchable word, the most recent pages) and how far
/// the index has got.
pub fn answer(input: &str, pages: &[Page], coverage: Coverage) -> Answer {
    let suggestions = pages
        .iter()
        .filter(|page| is_openable(&page.url))
        .take(MAX_SUGGESTIONS)
        .map(|page| Suggestion {
            content: page.url.clone(),
            description: describe_page(page, input),
        })
        .collect::<Vec<_>>();
    let searchable = !query_words(input).is_empty();
    let typed_url = typed_address(input).is_some();
    let default = match coverage {
        _ if typed_url => DefaultSuggestion::OpenAddress,
        Coverage::Whole { pages: 0 } => DefaultSuggestion::HistoryEmpty,
        _ if !searchable => DefaultSuggestion::Prompt,
        _ if !suggestions.is_empty() => DefaultSuggestion::OpenBest,
        Coverage::Whole { .. } => DefaultSuggestion::NoMatch,
        Coverage::Building(_) => DefaultSuggestion::NoneYet,
    };
    let indexing = match coverage {
        Coverage::Building(progress) => Some(progress),
        Coverage::Whole { .. } => None,
    };
    Answer {
        default,
        indexing,
        suggestions,
    }
}

/// Untrusted text said after a description, dimmed and in parentheses: ` <dim>(text)</dim>`.
pub fn aside(text: &str) -> String {
    format!(
        " <dim>({})</dim>",
        escape_xml(&clean_text(text, MAX_ASIDE_CHARS))
    )
}

/// An aside ([`aside`]) is cut to this many characters.
const MAX_ASIDE_CHARS: usize = 200;

/// What Enter with `text` in the address bar (after the keyword) asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Entered {
    /// Open this `http(s)` URL: a picked suggestion's content, or an address typed in full.
    Open(String),
    /// Open the index's best match for this text (what the default suggestion said), if any.
    BestMatch(String),
    /// Nothing to open: the input is empty or has no searchable word.
    Nothing,
}

/// Reads what Enter sent: see [`Entered`].
pub fn entered(text: &str) -> Entered {
    if let Some(url) = typed_address(text) {
        return Entered::Open(url.to_owned());
    }
    let text = text.trim();
    if query_words(text).is_empty() {
        Entered::Nothing
    } else {
        Entered::BestMatch(text.to_owned())
    }
}

/// The input, trimmed, when it is one `http(s)` address with a host (no space inside).
fn typed_address(text: &str) -> Option<&str> {
    let text = text.trim();
    (!text.is_empty() && !text.contains(char::is_whitespace) && is_openable(text)).then_some(text)
}

/// A page's row: its title, then its readable address in `<url>`, the words matching `input` in
/// `<match>` in both. A page without a title shows its address alone.
pub fn describe_page(page: &Page, input: &str) -> String {
    let matcher = Matcher::new(input);
    let title = clean_text(&page.title, MAX_TITLE_CHARS);
    let address = clean_text(&readable_url(&page.url), MAX_TITLE_CHARS);
    let address = format!("<url>{}</url>", matcher.mark(&address));
    if title.is_empty() {
        address
    } else {
        format!("{} <dim>-</dim> {address}", matcher.mark(&title))
    }
}

/// Escapes text for an XML text node: `&`, `<` and `>` become entities. The text must have been
/// through [`clean_text`] (XML 1.0 admits no control character, not even as `&#1;`).
pub fn escape_xml(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for c in text.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            _ => out.push(c),
        }
    }
    out
}

/// Untrusted text made fit for a row, still unescaped: line breaks and tabs (which Chrome would
/// delete, gluing words together; XML forbids vertical tabs and form feeds) become spaces, control characters, the bidirectional overrides
/// and isolates (which could make a title read backwards over the address) and the two characters
/// XML forbids (U+FFFE, U+FFFF) are removed, whitespace runs become one space, and the text is cut
/// to `max_chars` characters, an ellipsis included.
pub fn clean_text(text: &str, max_chars: usize) -> String {
    let mut out = String::new();
    let mut chars = 0usize;
    let mut space = false;
    for c in text.chars() {
        let c = match c {
            '\t' | '\n' | '\u{b}' | '\u{c}' | '\r' | '\u{85}' | '\u{2028}' | '\u{2029}' => ' ',
            '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}' | '\u{FFFE}' | '\u{FFFF}' => continue,
            c if c.is_control() => continue,
            c => c,
        };
        if c.is_whitespace() {
            space = chars > 0;
            continue;
        }
        if space {
            out.push(' ');
            chars += 1;
            space = false;
        }
        out.push(c);
        chars += 1;
        if chars > max_chars {
            // One character too many is enough to know the text must be cut.
            break;
        }
    }
    if chars > max_chars {
        let cut = out
            .char_indices()
            .nth(max_chars.saturating_sub(1))
            .map_or(out.len(), |(at, _)| at);
        out.truncate(cut);
        out.truncate(out.trim_end().len());
        out.push('…');
    }
    out
}

/// Which words of a row match the input, as the index matches them: the same word once folded
/// (case, accents), a word sharing its English or French stem, a word one typo away (words of
/// [`TYPO_MIN_CHARS`] letters or more), and, for the last word while it is being typed, a word it
/// begins ([`PREFIX_MIN_CHARS`] letters or more).
struct Matcher {
    words: Vec<QueryWord>,
}

struct QueryWord {
    word: String,
    stems: [String; 2],
    chars: usize,
    prefix: bool,
}

impl Matcher {
    fn new(input: &str) -> Matcher {
        let typing = !input.ends_with(char::is_whitespace);
        let words = query_words(input);
        let last = words.len().saturating_sub(1);
        let words = words
            .into_iter()
            .enumerate()
            .map(|(i, word)| QueryWord {
                stems: stems(&word),
                chars: word.chars().count(),
                prefix: typing && i == last,
                word,
            })
            .collect();
        Matcher { words }
    }

    /// Whether a folded word of the row matches a word of the input.
    fn matches(&self, part: &str) -> bool {
        if self.words.is_empty() {
            return false;
        }
        let part_stems = stems(part);
        self.words.iter().any(|q| {
            part == q.word
                || part_stems[0] == q.stems[0]
                || part_stems[1] == q.stems[1]
                || (q.prefix && q.chars >= PREFIX_MIN_CHARS && part.starts_with(&q.word))
                || (q.chars >= TYPO_MIN_CHARS
                    && part.chars().count() >= TYPO_MIN_CHARS
                    && within_one_edit(&q.word, part))
        })
    }

    /// `text` (cleaned, unescaped) escaped, with every word that matches in `<match>`. A word is a
    /// run of letters, digits and combining marks; it matches when it, or one of its camelCase or
    /// letter/digit parts, does.
    fn mark(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 16);
        let mut rest = text;
        while !rest.is_empty() {
            let in_word = |c: char| c.is_alphanumeric() || is_mark(c);
            let starts_word = rest.chars().next().is_some_and(in_word);
            let end = rest
                .char_indices()
                .find(|&(_, c)| in_word(c) != starts_word)
                .map_or(rest.len(), |(at, _)| at);
            let (piece, tail) = rest.split_at(end);
            rest = tail;
            if starts_word && self.word_matches(piece) {
                out.push_str("<match>");
                out.push_str(&escape_xml(piece));
                out.push_str("</match>");
            } else {
                out.push_str(&escape_xml(piece));
            }
        }
        out
    }

    fn word_matches(&self, word: &str) -> bool {
        let mut found = false;
        fold_words(word, Parts::Split, |part| {
            found = found || self.matches(part);
        });
        found
    }
}

fn is_mark(c: char) -> bool {
    unicode_normalization::char::is_combining_mark(c)
}

#[cfg(test)]
mod tests;
