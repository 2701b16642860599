use std::cell::{Cell, RefCell};
use std::collections::{HashSet, VecDeque};
use std::future::Future;

use super::*;
use crate::ai::fit::MIN_TITLE_CHARS;
use crate::ai::model::CallKind;
use crate::ai::model::ContextUse;
use crate::history::{HistoryItem, clean_and_merge};
use crate::period::DAY_MS;

const NOW: i64 = 1_780_000_000_000;

/// The model the input names as the fallback.
const FALLBACK: &str = "fallback-model";

/// A model that answers from a script, records what it was asked and how long it slept, and can
/// say the user cancelled after a number of history searches.
#[derive(Default)]
struct Scripted {
    replies: RefCell<VecDeque<Result<ModelReply, ModelFailure>>>,
    requests: RefCell<Vec<ModelRequest>>,
    sleeps: RefCell<Vec<u32>>,
    cancel: Cell<bool>,
    /// A context window in tokens (≈ bytes / 4), like an on-device model's; `None`: unlimited.
    window: Option<u32>,
}

impl Scripted {
    fn new(replies: impl IntoIterator<Item = Result<ModelReply, ModelFailure>>) -> Scripted {
        Scripted {
            replies: RefCell::new(replies.into_iter().collect()),
            ..Scripted::default()
        }
    }

    fn kinds(&self) -> Vec<CallKind> {
        self.requests.borrow().iter().map(|r| r.kind).collect()
    }
}

impl LanguageModel for Scripted {
    async fn generate(&self, request: &ModelRequest) -> Result<ModelReply, ModelFailure> {
        self.requests.borrow_mut().push(request.clone());
        self.replies
            .borrow_mut()
            .pop_front()
            .unwrap_or(Err(ModelFailure::Empty))
    }

    async fn sleep(&self, ms: u32) {
        self.sleeps.borrow_mut().push(ms);
    }

    fn cancelled(&self) -> bool {
        self.cancel.get()
    }

    async fn measure(&self, request: &ModelRequest) -> Option<ContextUse> {
        let available = self.window?;
        let needed = ((request.system.len() + request.prompt.len()) / 4) as u32;
        Some(ContextUse { needed, available })
    }
}

/// A history in memory, cleaned and merged once as every [`PageSource`] answers: a keyword matches
/// the pages whose titles contain it, in the table's order, cut to the limit. Records its queries,
/// and can fail or cancel the model after some searches.
#[derive(Default)]
struct Table<'a> {
    pages: Vec<Page>,
    queries: RefCell<Vec<PageQuery>>,
    fail: bool,
    cancel_after: Option<(usize, &'a Scripted)>,
}

impl Table<'_> {
    /// The pages of these browser entries.
    fn new(items: Vec<HistoryItem>) -> Self {
        Table {
            pages: clean_and_merge(items),
            ..Table::default()
        }
    }
}

impl PageSource for Table<'_> {
    type Error = &'static str;

    async fn pages(&self, query: &PageQuery) -> Result<Vec<Page>, &'static str> {
        self.queries.borrow_mut().push(query.clone());
        if let Some((after, model)) = self.cancel_after
            && self.queries.borrow().len() >= after
        {
            model.cancel.set(true);
        }
        if self.fail {
            return Err("history unavailable");
        }
        Ok(self
            .pages
            .iter()
            .filter(|page| page.last_visit_ms >= query.start_ms)
            .filter(|page| page.title.to_lowercase().contains(&query.text))
            .take(query.limit)
            .cloned()
            .collect())
    }
}

fn item(url: &str, title: &str, days_ago: i64) -> HistoryItem {
    HistoryItem {
        url: url.into(),
        title: title.into(),
        last_visit_ms: NOW - days_ago * DAY_MS,
        visit_count: 1,
    }
}

/// `k0x`, `k1x`, …: keywords none of which contains another.
fn keyword(k: usize) -> String {
    format!("k{k}x")
}

/// 15 pages per keyword for 120 keywords, each page also matching the next keyword, plus search
/// noise, tracking duplicates, an old page and a page no keyword matches.
fn big_history() -> Vec<HistoryItem> {
    let mut items = Vec::new();
    for k in 0..120 {
        for i in 0..15 {
            items.push(item(
                &format!("https://site{k}.example/page/{i}"),
                &format!("Page {i} about {} and {}", keyword(k), keyword(k + 1)),
                1,
            ));
        }
        items.push(item(
            &format!("https://site{k}.example/page/0?utm_source=news"),
            &format!("Page 0 about {}", keyword(k)),
            1,
        ));
        items.push(item(
            &format!("https://www.google.com/search?q={}", keyword(k)),
            &format!("{} - Google Search", keyword(k)),
            1,
        ));
    }
    items.push(item("https://old.example/", "k0x from long ago", 60));
    items.push(item("https://secret.example/", "unrelated private page", 1));
    items
}

fn reply(text: &str) -> Result<ModelReply, ModelFailure> {
    Ok(ModelReply {
        text: text.into(),
        truncated: false,
        usage: Some(Usage {
            prompt_tokens: 100,
            output_tokens: 10,
            thinking_tokens: 0,
            total_tokens: 110,
        }),
    })
}

fn keywords_reply(count: usize) -> Result<ModelReply, ModelFailure> {
    reply(&serde_json::to_string(&(0..count).map(keyword).collect::<Vec<_>>()).unwrap_or_default())
}

fn input(question: &str, depth: Depth) -> AiInput {
    AiInput {
        question: question.into(),
        period: Period::Week,
        depth,
        now_ms: NOW,
        model: "gemini-2.5-flash".into(),
        fallback_model: Some(FALLBACK.into()),
    }
}

fn search(history: &Table, model: &Scripted, input: AiInput) -> (AiAnswer, Vec<Progress>) {
    let mut steps = Vec::new();
    let answer = block_on(ai_search(history, model, input, &mut |p| steps.push(p)));
    (answer, steps)
}

fn block_on<F: Future>(future: F) -> F::Output {
    pollster::block_on(future)
}

fn urls(answer: &AiAnswer) -> Vec<&str> {
    answer.picks.iter().map(|p| p.page.url.as_str()).collect()
}

/// The candidate lines of a ranking request.
fn candidate_lines(request: &ModelRequest) -> Vec<&str> {
    request
        .prompt
        .split_once("Candidates (id|age|title|url):\n")
        .map_or(vec![], |(_, lines)| lines.lines().collect())
}

#[test]
fn happy_path_for_each_depth() {
    for depth in Depth::ALL {
        let count = depth.keyword_count();
        let history = Table::new(big_history());
        let model = Scripted::new([
            keywords_reply(count),
            reply(r#"[{"id": 2, "reason": "Second page"}, {"id": 1, "reason": "First page"}]"#),
        ]);
        let (answer, steps) = search(&history, &model, input("pages about k0x", depth));

        let requests = model.requests.borrow();
        assert_eq!(model.kinds(), [CallKind::Expansion, CallKind::Ranking]);
        assert!(
            requests[0]
                .prompt
                .contains(&format!("At most {count} keywords."))
        );
        assert_eq!(requests[0].schema["maxItems"], count);
        assert_eq!(answer.keywords.len(), count, "{depth:?}");
        assert!(!answer.keywords_from_fallback);

        // History was asked keyword by keyword, in order, within the period, and no more than
        // needed to fill the budget.
        let queries = history.queries.borrow();
        let asked: Vec<&str> = queries.iter().map(|q| q.text.as_str()).collect();
        assert_eq!(asked, answer.keywords[..asked.len()]);
        assert!(
            queries
                .iter()
                .all(|q| q.start_ms == NOW - 7 * DAY_MS && q.limit == KEYWORD_FETCH_LIMIT)
        );

        // At most 100 distinct cleaned pages reach the model, nothing else from history.
        let lines = candidate_lines(&requests[1]);
        assert_eq!(lines.len(), answer.candidate_count);
        assert!(answer.candidate_count <= CANDIDATE_BUDGET);
        let sent: HashSet<&str> = lines.iter().filter_map(|l| l.rsplit('|').next()).collect();
        assert_eq!(sent.len(), lines.len(), "{depth:?}: duplicate URLs");
        for forbidden in ["secret.example", "old.example", "google.com", "utm_source"] {
            assert!(!requests[1].prompt.contains(forbidden), "{forbidden}");
        }

        assert_eq!(
            urls(&answer),
            [
                "https://site0.example/page/1",
                "https://site0.example/page/0"
            ]
        );
        assert_eq!(answer.picks[0].reason, "Second page");
        assert_eq!(answer.usage.total_tokens, 220);
        assert_eq!(answer.notices, []);
        assert_eq!(answer.failure, None);
        assert_eq!(answer.model_used, "gemini-2.5-flash");
        assert_eq!(steps.first(), Some(&Progress::Expanding));
        assert_eq!(steps.last(), Some(&Progress::Ranking));
        // The last search step counts the first pass; the second pass may add leftovers.
        let last_search = steps.iter().rev().find_map(|s| match s {
            Progress::Searching {
                candidates,
                budget,
                keyword,
                keywords,
            } => Some((*candidates, *budget, *keyword, *keywords)),
            _ => None,
        });
        let (candidates, budget, keyword, keywords) = last_search.unwrap();
        assert!(candidates <= answer.candidate_count);
        assert_eq!(
            (budget, keyword, keywords),
            (CANDIDATE_BUDGET, asked.len(), count)
        );
    }
}

#[test]
fn candidates_per_depth() {
    // 15 matches per keyword, each shared with the next keyword: 5 keywords give 50 in the first
    // pass, then leftovers; deeper searches fill the budget and stop early.
    let rows = [
        (Depth::Superficial, 75, 5),
        (Depth::Regular, 100, 10),
        (Depth::Exhaustive, 100, 10),
        (Depth::Sheerlock, 100, 10),
    ];
    for (depth, candidates, searched) in rows {
        let history = Table::new(big_history());
        let model = Scripted::new([keywords_reply(depth.keyword_count()), reply("[1]")]);
        let (answer, _) = search(&history, &model, input("q", depth));
        assert_eq!(answer.candidate_count, candidates, "{depth:?}");
        assert_eq!(history.queries.borrow().len(), searched, "{depth:?}");
    }
}

/// How many times the pipeline calls before giving up on `failure`.
fn attempts(failure: &ModelFailure) -> usize {
    (1..)
        .take_while(|&n| retry_delay_ms(failure, n).is_some())
        .count()
        + 1
}

fn every_failure() -> Vec<ModelFailure> {
    vec![
        ModelFailure::KeyRejected,
        ModelFailure::PermissionDenied,
        ModelFailure::RegionUnsupported,
        ModelFailure::QuotaExhausted {
            retry_after_s: Some(3_600),
        },
        ModelFailure::QuotaExhausted {
            retry_after_s: Some(5),
        },
        ModelFailure::Overloaded,
        ModelFailure::ServerError { status: 500 },
        ModelFailure::BadRequest {
            message: "Invalid JSON payload received.".into(),
        },
        ModelFailure::Network,
        ModelFailure::Timeout,
        ModelFailure::Blocked {
            reason: "SAFETY".into(),
        },
        ModelFailure::Truncated,
        ModelFailure::Empty,
        ModelFailure::ContextOverflow,
        ModelFailure::Unavailable {
            reason: "The model process crashed.".into(),
        },
    ]
}

fn small_history() -> Vec<HistoryItem> {
    (0..8)
        .map(|i| {
            item(
                &format!("https://recipes.example/tarte-{i}"),
                &format!("Tarte tatin recette {i}"),
                i,
            )
        })
        .collect()
}

#[test]
fn an_expansion_failure_falls_back_to_the_question_and_still_answers() {
    for failure in every_failure() {
        let history = Table::new(small_history());
        let mut script: Vec<_> = (0..attempts(&failure))
            .map(|_| Err(failure.clone()))
            .collect();
        script.push(reply(r#"[{"id": 3, "reason": "r"}]"#));
        let model = Scripted::new(script);
        let (answer, _) = search(
            &history,
            &model,
            input("la recette de la tarte", Depth::Regular),
        );

        assert!(answer.keywords_from_fallback, "{failure:?}");
        assert_eq!(answer.keywords, ["recette", "tarte"]);
        assert_eq!(answer.notices[0], Notice::KeywordsFromQuestion);
        assert_eq!(answer.failure.as_ref(), Some(&failure));
        assert_eq!(answer.candidate_count, 8);
        let ranked = model.kinds().contains(&CallKind::Ranking);
        assert_eq!(ranked, !failure.is_fatal_for_session(), "{failure:?}");
        if ranked {
            assert_eq!(urls(&answer), ["https://recipes.example/tarte-2"]);
        } else {
            assert_eq!(answer.picks.len(), MAX_PICKS, "{failure:?}");
            assert_eq!(answer.notices[1], Notice::Unranked);
        }
    }
}

#[test]
fn a_ranking_cut_at_the_output_limit_keeps_its_complete_picks_and_says_so() {
    let history = Table::new(small_history());
    let cut = Ok(ModelReply {
        text: r#"[{"id": 2, "reason": "complete"}, {"id": 1, "reason": "cut mi"#.into(),
        usage: None,
        truncated: true,
    });
    let model = Scripted::new([reply(r#"["tarte"]"#), cut]);
    let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
    assert_eq!(answer.picks.len(), 1);
    assert_eq!(answer.picks[0].reason, "complete");
    assert_eq!(answer.notices, [Notice::Cut]);
    assert_eq!(answer.failure, None);
}

#[test]
fn a_small_context_window_shrinks_the_ranking_request_until_it_fits() {
    let history = Table::new(big_history());
    let mut model = Scripted::new([
        keywords_reply(20),
        reply(r#"[{"id": 1, "reason": "first"}]"#),
    ]);
    model.window = Some(700);
    let (answer, _) = search(&history, &model, input("q", Depth::Regular));
    let requests = model.requests.borrow();
    let ranking = requests.last().unwrap();
    let lines = candidate_lines(ranking);
    assert!(
        lines.len() < answer.candidate_count,
        "{} lines of {}",
        lines.len(),
        answer.candidate_count
    );
    assert!((ranking.system.len() + ranking.prompt.len()) / 4 <= 700);
    assert!(
        lines
            .iter()
            .all(|line| line.split('|').nth(2).unwrap().chars().count() <= MIN_TITLE_CHARS)
    );
    assert_eq!(
        answer.notices,
        [Notice::Shrunk {
            ranked: lines.len(),
            found: answer.candidate_count
        }]
    );
    assert_eq!(answer.picks[0].reason, "first");

    // A window too small for even one candidate: no ranking call, the first candidates unranked.
    let mut tiny = Scripted::new([keywords_reply(20)]);
    tiny.window = Some(10);
    let (answer, _) = search(&history, &tiny, input("q", Depth::Regular));
    assert_eq!(tiny.kinds(), [CallKind::Expansion]);
    assert_eq!(answer.failure, Some(ModelFailure::ContextOverflow));
    assert_eq!(answer.picks.len(), MAX_PICKS);
}

#[test]
fn a_ranking_failure_shows_the_first_five_candidates() {
    for failure in every_failure() {
        let history = Table::new(small_history());
        let mut script = vec![reply(r#"["tarte"]"#)];
        script.extend((0..attempts(&failure)).map(|_| Err(failure.clone())));
        let model = Scripted::new(script);
        let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
        assert_eq!(answer.failure.as_ref(), Some(&failure));
        assert_eq!(answer.notices, [Notice::Unranked]);
        assert_eq!(answer.picks.len(), MAX_PICKS);
        assert_eq!(answer.picks[0].page.url, "https://recipes.example/tarte-0");
        assert!(answer.picks.iter().all(|p| p.reason.is_empty()));
        assert_eq!(model.requests.borrow().len(), 1 + attempts(&failure));
    }
}

#[test]
fn retries_wait_as_told() {
    let quota = |s| {
        Err(ModelFailure::QuotaExhausted {
            retry_after_s: Some(s),
        })
    };
    type Script = Vec<Result<ModelReply, ModelFailure>>;
    let rows: Vec<(Script, Vec<u32>, Vec<Progress>)> = vec![
        (
            vec![quota(22), reply(r#"["tarte"]"#)],
            vec![22_000],
            vec![Progress::Retrying {
                seconds: 22,
                attempt: 2,
            }],
        ),
        (
            vec![
                Err(ModelFailure::Overloaded),
                Err(ModelFailure::Network),
                reply(r#"["tarte"]"#),
            ],
            vec![1_000, 2_000],
            vec![
                Progress::Retrying {
                    seconds: 1,
                    attempt: 2,
                },
                Progress::Retrying {
                    seconds: 2,
                    attempt: 3,
                },
            ],
        ),
        (vec![quota(45), reply(r#"["tarte"]"#)], vec![], vec![]),
        (
            vec![Err(ModelFailure::Timeout), reply(r#"["tarte"]"#)],
            vec![],
            vec![],
        ),
    ];
    for (script, sleeps, retries) in rows {
        let history = Table::new(small_history());
        let model = Scripted::new(script);
        let (_, steps) = search(&history, &model, input("tarte", Depth::Superficial));
        assert_eq!(*model.sleeps.borrow(), sleeps);
        let seen: Vec<Progress> = steps
            .into_iter()
            .filter(|s| matches!(s, Progress::Retrying { .. }))
            .collect();
        assert_eq!(seen, retries);
    }
}

#[test]
fn a_missing_model_is_replaced_once_by_the_fallback() {
    let history = Table::new(small_history());
    let gone = || {
        Err(ModelFailure::ModelNotFound {
            model: "gemini-2.5-flash".into(),
        })
    };
    let model = Scripted::new([gone(), reply(r#"["tarte"]"#), reply("[2]")]);
    let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
    let used: Vec<String> = model
        .requests
        .borrow()
        .iter()
        .map(|r| r.model.clone())
        .collect();
    assert_eq!(used, ["gemini-2.5-flash", FALLBACK, FALLBACK]);
    assert_eq!(
        answer.notices,
        [Notice::ModelReplaced {
            configured: "gemini-2.5-flash".into(),
            used: FALLBACK.into(),
        }]
    );
    assert_eq!(answer.model_used, FALLBACK);
    assert_eq!(urls(&answer), ["https://recipes.example/tarte-1"]);
    assert_eq!(answer.failure, None);
    assert!(
        answer.notices[0]
            .message()
            .contains("“gemini-2.5-flash” is no longer available")
    );

    // When the fallback is gone too, the failure names it and no ranking is attempted.
    let model = Scripted::new([
        gone(),
        Err(ModelFailure::ModelNotFound {
            model: String::new(),
        }),
    ]);
    let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
    assert_eq!(
        answer.failure,
        Some(ModelFailure::ModelNotFound {
            model: FALLBACK.into(),
        })
    );
    assert_eq!(model.requests.borrow().len(), 2);
    assert_eq!(answer.picks.len(), MAX_PICKS);

    // Without a fallback (on-device), a missing model is the failure at once.
    let model = Scripted::new([gone(), reply("[1]")]);
    let (answer, _) = search(
        &history,
        &model,
        AiInput {
            fallback_model: None,
            ..input("tarte", Depth::Regular)
        },
    );
    assert_eq!(
        answer.failure,
        Some(ModelFailure::ModelNotFound {
            model: "gemini-2.5-flash".into(),
        })
    );
    assert!(
        answer
            .notices
            .iter()
            .all(|n| !matches!(n, Notice::ModelReplaced { .. }))
    );
    assert_eq!(answer.model_used, "gemini-2.5-flash");
}

#[test]
fn unusable_answers_fall_back() {
    // (keywords answer, ranking answer, picks, notices)
    let rows: Vec<(&str, &str, Vec<&str>, Vec<Notice>)> = vec![
        (
            "Sorry, no idea.",
            "[1]",
            vec!["tarte-0"],
            vec![Notice::KeywordsFromQuestion],
        ),
        (
            r#"["tarte"]"#,
            "The best one is the first.",
            vec!["tarte-0", "tarte-1", "tarte-2", "tarte-3", "tarte-4"],
            vec![Notice::Unranked],
        ),
        (
            r#"["tarte"]"#,
            "[]",
            vec!["tarte-0", "tarte-1", "tarte-2", "tarte-3", "tarte-4"],
            vec![Notice::NoGoodMatch],
        ),
        (
            r#"["tarte"]"#,
            r#"[{"id": 99}, {"id": "https://evil.example"}]"#,
            vec!["tarte-0", "tarte-1", "tarte-2", "tarte-3", "tarte-4"],
            vec![Notice::Unranked],
        ),
        (
            r#"["tarte"]"#,
            "[3, 3, 0, 9, 8, 7, 6, 5, 4]",
            vec!["tarte-2", "tarte-7", "tarte-6", "tarte-5", "tarte-4"],
            vec![],
        ),
    ];
    for (keywords, ranking, picks, notices) in rows {
        let history = Table::new(small_history());
        let model = Scripted::new([reply(keywords), reply(ranking)]);
        let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
        let expected: Vec<String> = picks
            .iter()
            .map(|p| format!("https://recipes.example/{p}"))
            .collect();
        assert_eq!(urls(&answer), expected, "{keywords} / {ranking}");
        assert_eq!(answer.notices, notices, "{keywords} / {ranking}");
        assert_eq!(answer.failure, None);
    }
}

#[test]
fn nothing_found_means_no_ranking_call() {
    let history = Table::new(small_history());
    let model = Scripted::new([reply(r#"["quiche", "lorraine"]"#)]);
    let (answer, _) = search(&history, &model, input("quiche lorraine", Depth::Regular));
    assert_eq!(model.kinds(), [CallKind::Expansion]);
    assert_eq!(answer.candidate_count, 0);
    assert!(answer.picks.is_empty());
    let worded: Vec<String> = answer.notices.iter().map(Notice::message).collect();
    assert_eq!(
        worded,
        ["Nothing in the last 7 days matches “quiche lorraine” — try the last 30 days."]
    );
}

#[test]
fn a_history_error_is_a_notice_and_no_ranking() {
    let history = Table {
        fail: true,
        ..Table::new(small_history())
    };
    let model = Scripted::new([reply(r#"["tarte"]"#)]);
    let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
    assert_eq!(answer.notices, [Notice::HistoryUnavailable]);
    assert!(answer.picks.is_empty());
    assert_eq!(model.kinds(), [CallKind::Expansion]);
}

#[test]
fn cancelling_stops_at_once_and_keeps_what_was_found() {
    // During expansion: nothing searched.
    let history = Table::new(small_history());
    let model = Scripted::new([Err(ModelFailure::Cancelled)]);
    let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
    assert!(answer.cancelled);
    assert!(history.queries.borrow().is_empty());
    assert!(answer.picks.is_empty());
    assert_eq!(answer.failure, None);

    // During retrieval: no more searches, no ranking.
    let model = Scripted::new([reply(r#"["tarte", "recette", "tatin"]"#)]);
    let history = Table {
        cancel_after: Some((1, &model)),
        ..Table::new(small_history())
    };
    let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
    assert!(answer.cancelled);
    assert_eq!(history.queries.borrow().len(), 1);
    assert_eq!(model.kinds(), [CallKind::Expansion]);
    assert_eq!(answer.candidate_count, 8);
    assert_eq!(answer.picks.len(), MAX_PICKS);

    // During ranking: the first candidates.
    let history = Table::new(small_history());
    let model = Scripted::new([reply(r#"["tarte"]"#), Err(ModelFailure::Cancelled)]);
    let (answer, _) = search(&history, &model, input("tarte", Depth::Regular));
    assert!(answer.cancelled);
    assert_eq!(answer.picks.len(), MAX_PICKS);
    assert_eq!(model.requests.borrow().len(), 2);
}

#[test]
fn the_answer_travels_as_json() {
    let history = Table::new(small_history());
    let model = Scripted::new([
        reply(r#"["tarte"]"#),
        reply(r#"[{"id": 1, "reason": "r"}]"#),
    ]);
    let (answer, steps) = search(&history, &model, input("tarte", Depth::Regular));
    let json = serde_json::to_value(&answer).unwrap();
    assert_eq!(json["picks"][0]["reason"], "r");
    assert_eq!(json["keywordsFromFallback"], false);
    assert_eq!(serde_json::from_value::<AiAnswer>(json).unwrap(), answer);
    assert_eq!(
        serde_json::to_value(&steps[1]).unwrap(),
        serde_json::json!({"searching": {"candidates": 8, "budget": 100, "keyword": 1, "keywords": 1}})
    );
}

#[test]
fn site_terms_never_reach_the_model_and_only_their_pages_are_candidates() {
    let history = Table::new(big_history());
    let model = Scripted::new([
        keywords_reply(5),
        reply(r#"[{"id": 1, "reason": "First page"}]"#),
    ]);
    let (answer, _) = search(
        &history,
        &model,
        input("site:SITE1.example pages about k1x", Depth::Superficial),
    );
    let requests = model.requests.borrow();
    assert_eq!(model.kinds(), [CallKind::Expansion, CallKind::Ranking]);
    for request in requests.iter() {
        assert!(
            !request.prompt.to_lowercase().contains("site:"),
            "{}",
            request.prompt
        );
    }
    assert!(requests[0].prompt.contains("pages about k1x"));
    // The source was asked for the site's pages (the table ignores it: the pipeline drops the rest).
    let expected = crate::site_filter::parse("site:site1.example").filter;
    assert!(history.queries.borrow().iter().all(|q| q.sites == expected));
    let lines = candidate_lines(&requests[1]);
    assert_eq!(lines.len(), answer.candidate_count);
    assert!(answer.candidate_count > 0);
    assert!(
        lines.iter().all(|l| l
            .rsplit('|')
            .next()
            .is_some_and(|u| u.starts_with("site1.example/"))),
        "{lines:?}"
    );
    assert_eq!(urls(&answer), ["https://site1.example/page/0"]);
}

#[test]
fn nothing_of_the_site_names_it_and_calls_no_ranking() {
    let history = Table::new(big_history());
    let model = Scripted::new([keywords_reply(5)]);
    let (answer, _) = search(
        &history,
        &model,
        input("k0x site:nowhere.example", Depth::Superficial),
    );
    assert_eq!(model.kinds(), [CallKind::Expansion]);
    assert_eq!(answer.candidate_count, 0);
    let worded: Vec<String> = answer.notices.iter().map(Notice::message).collect();
    assert_eq!(
        worded,
        ["Nothing from nowhere.example in the last 7 days matches “k0x” — try the last 30 days."]
    );
}

#[test]
fn nothing_found_is_stored_as_the_question_and_worded_when_shown() {
    let stored = serde_json::to_value(Notice::NothingFound {
        question: "cte site:github.com".into(),
        period: Period::Week,
        message: None,
    })
    .unwrap();
    assert_eq!(
        stored,
        serde_json::json!({"nothingFound": {"question": "cte site:github.com", "period": "7d"}})
    );
    let read: Notice = serde_json::from_value(stored).unwrap();
    assert_eq!(
        read.message(),
        "Nothing from github.com in the last 7 days matches “cte” — try the last 30 days."
    );
    // An earlier version stored the sentence: it is shown as it was.
    let legacy: Notice = serde_json::from_value(
        serde_json::json!({"nothingFound": {"message": "Nothing in the last 7 days matches “x”."}}),
    )
    .unwrap();
    assert_eq!(legacy.message(), "Nothing in the last 7 days matches “x”.");
}
