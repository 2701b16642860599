//! Excluded sites (Options → Excluded sites): sites whose pages History Chat never indexes, never
//! shows and never sends to a model, whatever the question or the mode.
//!
//! The list is written one site per line:
//!
//! - **`mail.google.com`** excludes that host (and its `www.` form, the same site as `site:`
//!   treats it), not its subdomains: `example.com` leaves `blog.example.com` in.
//! - **`*.example.com`** (or `.example.com`) excludes `example.com` and every subdomain of it.
//! - A port narrows to it (`localhost:3000`); case does not matter, a trailing dot is dropped, an
//!   international name may be written in either form (`bücher.de` or `xn--bcher-kva.de`). The
//!   host is read by [`crate::site_filter`]'s rules, and pages are matched by its host matching,
//!   so both lists name sites the same way.
//! - **Refused**, with a message naming the line: an address (`https://mail.google.com/x`: "write
//!   the host alone: mail.google.com"), a scheme alone (`https://`), a path, a space inside the
//!   line, a wildcard anywhere but in front (`*`, `*.*`, `mail.*.com`), anything that is not a
//!   host. Blank lines are ignored, and spaces around a line are trimmed.
//!
//! The stored form ([`crate::settings::Settings::excluded_sites`]) is the list of lines as
//! written; loading it skips a line this version cannot read rather than losing the others.

use serde::Deserialize;
use serde_json::Value;

use crate::address::web_address;
use crate::history::Page;
use crate::site_filter::{Site, host_and_port, site_pattern};

/// One excluded site.
#[derive(Debug, Clone, PartialEq, Eq)]
struct Excluded {
    /// The line as written (trimmed).
    line: String,
    site: Site,
    /// `*.example.com`: the subdomains too.
    subdomains: bool,
}

/// The excluded sites. The empty list (the default) excludes nothing.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Exclusions {
    sites: Vec<Excluded>,
}

/// Why a line of the list is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum LineProblem {
    /// An address (a scheme, or a path): `host` is the host it names, when it names one.
    Address {
        /// The host to write instead (`mail.google.com`), if the address has one.
        host: Option<String>,
    },
    /// A space inside the line (two sites on one line, or a typo).
    Space,
    /// A `*` anywhere but in front of a domain (`*`, `*.*`, `mail.*.com`).
    Wildcard,
    /// Not a host at all (a character no host has, an empty label, a bad port).
    NotAHost,
}

/// A refused line: its number (from 1, counting blank lines), the line as written, and why (worded
/// for the options page by `BadLine::message`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BadLine {
    /// The line's number, from 1.
    pub number: usize,
    /// The line, trimmed.
    pub typed: String,
    /// Why it is refused.
    pub problem: LineProblem,
}

impl Exclusions {
    /// Reads the options page's text: one site per line. Every refused line is returned (in
    /// order), and then nothing is to be saved.
    pub fn parse(text: &str) -> Result<Exclusions, Vec<BadLine>> {
        let mut sites = Vec::new();
        let mut bad = Vec::new();
        for (index, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() {
                continue;
            }
            match parse_line(line) {
                Ok(excluded) => sites.push(excluded),
                Err(problem) => bad.push(BadLine {
                    number: index + 1,
                    typed: line.to_owned(),
                    problem,
                }),
            }
        }
        if bad.is_empty() {
            Ok(Exclusions { sites })
        } else {
            Err(bad)
        }
    }

    /// The stored lines, leniently: a line this version cannot read is skipped (kept in storage,
    /// see [`crate::settings::Settings::excluded_sites`]), the others apply.
    pub fn from_lines<S: AsRef<str>>(lines: &[S]) -> Exclusions {
        Exclusions {
            sites: lines
                .iter()
                .filter_map(|line| parse_line(line.as_ref().trim()).ok())
                .collect(),
        }
    }

    /// The lines as written, for storage and the options page.
    pub fn lines(&self) -> Vec<String> {
        self.sites.iter().map(|s| s.line.clone()).collect()
    }

    /// Whether nothing is excluded.
    pub fn is_empty(&self) -> bool {
        self.sites.is_empty()
    }

    /// How many sites are excluded.
    pub fn len(&self) -> usize {
        self.sites.len()
    }

    /// Whether the page at `url` (raw or cleaned; `http(s)`) is of an excluded site. A URL with
    /// no host is not.
    pub fn excludes(&self, url: &str) -> bool {
        if self.sites.is_empty() {
            return false;
        }
        let Some((host, port)) = host_and_port(url) else {
            return false;
        };
        let host = host.to_ascii_lowercase();
        self.sites
            .iter()
            .any(|s| s.site.matches_host(&host, port, s.subdomains))
    }

    /// Whether a page excluded by `self` may be allowed by `next`: a site was taken off the list
    /// (or narrowed, `*.x.com` → `x.com`), so its pages must be read from the history again.
    pub fn lifted_by(&self, next: &Exclusions) -> bool {
        self.sites.iter().any(|old| {
            !next
                .sites
                .iter()
                .any(|new| new.site == old.site && (new.subdomains || !old.subdomains))
        })
    }

    /// The excluded sites as match patterns (Chrome's `<scheme>://<host>:<port>/<path>`), for the
    /// page reader's content script's `excludeMatches`: the first line that keeps an excluded
    /// site's pages from being read (the worker checks each page with [`Exclusions::excludes`]
    /// again). Each site gives what [`Exclusions::excludes`] matches:
    ///
    /// - `mail.google.com`: `*://mail.google.com/*` and its `www.` form `*://www.mail.google.com/*`;
    /// - `*.example.com`: `*://example.com/*` and every subdomain, `*://*.example.com/*`;
    /// - an address (`192.168.1.10`, `[::1]`): that host alone, no `www.` form and no subdomains;
    /// - a site narrowed to a port (`localhost:3000`): its host on every port
    ///   (`*://localhost/*`, `*://www.localhost/*`). Chrome refuses a port in a content script's
    ///   pattern ("Invalid port", checked in Chromium 156 by `reader_permissions.test.mjs`), and
    ///   one refused pattern would refuse the whole registration; leaving the port to the worker's
    ///   check would let the script read an excluded page first. So the script stays off the whole
    ///   host: its other ports' pages are not read (they stay searchable by title and address).
    ///
    /// The scheme `*` is `http` and `https`, the reader's two; the host is in its ASCII form
    /// (`xn--bcher-kva.de`), as Chrome compares it. No pattern is repeated.
    pub fn match_patterns(&self) -> Vec<String> {
        let mut patterns: Vec<String> = Vec::new();
        for excluded in &self.sites {
            let host = &excluded.site.host;
            let address = host.starts_with('[') || is_ipv4(host);
            let mut add = |host: String| {
                let pattern = format!("*://{host}/*");
                if !patterns.contains(&pattern) {
                    patterns.push(pattern);
                }
            };
            add(host.clone());
            if address {
                continue;
            }
            if excluded.subdomains {
                add(format!("*.{host}"));
            } else {
                add(format!("www.{host}"));
            }
        }
        patterns
    }

    /// `pages` without the excluded sites' pages.
    pub fn retain_pages(&self, pages: &mut Vec<Page>) {
        if !self.is_empty() {
            pages.retain(|page| !self.excludes(&page.url));
        }
    }
}

/// Whether `host` is an IPv4 address (four numbers): a host with no `www.` form and no subdomains.
fn is_ipv4(host: &str) -> bool {
    host.split('.').count() == 4
        && host
            .split('.')
            .all(|part| !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()))
}

/// One trimmed, non-empty line.
fn parse_line(line: &str) -> Result<Excluded, LineProblem> {
    if line.contains(char::is_whitespace) {
        return Err(LineProblem::Space);
    }
    if line.contains("://") || line.contains(['/', '?', '#']) {
        return Err(LineProblem::Address {
            host: address_host(line),
        });
    }
    let wildcard_body = line.strip_prefix("*.").unwrap_or(line);
    if wildcard_body.contains('*') {
        return Err(LineProblem::Wildcard);
    }
    let (site, subdomains) = site_pattern(line).map_err(|()| LineProblem::NotAHost)?;
    Ok(Excluded {
        line: line.to_owned(),
        site,
        subdomains,
    })
}

/// The host of a pasted address (`https://mail.google.com/x`, `mail.google.com/x`), as written
/// with its ASCII letters in lower case, when it is an `http(s)` one with a host.
fn address_host(line: &str) -> Option<String> {
    let with_scheme;
    let line = if line.contains("://") {
        line
    } else {
        with_scheme = format!("https://{line}");
        &with_scheme
    };
    let address = web_address(line)?;
    let host = address.host.to_ascii_lowercase();
    site_pattern(&host).ok()?;
    Some(match address.port {
        Some(port) => format!("{host}:{port}"),
        None => host,
    })
}

/// `deserialize_with` for the stored list: a list of strings, leniently (a value that is not a
/// list gives none; an item that is not a string is dropped, the others kept).
pub(crate) fn lenient_lines<'de, D>(deserializer: D) -> Result<Vec<String>, D::Error>
where
    D: serde::Deserializer<'de>,
{
    Ok(match Value::deserialize(deserializer)? {
        Value::Array(items) => items
            .into_iter()
            .filter_map(|item| match item {
                Value::String(line) => Some(line),
                _ => None,
            })
            .collect(),
        _ => Vec::new(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lines_accepted_and_refused() {
        // (line, Ok((host, port, subdomains)) or Err(problem))
        type Expected = Result<(&'static str, Option<u16>, bool), LineProblem>;
        let address = |host: &str| LineProblem::Address {
            host: Some(host.to_owned()),
        };
        let rows: Vec<(&str, Expected)> = vec![
            ("mail.google.com", Ok(("mail.google.com", None, false))),
            ("  Mail.Google.COM. ", Ok(("mail.google.com", None, false))),
            ("www.example.com", Ok(("example.com", None, false))),
            ("*.example.com", Ok(("example.com", None, true))),
            (".example.com", Ok(("example.com", None, true))),
            ("localhost", Ok(("localhost", None, false))),
            ("localhost:3000", Ok(("localhost", Some(3000), false))),
            ("bücher.de", Ok(("xn--bcher-kva.de", None, false))),
            ("192.168.1.10", Ok(("192.168.1.10", None, false))),
            ("[::1]:8080", Ok(("[::1]", Some(8080), false))),
            ("https://mail.google.com/x", Err(address("mail.google.com"))),
            ("https://mail.google.com", Err(address("mail.google.com"))),
            ("http://localhost:3000/app", Err(address("localhost:3000"))),
            ("example.com/path", Err(address("example.com"))),
            ("example.com/", Err(address("example.com"))),
            ("https://", Err(LineProblem::Address { host: None })),
            (
                "file:///etc/passwd",
                Err(LineProblem::Address { host: None }),
            ),
            ("*", Err(LineProblem::Wildcard)),
            ("*.*", Err(LineProblem::Wildcard)),
            ("mail.*.com", Err(LineProblem::Wildcard)),
            ("*example.com", Err(LineProblem::Wildcard)),
            ("*.*.example.com", Err(LineProblem::Wildcard)),
            ("mail google.com", Err(LineProblem::Space)),
            ("a.com\tb.com", Err(LineProblem::Space)),
            ("exa$mple.com", Err(LineProblem::NotAHost)),
            ("example..com", Err(LineProblem::NotAHost)),
            ("user@example.com", Err(LineProblem::NotAHost)),
            ("localhost:99999", Err(LineProblem::NotAHost)),
            ("localhost:", Err(LineProblem::NotAHost)),
        ];
        for (line, expected) in rows {
            let parsed = Exclusions::parse(line);
            match expected {
                Ok((host, port, subdomains)) => {
                    let parsed = parsed.unwrap_or_else(|bad| panic!("{line}: {bad:?}"));
                    assert_eq!(
                        parsed.sites,
                        [Excluded {
                            line: line.trim().to_owned(),
                            site: Site {
                                host: host.to_owned(),
                                port,
                            },
                            subdomains,
                        }],
                        "{line}"
                    );
                }
                Err(problem) => {
                    let bad = parsed.expect_err(line);
                    assert_eq!(
                        bad,
                        [BadLine {
                            number: 1,
                            typed: line.trim().to_owned(),
                            problem
                        }],
                        "{line}"
                    );
                }
            }
        }
    }

    #[test]
    fn every_bad_line_is_reported_and_blank_lines_are_fine() {
        assert_eq!(
            Exclusions::parse("mail.google.com\n\n*.*\nhttps://news.ycombinator.com/item\n")
                .expect_err("two bad lines")
                .iter()
                .map(|bad| bad.number)
                .collect::<Vec<_>>(),
            [3, 4]
        );
        let parsed = Exclusions::parse("\r\n a.com \r\n\r\n*.b.org\r\n").expect("good lines");
        assert_eq!(parsed.lines(), ["a.com", "*.b.org"]);
        assert!(Exclusions::parse("").expect("empty").is_empty());
    }

    #[test]
    fn which_pages_are_excluded() {
        // (list, url, excluded)
        let rows: &[(&str, &str, bool)] = &[
            ("mail.google.com", "https://mail.google.com/mail/u/0/", true),
            ("mail.google.com", "https://MAIL.google.com/", true),
            ("mail.google.com", "https://www.mail.google.com/", true),
            ("mail.google.com", "https://google.com/", false),
            ("mail.google.com", "https://docs.google.com/", false),
            ("mail.google.com", "https://x.mail.google.com/", false),
            ("example.com", "https://www.example.com/a", true),
            ("example.com", "https://blog.example.com/a", false),
            ("example.com", "https://notexample.com/", false),
            ("example.com", "https://example.com.evil.test/", false),
            (
                "example.com",
                "https://evil.test/?u=https://example.com/",
                false,
            ),
            ("*.example.com", "https://example.com/", true),
            ("*.example.com", "https://blog.example.com/", true),
            ("*.example.com", "https://a.b.example.com/", true),
            ("*.example.com", "https://notexample.com/", false),
            ("localhost:3000", "http://localhost:3000/", true),
            ("localhost:3000", "http://localhost:5173/", false),
            ("localhost", "http://localhost:5173/", true),
            ("bücher.de", "https://xn--bcher-kva.de/", true),
            ("", "https://example.com/", false),
            ("a.com\n*.b.org", "https://x.b.org/", true),
            ("a.com\n*.b.org", "https://a.com/", true),
            ("a.com\n*.b.org", "https://c.net/", false),
            ("a.com", "not a url", false),
        ];
        for &(list, url, excluded) in rows {
            let exclusions = Exclusions::parse(list).expect(list);
            assert_eq!(exclusions.excludes(url), excluded, "{list:?} / {url}");
        }
    }

    #[test]
    fn stored_lines_load_leniently_and_lifting_is_seen() {
        let stored = ["a.com".to_owned(), "*.*".to_owned(), "*.b.org".to_owned()];
        let loaded = Exclusions::from_lines(&stored);
        assert_eq!(loaded.lines(), ["a.com", "*.b.org"]);
        assert_eq!(loaded.len(), 2);
        let list = |text: &str| Exclusions::parse(text).expect(text);
        // (before, after, whether some page may come back)
        let rows: &[(&str, &str, bool)] = &[
            ("", "", false),
            ("", "a.com", false),
            ("a.com", "a.com\nb.com", false),
            ("a.com", "", true),
            ("a.com\nb.com", "b.com", true),
            ("*.a.com", "a.com", true),
            ("a.com", "*.a.com", false),
            ("a.com", "A.COM", false),
        ];
        for &(before, after, lifted) in rows {
            assert_eq!(
                list(before).lifted_by(&list(after)),
                lifted,
                "{before:?} → {after:?}"
            );
        }
    }

    #[test]
    fn match_patterns_leave_out_what_excludes_matches() {
        // (list, the patterns)
        let rows: &[(&str, &[&str])] = &[
            ("", &[]),
            (
                "mail.google.com",
                &["*://mail.google.com/*", "*://www.mail.google.com/*"],
            ),
            (
                "www.example.com",
                &["*://example.com/*", "*://www.example.com/*"],
            ),
            (
                "Mail.Google.COM.",
                &["*://mail.google.com/*", "*://www.mail.google.com/*"],
            ),
            (
                "*.example.com",
                &["*://example.com/*", "*://*.example.com/*"],
            ),
            (
                ".example.com",
                &["*://example.com/*", "*://*.example.com/*"],
            ),
            // A port cannot be said: the host on every port.
            (
                "localhost:3000",
                &["*://localhost/*", "*://www.localhost/*"],
            ),
            (
                "localhost:3000\nlocalhost:5173",
                &["*://localhost/*", "*://www.localhost/*"],
            ),
            (
                "*.example.com:8443",
                &["*://example.com/*", "*://*.example.com/*"],
            ),
            (
                "bücher.de",
                &["*://xn--bcher-kva.de/*", "*://www.xn--bcher-kva.de/*"],
            ),
            ("192.168.1.10", &["*://192.168.1.10/*"]),
            ("192.168.1.10:8080", &["*://192.168.1.10/*"]),
            ("[::1]:8080", &["*://[::1]/*"]),
            // The same site twice, or one list covering the other: each pattern once.
            (
                "example.com\nexample.com\n*.example.com",
                &[
                    "*://example.com/*",
                    "*://www.example.com/*",
                    "*://*.example.com/*",
                ],
            ),
            (
                "a.com\n*.b.org",
                &[
                    "*://a.com/*",
                    "*://www.a.com/*",
                    "*://b.org/*",
                    "*://*.b.org/*",
                ],
            ),
        ];
        for &(list, expected) in rows {
            let exclusions = Exclusions::parse(list).expect(list);
            assert_eq!(exclusions.match_patterns(), expected, "{list:?}");
        }
    }

    /// The patterns match, as Chrome reads a match pattern, exactly the pages `excludes` leaves
    /// out, on a table of pages (Chrome's matching written out: scheme http(s), host exact or
    /// `*.` with its subdomains); for a site narrowed to a port, those pages and its host's pages
    /// on other ports.
    #[test]
    fn match_patterns_match_what_excludes_matches() {
        fn chrome_matches(pattern: &str, url: &str) -> bool {
            let Some(rest) = pattern.strip_prefix("*://") else {
                return false;
            };
            let Some(authority) = rest.strip_suffix("/*") else {
                return false;
            };
            let Some(address) = crate::address::web_address(url) else {
                return false;
            };
            let host = address.host.to_ascii_lowercase();
            match authority.strip_prefix("*.") {
                Some(domain) => host == domain || host.ends_with(&format!(".{domain}")),
                None => host == authority,
            }
        }
        let lists = [
            "mail.google.com",
            "*.example.com",
            "localhost:3000",
            "192.168.1.10",
            "[::1]:8080",
            "bücher.de",
            "example.org:443",
        ];
        let urls = [
            "https://mail.google.com/mail/u/0/",
            "https://www.mail.google.com/",
            "https://x.mail.google.com/",
            "https://google.com/",
            "https://example.com/",
            "http://blog.example.com/a",
            "https://a.b.example.com/",
            "https://notexample.com/",
            "https://example.com.evil.test/",
            "http://localhost:3000/",
            "http://localhost:5173/",
            "http://localhost/",
            "http://192.168.1.10/x",
            "http://192.168.1.100/x",
            "http://[::1]:8080/",
            "http://[::1]:9090/",
            "https://xn--bcher-kva.de/",
            "https://example.org/",
            "http://example.org/",
            "https://example.org:8443/",
        ];
        for list in lists {
            let exclusions = Exclusions::parse(list).expect(list);
            let patterns = exclusions.match_patterns();
            let without_port = Exclusions::parse(list.rsplit_once(':').map_or(list, |(h, p)| {
                if p.bytes().all(|b| b.is_ascii_digit()) {
                    h
                } else {
                    list
                }
            }))
            .expect(list);
            for url in urls {
                let by_patterns = patterns.iter().any(|p| chrome_matches(p, url));
                assert_eq!(
                    by_patterns,
                    without_port.excludes(url),
                    "{list} / {url}: {patterns:?}"
                );
                assert!(
                    by_patterns || !exclusions.excludes(url),
                    "{list} / {url}: an excluded page is matched"
                );
            }
        }
    }

    #[test]
    fn pages_and_turns_lose_the_excluded_sites() {
        let page = |url: &str| Page {
            url: url.into(),
            title: "t".into(),
            last_visit_ms: 1,
            visit_count: 1,
            passage: None,
            marks: Default::default(),
        };
        let exclusions = Exclusions::parse("*.secret.example").expect("list");
        let mut pages = vec![
            page("https://secret.example/a"),
            page("https://open.example/b"),
            page("https://mail.secret.example/c"),
        ];
        exclusions.retain_pages(&mut pages);
        assert_eq!(pages, [page("https://open.example/b")]);
    }
}
