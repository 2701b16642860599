//! The bookmarks and open tabs in the worker, as a pure state: the bindings read the browser and
//! hand every answer and event here; this decides what is kept and answers the searches.
//!
//! - **Bookmarks** are kept as the browser's tree (every node: its folder, title, address), and
//!   the searchable [`Shelf`] is made again from it after every change — a bookmark added, moved,
//!   renamed or removed, a folder renamed or moved (its bookmarks' folders change with it) or
//!   removed (its bookmarks go with it). Making it again costs milliseconds for thousands of
//!   bookmarks and cannot drift from the tree; it is done at the next search, once for every
//!   change since (an import is thousands of `onCreated`).
//! - **Open tabs** are kept by tab id: a tab opened or navigated is written over, a tab closed is
//!   dropped. A tab showing no web page (`chrome://`, a new tab) is not kept.
//! - **Excluded sites** are left out of both, as from the history.
//! - A source **switched off** is emptied ([`Places::clear`]): nothing of it is kept, here or
//!   anywhere (the places are never stored).

use std::collections::{HashMap, HashSet};

use crate::clean::clean_url;
use crate::exclusions::Exclusions;
use crate::history::{Bookmarked, Marks, OpenTab, Page};
use crate::origin::{Origin, Origins};
use crate::site_filter;

use super::browser::{BookmarkChange, BookmarkNode, TabInfo};
use super::shelf::{Entry, Kind, Shelf};

/// A node of the bookmarks' tree as kept: its folder, title, address (none: a folder), and when
/// it was added.
#[derive(Debug, Clone, PartialEq)]
struct Node {
    parent: Option<String>,
    title: String,
    /// A bookmark's address as the browser has it (none: a folder).
    url: Option<String>,
    /// That address cleaned, when it is a web page's (cleaned once, not at every rebuild).
    cleaned: Option<String>,
    added_ms: i64,
}

/// `url` cleaned, when it is a web page's address.
fn cleaned(url: Option<&str>) -> Option<String> {
    Some(clean_url(url?).ok()?.to_string())
}

/// The bookmarks and open tabs the worker knows, each `None` while its switch is off (or not yet
/// read).
#[derive(Debug, Default)]
pub struct Places {
    exclusions: Exclusions,
    tree: Option<HashMap<String, Node>>,
    bookmarks: Shelf,
    tabs: Option<HashMap<i32, Entry>>,
    tab_shelf: Shelf,
    /// The shelves are made again at the next search, not at every event: an import of
    /// thousands of bookmarks is thousands of `onCreated`, and one remaking answers them all.
    bookmarks_stale: bool,
    tabs_stale: bool,
    /// Every kept address's marks (a bookmark, an open tab), made with the shelves: what
    /// [`Places::mark`] adds to the pages other sources found.
    by_url: HashMap<String, Marks>,
    /// `by_url` is to be made again once the shelves are.
    marks_stale: bool,
    /// The bookmarks' shelf being made, a slice at a time ([`Places::refresh_some`]).
    building: Option<Building>,
}

/// A remaking of the bookmarks' shelf under way.
#[derive(Debug, Default)]
struct Building {
    /// The bookmarks still to make an entry of: id, cleaned address, title, what it is.
    todo: Vec<(String, String, String, Bookmarked)>,
    /// The entries made (or kept) so far.
    made: Vec<Entry>,
    /// The previous shelf's entries by id: one whose bookmark did not change is kept as it is
    /// (its words not folded again).
    before: HashMap<String, Entry>,
}

impl Places {
    /// Nothing kept yet.
    pub fn new() -> Places {
        Places::default()
    }

    /// Whether `origin`'s entries are kept (its switch on, and read).
    pub fn holds(&self, origin: Origin) -> bool {
        match origin {
            Origin::History => false,
            Origin::Bookmark => self.tree.is_some(),
            Origin::Tab => self.tabs.is_some(),
        }
    }

    /// How many entries of `origin` are searchable.
    pub fn len(&mut self, origin: Origin) -> usize {
        self.refresh();
        match origin {
            Origin::History => 0,
            Origin::Bookmark => self.bookmarks.len(),
            Origin::Tab => self.tab_shelf.len(),
        }
    }

    /// The excluded sites changed: both sources are made again without them.
    pub fn set_exclusions(&mut self, exclusions: Exclusions) {
        self.exclusions = exclusions;
        self.bookmarks_stale = true;
        self.tabs_stale = true;
    }

    /// `origin`'s switch went off (or its permission was taken back): everything of it goes.
    pub fn clear(&mut self, origin: Origin) {
        match origin {
            Origin::History => {}
            Origin::Bookmark => {
                self.tree = None;
                self.bookmarks = Shelf::default();
                self.building = None;
                self.bookmarks_stale = true;
            }
            Origin::Tab => {
                self.tabs = None;
                self.tab_shelf = Shelf::default();
                self.tabs_stale = true;
            }
        }
    }

    /// The whole tree, as `chrome.bookmarks.getTree()` gave it: what was kept is replaced.
    pub fn load_bookmarks(&mut self, roots: &[BookmarkNode]) {
        let mut tree = HashMap::new();
        for root in roots {
            add_node(&mut tree, root, None);
        }
        self.tree = Some(tree);
        self.bookmarks_stale = true;
    }

    /// `onCreated`: a bookmark or a folder was added (an import adds each node this way). Returns
    /// the web pages it bookmarks (cleaned, not of an excluded site): their content may be read.
    pub fn bookmark_created(&mut self, node: &BookmarkNode) -> Vec<String> {
        let Some(tree) = &mut self.tree else {
            return Vec::new();
        };
        add_node(tree, node, node.parent_id.clone());
        self.bookmarks_stale = true;
        let mut added = Vec::new();
        let mut nodes = vec![node];
        while let Some(node) = nodes.pop() {
            if let Some(url) = cleaned(node.url.as_deref())
                && !self.exclusions.excludes(&url)
            {
                added.push(url);
            }
            nodes.extend(node.children.iter().flatten());
        }
        added
    }

    /// `onRemoved`: the node `id` and, a folder's, everything in it. Returns the pages no longer
    /// bookmarked anywhere (cleaned): what was read of them for being bookmarked goes.
    pub fn bookmark_removed(&mut self, id: &str) -> Vec<String> {
        let Some(tree) = &mut self.tree else {
            return Vec::new();
        };
        let mut removed = Vec::new();
        let mut gone = vec![id.to_owned()];
        while let Some(id) = gone.pop() {
            if let Some(node) = tree.remove(&id) {
                removed.extend(node.cleaned);
            }
            gone.extend(
                tree.iter()
                    .filter(|(_, node)| node.parent.as_deref() == Some(&id))
                    .map(|(child, _)| child.clone()),
            );
        }
        self.bookmarks_stale = true;
        self.unbookmarked(removed)
    }

    /// `onChanged`: the node's new title, and a bookmark's new address. Returns the address it
    /// left when no other bookmark holds it (cleaned).
    pub fn bookmark_changed(&mut self, id: &str, change: &BookmarkChange) -> Vec<String> {
        let Some(node) = self.tree.as_mut().and_then(|tree| tree.get_mut(id)) else {
            return Vec::new();
        };
        if let Some(title) = &change.title {
            node.title = title.clone();
        }
        let mut left = Vec::new();
        if node.url.is_some() && change.url.is_some() {
            node.url = change.url.clone();
            let before = std::mem::replace(&mut node.cleaned, cleaned(node.url.as_deref()));
            left.extend(before.filter(|before| Some(before) != node.cleaned.as_ref()));
        }
        self.bookmarks_stale = true;
        self.unbookmarked(left)
    }

    /// The web page the bookmark `id` holds now (cleaned), unless it is of an excluded site: a
    /// bookmark given a new address brings that page, to be read as an added one is.
    pub fn bookmark_url(&self, id: &str) -> Option<String> {
        let url = self.tree.as_ref()?.get(id)?.cleaned.clone()?;
        (!self.exclusions.excludes(&url)).then_some(url)
    }

    /// Those of `urls` no bookmark holds now, each once.
    fn unbookmarked(&self, mut urls: Vec<String>) -> Vec<String> {
        let Some(tree) = &self.tree else {
            return urls;
        };
        urls.sort_unstable();
        urls.dedup();
        urls.retain(|url| !tree.values().any(|n| n.cleaned.as_ref() == Some(url)));
        urls
    }

    /// Every bookmarked web page (cleaned, not of an excluded site) with when it was bookmarked,
    /// as the tree holds them now (a page bookmarked twice is there twice); `None` while the
    /// bookmarks are off or not read yet.
    pub fn bookmarked(&self) -> Option<Vec<(String, i64)>> {
        let tree = self.tree.as_ref()?;
        Some(
            tree.values()
                .filter_map(|node| Some((node.cleaned.clone()?, node.added_ms)))
                .filter(|(url, _)| !self.exclusions.excludes(url))
                .collect(),
        )
    }

    /// Whether a bookmark holds the page at `url` (cleaned), not of an excluded site.
    pub fn is_bookmarked(&self, url: &str) -> bool {
        self.tree.as_ref().is_some_and(|tree| {
            tree.values()
                .any(|node| node.cleaned.as_deref() == Some(url))
        }) && !self.exclusions.excludes(url)
    }

    /// The bookmarks' pages for those of `urls` (cleaned) that are bookmarked, in the order of
    /// `urls`: a page found by what it said, known to History Chat only as a bookmark.
    pub fn bookmark_pages(&mut self, urls: &[String]) -> Vec<Page> {
        let mut bookmarks = Origins::default();
        bookmarks.name(Origin::Bookmark);
        self.place_pages(urls, bookmarks)
    }

    /// The pages of those of `urls` (cleaned) bookmarked or open in a tab now, as `origins`
    /// allows, in the order of `urls`: a page found by meaning or by what it said outside the
    /// history; one both bookmarked and open shows once, with both marks.
    pub fn place_pages(&mut self, urls: &[String], origins: Origins) -> Vec<Page> {
        self.refresh();
        let wanted: HashSet<&str> = urls.iter().map(String::as_str).collect();
        let mut by_url: HashMap<&str, Page> = HashMap::new();
        let mut shelves = Vec::new();
        if origins.allows(Origin::Tab) {
            shelves.push(&self.tab_shelf);
        }
        if origins.allows(Origin::Bookmark) {
            shelves.push(&self.bookmarks);
        }
        for entry in shelves.into_iter().flat_map(Shelf::entries) {
            if !wanted.contains(entry.url.as_str()) {
                continue;
            }
            let page = entry.page();
            by_url
                .entry(&entry.url)
                .and_modify(|held| held.marks = held.marks.merged(&page.marks))
                .or_insert(page);
        }
        urls.iter()
            .filter_map(|url| by_url.remove(url.as_str()))
            .collect()
    }

    /// The open tabs' pages (cleaned, not of an excluded site), one per address (its most
    /// recently used tab's), by address; `None` while the tabs are off or not read yet.
    pub fn tab_pages(&mut self) -> Option<Vec<Page>> {
        self.tabs.as_ref()?;
        self.refresh();
        let mut by_url: HashMap<&str, &Entry> = HashMap::new();
        for entry in self.tab_shelf.entries() {
            let held = by_url.entry(&entry.url).or_insert(entry);
            if entry.recent_ms > held.recent_ms {
                *held = entry;
            }
        }
        let mut pages: Vec<Page> = by_url.into_values().map(Entry::page).collect();
        pages.sort_by(|a, b| a.url.cmp(&b.url));
        Some(pages)
    }

    /// `onMoved`: the node is now in the folder `parent_id`.
    pub fn bookmark_moved(&mut self, id: &str, parent_id: &str) {
        let Some(node) = self.tree.as_mut().and_then(|tree| tree.get_mut(id)) else {
            return;
        };
        node.parent = Some(parent_id.to_owned());
        self.bookmarks_stale = true;
    }

    /// The open tabs, as `chrome.tabs.query({})` gave them: what was kept is replaced.
    pub fn load_tabs(&mut self, tabs: &[TabInfo]) {
        let mut kept = HashMap::new();
        for tab in tabs {
            if let Some((id, entry)) = tab_entry(tab) {
                kept.insert(id, entry);
            }
        }
        self.tabs = Some(kept);
        self.tabs_stale = true;
    }

    /// `onCreated` / `onUpdated`: the tab as it is now (a tab navigated away from the web is
    /// dropped).
    pub fn tab_updated(&mut self, tab: &TabInfo) {
        let Some(tabs) = &mut self.tabs else { return };
        let Some(id) = tab.id else { return };
        match tab_entry(tab) {
            Some((id, entry)) => tabs.insert(id, entry),
            None => tabs.remove(&id),
        };
        self.tabs_stale = true;
    }

    /// `onRemoved` (or the tab replaced by another, `onReplaced`): the tab `id` is gone.
    pub fn tab_removed(&mut self, id: i32) {
        let Some(tabs) = &mut self.tabs else { return };
        if tabs.remove(&id).is_some() {
            self.tabs_stale = true;
        }
    }

    /// The bookmarks and open tabs matching `question` (its `site:` terms read; its source terms
    /// choose among bookmarks and tabs; the period is the history's only), best first, at most
    /// `limit`: a page both bookmarked and open shows once, with both marks.
    pub fn search(&mut self, question: &str, limit: usize) -> Vec<Page> {
        self.refresh();
        let asked = site_filter::parse(question);
        let mut found: Vec<(&Entry, f32)> = Vec::new();
        if asked.origins.allows(Origin::Tab) {
            found.extend(self.tab_shelf.search(&asked.words, &asked.filter));
        }
        if asked.origins.allows(Origin::Bookmark) {
            found.extend(self.bookmarks.search(&asked.words, &asked.filter));
        }
        // Best first; on a tie an open tab first (what is open now is likelier the page sought),
        // then the most recent.
        let open = |e: &Entry| matches!(e.kind, Kind::Tab(_));
        found.sort_by(|(a, sa), (b, sb)| {
            (sb.total_cmp(sa))
                .then(open(b).cmp(&open(a)))
                .then(b.recent_ms.cmp(&a.recent_ms))
        });
        let mut pages: Vec<Page> = Vec::new();
        for (entry, _) in found {
            let full = pages.len() >= limit;
            match pages.iter_mut().find(|p| p.url == entry.url) {
                Some(page) => page.marks = page.marks.merged(&entry.page().marks),
                None if !full => pages.push(entry.page()),
                None => {}
            }
        }
        pages
    }

    /// Marks each of `pages` (found by another source: the history's index, topic search, the
    /// pages' content) that is bookmarked or open in a tab, so that its row says so whichever
    /// source found it; whether a page is outside the history is left as it is.
    pub fn mark(&mut self, pages: &mut [Page]) {
        self.refresh();
        if self.by_url.is_empty() {
            return;
        }
        for page in pages {
            if let Some(marks) = self.by_url.get(&page.url) {
                // Where else it is, added; whether it is a page of the history stays the page's.
                let outside_history = page.marks.outside_history;
                page.marks = page.marks.merged(marks);
                page.marks.outside_history = outside_history;
            }
        }
    }

    /// Makes again the shelves that changed since the last search, and the marks by address (a
    /// search does it first; the worker does it after a read and after a burst of events, so that
    /// a keystroke seldom pays for it).
    pub fn refresh(&mut self) {
        while !self.refresh_some(usize::MAX) {}
    }

    /// [`Places::refresh`] a slice at a time: folds the words of at most `budget` bookmarks that
    /// changed (a kept one costs nothing), and says whether everything is made. The worker calls
    /// it with short slices after reading thousands of bookmarks, so that a question asked
    /// meanwhile is answered between two slices; a search finishes what is left.
    pub fn refresh_some(&mut self, budget: usize) -> bool {
        if self.building.is_none() && std::mem::take(&mut self.bookmarks_stale) {
            self.building = self.plan_bookmarks();
            self.marks_stale = true;
        }
        if let Some(building) = &mut self.building {
            let mut folded = 0;
            while let Some((id, url, title, bookmarked)) = building.todo.pop() {
                if let Some(kept) = building.before.remove(&id) {
                    let same = matches!(&kept.kind, Kind::Bookmark(b) if *b == bookmarked);
                    if same && kept.url == url && kept.title == title {
                        building.made.push(kept);
                        continue;
                    }
                }
                if folded == budget {
                    // The slice is spent: this one starts the next.
                    building.todo.push((id, url, title, bookmarked));
                    break;
                }
                folded += 1;
                let recent = bookmarked.added_ms;
                let kind = Kind::Bookmark(bookmarked);
                building.made.push(Entry::new(id, url, title, kind, recent));
            }
            if !building.todo.is_empty() {
                return false;
            }
            let mut entries = std::mem::take(&mut building.made);
            // One order whatever the map's: the searches' ties are then the same every time.
            entries.sort_by(|a, b| a.key.cmp(&b.key));
            self.bookmarks = Shelf::new(entries);
            self.building = None;
        }
        if std::mem::take(&mut self.tabs_stale) {
            self.rebuild_tabs();
            self.marks_stale = true;
        }
        if std::mem::take(&mut self.marks_stale) {
            let mut by_url: HashMap<String, Marks> = HashMap::new();
            let entries = self.tab_shelf.entries().iter();
            for entry in entries.chain(self.bookmarks.entries()) {
                let mut marks = entry.page().marks;
                // A page of another source's answer is the history's.
                marks.outside_history = false;
                by_url
                    .entry(entry.url.clone())
                    .and_modify(|m| *m = m.merged(&marks))
                    .or_insert(marks);
            }
            self.by_url = by_url;
        }
        self.building.is_none() && !self.bookmarks_stale && !self.tabs_stale
    }

    /// What remaking the bookmarks' shelf from the tree takes: every web bookmark not of an
    /// excluded site, with its folders; `None` (the shelf emptied) while the bookmarks are off.
    fn plan_bookmarks(&mut self) -> Option<Building> {
        let Some(tree) = &self.tree else {
            self.bookmarks = Shelf::default();
            return None;
        };
        let before: HashMap<String, Entry> = std::mem::take(&mut self.bookmarks)
            .into_entries()
            .into_iter()
            .map(|e| (e.key.clone(), e))
            .collect();
        let todo = tree
            .iter()
            .filter_map(|(id, node)| {
                let url = node.cleaned.clone()?;
                if self.exclusions.excludes(&url) {
                    return None;
                }
                let bookmarked = Bookmarked {
                    folders: folders(tree, node),
                    added_ms: node.added_ms,
                };
                Some((id.clone(), url, node.title.clone(), bookmarked))
            })
            .collect();
        Some(Building {
            todo,
            made: Vec::new(),
            before,
        })
    }

    fn rebuild_tabs(&mut self) {
        let Some(tabs) = &self.tabs else {
            self.tab_shelf = Shelf::default();
            return;
        };
        let entries = tabs
            .values()
            .filter(|entry| !self.exclusions.excludes(&entry.url))
            .cloned();
        let mut entries: Vec<Entry> = entries.collect();
        entries.sort_by(|a, b| a.key.cmp(&b.key));
        self.tab_shelf = Shelf::new(entries);
    }
}

/// Keeps `node` and its descendants in `tree`, `node` in the folder `parent`.
fn add_node(tree: &mut HashMap<String, Node>, node: &BookmarkNode, parent: Option<String>) {
    if node.id.is_empty() {
        return;
    }
    tree.insert(
        node.id.clone(),
        Node {
            parent: parent.or_else(|| node.parent_id.clone()),
            title: node.title.clone(),
            url: node.url.clone(),
            cleaned: cleaned(node.url.as_deref()),
            added_ms: node.date_added.map_or(0, |ms| ms as i64),
        },
    );
    for child in node.children.iter().flatten() {
        add_node(tree, child, Some(node.id.clone()));
    }
}

/// The names of the folders holding `node`, outermost first; the tree's nameless root left out.
/// A chain that loops (a tree the browser never gives) stops at the first folder seen twice.
fn folders(tree: &HashMap<String, Node>, node: &Node) -> Vec<String> {
    let mut names = Vec::new();
    let mut seen: Vec<&str> = Vec::new();
    let mut parent = node.parent.as_deref();
    while let Some(id) = parent {
        if seen.contains(&id) {
            break;
        }
        seen.push(id);
        let Some(folder) = tree.get(id) else { break };
        if !folder.title.is_empty() {
            names.push(folder.title.clone());
        }
        parent = folder.parent.as_deref();
    }
    names.reverse();
    names
}

/// A tab's id and entry, when it shows a web page.
fn tab_entry(tab: &TabInfo) -> Option<(i32, Entry)> {
    let id = tab.id?;
    let url = cleaned(tab.url.as_deref())?;
    let kind = Kind::Tab(OpenTab {
        tab_id: id,
        window_id: tab.window_id,
    });
    let title = tab.title.clone().unwrap_or_default();
    let recent = tab.last_accessed.map_or(0, |ms| ms as i64);
    Some((id, Entry::new(id.to_string(), url, title, kind, recent)))
}

#[cfg(test)]
mod tests;
