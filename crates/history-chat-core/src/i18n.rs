//! Every sentence the user reads, looked up by key in the extension's catalogues
//! (`_locales/<language>/messages.json`, English and French).
//!
//! The extension installs the browser's lookup (`chrome.i18n.getMessage`, which picks the catalogue
//! of the browser's UI language and falls back to English, the manifest's `default_locale`, for a
//! key French lacks) once per page or worker, with [`install`]. Everything is then worded through
//! [`t!`](crate::t), [`plural`] and [`number`]; no user-facing sentence is written in Rust. In the
//! core only its presentation layer, `wording`, calls them (`history-chat-architecture` checks
//! it); the pages call them for their own labels.
//!
//! Natively (tests, examples, benchmarks) nothing is installed: the English catalogue, compiled in,
//! answers, with the browser's own substitution rules, so a test of a message reads the words a user
//! of the English UI reads. [`Catalogue`] parses and applies a catalogue; the repository's test
//! `catalogues` checks that both catalogues hold every key the code uses, with the same
//! substitutions.
//!
//! Substitutions are positional: `$1` … `$9` in a message take the arguments in order (named
//! `$placeholder$`s, as Chrome documents them, are resolved too), and `$$` is a dollar sign.

use std::collections::HashMap;
use std::sync::OnceLock;

/// The message `key` of the UI's catalogue, arguments given as anything printable:
/// `t!("rows_removed", title)` substitutes `title` for `$1`.
#[macro_export]
macro_rules! t {
    ($key:literal $(,)?) => {
        $crate::i18n::text($key, &[])
    };
    ($key:literal, $($arg:expr),+ $(,)?) => {
        $crate::i18n::text($key, &[$(::std::string::ToString::to_string(&$arg)),+])
    };
}

/// How the browser looks a message up: its key and the substitutions, in order; `None` when no
/// catalogue has the key.
pub type Lookup = fn(key: &str, args: &[String]) -> Option<String>;

static LOOKUP: OnceLock<Lookup> = OnceLock::new();

/// Routes every later lookup to the browser's catalogues. The first call wins: a page or worker
/// has one UI language for its whole life.
pub fn install(lookup: Lookup) {
    // A second install (a page that mounts twice) would install the same lookup: ignore it.
    let _ = LOOKUP.set(lookup);
}

/// The message `key`, with `args` substituted for `$1`, `$2`, …. A key no catalogue has reads as
/// the key itself, so a gap shows (and the `catalogues` test fails) rather than an empty label.
pub fn text(key: &str, args: &[String]) -> String {
    let found = match LOOKUP.get() {
        Some(lookup) => lookup(key, args),
        None => built_in(key, args),
    };
    found.unwrap_or_else(|| key.to_owned())
}

/// The language whose catalogue answers, as the catalogue itself says (its `lang` message):
/// `"en"` or `"fr"`. For `<html lang>` and plural rules.
pub fn language() -> String {
    text("lang", &[])
}

/// `key_one` or `key_other` by the UI language's plural rule for `count`, with `count` as `$1`
/// (digits grouped, see [`number`]) and `args` after it. English says "1 day" and "0 days";
/// French "1 jour" and "0 jour".
pub fn plural(key: &str, count: i64, args: &[String]) -> String {
    let one = match language().as_str() {
        "fr" => count == 0 || count == 1,
        _ => count == 1,
    };
    let form = if one { "one" } else { "other" };
    let mut all = Vec::with_capacity(args.len() + 1);
    all.push(number(count));
    all.extend_from_slice(args);
    text(&format!("{key}_{form}"), &all)
}

/// A count with its digits grouped in threes as the UI language writes them: "12,345" in
/// English, "12 345" (a narrow no-break space) in French.
pub fn number(count: i64) -> String {
    let separator = t!("number_group_separator");
    let digits = count.unsigned_abs().to_string();
    let mut grouped = String::with_capacity(digits.len() + 8);
    if count < 0 {
        grouped.push('-');
    }
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            grouped.push_str(&separator);
        }
        grouped.push(digit);
    }
    grouped
}

#[cfg(not(target_arch = "wasm32"))]
thread_local! {
    static NATIVE: std::cell::RefCell<Option<Catalogue>> = const { std::cell::RefCell::new(None) };
}

/// Natively, words everything `run` does (on this thread) from `catalogue` instead of English:
/// how a test reads the French UI.
#[cfg(not(target_arch = "wasm32"))]
pub fn with_catalogue<R>(catalogue: Catalogue, run: impl FnOnce() -> R) -> R {
    let previous = NATIVE.with(|native| native.replace(Some(catalogue)));
    let result = run();
    NATIVE.with(|native| native.replace(previous));
    result
}

/// The English catalogue answers natively, where no browser is installed, unless a test chose
/// another ([`with_catalogue`]).
#[cfg(not(target_arch = "wasm32"))]
fn built_in(key: &str, args: &[String]) -> Option<String> {
    static ENGLISH: OnceLock<Catalogue> = OnceLock::new();
    let chosen = NATIVE.with(|native| native.borrow().as_ref().map(|c| c.message(key, args)));
    chosen.unwrap_or_else(|| {
        ENGLISH
            .get_or_init(|| Catalogue::parse(ENGLISH_CATALOGUE).unwrap_or_default())
            .message(key, args)
    })
}

/// In the extension the browser answers; before [`install`] nothing does.
#[cfg(target_arch = "wasm32")]
fn built_in(_key: &str, _args: &[String]) -> Option<String> {
    None
}

/// The English catalogue as shipped.
#[cfg(not(target_arch = "wasm32"))]
pub const ENGLISH_CATALOGUE: &str = include_str!("../../../_locales/en/messages.json");

/// The French catalogue as shipped, for tests of the French wording.
#[cfg(all(test, not(target_arch = "wasm32")))]
pub(crate) const FRENCH_CATALOGUE: &str = include_str!("../../../_locales/fr/messages.json");

/// A catalogue file: `{ "key": { "message": "…", "placeholders": { "name": { "content": "$1" } } } }`.
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Catalogue {
    messages: HashMap<String, String>,
}

#[derive(serde::Deserialize)]
struct Entry {
    message: String,
    #[serde(default)]
    placeholders: HashMap<String, Placeholder>,
}

#[derive(serde::Deserialize)]
struct Placeholder {
    content: String,
}

impl Catalogue {
    /// Reads a `messages.json`. Named placeholders are resolved here, as the browser does when it
    /// loads a catalogue, so each message holds only `$1` … `$9` and `$$`.
    pub fn parse(json: &str) -> Result<Catalogue, serde_json::Error> {
        let entries: HashMap<String, Entry> = serde_json::from_str(json)?;
        let messages = entries
            .into_iter()
            .map(|(key, entry)| {
                let mut message = entry.message;
                for (name, placeholder) in &entry.placeholders {
                    message = replace_named(&message, name, &placeholder.content);
                }
                (key.to_ascii_lowercase(), message)
            })
            .collect();
        Ok(Catalogue { messages })
    }

    /// Keys, lower-cased as the browser matches them.
    pub fn keys(&self) -> impl Iterator<Item = &str> {
        self.messages.keys().map(String::as_str)
    }

    /// The message `key` (case-insensitive, as the browser matches keys) with `args` substituted.
    pub fn message(&self, key: &str, args: &[String]) -> Option<String> {
        let raw = self.messages.get(&key.to_ascii_lowercase())?;
        Some(substitute(raw, args))
    }

    /// The positional substitutions (`1` for `$1`) a message uses.
    pub fn positions(&self, key: &str) -> Option<Vec<u8>> {
        let raw = self.messages.get(&key.to_ascii_lowercase())?;
        let mut found = Vec::new();
        let mut chars = raw.chars().peekable();
        while let Some(c) = chars.next() {
            if c != '$' {
                continue;
            }
            match chars.peek() {
                Some('$') => {
                    chars.next();
                }
                Some(d @ '1'..='9') => {
                    found.push(*d as u8 - b'0');
                    chars.next();
                }
                _ => {}
            }
        }
        found.sort_unstable();
        found.dedup();
        Some(found)
    }
}

/// `$name$` (case-insensitive) → `content`.
fn replace_named(message: &str, name: &str, content: &str) -> String {
    let needle = format!("${}$", name.to_ascii_lowercase());
    let lower = message.to_ascii_lowercase();
    let mut out = String::with_capacity(message.len());
    let mut rest = 0;
    for (at, _) in lower.match_indices(&needle) {
        out.push_str(&message[rest..at]);
        out.push_str(content);
        rest = at + needle.len();
    }
    out.push_str(&message[rest..]);
    out
}

/// `$1` … `$9` → the arguments (nothing when absent), `$$` → `$`.
fn substitute(message: &str, args: &[String]) -> String {
    let mut out = String::with_capacity(message.len());
    let mut chars = message.chars().peekable();
    while let Some(c) = chars.next() {
        if c != '$' {
            out.push(c);
            continue;
        }
        match chars.peek().copied() {
            Some('$') => {
                chars.next();
                out.push('$');
            }
            Some(d @ '1'..='9') => {
                chars.next();
                if let Some(arg) = args.get(usize::from(d as u8 - b'1')) {
                    out.push_str(arg);
                }
            }
            _ => out.push('$'),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn messages_substitute_positions_named_placeholders_and_dollars() {
        let catalogue = Catalogue::parse(
            r#"{
              "Plain": { "message": "Hello" },
              "positional": { "message": "$2 then $1, $3 absent" },
              "named": { "message": "Costs $$5 for $WHO$", "placeholders": { "who": { "content": "$1" } } }
            }"#,
        )
        .unwrap();
        let args = |list: &[&str]| list.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        let rows: &[(&str, &[&str], Option<&str>)] = &[
            ("plain", &[], Some("Hello")),
            ("PLAIN", &[], Some("Hello")),
            ("positional", &["a", "b"], Some("b then a,  absent")),
            ("named", &["you"], Some("Costs $5 for you")),
            ("missing", &[], None),
        ];
        for (key, given, expected) in rows {
            assert_eq!(
                catalogue.message(key, &args(given)).as_deref(),
                *expected,
                "{key}"
            );
        }
        assert_eq!(catalogue.positions("positional"), Some(vec![1, 2, 3]));
        assert_eq!(catalogue.positions("named"), Some(vec![1]));
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))] // natively, the catalogues are compiled in
    fn natively_the_english_catalogue_answers_and_a_missing_key_shows_itself() {
        assert_eq!(language(), "en");
        assert_eq!(t!("ext_name"), "History Chat");
        assert_eq!(t!("no_such_key_anywhere"), "no_such_key_anywhere");
    }

    #[test]
    #[cfg(not(target_arch = "wasm32"))] // natively, the catalogues are compiled in
    fn plurals_follow_each_languages_rule() {
        let rows: &[(i64, &str, &str)] = &[
            (0, "0 minutes ago", "il y a 0 minute"),
            (1, "1 minute ago", "il y a 1 minute"),
            (2, "2 minutes ago", "il y a 2 minutes"),
        ];
        let french = Catalogue::parse(FRENCH_CATALOGUE).unwrap();
        for (count, english, in_french) in rows {
            assert_eq!(plural("time_minutes_ago", *count, &[]), *english);
            let worded = with_catalogue(french.clone(), || plural("time_minutes_ago", *count, &[]));
            assert_eq!(worded, *in_french);
        }
        assert_eq!(with_catalogue(french.clone(), language), "fr");
        let rows: &[(i64, &str, &str)] = &[
            (7, "7", "7"),
            (1234, "1,234", "1\u{202f}234"),
            (-1_234_567, "-1,234,567", "-1\u{202f}234\u{202f}567"),
        ];
        for (count, english, in_french) in rows {
            assert_eq!(number(*count), *english);
            assert_eq!(
                with_catalogue(french.clone(), || number(*count)),
                *in_french
            );
        }
    }
}
