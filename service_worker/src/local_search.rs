//! The local search of a committed question, run by the worker for the popup that asked (so that
//! it ends, and its answer is written, even when that popup closes): the worker's own index at
//! once; while the index does not reach back to the period's start, the browser's search fused in
//! (what the index found is given to the popup first); then topic search's pages fused in.

use history_chat_bindings::{http, log};
use history_chat_core::conversation::{Turn, TurnError, TurnNote};
use history_chat_core::history::Page;
use history_chat_core::index::fuse_with_browser;
use history_chat_core::index::host::{Question, WORKER_PATIENCE_MS};
use history_chat_core::messages::{IndexProgress, Response, SEMANTIC_POOL};
use history_chat_core::period::Period;
use history_chat_core::search::RESULT_LIMIT;
use history_chat_core::semantic::{Words, fuse_semantic};
use history_chat_core::t;

use crate::{index_host, semantic_host};

/// Searches `question` over `period`, as asked at `at_ms`, and makes it a local turn; a failure
/// becomes the turn's error, with what to do. What the words found is given to `early` at once
/// while the browser's search fills in an incomplete index and topic search looks for pages about
/// the question; the answer fuses them all. The early turns say how far the index had got; the
/// answer carries no note (the caller's is why not the engine the user chose).
pub async fn answer(at_ms: i64, question: &str, period: Period, early: impl Fn(Turn)) -> Turn {
    let show_early = |pages: &[Page], note: Option<TurnNote>| {
        let mut turn = Turn::local(at_ms, question, period, Ok(pages.to_vec()));
        turn.note = note;
        early(turn);
    };
    let outcome = words(question, period, at_ms, |partial| {
        show_early(partial, Some(TurnNote::FillingIn))
    })
    .await;
    let indexing = outcome.as_ref().ok().and_then(|(_, progress)| *progress);
    let outcome = match outcome {
        Ok((pages, _)) => {
            if !pages.is_empty() {
                show_early(
                    &pages,
                    indexing.map(|progress| TurnNote::Indexing { progress }),
                );
            }
            Ok(with_topics(&pages, question, period.start_ms(at_ms)).await)
        }
        Err(detail) => Err(TurnError::HistoryUnreadable { detail }),
    };
    Turn::local(at_ms, question, period, outcome)
}

/// What the words find: the index's pages; while it does not reach back to the period's start,
/// fused with the browser's own search (what the index found is given to `early` first, and stands
/// even if the browser fails). Also says how far indexing had got when the browser had to fill in.
async fn words(
    question: &str,
    period: Period,
    now_ms: i64,
    early: impl FnOnce(&[Page]),
) -> Result<(Vec<Page>, Option<IndexProgress>), String> {
    let request = Question::Search {
        query: question.to_owned(),
        start_ms: period.start_ms(now_ms),
        limit: RESULT_LIMIT,
    };
    // The index answers in milliseconds, even mid-build; only a snapshot being read makes it wait,
    // and then no longer than the browser's search takes.
    let answer = http::within(WORKER_PATIENCE_MS, index_host::answer(request)).await;
    let (partial, progress) = match answer {
        Some(Response::Pages {
            pages,
            indexing: None,
        }) => return Ok((pages, None)),
        Some(Response::Pages {
            pages,
            indexing: Some(progress),
        }) => (pages, progress),
        Some(Response::Indexing { progress }) => (Vec::new(), progress),
        // Refused (the excluded sites are not known): the browser's search would be refused too.
        Some(Response::Failed { message }) => return Err(message),
        // The index could not answer, or not in time: the browser's search alone.
        _ => (Vec::new(), IndexProgress::default()),
    };
    if partial.is_empty() {
        let pages = browser_search(question, period, now_ms).await?;
        return Ok((pages, Some(progress)));
    }
    early(&partial);
    let browser = browser_search(question, period, now_ms)
        .await
        // What the index found stands alone; the console keeps why.
        .unwrap_or_else(|reason| {
            log::failure("the browser's search filling in", &reason);
            Vec::new()
        });
    let mut pages = fuse_with_browser(&partial, &browser);
    pages.truncate(RESULT_LIMIT);
    Ok((pages, Some(progress)))
}

/// The browser's own search; `Err` with why the history could not be read.
async fn browser_search(question: &str, period: Period, now_ms: i64) -> Result<Vec<Page>, String> {
    match index_host::browser_search(question, period, now_ms).await {
        Response::Pages { pages, .. } => Ok(pages),
        Response::Failed { message } => Err(message),
        _ => Err(t!("worker_unexpected_reply")),
    }
}

/// The words' pages with topic search's pages for `query` fused in, cut to what is shown.
async fn with_topics(lexical: &[Page], query: &str, start_ms: i64) -> Vec<Page> {
    let (topics, words) = match semantic_host::understand(query, start_ms, SEMANTIC_POOL).await {
        Response::Understood { pages, words, .. } => (pages, words),
        _ => (Vec::new(), Words::Found),
    };
    let mut pages = fuse_semantic(lexical, &topics, words);
    pages.truncate(RESULT_LIMIT);
    pages
}
