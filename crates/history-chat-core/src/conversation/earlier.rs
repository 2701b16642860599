//! Turns as earlier versions stored them, read in the current shape.
//!
//! Earlier versions stored a turn's enums internally tagged — `"error": {"kind": "model",
//! "failure": {"kind": "timeout"}}`, `"note": {"kind": "fallback", "why": "noApiKey"}` — and some
//! failures, notes and notices as a sentence. They are now externally tagged (`"error": {"model":
//! {"failure": "timeout"}}`, `"note": {"fallback": "noApiKey"}`), which serde reads without
//! buffering each value first, and a sentence is `{"worded": "…"}`. [`upgrade`] rewrites the
//! earlier shape into the current one, field by field, and leaves the current shape as it is: a
//! conversation stored by any version reads the same, and is written back in the current shape.

use serde_json::{Map, Value};

/// A stored turn's value in the current shape.
pub(super) fn upgrade(mut turn: Value) -> Value {
    let Value::Object(fields) = &mut turn else {
        return turn;
    };
    if let Some(error) = fields.get_mut("error") {
        sentence(error);
        if let Some((name, content)) = retag(error, "kind")
            && name == "model"
        {
            failure(content);
        }
    }
    if let Some(note) = fields.get_mut("note") {
        sentence(note);
        if let Some((name, content)) = retag(note, "kind") {
            match name.as_str() {
                "fallback" => {
                    retag(content, "why");
                }
                "onDeviceFailed" => failure(content),
                _ => {}
            }
        }
    }
    if let Some(Value::Array(notices)) = fields.get_mut("ai").and_then(|ai| ai.get_mut("notices")) {
        for notice in notices {
            sentence(notice);
            retag(notice, "kind");
        }
    }
    turn
}

/// An earlier version's sentence as the `worded` variant. A sentence has spaces; the name of a unit
/// variant (`"cancelled"`, a string in the current shape) has none.
fn sentence(value: &mut Value) {
    if let Value::String(text) = value
        && text.contains(char::is_whitespace)
    {
        let text = std::mem::take(text);
        *value = Value::Object(Map::from_iter([(
            String::from("worded"),
            Value::String(text),
        )]));
    }
}

/// The model failure a variant holds (`"failure": {"kind": …}`), in the current shape.
fn failure(content: &mut Value) {
    if let Some(failure) = content.get_mut("failure") {
        retag(failure, "kind");
    }
}

/// `{"<tag>": "name", …fields}` as `"name"` when no field is left, `{"name": {…fields}}`
/// otherwise. Returns the variant's name and what it now holds; `None` (and the value untouched)
/// when it is not an object tagged so.
fn retag<'a>(value: &'a mut Value, tag: &str) -> Option<(String, &'a mut Value)> {
    let name = {
        let Value::Object(fields) = value else {
            return None;
        };
        if !fields.get(tag).is_some_and(Value::is_string) {
            return None;
        }
        let Some(Value::String(name)) = fields.remove(tag) else {
            return None;
        };
        name
    };
    if value.as_object().is_some_and(Map::is_empty) {
        *value = Value::String(name.clone());
        return Some((name, value));
    }
    let rest = std::mem::take(value);
    *value = Value::Object(Map::from_iter([(name.clone(), rest)]));
    let content = value.get_mut(&name)?;
    Some((name, content))
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::ai::model::ModelFailure;
    use crate::ai::pipeline::Notice;
    use crate::ai::provider::{Availability, Engine, Fallback};
    use crate::conversation::{AiDetails, Turn, TurnError, TurnNote, read_turn};
    use crate::index::IndexProgress;
    use crate::period::Period;

    const NOW: i64 = 1_780_000_000_000;

    /// Stored `error`, `note` and `notices`, and what each reads as.
    type Row = (
        Value,
        Value,
        Value,
        Option<TurnError>,
        Option<TurnNote>,
        Vec<Notice>,
    );

    fn turn_with(error: Value, note: Value, notices: Value) -> Value {
        json!({"atMs": NOW, "question": "q", "period": "7d", "mode": "gemini", "results": [],
               "error": error, "note": note, "ai": {"model": "m", "notices": notices}})
    }

    #[test]
    fn every_earlier_shape_reads_as_its_value() {
        let rows: &[Row] = &[
            (
                json!({"kind": "model", "failure": {"kind": "timeout"}}),
                json!({"kind": "fallback", "why": "noApiKey"}),
                json!([{"kind": "unranked"}, {"kind": "shrunk", "ranked": 40, "found": 90}]),
                Some(TurnError::Model {
                    failure: ModelFailure::Timeout,
                }),
                Some(TurnNote::Fallback(Fallback::NoApiKey)),
                vec![
                    Notice::Unranked,
                    Notice::Shrunk {
                        ranked: 40,
                        found: 90,
                    },
                ],
            ),
            (
                json!({"kind": "model", "failure": {"kind": "quotaExhausted", "retry_after_s": 30}}),
                json!({"kind": "fallback", "why": "onDeviceNotReady", "availability": "downloadable"}),
                json!([{"kind": "modelReplaced", "configured": "a", "used": "b"}]),
                Some(TurnError::Model {
                    failure: ModelFailure::QuotaExhausted {
                        retry_after_s: Some(30),
                    },
                }),
                Some(TurnNote::Fallback(Fallback::OnDeviceNotReady {
                    availability: Availability::Downloadable,
                })),
                vec![Notice::ModelReplaced {
                    configured: "a".into(),
                    used: "b".into(),
                }],
            ),
            (
                json!({"kind": "cancelled"}),
                json!({"kind": "onDeviceFailed", "failure": {"kind": "unavailable", "reason": "gone"}}),
                json!([{"kind": "nothingFound", "message": "Nothing in the last 7 days matches “x”."}]),
                Some(TurnError::Cancelled),
                Some(TurnNote::OnDeviceFailed {
                    failure: ModelFailure::Unavailable {
                        reason: "gone".into(),
                    },
                }),
                vec![Notice::NothingFound {
                    question: String::new(),
                    period: Period::default(),
                    message: Some("Nothing in the last 7 days matches “x”.".into()),
                }],
            ),
            (
                json!({"kind": "historyUnreadable", "detail": "backend gone"}),
                json!({"kind": "indexing", "progress": {"pages": 10, "sinceMs": null}}),
                json!([{"kind": "keywordsFromQuestion"}, {"kind": "cut"}]),
                Some(TurnError::HistoryUnreadable {
                    detail: "backend gone".into(),
                }),
                Some(TurnNote::Indexing {
                    progress: IndexProgress {
                        pages: 10,
                        since_ms: None,
                    },
                }),
                vec![Notice::KeywordsFromQuestion, Notice::Cut],
            ),
            (
                json!({"kind": "interrupted"}),
                json!({"kind": "fillingIn"}),
                json!([{"kind": "noGoodMatch"}, {"kind": "historyUnavailable"}]),
                Some(TurnError::Interrupted),
                Some(TurnNote::FillingIn),
                vec![Notice::NoGoodMatch, Notice::HistoryUnavailable],
            ),
            // Sentences, as the first versions stored them.
            (
                json!("Gemini returned an empty answer. Try again."),
                json!("Searched locally."),
                json!(["Showing the first 5 matches, not ranked by the model."]),
                Some(TurnError::Worded(
                    "Gemini returned an empty answer. Try again.".into(),
                )),
                Some(TurnNote::Worded("Searched locally.".into())),
                vec![Notice::Worded(
                    "Showing the first 5 matches, not ranked by the model.".into(),
                )],
            ),
            // A kind this version does not know is dropped, not shown as raw data (one unknown
            // notice drops the list, as any unreadable field falls back to its default).
            (
                json!({"kind": "somethingNew"}),
                json!({"kind": "later", "detail": 1}),
                json!([{"kind": "unranked"}, {"kind": "notYet"}]),
                None,
                None,
                Vec::new(),
            ),
        ];
        for (error, note, notices, want_error, want_note, want_notices) in rows {
            let stored = turn_with(error.clone(), note.clone(), notices.clone());
            let Some(turn) = read_turn(stored.clone()) else {
                panic!("{stored} should read");
            };
            assert_eq!(&turn.error, want_error, "{error}");
            assert_eq!(&turn.note, want_note, "{note}");
            let notices_read = turn.ai.map(|ai| ai.notices).unwrap_or_default();
            assert_eq!(&notices_read, want_notices, "{notices}");
        }
    }

    #[test]
    fn the_current_shape_is_left_as_it_is() {
        let turn = Turn {
            at_ms: NOW,
            question: "q".into(),
            period: Period::Month,
            mode: Engine::OnDevice,
            results: Vec::new(),
            error: Some(TurnError::Model {
                failure: ModelFailure::ModelNotFound {
                    model: "kind".into(),
                },
            }),
            note: Some(TurnNote::Fallback(Fallback::OnDeviceNotReady {
                availability: Availability::Downloading,
            })),
            ai: Some(AiDetails {
                notices: vec![
                    Notice::Cut,
                    Notice::Worded("A sentence, kept.".into()),
                    Notice::ModelReplaced {
                        configured: "kind".into(),
                        used: "why".into(),
                    },
                ],
                ..AiDetails::default()
            }),
            running: false,
        };
        let stored = serde_json::to_value(&turn).unwrap();
        assert_eq!(
            (
                &stored["error"],
                &stored["note"],
                &stored["ai"]["notices"][0]
            ),
            (
                &json!({"model": {"failure": {"modelNotFound": {"model": "kind"}}}}),
                &json!({"fallback": {"onDeviceNotReady": {"availability": "downloading"}}}),
                &json!("cut"),
            )
        );
        assert_eq!(upgrade(stored.clone()), stored);
        assert_eq!(read_turn(stored), Some(turn));
        for unit in [TurnError::Cancelled, TurnError::Interrupted] {
            let stored = serde_json::to_value(&unit).unwrap();
            assert!(stored.is_string(), "{stored}");
            let mut upgraded = stored.clone();
            sentence(&mut upgraded);
            assert_eq!(upgraded, stored, "a unit variant is not a sentence");
        }
    }
}
