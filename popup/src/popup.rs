//! The toolbar popup's shell: the header (mode chip, clear, options), the click-started
//! download of Chrome's model, the search box and period, the `site:` chips, the status line with
//! its Cancel, and the alert. This is what the popup's first module holds, so the search box is
//! usable once it has loaded; the rest arrives as lazily loaded chunks, the conversation and the
//! as-you-type results ([`crate::conversation`], [`crate::result_row`]) once the shell has been
//! painted (the box shows before any chunk is asked for), asking the worker ([`crate::ask`]) when
//! first needed. Without a model the worker searches locally; with a Gemini
//! key or Chrome's built-in model it runs the AI search (it outlives the popup) and every open
//! popup shows its progress. The download of Chrome's model stays here: it needs the user's click.

use history_chat_bindings::on_device::{self, OnDevice};
use history_chat_bindings::{frame, log, nonce, now_ms, permissions, runtime, storage};
use history_chat_core::ai::provider::{Availability, Engine};
use history_chat_core::ask::Busy;
use history_chat_core::conversation::turn_key;
use history_chat_core::display::percent;
use history_chat_core::history::OpenTab;
use history_chat_core::origin::Origin;
use history_chat_core::period::Period;
use history_chat_core::settings::Settings;
use history_chat_core::site_filter;
use history_chat_core::t;
use std::collections::HashSet;

use leptos::ev::{KeyboardEvent, SubmitEvent};
use leptos::prelude::*;
use leptos::task::spawn_local;
use send_wrapper::SendWrapper;

use crate::ask;
use crate::conversation;
use crate::keyboard::{self, move_focus};
use crate::result_row::{keys_of, open_result};
use crate::state::{AlertMessage, LIVE_LIST_ID, Retry, State, live_option_id};

/// The whole popup.
#[component]
pub fn Popup() -> impl IntoView {
    let (alert, set_alert) = signal(None::<AlertMessage>);
    let state = State {
        settings: RwSignal::new(Settings::default()),
        period: RwSignal::new(Period::default()),
        question: RwSignal::new(String::new()),
        turns: RwSignal::new(Vec::new()),
        busy: RwSignal::new(false),
        status: RwSignal::new(String::new()),
        worker_ask: RwSignal::new(None),
        ask_known: RwSignal::new(false),
        asked_here: StoredValue::new(None),
        cancel_wanted: StoredValue::new(false),
        live: RwSignal::new(None),
        live_seq: StoredValue::new(0),
        availability: RwSignal::new(None),
        alert: set_alert,
        removed: RwSignal::new(HashSet::new()),
        highlight: RwSignal::new(None),
        search_box: NodeRef::new(),
        site_icons: RwSignal::new(None),
    };
    provide_context(state);
    let State {
        settings,
        period,
        question,
        busy,
        status,
        worker_ask,
        cancel_wanted,
        live,
        live_seq,
        availability,
        highlight,
        search_box,
        ..
    } = state;
    let device = StoredValue::new_local(OnDevice::new());
    let download = RwSignal::new(None::<f64>);
    let ai_engine = move || state.engine() != Engine::Local;
    on_cleanup(move || device.with_value(OnDevice::close));
    spawn_local(async move {
        match permissions::has_favicon().await {
            Ok(true) => state.site_icons.set(runtime::favicon_base()),
            Ok(false) => {}
            // Rows show the placeholder: nothing else depends on it.
            Err(error) => log::failure("checking the site-icon permission", &error),
        }
    });

    Effect::new(move |_| {
        if let Some(input) = search_box.get() {
            let _ = input.focus();
        }
    });
    spawn_local(async move { availability.set(Some(on_device::availability().await)) });
    spawn_local(async move {
        match storage::load_settings().await {
            Ok(loaded) => {
                period.set(loaded.default_period.offered(loaded.keep_forgotten));
                settings.set(loaded);
            }
            // The shell only shows the defaults (period, mode); nothing is written or deleted
            // from them, and the worker reads the settings itself for each question.
            Err(error) => {
                log::failure("reading the settings", &error);
                set_alert.set(AlertMessage::new(t!("popup_settings_unreadable")));
            }
        }
    });

    let submit = move |asked: String, period: Period| {
        if busy.get_untracked() {
            if let Some(ask) = worker_ask.get_untracked() {
                // One search at a time: say so rather than ignore the question.
                let busy = Busy {
                    question: ask.question,
                };
                set_alert.set(AlertMessage::new(busy.message()));
            }
            return;
        }
        // A committed question replaces the as-you-type matches.
        live_seq.update_value(|seq| *seq += 1);
        live.set(None);
        busy.set(true);
        cancel_wanted.set_value(false);
        set_alert.set(None);
        status.set(t!("popup_status_searching"));
        // Named here, so that what the worker sends of this search is known as this popup's.
        let key = turn_key(now_ms(), nonce());
        state.asked_here.set_value(Some(key.clone()));
        spawn_local(async move {
            // Read afresh for the mode shown: the first load may not have finished, and the
            // options page may have changed the key or depth since the popup opened. The worker
            // reads them itself to choose the engine.
            if let Ok(current) = storage::load_settings().await {
                settings.set(current);
            }
        });
        spawn_local(ask::ask(state, key, asked, period));
    };
    let on_submit = move |event: SubmitEvent| {
        event.prevent_default();
        submit(question.get_untracked(), period.get_untracked());
    };
    // "Retry" of an interrupted search: the same question and period, asked again.
    provide_context(Retry(Callback::new(
        move |(asked, again): (String, Period)| {
            question.set(asked.clone());
            period.set(again);
            submit(asked, again);
        },
    )));
    let cancel = move |_| {
        status.set(t!("popup_status_cancelling"));
        match worker_ask.get_untracked() {
            Some(ask) => spawn_local(ask::cancel(state, ask.key)),
            // Asked, but the worker has not said yet under which key it runs (it may still be
            // making Chrome's model ready): cancelled as soon as it does.
            None => cancel_wanted.set_value(true),
        }
    };

    let clear = move |_| {
        spawn_local(async move {
            match storage::clear_conversation().await {
                Ok(()) => {
                    state.turns.set(Vec::new());
                    status.set(t!("popup_status_cleared"));
                }
                Err(error) => set_alert.set(AlertMessage::new(t!("popup_clear_failed", error))),
            }
        });
    };
    // Search as you type (local mode): the index answers each keystroke; answers to older
    // keystrokes are dropped.
    let type_ahead = move || {
        let typed = question.get_untracked();
        highlight.set(None);
        live_seq.update_value(|seq| *seq += 1);
        let seq = live_seq.get_value();
        if typed.trim().is_empty() || busy.get_untracked() || untrack(ai_engine) {
            live.set(None);
            return;
        }
        spawn_local(ask::search_as_typed(
            state,
            typed,
            period.get_untracked(),
            seq,
        ));
    };
    // The question's `site:` terms, each a chip that takes it out of the question.
    let site_terms = Memo::new(move |_| question.with(|q| site_filter::parse(q)));
    let remove_site = move |index: usize| {
        question.update(|q| *q = site_filter::without_term(q, index));
        if let Some(input) = search_box.get_untracked() {
            let _ = input.focus();
        }
        type_ahead();
    };
    // Its source terms (`bookmark:`, `onglet:`), each a chip too.
    let remove_origin = move |index: usize| {
        question.update(|q| *q = site_filter::without_origin_term(q, index));
        if let Some(input) = search_box.get_untracked() {
            let _ = input.focus();
        }
        type_ahead();
    };

    let mode = move || {
        let depth = settings.with(|s| s.depth.label());
        match state.engine() {
            Engine::Local => t!("popup_mode_local"),
            Engine::Gemini => t!("popup_mode_gemini", depth),
            Engine::OnDevice => t!("popup_mode_on_device", depth),
        }
    };
    let device_note = move || state.device_note();
    let can_download = move || {
        matches!(
            availability.get(),
            Some(Availability::Downloadable | Availability::Downloading)
        ) && settings.with(|s| s.provider.may_use_device())
    };
    let start_download = move |_| {
        // Creating a session downloads the model; it must start inside this click. The session
        // is then closed: the worker, which runs the searches, makes its own.
        let model = device.get_value();
        download.set(Some(0.0));
        spawn_local(async move {
            let prepared = model
                .prepare(move |loaded| download.set(Some(loaded)))
                .await;
            model.close();
            match prepared {
                Ok(()) => availability.set(Some(Availability::Available)),
                Err(failure) => set_alert.set(AlertMessage::new(failure.download_message())),
            }
            download.set(None);
        });
    };

    view! {
        <main class="popup" on:keydown=move |event| move_focus(&event)>
            <header class="bar">
                <h1>{t!("ext_name")}</h1>
                <span
                    class="mode"
                    title=move || device_note().unwrap_or_else(|| t!("popup_mode_title"))
                >
                    {mode}
                </span>
                <button type="button" class="quiet" on:click=clear>{t!("popup_clear")}</button>
                <button type="button" class="quiet" on:click=move |_| open_options(set_alert)>{t!("popup_options")}</button>
            </header>
            <Show when=can_download>
                <p class="device-download">
                    {move || match (download.get(), availability.get()) {
                        (Some(loaded), _) => t!("popup_download_progress", percent(loaded)),
                        (None, Some(Availability::Downloading)) => t!("popup_download_by_chrome"),
                        (None, _) => t!("popup_download_offer"),
                    }}
                    " "
                    <Show when=move || download.get().is_none()>
                        <button type="button" class="link" on:click=start_download>
                            {t!("popup_download_button")}
                        </button>
                    </Show>
                </p>
            </Show>
            <form class="ask" role="search" on:submit=on_submit>
                <input
                    type="search"
                    node_ref=search_box
                    role="combobox"
                    aria-autocomplete="list"
                    aria-controls=LIVE_LIST_ID
                    aria-expanded=move || live.with(|live| live.as_ref().is_some_and(|live| !live.pages.is_empty())).to_string()
                    aria-activedescendant=move || {
                        let url = highlight.get()?;
                        live.with(|live| live.as_ref()?.pages.iter().position(|page| page.url == url)).map(live_option_id)
                    }
                    on:keydown=move |event| combobox_key(&event, state)
                    aria-label=t!("popup_search_label")
                    placeholder=t!("popup_search_placeholder")
                    autocomplete="off"
                    spellcheck="false"
                    maxlength="500"
                    prop:value=move || question.get()
                    on:input=move |event| {
                        question.set(event_target_value(&event));
                        type_ahead();
                    }
                />
                <select
                    aria-label=t!("popup_period_label")
                    on:change=move |event| {
                        period.set(Period::parse(&event_target_value(&event)).unwrap_or_default());
                        type_ahead();
                    }
                >
                    {move || Period::choices(settings.with(|s| s.keep_forgotten))
                        .iter()
                        .copied()
                        .map(|p| {
                            view! {
                                <option value=p.as_str() prop:selected=move || period.get() == p>
                                    {p.label()}
                                </option>
                            }
                        })
                        .collect_view()}
                </select>
            </form>
            <Show when=move || site_terms.with(|s| {
                !s.terms.is_empty() || !s.rejected.is_empty() || !s.origin_terms.is_empty()
            })>
                <div class="sites" role="group" aria-label=t!("popup_site_filters")>
                    {move || site_terms.with(|s| s.terms.iter().enumerate().map(|(index, term)| {
                        chip(term.label(), move || remove_site(index))
                    }).collect_view())}
                    {move || site_terms.with(|s| s.origin_terms.iter().enumerate().map(|(index, (_, origin))| {
                        let label = match origin {
                            Origin::History => t!("popup_only_history"),
                            Origin::Bookmark => t!("popup_only_bookmarks"),
                            Origin::Tab => t!("popup_only_tabs"),
                        };
                        chip(label, move || remove_origin(index))
                    }).collect_view())}
                    {move || site_terms.with(|s| s.rejected_notice()).map(|notice| view! {
                        <p class="notice site-notice">{notice}</p>
                    })}
                </div>
            </Show>
            // Each chunk is asked for once the shell is on screen. (`Suspend` wants a `Send`
            // future; the page has one thread, and the wait is a browser promise.)
            {Suspend::new(SendWrapper::new(async move {
                frame::painted().await;
                conversation::progress_lines().await
            }))}
            <div class="progress">
                <p class="status" role="status">{move || status.get()}</p>
                <Show when=move || busy.get() && ai_engine()>
                    <button type="button" class="quiet" on:click=cancel>{t!("popup_cancel")}</button>
                </Show>
            </div>
            <div class="alert" role="alert">
                {move || alert.get().map(|alert| view! {
                    <span>{alert.text}</span>
                    <Show when=move || alert.offer_options>
                        " "
                        <button type="button" class="link" on:click=move |_| open_options(set_alert)>{t!("popup_open_options")}</button>
                    </Show>
                })}
            </div>
            {Suspend::new(SendWrapper::new(async move {
                frame::painted().await;
                conversation::answers(state).await
            }))}
        </main>
    }
}

/// A term of the question (`site:`, a source term) as a chip: its label, and a click that takes
/// it out of the question.
fn chip(label: String, remove: impl Fn() + 'static) -> impl IntoView {
    view! {
        <button
            type="button"
            class="chip"
            aria-label=t!("popup_remove_filter", label)
            title=t!("popup_remove_filter", label)
            on:click=move |_| remove()
        >
            <span>{label.clone()}</span>
            <span class="chip-x" aria-hidden="true">"×"</span>
        </button>
    }
}

pub(crate) fn open_options(set_alert: WriteSignal<Option<AlertMessage>>) {
    spawn_local(async move {
        if let Err(error) = runtime::open_options_page().await {
            set_alert.set(AlertMessage::new(t!("popup_options_failed", error)));
        }
    });
}

/// The search box's keys over the as-you-type results (the combobox pattern): ArrowDown and
/// ArrowUp move the highlight (focus stays in the box; past the last result, ArrowDown goes on to
/// the conversation's), Escape drops it, and Enter opens the highlighted result where the held keys
/// say. Without a highlight, Enter submits the question and the arrows move focus as elsewhere.
fn combobox_key(event: &KeyboardEvent, state: State) {
    let State {
        live,
        highlight,
        alert,
        ..
    } = state;
    let shown: Vec<(String, Option<OpenTab>)> = live.with_untracked(|live| {
        live.as_ref()
            .map(|live| {
                (live.pages.iter())
                    .map(|page| (page.url.clone(), page.marks.tab))
                    .collect()
            })
            .unwrap_or_default()
    });
    let urls: Vec<String> = shown.iter().map(|(url, _)| url.clone()).collect();
    let at = highlight
        .get_untracked()
        .and_then(|url| urls.iter().position(|shown| *shown == url));
    let next = match (event.key().as_str(), at) {
        ("ArrowDown", None) if !urls.is_empty() => Some(0),
        ("ArrowDown", Some(at)) if at + 1 < urls.len() => Some(at + 1),
        ("ArrowDown", Some(_)) => {
            event.prevent_default();
            event.stop_propagation();
            if keyboard::focus_first_outside_live() {
                highlight.set(None);
            }
            return;
        }
        ("ArrowUp", Some(0)) | ("Escape", Some(_)) => {
            event.prevent_default();
            event.stop_propagation();
            highlight.set(None);
            return;
        }
        ("ArrowUp", Some(at)) => Some(at - 1),
        ("Enter", Some(at)) => {
            event.prevent_default();
            event.stop_propagation();
            if let Some((url, tab)) = shown.get(at) {
                open_result(url.clone(), *tab, keys_of(event), alert);
            }
            return;
        }
        _ => return,
    };
    event.prevent_default();
    event.stop_propagation();
    highlight.set(next.and_then(|at| urls.get(at).cloned()));
}
