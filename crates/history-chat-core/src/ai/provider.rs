//! Which engine answers a question: the local search, Gemini with the user's key, or Chrome's
//! built-in model on the device — from the user's choice and what this browser can do.

use serde::{Deserialize, Serialize};

/// The user's choice in Options. Stored as `auto`, `local`, `gemini`, `onDevice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Provider {
    /// The best available: on-device when ready, else Gemini when a key is set, else local.
    #[default]
    Auto,
    /// Never any model: the local search only.
    Local,
    /// Gemini with the user's key.
    Gemini,
    /// Chrome's built-in model only (nothing leaves the device); local search when it is not ready.
    OnDevice,
}

impl Provider {
    /// Every choice, in the options page's order.
    pub const ALL: [Provider; 4] = [
        Provider::Auto,
        Provider::Local,
        Provider::Gemini,
        Provider::OnDevice,
    ];

    /// The stored value, also the options page's radio value.
    pub const fn as_str(self) -> &'static str {
        match self {
            Provider::Auto => "auto",
            Provider::Local => "local",
            Provider::Gemini => "gemini",
            Provider::OnDevice => "onDevice",
        }
    }

    /// Parses [`Provider::as_str`]'s values.
    pub fn parse(value: &str) -> Option<Provider> {
        Provider::ALL.into_iter().find(|p| p.as_str() == value)
    }

    /// Whether Chrome's built-in model may answer ([`choose`] then needs its availability).
    pub const fn may_use_device(self) -> bool {
        matches!(self, Provider::Auto | Provider::OnDevice)
    }
}

/// What `LanguageModel.availability()` says, plus `Unsupported` when there is no `LanguageModel`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Availability {
    /// This browser has no Prompt API.
    #[default]
    Unsupported,
    /// The device cannot run the model.
    Unavailable,
    /// The model can be downloaded (after a user gesture).
    Downloadable,
    /// The model is being downloaded.
    Downloading,
    /// Ready.
    Available,
}

impl Availability {
    /// Reads the API's answer; anything unknown counts as unavailable.
    pub fn parse(value: &str) -> Availability {
        match value {
            "available" | "readily" => Availability::Available,
            "downloadable" | "after-download" => Availability::Downloadable,
            "downloading" => Availability::Downloading,
            "unsupported" => Availability::Unsupported,
            _ => Availability::Unavailable,
        }
    }
}

/// The engine that answers a question; stored in each turn as `local`, `gemini` or `onDevice`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Engine {
    /// The local search: the index, topic search and the browser's history search; nothing leaves
    /// the machine.
    #[default]
    Local,
    /// Gemini with the user's key.
    Gemini,
    /// Chrome's built-in model.
    OnDevice,
}

/// The name a turn records for Chrome's built-in model (the Prompt API does not name it).
pub const ON_DEVICE_MODEL: &str = "gemini-nano";

/// Why the engine that answers is not the one the user chose. Stored in a turn,
/// worded when shown ([`Fallback::message`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Fallback {
    /// Gemini was chosen and no key is set: searched locally.
    NoApiKey,
    /// On-device was chosen and Chrome's model cannot answer now: searched locally.
    OnDeviceNotReady {
        /// What the browser said.
        availability: Availability,
    },
}

/// The engine for the next question, and, when it is not the one the user asked for, why.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Choice {
    /// Who answers.
    pub engine: Engine,
    /// Why not the preferred engine; `None` when the choice is what the user asked for.
    pub fallback: Option<Fallback>,
}

/// Chooses the engine. An explicit on-device choice never falls back to Gemini (the user chose to
/// keep everything on the device): it falls back to the local search.
pub fn choose(provider: Provider, has_key: bool, on_device: Availability) -> Choice {
    let plain = |engine| Choice {
        engine,
        fallback: None,
    };
    let local = |fallback| Choice {
        engine: Engine::Local,
        fallback: Some(fallback),
    };
    match provider {
        Provider::Local => plain(Engine::Local),
        Provider::Gemini if has_key => plain(Engine::Gemini),
        Provider::Gemini => local(Fallback::NoApiKey),
        Provider::OnDevice | Provider::Auto if on_device == Availability::Available => {
            plain(Engine::OnDevice)
        }
        Provider::OnDevice => local(Fallback::OnDeviceNotReady {
            availability: on_device,
        }),
        Provider::Auto if has_key => plain(Engine::Gemini),
        Provider::Auto => plain(Engine::Local),
    }
}

/// The engine that answers `question` when `engine` was chosen: a question of `site:` terms only
/// ([`crate::site_filter::SiteQuestion::only_sites`]) lists the sites' most recent pages, which
/// the local search does at once; there is nothing to ask a model.
pub fn engine_for(question: &str, engine: Engine) -> Engine {
    match crate::site_filter::parse(question).only_sites() {
        true => Engine::Local,
        false => engine,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_question_of_site_terms_only_is_answered_locally() {
        for engine in [Engine::Local, Engine::Gemini, Engine::OnDevice] {
            assert_eq!(engine_for("site:github.com", engine), Engine::Local);
            assert_eq!(
                engine_for(" site:a.com  -site:b.a.com ", engine),
                Engine::Local
            );
            assert_eq!(engine_for("site:github.com cte", engine), engine);
            assert_eq!(engine_for("site:https://", engine), engine);
            assert_eq!(engine_for("cte", engine), engine);
        }
    }

    #[test]
    fn choices() {
        use Availability::*;
        use Engine::{Gemini as G, Local as L, OnDevice as D};
        let rows: &[(Provider, bool, Availability, Engine, bool)] = &[
            // (provider, key set, on-device availability, engine, a note explains the fallback)
            (Provider::Auto, false, Available, D, false),
            (Provider::Auto, true, Available, D, false),
            (Provider::Auto, true, Unavailable, G, false),
            (Provider::Auto, true, Downloadable, G, false),
            (Provider::Auto, false, Unsupported, L, false),
            (Provider::Auto, false, Downloading, L, false),
            (Provider::Local, true, Available, L, false),
            (Provider::Gemini, true, Available, G, false),
            (Provider::Gemini, false, Available, L, true),
            (Provider::OnDevice, true, Available, D, false),
            (Provider::OnDevice, true, Unavailable, L, true),
            (Provider::OnDevice, false, Downloadable, L, true),
            (Provider::OnDevice, false, Unsupported, L, true),
        ];
        for &(provider, key, availability, engine, noted) in rows {
            let choice = choose(provider, key, availability);
            assert_eq!(
                choice.engine, engine,
                "{provider:?} key={key} {availability:?}"
            );
            assert_eq!(
                choice.fallback.is_some(),
                noted,
                "{provider:?} key={key} {availability:?}: {:?}",
                choice.fallback
            );
        }
        assert_eq!(
            choose(Provider::OnDevice, false, Unavailable).fallback,
            Some(Fallback::OnDeviceNotReady {
                availability: Unavailable
            })
        );
        assert_eq!(
            choose(Provider::Gemini, false, Available).fallback,
            Some(Fallback::NoApiKey)
        );
    }

    #[test]
    fn availability_reads_current_and_older_api_values() {
        let rows = [
            ("available", Availability::Available),
            ("readily", Availability::Available),
            ("downloadable", Availability::Downloadable),
            ("after-download", Availability::Downloadable),
            ("downloading", Availability::Downloading),
            ("unavailable", Availability::Unavailable),
            ("no", Availability::Unavailable),
            ("", Availability::Unavailable),
            ("unsupported", Availability::Unsupported),
        ];
        for (value, expected) in rows {
            assert_eq!(Availability::parse(value), expected, "{value}");
        }
    }

    #[test]
    fn providers_round_trip() {
        for provider in Provider::ALL {
            assert_eq!(Provider::parse(provider.as_str()), Some(provider));
            let json = serde_json::to_string(&provider).unwrap();
            assert_eq!(json, format!("\"{}\"", provider.as_str()));
        }
    }
}
