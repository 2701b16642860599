//! The user's Gemini API key as a type that cannot be printed: no `Display`, a `Debug` that says
//! only whether a key is set, and one way to read it, [`ApiKey::expose`], for the request header
//! and the options page's own field. So "never in a log, the console or the conversation" holds by
//! construction: formatting settings, a model client or an error cannot reveal it.

use std::fmt;

use serde::{Deserialize, Serialize};

/// A Gemini API key, stored as typed (a paste's spaces included) and read trimmed.
#[derive(Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct ApiKey(String);

impl ApiKey {
    /// The key as typed or pasted.
    pub fn new(text: impl Into<String>) -> ApiKey {
        ApiKey(text.into())
    }

    /// Whether a key is set (anything but spaces).
    pub fn is_set(&self) -> bool {
        !self.0.trim().is_empty()
    }

    /// The key itself, trimmed of the spaces a paste brings along. The only way to read it: for
    /// the `x-goog-api-key` header, and for the options page's key field.
    pub fn expose(&self) -> &str {
        self.0.trim()
    }
}

/// Why a key cannot be sent: a header carries visible ASCII only, and a Gemini key is made of
/// letters, digits, `-` and `_`. Its wording (`Display`) names the character, never the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum KeyProblem {
    /// A character no API key has: a space inside, a typographic quote, a letter with an accent,
    /// an invisible one (a no-break space, a tab).
    Character(char),
}

impl std::error::Error for KeyProblem {}

impl ApiKey {
    /// Whether the key can go into a request header as it is: visible ASCII only, once trimmed.
    pub fn check(&self) -> Result<(), KeyProblem> {
        match self.expose().chars().find(|c| !c.is_ascii_graphic()) {
            None => Ok(()),
            Some(c) => Err(KeyProblem::Character(c)),
        }
    }
}

impl fmt::Debug for ApiKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_set() {
            "ApiKey([redacted])"
        } else {
            "ApiKey(none)"
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_key_is_read_trimmed_and_never_printed() {
        let rows = [
            (
                "  AIzaSyFAKE-secret \n",
                true,
                "AIzaSyFAKE-secret",
                "ApiKey([redacted])",
            ),
            ("", false, "", "ApiKey(none)"),
            (" \t\n", false, "", "ApiKey(none)"),
        ];
        for (typed, set, exposed, printed) in rows {
            let key = ApiKey::new(typed);
            assert_eq!(key.is_set(), set, "{typed:?}");
            assert_eq!(key.expose(), exposed, "{typed:?}");
            assert_eq!(format!("{key:?}"), printed);
            assert_eq!(format!("{key:#?}"), printed);
        }
    }

    #[test]
    fn only_a_key_a_header_can_carry_is_accepted() {
        let rows: &[(&str, Option<char>)] = &[
            ("AIzaSyA-bc_123", None),
            ("  AIzaSyA-bc_123\n", None),
            ("AIza SyA", Some(' ')),
            ("“AIzaSyA”", Some('“')),
            ("AIzaSyé", Some('é')),
            ("AIza\u{00a0}Sy", Some('\u{a0}')),
            ("AIza\tSy", Some('\t')),
        ];
        for &(typed, found) in rows {
            let expected = found.map_or(Ok(()), |c| Err(KeyProblem::Character(c)));
            assert_eq!(ApiKey::new(typed).check(), expected, "{typed:?}");
        }
    }

    #[test]
    fn it_is_stored_as_a_plain_string() {
        let key = ApiKey::new("AIzaSyFAKE");
        let json = serde_json::to_string(&key).unwrap();
        assert_eq!(json, "\"AIzaSyFAKE\"");
        assert_eq!(serde_json::from_str::<ApiKey>(&json).unwrap(), key);
    }
}
