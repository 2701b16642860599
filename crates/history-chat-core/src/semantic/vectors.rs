//! The pages' vectors in memory, scanned for every semantic search.
//!
//! One contiguous arena of `i8` components ([`DIM`] per page, page `i` at `i × DIM`) beside plain
//! arrays of scales, last visits and passage hashes, and one map from URL to slot. A scan reads the
//! arena front to back, with no pointer to follow per page; a removal moves the last page into the
//! freed slot, so the arena never has holes.
//!
//! Measured in WebAssembly (Node 20's V8, the extension's settings: `opt-level = "z"`, SIMD, on a
//! shared 2-core machine): a scan of 50,000 pages takes 7–14 ms with the query quantised to `i8`
//! and the SIMD dot product of `quantised::dot_bytes`; the same loop left to the compiler took
//! 70 ms (nothing is vectorised at `opt-level = "z"`), and `f32` dot products on the `i8` pages
//! are slower still (130 ms natively at that level).

use std::cmp::Ordering;

use rustc_hash::{FxHashMap as HashMap, FxHashSet as HashSet};

use super::DIM;
use super::quantised::{Quantised, dot_bytes, to_bytes};
use super::record::{Entry, RecordError, RecordRef};
use crate::site_filter::SiteFilter;

/// What [`Vectors::scan`] found.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Scan {
    /// The pages at or above the floor, most similar first, at most the limit.
    pub hits: Vec<(String, f32)>,
    /// Pages of the period scanned.
    pub pages: usize,
    /// Their mean similarity to the query.
    pub mean: f64,
    /// The standard deviation of it.
    pub deviation: f64,
}

/// The vectors of the pages understood, by cleaned URL: one contiguous arena of 8-bit components
/// ([`DIM`] per page) beside plain arrays of scales, last visits and page hashes, so a scan reads
/// memory front to back; a removal moves the last page into the freed slot, so there are no holes.
///
/// Some pages are **ageless** ([`Vectors::set_ageless`]): a scan of any period holds them whatever
/// their last visit (a bookmarked page is found whatever its age). The set is kept apart from the
/// slots, so a page made ageless before its vector comes is ageless when it comes.
#[derive(Debug, Clone, Default)]
pub struct Vectors {
    /// [`DIM`] components per slot, as bytes (two's complement: see `quantised::dot_bytes`).
    arena: Vec<u8>,
    scales: Vec<f32>,
    visits: Vec<i64>,
    hashes: Vec<u64>,
    /// Whether each slot's page is in `ageless`.
    ageless_slots: Vec<bool>,
    urls: Vec<String>,
    slots: HashMap<String, u32>,
    /// The pages scanned whatever the period, held or not.
    ageless: HashSet<String>,
}

impl Vectors {
    /// No vectors.
    pub fn new() -> Vectors {
        Vectors::default()
    }

    /// Pages held.
    pub fn len(&self) -> usize {
        self.urls.len()
    }

    /// Whether no page is held.
    pub fn is_empty(&self) -> bool {
        self.urls.is_empty()
    }

    /// Forgets every page (which pages are ageless stays).
    pub fn clear(&mut self) {
        let ageless = std::mem::take(&mut self.ageless);
        *self = Vectors {
            ageless,
            ..Vectors::default()
        };
    }

    /// The pages scanned whatever the period from now on are `urls` (cleaned), those before not.
    pub fn set_ageless(&mut self, urls: impl IntoIterator<Item = String>) {
        self.ageless = urls.into_iter().collect();
        for (url, ageless) in self.urls.iter().zip(&mut self.ageless_slots) {
            *ageless = self.ageless.contains(url);
        }
    }

    /// `urls` are scanned whatever the period too (`true`), or no longer (`false`).
    pub fn mark_ageless(&mut self, urls: impl IntoIterator<Item = String>, ageless: bool) {
        for url in urls {
            if let Some(i) = self.slot(&url) {
                self.ageless_slots[i] = ageless;
            }
            match ageless {
                true => self.ageless.insert(url),
                false => self.ageless.remove(&url),
            };
        }
    }

    /// Whether `url` is scanned whatever the period.
    pub fn is_ageless(&self, url: &str) -> bool {
        self.ageless.contains(url)
    }

    /// Whether `url` (cleaned) has a vector.
    pub fn contains(&self, url: &str) -> bool {
        self.slots.contains_key(url)
    }

    /// The [`super::page_hash`] `url`'s vector was made with.
    pub fn page_hash(&self, url: &str) -> Option<u64> {
        self.slot(url).map(|i| self.hashes[i])
    }

    /// `url`'s latest visit as known here.
    pub fn last_visit_ms(&self, url: &str) -> Option<i64> {
        self.slot(url).map(|i| self.visits[i])
    }

    /// What is held for `url`, copied out.
    pub fn entry(&self, url: &str) -> Option<Entry> {
        let i = self.slot(url)?;
        let q = self.arena[i * DIM..(i + 1) * DIM]
            .iter()
            .map(|&b| b.cast_signed())
            .collect();
        Some(Entry {
            vector: Quantised::from_parts(q, self.scales[i])?,
            page_hash: self.hashes[i],
            last_visit_ms: self.visits[i],
        })
    }

    /// Adds `url`'s vector, or replaces it.
    pub fn insert(&mut self, url: String, entry: Entry) {
        let mut bytes = [0u8; DIM];
        for (byte, q) in bytes.iter_mut().zip(to_bytes(entry.vector.q())) {
            *byte = q;
        }
        self.insert_bytes(
            url,
            &bytes,
            entry.vector.scale(),
            entry.page_hash,
            entry.last_visit_ms,
        );
    }

    /// Adds the vector of a stored record — [`Record::encode`]'s bytes, stored under `url` —
    /// read in place (no copy but into the arena), or replaces it. An unreadable record, or one
    /// of another page, is an error and changes nothing.
    ///
    /// [`Record::encode`]: super::Record::encode
    pub fn load_record(&mut self, url: &str, bytes: &[u8]) -> Result<(), RecordError> {
        let record = RecordRef::decode(bytes)?;
        if record.url != url {
            return Err(RecordError::OtherKey);
        }
        self.insert_bytes(
            url.to_owned(),
            record.q,
            record.scale,
            record.page_hash,
            record.last_visit_ms,
        );
        Ok(())
    }

    /// Room for `additional` more pages without reallocating.
    pub fn reserve(&mut self, additional: usize) {
        self.arena.reserve(additional * DIM);
        self.scales.reserve(additional);
        self.visits.reserve(additional);
        self.hashes.reserve(additional);
        self.ageless_slots.reserve(additional);
        self.urls.reserve(additional);
        self.slots.reserve(additional);
    }

    /// `bytes`: [`DIM`] components as [`to_bytes`] gives them.
    fn insert_bytes(
        &mut self,
        url: String,
        bytes: &[u8],
        scale: f32,
        page_hash: u64,
        last_visit_ms: i64,
    ) {
        match self.slot(&url) {
            Some(i) => {
                self.arena[i * DIM..(i + 1) * DIM].copy_from_slice(bytes);
                self.scales[i] = scale;
                self.visits[i] = last_visit_ms;
                self.hashes[i] = page_hash;
            }
            None => {
                let Ok(slot) = u32::try_from(self.urls.len()) else {
                    // Four billion pages: not a history.
                    return;
                };
                self.arena.extend_from_slice(bytes);
                self.scales.push(scale);
                self.visits.push(last_visit_ms);
                self.hashes.push(page_hash);
                self.ageless_slots.push(self.ageless.contains(&url));
                self.slots.insert(url.clone(), slot);
                self.urls.push(url);
            }
        }
    }

    /// When `url`'s vector was made with `page_hash`, sets its latest visit (a visit again: the
    /// vector still matches) and says so, in one look-up.
    pub fn touch(&mut self, url: &str, page_hash: u64, last_visit_ms: i64) -> bool {
        match self.slot(url) {
            Some(i) if self.hashes[i] == page_hash => {
                self.visits[i] = last_visit_ms;
                true
            }
            _ => false,
        }
    }

    /// Sets `url`'s latest visit (a visit again: the vector still matches); whether it is held.
    pub fn set_last_visit(&mut self, url: &str, last_visit_ms: i64) -> bool {
        match self.slot(url) {
            Some(i) => {
                self.visits[i] = last_visit_ms;
                true
            }
            None => false,
        }
    }

    /// Forgets `url`; whether it was held.
    pub fn remove(&mut self, url: &str) -> bool {
        let Some(slot) = self.slots.remove(url) else {
            return false;
        };
        let i = slot as usize;
        let last = self.urls.len() - 1;
        if i != last {
            self.arena
                .copy_within(last * DIM..(last + 1) * DIM, i * DIM);
            if let Some(moved) = self.slots.get_mut(&self.urls[last]) {
                *moved = slot;
            }
        }
        self.arena.truncate(last * DIM);
        self.scales.swap_remove(i);
        self.visits.swap_remove(i);
        self.hashes.swap_remove(i);
        self.ageless_slots.swap_remove(i);
        self.urls.swap_remove(i);
        true
    }

    /// The pages last visited at or after `start_ms`, and the ageless ones, whose similarity to `query` (an
    /// L2-normalised vector of [`DIM`] components) is at least `floor`: at most `limit`, most
    /// similar first, ties most recent first (then by URL, so answers are stable). The similarity
    /// is the cosine computed in 8 bits (the query is quantised like the pages), within about 0.002
    /// of the exact one. A query of another length or with a non-finite component finds nothing.
    ///
    /// 7–14 ms for 50,000 pages in the extension's WebAssembly (measured under Node 20 on a shared
    /// 2-core machine; see the module's source for the kernel and the alternatives measured).
    pub fn search(
        &self,
        query: &[f32],
        start_ms: i64,
        limit: usize,
        floor: f32,
    ) -> Vec<(String, f32)> {
        self.scan(query, start_ms, limit, floor).hits
    }

    /// [`Vectors::search`], with the similarity's mean and deviation over every page of the
    /// period (above the floor or not), computed in the same pass.
    pub fn scan(&self, query: &[f32], start_ms: i64, limit: usize, floor: f32) -> Scan {
        self.scan_in(query, &SiteFilter::default(), start_ms, limit, floor)
    }

    /// [`Vectors::scan`] over the pages `sites` allows only ([`crate::site_filter`]): the others
    /// are neither hits nor counted in the mean and deviation, so a page stands out among its
    /// site's pages.
    pub fn scan_in(
        &self,
        query: &[f32],
        sites: &SiteFilter,
        start_ms: i64,
        limit: usize,
        floor: f32,
    ) -> Scan {
        let mut scan = Scan::default();
        let filtered = !sites.is_empty();
        let Some(query) = Quantised::from_f32(query) else {
            return scan;
        };
        let (query_scale, query): (f32, Vec<u8>) = (query.scale(), to_bytes(query.q()).collect());
        let (mut sum, mut squares) = (0.0_f64, 0.0_f64);
        let mut hits: Vec<(f32, u32)> = Vec::new();
        for (slot, (((page, &scale), &visit), &ageless)) in self
            .arena
            .chunks_exact(DIM)
            .zip(&self.scales)
            .zip(&self.visits)
            .zip(&self.ageless_slots)
            .enumerate()
        {
            if (visit < start_ms && !ageless) || (filtered && !sites.allows(&self.urls[slot])) {
                continue;
            }
            let similarity = dot_bytes(page, &query) as f32 * scale * query_scale;
            scan.pages += 1;
            sum += f64::from(similarity);
            squares += f64::from(similarity) * f64::from(similarity);
            if similarity >= floor && limit > 0 {
                hits.push((similarity, slot as u32));
            }
        }
        if scan.pages > 0 {
            let n = scan.pages as f64;
            scan.mean = sum / n;
            scan.deviation = (squares / n - scan.mean * scan.mean).max(0.0).sqrt();
        }
        let order = |a: &(f32, u32), b: &(f32, u32)| -> Ordering {
            b.0.total_cmp(&a.0)
                .then_with(|| self.visits[b.1 as usize].cmp(&self.visits[a.1 as usize]))
                .then_with(|| self.urls[a.1 as usize].cmp(&self.urls[b.1 as usize]))
        };
        if hits.len() > limit {
            hits.select_nth_unstable_by(limit - 1, order);
            hits.truncate(limit);
        }
        hits.sort_unstable_by(order);
        scan.hits = hits
            .into_iter()
            .map(|(similarity, slot)| (self.urls[slot as usize].clone(), similarity))
            .collect();
        scan
    }

    /// Every page held, with its latest visit, in no particular order.
    pub fn urls(&self) -> impl Iterator<Item = (&str, i64)> {
        self.urls
            .iter()
            .map(String::as_str)
            .zip(self.visits.iter().copied())
    }

    /// Bytes on the heap, roughly (the arena, the arrays, the URLs twice).
    pub fn heap_bytes(&self) -> usize {
        let urls: usize = self.urls.iter().map(String::capacity).sum();
        self.arena.capacity()
            + self.scales.capacity() * 4
            + self.visits.capacity() * 8
            + self.hashes.capacity() * 8
            + self.ageless_slots.capacity()
            + self.urls.capacity() * size_of::<String>()
            + 2 * urls
            + self.slots.capacity() * (size_of::<String>() + 4 + 1)
    }

    fn slot(&self, url: &str) -> Option<usize> {
        self.slots.get(url).map(|&i| i as usize)
    }
}

#[cfg(test)]
mod tests {
    use super::super::quantised::tests::{normalise, unit_vector};
    use super::*;

    fn entry(vector: &[f32], last_visit_ms: i64) -> Entry {
        Entry {
            vector: Quantised::from_f32(vector).unwrap(),
            page_hash: last_visit_ms as u64,
            last_visit_ms,
        }
    }

    /// `base` moved towards `other` until its cosine with `base` is about `similarity`.
    fn near(base: &[f32], other: &[f32], similarity: f32) -> Vec<f32> {
        let along: f32 = base.iter().zip(other).map(|(a, b)| a * b).sum();
        let ortho = normalise(other.iter().zip(base).map(|(o, b)| o - along * b).collect());
        let side = (1.0 - similarity * similarity).sqrt();
        base.iter()
            .zip(&ortho)
            .map(|(b, o)| similarity * b + side * o)
            .collect()
    }

    #[test]
    fn a_scan_gives_the_statistics_of_the_whole_period_whatever_the_floor_and_limit() {
        let query = unit_vector(10);
        let mut vectors = Vectors::new();
        for (i, similarity) in [0.95_f32, 0.9, 0.8, 0.7, 0.6, 0.5].into_iter().enumerate() {
            let other = unit_vector(20 + i as u64);
            vectors.insert(
                format!("https://p{i}.example/"),
                entry(&near(&query, &other, similarity), 100 + i as i64),
            );
        }
        vectors.insert(
            "https://old.example/".to_owned(),
            entry(&near(&query, &unit_vector(40), 0.99), 1),
        );
        let everything = vectors.search(&query, 100, usize::MAX, f32::MIN);
        assert_eq!(everything.len(), 6, "the old page is outside the period");
        let n = everything.len() as f64;
        let mean = everything.iter().map(|&(_, s)| f64::from(s)).sum::<f64>() / n;
        let deviation = (everything
            .iter()
            .map(|&(_, s)| (f64::from(s) - mean).powi(2))
            .sum::<f64>()
            / n)
            .sqrt();
        let scan = vectors.scan(&query, 100, 2, 0.85);
        assert_eq!(scan.pages, 6);
        assert!((scan.mean - mean).abs() < 1e-6, "{} vs {mean}", scan.mean);
        assert!(
            (scan.deviation - deviation).abs() < 1e-6,
            "{} vs {deviation}",
            scan.deviation
        );
        assert_eq!(scan.hits, everything[..2].to_vec());
    }

    #[test]
    fn an_ageless_page_is_scanned_in_every_period_until_it_is_no_longer() {
        let query = unit_vector(10);
        let mut vectors = Vectors::new();
        let old = "https://old.example/";
        let recent = "https://recent.example/";
        let moved = "https://moved.example/";
        // Made ageless before its vector comes.
        vectors.set_ageless([old.to_owned()]);
        for (i, (url, visit)) in [(old, 1), (recent, 100), (moved, 2)]
            .into_iter()
            .enumerate()
        {
            let v = near(&query, &unit_vector(50 + i as u64), 0.9);
            vectors.insert(url.to_owned(), entry(&v, visit));
        }
        let scanned = |vectors: &Vectors| {
            let mut urls: Vec<String> = vectors
                .scan(&query, 100, 10, f32::MIN)
                .hits
                .into_iter()
                .map(|(url, _)| url)
                .collect();
            urls.sort();
            urls
        };
        assert_eq!(scanned(&vectors), [old, recent]);
        assert!(vectors.is_ageless(old));
        // Marked once held; a removal moves the last slot (`moved`) into the freed one.
        vectors.mark_ageless([moved.to_owned()], true);
        assert_eq!(scanned(&vectors), [moved, old, recent]);
        assert!(vectors.remove(old));
        assert_eq!(scanned(&vectors), [moved, recent]);
        vectors.mark_ageless([moved.to_owned()], false);
        assert_eq!(scanned(&vectors), [recent]);
        // Replaced whole; a cleared store keeps which pages are ageless for the vectors to come.
        vectors.set_ageless([moved.to_owned()]);
        assert_eq!(scanned(&vectors), [moved, recent]);
        vectors.clear();
        assert!(vectors.is_ageless(moved));
        vectors.insert(moved.to_owned(), entry(&query, 2));
        assert_eq!(scanned(&vectors), [moved]);
        // The whole history's scan is unchanged by it.
        assert_eq!(vectors.scan(&query, 0, 10, f32::MIN).pages, 1);
    }

    #[test]
    fn a_filtered_scan_counts_and_finds_only_the_sites_pages() {
        let query = unit_vector(10);
        let mut vectors = Vectors::new();
        let pages = [
            ("https://github.com/a", 0.95_f32),
            ("https://gist.github.com/b", 0.6),
            ("https://blog.example/c", 0.99),
            ("https://blog.example/d", 0.2),
        ];
        for (i, (url, similarity)) in pages.into_iter().enumerate() {
            let other = unit_vector(20 + i as u64);
            vectors.insert(
                url.to_owned(),
                entry(&near(&query, &other, similarity), 100),
            );
        }
        let github = crate::site_filter::parse("site:github.com").filter;
        let scan = vectors.scan_in(&query, &github, 0, 10, f32::MIN);
        assert_eq!(scan.pages, 2);
        let found: Vec<&str> = scan.hits.iter().map(|(u, _)| u.as_str()).collect();
        assert_eq!(found, ["https://github.com/a", "https://gist.github.com/b"]);
        let mean = (f64::from(scan.hits[0].1) + f64::from(scan.hits[1].1)) / 2.0;
        assert!((scan.mean - mean).abs() < 1e-6, "{} vs {mean}", scan.mean);
        // The unfiltered scan is unchanged.
        assert_eq!(vectors.scan(&query, 0, 10, f32::MIN).pages, 4);
    }

    #[test]
    fn search_keeps_the_period_and_the_floor_best_first_ties_most_recent() {
        let query = unit_vector(10);
        let mut vectors = Vectors::new();
        // (url, similarity to the query, last visit)
        let rows: &[(&str, f32, i64)] = &[
            ("https://a.example/", 0.95, 100),
            ("https://b.example/", 0.90, 300),
            ("https://tie-old.example/", 0.85, 200),
            ("https://tie-new.example/", 0.85, 400),
            ("https://low.example/", 0.70, 500),
            ("https://old.example/", 0.99, 10),
        ];
        for (i, &(url, similarity, visit)) in rows.iter().enumerate() {
            let v = near(&query, &unit_vector(100 + i as u64), similarity);
            vectors.insert(url.to_owned(), entry(&v, visit));
        }
        let urls = |hits: Vec<(String, f32)>| hits.into_iter().map(|h| h.0).collect::<Vec<_>>();
        assert_eq!(
            urls(vectors.search(&query, 50, 10, 0.8)),
            [
                "https://a.example/",
                "https://b.example/",
                "https://tie-new.example/",
                "https://tie-old.example/"
            ]
        );
        assert_eq!(
            urls(vectors.search(&query, 0, 2, 0.8)),
            ["https://old.example/", "https://a.example/"]
        );
        assert_eq!(urls(vectors.search(&query, 250, 10, 0.0)).len(), 3);
        assert!(vectors.search(&query, 0, 0, 0.0).is_empty());
        assert!(vectors.search(&query[1..], 0, 10, 0.0).is_empty());
        assert!(vectors.search(&[f32::NAN; DIM], 0, 10, 0.0).is_empty());
        let hits = vectors.search(&query, 0, 10, 0.0);
        for (url, similarity) in &hits {
            let want = rows.iter().find(|r| r.0 == url).unwrap().1;
            assert!((similarity - want).abs() < 0.003, "{url}: {similarity}");
        }
    }

    #[test]
    fn insert_replace_remove_keep_the_slots_right() {
        let mut vectors = Vectors::new();
        for i in 0..10 {
            vectors.insert(
                format!("https://{i}.example/"),
                entry(&unit_vector(i), i as i64),
            );
        }
        // Replacing keeps one slot; removing moves the last page into the hole.
        vectors.insert("https://3.example/".into(), entry(&unit_vector(33), 33));
        assert_eq!(vectors.len(), 10);
        assert!(vectors.remove("https://0.example/"));
        assert!(vectors.remove("https://5.example/"));
        assert!(vectors.remove("https://9.example/"));
        assert!(!vectors.remove("https://9.example/"));
        assert_eq!(vectors.len(), 7);
        for i in [1, 2, 3, 4, 6, 7, 8] {
            let url = format!("https://{i}.example/");
            let seed = if i == 3 { 33 } else { i };
            let want = entry(&unit_vector(seed), seed as i64);
            assert_eq!(vectors.entry(&url), Some(want), "{url}");
            // Each finds itself first.
            let first = vectors.search(&unit_vector(seed), 0, 1, 0.0);
            assert_eq!(first[0].0, url);
        }
        assert!(vectors.set_last_visit("https://8.example/", 1_000));
        assert!(
            !vectors.touch("https://8.example/", 7, 2_000),
            "another hash"
        );
        assert!(vectors.touch("https://8.example/", 8, 1_000));
        assert!(!vectors.set_last_visit("https://0.example/", 1_000));
        assert_eq!(vectors.last_visit_ms("https://8.example/"), Some(1_000));
        assert_eq!(vectors.page_hash("https://8.example/"), Some(8));
        assert_eq!(vectors.urls().count(), 7);
        vectors.clear();
        assert!(vectors.is_empty() && vectors.search(&unit_vector(1), 0, 5, -1.0).is_empty());
    }

    #[test]
    fn stored_records_load_in_place() {
        let url = "https://a.example/";
        let wanted = entry(&unit_vector(3), 42);
        let bytes = super::super::Record::new(url, &wanted).encode();
        let mut vectors = Vectors::new();
        assert_eq!(vectors.load_record(url, &bytes), Ok(()));
        assert_eq!(vectors.entry(url), Some(wanted));
        let rows: &[(&str, &[u8], RecordError)] = &[
            ("https://b.example/", &bytes, RecordError::OtherKey),
            ("https://b.example/", &[], RecordError::Empty),
        ];
        for (key, bytes, error) in rows {
            assert_eq!(vectors.load_record(key, bytes), Err(error.clone()));
        }
        assert_eq!(vectors.len(), 1);
    }

    #[test]
    fn a_big_store_scans_everything_and_cuts_to_the_limit() {
        let mut vectors = Vectors::new();
        for i in 0..5_000u64 {
            vectors.insert(
                format!("https://p{i}.example/"),
                entry(&unit_vector(i), i as i64),
            );
        }
        let hits = vectors.search(&unit_vector(4_321), 0, 25, -1.0);
        assert_eq!(hits.len(), 25);
        assert_eq!(hits[0].0, "https://p4321.example/");
        assert!(hits.windows(2).all(|w| w[0].1 >= w[1].1));
        // Unrelated random vectors are far below any sensible floor.
        assert!(hits[1].1 < 0.4, "{}", hits[1].1);
        assert!(vectors.heap_bytes() > 5_000 * DIM);
    }
}
