//! Every tuning constant of the index, with its reason, and the scoring formulas that use them.
//!
//! A page's score for a query is
//!
//! ```text
//! text  = coverage^COVERAGE_POWER × Σ_word max_variant( variant_weight × bm25f(term) )
//! score = text × (1 + PRIOR_WEIGHT × prior)         prior ∈ [0, 1]
//! ```
//!
//! - `bm25f` is BM25 over a weighted term frequency (BM25F): each field's count is weighted
//!   ([`TITLE_WEIGHT`] > [`HOST_WEIGHT`] > [`PATH_WEIGHT`] > [`QUERY_WEIGHT`]) and normalised by
//!   the field's length ([`TITLE_B`], [`URL_B`]), then saturated by [`K1`] and multiplied by the
//!   term's idf.
//! - A query word matches index words through *variants*: the word itself, words sharing its
//!   stem, words it is a prefix of (the last word only) and words one edit away. Each variant has a
//!   weight below the exact one, so an exact match always beats the same match through a typo.
//! - `coverage` is the share of query words a page matched: "every word" beats "most words".
//! - `prior` mixes recency and visit count; [`PRIOR_WEIGHT`] bounds it to a few percent, enough to
//!   order near-ties (the same title visited yesterday and two months ago) and never enough to
//!   beat a clearly better text match.

/// BM25 term-frequency saturation. Titles are short and a word rarely repeats, so the classic
/// 1.2 works: a second occurrence adds a little, a tenth nothing more.
pub const K1: f32 = 1.2;

/// Title length normalisation. Titles vary from 2 to 30 words; the classic 0.75 favours the short
/// title that is *about* the word over a long one that mentions it.
pub const TITLE_B: f32 = 0.75;

/// URL length normalisation (host, path and query together). Weaker than the title's: long URLs
/// are usually long because of ids, not because they cover more topics.
pub const URL_B: f32 = 0.5;

/// Weight of a title occurrence. Titles are written for people: the strongest evidence.
pub const TITLE_WEIGHT: f32 = 3.0;

/// Weight of a host word (`stackoverflow`, `lemonde`): users remember sites.
pub const HOST_WEIGHT: f32 = 1.5;

/// Weight of a path word (`/recursive-ctes/`): slugs repeat the title, often with fewer words.
pub const PATH_WEIGHT: f32 = 1.0;

/// Weight of a query-string word (`?q=rust`): often search terms or ids, the weakest evidence.
pub const QUERY_WEIGHT: f32 = 0.5;

/// Variant weight of the word exactly as typed (after folding): the reference.
pub const EXACT_WEIGHT: f32 = 1.0;

/// Variant weight of a word sharing the query word's English or French stem (`cycle` for
/// `cycles`): nearly as good, the difference only orders exact-form pages first.
pub const STEM_WEIGHT: f32 = 0.9;

/// Variant weight of a word the last query word is a prefix of (`recurs` → `recursive`): the user
/// has not finished typing, the completion is a guess.
pub const PREFIX_WEIGHT: f32 = 0.8;

/// Variant weight of a word one edit away (`recusrive` → `recursive`). Lowest: a typo match is a
/// guess, and a page with the word spelled as typed must win.
pub const TYPO_WEIGHT: f32 = 0.6;

/// Query words shorter than this (in characters) get no typo variants: in a four-letter word one
/// edit reaches too many other words (`rust` → `bust`, `just`, `dust`, `rest`).
pub const TYPO_MIN_CHARS: usize = 5;

/// The last query word needs this many characters to be completed as a prefix. One letter would
/// match a large share of the vocabulary for nothing.
pub const PREFIX_MIN_CHARS: usize = 2;

/// At most this many completions of the last word are used, the most frequent ones first. Keeps a
/// two-letter prefix cheap on a 100,000-word vocabulary.
pub const MAX_PREFIX_TERMS: usize = 200;

/// Stem matching looks at the vocabulary words starting with the query stem minus its last
/// character, but never with fewer than this many characters (`run` ← `running`): a two-letter
/// range would be large for nothing.
pub const STEM_PREFIX_MIN_CHARS: usize = 3;

/// Words longer than the stem by more than this many bytes are not stemmed: the longest suffixes
/// Snowball removes (`-ational`, `-issements`) are shorter.
pub const MAX_SUFFIX_BYTES: usize = 8;

/// At most this many words of that range are stemmed per query stem: bounds the cost of a short,
/// common stem (each stemming costs about a microsecond).
pub const MAX_STEM_CANDIDATES: usize = 64;

/// At most this many typo variants per query word, the most frequent first.
pub const MAX_TYPO_TERMS: usize = 32;

/// Query words beyond this many are ignored: a 500-character paste is not a search.
pub const MAX_QUERY_WORDS: usize = 16;

/// How strongly matching every query word beats matching some. 2 means a page matching 2 of 3
/// words keeps 44% of its score, so pages matching all words come first unless the missing word is
/// common and the matched ones are rare.
pub const COVERAGE_POWER: i32 = 2;

/// The prior's maximum share of the score: at most +8%. Reorders near-ties only.
pub const PRIOR_WEIGHT: f32 = 0.08;

/// Half-life of the recency prior, in days: a page visited two weeks ago gets half the recency
/// of one visited now.
pub const RECENCY_HALF_LIFE_DAYS: f32 = 14.0;

/// Visit count at which the visit prior saturates (logarithmic below it).
pub const VISITS_SATURATION: f32 = 50.0;

/// Titles longer than this (in bytes) are indexed on their beginning only: a 2,000-character
/// title is a page dumping text into `<title>`, and its tail would only add noise.
pub const MAX_TITLE_BYTES: usize = 400;

/// BM25's idf, never negative.
pub fn idf(docs: usize, df: usize) -> f32 {
    let (n, df) = (docs as f32, df as f32);
    (1.0 + (n - df + 0.5) / (df + 0.5)).ln().max(0.0)
}

/// Per-field counts of one word in one page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct FieldCounts {
    /// Occurrences in the title.
    pub title: u8,
    /// Occurrences in the host.
    pub host: u8,
    /// Occurrences in the path.
    pub path: u8,
    /// Occurrences in the query string.
    pub query: u8,
}

/// BM25F of one term in one page: `idf × tf' (K1 + 1) / (K1 + tf')`, with `tf'` the weighted,
/// length-normalised frequency.
pub fn bm25f(counts: FieldCounts, title_norm: f32, url_norm: f32, idf: f32) -> f32 {
    let url = HOST_WEIGHT * f32::from(counts.host)
        + PATH_WEIGHT * f32::from(counts.path)
        + QUERY_WEIGHT * f32::from(counts.query);
    let tf = TITLE_WEIGHT * f32::from(counts.title) / title_norm + url / url_norm;
    idf * tf * (K1 + 1.0) / (K1 + tf)
}

/// The length normaliser `1 - b + b × len / avg` of a field.
pub fn length_norm(len: u16, avg: f32, b: f32) -> f32 {
    let avg = if avg > 0.0 { avg } else { 1.0 };
    1.0 - b + b * f32::from(len) / avg
}

/// The prior in `[0, 1]`: half recency, half visit count.
pub fn prior(last_visit_ms: i64, visit_count: u32, now_ms: i64) -> f32 {
    let age_days = (now_ms.saturating_sub(last_visit_ms).max(0) as f32) / 86_400_000.0;
    let recency = 0.5_f32.powf(age_days / RECENCY_HALF_LIFE_DAYS);
    let visits = ((1.0 + visit_count as f32).ln() / (1.0 + VISITS_SATURATION).ln()).min(1.0);
    0.5 * recency + 0.5 * visits
}

/// The coverage factor for `matched` of `total` query words.
pub fn coverage(matched: usize, total: usize) -> f32 {
    if total == 0 {
        return 0.0;
    }
    (matched as f32 / total as f32).powi(COVERAGE_POWER)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variant_weights_are_ordered() {
        const { assert!(EXACT_WEIGHT > STEM_WEIGHT && STEM_WEIGHT > PREFIX_WEIGHT) };
        const { assert!(PREFIX_WEIGHT > TYPO_WEIGHT) };
        // The prior can never make up for a typo instead of an exact match.
        const { assert!(1.0 + PRIOR_WEIGHT < EXACT_WEIGHT / TYPO_WEIGHT) };
    }

    #[test]
    fn prior_is_bounded() {
        let rows = [
            (0, 0, 0),
            (0, u32::MAX, 0),
            (i64::MIN, 1, i64::MAX),
            (5, 3, 1),
        ];
        for (last, count, now) in rows {
            let p = prior(last, count, now);
            assert!((0.0..=1.0).contains(&p), "{p}");
        }
        assert!(prior(0, 1, 0) > prior(0, 1, 30 * 86_400_000));
        assert!(prior(0, 20, 0) > prior(0, 1, 0));
    }

    #[test]
    fn title_beats_url() {
        let title = FieldCounts {
            title: 1,
            ..FieldCounts::default()
        };
        let path = FieldCounts {
            path: 1,
            ..FieldCounts::default()
        };
        assert!(bm25f(title, 1.0, 1.0, 1.0) > bm25f(path, 1.0, 1.0, 1.0));
        assert_eq!(idf(0, 0), 2.0_f32.ln());
        assert!(idf(10, 10) >= 0.0);
    }
}
