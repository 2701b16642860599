//! How long one embedding takes natively, and the memory the model holds: a typical page
//! (title and address) as a passage, a 10-word question as a query, and a batch of 32 pages.
//! Informative only (the browser's numbers are what count).
//!
//! `cargo run --release -p history-chat-embedding --example embed_bench [-- RUNS [borrowed]]` with
//! `HISTORY_CHAT_MODEL_DIR` holding `e5-small-latin-q4.bin`. The model loads with
//! `Embedder::from_vec`, or `from_bytes` with `borrowed` (compare the peaks).

// A native benchmark: it reads the clock (the crate itself never does).
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use history_chat_embedding::{Embedder, Kind};

const PASSAGE: &str = "Understanding Ownership - The Rust Programming Language \
                       doc.rust-lang.org/book/ch04-01-what-is-ownership.html";
const QUERY: &str = "how does the rust compiler decide when memory is freed";

/// This process's resident and peak resident memory, in bytes (Linux; zero elsewhere).
fn memory() -> (u64, u64) {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let field = |name: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(name))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
            .map_or(0, |kb| kb * 1024)
    };
    (field("VmRSS:"), field("VmHWM:"))
}

fn mb(bytes: u64) -> f64 {
    bytes as f64 / 1e6
}

fn time(runs: usize, mut f: impl FnMut()) -> (Duration, Duration) {
    f(); // warm-up
    let mut times: Vec<Duration> = (0..runs)
        .map(|_| {
            let start = Instant::now();
            f();
            start.elapsed()
        })
        .collect();
    times.sort();
    let at = |q: f64| times[((times.len() - 1) as f64 * q).round() as usize];
    (at(0.5), at(0.95))
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let runs: usize = std::env::args()
        .nth(1)
        .and_then(|a| a.parse().ok())
        .unwrap_or(50);
    let borrowed = std::env::args().nth(2).is_some_and(|a| a == "borrowed");
    let dir =
        std::env::var_os("HISTORY_CHAT_MODEL_DIR").ok_or("HISTORY_CHAT_MODEL_DIR is not set")?;
    let path = std::path::Path::new(&dir).join("e5-small-latin-q4.bin");

    let (rss0, _) = memory();
    let bytes = std::fs::read(&path)?;
    let asset_len = bytes.len();
    let start = Instant::now();
    let model = if borrowed {
        let model = Embedder::from_bytes(&bytes)?;
        drop(bytes);
        model
    } else {
        Embedder::from_vec(bytes)?
    };
    let load = start.elapsed();
    let (rss1, peak) = memory();
    println!(
        "asset {:.1} MB, loaded ({}) in {load:.2?}; the model holds {:.1} MB; resident +{:.1} MB \
         once loaded (the asset's bytes gone), peak +{:.1} MB",
        mb(asset_len as u64),
        if borrowed { "from_bytes" } else { "from_vec" },
        mb(model.held_bytes() as u64),
        mb(rss1.saturating_sub(rss0)),
        mb(peak.saturating_sub(rss0)),
    );

    for (name, text, kind) in [
        ("passage", PASSAGE, Kind::Passage),
        ("query", QUERY, Kind::Query),
    ] {
        let tokens = model.tokenize(text, kind).len();
        let (p50, p95) = time(runs, || {
            let _ = model.embed(&[text], kind);
        });
        println!("{name} ({tokens} tokens): p50 {p50:.2?}, p95 {p95:.2?} over {runs} runs");
    }
    let batch = vec![PASSAGE; 32];
    let (p50, p95) = time(runs.div_ceil(10), || {
        let _ = model.embed(&batch, Kind::Passage);
    });
    println!(
        "32 passages in one call: p50 {p50:.2?} ({:.2?} each), p95 {p95:.2?}",
        p50 / 32
    );
    let (_, peak) = memory();
    println!(
        "peak resident +{:.1} MB after embedding",
        mb(peak.saturating_sub(rss0))
    );
    Ok(())
}
