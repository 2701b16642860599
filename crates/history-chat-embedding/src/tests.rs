//! Loading and running a tiny, complete E5S1 asset written here (one layer, a feed-forward of 32,
//! a handful of pieces, pseudo-random weights), and every way of breaking it.

use crate::asset::{Q4_BLOCK_BYTES, QK};
use crate::{AssetError, DIM, EmbedError, Embedder, Kind, Weights};

/// One directory entry and its data.
#[derive(Clone)]
struct TensorSpec {
    name: String,
    dtype: u8,
    elements: u32,
    data: Vec<u8>,
    /// Written instead of the real offset.
    offset: Option<u64>,
}

/// The parts of an asset, written by [`Builder::bytes`].
#[derive(Clone)]
struct Builder {
    magic: [u8; 4],
    version: u32,
    header: [i32; 7],
    eps: f32,
    block: i32,
    specials: [i32; 4],
    pieces: Vec<(String, f32)>,
    /// Replaces the offsets computed from `pieces`.
    offsets: Option<Vec<u32>>,
    norm: Vec<(u32, Vec<u32>)>,
    tensors: Vec<TensorSpec>,
}

const FFN: usize = 32;
const MAX_POSITIONS: usize = 8;

/// Deterministic bytes (xorshift).
fn noise(n: usize, seed: u64) -> Vec<u8> {
    let mut s = seed.wrapping_mul(0x9e37_79b9_7f4a_7c15) | 1;
    (0..n)
        .map(|_| {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            (s >> 24) as u8
        })
        .collect()
}

/// Q4_0 blocks for `elements` weights: small scales, random nibbles.
fn q4(elements: usize, seed: u64) -> Vec<u8> {
    let mut out = noise(elements / QK * Q4_BLOCK_BYTES, seed);
    for block in out.chunks_exact_mut(Q4_BLOCK_BYTES) {
        block[..2].copy_from_slice(&half::f16::from_f32(0.02).to_le_bytes());
    }
    out
}

fn f32s(values: impl IntoIterator<Item = f32>) -> Vec<u8> {
    values.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn small_f32s(n: usize, seed: u64) -> Vec<u8> {
    f32s(
        noise(n, seed)
            .into_iter()
            .map(|b| (f32::from(b) - 128.0) / 1280.0),
    )
}

impl Builder {
    fn new() -> Self {
        let pieces: Vec<(String, f32)> = [
            ("<s>", 0.0),
            ("<pad>", 0.0),
            ("</s>", 0.0),
            ("<unk>", 0.0),
            ("▁", -2.0),
            ("▁passage", -5.0),
            ("▁query", -5.0),
            (":", -3.0),
            ("▁hello", -6.0),
            ("▁world", -6.0),
            ("e", -4.0),
        ]
        .into_iter()
        .map(|(p, s)| (p.to_owned(), s))
        .collect();
        let h = DIM;
        let mut tensors = Vec::new();
        let mut seed = 1;
        let mut add = |name: String, dtype: u8, elements: usize, data: Vec<u8>| {
            tensors.push(TensorSpec {
                name,
                dtype,
                elements: elements as u32,
                data,
                offset: None,
            });
        };
        add(
            "emb.word".into(),
            1,
            pieces.len() * h,
            q4(pieces.len() * h, seed),
        );
        add(
            "emb.pos".into(),
            0,
            MAX_POSITIONS * h,
            small_f32s(MAX_POSITIONS * h, 2),
        );
        add("emb.type".into(), 0, 2 * h, small_f32s(2 * h, 3));
        add("emb.ln.w".into(), 0, h, f32s(vec![1.0; h]));
        add("emb.ln.b".into(), 0, h, f32s(vec![0.0; h]));
        for (name, rows, cols) in [
            ("q", h, h),
            ("k", h, h),
            ("v", h, h),
            ("ao", h, h),
            ("fi", FFN, h),
            ("fo", h, FFN),
        ] {
            seed += 1;
            add(
                format!("l0.{name}.w"),
                1,
                rows * cols,
                q4(rows * cols, seed),
            );
            add(
                format!("l0.{name}.b"),
                0,
                rows,
                small_f32s(rows, seed + 100),
            );
        }
        for ln in ["aln", "oln"] {
            add(format!("l0.{ln}.w"), 0, h, f32s(vec![1.0; h]));
            add(format!("l0.{ln}.b"), 0, h, f32s(vec![0.0; h]));
        }
        Builder {
            magic: *b"E5S1",
            version: 1,
            header: [
                h as i32,
                1,
                12,
                FFN as i32,
                pieces.len() as i32,
                MAX_POSITIONS as i32,
                2,
            ],
            eps: 1e-12,
            block: 32,
            specials: [0, 2, 1, 3],
            pieces,
            offsets: None,
            norm: vec![(0x00AD, vec![]), (u32::from('É'), vec![u32::from('é')])],
            tensors,
        }
    }

    fn tensor(&mut self, name: &str) -> &mut TensorSpec {
        self.tensors
            .iter_mut()
            .find(|t| t.name == name)
            .expect("a tensor of the tiny asset")
    }

    /// The asset, and where its directory ends.
    fn bytes_and_directory_end(&self) -> (Vec<u8>, usize) {
        let mut out = Vec::new();
        out.extend_from_slice(&self.magic);
        out.extend_from_slice(&self.version.to_le_bytes());
        for v in self.header {
            out.extend_from_slice(&v.to_le_bytes());
        }
        out.extend_from_slice(&self.eps.to_le_bytes());
        out.extend_from_slice(&self.block.to_le_bytes());
        out.extend_from_slice(&(self.pieces.len() as i32).to_le_bytes());
        for v in self.specials {
            out.extend_from_slice(&v.to_le_bytes());
        }
        let blob: String = self.pieces.iter().map(|(p, _)| p.as_str()).collect();
        out.extend_from_slice(&(blob.len() as u64).to_le_bytes());
        let offsets = self.offsets.clone().unwrap_or_else(|| {
            let mut at = 0;
            std::iter::once(0)
                .chain(self.pieces.iter().map(|(p, _)| {
                    at += p.len() as u32;
                    at
                }))
                .collect()
        });
        for o in offsets {
            out.extend_from_slice(&o.to_le_bytes());
        }
        out.extend(f32s(self.pieces.iter().map(|(_, s)| *s)));
        out.extend_from_slice(blob.as_bytes());
        let mut norm = Vec::new();
        for (from, to) in &self.norm {
            norm.extend_from_slice(&from.to_le_bytes());
            norm.push(to.len() as u8);
            for c in to {
                norm.extend_from_slice(&c.to_le_bytes());
            }
        }
        out.extend_from_slice(&(self.norm.len() as i32).to_le_bytes());
        out.extend_from_slice(&(norm.len() as u32).to_le_bytes());
        out.extend(norm);
        out.extend_from_slice(&(self.tensors.len() as i32).to_le_bytes());
        let directory: usize = self.tensors.iter().map(|t| 2 + t.name.len() + 21).sum();
        let directory_end = out.len() + directory;
        let mut at = directory_end.next_multiple_of(64);
        let mut data = Vec::new();
        for t in &self.tensors {
            out.extend_from_slice(&(t.name.len() as u16).to_le_bytes());
            out.extend_from_slice(t.name.as_bytes());
            out.push(t.dtype);
            out.extend_from_slice(&t.elements.to_le_bytes());
            out.extend_from_slice(&t.offset.unwrap_or(at as u64).to_le_bytes());
            out.extend_from_slice(&(t.data.len() as u64).to_le_bytes());
            data.push((at, &t.data));
            at = (at + t.data.len()).next_multiple_of(64);
        }
        for (at, bytes) in data {
            out.resize(at, 0);
            out.extend_from_slice(bytes);
        }
        (out, directory_end)
    }

    fn bytes(&self) -> Vec<u8> {
        self.bytes_and_directory_end().0
    }
}

#[test]
fn a_tiny_asset_loads_tokenizes_and_embeds() {
    let model = Embedder::from_bytes(&Builder::new().bytes()).unwrap();
    let pieces: Vec<&str> = model
        .tokenize("hel\u{ad}lo  É world e", Kind::Query)
        .into_iter()
        .map(|id| model.piece(id).unwrap())
        .collect();
    assert_eq!(
        pieces,
        [
            "<s>", "▁query", ":", "▁hello", "▁", "<unk>", "▁world", "▁", "e", "</s>"
        ]
    );
    let vectors = model
        .embed(&["hello world", "", "e e e"], Kind::Passage)
        .unwrap();
    assert_eq!(vectors.len(), 3);
    for v in &vectors {
        assert_eq!(v.len(), DIM);
        let norm: f32 = v.iter().map(|x| x * x).sum();
        assert!((norm - 1.0).abs() < 1e-4, "norm² {norm}");
    }
    assert!(model.embed(&[], Kind::Query).unwrap().is_empty());
}

#[test]
fn a_text_embeds_the_same_alone_and_in_a_batch() {
    let model = Embedder::from_bytes(&Builder::new().bytes()).unwrap();
    let texts = ["hello", "world hello e", "e"];
    let batch = model.embed(&texts, Kind::Query).unwrap();
    for (text, in_batch) in texts.iter().zip(&batch) {
        let alone = &model.embed(&[text], Kind::Query).unwrap()[0];
        let diff = alone
            .iter()
            .zip(in_batch)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f32::max);
        assert!(diff < 1e-5, "{text:?}: {diff}");
    }
}

#[test]
fn every_way_of_holding_the_weights_embeds_alike() {
    let bytes = Builder::new().bytes();
    let texts = ["hello world", "e", "world e hello hello"];
    let exact = Embedder::from_vec_as(bytes.clone(), Weights::F32).unwrap();
    let exact_vectors = exact.embed(&texts, Kind::Passage).unwrap();
    // (weights, lowest cosine with the weights expanded once, at load)
    let cases = [
        (Weights::Expanded, 0.999_999),
        (Weights::Q4, 0.99),
        (Weights::Q8, 0.99),
    ];
    for (weights, lowest) in cases {
        let model = Embedder::from_vec_as(bytes.clone(), weights).unwrap();
        let vectors = model.embed(&texts, Kind::Passage).unwrap();
        for ((text, v), e) in texts.iter().zip(&vectors).zip(&exact_vectors) {
            let cosine: f32 = v.iter().zip(e).map(|(a, b)| a * b).sum();
            assert!(cosine >= lowest, "{weights:?}, {text:?}: cosine {cosine}");
        }
    }
    // What each holds: 4 bits a weight (held as stored, or expanded for each product), 8, 32.
    let held = |weights| {
        Embedder::from_vec_as(bytes.clone(), weights)
            .unwrap()
            .held_bytes()
    };
    assert_eq!(held(Weights::Expanded), held(Weights::Q4));
    assert!(held(Weights::Q4) < held(Weights::Q8));
    assert!(held(Weights::Q8) < held(Weights::F32));
    assert_eq!(Weights::default(), Weights::Expanded);
}

#[test]
fn loading_from_a_vec_is_loading_from_bytes() {
    let bytes = Builder::new().bytes();
    let borrowed = Embedder::from_bytes(&bytes).unwrap();
    let owned = Embedder::from_vec(bytes.clone()).unwrap();
    let texts = ["hello world", "e"];
    assert_eq!(
        borrowed.embed(&texts, Kind::Passage).unwrap(),
        owned.embed(&texts, Kind::Passage).unwrap()
    );
    assert_eq!(borrowed.held_bytes(), owned.held_bytes());
    assert!(matches!(
        Embedder::from_vec(bytes[..bytes.len() - 1].to_vec()),
        Err(AssetError::TensorOutOfRange { .. })
    ));
}

#[test]
fn a_long_text_is_the_token_weighted_mean_of_its_windows() {
    // Windows of 6 content tokens (8 positions): "passage:" + 10 × "▁hello" is 12 tokens, two
    // full windows; the text's vector is the normalised mean of the two windows' means, weighted
    // 6 and 6 — and a window is the same tokens embedded on their own.
    let model = Embedder::from_bytes(&Builder::new().bytes()).unwrap();
    let long = ["hello"; 10].join(" ");
    let content = model.tokenize(&long, Kind::Passage);
    assert_eq!(content.len(), 14);
    let whole = &model.embed(&[&long], Kind::Passage).unwrap()[0];
    // Window 1 is "▁passage : ▁hello×4", window 2 is "▁hello×6"; both are texts of their own
    // when embedded raw, so rebuild them through the encoder directly.
    let w1: Vec<u32> = [&content[..7], &content[13..]].concat();
    let w2: Vec<u32> = [&content[..1], &content[7..]].concat();
    let means = model.encoder.forward(&[&w1, &w2]).unwrap();
    let mut mean: Vec<f32> = means[0]
        .iter()
        .zip(&means[1])
        .map(|(a, b)| 6.0 * a + 6.0 * b)
        .collect();
    let inv = 1.0 / 12.0;
    mean.iter_mut().for_each(|v| *v *= inv);
    let norm = mean.iter().map(|v| v * v).sum::<f32>().sqrt();
    for (a, b) in whole.iter().zip(&mean) {
        assert!((a - b / norm).abs() < 1e-5);
    }
}

#[test]
fn a_piece_alone_is_its_row_of_a_static_table() {
    // The model2vec distillation's primitives: a text's pieces without prefix or markers, each
    // piece alone through the encoder (`<s> piece </s>`), normalised, and a typed error past the
    // vocabulary.
    let model = Embedder::from_bytes(&Builder::new().bytes()).unwrap();
    let pieces = model.pieces("hello world");
    let with_prefix = model.tokenize("hello world", Kind::Passage);
    assert!(with_prefix.ends_with(&[pieces.as_slice(), &[*with_prefix.last().unwrap()]].concat()));
    assert_eq!(
        pieces
            .iter()
            .map(|&id| model.piece(id).unwrap())
            .collect::<Vec<_>>(),
        ["▁hello", "▁world"]
    );
    let rows = model.embed_pieces(&pieces).unwrap();
    let (bos, eos) = (with_prefix[0], *with_prefix.last().unwrap());
    for (&id, row) in pieces.iter().zip(&rows) {
        let raw = &model.encoder.forward(&[&[bos, id, eos]]).unwrap()[0];
        let norm = raw.iter().map(|v| v * v).sum::<f32>().sqrt();
        for (a, b) in row.iter().zip(raw) {
            assert!((a - b / norm).abs() < 1e-6);
        }
    }
    assert_ne!(rows[0], rows[1]);
    // Every piece has its unigram log-probability, nothing past the vocabulary has one.
    assert!(model.piece_score(pieces[0]).is_some());
    let len = model.vocabulary_len();
    assert_eq!(model.piece_score(len as u32), None);
    assert!(matches!(
        model.embed_pieces(&[pieces[0], len as u32]),
        Err(EmbedError::NoSuchPiece { id, len: l }) if id == len as u32 && l == len
    ));
    assert!(model.embed_pieces(&[]).unwrap().is_empty());
}

#[test]
fn fewer_layers_make_another_model() {
    let bytes = Builder::new().bytes();
    let full = Embedder::from_bytes(&bytes).unwrap();
    let mut none = Embedder::from_bytes(&bytes).unwrap();
    none.keep_layers(0);
    let text = ["hello world e"];
    let (a, b) = (
        full.embed(&text, Kind::Query).unwrap(),
        none.embed(&text, Kind::Query).unwrap(),
    );
    assert_ne!(a, b);
    let norm: f32 = b[0].iter().map(|x| x * x).sum();
    assert!((norm - 1.0).abs() < 1e-4);
    // Keeping as many layers as there are changes nothing.
    let mut all = Embedder::from_bytes(&bytes).unwrap();
    all.keep_layers(usize::MAX);
    assert_eq!(all.embed(&text, Kind::Query).unwrap(), a);
}

#[test]
fn broken_assets_are_typed_errors() {
    type Break = fn(&mut Builder);
    type Expect = fn(&AssetError) -> bool;
    let cases: &[(&str, Break, Expect)] = &[
        (
            "bad magic",
            |b| b.magic = *b"GGUF",
            |e| matches!(e, AssetError::BadMagic { found } if found == b"GGUF"),
        ),
        (
            "version 2",
            |b| b.version = 2,
            |e| matches!(e, AssetError::UnsupportedVersion(2)),
        ),
        (
            "another hidden size",
            |b| b.header[0] = 256,
            |e| {
                matches!(
                    e,
                    AssetError::BadHeader {
                        field: "hidden",
                        ..
                    }
                )
            },
        ),
        (
            "heads not dividing it",
            |b| b.header[2] = 7,
            |e| matches!(e, AssetError::BadHeader { field: "heads", .. }),
        ),
        (
            "negative layers",
            |b| b.header[1] = -1,
            |e| {
                matches!(
                    e,
                    AssetError::BadHeader {
                        field: "layers",
                        ..
                    }
                )
            },
        ),
        (
            "another block size",
            |b| b.block = 64,
            |e| matches!(e, AssetError::BadHeader { field: "block", .. }),
        ),
        (
            "no epsilon",
            |b| b.eps = f32::NAN,
            |e| matches!(e, AssetError::BadHeader { field: "eps", .. }),
        ),
        (
            "unknown token out of range",
            |b| b.specials[3] = 99,
            |e| {
                matches!(
                    e,
                    AssetError::BadSpecial {
                        which: "unk",
                        id: 99
                    }
                )
            },
        ),
        (
            "negative bos",
            |b| b.specials[0] = -1,
            |e| matches!(e, AssetError::BadSpecial { which: "bos", .. }),
        ),
        (
            "piece offsets out of order",
            |b| {
                let mut offsets: Vec<u32> = vec![0; b.pieces.len() + 1];
                offsets[1] = 3;
                b.offsets = Some(offsets);
            },
            |e| matches!(e, AssetError::BadPiece { index: 1 }),
        ),
        (
            "normalisation map unsorted",
            |b| b.norm.reverse(),
            |e| matches!(e, AssetError::BadNormMap { index: 1 }),
        ),
        (
            "normalisation to a surrogate",
            |b| b.norm[1].1 = vec![0xd800],
            |e| matches!(e, AssetError::BadNormMap { index: 1 }),
        ),
        (
            "a tensor missing",
            |b| b.tensors.retain(|t| t.name != "l0.fo.w"),
            |e| matches!(e, AssetError::MissingTensor(n) if n == "l0.fo.w"),
        ),
        (
            "a tensor past the end",
            |b| b.tensor("l0.k.w").offset = Some(1 << 40),
            |e| matches!(e, AssetError::TensorOutOfRange { name, .. } if name == "l0.k.w"),
        ),
        (
            "a tensor offset overflowing",
            |b| b.tensor("emb.pos").offset = Some(u64::MAX - 3),
            |e| matches!(e, AssetError::TensorOutOfRange { name, .. } if name == "emb.pos"),
        ),
        (
            "a weight in f32",
            |b| b.tensor("l0.q.w").dtype = 0,
            |e| matches!(e, AssetError::TensorDtype { name, found: 0, expected: 1 } if name == "l0.q.w"),
        ),
        (
            "a bias too short",
            |b| {
                let t = b.tensor("l0.fi.b");
                t.elements -= 1;
                t.data.truncate(t.data.len() - 4);
            },
            |e| matches!(e, AssetError::TensorSize { name, .. } if name == "l0.fi.b"),
        ),
        (
            "sizes disagreeing",
            |b| b.tensor("emb.ln.w").data.push(0),
            |e| matches!(e, AssetError::TensorSize { name, .. } if name == "emb.ln.w"),
        ),
        (
            "fewer word rows than pieces",
            |b| {
                let t = b.tensor("emb.word");
                t.elements -= DIM as u32;
                t.data.truncate(t.data.len() - DIM / QK * Q4_BLOCK_BYTES);
            },
            |e| matches!(e, AssetError::TensorSize { name, .. } if name == "emb.word"),
        ),
    ];
    for (why, breaks, expected) in cases {
        let mut b = Builder::new();
        breaks(&mut b);
        match Embedder::from_bytes(&b.bytes()) {
            Err(e) => assert!(expected(&e), "{why}: {e:?}"),
            Ok(_) => panic!("{why}: loaded"),
        }
    }
    assert!(matches!(Embedder::from_bytes(&[]), Err(AssetError::Empty)));
}

#[test]
fn every_truncation_is_an_error() {
    let (bytes, directory_end) = Builder::new().bytes_and_directory_end();
    // Every length through the directory, then steps through the tensors.
    let lengths = (1..directory_end + 8).chain((directory_end..bytes.len()).step_by(997));
    for len in lengths {
        match Embedder::from_bytes(&bytes[..len]) {
            Err(AssetError::Truncated { .. } | AssetError::TensorOutOfRange { .. }) => {}
            Err(e) => panic!("{len} bytes: unexpected {e:?}"),
            Ok(_) => panic!("{len} of {} bytes loaded", bytes.len()),
        }
    }
    assert!(Embedder::from_bytes(&bytes).is_ok());
}
