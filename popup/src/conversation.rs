//! The conversation and the as-you-type results: the turns read from storage when the popup
//! opens, what the worker says over the `ask` port (its search running, an early answer, the
//! finished turn), the indexing and topic-search lines, and the views of turns and matches. All
//! of it is lazily loaded (`#[lazy]`, its own chunks): the popup's first module, the shell in
//! [`crate::popup`], is usable without it, and fetches it at once.

use std::cell::Cell;

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::ask_worker;
use history_chat_bindings::{log, now_ms, on_device, ports, storage};
use history_chat_core::ai::pipeline::Notice;
use history_chat_core::ai::provider::Engine;
use history_chat_core::ask::AskUpdate;
use history_chat_core::conversation::{StoredTurn, Turn, TurnError, TurnNote, key_time_ms};
use history_chat_core::history::{Page, RankedPage};
use history_chat_core::index::host::PROGRESS_REFRESH_MS;
use history_chat_core::messages::{IndexProgress, Request, Response};
use history_chat_core::rows;
use history_chat_core::semantic::SemanticProgress;
use history_chat_core::t;
use history_chat_core::wording::history::relative_time;
use history_chat_core::wording::rows::result_count;
use history_chat_core::wording::search::{no_match_yet, no_results_message, outcome_message};

use leptos::ev;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::result_row::ResultItem;
use crate::state::{AlertMessage, LIVE_LIST_ID, LiveAnswer, Retry, State};

/// Reads the stored conversation (expired turns dropped, excluded sites' pages left out, as the
/// settings say: read here too, so that this chunk need not wait for the shell's read) and shows it
/// after whatever this popup has asked meanwhile. Settings that could not be read prune nothing
/// (and the alert says so); with no excluded sites known either, the turns stay stored but unshown.
async fn load(state: State) {
    let settings = storage::load_settings().await;
    if let Err(error) = &settings {
        log::failure("reading the settings for the conversation", error);
    }
    match storage::load_conversation(now_ms(), settings).await {
        // A question asked before the log was read is newer than all of it: keep it first.
        Ok(shown) => {
            state.turns.update(|turns| {
                let older = shown
                    .loaded
                    .turns
                    .into_iter()
                    .filter(|stored| !turns.iter().any(|s| s.key == stored.key));
                turns.extend(older.collect::<Vec<_>>());
            });
            if shown.withheld > 0 {
                state
                    .alert
                    .set(AlertMessage::new(t!("popup_conversation_withheld")));
            } else if !shown.settings_read {
                state
                    .alert
                    .set(AlertMessage::new(t!("popup_settings_unreadable")));
            }
        }
        Err(error) => {
            let text = t!("popup_conversation_load_failed", error);
            state.alert.set(AlertMessage::new(text));
        }
    }
}

/// Shows a turn that has ended (its answer, or why it has none) in place of what was shown of it,
/// and says so in the status line and, for a failure, the alert.
pub(crate) fn finish_turn(state: State, stored: StoredTurn, save_failed: Option<String>) {
    let mut stored = stored;
    keep_in_place(state, &mut stored);
    // Pages removed from history while the search ran are neither shown nor stored.
    state
        .removed
        .with_untracked(|gone| stored.turn.drop_pages(gone));
    state
        .status
        .set(match (&stored.turn.error, stored.turn.ai.is_some()) {
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
        state.alert.set(Some(AlertMessage {
            text: error.message(stored.turn.mode),
            offer_options: problem,
        }));
    }
    if stored.turn.model_unavailable() {
        // Chrome's model failed mid-search: the chip and the download line say what it is now.
        refresh_availability(state);
    }
    if state.asked_here.get_value().as_deref() == Some(stored.key.as_str()) {
        state.question.set(String::new());
        state.asked_here.set_value(None);
    }
    state.turns.update(|turns| {
        // Replaces the early answer, if one was shown.
        turns.retain(|shown| shown.key != stored.key);
        turns.insert(0, stored);
    });
    if let Some(error) = save_failed {
        state
            .alert
            .set(AlertMessage::new(t!("popup_save_failed", error)));
    }
}

thread_local! {
    /// Where the pointer last moved in the popup (client coordinates; `None` once it left it). A
    /// pointer that does not move stays there while the page moves under it (the as-you-type list
    /// above the conversation shows and goes), so what is under it is read when it matters.
    static POINTER: Cell<Option<(f64, f64)>> = const { Cell::new(None) };
}

/// Whether the user is on the newest turn shown: the focus in it, or the pointer over it (where it
/// last moved over the conversation: the rows may have come under a pointer that did not move).
fn on_newest_turn() -> bool {
    let Some(document) = web_sys::window().and_then(|window| window.document()) else {
        return false;
    };
    let Ok(Some(newest)) = document.query_selector("section.conversation article.turn") else {
        return false;
    };
    if newest.matches(":focus-within").unwrap_or(false) {
        return true;
    }
    POINTER
        .get()
        .and_then(|(x, y)| document.element_from_point(x as f32, y as f32))
        .is_some_and(|under| newest.contains(Some(&under)))
}

/// A turn about to replace the early answer shown for it (the same key, the newest turn): when the
/// user is on that answer (the pointer over it, the focus in it), its rows stay where they are and
/// what the new one adds comes after them (`rows::kept_in_place`), so nothing moves under the
/// pointer as the browser's search or topic search joins in.
fn keep_in_place(state: State, stored: &mut StoredTurn) {
    let early = state.turns.with_untracked(|turns| {
        turns
            .first()
            .filter(|shown| shown.key == stored.key && !shown.turn.results.is_empty())
            .map(|shown| shown.turn.results.clone())
    });
    if let Some(shown) = early
        && on_newest_turn()
    {
        let answer = std::mem::take(&mut stored.turn.results);
        stored.turn.results = rows::kept_in_place(&shown, answer);
    }
}

/// Asks Chrome again what its built-in model is now, for the mode chip and the download line.
pub(crate) fn refresh_availability(state: State) {
    spawn_local(async move {
        state
            .availability
            .set(Some(on_device::availability().await))
    });
}

/// Follows the worker's AI search over the `ask` port for as long as the popup is open: which
/// search runs (whichever popup asked it), what this popup's local question found at once, and
/// each turn as it ends; a worker stopped mid-search leaves its turn interrupted.
async fn follow_worker(state: State) {
    let State {
        turns,
        busy,
        status,
        worker_ask,
        ask_known,
        asked_here,
        live,
        live_seq,
        removed,
        ..
    } = state;
    ports::follow_asks(
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
                    finish_turn(state, StoredTurn { key, turn }, save_failed);
                }
                // What this popup's local search found at once, while the browser's search fills in.
                AskUpdate::Early { key, turn } => {
                    if asked_here.get_value().as_deref() == Some(key.as_str()) {
                        let mut early = StoredTurn { key, turn };
                        keep_in_place(state, &mut early);
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
                finish_turn(state, StoredTurn { key: ask.key, turn }, None);
            }
        },
    )
    .await;
}

/// The lines on how far the worker's index and topic search have got, while they are being built
/// (followed from here until they are complete).
#[lazy]
pub(crate) fn progress_lines() -> AnyView {
    let indexing = RwSignal::new(None::<IndexProgress>);
    let note = RwSignal::new(None::<String>);
    spawn_local(follow_indexing(indexing, note));
    let understanding = RwSignal::new(None::<SemanticProgress>);
    spawn_local(follow_understanding(understanding));
    view! {
        {move || indexing.get().map(|progress| view! {
            <p class="indexing">{progress.status(now_ms())}</p>
        })}
        {move || note.get().map(|line| view! {
            <p class="indexing-note">{line}</p>
        })}
        {move || understanding.get().and_then(|progress| progress.popup_line()).map(|line| view! {
            <p class="understanding">{line}</p>
        })}
    }
    .into_any()
}

/// The as-you-type matches and the conversation (newest turn first), with the welcome hint while
/// it is empty: reads the stored conversation, and follows the worker's search for as long as the
/// popup is open.
#[lazy]
pub(crate) fn answers(state: State) -> AnyView {
    let State {
        turns,
        busy,
        worker_ask,
        ask_known,
        live,
        ..
    } = state;
    spawn_local(load(state));
    spawn_local(follow_worker(state));
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
    // Where the pointer is, for `on_newest_turn`; kept for the popup's life.
    let moved = window_event_listener(ev::pointermove, |event| {
        POINTER.set(Some((
            f64::from(event.client_x()),
            f64::from(event.client_y()),
        )));
    });
    let left = window_event_listener(ev::pointerout, |event| {
        if event.related_target().is_none() {
            POINTER.set(None);
        }
    });
    on_cleanup(move || {
        moved.remove();
        left.remove();
    });
    view! {
        <p class="visually-hidden" aria-live="polite" aria-atomic="true">
            {move || live.with(|live| match live {
                Some(live) if !live.filling => result_count(live.pages.len()),
                _ => String::new(),
            })}
        </p>
        {move || live.get().map(|answer| view! { <LiveView answer/> })}
        <section
            class="conversation"
            aria-label=t!("popup_conversation_label")
            aria-busy=move || busy.get().to_string()
        >
            <Show when=move || turns.with(Vec::is_empty) && !busy.get()>
                <p class="hint">{move || hint(state.engine())}</p>
                <p class="hint device">{move || state.device_note()}</p>
            </Show>
            <For each=shown_turns key=view_key children=|stored| view! { <TurnView turn=stored.turn/> }/>
        </section>
    }
    .into_any()
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

/// A turn's identity in the conversation's list: its key, and what can change once it is shown
/// (an early answer is replaced by the filled-in one under the same key: the browser's search or
/// topic search may add pages, or reorder them).
fn view_key(stored: &StoredTurn) -> (String, Vec<(String, u8)>, Option<String>) {
    // A row is drawn again when what it shows besides its address changes: an answer that found
    // the same pages again, now marked (a bookmark, an open tab) or with a passage.
    let shown = |page: &Page| {
        u8::from(page.marks.bookmark.is_some())
            | u8::from(page.marks.tab.is_some()) << 1
            | u8::from(page.marks.outside_history) << 2
            | u8::from(page.passage.is_some()) << 3
    };
    (
        stored.key.clone(),
        (stored.turn.results.iter())
            .map(|r| (r.page.url.clone(), shown(&r.page)))
            .collect(),
        stored.turn.note.as_ref().map(TurnNote::message),
    )
}

/// Asks the worker until its index is complete, so the popup can say how far indexing has got;
/// then says what the user should know of it (`note`): its last save refused for lack of room, or
/// the worker refusing to search (the excluded sites not known).
async fn follow_indexing(
    indexing: RwSignal<Option<IndexProgress>>,
    note: RwSignal<Option<String>>,
) {
    loop {
        let answer = ask_worker(&Request::Warm).await;
        let said = match &answer {
            Ok(Response::Ready {
                storage_full: true, ..
            }) => Some(t!("popup_index_storage_full")),
            Ok(Response::Failed { failure }) => Some(failure.sentence()),
            _ => None,
        };
        if note.try_set(said).is_some() {
            // The popup is gone.
            return;
        }
        match answer {
            Ok(Response::Indexing { progress }) => {
                if indexing.try_set(Some(progress)).is_some() {
                    return;
                }
            }
            // Ready, or a worker that cannot say: nothing to follow.
            Ok(_) => {
                let _ = indexing.try_set(None);
                return;
            }
            Err(error) => {
                log::failure("asking the worker how far its index has got", &error);
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
