//! The index's tokenisation, pinned.
//!
//! A saved index holds the words [`page_words`] produced when its pages were indexed; a loaded one
//! is updated page by page, never re-tokenised as a whole. A change to what [`page_words`] emits
//! (folding, splitting, stop words, the noise lists, the URL's split, the title's cut — or a new
//! Unicode table in std or `unicode-normalization`) would leave an old snapshot with words the new
//! code never produces: queries folded the new way would miss its pages, and removing a page
//! (which re-tokenises its title and URL to find its words) would leave some behind. Such a change
//! must come with a new [`FORMAT_VERSION`], so that every old snapshot is rebuilt.
//!
//! Two tests hold that rule: [`tokenisation_snapshot`] shows the words of a fixed, varied table of
//! pages ([`PAGES`]), so a change is visible in review (`UPDATE_EXPECT=1 cargo test` rewrites
//! it); [`format_version_matches_tokenisation`] keeps the same output's fingerprint for each
//! format version ([`FINGERPRINTS`]) and fails until the version is bumped and its fingerprint
//! added. Do not edit [`PAGES`]: every fingerprint was taken over it. New cases belong in
//! `index/tests.rs`.

use std::fmt::Write as _;

use expect_test::expect;

use super::text::Scratch;
use super::{FORMAT_VERSION, Field, page_words};

/// Titles and cleaned URLs (as [`crate::clean::clean_url`] writes them: punycode hosts,
/// percent-encoded paths, sorted queries, no fragment), chosen to cross every rule of the
/// tokenisation at least once.
const PAGES: &[(&str, &str)] = &[
    // English, stop words, file-type path noise, `www` and the TLD.
    (
        "How to write recursive CTEs in PostgreSQL",
        "https://www.postgresql.org/docs/current/queries-with.html",
    ),
    // French accents and ligatures, snake_case and digits in the path, `.aspx`.
    (
        "Café crème & œufs brouillés — Recette facile",
        "https://www.marmiton.org/recettes/recette_oeufs-brouilles_12345.aspx",
    ),
    (
        "Les meilleures recettes de la cuisine française : l'été, d'aujourd'hui",
        "https://www.cuisine.fr/",
    ),
    // German ß and umlauts, in the title and percent-encoded in the path; a punycode host.
    (
        "Straße und Größe: Übersicht der Maße",
        "https://de.wikipedia.org/wiki/Stra%C3%9Fe",
    ),
    (
        "Bücher online kaufen",
        "https://www.xn--bcher-kva.de/kategorie/b%C3%BCcher",
    ),
    // Nordic, Polish and Turkish letters that NFKD leaves whole, Greek, Cyrillic.
    (
        "Søren Kierkegaard, Łódź, Ærø, Đakovo, Istanbul'da kış",
        "https://example.eu/places",
    ),
    ("Καλημέρα κόσμε — Привет, мир!", "https://example.gr/"),
    // CJK, Korean, Thai and Devanagari (whose vowel signs are combining marks).
    (
        "東京の天気予報 - 日本気象協会",
        "https://tenki.jp/forecast/3/16/4410/13101/",
    ),
    (
        "안녕하세요 세계 · สวัสดีชาวโลก · नमस्ते दुनिया",
        "https://example.asia/hello",
    ),
    // Arabic, in the title and percent-encoded in the path.
    (
        "مرحبا بالعالم - ويكيبيديا",
        "https://ar.wikipedia.org/wiki/%D9%85%D8%B1%D8%AD%D8%A8%D8%A7",
    ),
    // Emoji, inside and between words.
    (
        "🚀 Launch day! 🎉 Our new app✨is here 👩\u{200d}💻",
        "https://blog.example.com/posts/launch-day",
    ),
    // camelCase, acronyms, letter/digit boundaries.
    (
        "XMLHttpRequest.getAllResponseHeaders() - Web APIs | MDN",
        "https://developer.mozilla.org/en-US/docs/Web/API/XMLHttpRequest/getAllResponseHeaders",
    ),
    (
        "snake_case_function_name, camelCaseName, html5, ES2015, x86_64, iPhone15Pro",
        "https://github.com/rust-lang/rust/issues/123456?tab=comments",
    ),
    // Digit runs around MAX_DIGITS, versions, words around MAX_WORD_CHARS.
    (
        "Order 20240131 #98765432 id 123456 v18.17.0 (2024) Supercalifragilisticexpialidocious",
        "https://shop.example.co.uk/orders/20240131/98765432?ref=abc123def456&token=QmFzZTY0RW5jb2RlZEJsb2JPZkRhdGE",
    ),
    // Compatibility forms: ligatures, fullwidth, circled and fraction digits, a digraph.
    (
        "ﬁnancial ﬂow Ǆungla ＡＢＣ１２３ ½ ① ℌ",
        "https://example.com/nfkd",
    ),
    // Percent-encoded path and query values, `+` as a space in the query only, `%2B`.
    (
        "",
        "https://maps.example.fr/place/Caf%C3%A9+de+Flore/@48.85,2.33?hl=fr&q=caf%C3%A9+de+flore",
    ),
    (
        "Search results",
        "https://search.example.org/results?empty=&flag&lang=&q=c%2B%2B+templates&sort=date",
    ),
    // Escapes that are not UTF-8, or not escapes at all.
    (
        "Report",
        "https://example.com/files/%FFbad%zz%4/report%20final.pdf?name=%C3x%E9t%C3%A9",
    ),
    // IP hosts, ports, userinfo, a single-label host.
    ("Router admin", "http://192.168.1.1/admin/status.cgi"),
    ("Dashboard", "http://[2001:db8::1]:8080/dashboard/Index.php"),
    (
        "Local dev server",
        "http://localhost:3000/api/v2/users?id=42",
    ),
    (
        "Private",
        "https://user:secret@intranet.example.com:8443/wiki/Home",
    ),
    // Host noise: mobile and AMP prefixes, `.co.uk` / `.com.au`.
    (
        "BBC News - Europe",
        "https://www.bbc.co.uk/news/world-europe-12345678",
    ),
    ("Rustaceans", "https://m.facebook.com/groups/rustaceans"),
    (
        "Guardian",
        "https://amp.theguardian.com/world/2024/jan/01/story",
    ),
    (
        "ABC",
        "https://mobile.abc.net.au/news/2024-01-01/story/103280000",
    ),
    // Control characters, odd whitespace, apostrophes and hyphens.
    (
        "Tab\tseparated\nlines\u{a0}and\u{200b}zero-width — what's new in node.js?",
        "https://nodejs.org/en/blog/release/v20.0.0",
    ),
    // Nothing to index.
    ("", "https://example.org/"),
    ("— · — ... !!!", "https://www.example.com/index.html"),
    // A title longer than score::MAX_TITLE_BYTES, cut on a character boundary.
    (
        "Une très longue histoire de la gastronomie française, racontée région par région : \
         Alsace, Aquitaine, Auvergne, Bourgogne, Bretagne, Centre-Val de Loire, Champagne, Corse, \
         Franche-Comté, Île-de-France, Languedoc, Limousin, Lorraine, Midi-Pyrénées, Nord, \
         Normandie, Pays de la Loire, Picardie, Poitou-Charentes, Provence-Alpes-Côte d'Azur, \
         Rhône-Alpes, et enfin les départements et régions d'outre-mer : Guadeloupe, Martinique, \
         Guyane, La Réunion, Mayotte — avec leurs recettes, leurs vins et leurs fromages",
        "https://www.gastronomie.example.fr/histoire/regions",
    ),
];

/// FNV-1a fingerprint (64-bit) of the words of [`PAGES`] ([`fingerprint`]) for each format version,
/// oldest first. A version that changed only the saved body, not the words, repeats its
/// predecessor's fingerprint. Entries are never edited: a new version adds its own.
// Version 2 changed the body (the kept mark of each history URL), not the tokenisation.
const FINGERPRINTS: &[(u16, u64)] = &[(1, 0xb1dc_8142_f0c6_fd7b), (2, 0xb1dc_8142_f0c6_fd7b)];

/// What [`page_words`] emits for one page, in order.
fn words(scratch: &mut Scratch, title: &str, url: &str) -> Vec<(Field, String)> {
    let mut out = Vec::new();
    page_words(scratch, title, url, |word, field| {
        out.push((field, word.to_owned()));
    });
    out
}

/// The snapshot: each page's title and URL, then one line per run of words from the same field.
/// Control characters, whitespace other than a space, and zero-width characters in titles are
/// written as escapes, to keep one page per line and every character visible.
fn snapshot() -> String {
    let mut scratch = Scratch::default();
    let mut out = String::new();
    for &(title, url) in PAGES {
        let shown: String = title
            .chars()
            .map(|c| {
                let invisible = c.is_control()
                    || (c.is_whitespace() && c != ' ')
                    || matches!(c, '\u{200b}'..='\u{200f}' | '\u{2060}' | '\u{feff}');
                if invisible {
                    c.escape_default().to_string()
                } else {
                    c.to_string()
                }
            })
            .collect();
        let _ = writeln!(out, "[{shown}] {url}");
        let mut runs: Vec<(Field, Vec<String>)> = Vec::new();
        for (field, word) in words(&mut scratch, title, url) {
            match runs.last_mut() {
                Some((last, run)) if *last == field => run.push(word),
                _ => runs.push((field, vec![word])),
            }
        }
        for (field, run) in runs {
            let _ = writeln!(out, "    {field:?}: {}", run.join(" "));
        }
    }
    out
}

/// The fingerprint of the words alone (each `field word` pair, pages separated), so that only a
/// change of the output, not of how the snapshot is laid out, calls for a new format version.
fn fingerprint() -> u64 {
    let mut scratch = Scratch::default();
    let mut text = String::new();
    for &(title, url) in PAGES {
        for (field, word) in words(&mut scratch, title, url) {
            let _ = writeln!(text, "{field:?} {word}");
        }
        text.push('\n');
    }
    fnv1a(text.as_bytes())
}

/// 64-bit FNV-1a: fixed constants, the same result on every platform and Rust version (unlike
/// std's randomly seeded hasher).
fn fnv1a(bytes: &[u8]) -> u64 {
    bytes.iter().fold(0xcbf2_9ce4_8422_2325, |hash, &b| {
        (hash ^ u64::from(b)).wrapping_mul(0x0000_0100_0000_01b3)
    })
}

#[test]
fn tokenisation_snapshot() {
    expect![[r#"
        [How to write recursive CTEs in PostgreSQL] https://www.postgresql.org/docs/current/queries-with.html
            Title: write recursive ctes ct es postgresql postgre sql
            Host: postgresql
            Path: docs current queries
        [Café crème & œufs brouillés — Recette facile] https://www.marmiton.org/recettes/recette_oeufs-brouilles_12345.aspx
            Title: cafe creme oeufs brouilles recette facile
            Host: marmiton
            Path: recettes recette oeufs brouilles 12345
        [Les meilleures recettes de la cuisine française : l'été, d'aujourd'hui] https://www.cuisine.fr/
            Title: meilleures recettes cuisine francaise aujourd hui
            Host: cuisine
        [Straße und Größe: Übersicht der Maße] https://de.wikipedia.org/wiki/Stra%C3%9Fe
            Title: strasse und grosse ubersicht der masse
            Host: wikipedia
            Path: wiki strasse
        [Bücher online kaufen] https://www.xn--bcher-kva.de/kategorie/b%C3%BCcher
            Title: bucher online kaufen
            Host: xn bcher kva
            Path: kategorie bucher
        [Søren Kierkegaard, Łódź, Ærø, Đakovo, Istanbul'da kış] https://example.eu/places
            Title: soren kierkegaard lodz aero dakovo istanbul da kis
            Host: example
            Path: places
        [Καλημέρα κόσμε — Привет, мир!] https://example.gr/
            Title: καλημερα κοσμε привет мир
            Host: example
        [東京の天気予報 - 日本気象協会] https://tenki.jp/forecast/3/16/4410/13101/
            Title: 東京の天気予報 日本気象協会
            Host: tenki
            Path: forecast 3 16 4410 13101
        [안녕하세요 세계 · สวัสดีชาวโลก · नमस्ते दुनिया] https://example.asia/hello
            Title: 안녕하세요 세계 สวสดชาวโลก नमसत दनय
            Host: example
            Path: hello
        [مرحبا بالعالم - ويكيبيديا] https://ar.wikipedia.org/wiki/%D9%85%D8%B1%D8%AD%D8%A8%D8%A7
            Title: مرحبا بالعالم ويكيبيديا
            Host: ar wikipedia
            Path: wiki مرحبا
        [🚀 Launch day! 🎉 Our new app✨is here 👩\u{200d}💻] https://blog.example.com/posts/launch-day
            Title: launch day new app here
            Host: blog example
            Path: posts launch day
        [XMLHttpRequest.getAllResponseHeaders() - Web APIs | MDN] https://developer.mozilla.org/en-US/docs/Web/API/XMLHttpRequest/getAllResponseHeaders
            Title: xmlhttprequest xml http request getallresponseheaders get response headers web apis ap mdn
            Host: developer mozilla
            Path: us docs web api xmlhttprequest xml http request getallresponseheaders get response headers
        [snake_case_function_name, camelCaseName, html5, ES2015, x86_64, iPhone15Pro] https://github.com/rust-lang/rust/issues/123456?tab=comments
            Title: snake case function name camelcasename camel case name html5 html es2015 es 2015 x86 86 64 iphone15pro phone 15 pro
            Host: github
            Path: rust lang rust issues 123456
            Query: comments
        [Order 20240131 #98765432 id 123456 v18.17.0 (2024) Supercalifragilisticexpialidocious] https://shop.example.co.uk/orders/20240131/98765432?ref=abc123def456&token=QmFzZTY0RW5jb2RlZEJsb2JPZkRhdGE
            Title: order id 123456 v18 18 17 0 2024
            Host: shop example
            Path: orders
            Query: abc123def456 abc 123 def 456 qm fz zty rw jb rl ze jsb jp zk rhd ge
        [ﬁnancial ﬂow Ǆungla ＡＢＣ１２３ ½ ① ℌ] https://example.com/nfkd
            Title: financial flow dzungla zungla abc123 abc 123 1 2 1 h
            Host: example
            Path: nfkd
        [] https://maps.example.fr/place/Caf%C3%A9+de+Flore/@48.85,2.33?hl=fr&q=caf%C3%A9+de+flore
            Host: maps example
            Path: place cafe flore 48 85 2 33
            Query: fr cafe flore
        [Search results] https://search.example.org/results?empty=&flag&lang=&q=c%2B%2B+templates&sort=date
            Title: search results
            Host: search example
            Path: results
            Query: templates date
        [Report] https://example.com/files/%FFbad%zz%4/report%20final.pdf?name=%C3x%E9t%C3%A9
            Title: report
            Host: example
            Path: files bad zz 4 report final pdf
            Query: x
        [Router admin] http://192.168.1.1/admin/status.cgi
            Title: router admin
            Host: 192 168 1
            Path: admin status cgi
        [Dashboard] http://[2001:db8::1]:8080/dashboard/Index.php
            Title: dashboard
            Host: 2001 db8 db 1
            Path: dashboard
        [Local dev server] http://localhost:3000/api/v2/users?id=42
            Title: local dev server
            Host: localhost
            Path: api v2 users
            Query: 42
        [Private] https://user:secret@intranet.example.com:8443/wiki/Home
            Title: private
            Host: intranet example
            Path: wiki home
        [BBC News - Europe] https://www.bbc.co.uk/news/world-europe-12345678
            Title: bbc news europe
            Host: bbc
            Path: news world europe
        [Rustaceans] https://m.facebook.com/groups/rustaceans
            Title: rustaceans
            Host: facebook
            Path: groups rustaceans
        [Guardian] https://amp.theguardian.com/world/2024/jan/01/story
            Title: guardian
            Host: theguardian
            Path: world 2024 jan 01 story
        [ABC] https://mobile.abc.net.au/news/2024-01-01/story/103280000
            Title: abc
            Host: abc
            Path: news 2024 01 01 story
        [Tab\tseparated\nlines\u{a0}and\u{200b}zero-width — what's new in node.js?] https://nodejs.org/en/blog/release/v20.0.0
            Title: tab separated lines zero width new node js
            Host: nodejs
            Path: blog release v20 20 0 0
        [] https://example.org/
            Host: example
        [— · — ... !!!] https://www.example.com/index.html
            Host: example
        [Une très longue histoire de la gastronomie française, racontée région par région : Alsace, Aquitaine, Auvergne, Bourgogne, Bretagne, Centre-Val de Loire, Champagne, Corse, Franche-Comté, Île-de-France, Languedoc, Limousin, Lorraine, Midi-Pyrénées, Nord, Normandie, Pays de la Loire, Picardie, Poitou-Charentes, Provence-Alpes-Côte d'Azur, Rhône-Alpes, et enfin les départements et régions d'outre-mer : Guadeloupe, Martinique, Guyane, La Réunion, Mayotte — avec leurs recettes, leurs vins et leurs fromages] https://www.gastronomie.example.fr/histoire/regions
            Title: tres longue histoire gastronomie francaise racontee region region alsace aquitaine auvergne bourgogne bretagne centre val loire champagne corse franche comte ile france languedoc limousin lorraine midi pyrenees nord normandie pays loire picardie poitou charentes provence alpes cote azur rhone alpes enfin departements region
            Host: gastronomie example
            Path: histoire regions
    "#]]
    .assert_eq(&snapshot());
}

#[test]
fn format_version_matches_tokenisation() {
    let fingerprint = fingerprint();
    let recorded = FINGERPRINTS
        .iter()
        .find(|&&(version, _)| version == FORMAT_VERSION)
        .map(|&(_, recorded)| recorded);
    let new_version = match recorded {
        // FORMAT_VERSION was bumped already: only its entry is missing.
        None => FORMAT_VERSION,
        Some(_) => FORMAT_VERSION + 1,
    };
    assert_eq!(
        recorded,
        Some(fingerprint),
        "tokenisation changed: bump FORMAT_VERSION in persist.rs and add its fingerprint, \
         ({new_version}, {fingerprint:#018x}), to FINGERPRINTS in index/tokenisation_tests.rs"
    );
    assert!(
        FINGERPRINTS.windows(2).all(|w| w[0].0 < w[1].0)
            && FINGERPRINTS.last().map(|&(version, _)| version) == Some(FORMAT_VERSION),
        "FINGERPRINTS must be in increasing version order and end with FORMAT_VERSION"
    );
}

#[test]
fn fnv1a_is_the_reference_function() {
    // The published FNV-1a 64 test vectors.
    assert_eq!(fnv1a(b""), 0xcbf2_9ce4_8422_2325);
    assert_eq!(fnv1a(b"a"), 0xaf63_dc4c_8601_ec8c);
    assert_eq!(fnv1a(b"foobar"), 0x8594_4171_f739_67e8);
}
