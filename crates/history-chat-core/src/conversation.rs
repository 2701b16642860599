//! The conversation log: one stored record per turn (a question and its answer).
//!
//! Each turn is its own `chrome.storage.local` item, under a key that starts with [`KEY_PREFIX`] and
//! holds the time it was asked plus a random nonce. Writers never read-modify-write a shared list, so
//! two popups (or a popup and the options page) writing at the same moment can never lose each
//! other's turns; and the time in the key lets retention delete a turn even when its value is
//! unreadable.

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ai::Depth;
use crate::ai::model::{ModelFailure, Usage};
use crate::ai::pipeline::AiAnswer;
use crate::ai::provider::Engine;
use crate::clean::clean_url;
use crate::history::{Page, RemovedVisits};
use crate::lenient::or_default;
use crate::period::Period;
use crate::settings::Retention;

/// Every conversation key starts with this.
pub const KEY_PREFIX: &str = "log:";

/// Turns kept at most, newest first, whatever the retention: `chrome.storage.local` holds 10 MB and
/// a turn with 20 results takes about 5 KB, so this stays far below the quota.
pub const MAX_TURNS: usize = 200;

/// Which engine answered a turn.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    /// Searched on this device with the browser's history search; nothing left the machine.
    #[default]
    Local,
    /// Keywords and ranking by Gemini, with the user's API key.
    Gemini,
    /// Keywords and ranking by Chrome's built-in model, on the device.
    OnDevice,
}

impl Mode {
    /// The engine of this mode.
    pub const fn engine(self) -> Engine {
        match self {
            Mode::Local => Engine::Local,
            Mode::Gemini => Engine::Gemini,
            Mode::OnDevice => Engine::OnDevice,
        }
    }

    /// How the popup names the engine that answered.
    pub const fn label(self) -> &'static str {
        match self {
            Mode::Local => "Local",
            Mode::Gemini => "Gemini",
            Mode::OnDevice => "On-device",
        }
    }
}

/// A page of an answer, with the model's reason when a model ranked it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TurnResult {
    /// The page.
    #[serde(flatten)]
    pub page: Page,
    /// Why the model picked it, one line; empty in local mode or when unranked.
    #[serde(
        default,
        skip_serializing_if = "String::is_empty",
        deserialize_with = "or_default"
    )]
    pub reason: String,
}

impl From<Page> for TurnResult {
    fn from(page: Page) -> TurnResult {
        TurnResult {
            page,
            reason: String::new(),
        }
    }
}

/// How an AI turn was made: what the popup shows on demand, and what it cost.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct AiDetails {
    /// The depth asked for.
    #[serde(deserialize_with = "or_default")]
    pub depth: Depth,
    /// The model that answered.
    #[serde(deserialize_with = "or_default")]
    pub model: String,
    /// The keywords searched, in order.
    #[serde(deserialize_with = "or_default")]
    pub keywords: Vec<String>,
    /// Whether the keywords are the question's own words (the model's were not usable).
    #[serde(deserialize_with = "or_default")]
    pub keywords_from_question: bool,
    /// Candidates sent for ranking.
    #[serde(deserialize_with = "or_default")]
    pub candidate_count: usize,
    /// What the user was told about fallbacks, one sentence each.
    #[serde(deserialize_with = "or_default")]
    pub notices: Vec<String>,
    /// Tokens used (`usageMetadata`, summed over the calls).
    #[serde(deserialize_with = "or_default")]
    pub usage: Usage,
    /// The user cancelled the search.
    #[serde(deserialize_with = "or_default")]
    pub cancelled: bool,
    /// The model itself was unavailable (on-device: session gone, model removed): the host should
    /// start a new session before the next question.
    #[serde(
        deserialize_with = "or_default",
        skip_serializing_if = "std::ops::Not::not"
    )]
    pub model_unavailable: bool,
}

/// One question and its answer.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Turn {
    /// When the question was asked, in ms since the Unix epoch.
    #[serde(default, deserialize_with = "or_default")]
    pub at_ms: i64,
    /// The question as the user typed it.
    #[serde(default, deserialize_with = "or_default")]
    pub question: String,
    /// The period searched.
    #[serde(default, deserialize_with = "or_default")]
    pub period: Period,
    /// The engine that answered.
    #[serde(default, deserialize_with = "or_default")]
    pub mode: Mode,
    /// The pages found, best first.
    #[serde(default, deserialize_with = "or_default")]
    pub results: Vec<TurnResult>,
    /// What went wrong, when the search failed or fell back.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "or_default"
    )]
    pub error: Option<String>,
    /// A line about how the question was answered (why not by the engine the user chose).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "or_default"
    )]
    pub note: Option<String>,
    /// How an AI turn was made; `None` in local mode.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "or_default"
    )]
    pub ai: Option<AiDetails>,
}

impl Turn {
    /// A local-mode turn: the pages found, or what went wrong.
    pub fn local(
        at_ms: i64,
        question: &str,
        period: Period,
        outcome: Result<Vec<Page>, String>,
    ) -> Turn {
        let (results, error) = match outcome {
            Ok(pages) => (pages.into_iter().map(TurnResult::from).collect(), None),
            Err(error) => (Vec::new(), Some(error)),
        };
        Turn {
            at_ms,
            question: question.trim().to_owned(),
            period,
            mode: Mode::Local,
            results,
            error,
            note: None,
            ai: None,
        }
    }

    /// An AI turn from the pipeline's answer: picks with their reasons, the failure (if any) as the
    /// error, the notices as sentences.
    pub fn from_ai(
        at_ms: i64,
        question: &str,
        period: Period,
        mode: Mode,
        depth: Depth,
        answer: AiAnswer,
    ) -> Turn {
        let error = match (&answer.failure, answer.cancelled) {
            (_, true) => Some("Search cancelled.".to_owned()),
            (Some(failure), false) => Some(failure.user_message(mode.engine())),
            (None, false) => None,
        };
        Turn {
            at_ms,
            question: question.trim().to_owned(),
            period,
            mode,
            results: answer
                .picks
                .into_iter()
                .map(|pick| TurnResult {
                    page: pick.page,
                    reason: pick.reason,
                })
                .collect(),
            error,
            note: None,
            ai: Some(AiDetails {
                depth,
                model: answer.model_used,
                keywords: answer.keywords,
                keywords_from_question: answer.keywords_from_fallback,
                candidate_count: answer.candidate_count,
                notices: answer
                    .notices
                    .iter()
                    .map(|notice| notice.message())
                    .collect(),
                usage: answer.usage,
                cancelled: answer.cancelled,
                model_unavailable: answer
                    .failure
                    .as_ref()
                    .is_some_and(ModelFailure::is_unavailable),
            }),
        }
    }
}

impl Turn {
    /// Takes out the results showing one of `gone` (cleaned URLs of pages the user removed from
    /// history); says whether any was. The rest of the turn (question, notices, error) stays.
    pub fn drop_pages(&mut self, gone: &HashSet<String>) -> bool {
        let before = self.results.len();
        self.results
            .retain(|result| !gone.contains(&result.page.url));
        self.results.len() != before
    }
}

/// A turn with the storage key it lives under.
#[derive(Debug, Clone, PartialEq)]
pub struct StoredTurn {
    /// The `chrome.storage.local` key (see [`turn_key`]).
    pub key: String,
    /// The turn.
    pub turn: Turn,
}

/// The key for a turn asked at `at_ms`: `log:<at_ms, 13 digits>:<nonce, 8 hex digits>`. Keys sort
/// by time as text; the nonce keeps two turns asked in the same millisecond apart.
pub fn turn_key(at_ms: i64, nonce: u32) -> String {
    format!("{KEY_PREFIX}{:013}:{nonce:08x}", at_ms.max(0))
}

/// The time a key was written, if it is a conversation key.
pub fn key_time_ms(key: &str) -> Option<i64> {
    let rest = key.strip_prefix(KEY_PREFIX)?;
    let (time, _nonce) = rest.split_once(':')?;
    time.parse().ok()
}

/// The conversation as read from storage, and the housekeeping it needs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct LoadedConversation {
    /// Turns to show, newest first.
    pub turns: Vec<StoredTurn>,
    /// Keys to delete: turns older than the retention, or beyond [`MAX_TURNS`].
    pub expired: Vec<String>,
    /// Keys kept but not shown because their value could not be read (perhaps a newer version's).
    pub unreadable: Vec<String>,
}

/// Reads the conversation out of every stored `(key, value)` pair (other keys are ignored) and
/// applies the retention at `now_ms`.
pub fn load(
    entries: impl IntoIterator<Item = (String, Value)>,
    now_ms: i64,
    retention: Retention,
) -> LoadedConversation {
    let cutoff = retention.cutoff_ms(now_ms);
    let mut loaded = LoadedConversation::default();
    let mut entries: Vec<(String, i64, Value)> = entries
        .into_iter()
        .filter_map(|(key, value)| key_time_ms(&key).map(|at| (key, at, value)))
        .collect();
    // Newest first: keys sort by time, then nonce.
    entries.sort_by(|a, b| b.0.cmp(&a.0));
    for (key, at_ms, value) in entries {
        let expired_by_age = cutoff.is_some_and(|cutoff| at_ms < cutoff);
        if expired_by_age || loaded.turns.len() >= MAX_TURNS {
            loaded.expired.push(key);
            continue;
        }
        let turn = match value {
            Value::Object(_) => serde_json::from_value::<Turn>(value).ok(),
            _ => None,
        };
        match turn {
            Some(turn) => loaded.turns.push(StoredTurn { key, turn }),
            None => loaded.unreadable.push(key),
        }
    }
    loaded
}

/// What to write back after pages were deleted from the browser's history
/// (`chrome.history.onVisitRemoved`), so that no stored answer still shows them.
///
/// `entries` are the stored `(key, value)` pairs as read from `chrome.storage.local` (other keys
/// are ignored). Returns the turns to rewrite under their keys, without the removed results: every
/// turn that had results when `removed.all_history`, otherwise only the turns that showed one of
/// `removed.urls`. Stored results hold cleaned URLs, so each removed raw URL is cleaned
/// ([`clean_url`]) before comparing; a raw URL that cleaning rejects was never shown. A value that
/// is not a readable turn is left alone (as [`load`] keeps it), and nothing is written for a
/// turn that did not change.
pub fn forget_removed(
    entries: impl IntoIterator<Item = (String, Value)>,
    removed: &RemovedVisits,
) -> Vec<StoredTurn> {
    let gone: HashSet<String> = removed
        .urls
        .iter()
        .filter_map(|raw| clean_url(raw).ok())
        .map(String::from)
        .collect();
    if !removed.all_history && gone.is_empty() {
        return Vec::new();
    }
    entries
        .into_iter()
        .filter(|(key, _)| key_time_ms(key).is_some())
        .filter_map(|(key, value)| {
            let mut turn = match value {
                Value::Object(_) => serde_json::from_value::<Turn>(value).ok()?,
                _ => return None,
            };
            let before = turn.results.len();
            turn.results
                .retain(|result| !removed.all_history && !gone.contains(&result.page.url));
            (turn.results.len() != before).then_some(StoredTurn { key, turn })
        })
        .collect()
}

/// Every conversation key among stored keys: what "Clear conversation" removes.
pub fn all_keys<'a>(keys: impl IntoIterator<Item = &'a str>) -> Vec<String> {
    keys.into_iter()
        .filter(|key| key_time_ms(key).is_some())
        .map(str::to_owned)
        .collect()
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::period::DAY_MS;

    const NOW: i64 = 1_780_000_000_000;

    fn turn(at_ms: i64, question: &str) -> Turn {
        let page = Page {
            url: "https://a.example/".into(),
            title: "A".into(),
            last_visit_ms: at_ms - 1,
            visit_count: 2,
        };
        Turn::local(at_ms, question, Period::Week, Ok(vec![page]))
    }

    fn stored(at_ms: i64, nonce: u32, question: &str) -> (String, Value) {
        (
            turn_key(at_ms, nonce),
            serde_json::to_value(turn(at_ms, question)).unwrap(),
        )
    }

    fn questions(loaded: &LoadedConversation) -> Vec<&str> {
        loaded
            .turns
            .iter()
            .map(|t| t.turn.question.as_str())
            .collect()
    }

    #[test]
    fn keys_carry_time_and_sort_by_it() {
        assert_eq!(
            turn_key(1_780_000_000_000, 0xab),
            "log:1780000000000:000000ab"
        );
        assert_eq!(turn_key(5, 1), "log:0000000000005:00000001");
        assert!(turn_key(999, u32::MAX) < turn_key(1_000, 0));
        assert_eq!(
            key_time_ms("log:1780000000000:000000ab"),
            Some(1_780_000_000_000)
        );
        for not_ours in ["settings", "log:", "log:abc:1", "logs:1:2", "index:1"] {
            assert_eq!(key_time_ms(not_ours), None, "{not_ours}");
        }
    }

    #[test]
    fn turns_round_trip_in_the_documented_shape() {
        let value = serde_json::to_value(turn(NOW, "recursive cte")).unwrap();
        assert_eq!(
            value,
            json!({"atMs": NOW, "question": "recursive cte", "period": "7d", "mode": "local",
                   "results": [{"url": "https://a.example/", "title": "A", "lastVisitMs": NOW - 1, "visitCount": 2}]})
        );
        assert_eq!(
            serde_json::from_value::<Turn>(value).unwrap(),
            turn(NOW, "recursive cte")
        );
    }

    #[test]
    fn ai_turns_keep_reasons_keywords_notices_and_usage() {
        use crate::ai::model::ModelFailure;
        use crate::ai::pipeline::{Notice, RankedPage};
        let page = turn(NOW, "x").results[0].page.clone();
        let answer = AiAnswer {
            keywords: vec!["recursive".into(), "cte".into()],
            keywords_from_fallback: false,
            candidate_count: 12,
            picks: vec![RankedPage {
                page,
                reason: "About recursive CTEs.".into(),
            }],
            notices: vec![Notice::Unranked],
            failure: Some(ModelFailure::Overloaded),
            usage: Usage {
                prompt_tokens: 10,
                output_tokens: 5,
                thinking_tokens: 0,
                total_tokens: 15,
            },
            cancelled: false,
            model_used: "gemini-2.5-flash".into(),
        };
        let turn = Turn::from_ai(
            NOW,
            " q ",
            Period::Month,
            Mode::Gemini,
            Depth::Exhaustive,
            answer,
        );
        let value = serde_json::to_value(&turn).unwrap();
        assert_eq!(value["mode"], "gemini");
        assert_eq!(value["results"][0]["reason"], "About recursive CTEs.");
        assert_eq!(value["results"][0]["url"], "https://a.example/");
        assert_eq!(value["ai"]["keywords"], json!(["recursive", "cte"]));
        assert_eq!(value["ai"]["usage"]["totalTokens"], 15);
        assert_eq!(value["ai"]["depth"], "exhaustive");
        assert_eq!(
            turn.error.as_deref(),
            Some(
                ModelFailure::Overloaded
                    .user_message(Engine::Gemini)
                    .as_str()
            )
        );
        assert_eq!(serde_json::from_value::<Turn>(value).unwrap(), turn);
    }

    #[test]
    fn loads_newest_first_and_ignores_other_keys() {
        let loaded = load(
            [
                stored(NOW - 3_000, 1, "oldest"),
                ("settings".into(), json!({"x": 1})),
                stored(NOW - 1_000, 7, "newest"),
                stored(NOW - 2_000, 2, "middle"),
            ],
            NOW,
            Retention::Month,
        );
        assert_eq!(questions(&loaded), ["newest", "middle", "oldest"]);
        assert!(loaded.expired.is_empty() && loaded.unreadable.is_empty());
    }

    #[test]
    fn retention_expires_old_turns_even_unreadable_ones() {
        let old_unreadable = turn_key(NOW - 40 * DAY_MS, 9);
        let loaded = load(
            [
                stored(NOW - 2 * DAY_MS, 1, "two days ago"),
                stored(NOW - 31 * DAY_MS, 2, "a month ago"),
                (old_unreadable.clone(), json!("corrupted")),
            ],
            NOW,
            Retention::Month,
        );
        assert_eq!(questions(&loaded), ["two days ago"]);
        assert_eq!(
            loaded.expired,
            [turn_key(NOW - 31 * DAY_MS, 2), old_unreadable]
        );

        let day = load(
            [stored(NOW - 2 * DAY_MS, 1, "two days ago")],
            NOW,
            Retention::Day,
        );
        assert!(day.turns.is_empty());
        let forever = load(
            [stored(NOW - 4_000 * DAY_MS, 1, "long ago")],
            NOW,
            Retention::Forever,
        );
        assert_eq!(questions(&forever), ["long ago"]);
    }

    #[test]
    fn unreadable_recent_turns_are_kept_but_not_shown() {
        let key = turn_key(NOW - 1_000, 3);
        let loaded = load(
            [
                (key.clone(), json!(["not", "a", "turn"])),
                stored(NOW, 1, "fine"),
            ],
            NOW,
            Retention::Month,
        );
        assert_eq!(questions(&loaded), ["fine"]);
        assert_eq!(loaded.unreadable, [key]);
        assert!(loaded.expired.is_empty());
    }

    #[test]
    fn turns_from_other_versions_load_with_defaults() {
        let key = turn_key(NOW, 1);
        let value = json!({"atMs": NOW, "question": "q", "period": "1y", "mode": "someNewMode", "results": "bad", "extra": true});
        let loaded = load([(key, value)], NOW, Retention::Month);
        let turn = &loaded.turns[0].turn;
        assert_eq!(
            (turn.question.as_str(), turn.period, turn.mode),
            ("q", Period::Week, Mode::Local)
        );
        assert!(turn.results.is_empty());
    }

    #[test]
    fn keeps_at_most_max_turns() {
        let entries = (0..MAX_TURNS as i64 + 5).map(|i| stored(NOW - i, 0, &format!("q{i}")));
        let loaded = load(entries, NOW, Retention::Forever);
        assert_eq!(loaded.turns.len(), MAX_TURNS);
        assert_eq!(loaded.turns[0].turn.question, "q0");
        assert_eq!(loaded.expired.len(), 5);
        assert_eq!(loaded.expired[0], turn_key(NOW - MAX_TURNS as i64, 0));
    }

    /// A stored local turn showing these cleaned URLs, under `turn_key(NOW - nonce, nonce)`.
    fn showing(nonce: u32, urls: &[&str]) -> (String, Value) {
        let at_ms = NOW - i64::from(nonce);
        let pages = urls
            .iter()
            .map(|url| Page {
                url: (*url).to_owned(),
                title: "T".into(),
                last_visit_ms: at_ms - 1,
                visit_count: 1,
            })
            .collect();
        let turn = Turn::local(at_ms, "q", Period::Week, Ok(pages));
        (turn_key(at_ms, nonce), serde_json::to_value(turn).unwrap())
    }

    #[test]
    fn forgetting_removed_pages_rewrites_only_the_turns_that_showed_them() {
        const A: &str = "https://a.example/";
        const B: &str = "https://b.example/page";
        const C: &str = "https://c.example/?id=7";
        let stored = || {
            vec![
                showing(1, &[A, B]),
                showing(2, &[B, C]),
                showing(3, &[C]),
                showing(4, &[]),
                (turn_key(NOW - 5, 5), json!("unreadable")),
                (
                    turn_key(NOW - 6, 6),
                    json!({"results": "bad", "question": 1}),
                ),
                ("settings".to_owned(), json!({"results": [{"url": A}]})),
            ]
        };
        let urls = |raw: &[&str]| RemovedVisits {
            all_history: false,
            urls: raw.iter().map(|u| (*u).to_owned()).collect(),
        };
        /// The turns rewritten, by nonce, with the URLs each keeps.
        type Rewrites<'a> = Vec<(u32, Vec<&'a str>)>;
        // (case, removal, expected rewrites)
        let rows: Vec<(&str, RemovedVisits, Rewrites)> = vec![
            ("one page", urls(&[A]), vec![(1, vec![B])]),
            (
                "several pages",
                urls(&[A, C]),
                vec![(1, vec![B]), (2, vec![B]), (3, vec![])],
            ),
            (
                "all history",
                RemovedVisits {
                    all_history: true,
                    urls: Vec::new(),
                },
                vec![(1, vec![]), (2, vec![]), (3, vec![])],
            ),
            (
                "a raw URL with tracking parameters and a fragment",
                urls(&["https://c.example/?utm_source=news&id=7#top"]),
                vec![(2, vec![B]), (3, vec![])],
            ),
            (
                "nothing shown",
                urls(&["https://elsewhere.example/", "chrome://settings", ""]),
                vec![],
            ),
            ("an empty removal", urls(&[]), vec![]),
        ];
        for (case, removed, expected) in rows {
            let rewrites = forget_removed(stored(), &removed);
            let got: Vec<(String, Vec<&str>)> = rewrites
                .iter()
                .map(|stored| {
                    let left = stored
                        .turn
                        .results
                        .iter()
                        .map(|r| r.page.url.as_str())
                        .collect();
                    (stored.key.clone(), left)
                })
                .collect();
            let expected: Vec<(String, Vec<&str>)> = expected
                .into_iter()
                .map(|(nonce, left)| (turn_key(NOW - i64::from(nonce), nonce), left))
                .collect();
            assert_eq!(got, expected, "{case}");
            // The rest of each rewritten turn is kept.
            assert!(rewrites.iter().all(|s| s.turn.question == "q"), "{case}");
        }
    }

    #[test]
    fn dropping_removed_pages_keeps_the_rest_of_the_turn() {
        let page = |url: &str| Page {
            url: url.to_owned(),
            title: "T".to_owned(),
            last_visit_ms: 1,
            visit_count: 1,
        };
        let mut turn = Turn::local(
            5,
            "cte",
            Period::default(),
            Ok(vec![page("https://a.example/"), page("https://b.example/")]),
        );
        turn.note = Some("note".to_owned());
        let gone = HashSet::from(["https://a.example/".to_owned()]);
        assert!(turn.drop_pages(&gone));
        let urls: Vec<&str> = turn.results.iter().map(|r| r.page.url.as_str()).collect();
        assert_eq!(urls, ["https://b.example/"]);
        assert_eq!(turn.note.as_deref(), Some("note"));
        assert!(!turn.drop_pages(&gone), "nothing left to drop");
    }

    #[test]
    fn all_keys_picks_only_conversation_keys() {
        let a = turn_key(1, 1);
        let keys = ["settings", a.as_str(), "log:oops"];
        assert_eq!(all_keys(keys), vec![a.clone()]);
    }
}
