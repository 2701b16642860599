//! What the pages' passage vectors can find, natively, on the content evaluation
//! (`tests/content_eval/`: `texts.json`, each page as Readability reads it, and `questions.json`):
//! for each kind of question, recall@5 of the vectors alone — a page scored by its best embedded
//! passage, as the content store scores it — with the shipped cut (the first passages spread over
//! the page, [`EMBEDDED_PASSAGES`]) and with every passage embedded, and how often the page sought
//! passes the shipped stand-out rule. It separates what the model can do from what the retrieval
//! plan does with it (the in-browser figures: `scripts/bench content-eval`).
//!
//! `cargo run --release -p history-chat-embedding --example content_vectors` with
//! `HISTORY_CHAT_MODEL_DIR` holding `e5-small-latin-q4.bin` (scripts/lib/tools.sh's
//! `ensure_model`).

use std::collections::HashMap;
use std::path::Path;

use history_chat_core::content::passages::{CutRule, EMBEDDED_PASSAGES, cut_with};
use history_chat_core::reading::page_text;
use history_chat_core::semantic::Words;
use history_chat_core::semantic::host::StandoutRule;
use history_chat_embedding::{Embedder, Kind};
use serde::Deserialize;

#[derive(Deserialize)]
struct Texts {
    texts: Vec<Text>,
}

#[derive(Deserialize)]
struct Text {
    id: String,
    title: String,
    text: String,
}

#[derive(Deserialize)]
struct Questions {
    questions: Vec<Question>,
}

#[derive(Deserialize)]
struct Question {
    question: String,
    kind: String,
    expected: Vec<String>,
}

/// Passages embedded at once.
const BATCH: usize = 16;

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

fn main() -> Result<(), String> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/content_eval");
    let read =
        |name: &str| std::fs::read_to_string(root.join(name)).map_err(|e| format!("{name}: {e}"));
    let texts: Texts = serde_json::from_str(&read("texts.json")?).map_err(|e| e.to_string())?;
    let questions: Questions =
        serde_json::from_str(&read("questions.json")?).map_err(|e| e.to_string())?;
    let dir = std::env::var("HISTORY_CHAT_MODEL_DIR")
        .map_err(|_| "HISTORY_CHAT_MODEL_DIR is not set".to_owned())?;
    let bytes = std::fs::read(Path::new(&dir).join("e5-small-latin-q4.bin"))
        .map_err(|e| format!("the model: {e}"))?;
    let embedder = Embedder::from_bytes(&bytes).map_err(|e| e.to_string())?;

    // Every passage of every page, with whether the shipped cut embeds it.
    let every = CutRule {
        embedded: 10_000,
        ..CutRule::SHIPPED
    };
    let mut owners = Vec::new(); // (page index, shipped-embedded)
    let mut passages = Vec::new();
    for (i, page) in texts.texts.iter().enumerate() {
        let text = page_text(&page.title, &page.text);
        let shipped = cut_with(&text, &CutRule::SHIPPED);
        let all = cut_with(&text, &every);
        for p in 0..all.spans.len() {
            owners.push((i, shipped.embedded.contains(&(p as u16))));
            passages.push(all.passage(p).to_owned());
        }
    }
    eprintln!(
        "{} pages, {} passages ({} embedded as shipped)",
        texts.texts.len(),
        passages.len(),
        owners.iter().filter(|(_, e)| *e).count()
    );
    let mut vectors = Vec::with_capacity(passages.len());
    for chunk in passages.chunks(BATCH) {
        let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
        vectors.extend(
            embedder
                .embed(&refs, Kind::Passage)
                .map_err(|e| e.to_string())?,
        );
    }

    let ids: HashMap<&str, usize> = texts
        .texts
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    // kind → (questions, found shipped, found all, passes the stand-out rule shipped)
    let mut rows: Vec<(String, [usize; 4])> = Vec::new();
    for q in &questions.questions {
        let Some(query) = embedder
            .embed(&[q.question.as_str()], Kind::Query)
            .map_err(|e| e.to_string())?
            .pop()
        else {
            continue;
        };
        let mut best_shipped = vec![f32::MIN; texts.texts.len()];
        let mut best_all = vec![f32::MIN; texts.texts.len()];
        for ((page, shipped), vector) in owners.iter().zip(&vectors) {
            let similarity = dot(&query, vector);
            best_all[*page] = best_all[*page].max(similarity);
            if *shipped {
                best_shipped[*page] = best_shipped[*page].max(similarity);
            }
        }
        let ranked = |best: &[f32]| {
            let mut order: Vec<(String, f32)> = best
                .iter()
                .enumerate()
                .filter(|(_, s)| **s > f32::MIN)
                .map(|(i, s)| (texts.texts[i].id.clone(), *s))
                .collect();
            order.sort_by(|a, b| b.1.total_cmp(&a.1));
            order
        };
        let shipped = ranked(&best_shipped);
        let all = ranked(&best_all);
        let expected: Vec<&str> = q
            .expected
            .iter()
            .map(String::as_str)
            .filter(|id| ids.contains_key(id))
            .collect();
        let top = |order: &[(String, f32)]| {
            order
                .iter()
                .take(5)
                .any(|(id, _)| expected.contains(&id.as_str()))
        };
        let cut = StandoutRule::SHIPPED.floor_among(&shipped, Words::Missed);
        let passes = shipped
            .iter()
            .any(|(id, s)| expected.contains(&id.as_str()) && *s >= cut);
        let row = match rows.iter_mut().find(|(k, _)| *k == q.kind) {
            Some(row) => row,
            None => {
                rows.push((q.kind.clone(), [0; 4]));
                rows.last_mut().ok_or("a row")?
            }
        };
        row.1[0] += 1;
        row.1[1] += usize::from(top(&shipped));
        row.1[2] += usize::from(top(&all));
        row.1[3] += usize::from(passes);
    }
    println!(
        "| kind | questions | vectors alone, recall@5 ({EMBEDDED_PASSAGES} passages a page) | every passage embedded | page sought passes the stand-out rule |"
    );
    println!("|---|---:|---:|---:|---:|");
    for (kind, [n, shipped, all, passes]) in rows {
        let f = |x: usize| x as f64 / n.max(1) as f64;
        println!(
            "| {kind} | {n} | {:.2} | {:.2} | {:.2} |",
            f(shipped),
            f(all),
            f(passes)
        );
    }
    Ok(())
}
