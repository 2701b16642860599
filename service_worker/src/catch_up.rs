//! Glue for the catch-up ([`history_chat_core::catch_up`]): reading again, from their sites, the
//! pages of the last 7 or 30 days visited before content search was on, and the bookmarked pages
//! (all of them on request, each bookmark as it is added). The core plans it and
//! schedules its downloads; this module carries them out one by one through the offscreen
//! document ([`crate::content_host::read_from_site`]), keeps the run in `chrome.storage.local` so
//! a worker restart resumes it ([`start`]), and drops pages removed meanwhile ([`removed`]).
//!
//! A page is downloaded only while reading is on and its site is not excluded (checked again just
//! before each download, with what the worker knows of the settings); a page that may not be read
//! then is counted as skipped, never asked for.

use std::cell::{Cell, RefCell};
use std::collections::HashSet;

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::{log, now_ms, storage};
use history_chat_core::catch_up::{self, CatchUp, Next, Outcome, Reach};
use history_chat_core::messages::{CatchUpSummary, Response};
use history_chat_core::semantic::host::Removal;
use wasm_bindgen_futures::spawn_local;

use crate::{content_host, index_host, places_host, settings_host};

thread_local! {
    /// The run, once started (or resumed) in this worker's life; kept when over, for its line.
    static RUN: RefCell<Option<CatchUp>> = const { RefCell::new(None) };
    /// A wake-up is set for the instant a site frees up.
    static WAKING: Cell<bool> = const { Cell::new(false) };
}

/// The worker started: a catch-up stored by an earlier life of the worker resumes.
pub fn start() {
    spawn_local(async {
        match storage::load_catch_up().await {
            Ok(Some(stored)) => {
                RUN.set(Some(CatchUp::resume(stored)));
                drive();
            }
            Ok(None) => {}
            Err(error) => log::failure("reading the catch-up in progress", &error),
        }
    });
}

/// What a catch-up of `reach` would ask for: the history's pages of the period, or the
/// bookmarked pages, not read yet, of the sites not excluded.
pub async fn plan(reach: Reach) -> Response {
    let plan = planned(reach).await;
    Response::CatchUpPlanned {
        plan: CatchUpSummary::of(&plan),
    }
}

async fn planned(reach: Reach) -> catch_up::Plan {
    let excluded = settings_host::known()
        .await
        .exclusions()
        .unwrap_or_default();
    let read = |urls: &mut dyn Iterator<Item = &String>| -> HashSet<String> {
        urls.filter(|url| content_host::holds(url))
            .cloned()
            .collect()
    };
    match reach {
        Reach::Days(days) => {
            let pages = index_host::all_pages();
            let held = read(&mut pages.iter().map(|page| &page.url));
            catch_up::plan(&pages, &held, &excluded, days, now_ms())
        }
        Reach::Bookmarks => {
            let bookmarks = places_host::bookmarks_to_read().await.unwrap_or_default();
            let held = read(&mut bookmarks.iter().map(|(url, _)| url));
            catch_up::plan_bookmarks(&bookmarks, &held, &excluded)
        }
    }
}

/// Starts the catch-up of `reach` (replacing one running), if reading is on (and for the
/// bookmarks, their switch too). Answers the content's state.
pub async fn begin(reach: Reach) -> Response {
    let on = settings_host::known().await.read_content() == Some(true);
    let offered = match reach {
        Reach::Days(days) => catch_up::DAYS.contains(&days),
        Reach::Bookmarks => places_host::bookmarks_to_read().await.is_some(),
    };
    if on && offered {
        let plan = planned(reach).await;
        RUN.set(Some(CatchUp::new(plan)));
        save().await;
        drive();
    }
    state().await
}

/// Bookmarks were added: their pages are read, when reading is on, after those a run waits for
/// (or in a run of their own), unless held already.
pub fn bookmarked(urls: Vec<String>) {
    spawn_local(async move {
        if settings_host::known().await.read_content() != Some(true) {
            return;
        }
        let added = RUN.with_borrow_mut(|run| {
            let run = match run {
                Some(run) if run.is_running() => run,
                _ => run.insert(CatchUp::new(catch_up::Plan {
                    reach: Reach::Bookmarks,
                    ..catch_up::Plan::default()
                })),
            };
            let mut added = false;
            for url in urls.iter().filter(|url| !content_host::holds(url)) {
                added |= run.add(url);
            }
            added
        });
        if added {
            save().await;
            drive();
        }
    });
}

/// These pages are no longer bookmarked: a run reading the bookmarks leaves those outside the
/// history.
pub fn unbookmarked(urls: &[String]) {
    let gone: HashSet<&str> = urls.iter().map(String::as_str).collect();
    forget_bookmarks(|url| gone.contains(url));
}

/// The bookmarked pages as now known: a run reading the bookmarks leaves the others outside the
/// history (all of them when the switch went off).
pub fn bookmarks_known(bookmarked: &HashSet<String>) {
    forget_bookmarks(|url| !bookmarked.contains(url));
}

/// A run reading the bookmarks leaves the pages `gone` says, unless the history holds them.
fn forget_bookmarks(gone: impl Fn(&str) -> bool) {
    RUN.with_borrow_mut(|run| {
        if let Some(run) = run
            && run.reach() == Reach::Bookmarks
        {
            run.forget(|url| gone(url) && index_host::pages_of([url.to_owned()]).is_empty());
        }
    });
}

/// The options page's Cancel: nothing more starts; the downloads out end as they will.
pub async fn cancel() -> Response {
    RUN.with_borrow_mut(|run| {
        if let Some(run) = run {
            run.cancel();
        }
    });
    save().await;
    state().await
}

/// The content's state for the options page, with how far the catch-up has got (if one ran in
/// this worker's life).
pub async fn state() -> Response {
    content_host::state(RUN.with_borrow(|run| run.as_ref().map(CatchUp::progress))).await
}

/// Pages that left the lexical index: not read again.
pub fn removed(removal: &Removal) {
    RUN.with_borrow_mut(|run| {
        let Some(run) = run else {
            return;
        };
        match removal {
            Removal::All => run.cancel(),
            Removal::Urls(urls) => {
                let gone: HashSet<&str> = urls.iter().map(String::as_str).collect();
                run.forget(|url| gone.contains(url));
            }
        }
    });
}

/// Starts every download the schedule allows now, and a wake-up for the next one.
fn drive() {
    loop {
        let next = RUN.with_borrow_mut(|run| run.as_mut().map(|run| run.next(now_ms())));
        match next {
            Some(Next::Fetch(url)) => spawn_local(download(url)),
            Some(Next::WaitUntil(at_ms)) => {
                if !WAKING.replace(true) {
                    let wait = u32::try_from((at_ms - now_ms()).max(0)).unwrap_or(u32::MAX);
                    spawn_local(async move {
                        http::sleep(wait, &Cancel::new()).await;
                        WAKING.set(false);
                        drive();
                    });
                }
                return;
            }
            Some(Next::Done) => {
                spawn_local(save());
                return;
            }
            Some(Next::Busy) | None => return,
        }
    }
}

/// Downloads and reads one page, if it may still be read; then the schedule goes on.
async fn download(url: String) {
    let known = settings_host::known().await;
    let bookmark_run = RUN.with_borrow(|run| {
        run.as_ref()
            .is_some_and(|run| run.reach() == Reach::Bookmarks)
    });
    // A bookmark's page is read only while it is bookmarked (or in the history).
    let still_wanted = !bookmark_run
        || places_host::is_bookmarked(&url)
        || !index_host::pages_of([url.clone()]).is_empty();
    let allowed = known.read_content() == Some(true)
        && still_wanted
        && known
            .exclusions()
            .is_some_and(|excluded| !excluded.excludes(&url));
    let outcome = match allowed {
        false => Outcome::Skipped,
        true => match content_host::read_from_site(url.clone()).await {
            Ok(true) => Outcome::Read,
            Ok(false) => Outcome::Skipped,
            Err(error) => {
                log::failure("reading a page again from its site", &error);
                Outcome::Failed
            }
        },
    };
    RUN.with_borrow_mut(|run| {
        if let Some(run) = run {
            run.finished(&url, outcome);
        }
    });
    save().await;
    drive();
}

/// Stores the run as it is now (or removes it once over), so a restart resumes it.
async fn save() {
    let stored = RUN.with_borrow(|run| run.as_ref().and_then(CatchUp::to_stored));
    if let Err(error) = storage::save_catch_up(stored.as_ref()).await {
        log::failure("saving the catch-up in progress", &error);
    }
}
