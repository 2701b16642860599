//! The AI search, from question to answer: expansion, budgeted retrieval, ranking.
//!
//! Every failure ends in an answer: unusable keywords fall back to the question's words, an unusable
//! ranking to the first [`MAX_PICKS`] candidates, and the user is told which in [`AiAnswer::notices`]
//! and [`AiAnswer::failure`]. The function never panics and never answers empty-handed when
//! candidates exist.

use serde::{Deserialize, Serialize};

use crate::ai::Depth;
use crate::ai::budget::{Budget, CANDIDATE_BUDGET};
use crate::ai::fit::{Fit, MAX_FIT_ROUNDS};
use crate::ai::model::{
    LanguageModel, ModelFailure, ModelReply, ModelRequest, Usage, retry_delay_ms,
};
use crate::ai::parse;
use crate::ai::prompts::{MAX_PICKS, expansion_request, ranking_request_with};
use crate::history::{Page, RankedPage};
use crate::period::Period;
use crate::search::{PageQuery, PageSource};
use crate::site_filter;

/// Pages asked of the source per keyword (its [`PageQuery::limit`]): it belongs to the pipeline,
/// which alone knows how the budget spends them. A keyword takes at most 10 pages in the first
/// pass, but pages taken by earlier keywords do not count and leftovers feed the second pass, so
/// it asks for many more. (A browser-backed source asks the browser for more raw entries still:
/// [`crate::search::FETCH_LIMIT`].)
pub const KEYWORD_FETCH_LIMIT: usize = 100;

/// What the pipeline needs to know.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AiInput {
    /// The user's question.
    pub question: String,
    /// How far back to search.
    pub period: Period,
    /// How many keywords to ask for.
    pub depth: Depth,
    /// The current time, ms since the Unix epoch.
    pub now_ms: i64,
    /// The model to ask, as the client names it (`gemini-2.5-flash`).
    pub model: String,
    /// The model to ask instead, once, if `model` is gone (`gemini-flash-latest` for Gemini);
    /// `None` when there is no other.
    pub fallback_model: Option<String>,
}

/// Where the search is, for the popup's status line.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Progress {
    /// Asking the model for keywords.
    Expanding,
    /// The last call failed and is retried after `seconds` (this will be attempt `attempt`).
    Retrying {
        /// Seconds until the retry, rounded up.
        seconds: u32,
        /// The coming attempt's number (2 for the first retry).
        attempt: u32,
    },
    /// Keyword `keyword` of `keywords` was searched; `candidates` of `budget` are collected.
    Searching {
        /// Candidates collected so far.
        candidates: usize,
        /// The most candidates ([`CANDIDATE_BUDGET`]).
        budget: usize,
        /// Keywords searched so far.
        keyword: usize,
        /// Keywords in all.
        keywords: usize,
    },
    /// Asking the model to rank the candidates.
    Ranking,
}

/// Something the user should know about how the answer was made.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Notice {
    /// The model's keywords were not usable: the question's own words were searched.
    KeywordsFromQuestion,
    /// The configured model is gone; another one answered.
    ModelReplaced {
        /// The configured model.
        configured: String,
        /// The model used instead.
        used: String,
    },
    /// The browser's history could not be read.
    HistoryUnavailable,
    /// No candidate at all: worded with what to try next ("Nothing in the last 7 days matches …
    /// — try the last 30 days.").
    NothingFound {
        /// The question as asked (its `site:` terms included).
        #[serde(default)]
        question: String,
        /// The period searched.
        #[serde(default)]
        period: Period,
        /// The sentence an earlier version stored instead, shown as it is.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        message: Option<String>,
    },
    /// The ranking was not usable: the first candidates are shown, unranked.
    Unranked,
    /// The model found no candidate that fits: the first ones are shown anyway.
    NoGoodMatch,
    /// The ranking was cut at the output limit: only the picks it completed are shown.
    Cut,
    /// Only the first candidates fitted the model's context window.
    Shrunk {
        /// Candidates sent for ranking.
        ranked: usize,
        /// Candidates found.
        found: usize,
    },
    /// A sentence stored by an earlier version, shown as it is.
    Worded(String),
}

/// The outcome of an AI search.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct AiAnswer {
    /// The keywords searched, in order.
    pub keywords: Vec<String>,
    /// Whether they are the question's own words ([`Notice::KeywordsFromQuestion`]).
    pub keywords_from_fallback: bool,
    /// Candidates collected (at most [`CANDIDATE_BUDGET`]).
    pub candidate_count: usize,
    /// The pages to show, best first, at most [`MAX_PICKS`].
    pub picks: Vec<RankedPage>,
    /// What the user should know, in the order it happened.
    pub notices: Vec<Notice>,
    /// The model failure that made a fallback happen (the ranking's, if both calls failed);
    /// show its [`ModelFailure::user_message`].
    pub failure: Option<ModelFailure>,
    /// Tokens used by both calls.
    pub usage: Usage,
    /// The user cancelled; the answer holds what was found until then.
    pub cancelled: bool,
    /// The model that answered (or would have).
    pub model_used: String,
}

/// Runs an AI search: keywords from `model`, candidates from `history` (pages already cleaned and
/// merged, offered to the budget as they come), ranking by `model`. `progress` hears each step.
///
/// The question's `site:` terms ([`crate::site_filter`]) never reach the model: it is sent the
/// words alone, and every candidate is a page of those sites (the source is asked for them, and
/// any other page it gives is dropped before the budget).
pub async fn ai_search<H: PageSource, M: LanguageModel>(
    history: &H,
    model: &M,
    input: AiInput,
    progress: &mut impl FnMut(Progress),
) -> AiAnswer {
    let mut session = Session {
        model,
        progress,
        answer: AiAnswer {
            keywords: Vec::new(),
            keywords_from_fallback: false,
            candidate_count: 0,
            picks: Vec::new(),
            notices: Vec::new(),
            failure: None,
            usage: Usage::default(),
            cancelled: false,
            model_used: input.model.trim().to_owned(),
        },
        fallback_model: input.fallback_model,
    };
    let count = input.depth.keyword_count();
    let asked = site_filter::parse(&input.question);
    let words = asked.words.trim();

    (session.progress)(Progress::Expanding);
    let request = expansion_request(words, input.depth, &session.answer.model_used);
    let mut skip_ranking = false;
    let keywords = match session.call(request).await {
        Ok(reply) => parse::keywords(&reply.text, count).ok(),
        Err(ModelFailure::Cancelled) => return session.cancelled(Vec::new()),
        Err(failure) => {
            skip_ranking = failure.is_fatal_for_session();
            session.answer.failure = Some(failure);
            None
        }
    };
    session.answer.keywords = keywords.unwrap_or_else(|| {
        session.answer.keywords_from_fallback = true;
        session.answer.notices.push(Notice::KeywordsFromQuestion);
        parse::fallback_keywords(words, count)
    });

    let start_ms = input.period.start_ms(input.now_ms);
    let mut budget = Budget::new();
    let keyword_total = session.answer.keywords.len();
    for (index, keyword) in session.answer.keywords.iter().enumerate() {
        if model.cancelled() {
            return session.cancelled(budget.finish());
        }
        let query = PageQuery {
            text: keyword.clone(),
            sites: asked.filter.clone(),
            start_ms,
            limit: KEYWORD_FETCH_LIMIT,
        };
        let Ok(mut pages) = history.pages(&query).await else {
            session.answer.notices.push(Notice::HistoryUnavailable);
            return session.answer;
        };
        pages.retain(|page| asked.filter.allows(&page.url));
        let offer = budget.offer(index, pages);
        (session.progress)(Progress::Searching {
            candidates: budget.len(),
            budget: CANDIDATE_BUDGET,
            keyword: index + 1,
            keywords: keyword_total,
        });
        if offer.full {
            break;
        }
    }
    let candidates = budget.finish();
    session.answer.candidate_count = candidates.len();
    if candidates.is_empty() {
        session.answer.notices.push(Notice::NothingFound {
            question: input.question.clone(),
            period: input.period,
            message: None,
        });
        return session.answer;
    }
    if skip_ranking {
        return session.unranked(candidates, Notice::Unranked);
    }

    (session.progress)(Progress::Ranking);
    let Some((request, kept)) = fitted_ranking_request(
        session.model,
        words,
        input.now_ms,
        &candidates,
        &session.answer.model_used,
    )
    .await
    else {
        session.answer.failure = Some(ModelFailure::ContextOverflow);
        return session.unranked(candidates, Notice::Unranked);
    };
    if kept < candidates.len() {
        session.answer.notices.push(Notice::Shrunk {
            ranked: kept,
            found: candidates.len(),
        });
    }
    let candidates = candidates[..kept].to_vec();
    match session.call(request).await {
        Ok(reply) => match parse::ranking(&reply.text, candidates.len()) {
            Ok((picks, _)) if !picks.is_empty() => {
                session.answer.picks = picks
                    .into_iter()
                    .filter_map(|pick| {
                        Some(RankedPage {
                            page: candidates.get(pick.index)?.clone(),
                            reason: pick.reason,
                        })
                    })
                    .collect();
                if reply.truncated {
                    session.answer.notices.push(Notice::Cut);
                }
                session.answer
            }
            Ok((_, issues)) if issues.is_empty() => {
                session.unranked(candidates, Notice::NoGoodMatch)
            }
            _ => session.unranked(candidates, Notice::Unranked),
        },
        Err(ModelFailure::Cancelled) => session.cancelled(candidates),
        Err(failure) => {
            session.answer.failure = Some(failure);
            session.unranked(candidates, Notice::Unranked)
        }
    }
}

/// The ranking request, shrunk until the model says it fits its context window (titles first, then
/// the last candidates), with how many candidates it holds; `None` when not even one fits.
async fn fitted_ranking_request<M: LanguageModel>(
    model: &M,
    question: &str,
    now_ms: i64,
    candidates: &[Page],
    model_name: &str,
) -> Option<(ModelRequest, usize)> {
    let mut fit = Fit::all(candidates.len());
    for _ in 0..=MAX_FIT_ROUNDS {
        let request = ranking_request_with(
            question,
            &candidates[..fit.keep],
            now_ms,
            model_name,
            fit.title_chars,
        );
        match model.measure(&request).await {
            None => return Some((request, fit.keep)),
            Some(used) if used.fits() => return Some((request, fit.keep)),
            Some(used) => fit = fit.shrink(used),
        }
        if fit.keep == 0 {
            return None;
        }
    }
    None
}

/// One search's state: the answer being built, and the calls' retry loop.
struct Session<'a, M, P> {
    model: &'a M,
    progress: &'a mut P,
    answer: AiAnswer,
    /// The model to switch to once if the asked one is gone.
    fallback_model: Option<String>,
}

impl<M: LanguageModel, P: FnMut(Progress)> Session<'_, M, P> {
    /// Calls the model with retries ([`retry_delay_ms`]), switching once to the input's fallback
    /// model if the model is gone. Usage is added to the answer.
    async fn call(&mut self, mut request: ModelRequest) -> Result<ModelReply, ModelFailure> {
        let mut attempts = 0;
        loop {
            request.model.clone_from(&self.answer.model_used);
            attempts += 1;
            let failure = match self.model.generate(&request).await {
                Ok(reply) => {
                    if let Some(usage) = reply.usage {
                        self.answer.usage += usage;
                    }
                    return Ok(reply);
                }
                Err(failure) => failure,
            };
            if let ModelFailure::ModelNotFound { model } = &failure {
                if let Some(fallback) = self.fallback_model.take()
                    && fallback != self.answer.model_used
                {
                    let configured = std::mem::replace(&mut self.answer.model_used, fallback);
                    self.answer.notices.push(Notice::ModelReplaced {
                        configured,
                        used: self.answer.model_used.clone(),
                    });
                    attempts = 0;
                    continue;
                }
                if model.is_empty() {
                    return Err(ModelFailure::ModelNotFound {
                        model: request.model,
                    });
                }
            }
            let Some(ms) = retry_delay_ms(&failure, attempts) else {
                return Err(failure);
            };
            (self.progress)(Progress::Retrying {
                seconds: ms.div_ceil(1_000),
                attempt: attempts + 1,
            });
            self.model.sleep(ms).await;
        }
    }

    /// The first candidates, without reasons, and why.
    fn unranked(mut self, candidates: Vec<Page>, notice: Notice) -> AiAnswer {
        self.answer.notices.push(notice);
        self.answer.picks = first_picks(candidates);
        self.answer
    }

    /// What was found before the user cancelled.
    fn cancelled(mut self, candidates: Vec<Page>) -> AiAnswer {
        self.answer.cancelled = true;
        self.answer.candidate_count = candidates.len();
        self.answer.picks = first_picks(candidates);
        self.answer
    }
}

fn first_picks(candidates: Vec<Page>) -> Vec<RankedPage> {
    candidates
        .into_iter()
        .take(MAX_PICKS)
        .map(|page| RankedPage {
            page,
            reason: String::new(),
        })
        .collect()
}

#[cfg(test)]
mod tests;
