use serde_json::json;

use super::*;
use crate::origin::Origin;

/// The tree `getTree` gives: the nameless root, the bar and "Other bookmarks", a few folders.
fn tree() -> Vec<BookmarkNode> {
    let tree = json!([{
        "id": "0", "title": "", "children": [
            {"id": "1", "parentId": "0", "title": "Bookmarks bar", "children": [
                {"id": "10", "parentId": "1", "title": "Rust", "children": [
                    {"id": "11", "parentId": "10", "title": "Fearless Concurrency",
                     "url": "https://doc.rust-lang.org/book/ch16-00-concurrency.html", "dateAdded": 1000.0},
                    {"id": "12", "parentId": "10", "title": "Tokio tutorial",
                     "url": "https://tokio.rs/tokio/tutorial?utm_source=x", "dateAdded": 2000.0}
                ]},
                {"id": "13", "parentId": "1", "title": "Settings", "url": "chrome://settings"}
            ]},
            {"id": "2", "parentId": "0", "title": "Other bookmarks", "children": [
                {"id": "20", "parentId": "2", "title": "Cuisine", "children": [
                    {"id": "21", "parentId": "20", "title": "Tarte Tatin",
                     "url": "https://www.marmiton.org/recettes/tarte-tatin.aspx", "dateAdded": 3000.0}
                ]}
            ]}
        ]
    }]);
    serde_json::from_value(tree).unwrap_or_default()
}

fn tab(id: i32, url: &str, title: &str, last: f64) -> TabInfo {
    serde_json::from_value(
        json!({"id": id, "windowId": 1, "url": url, "title": title, "lastAccessed": last}),
    )
    .unwrap_or_default()
}

fn node(value: serde_json::Value) -> BookmarkNode {
    serde_json::from_value(value).unwrap_or_default()
}

fn found(places: &mut Places, question: &str) -> Vec<String> {
    places
        .search(question, 10)
        .into_iter()
        .map(|p| p.url)
        .collect()
}

fn loaded() -> Places {
    let mut places = Places::new();
    places.load_bookmarks(&tree());
    places
}

const TOKIO: &str = "https://tokio.rs/tokio/tutorial";
const BOOK: &str = "https://doc.rust-lang.org/book/ch16-00-concurrency.html";
const TATIN: &str = "https://www.marmiton.org/recettes/tarte-tatin.aspx";

#[test]
fn a_loaded_tree_keeps_its_web_bookmarks_with_their_folders_cleaned() {
    let mut places = loaded();
    assert!(places.holds(Origin::Bookmark));
    assert!(!places.holds(Origin::Tab));
    // chrome://settings is no web page; the address is cleaned (its tracking parameter gone).
    assert_eq!(places.len(Origin::Bookmark), 3);
    let pages = places.search("tokio ", 10);
    assert_eq!(pages.len(), 1);
    assert_eq!(pages[0].url, TOKIO);
    let bookmark = pages[0].marks.bookmark.clone().unwrap_or_default();
    assert_eq!(bookmark.folders, ["Bookmarks bar", "Rust"]);
    assert_eq!(bookmark.added_ms, 2000);
    assert!(pages[0].marks.outside_history);
    // A folder's words find what it holds.
    assert_eq!(found(&mut places, "cuisine "), [TATIN]);
    assert_eq!(found(&mut places, "rust "), [TOKIO, BOOK]);
}

#[test]
fn each_bookmark_event_keeps_the_search_current() {
    let mut places = loaded();
    // Added.
    places.bookmark_created(&node(json!({
        "id": "30", "parentId": "20", "title": "Crêpes bretonnes",
        "url": "https://example.org/r/30", "dateAdded": 4000.0
    })));
    assert_eq!(found(&mut places, "crepes "), ["https://example.org/r/30"]);
    assert_eq!(
        found(&mut places, "cuisine "),
        ["https://example.org/r/30", TATIN]
    );
    // Renamed (a bookmark).
    places.bookmark_changed(
        "30",
        &BookmarkChange {
            title: Some("Galettes".into()),
            url: None,
        },
    );
    assert_eq!(found(&mut places, "crepes "), Vec::<String>::new());
    assert_eq!(
        found(&mut places, "galettes "),
        ["https://example.org/r/30"]
    );
    // Its address changed.
    let moved_to = Some("https://example.org/galettes".to_owned());
    places.bookmark_changed(
        "30",
        &BookmarkChange {
            title: None,
            url: moved_to,
        },
    );
    assert_eq!(
        found(&mut places, "galettes "),
        ["https://example.org/galettes"]
    );
    // A folder renamed: what it holds is found by the new name only.
    places.bookmark_changed(
        "20",
        &BookmarkChange {
            title: Some("Recettes".into()),
            url: None,
        },
    );
    assert_eq!(found(&mut places, "cuisine "), Vec::<String>::new());
    assert_eq!(
        found(&mut places, "recettes galettes "),
        ["https://example.org/galettes"]
    );
    // Moved into another folder.
    places.bookmark_moved("21", "10");
    assert_eq!(found(&mut places, "rust tatin "), [TATIN]);
    // A folder removed takes what it holds.
    places.bookmark_removed("10");
    assert_eq!(found(&mut places, "rust "), Vec::<String>::new());
    assert_eq!(found(&mut places, "tatin "), Vec::<String>::new());
    assert_eq!(places.len(Origin::Bookmark), 1);
    // A bookmark removed.
    places.bookmark_removed("30");
    assert_eq!(places.len(Origin::Bookmark), 0);
}

#[test]
fn events_before_the_switch_is_on_keep_nothing() {
    let mut places = Places::new();
    places.bookmark_created(&node(
        json!({"id": "5", "parentId": "1", "url": "https://a.example/"}),
    ));
    places.tab_updated(&tab(1, "https://a.example/", "A", 1.0));
    assert!(!places.holds(Origin::Bookmark));
    assert!(!places.holds(Origin::Tab));
    assert!(places.search("", 10).is_empty());
}

#[test]
fn each_tab_event_keeps_the_search_current() {
    let mut places = Places::new();
    places.load_tabs(&[
        tab(
            1,
            "https://github.com/rust-lang/rust/pull/9",
            "Stabilise async closures",
            10.0,
        ),
        tab(2, "chrome://newtab/", "New Tab", 20.0),
    ]);
    assert_eq!(places.len(Origin::Tab), 1, "a new tab is no web page");
    assert_eq!(
        found(&mut places, "closures "),
        ["https://github.com/rust-lang/rust/pull/9"]
    );
    // Opened, then navigated.
    places.tab_updated(&tab(2, "https://news.example/today", "Today's news", 30.0));
    assert_eq!(found(&mut places, "news "), ["https://news.example/today"]);
    places.tab_updated(&tab(2, "https://weather.example/", "Weather", 40.0));
    assert_eq!(found(&mut places, "news "), Vec::<String>::new());
    assert_eq!(found(&mut places, "weather "), ["https://weather.example/"]);
    // Navigated away from the web: dropped.
    places.tab_updated(&tab(2, "chrome://history/", "History", 50.0));
    assert_eq!(places.len(Origin::Tab), 1);
    // Closed.
    places.tab_removed(1);
    assert_eq!(places.len(Origin::Tab), 0);
    let page = {
        places.tab_updated(&tab(3, "https://a.example/", "A", 60.0));
        places.search("", 10).remove(0)
    };
    assert_eq!(
        page.marks.tab,
        Some(OpenTab {
            tab_id: 3,
            window_id: 1
        })
    );
    assert_eq!(page.last_visit_ms, 60);
}

#[test]
fn a_page_bookmarked_and_open_shows_once_with_both_marks() {
    let mut places = loaded();
    places.load_tabs(&[tab(
        7,
        "https://tokio.rs/tokio/tutorial#intro",
        "Tokio tutorial",
        5.0,
    )]);
    let pages = places.search("tokio ", 10);
    assert_eq!(pages.len(), 1);
    assert!(pages[0].marks.bookmark.is_some());
    assert_eq!(pages[0].marks.tab.map(|t| t.tab_id), Some(7));
}

#[test]
fn source_terms_choose_among_bookmarks_and_tabs() {
    let mut places = loaded();
    places.load_tabs(&[tab(7, "https://rust-lang.org/", "Rust", 5.0)]);
    assert_eq!(found(&mut places, "rust ").len(), 3);
    assert_eq!(found(&mut places, "tab: rust"), ["https://rust-lang.org/"]);
    assert_eq!(found(&mut places, "favoris: rust"), [TOKIO, BOOK]);
    assert_eq!(found(&mut places, "history: rust"), Vec::<String>::new());
    // Only the source term: everything of it, most recent first.
    assert_eq!(found(&mut places, "bookmark:"), [TATIN, TOKIO, BOOK]);
    // site: terms narrow both.
    assert_eq!(found(&mut places, "rust site:tokio.rs"), [TOKIO]);
}

#[test]
fn excluded_sites_are_left_out_and_come_back_when_lifted() {
    let mut places = loaded();
    places.load_tabs(&[tab(7, "https://tokio.rs/blog", "Tokio blog", 5.0)]);
    places.set_exclusions(Exclusions::from_lines(&["tokio.rs"]));
    assert_eq!(found(&mut places, "tokio "), Vec::<String>::new());
    // A bookmark added on an excluded site is not kept either.
    places.bookmark_created(&node(
        json!({"id": "40", "parentId": "1", "title": "Tokio docs", "url": "https://tokio.rs/docs"}),
    ));
    assert_eq!(found(&mut places, "tokio "), Vec::<String>::new());
    places.set_exclusions(Exclusions::default());
    assert_eq!(found(&mut places, "tokio ").len(), 3);
}

#[test]
fn a_switch_off_empties_its_source_only() {
    let mut places = loaded();
    places.load_tabs(&[tab(7, "https://rust-lang.org/", "Rust", 5.0)]);
    places.clear(Origin::Bookmark);
    assert!(!places.holds(Origin::Bookmark));
    assert_eq!(places.len(Origin::Bookmark), 0);
    assert_eq!(found(&mut places, "rust "), ["https://rust-lang.org/"]);
    places.clear(Origin::Tab);
    assert!(places.search("", 10).is_empty());
}

#[test]
fn the_answer_is_cut_to_the_limit() {
    let mut places = Places::new();
    let tabs: Vec<TabInfo> = (0..50)
        .map(|n| {
            tab(
                n,
                &format!("https://a.example/{n}"),
                "Same title",
                f64::from(n),
            )
        })
        .collect();
    places.load_tabs(&tabs);
    let pages = places.search("same ", 5);
    let urls: Vec<&str> = pages.iter().map(|p| p.url.as_str()).collect();
    assert_eq!(
        urls,
        [
            "https://a.example/49",
            "https://a.example/48",
            "https://a.example/47",
            "https://a.example/46",
            "https://a.example/45"
        ]
    );
}

#[test]
fn a_tree_that_loops_names_each_folder_once() {
    let mut places = Places::new();
    places.load_bookmarks(&[node(
        json!({"id": "1", "parentId": "2", "title": "A", "children": [
            {"id": "3", "title": "x", "url": "https://a.example/"}
        ]}),
    )]);
    places.bookmark_moved("1", "3");
    let pages = places.search("x ", 10);
    assert_eq!(
        pages[0].marks.bookmark.clone().unwrap_or_default().folders,
        ["x", "A"]
    );
}

#[test]
fn pages_other_sources_found_are_marked_when_bookmarked_or_open() {
    let mut places = loaded();
    places.load_tabs(&[tab(7, "https://rust-lang.org/", "Rust", 5.0)]);
    let page = |url: &str| Page {
        url: url.into(),
        title: String::new(),
        last_visit_ms: 1,
        visit_count: 1,
        passage: None,
        marks: Default::default(),
    };
    let mut pages = vec![
        page(TOKIO),
        page("https://rust-lang.org/"),
        page("https://other.example/"),
    ];
    places.mark(&mut pages);
    assert_eq!(
        pages[0].marks.bookmark.clone().unwrap_or_default().folders,
        ["Bookmarks bar", "Rust"]
    );
    assert!(
        !pages[0].marks.outside_history,
        "a page of the history stays one"
    );
    assert_eq!(pages[1].marks.tab.map(|t| t.tab_id), Some(7));
    assert!(pages[2].marks.is_empty());
    // A page of the places' own answer stays outside the history.
    let mut own = places.search("tokio ", 5);
    places.mark(&mut own);
    assert!(own[0].marks.outside_history);
    // Switched off: nothing is marked any more.
    places.clear(Origin::Bookmark);
    places.clear(Origin::Tab);
    let mut pages = vec![page(TOKIO)];
    places.mark(&mut pages);
    assert!(pages[0].marks.is_empty());
}

#[test]
fn the_shelf_is_made_a_slice_at_a_time_and_a_search_finishes_it() {
    let children: Vec<serde_json::Value> = (0..50)
        .map(|n| json!({"id": format!("b{n}"), "title": format!("Page {n}"), "url": format!("https://a.example/{n}")}))
        .collect();
    let tree = vec![node(json!({"id": "0", "title": "", "children": [
        {"id": "1", "title": "Bookmarks bar", "children": children}
    ]}))];
    let mut places = Places::new();
    places.load_bookmarks(&tree);
    // 50 bookmarks, 20 a slice: two slices left undone, the third done.
    assert!(!places.refresh_some(20));
    assert!(!places.refresh_some(20));
    assert!(places.refresh_some(20));
    assert_eq!(places.len(Origin::Bookmark), 50);
    // Nothing changed: nothing to fold, done at once.
    assert!(places.refresh_some(1));
    // One bookmark added: the 50 kept are not folded again, the new one is the slice.
    places.bookmark_created(&node(
        json!({"id": "n", "parentId": "1", "title": "New", "url": "https://b.example/"}),
    ));
    assert!(places.refresh_some(1));
    assert_eq!(places.len(Origin::Bookmark), 51);

    // Half made, then searched: the search makes the rest first.
    let mut places = Places::new();
    places.load_bookmarks(&tree);
    assert!(!places.refresh_some(25));
    assert_eq!(places.search("page ", 100).len(), 50);
    assert!(places.refresh_some(1));
}

#[test]
fn bookmark_events_say_which_pages_came_and_which_are_no_longer_bookmarked() {
    let mut places = loaded();
    places.set_exclusions(Exclusions::parse("bank.example").unwrap_or_default());
    // A folder added whole (an import): its web bookmarks, cleaned, an excluded site's left out.
    let added = places.bookmark_created(&node(json!({
        "id": "40", "parentId": "2", "title": "Imported", "children": [
            {"id": "41", "parentId": "40", "url": "https://a.example/one?utm_source=x"},
            {"id": "42", "parentId": "40", "url": "https://bank.example/account"},
            {"id": "43", "parentId": "40", "url": "chrome://flags"},
            {"id": "44", "parentId": "40", "url": TATIN}
        ]
    })));
    let mut added_sorted = added.clone();
    added_sorted.sort();
    assert_eq!(added_sorted, ["https://a.example/one", TATIN]);
    // Nothing read yet: nothing to say.
    assert!(
        Places::new()
            .bookmark_created(&node(json!({"id": "9", "url": TOKIO})))
            .is_empty()
    );

    // Tatin is bookmarked twice: removing one copy leaves it bookmarked.
    assert!(places.bookmark_removed("44").is_empty());
    // Its address changed: the old one is no longer bookmarked.
    let left = places.bookmark_changed(
        "41",
        &BookmarkChange {
            title: None,
            url: Some("https://a.example/two".into()),
        },
    );
    assert_eq!(left, ["https://a.example/one"]);
    assert_eq!(
        places.bookmark_url("41").as_deref(),
        Some("https://a.example/two"),
        "the page it brings"
    );
    assert_eq!(places.bookmark_url("42"), None, "an excluded site's");
    assert_eq!(places.bookmark_url("40"), None, "a folder");
    // A title changed: no page left.
    let renamed = BookmarkChange {
        title: Some("Deux".into()),
        url: None,
    };
    assert!(places.bookmark_changed("41", &renamed).is_empty());
    // A folder removed: every page it held that no other bookmark holds.
    let mut gone = places.bookmark_removed("10");
    gone.sort();
    assert_eq!(gone, [BOOK, TOKIO]);

    let mut bookmarked: Vec<String> = places
        .bookmarked()
        .unwrap_or_default()
        .into_iter()
        .map(|(url, _)| url)
        .collect();
    bookmarked.sort();
    assert_eq!(bookmarked, ["https://a.example/two", TATIN]);
    assert_eq!(Places::new().bookmarked(), None, "not read: unknown");
    assert!(places.is_bookmarked(TATIN));
    assert!(!places.is_bookmarked(BOOK), "its folder removed");
    assert!(
        !places.is_bookmarked("https://bank.example/account"),
        "an excluded site's"
    );

    // The bookmarks' pages of a list, in its order; what is not bookmarked is left out.
    let urls = [
        BOOK.to_owned(),
        TATIN.to_owned(),
        "https://a.example/two".to_owned(),
    ];
    let pages = places.bookmark_pages(&urls);
    let shown: Vec<&str> = pages.iter().map(|p| p.url.as_str()).collect();
    assert_eq!(shown, [TATIN, "https://a.example/two"]);
    assert!(
        pages
            .iter()
            .all(|p| p.marks.outside_history && p.marks.bookmark.is_some())
    );
    assert_eq!(pages[0].title, "Tarte Tatin");
}

#[test]
fn the_pages_of_bookmarks_and_tabs_as_the_source_terms_allow_and_the_open_tabs_pages() {
    let mut places = loaded();
    assert_eq!(places.tab_pages(), None, "tabs not read: unknown");
    places.load_tabs(&[
        tab(
            7,
            "https://tokio.rs/tokio/tutorial#intro",
            "Tokio, older tab",
            5.0,
        ),
        tab(8, TOKIO, "Tokio tutorial", 9.0),
        tab(9, "https://news.example/today", "Today's news", 7.0),
        tab(10, "chrome://newtab", "New tab", 8.0),
    ]);
    // One page an address, the most recently used tab's, by address.
    let open = places.tab_pages().unwrap_or_default();
    let shown: Vec<(&str, &str, Option<i32>)> = open
        .iter()
        .map(|p| {
            (
                p.url.as_str(),
                p.title.as_str(),
                p.marks.tab.map(|t| t.tab_id),
            )
        })
        .collect();
    assert_eq!(
        shown,
        [
            ("https://news.example/today", "Today's news", Some(9)),
            (TOKIO, "Tokio tutorial", Some(8)),
        ]
    );
    let urls = [
        "https://news.example/today".to_owned(),
        BOOK.to_owned(),
        TOKIO.to_owned(),
        "https://nowhere.example/".to_owned(),
    ];
    let marks = |pages: Vec<Page>| -> Vec<(String, bool, bool)> {
        pages
            .into_iter()
            .map(|p| (p.url, p.marks.bookmark.is_some(), p.marks.tab.is_some()))
            .collect()
    };
    let every = Origins::default();
    assert_eq!(
        marks(places.place_pages(&urls, every)),
        [
            ("https://news.example/today".to_owned(), false, true),
            (BOOK.to_owned(), true, false),
            (TOKIO.to_owned(), true, true),
        ]
    );
    let mut tabs = Origins::default();
    tabs.name(Origin::Tab);
    assert_eq!(
        marks(places.place_pages(&urls, tabs)),
        [
            ("https://news.example/today".to_owned(), false, true),
            (TOKIO.to_owned(), false, true),
        ]
    );
    places.clear(Origin::Tab);
    assert_eq!(places.tab_pages(), None);
}
