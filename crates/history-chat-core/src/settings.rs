//! The user's settings, stored as one JSON object under [`Settings::STORAGE_KEY`] in
//! `chrome.storage.sync`.
//!
//! Several versions of the extension can share one synced store (two computers, one updated first),
//! so loading never fails: a missing field takes its default, a field with a value this version does
//! not understand takes its default too, and fields this version does not know are kept in
//! [`Settings::other`] and written back untouched.
//!
//! A read that *failed* is another matter: it is never taken for the defaults ([`KnownSettings`]).

mod known;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::ai::Depth;
use crate::ai::provider::{Engine, ON_DEVICE_MODEL, Provider};
use crate::api_key::ApiKey;
use crate::exclusions::{Exclusions, lenient_lines};
use crate::gemini::{DEFAULT_MODEL, FALLBACK_MODEL};
use crate::lenient::or_default;
use crate::period::{DAY_MS, Period};

pub use known::{FIRST_RETRY_MS, KnownSettings, MAX_RETRY_MS, Remembered, retry_after_ms};

/// How long conversation turns are kept. Stored as `1d`, `7d`, `30d`, `90d` or `forever`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
pub enum Retention {
    /// One day.
    #[serde(rename = "1d")]
    Day,
    /// One week.
    #[serde(rename = "7d")]
    Week,
    /// Thirty days.
    #[default]
    #[serde(rename = "30d")]
    Month,
    /// Ninety days.
    #[serde(rename = "90d")]
    Quarter,
    /// Until the user clears the conversation.
    #[serde(rename = "forever")]
    Forever,
}

impl Retention {
    /// Every choice, shortest first.
    pub const ALL: [Retention; 5] = [
        Retention::Day,
        Retention::Week,
        Retention::Month,
        Retention::Quarter,
        Retention::Forever,
    ];

    /// Turns asked before this instant are expired; `None` when nothing expires.
    pub fn cutoff_ms(self, now_ms: i64) -> Option<i64> {
        let days = match self {
            Retention::Day => 1,
            Retention::Week => 7,
            Retention::Month => 30,
            Retention::Quarter => 90,
            Retention::Forever => return None,
        };
        Some(now_ms.saturating_sub(days * DAY_MS))
    }

    /// The stored value (`1d`, `7d`, `30d`, `90d`, `forever`), also the options page's option value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Retention::Day => "1d",
            Retention::Week => "7d",
            Retention::Month => "30d",
            Retention::Quarter => "90d",
            Retention::Forever => "forever",
        }
    }

    /// Parses [`Retention::as_str`]'s values.
    pub fn parse(value: &str) -> Option<Retention> {
        Retention::ALL.into_iter().find(|r| r.as_str() == value)
    }
}

/// An on/off setting that is on unless the user turned it off.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Switch {
    /// On (the default).
    #[default]
    On,
    /// Turned off by the user.
    Off,
}

impl Switch {
    /// Whether it is on.
    pub fn is_on(self) -> bool {
        self == Switch::On
    }

    /// The switch for a checkbox's state.
    pub fn from_on(on: bool) -> Switch {
        if on { Switch::On } else { Switch::Off }
    }
}

/// Everything the user can set.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Settings {
    /// The period selected when the popup opens.
    #[serde(default, deserialize_with = "or_default")]
    pub default_period: Period,
    /// How long the conversation is kept.
    #[serde(default, deserialize_with = "or_default")]
    pub retention: Retention,
    /// The user's Gemini API key; empty when none. Secret: never logged, never in a URL, never in
    /// the conversation ([`ApiKey`] cannot be printed).
    #[serde(default, deserialize_with = "or_default")]
    pub gemini_api_key: ApiKey,
    /// How many keywords a question is expanded into, in AI mode.
    #[serde(default, deserialize_with = "or_default")]
    pub depth: Depth,
    /// The Gemini model, such as `gemini-2.5-flash`; empty (the default) means [`DEFAULT_MODEL`], so
    /// users who never chose one follow the default when a model is retired.
    #[serde(default, deserialize_with = "or_default")]
    pub model: String,
    /// Which engine answers (Options → AI provider).
    #[serde(default, deserialize_with = "or_default")]
    pub provider: Provider,
    /// Whether local search also understands topics with the on-device embedding model (Options →
    /// Topic search). Off drops the semantic index.
    #[serde(default, deserialize_with = "or_default")]
    pub semantic_search: Switch,
    /// The excluded sites (Options → Excluded sites), one line each as the user wrote it
    /// ([`crate::exclusions`]): their pages are never indexed, shown or sent to a model. Read with
    /// [`Settings::exclusions`]; a line this version cannot read is kept here but not applied.
    #[serde(default, deserialize_with = "lenient_lines")]
    pub excluded_sites: Vec<String>,
    /// Whether pages stay in History Chat's own index (words and topic search) after Chrome
    /// forgets them at about 90 days (Options → "Keep pages searchable after Chrome forgets them";
    /// off by default). See [`crate::archive`] for which removals count as Chrome forgetting.
    #[serde(default, deserialize_with = "or_default")]
    pub keep_forgotten: bool,
    /// Whether the text of the pages the user visits is read, kept on this computer and searched
    /// (Options → "Search the content of the pages I visit"; off by default). Turning it on asks
    /// for access to the sites (http and https) in the click; off deletes what was read and
    /// gives the access back.
    #[serde(default, deserialize_with = "or_default")]
    pub read_content: bool,
    /// How much room the pages' content may take, in MB ([`ContentCap`]): past it, the oldest
    /// pages' content is deleted first.
    #[serde(default, deserialize_with = "or_default")]
    pub content_cap_mb: ContentCap,
    /// Whether Gemini may be sent the passage of a page's content that matched, beside the title
    /// and address of each candidate (off by default: content otherwise never leaves the
    /// computer). Kept for the AI pipeline's passages, not built yet: nothing reads it, the options
    /// page does not offer it, and no passage is sent to any model.
    #[serde(default, deserialize_with = "or_default")]
    pub content_to_gemini: bool,
    /// Fields written by other versions of the extension, kept as they are: written back
    /// flattened, read by [`Settings::from_stored`] (the derived reader of a flattened field would
    /// buffer every field through serde's `Content`, a second reader of each in every page).
    #[serde(flatten, skip_deserializing)]
    pub other: Map<String, Value>,
}

impl Default for Settings {
    fn default() -> Settings {
        Settings {
            default_period: Period::default(),
            retention: Retention::default(),
            gemini_api_key: ApiKey::default(),
            depth: Depth::default(),
            model: String::new(),
            provider: Provider::default(),
            semantic_search: Switch::default(),
            excluded_sites: Vec::new(),
            keep_forgotten: false,
            read_content: false,
            content_cap_mb: ContentCap::default(),
            content_to_gemini: false,
            other: Map::new(),
        }
    }
}

/// The room the pages' content may take, in MB: [`ContentCap::DEFAULT_MB`] unless the user set
/// another, always within [`ContentCap::MIN_MB`]..=[`ContentCap::MAX_MB`] (a stored value out of
/// them, or not a number, reads as the default).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(transparent)]
pub struct ContentCap(u32);

impl ContentCap {
    /// 500 MB: about 30,000 pages at the measured average, years of browsing for most people,
    /// and a small part of the disk Chrome lets an extension use.
    pub const DEFAULT_MB: u32 = 500;
    /// Less would keep too few pages to be worth reading them.
    pub const MIN_MB: u32 = 50;
    /// More than any history needs; a typo (a zero too many) cannot fill the disk.
    pub const MAX_MB: u32 = 10_000;

    /// The cap of `mb` megabytes, when it is within the bounds.
    pub fn new(mb: u32) -> Option<ContentCap> {
        (ContentCap::MIN_MB..=ContentCap::MAX_MB)
            .contains(&mb)
            .then_some(ContentCap(mb))
    }

    /// The cap the user typed in the options page (MB, digits only, surrounding spaces
    /// ignored), when it is a whole number within the bounds.
    pub fn parse(text: &str) -> Option<ContentCap> {
        let text = text.trim();
        if text.is_empty() || !text.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        text.parse().ok().and_then(ContentCap::new)
    }

    /// The cap in MB.
    pub fn mb(self) -> u32 {
        self.0
    }

    /// The cap in bytes (1 MB = 1,000,000 bytes, as storage is counted for the user).
    pub fn bytes(self) -> u64 {
        u64::from(self.0) * 1_000_000
    }
}

impl Default for ContentCap {
    fn default() -> ContentCap {
        ContentCap(ContentCap::DEFAULT_MB)
    }
}

impl<'de> Deserialize<'de> for ContentCap {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<ContentCap, D::Error> {
        let mb = u32::deserialize(deserializer)?;
        ContentCap::new(mb).ok_or_else(|| serde::de::Error::custom("content cap out of bounds"))
    }
}

impl Settings {
    /// The `chrome.storage.sync` key the settings live under.
    pub const STORAGE_KEY: &'static str = "settings";

    /// Reads stored settings, whatever they look like: anything that is not an object (nothing
    /// stored yet, or a corrupted value) gives the defaults.
    pub fn from_stored(value: Option<Value>) -> Settings {
        let Some(Value::Object(fields)) = value else {
            return Settings::default();
        };
        let mut settings: Settings =
            serde_json::from_value(Value::Object(fields.clone())).unwrap_or_default();
        settings.other = fields
            .into_iter()
            .filter(|(name, _)| !Settings::FIELDS.contains(&name.as_str()))
            .collect();
        settings
    }

    /// The stored names of this version's fields: every one is written, whatever its value (a
    /// test checks both), so a stored field not named here is another version's, kept in
    /// [`Settings::other`].
    pub const FIELDS: [&'static str; 12] = [
        "defaultPeriod",
        "retention",
        "geminiApiKey",
        "depth",
        "model",
        "provider",
        "semanticSearch",
        "excludedSites",
        "keepForgotten",
        "readContent",
        "contentCapMb",
        "contentToGemini",
    ];

    /// Whether a Gemini key is set (AI mode).
    pub fn has_api_key(&self) -> bool {
        self.gemini_api_key.is_set()
    }

    /// The key.
    pub fn api_key(&self) -> &ApiKey {
        &self.gemini_api_key
    }

    /// The model to ask: the configured one, or [`DEFAULT_MODEL`] when the field is blank.
    pub fn model_name(&self) -> &str {
        match self.model.trim() {
            "" => DEFAULT_MODEL,
            name => name,
        }
    }

    /// The model the AI pipeline asks when `engine` answers, and the one to try instead, once, if
    /// it is gone: the configured Gemini model then [`FALLBACK_MODEL`]; Chrome's one built-in
    /// model ([`ON_DEVICE_MODEL`], a name only recorded in the turn) with nothing instead.
    pub fn models_for(&self, engine: Engine) -> (String, Option<String>) {
        match engine {
            Engine::Gemini => (
                self.model_name().to_owned(),
                Some(FALLBACK_MODEL.to_owned()),
            ),
            Engine::OnDevice | Engine::Local => (ON_DEVICE_MODEL.to_owned(), None),
        }
    }

    /// The excluded sites, as they apply.
    pub fn exclusions(&self) -> Exclusions {
        Exclusions::from_lines(&self.excluded_sites)
    }

    /// The settings as they are stored.
    pub fn to_stored(&self) -> Value {
        serde_json::to_value(self).unwrap_or(Value::Null)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn each_engine_asks_its_own_model_and_only_gemini_has_a_fallback() {
        let settings = Settings {
            model: " gemini-2.5-pro ".into(),
            ..Settings::default()
        };
        assert_eq!(
            settings.models_for(Engine::Gemini),
            ("gemini-2.5-pro".to_owned(), Some(FALLBACK_MODEL.to_owned()))
        );
        assert_eq!(
            settings.models_for(Engine::OnDevice),
            (ON_DEVICE_MODEL.to_owned(), None)
        );
    }

    #[test]
    fn defaults_are_seven_days_and_thirty_days_retention_and_no_key() {
        let defaults = Settings::default();
        assert_eq!(defaults.default_period, Period::Week);
        assert_eq!(defaults.retention, Retention::Month);
        assert_eq!(
            defaults.to_stored(),
            json!({"defaultPeriod": "7d", "retention": "30d", "geminiApiKey": "", "depth": "regular", "model": "", "provider": "auto", "semanticSearch": "on", "excludedSites": [], "keepForgotten": false, "readContent": false, "contentCapMb": 500, "contentToGemini": false})
        );
        assert!(!defaults.has_api_key());
        assert_eq!(defaults.model_name(), DEFAULT_MODEL);
    }

    #[test]
    fn loads_whatever_is_stored() {
        let month = Settings {
            default_period: Period::Month,
            ..Settings::default()
        };
        let rows: Vec<(Option<Value>, Settings)> = vec![
            (None, Settings::default()),
            (Some(json!(null)), Settings::default()),
            (Some(json!("garbage")), Settings::default()),
            (Some(json!([1, 2])), Settings::default()),
            (Some(json!({})), Settings::default()),
            (Some(json!({"defaultPeriod": "30d"})), month.clone()),
            // A value from a newer version this one does not know: that field alone falls back.
            (
                Some(json!({"defaultPeriod": "30d", "retention": "365d"})),
                month.clone(),
            ),
            (
                Some(json!({"defaultPeriod": 42, "retention": "1d"})),
                Settings {
                    retention: Retention::Day,
                    ..Settings::default()
                },
            ),
            (
                Some(json!({"keepForgotten": true})),
                Settings {
                    keep_forgotten: true,
                    ..Settings::default()
                },
            ),
            // Pages are kept only when the user said so, in so many words.
            (Some(json!({"keepForgotten": "yes"})), Settings::default()),
            // Pages are read only when the user said so; a cap out of its bounds is the default.
            (
                Some(json!({"readContent": true, "contentCapMb": 2_000})),
                Settings {
                    read_content: true,
                    content_cap_mb: ContentCap(2_000),
                    ..Settings::default()
                },
            ),
            (Some(json!({"readContent": "true"})), Settings::default()),
            (Some(json!({"contentCapMb": 0})), Settings::default()),
            (Some(json!({"contentCapMb": 49})), Settings::default()),
            (Some(json!({"contentCapMb": 10_001})), Settings::default()),
            (Some(json!({"contentCapMb": -5})), Settings::default()),
            (Some(json!({"contentCapMb": "500"})), Settings::default()),
            (Some(json!({"keepForgotten": 1})), Settings::default()),
            (Some(json!({"keepForgotten": null})), Settings::default()),
        ];
        for (stored, expected) in rows {
            assert_eq!(
                Settings::from_stored(stored.clone()),
                expected,
                "from_stored({stored:?})"
            );
        }
    }

    #[test]
    fn a_typed_cap_is_a_whole_number_of_mb_within_the_bounds() {
        let rows = [
            ("500", Some(500)),
            (" 2000 ", Some(2_000)),
            ("50", Some(50)),
            ("10000", Some(10_000)),
            ("49", None),
            ("10001", None),
            ("0", None),
            ("", None),
            ("   ", None),
            ("-100", None),
            ("+100", None),
            ("1e3", None),
            ("250.5", None),
            ("abc", None),
            ("99999999999999999999", None),
        ];
        for (typed, mb) in rows {
            assert_eq!(
                ContentCap::parse(typed).map(ContentCap::mb),
                mb,
                "{typed:?}"
            );
        }
    }

    #[test]
    fn unknown_fields_from_newer_versions_survive_a_round_trip() {
        let stored = json!({"defaultPeriod": "24h", "retention": "forever", "geminiApiKey": "k", "depth": "sheerlock",
                            "model": "gemini-3-flash", "provider": "onDevice", "semanticSearch": "off",
                            "excludedSites": ["a.com", "*.b.org", "future.*.syntax"],
                            "keepForgotten": true, "readContent": true, "contentCapMb": 800,
                            "contentToGemini": false, "future": {"x": 1}});
        let settings = Settings::from_stored(Some(stored.clone()));
        assert_eq!(settings.default_period, Period::Day);
        assert_eq!(settings.retention, Retention::Forever);
        assert_eq!(settings.depth, Depth::Sheerlock);
        assert!(!settings.semantic_search.is_on());
        // A line this version cannot read is kept, and not applied.
        assert_eq!(settings.exclusions().lines(), ["a.com", "*.b.org"]);
        assert!(settings.keep_forgotten);
        assert!(settings.read_content);
        assert_eq!(settings.content_cap_mb.mb(), 800);
        assert_eq!(
            settings.other,
            Map::from_iter([(String::from("future"), json!({"x": 1}))]),
            "only the unknown field is kept aside"
        );
        assert_eq!(settings.to_stored(), stored);
    }

    #[test]
    fn every_field_is_written_whatever_its_value_and_named_in_fields() {
        let changed = Settings {
            default_period: Period::Day,
            retention: Retention::Forever,
            gemini_api_key: ApiKey::new("k"),
            depth: Depth::Sheerlock,
            model: "m".into(),
            provider: Provider::OnDevice,
            semantic_search: Switch::Off,
            excluded_sites: vec!["a.com".into()],
            keep_forgotten: true,
            read_content: true,
            content_cap_mb: ContentCap(2_000),
            content_to_gemini: true,
            other: Map::new(),
        };
        for settings in [Settings::default(), changed] {
            let stored = settings.to_stored();
            let mut names: Vec<&str> = stored
                .as_object()
                .map(|fields| fields.keys().map(String::as_str).collect())
                .unwrap_or_default();
            names.sort_unstable();
            let mut fields = Settings::FIELDS.to_vec();
            fields.sort_unstable();
            assert_eq!(names, fields, "{settings:?}");
        }
    }

    #[test]
    fn excluded_sites_load_leniently() {
        let rows: &[(Value, &[&str])] = &[
            (json!({}), &[]),
            (json!({"excludedSites": "a.com"}), &[]),
            (json!({"excludedSites": null}), &[]),
            (
                json!({"excludedSites": ["a.com", 5, null, "*.b.org"]}),
                &["a.com", "*.b.org"],
            ),
        ];
        for (stored, lines) in rows {
            let settings = Settings::from_stored(Some(stored.clone()));
            assert_eq!(settings.excluded_sites, *lines, "{stored}");
            // The rest of the settings still load.
            assert_eq!(settings.default_period, Period::Week, "{stored}");
        }
    }

    #[test]
    fn settings_from_the_first_version_load_with_ai_defaults() {
        let settings =
            Settings::from_stored(Some(json!({"defaultPeriod": "30d", "retention": "7d"})));
        assert_eq!(
            (
                settings.depth,
                settings.model_name(),
                settings.has_api_key()
            ),
            (Depth::Regular, DEFAULT_MODEL, false)
        );
    }

    #[test]
    fn key_and_model_are_read_trimmed_and_the_key_never_prints() {
        let settings = Settings {
            gemini_api_key: ApiKey::new("  AIzaSyFAKE-secret \n"),
            model: "   ".into(),
            ..Settings::default()
        };
        assert_eq!(settings.api_key().expose(), "AIzaSyFAKE-secret");
        assert_eq!(settings.model_name(), DEFAULT_MODEL);
        let printed = format!("{settings:?}");
        assert!(!printed.contains("secret"), "{printed}");
        assert!(printed.contains("[redacted]"));
    }

    #[test]
    fn every_retention_round_trips_and_has_its_cutoff() {
        let now = 1_780_000_000_000;
        for retention in Retention::ALL {
            assert_eq!(Retention::parse(retention.as_str()), Some(retention));
            let stored = Settings {
                retention,
                ..Settings::default()
            }
            .to_stored();
            assert_eq!(Settings::from_stored(Some(stored)).retention, retention);
        }
        assert_eq!(Retention::Day.cutoff_ms(now), Some(now - DAY_MS));
        assert_eq!(Retention::Quarter.cutoff_ms(now), Some(now - 90 * DAY_MS));
        assert_eq!(Retention::Forever.cutoff_ms(now), None);
    }
}
