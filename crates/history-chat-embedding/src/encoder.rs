//! The BERT encoder of multilingual-e5-small, on candle-core. The layers' weights come 4-bit
//! (Q4_0) from the asset and are held as [`Weights`] says: by default kept 4-bit and expanded to
//! f32 for each product, which candle hands to gemm's blocked matrix product (SIMD in the browser);
//! or multiplied 4-bit against activations quantised to 8 bits per 32-value block (candle's
//! `QMatMul`, the reference engine's scheme), or requantised to 8 bits, or expanded once at load.
//! f32 everywhere else.
//!
//! A batch is its windows' tokens concatenated into one `[tokens, hidden]` matrix: the linear
//! layers see every token at once, attention runs per window (each window attends only to its
//! own tokens), so no padding and no mask.

use std::borrow::Cow;
use std::ops::Range;

use candle_core::quantized::{GgmlDType, QMatMul, QStorage, QTensor};
use candle_core::{D, Device, Module, Result, Tensor};

use crate::Weights;
use crate::asset::{Asset, Dtype, Header, Q4_BLOCK_BYTES, QK};
use crate::error::AssetError;

/// At most this many attention scores (`heads × len × len`) are computed at once: 4 MB, so a
/// 512-token window's attention runs a few heads at a time instead of taking 12 MB at once.
const ATTENTION_SCORES: usize = 1 << 20;

/// One transformer layer.
#[derive(Debug)]
struct Layer {
    /// Query, key and value projections stacked: `[3 × hidden, hidden]`.
    qkv: Linear,
    qkv_b: Tensor,
    out: Linear,
    out_b: Tensor,
    attn_ln: Norm,
    up: Linear,
    up_b: Tensor,
    down: Linear,
    down_b: Tensor,
    ffn_ln: Norm,
}

/// A LayerNorm's weight and bias.
#[derive(Debug)]
struct Norm {
    w: Tensor,
    b: Tensor,
}

/// The encoder's weights. The word embeddings stay 4-bit; only the rows a batch uses are expanded.
#[derive(Debug)]
pub(crate) struct Encoder {
    header: Header,
    weights: Weights,
    /// Q4_0 blocks, `hidden / 32` per row.
    word: Vec<u8>,
    /// `max_positions × hidden`.
    pos: Vec<f32>,
    /// Token type 0's row.
    type0: Vec<f32>,
    emb_ln: Norm,
    layers: Vec<Layer>,
}

fn f32s(bytes: &[u8]) -> Vec<f32> {
    bytes
        .chunks_exact(4)
        .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// A matrix `[rows, cols]` from the Q4_0 blocks of `parts`, stacked by rows, held as `weights` says.
fn linear(
    parts: &[&[u8]],
    rows: usize,
    cols: usize,
    weights: Weights,
) -> std::result::Result<Linear, AssetError> {
    let len: usize = parts.iter().map(|p| p.len()).sum();
    // candle reads the bytes as 2-byte-aligned blocks: copy them into an aligned buffer first
    // (one tensor at a time, dropped once candle has its own copy).
    let mut aligned = vec![0u16; len.div_ceil(2)];
    let bytes: &mut [u8] = bytemuck::cast_slice_mut(&mut aligned);
    let mut at = 0;
    for part in parts {
        bytes[at..at + part.len()].copy_from_slice(part);
        at += part.len();
    }
    let storage = QStorage::from_data(
        Cow::Borrowed(&bytemuck::cast_slice(&aligned)[..len]),
        &Device::Cpu,
        GgmlDType::Q4_0,
    )?;
    let q4 = QTensor::new(storage, (rows, cols))?;
    Ok(match weights {
        Weights::Q4 => Linear::Held(QMatMul::QTensor(std::sync::Arc::new(q4))),
        Weights::Q8 => Linear::Held(QMatMul::QTensor(std::sync::Arc::new(QTensor::quantize(
            &q4.dequantize(&Device::Cpu)?,
            GgmlDType::Q8_0,
        )?))),
        Weights::F32 => Linear::Held(QMatMul::Tensor(q4.dequantize(&Device::Cpu)?)),
        Weights::Expanded => Linear::Expanded(q4),
    })
}

/// A layer's matrix, and how its product is computed.
#[derive(Debug)]
enum Linear {
    Held(QMatMul),
    /// 4-bit, expanded to f32 for each product.
    Expanded(QTensor),
}

impl Linear {
    fn forward(&self, x: &Tensor) -> Result<Tensor> {
        match self {
            Linear::Held(m) => m.forward(x),
            Linear::Expanded(q) => x.matmul(&q.dequantize(&Device::Cpu)?.t()?),
        }
    }
}

fn vector(asset: &Asset<'_>, name: &str, len: usize) -> std::result::Result<Tensor, AssetError> {
    let (bytes, _) = asset.tensor(name, Dtype::F32, len, false)?;
    Ok(Tensor::from_vec(f32s(bytes), len, &Device::Cpu)?)
}

fn norm(asset: &Asset<'_>, prefix: &str, hidden: usize) -> std::result::Result<Norm, AssetError> {
    Ok(Norm {
        w: vector(asset, &format!("{prefix}.w"), hidden)?,
        b: vector(asset, &format!("{prefix}.b"), hidden)?,
    })
}

impl Encoder {
    /// Copies the weights out of the asset, all but the word embeddings: returns the range of
    /// the asset's bytes [`Encoder::set_word`] needs (the rows of `n_pieces` tokens, which must be
    /// there).
    pub fn new(
        asset: &Asset<'_>,
        n_pieces: usize,
        weights: Weights,
    ) -> std::result::Result<(Self, Range<usize>), AssetError> {
        let header = asset.header;
        let (h, ff) = (header.hidden, header.ffn);
        let (word, elements) = asset.tensor_range("emb.word", Dtype::Q4, h, true)?;
        if elements / h < n_pieces {
            return Err(AssetError::TensorSize {
                name: "emb.word".to_owned(),
                elements: elements as u64,
                bytes: word.len() as u64,
                expected_elements: (n_pieces * h) as u64,
            });
        }
        // Only the rows a token can use.
        let word = word.start..word.start + n_pieces * (h / QK) * Q4_BLOCK_BYTES;
        let (pos, _) = asset.tensor("emb.pos", Dtype::F32, header.max_positions * h, false)?;
        let (types, _) = asset.tensor("emb.type", Dtype::F32, header.type_vocab * h, false)?;
        let q4 = |name: String, rows: usize, cols: usize| {
            asset
                .tensor(&name, Dtype::Q4, rows * cols, false)
                .map(|(bytes, _)| bytes)
        };
        let mut layers = Vec::with_capacity(header.layers);
        for l in 0..header.layers {
            let q = q4(format!("l{l}.q.w"), h, h)?;
            let k = q4(format!("l{l}.k.w"), h, h)?;
            let v = q4(format!("l{l}.v.w"), h, h)?;
            let qkv_b: Vec<Tensor> = ["q", "k", "v"]
                .iter()
                .map(|p| vector(asset, &format!("l{l}.{p}.b"), h))
                .collect::<std::result::Result<_, _>>()?;
            layers.push(Layer {
                qkv: linear(&[q, k, v], 3 * h, h, weights)?,
                qkv_b: Tensor::cat(&qkv_b, 0)?,
                out: linear(&[q4(format!("l{l}.ao.w"), h, h)?], h, h, weights)?,
                out_b: vector(asset, &format!("l{l}.ao.b"), h)?,
                attn_ln: norm(asset, &format!("l{l}.aln"), h)?,
                up: linear(&[q4(format!("l{l}.fi.w"), ff, h)?], ff, h, weights)?,
                up_b: vector(asset, &format!("l{l}.fi.b"), ff)?,
                down: linear(&[q4(format!("l{l}.fo.w"), h, ff)?], h, ff, weights)?,
                down_b: vector(asset, &format!("l{l}.fo.b"), h)?,
                ffn_ln: norm(asset, &format!("l{l}.oln"), h)?,
            });
        }
        let encoder = Encoder {
            header,
            weights,
            word: Vec::new(),
            pos: f32s(pos),
            type0: f32s(&types[..h * 4]),
            emb_ln: norm(asset, "emb.ln", h)?,
            layers,
        };
        Ok((encoder, word))
    }

    /// The word embeddings' bytes: the range [`Encoder::new`] returned.
    pub fn set_word(&mut self, word: Vec<u8>) {
        self.word = word;
    }

    /// The longest window, `<s>` and `</s>` included.
    /// Drops every layer after the first `n`.
    pub fn keep_layers(&mut self, n: usize) {
        self.layers.truncate(n);
    }

    pub fn max_positions(&self) -> usize {
        self.header.max_positions
    }

    /// The bytes the weights hold.
    pub fn held_bytes(&self) -> usize {
        let h = self.header.hidden;
        let ff = self.header.ffn;
        let matrix = |rows: usize, cols: usize| match self.weights {
            Weights::Q4 | Weights::Expanded => rows * cols / QK * Q4_BLOCK_BYTES,
            Weights::Q8 => rows * cols / QK * (QK + 2),
            Weights::F32 => rows * cols * 4,
        };
        let per_layer = matrix(3 * h, h)
            + matrix(h, h)
            + matrix(ff, h)
            + matrix(h, ff)
            + 4 * (3 * h + h + ff + h + 4 * h);
        self.word.capacity()
            + 4 * (self.pos.len() + self.type0.len() + 2 * h)
            + self.layers.len() * per_layer
    }

    /// Adds word row `id`, dequantised, to `out` (`hidden` values).
    fn add_word_row(&self, id: u32, out: &mut [f32]) {
        let row_bytes = out.len() / QK * Q4_BLOCK_BYTES;
        let start = id as usize * row_bytes;
        let Some(row) = self.word.get(start..start + row_bytes) else {
            return; // Ids come from the vocabulary, whose rows were checked at load.
        };
        for (block, out) in row
            .chunks_exact(Q4_BLOCK_BYTES)
            .zip(out.chunks_exact_mut(QK))
        {
            let d = half::f16::from_le_bytes([block[0], block[1]]).to_f32();
            for (j, &q) in block[2..].iter().enumerate() {
                out[j] += (f32::from(q & 0x0f) - 8.0) * d;
                out[j + 16] += (f32::from(q >> 4) - 8.0) * d;
            }
        }
    }

    /// The mean-pooled last hidden state of each window (token ids, `<s>` and `</s>` included,
    /// at most [`Encoder::max_positions`] each).
    pub fn forward(&self, windows: &[&[u32]]) -> Result<Vec<Vec<f32>>> {
        let h = self.header.hidden;
        let tokens: usize = windows.iter().map(|w| w.len()).sum();
        let mut x = vec![0f32; tokens * h];
        let mut rows = x.chunks_exact_mut(h);
        for window in windows {
            for (p, (&id, row)) in window.iter().zip(rows.by_ref()).enumerate() {
                let pos = self.pos.get(p * h..(p + 1) * h).unwrap_or(&[]);
                self.add_word_row(id, row);
                for ((r, &p), &t) in row.iter_mut().zip(pos).zip(&self.type0) {
                    *r += p + t;
                }
            }
        }
        let mut x = self.layer_norm(
            &Tensor::from_vec(x, (tokens, h), &Device::Cpu)?,
            &self.emb_ln,
        )?;
        for layer in &self.layers {
            let qkv = layer.qkv.forward(&x)?.broadcast_add(&layer.qkv_b)?;
            let mut context = Vec::with_capacity(windows.len());
            let mut start = 0;
            for window in windows {
                context.push(self.attention(&qkv.narrow(0, start, window.len())?)?);
                start += window.len();
            }
            let context = Tensor::cat(&context, 0)?;
            let attended = layer.out.forward(&context)?.broadcast_add(&layer.out_b)?;
            x = self.layer_norm(&(x + attended)?, &layer.attn_ln)?;
            let mid = layer
                .up
                .forward(&x)?
                .broadcast_add(&layer.up_b)?
                .gelu_erf()?;
            let out = layer.down.forward(&mid)?.broadcast_add(&layer.down_b)?;
            x = self.layer_norm(&(x + out)?, &layer.ffn_ln)?;
        }
        let mut pooled = Vec::with_capacity(windows.len());
        let mut start = 0;
        for window in windows {
            pooled.push(
                x.narrow(0, start, window.len())?
                    .mean(0)?
                    .to_vec1::<f32>()?,
            );
            start += window.len();
        }
        Ok(pooled)
    }

    /// `(x − mean) / sqrt(var + eps) × w + b` over each row.
    fn layer_norm(&self, x: &Tensor, norm: &Norm) -> Result<Tensor> {
        let mean = x.mean_keepdim(D::Minus1)?;
        let centred = x.broadcast_sub(&mean)?;
        let var = centred.sqr()?.mean_keepdim(D::Minus1)?;
        let inv = (var + f64::from(self.header.eps))?.sqrt()?.recip()?;
        centred
            .broadcast_mul(&inv)?
            .broadcast_mul(&norm.w)?
            .broadcast_add(&norm.b)
    }

    /// Scaled dot-product attention of one window, from its `[len, 3 × hidden]` projections.
    fn attention(&self, qkv: &Tensor) -> Result<Tensor> {
        let (len, _) = qkv.dims2()?;
        let (h, heads) = (self.header.hidden, self.header.heads);
        let hd = h / heads;
        let split = |i: usize| {
            qkv.narrow(1, i * h, h)?
                .reshape((len, heads, hd))?
                .transpose(0, 1)?
                .contiguous()
        };
        let (q, k, v) = (split(0)?, split(1)?, split(2)?);
        let scale = 1.0 / (hd as f64).sqrt();
        let group = (ATTENTION_SCORES / (len * len).max(1)).clamp(1, heads);
        let mut out = Vec::with_capacity(heads.div_ceil(group));
        for first in (0..heads).step_by(group) {
            let n = group.min(heads - first);
            let (q, k, v) = (
                q.narrow(0, first, n)?,
                k.narrow(0, first, n)?,
                v.narrow(0, first, n)?,
            );
            let scores = (q.matmul(&k.t()?)? * scale)?;
            let max = scores.max_keepdim(D::Minus1)?;
            let e = scores.broadcast_sub(&max)?.exp()?;
            let probs = e.broadcast_div(&e.sum_keepdim(D::Minus1)?)?;
            out.push(probs.matmul(&v)?);
        }
        Tensor::cat(&out, 0)?.transpose(0, 1)?.reshape((len, h))
    }
}
