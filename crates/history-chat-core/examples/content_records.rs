//! The content store's IndexedDB records of `pages` synthetic read pages, written to a file for
//! `tests/bench/worker_memory.mjs` (`scripts/bench worker-memory`), which puts them into the real
//! extension's `content` store and measures its worker with them loaded.
//!
//! `cargo run --release -p history-chat-core --example content_records -- <out> [pages] [words]`
//!
//! The pages are `content_bench`'s (the same generator, `common/content_synth.rs`, and seed):
//! read through the real [`ContentHost`] (cut, deflated, indexed; their passages embedded with
//! pseudo-random unit vectors standing in for the model), and each page's last record as the
//! host hands it to the worker to store ([`Record::encode`]'s bytes), i.e. the record once its
//! passages are embedded. File: per page, its URL's length (u32, little-endian), the URL (UTF-8),
//! the record's length (u32, little-endian), the record. Printed on stderr: pages, bytes, and the
//! passages and vectors per page (every record decoded back).

use std::io::Write;

use history_chat_core::content::Record;

// The questions are content_bench's, not needed here.
#[allow(dead_code)]
#[path = "common/content_synth.rs"]
mod content_synth;

use content_synth::{Rng, SEED, Synth, read, serve, started_host};

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(out) = args.next() else {
        eprintln!("usage: content_records <out> [pages] [words]");
        std::process::exit(2);
    };
    let pages: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(10_000);
    let words: usize = args.next().and_then(|a| a.parse().ok()).unwrap_or(1_000);

    let synth = Synth::new();
    let mut rng = Rng(SEED);
    let mut host = started_host();
    let mut file = Vec::new();
    let (mut passages, mut vectors, mut stored) = (0usize, 0usize, 0usize);
    for i in 0..pages {
        let text = synth.page_text(&mut rng, words);
        let event = read(&host, i, text);
        let actions = host.handle(event);
        let written = serve(&mut host, actions, &mut rng);
        // The page's last record is what IndexedDB holds once its passages are embedded.
        let Some(last) = written.into_iter().last() else {
            eprintln!("page {i}: no record written");
            std::process::exit(1);
        };
        match Record::decode(&last.bytes) {
            Ok(decoded) if decoded.record.url == last.url => {
                passages += decoded.record.spans.len();
                vectors += decoded
                    .record
                    .vectors
                    .iter()
                    .filter(|v| v.vector.is_some())
                    .count();
            }
            _ => {
                eprintln!("page {i}: its record does not decode");
                std::process::exit(1);
            }
        }
        for part in [last.url.as_bytes(), &last.bytes] {
            let Ok(len) = u32::try_from(part.len()) else {
                eprintln!("page {i}: a part longer than 4 GB");
                std::process::exit(1);
            };
            file.extend_from_slice(&len.to_le_bytes());
            file.extend_from_slice(part);
        }
        stored += last.bytes.len();
    }
    let written = std::fs::File::create(&out).and_then(|mut f| f.write_all(&file));
    if let Err(error) = written {
        eprintln!("writing {out}: {error}");
        std::process::exit(1);
    }
    let per = |n: usize| n as f64 / pages.max(1) as f64;
    eprintln!(
        "content_records: {pages} pages of ~{words} words, {stored} record bytes ({:.0} a page), \
         {:.1} passages and {:.1} vectors a page, to {out}",
        per(stored),
        per(passages),
        per(vectors)
    );
}
