//! A realistic 100-candidate set and the naive encoding it is compared with. Shared by the
//! `token_economy` example and its test (`tests/token_economy.rs`).

use history_chat_core::ai::model::ModelRequest;
use history_chat_core::ai::prompts::ranking_request;
use history_chat_core::history::{HistoryItem, Page, clean_and_merge};
use history_chat_core::period::{DAY_MS, HOUR_MS};

/// The question the sample is searched for.
pub const QUESTION: &str =
    "l'article sur les CTE récursives en Postgres que j'ai lu le mois dernier";

/// The current time of the sample (2026-05-28).
pub const NOW_MS: i64 = 1_780_000_000_000;

/// Topics, mixed English and French: (slug words, title words).
const TOPICS: &[(&str, &str)] = &[
    ("recursive-cte", "Recursive CTEs"),
    ("cte-recursives", "CTE récursives"),
    ("postgresql-performance", "PostgreSQL performance tuning"),
    ("tarte-tatin", "Tarte tatin"),
    ("velo-electrique", "Vélo électrique"),
    ("rust-async", "Async Rust"),
    ("impots-declaration", "Déclaration d'impôts 2026"),
    ("kubernetes-ingress", "Kubernetes Ingress"),
    ("vacances-bretagne", "Vacances en Bretagne"),
    ("sql-window-functions", "SQL window functions"),
];

/// (raw URL with `{slug}`, `{n}` and `{m}` placeholders, title with `{title}`). Real shapes: long
/// paths, ids, query strings (tracking parameters included, which cleaning removes).
const TEMPLATES: &[(&str, &str)] = &[
    (
        "https://stackoverflow.com/questions/{n}/how-to-write-{slug}-query-with-conditions",
        "{title}: how to write the query with several conditions? - Stack Overflow",
    ),
    (
        "https://www.youtube.com/watch?v=kH3{m}Ytq2Ck&t={n}s&utm_source=newsletter",
        "{title} — the complete guide (2026) [FR/EN subtitles] - YouTube",
    ),
    (
        "https://www.lemonde.fr/economie/article/2026/03/14/{slug}-ce-qui-change-cette-annee-pour-les-menages_{n}_3234.html",
        "{title} : ce qui change cette année pour les ménages",
    ),
    (
        "https://github.com/rust-lang/rust/issues/{n}?utm_campaign=digest",
        "{title}: tracking issue for stabilisation · Issue #{n} · rust-lang/rust",
    ),
    (
        "https://www.amazon.fr/{slug}-Professional-Edition-Livraison-Gratuite/dp/B07QXK{m}TH/ref=sr_1_5?crid=2XKQ3V&keywords={slug}&qid=1712345678&sr=8-5",
        "Amazon.fr : {title} - Édition professionnelle, livraison gratuite, garantie 2 ans, retours gratuits",
    ),
    (
        "https://fr.wikipedia.org/wiki/{slug}#Histoire",
        "{title} — Wikipédia",
    ),
    (
        "https://medium.com/@dev.notes/{slug}-explained-with-real-world-examples-{m}f3a9c2?source=rss----{n}---4",
        "{title} explained with real-world examples | by Dev Notes | Medium",
    ),
    (
        "https://www.postgresql.org/docs/current/{slug}.html",
        "PostgreSQL: Documentation: 18: {title}",
    ),
    (
        "https://www.marmiton.org/recettes/recette_{slug}_{n}.aspx?fbclid=IwAR3xk{m}",
        "{title} facile et rapide : la meilleure recette - Marmiton",
    ),
    (
        "https://www.reddit.com/r/programming/comments/1b{m}x/{slug}_what_i_learned_after_two_years/",
        "{title}: what I learned after two years in production : r/programming",
    ),
    (
        "https://www.booking.com/hotel/fr/{slug}.fr.html?aid=304142&label=gen173nr-1FCAEoggI46AdIM1gEaE2IAQGYAQ24AQfIAQzYAQHoAQH4AQKIAgGoAgO4&checkin=2026-05-01&checkout=2026-05-04&group_adults=2",
        "{title} – Hôtel, Réservation en ligne, Meilleurs prix garantis – Booking.com",
    ),
    (
        "https://news.ycombinator.com/item?id={n}",
        "{title} | Hacker News",
    ),
];

/// A small deterministic generator (64-bit LCG), so every run measures the same pages.
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
}

/// 100 cleaned, distinct candidates with real-looking titles and URLs, visited over 90 days.
pub fn candidates() -> Vec<Page> {
    let mut rng = Lcg(42);
    let mut items = Vec::new();
    for i in 0.. {
        let (url, title) = TEMPLATES[(rng.next() as usize) % TEMPLATES.len()];
        let (slug, topic) = TOPICS[(rng.next() as usize) % TOPICS.len()];
        let n = 10_000_000 + rng.next() % 90_000_000;
        let m = rng.next() % 10_000;
        let fill = |text: &str| {
            text.replace("{slug}", slug)
                .replace("{title}", topic)
                .replace("{n}", &n.to_string())
                .replace("{m}", &m.to_string())
        };
        let ago = (rng.next() as i64) % (90 * DAY_MS / HOUR_MS) * HOUR_MS;
        items.push(HistoryItem {
            url: fill(url),
            title: fill(title),
            last_visit_ms: NOW_MS - ago,
            visit_count: 1 + (i % 4),
        });
        let pages = clean_and_merge(items.clone());
        if pages.len() == 100 {
            return pages;
        }
    }
    unreachable!("the generator is endless")
}

/// The ranking request with the candidates as naive JSON instead of compact lines: full URLs, full
/// titles, absolute times, one object each.
pub fn naive_ranking_request(question: &str, candidates: &[Page], model: &str) -> ModelRequest {
    let mut request = ranking_request(question, candidates, NOW_MS, model);
    let naive: Vec<serde_json::Value> = candidates
        .iter()
        .map(|page| {
            serde_json::json!({
                "url": page.url,
                "title": page.title,
                "lastVisitTime": page.last_visit_ms,
            })
        })
        .collect();
    let (head, _) = request
        .prompt
        .split_once("Candidates (id|age|title|url):")
        .unwrap_or((&request.prompt, ""));
    request.prompt = format!(
        "{head}Candidates (JSON, the id is the position from 1):\n{}",
        serde_json::to_string(&naive).unwrap_or_default()
    );
    request
}
