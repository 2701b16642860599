use super::*;
use crate::period::DAY_MS;

const NOW: i64 = 1_800_000_000_000;

fn page(url: &str, title: &str) -> Page {
    Page {
        url: url.to_owned(),
        title: title.to_owned(),
        last_visit_ms: NOW - 1_000,
        visit_count: 1,
        passage: None,
        marks: Default::default(),
    }
}

/// Reads a description as Chrome's parser would, stricter: only `<match>`, `<url>` and `<dim>`,
/// balanced; only the three entities we write; no character XML 1.0 forbids, nor a line break or
/// tab (Chrome deletes them). Returns the visible text, or what is wrong.
fn parse(xml: &str) -> Result<String, String> {
    let mut text = String::new();
    let mut open: Vec<&str> = Vec::new();
    let mut rest = xml;
    while let Some(c) = rest.chars().next() {
        match c {
            '<' => {
                let end = rest.find('>').ok_or(format!("unclosed tag in {xml:?}"))?;
                let tag = &rest[1..end];
                if let Some(name) = tag.strip_prefix('/') {
                    if open.pop() != Some(name) {
                        return Err(format!("</{name}> closes nothing in {xml:?}"));
                    }
                } else if ["match", "url", "dim"].contains(&tag) {
                    open.push(tag);
                } else {
                    return Err(format!("unexpected tag <{tag}> in {xml:?}"));
                }
                rest = &rest[end + 1..];
            }
            '&' => {
                let (entity, c) = [("&amp;", '&'), ("&lt;", '<'), ("&gt;", '>')]
                    .into_iter()
                    .find(|(entity, _)| rest.starts_with(entity))
                    .ok_or(format!("raw & in {xml:?}"))?;
                text.push(c);
                rest = &rest[entity.len()..];
            }
            '>' => return Err(format!("raw > in {xml:?}")),
            c if c.is_control() || c == '\u{FFFE}' || c == '\u{FFFF}' => {
                return Err(format!("control character {c:?} in {xml:?}"));
            }
            c => {
                text.push(c);
                rest = &rest[c.len_utf8()..];
            }
        }
    }
    if let Some(name) = open.pop() {
        return Err(format!("<{name}> never closed in {xml:?}"));
    }
    Ok(text)
}

#[test]
fn escape_xml_escapes_what_xml_reads_as_markup() {
    let rows: &[(&str, &str)] = &[
        ("", ""),
        ("plain text", "plain text"),
        ("Tom & Jerry", "Tom &amp; Jerry"),
        (
            "<script>alert(1)</script>",
            "&lt;script&gt;alert(1)&lt;/script&gt;",
        ),
        ("&amp; already escaped", "&amp;amp; already escaped"),
        (
            "</match><url>x</url>",
            "&lt;/match&gt;&lt;url&gt;x&lt;/url&gt;",
        ),
        ("<![CDATA[x]]>", "&lt;![CDATA[x]]&gt;"),
        ("<!-- comment -->", "&lt;!-- comment --&gt;"),
        ("<?xml version=\"1.0\"?>", "&lt;?xml version=\"1.0\"?&gt;"),
        ("'quotes' \"too\"", "'quotes' \"too\""),
        ("%s stays", "%s stays"),
        ("café 🙂 日本", "café 🙂 日本"),
    ];
    for (input, want) in rows {
        assert_eq!(escape_xml(input), *want, "{input:?}");
        assert_eq!(parse(want).as_deref(), Ok(*input), "{input:?} reads back");
    }
}

#[test]
fn clean_text_removes_what_a_row_cannot_hold() {
    let rows: &[(&str, usize, &str)] = &[
        ("", 10, ""),
        ("   ", 10, ""),
        ("  lead   and trail  ", 50, "lead and trail"),
        ("line\nbreak\ttab\r\nend", 50, "line break tab end"),
        ("vertical\u{b}tab\u{c}feed", 50, "vertical tab feed"),
        (
            "para\u{2028}graph\u{2029}sep\u{85}nel",
            50,
            "para graph sep nel",
        ),
        (
            "nul\u{0}bell\u{7}esc\u{1b}del\u{7f}c1\u{9f}",
            50,
            "nulbellescdelc1",
        ),
        ("\u{202E}txt.exe", 50, "txt.exe"),
        ("a\u{2066}b\u{2069}c\u{202A}d\u{202C}", 50, "abcd"),
        ("x\u{FFFE}\u{FFFF}y", 50, "xy"),
        ("non\u{a0}breaking", 50, "non breaking"),
        ("exactly ten", 11, "exactly ten"),
        ("one too many", 11, "one too ma…"),
        ("cut at a space here", 8, "cut at…"),
        ("日本語のタイトル", 4, "日本語…"),
        ("\u{1}\u{2}\u{3}", 10, ""),
    ];
    for (input, max, want) in rows {
        let got = clean_text(input, *max);
        assert_eq!(got, *want, "{input:?} at {max}");
        assert!(got.chars().count() <= *max, "{got:?} fits {max}");
    }
    let long = "a".repeat(10_000);
    let cut = clean_text(&long, MAX_TITLE_CHARS);
    assert_eq!(cut.chars().count(), MAX_TITLE_CHARS);
    assert!(cut.ends_with('…'));
}

#[test]
fn a_row_is_well_formed_whatever_the_title_and_url() {
    let long = "<b>&".repeat(2_500);
    let titles: &[&str] = &[
        "<b>bold</b>",
        "Tom & Jerry",
        "</match><url>javascript:alert(1)</url>",
        "</fragment><internal-suggestion>spoof</internal-suggestion>",
        "&lt;already&gt; &amp; &#1; &bogus;",
        "<![CDATA[ ]]> <!-- --> <?pi?>",
        "\u{0}\u{1}\u{8}control\u{b}\u{c}\u{1f}\u{7f}\u{9f}",
        "line\nbreak\r\n\ttab",
        "\u{202E}gnp.exe\u{202C}",
        "%s %d {}",
        "",
        "   ",
        &long,
    ];
    let urls: &[&str] = &[
        "https://example.com/",
        "https://example.com/a?x=%3Cy%3E&z=1",
        "https://example.com/%0A%00%1B%7F/%3Cscript%3E",
        "https://example.com/%E2%80%AEtxt",
        "https://xn--bcher-kva.de/caf%C3%A9",
        "http://[::1]:8080/path?a=&b",
        "https://user:pw@host.example/",
        "https://example.com/%FF%FE",
    ];
    for title in titles {
        for url in urls {
            for input in ["", "bold", "b", "a < b & c", "</match>", "script"] {
                let description = describe_page(&page(url, title), input);
                let text = parse(&description)
                    .unwrap_or_else(|error| panic!("{title:?} {url:?} {input:?}: {error}"));
                assert!(
                    text.chars().count() <= 2 * MAX_TITLE_CHARS + 3,
                    "bounded: {}",
                    text.len()
                );
                assert!(!text.contains(['\n', '\t', '\r', '\u{202E}']), "{text:?}");
            }
        }
    }
}

#[test]
fn a_row_shows_the_title_then_the_address() {
    let rows: &[(&str, &str, &str, &str)] = &[
        (
            "https://www.kingarthurbaking.com/blog/sourdough-starter",
            "Sourdough starter troubleshooting",
            "sourdough",
            "<match>Sourdough</match> starter troubleshooting <dim>-</dim> <url>kingarthurbaking.com/blog/<match>sourdough</match>-starter</url>",
        ),
        (
            "https://example.com/a?b=1&c=2",
            "Fish & Chips <3",
            "chips",
            "Fish &amp; <match>Chips</match> &lt;3 <dim>-</dim> <url>example.com/a?b=1&amp;c=2</url>",
        ),
        (
            "https://example.com/untitled",
            "",
            "untitled",
            "<url>example.com/<match>untitled</match></url>",
        ),
        (
            "https://example.com/",
            "<match>not ours</match>",
            "",
            "&lt;match&gt;not ours&lt;/match&gt; <dim>-</dim> <url>example.com</url>",
        ),
    ];
    for (url, title, input, want) in rows {
        assert_eq!(describe_page(&page(url, title), input), *want, "{title:?}");
    }
}

#[test]
fn matched_words_are_marked_as_the_index_matches_them() {
    let rows: &[(&str, &str, &str)] = &[
        // input, text, marked
        ("", "Anything at all", "Anything at all"),
        (
            "cafe",
            "Le Café de Flore",
            "Le <match>Café</match> de Flore",
        ),
        ("CAFÉ", "le cafe", "le <match>cafe</match>"),
        (
            "sourd",
            "Sourdough starter",
            "<match>Sourdough</match> starter",
        ),
        ("sourd ", "Sourdough starter", "Sourdough starter"),
        ("s", "Sourdough starter", "Sourdough starter"),
        (
            "starters",
            "Sourdough starter",
            "Sourdough <match>starter</match>",
        ),
        (
            "handling cycles",
            "Recursive CTEs: handle a cycle",
            "Recursive CTEs: <match>handle</match> a <match>cycle</match>",
        ),
        (
            "troubleshoting",
            "Troubleshooting guide",
            "<match>Troubleshooting</match> guide",
        ),
        ("cat", "The cot", "The cot"),
        (
            "observer",
            "IntersectionObserver API",
            "<match>IntersectionObserver</match> API",
        ),
        ("the guide", "The Guide", "The <match>Guide</match>"),
        ("html5", "HTML5 canvas", "<match>HTML5</match> canvas"),
        ("a<b", "a<b", "a&lt;<match>b</match>"),
        (
            "tom & jerry",
            "Tom & Jerry",
            "<match>Tom</match> &amp; <match>Jerry</match>",
        ),
        (
            "crêpe",
            "Recette de crêpes",
            "Recette de <match>crêpes</match>",
        ),
        ("zzz", "Nothing here", "Nothing here"),
    ];
    for (input, text, want) in rows {
        assert_eq!(
            Matcher::new(input).mark(text),
            *want,
            "{input:?} in {text:?}"
        );
    }
}

#[test]
fn the_default_suggestion_says_what_enter_does() {
    use DefaultSuggestion::*;
    let found = [page("https://example.com/sourdough", "Sourdough")];
    let building = |since_ms| {
        Coverage::Building(IndexProgress {
            pages: 12,
            since_ms,
        })
    };
    let whole = Coverage::Whole { pages: 5 };
    let empty = Coverage::Whole { pages: 0 };
    let rows: Vec<(&str, &[Page], Coverage, DefaultSuggestion)> = vec![
        ("", &found, whole, Prompt),
        ("   ", &found, whole, Prompt),
        ("the", &found, whole, Prompt),
        ("sourdough", &found, whole, OpenBest),
        ("zzzz", &[], whole, NoMatch),
        ("zzzz", &[], empty, HistoryEmpty),
        ("", &[], empty, HistoryEmpty),
        ("https://example.com/x?a=1&b=2", &[], whole, OpenAddress),
        ("sourdough", &[], building(Some(NOW - 3 * DAY_MS)), NoneYet),
        ("sourdough", &found, building(None), OpenBest),
        ("", &[], building(None), Prompt),
    ];
    for (input, pages, coverage, default) in rows {
        let answer = super::answer(input, pages, coverage);
        assert_eq!(answer.default, default, "{input:?} {coverage:?}");
        let indexing = match coverage {
            Coverage::Building(progress) => Some(progress),
            Coverage::Whole { .. } => None,
        };
        assert_eq!(answer.indexing, indexing, "{input:?} {coverage:?}");
        // Worded, it is XML Chrome takes, with at most one `%s`.
        let description = answer.default_description(NOW);
        assert!(parse(&description).is_ok(), "{description}");
        assert!(description.matches("%s").count() <= 1, "{description}");
    }
}

#[test]
fn an_aside_is_dimmed_escaped_and_cut() {
    assert_eq!(
        aside("a <b> & c\n d"),
        " <dim>(a &lt;b&gt; &amp; c d)</dim>"
    );
    let long = aside(&"x".repeat(500));
    assert!(parse(&long).is_ok());
    assert_eq!(
        long.chars().filter(|c| *c == 'x').count(),
        MAX_ASIDE_CHARS - 1
    );
}

#[test]
fn suggestions_are_the_pages_best_first_within_chromes_count() {
    let pages: Vec<Page> = (0..20)
        .map(|i| {
            page(
                &format!("https://example.com/{i}"),
                &format!("Page <{i}> & co"),
            )
        })
        .collect();
    let answer = super::answer("page", &pages, Coverage::Whole { pages: 20 });
    assert_eq!(answer.suggestions.len(), MAX_SUGGESTIONS);
    for (i, suggestion) in answer.suggestions.iter().enumerate() {
        assert_eq!(suggestion.content, format!("https://example.com/{i}"));
        let text = parse(&suggestion.description).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(text, format!("Page <{i}> & co - example.com/{i}"));
    }
    // Only web pages are ever suggested, whatever a caller passes.
    let odd = [
        page("javascript:alert(1)", "js"),
        page("chrome://settings/", "settings"),
        page("https://example.com/ok", "ok"),
    ];
    let odd = super::answer("ok", &odd, Coverage::Whole { pages: 3 });
    let contents: Vec<&str> = odd.suggestions.iter().map(|s| s.content.as_str()).collect();
    assert_eq!(contents, ["https://example.com/ok"]);
}

#[test]
fn enter_opens_an_address_or_the_best_match_or_nothing() {
    let rows: &[(&str, Entered)] = &[
        ("", Entered::Nothing),
        ("   ", Entered::Nothing),
        ("the", Entered::Nothing),
        ("🙂 !!", Entered::Nothing),
        (
            "https://example.com/a?b=1",
            Entered::Open("https://example.com/a?b=1".to_owned()),
        ),
        (
            "  http://example.com  ",
            Entered::Open("http://example.com".to_owned()),
        ),
        (
            "sourdough starter",
            Entered::BestMatch("sourdough starter".to_owned()),
        ),
        ("  cafe  ", Entered::BestMatch("cafe".to_owned())),
        ("example.com", Entered::BestMatch("example.com".to_owned())),
        (
            "https://exa mple.com",
            Entered::BestMatch("https://exa mple.com".to_owned()),
        ),
        (
            "javascript:alert(1)",
            Entered::BestMatch("javascript:alert(1)".to_owned()),
        ),
        (
            "file:///etc/passwd",
            Entered::BestMatch("file:///etc/passwd".to_owned()),
        ),
        (
            "chrome://settings",
            Entered::BestMatch("chrome://settings".to_owned()),
        ),
        (
            "<script>x</script>",
            Entered::BestMatch("<script>x</script>".to_owned()),
        ),
    ];
    for (text, want) in rows {
        assert_eq!(entered(text), *want, "{text:?}");
    }
}
