//! The toolbar popup: search box, period, and the conversation (newest turn first). Without a
//! model it searches locally; with a Gemini key or Chrome's built-in model the service worker runs
//! the AI search (it outlives the popup) and every open popup shows its progress, with a cancel
//! button. The click-started download of Chrome's model stays here: it needs the user's click.

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::ask_worker;
use history_chat_bindings::on_device::{self, OnDevice};
use history_chat_bindings::{clipboard, nonce, now_ms, permissions, ports, runtime, storage, tabs};
use history_chat_core::ai::pipeline::Notice;
use history_chat_core::ai::provider::{Availability, Engine, choose};
use history_chat_core::archive;
use history_chat_core::ask::{AskUpdate, Busy, RunningAsk};
use history_chat_core::conversation::{
    StoredTurn, Turn, TurnError, TurnNote, key_time_ms, turn_key,
};
use history_chat_core::display::{
    FAVICON_SIZE, display_title, favicon_url, percent, readable_url, relative_time,
};
use history_chat_core::history::RankedPage;
use history_chat_core::index::host::PROGRESS_REFRESH_MS;
use history_chat_core::messages::{IndexProgress, Request, Response};
use history_chat_core::period::Period;
use history_chat_core::rows::{OpenKeys, open_disposition, removal_failed, result_count};
use history_chat_core::search::{no_match_yet, no_results_message, outcome_message};
use history_chat_core::semantic::SemanticProgress;
use history_chat_core::settings::Settings;
use history_chat_core::site_filter;
use history_chat_core::t;
use std::collections::HashSet;

use leptos::ev::{KeyboardEvent, MouseEvent, SubmitEvent};
use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::ask::{self, Asked, LiveAnswer, live_search};
use crate::keyboard::{self, move_focus};

/// How long "Copy link" says "Copied".
const COPIED_MS: u32 = 1_500;

/// The id of the as-you-type results' listbox (the search box's `aria-controls`).
const LIVE_LIST_ID: &str = "live-results";

/// The id of the `index`-th as-you-type result (the search box's `aria-activedescendant`).
fn live_option_id(index: usize) -> String {
    format!("live-option-{index}")
}

/// A failure the user must see (the `role="alert"` line), with a way to the options page when the
/// fix is there.
#[derive(Debug, Clone, PartialEq)]
struct AlertMessage {
    text: String,
    offer_options: bool,
}

impl AlertMessage {
    fn new(text: String) -> Option<AlertMessage> {
        Some(AlertMessage {
            text,
            offer_options: false,
        })
    }
}

/// Where components report such failures.
#[derive(Clone, Copy)]
struct Alert(WriteSignal<Option<AlertMessage>>);

/// What a result row changes when its page is removed from history, and the as-you-type
/// highlight it shows.
#[derive(Clone, Copy)]
struct Rows {
    /// Pages removed from history since the popup opened (cleaned URLs): never shown again, even
    /// by a search that was running when they were removed.
    removed: RwSignal<HashSet<String>>,
    turns: RwSignal<Vec<StoredTurn>>,
    live: RwSignal<Option<LiveAnswer>>,
    status: RwSignal<String>,
    /// The highlighted as-you-type result (its URL), while the search box has the arrows.
    highlight: RwSignal<Option<String>>,
    search_box: NodeRef<Input>,
}

/// "Retry" of an interrupted search: asks the question again in its period.
#[derive(Clone, Copy)]
struct Retry(Callback<(String, Period)>);

/// Where site icons come from (`chrome-extension://<id>/_favicon/`), once the optional `favicon`
/// permission is known to be granted; `None`: rows show the placeholder.
#[derive(Clone, Copy)]
struct SiteIcons(RwSignal<Option<String>>);

/// The whole popup.
#[component]
pub fn Popup() -> impl IntoView {
    let settings = RwSignal::new(Settings::default());
    let period = RwSignal::new(Period::default());
    let question = RwSignal::new(String::new());
    let turns = RwSignal::new(Vec::<StoredTurn>::new());
    let busy = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    // The AI search the worker runs (whichever popup asked), and whether the worker said yet.
    let worker_ask = RwSignal::new(None::<RunningAsk>);
    let ask_known = RwSignal::new(false);
    // The key of the worker's search this popup asked, so its question box is cleared when done.
    let asked_here = StoredValue::new(None::<String>);
    // Cancel was clicked before the worker said which search it runs: sent once it says.
    let cancel_wanted = StoredValue::new(false);
    let live = RwSignal::new(None::<LiveAnswer>);
    let live_seq = StoredValue::new(0_u64);
    let availability = RwSignal::new(None::<Availability>);
    let device = StoredValue::new_local(OnDevice::new());
    let download = RwSignal::new(None::<f64>);
    let choice = move || {
        let availability = availability.get().unwrap_or_default();
        settings.with(|s| choose(s.provider, s.has_api_key(), availability))
    };
    let ai_engine = move || choice().engine != Engine::Local;
    on_cleanup(move || device.with_value(OnDevice::close));
    let (alert, set_alert) = signal(None::<AlertMessage>);
    provide_context(Alert(set_alert));
    let site_icons = RwSignal::new(None::<String>);
    provide_context(SiteIcons(site_icons));
    spawn_local(async move {
        if let Ok(true) = permissions::has_favicon().await {
            site_icons.set(runtime::favicon_base());
        }
    });
    let search_box = NodeRef::<Input>::new();
    let removed = RwSignal::new(HashSet::<String>::new());
    let highlight = RwSignal::new(None::<String>);
    provide_context(Rows {
        removed,
        turns,
        live,
        status,
        highlight,
        search_box,
    });

    Effect::new(move |_| {
        if let Some(input) = search_box.get() {
            let _ = input.focus();
        }
    });
    spawn_local(async move { availability.set(Some(on_device::availability().await)) });
    // The index lives in the service worker: have it loaded by the time the user types, and say
    // how far its first build has got until it is complete.
    let indexing = RwSignal::new(None::<IndexProgress>);
    spawn_local(follow_indexing(indexing));
    let understanding = RwSignal::new(None::<SemanticProgress>);
    spawn_local(follow_understanding(understanding));
    let finish_turn = move |stored: StoredTurn, save_failed: Option<String>| {
        let mut stored = stored;
        // Pages removed from history while the search ran are neither shown nor stored.
        removed.with_untracked(|gone| stored.turn.drop_pages(gone));
        status.set(match (&stored.turn.error, stored.turn.ai.is_some()) {
            (Some(_), false) => String::new(),
            _ => outcome_message(
                &stored.turn.question,
                stored.turn.period,
                stored.turn.results.len(),
            ),
        });
        let problem = stored.turn.mode == Engine::Gemini
            && stored
                .turn
                .error
                .as_ref()
                .is_some_and(TurnError::is_settings_problem);
        if let Some(error) = &stored.turn.error {
            set_alert.set(Some(AlertMessage {
                text: error.message(stored.turn.mode),
                offer_options: problem,
            }));
        }
        if stored.turn.model_unavailable() {
            // Chrome's model failed mid-search: the chip and the download line say what it is now.
            spawn_local(async move { availability.set(Some(on_device::availability().await)) });
        }
        if asked_here.get_value().as_deref() == Some(stored.key.as_str()) {
            question.set(String::new());
            asked_here.set_value(None);
        }
        turns.update(|turns| {
            // Replaces the early answer, if one was shown.
            turns.retain(|shown| shown.key != stored.key);
            turns.insert(0, stored);
        });
        if let Some(error) = save_failed {
            set_alert.set(AlertMessage::new(t!("popup_save_failed", error)));
        }
    };
    spawn_local(ports::follow_asks(
        move |update| {
            ask_known.set(true);
            match update {
                AskUpdate::Running(ask) => {
                    live_seq.update_value(|seq| *seq += 1);
                    live.set(None);
                    busy.set(true);
                    status.set(ask.status());
                    worker_ask.set(Some(ask));
                }
                AskUpdate::Finished {
                    key,
                    turn,
                    save_failed,
                } => {
                    worker_ask.set(None);
                    busy.set(false);
                    finish_turn(StoredTurn { key, turn }, save_failed);
                }
                // What this popup's local search found at once, while the browser's search fills in.
                AskUpdate::Early { key, turn } => {
                    if asked_here.get_value().as_deref() == Some(key.as_str()) {
                        let mut early = StoredTurn { key, turn };
                        removed.with_untracked(|gone| early.turn.drop_pages(gone));
                        status.set(t!("popup_status_searching_further"));
                        turns.update(|turns| {
                            turns.retain(|shown| shown.key != early.key);
                            turns.insert(0, early);
                        });
                    }
                }
                AskUpdate::Idle => {
                    if worker_ask.get_untracked().is_some() {
                        worker_ask.set(None);
                        busy.set(false);
                    }
                }
            }
        },
        move || {
            // The browser stopped the worker mid-search: the search is gone; its turn says so
            // (the next worker marks the stored one the same way).
            if let Some(ask) = worker_ask.get_untracked() {
                worker_ask.set(None);
                busy.set(false);
                let at_ms = key_time_ms(&ask.key).unwrap_or_else(now_ms);
                let turn =
                    Turn::started(at_ms, &ask.question, ask.period, ask.engine).interrupted();
                finish_turn(StoredTurn { key: ask.key, turn }, None);
            }
        },
    ));
    spawn_local(async move {
        let loaded = storage::load_settings().await.unwrap_or_default();
        period.set(loaded.default_period.offered(loaded.keep_forgotten));
        match storage::load_conversation(now_ms(), &loaded).await {
            // A question asked before the log was read is newer than all of it: keep it first.
            Ok(conversation) => turns.update(|shown| {
                let older = conversation
                    .turns
                    .into_iter()
                    .filter(|stored| !shown.iter().any(|s| s.key == stored.key));
                shown.extend(older.collect::<Vec<_>>());
            }),
            Err(error) => {
                let text = t!("popup_conversation_load_failed", error);
                set_alert.set(AlertMessage::new(text));
            }
        }
        settings.set(loaded);
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
        asked_here.set_value(Some(key.clone()));
        spawn_local(async move {
            // Read afresh for the mode shown: the first load may not have finished, and the
            // options page may have changed the key or depth since the popup opened. The worker
            // reads them itself to choose the engine.
            if let Ok(current) = storage::load_settings().await {
                settings.set(current);
            }
        });
        spawn_local(async move {
            match ask::ask(key, asked, period).await {
                Asked::Answered(stored, save_failed) => {
                    if stored.turn.mode == Engine::Local
                        && stored.turn.note.is_some()
                        && settings.with_untracked(|s| s.provider.may_use_device())
                    {
                        // Not the model the user chose: the chip and the download line say what
                        // Chrome's model is now.
                        spawn_local(async move {
                            availability.set(Some(on_device::availability().await))
                        });
                    }
                    busy.set(false);
                    finish_turn(*stored, save_failed);
                }
                // The worker runs it; how it goes and its answer come over the `ask` port.
                Asked::InWorker(key) => {
                    if std::mem::take(&mut *cancel_wanted.write_value()) {
                        cancel_in_worker(key.clone(), set_alert);
                    }
                    // Its answer may already have come (a worker faster than this reply).
                    match turns.with_untracked(|shown| shown.iter().any(|s| s.key == key)) {
                        true => question.set(String::new()),
                        false => asked_here.set_value(Some(key)),
                    }
                }
                Asked::Refused(refused) => {
                    asked_here.set_value(None);
                    set_alert.set(AlertMessage::new(refused.message()));
                    status.set(String::new());
                    busy.set(worker_ask.get_untracked().is_some());
                }
                Asked::Failed(error) => {
                    asked_here.set_value(None);
                    set_alert.set(AlertMessage::new(t!("popup_ask_failed", error)));
                    status.set(String::new());
                    busy.set(false);
                }
            }
        });
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
            Some(ask) => cancel_in_worker(ask.key, set_alert),
            // Asked, but the worker has not said yet under which key it runs (it may still be
            // making Chrome's model ready): cancelled as soon as it does.
            None => cancel_wanted.set_value(true),
        }
    };

    let clear = move |_| {
        spawn_local(async move {
            match storage::clear_conversation().await {
                Ok(()) => {
                    turns.set(Vec::new());
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
        let period = period.get_untracked();
        spawn_local(async move {
            let current = move || live_seq.try_get_value() == Some(seq);
            let show = move |mut answer: LiveAnswer| {
                removed
                    .with_untracked(|gone| answer.pages.retain(|page| !gone.contains(&page.url)));
                live.set(Some(answer));
            };
            live_search(typed, period, current, show).await;
        });
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

    let mode = move || {
        let depth = settings.with(|s| s.depth.label());
        match choice().engine {
            Engine::Local => t!("popup_mode_local"),
            Engine::Gemini => t!("popup_mode_gemini", depth),
            Engine::OnDevice => t!("popup_mode_on_device", depth),
        }
    };
    let wants_device = move || settings.with(|s| s.provider.may_use_device());
    // Why on-device AI is not answering, when the user would want it to (one line).
    let device_note = move || {
        let known = availability.get()?;
        wants_device().then(|| known.reason()).flatten()
    };
    let can_download = move || {
        matches!(
            availability.get(),
            Some(Availability::Downloadable | Availability::Downloading)
        ) && wants_device()
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

    // A turn stored as running is the worker's search: shown by the status line while it runs
    // (and hidden until the worker has said), as interrupted once the worker says it is not.
    let shown_turns = move || {
        let live_key = worker_ask.with(|ask| ask.as_ref().map(|ask| ask.key.clone()));
        let known = ask_known.get();
        turns.with(|turns| {
            turns
                .iter()
                .filter(|stored| {
                    !stored.turn.running
                        || (known && live_key.as_deref() != Some(stored.key.as_str()))
                })
                .map(|stored| StoredTurn {
                    key: stored.key.clone(),
                    turn: stored.turn.clone().interrupted(),
                })
                .collect::<Vec<_>>()
        })
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
                    on:keydown=move |event| combobox_key(&event, live, highlight, set_alert)
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
            <Show when=move || site_terms.with(|s| !s.terms.is_empty() || !s.rejected.is_empty())>
                <div class="sites" role="group" aria-label=t!("popup_site_filters")>
                    {move || site_terms.with(|s| s.terms.iter().enumerate().map(|(index, term)| {
                        let label = term.label();
                        view! {
                            <button
                                type="button"
                                class="chip"
                                aria-label=t!("popup_remove_filter", label)
                                title=t!("popup_remove_filter", label)
                                on:click=move |_| remove_site(index)
                            >
                                <span>{label.clone()}</span>
                                <span class="chip-x" aria-hidden="true">"×"</span>
                            </button>
                        }
                    }).collect_view())}
                    {move || site_terms.with(|s| s.rejected_notice()).map(|notice| view! {
                        <p class="notice site-notice">{notice}</p>
                    })}
                </div>
            </Show>
            {move || indexing.get().map(|progress| view! {
                <p class="indexing">{progress.status(now_ms())}</p>
            })}
            {move || understanding.get().and_then(|progress| progress.popup_line()).map(|line| view! {
                <p class="understanding">{line}</p>
            })}
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
            <p class="visually-hidden" aria-live="polite" aria-atomic="true">
                {move || live.with(|live| match live {
                    Some(live) if !live.filling => result_count(live.pages.len()),
                    _ => String::new(),
                })}
            </p>
            {move || live.get().map(|answer| view! { <LiveView answer/> })}
            <section class="conversation" aria-label=t!("popup_conversation_label") aria-busy=move || busy.get().to_string()>
                <Show when=move || turns.with(Vec::is_empty) && !busy.get()>
                    <p class="hint">{move || hint(choice().engine)}</p>
                    <p class="hint device">{device_note}</p>
                </Show>
                <For each=shown_turns key=view_key children=|stored| view! { <TurnView turn=stored.turn/> }/>
            </section>
        </main>
    }
}

/// The welcome paragraph shown while the conversation is empty: how to ask, and what leaves the
/// device with `engine`.
fn hint(engine: Engine) -> String {
    match engine {
        Engine::OnDevice => t!("popup_hint_on_device"),
        Engine::Gemini => t!("popup_hint_gemini"),
        Engine::Local => t!("popup_hint_local"),
    }
}

fn open_options(set_alert: WriteSignal<Option<AlertMessage>>) {
    spawn_local(async move {
        if let Err(error) = runtime::open_options_page().await {
            set_alert.set(AlertMessage::new(t!("popup_options_failed", error)));
        }
    });
}

/// A turn's identity in the conversation's list: its key, and what can change once it is shown
/// (an early answer is replaced by the filled-in one under the same key: the browser's search or
/// topic search may add pages, or reorder them).
fn view_key(stored: &StoredTurn) -> (String, Vec<String>, Option<String>) {
    (
        stored.key.clone(),
        stored
            .turn
            .results
            .iter()
            .map(|r| r.page.url.clone())
            .collect(),
        stored.turn.note.as_ref().map(TurnNote::message),
    )
}

/// Asks the worker until its index is complete, so the popup can say how far indexing has got.
async fn follow_indexing(indexing: RwSignal<Option<IndexProgress>>) {
    loop {
        match ask_worker(&Request::Warm).await {
            Ok(Response::Indexing { progress }) => {
                if indexing.try_set(Some(progress)).is_some() {
                    // The popup is gone.
                    return;
                }
            }
            // Ready, or a worker that cannot say: nothing to follow.
            _ => {
                let _ = indexing.try_set(None);
                return;
            }
        }
        http::sleep(PROGRESS_REFRESH_MS, &Cancel::new()).await;
    }
}

/// Asks the worker how far topic search has got while it is still moving, for the popup's quiet
/// line (nothing once it is ready or off).
async fn follow_understanding(understanding: RwSignal<Option<SemanticProgress>>) {
    loop {
        let progress = match ask_worker(&Request::SemanticState).await {
            Ok(Response::Semantic { progress }) => progress,
            _ => return,
        };
        if understanding.try_set(Some(progress)).is_some() || !progress.is_moving() {
            return;
        }
        http::sleep(PROGRESS_REFRESH_MS, &Cancel::new()).await;
    }
}

/// The matches for what is being typed.
#[component]
fn LiveView(answer: LiveAnswer) -> impl IntoView {
    let now = now_ms();
    let empty = answer.pages.is_empty() && !answer.filling;
    let notice = answer.indexing.map(|progress| match answer.filling {
        true => progress.filling_in(),
        false => progress.notice(),
    });
    view! {
        <section class="live" aria-label=t!("popup_live_label")>
            {notice.map(|notice| view! { <p class="notice">{notice}</p> })}
            <Show when=move || empty>
                <p class="notice">{no_match_yet(&answer.typed)}</p>
            </Show>
            <ul role="listbox" id=LIVE_LIST_ID class="results" aria-label=t!("popup_live_list_label")>
                {answer.pages.into_iter().enumerate().map(|(index, page)| view! {
                    <ResultItem result=RankedPage::from(page) now option=Some(index)/>
                }).collect_view()}
            </ul>
        </section>
    }
}

/// One question and its answer.
#[component]
fn TurnView(turn: Turn) -> impl IntoView {
    let now = now_ms();
    let asked = if turn.question.is_empty() {
        t!("popup_recent_pages")
    } else {
        turn.question.clone()
    };
    let engine = match &turn.ai {
        Some(ai) => {
            let (mode, depth) = (turn.mode.label(), ai.depth.label());
            t!("popup_turn_engine_depth", mode, depth)
        }
        None => turn.mode.label().to_string(),
    };
    let asked_when = relative_time(now, turn.at_ms);
    let meta = t!("popup_turn_meta", engine, turn.period.label(), asked_when);
    let notices = turn
        .ai
        .as_ref()
        .map(|ai| ai.notices.iter().map(Notice::message).collect::<Vec<_>>())
        .unwrap_or_default();
    let keywords = turn
        .ai
        .as_ref()
        .map(|ai| ai.keywords.clone())
        .unwrap_or_default();
    let error = turn
        .error
        .as_ref()
        .map(|error| view! { <p class="notice error">{error.message(turn.mode)}</p> });
    let retry = turn.was_interrupted().then(|| {
        let Retry(retry) = expect_context::<Retry>();
        let again = (turn.question.clone(), turn.period);
        view! {
            <button type="button" class="link" on:click=move |_| retry.run(again.clone())>
                {t!("popup_retry")}
            </button>
        }
    });
    let note = turn
        .note
        .as_ref()
        .map(|note| view! { <p class="notice">{note.message()}</p> });
    let answer = match (turn.results.is_empty(), &turn.error, &turn.ai) {
        (false, _, _) => view! {
            <ul role="list" class="results">
                {turn.results.into_iter().map(|result| view! { <ResultItem result now option=None/> }).collect_view()}
            </ul>
        }
        .into_any(),
        // A local failure already says what happened; an AI turn's notices say why it is empty.
        (true, Some(_), _) | (true, None, Some(_)) => ().into_any(),
        (true, None, None) => {
            view! { <p class="notice">{no_results_message(&turn.question, turn.period)}</p> }.into_any()
        }
    };
    view! {
        <article class="turn">
            <p class="question">{asked}</p>
            <p class="meta">{meta}</p>
            {error}
            {retry}
            {note}
            {notices.into_iter().map(|notice| view! { <p class="notice">{notice}</p> }).collect_view()}
            {answer}
            <Show when={
                let empty = keywords.is_empty();
                move || !empty
            }>
                <details class="keywords">
                    <summary>{t!("popup_keywords_searched", keywords.len())}</summary>
                    <p>{keywords.join(", ")}</p>
                </details>
            </Show>
        </article>
    }
}

/// One page of an answer: a single link (title, readable URL, last visit) that opens it (Enter or
/// a click: a new tab; Ctrl/⌘ or the middle button: behind; Shift: the current tab), the model's
/// reason when there is one, and the row's actions: "Copy link" and "Remove from history" (which
/// asks first: its "Remove" is a separate button that focus never lands on by itself). `option`:
/// its place among the as-you-type results (a listbox option), `None` in the conversation.
#[component]
fn ResultItem(result: RankedPage, now: i64, option: Option<usize>) -> impl IntoView {
    let Alert(set_alert) = expect_context::<Alert>();
    let rows = expect_context::<Rows>();
    let page = result.page;
    let title = display_title(&page.title, &page.url);
    let readable = readable_url(&page.url);
    let when = relative_time(now, page.last_visit_ms);
    let visited = match archive::past_chrome(page.last_visit_ms, now) {
        false => t!("popup_visited", when),
        true => t!("popup_visited_kept", when, archive::kept_note()),
    };
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
        open_result(url.get_value(), keys, set_alert);
    };
    let on_auxclick = move |event: MouseEvent| {
        if event.button() == 1 {
            event.prevent_default();
            let keys = OpenKeys {
                middle: true,
                ..OpenKeys::default()
            };
            open_result(url.get_value(), keys, set_alert);
        }
    };
    let on_link_key = move |event: KeyboardEvent| {
        if event.key() == "Enter" {
            // The browser's own activation would not say which keys were held.
            event.prevent_default();
            open_result(url.get_value(), keys_of(&event), set_alert);
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
            match remove_from_history(rows, set_alert, url, title).await {
                // The row is gone with its page; the search box takes the focus back.
                Ok(()) => {
                    if let Some(input) = rows.search_box.get_untracked() {
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
    let page_url = page.url.clone();
    let selected = move || {
        option.is_some()
            && rows
                .highlight
                .with(|shown| shown.as_deref() == Some(page_url.as_str()))
    };
    // The site's icon from Chrome's local favicon cache (decorative: `alt=""`), or the
    // placeholder without the permission or when the image does not load.
    let icons = use_context::<SiteIcons>().map(|SiteIcons(icons)| icons);
    let icon_failed = RwSignal::new(false);
    let icon_page = page.url.clone();
    let icon = move || {
        let src = icons
            .and_then(|icons| icons.get())
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
            </a>
            {reason}
            <Show
                when=move || confirming.get()
                fallback=move || view! {
                    <div class="row-actions">
                        <button type="button" class="quiet" on:click=copy>
                            {move || if copied.get() { t!("popup_copied") } else { t!("popup_copy_link") }}
                        </button>
                        <button type="button" class="quiet" node_ref=ask_button on:click=ask>
                            {t!("popup_remove")}
                        </button>
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
fn keys_of(event: &KeyboardEvent) -> OpenKeys {
    OpenKeys {
        shift: event.shift_key(),
        ctrl: event.ctrl_key(),
        meta: event.meta_key(),
        middle: false,
    }
}

/// Opens a result where `keys` say ([`open_disposition`]); a failure is an alert.
fn open_result(url: String, keys: OpenKeys, set_alert: WriteSignal<Option<AlertMessage>>) {
    spawn_local(async move {
        if let Err(error) = tabs::open_from_popup(&url, open_disposition(keys)).await {
            set_alert.set(AlertMessage::new(t!("popup_open_failed", error)));
        }
    });
}

/// The search box's keys over the as-you-type results (the combobox pattern): ArrowDown and
/// ArrowUp move the highlight (focus stays in the box; past the last result, ArrowDown goes on to
/// the conversation's), Escape drops it, and Enter opens the highlighted result where the held keys
/// say. Without a highlight, Enter submits the question and the arrows move focus as elsewhere.
fn combobox_key(
    event: &KeyboardEvent,
    live: RwSignal<Option<LiveAnswer>>,
    highlight: RwSignal<Option<String>>,
    set_alert: WriteSignal<Option<AlertMessage>>,
) {
    let urls: Vec<String> = live.with_untracked(|live| {
        live.as_ref()
            .map(|live| live.pages.iter().map(|page| page.url.clone()).collect())
            .unwrap_or_default()
    });
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
            if let Some(url) = urls.get(at) {
                open_result(url.clone(), keys_of(event), set_alert);
            }
            return;
        }
        _ => return,
    };
    event.prevent_default();
    event.stop_propagation();
    highlight.set(next.and_then(|at| urls.get(at).cloned()));
}

/// Has the worker cancel its search `key` ([`Request::CancelAsk`]); the turn then ends as
/// cancelled, over the `ask` port.
fn cancel_in_worker(key: String, set_alert: WriteSignal<Option<AlertMessage>>) {
    spawn_local(async move {
        let request = Request::CancelAsk { key: Some(key) };
        if let Err(error) = ask_worker::<Response>(&request).await {
            set_alert.set(AlertMessage::new(t!("popup_ask_failed", error)));
        }
    });
}

/// Removes a page from the browser's history (every raw entry merged into it), from the local
/// index and topic search, and from the stored conversation: the worker does it all
/// ([`Request::Remove`]), so a popup closed meanwhile leaves nothing half done. Then the answers
/// shown drop it. `Err`: the browser kept it — the message for the alert; nothing else changed.
async fn remove_from_history(
    rows: Rows,
    set_alert: WriteSignal<Option<AlertMessage>>,
    url: String,
    title: String,
) -> Result<(), String> {
    let request = Request::Remove { url: url.clone() };
    let (removal, conversation_error) = match ask_worker(&request).await {
        Ok(Response::Removed {
            removal,
            conversation_error,
        }) => (removal, conversation_error),
        Ok(Response::Failed { message }) => return Err(message),
        // Not an answer to `Remove` (a worker of another version): nothing is known to be done.
        Ok(_) => return Err(removal_failed("unexpected reply")),
        Err(error) => return Err(removal_failed(&error.to_string())),
    };
    let _ = rows
        .removed
        .try_update(|removed| removed.insert(url.clone()));
    let _ = rows.live.try_update(|live| {
        if let Some(live) = live {
            live.pages.retain(|page| page.url != url);
        }
    });
    let gone = HashSet::from([url]);
    let _ = rows.turns.try_update(|turns| {
        for stored in turns.iter_mut() {
            stored.turn.drop_pages(&gone);
        }
    });
    let _ = rows.status.try_set(removal.message(&title));
    if let Some(error) = conversation_error {
        let _ = set_alert.try_set(AlertMessage::new(t!(
            "popup_removed_conversation_not_updated",
            error
        )));
    }
    Ok(())
}
