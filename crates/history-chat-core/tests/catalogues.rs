//! Both UI catalogues (`_locales/en`, `_locales/fr`) hold every key the extension uses, with the
//! same substitutions, and nothing else. A string added in code but not in French fails here, as
//! does a translation that drops a `$1`.
//!
//! Keys are found where they are used: `t!("key"…)` and `plural("key"…)` (which reads `key_one`
//! and `key_other`) in Rust, `data-i18n…="key"` in the pages' HTML, `getMessage('key'…)` in their
//! scripts, and `__MSG_key__` in the manifest.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use history_chat_core::i18n::Catalogue;

fn repo() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

fn read(path: &Path) -> String {
    fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn catalogue(language: &str) -> Catalogue {
    let path = repo().join("_locales").join(language).join("messages.json");
    let text = read(&path);
    Catalogue::parse(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn files(dir: &Path, extension: &str, into: &mut Vec<PathBuf>) {
    let Ok(entries) = fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        let skipped = ["target", "node_modules", "dist", ".git"];
        if path.is_dir()
            && !path
                .file_name()
                .is_some_and(|n| skipped.iter().any(|s| n == *s))
        {
            files(&path, extension, into);
        } else if path.extension().is_some_and(|e| e == extension) {
            into.push(path);
        }
    }
}

/// Every `<marker>KEY<end>` in `text`, where KEY is a catalogue key's characters; whitespace may
/// follow the marker (rustfmt breaks a long `t!(` call after its parenthesis).
fn after(text: &str, marker: &str, end: char) -> Vec<String> {
    let (marker, quote) = match marker.strip_suffix('"') {
        Some(call) => (call, "\""),
        None => (marker, ""),
    };
    text.match_indices(marker)
        .filter_map(|(at, _)| {
            let rest = text[at + marker.len()..].trim_start().strip_prefix(quote)?;
            let key: String = rest
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '_')
                .collect();
            let closed = rest[key.len()..].starts_with(end);
            (!key.is_empty() && closed).then_some(key)
        })
        .collect()
}

/// Each key the code uses, with one place that uses it.
fn used_keys() -> BTreeMap<String, String> {
    let root = repo();
    let mut used = BTreeMap::new();
    let mut note = |key: String, path: &Path| {
        let place = path
            .strip_prefix(&root)
            .unwrap_or(path)
            .display()
            .to_string();
        used.entry(key.to_ascii_lowercase()).or_insert(place);
    };
    let mut rust = Vec::new();
    files(&root, "rs", &mut rust);
    for path in rust {
        if path.components().any(|c| c.as_os_str() == "target") || path.ends_with(file!()) {
            continue;
        }
        let whole = read(&path);
        // Unit tests may use keys no catalogue has, on purpose (i18n.rs's do): read up to them.
        let text = whole
            .split("#[cfg(test)]\nmod tests")
            .next()
            .unwrap_or_default();
        for key in after(text, "t!(\"", '"') {
            note(key, &path);
        }
        for key in after(text, "plural(\"", '"') {
            note(format!("{key}_one"), &path);
            note(format!("{key}_other"), &path);
        }
    }
    let mut pages = Vec::new();
    files(&root.join("assets"), "html", &mut pages);
    files(&root.join("assets"), "js", &mut pages);
    for path in pages {
        let text = read(&path);
        for marker in [
            "data-i18n=\"",
            "data-i18n-placeholder=\"",
            "data-i18n-aria-label=\"",
            "data-i18n-title=\"",
        ] {
            for key in after(&text, marker, '"') {
                note(key, &path);
            }
        }
        for key in after(&text, "getMessage('", '\'') {
            note(key, &path);
        }
    }
    let manifest = root.join("manifest.json");
    let manifest_text = read(&manifest);
    for (at, _) in manifest_text.match_indices("__MSG_") {
        let rest = &manifest_text[at + "__MSG_".len()..];
        if let Some(end) = rest.find("__") {
            note(rest[..end].to_owned(), &manifest);
        }
    }
    used
}

#[test]
fn every_key_used_is_in_both_catalogues() {
    let used = used_keys();
    assert!(
        used.len() > 20,
        "the scan found only {} keys: is it reading the sources?",
        used.len()
    );
    for language in ["en", "fr"] {
        let catalogue = catalogue(language);
        let missing: Vec<String> = used
            .iter()
            .filter(|(key, _)| catalogue.message(key, &[]).is_none())
            .map(|(key, place)| format!("{key} (used in {place})"))
            .collect();
        assert!(
            missing.is_empty(),
            "_locales/{language} lacks: {missing:#?}"
        );
    }
}

#[test]
fn the_catalogues_hold_the_same_keys_with_the_same_substitutions_and_nothing_unused() {
    let (english, french) = (catalogue("en"), catalogue("fr"));
    let en: BTreeSet<&str> = english.keys().collect();
    let fr: BTreeSet<&str> = french.keys().collect();
    assert_eq!(
        en.difference(&fr).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "in English only"
    );
    assert_eq!(
        fr.difference(&en).collect::<Vec<_>>(),
        Vec::<&&str>::new(),
        "in French only"
    );
    for key in &en {
        assert_eq!(
            english.positions(key),
            french.positions(key),
            "{key}: $n differ between en and fr"
        );
    }
    let used = used_keys();
    let unused: Vec<&&str> = en
        .iter()
        .filter(|key| !used.contains_key(**key) && **key != "lang")
        .collect();
    assert!(
        unused.is_empty(),
        "keys no code uses (remove them): {unused:#?}"
    );
}

#[test]
fn french_puts_a_no_break_space_before_high_punctuation() {
    let french = catalogue("fr");
    for key in french.keys() {
        let message = french.message(key, &[]).unwrap_or_default();
        for mark in ['?', '!', ':', ';', '%', '»'] {
            assert!(
                !message.contains(&format!(" {mark}")),
                "{key}: use a no-break space (U+00A0) before '{mark}' in {message:?}"
            );
        }
        assert!(
            !message.contains("« "),
            "{key}: use a no-break space after '«' in {message:?}"
        );
    }
}

/// The address-bar lines are XML the browser parses (and refuses when malformed): a translation
/// keeps to text, `&amp;`/`&lt;`/`&gt;`, and balanced `<match>`, `<url>`, `<dim>`.
#[test]
fn the_address_bar_lines_are_well_formed_in_both_languages() {
    for language in ["en", "fr"] {
        let catalogue = catalogue(language);
        let mut keys: Vec<&str> = catalogue
            .keys()
            .filter(|k| k.starts_with("omnibox_"))
            .collect();
        keys.sort_unstable();
        assert!(
            keys.len() >= 5,
            "{language}: the omnibox's lines are in the catalogue"
        );
        for key in keys {
            let xml = catalogue.message(key, &[]).unwrap_or_default();
            let mut open = Vec::new();
            let mut rest = xml.as_str();
            while let Some(at) = rest.find(['<', '&']) {
                let tail = &rest[at..];
                if tail.starts_with('&') {
                    let entity = ["&amp;", "&lt;", "&gt;"]
                        .iter()
                        .find(|e| tail.starts_with(**e));
                    let entity =
                        entity.unwrap_or_else(|| panic!("{language} {key}: bare & in {xml:?}"));
                    rest = &tail[entity.len()..];
                    continue;
                }
                let end = tail
                    .find('>')
                    .unwrap_or_else(|| panic!("{language} {key}: unclosed tag in {xml:?}"));
                let tag = &tail[1..end];
                match tag.strip_prefix('/') {
                    Some(closing) => {
                        assert_eq!(open.pop(), Some(closing), "{language} {key}: {xml:?}")
                    }
                    None => {
                        assert!(
                            ["match", "url", "dim"].contains(&tag),
                            "{language} {key}: <{tag}> in {xml:?}"
                        );
                        open.push(tag);
                    }
                }
                rest = &tail[end + 1..];
            }
            assert!(
                open.is_empty(),
                "{language} {key}: unclosed {open:?} in {xml:?}"
            );
        }
    }
}

#[test]
fn french_uses_the_typographic_apostrophe() {
    let french = catalogue("fr");
    for key in french.keys() {
        let message = french.message(key, &[]).unwrap_or_default();
        assert!(
            !message.contains('\''),
            "{key}: write ’ (U+2019), not ', in {message:?}"
        );
    }
}
