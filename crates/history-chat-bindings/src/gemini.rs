//! The Gemini API over `fetch`, as the core's [`LanguageModel`]. The core decides everything (request
//! body, response parsing, retries, fallbacks); this module only moves bytes, with the key in the
//! `x-goog-api-key` header (never in the URL, never logged).

use history_chat_core::ai::model::{LanguageModel, ModelFailure, ModelReply, ModelRequest};
use history_chat_core::api_key::ApiKey;
use history_chat_core::gemini::{self, API_KEY_HEADER, ORIGIN};

use crate::http::{self, Cancel, FetchError, Method};

/// Time limit of one call. A ranking of 100 candidates takes a few seconds with thinking off; a
/// model that thinks, or an overloaded one, can take much longer, and past this the user is better
/// served by the fallback answer.
pub const CALL_TIME_LIMIT_MS: u32 = 30_000;

/// Time limit of the options page's key test (a metadata read: it answers at once or not at all).
pub const KEY_TEST_TIME_LIMIT_MS: u32 = 15_000;

/// Gemini with the user's key. One per search: its [`Cancel`] handle stops every call and wait.
#[derive(Debug, Clone)]
pub struct GeminiModel {
    key: ApiKey,
    cancel: Cancel,
}

impl GeminiModel {
    /// A client for `key`, stopped by `cancel`.
    pub fn new(key: &ApiKey, cancel: Cancel) -> GeminiModel {
        GeminiModel {
            key: key.clone(),
            cancel,
        }
    }
}

fn failure(error: FetchError) -> ModelFailure {
    match error {
        FetchError::Timeout => ModelFailure::Timeout,
        FetchError::Cancelled => ModelFailure::Cancelled,
        FetchError::Network | FetchError::Invalid(_) => ModelFailure::Network,
    }
}

impl LanguageModel for GeminiModel {
    async fn generate(&self, request: &ModelRequest) -> Result<ModelReply, ModelFailure> {
        // A key no header can carry (set by another version, or in storage by hand) is a key
        // Gemini would refuse: said so, rather than "could not reach Gemini".
        self.key.check().map_err(|_| ModelFailure::KeyRejected)?;
        let url = format!("{ORIGIN}{}", gemini::endpoint_path(&request.model)?);
        let body = gemini::request_body(request).to_string();
        let headers = [(API_KEY_HEADER, self.key.expose())];
        let reply = http::request(
            Method::Post,
            &url,
            &headers,
            Some(&body),
            CALL_TIME_LIMIT_MS,
            &self.cancel,
        )
        .await
        .map_err(failure)?;
        gemini::parse_response(reply.status, &reply.body)
    }

    async fn sleep(&self, ms: u32) {
        http::sleep(ms, &self.cancel).await;
    }

    fn cancelled(&self) -> bool {
        self.cancel.is_cancelled()
    }
}

/// The options page's "Test key": reads the model's metadata (`GET models/{model}`), which checks
/// the key and the model without spending a token.
pub async fn test_key(key: &ApiKey, model: &str) -> Result<(), ModelFailure> {
    key.check().map_err(|_| ModelFailure::KeyRejected)?;
    let id = gemini::model_id(model)?;
    let url = format!("{ORIGIN}/v1beta/models/{id}");
    let headers = [(API_KEY_HEADER, key.expose())];
    let reply = http::request(
        Method::Get,
        &url,
        &headers,
        None,
        KEY_TEST_TIME_LIMIT_MS,
        &Cancel::new(),
    )
    .await
    .map_err(failure)?;
    if (200..300).contains(&reply.status) {
        return Ok(());
    }
    match gemini::parse_response(reply.status, &reply.body) {
        Err(failure) => Err(failure),
        Ok(_) => Err(ModelFailure::ServerError {
            status: reply.status,
        }),
    }
}
