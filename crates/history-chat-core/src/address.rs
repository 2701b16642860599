//! A web page's address read as text, without the URL parser: what the popup needs to show a
//! page (its host, its path) and to decide whether a link may be opened.
//!
//! Why not `url`: its parser links in the Unicode tables of international names (UTS 46, about
//! 48 KB gzip of the popup's module), and the popup has no address to parse. Every address it
//! shows was made by [`crate::clean::clean_url`] in the service worker, so it is already in the
//! parser's own form — lower-case scheme and host, `xn--` labels, a path that starts with `/`.
//! Reading that form needs only to split it. Where it matters, the reading is strict: a scheme is
//! `http` or `https` only when the text starts with it and `://`, so text the browser would read
//! as another scheme is never taken for a web page.

/// An `http(s)` address split into its parts, as its text has them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WebAddress<'a> {
    /// `https` is `true`, `http` is `false`.
    pub https: bool,
    /// The host as written (user name and port left out): a domain, an IPv4 address, or an IPv6
    /// one in brackets.
    pub host: &'a str,
    /// The port, when the address names one.
    pub port: Option<u16>,
    /// What follows the host and port: the path, the query, the fragment (perhaps empty).
    pub rest: &'a str,
}

/// Characters no host has (the URL standard's forbidden host code points, and space).
const FORBIDDEN_IN_HOST: &[char] = &[
    ' ', '#', '%', '/', ':', '<', '>', '?', '@', '[', '\\', ']', '^', '|',
];

/// An address's text cut at its scheme, host, port and the rest, judging no part: the one split
/// of an address in the code. [`web_address`] judges the parts; the indexes read the cleaned
/// addresses they are given through it directly ([`AddressText::host_name`], [`AddressText::path`],
/// [`AddressText::query`]), as text, without paying for checks a cleaned URL always passes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct AddressText<'a> {
    /// What comes before `://`, as written.
    pub scheme: &'a str,
    /// The host as written (user name and port left out): an IPv6 address keeps its brackets.
    pub host: &'a str,
    /// The port's text after `:`, when there is one (perhaps empty, perhaps not digits).
    pub port: Option<&'a str>,
    /// What follows the host and port: the path, the query, the fragment (perhaps empty).
    pub rest: &'a str,
}

/// Cuts `url` into its parts; `None` when it has no `://`, or an IPv6 host without its `]` or
/// with something other than a port after it.
pub fn split_address(url: &str) -> Option<AddressText<'_>> {
    let (scheme, after) = url.split_once("://")?;
    let end = (after.bytes())
        .position(|b| matches!(b, b'/' | b'?' | b'#' | b'\\'))
        .unwrap_or(after.len());
    let (authority, rest) = after.split_at(end);
    let host_and_port = authority
        .rsplit_once('@')
        .map_or(authority, |(_, host)| host);
    let (host, port) = match host_and_port.strip_prefix('[') {
        Some(v6) => {
            let (host, after) = host_and_port.split_at(v6.find(']')? + 2);
            match after {
                "" => (host, None),
                _ => (host, Some(after.strip_prefix(':')?)),
            }
        }
        None => match host_and_port.rsplit_once(':') {
            Some((host, port)) => (host, Some(port)),
            None => (host_and_port, None),
        },
    };
    Some(AddressText {
        scheme,
        host,
        port,
        rest,
    })
}

impl<'a> AddressText<'a> {
    /// The host as a name: an IPv6 address without its brackets (`::1`), anything else as
    /// written. What the indexes read of the host.
    pub fn host_name(&self) -> &'a str {
        self.host
            .strip_prefix('[')
            .and_then(|v6| v6.strip_suffix(']'))
            .unwrap_or(self.host)
    }

    /// The path, without the query and the fragment (perhaps empty).
    pub fn path(&self) -> &'a str {
        self.path_and_query().0
    }

    /// The query, without its `?` and the fragment (empty when there is none).
    pub fn query(&self) -> &'a str {
        self.path_and_query().1
    }

    /// The path and the query at once, reading the rest once: what the lexical index reads of
    /// every page it builds.
    pub fn path_and_query(&self) -> (&'a str, &'a str) {
        // Bytes, not chars: both are ASCII, and this runs over every page the index builds.
        let end = (self.rest.bytes())
            .position(|b| b == b'?' || b == b'#')
            .unwrap_or(self.rest.len());
        let (path, after) = self.rest.split_at(end);
        let query = match after.strip_prefix('?') {
            Some(query) => query.split_once('#').map_or(query, |(query, _)| query),
            None => "",
        };
        (path, query)
    }
}

/// Splits `url` when it is an `http` or `https` address with a host; `None` for anything else
/// (another scheme, a relative path, no host, a character no host has, a port that is not a
/// number). The scheme's case does not matter; ASCII spaces and control characters around the
/// address are ignored, as the browser ignores them.
///
/// ```
/// use history_chat_core::address::web_address;
/// let address = web_address("https://user@例え.jp:8443/a?b#c").unwrap();
/// assert_eq!((address.host, address.rest), ("例え.jp", "/a?b#c"));
/// assert_eq!(web_address("javascript:alert(1)"), None);
/// ```
pub fn web_address(url: &str) -> Option<WebAddress<'_>> {
    let url = url.trim_matches(|c: char| c <= ' ');
    let AddressText {
        scheme,
        host,
        port,
        rest,
    } = split_address(url)?;
    let https = match scheme {
        _ if scheme.eq_ignore_ascii_case("https") => true,
        _ if scheme.eq_ignore_ascii_case("http") => false,
        _ => return None,
    };
    let plain_host = host.starts_with('[') || !host.contains(FORBIDDEN_IN_HOST);
    let plain = |c: char| !c.is_control() && c != ' ';
    let port = match port {
        None | Some("") => None,
        Some(digits) if digits.bytes().all(|b| b.is_ascii_digit()) => Some(digits.parse().ok()?),
        Some(_) => return None,
    };
    (!host.is_empty() && plain_host && host.chars().all(plain)).then_some(WebAddress {
        https,
        host,
        port,
        rest,
    })
}

impl WebAddress<'_> {
    /// The port, explicit or the scheme's default.
    pub fn port_or_default(&self) -> u16 {
        self.port.unwrap_or(if self.https { 443 } else { 80 })
    }
}

/// A host in Unicode, as a person reads it: each `xn--` label decoded (one that does not decode
/// stays as written). Only Punycode, no Unicode tables: the host is already in the browser's
/// form, so nothing else is left to map.
///
/// ```
/// use history_chat_core::address::unicode_host;
/// assert_eq!(unicode_host("xn--bcher-kva.de"), "bücher.de");
/// ```
pub fn unicode_host(host: &str) -> String {
    host.split('.')
        .map(|label| {
            label
                .get(..4)
                .filter(|prefix| prefix.eq_ignore_ascii_case("xn--") && label.len() > 4)
                .and_then(|_| idna::punycode::decode_to_string(&label[4..]))
                .unwrap_or_else(|| label.to_owned())
        })
        .collect::<Vec<_>>()
        .join(".")
}

/// Where Chrome asks for the page to open (`chrome.omnibox.OnInputEnteredDisposition`), and
/// where a result row opens it for each key (`crate::rows::open_disposition`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum Disposition {
    /// In the tab the user is typing in (plain Enter), also for a value Chrome may add later.
    #[default]
    CurrentTab,
    /// In a new tab, brought to the front (Alt+Enter).
    NewForegroundTab,
    /// In a new tab left behind the current one.
    NewBackgroundTab,
}

impl Disposition {
    /// Reads Chrome's value (`"currentTab"`, `"newForegroundTab"`, `"newBackgroundTab"`); anything
    /// else, or none, is the current tab, as for plain Enter.
    pub fn from_chrome(value: Option<&str>) -> Disposition {
        match value {
            Some("newForegroundTab") => Disposition::NewForegroundTab,
            Some("newBackgroundTab") => Disposition::NewBackgroundTab,
            _ => Disposition::CurrentTab,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_indexes_read_a_host_name_a_path_and_a_query() {
        // (address, host name, path, query): the one split the lexical and semantic indexes use.
        let rows: &[(&str, &str, &str, &str)] = &[
            (
                "https://example.com/a/b?c=1&d=2",
                "example.com",
                "/a/b",
                "c=1&d=2",
            ),
            ("https://example.com", "example.com", "", ""),
            ("https://example.com?q=x", "example.com", "", "q=x"),
            (
                "https://example.com/p#f?not-a-query",
                "example.com",
                "/p",
                "",
            ),
            ("https://example.com/p?q=1#f", "example.com", "/p", "q=1"),
            ("http://user:pw@a.example:8080/x", "a.example", "/x", ""),
            ("http://[::1]:8080/x?y=z", "::1", "/x", "y=z"),
            ("http://[2001:db8::1]/", "2001:db8::1", "/", ""),
            ("http://192.168.0.1:3000/admin", "192.168.0.1", "/admin", ""),
            (
                "https://xn--bcher-kva.de/b%C3%BCcher",
                "xn--bcher-kva.de",
                "/b%C3%BCcher",
                "",
            ),
        ];
        for &(url, host, path, query) in rows {
            let Some(address) = split_address(url) else {
                panic!("{url} splits");
            };
            assert_eq!(
                (address.host_name(), address.path(), address.query()),
                (host, path, query),
                "{url}"
            );
        }
    }

    #[test]
    fn web_addresses_are_split_and_everything_else_refused() {
        // (address, its parts: https, host, port with the default, rest)
        type Parts<'a> = Option<(bool, &'a str, u16, &'a str)>;
        let rows: &[(&str, Parts)] = &[
            (
                "https://example.com/a?b=1",
                Some((true, "example.com", 443, "/a?b=1")),
            ),
            ("http://example.com", Some((false, "example.com", 80, ""))),
            ("HTTPS://EXAMPLE.COM", Some((true, "EXAMPLE.COM", 443, ""))),
            (
                "  https://example.com/\n",
                Some((true, "example.com", 443, "/")),
            ),
            (
                "http://localhost:3000/x",
                Some((false, "localhost", 3000, "/x")),
            ),
            (
                "http://u:p@a.example:8080/",
                Some((false, "a.example", 8080, "/")),
            ),
            ("https://a.example:/", Some((true, "a.example", 443, "/"))),
            ("http://[::1]:8080/x", Some((false, "[::1]", 8080, "/x"))),
            ("http://[::1]/", Some((false, "[::1]", 80, "/"))),
            ("https://a.example?q", Some((true, "a.example", 443, "?q"))),
            (
                "https://a.example#top",
                Some((true, "a.example", 443, "#top")),
            ),
            ("https://例え.jp/", Some((true, "例え.jp", 443, "/"))),
            ("javascript:alert(1)", None),
            ("JavaScript://example.com/%0aalert(1)", None),
            ("data:text/html,x", None),
            ("chrome://settings", None),
            ("file:///etc/passwd", None),
            ("view-source:https://example.com", None),
            ("//example.com/a", None),
            ("/relative/path", None),
            ("https://", None),
            ("https:///path", None),
            ("https://user@/x", None),
            ("https://exa mple.com/", None),
            ("https://a.example:port/", None),
            ("https://a.example:70000/", None),
            ("https://[::1/", None),
            ("https://[::1]x/", None),
            ("https://a\u{0}b.example/", None),
            ("not a url", None),
            ("", None),
        ];
        for &(url, expected) in rows {
            let split = web_address(url).map(|a| (a.https, a.host, a.port_or_default(), a.rest));
            assert_eq!(split, expected, "web_address({url:?})");
        }
    }

    #[test]
    fn hosts_read_in_unicode() {
        let rows = [
            ("example.com", "example.com"),
            ("xn--bcher-kva.de", "bücher.de"),
            ("xn--r8jz45g.jp", "例え.jp"),
            ("mail.xn--bcher-kva.de", "mail.bücher.de"),
            ("xn--i-7iq.ws", "i❤.ws"),
            // Not Punycode: kept as written.
            ("xn--.example", "xn--.example"),
            ("xn--zz-\u{e9}.example", "xn--zz-\u{e9}.example"),
            ("[::1]", "[::1]"),
            ("127.0.0.1", "127.0.0.1"),
        ];
        for (host, expected) in rows {
            assert_eq!(unicode_host(host), expected, "unicode_host({host:?})");
        }
    }

    #[test]
    fn dispositions_read_leniently() {
        let rows: &[(Option<&str>, Disposition)] = &[
            (Some("currentTab"), Disposition::CurrentTab),
            (Some("newForegroundTab"), Disposition::NewForegroundTab),
            (Some("newBackgroundTab"), Disposition::NewBackgroundTab),
            (Some("NEWFOREGROUNDTAB"), Disposition::CurrentTab),
            (Some("somethingNew"), Disposition::CurrentTab),
            (None, Disposition::CurrentTab),
        ];
        for (value, want) in rows {
            assert_eq!(Disposition::from_chrome(*value), *want, "{value:?}");
        }
    }
}
