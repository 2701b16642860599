//! Recall@5 of the browser's literal search and of the smart index (fused with it), per kind of
//! query, on `eval/history.json` and `eval/queries.json`.
//!
//! `cargo run --release -p history-chat-core --example eval` (add `-- -v` to list every query).

use history_chat_core::retrieval::eval::{self, EvalHistory, EvalQuery, RECALL_AT};

fn main() {
    let verbose = std::env::args().any(|a| a == "-v");
    let history: EvalHistory = match serde_json::from_str(include_str!("../eval/history.json")) {
        Ok(history) => history,
        Err(error) => return eprintln!("eval/history.json: {error}"),
    };
    let queries: Vec<EvalQuery> = match serde_json::from_str(include_str!("../eval/queries.json")) {
        Ok(queries) => queries,
        Err(error) => return eprintln!("eval/queries.json: {error}"),
    };
    let outcomes = eval::run(&history, &queries);
    if verbose {
        for o in &outcomes {
            let mark = if o.smart < 1.0 { "MISS" } else { "    " };
            println!(
                "{mark} {:<8} literal {:.2} smart {:.2}  {}",
                o.kind, o.literal, o.smart, o.query
            );
        }
        println!();
    }
    println!(
        "{} history entries, {} queries, recall@{RECALL_AT}\n",
        history.entries.len(),
        queries.len()
    );
    println!("| kind     | queries | literal | index only | smart (index + literal, RRF) |");
    println!("|----------|--------:|--------:|-----------:|-----------------------------:|");
    for row in eval::summarize(&outcomes) {
        println!(
            "| {:<8} | {:>7} | {:>7.2} | {:>10.2} | {:>28.2} |",
            row.kind, row.queries, row.literal, row.index, row.smart
        );
    }
}
