//! Where a page is found: the browser's history, its bookmarks, its open tabs. A question narrows
//! its search to some of them with source terms, read beside its `site:` terms
//! ([`crate::site_filter::parse`]):
//!
//! - `bookmark:` (or `bookmarks:`, French `favori:`/`favoris:`) searches the bookmarks,
//!   `tab:` (`tabs:`, `onglet:`/`onglets:`) the open tabs, `history:` (`historique:`) the history;
//!   several terms mean any of them; none means every source the user switched on.
//! - Case does not matter. A word glued to the term (`tab:rust`) is a word of the question.
//! - A source whose switch is off is not searched, named or not; the popup says so.

use serde::{Deserialize, Serialize};

/// One source of pages.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Origin {
    /// The browser's history (and the pages History Chat keeps after Chrome forgot them).
    History,
    /// The browser's bookmarks (the "Search my bookmarks" switch).
    Bookmark,
    /// The open tabs of every window (the "Search my open tabs" switch).
    Tab,
}

impl Origin {
    /// Every source, in the order chips and labels name them.
    pub const ALL: [Origin; 3] = [Origin::History, Origin::Bookmark, Origin::Tab];

    /// The term's normal form, as a chip shows it (`bookmark:`): English, whatever was typed (the
    /// chip's label is worded in the UI's language by the presentation layer).
    pub fn term(self) -> &'static str {
        match self {
            Origin::History => "history:",
            Origin::Bookmark => "bookmark:",
            Origin::Tab => "tab:",
        }
    }
}

/// The terms that name each source, lower case, English and French.
const TERMS: &[(&str, Origin)] = &[
    ("history:", Origin::History),
    ("historique:", Origin::History),
    ("bookmarks:", Origin::Bookmark),
    ("bookmark:", Origin::Bookmark),
    ("favoris:", Origin::Bookmark),
    ("favori:", Origin::Bookmark),
    ("tabs:", Origin::Tab),
    ("tab:", Origin::Tab),
    ("onglets:", Origin::Tab),
    ("onglet:", Origin::Tab),
];

/// The source a token names, and the word glued after it (empty when none): `None` when the token
/// is no source term.
pub fn origin_term(token: &str) -> Option<(Origin, &str)> {
    TERMS.iter().find_map(|(term, origin)| {
        let head = token.get(..term.len())?;
        head.eq_ignore_ascii_case(term)
            .then(|| (*origin, &token[term.len()..]))
    })
}

/// Which sources a question searches: those it names, or every one when it names none.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Origins {
    history: bool,
    bookmark: bool,
    tab: bool,
}

impl Origins {
    /// Whether the question named no source: every source is searched.
    pub fn is_empty(&self) -> bool {
        !(self.history || self.bookmark || self.tab)
    }

    /// Names `origin`: the question searches it (and the other named ones only).
    pub fn name(&mut self, origin: Origin) {
        match origin {
            Origin::History => self.history = true,
            Origin::Bookmark => self.bookmark = true,
            Origin::Tab => self.tab = true,
        }
    }

    /// Whether `origin` is searched: named, or nothing named.
    pub fn allows(&self, origin: Origin) -> bool {
        self.is_empty()
            || match origin {
                Origin::History => self.history,
                Origin::Bookmark => self.bookmark,
                Origin::Tab => self.tab,
            }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_source_term_is_read_in_either_language_and_case_with_its_glued_word() {
        let cases: &[(&str, Option<(Origin, &str)>)] = &[
            ("bookmark:", Some((Origin::Bookmark, ""))),
            ("Bookmarks:", Some((Origin::Bookmark, ""))),
            ("FAVORI:", Some((Origin::Bookmark, ""))),
            ("favoris:recette", Some((Origin::Bookmark, "recette"))),
            ("tab:", Some((Origin::Tab, ""))),
            ("tabs:rust", Some((Origin::Tab, "rust"))),
            ("onglet:", Some((Origin::Tab, ""))),
            ("Onglets:", Some((Origin::Tab, ""))),
            ("history:", Some((Origin::History, ""))),
            ("historique:", Some((Origin::History, ""))),
            ("tab", None),
            ("table:", None),
            ("bookmark", None),
            ("site:tab.com", None),
            ("histoire:", None),
            ("é:", None),
        ];
        for (token, expected) in cases {
            assert_eq!(origin_term(token), *expected, "{token}");
        }
    }

    #[test]
    fn no_source_named_searches_every_source_and_named_ones_only_those() {
        let none = Origins::default();
        assert!(Origin::ALL.iter().all(|o| none.allows(*o)));
        let mut named = Origins::default();
        named.name(Origin::Tab);
        named.name(Origin::Bookmark);
        assert!(named.allows(Origin::Tab));
        assert!(named.allows(Origin::Bookmark));
        assert!(!named.allows(Origin::History));
        assert!(!named.is_empty());
    }
}
