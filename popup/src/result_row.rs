//! One page of an answer (in the conversation, or among the as-you-type matches): its link, its
//! sources (a bookmark, an open tab), its reason, and its actions — switch to its tab, copy the
//! link, remove the page from history. Opening a result is
//! also the search box's (Enter on a highlighted match).

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::ask_worker;
use history_chat_bindings::{clipboard, tabs};
use history_chat_core::address::Disposition;
use history_chat_core::archive;
use history_chat_core::display::{FAVICON_SIZE, display_title, favicon_url, readable_url};
use history_chat_core::failure::Failure;
use history_chat_core::history::{OpenTab, RankedPage};
use history_chat_core::messages::{Request, Response};
use history_chat_core::rows::{OpenKeys, RowAction, row_action};
use history_chat_core::t;
use history_chat_core::wording::history::{kept_note, relative_time};
use history_chat_core::wording::rows::removal_failed;
use std::collections::HashSet;

use leptos::ev::{KeyboardEvent, MouseEvent};
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::state::{AlertMessage, State, live_option_id};

/// How long "Copy link" says "Copied".
const COPIED_MS: u32 = 1_500;

/// One page of an answer: a single link (title, readable URL, last visit) that opens it (Enter or
/// a click: a new tab; Ctrl/⌘ or the middle button: behind; Shift: the current tab), the model's
/// reason when there is one, and the row's actions: "Copy link" and "Remove from history" (which
/// asks first: its "Remove" is a separate button that focus never lands on by itself). `option`:
/// its place among the as-you-type results (a listbox option), `None` in the conversation.
#[component]
pub(crate) fn ResultItem(result: RankedPage, now: i64, option: Option<usize>) -> impl IntoView {
    let state = expect_context::<State>();
    let set_alert = state.alert;
    let page = result.page;
    let title = display_title(&page.title, &page.url);
    let readable = readable_url(&page.url);
    let when = relative_time(now, page.last_visit_ms);
    let marks = page.marks.clone();
    let visited = match (&marks.bookmark, page.last_visit_ms) {
        // A bookmark found outside the history: when it was added, whatever its age.
        (Some(bookmark), 0) if bookmark.added_ms > 0 => {
            t!("popup_bookmarked", relative_time(now, bookmark.added_ms))
        }
        (_, 0) => String::new(),
        _ => match archive::past_chrome(page.last_visit_ms, now) {
            false => t!("popup_visited", when),
            true => t!("popup_visited_kept", when, kept_note()),
        },
    };
    // Where else it was found: a small label per source (a bookmark's with its folders).
    let sources = (!marks.is_empty()).then(|| {
        let tab = marks.tab.map(|_| {
            view! { <span class="source">{t!("popup_source_tab")}</span> }
        });
        let bookmark = marks.bookmark.as_ref().map(|bookmark| {
            let folders = bookmark.folders.join(" › ");
            let label = match folders.is_empty() {
                true => t!("popup_source_bookmark"),
                false => t!("popup_source_bookmark_in", folders),
            };
            view! { <span class="source">{label}</span> }
        });
        view! { <span class="sources">{tab}{bookmark}</span> }
    });
    let open_tab = marks.tab;
    let removable = !marks.outside_history;
    let url = StoredValue::new(page.url.clone());
    let confirming = RwSignal::new(false);
    let working = RwSignal::new(false);
    let copied = RwSignal::new(false);
    let ask_button = NodeRef::<leptos::html::Button>::new();
    let cancel_button = NodeRef::<leptos::html::Button>::new();

    let on_click = move |event: MouseEvent| {
        event.prevent_default();
        let keys = OpenKeys {
            shift: event.shift_key(),
            ctrl: event.ctrl_key(),
            meta: event.meta_key(),
            middle: false,
        };
        open_result(url.get_value(), open_tab, keys, set_alert);
    };
    let on_auxclick = move |event: MouseEvent| {
        if event.button() == 1 {
            event.prevent_default();
            let keys = OpenKeys {
                middle: true,
                ..OpenKeys::default()
            };
            open_result(url.get_value(), open_tab, keys, set_alert);
        }
    };
    let on_link_key = move |event: KeyboardEvent| {
        if event.key() == "Enter" {
            // The browser's own activation would not say which keys were held.
            event.prevent_default();
            open_result(url.get_value(), open_tab, keys_of(&event), set_alert);
        }
    };
    let copy = move |_| {
        let url = url.get_value();
        spawn_local(async move {
            match clipboard::write_text(&url).await {
                Ok(()) => {
                    copied.set(true);
                    http::sleep(COPIED_MS, &Cancel::new()).await;
                    // The row may be gone by now (removed, or a newer answer).
                    let _ = copied.try_set(false);
                }
                Err(error) => set_alert.set(AlertMessage::new(t!("popup_copy_failed", error))),
            }
        });
    };
    let ask = move |_| {
        confirming.set(true);
        // Focus goes to the harmless choice: a second Enter cancels, never removes.
        request_animation_frame(move || {
            if let Some(cancel) = cancel_button.get_untracked() {
                let _ = cancel.focus();
            }
        });
    };
    let back_to_ask = move || {
        confirming.set(false);
        request_animation_frame(move || {
            if let Some(ask) = ask_button.get_untracked() {
                let _ = ask.focus();
            }
        });
    };
    let on_confirm_key = move |event: KeyboardEvent| {
        if event.key() == "Escape" {
            event.prevent_default();
            event.stop_propagation();
            back_to_ask();
        }
    };
    let title_shown = title.clone();
    let remove = move |_| {
        if working.get_untracked() {
            return;
        }
        working.set(true);
        let (url, title) = (url.get_value(), title_shown.clone());
        spawn_local(async move {
            match remove_from_history(state, url, title).await {
                // The row is gone with its page; the search box takes the focus back.
                Ok(()) => {
                    if let Some(input) = state.search_box.get_untracked() {
                        let _ = input.focus();
                    }
                }
                Err(message) => {
                    set_alert.set(AlertMessage::new(message));
                    let _ = working.try_set(false);
                    if confirming.try_get_untracked().is_some() {
                        back_to_ask();
                    }
                }
            }
        });
    };
    let reason =
        (!result.reason.is_empty()).then(|| view! { <p class="reason">{result.reason}</p> });
    // What the page said that matched, its marks checked against its text (stored data): text
    // nodes and <mark>, never HTML.
    let passage = page.passage.as_ref().map(|passage| {
        let pieces: Vec<(String, bool)> = passage
            .pieces()
            .into_iter()
            .map(|(piece, marked)| (piece.to_owned(), marked))
            .collect();
        view! {
            <p class="passage">
                {pieces
                    .into_iter()
                    .map(|(piece, marked)| match marked {
                        true => view! { <mark>{piece}</mark> }.into_any(),
                        false => piece.into_any(),
                    })
                    .collect_view()}
            </p>
        }
    });
    let page_url = page.url.clone();
    let selected = move || {
        option.is_some()
            && state
                .highlight
                .with(|shown| shown.as_deref() == Some(page_url.as_str()))
    };
    // The site's icon from Chrome's local favicon cache (decorative: `alt=""`), or the
    // placeholder without the permission or when the image does not load.
    let icons = state.site_icons;
    let icon_failed = RwSignal::new(false);
    let icon_page = page.url.clone();
    let icon = move || {
        let src = icons
            .get()
            .and_then(|base| favicon_url(&base, &icon_page))
            .filter(|_| !icon_failed.get());
        match src {
            Some(src) => view! {
                <img class="favicon" src=src alt="" width=FAVICON_SIZE height=FAVICON_SIZE
                    on:error=move |_| icon_failed.set(true)/>
            }
            .into_any(),
            None => view! { <span class="favicon favicon-placeholder" aria-hidden="true"></span> }
                .into_any(),
        }
    };
    view! {
        <li
            class="result"
            class:highlighted=selected.clone()
            role=option.map(|_| "option")
            id=option.map(live_option_id)
            aria-selected=move || option.map(|_| selected().to_string())
        >
            <a class="result-link" href=page.url on:click=on_click on:auxclick=on_auxclick on:keydown=on_link_key>
                {icon}
                <span class="title">{title}</span>
                <span class="url">{readable}</span>
                <time>{visited}</time>
                {sources}
            </a>
            {passage}
            {reason}
            <Show
                when=move || confirming.get()
                fallback=move || view! {
                    <div class="row-actions">
                        {open_tab.map(|tab| view! {
                            <button type="button" class="quiet" on:click=move |_| {
                                open_result(url.get_value(), Some(tab), OpenKeys::default(), set_alert)
                            }>
                                {t!("popup_switch_to_tab")}
                            </button>
                        })}
                        <button type="button" class="quiet" on:click=copy>
                            {move || if copied.get() { t!("popup_copied") } else { t!("popup_copy_link") }}
                        </button>
                        // A page found only as a bookmark or an open tab is not in the history.
                        {removable.then(|| view! {
                            <button type="button" class="quiet" node_ref=ask_button on:click=ask>
                                {t!("popup_remove")}
                            </button>
                        })}
                    </div>
                }
            >
                <div class="row-actions confirm" role="group" aria-label=t!("popup_remove_confirm_label") on:keydown=on_confirm_key>
                    <span>{t!("popup_remove_confirm")}</span>
                    <button type="button" class="quiet" node_ref=cancel_button on:click=move |_| back_to_ask() disabled=move || working.get()>
                        {t!("popup_cancel")}
                    </button>
                    <button type="button" class="danger" on:click=remove.clone() disabled=move || working.get()>
                        {move || if working.get() { t!("popup_removing") } else { t!("popup_remove_confirm_button") }}
                    </button>
                </div>
            </Show>
        </li>
    }
}

/// The keys held with a key press, for where a result opens.
pub(crate) fn keys_of(event: &KeyboardEvent) -> OpenKeys {
    OpenKeys {
        shift: event.shift_key(),
        ctrl: event.ctrl_key(),
        meta: event.meta_key(),
        middle: false,
    }
}

/// Activates a result ([`row_action`]): switches to the open tab showing it, or opens it where
/// `keys` say. A tab closed since the answer was shown: the page opens in a new tab instead. A
/// failure is an alert.
pub(crate) fn open_result(
    url: String,
    tab: Option<OpenTab>,
    keys: OpenKeys,
    set_alert: WriteSignal<Option<AlertMessage>>,
) {
    spawn_local(async move {
        let opened = match row_action(keys, tab) {
            RowAction::SwitchToTab(tab) => match tabs::switch_to(tab).await {
                Ok(()) => Ok(()),
                Err(_) => tabs::open_from_popup(&url, Disposition::NewForegroundTab).await,
            },
            RowAction::Open(disposition) => tabs::open_from_popup(&url, disposition).await,
        };
        if let Err(error) = opened {
            set_alert.set(AlertMessage::new(t!("popup_open_failed", error)));
        }
    });
}

/// Removes a page from the browser's history (every raw entry merged into it), from the local
/// index and topic search, and from the stored conversation: the worker does it all
/// ([`Request::Remove`]), so a popup closed meanwhile leaves nothing half done. Then the answers
/// shown drop it. `Err`: the browser kept it — the message for the alert; nothing else changed.
async fn remove_from_history(state: State, url: String, title: String) -> Result<(), String> {
    let request = Request::Remove { url: url.clone() };
    let (removal, conversation_error) = match ask_worker(&request).await {
        Ok(Response::Removed {
            removal,
            conversation_error,
        }) => (removal, conversation_error),
        Ok(Response::Failed { failure }) => return Err(removal_failed(&failure)),
        // Not an answer to `Remove` (a worker of another version): nothing is known to be done.
        Ok(_) => return Err(removal_failed(&Failure::UnexpectedReply)),
        Err(error) => return Err(removal_failed(&error.failure().into())),
    };
    let _ = state
        .removed
        .try_update(|removed| removed.insert(url.clone()));
    let _ = state.live.try_update(|live| {
        if let Some(live) = live {
            live.pages.retain(|page| page.url != url);
        }
    });
    let gone = HashSet::from([url]);
    let _ = state.turns.try_update(|turns| {
        for stored in turns.iter_mut() {
            stored.turn.drop_pages(&gone);
        }
    });
    let _ = state.status.try_set(removal.message(&title));
    if let Some(error) = conversation_error {
        let _ = state.alert.try_set(AlertMessage::new(t!(
            "popup_removed_conversation_not_updated",
            error
        )));
    }
    Ok(())
}
