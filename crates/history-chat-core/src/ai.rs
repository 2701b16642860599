//! AI mode: a language model (Gemini with the user's key, or Chrome's on-device model) turns the
//! question into keywords, history is searched keyword by keyword within a budget of 100
//! candidates, and the model ranks them with a reason each.
//!
//! Everything here is pure: the model and the history are traits the host implements, time is
//! passed in, and every decision (retries, fallbacks, what the user is told, as values: failures,
//! notices, fallbacks, worded by `wording::ai`) is made here so the host only moves bytes.
//!
//! - [`provider`]: which engine answers (local search, Gemini, on-device), from the user's choice
//!   and what the browser can do.
//! - [`depth`]: how many keywords a question is expanded into.
//! - [`model`]: the language-model abstraction: requests, replies, failures and the retry policy.
//! - [`prompts`]: the two prompts and their response schemas, candidates encoded compactly.
//! - [`parse`]: tolerant readers for what the model writes back.
//! - [`budget`]: the 100-candidate budgeted retrieval.
//! - [`fit`]: shrinking the ranking request (shorter titles, then fewer candidates) until it fits a
//!   small context window.
//! - [`pipeline`]: [`pipeline::ai_search`], the whole question-to-answer run.

pub mod budget;
pub mod depth;
pub mod fit;
pub mod model;
pub mod parse;
pub mod pipeline;
pub mod prompts;
pub mod provider;

pub use depth::Depth;
