//! The toolbar popup: search box, period, and the conversation (newest turn first).

use history_chat_bindings::history::ChromeHistory;
use history_chat_bindings::{ChromeError, nonce, now_ms, runtime, storage, tabs};
use history_chat_core::conversation::{Mode, StoredTurn, Turn, turn_key};
use history_chat_core::display::{display_title, readable_url, relative_time};
use history_chat_core::history::Page;
use history_chat_core::period::Period;
use history_chat_core::search::{local_search, no_results_message, outcome_message};
use leptos::ev::SubmitEvent;
use leptos::html::Input;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::keyboard::move_focus;

/// Where components report a failure the user must see (the `role="alert"` line).
#[derive(Clone, Copy)]
struct Alert(WriteSignal<Option<String>>);

/// The whole popup.
#[component]
pub fn Popup() -> impl IntoView {
    let period = RwSignal::new(Period::default());
    let question = RwSignal::new(String::new());
    let turns = RwSignal::new(Vec::<StoredTurn>::new());
    let busy = RwSignal::new(false);
    let status = RwSignal::new(String::new());
    let (alert, set_alert) = signal(None::<String>);
    provide_context(Alert(set_alert));
    let search_box = NodeRef::<Input>::new();

    Effect::new(move |_| {
        if let Some(input) = search_box.get() {
            let _ = input.focus();
        }
    });
    spawn_local(async move {
        match load(now_ms()).await {
            Ok((default_period, loaded)) => {
                period.set(default_period);
                turns.set(loaded);
            }
            Err(error) => set_alert.set(Some(format!(
                "Your conversation could not be loaded ({error}). Searching still works; close and reopen the popup to try again."
            ))),
        }
    });

    let on_submit = move |event: SubmitEvent| {
        event.prevent_default();
        if busy.get_untracked() {
            return;
        }
        let asked = question.get_untracked();
        let period = period.get_untracked();
        busy.set(true);
        set_alert.set(None);
        status.set("Searching your history…".to_owned());
        spawn_local(async move {
            let stored = ask(asked, period).await;
            status.set(match &stored.turn.error {
                Some(_) => String::new(),
                None => outcome_message(&stored.turn.question, period, stored.turn.results.len()),
            });
            if let Some(error) = &stored.turn.error {
                set_alert.set(Some(error.clone()));
            }
            let saved = storage::save_turn(&stored.key, &stored.turn).await;
            turns.update(|turns| turns.insert(0, stored));
            question.set(String::new());
            busy.set(false);
            if let Err(error) = saved {
                set_alert.set(Some(format!(
                    "This answer is shown but could not be saved ({error}); it will be gone when the popup closes."
                )));
            }
        });
    };

    let clear = move |_| {
        spawn_local(async move {
            match storage::clear_conversation().await {
                Ok(()) => {
                    turns.set(Vec::new());
                    status.set("Conversation cleared".to_owned());
                }
                Err(error) => set_alert.set(Some(format!(
                    "The conversation could not be cleared ({error}). Try again."
                ))),
            }
        });
    };
    let open_options = move |_| {
        spawn_local(async move {
            if let Err(error) = runtime::open_options_page().await {
                set_alert.set(Some(format!(
                    "The options page could not be opened ({error})."
                )));
            }
        });
    };

    view! {
        <main class="popup" on:keydown=move |event| move_focus(&event)>
            <header class="bar">
                <h1>"History Chat"</h1>
                <button type="button" class="quiet" on:click=clear>"Clear conversation"</button>
                <button type="button" class="quiet" on:click=open_options>"Options"</button>
            </header>
            <form class="ask" role="search" on:submit=on_submit>
                <input
                    type="search"
                    node_ref=search_box
                    aria-label="Search your history"
                    placeholder="What do you remember about the page?"
                    autocomplete="off"
                    spellcheck="false"
                    maxlength="500"
                    prop:value=move || question.get()
                    on:input=move |event| question.set(event_target_value(&event))
                />
                <select
                    aria-label="Period"
                    on:change=move |event| period.set(Period::parse(&event_target_value(&event)).unwrap_or_default())
                >
                    {Period::ALL
                        .into_iter()
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
            <p class="status" role="status">{move || status.get()}</p>
            <p class="alert" role="alert">{move || alert.get()}</p>
            <section class="conversation" aria-label="Conversation" aria-busy=move || busy.get().to_string()>
                <Show when=move || turns.with(Vec::is_empty) && !busy.get()>
                    <p class="hint">
                        "Type words you remember from a page's title or address, pick a period, press Enter. "
                        "Your history is searched on this device; nothing leaves it."
                    </p>
                </Show>
                <For each=move || turns.get() key=|stored| stored.key.clone() children=|stored| view! { <TurnView turn=stored.turn/> }/>
            </section>
        </main>
    }
}

/// Reads the settings and the conversation (applying retention). Settings that cannot be read
/// give the defaults: the popup must open whatever is stored.
async fn load(now: i64) -> Result<(Period, Vec<StoredTurn>), ChromeError> {
    let settings = storage::load_settings().await.unwrap_or_default();
    let loaded = storage::load_conversation(now, &settings).await?;
    Ok((settings.default_period, loaded.turns))
}

/// Runs one local search and makes it a turn; a failure becomes the turn's error, with what to do.
async fn ask(question: String, period: Period) -> StoredTurn {
    let at_ms = now_ms();
    let (results, error) = match local_search(&ChromeHistory, &question, period, at_ms).await {
        Ok(results) => (results, None),
        Err(error) => (
            Vec::new(),
            Some(format!(
                "Your history could not be searched ({error}). Try again in a moment."
            )),
        ),
    };
    StoredTurn {
        key: turn_key(at_ms, nonce()),
        turn: Turn {
            at_ms,
            question: question.trim().to_owned(),
            period,
            mode: Mode::Local,
            results,
            error,
        },
    }
}

/// One question and its answer.
#[component]
fn TurnView(turn: Turn) -> impl IntoView {
    let now = now_ms();
    let asked = if turn.question.is_empty() {
        "Recent pages".to_owned()
    } else {
        turn.question.clone()
    };
    let meta = format!(
        "{} · asked {}",
        turn.period.label(),
        relative_time(now, turn.at_ms)
    );
    let answer = match (&turn.error, turn.results.is_empty()) {
        (Some(error), _) => view! { <p class="notice error">{error.clone()}</p> }.into_any(),
        (None, true) => view! { <p class="notice">{no_results_message(&turn.question, turn.period)}</p> }.into_any(),
        (None, false) => view! {
            <ul role="list" class="results">
                {turn.results.into_iter().map(|page| view! { <ResultItem page now/> }).collect_view()}
            </ul>
        }
        .into_any(),
    };
    view! {
        <article class="turn">
            <p class="question">{asked}</p>
            <p class="meta">{meta}</p>
            {answer}
        </article>
    }
}

/// One page of an answer: a single link (title, readable URL, last visit) that opens it in a tab.
#[component]
fn ResultItem(page: Page, now: i64) -> impl IntoView {
    let Alert(set_alert) = expect_context::<Alert>();
    let title = display_title(&page.title, &page.url);
    let readable = readable_url(&page.url);
    let visited = format!("visited {}", relative_time(now, page.last_visit_ms));
    let url = page.url.clone();
    let open = move |event: leptos::ev::MouseEvent| {
        event.prevent_default();
        let url = url.clone();
        spawn_local(async move {
            if let Err(error) = tabs::open(&url).await {
                set_alert.set(Some(format!("This page could not be opened: {error}.")));
            }
        });
    };
    view! {
        <li class="result">
            <a class="result-link" href=page.url on:click=open>
                <span class="title">{title}</span>
                <span class="url">{readable}</span>
                <time>{visited}</time>
            </a>
        </li>
    }
}
