//! The language-model abstraction the pipeline is written against, and the retry policy.
//!
//! An implementation makes exactly one attempt per [`LanguageModel::generate`] call, with its own
//! time limit (→ [`ModelFailure::Timeout`]) and cancellation (→ [`ModelFailure::Cancelled`]). The
//! pipeline retries by itself, through [`retry_delay_ms`] and [`LanguageModel::sleep`], so the UI can
//! say "retrying in 4 s".

use std::future::Future;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

use crate::ai::provider::Engine;

/// Which of the pipeline's two calls a request is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum CallKind {
    /// Question → keywords.
    Expansion,
    /// Question + candidates → up to 5 picks with reasons.
    Ranking,
}

/// One call to the model, independent of the provider.
#[derive(Debug, Clone, PartialEq)]
pub struct ModelRequest {
    /// The model to call (`gemini-2.5-flash`). Part of the request because the pipeline switches to
    /// [`crate::gemini::FALLBACK_MODEL`] when the configured one is gone.
    pub model: String,
    /// The system instruction: the task and the rules.
    pub system: String,
    /// The user turn: the question (and the candidates).
    pub prompt: String,
    /// The expected output as a standard JSON Schema (lowercase types; `type`, `items`,
    /// `properties`, `required`, `maxItems` only). Each client maps it to its wire format.
    pub schema: serde_json::Value,
    /// The most output tokens the answer needs (thinking not included).
    pub max_output_tokens: u32,
    /// Which call this is.
    pub kind: CallKind,
}

/// What the model said about a prompt: tokens it would take, tokens left in its window.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ContextUse {
    /// Tokens the prompt would use.
    pub needed: u32,
    /// Tokens available for it.
    pub available: u32,
}

impl ContextUse {
    /// Whether the prompt fits.
    pub fn fits(self) -> bool {
        self.needed <= self.available
    }
}

/// Tokens a call used, as the provider reports them.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Usage {
    /// Tokens of the request.
    pub prompt_tokens: u32,
    /// Tokens of the answer.
    pub output_tokens: u32,
    /// Tokens spent thinking (billed as output).
    pub thinking_tokens: u32,
    /// Everything, as the provider counts it.
    pub total_tokens: u32,
}

impl Add for Usage {
    type Output = Usage;

    fn add(self, other: Usage) -> Usage {
        Usage {
            prompt_tokens: self.prompt_tokens.saturating_add(other.prompt_tokens),
            output_tokens: self.output_tokens.saturating_add(other.output_tokens),
            thinking_tokens: self.thinking_tokens.saturating_add(other.thinking_tokens),
            total_tokens: self.total_tokens.saturating_add(other.total_tokens),
        }
    }
}

impl AddAssign for Usage {
    fn add_assign(&mut self, other: Usage) {
        *self = *self + other;
    }
}

/// What the model answered.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct ModelReply {
    /// The answer's text (expected to be JSON; read it with [`crate::ai::parse`]).
    pub text: String,
    /// Tokens used, when the provider says.
    pub usage: Option<Usage>,
    /// The answer hit the output limit (`MAX_TOKENS`): its text stops mid-way, and only its
    /// complete items are usable.
    pub truncated: bool,
}

/// Why a call gave no usable answer. Messages never contain the key or the request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum ModelFailure {
    /// The key is not valid (400 `API_KEY_INVALID`, "API key not valid", 401).
    KeyRejected,
    /// The key may not use this API or model (403).
    PermissionDenied,
    /// The API is not offered where the user is (400 `FAILED_PRECONDITION`).
    RegionUnsupported,
    /// The model does not exist or was retired (404, "no longer available"). `model` is the name
    /// from the error message, possibly empty.
    ModelNotFound {
        /// The model's name.
        model: String,
    },
    /// Rate limit or quota (429 `RESOURCE_EXHAUSTED`), with the delay Google asks for, rounded up.
    QuotaExhausted {
        /// Seconds to wait before trying again, when Google says.
        retry_after_s: Option<u32>,
    },
    /// The model is overloaded (503 `UNAVAILABLE`).
    Overloaded,
    /// Another server-side error (500, 502, 504, …).
    ServerError {
        /// The HTTP status.
        status: u16,
    },
    /// Any other rejected request (400, other 4xx), with Google's message (key-like text redacted).
    BadRequest {
        /// What Google said, cut short.
        message: String,
    },
    /// The request did not get through (fetch failed, offline, a proxy answered instead).
    Network,
    /// No answer within the time limit (the host's limit, or 408).
    Timeout,
    /// The user cancelled.
    Cancelled,
    /// The prompt or the answer was blocked (`promptFeedback.blockReason`, or `finishReason` SAFETY,
    /// PROHIBITED_CONTENT, BLOCKLIST, SPII, RECITATION…).
    Blocked {
        /// Google's reason, as it wrote it.
        reason: String,
    },
    /// The answer hit the output token limit before any usable text.
    Truncated,
    /// No candidate or no text in the answer.
    Empty,
    /// The on-device model cannot answer here (not supported, not downloaded, gone, its session
    /// destroyed), with the browser's reason.
    Unavailable {
        /// Why, as the browser said it.
        reason: String,
    },
    /// The request does not fit the model's context window.
    ContextOverflow,
}

impl ModelFailure {
    /// Reads what Chrome's built-in model (the Prompt API) threw, a `DOMException`, by its `name`
    /// and `message`: a cancelled call, a prompt too large for its context window, its time limit,
    /// and otherwise the model being unavailable, for the reason the browser gave.
    pub fn from_prompt_api_exception(name: &str, message: &str) -> ModelFailure {
        let reason = |fallback: String| {
            if message.is_empty() {
                fallback
            } else {
                message.to_owned()
            }
        };
        match name {
            "AbortError" => ModelFailure::Cancelled,
            "QuotaExceededError" => ModelFailure::ContextOverflow,
            "TimeoutError" => ModelFailure::Timeout,
            "NotSupportedError" | "NotAllowedError" | "InvalidStateError" | "OperationError"
            | "UnknownError" => ModelFailure::Unavailable {
                reason: reason(name.to_owned()),
            },
            _ => ModelFailure::Unavailable {
                reason: reason(t!("on_device_failed")),
            },
        }
    }

    /// Whether the model itself is gone (on-device: not supported, not downloaded, its session
    /// destroyed): the host should drop its session and check availability again.
    pub fn is_unavailable(&self) -> bool {
        matches!(self, ModelFailure::Unavailable { .. })
    }

    /// Whether the fix is in the options page (key, permissions, region, model): the popup then
    /// offers a way there next to the message.
    pub fn is_settings_problem(&self) -> bool {
        matches!(
            self,
            ModelFailure::KeyRejected
                | ModelFailure::PermissionDenied
                | ModelFailure::RegionUnsupported
                | ModelFailure::ModelNotFound { .. }
        )
    }

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
            ModelFailure::Unavailable { reason } => t!("failure_unavailable", reason),
            ModelFailure::ContextOverflow => t!("failure_context_overflow"),
        }
    }

    /// One sentence for the user when a download of Chrome's built-in model they asked for fails.
    pub fn download_message(&self) -> String {
        match self {
            ModelFailure::Unavailable { reason } => t!("download_failed_because", reason),
            ModelFailure::Cancelled => t!("download_cancelled"),
            other => t!("download_failed", other.user_message(Engine::OnDevice)),
        }
    }

    /// Whether another attempt of the same call may succeed (see [`retry_delay_ms`] for how long to
    /// wait and how many times).
    pub fn is_retryable(&self) -> bool {
        match self {
            ModelFailure::QuotaExhausted { retry_after_s } => {
                retry_after_s.is_none_or(|s| s <= MAX_HONOURED_RETRY_DELAY_S)
            }
            ModelFailure::Overloaded | ModelFailure::ServerError { .. } | ModelFailure::Network => {
                true
            }
            _ => false,
        }
    }

    /// Whether the session's other call is pointless after this failure (once retries are done):
    /// the key, the account, the place or the quota will not change in the next second, a blocked
    /// question is in the ranking prompt too, and a cancelled search is over. After the others (an
    /// overloaded server, an unreadable or cut answer) the next call may well succeed.
    pub fn is_fatal_for_session(&self) -> bool {
        matches!(
            self,
            ModelFailure::KeyRejected
                | ModelFailure::PermissionDenied
                | ModelFailure::RegionUnsupported
                | ModelFailure::ModelNotFound { .. }
                | ModelFailure::QuotaExhausted { .. }
                | ModelFailure::Blocked { .. }
                | ModelFailure::Cancelled
        ) || self.is_unavailable()
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

/// A language model the pipeline can call: Gemini over `fetch` in the extension, a script in tests.
pub trait LanguageModel {
    /// One attempt at `request`, with the implementation's own time limit. Once the user cancelled,
    /// returns [`ModelFailure::Cancelled`] at once.
    fn generate(
        &self,
        request: &ModelRequest,
    ) -> impl Future<Output = Result<ModelReply, ModelFailure>>;

    /// Waits `ms` milliseconds before a retry (returns early if the user cancels: the next
    /// `generate` then says so).
    fn sleep(&self, ms: u32) -> impl Future<Output = ()>;

    /// Whether the user cancelled, checked between history searches. Defaults to never.
    fn cancelled(&self) -> bool {
        false
    }

    /// How much of the model's context window `request` would take, for models with a small one
    /// (on-device); the pipeline then shrinks the ranking request until it fits
    /// ([`crate::ai::fit`]). `None` (the default) means no limit worth measuring.
    fn measure(&self, request: &ModelRequest) -> impl Future<Output = Option<ContextUse>> {
        let _ = request;
        std::future::ready(None)
    }
}

/// Attempts per call, the first included. Three is what a user waits through in a popup: with
/// [`BACKOFF_BASE_MS`] the backoff waits total 3 s before giving up (the official SDKs retry more,
/// but they have no one watching a spinner).
pub const MAX_ATTEMPTS: u32 = 3;

/// First backoff wait; doubled at each attempt.
pub const BACKOFF_BASE_MS: u32 = 1_000;

/// Longest backoff wait, whatever the attempt.
pub const BACKOFF_CAP_MS: u32 = 8_000;

/// Longest `retryDelay` of a 429 worth waiting for while the popup shows the wait. Free-tier
/// per-minute limits ask for up to about a minute; beyond 30 s the user is better told (with the
/// delay) than kept waiting.
pub const MAX_HONOURED_RETRY_DELAY_S: u32 = 30;

/// How long to wait before attempt `attempts_made + 1`, or `None` to give up and report `failure`.
///
/// Retried: 429 (waiting its `retryDelay` when Google gives one, up to
/// [`MAX_HONOURED_RETRY_DELAY_S`]), 500/502/503/504 and network failures, with exponential backoff
/// ([`BACKOFF_BASE_MS`] doubled each time, at most [`BACKOFF_CAP_MS`]), [`MAX_ATTEMPTS`] in all.
/// A timeout is not retried: the user already waited the whole limit, and a second one would double
/// it; the pipeline's fallbacks answer at once instead.
pub fn retry_delay_ms(failure: &ModelFailure, attempts_made: u32) -> Option<u32> {
    if attempts_made >= MAX_ATTEMPTS || !failure.is_retryable() {
        return None;
    }
    let shift = attempts_made.saturating_sub(1).min(16);
    let backoff = BACKOFF_BASE_MS
        .saturating_mul(1 << shift)
        .min(BACKOFF_CAP_MS);
    match failure {
        ModelFailure::QuotaExhausted {
            retry_after_s: Some(seconds),
        } => Some(seconds.saturating_mul(1_000).max(backoff)),
        _ => Some(backoff),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_failed_download_says_what_stopped_it() {
        let rows = [
            (
                ModelFailure::Unavailable {
                    reason: "not enough disk".into(),
                },
                "The on-device model could not be downloaded (not enough disk).",
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

    #[test]
    fn retry_policy() {
        let quota = |s| ModelFailure::QuotaExhausted { retry_after_s: s };
        let rows: &[(ModelFailure, [Option<u32>; 3])] = &[
            (ModelFailure::Overloaded, [Some(1_000), Some(2_000), None]),
            (
                ModelFailure::ServerError { status: 500 },
                [Some(1_000), Some(2_000), None],
            ),
            (ModelFailure::Network, [Some(1_000), Some(2_000), None]),
            (quota(Some(22)), [Some(22_000), Some(22_000), None]),
            (quota(Some(0)), [Some(1_000), Some(2_000), None]),
            (quota(None), [Some(1_000), Some(2_000), None]),
            (quota(Some(31)), [None, None, None]),
            (ModelFailure::Timeout, [None, None, None]),
            (ModelFailure::KeyRejected, [None, None, None]),
            (ModelFailure::Cancelled, [None, None, None]),
            (ModelFailure::Truncated, [None, None, None]),
            (
                ModelFailure::BadRequest {
                    message: "x".into(),
                },
                [None, None, None],
            ),
        ];
        for (failure, delays) in rows {
            for (made, expected) in (1..).zip(delays) {
                assert_eq!(
                    retry_delay_ms(failure, made),
                    *expected,
                    "{failure:?} #{made}"
                );
            }
        }
        assert_eq!(retry_delay_ms(&ModelFailure::Network, u32::MAX), None);
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
    fn messages_are_one_sentence_and_fatality_is_as_documented() {
        let all = [
            (ModelFailure::KeyRejected, true),
            (ModelFailure::PermissionDenied, true),
            (ModelFailure::RegionUnsupported, true),
            (
                ModelFailure::ModelNotFound {
                    model: "gemini-2.5-flash".into(),
                },
                true,
            ),
            (
                ModelFailure::QuotaExhausted {
                    retry_after_s: Some(600),
                },
                true,
            ),
            (
                ModelFailure::QuotaExhausted {
                    retry_after_s: None,
                },
                true,
            ),
            (ModelFailure::Overloaded, false),
            (ModelFailure::ServerError { status: 502 }, false),
            (
                ModelFailure::BadRequest {
                    message: "Invalid JSON payload".into(),
                },
                false,
            ),
            (ModelFailure::Network, false),
            (ModelFailure::Timeout, false),
            (ModelFailure::Cancelled, true),
            (
                ModelFailure::Blocked {
                    reason: "SAFETY".into(),
                },
                true,
            ),
            (ModelFailure::Truncated, false),
            (ModelFailure::Empty, false),
            (
                ModelFailure::Unavailable {
                    reason: "the service is not running".into(),
                },
                true,
            ),
            (ModelFailure::ContextOverflow, false),
        ];
        for (failure, fatal) in all {
            for engine in [Engine::Gemini, Engine::OnDevice] {
                let message = failure.user_message(engine);
                assert!(message.ends_with('.'), "{message}");
                assert!(message.matches(". ").count() <= 1, "{message}");
            }
            assert_eq!(failure.is_fatal_for_session(), fatal, "{failure:?}");
            let json = serde_json::to_string(&failure).unwrap();
            assert_eq!(
                serde_json::from_str::<ModelFailure>(&json).unwrap(),
                failure
            );
        }
        assert_eq!(
            ModelFailure::QuotaExhausted {
                retry_after_s: Some(600)
            }
            .user_message(Engine::Gemini),
            "Your Gemini quota is used up for now. Try again in 10 min."
        );
        assert_eq!(
            ModelFailure::QuotaExhausted {
                retry_after_s: Some(45)
            }
            .user_message(Engine::Gemini),
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
    fn usage_sums_saturating() {
        let a = Usage {
            prompt_tokens: 10,
            output_tokens: 2,
            thinking_tokens: 0,
            total_tokens: 12,
        };
        let mut sum = a + a;
        sum += Usage {
            total_tokens: u32::MAX,
            ..Usage::default()
        };
        assert_eq!(sum.prompt_tokens, 20);
        assert_eq!(sum.total_tokens, u32::MAX);
        assert_eq!(
            serde_json::to_value(a).unwrap(),
            serde_json::json!({"promptTokens":10,"outputTokens":2,"thinkingTokens":0,"totalTokens":12})
        );
    }
}
