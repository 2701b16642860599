//! Token economy of the AI mode's requests: `cargo run -p history-chat-core --example token_economy`.
//!
//! For each depth, the JSON body sizes of the expansion call and of the ranking call for a realistic
//! 100-candidate set, with the candidates encoded compactly (`id|age|title|url`) and naively (JSON
//! objects with full URLs, full titles and absolute times). Tokens are estimated as bytes / 4, the
//! usual rule of thumb for English-like text (the API's own count is in `usageMetadata`).
//!
//! `-- --lines` prints the compact candidate lines instead.

mod sample;

use history_chat_core::ai::Depth;
use history_chat_core::ai::prompts::{candidate_lines, expansion_request, ranking_request};
use history_chat_core::gemini::{DEFAULT_MODEL, request_body};

fn body_bytes(request: &history_chat_core::ai::model::ModelRequest) -> usize {
    request_body(request).to_string().len()
}

fn main() {
    if std::env::args().any(|arg| arg == "--lines") {
        println!("{}", candidate_lines(&sample::candidates(), sample::NOW_MS));
        return;
    }
    let candidates = sample::candidates();
    let compact = body_bytes(&ranking_request(
        sample::QUESTION,
        &candidates,
        sample::NOW_MS,
        DEFAULT_MODEL,
    ));
    let naive = body_bytes(&sample::naive_ranking_request(
        sample::QUESTION,
        &candidates,
        DEFAULT_MODEL,
    ));
    println!(
        "Request bodies for {} candidates, model {DEFAULT_MODEL}; tokens ≈ bytes / 4 (an estimate).",
        candidates.len()
    );
    println!();
    println!(
        "| depth       | expansion      | ranking, compact | ranking, naive JSON | ranking saving | both calls, compact vs naive |"
    );
    println!(
        "|-------------|----------------|------------------|---------------------|----------------|------------------------------|"
    );
    for depth in Depth::ALL {
        let expansion = body_bytes(&expansion_request(sample::QUESTION, depth, DEFAULT_MODEL));
        let total_compact = expansion + compact;
        let total_naive = expansion + naive;
        println!(
            "| {:<11} | {:>5} B ≈ {:>4} t | {:>7} B ≈ {:>4} t | {:>8} B ≈ {:>5} t | {:>13.1}% | {:>6} B vs {:>6} B ({:.1}% less) |",
            depth.as_str(),
            expansion,
            expansion / 4,
            compact,
            compact / 4,
            naive,
            naive / 4,
            saving(compact, naive),
            total_compact,
            total_naive,
            saving(total_compact, total_naive),
        );
    }
}

fn saving(small: usize, big: usize) -> f64 {
    100.0 * (1.0 - small as f64 / big as f64)
}
