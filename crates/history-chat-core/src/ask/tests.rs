use super::*;
use crate::ai::model::ModelFailure;
use crate::ai::provider::{Availability, Fallback, Provider};
use crate::conversation::{TurnError, TurnNote};
use crate::history::{Page, RankedPage, RemovedVisits};

fn page(url: &str) -> RankedPage {
    RankedPage::from(Page {
        url: url.to_owned(),
        title: url.to_owned(),
        last_visit_ms: 1,
        visit_count: 1,
        passage: None,
        marks: Default::default(),
    })
}

fn answered(urls: &[&str]) -> Turn {
    let mut turn = Turn::started(10, "cte", Period::Week, Engine::Gemini);
    turn.results = urls.iter().map(|url| page(url)).collect();
    turn
}

fn running(asks: &mut Asks, key: &str) {
    asks.start(key.to_owned(), " cte ", Period::Week, Engine::Gemini)
        .unwrap_or_else(|busy| panic!("refused: {busy:?}"));
}

/// One page deleted from history.
fn gone(url: &str) -> RemovedVisits {
    RemovedVisits {
        all_history: false,
        urls: vec![url.to_owned()],
    }
}

#[test]
fn a_second_question_is_refused_while_one_runs_and_names_the_running_one() {
    let mut asks = Asks::default();
    running(&mut asks, "a");
    let refused = asks.start("b".into(), "other", Period::Day, Engine::Gemini);
    assert_eq!(
        refused,
        Err(Busy {
            question: "cte".into()
        })
    );
    assert!(refused.unwrap_err().message().contains("cte"));
    // Once the first ends, the next question starts.
    assert!(asks.finish("a", answered(&[])).is_some());
    assert!(
        asks.start("b".into(), "other", Period::Day, Engine::Gemini)
            .is_ok()
    );
}

#[test]
fn progress_is_told_for_the_running_search_only() {
    let mut asks = Asks::default();
    running(&mut asks, "a");
    assert_eq!(asks.progress("stale", Progress::Ranking), None);
    let Some(AskUpdate::Running(shown)) = asks.progress("a", Progress::Ranking) else {
        panic!("no update for the running search");
    };
    assert_eq!(shown.progress, Some(Progress::Ranking));
    assert_eq!(asks.state(), AskUpdate::Running(shown));
}

#[test]
fn cancel_marks_the_search_once_from_any_popup() {
    let cases: [(Option<&str>, bool); 3] =
        [(None, true), (Some("a"), true), (Some("other"), false)];
    for (key, cancels) in cases {
        let mut asks = Asks::default();
        running(&mut asks, "a");
        let update = asks.cancel(key);
        assert_eq!(update.is_some(), cancels, "cancel({key:?})");
        if cancels {
            assert_eq!(asks.cancel(key), None, "a second cancel tells nothing new");
            let AskUpdate::Running(shown) = asks.state() else {
                panic!("not running")
            };
            assert!(shown.cancelling);
            assert_eq!(shown.status(), t!("popup_status_cancelling"));
        }
    }
    assert_eq!(
        Asks::default().cancel(None),
        None,
        "nothing runs: nothing to cancel"
    );
}

#[test]
fn a_finished_search_is_written_once_without_the_pages_removed_while_it_ran() {
    let mut asks = Asks::default();
    running(&mut asks, "a");
    asks.removed_visits(&gone("https://gone.example/"));
    let turn = asks
        .finish(
            "a",
            answered(&["https://kept.example/", "https://gone.example/"]),
        )
        .unwrap_or_else(|| panic!("the running search did not finish"));
    let urls: Vec<_> = turn.results.iter().map(|r| r.page.url.as_str()).collect();
    assert_eq!(urls, ["https://kept.example/"]);
    assert!(!turn.running, "the written turn no longer says running");
    assert_eq!(asks.state(), AskUpdate::Idle);
    // An answer that comes after (a late reply, a second end): nothing to write.
    assert_eq!(asks.finish("a", answered(&[])), None);
}

/// A local turn of `urls`.
fn found(urls: &[&str]) -> Turn {
    let mut turn = Turn::local(10, "cte", Period::Week, Ok(Vec::new()));
    turn.results = urls.iter().map(|url| page(url)).collect();
    turn
}

fn urls(turn: &Turn) -> Vec<&str> {
    turn.results.iter().map(|r| r.page.url.as_str()).collect()
}

#[test]
fn local_searches_run_beside_each_other_and_the_ai_search() {
    let mut asks = Asks::default();
    running(&mut asks, "ai");
    asks.start_local("a");
    asks.start_local("b");
    // The AI search is still the one a popup is told of; a second AI question is still refused.
    assert!(matches!(asks.state(), AskUpdate::Running(ref r) if r.key == "ai"));
    assert!(
        asks.start("c".into(), "other", Period::Day, Engine::Gemini)
            .is_err()
    );
    let a = asks.finish_local("a", found(&["https://a.example/"]));
    assert_eq!(urls(&a), ["https://a.example/"]);
    assert_eq!(
        asks.saved_local("a", a),
        None,
        "nothing removed: written once"
    );
    let b = asks.finish_local("b", found(&["https://b.example/"]));
    assert_eq!(asks.saved_local("b", b), None);
    assert_eq!(
        asks.saved_local("b", found(&[])),
        None,
        "an ended search is not written again"
    );
}

#[test]
fn a_local_answer_leaves_out_the_pages_removed_while_it_ran_or_was_written() {
    let both = ["https://kept.example/", "https://gone.example/"];
    // (removed while searching, removed while writing, written, written again)
    type Case<'a> = (
        Option<RemovedVisits>,
        Option<RemovedVisits>,
        &'a [&'a str],
        Option<&'a [&'a str]>,
    );
    let cases: [Case; 4] = [
        (None, None, &both, None),
        (
            Some(gone("https://gone.example/#section")),
            None,
            &["https://kept.example/"],
            None,
        ),
        (
            None,
            Some(gone("https://gone.example/")),
            &both,
            Some(&["https://kept.example/"]),
        ),
        (
            Some(RemovedVisits {
                all_history: true,
                urls: Vec::new(),
            }),
            None,
            &[],
            None,
        ),
    ];
    for (searching, writing, written, again) in cases {
        let mut asks = Asks::default();
        asks.start_local("a");
        if let Some(removed) = &searching {
            asks.removed_visits(removed);
        }
        let turn = asks.finish_local("a", found(&both));
        assert_eq!(urls(&turn), written, "{searching:?}");
        if let Some(removed) = &writing {
            asks.removed_visits(removed);
        }
        let rewritten = asks.saved_local("a", turn);
        assert_eq!(
            rewritten.as_ref().map(urls).as_deref(),
            again,
            "{writing:?}"
        );
    }
}

#[test]
fn removals_before_a_local_search_do_not_touch_it() {
    let mut asks = Asks::default();
    asks.removed_visits(&gone("https://kept.example/"));
    asks.start_local("a");
    let turn = asks.finish_local("a", found(&["https://kept.example/"]));
    assert_eq!(urls(&turn), ["https://kept.example/"]);
}

#[test]
fn removals_before_a_search_do_not_touch_the_next_one() {
    let mut asks = Asks::default();
    asks.removed_visits(&gone("https://kept.example/"));
    running(&mut asks, "a");
    let turn = asks.finish("a", answered(&["https://kept.example/"]));
    assert_eq!(turn.map(|t| t.results.len()), Some(1));
}

#[test]
fn a_started_turn_reads_as_interrupted_once_its_search_is_dead() {
    let started = Turn::started(10, "cte", Period::Week, Engine::Gemini);
    assert!(started.running && started.error.is_none());
    let dead = started.interrupted();
    assert!(!dead.running);
    assert_eq!(dead.error, Some(TurnError::Interrupted));
    assert!(dead.was_interrupted());
    // A finished turn stays as it is.
    let done = answered(&[]).interrupted();
    assert_eq!(
        done.error,
        Some(TurnError::Interrupted),
        "answered() is a started turn"
    );
    let mut finished = Turn::started(10, "cte", Period::Week, Engine::Gemini);
    finished.running = false;
    assert_eq!(finished.clone().interrupted(), finished);
}

#[test]
fn updates_and_replies_cross_as_json() {
    let mut asks = Asks::default();
    running(&mut asks, "a");
    let _ = asks.progress(
        "a",
        Progress::Retrying {
            seconds: 20,
            attempt: 2,
        },
    );
    let finished = AskUpdate::Finished {
        key: "a".into(),
        turn: answered(&["https://kept.example/"]),
        save_failed: Some("quota".into()),
    };
    let early = AskUpdate::Early {
        key: "b".into(),
        turn: answered(&["https://early.example/"]),
    };
    for update in [AskUpdate::Idle, asks.state(), finished, early] {
        let text = serde_json::to_string(&update).unwrap_or_else(|e| panic!("{e}"));
        let back: AskUpdate = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, update, "{text}");
    }
    for reply in [
        AskReply::Started { key: "a".into() },
        AskReply::Busy(Busy {
            question: "cte".into(),
        }),
        AskReply::Answered {
            key: "b".into(),
            turn: Box::new(answered(&[])),
            save_failed: None,
        },
        AskReply::Answered {
            key: "b".into(),
            turn: Box::new({
                let mut turn = answered(&["https://kept.example/"]);
                turn.note = Some(TurnNote::OnDeviceFailed {
                    failure: ModelFailure::Timeout,
                });
                turn
            }),
            save_failed: Some("quota".into()),
        },
    ] {
        let text = serde_json::to_string(&reply).unwrap_or_else(|e| panic!("{e}"));
        let back: AskReply = serde_json::from_str(&text).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert_eq!(back, reply);
    }
    // Externally tagged: the popup reads them without serde's buffering.
    let shapes = [
        (
            serde_json::to_value(asks.state()),
            serde_json::json!({"running": {"key": "a", "question": "cte", "period": "7d",
                "engine": "gemini", "progress": {"retrying": {"seconds": 20, "attempt": 2}},
                "cancelling": false}}),
        ),
        (
            serde_json::to_value(AskUpdate::Idle),
            serde_json::json!("idle"),
        ),
        (
            serde_json::to_value(AskReply::Started { key: "a".into() }),
            serde_json::json!({"started": {"key": "a"}}),
        ),
        (
            serde_json::to_value(AskReply::Answered {
                key: "b".into(),
                turn: Box::new({
                    let mut turn = Turn::local(10, "cte", Period::Week, Ok(Vec::new()));
                    turn.note = Some(TurnNote::Fallback(Fallback::NoApiKey));
                    turn
                }),
                save_failed: None,
            }),
            serde_json::json!({"answered": {"key": "b", "turn": {"atMs": 10, "question": "cte",
                "period": "7d", "mode": "local", "results": [],
                "note": {"fallback": "noApiKey"}}}}),
        ),
        (
            serde_json::to_value(AskUpdate::Early {
                key: "b".into(),
                turn: Turn::local(10, "cte", Period::Week, Ok(Vec::new())),
            }),
            serde_json::json!({"early": {"key": "b", "turn": {"atMs": 10, "question": "cte",
                "period": "7d", "mode": "local", "results": []}}}),
        ),
    ];
    for (value, shape) in shapes {
        assert_eq!(value.unwrap_or_else(|e| panic!("{e}")), shape);
    }
}

#[test]
fn a_starting_worker_marks_only_the_turns_left_running_as_interrupted() {
    use crate::conversation::interrupted;
    let json = |turn: &Turn| serde_json::to_value(turn).unwrap_or_else(|e| panic!("{e}"));
    let left = Turn::started(10, "cte", Period::Week, Engine::Gemini);
    let mut ended = left.clone();
    ended.running = false;
    let entries = vec![
        ("log:0000000000010:00000001".to_owned(), json(&left)),
        ("log:0000000000011:00000002".to_owned(), json(&ended)),
        ("settings".to_owned(), json(&left)),
        (
            "log:0000000000012:00000003".to_owned(),
            serde_json::json!("unreadable"),
        ),
    ];
    let rewritten = interrupted(entries);
    assert_eq!(rewritten.len(), 1, "{rewritten:?}");
    assert_eq!(rewritten[0].key, "log:0000000000010:00000001");
    assert_eq!(rewritten[0].turn, left.interrupted());
}

#[test]
fn a_page_removed_while_the_answer_is_written_is_written_out_again() {
    let mut asks = Asks::default();
    running(&mut asks, "a");
    let turn = asks
        .finish(
            "a",
            answered(&["https://kept.example/", "https://gone.example/"]),
        )
        .unwrap_or_else(|| panic!("not finished"));
    // Nothing removed while writing: nothing to write again.
    let mut quiet = Asks::default();
    running(&mut quiet, "b");
    let done = quiet.finish("b", answered(&["https://kept.example/"]));
    assert_eq!(done.map(|turn| quiet.saved("b", turn)), Some(None));
    // Removed while writing: written again without it, once.
    asks.removed_visits(&gone("https://gone.example/"));
    let again = asks
        .saved("a", turn.clone())
        .unwrap_or_else(|| panic!("not rewritten"));
    let urls: Vec<_> = again.results.iter().map(|r| r.page.url.as_str()).collect();
    assert_eq!(urls, ["https://kept.example/"]);
    assert_eq!(asks.saved("a", turn), None, "written once");
    asks.removed_visits(&gone("https://kept.example/"));
    running(&mut asks, "c");
    let next = asks.finish("c", answered(&["https://kept.example/"]));
    assert_eq!(
        next.map(|t| t.results.len()),
        Some(1),
        "a removal between searches touches neither"
    );
}

#[test]
fn visits_deleted_anywhere_leave_the_running_answer() {
    let deleted = |urls: &[&str], all_history| RemovedVisits {
        all_history,
        urls: urls.iter().map(|url| (*url).to_owned()).collect(),
    };
    let both = &["https://gone.example/", "https://kept.example/"];
    // (what Chrome reported, while the search runs / while its answer is written, pages left)
    let rows: &[(RemovedVisits, bool, usize)] = &[
        // A raw URL is cleaned before it is compared: its tracking parameter goes.
        (
            deleted(&["https://gone.example/?utm_source=x"], false),
            false,
            1,
        ),
        (deleted(&["https://gone.example/"], false), true, 1),
        (deleted(&[], true), false, 0),
        (deleted(&[], true), true, 0),
        (
            deleted(&["javascript:alert(1)", "not a url"], false),
            false,
            2,
        ),
    ];
    for (removed, while_saving, left) in rows {
        let mut asks = Asks::default();
        running(&mut asks, "a");
        let turn = if *while_saving {
            let written = asks.finish("a", answered(both));
            assert_eq!(written.as_ref().map(|t| t.results.len()), Some(2));
            asks.removed_visits(removed);
            asks.saved("a", answered(both))
                .unwrap_or_else(|| answered(both))
        } else {
            asks.removed_visits(removed);
            asks.finish("a", answered(both))
                .unwrap_or_else(|| panic!("{removed:?}: not written"))
        };
        assert_eq!(
            turn.results.len(),
            *left,
            "{removed:?} (while saving: {while_saving})"
        );
    }
    // Nothing runs: nothing is remembered for the next search.
    let mut asks = Asks::default();
    asks.removed_visits(&deleted(&[], true));
    running(&mut asks, "a");
    let turn = asks.finish("a", answered(both));
    assert_eq!(turn.map(|t| t.results.len()), Some(2));
}

#[test]
fn the_worker_hosts_gemini_and_on_device_searches_and_says_why_it_does_not() {
    use Availability::{Available, Downloadable, Unavailable};
    let not_ready = |availability| {
        Err(Some(TurnNote::Fallback(Fallback::OnDeviceNotReady {
            availability,
        })))
    };
    type Case = (
        Provider,
        bool,
        Availability,
        &'static str,
        Result<HostedEngine, Option<TurnNote>>,
    );
    let cases: [Case; 11] = [
        (
            Provider::Gemini,
            true,
            Unavailable,
            "cte",
            Ok(HostedEngine::Gemini),
        ),
        (
            Provider::Gemini,
            true,
            Available,
            "cte",
            Ok(HostedEngine::Gemini),
        ),
        // The key went since the popup read the settings.
        (
            Provider::Gemini,
            false,
            Available,
            "cte",
            Err(Some(TurnNote::Fallback(Fallback::NoApiKey))),
        ),
        (
            Provider::Auto,
            true,
            Available,
            "cte",
            Ok(HostedEngine::OnDevice),
        ),
        (
            Provider::Auto,
            true,
            Unavailable,
            "cte",
            Ok(HostedEngine::Gemini),
        ),
        (Provider::Auto, false, Downloadable, "cte", Err(None)),
        (
            Provider::OnDevice,
            true,
            Available,
            "cte",
            Ok(HostedEngine::OnDevice),
        ),
        // The model went since the popup read its availability: never Gemini instead.
        (
            Provider::OnDevice,
            true,
            Unavailable,
            "cte",
            not_ready(Unavailable),
        ),
        (
            Provider::OnDevice,
            false,
            Downloadable,
            "cte",
            not_ready(Downloadable),
        ),
        (Provider::Local, true, Available, "cte", Err(None)),
        // Sites only: their newest pages, listed locally.
        (
            Provider::Gemini,
            true,
            Available,
            "site:github.com",
            Err(None),
        ),
    ];
    for (provider, has_key, availability, question, expected) in cases {
        assert_eq!(
            hosted_engine(provider, has_key, availability, question),
            expected,
            "{provider:?}, key {has_key}, {availability:?}, {question:?}"
        );
    }
}

#[test]
fn only_auto_and_on_device_may_use_chromes_model() {
    for (provider, uses) in [
        (Provider::Auto, true),
        (Provider::OnDevice, true),
        (Provider::Gemini, false),
        (Provider::Local, false),
    ] {
        assert_eq!(provider.may_use_device(), uses, "{provider:?}");
    }
}
