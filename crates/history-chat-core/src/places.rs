//! Bookmarks and open tabs (issue: one search over history, bookmarks and tabs), each behind its
//! own switch and optional permission: the pages the browser holds besides its history.
//!
//! - [`browser`]: what `chrome.bookmarks` and `chrome.tabs` give, read leniently (every field may
//!   be missing or of another type: such a node or tab is skipped, the rest read).
//! - [`shelf`]: the entries kept in memory (a bookmark with its folders, an open tab), their words
//!   and the search over them: every word of the question in the title, the folders' names or
//!   the address (a word being typed as a prefix), ranked by where it matched.
//! - [`host`]: their life in the worker as a pure state: loaded whole when a switch is on (from
//!   `getTree` / `query`), kept current by the browser's events, excluded sites left out,
//!   emptied when the switch goes off. Nothing of it is stored: the worker reads it again at
//!   each start (5,000 bookmarks take milliseconds).

pub mod browser;
pub mod host;
pub mod shelf;
