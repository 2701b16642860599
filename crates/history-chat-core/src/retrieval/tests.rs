use std::cell::{Cell, RefCell};

use super::*;
use crate::failure::BrowserFailure;
use crate::retrieval::fusion::Placement;

const NOW: i64 = 1_800_000_000_000;

fn page(url: &str) -> Page {
    Page {
        url: url.to_owned(),
        title: url.to_owned(),
        last_visit_ms: NOW - 1_000,
        visit_count: 1,
        passage: None,
        marks: Default::default(),
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

/// A ranked source, listed as `name` (its stage is shown capitalised: "topics" → `Topics`), that
/// answers `answer` and writes down that it was asked.
struct FakeRanked<'a> {
    name: &'static str,
    asking: Asking,
    answer: Ranked,
    log: &'a Log,
}

impl RankedSource for FakeRanked<'_> {
    fn asking(&self) -> Asking {
        self.asking
    }

    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
        Box::pin(async move {
            assert_eq!(query.limit, self.asking.pool, "{}'s pool", self.name);
            assert_eq!(
                query.start_ms,
                Period::Week.start_ms(NOW),
                "the period's start"
            );
            self.log
                .borrow_mut()
                .push(format!("{} {}", self.name, query.limit));
            self.answer.clone()
        })
    }
}

/// A ranked source to list: its name, how it is asked, its answer.
type Listed = (&'static str, Asking, Ranked);

/// Topic search, answering `answer`.
fn topic(answer: Ranked) -> Listed {
    ("topics", TOPIC_SEARCH, answer)
}

/// Topic search, listed alone, answering `answer`.
fn topic_search(answer: Ranked) -> Vec<Listed> {
    vec![topic(answer)]
}

/// An asker that stops wanting the question after `wanted_for` checks. It names a ranked step by
/// its source's name, and checks that the step it is told is the last is the last the plan can
/// show: the last ranked source asked's (`last`), or the words' answer when none is listed.
struct Recorder<'a> {
    log: &'a Log,
    wanted_for: Cell<usize>,
    names: Vec<&'static str>,
    last: Option<Stage>,
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
        let stage = match step.stage {
            Stage::Ranked(place) => {
                let name = self.names[place];
                name[..1].to_uppercase() + &name[1..]
            }
            stage => format!("{stage:?}"),
        };
        let last = match self.last {
            Some(last) => step.stage == last,
            None => step.stage != Stage::FillingIn,
        };
        assert_eq!(step.last, last, "{stage}: the last step?");
        // What the plan fuses it cuts (the index's own answer is as long as it was asked for).
        if matches!(step.stage, Stage::FilledIn | Stage::Ranked(_)) {
            assert!(step.pages.len() <= RESULT_LIMIT, "{stage}: cut");
        }
        self.log.borrow_mut().push(format!(
            "show {stage} {} {}",
            urls(&step.pages).join(","),
            step.indexing.is_some()
        ));
    }
}

struct Case {
    lexical: Lexical,
    browser: Result<Vec<Page>, Failure>,
    ranked: Vec<Listed>,
    pace: Pace,
    wanted_for: usize,
}

fn run(case: Case) -> (Result<Retrieved, Failure>, Vec<String>) {
    run_question(case, "cte")
}

/// A ranked source of the bookmarks and open tabs (not the history's): asked when the question
/// names either, or no source.
struct FakePlaces<'a>(FakeRanked<'a>);

impl RankedSource for FakePlaces<'_> {
    fn asking(&self) -> Asking {
        self.0.asking()
    }

    fn find<'a>(&'a self, query: &'a SourceQuery<'_>) -> Finding<'a> {
        self.0.find(query)
    }

    fn searches(&self, origins: crate::origin::Origins) -> bool {
        super::searches_places(origins)
    }
}

/// [`run`] for `question`; a ranked source named "places" is a [`FakePlaces`].
fn run_question(case: Case, question: &str) -> (Result<Retrieved, Failure>, Vec<String>) {
    let log = Log::default();
    let ranked: Vec<FakeRanked> = case
        .ranked
        .into_iter()
        .map(|(name, asking, answer)| FakeRanked {
            name,
            asking,
            answer,
            log: &log,
        })
        .collect();
    let places: Vec<FakePlaces> = (ranked.iter())
        .filter(|r| r.name == "places")
        .map(|r| {
            FakePlaces(FakeRanked {
                name: r.name,
                asking: r.asking,
                answer: r.answer.clone(),
                log: &log,
            })
        })
        .collect();
    let listed: Vec<&dyn RankedSource> = ranked
        .iter()
        .map(|r| match places.iter().find(|p| p.0.name == r.name) {
            Some(place) => place as &dyn RankedSource,
            None => r as &dyn RankedSource,
        })
        .collect();
    let origins = crate::site_filter::parse(question).origins;
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
        ranked: &listed,
    };
    // The last asked: the greatest pause, the last listed of those (`max_by_key` keeps the last),
    // among the sources the question's source terms leave.
    let last = listed
        .iter()
        .enumerate()
        .filter(|(_, r)| r.searches(origins))
        .max_by_key(|(_, r)| r.asking().pause_ms)
        .map(|(place, _)| Stage::Ranked(place));
    let asker = Recorder {
        log: &log,
        wanted_for: Cell::new(case.wanted_for),
        names: ranked.iter().map(|r| r.name).collect(),
        last,
    };
    let retrieval = Retrieval {
        question,
        period: Period::Week,
        now_ms: NOW,
        pace: case.pace,
    };
    let outcome = pollster::block_on(retrieve(&retrieval, &sources, &asker));
    drop(asker);
    drop(sources);
    drop(listed);
    drop(places);
    drop(ranked);
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

fn topics(urls: &[&str], words: Words) -> Ranked {
    Ranked::topics(pages(urls), words)
}

#[test]
fn the_plan_asks_fuses_and_cuts_as_each_source_answers() {
    let committed = |lexical, browser, topics| Case {
        lexical,
        browser,
        ranked: topic_search(topics),
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
                Ranked::none(),
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
            committed(partial(&["a"]), Ok(pages(&["x", "a"])), Ranked::none()),
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
            committed(partial(&["a"]), Err(refused("no")), Ranked::none()),
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
            committed(partial(&[]), Err(refused("unreadable")), Ranked::none()),
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
        ranked: topic_search(topics(&["t"], Words::Found)),
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
        ranked: topic_search(topics(&many, Words::Missed)),
        pace: Pace::Committed,
        wanted_for: usize::MAX,
    });
    let Ok(Retrieved::Pages { pages, .. }) = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(pages.len(), RESULT_LIMIT);
}

/// A source that is not the plan's (yet): named, paced and asked as declared, its pages fused.
fn listed(name: &'static str, pause_ms: u32, pool: usize, urls: &[&str]) -> Listed {
    let answer = Ranked {
        pages: pages(urls),
        placement: Placement::Fused,
    };
    (name, Asking { pause_ms, pool }, answer)
}

fn bookmarks(urls: &[&str]) -> Listed {
    listed("bookmarks", 0, 10, urls)
}

#[test]
fn source_terms_ask_only_the_sources_they_name() {
    let case = || Case {
        lexical: Lexical::Whole(pages(&["a", "b"])),
        browser: Ok(pages(&["x"])),
        ranked: vec![
            topic(topics(&["t"], Words::Found)),
            listed("places", 0, 10, &["k", "a"]),
        ],
        pace: Pace::Committed,
        wanted_for: usize::MAX,
    };
    // (question, the answer, what was asked and shown)
    type Row<'a> = (&'a str, Result<Retrieved, Failure>, &'a [&'a str]);
    let rows: &[Row] = &[
        (
            "cte",
            found(&["a", "k", "t", "b"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "places 10",
                "show Places a,k,b false",
                "topics 30",
                "show Topics a,k,t,b false",
            ],
        ),
        // Bookmarks or tabs only: neither the history's index nor topic search is asked.
        (
            "bookmark: cte",
            found(&["k", "a"], None),
            &["show Words  false", "places 10", "show Places k,a false"],
        ),
        (
            "onglet: cte",
            found(&["k", "a"], None),
            &["show Words  false", "places 10", "show Places k,a false"],
        ),
        // The history only: the places are not asked.
        (
            "history: cte",
            found(&["a", "t", "b"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "topics 30",
                "show Topics a,t,b false",
            ],
        ),
    ];
    for (question, expected, log) in rows {
        let (outcome, got) = run_question(case(), question);
        assert_eq!(outcome, *expected, "{question}");
        assert_eq!(got, *log, "{question}");
    }
}

#[test]
fn a_new_ranked_source_is_listed_not_written_into_the_plan() {
    let topics_found = || topic(topics(&["t"], Words::Found));
    let case = |pace, ranked, wanted_for| Case {
        lexical: Lexical::Whole(pages(&["a", "b"])),
        browser: Ok(pages(&["x"])),
        ranked,
        pace,
        wanted_for,
    };
    let typing = |ranked| case(Pace::AsYouType, ranked, usize::MAX);
    let three = || {
        vec![
            topics_found(),
            listed("content", 100, 20, &["c"]),
            bookmarks(&["k", "a"]),
        ]
    };
    type Row<'a> = (&'a str, Case, Result<Retrieved, Failure>, &'a [&'a str]);
    let rows: Vec<Row> = vec![
        (
            "a cheap source listed after topic search is asked first, at once; each answer is \
             fused with every one so far",
            typing(vec![topics_found(), bookmarks(&["k", "a"])]),
            found(&["a", "k", "t", "b"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "bookmarks 10",
                "show Bookmarks a,k,b false",
                "pause 350",
                "topics 30",
                "show Topics a,k,t,b false",
            ],
        ),
        (
            "topic search's pages lead when the words missed, the other lists fused after them",
            typing(vec![
                topic(topics(&["t"], Words::Missed)),
                bookmarks(&["k", "a"]),
            ]),
            found(&["t", "a", "k", "b"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "bookmarks 10",
                "show Bookmarks a,k,b false",
                "pause 350",
                "topics 30",
                "show Topics t,a,k,b false",
            ],
        ),
        (
            "a source that finds nothing shows nothing",
            typing(vec![topics_found(), bookmarks(&[])]),
            found(&["a", "t", "b"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "bookmarks 10",
                "pause 350",
                "topics 30",
                "show Topics a,t,b false",
            ],
        ),
        (
            "typed over while the bookmarks answered: nothing more shown, topic search not asked",
            case(
                Pace::AsYouType,
                vec![topics_found(), bookmarks(&["k", "a"])],
                1,
            ),
            Ok(Retrieved::Dropped),
            &["lexical 25", "show Words a,b false", "bookmarks 10"],
        ),
        (
            "typed over during topic search's pause: it is not asked",
            case(
                Pace::AsYouType,
                vec![topics_found(), bookmarks(&["k", "a"])],
                2,
            ),
            Ok(Retrieved::Dropped),
            &[
                "lexical 25",
                "show Words a,b false",
                "bookmarks 10",
                "show Bookmarks a,k,b false",
                "pause 350",
            ],
        ),
        (
            "the sources by their pause, each waiting the difference from the one before",
            typing(three()),
            found(&["a", "k", "c", "t", "b"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "bookmarks 10",
                "show Bookmarks a,k,b false",
                "pause 100",
                "content 20",
                "show Content a,k,c,b false",
                "pause 250",
                "topics 30",
                "show Topics a,k,c,t,b false",
            ],
        ),
        (
            "a committed question: the same order, no pause",
            case(Pace::Committed, three(), usize::MAX),
            found(&["a", "k", "c", "t", "b"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "bookmarks 10",
                "show Bookmarks a,k,b false",
                "content 20",
                "show Content a,k,c,b false",
                "topics 30",
                "show Topics a,k,c,t,b false",
            ],
        ),
        (
            "equal pauses: in list order",
            typing(vec![
                topics_found(),
                listed("tabs", 0, 10, &["o"]),
                bookmarks(&["k", "a"]),
            ]),
            found(&["a", "o", "k", "t", "b"], None),
            &[
                "lexical 25",
                "show Words a,b false",
                "tabs 10",
                "show Tabs a,o,b false",
                "bookmarks 10",
                "show Bookmarks a,o,k,b false",
                "pause 350",
                "topics 30",
                "show Topics a,o,k,t,b false",
            ],
        ),
        (
            "no ranked source: the words' answer is the last step",
            typing(Vec::new()),
            found(&["a", "b"], None),
            &["lexical 25", "show Words a,b false"],
        ),
        (
            "a partial index: the ranked sources are fused with the browser's fill-in",
            Case {
                lexical: Lexical::Partial {
                    pages: pages(&["a"]),
                    progress: PROGRESS,
                },
                ..typing(vec![topic(Ranked::none()), bookmarks(&["k", "a"])])
            },
            found(&["a", "k", "x"], Some(PROGRESS)),
            &[
                "lexical 25",
                "show FillingIn a true",
                "pause 150",
                "browser 25",
                "show FilledIn a,x true",
                "bookmarks 10",
                "show Bookmarks a,k,x true",
                "pause 350",
                "topics 30",
            ],
        ),
    ];
    for (name, case, want, steps) in rows {
        let (outcome, log) = run(case);
        assert_eq!(outcome, want, "{name}");
        assert_eq!(log, steps, "{name}");
    }
}

#[test]
fn a_source_that_finds_nothing_changes_nothing() {
    let one = |pace, lexical: &dyn Fn() -> Lexical, topics: &dyn Fn() -> Ranked, extra| {
        let mut ranked = topic_search(topics());
        ranked.extend(extra);
        run(Case {
            lexical: lexical(),
            browser: Ok(pages(&["x", "a"])),
            ranked,
            pace,
            wanted_for: usize::MAX,
        })
    };
    let whole = || Lexical::Whole(pages(&["a", "b"]));
    let partial = || Lexical::Partial {
        pages: pages(&["a"]),
        progress: PROGRESS,
    };
    let found_t = || topics(&["t", "a"], Words::Found);
    let missed_t = || topics(&["t"], Words::Missed);
    let none = || Ranked::none();
    let lexicals: [&dyn Fn() -> Lexical; 2] = [&whole, &partial];
    let topic_answers: [&dyn Fn() -> Ranked; 3] = [&found_t, &missed_t, &none];
    for pace in [Pace::Committed, Pace::AsYouType] {
        for lexical in lexicals {
            for topics in topic_answers {
                let (alone, alone_log) = one(pace, lexical, topics, Vec::new());
                for nothing in [bookmarks(&[]), listed("late", 900, 5, &[])] {
                    let asked = format!("{} {}", nothing.0, nothing.1.pool);
                    let (beside, mut log) = one(pace, lexical, topics, vec![nothing]);
                    assert_eq!(beside, alone, "{pace:?} {asked}");
                    // Asked, and (as the user types, when it is the slowest) paused for.
                    log.retain(|line| *line != asked && *line != "pause 550");
                    assert_eq!(log, alone_log, "{pace:?} {asked}");
                }
            }
        }
    }
}

#[test]
fn a_ranked_source_is_cut_to_what_is_shown() {
    let many: Vec<String> = (0..40).map(|i| format!("https://k{i}.example/")).collect();
    let many: Vec<&str> = many.iter().map(String::as_str).collect();
    let (outcome, log) = run(Case {
        lexical: Lexical::Whole(pages(&["a"])),
        browser: Ok(Vec::new()),
        ranked: vec![bookmarks(&many)],
        pace: Pace::Committed,
        wanted_for: usize::MAX,
    });
    let Ok(Retrieved::Pages { pages, .. }) = outcome else {
        panic!("{outcome:?}");
    };
    assert_eq!(pages.len(), RESULT_LIMIT, "{log:?}");
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

#[test]
fn the_content_and_the_places_are_asked_for_the_sources_they_hold() {
    // (question, content asked, bookmarks and tabs asked)
    // (question, content, places, topics)
    let rows = [
        ("tarte tatin", true, true, true),
        ("history: tarte", true, false, true),
        ("bookmark: tarte", true, true, true),
        ("favori: tarte", true, true, true),
        ("tab: tarte", false, true, true),
        ("tab: history: tarte", true, true, true),
    ];
    for (question, content, places, topics) in rows {
        let origins = crate::site_filter::parse(question).origins;
        assert_eq!(
            (
                super::searches_history_or_bookmarks(origins),
                super::searches_places(origins),
                super::searches_topics(origins)
            ),
            (content, places, topics),
            "{question}"
        );
    }
}
