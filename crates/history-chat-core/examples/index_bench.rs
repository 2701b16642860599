//! Native benchmark of the history index on synthetic, realistic histories.
//!
//! `cargo run --release -p history-chat-core --example index_bench [-- 10000 50000]`
//!
//! For 10,000, 50,000 and 100,000 entries: build time, saved size, save and load time, approximate
//! heap, query latency (p50/p95) for 1- to 6-word queries mixing exact words, typos and an
//! unfinished last word, and AI-mode per-keyword retrieval for 20 and 100 keywords.
//!
//! Histories: titles of 3–12 words drawn with a skew from ~400 real English/French words and a long
//! tail of generated words (the vocabulary of real history is mostly rare words: names, products,
//! jargon); ~3,000 hosts; slug, id or query-string URLs; 15% of entries are raw duplicates of
//! another page (tracking parameters, fragments).

// Examples run natively only: `Instant::now` is banned in the wasm-shared library, not here.
#![allow(clippy::disallowed_methods)]

use std::time::{Duration, Instant};

use history_chat_core::history::HistoryItem;
use history_chat_core::index::Index;

const NOW_MS: i64 = 1_796_083_200_000;
const DAY_MS: i64 = 86_400_000;

const COMMON: &str = "the rust python javascript guide how to fix error recursive query database \
    postgresql kubernetes docker react component hooks state async await tutorial best practices \
    performance memory leak news world europe france paris lyon marseille election government \
    economy inflation bank rates market stocks football match league champions team player transfer \
    recipe cake chocolate tart apple pasta soup vegetarian dinner quick easy review phone laptop \
    headphones camera bike electric shoes running trail tent camping hotel flight train booking \
    weather forecast rain storm heatwave climate glacier science study health sleep diet heart brain \
    music album concert festival movie film series season episode trailer book novel author history \
    war ancient roman empire castle museum art painting photo travel guide beach mountain hiking \
    ski chalet apartment rent buy sale house garden plants flowers tools furniture bookcase kitchen \
    recette gâteau tarte pommes soupe légumes dîner facile rapide avis téléphone casque vélo électrique \
    chaussures randonnée tente hôtel vol billet météo prévisions pluie orage canicule glacier santé \
    sommeil régime cœur cerveau musique concert festival film série saison épisode livre roman \
    auteur histoire guerre château musée peinture voyage plage montagne appartement louer acheter \
    maison jardin plantes outils meubles bibliothèque cuisine élections gouvernement économie \
    banque taux marché bourse équipe joueur transfert impôts passeport démarches rendez-vous médecin \
    dentiste pharmacie remboursement école université cours examen résultats emploi salaire \
    entreprise startup fundraising engineer remote job interview salary company product launch \
    open source release version changelog issue pull request bug crash panic thread lock mutex \
    cache index search engine ranking fusion embedding model language prompt token context window";

const SYLLABLES: &[&str] = &[
    "ka", "lo", "mi", "ren", "tor", "vel", "qua", "zi", "bel", "mon", "tra", "pex", "dor", "lin",
    "sta", "gri", "fu", "nel", "ox", "bra", "chi", "mer", "sol", "van", "ith", "ul", "pre", "cor",
];

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
    /// Skewed towards small indexes (a rough Zipf).
    fn skewed(&mut self, n: usize) -> usize {
        let u = (self.next() >> 11) as f64 / (1u64 << 53) as f64;
        ((u * u * u) * n as f64) as usize % n.max(1)
    }
}

struct Corpus {
    words: Vec<String>,
    hosts: Vec<String>,
}

impl Corpus {
    fn new(rng: &mut Rng) -> Corpus {
        let mut words: Vec<String> = COMMON.split_whitespace().map(str::to_owned).collect();
        for _ in 0..60_000 {
            let n = 2 + rng.below(3);
            words.push(
                (0..n)
                    .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                    .collect(),
            );
        }
        let tlds = ["com", "fr", "org", "io", "net", "de", "co.uk", "dev"];
        let hosts = (0..3_000)
            .map(|i| {
                let name: String = (0..2 + rng.below(2))
                    .map(|_| SYLLABLES[rng.below(SYLLABLES.len())])
                    .collect();
                let sub = ["www.", "", "blog.", "docs.", "fr."][i % 5];
                format!("{sub}{name}.{}", tlds[rng.below(tlds.len())])
            })
            .collect();
        Corpus { words, hosts }
    }

    fn title(&self, rng: &mut Rng) -> Vec<&str> {
        let n = 3 + rng.below(10);
        (0..n)
            .map(|_| {
                // Half the words from the common list, half from the long tail.
                if rng.below(2) == 0 {
                    self.words[rng.skewed(400)].as_str()
                } else {
                    self.words[rng.skewed(self.words.len())].as_str()
                }
            })
            .collect()
    }
}

fn history(size: usize, seed: u64) -> Vec<HistoryItem> {
    let mut rng = Rng(seed);
    let corpus = Corpus::new(&mut rng);
    let mut items: Vec<HistoryItem> = Vec::with_capacity(size);
    while items.len() < size {
        if items.len() > 10 && rng.below(100) < 15 {
            let other = items[rng.below(items.len())].clone();
            let url = match rng.below(3) {
                0 => format!("{}#section-{}", other.url, rng.below(9)),
                1 => format!("{}?utm_source=twitter&utm_medium=social", other.url),
                _ => format!("{}?fbclid=IwAR{}", other.url, rng.next() % 1_000_000),
            };
            items.push(HistoryItem { url, ..other });
            continue;
        }
        let words = corpus.title(&mut rng);
        let host = &corpus.hosts[rng.skewed(corpus.hosts.len())];
        let url = match rng.below(3) {
            0 => format!("https://{host}/{}", words.join("-")),
            1 => format!("https://{host}/item/{}", rng.next() % 100_000_000),
            _ => format!("https://{host}/search?q={}&page={}", words[0], rng.below(5)),
        };
        items.push(HistoryItem {
            url,
            title: words.join(" "),
            last_visit_ms: NOW_MS - (rng.next() % (90 * DAY_MS as u64)) as i64,
            visit_count: 1 + rng.skewed(50) as u32,
        });
    }
    items
}

/// Queries of `n` words taken from real titles: ~30% of the 5+-letter words get one typo (two
/// letters swapped), and the last word is cut short half of the time (being typed).
fn queries(items: &[HistoryItem], n: usize, count: usize, rng: &mut Rng) -> Vec<String> {
    (0..count)
        .map(|_| {
            let title = &items[rng.below(items.len())].title;
            let mut words: Vec<String> = title.split_whitespace().map(str::to_owned).collect();
            while words.len() < n {
                words.push(words[rng.below(words.len())].clone());
            }
            let start = rng.below(words.len() - n + 1);
            let mut words: Vec<String> = words[start..start + n].to_vec();
            for word in &mut words {
                let chars: Vec<char> = word.chars().collect();
                if chars.len() >= 5 && rng.below(10) < 3 {
                    let mut chars = chars;
                    let at = 1 + rng.below(chars.len() - 2);
                    chars.swap(at, at + 1);
                    *word = chars.into_iter().collect();
                }
            }
            if let Some(last) = words.last_mut() {
                let chars: Vec<char> = last.chars().collect();
                if chars.len() > 3 && rng.below(2) == 0 {
                    *last = chars[..3 + rng.below(chars.len() - 3)].iter().collect();
                }
            }
            words.join(" ")
        })
        .collect()
}

/// The process's resident memory in bytes (Linux `/proc/self/statm`), 0 elsewhere: a cross-check
/// of `Index::heap_bytes`, which counts capacities only.
fn rss_bytes() -> usize {
    std::fs::read_to_string("/proc/self/statm")
        .ok()
        .and_then(|s| s.split_whitespace().nth(1)?.parse::<usize>().ok())
        .map_or(0, |pages| pages * 4096)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    let at = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted.get(at).copied().unwrap_or(0.0)
}

fn main() {
    let sizes: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let sizes = if sizes.is_empty() {
        vec![10_000, 50_000, 100_000]
    } else {
        sizes
    };
    // One process per size, so the RSS column is not skewed by memory a previous size freed.
    if sizes.len() > 1 {
        let Ok(me) = std::env::current_exe() else {
            return eprintln!("cannot find this executable");
        };
        let mut tables: Vec<Vec<String>> = Vec::new();
        for size in &sizes {
            match std::process::Command::new(&me)
                .arg(size.to_string())
                .output()
            {
                Ok(out) => {
                    let text = String::from_utf8_lossy(&out.stdout).into_owned();
                    // Tables are separated by blank lines.
                    for (i, table) in text.split("\n\n").enumerate() {
                        let lines: Vec<String> = table.lines().map(str::to_owned).collect();
                        match tables.get_mut(i) {
                            Some(rows) => rows.extend(lines.into_iter().skip(2)),
                            None => tables.push(lines),
                        }
                    }
                }
                Err(error) => return eprintln!("cannot run {size}: {error}"),
            }
        }
        let tables: Vec<String> = tables.into_iter().map(|t| t.join("\n")).collect();
        return println!("{}", tables.join("\n\n"));
    }
    println!(
        "| entries | pages | words | build ms | save ms | bytes | load ms | heap MB | RSS Δ MB | keywords×20 ms | keywords×100 ms |"
    );
    println!("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
    let mut latency_rows = Vec::new();
    let mut update_rows = Vec::new();
    for &size in &sizes {
        let items = history(size, 0x5EED ^ size as u64);
        let rss_before = rss_bytes();
        let started = Instant::now();
        let index = Index::build(items.clone());
        let build = started.elapsed();
        let rss_index = rss_bytes().saturating_sub(rss_before);

        let started = Instant::now();
        let bytes = index.to_bytes();
        let save = started.elapsed();
        let started = Instant::now();
        let loaded = match Index::from_bytes(&bytes) {
            Ok(loaded) => loaded,
            Err(error) => return eprintln!("load failed: {error}"),
        };
        let load = started.elapsed();
        assert_eq!(loaded.len(), index.len());

        let mut rng = Rng(42);
        // AI mode: one retrieval per keyword, 10 pages each (the slot caps are 10, 5 and 2).
        let keywords: Vec<String> = queries(&items, 1, 100, &mut rng);
        let retrieve = |count: usize| {
            let started = Instant::now();
            for keyword in keywords.iter().take(count) {
                let _ = index.search_keyword(keyword, NOW_MS - 90 * DAY_MS, NOW_MS, 10);
            }
            started.elapsed()
        };
        let (k20, k100) = (retrieve(20), retrieve(100));

        println!(
            "| {size} | {} | {} | {:.0} | {:.0} | {:.1} MB | {:.0} | {:.1} | {:.1} | {:.1} | {:.1} |",
            index.len(),
            index.vocabulary_len(),
            ms(build),
            ms(save),
            bytes.len() as f64 / 1e6,
            ms(load),
            index.heap_bytes() as f64 / (1024.0 * 1024.0),
            rss_index as f64 / (1024.0 * 1024.0),
            ms(k20),
            ms(k100),
        );

        // The typo scan alone: a word of nine letters that matches nothing, one edit or not.
        let started = Instant::now();
        for _ in 0..100 {
            std::hint::black_box(index.search_keyword("zqxwvkjhg", 0, NOW_MS, 10));
        }
        let typo_us = started.elapsed().as_secs_f64() * 1e6 / 100.0;
        // Incremental updates on a copy: revisits, new pages (new words), removals.
        let mut updated = index.clone();
        let revisit: Vec<HistoryItem> = items.iter().take(200).cloned().collect();
        let started = Instant::now();
        for item in &revisit {
            updated.upsert(HistoryItem {
                last_visit_ms: NOW_MS,
                ..item.clone()
            });
        }
        let revisit_us = started.elapsed().as_secs_f64() * 1e6 / 200.0;
        let fresh: Vec<HistoryItem> = (0..200)
            .map(|i| HistoryItem {
                url: format!("https://new{i}.example/fresh-page-{i}"),
                title: format!("Brand new page number {i} about novelword{i}"),
                last_visit_ms: NOW_MS,
                visit_count: 1,
            })
            .collect();
        let started = Instant::now();
        for item in &fresh {
            updated.upsert(item.clone());
        }
        let fresh_us = started.elapsed().as_secs_f64() * 1e6 / 200.0;
        let urls: Vec<String> = fresh.iter().map(|i| i.url.clone()).collect();
        let started = Instant::now();
        for url in &urls {
            updated.remove_urls(std::slice::from_ref(url));
        }
        let remove_us = started.elapsed().as_secs_f64() * 1e6 / 200.0;
        update_rows.push((size, typo_us, revisit_us, fresh_us, remove_us));

        for n in 1..=6 {
            let mut times: Vec<f64> = queries(&items, n, 300, &mut rng)
                .iter()
                .map(|q| {
                    let started = Instant::now();
                    let hits = index.search(q, NOW_MS - 90 * DAY_MS, NOW_MS, 25);
                    let elapsed = ms(started.elapsed());
                    std::hint::black_box(hits);
                    elapsed
                })
                .collect();
            times.sort_by(f64::total_cmp);
            latency_rows.push((size, n, percentile(&times, 0.5), percentile(&times, 0.95)));
        }
    }
    println!("\n| entries | typo scan µs | upsert revisit µs | upsert new page µs | remove µs |");
    println!("|---:|---:|---:|---:|---:|");
    for (size, typo, revisit, fresh, remove) in update_rows {
        println!("| {size} | {typo:.0} | {revisit:.1} | {fresh:.1} | {remove:.1} |");
    }
    println!("\n| entries | query words | p50 ms | p95 ms |");
    println!("|---:|---:|---:|---:|");
    for (size, n, p50, p95) in latency_rows {
        println!("| {size} | {n} | {p50:.2} | {p95:.2} |");
    }
}
