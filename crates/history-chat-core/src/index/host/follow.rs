//! What another index keeps in step with: after each event, which of the lexical index's pages
//! are new or changed and which left it ([`Followed`], carried by the host's `Action::Follow`). Topic
//! search follows it this way (the worker hands it on); the lexical index is the one list of
//! pages, kept ones included, so whatever leaves it leaves the followers too.
//!
//! The first time the index is there (loaded or being built), every page it holds is listed;
//! after that only the pages an event touched: those a read or a visit brought (still held:
//! changed; no longer held: gone, as an excluded site's), those a removal or a page's own removal
//! names (gone, or still held when kept after Chrome forgot them), the kept pages an "off" or a
//! "forget" drops, and
//! the pages a removal judged only once the snapshot was loaded forgot in the conversation.
//! "Clear all history" is everything gone, whatever the index's phase. Once the index holds the
//! whole history (loaded, or built to the end), followers hear it once ([`Followed::Complete`]).

use crate::clean::clean_url;
use crate::history::{Page, RemovedVisits};
use crate::index::Index;

/// What another index follows of the lexical index's pages after one event.
#[derive(Debug, Clone, PartialEq)]
pub enum Followed {
    /// Every page the index holds, newest first: the first time it is there. Only changes
    /// follow after this.
    Listed {
        /// The pages.
        pages: Vec<Page>,
        /// Pages an event touched that the index no longer holds (cleaned URLs).
        gone: Vec<String>,
    },
    /// Pages an event touched: those the index holds now (new or changed; perhaps none) and
    /// those it no longer holds (cleaned URLs).
    Changed {
        /// Still held, as the index holds them now.
        indexed: Vec<Page>,
        /// Gone.
        gone: Vec<String>,
    },
    /// Every page is gone: the history was cleared.
    Cleared,
    /// The index holds the whole history: it was loaded, or its build has read back to the
    /// history's start, so no page is still to come but new visits. Told once, after
    /// [`Followed::Listed`] (with it, for a loaded index): a follower with nothing left to do is
    /// then done, where before it could only say it was waiting.
    Complete,
}

/// The cleaned forms of raw addresses (those that are web pages).
pub(super) fn cleaned(raw: &[String]) -> Vec<String> {
    raw.iter()
        .filter_map(|url| clean_url(url).ok())
        .map(|url| url.to_string())
        .collect()
}

/// The pages an event may change, known before the host handles it.
#[derive(Debug)]
pub(super) enum Touched {
    /// None.
    Nothing,
    /// Every page (the history was cleared).
    All,
    /// These cleaned URLs.
    Urls(Vec<String>),
}

/// Adds to `touched` the pages the host's actions forget in the conversation (`forgotten`): a
/// removal judged only once the snapshot was loaded, kept pages forgotten at the load, a
/// verify's findings.
pub(super) fn with_forgotten<'a>(
    touched: Touched,
    forgotten: impl IntoIterator<Item = &'a RemovedVisits>,
) -> Touched {
    let mut urls = match touched {
        Touched::All => return Touched::All,
        Touched::Nothing => Vec::new(),
        Touched::Urls(urls) => urls,
    };
    for removed in forgotten {
        if removed.all_history {
            return Touched::All;
        }
        urls.extend(cleaned(&removed.urls));
    }
    match urls.is_empty() {
        true => Touched::Nothing,
        false => Touched::Urls(urls),
    }
}

/// What followers must hear of `touched` in `index` (`None`: nothing; `listed`: whether every
/// page was listed already, and set once they are).
pub(super) fn followed(
    touched: Touched,
    index: Option<&Index>,
    listed: &mut bool,
) -> Option<Followed> {
    if matches!(touched, Touched::All) {
        return Some(Followed::Cleared);
    }
    let index = index?;
    let first = !std::mem::replace(listed, true);
    let urls = match touched {
        Touched::Urls(urls) => urls,
        Touched::Nothing | Touched::All => Vec::new(),
    };
    let mut indexed = Vec::new();
    let mut gone = Vec::new();
    for url in urls {
        match index.page(&url) {
            Some(page) => indexed.push(page),
            None => gone.push(url),
        }
    }
    if first {
        return Some(Followed::Listed {
            pages: index.recent(i64::MIN, usize::MAX),
            gone,
        });
    }
    (!indexed.is_empty() || !gone.is_empty()).then_some(Followed::Changed { indexed, gone })
}
