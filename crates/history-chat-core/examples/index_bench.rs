//! Native benchmark of the history index on synthetic, realistic histories.
//!
//! `cargo run --release -p history-chat-core --example index_bench [-- 10000 50000]`
//!
//! For 10,000, 50,000 and 100,000 entries: build time, saved size, save and load time, approximate
//! heap, query latency (p50/p95) for 1- to 6-word queries mixing exact words, typos and an
//! unfinished last word, and AI-mode per-keyword retrieval for 20 and 100 keywords.
//!
//! Histories: titles of 3–12 words drawn with a skew from ~400 real English/French words and a long
//! tail of generated words (the vocabulary of real history is mostly rare words: names, products,
//! jargon); ~3,000 hosts; slug, id or query-string URLs; 15% of entries are raw duplicates of
//! another page (tracking parameters, fragments).

// Examples run natively only: `Instant::now` is banned in the wasm-shared library, not here.
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use history_chat_core::history::HistoryItem;
use history_chat_core::index::Index;

#[path = "common/synth.rs"]
mod synth;

use synth::{DAY_MS, NOW_MS, Rng, history, queries};

/// The process's resident memory in bytes (Linux `/proc/self/statm`), 0 elsewhere: a cross-check
/// of `Index::heap_bytes`, which counts capacities only.
fn rss_bytes() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<usize>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or(0.0)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 50_000, 100_000]
    } else {
        sizes
    };
    // One process per size, so the RSS column is not skewed by memory a previous size freed.
    if sizes.len() > 1 {
        let Ok(me) = std::env::current_exe() else {
            return eprintln!("cannot find this executable");
        };
        let mut tables: Vec<Vec<String>> = Vec::new();
        for size in &sizes {
            match std::process::Command::new(&me)
                .arg(size.to_string())
                .output()
            {
                Ok(out) => {
                    let text = String::from_utf8_lossy(&out.stdout).into_owned();
                    // Tables are separated by blank lines.
                    for (i, table) in text.split("\n\n").enumerate() {
                        let lines: Vec<String> = table.lines().map(str::to_owned).collect();
                        match tables.get_mut(i) {
                            Some(rows) => rows.extend(lines.into_iter().skip(2)),
                            None => tables.push(lines),
                        }
                    }
                }
                Err(error) => return eprintln!("cannot run {size}: {error}"),
            }
        }
        let tables: Vec<String> = tables.into_iter().map(|t| t.join("\n")).collect();
        return println!("{}", tables.join("\n\n"));
    }
    println!(
        "| entries | pages | words | build ms | save ms | bytes | load ms | heap MB | RSS Δ MB | keywords×20 ms | keywords×100 ms |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut latency_rows = Vec::new();
    let mut update_rows = Vec::new();
    for &size in &sizes {
        let items = history(size, 0x5EED ^ size as u64);
        let rss_before = rss_bytes();
        let started = Instant::now();
        let index = Index::build(items.clone());
        let build = started.elapsed();
        let rss_index = rss_bytes().saturating_sub(rss_before);

        let started = Instant::now();
        let bytes = index.to_bytes();
        let save = started.elapsed();
        let started = Instant::now();
        let loaded = match Index::from_bytes(&bytes) {
            Ok(loaded) => loaded,
            Err(error) => return eprintln!("load failed: {error}"),
        };
        let load = started.elapsed();
        assert_eq!(loaded.len(), index.len());

        let mut rng = Rng(42);
        // AI mode: one retrieval per keyword, 10 pages each (the slot caps are 10, 5 and 2).
        let keywords: Vec<String> = queries(&items, 1, 100, &mut rng);
        let retrieve = |count: usize| {
            let started = Instant::now();
            for keyword in keywords.iter().take(count) {
                let _ = index.search_keyword(keyword, NOW_MS - 90 * DAY_MS, NOW_MS, 10);
            }
            started.elapsed()
        };
        let (k20, k100) = (retrieve(20), retrieve(100));

        println!(
            "| {size} | {} | {} | {:.0} | {:.0} | {:.1} MB | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} |",
            index.len(),
            index.vocabulary_len(),
            ms(build),
            ms(save),
            bytes.len() as f64 / 1e6,
            ms(load),
            index.heap_bytes() as f64 / (1024.0 * 1024.0),
            rss_index as f64 / (1024.0 * 1024.0),
            ms(k20),
            ms(k100),
        );

        // The typo scan alone: a word of nine letters that matches nothing, one edit or not.
        let started = Instant::now();
        for _ in 0..100 {
            std::hint::black_box(index.search_keyword("zqxwvkjhg", 0, NOW_MS, 10));
        }
        let typo_us = started.elapsed().as_secs_f64() * 1e6 / 100.0;
        // Incremental updates on a copy: revisits, new pages (new words), removals.
        let mut updated = index.clone();
        let revisit: Vec<HistoryItem> = items.iter().take(200).cloned().collect();
        let started = Instant::now();
        for item in &revisit {
            updated.upsert(HistoryItem {
                last_visit_ms: NOW_MS,
                ..item.clone()
            });
        }
        let revisit_us = started.elapsed().as_secs_f64() * 1e6 / 200.0;
        let fresh: Vec<HistoryItem> = (0..200)
            .map(|i| HistoryItem {
                url: format!("https://new{i}.example/fresh-page-{i}"),
                title: format!("Brand new page number {i} about novelword{i}"),
                last_visit_ms: NOW_MS,
                visit_count: 1,
            })
            .collect();
        let started = Instant::now();
        for item in &fresh {
            updated.upsert(item.clone());
        }
        let fresh_us = started.elapsed().as_secs_f64() * 1e6 / 200.0;
        let urls: Vec<String> = fresh.iter().map(|i| i.url.clone()).collect();
        let started = Instant::now();
        for url in &urls {
            updated.remove_urls(std::slice::from_ref(url));
        }
        let remove_us = started.elapsed().as_secs_f64() * 1e6 / 200.0;
        update_rows.push((size, typo_us, revisit_us, fresh_us, remove_us));

        for n in 1..=6 {
            let mut times: Vec<f64> = queries(&items, n, 300, &mut rng)
                .iter()
                .map(|q| {
                    let started = Instant::now();
                    let hits = index.search(q, NOW_MS - 90 * DAY_MS, NOW_MS, 25);
                    let elapsed = ms(started.elapsed());
                    std::hint::black_box(hits);
                    elapsed
                })
                .collect();
            times.sort_by(f64::total_cmp);
            latency_rows.push((size, n, percentile(&times, 0.5), percentile(&times, 0.95)));
        }
    }
    println!("\n| entries | typo scan µs | upsert revisit µs | upsert new page µs | remove µs |");
    println!("|---:|---:|---:|---:|---:|");
    for (size, typo, revisit, fresh, remove) in update_rows {
        println!("| {size} | {typo:.0} | {revisit:.1} | {fresh:.1} | {remove:.1} |");
    }
    println!("\n| entries | query words | p50 ms | p95 ms |");
    println!("|---:|---:|---:|---:|");
    for (size, n, p50, p95) in latency_rows {
        println!("| {size} | {n} | {p50:.2} | {p95:.2} |");
    }
}
