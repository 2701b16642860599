//! The embedded passages' vectors in memory, scanned for a question's vector.
//!
//! An arena of 8-bit components ([`DIM`] per passage) in blocks of [`BLOCK_VECTORS`], beside
//! plain arrays of scales, owning pages and passage indices, as topic search keeps its pages'
//! vectors ([`crate::semantic::Vectors`]): a scan reads each block front to back with the same
//! SIMD dot product. A page's vectors are wherever they were added (a page's passages are
//! embedded a few at a time, between other pages'); a removal moves the last vector into the
//! freed slot, so the arena has no holes.
//!
//! **Blocks, not one array**: one array of 80,000 vectors (10,000 pages) is 31 MB, and growing
//! it needs the old and the new array at once: in WebAssembly, whose memory never shrinks, each
//! growth past the largest free block took the module's memory up by the new array's size (from
//! 100 to 152 MB over the last 4,000 pages of `content_bench`'s reading). A block is allocated
//! once at its full size and never moved; at most one block is partly empty.
//!
//! **The stand-out rule** ([`StandoutRule`], topic search's arithmetic): a page is a hit when its
//! best passage is at least the floor, within the margin of the best page, and `z` standard
//! deviations above the mean — the mean and deviation of the *pages'* best similarities, not of
//! all passages. A hit is a page's best passage, the maximum of up to
//! [`super::passages::EMBEDDED_PASSAGES`] similarities, and the maximum of eight draws stands
//! about 1.4 deviations above their mean by itself: measured against every passage, every page
//! with eight passages would "stand out". Compared with the other pages' maxima, like is compared
//! with like, and `z` keeps topic search's meaning.

use rustc_hash::FxHashMap as HashMap;

use crate::semantic::host::StandoutRule;
use crate::semantic::{DIM, Quantised, Words, dot_bytes, to_bytes};
use crate::site_filter::SiteFilter;

/// The stand-out rule of a content search: topic search's floor and margin, and a lower `z`,
/// [`CONTENT_STANDOUT_Z`].
pub const CONTENT_STANDOUT: StandoutRule = StandoutRule {
    z: Some(CONTENT_STANDOUT_Z),
    ..StandoutRule::SHIPPED
};

/// How many deviations above the other pages' best passages a page's best passage stands to be a
/// hit. Measured on the content evaluation (`history-chat-embedding`'s `content_vectors`
/// example: the page sought in the top five *and* let through): topic search's 2.6 lets through
/// 0.43 of the paraphrases and 0.45 of the cross-language questions the model ranks well (0.78,
/// 0.73); 1.5 lets through 0.78 and 0.71, and about 3 pages a question on average (1.4–1.6 when
/// the page holds the question's words, 7 on paraphrases), the margin from the best page bounding
/// the rest; lower adds no page sought, only others.
pub const CONTENT_STANDOUT_Z: f32 = 1.5;

/// Vectors per block of the arena: 1,024 vectors of [`DIM`] bytes, 384 KB (KiB) — small
/// beside the store (at most one block partly empty: 1 % at 10,000 pages), large enough for the
/// scan to run through long stretches of memory.
pub const BLOCK_VECTORS: usize = 1_024;

/// The passages' vectors as bytes, [`DIM`] a slot, in blocks of `block` slots, each allocated at
/// its full size when the first slot of it is taken and dropped when its last is freed.
#[derive(Debug, Clone)]
struct Arena {
    blocks: Vec<Vec<u8>>,
    /// Slots taken.
    len: usize,
    /// Slots a block.
    block: usize,
}

impl Default for Arena {
    fn default() -> Arena {
        Arena::with_block(BLOCK_VECTORS)
    }
}

impl Arena {
    fn with_block(block: usize) -> Arena {
        Arena {
            blocks: Vec::new(),
            len: 0,
            block: block.max(1),
        }
    }

    fn get(&self, slot: usize) -> Option<&[u8]> {
        let at = (slot % self.block) * DIM;
        self.blocks.get(slot / self.block)?.get(at..at + DIM)
    }

    fn get_mut(&mut self, slot: usize) -> Option<&mut [u8]> {
        let at = (slot % self.block) * DIM;
        self.blocks
            .get_mut(slot / self.block)?
            .get_mut(at..at + DIM)
    }

    /// Takes the next slot for `bytes` (exactly [`DIM`] of them: padded with zeros or cut).
    fn push(&mut self, bytes: impl Iterator<Item = u8>) {
        if self.len.is_multiple_of(self.block) {
            self.blocks.push(Vec::with_capacity(self.block * DIM));
        }
        if let Some(last) = self.blocks.last_mut() {
            let start = last.len();
            last.extend(bytes.take(DIM));
            last.resize(start + DIM, 0);
            self.len += 1;
        }
    }

    /// Frees `slot`, moving the last slot's bytes into it.
    fn swap_remove(&mut self, slot: usize) {
        if slot >= self.len {
            return;
        }
        let last = self.len - 1;
        if slot != last {
            let mut moved = [0u8; DIM];
            if let Some(bytes) = self.get(last) {
                moved.copy_from_slice(bytes);
            }
            if let Some(to) = self.get_mut(slot) {
                to.copy_from_slice(&moved);
            }
        }
        if let Some(block) = self.blocks.last_mut() {
            block.truncate(block.len().saturating_sub(DIM));
            if block.is_empty() {
                self.blocks.pop();
            }
        }
        self.len = last;
    }

    /// Every slot's bytes, in slot order.
    fn iter(&self) -> impl Iterator<Item = &[u8]> {
        self.blocks.iter().flat_map(|block| block.chunks_exact(DIM))
    }

    fn heap_bytes(&self) -> usize {
        self.blocks.capacity() * size_of::<Vec<u8>>()
            + self.blocks.iter().map(Vec::capacity).sum::<usize>()
    }
}

/// A page found by a passage's vector.
#[derive(Debug, Clone, PartialEq)]
pub struct VectorHit {
    /// The page's cleaned URL.
    pub url: String,
    /// Its passage most similar to the question.
    pub passage: u16,
    /// That passage's cosine similarity to the question (in 8 bits, within about 0.002).
    pub similarity: f32,
}

/// What [`PassageVectors::scan`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VectorScan {
    /// The pages whose best passage is at or above the floor, most similar first, at most the
    /// limit.
    pub hits: Vec<VectorHit>,
    /// Pages scanned (those the filter allows that have a vector).
    pub pages: usize,
    /// The mean of their best similarities.
    pub mean: f64,
    /// Its standard deviation.
    pub deviation: f64,
}

/// A page's vectors: where they are in the arena.
#[derive(Debug, Clone)]
struct VectorPage {
    url: Box<str>,
    slots: Vec<u32>,
}

/// The passages' vectors, by page. See the [module docs](self).
#[derive(Debug, Clone, Default)]
pub struct PassageVectors {
    /// [`DIM`] components per slot, as bytes (see `semantic::dot_bytes`).
    arena: Arena,
    scales: Vec<f32>,
    /// Slot → its page.
    owner: Vec<u32>,
    /// Slot → the passage's index in its page.
    passages: Vec<u16>,
    pages: Vec<Option<VectorPage>>,
    free: Vec<u32>,
    by_url: HashMap<Box<str>, u32>,
}

impl PassageVectors {
    /// No vector.
    pub fn new() -> PassageVectors {
        PassageVectors::default()
    }

    /// Vectors held.
    pub fn len(&self) -> usize {
        self.owner.len()
    }

    /// Whether none is held.
    pub fn is_empty(&self) -> bool {
        self.owner.is_empty()
    }

    /// Pages with at least one vector.
    pub fn pages(&self) -> usize {
        self.by_url.len()
    }

    /// Forgets every vector.
    pub fn clear(&mut self) {
        *self = PassageVectors::default();
    }

    /// Sets the vector of `url`'s passage `passage` (replacing it if there was one).
    pub fn insert(&mut self, url: &str, passage: u16, vector: &Quantised) {
        let page = match self.by_url.get(url) {
            Some(&page) => page,
            None => {
                let page = match self.free.pop() {
                    Some(page) => page,
                    None => {
                        self.pages.push(None);
                        (self.pages.len() - 1) as u32
                    }
                };
                self.pages[page as usize] = Some(VectorPage {
                    url: url.into(),
                    slots: Vec::new(),
                });
                self.by_url.insert(url.into(), page);
                page
            }
        };
        let Some(entry) = self.pages[page as usize].as_mut() else {
            return;
        };
        let existing = entry
            .slots
            .iter()
            .copied()
            .find(|&s| self.passages[s as usize] == passage);
        let bytes = to_bytes(vector.q());
        match existing {
            Some(slot) => {
                if let Some(to) = self.arena.get_mut(slot as usize) {
                    for (to, from) in to.iter_mut().zip(bytes) {
                        *to = from;
                    }
                }
                self.scales[slot as usize] = vector.scale();
            }
            None => {
                let Ok(slot) = u32::try_from(self.owner.len()) else {
                    return;
                };
                self.arena.push(bytes);
                self.scales.push(vector.scale());
                self.owner.push(page);
                self.passages.push(passage);
                entry.slots.push(slot);
            }
        }
    }

    /// `url`'s vectors, by passage index, in increasing order.
    pub fn of(&self, url: &str) -> Vec<(u16, Quantised)> {
        let Some(page) = self.page(url) else {
            return Vec::new();
        };
        let mut vectors: Vec<(u16, Quantised)> = page
            .slots
            .iter()
            .filter_map(|&slot| {
                let i = slot as usize;
                let q = self
                    .arena
                    .get(i)?
                    .iter()
                    .map(|&b| b.cast_signed())
                    .collect();
                Some((self.passages[i], Quantised::from_parts(q, self.scales[i])?))
            })
            .collect();
        vectors.sort_by_key(|&(passage, _)| passage);
        vectors
    }

    /// Forgets `url`'s vectors; whether it had any.
    pub fn remove(&mut self, url: &str) -> bool {
        let Some(page) = self.by_url.remove(url) else {
            return false;
        };
        let Some(entry) = self.pages[page as usize].take() else {
            return false;
        };
        self.free.push(page);
        let mut slots = entry.slots;
        // Highest first: the last slot is then never one of this page's still to remove.
        slots.sort_unstable_by(|a, b| b.cmp(a));
        for slot in slots {
            let i = slot as usize;
            let last = self.owner.len() - 1;
            if i != last {
                let moved = self.owner[last];
                if let Some(Some(moved)) = self.pages.get_mut(moved as usize)
                    && let Some(s) = moved.slots.iter_mut().find(|s| **s as usize == last)
                {
                    *s = slot;
                }
            }
            self.arena.swap_remove(i);
            self.scales.swap_remove(i);
            self.owner.swap_remove(i);
            self.passages.swap_remove(i);
        }
        true
    }

    /// Every page `sites` allows, with its best passage's similarity to `query` (an
    /// L2-normalised vector of [`DIM`] components): the pages whose best is at least `floor`,
    /// most similar first (ties by URL), at most `limit`, and the mean and deviation of every
    /// allowed page's best. A query of another length or with a non-finite component finds
    /// nothing.
    pub fn scan(&self, query: &[f32], sites: &SiteFilter, limit: usize, floor: f32) -> VectorScan {
        let mut scan = VectorScan::default();
        let Some(query) = Quantised::from_f32(query) else {
            return scan;
        };
        let (query_scale, query): (f32, Vec<u8>) = (query.scale(), to_bytes(query.q()).collect());
        let filtered = !sites.is_empty();
        // Per page: 0 not asked, 1 allowed, 2 not.
        let mut allowed = vec![if filtered { 0u8 } else { 1 }; self.pages.len()];
        let mut best: Vec<(f32, u16)> = vec![(f32::NEG_INFINITY, 0); self.pages.len()];
        for (slot, (vector, &scale)) in self.arena.iter().zip(&self.scales).enumerate() {
            let page = self.owner[slot] as usize;
            if allowed[page] == 0 {
                let url = self.pages[page].as_ref().map(|p| &*p.url);
                allowed[page] = if url.is_some_and(|u| sites.allows(u)) {
                    1
                } else {
                    2
                };
            }
            if allowed[page] != 1 {
                continue;
            }
            let similarity = dot_bytes(vector, &query) as f32 * scale * query_scale;
            let passage = self.passages[slot];
            let current = &mut best[page];
            if similarity > current.0 || (similarity == current.0 && passage < current.1) {
                *current = (similarity, passage);
            }
        }
        let (mut sum, mut squares) = (0.0f64, 0.0f64);
        let mut hits: Vec<(f32, u16, &str)> = Vec::new();
        for (page, &(similarity, passage)) in best.iter().enumerate() {
            let Some(entry) = &self.pages[page] else {
                continue;
            };
            if similarity == f32::NEG_INFINITY {
                continue;
            }
            scan.pages += 1;
            sum += f64::from(similarity);
            squares += f64::from(similarity) * f64::from(similarity);
            if similarity >= floor {
                hits.push((similarity, passage, &entry.url));
            }
        }
        if scan.pages > 0 {
            let n = scan.pages as f64;
            scan.mean = sum / n;
            scan.deviation = (squares / n - scan.mean * scan.mean).max(0.0).sqrt();
        }
        hits.sort_by(|a, b| b.0.total_cmp(&a.0).then_with(|| a.2.cmp(b.2)));
        hits.truncate(limit);
        scan.hits = hits
            .into_iter()
            .map(|(similarity, passage, url)| VectorHit {
                url: url.to_owned(),
                passage,
                similarity,
            })
            .collect();
        scan
    }

    /// The pages that stand out under `rule` (see the [module docs](self)), most similar first,
    /// at most `limit`: [`PassageVectors::scan`] at the rule's floor, then its cut. The content
    /// source has no words' answer to stand beside, so `rule.z` applies.
    pub fn search(
        &self,
        query: &[f32],
        sites: &SiteFilter,
        limit: usize,
        rule: &StandoutRule,
    ) -> Vec<VectorHit> {
        let scan = self.scan(query, sites, limit, rule.floor);
        let best = scan.hits.first().map(|h| h.similarity);
        let cut = rule.cut(best, scan.pages, scan.mean, scan.deviation, Words::Missed);
        let mut hits = scan.hits;
        hits.retain(|h| h.similarity >= cut);
        hits
    }

    /// Bytes on the heap, roughly (every array at its capacity, the URLs twice).
    pub fn heap_bytes(&self) -> usize {
        let urls: usize = self.by_url.keys().map(|u| u.len()).sum();
        let slots: usize = self
            .pages
            .iter()
            .flatten()
            .map(|p| p.slots.capacity() * 4)
            .sum();
        self.arena.heap_bytes()
            + self.scales.capacity() * 4
            + self.owner.capacity() * 4
            + self.passages.capacity() * 2
            + self.pages.capacity() * size_of::<Option<VectorPage>>()
            + slots
            + self.free.capacity() * 4
            + self.by_url.capacity() * 8 / 7 * (size_of::<(Box<str>, u32)>() + 1)
            + 2 * urls
    }

    fn page(&self, url: &str) -> Option<&VectorPage> {
        let page = *self.by_url.get(url)?;
        self.pages.get(page as usize)?.as_ref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::content::tests::unit_vector;
    use crate::site_filter;

    fn q(seed: u64) -> Quantised {
        Quantised::from_f32(&unit_vector(seed)).unwrap()
    }

    /// `base` moved towards `other` until its cosine with `base` is about `similarity`.
    fn near(base: &[f32], other: &[f32], similarity: f32) -> Vec<f32> {
        let along: f32 = base.iter().zip(other).map(|(a, b)| a * b).sum();
        let ortho: Vec<f32> = other.iter().zip(base).map(|(o, b)| o - along * b).collect();
        let norm = ortho.iter().map(|x| x * x).sum::<f32>().sqrt();
        let side = (1.0 - similarity * similarity).sqrt();
        base.iter()
            .zip(&ortho)
            .map(|(b, o)| similarity * b + side * o / norm)
            .collect()
    }

    #[test]
    fn each_page_is_found_by_its_best_passage() {
        let query = unit_vector(1);
        let mut vectors = PassageVectors::new();
        // (url, passage, similarity to the query)
        let rows: &[(&str, u16, f32)] = &[
            ("https://a.example/", 0, 0.50),
            ("https://a.example/", 3, 0.90),
            ("https://a.example/", 5, 0.70),
            ("https://b.example/", 0, 0.80),
            ("https://c.example/", 2, 0.20),
        ];
        for (i, &(url, passage, similarity)) in rows.iter().enumerate() {
            let v = near(&query, &unit_vector(100 + i as u64), similarity);
            vectors.insert(url, passage, &Quantised::from_f32(&v).unwrap());
        }
        assert_eq!((vectors.len(), vectors.pages()), (5, 3));
        let scan = vectors.scan(&query, &SiteFilter::default(), 10, 0.5);
        let found: Vec<(&str, u16)> = scan
            .hits
            .iter()
            .map(|h| (h.url.as_str(), h.passage))
            .collect();
        assert_eq!(
            found,
            [("https://a.example/", 3), ("https://b.example/", 0)]
        );
        assert!((scan.hits[0].similarity - 0.9).abs() < 0.003);
        // The statistics are over the pages' best similarities: 0.9, 0.8, 0.2.
        assert_eq!(scan.pages, 3);
        let mean = (0.9 + 0.8 + 0.2) / 3.0;
        assert!((scan.mean - mean).abs() < 0.003, "{}", scan.mean);
        let deviation =
            ((0.9f64 - mean).powi(2) + (0.8 - mean).powi(2) + (0.2 - mean).powi(2)) / 3.0;
        assert!((scan.deviation - deviation.sqrt()).abs() < 0.003);
        // The limit, a filter, a broken query.
        assert_eq!(
            vectors
                .scan(&query, &SiteFilter::default(), 1, 0.0)
                .hits
                .len(),
            1
        );
        let only_c = site_filter::parse("site:c.example").filter;
        let scan = vectors.scan(&query, &only_c, 10, -1.0);
        assert_eq!((scan.pages, scan.hits.len()), (1, 1));
        assert_eq!(scan.hits[0].url, "https://c.example/");
        assert_eq!(
            vectors.scan(&query[1..], &SiteFilter::default(), 10, -1.0),
            VectorScan::default()
        );
    }

    #[test]
    fn the_arena_in_blocks_keeps_every_slot_through_pushes_and_removals() {
        // Blocks of 3 slots; slot `s` is pushed as bytes all `s`. Each row: removals (by slot,
        // the last slot moving into it), then pushes; the bytes' first byte by slot, and blocks.
        type Row<'a> = (&'a [usize], u8, &'a [u8], usize);
        let rows: &[Row] = &[
            (&[], 7, &[0, 1, 2, 3, 4, 5, 6], 3),
            // The last slot: nothing moves; its block empties and goes.
            (&[6], 0, &[0, 1, 2, 3, 4, 5], 2),
            // Across blocks: slot 1 takes slot 5's bytes.
            (&[1], 0, &[0, 5, 2, 3, 4], 2),
            (&[0, 0], 0, &[3, 5, 2], 1),
            // Out of range: nothing.
            (&[9], 0, &[3, 5, 2], 1),
            (&[], 2, &[3, 5, 2, 10, 11], 2),
            (&[0, 0, 0, 0, 0], 0, &[], 0),
        ];
        let mut arena = Arena::with_block(3);
        let mut next = 0u8;
        for (i, &(removals, pushes, want, blocks)) in rows.iter().enumerate() {
            if i == 5 {
                next = 10;
            }
            for &slot in removals {
                arena.swap_remove(slot);
            }
            for _ in 0..pushes {
                arena.push(std::iter::repeat_n(next, DIM));
                next += 1;
            }
            let firsts: Vec<u8> = arena.iter().map(|v| v[0]).collect();
            assert_eq!(firsts, want, "row {i}");
            assert!(
                arena
                    .iter()
                    .all(|v| v.len() == DIM && v.iter().all(|&b| b == v[0]))
            );
            assert_eq!(
                (arena.len, arena.blocks.len()),
                (want.len(), blocks),
                "row {i}"
            );
            assert!(arena.blocks.iter().all(|b| b.capacity() == 3 * DIM));
            for (slot, &first) in want.iter().enumerate() {
                assert_eq!(arena.get(slot).map(|v| v[0]), Some(first));
            }
            assert_eq!(arena.get(want.len()), None);
        }
        // Bytes of the wrong length fill exactly one slot.
        arena.push([1u8, 2].into_iter());
        arena.push(std::iter::repeat(9));
        let slots: Vec<&[u8]> = arena.iter().collect();
        assert_eq!(
            (slots.len(), &slots[0][..3], slots[1][DIM - 1]),
            (2, &[1, 2, 0][..], 9)
        );
    }

    #[test]
    fn insert_replace_remove_keep_every_page_s_vectors() {
        let mut vectors = PassageVectors::new();
        // Pages' passages interleaved, as batches add them.
        for passage in 0..4u16 {
            for page in 0..6u64 {
                let seed = page * 10 + u64::from(passage);
                vectors.insert(&format!("https://p{page}.example/"), passage, &q(seed));
            }
        }
        vectors.insert("https://p2.example/", 1, &q(999));
        assert_eq!(vectors.len(), 24);
        assert!(vectors.remove("https://p0.example/"));
        assert!(vectors.remove("https://p3.example/"));
        assert!(!vectors.remove("https://p3.example/"));
        assert_eq!((vectors.len(), vectors.pages()), (16, 4));
        for page in [1u64, 2, 4, 5] {
            let url = format!("https://p{page}.example/");
            let held = vectors.of(&url);
            let want: Vec<(u16, Quantised)> = (0..4u16)
                .map(|passage| {
                    let seed = if (page, passage) == (2, 1) {
                        999
                    } else {
                        page * 10 + u64::from(passage)
                    };
                    (passage, q(seed))
                })
                .collect();
            assert_eq!(held, want, "{url}");
            // Each passage finds its page first.
            for (passage, _) in &want {
                let seed = if (page, *passage) == (2, 1) {
                    999
                } else {
                    page * 10 + u64::from(*passage)
                };
                let hits = vectors
                    .scan(&unit_vector(seed), &SiteFilter::default(), 1, 0.0)
                    .hits;
                assert_eq!(
                    (hits[0].url.as_str(), hits[0].passage),
                    (url.as_str(), *passage)
                );
            }
        }
        assert!(vectors.of("https://p0.example/").is_empty());
        // A page added after removals reuses a slot and finds itself.
        vectors.insert("https://new.example/", 7, &q(7_777));
        let hits = vectors
            .scan(&unit_vector(7_777), &SiteFilter::default(), 1, 0.0)
            .hits;
        assert_eq!(
            (hits[0].url.as_str(), hits[0].passage),
            ("https://new.example/", 7)
        );
        vectors.clear();
        assert!(vectors.is_empty() && vectors.pages() == 0);
    }

    #[test]
    fn only_a_page_that_stands_out_among_the_pages_is_a_hit() {
        let query = unit_vector(1);
        let mut vectors = PassageVectors::new();
        // 30 pages of eight unrelated passages (cosine about ±0.05 with anything)…
        for page in 0..30u64 {
            for passage in 0..8u16 {
                let seed = 1_000 + page * 8 + u64::from(passage);
                vectors.insert(&format!("https://p{page}.example/"), passage, &q(seed));
            }
        }
        let rule = StandoutRule {
            floor: -1.0,
            margin: None,
            z: Some(2.6),
            z_beside_words: Some(3.0),
        };
        assert!(
            vectors
                .search(&query, &SiteFilter::default(), 10, &rule)
                .is_empty()
        );
        // …and one whose fourth passage is about the question.
        let about = near(&query, &unit_vector(5), 0.85);
        vectors.insert(
            "https://p7.example/",
            3,
            &Quantised::from_f32(&about).unwrap(),
        );
        let hits = vectors.search(&query, &SiteFilter::default(), 10, &rule);
        assert_eq!(hits.len(), 1);
        assert_eq!(
            (hits[0].url.as_str(), hits[0].passage),
            ("https://p7.example/", 3)
        );
        // Fewer pages than the rule needs: nothing stands out.
        let github = site_filter::parse("site:p7.example").filter;
        assert!(vectors.search(&query, &github, 10, &rule).is_empty());
        // The shipped rule's floor keeps the plainly unrelated out.
        assert!(
            vectors
                .search(
                    &unit_vector(2),
                    &SiteFilter::default(),
                    10,
                    &CONTENT_STANDOUT
                )
                .is_empty()
        );
    }
}
