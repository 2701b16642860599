//! What the extension may act on when the settings could not be read.
//!
//! A failed read of `chrome.storage.sync` is not the defaults: acting on the defaults would prune a
//! conversation the user keeps forever, show or index the pages of the sites they excluded, and, in
//! the options page, overwrite their key with an empty one at the next change. So every reader
//! holds a [`KnownSettings`]: the settings as read, the part of them last read successfully
//! ([`Remembered`], kept in `chrome.storage.local` by the service worker), or nothing. Each
//! decision asks for exactly what it needs and gets `None` when that is not known:
//!
//! | decision                         | read | remembered | unknown |
//! |----------------------------------|------|------------|---------|
//! | prune the conversation (retention) | yes  | no         | no      |
//! | filter excluded sites' pages       | yes  | yes        | no: nothing that needs filtering is served |
//! | judge Chrome's expiry (keep pages) | yes  | yes        | no: nothing kept is forgotten |
//! | start topic search                 | yes  | yes        | no      |
//! | read a visited page's content      | yes  | yes        | no: nothing is read |
//! | the content's cap (evict past it)  | yes  | yes        | no: nothing is evicted |
//!
//! The worker tries the read again ([`retry_after_ms`]) until it succeeds.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::exclusions::{Exclusions, lenient_lines};
use crate::lenient::or_default;
use crate::settings::{ContentCap, Retention, Settings, Switch};

/// The settings that decide what is filtered, kept or started, as last read successfully — never
/// the Gemini key, which stays in `chrome.storage.sync` alone. Stored in `chrome.storage.local`
/// under [`Remembered::STORAGE_KEY`] (not a conversation key: the conversation's readers ignore it).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Remembered {
    /// [`Settings::excluded_sites`].
    #[serde(default, deserialize_with = "lenient_lines")]
    pub excluded_sites: Vec<String>,
    /// [`Settings::keep_forgotten`].
    #[serde(default, deserialize_with = "or_default")]
    pub keep_forgotten: bool,
    /// [`Settings::semantic_search`].
    #[serde(default, deserialize_with = "or_default")]
    pub semantic_search: Switch,
    /// [`Settings::read_content`].
    #[serde(default, deserialize_with = "or_default")]
    pub read_content: bool,
    /// [`Settings::content_cap_mb`].
    #[serde(default, deserialize_with = "or_default")]
    pub content_cap_mb: ContentCap,
}

impl Remembered {
    /// The `chrome.storage.local` key.
    pub const STORAGE_KEY: &'static str = "settings-remembered";

    /// What to remember of settings just read.
    pub fn of(settings: &Settings) -> Remembered {
        Remembered {
            excluded_sites: settings.excluded_sites.clone(),
            keep_forgotten: settings.keep_forgotten,
            semantic_search: settings.semantic_search,
            read_content: settings.read_content,
            content_cap_mb: settings.content_cap_mb,
        }
    }

    /// Reads a stored value; `None` when there is none or it is not an object (then nothing is
    /// known).
    pub fn from_stored(value: Option<&Value>) -> Option<Remembered> {
        match value {
            Some(value @ Value::Object(_)) => serde_json::from_value(value.clone()).ok(),
            _ => None,
        }
    }

    /// The value to store.
    pub fn to_stored(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

/// The settings as far as they are known: read now, remembered from the last successful read, or
/// not known at all.
#[derive(Debug, Clone, PartialEq)]
pub enum KnownSettings {
    /// Read from `chrome.storage.sync` just now.
    Read(Settings),
    /// The read failed; this was remembered from the last one that did not.
    Remembered(Remembered),
    /// The read failed and nothing is remembered.
    Unknown,
}

impl KnownSettings {
    /// From a read's outcome and what is remembered (the read wins when it succeeded).
    pub fn from_read<E>(
        read: Result<Settings, E>,
        remembered: Option<Remembered>,
    ) -> KnownSettings {
        match (read, remembered) {
            (Ok(settings), _) => KnownSettings::Read(settings),
            (Err(_), Some(remembered)) => KnownSettings::Remembered(remembered),
            (Err(_), None) => KnownSettings::Unknown,
        }
    }

    /// Whether the settings were read just now.
    pub fn is_read(&self) -> bool {
        matches!(self, KnownSettings::Read(_))
    }

    /// The settings as read; `None` when the read failed.
    pub fn read(&self) -> Option<&Settings> {
        match self {
            KnownSettings::Read(settings) => Some(settings),
            KnownSettings::Remembered(_) | KnownSettings::Unknown => None,
        }
    }

    /// The retention to prune the conversation with: only from a read, since pruning deletes.
    pub fn retention(&self) -> Option<Retention> {
        self.read().map(|settings| settings.retention)
    }

    /// The excluded sites; `None` when unknown (then nothing that needs filtering is served).
    pub fn exclusions(&self) -> Option<Exclusions> {
        match self {
            KnownSettings::Read(settings) => Some(settings.exclusions()),
            KnownSettings::Remembered(remembered) => {
                Some(Exclusions::from_lines(&remembered.excluded_sites))
            }
            KnownSettings::Unknown => None,
        }
    }

    /// "Keep pages searchable after Chrome forgets them"; `None` when unknown.
    pub fn keep_forgotten(&self) -> Option<bool> {
        match self {
            KnownSettings::Read(settings) => Some(settings.keep_forgotten),
            KnownSettings::Remembered(remembered) => Some(remembered.keep_forgotten),
            KnownSettings::Unknown => None,
        }
    }

    /// The topic-search switch; `None` when unknown (topic search waits).
    pub fn semantic_search(&self) -> Option<Switch> {
        match self {
            KnownSettings::Read(settings) => Some(settings.semantic_search),
            KnownSettings::Remembered(remembered) => Some(remembered.semantic_search),
            KnownSettings::Unknown => None,
        }
    }

    /// "Search the content of the pages I visit"; `None` when unknown (then nothing is read).
    pub fn read_content(&self) -> Option<bool> {
        match self {
            KnownSettings::Read(settings) => Some(settings.read_content),
            KnownSettings::Remembered(remembered) => Some(remembered.read_content),
            KnownSettings::Unknown => None,
        }
    }

    /// The room the pages' content may take; `None` when unknown (then nothing is evicted).
    pub fn content_cap(&self) -> Option<ContentCap> {
        match self {
            KnownSettings::Read(settings) => Some(settings.content_cap_mb),
            KnownSettings::Remembered(remembered) => Some(remembered.content_cap_mb),
            KnownSettings::Unknown => None,
        }
    }
}

/// The first retry of a failed settings read comes after this long.
pub const FIRST_RETRY_MS: u32 = 1_000;
/// Retries are never further apart than this.
pub const MAX_RETRY_MS: u32 = 60_000;

/// How long the worker waits before the `attempt`-th retry (1 for the first) of a settings read
/// that failed: [`FIRST_RETRY_MS`], doubled each time, at most [`MAX_RETRY_MS`] — quick for a
/// passing hiccup, cheap for a store that stays broken.
pub fn retry_after_ms(attempt: u32) -> u32 {
    let doublings = attempt.saturating_sub(1).min(16);
    FIRST_RETRY_MS
        .saturating_mul(1 << doublings)
        .min(MAX_RETRY_MS)
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::api_key::ApiKey;

    fn stored() -> Settings {
        Settings {
            retention: Retention::Forever,
            gemini_api_key: ApiKey::new("AIzaSy-secret"),
            excluded_sites: vec!["bank.example".into()],
            keep_forgotten: true,
            semantic_search: Switch::Off,
            ..Settings::default()
        }
    }

    #[test]
    fn each_decision_gets_only_what_is_known_for_it() {
        let remembered = Remembered::of(&stored());
        let bank = "https://bank.example/login";
        // (what is known, prunes with, excludes the bank, keeps forgotten pages, topic search)
        type Row = (
            KnownSettings,
            Option<Retention>,
            Option<bool>,
            Option<bool>,
            Option<Switch>,
        );
        let rows: Vec<Row> = vec![
            (
                KnownSettings::Read(stored()),
                Some(Retention::Forever),
                Some(true),
                Some(true),
                Some(Switch::Off),
            ),
            (
                KnownSettings::Read(Settings::default()),
                Some(Retention::Month),
                Some(false),
                Some(false),
                Some(Switch::On),
            ),
            // A failed read never prunes: pruning deletes.
            (
                KnownSettings::Remembered(remembered),
                None,
                Some(true),
                Some(true),
                Some(Switch::Off),
            ),
            (KnownSettings::Unknown, None, None, None, None),
        ];
        for (known, retention, excludes, keep, topics) in rows {
            assert_eq!(known.retention(), retention, "{known:?}");
            assert_eq!(
                known.exclusions().map(|e| e.excludes(bank)),
                excludes,
                "{known:?}"
            );
            assert_eq!(known.keep_forgotten(), keep, "{known:?}");
            assert_eq!(known.semantic_search(), topics, "{known:?}");
        }
        // Content is read only when the switch is known to be on, from a read or remembered.
        let reading = Settings {
            read_content: true,
            content_cap_mb: ContentCap::new(800).unwrap_or_default(),
            ..stored()
        };
        let rows = [
            (KnownSettings::Read(reading.clone()), Some(true), Some(800)),
            (
                KnownSettings::Read(Settings::default()),
                Some(false),
                Some(500),
            ),
            (
                KnownSettings::Remembered(Remembered::of(&reading)),
                Some(true),
                Some(800),
            ),
            (KnownSettings::Unknown, None, None),
        ];
        for (known, read, cap) in rows {
            assert_eq!(known.read_content(), read, "{known:?}");
            assert_eq!(known.content_cap().map(ContentCap::mb), cap, "{known:?}");
        }
    }

    #[test]
    fn a_read_wins_and_a_failed_read_falls_back_to_what_is_remembered() {
        let remembered = Remembered::of(&stored());
        let rows: Vec<(Result<Settings, ()>, Option<Remembered>, KnownSettings)> = vec![
            (
                Ok(stored()),
                Some(Remembered::default()),
                KnownSettings::Read(stored()),
            ),
            (Ok(stored()), None, KnownSettings::Read(stored())),
            (
                Err(()),
                Some(remembered.clone()),
                KnownSettings::Remembered(remembered),
            ),
            (Err(()), None, KnownSettings::Unknown),
        ];
        for (read, remembered, expected) in rows {
            let known = KnownSettings::from_read(read.clone(), remembered.clone());
            assert_eq!(known, expected, "{read:?} {remembered:?}");
            assert_eq!(known.is_read(), read.is_ok());
        }
    }

    #[test]
    fn what_is_remembered_never_holds_the_key() {
        let value = Remembered::of(&stored()).to_stored();
        assert_eq!(
            value,
            json!({"excludedSites": ["bank.example"], "keepForgotten": true, "semanticSearch": "off",
                   "readContent": false, "contentCapMb": 500})
        );
        assert!(!value.to_string().contains("secret"));
    }

    #[test]
    fn a_remembered_value_is_read_leniently_and_anything_else_is_nothing() {
        let rows: Vec<(Option<Value>, Option<Remembered>)> = vec![
            (None, None),
            (Some(json!(null)), None),
            (Some(json!("bank.example")), None),
            (Some(json!([1])), None),
            (Some(json!({})), Some(Remembered::default())),
            (
                Some(
                    json!({"excludedSites": ["a.example", 7], "keepForgotten": "yes", "semanticSearch": "off",
                           "readContent": "yes", "contentCapMb": 1}),
                ),
                Some(Remembered {
                    excluded_sites: vec!["a.example".into()],
                    keep_forgotten: false,
                    semantic_search: Switch::Off,
                    read_content: false,
                    content_cap_mb: ContentCap::default(),
                }),
            ),
        ];
        for (value, expected) in rows {
            assert_eq!(
                Remembered::from_stored(value.as_ref()),
                expected,
                "{value:?}"
            );
        }
    }

    #[test]
    fn retries_double_from_a_second_to_a_minute() {
        let delays: Vec<u32> = (1..=9).map(retry_after_ms).collect();
        assert_eq!(
            delays,
            [
                1_000, 2_000, 4_000, 8_000, 16_000, 32_000, 60_000, 60_000, 60_000
            ]
        );
        assert_eq!(retry_after_ms(0), FIRST_RETRY_MS);
        assert_eq!(retry_after_ms(u32::MAX), MAX_RETRY_MS);
    }
}
