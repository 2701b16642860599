//! History items as the browser gives them, and pages once cleaned and merged.

use std::collections::HashMap;

use serde::{Deserialize, Deserializer, Serialize};
use serde_json::Value;

use crate::clean::clean_url;
use crate::origin::Origin;

/// One entry of `chrome.history.search`'s answer (`HistoryItem`), with the fields we use.
///
/// Every field is optional in the browser's API, so every field has a default here: an item without
/// a URL is simply rejected by [`clean_and_merge`].
#[derive(Debug, Clone, Default, PartialEq, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct HistoryItem {
    /// The URL as stored by the browser.
    pub url: String,
    /// The page title, possibly empty. Untrusted text.
    #[serde(deserialize_with = "null_as_default")]
    pub title: String,
    /// Last visit, in milliseconds since the Unix epoch (fractional in Chrome; rounded down here).
    #[serde(rename = "lastVisitTime", deserialize_with = "ms_from_number")]
    pub last_visit_ms: i64,
    /// How many times the user visited the URL.
    pub visit_count: u32,
}

/// What `chrome.history.onVisitRemoved` reports: everything was cleared, or these URLs are gone
/// (every visit of each). Written back in the same shape by the journal of removals not saved yet
/// ([`crate::index::journal`]).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct RemovedVisits {
    /// The whole history was cleared.
    pub all_history: bool,
    /// The raw URLs removed (when not `all_history`).
    #[serde(deserialize_with = "null_as_default")]
    pub urls: Vec<String>,
}

/// A page as we show it: a cleaned URL, with every history entry that cleans to it merged in.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Page {
    /// The cleaned URL (always `http` or `https`; see [`crate::clean`]).
    pub url: String,
    /// The title of the most recently visited entry that has one; empty when none has.
    #[serde(default)]
    pub title: String,
    /// The latest visit of any merged entry, in ms since the Unix epoch.
    #[serde(default)]
    pub last_visit_ms: i64,
    /// The visits of all merged entries, summed.
    #[serde(default)]
    pub visit_count: u32,
    /// The passage of the page's text that matched the question, when the page was found by what
    /// it said (its content, read when it was visited); `None` otherwise.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub passage: Option<Passage>,
    /// Where else the page was found: a bookmark, an open tab (their switches on); empty for a
    /// page found in the history only.
    #[serde(default, skip_serializing_if = "Marks::is_empty")]
    pub marks: Marks,
}

/// Where, besides the history, a page of an answer was found ([`crate::places`]).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Marks {
    /// The page is bookmarked.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub bookmark: Option<Bookmarked>,
    /// The page is open in a tab.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tab: Option<OpenTab>,
    /// Found only as a bookmark or an open tab: no source of the history's had it, so a row
    /// offers no "Remove from history".
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub outside_history: bool,
}

impl Marks {
    /// Nothing besides the history.
    pub fn is_empty(&self) -> bool {
        self.bookmark.is_none() && self.tab.is_none() && !self.outside_history
    }

    /// Drops the mark of `origin` (its switch went off): `false` when the page was found only
    /// there (outside the history, no other mark), so the row has nothing left to show it by.
    pub fn forget(&mut self, origin: Origin) -> bool {
        match origin {
            Origin::History => {}
            Origin::Bookmark => self.bookmark = None,
            Origin::Tab => self.tab = None,
        }
        !(self.outside_history && self.bookmark.is_none() && self.tab.is_none())
    }

    /// Both pages' marks: each mark of either (`self`'s first), and outside the history only when
    /// both were.
    pub fn merged(&self, other: &Marks) -> Marks {
        Marks {
            bookmark: self.bookmark.clone().or_else(|| other.bookmark.clone()),
            tab: self.tab.or(other.tab),
            outside_history: self.outside_history && other.outside_history,
        }
    }
}

/// A bookmark of the page.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Bookmarked {
    /// The folders it is in, outermost first (`["Bookmarks bar", "Rust"]`).
    pub folders: Vec<String>,
    /// When it was added, ms since the Unix epoch (0: not known).
    pub added_ms: i64,
}

/// An open tab showing the page.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct OpenTab {
    /// The tab's id (`chrome.tabs`).
    pub tab_id: i32,
    /// Its window's id.
    pub window_id: i32,
}

/// What a page said that matched a question: a passage of its text as it was read, with the
/// question's words marked. Shown under the page's title, as text (never as HTML).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Passage {
    /// The passage (white space collapsed), cut around what matched.
    #[serde(default)]
    pub text: String,
    /// Where the question's words stand in `text`: byte ranges, in order, not overlapping. Read
    /// from stored data, so whoever shows them checks each range against `text`
    /// ([`Passage::pieces`]).
    #[serde(default)]
    pub marks: Vec<(u32, u32)>,
}

impl Passage {
    /// The passage cut into pieces to show, each with whether it is marked, in order; a mark
    /// that is out of order, out of bounds or not on a character boundary is shown unmarked.
    pub fn pieces(&self) -> Vec<(&str, bool)> {
        let mut pieces = Vec::new();
        let mut at = 0usize;
        for &(start, end) in &self.marks {
            let (start, end) = (start as usize, end as usize);
            let (Some(before), Some(marked)) =
                (self.text.get(at..start), self.text.get(start..end))
            else {
                continue;
            };
            if start < at || marked.is_empty() {
                continue;
            }
            if !before.is_empty() {
                pieces.push((before, false));
            }
            pieces.push((marked, true));
            at = end;
        }
        if let Some(rest) = self.text.get(at..)
            && !rest.is_empty()
        {
            pieces.push((rest, false));
        }
        pieces
    }
}

/// A page of an answer, with the model's reason when a model ranked it: what the AI pipeline
/// returns and what a stored turn keeps (the page's fields, plus `reason` when there is one).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RankedPage {
    /// The page.
    #[serde(flatten)]
    pub page: Page,
    /// Why the model picked it, one line; empty in local mode or when unranked.
    #[serde(skip_serializing_if = "String::is_empty")]
    pub reason: String,
}

/// Read as the page's fields plus `reason` (not a string: no reason), through a `Value`: the
/// derived reader of a `#[serde(flatten)]` field buffers the whole object through serde's
/// `Content` first, a second copy of the page's reader in every module that reads turns.
impl<'de> Deserialize<'de> for RankedPage {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RankedPage, D::Error> {
        let mut fields = Value::deserialize(deserializer)?;
        let reason = match fields.as_object_mut().and_then(|f| f.remove("reason")) {
            Some(Value::String(reason)) => reason,
            _ => String::new(),
        };
        let page = Page::deserialize(fields).map_err(serde::de::Error::custom)?;
        Ok(RankedPage { page, reason })
    }
}

impl From<Page> for RankedPage {
    fn from(page: Page) -> RankedPage {
        RankedPage {
            page,
            reason: String::new(),
        }
    }
}

/// Cleans every item and merges those that clean to the same URL.
///
/// The merged page keeps the latest visit, the summed visit count and the title of its most recently
/// visited entry that has a title. Pages come out in the order their first entry came in, so a
/// browser's "most recent first" order is kept. Rejected items (see [`crate::clean::Rejection`]) are
/// dropped.
pub fn clean_and_merge(items: impl IntoIterator<Item = HistoryItem>) -> Vec<Page> {
    let mut pages: Vec<Page> = Vec::new();
    // Cleaned URL -> (index in `pages`, last visit of the entry whose title we kept).
    let mut seen: HashMap<String, (usize, i64)> = HashMap::new();
    for item in items {
        let Ok(url) = clean_url(&item.url) else {
            continue;
        };
        let url = String::from(url);
        let title = item.title.trim();
        match seen.get_mut(&url) {
            Some((index, title_visit)) => {
                let page = &mut pages[*index];
                page.visit_count = page.visit_count.saturating_add(item.visit_count);
                page.last_visit_ms = page.last_visit_ms.max(item.last_visit_ms);
                let newer_title = item.last_visit_ms > *title_visit || page.title.is_empty();
                if !title.is_empty() && newer_title {
                    page.title = title.to_owned();
                    *title_visit = item.last_visit_ms;
                }
            }
            None => {
                seen.insert(url.clone(), (pages.len(), item.last_visit_ms));
                pages.push(Page {
                    url,
                    title: title.to_owned(),
                    last_visit_ms: item.last_visit_ms,
                    visit_count: item.visit_count,
                    passage: None,
                    marks: Default::default(),
                });
            }
        }
    }
    pages
}

fn null_as_default<'de, D, T>(deserializer: D) -> Result<T, D::Error>
where
    D: Deserializer<'de>,
    T: Deserialize<'de> + Default,
{
    Ok(Option::<T>::deserialize(deserializer)?.unwrap_or_default())
}

/// JS times are floating-point milliseconds; anything unusable (NaN, null, out of range) becomes 0.
fn ms_from_number<'de, D>(deserializer: D) -> Result<i64, D::Error>
where
    D: Deserializer<'de>,
{
    let ms = Option::<f64>::deserialize(deserializer)?.unwrap_or(0.0);
    // `as` saturates and maps NaN to 0, which is what we want for untrusted numbers.
    Ok(ms.floor() as i64)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_passage_is_shown_in_pieces_and_a_bad_mark_is_shown_unmarked() {
        let pieces = |text: &str, marks: &[(u32, u32)]| {
            let passage = Passage {
                text: text.to_owned(),
                marks: marks.to_vec(),
            };
            passage
                .pieces()
                .into_iter()
                .map(|(piece, marked)| format!("{}{piece}", if marked { "*" } else { "" }))
                .collect::<Vec<_>>()
        };
        type Row<'a> = (&'a str, &'a [(u32, u32)], &'a [&'a str]);
        let rows: &[Row] = &[
            (
                "the crème brûlée",
                &[(4, 10)],
                &["the ", "*crème", " brûlée"],
            ),
            ("a b c", &[(0, 1), (4, 5)], &["*a", " b ", "*c"]),
            ("no marks", &[], &["no marks"]),
            ("", &[], &[]),
            // Out of bounds, inside a character, backwards, overlapping, empty: unmarked.
            ("abc", &[(1, 9)], &["abc"]),
            ("é", &[(0, 1)], &["é"]),
            ("abc", &[(2, 1)], &["abc"]),
            ("abcd", &[(0, 2), (1, 3)], &["*ab", "cd"]),
            ("abc", &[(1, 1)], &["abc"]),
        ];
        for &(text, marks, expected) in rows {
            assert_eq!(pieces(text, marks), expected, "{text:?} {marks:?}");
        }
    }

    fn item(url: &str, title: &str, last_visit_ms: i64, visit_count: u32) -> HistoryItem {
        HistoryItem {
            url: url.to_owned(),
            title: title.to_owned(),
            last_visit_ms,
            visit_count,
        }
    }

    #[test]
    fn merges_duplicates_keeping_latest_visit_summed_count_and_latest_title() {
        let pages = clean_and_merge([
            item(
                "https://blog.example/ctes?utm_source=tw",
                "Recursive CTEs (old title)",
                1_000,
                2,
            ),
            item(
                "https://blog.example/ctes#comments",
                "Recursive CTEs: handling cycles",
                3_000,
                1,
            ),
            item("https://blog.example/ctes?fbclid=abc", "", 5_000, 4),
            item("https://other.example/", "Other", 2_000, 1),
        ]);
        assert_eq!(
            pages,
            vec![
                Page {
                    url: "https://blog.example/ctes".into(),
                    title: "Recursive CTEs: handling cycles".into(),
                    last_visit_ms: 5_000,
                    visit_count: 7,
                    passage: None,
                    marks: Default::default(),
                },
                Page {
                    url: "https://other.example/".into(),
                    title: "Other".into(),
                    last_visit_ms: 2_000,
                    visit_count: 1,
                    passage: None,
                    marks: Default::default(),
                },
            ]
        );
    }

    #[test]
    fn drops_rejected_items_and_keeps_input_order() {
        let pages = clean_and_merge([
            item("https://b.example/", "B", 9, 1),
            item("chrome://settings", "Settings", 8, 1),
            item(
                "https://www.google.com/search?q=b",
                "b - Google Search",
                7,
                1,
            ),
            item("", "no url", 6, 1),
            item("https://a.example/", "A", 5, 1),
        ]);
        let urls: Vec<&str> = pages.iter().map(|p| p.url.as_str()).collect();
        assert_eq!(urls, ["https://b.example/", "https://a.example/"]);
    }

    #[test]
    fn visit_counts_saturate_instead_of_overflowing() {
        let pages = clean_and_merge([
            item("https://a.example/", "", 1, u32::MAX),
            item("https://a.example/#x", "", 2, 5),
        ]);
        assert_eq!(pages[0].visit_count, u32::MAX);
    }

    #[test]
    fn reads_browser_items_with_missing_null_and_fractional_fields() {
        let items: Vec<HistoryItem> = serde_json::from_str(
            r#"[
                {"id":"1","url":"https://a.example/","title":"A","lastVisitTime":1700000000123.789,"visitCount":3,"typedCount":1},
                {"id":"2","url":"https://b.example/","title":null},
                {"id":"3","lastVisitTime":null}
            ]"#,
        )
        .unwrap();
        assert_eq!(
            items[0],
            item("https://a.example/", "A", 1_700_000_000_123, 3)
        );
        assert_eq!(items[1], item("https://b.example/", "", 0, 0));
        assert_eq!(items[2], item("", "", 0, 0));
    }

    #[test]
    fn ranked_pages_are_the_pages_fields_plus_a_reason() {
        use serde_json::json;
        let page = Page {
            url: "https://a.example/".into(),
            title: "A".into(),
            last_visit_ms: 5,
            visit_count: 2,
            passage: None,
            marks: Default::default(),
        };
        let fields =
            json!({"url": "https://a.example/", "title": "A", "lastVisitMs": 5, "visitCount": 2});
        let with_reason = |reason: Value| {
            let mut fields = fields.clone();
            fields["reason"] = reason;
            fields
        };
        let rows = [
            (fields.clone(), Some("")),
            (with_reason(json!("About A.")), Some("About A.")),
            // A reason that is not text is no reason; the page stays.
            (with_reason(json!(42)), Some("")),
            (with_reason(Value::Null), Some("")),
            // No URL, no page.
            (json!({"title": "A", "reason": "r"}), None),
            (json!("https://a.example/"), None),
        ];
        for (stored, reason) in rows {
            let read = serde_json::from_value::<RankedPage>(stored.clone()).ok();
            let want = reason.map(|reason| RankedPage {
                page: page.clone(),
                reason: reason.into(),
            });
            assert_eq!(read, want, "{stored}");
        }
        let ranked = RankedPage {
            page,
            reason: "About A.".into(),
        };
        assert_eq!(
            serde_json::to_value(&ranked).unwrap(),
            with_reason(json!("About A."))
        );
        assert_eq!(
            serde_json::to_value(RankedPage::from(ranked.page)).unwrap(),
            fields
        );
    }
}
