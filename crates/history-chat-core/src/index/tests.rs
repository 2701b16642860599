use super::*;
use crate::history::clean_and_merge;
use crate::period::DAY_MS;

const NOW: i64 = 1_780_000_000_000;

fn item(url: &str, title: &str, days_ago: i64, visits: u32) -> HistoryItem {
    HistoryItem {
        url: url.to_owned(),
        title: title.to_owned(),
        last_visit_ms: NOW - days_ago * DAY_MS,
        visit_count: visits,
    }
}

/// Both indexes give the same hits, scores included, for every query.
fn assert_same_answers(a: &Index, b: &Index, queries: &[&str], limit: usize) {
    for query in queries {
        assert_eq!(
            a.search(query, 0, NOW, limit),
            b.search(query, 0, NOW, limit),
            "{query:?}"
        );
    }
}

fn urls(hits: &[Hit]) -> Vec<&str> {
    hits.iter().map(|h| h.page.url.as_str()).collect()
}

fn find(index: &Index, query: &str) -> Vec<String> {
    urls(&index.search(query, 0, NOW, 10))
        .into_iter()
        .map(str::to_owned)
        .collect()
}

/// A small history with the pages the issue talks about and some neighbours.
fn sample() -> Index {
    Index::build([
        item(
            "https://blog.example/sql/recursive-ctes?utm_source=tw",
            "Recursive CTEs: handling cycles",
            3,
            2,
        ),
        item(
            "https://www.lemonde.fr/cuisine/article/cafe",
            "Le café de Paris",
            5,
            1,
        ),
        item(
            "https://de.example/strasse",
            "Die Straße der Erinnerung",
            6,
            1,
        ),
        item(
            "https://docs.python.org/3/tutorial/",
            "The Python Tutorial",
            1,
            9,
        ),
        item(
            "https://www.marmiton.org/recettes/tarte",
            "Recettes de tartes aux pommes",
            8,
            1,
        ),
        item("https://horses.example/", "Les chevaux de course", 9, 1),
        item("https://rust.example/", "The Rust book", 2, 3),
        item("https://shop.example/hand", "Hand cream for winter", 4, 1),
        item("https://films.example/", "Ｆｉｌｍ ﬁnder", 4, 1),
    ])
}

#[test]
fn finds_what_the_browser_misses() {
    let index = sample();
    let rows: &[(&str, &str)] = &[
        (
            "cte recursive cycles",
            "https://blog.example/sql/recursive-ctes",
        ),
        ("recursive cte", "https://blog.example/sql/recursive-ctes"),
        ("cycle", "https://blog.example/sql/recursive-ctes"),
        ("recurs", "https://blog.example/sql/recursive-ctes"),
        ("recusrive", "https://blog.example/sql/recursive-ctes"),
        ("cafe", "https://www.lemonde.fr/cuisine/article/cafe"),
        ("CAFÉ", "https://www.lemonde.fr/cuisine/article/cafe"),
        ("strasse", "https://de.example/strasse"),
        ("straße", "https://de.example/strasse"),
        ("film finder", "https://films.example/"),
        (
            "recette tarte pomme",
            "https://www.marmiton.org/recettes/tarte",
        ),
        ("cheval", "https://horses.example/"),
        ("pyhton tutorial", "https://docs.python.org/3/tutorial/"),
        ("lemonde", "https://www.lemonde.fr/cuisine/article/cafe"),
        (
            "that article about recursive ctes handling cycles",
            "https://blog.example/sql/recursive-ctes",
        ),
    ];
    for (query, expected) in rows {
        let found = find(&index, query);
        assert_eq!(
            found.first().map(String::as_str),
            Some(*expected),
            "{query}: {found:?}"
        );
    }
}

#[test]
fn typos_only_on_words_of_five_letters_or_more() {
    let index = Index::build([
        item("https://a.example/", "Rust tips", 1, 1),
        item("https://b.example/", "Python tips", 1, 1),
    ]);
    // Four letters: one edit away from "rust", but no typo matching.
    assert!(find(&index, "rsut ").is_empty());
    assert!(find(&index, "rust").contains(&"https://a.example/".to_owned()));
    // Six letters: swap, deletion, insertion, substitution.
    for query in ["pyhton ", "pyton ", "pythoon ", "pithon "] {
        assert_eq!(find(&index, query), ["https://b.example/"], "{query}");
    }
    // Two edits: nothing.
    assert!(find(&index, "pihton ").is_empty());
}

#[test]
fn prefix_on_the_last_word_only() {
    let index = sample();
    let hand = "https://shop.example/hand".to_owned();
    let ctes = "https://blog.example/sql/recursive-ctes".to_owned();
    // "hand" being typed completes to "handling".
    let typing = find(&index, "hand");
    assert!(
        typing.contains(&hand) && typing.contains(&ctes),
        "{typing:?}"
    );
    // Finished (trailing space): whole word and stems only.
    assert_eq!(find(&index, "hand "), std::slice::from_ref(&hand));
    // Not the last word: no completion.
    assert_eq!(find(&index, "hand cream"), [hand]);
    // One letter is not completed.
    assert!(find(&index, "h").is_empty());
}

#[test]
fn scoring_order() {
    // Title beats URL.
    let index = Index::build([
        item(
            "https://cooking.example/rust-removal",
            "Cleaning tips",
            1,
            1,
        ),
        item("https://a.example/b", "Rust in production", 1, 1),
    ]);
    assert_eq!(
        find(&index, "rust"),
        [
            "https://a.example/b",
            "https://cooking.example/rust-removal"
        ]
    );

    // Exact beats typo, even when the typo page is more recent and more visited.
    let index = Index::build([
        item("https://a.example/", "Pyhton tutorial", 0, 50),
        item("https://b.example/", "Python tutorial", 60, 1),
    ]);
    assert_eq!(
        find(&index, "python tutorial"),
        ["https://b.example/", "https://a.example/"]
    );

    // The prior breaks near-ties: same title, the recent and often-visited page first.
    let index = Index::build([
        item("https://old.example/x", "Borrow checker explained", 80, 1),
        item("https://new.example/x", "Borrow checker explained", 1, 10),
    ]);
    assert_eq!(
        find(&index, "borrow checker"),
        ["https://new.example/x", "https://old.example/x"]
    );

    // ... but never beats a clearly better text match.
    let index = Index::build([
        item(
            "https://new.example/misc",
            "Weekly links: borrow a car, lifetime deals and more",
            0,
            50,
        ),
        item(
            "https://old.example/x",
            "Borrow checker and lifetimes",
            85,
            1,
        ),
    ]);
    assert_eq!(
        find(&index, "borrow checker lifetimes")[0],
        "https://old.example/x"
    );

    // All words beat some words.
    let index = Index::build([
        item("https://a.example/", "Recursive functions", 0, 20),
        item("https://b.example/", "Recursive CTEs", 30, 1),
    ]);
    assert_eq!(find(&index, "recursive cte")[0], "https://b.example/");
}

#[test]
fn empty_and_stop_word_queries_give_recent_pages_of_the_period() {
    let index = sample();
    for query in ["", "   ", "the of", "le la des", "?!…", "🎉🔥"] {
        let hits = index.search(query, NOW - 4 * DAY_MS, NOW, 3);
        assert_eq!(
            urls(&hits),
            [
                "https://docs.python.org/3/tutorial/",
                "https://rust.example/",
                "https://blog.example/sql/recursive-ctes"
            ],
            "{query:?}"
        );
        assert!(hits.iter().all(|h| h.score == 0.0));
    }
    assert!(index.search("", 0, NOW, 0).is_empty());
    assert!(index.search_keyword("the", 0, NOW, 10).is_empty());
}

#[test]
fn period_filter_uses_the_last_visit() {
    let index = sample();
    assert_eq!(find(&index, "cafe").len(), 1);
    assert!(index.search("cafe", NOW - 4 * DAY_MS, NOW, 10).is_empty());
    assert_eq!(index.search("cafe", NOW - 5 * DAY_MS, NOW, 10).len(), 1);
    assert_eq!(index.recent(NOW - 2 * DAY_MS, 10).len(), 2);
}

#[test]
fn search_keyword_retrieves_one_keyword_in_relevance_order() {
    let index = Index::build([
        item("https://a.example/", "Gardening tools", 1, 1),
        item("https://b.example/garden", "Garden design ideas", 2, 1),
        item("https://c.example/", "Cooking", 3, 1),
    ]);
    let hits = index.search_keyword("garden", 0, NOW, 10);
    assert_eq!(
        urls(&hits),
        ["https://b.example/garden", "https://a.example/"]
    );
    assert_eq!(
        index
            .search_keyword("garden", NOW - DAY_MS - 1, NOW, 10)
            .len(),
        1
    );
    assert_eq!(index.search_keyword("garden", 0, NOW, 1).len(), 1);
}

#[test]
fn build_merges_like_clean_and_merge() {
    let items = vec![
        item(
            "https://blog.example/ctes?utm_source=tw",
            "Recursive CTEs (old)",
            5,
            2,
        ),
        item(
            "https://blog.example/ctes#comments",
            "Recursive CTEs: handling cycles",
            3,
            1,
        ),
        item("https://blog.example/ctes?fbclid=abc", "", 1, 4),
        item("https://other.example/", "Other", 2, 1),
        item("chrome://settings", "Settings", 1, 1),
        item(
            "https://www.google.com/search?q=x",
            "x - Google Search",
            1,
            1,
        ),
        item("not a url", "junk", 1, 1),
    ];
    let index = Index::build(items.clone());
    let expected = clean_and_merge(items);
    assert_eq!(index.len(), expected.len());
    for page in expected {
        assert_eq!(index.page(&page.url), Some(page));
    }
}

#[test]
fn incremental_add_update_and_remove_with_shared_raw_urls() {
    let mut index = Index::new();
    assert!(index.is_empty());
    index.upsert(item(
        "https://blog.example/ctes?utm_source=tw",
        "Recursive CTEs",
        5,
        2,
    ));
    index.upsert(item("https://blog.example/ctes", "Recursive CTEs", 4, 1));
    assert_eq!(index.len(), 1);
    let page = index.page("https://blog.example/ctes").unwrap();
    assert_eq!(
        (page.visit_count, page.last_visit_ms),
        (3, NOW - 4 * DAY_MS)
    );

    // A new visit to the same raw URL: the browser's count replaces ours; a new title re-indexes.
    index.upsert(item(
        "https://blog.example/ctes",
        "Handling cycles in SQL",
        1,
        2,
    ));
    let page = index.page("https://blog.example/ctes").unwrap();
    assert_eq!(
        (page.visit_count, page.title.as_str()),
        (4, "Handling cycles in SQL")
    );
    assert_eq!(find(&index, "cycles"), ["https://blog.example/ctes"]);
    assert!(
        find(&index, "recursive").is_empty(),
        "old title words are gone"
    );

    // An older visit with another title does not replace the newer title.
    index.upsert(item("https://blog.example/ctes#x", "Stale title", 9, 1));
    assert_eq!(
        index.page("https://blog.example/ctes").unwrap().title,
        "Handling cycles in SQL"
    );

    // Removing one raw URL keeps the page while another backs it.
    index.remove_urls(&["https://blog.example/ctes".to_owned()]);
    let page = index.page("https://blog.example/ctes").unwrap();
    assert_eq!(
        (page.visit_count, page.last_visit_ms),
        (3, NOW - 5 * DAY_MS)
    );
    assert_eq!(find(&index, "cycles").len(), 1);
    // Removing unknown or invalid URLs does nothing.
    index.remove_urls(&["https://nowhere.example/".to_owned(), "::".to_owned()]);
    assert_eq!(index.len(), 1);
    // Removing the last ones removes the page and its words.
    index.remove_urls(&[
        "https://blog.example/ctes?utm_source=tw".to_owned(),
        "https://blog.example/ctes#x".to_owned(),
    ]);
    assert_eq!(index.len(), 0);
    assert!(find(&index, "cycles").is_empty());
    assert!(index.page("https://blog.example/ctes").is_none());
    assert!(!index.holds("https://blog.example/ctes"));

    // The page can come back.
    index.upsert(item("https://blog.example/ctes", "Back again", 0, 1));
    assert!(index.holds("https://blog.example/ctes"));
    assert_eq!(find(&index, "back"), ["https://blog.example/ctes"]);
    // Excluded URLs never enter.
    index.upsert(item("chrome://history", "History", 0, 1));
    index.upsert(item(
        "https://www.google.com/search?q=back",
        "back - Google Search",
        0,
        1,
    ));
    assert_eq!(index.len(), 1);
}

#[test]
fn clear_forgets_everything() {
    let mut index = sample();
    assert!(!index.is_empty());
    index.clear();
    assert_eq!(index.len(), 0);
    assert!(find(&index, "cafe").is_empty());
    assert!(index.search("", 0, NOW, 10).is_empty());
    index.upsert(item("https://a.example/", "Café", 0, 1));
    assert_eq!(find(&index, "cafe"), ["https://a.example/"]);
}

#[test]
fn persistence_round_trip() {
    let mut index = sample();
    index.upsert(item("https://blog.example/sql/recursive-ctes", "", 0, 1));
    index.remove_urls(&["https://horses.example/".to_owned()]);
    let bytes = index.to_bytes();
    let loaded = Index::from_bytes(&bytes).unwrap();
    assert_eq!(loaded.len(), index.len());
    assert_same_answers(
        &loaded,
        &index,
        &[
            "cte recursive cycles",
            "cafe",
            "strasse",
            "recet",
            "pyhton",
            "",
            "cheval",
        ],
        10,
    );
    // Saved again, the same bytes; and the loaded index keeps working incrementally.
    assert_eq!(loaded.to_bytes(), bytes);
    let mut loaded = loaded;
    loaded.upsert(item("https://new.example/", "Brand new page", 0, 1));
    loaded.remove_urls(&["https://rust.example/".to_owned()]);
    assert_eq!(find(&loaded, "brand"), ["https://new.example/"]);
    assert!(find(&loaded, "rust book").is_empty());
    assert_eq!(
        Index::from_bytes(&Index::new().to_bytes()).unwrap().len(),
        0
    );
}

#[test]
fn loading_rejects_other_versions_and_garbage() {
    let bytes = sample().to_bytes();
    let mut other = bytes.clone();
    other[4..6].copy_from_slice(&(FORMAT_VERSION + 1).to_le_bytes());
    assert_eq!(
        Index::from_bytes(&other).unwrap_err(),
        LoadError::Version {
            found: FORMAT_VERSION + 1
        }
    );
    assert_eq!(Index::from_bytes(b"").unwrap_err(), LoadError::NotAnIndex);
    assert_eq!(
        Index::from_bytes(b"{\"json\":1}").unwrap_err(),
        LoadError::NotAnIndex
    );
    for cut in [6, 7, bytes.len() / 2, bytes.len() - 1] {
        assert!(
            matches!(Index::from_bytes(&bytes[..cut]), Err(LoadError::Corrupt(_))),
            "cut at {cut}"
        );
    }
    // Flipping bytes never panics.
    for at in (6..bytes.len()).step_by(7) {
        let mut flipped = bytes.clone();
        flipped[at] ^= 0xA5;
        let _ = Index::from_bytes(&flipped).map(|i| i.search("cafe recursive", 0, NOW, 5));
    }
}

#[test]
fn bad_queries_do_not_panic() {
    let index = sample();
    let long = "recursive ".repeat(50);
    let queries = [
        "a",
        "é",
        "!!!",
        "-- ; DROP TABLE",
        long.as_str(),
        "🎉 café 🎉",
        "مرحبا بالعالم",
        "שלום עולם",
        "\u{0}\u{7}\u{1b}[31m",
        "ǄǅǆＡ",
        "x y z w v u t s r q p o n m l k j i h g f e d c b a",
        "12345678901234567890",
        "\u{202e}evisrucer",
    ];
    for query in queries {
        for limit in [0, 1, 10] {
            let hits = index.search(query, 0, NOW, limit);
            assert!(hits.len() <= limit, "{query:?}");
            let _ = index.search_keyword(query, 0, NOW, limit);
        }
    }
    assert_eq!(
        find(&index, &long)[0],
        "https://blog.example/sql/recursive-ctes"
    );
    assert_eq!(
        find(&index, "🎉 café 🎉")[0],
        "https://www.lemonde.fr/cuisine/article/cafe"
    );
}

#[test]
fn bad_titles_and_urls_do_not_panic() {
    let long_title = "word ".repeat(400) + "needle";
    let index = Index::build([
        item(
            "https://a.example/",
            "<script>alert(1)</script><b>Bold</b> &amp; more",
            1,
            1,
        ),
        item(
            "https://b.example/",
            "tab\tnewline\ncontrol\u{0}\u{1f}chars",
            1,
            1,
        ),
        item("https://c.example/", &long_title, 1, 1),
        item(
            "https://d.example/مرحبا/שלום?q=%E2%9C%93&x=%ZZ",
            "مرحبا",
            1,
            1,
        ),
        item("https://e.example/", &"é".repeat(2_000), 1, 1),
        item("https://f.example/", "", 1, u32::MAX),
        item("https://f.example/#again", "", 1, 7),
        item("http://[::1]:8080/admin", "Local admin", 1, 1),
        item("https://g.example/", "🎉🎉🎉", -5, 1),
    ]);
    assert_eq!(index.len(), 8, "the two f.example entries are one page");
    assert_eq!(find(&index, "bold")[0], "https://a.example/");
    assert_eq!(find(&index, "control")[0], "https://b.example/");
    assert_eq!(find(&index, "مرحبا").len(), 1);
    assert_eq!(
        index.page("https://f.example/").unwrap().visit_count,
        u32::MAX
    );
    assert_eq!(find(&index, "admin"), ["http://[::1]:8080/admin"]);
    // A 2,000-character title is indexed on its beginning only.
    assert!(find(&index, "needle").is_empty());
    assert_eq!(find(&index, "word")[0], "https://c.example/");
    let loaded = Index::from_bytes(&index.to_bytes()).unwrap();
    assert_eq!(loaded.len(), 8);
}

#[test]
fn empty_and_large_histories() {
    let empty = Index::build(Vec::new());
    assert_eq!(empty.len(), 0);
    assert!(empty.search("anything", 0, NOW, 10).is_empty());
    assert!(empty.search("", 0, NOW, 10).is_empty());
    assert!(Index::from_bytes(&empty.to_bytes()).unwrap().is_empty());

    let topics = [
        "rust", "python", "recette", "voyage", "football", "guitar", "jardin",
    ];
    let items: Vec<HistoryItem> = (0..100_000)
        .map(|i| {
            let topic = topics[i % topics.len()];
            item(
                &format!("https://site{}.example/{topic}/{i}", i % 500),
                &format!("{topic} article {i} part{}", i % 97),
                (i % 90) as i64,
                1 + (i % 5) as u32,
            )
        })
        .collect();
    let index = Index::build(items);
    assert_eq!(index.len(), 100_000);
    let hits = index.search("pyhton part4", 0, NOW, 10);
    assert_eq!(hits.len(), 10);
    assert!(hits.iter().all(|h| h.page.title.starts_with("python")));
    assert_eq!(index.search("", NOW - DAY_MS, NOW, 5).len(), 5);
}

#[test]
fn incremental_upserts_give_the_same_answers_as_a_build() {
    let items = vec![
        item(
            "https://blog.example/ctes",
            "Recursive CTEs: handling cycles",
            3,
            2,
        ),
        item("https://a.example/cafe", "Le café de Paris", 5, 1),
        item(
            "https://blog.example/ctes?utm_source=x",
            "Recursive CTEs",
            1,
            1,
        ),
        item("https://b.example/", "Handling errors in Rust", 2, 4),
        item("https://c.example/recettes", "Recettes de cuisine", 8, 1),
    ];
    let built = Index::build(items.clone());
    let mut incremental = Index::new();
    for item in items {
        incremental.upsert(item);
    }
    for query in [
        "recursive",
        "handl",
        "cafe",
        "recette",
        "",
        "ctes cycles",
        "erors",
    ] {
        assert_eq!(
            incremental.search(query, 0, NOW, 10),
            built.search(query, 0, NOW, 10),
            "{query}"
        );
    }
}

#[test]
fn extending_slice_by_slice_equals_one_build() {
    // A build in slices (newest first, overlapping, a page visited in several slices, a title
    // changed between visits) answers exactly as a build from everything at once.
    let items: Vec<HistoryItem> = (0..400)
        .map(|i| {
            item(
                &format!("https://site{}.example/topic/{}", i % 7, i % 150),
                &format!("Topic {} page about word{} and cycles", i % 150, i % 13),
                i % 90,
                1 + (i % 3) as u32,
            )
        })
        .collect();
    let whole = Index::build(items.clone());
    let mut sliced = Index::new();
    let mut by_age = items.clone();
    by_age.sort_by_key(|i| std::cmp::Reverse(i.last_visit_ms));
    for slice in by_age.chunks(37) {
        sliced.extend(slice.iter().cloned());
        // Overlapping reads: an entry read a second time.
        sliced.extend(slice.first().cloned());
    }
    assert_eq!(sliced.len(), whole.len());
    assert_same_answers(
        &sliced,
        &whole,
        &[
            "topic",
            "word3 cycles",
            "site4",
            "cycle",
            "topi",
            "wrod7",
            "",
        ],
        50,
    );
    assert_eq!(
        Index::from_bytes(&sliced.to_bytes()).map(|i| i.search("cycles", 0, NOW, 50)),
        Ok(whole.search("cycles", 0, NOW, 50))
    );
}

#[test]
fn a_hit_is_complete_when_every_word_of_the_query_matched() {
    let index = Index::build([
        item(
            "https://www.kingarthurbaking.com/blog/sourdough-starter",
            "Sourdough starter troubleshooting",
            2,
            1,
        ),
        item("https://bread.example/rye", "Rye bread at home", 3, 1),
    ]);
    let starter = "https://www.kingarthurbaking.com/blog/sourdough-starter";
    let rows: &[(&str, &[(&str, bool)])] = &[
        ("sourdough starter", &[(starter, true)]),
        // A typo, a plural and the word being typed still match.
        ("sourdugh starters", &[(starter, true)]),
        ("sourdough sta", &[(starter, true)]),
        // One word of two: found, not complete.
        (
            "sourdough bread",
            &[(starter, false), ("https://bread.example/rye", false)],
        ),
        // The most recent pages for a query with no word: none complete.
        (
            "",
            &[(starter, false), ("https://bread.example/rye", false)],
        ),
    ];
    for &(query, want) in rows {
        let mut got: Vec<(&str, bool)> = Vec::new();
        let hits = index.search(query, 0, NOW, 10);
        for hit in &hits {
            got.push((hit.page.url.as_str(), hit.complete));
        }
        got.sort_unstable();
        let mut want = want.to_vec();
        want.sort_unstable();
        assert_eq!(got, want, "{query:?}");
        let every = want.iter().any(|&(_, complete)| complete);
        assert_eq!(
            index.finds_every_word_in(query, &SiteFilter::default(), 0, NOW, 10),
            every,
            "{query:?}"
        );
    }
    // The sourdough page, two days old, is not in the last day.
    assert!(!index.finds_every_word_in(
        "sourdough starter",
        &SiteFilter::default(),
        NOW - DAY_MS,
        NOW,
        10
    ));
}

#[test]
fn a_site_filter_leaves_other_sites_out_before_ranking() {
    let index = Index::build([
        // The best match for the words, of another site, visited often.
        item(
            "https://blog.example/recursive-cte-cycles",
            "Recursive CTE cycles explained",
            1,
            50,
        ),
        item("https://gist.github.com/x/cte", "cte notes: cycles", 20, 1),
        item("https://github.com/org/repo", "Repository home", 2, 1),
        item("https://github.com/org/other", "Other repository", 4, 1),
    ]);
    let github = crate::site_filter::parse("site:github.com").filter;
    // With room for one page only, the filter's best is found, not cut away by the other site's.
    let hits = index.search_in("cte cycles", &github, 0, NOW, 1);
    assert_eq!(urls(&hits), ["https://gist.github.com/x/cte"]);
    assert!(hits[0].complete);
    assert!(index.finds_every_word_in("cte cycles", &github, 0, NOW, 5));
    let gitlab = crate::site_filter::parse("site:gitlab.com").filter;
    assert!(index.search_in("cte cycles", &gitlab, 0, NOW, 5).is_empty());
    assert!(!index.finds_every_word_in("cte cycles", &gitlab, 0, NOW, 5));
    // No words: the site's most recent pages of the period.
    assert_eq!(
        urls(&index.search_in("", &github, NOW - 7 * DAY_MS, NOW, 10)),
        [
            "https://github.com/org/repo",
            "https://github.com/org/other"
        ]
    );
    // A keyword too, and an exclusion.
    let not_gist = crate::site_filter::parse("-site:gist.github.com").filter;
    assert_eq!(
        urls(&index.search_keyword_in("cycles", &not_gist, 0, NOW, 10)),
        ["https://blog.example/recursive-cte-cycles"]
    );
    // The host's answer parses the question as typed.
    assert_eq!(
        urls(&index.search_in(
            &crate::site_filter::parse("site:GitHub.com cte ").words,
            &github,
            0,
            NOW,
            10
        )),
        ["https://gist.github.com/x/cte"]
    );
}

#[test]
fn kept_urls_are_marked_per_history_url_and_survive_a_save() {
    let raw_old = "https://a.example/page?utm_source=mail";
    let mut index = Index::build([
        item(raw_old, "Page A", 100, 1),
        item("https://a.example/page", "Page A", 1, 2),
        item("https://b.example/", "Page B", 120, 1),
    ]);
    // What the expiry rule reads: each history URL's own newest visit.
    assert_eq!(index.newest_visit_of(raw_old), Some(NOW - 100 * DAY_MS));
    assert_eq!(
        index.newest_visit_of("https://a.example/page"),
        Some(NOW - DAY_MS)
    );
    assert_eq!(index.newest_visit_of("https://c.example/"), None);
    index.keep_urls(&[raw_old.to_owned(), "https://b.example/".to_owned()]);
    // A page is kept only when Chrome forgot every URL behind it.
    assert!(!index.is_kept("https://a.example/page"));
    assert!(index.is_kept("https://b.example/"));
    assert_eq!(index.kept_len(), 1);
    let mut kept_urls = index.kept_urls();
    kept_urls.sort();
    assert_eq!(kept_urls, ["https://a.example/page", "https://b.example/"]);
    let mut loaded = Index::from_bytes(&index.to_bytes()).unwrap();
    assert!(loaded.is_kept("https://b.example/"));
    // A visit makes the URL Chrome's again.
    loaded.upsert(item("https://b.example/", "Page B", 0, 1));
    assert!(!loaded.is_kept("https://b.example/"));
    // Forgetting kept URLs leaves the page a live URL still backs, with that URL's visits.
    let mut forgotten = index.forget_kept();
    forgotten.sort();
    assert_eq!(forgotten, [raw_old, "https://b.example/"]);
    assert!(index.page("https://b.example/").is_none());
    let a = index.page("https://a.example/page").unwrap();
    assert_eq!((a.last_visit_ms, a.visit_count), (NOW - DAY_MS, 2));
    assert_eq!(index.kept_len(), 0);
}

/// `newest_visit_of`, `keep_urls` and `remove_urls` find a raw URL the same way: cleaned to its
/// page, then matched against the raw URLs merged into it. A URL that cleans to a held page but
/// was never one of its raw URLs is not held, whichever of the three asks.
#[test]
fn one_lookup_finds_a_raw_url_for_reading_keeping_and_removing() {
    let tracked = "https://a.example/page?utm_source=mail";
    let build = || {
        Index::build([
            item(tracked, "Page A", 100, 1),
            item("https://a.example/page", "Page A", 1, 2),
        ])
    };
    // (raw URL, its newest visit, the page's last visit and visit count once the URL is removed:
    // the page stays while the other URL backs it)
    let cases: [(&str, Option<i64>, (i64, u32)); 6] = [
        (tracked, Some(NOW - 100 * DAY_MS), (NOW - DAY_MS, 2)),
        (
            "https://a.example/page",
            Some(NOW - DAY_MS),
            (NOW - 100 * DAY_MS, 1),
        ),
        // Cleans to the page, but Chrome never listed this variant: nothing changes.
        (
            "https://a.example/page?utm_medium=x",
            None,
            (NOW - DAY_MS, 3),
        ),
        ("https://a.example/page#top", None, (NOW - DAY_MS, 3)),
        ("https://b.example/", None, (NOW - DAY_MS, 3)),
        ("not a url", None, (NOW - DAY_MS, 3)),
    ];
    for (raw, newest, after_removal) in cases {
        let index = build();
        assert_eq!(index.newest_visit_of(raw), newest, "{raw}");

        let mut kept = build();
        kept.keep_urls(&[raw.to_owned()]);
        let marked = kept.kept_urls();
        let expected: &[&str] = if newest.is_some() {
            &["https://a.example/page"]
        } else {
            &[]
        };
        assert_eq!(marked, expected, "{raw}: kept");

        let mut removed = build();
        removed.remove_urls(&[raw.to_owned()]);
        let page = removed.page("https://a.example/page");
        assert_eq!(
            page.map(|p| (p.last_visit_ms, p.visit_count)),
            Some(after_removal),
            "{raw}: removed"
        );
        assert_eq!(find(&removed, "page"), ["https://a.example/page"], "{raw}");
    }
}
