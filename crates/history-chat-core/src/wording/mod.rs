//! The presentation layer: every sentence the core composes for the user, from the typed values
//! the other layers give it (an index's progress, a [`Failure`](crate::failure::Failure), a turn's
//! error, a period, a search's outcome).
//!
//! The rule: nothing in the core outside this folder calls [`t!`](crate::t), [`plural`] or
//! [`number`](crate::i18n::number) (tests aside; `i18n.rs` defines them). A lower layer returns a
//! value — an enum, a count, a failure — and the words for it are here, once. A method that words
//! a lower layer's type (`label`, `message`, a `Display`) is an inherent `impl` written here, so
//! its callers call it as if it were written beside the type; a function that words changes its
//! path (`wording::history::relative_time`). No lower module imports this one.
//! `history-chat-architecture`'s test `the_core_words_only_in_its_presentation_layer` enforces
//! the rule.
//!
//! One file per subject:
//!
//! - [`progress`]: the engines' progress: the index's lines while it is built, topic search's.
//! - [`failure`]: what went wrong: a failed browser call, a request not answered.
//! - [`history`]: periods, relative times ("3 days ago"), a kept page's note, why an entry is not
//!   shown.
//! - [`search`]: a search's outcome, nothing found and what to try next, no match yet; a `site:`
//!   filter as those lines name it, and `site:` terms that are no filter.
//! - [`rows`]: a result row's actions: the count announced, a removal's outcome or failure.
//! - [`turn`]: a conversation turn's failure ([`TurnError`](crate::conversation::TurnError)) and
//!   note ([`TurnNote`](crate::conversation::TurnNote)).
//! - [`ai`]: AI mode: engines, providers and depths, Chrome's model's availability, fallbacks, a
//!   model's failures, the pipeline's steps and notices.
//! - [`ask`]: the AI search the worker hosts: its status line, a second question refused.
//! - [`content`]: reading pages: the content switch's line, the catch-up's, a catch-up's plan, and
//!   sizes in storage.
//! - [`settings`]: the options page's lines: retention, a refused excluded site, a key that cannot
//!   be sent, the kept pages.
//! - [`omnibox`]: the address-bar keyword's default suggestion.

pub mod ai;
pub mod ask;
pub mod content;
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
