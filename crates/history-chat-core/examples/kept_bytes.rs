//! What a page kept after Chrome forgot it costs in storage: the growth of the index snapshot
//! (IndexedDB `blobs/history-index`) per extra page, and the size of its topic-search record
//! (IndexedDB `vectors`, one per page).
//!
//! `cargo run --release -p history-chat-core --example kept_bytes [-- 50000 10000]`
//!
//! A history of `base` synthetic entries (the generator of `index_bench`) is indexed and saved;
//! then `kept` more entries of the same kind (other pages, none visited recently), visited 90 to 1,000 days ago and marked kept as
//! Chrome forgets them, are added and the index is saved again: the difference divided by `kept`
//! is the snapshot's growth per kept page. A page's vector record is encoded with its own URL and
//! 384 components, the size written for it.

use history_chat_core::clean::clean_url;
use history_chat_core::history::{HistoryItem, RemovedVisits};
use history_chat_core::index::Index;
use history_chat_core::index::host::{Event, Host};
use history_chat_core::semantic::{Entry, Quantised, Record};

#[path = "common/synth.rs"]
#[allow(dead_code)]
mod synth;

use synth::{DAY_MS, NOW_MS, history};

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let base = args.first().copied().unwrap_or(50_000);
    let kept = args.get(1).copied().unwrap_or(10_000);

    let recent = history(base, 7);
    let known: std::collections::HashSet<String> = recent
        .iter()
        .filter_map(|item| clean_url(&item.url).ok())
        .map(|url| url.to_string())
        .collect();
    // Pages of their own (another seed), none of them also visited recently: Chrome forgets a page
    // only when its newest visit is old.
    let old: Vec<HistoryItem> = history(kept, 99)
        .into_iter()
        .filter(|item| clean_url(&item.url).is_ok_and(|url| !known.contains(url.as_str())))
        .enumerate()
        .map(|(i, item)| HistoryItem {
            last_visit_ms: NOW_MS - 90 * DAY_MS - (i as i64 % 910) * DAY_MS,
            ..item
        })
        .collect();

    let before = Index::build(recent.iter().cloned());
    let before_bytes = before.to_bytes().len();

    // The old pages read from Chrome, then forgotten by Chrome and kept, as the worker's host does.
    let mut index = Index::from_bytes(&before.to_bytes()).unwrap_or_default();
    index.extend(old.iter().cloned());
    let urls: Vec<String> = old.iter().map(|item| item.url.clone()).collect();
    let mut host = Host::new();
    host.handle(Event::KeepForgotten(true));
    host.handle(Event::Need);
    host.handle(Event::SnapshotRead {
        bytes: Some(index.to_bytes()),
        now_ms: NOW_MS,
    });
    host.handle(Event::VisitRemoved {
        removed: RemovedVisits {
            all_history: false,
            urls,
        },
        now_ms: NOW_MS,
    });
    let Some(after) = host.index() else {
        eprintln!("the host did not load the index");
        return;
    };
    let after_bytes = after.to_bytes().len();
    let pages_added = after.len() - before.len();

    let vector = Quantised::from_f32(&[0.05; 384]).unwrap_or_else(|| unreachable!());
    let record_bytes: Vec<usize> = old
        .iter()
        .filter_map(|item| clean_url(&item.url).ok())
        .map(|url| {
            let record = Record::new(
                url.as_str(),
                &Entry {
                    vector: vector.clone(),
                    page_hash: u64::MAX / 3,
                    last_visit_ms: NOW_MS - 100 * DAY_MS,
                },
            );
            // IndexedDB also stores the key (the cleaned URL) beside the value.
            record.encode().len() + url.as_str().len()
        })
        .collect();
    let record_mean = record_bytes.iter().sum::<usize>() as f64 / record_bytes.len().max(1) as f64;

    println!(
        "base history: {base} entries, {} pages; snapshot {before_bytes} bytes",
        before.len()
    );
    println!(
        "with {kept} entries kept ({pages_added} pages, {} marked kept): snapshot {after_bytes} bytes",
        after.kept_len()
    );
    let growth = (after_bytes - before_bytes) as f64 / pages_added.max(1) as f64;
    println!("snapshot growth per kept page: {growth:.0} bytes");
    println!("vector record per page (value + key): {record_mean:.0} bytes");
    println!("total per kept page: {:.0} bytes", growth + record_mean);
}
