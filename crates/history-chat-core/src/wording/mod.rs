//! The presentation layer: the sentences the core composes for the user from the typed values the
//! other layers give it (an index's progress, a [`Failure`](crate::failure::Failure)). A method
//! worded here (`status`, a `Display`) is an inherent `impl` of the lower layer's type, called as if
//! it were written beside it. One file per subject:
//!
//! - [`ai`]: engines, providers, depths, Chrome's model's availability, fallbacks, a model's
//!   failures, the pipeline's steps and notices.
//! - [`omnibox`]: the address-bar keyword's default suggestion.
//! - [`progress`]: the engines' progress: the index's lines while it is built, topic search's.
//! - [`ask`]: the AI search the worker hosts: its status line, a refused second question.
//! - [`failure`]: what went wrong (a browser call, a request not answered).
//! - [`history`]: periods, relative times, a kept page's note, why an entry is not shown.
//! - [`rows`]: a result row's actions: the announced count, a removal's outcome.
//! - [`search`]: a search's outcome, nothing found and what to try, its `site:` filter named.
//! - [`settings`]: the options page's lines (retention, excluded sites, the key, kept pages).
//! - [`turn`]: a conversation turn's failure and note.

pub mod ai;
pub mod ask;
pub mod failure;
pub mod history;
pub mod omnibox;
pub mod progress;
pub mod rows;
pub mod search;
pub mod settings;
pub mod turn;

use crate::i18n::plural;

/// "1 page", "12,345 pages".
fn pages(count: usize) -> String {
    plural("count_pages", i64::try_from(count).unwrap_or(i64::MAX), &[])
}
