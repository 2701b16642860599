//! The messages between the extension's pages and its service worker (`chrome.runtime.sendMessage`),
//! in one place. The worker holds the local search index; pages ask it.

use serde::{Deserialize, Serialize};

use crate::ask::AskReply;
use crate::catch_up::Progress as CatchUpProgress;
use crate::catch_up::Reach;
use crate::content::ContentProgress;
use crate::failure::{BrowserFailure, Failure};
use crate::history::Page;
pub use crate::index::IndexProgress;
use crate::index::host::Answer;
use crate::period::Period;
use crate::power::Battery;
use crate::rows::Removal;
use crate::semantic::{SemanticProgress, Words};

/// The worker gives up on a question's embedding after this long, and the words' answer stands
/// alone: loading the model takes about a second, a question tens of milliseconds, and a batch of
/// pages the model is running yields to a question after the page in hand.
pub const QUERY_PATIENCE_MS: u32 = 10_000;

/// What a page asks the service worker.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(
    tag = "type",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
pub enum Request {
    /// The popup opened: load the index now if it is not loaded, and (sent from the popup) the
    /// questions' model if a question would be embedded. Answered with [`Response::Ready`] or
    /// [`Response::Indexing`].
    Warm,
    /// Smart local search: the index's best pages for `query` among pages last visited at or after
    /// `start_ms`, answered at once from the index (for each keystroke and for a committed
    /// question alike). Its `site:` terms filter the pages ([`crate::site_filter`]).
    Search {
        /// The question as typed, `site:` terms included.
        query: String,
        /// Period start, ms since the Unix epoch.
        start_ms: i64,
        /// At most this many pages.
        limit: usize,
    },
    /// The browser's own literal search of its history (`chrome.history`), for a page whose index
    /// answer does not reach back to the period's start ([`Response::Pages`] with `indexing`):
    /// [`crate::search::local_search`] over the browser's history, run by the worker so that the
    /// popup parses no URL (cleaning the browser's raw entries needs the URL parser and its Unicode
    /// tables). Its `site:` terms filter the pages; the excluded sites' pages are left out.
    /// Answered with [`Response::Pages`] (`indexing: None`), or [`Response::Failed`] with why the
    /// history could not be read.
    BrowserSearch {
        /// The question as typed, `site:` terms included.
        question: String,
        /// The period to search.
        period: Period,
        /// The instant the period ends (ms since the Unix epoch): the asker's, so that the
        /// browser's pages and the index's are of one period.
        now_ms: i64,
    },
    /// Topic search: the pages whose meaning is closest to `query` (the on-device model's
    /// vectors), most similar first, among pages last visited at or after `start_ms`. Answered
    /// with [`Response::Understood`]; the asker fuses them with the lexical answer it already has.
    /// Its `site:` terms filter the pages before the stand-out statistics are computed.
    Understand {
        /// The question as typed, `site:` terms included.
        query: String,
        /// Period start, ms since the Unix epoch.
        start_ms: i64,
        /// At most this many pages.
        limit: usize,
    },
    /// The options page: how far topic search has got. Answered with [`Response::Semantic`].
    SemanticState,
    /// The options page's switch: topic search on or off (off drops its index). Answered with
    /// [`Response::Semantic`].
    SetSemantic {
        /// On or off.
        enabled: bool,
    },
    /// A result's "Remove from history", done by the worker so that it ends even if the popup
    /// closes meanwhile: every raw entry merged into the page `url` is deleted from the browser's
    /// history (those the index holds, [`crate::index::host::Question::Entries`], and a search of the browser's history
    /// for what it cannot tell), then the page leaves the local index (saved soon after), topic
    /// search's vectors, a running AI search and the stored conversation, whatever
    /// `onVisitRemoved` decides for it. Answered with [`Response::Removed`], or
    /// [`Response::Failed`] (worded for the alert) when the browser refused a deletion: the page
    /// then stays everywhere, and trying again is safe.
    Remove {
        /// The page's URL (cleaned, as shown; a raw URL is cleaned first). The whole page goes,
        /// every raw entry merged into it.
        url: String,
    },
    /// The options page: how many pages are kept after Chrome forgot them. Answered with
    /// [`Response::Kept`] once the index is loaded.
    KeptPages,
    /// The options page's "Keep pages searchable after Chrome forgets them" (saved in the settings
    /// first): the worker keeps expired pages from now on, or forgets every kept page (off).
    /// Answered with [`Response::Kept`].
    SetKeepForgotten {
        /// On or off.
        enabled: bool,
    },
    /// The options page's "Forget kept pages": every page kept after Chrome forgot it leaves the
    /// index, topic search and the conversation. Answered with [`Response::Kept`].
    ForgetKept,
    /// A popup's committed question: the worker runs the search ([`crate::ask`]), so that it
    /// outlives the popup. An AI search is answered with [`Response::Asked`] at once, its progress
    /// and answer coming over the `ask` port as [`crate::ask::AskUpdate`]s; a local search is
    /// answered when it is done, with the turn.
    Ask {
        /// The question as typed.
        question: String,
        /// The period to search.
        period: Period,
        /// The turn's storage key, made by the popup ([`crate::conversation::turn_key`]) so that
        /// it knows its search's updates from the start; one that is not a key is replaced.
        key: String,
    },
    /// Cancel the running AI search (from any popup). Answered with [`Response::Cancelling`].
    CancelAsk {
        /// The search's key, as the popup knows it; `None`: whatever runs.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        key: Option<String>,
    },
    /// The reader (the content script `reader.js`, in a visited page's top frame) sends the page's
    /// rendered HTML once it has loaded and been still. The worker reads it only if
    /// [`crate::reading::may_read`] allows it, judged from who sent it (the browser's `sender`,
    /// not this message's `url`). Answered with [`Response::Noted`].
    PageRead {
        /// The page's address as the reader saw it (the worker uses the sender's).
        #[serde(default)]
        url: String,
        /// `document.documentElement.outerHTML`.
        html: String,
    },
    /// The reader saw a PDF in Chrome's viewer: the worker has it read from its address (the
    /// browser's cache where it can). Answered with [`Response::Noted`].
    PdfSeen {
        /// The PDF's address as the reader saw it (the worker uses the sender's).
        #[serde(default)]
        url: String,
    },
    /// The pages that said something matching `query` (their read content), best first, each
    /// with the passage that matched. Answered with [`Response::ContentFound`].
    ContentSearch {
        /// The question as typed, `site:` terms included.
        query: String,
        /// Period start, ms since the Unix epoch: only pages visited since.
        start_ms: i64,
        /// At most this many pages.
        limit: usize,
    },
    /// The bookmarks and open tabs matching `query` (their switches on), best first; the period
    /// is the history's only. Answered with [`Response::Pages`] (`indexing: None`).
    Places {
        /// The question as typed, `site:` and source terms included.
        query: String,
        /// At most this many pages.
        limit: usize,
    },
    /// The options page: how far reading pages has got, and the catch-up's. Answered with
    /// [`Response::Content`].
    ContentState,
    /// The options page's switch (saved in the settings first; the access asked in the click):
    /// on starts reading visited pages, off deletes every page's content and stops. Answered with
    /// [`Response::Content`].
    SetContent {
        /// On or off.
        enabled: bool,
    },
    /// The options page: what reading the pages of the last days again, or the bookmarked pages,
    /// would ask for, shown before it starts. Answered with [`Response::CatchUpPlanned`].
    CatchUpPlan {
        /// The last 7 or 30 days, or the bookmarks.
        reach: Reach,
    },
    /// The options page's "Read the pages of the last 7 days" (30) or "Read my bookmarked
    /// pages": starts the catch-up (or replaces the one running). Answered with
    /// [`Response::Content`].
    CatchUp {
        /// The last 7 or 30 days, or the bookmarks.
        reach: Reach,
    },
    /// The options page's Cancel of the catch-up. Answered with [`Response::Content`].
    CancelCatchUp,
    /// The battery's state, from the offscreen document (where `navigator.getBattery()` is):
    /// when it starts, when it changes, and with each batch of pages while it is low. On a low
    /// battery ([`Battery::is_low`]) the background builds pause. Taken only from the extension's
    /// own pages ([`from_extension_page`]). Answered with [`Response::Noted`].
    Battery(Battery),
}

/// The popup's page, as the worker sees its messages' sender (`chrome-extension://<id>/popup.html`).
const POPUP_PAGE: &str = "/popup.html";

impl Request {
    /// Whether this request is the user typing or asking, when the popup sent it ([`from_popup`]):
    /// a keystroke's search, the browser's search filling it in, a topic search, a committed
    /// question. Background work steps aside for a moment after each
    /// ([`crate::semantic::host::Event::UserActive`]); the same requests from other pages (the
    /// options page, a test) are not the user typing.
    pub fn is_typing_or_asking(&self) -> bool {
        matches!(
            self,
            Request::Search { .. }
                | Request::Places { .. }
                | Request::BrowserSearch { .. }
                | Request::Understand { .. }
                | Request::Ask { .. }
        )
    }
}

/// Whether a message's sender (its page's address) is one of the extension's own pages (not a
/// content script in a visited page).
pub fn from_extension_page(sender_url: Option<&str>) -> bool {
    sender_url.is_some_and(|url| url.starts_with("chrome-extension://"))
}

/// Whether a message's sender (its page's address) is the extension's popup.
pub fn from_popup(sender_url: Option<&str>) -> bool {
    sender_url.is_some_and(|url| {
        let page = url.split(['?', '#']).next().unwrap_or(url);
        page.starts_with("chrome-extension://") && page.ends_with(POPUP_PAGE)
    })
}

/// The service worker's answer. Externally tagged (`{"pages": {"pages": [...]}}`), unlike
/// [`Request`]: the pages read every answer, and an internally tagged enum is read through serde's
/// buffered `Content`, a second copy of every reader the answer's types have (tens of KB in the
/// popup's module). A page only writes requests, which costs no reader.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum Response {
    /// The pages found, best first.
    Pages {
        /// The pages.
        pages: Vec<Page>,
        /// `None`: the index covers the whole period asked, so this is the whole answer. `Some`:
        /// the index is still being built (newest pages first) and does not reach back to the
        /// period's start yet — the asker fuses in the browser's own search.
        #[serde(default, skip_serializing_if = "Option::is_none")]
        indexing: Option<IndexProgress>,
        /// The bookmarks and open tabs matching the question are fused in (or neither is on):
        /// the asker does not ask for them again ([`Request::Places`]). Only a [`Request::Search`]
        /// answer says so, when the worker had them ready.
        #[serde(default, skip_serializing_if = "std::ops::Not::not")]
        places: bool,
    },
    /// Topic search's pages for [`Request::Understand`], most similar first (perhaps none: the
    /// model found nothing close enough, or it cannot answer — `progress` says which).
    Understood {
        /// The pages.
        pages: Vec<Page>,
        /// Whether the words alone found a page of the period: how the asker fuses the pages in
        /// ([`crate::retrieval::fusion::fuse_semantic`]).
        #[serde(default)]
        words: Words,
        /// Topic search's state.
        progress: SemanticProgress,
    },
    /// Topic search's state.
    Semantic {
        /// How far it has got.
        progress: SemanticProgress,
    },
    /// The index is loaded.
    Ready {
        /// Pages in the index.
        pages: usize,
        /// The browser refused the index's last save for lack of room: it answers, but the next
        /// start reads an older snapshot (the removals since are replayed) or builds it again.
        #[serde(default)]
        storage_full: bool,
    },
    /// The index is still being loaded or built: use the browser's search meanwhile.
    Indexing {
        /// How far it has got.
        progress: IndexProgress,
    },
    /// [`Request::Remove`] is done: the browser's history, both indexes and a running search no
    /// longer hold the page.
    Removed {
        /// Whether the browser's history still held it.
        removal: Removal,
        /// Why the stored conversation could not be rewritten without it, when it could not (the
        /// answers on screen drop it all the same).
        conversation_error: Option<BrowserFailure>,
    },
    /// The request could not be answered: why, as a value the page words for its context.
    Failed {
        /// What went wrong.
        failure: Failure,
    },
    /// How many pages History Chat keeps that Chrome has forgotten.
    Kept {
        /// Pages only History Chat has.
        pages: usize,
    },
    /// [`Request::Ask`]: started, refused, or (a local search) answered.
    Asked {
        /// What happened to the question.
        reply: AskReply,
    },
    /// [`Request::CancelAsk`]: whether a search was running and now winds down.
    Cancelling {
        /// A search was running, and is cancelled.
        cancelled: bool,
    },
    /// [`Request::PageRead`], [`Request::PdfSeen`], [`Request::Battery`]: heard (whether the page is read is the
    /// worker's business; the reader learns nothing of it).
    Noted,
    /// [`Request::ContentSearch`]: the pages, best first, each carrying its passage.
    ContentFound {
        /// The pages.
        pages: Vec<Page>,
        /// Whether the words alone found a page of the period: how the pages are fused
        /// ([`crate::retrieval::Ranked::content`]).
        #[serde(default)]
        words: Words,
    },
    /// How far reading pages has got.
    Content {
        /// The content store's state and the catch-up's.
        state: ContentState,
    },
    /// [`Request::CatchUpPlan`]: what the catch-up would ask for.
    CatchUpPlanned {
        /// The period, the pages and their sites.
        plan: CatchUpSummary,
    },
}

/// Reading pages as the options page shows it: the content store's progress, and the catch-up's
/// when one runs or ran in this worker's life.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct ContentState {
    /// The content store.
    pub progress: ContentProgress,
    /// The catch-up, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catch_up: Option<CatchUpProgress>,
    /// Whether the browser grants the access reading needs (the switch is off in effect without
    /// it: the user may have taken it back in chrome://extensions).
    #[serde(default)]
    pub access: bool,
    /// Whether the bookmarks' switch is on: their pages may then be read too.
    #[serde(default)]
    pub bookmarks: bool,
}

impl ContentState {
    /// Whether a catch-up runs now.
    pub fn catching_up(&self) -> bool {
        self.catch_up.is_some_and(|catch_up| catch_up.running)
    }

    /// Whether it may still change by itself: the store loads or reads, or a catch-up runs (the
    /// options page then follows it closely).
    pub fn is_moving(&self) -> bool {
        self.progress.is_moving() || self.catching_up()
    }

    /// Whether the options page offers a catch-up: reading is on (the settings' switch) and the
    /// browser grants the access, and none runs.
    pub fn offers_catch_up(&self, switched_on: bool) -> bool {
        switched_on && self.access && !self.catching_up()
    }

    /// Whether the settings say reading is on but the browser no longer grants the access (the
    /// user took it back in chrome://extensions): the options page offers to ask for it again.
    pub fn access_lost(&self, switched_on: bool) -> bool {
        switched_on && !self.access
    }
}

/// What a catch-up would ask for, as shown before it starts: the pages and how many per site (the
/// addresses stay in the worker).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct CatchUpSummary {
    /// What it reads.
    pub reach: Reach,
    /// Pages to read.
    pub pages: usize,
    /// The sites asked, most pages first, each with its count (at most the first 20).
    pub sites: Vec<(String, usize)>,
}

impl CatchUpSummary {
    /// Sites named at most: the rest are counted in [`CatchUpSummary::pages`].
    pub const MAX_SITES: usize = 20;

    /// The summary of `plan`.
    pub fn of(plan: &crate::catch_up::Plan) -> CatchUpSummary {
        CatchUpSummary {
            reach: plan.reach,
            pages: plan.urls.len(),
            sites: plan
                .sites
                .iter()
                .take(CatchUpSummary::MAX_SITES)
                .cloned()
                .collect(),
        }
    }
}

impl From<Answer> for Response {
    /// The index's answer as the pages read it. Whether its last save was refused is the
    /// worker's to add ([`Response::Ready`]'s `storage_full`): the index never hears.
    fn from(answer: Answer) -> Response {
        match answer {
            Answer::Ready { pages } => Response::Ready {
                pages,
                storage_full: false,
            },
            Answer::Indexing { progress } => Response::Indexing { progress },
            Answer::Pages { pages, indexing } => Response::Pages {
                pages,
                indexing,
                places: false,
            },
            Answer::Kept { pages } => Response::Kept { pages },
        }
    }
}

impl Response {
    /// This answer as the index's, when it is one of the index's answers ([`From<Answer>`]'s
    /// inverse); `None` for any other.
    pub fn into_index_answer(self) -> Option<Answer> {
        match self {
            Response::Ready { pages, .. } => Some(Answer::Ready { pages }),
            Response::Indexing { progress } => Some(Answer::Indexing { progress }),
            Response::Pages {
                pages, indexing, ..
            } => Some(Answer::Pages { pages, indexing }),
            Response::Kept { pages } => Some(Answer::Kept { pages }),
            Response::Understood { .. }
            | Response::Semantic { .. }
            | Response::Removed { .. }
            | Response::Failed { .. }
            | Response::Asked { .. }
            | Response::Cancelling { .. }
            | Response::Noted
            | Response::ContentFound { .. }
            | Response::Content { .. }
            | Response::CatchUpPlanned { .. } => None,
        }
    }
}

/// The worker's answers the options page reads: [`Response`]'s variants of the same names, in the
/// same shape, and no other. The options page reads every answer as this, so it carries no reader
/// of the others (a turn's, above all: about 11 KB gzip); any other answer reads as unreadable.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", rename_all_fields = "camelCase")]
pub enum OptionsAnswer {
    /// [`Response::Semantic`].
    Semantic {
        /// How far topic search has got.
        progress: SemanticProgress,
    },
    /// [`Response::Kept`].
    Kept {
        /// Pages only History Chat has.
        pages: usize,
    },
    /// [`Response::Failed`].
    Failed {
        /// What went wrong.
        failure: Failure,
    },
    /// [`Response::Content`].
    Content {
        /// The content store's state and the catch-up's.
        state: ContentState,
    },
    /// [`Response::CatchUpPlanned`].
    CatchUpPlanned {
        /// The period, the pages and their sites.
        plan: CatchUpSummary,
    },
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use crate::semantic::SemanticStatus;

    use super::*;

    #[test]
    fn only_the_popup_s_searches_and_questions_are_the_user_typing() {
        let popup = Some("chrome-extension://abcdefghijklmnop/popup.html");
        let search = Request::Search {
            query: "cte".into(),
            start_ms: 0,
            limit: 25,
        };
        let ask = Request::Ask {
            question: "cte".into(),
            period: crate::period::Period::default(),
            key: "k".into(),
        };
        // (request, sender, typing or asking)
        let table = [
            (&search, popup, true),
            (&ask, popup, true),
            (
                &search,
                Some("chrome-extension://abcdefghijklmnop/popup.html?tab=1"),
                true,
            ),
            (
                &search,
                Some("chrome-extension://abcdefghijklmnop/options.html"),
                false,
            ),
            (&search, Some("https://example.com/popup.html"), false),
            (&search, None, false),
            (&Request::Warm, popup, false),
            (&Request::SemanticState, popup, false),
        ];
        for (request, sender, expected) in table {
            assert_eq!(
                request.is_typing_or_asking() && from_popup(sender),
                expected,
                "{request:?} from {sender:?}"
            );
        }
    }

    #[test]
    fn the_battery_is_heard_from_the_extension_s_pages_only() {
        let battery: Request =
            serde_json::from_value(json!({"type": "battery", "charging": false, "level": 0.12}))
                .unwrap();
        assert_eq!(
            battery,
            Request::Battery(Battery {
                charging: false,
                level: 0.12
            })
        );
        // (sender, heard)
        let rows = [
            (
                Some("chrome-extension://abcdefghijklmnop/embedder.html"),
                true,
            ),
            (
                Some("chrome-extension://abcdefghijklmnop/options.html"),
                true,
            ),
            (Some("https://example.com/embedder.html"), false),
            (Some("http://chrome-extension.example/"), false),
            (None, false),
        ];
        for (sender, heard) in rows {
            assert_eq!(from_extension_page(sender), heard, "{sender:?}");
        }
    }

    #[test]
    fn requests_and_responses_have_a_stable_shape() {
        let request = Request::Search {
            query: "cte".into(),
            start_ms: 5,
            limit: 25,
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(
            value,
            json!({"type": "search", "query": "cte", "startMs": 5, "limit": 25})
        );
        assert_eq!(serde_json::from_value::<Request>(value).unwrap(), request);
        assert_eq!(
            serde_json::to_value(Request::Warm).unwrap(),
            json!({"type": "warm"})
        );
        assert_eq!(
            serde_json::to_value(Response::Indexing {
                progress: IndexProgress {
                    pages: 7,
                    since_ms: Some(9)
                }
            })
            .unwrap(),
            json!({"indexing": {"progress": {"pages": 7, "sinceMs": 9}}})
        );
        assert_eq!(
            serde_json::to_value(Response::Pages {
                pages: Vec::new(),
                indexing: None,
                places: false,
            })
            .unwrap(),
            json!({"pages": {"pages": []}})
        );
        assert_eq!(
            serde_json::to_value(Response::Pages {
                pages: Vec::new(),
                indexing: None,
                places: true,
            })
            .unwrap(),
            json!({"pages": {"pages": [], "places": true}})
        );
        assert_eq!(
            serde_json::to_value(Response::Ready {
                pages: 3,
                storage_full: false
            })
            .unwrap(),
            json!({"ready": {"pages": 3, "storageFull": false}})
        );
        // A worker of an earlier version says nothing of its storage.
        assert_eq!(
            serde_json::from_value::<Response>(json!({"ready": {"pages": 3}})).unwrap(),
            Response::Ready {
                pages: 3,
                storage_full: false
            }
        );
        // `assets/service_worker.js` answers so itself when the module throws.
        assert_eq!(
            serde_json::from_value::<Response>(json!({"failed": {"failure": "workerCrashed"}}))
                .unwrap(),
            Response::Failed {
                failure: Failure::WorkerCrashed
            }
        );
        // A failure is a value on the wire, never a sentence.
        assert_eq!(
            serde_json::to_value(Response::Failed {
                failure: Failure::Browser(BrowserFailure::Refused {
                    api: "chrome.history.search".into()
                })
            })
            .unwrap(),
            json!({"failed": {"failure": {"browser": {"refused": {"api": "chrome.history.search"}}}}})
        );
    }

    #[test]
    fn the_options_page_reads_its_answers_as_the_worker_writes_them_and_no_other() {
        let progress = SemanticProgress {
            status: SemanticStatus::Building,
            understood: 3,
            total: 7,
        };
        let read = |response: &Response| {
            let value = serde_json::to_value(response).unwrap_or_else(|e| panic!("{e}"));
            serde_json::from_value::<OptionsAnswer>(value).ok()
        };
        let cases = [
            (
                Response::Semantic { progress },
                Some(OptionsAnswer::Semantic { progress }),
            ),
            (
                Response::Kept { pages: 4 },
                Some(OptionsAnswer::Kept { pages: 4 }),
            ),
            (
                Response::Failed {
                    failure: Failure::ExclusionsUnknown,
                },
                Some(OptionsAnswer::Failed {
                    failure: Failure::ExclusionsUnknown,
                }),
            ),
            (
                Response::Ready {
                    pages: 3,
                    storage_full: true,
                },
                None,
            ),
            (Response::Cancelling { cancelled: true }, None),
            (
                Response::Asked {
                    reply: AskReply::Started { key: "k".into() },
                },
                None,
            ),
            (
                Response::Content { state: reading() },
                Some(OptionsAnswer::Content { state: reading() }),
            ),
            (
                Response::CatchUpPlanned {
                    plan: CatchUpSummary {
                        reach: Reach::Days(7),
                        pages: 3,
                        sites: vec![("a.example".into(), 3)],
                    },
                },
                Some(OptionsAnswer::CatchUpPlanned {
                    plan: CatchUpSummary {
                        reach: Reach::Days(7),
                        pages: 3,
                        sites: vec![("a.example".into(), 3)],
                    },
                }),
            ),
            (Response::Noted, None),
            (
                Response::ContentFound {
                    pages: Vec::new(),
                    words: Words::Missed,
                },
                None,
            ),
        ];
        for (response, expected) in cases {
            assert_eq!(read(&response), expected, "{response:?}");
        }
    }

    fn reading() -> ContentState {
        ContentState {
            progress: ContentProgress {
                status: crate::content::ContentStatus::Reading,
                pages: 2,
                passages_embedded: 3,
                passages_total: 9,
                bytes: 12_345,
                model: None,
            },
            catch_up: Some(CatchUpProgress {
                reach: Reach::Days(30),
                total: 10,
                read: 2,
                skipped: 1,
                failed: 0,
                running: true,
                out: 2,
            }),
            access: true,
            bookmarks: false,
        }
    }

    #[test]
    fn the_options_page_offers_what_the_content_s_state_allows() {
        use crate::content::ContentStatus;
        let ready = |access: bool, running: Option<bool>| ContentState {
            progress: ContentProgress {
                status: ContentStatus::Ready,
                ..reading().progress
            },
            catch_up: running.map(|running| CatchUpProgress {
                running,
                ..reading().catch_up.unwrap()
            }),
            access,
            bookmarks: false,
        };
        // (state, switched on) → (moving, catch-up offered, access lost)
        let rows = [
            (ready(true, None), true, (false, true, false)),
            (ready(true, None), false, (false, false, false)),
            (ready(true, Some(false)), true, (false, true, false)),
            (ready(true, Some(true)), true, (true, false, false)),
            (ready(false, None), true, (false, false, true)),
            (ready(false, None), false, (false, false, false)),
            (reading(), true, (true, false, false)),
            (
                ContentState {
                    catch_up: None,
                    ..reading()
                },
                true,
                (true, true, false),
            ),
        ];
        for (state, on, expected) in rows {
            assert_eq!(
                (
                    state.is_moving(),
                    state.offers_catch_up(on),
                    state.access_lost(on)
                ),
                expected,
                "{state:?}, on: {on}"
            );
        }
    }

    #[test]
    fn the_reader_and_the_content_requests_have_a_stable_shape() {
        let rows = [
            (
                Request::PageRead {
                    url: "https://a.example/".into(),
                    html: "<html></html>".into(),
                },
                json!({"type": "pageRead", "url": "https://a.example/", "html": "<html></html>"}),
            ),
            (
                Request::PdfSeen {
                    url: "https://a.example/x.pdf".into(),
                },
                json!({"type": "pdfSeen", "url": "https://a.example/x.pdf"}),
            ),
            (
                Request::ContentSearch {
                    query: "q".into(),
                    start_ms: 5,
                    limit: 30,
                },
                json!({"type": "contentSearch", "query": "q", "startMs": 5, "limit": 30}),
            ),
            (
                Request::Places {
                    query: "tab: q".into(),
                    limit: 30,
                },
                json!({"type": "places", "query": "tab: q", "limit": 30}),
            ),
            (Request::ContentState, json!({"type": "contentState"})),
            (
                Request::SetContent { enabled: true },
                json!({"type": "setContent", "enabled": true}),
            ),
            (
                Request::CatchUpPlan {
                    reach: Reach::Days(30),
                },
                json!({"type": "catchUpPlan", "reach": {"days": 30}}),
            ),
            (
                Request::CatchUp {
                    reach: Reach::Days(7),
                },
                json!({"type": "catchUp", "reach": {"days": 7}}),
            ),
            (
                Request::CatchUp {
                    reach: Reach::Bookmarks,
                },
                json!({"type": "catchUp", "reach": "bookmarks"}),
            ),
            (Request::CancelCatchUp, json!({"type": "cancelCatchUp"})),
        ];
        for (request, wire) in rows {
            assert_eq!(serde_json::to_value(&request).unwrap(), wire);
            assert_eq!(serde_json::from_value::<Request>(wire).unwrap(), request);
        }
        assert_eq!(
            serde_json::to_value(Response::Content { state: reading() }).unwrap(),
            json!({"content": {"state": {
                "progress": {"status": "reading", "pages": 2, "passagesEmbedded": 3,
                             "passagesTotal": 9, "bytes": 12_345},
                "catchUp": {"reach": {"days": 30}, "total": 10, "read": 2, "skipped": 1,
                            "failed": 0, "running": true, "out": 2},
                "access": true, "bookmarks": false}}})
        );
    }

    #[test]
    fn remove_names_the_page_and_its_answer_says_what_happened() {
        let request = Request::Remove {
            url: "https://a.example/x".into(),
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(
            value,
            json!({"type": "remove", "url": "https://a.example/x"})
        );
        assert_eq!(serde_json::from_value::<Request>(value).unwrap(), request);
        let table = [
            (
                Removal::Removed,
                None,
                json!({"removed": {"removal": "removed", "conversationError": null}}),
            ),
            (
                Removal::AlreadyGone,
                Some(BrowserFailure::StorageFull),
                json!({"removed": {"removal": "alreadyGone", "conversationError": "storageFull"}}),
            ),
        ];
        for (removal, conversation_error, wire) in table {
            let response = Response::Removed {
                removal,
                conversation_error,
            };
            assert_eq!(serde_json::to_value(&response).unwrap(), wire);
            assert_eq!(serde_json::from_value::<Response>(wire).unwrap(), response);
        }
    }

    #[test]
    fn browser_search_names_the_question_its_period_and_its_end() {
        let request = Request::BrowserSearch {
            question: "site:github.com cte".into(),
            period: Period::Week,
            now_ms: 9,
        };
        let value = serde_json::to_value(&request).unwrap();
        assert_eq!(
            value,
            json!({"type": "browserSearch", "question": "site:github.com cte", "period": "7d", "nowMs": 9})
        );
        assert_eq!(serde_json::from_value::<Request>(value).unwrap(), request);
    }

    #[test]
    fn the_index_answers_cross_the_wire_and_back_and_no_other_reads_as_one() {
        let answers = [
            Answer::Ready { pages: 3 },
            Answer::Indexing {
                progress: IndexProgress::default(),
            },
            Answer::Pages {
                pages: Vec::new(),
                indexing: None,
            },
            Answer::Kept { pages: 2 },
        ];
        for answer in answers {
            let response = Response::from(answer.clone());
            assert_eq!(response.into_index_answer(), Some(answer));
        }
        let others = [
            Response::Failed {
                failure: Failure::UnexpectedReply,
            },
            Response::Cancelling { cancelled: false },
        ];
        for other in others {
            assert_eq!(other.into_index_answer(), None);
        }
    }

    #[test]
    fn unknown_messages_are_errors_not_panics() {
        assert!(serde_json::from_value::<Request>(json!({"type": "explode"})).is_err());
        assert!(serde_json::from_value::<Request>(json!("warm")).is_err());
    }
}
