//! The language-model abstraction the pipeline is written against, and the retry policy.
//!
//! An implementation makes exactly one attempt per [`LanguageModel::generate`] call, with its own
//! time limit (→ [`ModelFailure::Timeout`]) and cancellation (→ [`ModelFailure::Cancelled`]). The
//! pipeline retries by itself, through [`retry_delay_ms`] and [`LanguageModel::sleep`], so the UI can
//! say "retrying in 4 s".

use std::future::Future;
use std::ops::{Add, AddAssign};

use serde::{Deserialize, Serialize};

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
        /// Why, as the browser said it; empty when it gave no reason (worded as "the model
        /// failed").
        reason: String,
    },
    /// The request does not fit the model's context window.
    ContextOverflow,
}

impl ModelFailure {
    /// Reads what Chrome's built-in model (the Prompt API) threw, a `DOMException`, by its `name`
    /// and `message`: a cancelled call, a prompt too large for its context window, its time limit,
    /// and otherwise the model being unavailable, for the reason the browser gave (its message, or
    /// else a known exception's name; none for an exception this version does not know that
    /// came without a message).
    pub fn from_prompt_api_exception(name: &str, message: &str) -> ModelFailure {
        match name {
            "AbortError" => ModelFailure::Cancelled,
            "QuotaExceededError" => ModelFailure::ContextOverflow,
            "TimeoutError" => ModelFailure::Timeout,
            "NotSupportedError" | "NotAllowedError" | "InvalidStateError" | "OperationError"
            | "UnknownError" => ModelFailure::Unavailable {
                reason: if message.is_empty() { name } else { message }.to_owned(),
            },
            _ => ModelFailure::Unavailable {
                reason: message.to_owned(),
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

    #[test]
    fn a_prompt_api_exception_is_read_by_its_name() {
        let unavailable = |reason: &str| ModelFailure::Unavailable {
            reason: reason.into(),
        };
        let rows = [
            (
                "AbortError",
                "The operation was aborted.",
                ModelFailure::Cancelled,
            ),
            ("QuotaExceededError", "", ModelFailure::ContextOverflow),
            ("TimeoutError", "", ModelFailure::Timeout),
            (
                "InvalidStateError",
                "The session was destroyed.",
                unavailable("The session was destroyed."),
            ),
            ("NotAllowedError", "", unavailable("NotAllowedError")),
            ("SomethingNew", "It broke.", unavailable("It broke.")),
            // No reason given: the wording says the model failed.
            ("SomethingNew", "", unavailable("")),
        ];
        for (name, message, expected) in rows {
            assert_eq!(
                ModelFailure::from_prompt_api_exception(name, message),
                expected,
                "{name} ({message})"
            );
        }
    }

    #[test]
    fn fatality_is_as_documented_and_failures_round_trip() {
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
            assert_eq!(failure.is_fatal_for_session(), fatal, "{failure:?}");
            let json = serde_json::to_string(&failure).unwrap();
            assert_eq!(
                serde_json::from_str::<ModelFailure>(&json).unwrap(),
                failure
            );
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
