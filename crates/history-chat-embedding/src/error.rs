//! What can go wrong: reading the asset ([`AssetError`]) and running the model ([`EmbedError`]).

/// Why an asset could not be loaded. Every malformed input ends here: loading never panics.
#[derive(Debug, thiserror::Error)]
pub enum AssetError {
    /// No bytes at all (the asset was not fetched, or fetched empty).
    #[error("the model asset is empty")]
    Empty,
    /// The file ended inside a section.
    #[error(
        "the model asset is truncated: {what} at byte {offset} needs {needed} bytes, {available} left"
    )]
    Truncated {
        /// The section being read.
        what: &'static str,
        /// Where it starts.
        offset: usize,
        /// How many bytes it needs.
        needed: usize,
        /// How many were left.
        available: usize,
    },
    /// Not an E5S1 file.
    #[error("not an E5S1 model asset (starts with {found:?})")]
    BadMagic {
        /// The first four bytes found.
        found: [u8; 4],
    },
    /// An E5S1 file of a version this crate does not read.
    #[error("unsupported E5S1 version {0}")]
    UnsupportedVersion(u32),
    /// A header field this crate cannot work with (negative, zero, or another shape than
    /// multilingual-e5-small's).
    #[error("the model asset's header field {field} has an unusable value {value}")]
    BadHeader {
        /// The field.
        field: &'static str,
        /// Its value (for `eps`, its bits).
        value: i64,
    },
    /// A special token's id is outside the vocabulary.
    #[error("the model asset's {which} token id {id} is outside the vocabulary")]
    BadSpecial {
        /// `bos`, `eos`, `pad` or `unk`.
        which: &'static str,
        /// The id found.
        id: i32,
    },
    /// A piece's byte range is out of order, outside the piece bytes, or not UTF-8.
    #[error("the model asset's vocabulary piece {index} is malformed")]
    BadPiece {
        /// The piece's id.
        index: usize,
    },
    /// A normalisation entry runs past its section, is out of order or maps to a non-character.
    #[error("the model asset's normalisation entry {index} is malformed")]
    BadNormMap {
        /// The entry's position.
        index: usize,
    },
    /// A tensor the model needs is not in the directory.
    #[error("the model asset has no tensor {0}")]
    MissingTensor(String),
    /// A tensor's byte range lies outside the file.
    #[error(
        "the model asset's tensor {name} ({size} bytes at {offset}) lies outside its {len} bytes"
    )]
    TensorOutOfRange {
        /// The tensor's name.
        name: String,
        /// Its offset.
        offset: u64,
        /// Its size in bytes.
        size: u64,
        /// The asset's length.
        len: usize,
    },
    /// A tensor has another element type than the model needs.
    #[error("the model asset's tensor {name} has dtype {found}, {expected} expected")]
    TensorDtype {
        /// The tensor's name.
        name: String,
        /// Its dtype code (0 f32, 1 Q4_0).
        found: u8,
        /// The code expected.
        expected: u8,
    },
    /// A tensor has another size than the header implies.
    #[error(
        "the model asset's tensor {name} has {elements} elements in {bytes} bytes, {expected_elements} expected"
    )]
    TensorSize {
        /// The tensor's name.
        name: String,
        /// Its element count.
        elements: u64,
        /// Its size in bytes.
        bytes: u64,
        /// The element count expected (a multiple of it, for the word embeddings).
        expected_elements: u64,
    },
    /// The tensor library refused a well-formed tensor (not expected to happen).
    #[error("building a tensor failed: {0}")]
    Tensor(#[from] candle_core::Error),
}

/// Why a batch could not be embedded.
#[derive(Debug, thiserror::Error)]
pub enum EmbedError {
    /// A tensor operation failed (not expected to happen for a loaded model).
    #[error("the embedding computation failed: {0}")]
    Compute(#[from] candle_core::Error),
    /// A piece id past the vocabulary ([`crate::Embedder::embed_pieces`]).
    #[error("piece {id} is not in the vocabulary ({len} pieces)")]
    NoSuchPiece {
        /// The id asked for.
        id: u32,
        /// How many pieces the vocabulary has.
        len: usize,
    },
}
