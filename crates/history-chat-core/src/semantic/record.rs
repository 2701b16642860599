//! One page's vector as stored: one IndexedDB record per page, keyed by its cleaned URL, so a
//! removal deletes by key and a build writes a few records at a time, never the whole store.
//!
//! Format: one byte [`RECORD_VERSION`], then a [postcard](https://docs.rs/postcard) body: the URL,
//! the page hash and last visit as varints, the scale, and the components as postcard bytes (a
//! length, then 384 plain bytes — what a sequence of `i8` is in postcard too): about 500 bytes a
//! page. A record of another version, or one that does not decode into a valid vector, is a
//! [`RecordError`]: the caller skips it (and deletes it), and the page is embedded again.
//!
//! Loading reads the records in place ([`super::Vectors::load_record`]: the URL and the components
//! borrowed from the stored bytes, copied once, into the arena), because the whole store is read
//! at every start of the worker.

use serde::{Deserialize, Serialize};

use super::DIM;
use super::quantised::Quantised;

/// What is kept for one page.
#[derive(Debug, Clone, PartialEq)]
pub struct Entry {
    /// The page's passage, embedded and quantised.
    pub vector: Quantised,
    /// [`super::page_hash`] of the page when its passage was embedded: when the page hashes
    /// otherwise (its title came later, or changed), it is embedded again.
    pub page_hash: u64,
    /// The page's latest visit, ms since the Unix epoch: searches keep the pages of their period.
    pub last_visit_ms: i64,
}

/// Version of the record format. Bump it whenever the body, the model, its prefix or the
/// quantisation changes: a vector made by another model is meaningless here, so it is re-embedded,
/// never compared.
pub const RECORD_VERSION: u8 = 1;

/// A stored page vector.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Record {
    /// The page's cleaned URL (also the record's key).
    pub url: String,
    /// [`super::page_hash`] of the page when its passage was embedded.
    pub page_hash: u64,
    /// The page's latest visit when it was embedded, ms since the Unix epoch (the lexical index's
    /// pages update it in memory; records are not rewritten for a visit).
    pub last_visit_ms: i64,
    /// See [`Quantised::scale`].
    pub scale: f32,
    /// See [`Quantised::q`].
    #[serde(with = "q_bytes")]
    pub q: Vec<i8>,
}

/// A record read in place from its stored bytes (see the [module docs](self)), its vector checked.
#[derive(Debug, Clone, Copy, PartialEq, Deserialize)]
pub(crate) struct RecordRef<'a> {
    pub(crate) url: &'a str,
    pub(crate) page_hash: u64,
    pub(crate) last_visit_ms: i64,
    pub(crate) scale: f32,
    /// The components as bytes (two's complement), [`DIM`] of them, none `0x80` (-128).
    pub(crate) q: &'a [u8],
}

impl<'a> RecordRef<'a> {
    pub(crate) fn decode(bytes: &'a [u8]) -> Result<RecordRef<'a>, RecordError> {
        let (&found, body) = bytes.split_first().ok_or(RecordError::Empty)?;
        if found != RECORD_VERSION {
            return Err(RecordError::Version { found });
        }
        let (record, rest): (RecordRef<'a>, &[u8]) =
            postcard::take_from_bytes(body).map_err(|e| RecordError::Corrupt(e.to_string()))?;
        if !rest.is_empty() {
            return Err(RecordError::Corrupt(format!(
                "{} bytes after the record",
                rest.len()
            )));
        }
        let valid = record.q.len() == DIM
            && !record.q.contains(&i8::MIN.cast_unsigned())
            && record.scale.is_finite()
            && record.scale >= 0.0;
        if !valid {
            return Err(RecordError::Vector);
        }
        Ok(record)
    }
}

/// The components as postcard bytes rather than a sequence of `i8`: the same bytes on the wire,
/// read with one copy instead of a call per component.
mod q_bytes {
    use serde::de::{Error, Visitor};
    use serde::{Deserializer, Serializer};

    pub(super) fn serialize<S: Serializer>(q: &[i8], serializer: S) -> Result<S::Ok, S::Error> {
        let bytes: Vec<u8> = q.iter().map(|c| c.cast_unsigned()).collect();
        serializer.serialize_bytes(&bytes)
    }

    pub(super) fn deserialize<'de, D: Deserializer<'de>>(
        deserializer: D,
    ) -> Result<Vec<i8>, D::Error> {
        struct Components;
        impl Visitor<'_> for Components {
            type Value = Vec<i8>;
            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("the components as bytes")
            }
            fn visit_bytes<E: Error>(self, bytes: &[u8]) -> Result<Vec<i8>, E> {
                Ok(bytes.iter().map(|b| b.cast_signed()).collect())
            }
        }
        deserializer.deserialize_bytes(Components)
    }
}

/// Why stored bytes are not a record. In every case the caller skips it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RecordError {
    /// Nothing stored.
    #[error("empty vector record")]
    Empty,
    /// Written by another version of the extension.
    #[error("vector record has format version {found}, expected {RECORD_VERSION}")]
    Version {
        /// The version byte found.
        found: u8,
    },
    /// The body does not decode.
    #[error("vector record is corrupt: {0}")]
    Corrupt(String),
    /// The body decodes, but its vector is not one [`Quantised::from_f32`] makes (length, scale).
    #[error("vector record holds an invalid vector")]
    Vector,
    /// The record is another page's than the key it is stored under.
    #[error("vector record stored under another page's key")]
    OtherKey,
}

impl Record {
    /// The record of `url`'s entry.
    pub fn new(url: &str, entry: &Entry) -> Record {
        Record {
            url: url.to_owned(),
            page_hash: entry.page_hash,
            last_visit_ms: entry.last_visit_ms,
            scale: entry.vector.scale(),
            q: entry.vector.q().to_vec(),
        }
    }

    /// The record as stored bytes.
    pub fn encode(&self) -> Vec<u8> {
        let mut bytes = vec![RECORD_VERSION];
        // Serialising a plain struct into a Vec cannot fail; an empty body would be refused on
        // decoding.
        if let Ok(body) = postcard::to_allocvec(self) {
            bytes.extend_from_slice(&body);
        }
        bytes
    }

    /// Reads bytes written by [`Record::encode`] of the same [`RECORD_VERSION`], with a valid
    /// vector.
    pub fn decode(bytes: &[u8]) -> Result<Record, RecordError> {
        let record = RecordRef::decode(bytes)?;
        Ok(Record {
            url: record.url.to_owned(),
            page_hash: record.page_hash,
            last_visit_ms: record.last_visit_ms,
            scale: record.scale,
            q: record.q.iter().map(|b| b.cast_signed()).collect(),
        })
    }

    /// The URL and what [`super::Vectors`] keeps for it.
    pub fn into_entry(self) -> Result<(String, Entry), RecordError> {
        let vector = Quantised::from_parts(self.q.into_boxed_slice(), self.scale)
            .ok_or(RecordError::Vector)?;
        Ok((
            self.url,
            Entry {
                vector,
                page_hash: self.page_hash,
                last_visit_ms: self.last_visit_ms,
            },
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::super::DIM;
    use super::super::quantised::tests::unit_vector;
    use super::*;

    fn record() -> Record {
        let entry = Entry {
            vector: Quantised::from_f32(&unit_vector(7)).unwrap(),
            page_hash: u64::MAX - 3,
            last_visit_ms: 1_780_000_000_000,
        };
        Record::new("https://blog.example/recursive-cte", &entry)
    }

    #[test]
    fn round_trip() {
        let record = record();
        let bytes = record.encode();
        assert_eq!(bytes[0], RECORD_VERSION);
        assert!(bytes.len() < DIM + 64, "{} bytes", bytes.len());
        assert_eq!(Record::decode(&bytes), Ok(record.clone()));
        let (url, entry) = record.clone().into_entry().unwrap();
        assert_eq!(url, record.url);
        assert_eq!(Record::new(&url, &entry), record);
    }

    #[test]
    fn the_components_are_what_postcard_writes_for_a_sequence_of_i8() {
        #[derive(Serialize)]
        struct Plain {
            url: String,
            page_hash: u64,
            last_visit_ms: i64,
            scale: f32,
            q: Vec<i8>,
        }
        let record = record();
        let plain = Plain {
            url: record.url.clone(),
            page_hash: record.page_hash,
            last_visit_ms: record.last_visit_ms,
            scale: record.scale,
            q: record.q.clone(),
        };
        assert_eq!(
            record.encode()[1..],
            postcard::to_allocvec(&plain).unwrap()[..]
        );
    }

    #[test]
    fn bad_bytes_are_typed_errors() {
        let good = record().encode();
        let mut other_version = good.clone();
        other_version[0] = RECORD_VERSION + 1;
        let mut short_vector = record();
        short_vector.q.pop();
        let mut nan_scale = record();
        nan_scale.scale = f32::NAN;
        let mut min = record();
        min.q[3] = i8::MIN;
        let mut trailing = good.clone();
        trailing.push(0);
        type Expected = fn(&RecordError) -> bool;
        let rows: Vec<(&str, Vec<u8>, Expected)> = vec![
            ("empty", Vec::new(), |e| *e == RecordError::Empty),
            ("other version", other_version, |e| {
                *e == RecordError::Version {
                    found: RECORD_VERSION + 1,
                }
            }),
            ("version only", vec![RECORD_VERSION], |e| {
                matches!(e, RecordError::Corrupt(_))
            }),
            ("truncated", good[..good.len() / 2].to_vec(), |e| {
                matches!(e, RecordError::Corrupt(_))
            }),
            ("trailing bytes", trailing, |e| {
                matches!(e, RecordError::Corrupt(_))
            }),
            ("short vector", short_vector.encode(), |e| {
                *e == RecordError::Vector
            }),
            ("NaN scale", nan_scale.encode(), |e| {
                *e == RecordError::Vector
            }),
        ];
        for (what, bytes, expected) in rows {
            let error = Record::decode(&bytes).unwrap_err();
            assert!(expected(&error), "{what}: {error:?}");
        }
        // Every cut of a good record is refused, never misread or panicking.
        for cut in 0..good.len() {
            assert!(Record::decode(&good[..cut]).is_err(), "cut at {cut}");
        }
    }
}
