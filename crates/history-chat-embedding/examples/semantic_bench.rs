//! The native side of `tests/bench/semantic.mjs` (`scripts/bench semantic`): the texts the
//! browser benchmark embeds, and the same texts embedded natively, one at a time, so the page can
//! report WebAssembly against native side by side.
//!
//! The texts: 100 pages of the evaluation history (`history-chat-core/eval/history.json`, evenly
//! spread over it), each as its passage (`semantic::passage`: title, host, path words — what the
//! worker embeds), and the evaluation's topic questions of 9 to 11 words (`topics.json`: about 10
//! words each, as a question is typed).
//!
//! `cargo run --release -p history-chat-embedding --example semantic_bench [-- ROUNDS]` with
//! `HISTORY_CHAT_MODEL_DIR` holding `e5-small-latin-q4.bin`; prints one JSON object: the texts,
//! their token counts, the model's load time, every embedding's wall time and CPU time in ms
//! (ROUNDS passes over the texts after one warm-up text, default 3), and the process's peak
//! resident memory. Run it with `RAYON_NUM_THREADS=1`: one thread computing, as in the browser.
//! candle-core's 4-bit kernels are chosen at compile time: x86-64's baseline build runs the scalar
//! ones; build with `RUSTFLAGS="-C target-cpu=native"` for its AVX2 ones (`scripts/bench semantic`
//! builds and runs both).

// A native benchmark: it times with the clock, which the library code never does.
#![allow(clippy::disallowed_methods)]

use std::time::Instant;

use history_chat_core::history::clean_and_merge;
use history_chat_core::retrieval::eval::{EvalHistory, EvalQuery};
use history_chat_core::semantic;
use history_chat_embedding::{Embedder, Kind};
use serde_json::json;

/// Pages embedded as passages.
const PASSAGES: usize = 100;
/// Words of the questions kept.
const QUESTION_WORDS: std::ops::RangeInclusive<usize> = 9..=11;

/// This process's peak resident memory, in bytes (Linux; zero elsewhere).
fn peak_resident() -> u64 {
    std::fs::read_to_string("/proc/self/status")
        .unwrap_or_default()
        .lines()
        .find_map(|l| l.strip_prefix("VmHWM:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map_or(0, |kb| kb * 1024)
}

/// CPU time this process's threads have run, in ms (Linux's schedstat of each thread, in ns; NaN
/// elsewhere): on a shared machine, what an embedding costs whatever else runs. Every thread, for
/// candle hands its matrix products to rayon's pool (one thread with `RAYON_NUM_THREADS=1`) while
/// the calling thread waits.
fn cpu_ms() -> f64 {
    let Ok(tasks) = std::fs::read_dir("/proc/self/task") else {
        return f64::NAN;
    };
    let ns: u64 = tasks
        .filter_map(|task| {
            let stat = std::fs::read_to_string(task.ok()?.path().join("schedstat")).ok()?;
            stat.split_whitespace().next()?.parse::<u64>().ok()
        })
        .sum();
    ns as f64 / 1e6
}

fn ms(start: Instant) -> f64 {
    start.elapsed().as_secs_f64() * 1000.0
}

fn main() {
    if let Err(error) = run() {
        eprintln!("semantic_bench: {error}");
        std::process::exit(1);
    }
}

fn run() -> Result<(), String> {
    let rounds: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(3);
    let history: EvalHistory =
        serde_json::from_str(include_str!("../../history-chat-core/eval/history.json"))
            .map_err(|e| format!("history.json: {e}"))?;
    let topics: Vec<EvalQuery> =
        serde_json::from_str(include_str!("../../history-chat-core/eval/topics.json"))
            .map_err(|e| format!("topics.json: {e}"))?;
    let pages = clean_and_merge(history.items());
    let step = (pages.len() / PASSAGES).max(1);
    let passages: Vec<String> = pages
        .iter()
        .step_by(step)
        .take(PASSAGES)
        .map(semantic::passage)
        .collect();
    let questions: Vec<String> = topics
        .iter()
        .filter(|q| QUESTION_WORDS.contains(&q.query.split_whitespace().count()))
        .map(|q| q.query.clone())
        .collect();

    let dir =
        std::env::var_os("HISTORY_CHAT_MODEL_DIR").ok_or("HISTORY_CHAT_MODEL_DIR is not set")?;
    let path = std::path::Path::new(&dir).join("e5-small-latin-q4.bin");
    let start = Instant::now();
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", path.display()))?;
    let read_ms = ms(start);
    let start = Instant::now();
    let model = Embedder::from_bytes(&bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let load_ms = ms(start);
    let asset_bytes = bytes.len();
    drop(bytes);

    // Every embedding's wall time and the process's CPU time, in ms.
    let timed = |texts: &[String], kind: Kind| -> Result<(Vec<f64>, Vec<f64>), String> {
        let mut times = Vec::with_capacity(texts.len() * rounds);
        let mut cpu = Vec::with_capacity(texts.len() * rounds);
        for _ in 0..rounds {
            for text in texts {
                let (start, cpu_start) = (Instant::now(), cpu_ms());
                model
                    .embed(&[text.as_str()], kind)
                    .map_err(|e| format!("{text}: {e}"))?;
                times.push(ms(start));
                cpu.push(cpu_ms() - cpu_start);
            }
        }
        Ok((times, cpu))
    };
    // One warm-up text of each kind: the first call pays for the allocations.
    for (text, kind) in [(&passages, Kind::Passage), (&questions, Kind::Query)] {
        if let Some(first) = text.first() {
            model
                .embed(&[first.as_str()], kind)
                .map_err(|e| e.to_string())?;
        }
    }
    let (passage_ms, passage_cpu_ms) = timed(&passages, Kind::Passage)?;
    let (query_ms, query_cpu_ms) = timed(&questions, Kind::Query)?;
    let texts = |texts: &[String], kind: Kind| -> Vec<serde_json::Value> {
        texts
            .iter()
            .map(|t| json!({"text": t, "tokens": model.tokenize(t, kind).len()}))
            .collect()
    };
    let out = json!({
        "assetBytes": asset_bytes,
        "readMs": read_ms,
        "loadMs": load_ms,
        "heldBytes": model.held_bytes(),
        "peakResidentBytes": peak_resident(),
        "rounds": rounds,
        "passages": texts(&passages, Kind::Passage),
        "queries": texts(&questions, Kind::Query),
        "passageMs": passage_ms,
        "queryMs": query_ms,
        "passageCpuMs": passage_cpu_ms,
        "queryCpuMs": query_cpu_ms,
    });
    println!("{out}");
    Ok(())
}
