//! The conversation log: one stored record per turn (a question and its answer).
//!
//! Each turn is its own `chrome.storage.local` item, under a key that starts with [`KEY_PREFIX`] and
//! holds the time it was asked plus a random nonce. Writers never read-modify-write a shared list, so
//! two popups (or a popup and the options page) writing at the same moment can never lose each
//! other's turns; and the time in the key lets retention delete a turn even when its value is
//! unreadable. Turns stored by earlier versions, in another shape, are read through [`read_turn`].

mod earlier;

use std::collections::HashSet;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::ai::Depth;
use crate::ai::model::{ModelFailure, Usage};
use crate::ai::pipeline::{AiAnswer, Notice};
use crate::ai::provider::{Engine, Fallback};
use crate::clean::clean_url;
use crate::exclusions::Exclusions;
use crate::failure::Failure;
use crate::history::{Page, RankedPage, RemovedVisits};
use crate::index::IndexProgress;
use crate::lenient::or_default;
use crate::origin::Origin;
use crate::period::Period;
use crate::settings::Retention;

/// Every conversation key starts with this.
pub const KEY_PREFIX: &str = "log:";

/// Turns kept at most, newest first, whatever the retention: `chrome.storage.local` holds 10 MB and
/// a turn with 20 results takes about 5 KB, so this stays far below the quota.
pub const MAX_TURNS: usize = 200;

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
    /// What the user is told about how the answer was made, worded when shown
    /// ([`Notice::message`]).
    #[serde(deserialize_with = "or_default")]
    pub notices: Vec<Notice>,
    /// Tokens used (`usageMetadata`, summed over the calls).
    #[serde(deserialize_with = "or_default")]
    pub usage: Usage,
    /// The user cancelled the search.
    #[serde(deserialize_with = "or_default")]
    pub cancelled: bool,
}

/// Why a turn has no answer, or only a partial one. Stored as a value and worded when shown
/// ([`TurnError::message`]), for the engine that answered.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TurnError {
    /// The history could not be searched, and why.
    SearchFailed {
        /// What went wrong.
        failure: Failure,
    },
    /// The browser's history could not be searched, with the reason as an earlier version worded
    /// it (this version stores [`TurnError::SearchFailed`]).
    HistoryUnreadable {
        /// The reason, worded.
        detail: String,
    },
    /// The model failed; the turn holds what the pipeline's fallbacks found.
    Model {
        /// What failed.
        failure: ModelFailure,
    },
    /// The user cancelled; the turn holds what was found until then.
    Cancelled,
    /// The search stopped before it ended: the browser stopped the extension's worker while it
    /// ran ([`interrupted`]). The user can ask again.
    Interrupted,
    /// A sentence stored by an earlier version, shown as it is.
    Worded(String),
}

impl TurnError {
    /// Whether the fix is in the options page (key, permissions, region, model).
    pub fn is_settings_problem(&self) -> bool {
        matches!(self, TurnError::Model { failure } if failure.is_settings_problem())
    }
}

/// A line about how a turn was answered. Stored as a value, worded when shown
/// ([`TurnNote::message`]).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum TurnNote {
    /// Not by the engine the user chose, and why.
    Fallback(Fallback),
    /// Chrome's built-in model could not start: searched locally.
    OnDeviceFailed {
        /// Why it could not.
        failure: ModelFailure,
    },
    /// Shown over what the incomplete index found while Chrome's own search is still running.
    FillingIn,
    /// The index did not yet reach back to the period's start: Chrome's own search filled in.
    Indexing {
        /// How far the index had got.
        progress: IndexProgress,
    },
    /// A sentence stored by an earlier version, shown as it is.
    Worded(String),
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
    pub mode: Engine,
    /// The pages found, best first.
    #[serde(default, deserialize_with = "or_default")]
    pub results: Vec<RankedPage>,
    /// What went wrong, when the search failed or fell back.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "or_default"
    )]
    pub error: Option<TurnError>,
    /// A line about how the question was answered (why not by the engine the user chose, or how
    /// far the index had got).
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "or_default"
    )]
    pub note: Option<TurnNote>,
    /// How an AI turn was made; `None` in local mode.
    #[serde(
        default,
        skip_serializing_if = "Option::is_none",
        deserialize_with = "or_default"
    )]
    pub ai: Option<AiDetails>,
    /// The search is still running (the service worker writes this first, and the answer over it
    /// when the search ends). Found still set when no search runs, it was interrupted.
    #[serde(
        default,
        skip_serializing_if = "is_false",
        deserialize_with = "or_default"
    )]
    pub running: bool,
}

fn is_false(value: &bool) -> bool {
    !value
}

impl Turn {
    /// The turn a search writes when it starts, so that a search the browser stops leaves a turn
    /// that says so ([`interrupted`]) instead of nothing.
    pub fn started(at_ms: i64, question: &str, period: Period, mode: Engine) -> Turn {
        Turn {
            mode,
            running: true,
            ..Turn::local(at_ms, question, period, Ok(Vec::new()))
        }
    }

    /// This turn as it reads once its search is known to be dead: not running, and saying it was
    /// interrupted (a turn that had ended is returned as it is).
    pub fn interrupted(mut self) -> Turn {
        if self.running {
            self.running = false;
            self.error = Some(TurnError::Interrupted);
        }
        self
    }

    /// Whether this turn's search was interrupted, so that the same question can be asked again.
    pub fn was_interrupted(&self) -> bool {
        self.error == Some(TurnError::Interrupted)
    }

    /// Whether the model itself was unavailable (on-device: session gone, model removed): the host
    /// should start a new session before the next question.
    pub fn model_unavailable(&self) -> bool {
        matches!(&self.error, Some(TurnError::Model { failure }) if failure.is_unavailable())
    }

    /// A local-mode turn: the pages found, or what went wrong.
    pub fn local(
        at_ms: i64,
        question: &str,
        period: Period,
        outcome: Result<Vec<Page>, TurnError>,
    ) -> Turn {
        let (results, error) = match outcome {
            Ok(pages) => (pages.into_iter().map(RankedPage::from).collect(), None),
            Err(error) => (Vec::new(), Some(error)),
        };
        Turn {
            at_ms,
            question: question.trim().to_owned(),
            period,
            mode: Engine::Local,
            results,
            error,
            note: None,
            ai: None,
            running: false,
        }
    }

    /// An AI turn from the pipeline's answer: picks with their reasons, the failure (if any) as the
    /// error, the notices as they are.
    pub fn from_ai(
        at_ms: i64,
        question: &str,
        period: Period,
        mode: Engine,
        depth: Depth,
        answer: AiAnswer,
    ) -> Turn {
        let error = match (answer.failure, answer.cancelled) {
            (_, true) => Some(TurnError::Cancelled),
            (Some(failure), false) => Some(TurnError::Model { failure }),
            (None, false) => None,
        };
        Turn {
            at_ms,
            question: question.trim().to_owned(),
            period,
            mode,
            results: answer.picks.into_iter().collect(),
            error,
            note: None,
            ai: Some(AiDetails {
                depth,
                model: answer.model_used,
                keywords: answer.keywords,
                keywords_from_question: answer.keywords_from_fallback,
                candidate_count: answer.candidate_count,
                notices: answer.notices,
                usage: answer.usage,
                cancelled: answer.cancelled,
            }),
            running: false,
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

    /// The turn as it is shown: without the excluded sites' pages (the stored turn is kept as it
    /// is, so a site taken off the list shows again).
    pub fn hide_excluded(&mut self, excluded: &Exclusions) {
        if !excluded.is_empty() {
            self.results
                .retain(|result| !excluded.excludes(&result.page.url));
        }
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
/// applies the retention at `now_ms`. `None`: the settings could not be read, so the retention is
/// not known and nothing is deleted, not even beyond [`MAX_TURNS`]: pruning waits for a read that
/// succeeds ([`crate::settings::KnownSettings::retention`]).
pub fn load(
    entries: impl IntoIterator<Item = (String, Value)>,
    now_ms: i64,
    retention: Option<Retention>,
) -> LoadedConversation {
    let cutoff = retention.and_then(|retention| retention.cutoff_ms(now_ms));
    let mut loaded = LoadedConversation::default();
    let mut entries: Vec<(String, i64, Value)> = entries
        .into_iter()
        .filter_map(|(key, value)| key_time_ms(&key).map(|at| (key, at, value)))
        .collect();
    // Newest first: keys sort by time, then nonce.
    entries.sort_by(|a, b| b.0.cmp(&a.0));
    for (key, at_ms, value) in entries {
        let expired_by_age = cutoff.is_some_and(|cutoff| at_ms < cutoff);
        let beyond_cap = retention.is_some() && loaded.turns.len() >= MAX_TURNS;
        if expired_by_age || beyond_cap {
            loaded.expired.push(key);
            continue;
        }
        match read_turn(value) {
            Some(turn) => loaded.turns.push(StoredTurn { key, turn }),
            None => loaded.unreadable.push(key),
        }
    }
    loaded
}

/// The turns to write back when the service worker starts: every stored turn still marked
/// running, as [`Turn::interrupted`]. No search outlives the worker that ran it, so a turn found
/// running when a worker starts was left by one the browser stopped.
pub fn interrupted(entries: impl IntoIterator<Item = (String, Value)>) -> Vec<StoredTurn> {
    entries
        .into_iter()
        .filter(|(key, _)| key_time_ms(key).is_some())
        .filter_map(|(key, value)| {
            let turn = read_turn(value)?;
            turn.running.then(|| StoredTurn {
                key,
                turn: turn.interrupted(),
            })
        })
        .collect()
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
            let mut turn = read_turn(value)?;
            let before = turn.results.len();
            turn.results
                .retain(|result| !removed.all_history && !gone.contains(&result.page.url));
            (turn.results.len() != before).then_some(StoredTurn { key, turn })
        })
        .collect()
}

/// The turns to rewrite once `origin`'s switch is off, so that nothing of that source stays
/// stored: each result loses its mark of `origin` (a bookmark's folders, a tab's id), and a result
/// found only there (outside the history) goes. `entries` as [`forget_removed`] reads them; a turn
/// that did not change is not written.
pub fn forget_origin(
    entries: impl IntoIterator<Item = (String, Value)>,
    origin: Origin,
) -> Vec<StoredTurn> {
    entries
        .into_iter()
        .filter(|(key, _)| key_time_ms(key).is_some())
        .filter_map(|(key, value)| {
            let mut turn = read_turn(value)?;
            let before = turn.clone();
            turn.results
                .retain_mut(|result| result.page.marks.forget(origin));
            (turn != before).then_some(StoredTurn { key, turn })
        })
        .collect()
}

/// A stored turn's value as a turn, whichever version stored it; `None` when it is not a turn.
pub fn read_turn(value: Value) -> Option<Turn> {
    match value {
        Value::Object(_) => serde_json::from_value(earlier::upgrade(value)).ok(),
        _ => None,
    }
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
            passage: None,
            marks: Default::default(),
        };
        Turn::local(at_ms, question, Period::Week, Ok(vec![page]))
    }

    #[test]
    fn a_turn_is_shown_without_the_excluded_sites_pages() {
        let page = |url: &str| Page {
            url: url.into(),
            title: "t".into(),
            last_visit_ms: 1,
            visit_count: 1,
            passage: None,
            marks: Default::default(),
        };
        let pages = vec![
            page("https://secret.example/a"),
            page("https://open.example/b"),
            page("https://mail.secret.example/c"),
        ];
        let mut turn = Turn::local(1, "q", Period::Week, Ok(pages.clone()));
        turn.hide_excluded(&Exclusions::parse("*.secret.example").expect("list"));
        let shown: Vec<&str> = turn.results.iter().map(|r| r.page.url.as_str()).collect();
        assert_eq!(shown, ["https://open.example/b"]);
        let mut kept = Turn::local(1, "q", Period::Week, Ok(pages));
        kept.hide_excluded(&Exclusions::default());
        assert_eq!(kept.results.len(), 3);
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
        use crate::ai::pipeline::Notice;
        use crate::history::RankedPage;
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
            Engine::Gemini,
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
        assert_eq!(value["error"], json!({"model": {"failure": "overloaded"}}));
        assert_eq!(value["ai"]["notices"], json!(["unranked"]));
        assert_eq!(
            turn.error,
            Some(TurnError::Model {
                failure: ModelFailure::Overloaded
            })
        );
        assert!(!turn.model_unavailable());
        assert_eq!(serde_json::from_value::<Turn>(value).unwrap(), turn);
    }

    #[test]
    fn failures_and_notes_are_stored_as_values() {
        let rows: &[(TurnError, Value)] = &[
            (
                TurnError::Model {
                    failure: ModelFailure::Timeout,
                },
                json!({"model": {"failure": "timeout"}}),
            ),
            (TurnError::Cancelled, json!("cancelled")),
            (
                TurnError::SearchFailed {
                    failure: Failure::Browser(crate::failure::BrowserFailure::Refused {
                        api: "chrome.history.search".into(),
                    }),
                },
                json!({"searchFailed": {"failure": {"browser": {"refused": {"api": "chrome.history.search"}}}}}),
            ),
            (
                TurnError::SearchFailed {
                    failure: Failure::ExclusionsUnknown,
                },
                json!({"searchFailed": {"failure": "exclusionsUnknown"}}),
            ),
            // As an earlier version stored it: its reason already worded.
            (
                TurnError::HistoryUnreadable {
                    detail: "backend gone".into(),
                },
                json!({"historyUnreadable": {"detail": "backend gone"}}),
            ),
        ];
        for (error, stored) in rows {
            assert_eq!(&serde_json::to_value(error).unwrap(), stored);
            assert_eq!(
                &serde_json::from_value::<TurnError>(stored.clone()).unwrap(),
                error
            );
        }

        let notes: &[(TurnNote, Value)] = &[
            (
                TurnNote::Fallback(Fallback::NoApiKey),
                json!({"fallback": "noApiKey"}),
            ),
            (
                TurnNote::OnDeviceFailed {
                    failure: ModelFailure::Unavailable {
                        reason: "session destroyed".into(),
                    },
                },
                json!({"onDeviceFailed": {"failure": {"unavailable": {"reason": "session destroyed"}}}}),
            ),
            (
                TurnNote::OnDeviceFailed {
                    failure: ModelFailure::Timeout,
                },
                json!({"onDeviceFailed": {"failure": "timeout"}}),
            ),
            (
                TurnNote::Indexing {
                    progress: IndexProgress {
                        pages: 10,
                        since_ms: None,
                    },
                },
                json!({"indexing": {"progress": {"pages": 10, "sinceMs": null}}}),
            ),
        ];
        for (note, stored) in notes {
            assert_eq!(&serde_json::to_value(note).unwrap(), stored);
            assert_eq!(
                &serde_json::from_value::<TurnNote>(stored.clone()).unwrap(),
                note
            );
        }
    }

    #[test]
    fn turns_stored_with_sentences_by_earlier_versions_keep_them_as_they_are() {
        let value = json!({
            "atMs": NOW,
            "question": "q",
            "mode": "onDevice",
            "error": "Gemini returned an empty answer. Try again.",
            "note": "Searched locally.",
            "ai": {"notices": ["Showing the first 5 matches, not ranked by the model."], "modelUnavailable": true},
        });
        let turn = read_turn(value).unwrap();
        assert_eq!(
            turn.error,
            Some(TurnError::Worded(
                "Gemini returned an empty answer. Try again.".into()
            ))
        );
        assert_eq!(
            turn.note,
            Some(TurnNote::Worded("Searched locally.".into()))
        );
        assert_eq!(
            turn.ai.as_ref().map(|ai| ai.notices.clone()),
            Some(vec![Notice::Worded(
                "Showing the first 5 matches, not ranked by the model.".into()
            )])
        );
        // Written back, they keep reading the same.
        let rewritten = serde_json::to_value(&turn).unwrap();
        assert_eq!(
            rewritten["error"],
            json!({"worded": "Gemini returned an empty answer. Try again."})
        );
        assert_eq!(read_turn(rewritten), Some(turn));
    }

    #[test]
    fn a_model_that_went_away_is_read_from_the_turns_failure() {
        let mut turn = turn(NOW, "q");
        turn.error = Some(TurnError::Model {
            failure: ModelFailure::Unavailable {
                reason: "gone".into(),
            },
        });
        assert!(turn.model_unavailable());
        turn.error = Some(TurnError::Model {
            failure: ModelFailure::Timeout,
        });
        assert!(!turn.model_unavailable());
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
            Some(Retention::Month),
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
            Some(Retention::Month),
        );
        assert_eq!(questions(&loaded), ["two days ago"]);
        assert_eq!(
            loaded.expired,
            [turn_key(NOW - 31 * DAY_MS, 2), old_unreadable]
        );

        let day = load(
            [stored(NOW - 2 * DAY_MS, 1, "two days ago")],
            NOW,
            Some(Retention::Day),
        );
        assert!(day.turns.is_empty());
        let forever = load(
            [stored(NOW - 4_000 * DAY_MS, 1, "long ago")],
            NOW,
            Some(Retention::Forever),
        );
        assert_eq!(questions(&forever), ["long ago"]);
    }

    #[test]
    fn settings_that_could_not_be_read_delete_nothing() {
        let old_unreadable = turn_key(NOW - 400 * DAY_MS, 9);
        let many = (0..MAX_TURNS as i64 + 5).map(|i| stored(NOW - 40 * DAY_MS - i, 0, "old"));
        let entries: Vec<(String, Value)> = [
            stored(NOW - 2 * DAY_MS, 1, "two days ago"),
            (old_unreadable.clone(), json!("corrupted")),
        ]
        .into_iter()
        .chain(many)
        .collect();
        let loaded = load(entries, NOW, None);
        assert!(loaded.expired.is_empty(), "{:?}", loaded.expired);
        assert_eq!(loaded.turns.len(), MAX_TURNS + 6);
        assert_eq!(loaded.unreadable, [old_unreadable]);
        assert_eq!(loaded.turns[0].turn.question, "two days ago");
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
            Some(Retention::Month),
        );
        assert_eq!(questions(&loaded), ["fine"]);
        assert_eq!(loaded.unreadable, [key]);
        assert!(loaded.expired.is_empty());
    }

    #[test]
    fn turns_from_other_versions_load_with_defaults() {
        let key = turn_key(NOW, 1);
        let value = json!({"atMs": NOW, "question": "q", "period": "1y", "mode": "someNewMode", "results": "bad", "extra": true});
        let loaded = load([(key, value)], NOW, Some(Retention::Month));
        let turn = &loaded.turns[0].turn;
        assert_eq!(
            (turn.question.as_str(), turn.period, turn.mode),
            ("q", Period::Week, Engine::Local)
        );
        assert!(turn.results.is_empty());
    }

    #[test]
    fn keeps_at_most_max_turns() {
        let entries = (0..MAX_TURNS as i64 + 5).map(|i| stored(NOW - i, 0, &format!("q{i}")));
        let loaded = load(entries, NOW, Some(Retention::Forever));
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
                passage: None,
                marks: Default::default(),
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
    fn a_switch_off_leaves_nothing_of_its_source_in_the_stored_turns() {
        use crate::history::{Bookmarked, Marks, OpenTab};
        let bookmark = Some(Bookmarked {
            folders: vec!["Cuisine".into()],
            added_ms: 5,
        });
        let tab = Some(OpenTab {
            tab_id: 4,
            window_id: 1,
        });
        let page = |url: &str, marks: Marks| Page {
            url: url.into(),
            title: "T".into(),
            last_visit_ms: 0,
            visit_count: 0,
            passage: None,
            marks,
        };
        let pages = vec![
            // In the history, bookmarked: stays, unmarked.
            page(
                "https://a.example/",
                Marks {
                    bookmark: bookmark.clone(),
                    ..Marks::default()
                },
            ),
            // Only a bookmark: goes.
            page(
                "https://b.example/",
                Marks {
                    bookmark: bookmark.clone(),
                    outside_history: true,
                    ..Marks::default()
                },
            ),
            // A bookmark and an open tab: stays, a tab.
            page(
                "https://c.example/",
                Marks {
                    bookmark,
                    tab,
                    outside_history: true,
                },
            ),
        ];
        let turn = Turn::local(NOW, "q", Period::Week, Ok(pages));
        let key = turn_key(NOW, 1);
        let entries = vec![
            (key.clone(), serde_json::to_value(&turn).unwrap()),
            showing(2, &["https://d.example/"]),
        ];
        let rewrites = forget_origin(entries.clone(), Origin::Bookmark);
        assert_eq!(
            rewrites.len(),
            1,
            "the turn with no bookmark is not written"
        );
        assert_eq!(rewrites[0].key, key);
        let left: Vec<(&str, &Marks)> = (rewrites[0].turn.results.iter())
            .map(|r| (r.page.url.as_str(), &r.page.marks))
            .collect();
        assert_eq!(
            left,
            [
                ("https://a.example/", &Marks::default()),
                (
                    "https://c.example/",
                    &Marks {
                        bookmark: None,
                        tab,
                        outside_history: true
                    }
                ),
            ]
        );
        let stored = serde_json::to_string(&rewrites[0].turn).unwrap();
        assert!(!stored.contains("Cuisine"), "{stored}");
        // Tabs off afterwards: the page found only as a tab goes too.
        let entries = vec![(key, serde_json::to_value(&rewrites[0].turn).unwrap())];
        let rewrites = forget_origin(entries, Origin::Tab);
        let left: Vec<&str> = (rewrites[0].turn.results.iter())
            .map(|r| r.page.url.as_str())
            .collect();
        assert_eq!(left, ["https://a.example/"]);
    }

    #[test]
    fn dropping_removed_pages_keeps_the_rest_of_the_turn() {
        let page = |url: &str| Page {
            url: url.to_owned(),
            title: "T".to_owned(),
            last_visit_ms: 1,
            visit_count: 1,
            passage: None,
            marks: Default::default(),
        };
        let mut turn = Turn::local(
            5,
            "cte",
            Period::default(),
            Ok(vec![page("https://a.example/"), page("https://b.example/")]),
        );
        turn.note = Some(TurnNote::Worded("note".to_owned()));
        let gone = HashSet::from(["https://a.example/".to_owned()]);
        assert!(turn.drop_pages(&gone));
        let urls: Vec<&str> = turn.results.iter().map(|r| r.page.url.as_str()).collect();
        assert_eq!(urls, ["https://b.example/"]);
        assert_eq!(turn.note, Some(TurnNote::Worded("note".to_owned())));
        assert!(!turn.drop_pages(&gone), "nothing left to drop");
    }

    #[test]
    fn all_keys_picks_only_conversation_keys() {
        let a = turn_key(1, 1);
        let keys = ["settings", a.as_str(), "log:oops"];
        assert_eq!(all_keys(keys), vec![a.clone()]);
    }
}
