//! Text to words: Unicode folding, splitting, stop words and stems.
//!
//! One function, [`fold_words`], turns any text (a title, a URL piece, a query) into the words the
//! index compares:
//!
//! 1. **NFKD** (compatibility decomposition): `ﬁ` → `fi`, `Ǆ` → `DŽ`, `é` → `e` + combining accent.
//! 2. **Accent fold**: combining marks are dropped (`café` → `cafe`), as are a few letters that
//!    carry their "accent" in the letter itself ([`SPECIAL_FOLDS`]: `ß` → `ss`, `œ` → `oe`, …).
//! 3. **Case fold**: lower case.
//! 4. **Split** on everything that is not a letter or a digit (emoji, punctuation, spaces, `-`, `_`,
//!    `.`, `/`). Inside a word, `camelCase`, `XMLHttp` and letter/digit boundaries (`html5`) are
//!    split too when asked ([`Parts::Split`]): the whole word is kept *and* its parts are added,
//!    so both `javascript` and `script` find "JavaScript".
//!
//! Stop words ([`STOP_WORDS`], English and French, already folded) and words that are noise
//! ([`MAX_WORD_CHARS`], [`MAX_DIGITS`]) are dropped. Stems ([`stems`]) come from the Snowball
//! English and French stemmers: history has no language tag, so a word gets both stems and a query
//! word matches any indexed word that shares one of them.

use std::sync::LazyLock;

use rust_stemmers::{Algorithm, Stemmer};
use rustc_hash::FxHashSet;
use unicode_normalization::char::{decompose_compatible, is_combining_mark};

/// Words longer than this are dropped: in titles they are almost never typed, in URLs they are
/// ids, hashes and base64 blobs that would bloat the vocabulary.
pub const MAX_WORD_CHARS: usize = 24;

/// All-digit words with more digits than this are dropped (database ids, timestamps). Six keeps
/// years, versions and issue numbers.
pub const MAX_DIGITS: usize = 6;

/// Letters that NFKD does not decompose but that users type without their mark or ligature.
pub const SPECIAL_FOLDS: &[(char, &str)] = &[
    ('ß', "ss"),
    ('ẞ', "ss"),
    ('œ', "oe"),
    ('Œ', "oe"),
    ('æ', "ae"),
    ('Æ', "ae"),
    ('ø', "o"),
    ('Ø', "o"),
    ('đ', "d"),
    ('Đ', "d"),
    ('ł', "l"),
    ('Ł', "l"),
    ('ı', "i"),
];

/// English and French stop words, folded (no accents, lower case). Small on purpose: only words
/// that carry no topic. Kept sorted and without duplicates so it is easy to read and review (a test
/// checks both); [`is_stop_word`] looks words up in a hash set built from it.
pub const STOP_WORDS: &[&str] = &[
    "a", "about", "after", "ai", "all", "an", "and", "any", "are", "as", "at", "au", "aux", "avec",
    "be", "been", "but", "by", "c", "can", "ce", "ces", "cet", "cette", "d", "dans", "de", "des",
    "did", "do", "does", "du", "elle", "en", "est", "et", "ete", "etre", "eu", "for", "from",
    "had", "has", "have", "he", "her", "his", "how", "i", "il", "ils", "in", "into", "is", "it",
    "its", "j", "je", "l", "la", "le", "les", "leur", "lui", "m", "ma", "mais", "me", "mes", "moi",
    "mon", "my", "n", "ne", "nous", "of", "on", "ont", "or", "ou", "our", "par", "pas", "pour",
    "qu", "que", "qui", "s", "sa", "sans", "se", "ses", "she", "so", "son", "sont", "sur", "t",
    "ta", "te", "tes", "that", "the", "their", "them", "then", "there", "these", "they", "this",
    "to", "toi", "ton", "tu", "un", "une", "vos", "votre", "vous", "was", "we", "were", "what",
    "when", "where", "which", "who", "why", "will", "with", "y", "you", "your",
];

/// [`STOP_WORDS`] as a hash set, built on first use: hashing a short word is cheaper than a binary
/// search through the list's 130-odd strings, and every indexed word is checked.
static STOP_WORD_SET: LazyLock<FxHashSet<&'static str>> =
    LazyLock::new(|| STOP_WORDS.iter().copied().collect());

/// Whether a folded word is a stop word. No stop word is longer than 5 bytes (a test checks), so a
/// longer word is answered without hashing.
pub fn is_stop_word(word: &str) -> bool {
    word.len() <= 5 && STOP_WORD_SET.contains(word)
}

/// Whether camelCase and letter/digit parts are added next to whole words.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Parts {
    /// Whole words only (queries: what the user typed is what they mean).
    Whole,
    /// Whole words and their camelCase / letter-digit parts (titles and URLs).
    Split,
}

/// Calls `emit` with every folded, kept word of `text`, in order. Stop words and noise are dropped.
pub fn fold_words(text: &str, parts: Parts, emit: impl FnMut(&str)) {
    fold_words_with(&mut Scratch::default(), text, parts, emit);
}

/// Buffers reused across [`fold_words_with`] calls (a page is folded piece by piece).
#[derive(Debug, Default)]
pub struct Scratch {
    raw: Vec<char>,
    folded: String,
}

/// [`fold_words`] with reusable buffers.
pub fn fold_words_with(
    scratch: &mut Scratch,
    text: &str,
    parts: Parts,
    mut emit: impl FnMut(&str),
) {
    let Scratch { raw, folded } = scratch;
    raw.clear();
    if text.is_ascii() {
        // Fast path (most titles, every URL piece): no decomposition, words lower-cased in place.
        for word in text.split(|c: char| !c.is_ascii_alphanumeric()) {
            let bytes = word.as_bytes();
            let inner_upper = bytes.iter().skip(1).any(u8::is_ascii_uppercase);
            let mixed =
                bytes.iter().any(u8::is_ascii_digit) && !bytes.iter().all(u8::is_ascii_digit);
            if word.is_empty() {
                continue;
            } else if parts == Parts::Split && (inner_upper || mixed) {
                raw.extend(word.chars());
                emit_word(raw, parts, folded, &mut emit);
                raw.clear();
            } else {
                folded.clear();
                folded.push_str(word);
                folded.make_ascii_lowercase();
                if keep(folded) {
                    emit(folded);
                }
            }
        }
        return;
    }
    for c in text.chars() {
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                raw.push(c);
            } else if !raw.is_empty() {
                emit_word(raw, parts, folded, &mut emit);
                raw.clear();
            }
        } else {
            decompose_compatible(c, |d| {
                if is_combining_mark(d) {
                    return;
                }
                if d.is_alphanumeric() {
                    raw.push(d);
                } else if !raw.is_empty() {
                    emit_word(raw, parts, folded, &mut emit);
                    raw.clear();
                }
            });
        }
    }
    if !raw.is_empty() {
        emit_word(raw, parts, folded, &mut emit);
        raw.clear();
    }
}

/// The folded words of `text`, whole words only, stop words dropped.
pub fn query_words(text: &str) -> Vec<String> {
    let mut words = Vec::new();
    fold_words(text, Parts::Whole, |w| words.push(w.to_owned()));
    words
}

/// Folds one run of letters and digits and emits it, then its parts.
fn emit_word(raw: &[char], parts: Parts, buf: &mut String, emit: &mut impl FnMut(&str)) {
    fold_into(raw, buf);
    let whole_kept = keep(buf);
    if whole_kept {
        emit(buf);
    }
    if parts == Parts::Whole {
        return;
    }
    // Only words with an inner capital or a digit can split; most words have neither.
    if !raw[1..].iter().any(|c| c.is_uppercase() || c.is_numeric()) {
        return;
    }
    let cuts = boundaries(raw);
    if cuts.is_empty() {
        return;
    }
    let mut start = 0;
    for end in cuts.into_iter().chain(std::iter::once(raw.len())) {
        let part = &raw[start..end];
        start = end;
        if part.len() < 2 {
            continue;
        }
        fold_into(part, buf);
        if keep(buf) {
            emit(buf);
        }
    }
}

/// Lower-cases `raw` into `buf`, applying [`SPECIAL_FOLDS`].
fn fold_into(raw: &[char], buf: &mut String) {
    buf.clear();
    for &c in raw {
        if c.is_ascii() {
            buf.push(c.to_ascii_lowercase());
        } else if let Some((_, to)) = SPECIAL_FOLDS.iter().find(|(from, _)| *from == c) {
            buf.push_str(to);
        } else {
            // Lower-casing may itself produce combining marks (`İ` → `i̇`): drop them too.
            buf.extend(c.to_lowercase().filter(|l| !is_combining_mark(*l)));
        }
    }
}

fn keep(word: &str) -> bool {
    // Bytes bound characters from above: only long byte strings need counting.
    let too_long = word.len() > MAX_WORD_CHARS && word.chars().count() > MAX_WORD_CHARS;
    if word.is_empty() || too_long || is_stop_word(word) {
        return false;
    }
    !(word.bytes().all(|b| b.is_ascii_digit()) && word.len() > MAX_DIGITS)
}

/// Where a word splits into parts: `camelCase` → `camel|Case`, `XMLHttp` → `XML|Http`,
/// `html5` → `html|5`.
fn boundaries(raw: &[char]) -> Vec<usize> {
    let mut cuts = Vec::new();
    for i in 1..raw.len() {
        let (prev, cur) = (raw[i - 1], raw[i]);
        let next_lower = raw.get(i + 1).is_some_and(|n| n.is_lowercase());
        let camel = prev.is_lowercase() && cur.is_uppercase();
        let acronym_end = prev.is_uppercase() && cur.is_uppercase() && next_lower;
        let digits = prev.is_numeric() != cur.is_numeric();
        if camel || acronym_end || digits {
            cuts.push(i);
        }
    }
    cuts
}

/// The Snowball stemmers, created once per index operation (creation is free: a function pointer).
pub struct Stemmers {
    english: Stemmer,
    french: Stemmer,
}

impl std::fmt::Debug for Stemmers {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Stemmers(english, french)")
    }
}

impl Default for Stemmers {
    fn default() -> Self {
        Stemmers {
            english: Stemmer::create(Algorithm::English),
            french: Stemmer::create(Algorithm::French),
        }
    }
}

impl Stemmers {
    /// The English and French stems of a folded word. Digits and very short words are their own
    /// stem (stemmers only mangle them).
    pub fn stems(&self, word: &str) -> [String; 2] {
        [self.english(word), self.french(word)]
    }

    /// The English stem (see [`Stemmers::stems`]).
    pub fn english(&self, word: &str) -> String {
        stem_with(&self.english, word)
    }

    /// The French stem (see [`Stemmers::stems`]).
    pub fn french(&self, word: &str) -> String {
        stem_with(&self.french, word)
    }
}

fn stem_with(stemmer: &Stemmer, word: &str) -> String {
    if word.chars().count() < 3 || word.bytes().any(|b| b.is_ascii_digit()) {
        word.to_owned()
    } else {
        stemmer.stem(word).into_owned()
    }
}

/// The stems of one word, for tests and callers that stem once.
pub fn stems(word: &str) -> [String; 2] {
    Stemmers::default().stems(word)
}

/// Words of a URL's host that say nothing about the page: `www`, mobile prefixes and the generic
/// second-level labels of `.co.uk` / `.com.au`. The last label (the TLD) is always dropped.
pub const HOST_NOISE: &[&str] = &["amp", "co", "com", "m", "mobile", "net", "org", "www"];

/// Path words that are file types, not topics.
pub const PATH_NOISE: &[&str] = &["asp", "aspx", "htm", "html", "index", "jsp", "php", "shtml"];

#[cfg(test)]
mod tests {
    use super::*;

    fn words(text: &str, parts: Parts) -> Vec<String> {
        let mut out = Vec::new();
        fold_words(text, parts, |w| out.push(w.to_owned()));
        out
    }

    #[test]
    fn stop_words_are_sorted_and_folded() {
        let mut sorted = STOP_WORDS.to_vec();
        sorted.sort_unstable();
        sorted.dedup();
        assert_eq!(sorted, STOP_WORDS);
        assert!(
            STOP_WORDS.iter().all(|w| w.len() <= 5),
            "is_stop_word's length check"
        );
        for word in STOP_WORDS {
            assert_eq!(words(word, Parts::Whole), Vec::<String>::new(), "{word}");
        }
    }

    #[test]
    fn folding() {
        let rows: &[(&str, &[&str])] = &[
            ("Café", &["cafe"]),
            ("CAFÉ crème", &["cafe", "creme"]),
            ("Straße", &["strasse"]),
            ("ﬁlm ﬁnder", &["film", "finder"]),
            ("Ǆungla", &["dzungla"]),
            ("cœur Œuvre", &["coeur", "oeuvre"]),
            ("İstanbul", &["istanbul"]),
            ("Ｆｕｌｌｗｉｄｔｈ", &["fullwidth"]),
            ("naïve façade", &["naive", "facade"]),
            (
                "Recursive CTEs: handling cycles",
                &["recursive", "ctes", "handling", "cycles"],
            ),
            ("l'été à Paris", &["paris"]),
            ("🎉 party 🎉", &["party"]),
            ("مرحبا بالعالم", &["مرحبا", "بالعالم"]),
            ("שלום עולם", &["שלום", "עולם"]),
            ("<b>bold</b>&amp;", &["b", "bold", "b", "amp"]),
            ("ctrl\u{0}\u{7}chars", &["ctrl", "chars"]),
            ("id 12345678 year 2024", &["id", "year", "2024"]),
        ];
        for (text, expected) in rows {
            assert_eq!(words(text, Parts::Whole), *expected, "{text}");
        }
    }

    #[test]
    fn camel_case_and_digit_parts() {
        let rows: &[(&str, &[&str])] = &[
            ("JavaScript", &["javascript", "java", "script"]),
            (
                "XMLHttpRequest",
                &["xmlhttprequest", "xml", "http", "request"],
            ),
            ("html5", &["html5", "html"]),
            ("iPhone", &["iphone", "phone"]),
            ("plain", &["plain"]),
        ];
        for (text, expected) in rows {
            assert_eq!(words(text, Parts::Split), *expected, "{text}");
        }
        assert_eq!(words("JavaScript", Parts::Whole), ["javascript"]);
    }

    #[test]
    fn stemming_conflates_english_and_french_plurals() {
        let same: &[(&str, &str)] = &[
            ("cycles", "cycle"),
            ("queries", "query"),
            ("recipes", "recipe"),
            ("running", "run"),
            ("chevaux", "cheval"),
            ("maisons", "maison"),
            ("recettes", "recette"),
            ("journaux", "journal"),
        ];
        for (a, b) in same {
            let (sa, sb) = (stems(a), stems(b));
            assert!(sa[0] == sb[0] || sa[1] == sb[1], "{a} {b}: {sa:?} {sb:?}");
        }
        assert_eq!(stems("5g"), ["5g", "5g"]);
    }
}
