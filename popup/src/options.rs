//! The options page: default period, conversation retention, and what leaves the machine.

use history_chat_bindings::storage;
use history_chat_core::period::Period;
use history_chat_core::settings::{Retention, Settings};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The whole options page.
#[component]
pub fn Options() -> impl IntoView {
    let settings = RwSignal::new(None::<Settings>);
    let status = RwSignal::new(String::new());
    let alert = RwSignal::new(None::<String>);

    spawn_local(async move {
        match storage::load_settings().await {
            Ok(loaded) => settings.set(Some(loaded)),
            Err(error) => {
                alert.set(Some(format!(
                    "Your settings could not be read ({error}); showing the defaults."
                )));
                settings.set(Some(Settings::default()));
            }
        }
    });

    // Applies one change and stores the result (fields from other versions included).
    let change = move |edit: Box<dyn FnOnce(&mut Settings)>| {
        let Some(mut next) = settings.get_untracked() else {
            return;
        };
        edit(&mut next);
        settings.set(Some(next.clone()));
        status.set(String::new());
        spawn_local(async move {
            match storage::save_settings(&next).await {
                Ok(()) => {
                    alert.set(None);
                    status.set("Saved".to_owned());
                }
                Err(error) => alert.set(Some(format!("Not saved ({error}). Try again."))),
            }
        });
    };
    let clear = move |_| {
        spawn_local(async move {
            match storage::clear_conversation().await {
                Ok(()) => status.set("Conversation cleared".to_owned()),
                Err(error) => alert.set(Some(format!(
                    "The conversation could not be cleared ({error}). Try again."
                ))),
            }
        });
    };
    let current = move || settings.get().unwrap_or_default();

    view! {
        <main class="options">
            <h1>"History Chat — Options"</h1>
            <p class="status" role="status">{move || status.get()}</p>
            <p class="alert" role="alert">{move || alert.get()}</p>
            <section>
                <h2>"Search"</h2>
                <label>
                    "Default period "
                    <select
                        aria-label="Default period"
                        disabled=move || settings.with(Option::is_none)
                        on:change=move |event| {
                            let value = Period::parse(&event_target_value(&event)).unwrap_or_default();
                            change(Box::new(move |s| s.default_period = value));
                        }
                    >
                        {Period::ALL
                            .into_iter()
                            .map(|p| view! { <option value=p.as_str() prop:selected=move || current().default_period == p>{p.label()}</option> })
                            .collect_view()}
                    </select>
                </label>
            </section>
            <section>
                <h2>"Conversation"</h2>
                <label>
                    "Keep conversation for "
                    <select
                        aria-label="Keep conversation for"
                        disabled=move || settings.with(Option::is_none)
                        on:change=move |event| {
                            let value = Retention::parse(&event_target_value(&event)).unwrap_or_default();
                            change(Box::new(move |s| s.retention = value));
                        }
                    >
                        {Retention::ALL
                            .into_iter()
                            .map(|r| view! { <option value=r.as_str() prop:selected=move || current().retention == r>{r.label()}</option> })
                            .collect_view()}
                    </select>
                </label>
                <p class="help">"Older questions and answers are deleted when the popup opens."</p>
                <button type="button" on:click=clear>"Clear conversation"</button>
            </section>
            <section>
                <h2>"What leaves this computer"</h2>
                <p>
                    "Nothing. History Chat searches your Chrome history on this device and makes no network request. "
                    "Your settings are kept in Chrome's synced storage; your conversation stays in this browser's local storage."
                </p>
            </section>
        </main>
    }
}
