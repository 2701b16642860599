//! Writes `eval/history.json`: the evaluation history, generated deterministically.
//!
//! `cargo run -p history-chat-core --example gen_eval` (only needed when this generator changes; the
//! JSON is committed so a browser-based run can reuse it). About 60 target pages (the ones
//! `eval/queries.json` looks for), their raw duplicates (tracking parameters, fragments, mobile
//! hosts), and over a thousand noise pages from realistic templates — docs, Q&A, news in English and
//! French, shopping, social, recipes — many sharing words with the targets.

use std::fmt::Write as _;

use history_chat_core::retrieval::eval::{EvalEntry, EvalHistory};

/// `now` of the evaluation: 2026-11-30 00:00 UTC.
const NOW_MS: i64 = 1_796_083_200_000;
/// Chrome keeps about 90 days.
const MAX_AGE_MIN: u64 = 90 * 24 * 60;

/// The pages the queries look for: (cleaned URL, title).
const TARGETS: &[(&str, &str)] = &[
    (
        "https://blog.sqlcraft.dev/posts/recursive-ctes-cycles",
        "Recursive CTEs: handling cycles in PostgreSQL",
    ),
    (
        "https://www.lemonde.fr/gastronomie/article/2026/09/12/les-meilleurs-cafes-de-paris_612345.html",
        "Les meilleurs cafés de Paris pour travailler",
    ),
    (
        "https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Promise/allSettled",
        "Promise.allSettled() - JavaScript | MDN",
    ),
    (
        "https://doc.rust-lang.org/book/ch15-05-interior-mutability.html",
        "RefCell<T> and the Interior Mutability Pattern - The Rust Programming Language",
    ),
    (
        "https://www.marmiton.org/recettes/recette_tarte-tatin-facile_12345.aspx",
        "Tarte tatin facile : la recette de Marmiton",
    ),
    (
        "https://stackoverflow.com/questions/11227809/why-is-processing-a-sorted-array-faster-than-processing-an-unsorted-array",
        "Why is processing a sorted array faster than processing an unsorted array? - Stack Overflow",
    ),
    (
        "https://www.amazon.fr/dp/B0C1234567",
        "Casque à réduction de bruit Sony WH-1000XM5 : Amazon.fr: High-Tech",
    ),
    (
        "https://www.youtube.com/watch?v=abc123XYZ",
        "Comment réparer une chambre à air de vélo - YouTube",
    ),
    (
        "https://www.reddit.com/r/MechanicalKeyboards/comments/xyz123/first_build_gateron_switches/",
        "My first build with Gateron switches : r/MechanicalKeyboards",
    ),
    (
        "https://www.bbc.com/news/science-environment-12345678",
        "Glaciers in the Alps are melting faster than expected - BBC News",
    ),
    (
        "https://fr.wikipedia.org/wiki/Th%C3%A9or%C3%A8me_de_Pythagore",
        "Théorème de Pythagore — Wikipédia",
    ),
    (
        "https://en.wikipedia.org/wiki/Byzantine_fault",
        "Byzantine fault - Wikipedia",
    ),
    (
        "https://www.service-public.fr/particuliers/vosdroits/F1342",
        "Renouvellement du passeport : démarches - Service-public.fr",
    ),
    (
        "https://kubernetes.io/docs/concepts/workloads/pods/pod-lifecycle/",
        "Pod Lifecycle | Kubernetes",
    ),
    (
        "https://www.seloger.com/annonces/achat/appartement/lyon-3eme-69/123456.htm",
        "Appartement 3 pièces à vendre Lyon 3ème - SeLoger",
    ),
    (
        "https://github.com/tokio-rs/tokio/issues/4567",
        "Runtime panics when dropping a JoinHandle inside a blocking task · Issue #4567 · tokio-rs/tokio",
    ),
    (
        "https://www.allocine.fr/film/fichefilm_gen_cfilm=123456.html",
        "Anatomie d'une chute - film 2023 - AlloCiné",
    ),
    (
        "https://news.ycombinator.com/item?id=40123456",
        "Show HN: I built a sourdough starter monitor with an ESP32 | Hacker News",
    ),
    (
        "https://www.leboncoin.fr/velos/2345678901.htm",
        "Vélo électrique Décathlon Rockrider E-ST100 - Vélos",
    ),
    (
        "https://www.theguardian.com/lifeandstyle/2026/oct/03/how-to-sleep-better-science",
        "How to sleep better: what the science says | The Guardian",
    ),
    (
        "https://docs.python.org/3/library/asyncio-task.html",
        "Coroutines and Tasks — Python 3.13 documentation",
    ),
    (
        "https://www.doctolib.fr/dentiste/bordeaux/marie-dupont",
        "Dr Marie Dupont, Dentiste à Bordeaux - Prenez rendez-vous - Doctolib",
    ),
    (
        "https://www.sncf-connect.com/train/horaires/paris/marseille",
        "Horaires des trains Paris - Marseille | SNCF Connect",
    ),
    (
        "https://www.nytimes.com/2026/08/14/well/eat/mediterranean-diet-heart.html",
        "The Mediterranean Diet and Your Heart - The New York Times",
    ),
    (
        "https://martinfowler.com/articles/microservices.html",
        "Microservices - Martin Fowler",
    ),
    (
        "https://www.lequipe.fr/Football/Actualites/le-psg-s-impose-face-a-lyon/1234567",
        "Le PSG s'impose face à Lyon au Parc des Princes - L'Équipe",
    ),
    (
        "https://www.ikea.com/fr/fr/p/billy-bibliotheque-blanc-00263850/",
        "BILLY Bibliothèque, blanc - IKEA",
    ),
    (
        "https://www.postgresql.org/docs/current/indexes-partial.html",
        "PostgreSQL: Documentation: 17: 11.8. Partial Indexes",
    ),
    (
        "https://www.figma.com/community/file/123/design-system-tokens",
        "Design system tokens starter kit | Figma Community",
    ),
    (
        "https://meteofrance.com/previsions-meteo-france/grenoble/38000",
        "Météo Grenoble - Prévisions à 15 jours - Météo-France",
    ),
    (
        "https://www.journaldesfemmes.fr/cuisine/recettes/1234-gratin-dauphinois",
        "Gratin dauphinois traditionnel : recette facile",
    ),
    (
        "https://www.cnil.fr/fr/cookies-et-autres-traceurs",
        "Cookies et autres traceurs : que dit la loi ? | CNIL",
    ),
    (
        "https://arxiv.org/abs/1706.03762",
        "[1706.03762] Attention Is All You Need",
    ),
    (
        "https://www.boulanger.com/ref/lave-linge-bosch-serie-6",
        "Lave-linge hublot Bosch Série 6 - Boulanger",
    ),
    (
        "https://www.airbnb.fr/rooms/12345678",
        "Chalet avec vue sur le Mont-Blanc à Chamonix - Airbnb",
    ),
    (
        "https://react.dev/reference/react/useEffect",
        "useEffect – React",
    ),
    (
        "https://www.lefigaro.fr/economie/la-bce-baisse-ses-taux-directeurs-20261015",
        "La BCE baisse ses taux directeurs pour la troisième fois - Le Figaro",
    ),
    (
        "https://www.instagram.com/p/Cxyz123/",
        "Coucher de soleil sur les calanques de Marseille • Instagram",
    ),
    (
        "https://www.linkedin.com/jobs/view/3812345678/",
        "Senior Rust Engineer - Remote - LinkedIn",
    ),
    (
        "https://www.goodreads.com/book/show/12345.The_Left_Hand_of_Darkness",
        "The Left Hand of Darkness by Ursula K. Le Guin | Goodreads",
    ),
    (
        "https://www.ameli.fr/assure/remboursements/rembourse/medicaments",
        "Remboursement des médicaments | ameli.fr | Assuré",
    ),
    (
        "https://www.francetvinfo.fr/monde/europe/elections-legislatives-en-allemagne_123456.html",
        "Élections législatives en Allemagne : les résultats en direct - Franceinfo",
    ),
    (
        "https://www.decathlon.fr/p/tente-de-camping-2-seconds-3-places/_/R-p-123",
        "Tente de camping 2 Seconds 3 places - Decathlon",
    ),
    (
        "https://www.w3.org/TR/WCAG22/",
        "Web Content Accessibility Guidelines (WCAG) 2.2",
    ),
    (
        "https://tailwindcss.com/docs/grid-template-columns",
        "Grid Template Columns - Tailwind CSS",
    ),
    (
        "https://www.larousse.fr/dictionnaires/francais/%C3%A9ph%C3%A9m%C3%A8re/30143",
        "Définitions : éphémère - Dictionnaire de français Larousse",
    ),
    (
        "https://www.booking.com/hotel/fr/les-jardins-de-megeve.fr.html",
        "Hôtel Les Jardins de Megève - Booking.com",
    ),
    (
        "https://blog.cloudflare.com/how-we-built-pingora/",
        "How we built Pingora, the proxy that connects Cloudflare to the Internet",
    ),
    (
        "https://www.economist.com/finance-and-economics/2026/09/inflation-expectations",
        "Why inflation expectations matter so much",
    ),
    (
        "https://www.rust-lang.org/learn/get-started",
        "Getting started - Rust Programming Language",
    ),
];

/// Technology words for docs and Q&A noise.
const TECH: &[&str] = &[
    "Rust",
    "Python",
    "JavaScript",
    "TypeScript",
    "SQL",
    "PostgreSQL",
    "Kubernetes",
    "Docker",
    "React",
    "CSS",
    "Git",
    "Linux",
    "Go",
    "Java",
    "Node.js",
    "Redis",
    "MySQL",
    "Tailwind",
    "Vue",
    "WebAssembly",
];
const TECH_TOPICS: &[&str] = &[
    "recursive functions",
    "error handling",
    "async functions",
    "indexes",
    "performance tips",
    "lifecycle hooks",
    "interior design patterns",
    "sorting arrays",
    "handling timeouts",
    "memory leaks",
    "unit testing",
    "pattern matching",
    "window functions",
    "common table expressions",
    "promises",
    "coroutines",
    "deployments",
    "services",
    "grid layout",
    "cycles in graphs",
    "mutability",
    "the borrow checker",
    "proxy configuration",
    "caching strategies",
    "design tokens",
    "accessibility",
    "microservices",
    "partial updates",
    "task scheduling",
    "starter templates",
];
const QUESTIONS: &[&str] = &[
    "How to fix",
    "Why does",
    "What is the best way to handle",
    "How do I debug",
    "Is it possible to avoid",
    "How to detect",
];
const DOC_SITES: &[(&str, &str)] = &[
    ("https://developer.mozilla.org/en-US/docs/Web/", "MDN"),
    ("https://docs.rs/", "Docs.rs"),
    ("https://www.w3schools.com/", "W3Schools"),
    ("https://dev.to/", "DEV Community"),
    ("https://medium.com/@dev/", "Medium"),
    ("https://www.geeksforgeeks.org/", "GeeksforGeeks"),
    ("https://www.baeldung.com/", "Baeldung"),
];
const NEWS_EN: &[(&str, &str)] = &[
    ("https://www.bbc.com/news/", "BBC News"),
    ("https://www.theguardian.com/world/2026/", "The Guardian"),
    ("https://www.nytimes.com/2026/", "The New York Times"),
    ("https://www.reuters.com/world/", "Reuters"),
];
const NEWS_EN_SUBJECTS: &[&str] = &[
    "Glaciers",
    "Inflation",
    "Elections",
    "Heatwave",
    "Central bank",
    "Football club",
    "Tech giant",
    "Scientists",
    "Diet study",
    "Sleep researchers",
    "Housing market",
    "Train strike",
];
const NEWS_EN_EVENTS: &[&str] = &[
    "hit record levels in Europe",
    "are changing faster than expected",
    "raises interest rates again",
    "warns about new risks",
    "says the heart benefits are real",
    "faces a difficult winter",
    "cuts jobs after slow sales",
    "sparks protests across the country",
    "wins the final in Paris",
    "explains what the science says",
];
const NEWS_FR: &[(&str, &str)] = &[
    ("https://www.lemonde.fr/societe/article/2026/", "Le Monde"),
    ("https://www.lefigaro.fr/actualite-france/", "Le Figaro"),
    ("https://www.francetvinfo.fr/france/", "Franceinfo"),
    ("https://www.liberation.fr/societe/", "Libération"),
    ("https://www.ouest-france.fr/", "Ouest-France"),
];
const NEWS_FR_SUBJECTS: &[&str] = &[
    "La BCE",
    "Le gouvernement",
    "Les élections municipales",
    "La canicule",
    "Le PSG",
    "Les cafés parisiens",
    "La SNCF",
    "Les prix de l'immobilier",
    "Les médecins",
    "Le passeport",
    "La météo",
    "Les glaciers des Alpes",
];
const NEWS_FR_EVENTS: &[&str] = &[
    "inquiète les économistes",
    "bat un nouveau record",
    "annonce une réforme des retraites",
    "face à la hausse des prix",
    "les résultats en direct",
    "ce qu'il faut savoir",
    "une grève prévue ce week-end",
    "les horaires changent",
    "à Lyon et Marseille",
    "démarches et délais",
];
const PRODUCTS: &[&str] = &[
    "Casque Bluetooth JBL Tune 510BT",
    "Écouteurs sans fil Sony WF-C500",
    "Vélo de ville Elops 520",
    "Lave-vaisselle Bosch Série 4",
    "Bibliothèque KALLAX blanc",
    "Tente de randonnée 2 places",
    "Chambre à air 700x35",
    "Clavier mécanique Keychron K2",
    "Switches Gateron Yellow (x90)",
    "Cafetière italienne Bialetti",
    "Livre : Dune, Frank Herbert",
    "Chaussures de trail Salomon",
    "Lampe de bureau LED",
    "Réveil lumineux Philips",
    "Casserole inox 20 cm",
];
const SHOPS: &[(&str, &str)] = &[
    ("https://www.amazon.fr/dp/", "Amazon.fr"),
    ("https://www.fnac.com/a", "Fnac"),
    ("https://www.cdiscount.com/f-", "Cdiscount"),
    ("https://www.decathlon.fr/p/", "Decathlon"),
    ("https://www.leboncoin.fr/ad/", "leboncoin"),
];
const VIDEOS: &[&str] = &[
    "Réparer une crevaison en 5 minutes",
    "Lofi hip hop radio - beats to relax/study to",
    "How to build a mechanical keyboard",
    "Recette de la pâte à crêpes",
    "Rust in 100 seconds",
    "Comment changer une roue de vélo",
    "Kubernetes explained in 15 minutes",
    "Les calanques de Marseille en drone 4K",
    "Sourdough bread for beginners",
    "Why sorting makes code faster",
    "Apprendre le théorème de Pythagore",
    "Cours de guitare débutant",
];
const SUBREDDITS: &[&str] = &[
    "rust",
    "france",
    "MechanicalKeyboards",
    "Cooking",
    "programming",
    "bicycling",
    "sourdough",
    "kubernetes",
    "paris",
    "personalfinance",
];
const REDDIT_POSTS: &[&str] = &[
    "Weekly discussion thread",
    "What are your favourite switches?",
    "First time making tarte tatin",
    "Help with recursive query",
    "Best cafés to work from?",
    "My bike tire keeps going flat",
    "Finally understood the borrow checker",
    "Pod stuck in CrashLoopBackOff",
    "Is the Mediterranean diet worth it?",
    "Sleep tips that actually work",
];
const DISHES: &[&str] = &[
    "Tarte aux pommes",
    "Tarte au citron meringuée",
    "Gratin de courgettes",
    "Crêpes faciles",
    "Gratin de pâtes",
    "Tarte fine aux tomates",
    "Quiche lorraine",
    "Boeuf bourguignon",
    "Gâteau au chocolat",
    "Ratatouille",
    "Tarte tatin aux poires",
    "Soupe de potiron",
];
const RECIPE_SITES: &[(&str, &str)] = &[
    ("https://www.marmiton.org/recettes/recette_", "Marmiton"),
    (
        "https://cuisine.journaldesfemmes.fr/recette/",
        "Journal des Femmes Cuisine",
    ),
    ("https://www.750g.com/", "750g"),
];
const SERVICES: &[(&str, &str)] = &[
    (
        "https://www.service-public.fr/particuliers/vosdroits/F",
        "Carte d'identité : démarches - Service-public.fr",
    ),
    (
        "https://www.ameli.fr/assure/",
        "Mon compte ameli | ameli.fr",
    ),
    (
        "https://www.doctolib.fr/medecin-generaliste/lyon/",
        "Médecin généraliste à Lyon - Doctolib",
    ),
    (
        "https://www.sncf-connect.com/train/horaires/lyon/",
        "Horaires des trains Lyon - Grenoble | SNCF Connect",
    ),
    (
        "https://meteofrance.com/previsions-meteo-france/lyon/",
        "Météo Lyon - Prévisions - Météo-France",
    ),
    (
        "https://www.impots.gouv.fr/particulier/",
        "Déclarer mes revenus | impots.gouv.fr",
    ),
    (
        "https://mail.google.com/mail/u/0/#inbox/",
        "Boîte de réception (3) - Gmail",
    ),
    (
        "https://calendar.google.com/calendar/r/week/",
        "Google Agenda - Semaine",
    ),
];

/// A small deterministic generator (xorshift64*): the same file on every run and machine.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len())]
    }
    fn visits(&mut self) -> Vec<i64> {
        let count = 1
            + self.below(4)
            + if self.below(8) == 0 {
                self.below(20)
            } else {
                0
            };
        (0..count)
            .map(|_| (self.next() % MAX_AGE_MIN) as i64)
            .collect()
    }
}

fn slug(text: &str) -> String {
    let mut out = String::new();
    for c in text.to_lowercase().chars() {
        if c.is_ascii_alphanumeric() {
            out.push(c);
        } else if !out.ends_with('-') {
            out.push('-');
        }
    }
    out.trim_matches('-').to_owned()
}

fn main() {
    let mut rng = Rng(0x9E37_79B9_7F4A_7C15);
    let mut entries: Vec<EvalEntry> = Vec::new();
    let mut push = |url: String, title: String, visits: Vec<i64>| {
        entries.push(EvalEntry {
            url,
            title,
            visits_ago_min: visits,
        })
    };
    for (url, title) in TARGETS {
        push(url.to_string(), title.to_string(), rng.visits());
        // Raw duplicates that clean to the same page.
        match rng.below(4) {
            0 => push(format!("{url}#comments"), title.to_string(), rng.visits()),
            1 => push(
                format!(
                    "{url}{}utm_source=newsletter&utm_medium=email",
                    if url.contains('?') { '&' } else { '?' }
                ),
                title.to_string(),
                rng.visits(),
            ),
            _ => {}
        }
    }
    for i in 0..300 {
        let tech = *rng.pick(TECH);
        let topic = *rng.pick(TECH_TOPICS);
        let (site, name) = *rng.pick(DOC_SITES);
        let title = match i % 3 {
            0 => format!("{tech} {topic} - {name}"),
            1 => format!("A guide to {topic} in {tech} | {name}"),
            _ => format!("{topic} ({tech}) — tutorial and examples - {name}"),
        };
        let url = format!("{site}{}/{}-{i}", slug(tech), slug(topic));
        push(url, title, rng.visits());
    }
    for i in 0..170 {
        let q = *rng.pick(QUESTIONS);
        let tech = *rng.pick(TECH);
        let topic = *rng.pick(TECH_TOPICS);
        let title = format!("{q} {topic} in {tech}? - Stack Overflow");
        let id = 20_000_000 + i * 7_919;
        let url = format!(
            "https://stackoverflow.com/questions/{id}/{}",
            slug(&format!("{q} {topic} in {tech}"))
        );
        push(url.clone(), title.clone(), rng.visits());
        if i % 5 == 0 {
            push(format!("{url}#answer-{}", id + 1), title, rng.visits());
        }
    }
    for i in 0..150 {
        let (site, name) = *rng.pick(NEWS_EN);
        let title = format!(
            "{} {} - {name}",
            rng.pick(NEWS_EN_SUBJECTS),
            rng.pick(NEWS_EN_EVENTS)
        );
        let url = format!("{site}{}-{}", slug(&title), 60_000_000 + i);
        push(url, title, rng.visits());
    }
    for i in 0..150 {
        let (site, name) = *rng.pick(NEWS_FR);
        let title = format!(
            "{} {} - {name}",
            rng.pick(NEWS_FR_SUBJECTS),
            rng.pick(NEWS_FR_EVENTS)
        );
        let url = format!("{site}{}_{}.html", slug(&title), 6_100_000 + i);
        push(url, title, rng.visits());
    }
    for i in 0..120 {
        let (site, name) = *rng.pick(SHOPS);
        let product = *rng.pick(PRODUCTS);
        let title = format!("{product} : {name}");
        let mut url = format!("{site}B0{:08X}", 0x1000_0000 + i * 977);
        if rng.below(3) == 0 {
            let _ = write!(
                url,
                "?ref=sr_1_{}&keywords={}",
                i % 9,
                slug(product).replace('-', "+")
            );
        }
        push(url, title, rng.visits());
    }
    for i in 0..160 {
        match i % 3 {
            0 => {
                let title = format!("{} - YouTube", rng.pick(VIDEOS));
                let url = format!(
                    "https://www.youtube.com/watch?v=v{:010x}",
                    rng.next() % (1 << 40)
                );
                push(url, title, rng.visits());
            }
            1 => {
                let sub = *rng.pick(SUBREDDITS);
                let post = *rng.pick(REDDIT_POSTS);
                let title = format!("{post} : r/{sub}");
                let url = format!(
                    "https://www.reddit.com/r/{sub}/comments/{:06x}/{}/",
                    rng.next() % (1 << 24),
                    slug(post).replace('-', "_")
                );
                push(url, title, rng.visits());
            }
            _ => {
                let post = *rng.pick(REDDIT_POSTS);
                let title = format!("Alex on X: \"{post}\" / X");
                let url = format!(
                    "https://x.com/alex/status/18{:016}",
                    rng.next() % 10_u64.pow(16)
                );
                push(url, title, rng.visits());
            }
        }
    }
    for i in 0..80 {
        let (site, name) = *rng.pick(RECIPE_SITES);
        let dish = *rng.pick(DISHES);
        let title = format!("{dish} : la recette facile - {name}");
        let url = format!("{site}{}_{}.aspx", slug(dish).replace('-', "_"), 10_000 + i);
        push(url, title, rng.visits());
    }
    for i in 0..60 {
        let (site, title) = *rng.pick(SERVICES);
        let url = format!("{site}{}", 1000 + i);
        push(url, title.to_owned(), rng.visits());
    }
    // Search pages and browser pages: never shown, never indexed.
    for i in 0..40 {
        let topic: &str = rng.pick::<&str>(TECH_TOPICS);
        let words = slug(topic).replace('-', "+");
        push(
            format!("https://www.google.com/search?q={words}&oq={words}&sourceid=chrome"),
            format!("{} - Google Search", words.replace('+', " ")),
            rng.visits(),
        );
        if i % 4 == 0 {
            push(
                "chrome://newtab/".to_owned(),
                "New Tab".to_owned(),
                rng.visits(),
            );
        }
    }
    let history = EvalHistory {
        now_ms: NOW_MS,
        entries,
    };
    // One entry per line: readable diffs, a third of the pretty-printed size.
    let mut json = format!("{{\n  \"nowMs\": {},\n  \"entries\": [\n", history.now_ms);
    for (i, entry) in history.entries.iter().enumerate() {
        let Ok(line) = serde_json::to_string(entry) else {
            eprintln!("cannot serialise an entry");
            std::process::exit(1);
        };
        let comma = if i + 1 < history.entries.len() {
            ","
        } else {
            ""
        };
        let _ = writeln!(json, "    {line}{comma}");
    }
    json.push_str("  ]\n}");
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/eval/history.json");
    if let Err(error) = std::fs::write(path, json + "\n") {
        eprintln!("cannot write {path}: {error}");
        std::process::exit(1);
    }
    println!("{} entries written to {path}", history.entries.len());
}
