//! The text embedded for a page, and its hash.
//!
//! A passage is the page's title, then its host and the words of its path:
//! `"Crème brûlée facile | cuisine.example creme brulee"`. The embedding model adds its own
//! `passage: ` prefix; this is only the page's part. The URL's part keeps what names a topic and
//! drops what only identifies a page (numbers, ids, hashes, file types), so a page without a title
//! still says something, and a page whose slug repeats its title costs a few characters more.

use crate::address::split_address;
use crate::history::Page;
use crate::index::text::PATH_NOISE;
use crate::percent::{InvalidUtf8, percent_decode};

/// Longest passage, in characters. A title rarely needs more than 100; 300 characters are about
/// 80–100 of the model's tokens, so one passage's embedding stays short (its cost grows with the
/// tokens) and a 10,000-character title costs what a long ordinary one does.
pub const PASSAGE_MAX_CHARS: usize = 300;

/// The host and path words take at most this many characters of the passage; the title gets the
/// rest. So the URL's part survives a very long title, and a very long URL leaves the title room.
pub const URL_PART_MAX_CHARS: usize = 100;

/// A path word longer than this is an id, a token or base64, not a word a person remembers.
pub const PATH_WORD_MAX_CHARS: usize = 20;

/// Between the title and the URL's part: titles themselves often use it ("Page | Site").
const SEPARATOR: &str = " | ";

/// The text embedded for `page` (a cleaned, merged page): its title (control characters dropped,
/// white space collapsed; none when the title is only a URL), then the host without `www.` (in
/// Unicode when it is an IDN), then the path's words — percent-decoded, split on `/ - _ . + ~ , ;
/// : = !` and white space, without pure numbers, ids and hashes (see [`is_path_noise`]), file
/// types (`html`, `php`, …) and repeats. At most [`PASSAGE_MAX_CHARS`] characters, cut on a
/// character boundary.
///
/// ```
/// use history_chat_core::history::Page;
/// use history_chat_core::semantic::passage;
/// let page = Page {
///     url: "https://www.xn--bcher-kva.de/2024/05/recursive-ctes_handling.html".into(),
///     title: "Recursive CTEs:\n handling cycles".into(),
///     last_visit_ms: 0,
///     visit_count: 1,
///     passage: None,
///     marks: Default::default(),
/// };
/// assert_eq!(
///     passage(&page),
///     "Recursive CTEs: handling cycles | bücher.de recursive ctes handling"
/// );
/// ```
pub fn passage(page: &Page) -> String {
    passage_of(&page.url, &page.title)
}

/// [`passage`] of a page's cleaned URL and title.
pub(crate) fn passage_of(url: &str, title: &str) -> String {
    let url_part = url_part(url);
    let url_chars = url_part.chars().count();
    let title_budget = match url_chars {
        0 => PASSAGE_MAX_CHARS,
        n => PASSAGE_MAX_CHARS.saturating_sub(n + SEPARATOR.len()),
    };
    let mut passage = String::with_capacity(title.len().min(4 * title_budget) + 64);
    push_title(&mut passage, title, title_budget);
    if !passage.is_empty() && !url_part.is_empty() {
        passage.push_str(SEPARATOR);
    }
    passage.push_str(&url_part);
    passage
}

/// Version of [`passage`]'s text. Bump it whenever [`passage`] writes other text for the same
/// page (the test `a_change_to_passages_bumps_the_version` fails until it is): [`page_hash`]
/// changes with it, so every stored vector is embedded again from the new text.
pub const PASSAGE_VERSION: u8 = 1;

/// A hash of what a page's passage is made of — [`PASSAGE_VERSION`], the cleaned URL and the
/// title — to tell whether a stored vector still matches its page: a page whose title came later,
/// or changed, hashes differently and is embedded again.
///
/// The inputs are hashed rather than the passage itself so that comparing the whole history with
/// the stored vectors, at every start of the worker, costs a hash per page and not a passage
/// (measured in WebAssembly: 9–14 µs a passage, 0.5–0.7 s for 50,000 pages; 0.2–0.5 µs a hash).
///
/// 64-bit FNV-1a over the bytes (the version, the URL, `0xFF` — never in UTF-8, so no other
/// URL/title split hashes alike —, the title): specified by its constants alone, so it is the
/// same on every run, every platform (wasm32 and the native tests alike) and every version of
/// every dependency. A `Hasher` would not do: `rustc_hash::FxHasher` is deterministic within one
/// build, but it hashes `usize` words (its values differ between 32- and 64-bit targets) and its
/// algorithm changed between major versions — and a changed hash means re-embedding every page.
pub fn page_hash(page: &Page) -> u64 {
    page_hash_of(&page.url, &page.title)
}

/// [`page_hash`] of a page's cleaned URL and title.
pub(crate) fn page_hash_of(url: &str, title: &str) -> u64 {
    let bytes = std::iter::once(PASSAGE_VERSION)
        .chain(url.bytes())
        .chain(std::iter::once(0xFF))
        .chain(title.bytes());
    fnv1a(bytes)
}

/// 64-bit FNV-1a.
fn fnv1a(bytes: impl IntoIterator<Item = u8>) -> u64 {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes.into_iter().fold(OFFSET, |hash, byte| {
        (hash ^ u64::from(byte)).wrapping_mul(PRIME)
    })
}

/// Appends the title's words (control characters out, runs of white space as one space), at most
/// `budget` characters; nothing when the title is a URL (Chrome titles some pages with their
/// address, which the URL's part says better).
fn push_title(out: &mut String, title: &str, budget: usize) {
    let title = title.trim();
    let is_url = (title.starts_with("http://") || title.starts_with("https://"))
        && !title.contains(char::is_whitespace);
    if is_url {
        return;
    }
    let mut chars = 0;
    for word in title
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
    {
        let space = usize::from(chars > 0);
        if chars + space >= budget {
            break;
        }
        if space == 1 {
            out.push(' ');
        }
        chars += space;
        let word = cut(word, budget - chars);
        out.push_str(word);
        chars += word.chars().count();
    }
}

/// The host (no `www.`, no port, in Unicode) and the path's words, at most
/// [`URL_PART_MAX_CHARS`] characters: words that do not fit are left out whole.
fn url_part(url: &str) -> String {
    let (host, path) =
        split_address(url).map_or(("", ""), |address| (address.host_name(), address.path()));
    let host = host.strip_prefix("www.").unwrap_or(host);
    let mut part = String::with_capacity(URL_PART_MAX_CHARS + 16);
    if host.contains("xn--") {
        part.push_str(cut(&idna::domain_to_unicode(host).0, URL_PART_MAX_CHARS));
    } else {
        part.push_str(cut(host, URL_PART_MAX_CHARS));
    }
    let mut chars = part.chars().count();
    // The words taken so far, as byte ranges of `part`, to leave out repeats (a passage has room
    // for about 50 words at most; beyond that, repeats are kept rather than allocating).
    let mut seen = [(0u16, 0u16); 64];
    let mut seen_len = 0;
    for segment in path.split('/').filter(|s| !s.is_empty()) {
        let segment = percent_decode(segment, false, InvalidUtf8::Replace);
        for word in segment.split(is_path_separator) {
            let Some(word_chars) = topic_word_chars(word) else {
                continue;
            };
            if seen[..seen_len]
                .iter()
                .any(|&(start, end)| same_word(&part[start as usize..end as usize], word))
            {
                continue;
            }
            let space = usize::from(!part.is_empty());
            if chars + space + word_chars > URL_PART_MAX_CHARS {
                return part;
            }
            if space == 1 {
                part.push(' ');
            }
            let start = part.len();
            part.push_str(word);
            chars += space + word_chars;
            if seen_len < seen.len() {
                // `part` is a few hundred bytes at most: the offsets fit.
                seen[seen_len] = (start as u16, part.len() as u16);
                seen_len += 1;
            }
        }
    }
    part
}

/// Whether two words are the same but for case.
fn same_word(a: &str, b: &str) -> bool {
    if a.is_ascii() && b.is_ascii() {
        a.eq_ignore_ascii_case(b)
    } else {
        a.chars()
            .flat_map(char::to_lowercase)
            .eq(b.chars().flat_map(char::to_lowercase))
    }
}

/// What separates words in a path segment once decoded: the slug separators sites use, white
/// space (`%20`), and U+FFFD (what an invalid escape decodes to).
fn is_path_separator(c: char) -> bool {
    matches!(
        c,
        '-' | '_' | '.' | '+' | '~' | ',' | ';' | ':' | '=' | '!' | '\u{FFFD}'
    ) || c.is_whitespace()
}

/// Whether a path word only identifies a page: no letter or digit at all; longer than
/// [`PATH_WORD_MAX_CHARS`]; only digits (ids, dates, page numbers); hexadecimal with both digits
/// and letters from 4 characters on (hashes, UUID pieces: `e29b`, `a3f9c2d1`); letters and digits
/// alternating three times or more (`dQw4w9WgXcQ`, `s01e05`); or a file type or `index`
/// ([`PATH_NOISE`]). Words such as `html5`, `mp3`, `x86`, `b2b` or `covid19` stay.
pub fn is_path_noise(word: &str) -> bool {
    topic_word_chars(word).is_none()
}

/// The characters of a path word, or `None` when it is noise (see [`is_path_noise`]): one pass.
fn topic_word_chars(word: &str) -> Option<usize> {
    let (mut chars, mut alternations) = (0, 0);
    let (mut alphanumeric, mut numeric, mut hex) = (false, true, true);
    let (mut ascii_digit, mut ascii_letter) = (false, false);
    let mut previous_digit: Option<bool> = None;
    for c in word.chars() {
        chars += 1;
        if chars > PATH_WORD_MAX_CHARS {
            return None;
        }
        numeric &= c.is_numeric();
        hex &= c.is_ascii_hexdigit();
        ascii_digit |= c.is_ascii_digit();
        ascii_letter |= c.is_ascii_alphabetic();
        if c.is_alphanumeric() {
            alphanumeric = true;
            let digit = c.is_numeric();
            alternations += usize::from(previous_digit.is_some_and(|p| p != digit));
            previous_digit = Some(digit);
        }
    }
    let id_like = (hex && chars >= 4 && ascii_digit && ascii_letter) || alternations >= 3;
    let file_type = PATH_NOISE.iter().any(|n| n.eq_ignore_ascii_case(word));
    (alphanumeric && !numeric && !id_like && !file_type).then_some(chars)
}

/// The first `max` characters of `s`.
fn cut(s: &str, max: usize) -> &str {
    match s.char_indices().nth(max) {
        Some((end, _)) => &s[..end],
        None => s,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn page(url: &str, title: &str) -> Page {
        Page {
            url: url.to_owned(),
            title: title.to_owned(),
            last_visit_ms: 0,
            visit_count: 1,
            passage: None,
            marks: Default::default(),
        }
    }

    #[test]
    fn passages_of_ordinary_and_odd_pages() {
        let rows: &[(&str, &str, &str)] = &[
            (
                "https://cuisine.example/creme-brulee",
                "Crème brûlée facile",
                "Crème brûlée facile | cuisine.example creme brulee",
            ),
            (
                "https://www.example.com/",
                "Example Domain",
                "Example Domain | example.com",
            ),
            // No title: the URL's part alone.
            (
                "https://docs.rs/serde/latest/serde/de/index.html",
                "",
                "docs.rs serde latest de",
            ),
            ("https://a.example/", "   \t ", "a.example"),
            // Ids, numbers, hashes, file types and query strings are left out.
            (
                "https://news.example/2024/05/17/123456/mars-rover-lands.php?id=99",
                "Mars rover lands",
                "Mars rover lands | news.example mars rover lands",
            ),
            (
                "https://www.youtube.com/watch/dQw4w9WgXcQ",
                "Never gonna",
                "Never gonna | youtube.com watch",
            ),
            (
                "https://git.example/commit/9f86d081884c7d659a2feaa0c55ad015a3bf4f1b",
                "Fix the parser",
                "Fix the parser | git.example commit",
            ),
            (
                "https://x.example/item/550e8400-e29b-41d4-a716-446655440000/edit",
                "",
                "x.example item edit",
            ),
            // Percent-decoded, split on the slug separators; invalid escapes split too.
            (
                "https://fr.wikipedia.org/wiki/Cr%C3%A8me_br%C3%BBl%C3%A9e",
                "Crème brûlée — Wikipédia",
                "Crème brûlée — Wikipédia | fr.wikipedia.org wiki Crème brûlée",
            ),
            (
                "https://a.example/caf%FF+au~lait,chaud;x=1:y!z",
                "",
                "a.example caf au lait chaud x y z",
            ),
            // Emoji and control characters in the title; an IDN host in Unicode; no port.
            (
                "https://xn--bcher-kva.de:8443/b%C3%BCcher",
                "🎂 Birthday\u{0}\u{7}cakes 🎉",
                "🎂 Birthday cakes 🎉 | bücher.de bücher",
            ),
            ("http://[::1]:8080/status", "", "::1 status"),
            (
                "http://user@10.0.0.1/admin",
                "Router",
                "Router | 10.0.0.1 admin",
            ),
            // A title that is only a URL says nothing the URL's part does not.
            (
                "https://img.example/cat.png",
                "https://img.example/cat.png",
                "img.example cat png",
            ),
            // Repeated words, in any case, once.
            (
                "https://d.example/Docs/docs/DOCS-guide",
                "",
                "d.example Docs guide",
            ),
        ];
        for &(url, title, expected) in rows {
            assert_eq!(passage(&page(url, title)), expected, "{url} {title:?}");
        }
    }

    #[test]
    fn long_titles_and_urls_are_cut_and_keep_the_other_part() {
        let host = "https://blog.example/";
        let rows: Vec<(String, String)> = vec![
            (host.to_owned(), "word ".repeat(2_000)),
            (host.to_owned(), "é".repeat(10_000)),
            (host.to_owned(), "🎉".repeat(10_000)),
            (
                format!("{host}{}", "topic-".repeat(500)),
                "A title".to_owned(),
            ),
            (
                format!(
                    "{host}{}",
                    (0..400).map(|i| format!("w{i}x/")).collect::<String>()
                ),
                "x".repeat(10_000),
            ),
        ];
        for (url, title) in rows {
            let text = passage(&page(&url, &title));
            let chars = text.chars().count();
            assert!(chars <= PASSAGE_MAX_CHARS, "{chars} chars for {url}");
            assert!(text.contains("blog.example"), "{text}");
            assert!(text.starts_with(title.chars().next().unwrap()), "{text}");
            assert!(!text.ends_with(' '));
        }
        // A long title fills the budget, up to the URL's part.
        let text = passage(&page(host, &"é".repeat(10_000)));
        assert_eq!(text.chars().count(), PASSAGE_MAX_CHARS, "{text}");
        assert!(text.ends_with("é | blog.example"), "{text}");
    }

    #[test]
    fn path_noise() {
        let rows: &[(&str, bool)] = &[
            ("recursive", false),
            ("html5", false),
            ("mp3", false),
            ("x86", false),
            ("b2b", false),
            ("covid19", false),
            ("v2", false),
            ("café", false),
            ("2024", true),
            ("١٢٣", true),
            ("e29b", true),
            ("a3f9c2d1", true),
            ("cafe", false),
            ("dQw4w9WgXcQ", true),
            ("s01e05", true),
            ("html", true),
            ("PHP", true),
            ("index", true),
            ("abcdefghijklmnopqrstu", true),
            ("abcdefghijklmnopqrst", false),
            ("&", true),
            ("", true),
        ];
        for &(word, noise) in rows {
            assert_eq!(is_path_noise(word), noise, "{word}");
        }
    }

    #[test]
    fn the_hash_is_fnv1a_of_the_version_url_and_title() {
        // Published FNV-1a 64 test vectors.
        let rows: &[(&[u8], u64)] = &[
            (b"", 0xcbf2_9ce4_8422_2325),
            (b"a", 0xaf63_dc4c_8601_ec8c),
            (b"foobar", 0x8594_4171_f739_67e8),
        ];
        for &(bytes, hash) in rows {
            assert_eq!(fnv1a(bytes.iter().copied()), hash, "{bytes:?}");
        }
        let mut bytes = vec![PASSAGE_VERSION];
        bytes.extend_from_slice(b"https://a.example/\xFFA title");
        assert_eq!(
            page_hash(&page("https://a.example/", "A title")),
            fnv1a(bytes)
        );
        // What tells one page's stored vector from a stale one.
        let base = page_hash(&page("https://a.example/", "Title"));
        for (url, title) in [
            ("https://a.example/", "Title!"),
            ("https://a.example/", ""),
            ("https://a.example/x", "Title"),
            ("https://a.example/T", "itle"),
        ] {
            assert_ne!(page_hash(&page(url, title)), base, "{url} {title}");
        }
        let mut visited = page("https://a.example/", "Title");
        visited.last_visit_ms = 5;
        visited.visit_count = 9;
        assert_eq!(page_hash(&visited), base, "a visit is not a new passage");
    }

    /// Stored vectors are of [`passage`]'s text as it was when they were made, and are compared by
    /// [`page_hash`], which does not see the text: so any change to that text must bump
    /// [`PASSAGE_VERSION`]. This pins the text of a few pages with the version; when it fails,
    /// bump the version and pin the new hash.
    #[test]
    fn a_change_to_passages_bumps_the_version() {
        let pages = [
            page(
                "https://cuisine.example/creme-brulee",
                "Crème brûlée facile",
            ),
            page(
                "https://www.xn--bcher-kva.de:8443/2024/b%C3%BCcher_neu.html",
                "",
            ),
            page(
                "https://x.example/item/550e8400-e29b-41d4-a716-446655440000/edit-Docs/docs",
                "🎂 Birthday\u{0}cakes  https://x",
            ),
            page("https://img.example/cat.png", "https://img.example/cat.png"),
            page("https://blog.example/", &"é".repeat(400)),
        ];
        let texts: Vec<String> = pages.iter().map(passage).collect();
        let pinned = fnv1a(texts.join("\n").into_bytes());
        assert_eq!(
            (PASSAGE_VERSION, pinned),
            (1, 0xf5de_f9e3_8cee_762c),
            "passage() writes other text: bump PASSAGE_VERSION and pin the new hash"
        );
    }
}
