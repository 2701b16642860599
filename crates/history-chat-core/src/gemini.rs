//! The Gemini API's wire format (`generateContent`), pure: the request body and path to send, and
//! what a response means. The host sends the request (`POST` [`ORIGIN`] + [`endpoint_path`], key in
//! the [`API_KEY_HEADER`] header, never in the URL) and hands the status and body to
//! [`parse_response`].

use serde_json::{Value, json};
use thiserror::Error;

use crate::ai::model::{ModelFailure, ModelReply, ModelRequest, Usage};

/// Where the API lives.
pub const ORIGIN: &str = "https://generativelanguage.googleapis.com";

/// The header that carries the key (a key in the URL would end up in logs).
pub const API_KEY_HEADER: &str = "x-goog-api-key";

/// The model used when none is configured: the one the original product uses.
pub const DEFAULT_MODEL: &str = "gemini-2.5-flash";

/// The model tried when the configured one is gone (404): Google's alias for its current Flash
/// model, which follows retirements by itself.
pub const FALLBACK_MODEL: &str = "gemini-flash-latest";

/// Low temperature: keywords and rankings should be the likeliest, not creative.
const TEMPERATURE: f64 = 0.2;

/// The smallest thinking budget Gemini 2.5 Pro accepts (it cannot turn thinking off).
const PRO_MIN_THINKING_BUDGET: u32 = 128;

/// Added to `maxOutputTokens` for models that think whatever we ask (2.5 Pro, Gemini 3, aliases):
/// their thoughts count against the limit, and an answer starved by them comes back empty with
/// `MAX_TOKENS`. Unused tokens cost nothing.
const THINKING_HEADROOM_TOKENS: u32 = 4_096;

/// Longest error message kept from Google, in characters.
const ERROR_MESSAGE_MAX_CHARS: usize = 200;

/// `finishReason`s that mean the answer was withheld.
const BLOCKING_FINISH_REASONS: &[&str] = &[
    "SAFETY",
    "PROHIBITED_CONTENT",
    "BLOCKLIST",
    "SPII",
    "RECITATION",
    "IMAGE_SAFETY",
];

/// A model name that cannot go into the URL path.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[error("“{name}” is not a Gemini model name (letters, digits, “-”, “.” and “_” only)")]
pub struct InvalidModelName {
    /// The name as given.
    pub name: String,
}

/// A model name that cannot be called is a model that is not there: the pipeline then switches to
/// [`FALLBACK_MODEL`] and tells the user, as for a retired model.
impl From<InvalidModelName> for ModelFailure {
    fn from(invalid: InvalidModelName) -> ModelFailure {
        ModelFailure::ModelNotFound {
            model: invalid.name,
        }
    }
}

/// The model name as it goes into the path: trimmed, without a leading `models/`, and only made of
/// ASCII letters, digits, `-`, `.` and `_` (so no `/`, `?`, `#`, `:`, `%` or whitespace can change
/// the URL).
pub fn model_id(name: &str) -> Result<&str, InvalidModelName> {
    let id = name.trim();
    let id = id.strip_prefix("models/").unwrap_or(id);
    let valid = !id.is_empty()
        && id
            .bytes()
            .all(|b| b.is_ascii_alphanumeric() || matches!(b, b'-' | b'.' | b'_'));
    if valid {
        Ok(id)
    } else {
        Err(InvalidModelName { name: name.into() })
    }
}

/// `/v1beta/models/{model}:generateContent`.
pub fn endpoint_path(model: &str) -> Result<String, InvalidModelName> {
    Ok(format!(
        "/v1beta/models/{}:generateContent",
        model_id(model)?
    ))
}

/// A request's JSON Schema in Gemini's `responseSchema` shape (its OpenAPI subset): types in upper
/// case (`"ARRAY"`), and each object's `propertyOrdering` taken from its `required` list, so the
/// answer gives the fields in that order (JSON Schema itself has no field order).
pub fn response_schema(schema: &Value) -> Value {
    match schema {
        Value::Object(map) => {
            let mut out: serde_json::Map<String, Value> = map
                .iter()
                .map(|(key, value)| {
                    let value = match (key.as_str(), value) {
                        ("type", Value::String(kind)) => Value::String(kind.to_uppercase()),
                        // Property names are data, not schemas: only their values are mapped.
                        ("properties", Value::Object(properties)) => Value::Object(
                            properties
                                .iter()
                                .map(|(name, property)| (name.clone(), response_schema(property)))
                                .collect(),
                        ),
                        ("required", required) => required.clone(),
                        _ => response_schema(value),
                    };
                    (key.clone(), value)
                })
                .collect();
            if map.contains_key("properties")
                && let Some(required) = map.get("required")
            {
                out.insert("propertyOrdering".into(), required.clone());
            }
            Value::Object(out)
        }
        Value::Array(items) => Value::Array(items.iter().map(response_schema).collect()),
        other => other.clone(),
    }
}

/// How thinking is kept to a minimum, by model family.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Thinking {
    /// Gemini 2.5 Flash (and Flash-Lite): `thinkingBudget: 0` turns it off.
    Off,
    /// Gemini 2.5 Pro: cannot be off; the smallest budget.
    MinBudget,
    /// Gemini 3: `thinkingLevel: "low"` (it rejects `thinkingBudget` alongside).
    LowLevel,
    /// Anything else (aliases such as `gemini-flash-latest`): no `thinkingConfig`, since we cannot
    /// know which field the model behind the name accepts.
    Unknown,
}

fn thinking(model: &str) -> Thinking {
    let model = model
        .trim()
        .trim_start_matches("models/")
        .to_ascii_lowercase();
    if model.starts_with("gemini-2.5-flash") {
        Thinking::Off
    } else if model.starts_with("gemini-2.5-pro") {
        Thinking::MinBudget
    } else if model.starts_with("gemini-3") {
        Thinking::LowLevel
    } else {
        Thinking::Unknown
    }
}

/// The `generateContent` body for `request` (its model decides the thinking settings).
///
/// Temperature is low, except on Gemini 3, whose guide asks to keep the default (lower values can
/// make it loop).
pub fn request_body(request: &ModelRequest) -> Value {
    let thinking = thinking(&request.model);
    let mut config = json!({
        "maxOutputTokens": request.max_output_tokens,
        "responseMimeType": "application/json",
        "responseSchema": response_schema(&request.schema),
    });
    match thinking {
        Thinking::Off => {
            config["temperature"] = json!(TEMPERATURE);
            config["thinkingConfig"] = json!({"thinkingBudget": 0});
        }
        Thinking::MinBudget => {
            config["temperature"] = json!(TEMPERATURE);
            config["thinkingConfig"] = json!({"thinkingBudget": PRO_MIN_THINKING_BUDGET});
        }
        Thinking::LowLevel => config["thinkingConfig"] = json!({"thinkingLevel": "low"}),
        Thinking::Unknown => config["temperature"] = json!(TEMPERATURE),
    }
    if thinking != Thinking::Off {
        config["maxOutputTokens"] = json!(
            request
                .max_output_tokens
                .saturating_add(THINKING_HEADROOM_TOKENS)
        );
    }
    json!({
        "systemInstruction": {"parts": [{"text": request.system}]},
        "contents": [{"role": "user", "parts": [{"text": request.prompt}]}],
        "generationConfig": config,
    })
}

/// What a `generateContent` response means, from its HTTP status and body.
pub fn parse_response(http_status: u16, body: &str) -> Result<ModelReply, ModelFailure> {
    let json: Option<Value> = serde_json::from_str(body).ok();
    if (200..300).contains(&http_status) {
        // A 2xx that is not JSON comes from something in between (a captive portal, a proxy).
        return match json {
            Some(json) => parse_success(&json),
            None => Err(ModelFailure::Network),
        };
    }
    // Some Google front ends wrap the error in an array.
    let error = json.as_ref().and_then(|json| match json {
        Value::Array(items) => items.first()?.get("error"),
        other => other.get("error"),
    });
    Err(classify_error(http_status, error))
}

fn parse_success(json: &Value) -> Result<ModelReply, ModelFailure> {
    if let Some(reason) = json
        .pointer("/promptFeedback/blockReason")
        .and_then(Value::as_str)
    {
        return Err(ModelFailure::Blocked {
            reason: reason.into(),
        });
    }
    let usage = json.get("usageMetadata").map(|meta| {
        let count = |field: &str| {
            meta.get(field)
                .and_then(Value::as_u64)
                .map_or(0, |n| u32::try_from(n).unwrap_or(u32::MAX))
        };
        Usage {
            prompt_tokens: count("promptTokenCount"),
            output_tokens: count("candidatesTokenCount"),
            thinking_tokens: count("thoughtsTokenCount"),
            total_tokens: count("totalTokenCount"),
        }
    });
    let Some(candidate) = json.pointer("/candidates/0") else {
        return Err(ModelFailure::Empty);
    };
    let finish = candidate
        .get("finishReason")
        .and_then(Value::as_str)
        .unwrap_or_default();
    if BLOCKING_FINISH_REASONS.contains(&finish) {
        return Err(ModelFailure::Blocked {
            reason: finish.into(),
        });
    }
    let text: String = candidate
        .pointer("/content/parts")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|part| part.get("thought").and_then(Value::as_bool) != Some(true))
        .filter_map(|part| part.get("text").and_then(Value::as_str))
        .collect();
    if text.trim().is_empty() {
        return Err(if finish == "MAX_TOKENS" {
            ModelFailure::Truncated
        } else {
            ModelFailure::Empty
        });
    }
    // A MAX_TOKENS answer with text goes through: the tolerant parsers keep its complete items.
    Ok(ModelReply {
        text,
        usage,
        truncated: finish == "MAX_TOKENS",
    })
}

fn classify_error(http_status: u16, error: Option<&Value>) -> ModelFailure {
    let field = |name: &str| {
        error
            .and_then(|e| e.get(name))
            .and_then(Value::as_str)
            .unwrap_or_default()
    };
    let message = field("message");
    let status = field("status");
    let details: &[Value] = error
        .and_then(|e| e.get("details"))
        .and_then(Value::as_array)
        .map_or(&[], Vec::as_slice);
    let detail = |suffix: &str| {
        details.iter().find(|d| {
            d.get("@type")
                .and_then(Value::as_str)
                .is_some_and(|t| t.ends_with(suffix))
        })
    };
    let reason = detail("google.rpc.ErrorInfo")
        .and_then(|d| d.get("reason"))
        .and_then(Value::as_str)
        .unwrap_or_default();
    let key_invalid = matches!(reason, "API_KEY_INVALID" | "API_KEY_EXPIRED")
        || message.contains("API key not valid")
        || message.contains("API key expired");

    match http_status {
        _ if key_invalid => ModelFailure::KeyRejected,
        401 => ModelFailure::KeyRejected,
        403 => ModelFailure::PermissionDenied,
        400 if status == "FAILED_PRECONDITION" || message.contains("location is not supported") => {
            ModelFailure::RegionUnsupported
        }
        404 => ModelFailure::ModelNotFound {
            model: model_in_message(message),
        },
        408 => ModelFailure::Timeout,
        429 => ModelFailure::QuotaExhausted {
            retry_after_s: detail("google.rpc.RetryInfo")
                .and_then(|d| d.get("retryDelay"))
                .and_then(Value::as_str)
                .and_then(seconds_rounded_up),
        },
        503 => ModelFailure::Overloaded,
        500..=599 => ModelFailure::ServerError {
            status: http_status,
        },
        _ => ModelFailure::BadRequest {
            message: if message.trim().is_empty() {
                format!("HTTP {http_status}")
            } else {
                safe_message(message)
            },
        },
    }
}

/// `models/gemini-2.5-flash is not found …` → `gemini-2.5-flash`; empty when the message names none.
fn model_in_message(message: &str) -> String {
    message
        .split_whitespace()
        .find_map(|word| word.strip_prefix("models/"))
        .map(|model| model.trim_end_matches(|c: char| !c.is_ascii_alphanumeric()))
        .unwrap_or_default()
        .into()
}

/// A protobuf `Duration` in JSON ("22s", "1.5s", "0.250s") in whole seconds, rounded up so a retry
/// is never early.
fn seconds_rounded_up(duration: &str) -> Option<u32> {
    let seconds: f64 = duration.trim().strip_suffix('s')?.parse().ok()?;
    if !seconds.is_finite() || seconds < 0.0 {
        return None;
    }
    // `as` saturates: an absurd delay becomes u32::MAX seconds, which is not retried.
    Some(seconds.ceil() as u32)
}

/// Google's message, on one line, cut short, with anything shaped like an API key (`AIza…`)
/// redacted: messages are shown to the user and may be logged.
fn safe_message(message: &str) -> String {
    let words: Vec<&str> = message
        .split_whitespace()
        .map(|word| {
            if word.contains("AIza") {
                "[redacted]"
            } else {
                word
            }
        })
        .collect();
    let line = words.join(" ");
    match line.char_indices().nth(ERROR_MESSAGE_MAX_CHARS) {
        Some((cut, _)) => format!("{}…", &line[..cut]),
        None => line,
    }
}

#[cfg(test)]
mod tests;
