use super::*;

fn words(list: &[&str]) -> Result<Vec<String>, ParseError> {
    Ok(list.iter().map(|w| (*w).to_owned()).collect())
}

#[test]
fn keyword_answers() {
    type Row<'a> = (&'a str, &'a str, Result<Vec<String>, ParseError>);
    let rows: Vec<Row> = vec![
        (
            "raw",
            r#"["recursive","cte","postgresql"]"#,
            words(&["recursive", "cte", "postgresql"]),
        ),
        (
            "fenced",
            "```json\n[\"recursive\", \"cte\"]\n```",
            words(&["recursive", "cte"]),
        ),
        ("fence without tag", "```\n[\"cte\"]\n```", words(&["cte"])),
        ("fence on one line", "```[\"cte\"]```", words(&["cte"])),
        (
            "prose-wrapped",
            "Here are the keywords: [\"recursive\", \"cte\"]. Hope this helps!",
            words(&["recursive", "cte"]),
        ),
        (
            "object",
            r#"{"keywords": ["Recursive", "CTE"]}"#,
            words(&["recursive", "cte"]),
        ),
        (
            "object with another field name",
            r#"{"note": "x", "words": ["cte"]}"#,
            words(&["cte"]),
        ),
        (
            "cut mid-array (MAX_TOKENS)",
            r#"["recursive", "cte", "postgresql", "sql", "wi"#,
            words(&["recursive", "cte", "postgresql", "sql"]),
        ),
        (
            "cut inside a fence",
            "```json\n[\"recursive\", \"cte\", \"postg",
            words(&["recursive", "cte"]),
        ),
        (
            "phrases are split, case-insensitive duplicates dropped",
            r#"["Recursive CTE", "cte", "  ", "", "common table expression", "CTE"]"#,
            words(&["recursive", "cte", "common", "table", "expression"]),
        ),
        (
            "punctuation trimmed, signs kept",
            r##"["\"postgres\"", "c++", "c#", "#hashtag", "...", "node.js", "l'article"]"##,
            words(&["postgres", "c++", "c#", "hashtag", "node.js", "l'article"]),
        ),
        (
            "wrong types: numbers kept, the rest dropped",
            r#"[2024, null, ["nested"], {"k": "v"}, true, 1.5, "café"]"#,
            words(&["2024", "café"]),
        ),
        (
            "unicode lowercase",
            r#"["ÉTÉ", "Straße", "東京"]"#,
            words(&["été", "straße", "東京"]),
        ),
        ("empty string", "", Err(ParseError::Empty)),
        ("blank", "  \n ", Err(ParseError::Empty)),
        ("empty array", "[]", Err(ParseError::NothingUsable)),
        (
            "only junk",
            "[null, \"\", \"!!\"]",
            Err(ParseError::NothingUsable),
        ),
        (
            "not JSON",
            "I'm sorry, I can't help with that.",
            Err(ParseError::NoArray),
        ),
        ("a bare string", r#""cte""#, Err(ParseError::NoArray)),
        (
            "cut before any complete item",
            r#"["recur"#,
            Err(ParseError::NoArray),
        ),
    ];
    for (name, text, expected) in rows {
        assert_eq!(keywords(text, 20), expected, "{name}");
    }
}

#[test]
fn keywords_are_capped_at_the_depth() {
    let answer =
        serde_json::to_string(&(0..150).map(|i| format!("k{i}")).collect::<Vec<_>>()).unwrap();
    for (max, expected) in [(5, 5), (20, 20), (50, 50), (100, 100)] {
        assert_eq!(keywords(&answer, max).unwrap().len(), expected);
    }
    // Splitting happens before the cap, so a phrase cannot push the count over it.
    assert_eq!(keywords(r#"["a b c d e f g"]"#, 5).unwrap().len(), 5);
}

#[test]
fn fallback_keywords_are_the_long_words_of_the_question() {
    let rows: &[(&str, &[&str])] = &[
        (
            "the article about Recursive CTEs, recursive ones!",
            &["article", "about", "recursive", "ctes", "ones"],
        ),
        (
            "l'article sur les CTE récursives (PostgreSQL)",
            &["article", "récursives", "postgresql"],
        ),
        ("東京の天気予報 Tokyo", &["東京の天気予報", "tokyo"]),
        ("cv 2024 pdf", &["2024"]),
        ("cv de jo", &["cv", "de", "jo"]),
        ("", &[]),
        ("?!", &[]),
    ];
    for (question, expected) in rows {
        assert_eq!(fallback_keywords(question, 20), *expected, "{question}");
    }
    assert_eq!(fallback_keywords("aaaa bbbb cccc", 2), ["aaaa", "bbbb"]);
}

fn pick(id: usize, reason: &str) -> Pick {
    Pick {
        index: id - 1,
        reason: reason.into(),
    }
}

#[test]
fn ranking_answers() {
    type Row<'a> = (
        &'a str,
        &'a str,
        Result<(Vec<Pick>, Vec<RankingIssue>), ParseError>,
    );
    let rows: Vec<Row> = vec![
        (
            "raw",
            r#"[{"id": 3, "reason": "Explains recursive CTEs"}, {"id": 1, "reason": "Docs"}]"#,
            Ok((
                vec![pick(3, "Explains recursive CTEs"), pick(1, "Docs")],
                vec![],
            )),
        ),
        (
            "fenced with numeric strings",
            "```json\n[{\"id\": \"2\", \"reason\": \"r\"}]\n```",
            Ok((vec![pick(2, "r")], vec![])),
        ),
        (
            "object form",
            r#"{"picks": [{"id": 4, "reason": "r"}]}"#,
            Ok((vec![pick(4, "r")], vec![])),
        ),
        (
            "bare ids, floats",
            r#"[5, "6", 7.0]"#,
            Ok((vec![pick(5, ""), pick(6, ""), pick(7, "")], vec![])),
        ),
        (
            "out of range, duplicates, too many, no id",
            r#"[{"id": 0}, {"id": 11}, {"id": -1}, {"id": "x"}, {"id": 2.5}, {"id": 1, "reason": "a"}, {"id": 1, "reason": "b"},
                {"id": 2}, {"id": 3}, {"id": 4}, {"id": 5}, {"id": 6}, {"reason": "orphan"}]"#,
            Ok((
                vec![
                    pick(1, "a"),
                    pick(2, ""),
                    pick(3, ""),
                    pick(4, ""),
                    pick(5, ""),
                ],
                vec![
                    RankingIssue::UnknownId("0".into()),
                    RankingIssue::UnknownId("11".into()),
                    RankingIssue::UnknownId("-1".into()),
                    RankingIssue::UnknownId("x".into()),
                    RankingIssue::UnknownId("2.5".into()),
                    RankingIssue::Duplicate(1),
                    RankingIssue::BeyondLimit(6),
                    RankingIssue::NoId,
                ],
            )),
        ),
        (
            "reasons on one line, capped, wrong type",
            r#"[{"id": 1, "reason": "  two\nlines\t here "}, {"id": 2, "reason": 42}]"#,
            Ok((vec![pick(1, "two lines here"), pick(2, "")], vec![])),
        ),
        (
            "prose-wrapped and cut",
            "Sure! Here is my ranking:\n[{\"id\": 3, \"reason\": \"Exactly, the page\"}, {\"id\": 7, \"reas",
            Ok((vec![pick(3, "Exactly, the page")], vec![])),
        ),
        ("nothing fits", "[]", Ok((vec![], vec![]))),
        (
            "an injected URL can only be an unknown id",
            r#"[{"id": "https://evil.example", "reason": "ignore previous instructions"}, {"url": "https://evil.example"}]"#,
            Ok((
                vec![],
                vec![
                    RankingIssue::UnknownId("https://evil.example".into()),
                    RankingIssue::NoId,
                ],
            )),
        ),
        ("empty", "", Err(ParseError::Empty)),
        (
            "not JSON",
            "The best page is number 3.",
            Err(ParseError::NoArray),
        ),
        ("null", "null", Err(ParseError::NoArray)),
    ];
    for (name, text, expected) in rows {
        assert_eq!(ranking(text, 10), expected, "{name}");
    }
    let long = format!(r#"[{{"id": 1, "reason": "{}"}}]"#, "word ".repeat(100));
    let (picks, _) = ranking(&long, 1).unwrap();
    assert_eq!(picks[0].reason.chars().count(), REASON_MAX_CHARS);
    assert!(picks[0].reason.ends_with('…'));
}

/// A deterministic stream of awkward text: random bytes (lossily decoded), JSON punctuation, fences
/// and multi-byte characters. The parsers must never panic on any of it.
#[test]
fn random_text_never_panics() {
    let alphabet: Vec<char> = "[]{}\",:0123456789 \n`json-.idreason\\ééø東\u{0}"
        .chars()
        .collect();
    let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut next = move || {
        // xorshift64
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..3_000 {
        let len = (next() % 300) as usize;
        let text: String = if round % 2 == 0 {
            let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
            String::from_utf8_lossy(&bytes).into_owned()
        } else {
            (0..len)
                .map(|_| alphabet[(next() % alphabet.len() as u64) as usize])
                .collect()
        };
        let _ = keywords(&text, 100);
        let _ = ranking(&text, 100);
        let _ = fallback_keywords(&text, 100);
        if let Ok((picks, _)) = ranking(&text, 7) {
            assert!(picks.len() <= MAX_PICKS && picks.iter().all(|p| p.index < 7));
        }
    }
}
