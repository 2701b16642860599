//! Synthetic, realistic histories shared by `index_bench` (native) and the
//! `history-chat-wasm-bench` crate (WebAssembly, timed in Chromium).

use history_chat_core::history::HistoryItem;

pub const NOW_MS: i64 = 1_796_083_200_000;
pub const DAY_MS: i64 = 86_400_000;

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

pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    pub fn below(&mut self, n: usize) -> usize {
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

pub fn history(size: usize, seed: u64) -> Vec<HistoryItem> {
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
pub fn queries(items: &[HistoryItem], n: usize, count: usize, rng: &mut Rng) -> Vec<String> {
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
