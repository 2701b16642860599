//! The options page's lines: the retention choices, a refused line of the excluded sites, a key
//! that cannot be sent, and the kept pages' count, the question before forgetting them and the
//! line once the switch is applied.

use std::fmt;

use crate::api_key::KeyProblem;
use crate::exclusions::{BadLine, LineProblem};
use crate::i18n::plural;
use crate::settings::Retention;

/// The retention choices' wording.
impl Retention {
    /// The options page's label.
    pub fn label(self) -> String {
        match self {
            Retention::Day => t!("retention_day"),
            Retention::Week => t!("retention_week"),
            Retention::Month => t!("retention_month"),
            Retention::Quarter => t!("retention_quarter"),
            Retention::Forever => t!("retention_forever"),
        }
    }
}

/// A refused line of the excluded sites, as the options page says it.
impl BadLine {
    /// The message for the options page, naming the line and saying what to write instead.
    pub fn message(&self) -> String {
        let Self { number, typed, .. } = self;
        let fix = match &self.problem {
            LineProblem::Address { host: Some(host) } => t!("exclusion_host_alone", host),
            LineProblem::Address { host: None } => t!("exclusion_write_host"),
            LineProblem::Space => t!("exclusion_space"),
            LineProblem::Wildcard => t!("exclusion_wildcard"),
            LineProblem::NotAHost => t!("exclusion_not_a_host"),
        };
        t!("exclusion_bad_line", number, typed, fix)
    }
}

/// Why a key cannot be sent, naming the character (never the key).
impl fmt::Display for KeyProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            KeyProblem::Character(c) => f.write_str(&t!("key_bad_character", character_name(*c))),
        }
    }
}

/// A character as the user can find it in what they pasted: "a space", an invisible one by its
/// code point ("U+00A0"), any other quoted ("“é”").
fn character_name(c: char) -> String {
    match c {
        ' ' => t!("key_a_space"),
        c if c.is_whitespace() || c.is_control() => format!("U+{:04X}", u32::from(c)),
        c => t!("quoted", c),
    }
}

/// The options page's line about the pages kept after Chrome forgets them.
pub fn kept_line(pages: usize) -> String {
    match pages {
        0 => t!("archive_none_kept"),
        n => plural("archive_kept", count(n), &[]),
    }
}

/// The options page's confirmation before forgetting the kept pages.
pub fn forget_question(pages: usize) -> String {
    plural("archive_forget_question", count(pages), &[])
}

fn count(pages: usize) -> i64 {
    i64::try_from(pages).unwrap_or(i64::MAX)
}

/// What the options page says once the worker has applied the switch "Keep pages searchable
/// after Chrome forgets them".
pub fn kept_switched(on: bool) -> String {
    if on {
        t!("archive_switched_on")
    } else {
        t!("archive_switched_off")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exclusions::Exclusions;

    #[test]
    fn every_bad_line_is_named_with_what_to_write_instead() {
        let bad = Exclusions::parse("mail.google.com\n\n*.*\nhttps://news.ycombinator.com/item\n")
            .expect_err("two bad lines");
        let messages: Vec<String> = bad.iter().map(BadLine::message).collect();
        assert_eq!(
            messages,
            [
                "Line 3 (“*.*”): a * can only start the line, before a domain, as in *.example.com.",
                "Line 4 (“https://news.ycombinator.com/item”): write the host alone: news.ycombinator.com.",
            ]
        );
        let rows = [
            (
                "https://",
                "Line 1 (“https://”): write a site’s host, such as example.com or *.example.com.",
            ),
            (
                "a.com b.com",
                "Line 1 (“a.com b.com”): a site has no spaces; put one site on each line.",
            ),
            (
                "exa$mple.com",
                "Line 1 (“exa$mple.com”): this is not a site’s host; write example.com or *.example.com.",
            ),
        ];
        for (line, expected) in rows {
            assert_eq!(
                Exclusions::parse(line).expect_err(line)[0].message(),
                expected
            );
        }
    }

    #[test]
    fn a_key_problem_names_the_character_and_never_the_key() {
        let rows = [
            (' ', "a space"),
            ('“', "““”"),
            ('é', "“é”"),
            ('\u{a0}', "U+00A0"),
            ('\t', "U+0009"),
        ];
        for (c, named) in rows {
            let message = KeyProblem::Character(c).to_string();
            assert_eq!(
                message,
                format!(
                    "The key has a character an API key cannot have ({named}). Copy it again from Google AI Studio and paste it here."
                ),
                "{c:?}"
            );
        }
    }

    #[test]
    fn the_kept_line_counts_pages() {
        assert!(kept_line(0).starts_with("No page is kept yet"));
        assert_eq!(kept_line(1), "1 page is kept that Chrome has forgotten.");
        assert_eq!(
            kept_line(12),
            "12 pages are kept that Chrome has forgotten."
        );
    }
}
