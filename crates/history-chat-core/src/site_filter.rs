//! The `site:` filter of a question: `site:github.com cte cycles` searches `cte cycles` among the
//! pages of github.com only, in every mode, before anything is ranked.
//!
//! The rules, as web search engines have them:
//!
//! - **Subdomains match**: `site:github.com` matches `github.com`, `www.github.com` and
//!   `gist.github.com`; `site:*.google.com` (or `site:.google.com`) is the same as
//!   `site:google.com`, and `site:www.github.com` the same as `site:github.com`. A bare top-level
//!   domain works too: `site:edu`.
//! - **Case does not matter**, a trailing dot is dropped (`GitHub.COM.` is `github.com`), an
//!   `http://` or `https://` in front and one `/` after are allowed (a pasted origin), and an
//!   international name matches in either form (`site:bücher.de` and `site:xn--bcher-kva.de`
//!   are the same filter, and so are emoji names like `i❤.ws`: the browser keeps addresses in the
//!   `xn--` form).
//! - **A port narrows to it**: `site:localhost:3000` matches `http://localhost:3000/…` only; without
//!   a port every port matches. A scheme's default port counts (`site:example.com:443` matches
//!   `https://example.com/`).
//! - **Several `site:` terms mean any of them**; **`-site:x` leaves x out** (with no `site:` term
//!   beside it, everything but x). The value ends at the first whitespace.
//! - **A bad value** — empty (`site:`), no host (`site:https://`), a wildcard anywhere but in front
//!   (`site:*.*`), a path, a character no host has — is **not a filter**: the term stays in the
//!   question as ordinary words, and [`SiteQuestion::rejected`] lists it so the popup says so
//!   plainly. (`site:a b` is the filter `site:a` — a one-label host, like `localhost` — and the
//!   word `b`.)
//!
//! Conversation turns keep the question as typed; everything that searches parses it here.

use std::sync::OnceLock;

use serde::{Deserialize, Serialize};

use crate::address::{unicode_host, web_address};
use crate::origin::{Origin, Origins, origin_term};

/// One site of a filter: a host in the browser's form (lower case, `xn--` labels, no trailing
/// dot, no `www.`), perhaps with a port.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Site {
    /// The host: a domain (matched with its subdomains), an IPv4 address or a bracketed IPv6 one
    /// (matched exactly).
    pub host: String,
    /// Only this port, when given (the scheme's default counts).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub port: Option<u16>,
}

impl Site {
    /// Whether a page at `host` (lower case, as a cleaned URL has it) and `port` (explicit or the
    /// scheme's default) is of this site.
    fn matches(&self, host: &str, port: Option<u16>) -> bool {
        self.matches_host(host, port, true)
    }

    /// [`Site::matches`], with or without the subdomains: without them, only the host itself and
    /// its `www.` form match (the same site, as `site:` treats it). Also used by
    /// [`crate::exclusions`], so both lists name sites the same way.
    pub(crate) fn matches_host(&self, host: &str, port: Option<u16>, subdomains: bool) -> bool {
        if self.port.is_some() && self.port != port {
            return false;
        }
        let host = host.strip_suffix('.').unwrap_or(host);
        if host == self.host {
            return true;
        }
        if !subdomains {
            return host.strip_prefix("www.") == Some(self.host.as_str());
        }
        !self.host.starts_with('[')
            && host.len() > self.host.len()
            && host.ends_with(self.host.as_str())
            && host.as_bytes()[host.len() - self.host.len() - 1] == b'.'
    }

    /// `github.com`, `localhost:3000`, `bücher.de`: how the site is named to the user (an
    /// international name in Unicode).
    pub fn label(&self) -> String {
        let host = unicode_host(&self.host);
        match self.port {
            Some(port) => format!("{host}:{port}"),
            None => host,
        }
    }
}

/// Which sites a search keeps: a page of any of `include` (every page when it is empty), and of
/// none of `exclude`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SiteFilter {
    /// Keep only pages of these sites (any of them); empty: every site.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub include: Vec<Site>,
    /// Leave out pages of these sites.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub exclude: Vec<Site>,
}

impl SiteFilter {
    /// No filter: every page passes.
    pub fn is_empty(&self) -> bool {
        self.include.is_empty() && self.exclude.is_empty()
    }

    /// Whether the page at `url` (a cleaned URL, [`crate::clean::clean_url`]) passes. A URL with no
    /// host passes only a filter that names no site to keep.
    pub fn allows(&self, url: &str) -> bool {
        if self.is_empty() {
            return true;
        }
        let Some((host, port)) = host_and_port(url) else {
            return self.include.is_empty();
        };
        let kept = self.include.is_empty() || self.include.iter().any(|s| s.matches(host, port));
        kept && !self.exclude.iter().any(|s| s.matches(host, port))
    }

    /// The words a browser's literal search can add to narrow its answer to the filter: the one
    /// site kept, when there is exactly one and it is a plain domain (`github com` must then be
    /// words of the page's address); `None` otherwise. The answer is still filtered with
    /// [`SiteFilter::allows`].
    pub fn browser_words(&self) -> Option<String> {
        match self.include.as_slice() {
            [site] if !site.host.starts_with('[') && !site.host.contains("xn--") => {
                Some(site.host.replace('.', " "))
            }
            _ => None,
        }
    }
}

/// A `site:` term of a question, for the popup's chips.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SiteTerm {
    /// The term as typed (`site:GitHub.com`): what removing it takes out of the question.
    pub typed: String,
    /// The site.
    pub site: Site,
    /// `-site:`: the site is left out.
    pub exclude: bool,
}

impl SiteTerm {
    /// `site:github.com`, `-site:x.com`: the term in its normal form.
    pub fn label(&self) -> String {
        let minus = if self.exclude { "-" } else { "" };
        format!("{minus}site:{}", self.site.label())
    }
}

/// A question split into its words and its `site:` filter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SiteQuestion {
    /// The question without its `site:` terms, words separated by one space. It ends with a space
    /// when the question's last word was followed by anything (whitespace or a `site:` term): that
    /// word is finished, not a prefix being typed.
    pub words: String,
    /// The filter of its good `site:` terms.
    pub filter: SiteFilter,
    /// Its good `site:` terms, in order.
    pub terms: Vec<SiteTerm>,
    /// Its bad `site:` terms as typed (kept in [`SiteQuestion::words`]).
    pub rejected: Vec<String>,
    /// The sources it searches ([`crate::origin`]): those its source terms name, or all.
    pub origins: Origins,
    /// Its source terms (`bookmark:`, `onglet:`…), in order, each with the source it names.
    pub origin_terms: Vec<(String, Origin)>,
}

impl SiteQuestion {
    /// Whether the question is only `site:` terms: it lists the sites' most recent pages.
    pub fn only_sites(&self) -> bool {
        !self.filter.is_empty() && self.words.trim().is_empty()
    }
}

/// Splits `question` into its words and its `site:` filter (see the [module docs](self)).
pub fn parse(question: &str) -> SiteQuestion {
    let mut parsed = SiteQuestion::default();
    let mut words: Vec<&str> = Vec::new();
    let mut last_is_word = false;
    for token in question.split_whitespace() {
        if let Some((origin, glued)) = origin_term(token) {
            parsed.origins.name(origin);
            parsed.origin_terms.push((token.to_owned(), origin));
            last_is_word = !glued.is_empty();
            if last_is_word {
                words.push(glued);
            }
            continue;
        }
        match site_term(token) {
            Some(Ok(term)) => {
                let sites = match term.exclude {
                    true => &mut parsed.filter.exclude,
                    false => &mut parsed.filter.include,
                };
                if !sites.contains(&term.site) {
                    sites.push(term.site.clone());
                }
                parsed.terms.push(term);
                last_is_word = false;
            }
            Some(Err(())) => {
                parsed.rejected.push(token.to_owned());
                words.push(token);
                last_is_word = true;
            }
            None => {
                words.push(token);
                last_is_word = true;
            }
        }
    }
    parsed.words = words.join(" ");
    let finished = !last_is_word || question.ends_with(char::is_whitespace);
    if !parsed.words.is_empty() && finished {
        parsed.words.push(' ');
    }
    parsed
}

/// `question` without the `index`-th good `site:` term ([`SiteQuestion::terms`]), the rest as
/// typed (whitespace between tokens made one space). Out of range: the question unchanged.
pub fn without_term(question: &str, index: usize) -> String {
    without_nth(question, index, |token| {
        matches!(site_term(token), Some(Ok(_))).then_some("")
    })
}

/// `question` without the `index`-th source term ([`SiteQuestion::origin_terms`]; a word glued
/// to it stays), the rest as typed (whitespace between tokens made one space). Out of range: the
/// question unchanged.
pub fn without_origin_term(question: &str, index: usize) -> String {
    without_nth(question, index, |token| {
        origin_term(token).map(|(_, glued)| glued)
    })
}

/// `question` without the `index`-th token that `term` reads as a term (`Some` with what stays of
/// it: a word glued to it, or nothing), the rest as typed, whitespace between tokens made one
/// space. Out of range: the question unchanged.
fn without_nth<'q>(
    question: &'q str,
    index: usize,
    term: impl Fn(&'q str) -> Option<&'q str>,
) -> String {
    let mut seen = 0;
    let mut removed = false;
    let kept: Vec<&str> = question
        .split_whitespace()
        .filter_map(|token| {
            if removed {
                return Some(token);
            }
            let Some(stays) = term(token) else {
                return Some(token);
            };
            seen += 1;
            removed = seen == index + 1;
            match removed {
                true => (!stays.is_empty()).then_some(stays),
                false => Some(token),
            }
        })
        .collect();
    if !removed {
        return question.to_owned();
    }
    let mut rest = kept.join(" ");
    if !rest.is_empty() {
        // The words before the term were finished; the search box keeps typing after them.
        rest.push(' ');
    }
    rest
}

/// `None`: not a `site:` term; `Some(Err)`: one with a bad value.
fn site_term(token: &str) -> Option<Result<SiteTerm, ()>> {
    let (exclude, rest) = match token.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, token),
    };
    let prefix = rest.get(..5)?;
    if !prefix.eq_ignore_ascii_case("site:") {
        return None;
    }
    Some(site_value(&rest[5..]).map(|site| SiteTerm {
        typed: token.to_owned(),
        site,
        exclude,
    }))
}

/// The site a `site:` value names, or `Err` when it names none.
fn site_value(value: &str) -> Result<Site, ()> {
    site_pattern(value).map(|(site, _)| site)
}

/// [`site_value`], and whether the value began with a wildcard (`*.` or `.`).
pub(crate) fn site_pattern(value: &str) -> Result<(Site, bool), ()> {
    let mut value = value;
    for scheme in ["https://", "http://"] {
        if value
            .get(..scheme.len())
            .is_some_and(|p| p.eq_ignore_ascii_case(scheme))
        {
            value = &value[scheme.len()..];
            break;
        }
    }
    let value = value.strip_suffix('/').unwrap_or(value);
    let wildcard = value.starts_with("*.") || value.starts_with('.');
    let value = value
        .strip_prefix("*.")
        .or_else(|| value.strip_prefix('.'))
        .unwrap_or(value);
    let (host, port) = split_port(value).ok_or(())?;
    let port = match port {
        None => None,
        Some(digits) if !digits.is_empty() && digits.bytes().all(|b| b.is_ascii_digit()) => {
            Some(digits.parse::<u16>().map_err(|_| ())?)
        }
        Some(_) => return Err(()),
    };
    let host = host.strip_suffix('.').unwrap_or(host);
    if host.is_empty() || host.contains(['/', '?', '#', '@', '*', '%', '\\']) {
        return Err(());
    }
    // A colon is an IPv6 address's only (in brackets); elsewhere the parser would read a port.
    if !host.starts_with('[') && host.contains(':') {
        return Err(());
    }
    let parsed = browser_form(host).ok_or(())?;
    let host = if parsed.starts_with('[') {
        parsed
    } else {
        // A domain, or an IPv4 address written out in full (its labels are plain too).
        let domain = parsed.strip_suffix('.').unwrap_or(&parsed);
        let plain = domain.split('.').all(|label| {
            !label.is_empty()
                && label
                    .bytes()
                    .all(|b| b.is_ascii_alphanumeric() || b == b'-' || b == b'_')
        });
        if !plain {
            return Err(());
        }
        match domain.strip_prefix("www.") {
            Some(rest) if !rest.is_empty() => rest.to_owned(),
            _ => domain.to_owned(),
        }
    };
    Ok((Site { host, port }, wildcard))
}

/// How a host as typed is put in the browser's form: the URL standard's host parser's
/// serialisation (lower case, international labels in their `xn--` form by UTS 46, an IPv4
/// address written out in full, an IPv6 one in brackets); `None` when it is not a host.
pub type HostParser = fn(host: &str) -> Option<String>;

static HOST_PARSER: OnceLock<HostParser> = OnceLock::new();

/// Routes every later reading of a site's host to `parse`. In the extension that is the browser's
/// own URL parser (the bindings install it first thing in every page and in the worker): the
/// pages then carry no UTS 46 tables, and a site is named exactly as the browser wrote the
/// history's addresses. The first call wins.
pub fn install_host_parser(parse: HostParser) {
    // A second install (a page that mounts twice) would install the same parser: ignore it.
    let _ = HOST_PARSER.set(parse);
}

/// `host` in the browser's form, by the installed parser ([`install_host_parser`]), else the
/// built-in one.
fn browser_form(host: &str) -> Option<String> {
    match HOST_PARSER.get() {
        Some(parse) => parse(host),
        None => built_in_host(host),
    }
}

/// Natively (tests, tools): the `url` crate's host parser, which follows the same standard.
#[cfg(not(target_arch = "wasm32"))]
fn built_in_host(host: &str) -> Option<String> {
    url::Host::parse(host).ok().map(|host| host.to_string())
}

/// In the extension the browser parses; before [`install_host_parser`] nothing is a host.
#[cfg(target_arch = "wasm32")]
fn built_in_host(_host: &str) -> Option<String> {
    None
}

/// `host[:port]` or `[v6][:port]`; `None` when brackets do not close.
fn split_port(value: &str) -> Option<(&str, Option<&str>)> {
    if value.starts_with('[') {
        let end = value.find(']')? + 1;
        let (host, rest) = value.split_at(end);
        return match rest.strip_prefix(':') {
            Some(port) => Some((host, Some(port))),
            None if rest.is_empty() => Some((host, None)),
            None => None,
        };
    }
    Some(match value.rsplit_once(':') {
        Some((host, port)) => (host, Some(port)),
        None => (value, None),
    })
}

/// A cleaned URL's host (lower case) and port (explicit, else the scheme's default).
pub(crate) fn host_and_port(url: &str) -> Option<(&str, Option<u16>)> {
    let address = web_address(url)?;
    Some((address.host, Some(address.port_or_default())))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn site(host: &str, port: Option<u16>) -> Site {
        Site {
            host: host.into(),
            port,
        }
    }

    #[test]
    fn values_and_the_site_they_name() {
        // (typed, the site it names, or None: a bad value)
        type Named<'a> = Option<(&'a str, Option<u16>)>;
        let rows: &[(&str, Named)] = &[
            ("site:github.com", Some(("github.com", None))),
            ("site:www.github.com", Some(("github.com", None))),
            ("SITE:GitHub.COM", Some(("github.com", None))),
            ("Site:github.com.", Some(("github.com", None))),
            ("site:*.google.com", Some(("google.com", None))),
            ("site:.google.com", Some(("google.com", None))),
            ("site:https://github.com/", Some(("github.com", None))),
            ("site:HTTP://github.com", Some(("github.com", None))),
            ("site:localhost:3000", Some(("localhost", Some(3000)))),
            ("site:example.com:443", Some(("example.com", Some(443)))),
            ("site:bücher.de", Some(("xn--bcher-kva.de", None))),
            ("site:BÜCHER.de", Some(("xn--bcher-kva.de", None))),
            ("site:xn--bcher-kva.de", Some(("xn--bcher-kva.de", None))),
            ("site:192.168.1.10", Some(("192.168.1.10", None))),
            ("site:[::1]:8080", Some(("[::1]", Some(8080)))),
            ("site:edu", Some(("edu", None))),
            ("site:a", Some(("a", None))),
            ("site:www", Some(("www", None))),
            ("site:my_host.lan", Some(("my_host.lan", None))),
            ("site:", None),
            ("site:https://", None),
            ("site:*.*", None),
            ("site:*", None),
            ("site:github.com/rust-lang", None),
            ("site:github..com", None),
            ("site:localhost:99999", None),
            ("site:localhost:", None),
            ("site:localhost:ab", None),
            ("site:[::1", None),
            ("site:\"a", None),
            ("site:user@github.com", None),
            // A colon outside brackets: the parser would read `80` as the port, not the host.
            ("site:a.com:80:90", None),
            ("site:[::1]x", None),
            // Emoji hosts are names too (`i❤.ws`); the browser keeps them in the `xn--` form.
            ("site:❤.ws", Some(("xn--qei.ws", None))),
            ("site:%67ithub.com", None),
        ];
        for &(typed, expected) in rows {
            let parsed = parse(typed);
            match expected {
                Some((host, port)) => {
                    assert_eq!(parsed.filter.include, [site(host, port)], "{typed}");
                    assert!(parsed.rejected.is_empty(), "{typed}");
                    assert_eq!(parsed.words, "", "{typed}");
                    assert!(parsed.only_sites(), "{typed}");
                }
                None => {
                    assert!(parsed.filter.is_empty(), "{typed}");
                    assert_eq!(parsed.rejected, [typed], "{typed}");
                    // Left as ordinary words.
                    assert_eq!(parsed.words, typed, "{typed}");
                    assert!(!parsed.only_sites(), "{typed}");
                }
            }
        }
    }

    #[test]
    fn words_and_terms_of_a_question() {
        let parsed = parse("site:github.com cte   cycles");
        assert_eq!(parsed.words, "cte cycles");
        assert_eq!(parsed.terms[0].typed, "site:github.com");
        assert_eq!(parsed.terms[0].label(), "site:github.com");
        // The word before a term is finished (not a prefix), as before a space.
        assert_eq!(parse("cte site:github.com").words, "cte ");
        assert_eq!(parse("cte ").words, "cte ");
        assert_eq!(parse("cte").words, "cte");
        assert_eq!(parse("").words, "");
        assert_eq!(parse("   ").words, "");
        // Not terms: `site` inside a word, or as a plain word.
        for typed in ["website:x.com", "site", "sites:x.com", "--site:x.com", "si"] {
            let parsed = parse(typed);
            assert!(
                parsed.filter.is_empty() && parsed.rejected.is_empty(),
                "{typed}"
            );
            assert_eq!(parsed.words, typed);
        }
        // Any of several; duplicates named once; exclusions.
        let parsed =
            parse("site:github.com rust site:GITLAB.com site:www.github.com -site:gist.github.com");
        assert_eq!(
            parsed.filter,
            SiteFilter {
                include: vec![site("github.com", None), site("gitlab.com", None)],
                exclude: vec![site("gist.github.com", None)],
            }
        );
        assert_eq!(parsed.terms.len(), 4);
        assert_eq!(parsed.terms[3].label(), "-site:gist.github.com");
        let international = parse("site:BÜCHER.de:8080 -site:xn--i-7iq.ws");
        let labels: Vec<String> = international.terms.iter().map(SiteTerm::label).collect();
        assert_eq!(labels, ["site:bücher.de:8080", "-site:i❤.ws"]);
        assert_eq!(parsed.words, "rust ");
        // A bad term is a word; the good ones still filter.
        let parsed = parse("site:https:// site:github.com cte");
        assert_eq!(parsed.words, "site:https:// cte");
        assert_eq!(parsed.filter.include, [site("github.com", None)]);
        assert_eq!(parsed.rejected, ["site:https://"]);
        assert_eq!(parse("site: site:*.*").rejected, ["site:", "site:*.*"]);
        // `site:a b`: the filter `site:a` and the word `b`.
        let parsed = parse("site:a b");
        assert_eq!(parsed.filter.include, [site("a", None)]);
        assert_eq!(parsed.words, "b");
        // Emoji and other words around terms are untouched.
        assert_eq!(parse("🦀 site:rust-lang.org crab").words, "🦀 crab");
    }

    #[test]
    fn which_pages_a_filter_keeps() {
        let filter = |q: &str| parse(q).filter;
        // (question, url, kept)
        let rows: &[(&str, &str, bool)] = &[
            ("site:github.com", "https://github.com/rust-lang/rust", true),
            ("site:github.com", "https://www.github.com/", true),
            ("site:github.com", "https://gist.github.com/x", true),
            ("site:github.com", "https://notgithub.com/", false),
            ("site:github.com", "https://github.com.evil.example/", false),
            ("site:github.com", "https://gitlab.com/github.com", false),
            (
                "site:github.com",
                "https://example.com/?u=https://github.com/",
                false,
            ),
            ("site:github.com", "http://github.com:8080/", true),
            ("site:github.com", "https://github.com./", true),
            ("site:github.com", "https://user:pw@github.com/", true),
            ("site:www.github.com", "https://gist.github.com/", true),
            ("site:*.google.com", "https://google.com/maps", true),
            ("site:*.google.com", "https://docs.google.com/", true),
            ("site:gist.github.com", "https://github.com/", false),
            ("site:localhost:3000", "http://localhost:3000/app", true),
            ("site:localhost:3000", "http://localhost:5173/app", false),
            ("site:localhost", "http://localhost:5173/app", true),
            ("site:example.com:443", "https://example.com/", true),
            ("site:example.com:443", "http://example.com/", false),
            ("site:bücher.de", "https://xn--bcher-kva.de/", true),
            ("site:bücher.de", "https://shop.xn--bcher-kva.de/", true),
            ("site:bücher.de", "https://bucher.de/", false),
            ("site:edu", "https://mit.edu/", true),
            ("site:edu", "https://education.com/", false),
            ("site:192.168.1.10", "http://192.168.1.10/admin", true),
            ("site:168.1.10", "http://192.168.1.10/admin", false),
            ("site:[::1]", "http://[::1]:8080/", true),
            ("site:[::1]:8080", "http://[::1]/", false),
            (
                "site:github.com site:gitlab.com",
                "https://gitlab.com/",
                true,
            ),
            (
                "site:github.com site:gitlab.com",
                "https://bitbucket.org/",
                false,
            ),
            ("-site:github.com", "https://gitlab.com/", true),
            ("-site:github.com", "https://gist.github.com/", false),
            (
                "site:github.com -site:gist.github.com",
                "https://github.com/",
                true,
            ),
            (
                "site:github.com -site:gist.github.com",
                "https://gist.github.com/",
                false,
            ),
            ("site:github.com", "not a url", false),
            ("-site:github.com", "not a url", true),
            ("", "not a url", true),
            ("site:*.*", "https://github.com/", true),
        ];
        for &(question, url, kept) in rows {
            assert_eq!(filter(question).allows(url), kept, "{question} / {url}");
        }
    }

    #[test]
    fn removing_a_term_edits_the_question() {
        let rows: &[(&str, usize, &str)] = &[
            ("site:github.com cte cycles", 0, "cte cycles "),
            ("cte site:github.com", 0, "cte "),
            ("site:github.com", 0, ""),
            ("a site:x.com b site:y.com c", 1, "a site:x.com b c "),
            // Bad terms are words, not counted.
            ("site: site:x.com b", 0, "site: b "),
            ("cte", 0, "cte"),
            ("site:x.com", 3, "site:x.com"),
        ];
        for &(question, index, expected) in rows {
            assert_eq!(
                without_term(question, index),
                expected,
                "{question} − {index}"
            );
        }
    }

    #[test]
    fn browser_words_and_wire_shape() {
        assert_eq!(
            parse("site:github.com").filter.browser_words().as_deref(),
            Some("github com")
        );
        assert_eq!(parse("site:a.com site:b.com").filter.browser_words(), None);
        assert_eq!(parse("site:bücher.de").filter.browser_words(), None);
        assert_eq!(parse("-site:a.com").filter.browser_words(), None);
        let filter = parse("site:localhost:3000 -site:x.com").filter;
        let json = serde_json::to_value(&filter).unwrap();
        assert_eq!(
            json,
            serde_json::json!({"include": [{"host": "localhost", "port": 3000}], "exclude": [{"host": "x.com"}]})
        );
        assert_eq!(serde_json::from_value::<SiteFilter>(json).unwrap(), filter);
        assert_eq!(
            serde_json::from_value::<SiteFilter>(serde_json::json!({})).unwrap(),
            SiteFilter::default()
        );
    }

    #[test]
    fn source_terms_leave_the_words_and_name_the_sources_searched() {
        // (typed, words left, sources searched as [history, bookmark, tab], terms)
        type Row<'a> = (&'a str, &'a str, [bool; 3], &'a [&'a str]);
        let rows: &[Row] = &[
            ("rust async", "rust async", [true; 3], &[]),
            (
                "bookmark: rust",
                "rust",
                [false, true, false],
                &["bookmark:"],
            ),
            ("rust tab:", "rust ", [false, false, true], &["tab:"]),
            (
                "onglet:recette",
                "recette",
                [false, false, true],
                &["onglet:recette"],
            ),
            (
                "Favoris: historique: pâtes site:a.com",
                "pâtes ",
                [true, true, false],
                &["Favoris:", "historique:"],
            ),
            ("table: chair", "table: chair", [true; 3], &[]),
        ];
        for (typed, words, searched, terms) in rows {
            let parsed = parse(typed);
            assert_eq!(parsed.words, *words, "{typed}");
            let got = Origin::ALL.map(|o| parsed.origins.allows(o));
            assert_eq!(got, *searched, "{typed}");
            let got: Vec<&str> = parsed
                .origin_terms
                .iter()
                .map(|(t, _)| t.as_str())
                .collect();
            assert_eq!(got, *terms, "{typed}");
        }
    }

    #[test]
    fn removing_a_source_term_keeps_the_rest_and_a_glued_word() {
        let rows: &[(&str, usize, &str)] = &[
            ("bookmark: rust", 0, "rust "),
            ("rust tab: history:", 1, "rust tab: "),
            ("tab:rust async", 0, "rust async "),
            ("tab: x", 3, "tab: x"),
            ("site:a.com tab:", 0, "site:a.com "),
        ];
        for (question, index, expected) in rows {
            assert_eq!(
                without_origin_term(question, *index),
                *expected,
                "{question} − {index}"
            );
        }
    }
}
