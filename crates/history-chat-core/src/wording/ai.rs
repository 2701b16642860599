//! AI mode as the user reads it: the engines and the options page's choices (providers, depths),
//! why Chrome's model cannot answer now and why another engine answered, what a model's failure
//! means and what to do, and the pipeline's steps and notices.

use crate::ai::Depth;
use crate::ai::model::ModelFailure;
use crate::ai::pipeline::{Notice, Progress};
use crate::ai::prompts::MAX_PICKS;
use crate::ai::provider::{Availability, Engine, Fallback, Provider};

use super::search::no_results_message;

/// The depths' wording, for the options page.
impl Depth {
    /// The options page's label.
    pub fn label(self) -> String {
        match self {
            Depth::Superficial => t!("depth_superficial"),
            Depth::Regular => t!("depth_regular"),
            Depth::Exhaustive => t!("depth_exhaustive"),
            Depth::Sheerlock => t!("depth_sheerlock"),
        }
    }

    /// One line under the label on the options page.
    pub fn description(self) -> String {
        match self {
            Depth::Superficial => t!("depth_superficial_description"),
            Depth::Regular => t!("depth_regular_description"),
            Depth::Exhaustive => t!("depth_exhaustive_description"),
            Depth::Sheerlock => t!("depth_sheerlock_description"),
        }
    }
}

/// The providers' wording, for the options page.
impl Provider {
    /// The options page's label.
    pub fn label(self) -> String {
        match self {
            Provider::Auto => t!("provider_auto"),
            Provider::Local => t!("provider_local"),
            Provider::Gemini => t!("provider_gemini"),
            Provider::OnDevice => t!("provider_on_device"),
        }
    }

    /// One line under the label.
    pub fn description(self) -> String {
        match self {
            Provider::Auto => t!("provider_auto_description"),
            Provider::Local => t!("provider_local_description"),
            Provider::Gemini => t!("provider_gemini_description"),
            Provider::OnDevice => t!("provider_on_device_description"),
        }
    }
}

/// What the browser says of Chrome's model, as the user reads it.
impl Availability {
    /// One line saying why on-device AI cannot answer now; `None` when it can.
    pub fn reason(self) -> Option<String> {
        match self {
            Availability::Available => None,
            Availability::Unsupported => Some(t!("availability_unsupported")),
            Availability::Unavailable => Some(t!("availability_unavailable")),
            Availability::Downloadable => Some(t!("availability_downloadable")),
            Availability::Downloading => Some(t!("availability_downloading")),
        }
    }
}

/// The engines' names.
impl Engine {
    /// How the popup names the engine that answered.
    pub fn label(self) -> String {
        match self {
            Engine::Local => t!("engine_local"),
            Engine::Gemini => t!("engine_gemini"),
            Engine::OnDevice => t!("engine_on_device"),
        }
    }

    /// The model's name in a sentence ("Gemini took too long…").
    pub fn model_name(self) -> String {
        match self {
            Engine::Gemini => t!("engine_gemini_model"),
            Engine::OnDevice => t!("engine_on_device_model"),
            // The local search has no model to fail; said plainly should it ever be asked.
            Engine::Local => t!("engine_local_model"),
        }
    }
}

/// Why another engine answered, as a turn's note says it.
impl Fallback {
    /// One sentence for the user: why, and what to do.
    pub fn message(self) -> String {
        match self {
            Fallback::NoApiKey => t!("fallback_no_api_key"),
            Fallback::OnDeviceNotReady { availability } => t!(
                "fallback_searched_locally",
                availability.reason().unwrap_or_default()
            ),
        }
    }
}

/// A model's failure, as the user reads it.
impl ModelFailure {
    /// One sentence for the user: what happened and what to do, naming the model that failed
    /// (`engine`: a time limit, an empty, cut or declined answer can come from either model; the
    /// key, quota and server failures only from Gemini). The UI adds the link to Options.
    pub fn user_message(&self, engine: Engine) -> String {
        let model = engine.model_name();
        match self {
            ModelFailure::KeyRejected => t!("failure_key_rejected"),
            ModelFailure::PermissionDenied => t!("failure_permission_denied"),
            ModelFailure::RegionUnsupported => t!("failure_region_unsupported"),
            ModelFailure::ModelNotFound { model } if model.is_empty() => {
                t!("failure_model_not_found")
            }
            ModelFailure::ModelNotFound { model } => t!("failure_model_not_found_named", model),
            ModelFailure::QuotaExhausted {
                retry_after_s: Some(seconds),
            } => t!("failure_quota_exhausted_for_now", wait_phrase(*seconds)),
            ModelFailure::QuotaExhausted {
                retry_after_s: None,
            } => {
                t!("failure_quota_exhausted")
            }
            ModelFailure::Overloaded => t!("failure_overloaded"),
            ModelFailure::ServerError { status } => t!("failure_server_error", status),
            ModelFailure::BadRequest { message } => t!("failure_bad_request", message),
            ModelFailure::Network => t!("failure_network", model),
            ModelFailure::Timeout => t!("failure_timeout", model),
            ModelFailure::Cancelled => t!("failure_cancelled"),
            ModelFailure::Blocked { reason } => t!("failure_blocked", model, reason),
            ModelFailure::Truncated => t!("failure_truncated", model),
            ModelFailure::Empty => t!("failure_empty", model),
            ModelFailure::Unavailable { reason } => {
                t!("failure_unavailable", unavailable_reason(reason))
            }
            ModelFailure::ContextOverflow => t!("failure_context_overflow"),
        }
    }

    /// One sentence for the user when a download of Chrome's built-in model they asked for fails.
    pub fn download_message(&self) -> String {
        match self {
            ModelFailure::Unavailable { reason } => {
                t!("download_failed_because", unavailable_reason(reason))
            }
            ModelFailure::Cancelled => t!("download_cancelled"),
            other => t!("download_failed", other.user_message(Engine::OnDevice)),
        }
    }
}

/// The reason of [`ModelFailure::Unavailable`], fit for a message's `($1)`: the browser's own, or
/// "the model failed" when it gave none.
pub(super) fn unavailable_reason(reason: &str) -> String {
    if reason.is_empty() {
        t!("on_device_failed")
    } else {
        reason.to_owned()
    }
}

/// "22 s", "3 min".
fn wait_phrase(seconds: u32) -> String {
    if seconds < 120 {
        t!("wait_seconds", seconds)
    } else {
        t!("wait_minutes", seconds.div_ceil(60))
    }
}

/// The pipeline's steps, for the popup's status line.
impl Progress {
    /// The popup's status line for this step; `engine` names the model that is busy.
    pub fn message(&self, engine: Engine) -> String {
        match self {
            Progress::Expanding => t!("progress_expanding"),
            Progress::Retrying { seconds, .. } => {
                t!("progress_retrying", engine.model_name(), seconds)
            }
            Progress::Searching {
                candidates, budget, ..
            } => t!("progress_searching", candidates, budget),
            Progress::Ranking => t!("progress_ranking"),
        }
    }
}

/// What the user is told about how an answer was made.
impl Notice {
    /// One sentence for the user.
    pub fn message(&self) -> String {
        match self {
            Notice::KeywordsFromQuestion => t!("notice_keywords_from_question"),
            Notice::ModelReplaced { configured, used } => {
                t!("notice_model_replaced", configured, used)
            }
            Notice::HistoryUnavailable => t!("notice_history_unavailable"),
            Notice::NothingFound {
                question,
                period,
                message,
            } => message
                .clone()
                .unwrap_or_else(|| no_results_message(question, *period)),
            Notice::Unranked => t!("notice_unranked", MAX_PICKS),
            Notice::Shrunk { ranked, found } => t!("notice_shrunk", ranked, found),
            Notice::Cut => t!("notice_cut"),
            Notice::NoGoodMatch => t!("notice_no_good_match"),
            Notice::Worded(text) => text.clone(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ai::provider::choose;

    #[test]
    fn every_choice_has_a_label_and_a_one_line_description() {
        let depths = Depth::ALL.map(|depth| (depth.label(), depth.description()));
        let providers = Provider::ALL.map(|provider| (provider.label(), provider.description()));
        for (label, description) in depths.into_iter().chain(providers) {
            assert!(!label.is_empty(), "{description}");
            assert!(
                !description.is_empty() && !description.contains('\n'),
                "{label}"
            );
        }
    }

    #[test]
    fn a_fallback_says_why_and_chromes_model_says_why_it_cannot_answer() {
        let note = choose(Provider::OnDevice, false, Availability::Unavailable)
            .fallback
            .unwrap()
            .message();
        assert!(
            note.starts_with("Chrome's built-in AI model is not available on this device"),
            "{note}"
        );
        assert!(note.ends_with(" Searched locally."), "{note}");
        assert_eq!(
            Fallback::NoApiKey.message(),
            "No Gemini API key is set: add one in Options. Searched locally."
        );
        assert_eq!(Availability::Available.reason(), None);
        for availability in [
            Availability::Unsupported,
            Availability::Unavailable,
            Availability::Downloadable,
            Availability::Downloading,
        ] {
            assert!(availability.reason().is_some_and(|r| !r.is_empty()));
        }
    }

    #[test]
    fn a_failed_download_says_what_stopped_it() {
        let rows = [
            (
                ModelFailure::Unavailable {
                    reason: "not enough disk".into(),
                },
                "The on-device model could not be downloaded (not enough disk).",
            ),
            (
                ModelFailure::Unavailable {
                    reason: String::new(),
                },
                "The on-device model could not be downloaded (the model failed).",
            ),
            (ModelFailure::Cancelled, "The download was cancelled."),
            (
                ModelFailure::Network,
                "The on-device model could not be downloaded: Could not reach Chrome's built-in model. Check your connection.",
            ),
        ];
        for (failure, expected) in rows {
            assert_eq!(failure.download_message(), expected);
        }
    }

    /// What the user reads for each exception Chrome's built-in model throws: the end-to-end suite
    /// throws one of each kind from its Prompt API stand-in; TESTING.md maps the rest here.
    #[test]
    fn every_prompt_api_exception_reaches_the_user_as_one_sentence_naming_chromes_model() {
        let rows = [
            ("AbortError", "The operation was aborted."),
            ("QuotaExceededError", "The input is too large."),
            ("TimeoutError", "The operation timed out."),
            (
                "NotSupportedError",
                "The model does not support the requested output language.",
            ),
            ("NotAllowedError", ""),
            ("InvalidStateError", "The session was destroyed."),
            ("OperationError", "The model process crashed."),
            ("UnknownError", ""),
            ("SomethingNew", ""),
        ];
        let mut table = String::new();
        for (name, message) in rows {
            let failure = ModelFailure::from_prompt_api_exception(name, message);
            let shown = failure.user_message(Engine::OnDevice);
            assert!(!shown.contains("Gemini"), "{name}: {shown}");
            table.push_str(&format!("{name} ({message}): {shown}\n"));
        }
        let empty = ModelFailure::Empty.user_message(Engine::OnDevice);
        table.push_str(&format!("an empty answer: {empty}\n"));
        expect_test::expect![[r#"
            AbortError (The operation was aborted.): Search cancelled.
            QuotaExceededError (The input is too large.): The question and candidates did not fit the on-device model; showing the best matches unranked.
            TimeoutError (The operation timed out.): Chrome's built-in model took too long to answer. Try again.
            NotSupportedError (The model does not support the requested output language.): The on-device model is not available (The model does not support the requested output language.); searched without it.
            NotAllowedError (): The on-device model is not available (NotAllowedError); searched without it.
            InvalidStateError (The session was destroyed.): The on-device model is not available (The session was destroyed.); searched without it.
            OperationError (The model process crashed.): The on-device model is not available (The model process crashed.); searched without it.
            UnknownError (): The on-device model is not available (UnknownError); searched without it.
            SomethingNew (): The on-device model is not available (the model failed); searched without it.
            an empty answer: Chrome's built-in model returned an empty answer. Try again.
        "#]].assert_eq(&table);
    }

    #[test]
    fn every_failure_is_one_sentence_for_either_model() {
        let all = [
            ModelFailure::KeyRejected,
            ModelFailure::PermissionDenied,
            ModelFailure::RegionUnsupported,
            ModelFailure::ModelNotFound {
                model: "gemini-2.5-flash".into(),
            },
            ModelFailure::ModelNotFound {
                model: String::new(),
            },
            ModelFailure::QuotaExhausted {
                retry_after_s: Some(600),
            },
            ModelFailure::QuotaExhausted {
                retry_after_s: None,
            },
            ModelFailure::Overloaded,
            ModelFailure::ServerError { status: 502 },
            ModelFailure::BadRequest {
                message: "Invalid JSON payload".into(),
            },
            ModelFailure::Network,
            ModelFailure::Timeout,
            ModelFailure::Cancelled,
            ModelFailure::Blocked {
                reason: "SAFETY".into(),
            },
            ModelFailure::Truncated,
            ModelFailure::Empty,
            ModelFailure::Unavailable {
                reason: "the service is not running".into(),
            },
            ModelFailure::ContextOverflow,
        ];
        for failure in all {
            for engine in [Engine::Gemini, Engine::OnDevice] {
                let message = failure.user_message(engine);
                assert!(message.ends_with('.'), "{message}");
                assert!(message.matches(". ").count() <= 1, "{message}");
            }
        }
        let quota = |retry_after_s| ModelFailure::QuotaExhausted { retry_after_s };
        assert_eq!(
            quota(Some(600)).user_message(Engine::Gemini),
            "Your Gemini quota is used up for now. Try again in 10 min."
        );
        assert_eq!(
            quota(Some(45)).user_message(Engine::Gemini),
            "Your Gemini quota is used up for now. Try again in 45 s."
        );
    }

    #[test]
    fn a_failure_names_the_model_that_failed() {
        let rows = [
            (
                ModelFailure::Timeout,
                Engine::OnDevice,
                "Chrome's built-in model took too long to answer. Try again.",
            ),
            (
                ModelFailure::Timeout,
                Engine::Gemini,
                "Gemini took too long to answer. Try again.",
            ),
            (
                ModelFailure::Empty,
                Engine::OnDevice,
                "Chrome's built-in model returned an empty answer. Try again.",
            ),
            (
                ModelFailure::Empty,
                Engine::Gemini,
                "Gemini returned an empty answer. Try again.",
            ),
            (
                ModelFailure::Truncated,
                Engine::OnDevice,
                "The answer from Chrome's built-in model was cut off. Try again, or a lower search depth in Options.",
            ),
            (
                ModelFailure::Blocked {
                    reason: "SAFETY".into(),
                },
                Engine::OnDevice,
                "Chrome's built-in model declined to answer (SAFETY). Try rephrasing the question.",
            ),
            // Only Gemini has a key.
            (
                ModelFailure::KeyRejected,
                Engine::OnDevice,
                "Gemini refused the API key. Check it in Options.",
            ),
        ];
        for (failure, engine, want) in rows {
            assert_eq!(failure.user_message(engine), want, "{failure:?} {engine:?}");
        }
    }

    #[test]
    fn progress_messages_name_the_step() {
        let rows = [
            (Progress::Expanding, "Expanding your question…"),
            (
                Progress::Retrying {
                    seconds: 2,
                    attempt: 2,
                },
                "Gemini is busy — retrying in 2 s…",
            ),
            (
                Progress::Searching {
                    candidates: 43,
                    budget: 100,
                    keyword: 3,
                    keywords: 20,
                },
                "Searching history: 43 of 100 candidates",
            ),
            (Progress::Ranking, "Ranking…"),
        ];
        for (progress, expected) in rows {
            assert_eq!(progress.message(Engine::Gemini), expected);
        }
        assert_eq!(
            Progress::Retrying {
                seconds: 4,
                attempt: 3
            }
            .message(Engine::OnDevice),
            "Chrome's built-in model is busy — retrying in 4 s…"
        );
    }
}
