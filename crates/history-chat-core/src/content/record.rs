//! One page's content as stored: one IndexedDB record per page, keyed by its cleaned URL, so a
//! removal deletes by key and reading a page writes one record.
//!
//! Format: one byte [`RECORD_VERSION`], then a [postcard](https://docs.rs/postcard) body: the URL,
//! the title, when the page was read (a varint), the kept text deflated ([`Deflated`],
//! `miniz_oxide` at [`DEFLATE_LEVEL`]), the passages' spans (varints), then one entry per embedded
//! passage: its index and its vector when it has one yet (a scale and 384 bytes, as topic search
//! stores them). A record of another version, or one that does not decode into a consistent page
//! (spans in the text, vectors of embedded passages), is a [`RecordError`]: the caller skips it and
//! deletes it (the page is read again at its next visit).
//!
//! Stored bytes are read from the disk, so every size is bounded before anything is allocated for
//! it: a record longer than [`MAX_RECORD_BYTES`] is refused unread, the text inflates to at most
//! [`MAX_TEXT_BYTES`] (a corrupt or hostile record cannot make it inflate to gigabytes), and a
//! body holds at most [`MAX_PASSAGES`] spans. postcard's sequences are read item by item from the
//! bytes, so nothing else can be longer than the record.

use serde::{Deserialize, Serialize};

use super::passages::{MAX_KEPT_CHARS, Span};
use crate::semantic::{DIM, Quantised};

/// Version of the record format. Bump it whenever the body, the model, its `passage: ` prefix or
/// the quantisation changes: a vector made otherwise is meaningless here. (A record of another
/// version is dropped with its text: a later version that changes only the vectors should read
/// this one's text and embed it again rather than bump this.)
pub const RECORD_VERSION: u8 = 1;

/// The longest record read. A page keeps at most [`MAX_KEPT_CHARS`] characters, deflated to far
/// less than their 120 KB of UTF-8 at worst, and its vectors are under 100 KB even at
/// [`MAX_PASSAGES`]: a record longer than a megabyte was not written by this code.
pub const MAX_RECORD_BYTES: usize = 1 << 20;

/// The longest text a record inflates to: [`MAX_KEPT_CHARS`] characters of four bytes.
pub const MAX_TEXT_BYTES: usize = 4 * MAX_KEPT_CHARS;

/// The most passages a record holds. The cut makes at most about 150 (3,000 words in passages of
/// at least 40 pieces of long words, each sharing a third with the next); this only refuses what
/// the cut never makes.
pub const MAX_PASSAGES: usize = 1_024;

/// miniz's compression level (0–10). Level 6 (zlib's default) deflates prose to about a third;
/// 9 saves a few percent more for about twice the time, and a page is deflated once a read.
pub const DEFLATE_LEVEL: u8 = 6;

/// A page's kept text, deflated (raw DEFLATE, no zlib header): what is stored, and what the
/// content host keeps in memory (a page's text is inflated only to show a snippet or embed a
/// passage).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Deflated(Box<[u8]>);

impl Deflated {
    /// `text` deflated at [`DEFLATE_LEVEL`].
    pub fn of(text: &str) -> Deflated {
        Deflated(miniz_oxide::deflate::compress_to_vec(text.as_bytes(), DEFLATE_LEVEL).into())
    }

    /// The text back: [`RecordError::Text`] when it does not inflate, inflates to more than
    /// [`MAX_TEXT_BYTES`], or is not UTF-8.
    pub fn inflate(&self) -> Result<String, RecordError> {
        let bytes = miniz_oxide::inflate::decompress_to_vec_with_limit(&self.0, MAX_TEXT_BYTES)
            .map_err(|_| RecordError::Text)?;
        String::from_utf8(bytes).map_err(|_| RecordError::Text)
    }

    /// The deflated bytes.
    pub fn as_bytes(&self) -> &[u8] {
        &self.0
    }

    /// How many deflated bytes.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none (not even an empty text's).
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

/// An embedded passage's vector, when the model has made it.
#[derive(Debug, Clone, PartialEq)]
pub struct PassageVector {
    /// The passage: an index into the record's spans.
    pub passage: u16,
    /// Its vector; `None` until the model has embedded it (the page is stored when it is read,
    /// its vectors when they come).
    pub vector: Option<Quantised>,
}

/// A stored page's content.
#[derive(Debug, Clone, PartialEq)]
pub struct Record {
    /// The page's cleaned URL (also the record's key).
    pub url: String,
    /// The page's title when it was read.
    pub title: String,
    /// When it was read, ms since the Unix epoch: the oldest pages' content goes first when the
    /// store is over its cap.
    pub read_ms: i64,
    /// The kept text ([`super::Cut::text`]), deflated.
    pub text: Deflated,
    /// The passages: byte ranges of the text.
    pub spans: Vec<Span>,
    /// One per embedded passage, in increasing passage order.
    pub vectors: Vec<PassageVector>,
}

/// A record read back, with its text inflated (reading a record checks its spans against it).
#[derive(Debug, Clone, PartialEq)]
pub struct Decoded {
    /// The record.
    pub record: Record,
    /// Its text, inflated.
    pub text: String,
}

/// Why stored bytes are not a page's content. In every case the caller skips the record (and
/// deletes it).
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Nothing stored.
    #[error("empty content record")]
    Empty,
    /// Written by another version of the extension.
    #[error("content record has format version {found}, expected {RECORD_VERSION}")]
    Version {
        /// The version byte found.
        found: u8,
    },
    /// Longer than [`MAX_RECORD_BYTES`].
    #[error("content record of {bytes} bytes is too long")]
    TooLong {
        /// Its length.
        bytes: usize,
    },
    /// The body does not decode.
    #[error("content record is corrupt: {0}")]
    Corrupt(String),
    /// The text does not inflate, inflates past [`MAX_TEXT_BYTES`], or is not UTF-8.
    #[error("content record's text does not inflate into text")]
    Text,
    /// A span is out of the text, empty, not on a character boundary or out of order, or there
    /// are more than [`MAX_PASSAGES`].
    #[error("content record's passages do not fit its text")]
    Spans,
    /// A vector is of no passage, out of order, or not one [`Quantised::from_f32`] makes.
    #[error("content record holds an invalid vector")]
    Vector,
    /// The record is another page's than the key it is stored under.
    #[error("content record stored under another page's key")]
    OtherKey,
}

/// The body as postcard writes it.
#[derive(Serialize)]
struct BodyOut<'a> {
    url: &'a str,
    title: &'a str,
    read_ms: i64,
    #[serde(with = "bytes")]
    text: &'a [u8],
    spans: &'a [Span],
    vectors: Vec<VectorOut<'a>>,
}

#[derive(Serialize)]
struct VectorOut<'a> {
    passage: u16,
    vector: Option<(f32, Components<'a>)>,
}

/// A vector's components as bytes (two's complement): postcard writes a length and the bytes.
struct Components<'a>(&'a [i8]);

impl Serialize for Components<'_> {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = self.0.iter().map(|c| c.cast_unsigned()).collect();
        serializer.serialize_bytes(&bytes)
    }
}

/// The body as read, borrowing the stored bytes.
#[derive(Deserialize)]
struct BodyIn<'a> {
    url: &'a str,
    title: &'a str,
    read_ms: i64,
    #[serde(borrow, with = "bytes")]
    text: &'a [u8],
    spans: Vec<Span>,
    #[serde(borrow)]
    vectors: Vec<VectorIn<'a>>,
}

#[derive(Deserialize)]
struct VectorIn<'a> {
    passage: u16,
    #[serde(borrow)]
    vector: Option<(f32, &'a [u8])>,
}

mod bytes {
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(
        bytes: &&[u8],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        serializer.serialize_bytes(bytes)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<&'de [u8], D::Error> {
        <&[u8]>::deserialize(deserializer)
    }

    use serde::Deserialize;
}

impl Record {
    /// The body postcard writes.
    fn body(&self) -> BodyOut<'_> {
        BodyOut {
            url: &self.url,
            title: &self.title,
            read_ms: self.read_ms,
            text: self.text.as_bytes(),
            spans: &self.spans,
            vectors: self
                .vectors
                .iter()
                .map(|v| VectorOut {
                    passage: v.passage,
                    vector: v.vector.as_ref().map(|q| (q.scale(), Components(q.q()))),
                })
                .collect(),
        }
    }

    /// The record as stored bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = vec![RECORD_VERSION];
        // Serialising plain values into a Vec cannot fail; an empty body would be refused on
        // decoding.
        if let Ok(body) = postcard::to_allocvec(&self.body()) {
            bytes.extend_from_slice(&body);
        }
        bytes
    }

    /// How many bytes [`Record::encode`] writes, without writing them: what the record costs in
    /// the store (the content host counts its cap in these).
    pub fn encoded_len(&self) -> usize {
        1 + postcard::serialize_with_flavor(&self.body(), postcard::ser_flavors::Size::default())
            .unwrap_or(0)
    }

    /// Reads bytes written by [`Record::encode`] of the same [`RECORD_VERSION`], checked (see
    /// the [module docs](self)), with its text inflated.
    pub fn decode(bytes: &[u8]) -> Result<Decoded, RecordError> {
        if bytes.len() > MAX_RECORD_BYTES {
            return Err(RecordError::TooLong { bytes: bytes.len() });
        }
        let (&found, body) = bytes.split_first().ok_or(RecordError::Empty)?;
        if found != RECORD_VERSION {
            return Err(RecordError::Version { found });
        }
        let (body, rest): (BodyIn<'_>, &[u8]) =
            postcard::take_from_bytes(body).map_err(|e| RecordError::Corrupt(e.to_string()))?;
        if !rest.is_empty() {
            return Err(RecordError::Corrupt(format!(
                "{} bytes after the record",
                rest.len()
            )));
        }
        let text = Deflated(body.text.into());
        let inflated = text.inflate()?;
        if !spans_fit(&body.spans, &inflated) {
            return Err(RecordError::Spans);
        }
        let mut vectors = Vec::with_capacity(body.vectors.len());
        let mut previous: Option<u16> = None;
        for VectorIn { passage, vector } in body.vectors {
            let in_order = previous.is_none_or(|p| passage > p);
            if !in_order || usize::from(passage) >= body.spans.len() {
                return Err(RecordError::Vector);
            }
            previous = Some(passage);
            let vector = match vector {
                None => None,
                Some((scale, q)) if q.len() == DIM => {
                    let q = q.iter().map(|b| b.cast_signed()).collect();
                    Some(Quantised::from_parts(q, scale).ok_or(RecordError::Vector)?)
                }
                Some(_) => return Err(RecordError::Vector),
            };
            vectors.push(PassageVector { passage, vector });
        }
        Ok(Decoded {
            record: Record {
                url: body.url.to_owned(),
                title: body.title.to_owned(),
                read_ms: body.read_ms,
                text,
                spans: body.spans,
                vectors,
            },
            text: inflated,
        })
    }
}

/// Whether `spans` are at most [`MAX_PASSAGES`] non-empty ranges of `text` on character
/// boundaries, each starting at or after the one before.
fn spans_fit(spans: &[Span], text: &str) -> bool {
    if spans.len() > MAX_PASSAGES {
        return false;
    }
    let mut start = 0;
    spans.iter().all(|span| {
        let fits = span.start >= start && span.start < span.end && text.get(span.range()).is_some();
        start = span.start;
        fits
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::passages::cut;
    use crate::content::tests::unit_vector;

    fn record() -> (Record, String) {
        let text = "Crème brûlée: la recette. ".repeat(60);
        let page = cut(&text);
        let vectors = page
            .embedded
            .iter()
            .map(|&passage| PassageVector {
                passage,
                vector: (passage % 2 == 0)
                    .then(|| Quantised::from_f32(&unit_vector(u64::from(passage))).unwrap()),
            })
            .collect();
        let record = Record {
            url: "https://cuisine.example/r/8841".to_owned(),
            title: "Notes".to_owned(),
            read_ms: 1_780_000_000_000,
            text: Deflated::of(&page.text),
            spans: page.spans,
            vectors,
        };
        (record, page.text)
    }

    /// The record's bytes with the body replaced by `body`'s postcard encoding.
    fn with_body(body: &BodyOut<'_>) -> Vec<u8> {
        let mut bytes = vec![RECORD_VERSION];
        bytes.extend(postcard::to_allocvec(body).unwrap());
        bytes
    }

    #[test]
    fn a_record_round_trips_and_its_length_is_known_before_writing() {
        let (record, text) = record();
        assert!(record.spans.len() >= 2 && record.vectors.len() >= 2);
        let bytes = record.encode();
        assert_eq!(bytes[0], RECORD_VERSION);
        assert_eq!(record.encoded_len(), bytes.len());
        let decoded = Record::decode(&bytes).unwrap();
        assert_eq!(decoded.record, record);
        assert_eq!(decoded.text, text);
        // The text is stored deflated: repetitive prose shrinks a lot.
        assert!(record.text.len() * 5 < text.len(), "{}", record.text.len());
        // An empty page's record (no passage) reads back too.
        let empty = Record {
            url: "https://a.example/".into(),
            title: String::new(),
            read_ms: -1,
            text: Deflated::of(""),
            spans: Vec::new(),
            vectors: Vec::new(),
        };
        assert_eq!(Record::decode(&empty.encode()).unwrap().record, empty);
    }

    #[test]
    fn bytes_that_are_no_record_are_errors() {
        let (record, _) = record();
        let good = record.encode();
        let mut newer = good.clone();
        newer[0] = RECORD_VERSION + 1;
        let mut older = good.clone();
        older[0] = RECORD_VERSION - 1;
        let mut longer = good.clone();
        longer.push(0);
        let garbage: Vec<u8> = (0..500u32).map(|i| (i * 7919 % 251) as u8).collect();
        let mut versioned_garbage = vec![RECORD_VERSION];
        versioned_garbage.extend(&garbage);
        let huge = vec![RECORD_VERSION; MAX_RECORD_BYTES + 1];
        type Expected = fn(&RecordError) -> bool;
        let rows: Vec<(&str, Vec<u8>, Expected)> = vec![
            ("empty", Vec::new(), |e| *e == RecordError::Empty),
            ("newer", newer, |e| {
                *e == RecordError::Version {
                    found: RECORD_VERSION + 1,
                }
            }),
            ("older", older, |e| {
                *e == RecordError::Version {
                    found: RECORD_VERSION - 1,
                }
            }),
            ("bytes after it", longer, |e| {
                matches!(e, RecordError::Corrupt(_))
            }),
            ("garbage", garbage, |e| {
                matches!(e, RecordError::Version { .. })
            }),
            ("garbage behind the version", versioned_garbage, |e| {
                matches!(e, RecordError::Corrupt(_) | RecordError::Text)
            }),
            ("too long", huge, |e| {
                *e == RecordError::TooLong {
                    bytes: MAX_RECORD_BYTES + 1,
                }
            }),
        ];
        for (what, bytes, expected) in rows {
            let error = Record::decode(&bytes).unwrap_err();
            assert!(expected(&error), "{what}: {error:?}");
        }
        // Every truncation is an error, never a panic.
        for len in 0..good.len() {
            assert!(Record::decode(&good[..len]).is_err(), "truncated to {len}");
        }
        // And so is every single flipped byte, or it decodes into a consistent record.
        for at in 1..good.len() {
            let mut bytes = good.clone();
            bytes[at] ^= 0x5a;
            if let Ok(decoded) = Record::decode(&bytes) {
                assert!(
                    spans_fit(&decoded.record.spans, &decoded.text),
                    "flipped {at}"
                );
            }
        }
    }

    /// Test data that lives as long as the test binary (the bodies borrow it).
    fn leak<T>(items: Vec<T>) -> &'static [T] {
        Vec::leak(items)
    }

    fn spans(ranges: &[(u32, u32)]) -> &'static [Span] {
        leak(
            ranges
                .iter()
                .map(|&(start, end)| Span { start, end })
                .collect(),
        )
    }

    /// A passage's vector in a test body: its scale and components.
    type Parts = (f32, Vec<i8>);

    fn vectors(rows: &[(u16, Option<Parts>)]) -> Vec<VectorOut<'static>> {
        rows.iter()
            .map(|(passage, vector)| VectorOut {
                passage: *passage,
                vector: vector
                    .as_ref()
                    .map(|(scale, q)| (*scale, Components(leak(q.clone())))),
            })
            .collect()
    }

    #[test]
    fn inconsistent_bodies_are_refused() {
        let (record, text) = record();
        let bomb = leak(miniz_oxide::deflate::compress_to_vec(
            &vec![b'a'; MAX_TEXT_BYTES + 1],
            6,
        ));
        let not_utf8 = leak(miniz_oxide::deflate::compress_to_vec(
            &[0xff, 0xfe, b'a'],
            6,
        ));
        let end = text.len() as u32;
        let accent = text.find('è').unwrap() as u32 + 1;
        type Change = Box<dyn Fn(&mut BodyOut<'_>)>;
        let rows: Vec<(&str, Change, RecordError)> = vec![
            (
                "an inflation bomb",
                Box::new(|b| b.text = bomb),
                RecordError::Text,
            ),
            (
                "not UTF-8",
                Box::new(|b| b.text = not_utf8),
                RecordError::Text,
            ),
            (
                "not deflated",
                Box::new(|b| b.text = b"plain text"),
                RecordError::Text,
            ),
            (
                "a span past the end",
                Box::new(move |b| b.spans = spans(&[(0, end + 1)])),
                RecordError::Spans,
            ),
            (
                "an empty span",
                Box::new(|b| b.spans = spans(&[(3, 3)])),
                RecordError::Spans,
            ),
            (
                "inside a character",
                Box::new(move |b| b.spans = spans(&[(accent, end)])),
                RecordError::Spans,
            ),
            (
                "out of order",
                Box::new(|b| b.spans = spans(&[(10, 20), (5, 20)])),
                RecordError::Spans,
            ),
            (
                "too many passages",
                Box::new(|b| b.spans = spans(&[(0, 1); MAX_PASSAGES + 1])),
                RecordError::Spans,
            ),
            (
                "a vector of no passage",
                Box::new(|b| b.vectors = vectors(&[(99, None)])),
                RecordError::Vector,
            ),
            (
                "vectors out of order",
                Box::new(|b| b.vectors = vectors(&[(1, None), (1, None)])),
                RecordError::Vector,
            ),
            (
                "a short vector",
                Box::new(|b| b.vectors = vectors(&[(0, Some((0.01, vec![1; DIM - 1])))])),
                RecordError::Vector,
            ),
            (
                "a component of -128",
                Box::new(|b| b.vectors = vectors(&[(0, Some((0.01, vec![i8::MIN; DIM])))])),
                RecordError::Vector,
            ),
            (
                "a negative scale",
                Box::new(|b| b.vectors = vectors(&[(0, Some((-1.0, vec![1; DIM])))])),
                RecordError::Vector,
            ),
        ];
        for (what, change, error) in rows {
            let mut changed = record.body();
            change(&mut changed);
            assert_eq!(Record::decode(&with_body(&changed)), Err(error), "{what}");
        }
        // The unchanged body is fine.
        assert!(Record::decode(&with_body(&record.body())).is_ok());
    }
}
