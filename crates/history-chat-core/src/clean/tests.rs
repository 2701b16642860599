use super::*;

/// Cleans each input and compares with the expected outcome: `Ok(cleaned)` or `Err(rejection)`.
fn check(rows: &[(&str, Result<&str, Rejection>)]) {
    for (input, expected) in rows {
        let got = clean_url(input);
        let got = got.as_ref().map(Url::as_str).map_err(Clone::clone);
        assert_eq!(&got, expected, "clean_url({input:?})");
    }
}

#[test]
fn drops_fragment_and_sorts_remaining_parameters() {
    check(&[
        (
            "https://example.com/post#comments",
            Ok("https://example.com/post"),
        ),
        (
            "https://example.com/post?b=2&a=1",
            Ok("https://example.com/post?a=1&b=2"),
        ),
        (
            "https://example.com/post?a=2&a=1",
            Ok("https://example.com/post?a=1&a=2"),
        ),
        (
            "https://example.com/?q=caf%C3%A9+au+lait",
            Ok("https://example.com/?q=caf%C3%A9+au+lait"),
        ),
        (
            "https://example.com/?q=a%20b",
            Ok("https://example.com/?q=a%20b"),
        ),
        ("https://example.com/post?", Ok("https://example.com/post")),
        (
            "https://example.com/post?&&a=1&",
            Ok("https://example.com/post?a=1"),
        ),
        (
            "https://example.com/post?flag&a=1",
            Ok("https://example.com/post?a=1&flag"),
        ),
        ("  https://example.com/  ", Ok("https://example.com/")),
        ("HTTPS://EXAMPLE.COM/Path", Ok("https://example.com/Path")),
        ("http://example.com:80/x", Ok("http://example.com/x")),
        (
            "https://example.com:8443/x",
            Ok("https://example.com:8443/x"),
        ),
    ]);
}

#[test]
fn drops_every_listed_tracking_parameter() {
    for name in TRACKING_PARAMS {
        let input = format!("https://example.com/a?id=7&{name}=abc#x");
        check(&[(input.as_str(), Ok("https://example.com/a?id=7"))]);
    }
}

#[test]
fn the_issue_list_of_tracking_parameters_is_covered() {
    let required = "gclid fbclid msclkid dclid gbraid wbraid gclsrc mc_eid mc_cid igshid yclid _ga _gl \
                    _hsenc __hssc __hstc mkt_tok oly_enc_id oly_anon_id vero_id s_cid ref_src srsltid";
    for name in required.split_whitespace() {
        assert!(
            is_tracking_param(name),
            "{name} must be a tracking parameter"
        );
    }
}

#[test]
fn drops_tracking_parameters_whatever_their_case_and_any_utm() {
    check(&[
        (
            "https://blog.example.org/ctes?utm_source=twitter&utm_medium=social&utm_campaign=x&utm_content=y&utm_term=z&utm_id=1",
            Ok("https://blog.example.org/ctes"),
        ),
        (
            "https://example.com/?UTM_Source=a&FBCLID=b&GClid=c",
            Ok("https://example.com/"),
        ),
        (
            "https://example.com/?utm_custom_thing=1&page=2",
            Ok("https://example.com/?page=2"),
        ),
        (
            "https://example.com/?utm=keep",
            Ok("https://example.com/?utm=keep"),
        ),
        (
            "https://example.com/?gclid_like=keep",
            Ok("https://example.com/?gclid_like=keep"),
        ),
        ("https://example.com/?fbclid", Ok("https://example.com/")),
    ]);
}

#[test]
fn url_with_only_tracking_parameters_loses_its_query() {
    check(&[
        (
            "https://example.com/a?utm_source=x&fbclid=y&gclid=z",
            Ok("https://example.com/a"),
        ),
        (
            "https://example.com/a?utm_source=x#frag",
            Ok("https://example.com/a"),
        ),
    ]);
}

#[test]
fn excludes_pages_that_are_not_web_pages() {
    let not_web = |scheme: &str| {
        Err(Rejection::NotWebPage {
            scheme: scheme.to_owned(),
        })
    };
    check(&[
        ("chrome://settings/", not_web("chrome")),
        ("chrome://history/?q=cte", not_web("chrome")),
        (
            "chrome-extension://dhdlfgmmlabdgmpkgkaocomjjfabcmpl/popup.html",
            not_web("chrome-extension"),
        ),
        ("file:///home/me/notes.txt", not_web("file")),
        ("about:blank", not_web("about")),
        ("data:text/html,<h1>hi</h1>", not_web("data")),
        ("javascript:alert(1)", not_web("javascript")),
        ("view-source:https://example.com/", not_web("view-source")),
        ("ftp://ftp.example.com/file.txt", not_web("ftp")),
        ("chrome-search://local-ntp/", not_web("chrome-search")),
    ]);
}

#[test]
fn excludes_google_search_pages_on_any_google_domain() {
    let google = Err(Rejection::GoogleSearch);
    check(&[
        (
            "https://www.google.com/search?q=recursive+cte",
            google.clone(),
        ),
        (
            "https://www.google.fr/search?q=caf%C3%A9&hl=fr",
            google.clone(),
        ),
        ("https://google.co.uk/search?q=x", google.clone()),
        (
            "https://www.google.com.br/search?q=x&tbm=isch",
            google.clone(),
        ),
        (
            "https://www.google.de/search/howsearchworks",
            google.clone(),
        ),
        ("http://www.google.com/search", google),
        // Not search result pages: kept.
        (
            "https://www.google.com/maps/place/Paris",
            Ok("https://www.google.com/maps/place/Paris"),
        ),
        (
            "https://docs.google.com/search?q=x",
            Ok("https://docs.google.com/search?q=x"),
        ),
        (
            "https://www.google.com/searchconsole",
            Ok("https://www.google.com/searchconsole"),
        ),
        (
            "https://example.com/search?q=x",
            Ok("https://example.com/search?q=x"),
        ),
        (
            "https://google.example.com/search?q=x",
            Ok("https://google.example.com/search?q=x"),
        ),
    ]);
}

#[test]
fn internationalised_hosts_are_normalised_to_one_form() {
    check(&[
        (
            "https://bücher.de/café?utm_source=x",
            Ok("https://xn--bcher-kva.de/caf%C3%A9"),
        ),
        (
            "https://xn--bcher-kva.de/caf%C3%A9",
            Ok("https://xn--bcher-kva.de/caf%C3%A9"),
        ),
        ("https://例え.jp/", Ok("https://xn--r8jz45g.jp/")),
    ]);
}

#[test]
fn rejects_invalid_urls() {
    check(&[
        ("", Err(Rejection::Invalid)),
        ("not a url", Err(Rejection::Invalid)),
        ("https://", Err(Rejection::Invalid)),
        ("http://exa mple.com/", Err(Rejection::Invalid)),
        ("/relative/path", Err(Rejection::Invalid)),
        ("https://[::1", Err(Rejection::Invalid)),
    ]);
}

#[test]
fn very_long_urls_are_cleaned_without_loss() {
    let path = "segment/".repeat(1_000);
    let value = "v".repeat(10_000);
    let input = format!("https://example.com/{path}?z={value}&utm_source=x&a=1#{value}");
    let expected = format!("https://example.com/{path}?a=1&z={value}");
    check(&[(input.as_str(), Ok(expected.as_str()))]);
}

#[test]
fn only_web_pages_are_openable() {
    let rows = [
        ("https://example.com/a", true),
        ("http://example.com/", true),
        ("HTTPS://EXAMPLE.COM", true),
        ("javascript:alert(1)", false),
        ("JavaScript:alert(1)", false),
        ("data:text/html,x", false),
        ("chrome://settings", false),
        ("file:///etc/passwd", false),
        ("view-source:https://example.com", false),
        ("//example.com/a", false),
        ("", false),
    ];
    for (url, expected) in rows {
        assert_eq!(is_openable(url), expected, "is_openable({url:?})");
    }
}
