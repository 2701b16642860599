//! The compact candidate encoding must keep its promise: the ranking request at least 40% smaller
//! than with naive JSON candidates, on the benchmark's realistic sample.

#[path = "../examples/token_economy/sample.rs"]
#[allow(dead_code)]
mod sample;

use std::collections::HashSet;

use history_chat_core::ai::prompts::ranking_request;
use history_chat_core::gemini::{DEFAULT_MODEL, request_body};

#[test]
fn compact_ranking_request_is_at_least_40_percent_smaller() {
    let candidates = sample::candidates();
    assert_eq!(candidates.len(), 100);
    let urls: HashSet<&str> = candidates.iter().map(|p| p.url.as_str()).collect();
    assert_eq!(urls.len(), 100);

    let compact = ranking_request(sample::QUESTION, &candidates, sample::NOW_MS, DEFAULT_MODEL);
    let naive = sample::naive_ranking_request(sample::QUESTION, &candidates, DEFAULT_MODEL);
    let compact = request_body(&compact).to_string().len();
    let naive = request_body(&naive).to_string().len();
    assert!(
        compact * 100 <= naive * 60,
        "compact {compact} B vs naive {naive} B: only {:.1}% smaller",
        100.0 * (1.0 - compact as f64 / naive as f64)
    );
}
