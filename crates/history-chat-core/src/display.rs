//! What the UI prints of a page: readable URLs, titles, the site icon's address, a download's
//! percent.

use crate::address::{unicode_host, web_address};
use crate::percent::{InvalidUtf8, percent_decode};

/// Longest readable URL, in characters, before it is cut with an ellipsis.
pub const READABLE_URL_MAX_CHARS: usize = 80;

/// A URL as a person reads it: host without `www.` and in Unicode, then the path and query,
/// percent-decoded where that gives valid UTF-8, cut to [`READABLE_URL_MAX_CHARS`]. Anything but
/// an `http(s)` address is only cut. Read as text ([`crate::address`]), without the URL parser.
///
/// ```
/// use history_chat_core::display::readable_url;
/// assert_eq!(readable_url("https://www.xn--bcher-kva.de/caf%C3%A9"), "bücher.de/café");
/// ```
pub fn readable_url(url: &str) -> String {
    let Some(address) = web_address(url) else {
        return truncate(url, READABLE_URL_MAX_CHARS);
    };
    let host = address.host.to_ascii_lowercase();
    let host = host.strip_prefix("www.").unwrap_or(&host);
    let host = unicode_host(host);
    let rest = address
        .rest
        .split_once('#')
        .map_or(address.rest, |(rest, _)| rest);
    let rest = percent_decode(rest, false, InvalidUtf8::KeepAsWritten);
    let rest = if rest == "/" { "" } else { &*rest };
    truncate(&format!("{host}{rest}"), READABLE_URL_MAX_CHARS)
}

/// The title to show: the page's title, or its readable URL when it has none. Control characters
/// (which some titles carry) are removed; the result is still untrusted text, to render as text.
pub fn display_title(title: &str, url: &str) -> String {
    let cleaned: String = title.chars().filter(|c| !c.is_control()).collect();
    let cleaned = cleaned.trim();
    if cleaned.is_empty() {
        readable_url(url)
    } else {
        cleaned.to_owned()
    }
}

/// The size of a site icon on a result row, in CSS pixels (the row keeps a box this size whether
/// the icon shows or not, so nothing moves when it loads or fails).
pub const FAVICON_SIZE: u32 = 16;

/// The address of a page's site icon in Chrome's own favicon cache, served to the extension
/// under `favicon_base` (`chrome.runtime.getURL("/_favicon/")`, with the optional `favicon`
/// permission): `chrome-extension://<id>/_favicon/?pageUrl=<the page's URL, encoded>&size=16`.
/// Chrome answers it from the local cache, never from the network. `None` for anything but an
/// `http(s)` page.
///
/// ```
/// use history_chat_core::display::favicon_url;
/// assert_eq!(
///     favicon_url("chrome-extension://abc/_favicon/", "https://example.com/a?b=1&c").as_deref(),
///     Some("chrome-extension://abc/_favicon/?pageUrl=https%3A%2F%2Fexample.com%2Fa%3Fb%3D1%26c&size=16")
/// );
/// ```
pub fn favicon_url(favicon_base: &str, page_url: &str) -> Option<String> {
    web_address(page_url)?;
    let encoded: String = form_urlencoded::byte_serialize(page_url.as_bytes()).collect();
    Some(format!(
        "{favicon_base}?pageUrl={encoded}&size={FAVICON_SIZE}"
    ))
}

/// A download's progress (`loaded`, 0..1, as Chrome reports it) in whole percent, 0 to 100: what
/// the pages print. A whole number, so a page that shows it prints no float (and needs no float
/// formatting of its own).
///
/// ```
/// use history_chat_core::display::percent;
/// assert_eq!(percent(0.255), 26);
/// ```
pub fn percent(loaded: f64) -> u8 {
    let hundredths = (loaded * 100.0).round();
    // `as` saturates, and reads NaN as 0.
    hundredths.clamp(0.0, 100.0) as u8
}

fn truncate(text: &str, max_chars: usize) -> String {
    match text.char_indices().nth(max_chars.saturating_sub(1)) {
        Some((cut, _)) if text[cut..].chars().count() > 1 => format!("{}…", &text[..cut]),
        _ => text.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn favicon_urls_are_encoded_and_only_for_web_pages() {
        let base = "chrome-extension://abcdefghijklmnop/_favicon/";
        let rows: &[(&str, Option<&str>)] = &[
            (
                "https://example.com/",
                Some(
                    "chrome-extension://abcdefghijklmnop/_favicon/?pageUrl=https%3A%2F%2Fexample.com%2F&size=16",
                ),
            ),
            (
                "http://localhost:3000/a b?x=1&y=é#top",
                Some(
                    "chrome-extension://abcdefghijklmnop/_favicon/?pageUrl=http%3A%2F%2Flocalhost%3A3000%2Fa+b%3Fx%3D1%26y%3D%C3%A9%23top&size=16",
                ),
            ),
            ("javascript:alert(1)", None),
            ("chrome://settings", None),
            ("file:///etc/passwd", None),
            ("data:text/html,hi", None),
            ("not a url", None),
        ];
        for &(page, expected) in rows {
            assert_eq!(favicon_url(base, page).as_deref(), expected, "{page}");
        }
    }

    #[test]
    fn readable_urls() {
        let long_path = format!("https://example.com/{}", "a".repeat(200));
        let rows: &[(&str, &str)] = &[
            ("https://www.example.com/", "example.com"),
            (
                "https://blog.example.org/posts/recursive-ctes",
                "blog.example.org/posts/recursive-ctes",
            ),
            (
                "https://example.com/search?q=caf%C3%A9",
                "example.com/search?q=café",
            ),
            ("https://xn--r8jz45g.jp/", "例え.jp"),
            ("https://example.com/%FF%FE", "example.com/%FF%FE"),
            ("https://example.com/100%", "example.com/100%"),
            ("not a url", "not a url"),
            (
                long_path.as_str(),
                &*format!("example.com/{}…", "a".repeat(READABLE_URL_MAX_CHARS - 13)),
            ),
        ];
        for (url, expected) in rows {
            assert_eq!(readable_url(url), *expected, "readable_url({url:?})");
        }
        assert_eq!(
            readable_url(&long_path).chars().count(),
            READABLE_URL_MAX_CHARS
        );
    }

    #[test]
    fn titles_fall_back_to_the_url_and_lose_control_characters() {
        assert_eq!(
            display_title("  Recursive CTEs  ", "https://a.example/"),
            "Recursive CTEs"
        );
        assert_eq!(display_title("", "https://www.a.example/x"), "a.example/x");
        assert_eq!(
            display_title("\u{0}\u{7}\n", "https://a.example/"),
            "a.example"
        );
        assert_eq!(display_title("Tab\there", "https://a.example/"), "Tabhere");
        assert_eq!(
            display_title("<b>bold</b>", "https://a.example/"),
            "<b>bold</b>"
        );
    }

    #[test]
    fn percents_are_whole_and_bounded() {
        let rows: &[(f64, u8)] = &[
            (0.0, 0),
            (0.004, 0),
            (0.005, 1),
            (0.1, 10),
            (0.255, 26),
            (0.999, 100),
            (1.0, 100),
            (1.5, 100),
            (-0.2, 0),
            (f64::NAN, 0),
            (f64::INFINITY, 100),
        ];
        for &(loaded, expected) in rows {
            assert_eq!(percent(loaded), expected, "{loaded}");
        }
    }
}
