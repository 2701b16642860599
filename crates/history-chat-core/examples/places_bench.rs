//! Bookmarks and open tabs, natively: recall@5 of a question naming a bookmark's folder and a word
//! of its title, or two words of an open tab's title, among 5,000 bookmarks and 200 tabs; the
//! time to read them (the worker's `load_bookmarks` / `load_tabs`), to apply one event, and a
//! question's search (p50/p95).
//!
//! `cargo run --release -p history-chat-core --example places_bench` (add `-- -v` to list misses).
//!
//! The set: the evaluation history's real pages (`eval/history.json`, 1,354 titles in English and
//! French) as bookmarks and tabs, and synthetic pages (`common/synth.rs`) up to 5,000 bookmarks.
//! Every bookmark is filed in one of [`FOLDERS`] by its site (a user files a site's pages
//! together), so a folder holds about a hundred and fifty bookmarks and its name alone never finds
//! one: the question names the innermost folder and the title's word that sets it apart in that
//! folder (its rarest word there, 4 letters or more), as "that recipe in Desserts, the tatin one".
//! A tab's question is the two rarest words of its title among the tabs.

// Examples run natively only: `Instant::now` is banned in the wasm-shared library, not here.
#![allow(clippy::disallowed_methods)]

#[path = "common/synth.rs"]
#[allow(dead_code)]
mod synth;

use std::time::Instant;

use history_chat_core::places::browser::{BookmarkNode, TabInfo};
use history_chat_core::places::host::Places;
use history_chat_core::retrieval::eval::EvalHistory;

/// Folder paths as people file bookmarks (below the bookmarks bar or "Other bookmarks").
const FOLDERS: &[&[&str]] = &[
    &["Bookmarks bar", "Dev", "Rust"],
    &["Bookmarks bar", "Dev", "Databases"],
    &["Bookmarks bar", "Dev", "Kubernetes"],
    &["Bookmarks bar", "Dev", "Frontend"],
    &["Bookmarks bar", "Dev", "Python"],
    &["Bookmarks bar", "Work", "Onboarding"],
    &["Bookmarks bar", "Work", "Payroll"],
    &["Bookmarks bar", "Reading list"],
    &["Bookmarks bar", "News"],
    &["Other bookmarks", "Cuisine", "Desserts"],
    &["Other bookmarks", "Cuisine", "Plats"],
    &["Other bookmarks", "Voyages", "Japon"],
    &["Other bookmarks", "Voyages", "Italie"],
    &["Other bookmarks", "Maison", "Jardin"],
    &["Other bookmarks", "Maison", "Travaux"],
    &["Other bookmarks", "Santé"],
    &["Other bookmarks", "Finances", "Impôts"],
    &["Other bookmarks", "Science", "Physics"],
    &["Other bookmarks", "Science", "Climate"],
    &["Other bookmarks", "Music"],
    &["Other bookmarks", "Films"],
    &["Other bookmarks", "Sport", "Running"],
    &["Other bookmarks", "Kids", "School"],
    &["Other bookmarks", "Shopping", "Wishlist"],
    &["Other bookmarks", "Papers", "Machine learning"],
    &["Other bookmarks", "Papers", "Systems"],
    &["Other bookmarks", "Photography"],
    &["Other bookmarks", "Gaming"],
    &["Other bookmarks", "Administration"],
    &["Other bookmarks", "Archive 2024"],
];

const BOOKMARKS: usize = 5_000;
const TABS: usize = 200;
const TOP: usize = 5;

fn host_of(url: &str) -> &str {
    url.split("://")
        .nth(1)
        .and_then(|rest| rest.split('/').next())
        .unwrap_or("")
}

fn folder_of(url: &str) -> usize {
    let hash = host_of(url)
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325_u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    (hash % FOLDERS.len() as u64) as usize
}

/// The words of `title` a question may name: letters only, 4 letters or more, lower case, no
/// stop word (a search drops them).
fn title_words(title: &str) -> Vec<String> {
    let mut words: Vec<String> = title
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| w.chars().count() >= 4 && w.chars().all(char::is_alphabetic))
        .map(str::to_lowercase)
        .filter(|w| !history_chat_core::index::text::is_stop_word(w))
        .collect();
    words.sort();
    words.dedup();
    words
}

/// The `n` words of `title` found in the fewest of `titles` (ties: the longer first).
fn rarest_words(title: &str, titles: &[&str], n: usize) -> Vec<String> {
    let mut words: Vec<(usize, String)> = title_words(title)
        .into_iter()
        .map(|w| {
            let df = titles
                .iter()
                .filter(|t| title_words(t).contains(&w))
                .count();
            (df, w)
        })
        .collect();
    words.sort_by(|(da, a), (db, b)| da.cmp(db).then(b.len().cmp(&a.len())));
    words.into_iter().take(n).map(|(_, w)| w).collect()
}

fn json<T: serde::de::DeserializeOwned>(value: serde_json::Value) -> T {
    match serde_json::from_value(value) {
        Ok(read) => read,
        Err(error) => panic!("a node of the bench's own making: {error}"),
    }
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    sorted[((sorted.len() as f64 - 1.0) * p).round() as usize]
}

fn main() {
    let verbose = std::env::args().any(|a| a == "-v");
    let history: EvalHistory = match serde_json::from_str(include_str!("../eval/history.json")) {
        Ok(history) => history,
        Err(error) => return eprintln!("eval/history.json: {error}"),
    };
    // Real pages (first the eval's, one per address), then synthetic ones, up to 5,000.
    let mut pages: Vec<(String, String)> = Vec::new();
    let cleaned = |url: &str| history_chat_core::clean::clean_url(url).map(|u| u.to_string());
    for entry in &history.entries {
        let Ok(url) = cleaned(&entry.url) else {
            continue;
        };
        if !entry.title.is_empty() && !pages.iter().any(|(seen, _)| *seen == url) {
            pages.push((url, entry.title.clone()));
        }
    }
    let real = pages.len();
    for item in synth::history(BOOKMARKS * 2, 7) {
        if pages.len() >= BOOKMARKS {
            break;
        }
        if !item.title.is_empty() && !item.url.contains('#') && !item.url.contains("utm_") {
            pages.push((item.url, item.title));
        }
    }

    // The tree as getTree gives it: the root, the bar ("1") and "Other bookmarks" ("2"), folders.
    let mut folders: Vec<serde_json::Value> = Vec::new();
    let mut children: Vec<Vec<serde_json::Value>> = vec![Vec::new(); FOLDERS.len()];
    for (n, (url, title)) in pages.iter().enumerate() {
        children[folder_of(url)].push(serde_json::json!({
            "id": format!("b{n}"), "title": title, "url": url, "dateAdded": 1.7e12 + n as f64
        }));
    }
    for (n, path) in FOLDERS.iter().enumerate() {
        folders.push(serde_json::json!({
            "id": format!("f{n}"), "parent": path[0], "title": path[1..].join("/"),
            "children": std::mem::take(&mut children[n])
        }));
    }
    // Nested folders: "Dev" holding "Rust"… one node per level.
    let mut roots = serde_json::json!({"id": "0", "title": "", "children": [
        {"id": "1", "title": "Bookmarks bar", "children": []},
        {"id": "2", "title": "Other bookmarks", "children": []}
    ]});
    for folder in folders {
        let root = if folder["parent"] == "Bookmarks bar" {
            0
        } else {
            1
        };
        let names: Vec<String> = (folder["title"].as_str().unwrap_or(""))
            .split('/')
            .map(str::to_owned)
            .collect();
        let mut node = serde_json::json!({
            "id": folder["id"], "title": names[names.len() - 1], "children": folder["children"]
        });
        for (depth, name) in names.iter().enumerate().rev().skip(1) {
            node = serde_json::json!({
                "id": format!("{}-{depth}", folder["id"].as_str().unwrap_or("")),
                "title": name, "children": [node]
            });
        }
        if let Some(list) = roots["children"][root]["children"].as_array_mut() {
            list.push(node);
        }
    }
    let tree: Vec<BookmarkNode> = vec![json(roots)];
    let tabs: Vec<TabInfo> = (pages.iter().rev().skip(BOOKMARKS - real).take(TABS))
        .enumerate()
        .map(|(n, (url, title))| {
            json(serde_json::json!({"id": n as i32 + 1, "windowId": 1, "url": url, "title": title, "lastAccessed": 1.7e12 + n as f64}))
        })
        .collect();

    let mut places = Places::new();
    let started = Instant::now();
    places.load_bookmarks(&tree);
    // The shelf is made at the first search after a change; `len` makes it.
    places.len(history_chat_core::origin::Origin::Bookmark);
    let load_bookmarks_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    places.load_tabs(&tabs);
    places.len(history_chat_core::origin::Origin::Tab);
    let load_tabs_ms = started.elapsed().as_secs_f64() * 1e3;
    let started = Instant::now();
    places.bookmark_created(&json(serde_json::json!({
        "id": "new", "parentId": "f0", "title": "A new bookmark", "url": "https://new.example/"
    })));
    places.len(history_chat_core::origin::Origin::Bookmark);
    let event_ms = started.elapsed().as_secs_f64() * 1e3;

    if let Ok(question) = std::env::var("PLACES_QUESTION") {
        for page in places.search(&question, 10) {
            println!("{} [{}] {:?}", page.url, page.title, page.marks.bookmark);
        }
        return;
    }
    // Questions: the real bookmarks' innermost folder + the title's rarest word(s) there; the
    // tabs' rarest title words among the tabs. A question whose words are in more than five
    // titles of its folder (of every bookmark and tab, for a tab's) is ambiguous: no ranking can put its page in the top 5
    // every time, and it is counted apart.
    let folder_titles: Vec<Vec<&str>> = (0..FOLDERS.len())
        .map(|f| {
            (pages.iter())
                .filter(|(url, _)| folder_of(url) == f)
                .map(|(_, t)| t.as_str())
                .collect()
        })
        .collect();
    let tab_titles: Vec<&str> = tabs.iter().filter_map(|t| t.title.as_deref()).collect();
    let all_titles: Vec<&str> = pages.iter().map(|(_, t)| t.as_str()).collect();
    let sharing = |words: &[String], titles: &[&str]| {
        (titles.iter())
            .filter(|t| {
                let have = title_words(t);
                words.iter().all(|w| have.contains(w))
            })
            .count()
    };
    // (kind, question, expected address, ambiguous)
    let mut asked: Vec<(String, String, String, bool)> = Vec::new();
    for (url, title) in pages.iter().take(real) {
        let folder = folder_of(url);
        let inner = FOLDERS[folder][FOLDERS[folder].len() - 1].to_lowercase();
        for n in [1, 2] {
            let words = rarest_words(title, &folder_titles[folder], n);
            if words.len() == n {
                let kind = format!("bookmark: its folder + {n} title word(s)");
                let ambiguous = sharing(&words, &folder_titles[folder]) > TOP;
                let question = format!("{inner} {} ", words.join(" "));
                asked.push((kind, question, url.clone(), ambiguous));
            }
        }
    }
    for tab in &tabs {
        let (Some(url), Some(title)) = (&tab.url, &tab.title) else {
            continue;
        };
        let words = rarest_words(title, &tab_titles, 2);
        if words.len() == 2 {
            let ambiguous = sharing(&words, &all_titles) > TOP;
            let question = format!("{} ", words.join(" "));
            asked.push((
                "tab: 2 title words".into(),
                question,
                url.clone(),
                ambiguous,
            ));
        }
    }
    // (kind, hits, asked, hits among the unambiguous, unambiguous)
    let mut kinds: Vec<(String, usize, usize, usize, usize)> = Vec::new();
    let mut times: Vec<f64> = Vec::new();
    for (kind, question, url, ambiguous) in &asked {
        let started = Instant::now();
        let found = places.search(question, TOP);
        times.push(started.elapsed().as_secs_f64() * 1e3);
        let hit = found.iter().any(|p| p.url == *url);
        if !hit && verbose {
            println!("MISS {kind} (ambiguous: {ambiguous}): {question:?} → {url}");
            for page in &found {
                println!("       got {} [{}]", page.url, page.title);
            }
        }
        let (hit, clear) = (usize::from(hit), usize::from(!ambiguous));
        match kinds.iter_mut().find(|(k, ..)| k == kind) {
            Some(row) => {
                row.1 += hit;
                row.2 += 1;
                row.3 += hit * clear;
                row.4 += clear;
            }
            None => kinds.push((kind.clone(), hit, 1, hit * clear, clear)),
        }
    }
    times.sort_by(f64::total_cmp);
    // The same questions while typed: the last word cut in half, a prefix.
    let mut typing: Vec<f64> = Vec::new();
    for (_, question, _, _) in &asked {
        let question = question.trim_end();
        let cut = question.len() - question.rsplit(' ').next().map_or(0, |w| w.len() / 2);
        let typed = question.get(..cut).unwrap_or(question);
        let started = Instant::now();
        places.search(typed, TOP);
        typing.push(started.elapsed().as_secs_f64() * 1e3);
    }
    typing.sort_by(f64::total_cmp);
    println!(
        "{} bookmarks ({real} real pages), {} tabs, {} folders\n",
        places.len(history_chat_core::origin::Origin::Bookmark),
        places.len(history_chat_core::origin::Origin::Tab),
        FOLDERS.len()
    );
    println!(
        "| question | asked | recall@{TOP} | not ambiguous | recall@{TOP} there |\n|---|---:|---:|---:|---:|"
    );
    let ratio = |hits: usize, total: usize| hits as f64 / total.max(1) as f64;
    for (kind, hits, total, clear_hits, clear) in &kinds {
        println!(
            "| {kind} | {total} | {:.3} | {clear} | {:.3} |",
            ratio(*hits, *total),
            ratio(*clear_hits, *clear)
        );
    }
    println!(
        "\n| step | ms |\n|---|---:|\n| read 5,000 bookmarks (load_bookmarks) | {load_bookmarks_ms:.1} |\n| read 200 tabs (load_tabs) | {load_tabs_ms:.1} |\n| a bookmark added (onCreated) | {event_ms:.2} |\n| a question's search, p50 | {:.3} |\n| a question's search, p95 | {:.3} |\n| while typed (the last word a prefix), p50 | {:.3} |\n| while typed, p95 | {:.3} |",
        percentile(&times, 0.5),
        percentile(&times, 0.95),
        percentile(&typing, 0.5),
        percentile(&typing, 0.95)
    );
}
