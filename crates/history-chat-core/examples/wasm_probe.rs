//! The index's costs in WebAssembly, where the extension runs it.
//!
//! The library has no clock (and this crate no JS bindings), so the host times the exported `main`
//! of builds that stop after different steps, chosen at compile time by `PROBE_STEPS`, and takes
//! differences: build = `build` − `gen`, save+load = `load` − `build`, and so on. `PROBE_SIZE`
//! sets the history size (default 50,000). Memory: the module's linear memory after the run
//! (it only grows, so it is the peak, history items included).
//!
//! ```sh
//! for steps in gen build save load query; do
//!   PROBE_STEPS=$steps cargo build --release --target wasm32-unknown-unknown \
//!     -p history-chat-core --example wasm_probe
//!   cp target/wasm32-unknown-unknown/release/examples/wasm_probe.wasm /tmp/probe-$steps.wasm
//! done
//! node -e 'for (const s of ["gen","build","save","load","query"]) { const m = new WebAssembly.Instance(
//!   new WebAssembly.Module(require("fs").readFileSync(`/tmp/probe-${s}.wasm`))); const t = [];
//!   for (let i = 0; i < 5; i++) { const t0 = performance.now(); m.exports.main(0, 0); t.push(performance.now() - t0); }
//!   console.log(s, Math.min(...t).toFixed(0), "ms", m.exports.memory.buffer.byteLength / 2**20, "MiB") }'
//! ```

#[path = "common/synth.rs"]
mod synth;

use history_chat_core::index::Index;
use synth::{DAY_MS, NOW_MS, Rng, history, queries};

/// The steps to run: `gen`, `build`, `save`, `load` or `query` (each includes the previous ones,
/// except `query`, which is `build` plus the queries).
const STEPS: &str = match option_env!("PROBE_STEPS") {
    Some(steps) => steps,
    None => "gen",
};

/// Queries run by the `query` step: 100 of each length from 1 to 6 words.
const QUERIES_PER_LENGTH: usize = 100;

fn main() {
    let size = option_env!("PROBE_SIZE")
        .and_then(|s| s.parse().ok())
        .unwrap_or(50_000);
    let items = history(size, 0x5EED ^ size as u64);
    // Every step clones the items once, so the differences do not count the clone.
    let owned = items.clone();
    if STEPS == "gen" {
        std::hint::black_box(owned);
        return;
    }
    let index = Index::build(owned);
    if STEPS == "query" {
        let mut rng = Rng(42);
        let all: Vec<String> = (1..=6)
            .flat_map(|n| queries(&items, n, QUERIES_PER_LENGTH, &mut rng))
            .collect();
        for q in &all {
            std::hint::black_box(index.search(q, NOW_MS - 90 * DAY_MS, NOW_MS, 25));
        }
        return;
    }
    if STEPS == "build" {
        std::hint::black_box(index);
        return;
    }
    let bytes = index.to_bytes();
    drop(index);
    if STEPS == "save" {
        std::hint::black_box(bytes);
        return;
    }
    std::hint::black_box(Index::from_bytes(&bytes).map(|i| i.len()).unwrap_or(0));
}
