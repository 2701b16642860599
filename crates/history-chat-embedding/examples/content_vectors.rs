//! What the pages' passage vectors can find, natively, on the content evaluation
//! (`tests/content_eval/`: `texts.json`, each page as Readability reads it, and `questions.json`):
//! for each kind of question, recall@5 of the vectors alone — a page scored by its best embedded
//! passage, as the content store scores it — with the shipped cut (the first passages spread over
//! the page, [`EMBEDDED_PASSAGES`]), with every passage embedded, and with a page scored by its
//! passages' mean instead; then, for the content store's stand-out rule ([`CONTENT_STANDOUT`]),
//! topic search's and a grid of others, how often the page sought is in the top five *and* passes
//! the rule, and how many pages pass it; and the content store's answer (the pages let through
//! first, then those whose passages hold the question's words, `content::lexical`) beside the
//! two lists fused by RRF. It separates what the model can do from what the store and the
//! retrieval plan do with it (the in-browser figures: `scripts/bench content-eval`).
//!
//! `cargo run --release -p history-chat-embedding --example content_vectors` with
//! `HISTORY_CHAT_MODEL_DIR` holding `e5-small-latin-q4.bin` (scripts/lib/tools.sh's
//! `ensure_model`). Embedding the 670 passages took 40 minutes on this 2-core machine under load
//! (x86-64's baseline, one thread); the vectors are cached in
//! `target/content_vectors.cache`, keyed by the model's size and every passage and question, so
//! a second run with other rules takes seconds.

use std::collections::HashMap;
use std::hash::{Hash, Hasher};
use std::path::Path;

use history_chat_core::content::host::FUSION_POOL;
use history_chat_core::content::passages::{CutRule, EMBEDDED_PASSAGES, cut_with};
use history_chat_core::content::{CONTENT_STANDOUT, Lexical};
use history_chat_core::reading::page_text;
use history_chat_core::semantic::Words;
use history_chat_core::semantic::host::StandoutRule;
use history_chat_core::site_filter::SiteFilter;
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

/// Page scores tried besides the best passage's: `(1 − w) × best + w × mean` of its embedded
/// passages, for each weight `w`.
const BLENDS: [f32; 4] = [0.0, 0.25, 0.5, 0.75];

/// The content store's rule with a floor low enough for a blended score (a mean is lower than a
/// best).
const LOWER_FLOOR: StandoutRule = StandoutRule {
    floor: 0.70,
    ..CONTENT_STANDOUT
};

/// The RRF constant the content store once fused its words and meaning with (the original
/// paper's 60), for the comparison with its answer, meaning first.
const RRF_K: f64 = 60.0;

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
    let mut lexical = Lexical::new();
    for (i, page) in texts.texts.iter().enumerate() {
        let text = page_text(&page.title, &page.text);
        let shipped = cut_with(&text, &CutRule::SHIPPED);
        lexical.insert(&page.id, &text, &shipped.spans);
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
    let cache = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../target/content_vectors.cache");
    let key = cache_key(bytes.len(), &passages, &questions.questions);
    let (vectors, queries) = match read_cache(&cache, key) {
        Some(cached) => cached,
        None => {
            let mut vectors = Vec::with_capacity(passages.len());
            for chunk in passages.chunks(BATCH) {
                let refs: Vec<&str> = chunk.iter().map(String::as_str).collect();
                vectors.extend(
                    embedder
                        .embed(&refs, Kind::Passage)
                        .map_err(|e| e.to_string())?,
                );
            }
            let mut queries = Vec::with_capacity(questions.questions.len());
            for q in &questions.questions {
                let vector = embedder
                    .embed(&[q.question.as_str()], Kind::Query)
                    .map_err(|e| e.to_string())?
                    .pop()
                    .ok_or("no vector for a question")?;
                queries.push(vector);
            }
            write_cache(&cache, key, &vectors, &queries);
            (vectors, queries)
        }
    };

    let ids: HashMap<&str, usize> = texts
        .texts
        .iter()
        .enumerate()
        .map(|(i, t)| (t.id.as_str(), i))
        .collect();
    // The rules tried: the content store's first, topic search's, then the grid.
    let mut rules = vec![
        (
            "the content store's (CONTENT_STANDOUT)".to_owned(),
            CONTENT_STANDOUT,
        ),
        ("topic search's".to_owned(), StandoutRule::SHIPPED),
    ];
    for floor in [0.78_f32, 0.80, 0.82] {
        for margin in [Some(0.04_f32), Some(0.06), Some(0.08), None] {
            for z in [Some(2.6_f32), Some(2.0), Some(1.5), Some(1.0), None] {
                let rule = StandoutRule {
                    floor,
                    margin,
                    z,
                    ..StandoutRule::SHIPPED
                };
                if rule != StandoutRule::SHIPPED && rule != CONTENT_STANDOUT {
                    let show = |x: Option<f32>| x.map_or("-".to_owned(), |x| format!("{x:.2}"));
                    let name = format!("floor {floor:.2} margin {} z {}", show(margin), show(z));
                    rules.push((name, rule));
                }
            }
        }
    }
    // kind → questions, found shipped, found all, and for each rule: found among the pages that
    // pass it, and the pages passing it (summed).
    let mut rows: Vec<(String, Row)> = Vec::new();
    for (q, query) in questions.questions.iter().zip(&queries) {
        let mut best_shipped = vec![f32::MIN; texts.texts.len()];
        let mut best_all = vec![f32::MIN; texts.texts.len()];
        let mut sums = vec![(0.0_f32, 0_u32); texts.texts.len()];
        for ((page, shipped), vector) in owners.iter().zip(&vectors) {
            let similarity = dot(query, vector);
            best_all[*page] = best_all[*page].max(similarity);
            if *shipped {
                best_shipped[*page] = best_shipped[*page].max(similarity);
                sums[*page].0 += similarity;
                sums[*page].1 += 1;
            }
        }
        // Another way to score a page from its embedded passages: their mean.
        let mean: Vec<f32> = sums
            .iter()
            .map(|&(sum, n)| if n == 0 { f32::MIN } else { sum / n as f32 })
            .collect();
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
        let expected: Vec<&str> = q
            .expected
            .iter()
            .map(String::as_str)
            .filter(|id| ids.contains_key(id))
            .collect();
        let shipped = ranked(&best_shipped);
        let all = ranked(&best_all);
        let by_mean = ranked(&mean);
        // What the content store answers: the pages whose best passage passes its stand-out
        // rule first, then those whose passages hold the question's words; and, to compare,
        // the two lists fused by RRF.
        let words: Vec<String> = lexical
            .search(&q.question, &SiteFilter::default(), FUSION_POOL)
            .into_iter()
            .map(|hit| hit.url)
            .collect();
        let cut = CONTENT_STANDOUT.floor_among(&shipped, Words::Missed);
        let meanings: Vec<String> = shipped
            .iter()
            .take(FUSION_POOL)
            .filter(|(_, s)| *s >= cut)
            .map(|(id, _)| id.clone())
            .collect();
        let mut fused: Vec<(String, f64, usize)> = Vec::new();
        for list in [&words, &meanings] {
            for (rank, id) in list.iter().enumerate() {
                let score = 1.0 / (RRF_K + rank as f64 + 1.0);
                match fused.iter_mut().find(|(f, _, _)| f == id) {
                    Some(entry) => entry.1 += score,
                    None => {
                        let first = fused.len();
                        fused.push((id.clone(), score, first));
                    }
                }
            }
        }
        fused.sort_by(|a, b| b.1.total_cmp(&a.1).then(a.2.cmp(&b.2)));
        let in_top = |list: &[String]| {
            list.iter()
                .take(5)
                .any(|id| expected.contains(&id.as_str()))
        };
        let by_rrf: Vec<String> = fused.into_iter().map(|(id, _, _)| id).collect();
        let mut meaning_first = meanings.clone();
        meaning_first.extend(words.iter().filter(|id| !meanings.contains(id)).cloned());
        let top = |order: &[(String, f32)], cut: f32| {
            order
                .iter()
                .take(5)
                .any(|(id, s)| expected.contains(&id.as_str()) && *s >= cut)
        };
        // Other page scores from the same similarities, each through the store's answer
        // (meaning first, then words) under the content store's rule and one with a lower floor.
        let mut scored: Vec<Vec<f32>> = Vec::new();
        for blend in BLENDS {
            let score: Vec<f32> = best_shipped
                .iter()
                .zip(&mean)
                .map(|(&best, &mean)| match best > f32::MIN {
                    true => (1.0 - blend) * best + blend * mean,
                    false => f32::MIN,
                })
                .collect();
            scored.push(score);
        }
        let mut blended_found = Vec::new();
        for score in &scored {
            let order = ranked(score);
            for rule in [CONTENT_STANDOUT, LOWER_FLOOR] {
                let cut = rule.floor_among(&order, Words::Missed);
                let mut answer: Vec<String> = order
                    .iter()
                    .take(FUSION_POOL)
                    .filter(|(_, s)| *s >= cut)
                    .map(|(id, _)| id.clone())
                    .collect();
                let rest: Vec<String> = words
                    .iter()
                    .filter(|id| !answer.contains(id))
                    .cloned()
                    .collect();
                answer.extend(rest);
                blended_found.push(usize::from(in_top(&answer)));
            }
        }
        let row = match rows.iter_mut().find(|(k, _)| *k == q.kind) {
            Some(row) => row,
            None => {
                rows.push((q.kind.clone(), Row::new(rules.len())));
                rows.last_mut().ok_or("a row")?
            }
        };
        row.1.questions += 1;
        row.1.blended.resize(blended_found.len(), 0);
        for (total, found) in row.1.blended.iter_mut().zip(blended_found) {
            *total += found;
        }
        row.1.shipped += usize::from(top(&shipped, f32::MIN));
        row.1.all += usize::from(top(&all, f32::MIN));
        row.1.mean += usize::from(top(&by_mean, f32::MIN));
        row.1.rrf += usize::from(in_top(&by_rrf));
        row.1.meaning_first += usize::from(in_top(&meaning_first));
        for (i, (_, rule)) in rules.iter().enumerate() {
            let cut = rule.floor_among(&shipped, Words::Missed);
            row.1.passes[i] += usize::from(top(&shipped, cut));
            row.1.passing[i] += shipped.iter().filter(|(_, s)| *s >= cut).count();
        }
    }
    println!(
        "| kind | questions | vectors alone, recall@5 ({EMBEDDED_PASSAGES} passages a page) | every passage embedded | a page scored by its passages' mean | in the top 5 and passes the content store's stand-out rule | words and meaning fused by RRF | meaning first, then words (the store's answer) |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|");
    for (kind, row) in &rows {
        let f = |x: usize| x as f64 / row.questions.max(1) as f64;
        println!(
            "| {kind} | {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} |",
            row.questions,
            f(row.shipped),
            f(row.all),
            f(row.mean),
            f(row.passes[0]),
            f(row.rrf),
            f(row.meaning_first)
        );
    }
    println!();
    println!(
        "Each rule: for each kind, the share of questions whose page is in the top 5 and passes the rule, then the pages passing it on average (what the rule lets through besides)."
    );
    println!();
    let kinds: Vec<&str> = rows.iter().map(|(k, _)| k.as_str()).collect();
    println!("| rule | {} |", kinds.join(" | "));
    println!("|---|{}", "---:|".repeat(kinds.len()));
    for (i, (name, _)) in rules.iter().enumerate() {
        let cells: Vec<String> = rows
            .iter()
            .map(|(_, row)| {
                let n = row.questions.max(1) as f64;
                format!(
                    "{:.2} ({:.1})",
                    row.passes[i] as f64 / n,
                    row.passing[i] as f64 / n
                )
            })
            .collect();
        println!("| {name} | {} |", cells.join(" | "));
    }
    println!();
    println!(
        "The store's answer (meaning first, then words) with a page scored (1 − w) × its best passage + w × their mean, under the content store's rule and with the floor at {:.2}:",
        LOWER_FLOOR.floor
    );
    println!();
    let heads: Vec<String> = BLENDS
        .iter()
        .flat_map(|w| {
            [
                format!("w {w:.2}"),
                format!("w {w:.2}, floor {:.2}", LOWER_FLOOR.floor),
            ]
        })
        .collect();
    println!("| kind | {} |", heads.join(" | "));
    println!("|---|{}", "---:|".repeat(heads.len()));
    for (kind, row) in &rows {
        let n = row.questions.max(1) as f64;
        let cells: Vec<String> = row
            .blended
            .iter()
            .map(|&x| format!("{:.2}", x as f64 / n))
            .collect();
        println!("| {kind} | {} |", cells.join(" | "));
    }
    Ok(())
}

/// One kind of question's counts.
struct Row {
    questions: usize,
    shipped: usize,
    all: usize,
    mean: usize,
    /// For each of [`BLENDS`], under the content store's rule then [`LOWER_FLOOR`]: the store's
    /// answer finding the page.
    blended: Vec<usize>,
    rrf: usize,
    meaning_first: usize,
    passes: Vec<usize>,
    passing: Vec<usize>,
}

impl Row {
    fn new(rules: usize) -> Row {
        Row {
            questions: 0,
            shipped: 0,
            all: 0,
            mean: 0,
            blended: Vec::new(),
            rrf: 0,
            meaning_first: 0,
            passes: vec![0; rules],
            passing: vec![0; rules],
        }
    }
}

/// Vectors, one a passage or a question.
type Vectors = Vec<Vec<f32>>;

/// What the cached vectors were computed from: the model's size, every passage and question.
fn cache_key(model_bytes: usize, passages: &[String], questions: &[Question]) -> u64 {
    let mut hasher = std::hash::DefaultHasher::new();
    model_bytes.hash(&mut hasher);
    passages.hash(&mut hasher);
    for q in questions {
        q.question.hash(&mut hasher);
    }
    hasher.finish()
}

/// The vectors of passages and questions cached by an earlier run with the same key; none when
/// there is no such file or it is another key's.
fn read_cache(path: &Path, key: u64) -> Option<(Vectors, Vectors)> {
    let bytes = std::fs::read(path).ok()?;
    let word = |at: usize| -> Option<u64> {
        Some(u64::from_le_bytes(bytes.get(at..at + 8)?.try_into().ok()?))
    };
    if word(0)? != key {
        return None;
    }
    let (passages, questions, dim) = (word(8)? as usize, word(16)? as usize, word(24)? as usize);
    let floats: Vec<f32> = bytes
        .get(32..)?
        .chunks_exact(4)
        .filter_map(|c| Some(f32::from_le_bytes(c.try_into().ok()?)))
        .collect();
    if floats.len() != (passages + questions) * dim {
        return None;
    }
    let mut rows = floats.chunks(dim).map(<[f32]>::to_vec);
    let vectors = rows.by_ref().take(passages).collect();
    Some((vectors, rows.collect()))
}

/// Keeps the vectors for the next run; a failure only costs the next run the embedding.
fn write_cache(path: &Path, key: u64, vectors: &Vectors, queries: &Vectors) {
    let dim = vectors.first().map_or(0, Vec::len);
    let mut bytes = Vec::new();
    for word in [key, vectors.len() as u64, queries.len() as u64, dim as u64] {
        bytes.extend(word.to_le_bytes());
    }
    for x in vectors.iter().chain(queries).flatten() {
        bytes.extend(x.to_le_bytes());
    }
    if let Err(e) = std::fs::write(path, bytes) {
        eprintln!("the vectors are not cached ({}): {e}", path.display());
    }
}
