use std::cell::{Cell, RefCell};

use super::*;
use crate::failure::BrowserFailure;

const NOW: i64 = 1_800_000_000_000;

fn page(url: &str) -> Page {
    Page {
        url: url.to_owned(),
        title: url.to_owned(),
        last_visit_ms: NOW - 1_000,
        visit_count: 1,
    }
}

fn pages(urls: &[&str]) -> Vec<Page> {
    urls.iter().map(|url| page(url)).collect()
}

fn urls(pages: &[Page]) -> Vec<&str> {
    pages.iter().map(|p| p.url.as_str()).collect()
}

const PROGRESS: IndexProgress = IndexProgress {
    pages: 7,
    since_ms: Some(NOW - 3_600_000),
};

/// What happened, in order: sources asked (with their limit), pauses, steps shown.
type Log = RefCell<Vec<String>>;

/// A source that answers `answer` and writes down that it was asked.
struct Fake<'a, T> {
    name: &'static str,
    answer: T,
    log: &'a Log,
}

impl<T: Clone> Source for Fake<'_, T> {
    type Answer = T;

    async fn find(&self, query: &SourceQuery<'_>) -> T {
        assert_eq!(
            query.start_ms,
            Period::Week.start_ms(NOW),
            "the period's start"
        );
        self.log
            .borrow_mut()
            .push(format!("{} {}", self.name, query.limit));
        self.answer.clone()
    }
}

/// An asker that stops wanting the question after `wanted_for` checks.
struct Recorder<'a> {
    log: &'a Log,
    wanted_for: Cell<usize>,
}

impl Asker for Recorder<'_> {
    fn wanted(&self) -> bool {
        let left = self.wanted_for.get();
        self.wanted_for.set(left.saturating_sub(1));
        left > 0
    }

    async fn pause(&self, ms: u32) {
        self.log.borrow_mut().push(format!("pause {ms}"));
    }

    fn show(&self, step: Step) {
        self.log.borrow_mut().push(format!(
            "show {:?} {} {}",
            step.stage,
            urls(&step.pages).join(","),
            step.indexing.is_some()
        ));
    }
}

struct Case {
    lexical: Lexical,
    browser: Result<Vec<Page>, Failure>,
    topics: Topics,
    pace: Pace,
    wanted_for: usize,
}

fn run(case: Case) -> (Result<Retrieved, Failure>, Vec<String>) {
    let log = Log::default();
    let sources = Sources {
        lexical: Fake {
            name: "lexical",
            answer: case.lexical,
            log: &log,
        },
        browser: Fake {
            name: "browser",
            answer: case.browser,
            log: &log,
        },
        topics: Fake {
            name: "topics",
            answer: case.topics,
            log: &log,
        },
    };
    let asker = Recorder {
        log: &log,
        wanted_for: Cell::new(case.wanted_for),
    };
    let retrieval = Retrieval {
        question: "cte",
        period: Period::Week,
        now_ms: NOW,
        pace: case.pace,
    };
    let outcome = pollster::block_on(retrieve(&retrieval, &sources, &asker));
    (outcome, log.into_inner())
}

/// The browser refused the call to `api`.
fn refused(api: &str) -> Failure {
    Failure::Browser(BrowserFailure::Refused { api: api.into() })
}

fn found(urls: &[&str], indexing: Option<IndexProgress>) -> Result<Retrieved, Failure> {
    Ok(Retrieved::Pages {
        pages: pages(urls),
        indexing,
    })
}

fn topics(urls: &[&str], words: Words) -> Topics {
    Topics {
        pages: pages(urls),
        words,
    }
}

#[test]
fn the_plan_asks_fuses_and_cuts_as_each_source_answers() {
    let committed = |lexical, browser, topics| Case {
        lexical,
        browser,
        topics,
        pace: Pace::Committed,
        wanted_for: usize::MAX,
    };
    let partial = |urls: &[&str]| Lexical::Partial {
        pages: pages(urls),
        progress: PROGRESS,
    };
    type Row<'a> = (&'a str, Case, Result<Retrieved, Failure>, &'a [&'a str]);
    let rows: Vec<Row> = vec![
        (
            "a whole index and no topic page: the words' answer, the browser never asked",
            committed(
                Lexical::Whole(pages(&["a", "b"])),
                Ok(pages(&["x"])),
                Topics::none(),
            ),
            found(&["a", "b"], None),
            &["lexical 25", "show Words a,b false", "topics 30"],
        ),
        (
            "topic pages beside a page the words found: fused by RRF",
            committed(
                Lexical::Whole(pages(&["a", "b"])),
                Ok(Vec::new()),
                topics(&["b", "t"], Words::Found),
            ),
            found(&["b", "a", "t"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "topics 30",
                "show Topics b,a,t false",
            ],
        ),
        (
            "topic pages when the words missed: they lead",
            committed(
                Lexical::Whole(pages(&["a"])),
                Ok(Vec::new()),
                topics(&["t", "u"], Words::Missed),
            ),
            found(&["t", "u", "a"], None),
            &[
                "lexical 25",
                "show Words a false",
                "topics 30",
                "show Topics t,u,a false",
            ],
        ),
        (
            "a partial index: shown as filling in, then the browser's pages fused in",
            committed(partial(&["a"]), Ok(pages(&["x", "a"])), Topics::none()),
            found(&["a", "x"], Some(PROGRESS)),
            &[
                "lexical 25",
                "show FillingIn a true",
                "browser 25",
                "show FilledIn a,x true",
                "topics 30",
            ],
        ),
        (
            "a partial index and a failing browser: what the index found stands",
            committed(partial(&["a"]), Err(refused("no")), Topics::none()),
            found(&["a"], Some(PROGRESS)),
            &[
                "lexical 25",
                "show FillingIn a true",
                "browser 25",
                "show FilledIn a true",
                "topics 30",
            ],
        ),
        (
            "nothing indexed yet and a failing browser: the history could not be searched",
            committed(partial(&[]), Err(refused("unreadable")), Topics::none()),
            Err(refused("unreadable")),
            &["lexical 25", "show FillingIn  true", "browser 25"],
        ),
        (
            "a refusal: no other source is asked",
            committed(
                Lexical::Refused(Failure::ExclusionsUnknown),
                Ok(pages(&["x"])),
                topics(&["t"], Words::Found),
            ),
            Err(Failure::ExclusionsUnknown),
            &["lexical 25"],
        ),
    ];
    for (name, case, want, steps) in rows {
        let (outcome, log) = run(case);
        assert_eq!(outcome, want, "{name}");
        assert_eq!(log, steps, "{name}");
    }
}

#[test]
fn as_you_type_the_plan_pauses_before_the_slower_sources_and_drops_a_stale_question() {
    let partial = || Lexical::Partial {
        pages: pages(&["a"]),
        progress: PROGRESS,
    };
    let typing = |wanted_for| Case {
        lexical: partial(),
        browser: Ok(pages(&["x"])),
        topics: topics(&["t"], Words::Found),
        pace: Pace::AsYouType,
        wanted_for,
    };
    let rows: &[(usize, bool, &[&str])] = &[
        // Wanted throughout: both pauses, every source, every step.
        (
            usize::MAX,
            false,
            &[
                "lexical 25",
                "show FillingIn a true",
                "pause 150",
                "browser 25",
                "show FilledIn a,x true",
                "pause 350",
                "topics 30",
                "show Topics a,t,x true",
            ],
        ),
        // Typed over before the index answered: nothing shown.
        (0, true, &["lexical 25"]),
        // Typed over during the first pause: the browser is never asked.
        (
            1,
            true,
            &["lexical 25", "show FillingIn a true", "pause 150"],
        ),
        // Typed over during the second pause: topic search is never asked.
        (
            3,
            true,
            &[
                "lexical 25",
                "show FillingIn a true",
                "pause 150",
                "browser 25",
                "show FilledIn a,x true",
                "pause 350",
            ],
        ),
    ];
    for &(wanted_for, dropped, steps) in rows {
        let (outcome, log) = run(typing(wanted_for));
        assert_eq!(
            outcome == Ok(Retrieved::Dropped),
            dropped,
            "{wanted_for}: {outcome:?}"
        );
        assert_eq!(log, steps, "{wanted_for}");
    }
}

#[test]
fn every_answer_is_cut_to_what_is_shown() {
    let many: Vec<String> = (0..40).map(|i| format!("https://b{i}.example/")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let (outcome, _) = run(Case {
        lexical: Lexical::Partial {
            pages: pages(&many[..30]),
            progress: PROGRESS,
        },
        browser: Ok(pages(&many[10..])),
        topics: topics(&many, Words::Missed),
        pace: Pace::Committed,
        wanted_for: usize::MAX,
    });
    let Ok(Retrieved::Pages { pages, .. }) = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(pages.len(), RESULT_LIMIT);
}

#[test]
fn the_index_answer_is_whole_only_when_it_covers_the_period() {
    let rows = [
        (
            Some(Answer::Pages {
                pages: pages(&["a"]),
                indexing: None,
            }),
            Lexical::Whole(pages(&["a"])),
        ),
        (
            Some(Answer::Pages {
                pages: pages(&["a"]),
                indexing: Some(PROGRESS),
            }),
            Lexical::Partial {
                pages: pages(&["a"]),
                progress: PROGRESS,
            },
        ),
        (
            Some(Answer::Indexing { progress: PROGRESS }),
            Lexical::Partial {
                pages: Vec::new(),
                progress: PROGRESS,
            },
        ),
        (
            Some(Answer::Kept { pages: 3 }),
            Lexical::Partial {
                pages: Vec::new(),
                progress: IndexProgress::default(),
            },
        ),
        (
            None,
            Lexical::Partial {
                pages: Vec::new(),
                progress: IndexProgress::default(),
            },
        ),
    ];
    for (answer, want) in rows {
        let described = format!("{answer:?}");
        assert_eq!(Lexical::of_index(answer), want, "{described}");
    }
}
