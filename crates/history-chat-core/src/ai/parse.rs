//! Tolerant readers for what the model writes back: the keywords of the expansion call and the
//! picks of the ranking call ([`crate::ai::pipeline::ai_search`]).
//!
//! Both calls ask for raw JSON, and usually get it; when they do not, the text may be wrapped in a
//! markdown code fence, surrounded by prose, wrapped in an object, or cut short by the token limit.
//! [`json_array`] finds the array in all of these; a cut array keeps its complete items.
//!
//! Keywords are normalised to what the browser's history search can use: one lowercase word each.
//! An entry of several words is **split** into its words (kept in order, in its place) rather than
//! dropped: the search is word-based, so each word still finds pages, and the model's effort is not
//! wasted. Surrounding punctuation is trimmed (but `c++` and `c#` keep their signs).

use std::collections::HashSet;

use serde_json::Value;
use thiserror::Error;

use crate::ai::prompts::MAX_PICKS;

/// Longest reason kept, in characters: one line in the popup.
pub const REASON_MAX_CHARS: usize = 160;

/// Fallback keywords are the question's words longer than this many characters (shorter ones are
/// mostly stop words: "the", "les", "sur").
pub const FALLBACK_MIN_CHARS: usize = 4;

/// Most cuts tried when repairing an array cut short (each is one parse; answers are small).
const MAX_REPAIRS: usize = 64;

/// Why a model answer could not be used.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum ParseError {
    /// Nothing but whitespace.
    #[error("the answer is empty")]
    Empty,
    /// No JSON array anywhere in the text.
    #[error("the answer holds no JSON array")]
    NoArray,
    /// An array, but no usable entry in it.
    #[error("the answer holds nothing usable")]
    NothingUsable,
}

/// Reads the keywords of an expansion answer: lowercase single words, without duplicates, at most
/// `max`, in the model's order.
pub fn keywords(text: &str, max: usize) -> Result<Vec<String>, ParseError> {
    let items = json_array(text, &["keywords"])?;
    let mut words = Words::default();
    for item in &items {
        match item {
            Value::String(entry) => words.add_all(entry),
            Value::Number(n) if n.is_u64() || n.is_i64() => words.add_all(&n.to_string()),
            _ => {}
        }
    }
    let mut words = words.0;
    words.truncate(max);
    if words.is_empty() {
        Err(ParseError::NothingUsable)
    } else {
        Ok(words)
    }
}

/// The keywords used when the model gives none: the question's words longer than three characters
/// (letters and digits in any script; punctuation splits words), lowercase, deduplicated, in order,
/// at most `max`. When no word is that long, all its words are used: searching short words beats
/// searching nothing.
pub fn fallback_keywords(question: &str, max: usize) -> Vec<String> {
    let words: Vec<String> = question
        .split(|c: char| !c.is_alphanumeric())
        .filter(|w| !w.is_empty())
        .map(str::to_lowercase)
        .collect();
    let long = words
        .iter()
        .filter(|w| w.chars().count() >= FALLBACK_MIN_CHARS)
        .cloned()
        .collect::<Vec<_>>();
    let chosen = if long.is_empty() { words } else { long };
    let mut unique = Words::default();
    for word in chosen {
        unique.push(word);
    }
    let mut words = unique.0;
    words.truncate(max);
    words
}

/// Keywords in order, each once.
#[derive(Debug, Default)]
struct Words(Vec<String>, HashSet<String>);

impl Words {
    fn add_all(&mut self, entry: &str) {
        for word in entry.split_whitespace() {
            let word = word
                .trim_matches(|c: char| !c.is_alphanumeric() && c != '+' && c != '#')
                .trim_start_matches(['+', '#'])
                .to_lowercase();
            if word.chars().any(char::is_alphanumeric) {
                self.push(word);
            }
        }
    }

    fn push(&mut self, word: String) {
        if self.1.insert(word.clone()) {
            self.0.push(word);
        }
    }
}

/// One page the model picked.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pick {
    /// Index in the candidates sent (the prompt's id minus one).
    pub index: usize,
    /// Why, on one line; empty when the model gave none.
    pub reason: String,
}

/// Something in a ranking answer that was ignored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum RankingIssue {
    /// An id that is not one we sent (as the model wrote it).
    UnknownId(String),
    /// An id picked twice; the first pick stands.
    Duplicate(usize),
    /// A pick beyond the [`MAX_PICKS`]th.
    BeyondLimit(usize),
    /// An entry with no id at all.
    NoId,
}

/// Reads a ranking answer for `candidate_count` candidates (ids `1..=candidate_count`): the picks,
/// best first, at most [`MAX_PICKS`], and what was ignored. An empty list is a valid answer
/// ("nothing fits").
pub fn ranking(
    text: &str,
    candidate_count: usize,
) -> Result<(Vec<Pick>, Vec<RankingIssue>), ParseError> {
    let items = json_array(text, &["picks", "results", "ranking", "pages"])?;
    let mut picks: Vec<Pick> = Vec::new();
    let mut issues = Vec::new();
    for item in &items {
        let (id, reason) = match item {
            Value::Object(fields) => (fields.get("id"), fields.get("reason")),
            other => (Some(other), None),
        };
        let Some(id) = id else {
            issues.push(RankingIssue::NoId);
            continue;
        };
        let index = read_id(id)
            .filter(|id| (1..=candidate_count).contains(id))
            .map(|id| id - 1);
        let Some(index) = index else {
            issues.push(RankingIssue::UnknownId(id_text(id)));
            continue;
        };
        if picks.iter().any(|pick| pick.index == index) {
            issues.push(RankingIssue::Duplicate(index + 1));
        } else if picks.len() == MAX_PICKS {
            issues.push(RankingIssue::BeyondLimit(index + 1));
        } else {
            picks.push(Pick {
                index,
                reason: reason
                    .and_then(Value::as_str)
                    .map(reason_line)
                    .unwrap_or_default(),
            });
        }
    }
    Ok((picks, issues))
}

/// An id as a number (`3`, `3.0`) or a numeric string (`"3"`, `" 3 "`).
fn read_id(id: &Value) -> Option<usize> {
    match id {
        Value::Number(n) => n
            .as_u64()
            .or_else(|| {
                n.as_f64()
                    .filter(|f| f.fract() == 0.0 && *f >= 0.0)
                    .map(|f| f as u64)
            })
            .and_then(|n| usize::try_from(n).ok()),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

fn id_text(id: &Value) -> String {
    let text = match id {
        Value::String(s) => s.clone(),
        other => other.to_string(),
    };
    text.chars().take(20).collect()
}

/// A reason on one line: whitespace collapsed, cut to [`REASON_MAX_CHARS`] with "…".
fn reason_line(reason: &str) -> String {
    let line: String = reason
        .split(|c: char| c.is_whitespace() || c.is_control())
        .filter(|w| !w.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    match line.char_indices().nth(REASON_MAX_CHARS - 1) {
        Some((cut, _)) if line[cut..].chars().count() > 1 => format!("{}…", line[..cut].trim_end()),
        _ => line,
    }
}

/// The JSON array in a model answer: the whole text, or inside a code fence, or the first `[...]`
/// in prose, or the array field of an object (`field_names` first, then any), or the complete items
/// of an array cut short.
pub fn json_array(text: &str, field_names: &[&str]) -> Result<Vec<Value>, ParseError> {
    let text = strip_fence(text).trim();
    if text.is_empty() {
        return Err(ParseError::Empty);
    }
    if let Ok(value) = serde_json::from_str::<Value>(text)
        && let Some(items) = array_in(value, field_names)
    {
        return Ok(items);
    }
    // An object or array in prose: parse from each opening bracket, ignoring what follows the value.
    for (start, _) in text.match_indices(['[', '{']) {
        let mut values = serde_json::Deserializer::from_str(&text[start..]).into_iter::<Value>();
        if let Some(Ok(value)) = values.next()
            && let Some(items) = array_in(value, field_names)
        {
            return Ok(items);
        }
    }
    if let Some(start) = text.find('[') {
        return repair_cut_array(&text[start..]).ok_or(ParseError::NoArray);
    }
    Err(ParseError::NoArray)
}

/// The text inside the first markdown code fence (```` ```json ... ``` ````), or the text itself.
/// An unclosed fence (a cut answer) runs to the end.
fn strip_fence(text: &str) -> &str {
    let Some(open) = text.find("```") else {
        return text;
    };
    let after = &text[open + 3..];
    // Skip the language tag: the rest of the fence line.
    let body = after.find('\n').map_or("", |eol| &after[eol + 1..]);
    let body = if after.trim_start().starts_with(['[', '{']) {
        after
    } else {
        body
    };
    body.find("```").map_or(body, |close| &body[..close])
}

fn array_in(value: Value, field_names: &[&str]) -> Option<Vec<Value>> {
    match value {
        Value::Array(items) => Some(items),
        Value::Object(mut fields) => {
            let name = field_names
                .iter()
                .find(|name| fields.get(**name).is_some_and(Value::is_array))
                .map(|name| (*name).to_owned())
                .or_else(|| {
                    fields
                        .iter()
                        .find(|(_, v)| v.is_array())
                        .map(|(k, _)| k.clone())
                })?;
            match fields.remove(&name) {
                Some(Value::Array(items)) => Some(items),
                _ => None,
            }
        }
        _ => None,
    }
}

/// `["a", "b", "c` → `["a", "b"]`: cuts after the last complete item (trying each comma from the
/// end) and closes the array.
fn repair_cut_array(text: &str) -> Option<Vec<Value>> {
    let mut end = text.len();
    for _ in 0..MAX_REPAIRS {
        let comma = text[..end].rfind(',')?;
        if let Ok(Value::Array(items)) = serde_json::from_str(&format!("{}]", &text[..comma])) {
            return Some(items);
        }
        end = comma;
    }
    None
}

#[cfg(test)]
mod tests;
