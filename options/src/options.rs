//! The options page: Gemini key (save, test, remove), search depth, model, default period, topic
//! search, reading the pages' content (its own module, [`crate::content`]), excluded sites, site
//! icons, pages kept after Chrome forgets them (the switch, how many, forget them), conversation
//! retention, and what leaves the machine in each mode.

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::ask_worker;
use history_chat_bindings::on_device::{self, OnDevice};
use history_chat_bindings::{gemini, log, now_ms, permissions, storage};
use history_chat_core::ai::Depth;
use history_chat_core::ai::provider::{Availability, Engine, Provider};
use history_chat_core::api_key::ApiKey;
use history_chat_core::display::percent;
use history_chat_core::exclusions::{BadLine, Exclusions};
use history_chat_core::gemini::DEFAULT_MODEL;
use history_chat_core::index::host::PROGRESS_REFRESH_MS;
use history_chat_core::messages::{OptionsAnswer, Request};
use history_chat_core::period::Period;
use history_chat_core::semantic::{Pace, SemanticProgress, SemanticStatus, TimeLeft};
use history_chat_core::settings::{Retention, Settings, Switch};
use history_chat_core::t;
use history_chat_core::wording;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::content::ContentSection;
use crate::places::PlacesSection;
use crate::saving::{Feedback, save, store};

/// Reads the settings into the page; a failed read leaves them unknown (every control disabled,
/// nothing saved), says so, and offers to try again.
async fn read_settings(
    settings: RwSignal<Option<Settings>>,
    unreadable: RwSignal<bool>,
    key_draft: RwSignal<String>,
    excluded_draft: RwSignal<String>,
    feedback: Feedback,
) {
    match storage::load_settings().await {
        Ok(loaded) => {
            unreadable.set(false);
            key_draft.set(loaded.gemini_api_key.expose().to_owned());
            excluded_draft.set(loaded.excluded_sites.join("\n"));
            settings.set(Some(loaded));
            feedback.alert.set(None);
        }
        Err(error) => {
            log::failure("reading the settings", &error);
            unreadable.set(true);
            feedback.fail(t!("options_settings_unreadable", error));
        }
    }
}

/// One option of a radio group: its group, value, label and one-line description.
struct Choice {
    group: &'static str,
    value: &'static str,
    label: String,
    description: String,
}

impl Choice {
    fn of(group: &'static str, value: &'static str, label: String, description: String) -> Choice {
        Choice {
            group,
            value,
            label,
            description,
        }
    }
}

/// A radio button with its label and description; `checked` reads the setting, `pick` stores it.
fn radio(
    choice: Choice,
    checked: impl Fn() -> bool + Send + Sync + 'static,
    pick: impl Fn() + 'static,
) -> impl IntoView {
    view! {
        <label class="choice">
            <input type="radio" name=choice.group value=choice.value prop:checked=checked on:change=move |_| pick()/>
            <span class="choice-label">{choice.label}</span>
            <span class="help">{choice.description}</span>
        </label>
    }
}

/// Follows topic search's state for the page's life, with the time its build has left at the pace
/// seen meanwhile: asked once, then every [`PROGRESS_REFRESH_MS`] while the switch is on (a build
/// starts as pages are visited, and the worker may be starting) or the state still moves. A poll
/// that goes unanswered, or answered with a failure (a worker starting, its settings not read
/// yet), is tried again at the next one, silently: the line is never left frozen.
async fn follow_semantic(
    settings: RwSignal<Option<Settings>>,
    state: RwSignal<Option<SemanticProgress>>,
    left: RwSignal<Option<TimeLeft>>,
) {
    let mut pace = Pace::default();
    let mut first = true;
    loop {
        let Some(on) =
            settings.try_with_untracked(|s| s.as_ref().is_some_and(|s| s.semantic_search.is_on()))
        else {
            return;
        };
        let moving = state
            .try_with_untracked(|s| s.as_ref().is_some_and(SemanticProgress::is_moving))
            .unwrap_or(false);
        if first || on || moving {
            first = false;
            if let Ok(OptionsAnswer::Semantic { progress }) =
                ask_worker(&Request::SemanticState).await
            {
                let _ = left.try_set(pace.observe(now_ms(), &progress));
                if state.try_set(Some(progress)).is_some() {
                    return;
                }
            }
        }
        http::sleep(PROGRESS_REFRESH_MS, &Cancel::new()).await;
    }
}

/// Asks the worker how many pages it keeps after Chrome forgot them (or sends the switch, or the
/// forget), and shows the answer or what went wrong.
async fn ask_kept(request: Request, kept: RwSignal<Option<usize>>, feedback: Feedback) {
    match ask_worker(&request).await {
        Ok(OptionsAnswer::Kept { pages }) => {
            let _ = kept.try_set(Some(pages));
            match request {
                Request::ForgetKept => feedback.ok(t!("options_kept_forgotten")),
                Request::SetKeepForgotten { enabled } => {
                    feedback.ok(wording::settings::kept_switched(enabled))
                }
                _ => {}
            }
        }
        Ok(OptionsAnswer::Failed { failure }) => feedback.fail(failure.sentence()),
        Ok(_) => feedback.fail(t!("options_kept_no_answer")),
        Err(error) => {
            log::failure("asking the worker about kept pages", &error);
            feedback.fail(t!("options_kept_no_answer"));
        }
    }
}

/// The whole options page.
#[component]
pub fn Options() -> impl IntoView {
    let settings = RwSignal::new(None::<Settings>);
    let feedback = Feedback {
        status: RwSignal::new(String::new()),
        alert: RwSignal::new(None),
    };
    let key_draft = RwSignal::new(String::new());
    let key_visible = RwSignal::new(false);
    let availability = RwSignal::new(None::<Availability>);
    let download = RwSignal::new(None::<f64>);
    let excluded_draft = RwSignal::new(String::new());
    let excluded_problems = RwSignal::new(Vec::<String>::new());
    // Whether the optional `favicon` permission is granted (`None` until known).
    let icons_granted = RwSignal::new(None::<bool>);
    spawn_local(async move {
        let granted = permissions::has_favicon().await.unwrap_or_else(|error| {
            // Shown as off: turning it on asks again.
            log::failure("checking the site-icon permission", &error);
            false
        });
        icons_granted.set(Some(granted));
    });

    spawn_local(async move { availability.set(Some(on_device::availability().await)) });
    let understanding = RwSignal::new(None::<SemanticProgress>);
    let understanding_left = RwSignal::new(None::<TimeLeft>);
    spawn_local(follow_semantic(settings, understanding, understanding_left));
    let kept = RwSignal::new(None::<usize>);
    let confirm_forget = RwSignal::new(false);
    spawn_local(ask_kept(Request::KeptPages, kept, feedback));

    let unreadable = RwSignal::new(false);
    spawn_local(read_settings(
        settings,
        unreadable,
        key_draft,
        excluded_draft,
        feedback,
    ));
    let retry_read = move |_| {
        spawn_local(read_settings(
            settings,
            unreadable,
            key_draft,
            excluded_draft,
            feedback,
        ))
    };

    // Stores one change (fields from other versions kept), once the settings have been read.
    let change = move |edit: Box<dyn FnOnce(&mut Settings)>| {
        if settings.with_untracked(Option::is_some) {
            store(settings, edit, feedback, t!("options_saved"));
        }
    };
    let current = move || settings.get().unwrap_or_default();
    let loading = move || settings.with(Option::is_none);

    let save_key = move |_| {
        let key = key_draft.get_untracked().trim().to_owned();
        if key.is_empty() {
            feedback.fail(t!("options_key_missing"));
            return;
        }
        if let Err(problem) = ApiKey::new(key.as_str()).check() {
            feedback.fail(problem.to_string());
            return;
        }
        // The permission prompt must start inside the click, before any await.
        let permission = permissions::request_gemini_host();
        if settings.with_untracked(Option::is_none) {
            return;
        }
        store(
            settings,
            move |s| s.gemini_api_key = ApiKey::new(key),
            feedback,
            t!("options_key_saved"),
        );
        if let Ok(answer) = permission {
            spawn_local(async move {
                if let Ok(false) = answer.await {
                    feedback.ok(t!("options_key_saved_host_refused"));
                }
            });
        }
    };
    let test_key = move |_| {
        let key = key_draft.get_untracked();
        if key.trim().is_empty() {
            feedback.fail(t!("options_key_missing"));
            return;
        }
        if let Err(problem) = ApiKey::new(key.as_str()).check() {
            feedback.fail(problem.to_string());
            return;
        }
        let model = current().model_name().to_owned();
        feedback.ok(t!("options_key_testing"));
        spawn_local(async move {
            match gemini::test_key(&ApiKey::new(key), &model).await {
                Ok(()) => feedback.ok(t!("options_key_works", model)),
                Err(failure) => feedback.fail(failure.user_message(Engine::Gemini)),
            }
        });
    };
    let remove_key = move |_| {
        if settings.with_untracked(Option::is_none) {
            return;
        }
        key_draft.set(String::new());
        spawn_local(async move {
            if !save(settings, |s| s.gemini_api_key = ApiKey::default(), feedback).await {
                return;
            }
            feedback.ok(t!("options_key_removed"));
            // Without a key nothing is sent anyway: a permission left behind is only logged.
            if let Err(error) = permissions::remove_gemini_host().await {
                log::failure("giving back the Gemini host permission", &error);
            }
        });
    };
    let start_download = move |_| {
        // Creating a session downloads the model; it must start inside this click.
        let model = OnDevice::new();
        download.set(Some(0.0));
        spawn_local(async move {
            match model
                .prepare(move |loaded| download.set(Some(loaded)))
                .await
            {
                Ok(()) => {
                    availability.set(Some(Availability::Available));
                    feedback.ok(t!("options_device_downloaded"));
                }
                Err(failure) => feedback.fail(failure.download_message()),
            }
            model.close();
            download.set(None);
        });
    };
    let device_line = move || match availability.get() {
        _ if download.get().is_some() => t!("options_device_downloading"),
        None => t!("options_device_checking"),
        Some(known) => known.reason().unwrap_or_else(|| t!("options_device_ready")),
    };
    let can_download = move || {
        matches!(
            availability.get(),
            Some(Availability::Downloadable | Availability::Downloading)
        )
    };

    // Saved first, then the worker told: a switch that could not be saved changes nothing.
    let switch_topics = move |on: bool| {
        if settings.with_untracked(Option::is_none) {
            return;
        }
        spawn_local(async move {
            if save(
                settings,
                move |s| s.semantic_search = Switch::from_on(on),
                feedback,
            )
            .await
            {
                feedback.ok(t!("options_saved"));
                // The worker told at once; the page's one follower polls from there.
                if let Ok(OptionsAnswer::Semantic { progress }) =
                    ask_worker(&Request::SetSemantic { enabled: on }).await
                {
                    let _ = understanding.try_set(Some(progress));
                }
            }
        });
    };
    let topics_line = move || match understanding.get() {
        Some(progress) => progress.options_line_left(understanding_left.get()),
        None => t!("options_topics_asking"),
    };
    let topics_building = move || {
        understanding
            .get()
            .filter(|progress| progress.status == SemanticStatus::Building)
    };

    let save_excluded = move |_| {
        if settings.with_untracked(Option::is_none) {
            return;
        }
        match Exclusions::parse(&excluded_draft.get_untracked()) {
            Ok(list) => {
                excluded_problems.set(Vec::new());
                let lines = list.lines();
                excluded_draft.set(lines.join("\n"));
                store(
                    settings,
                    move |s| s.excluded_sites = lines,
                    feedback,
                    t!("options_excluded_saved"),
                );
            }
            Err(bad) => {
                excluded_problems.set(bad.iter().map(BadLine::message).collect());
                feedback.fail(t!("options_excluded_refused"));
            }
        }
    };
    let switch_icons = move |on: bool| {
        if on {
            // The permission prompt must start inside the click, before any await.
            match permissions::request_favicon() {
                Ok(answer) => spawn_local(async move {
                    match answer.await {
                        Ok(true) => {
                            icons_granted.set(Some(true));
                            feedback.ok(t!("options_icons_on"));
                        }
                        Ok(false) => {
                            icons_granted.set(Some(false));
                            feedback.fail(t!("options_icons_refused"));
                        }
                        Err(error) => {
                            icons_granted.set(Some(false));
                            feedback.fail(t!("options_icons_on_failed", error));
                        }
                    }
                }),
                Err(error) => {
                    icons_granted.set(Some(false));
                    feedback.fail(t!("options_icons_on_failed", error));
                }
            }
        } else {
            spawn_local(async move {
                match permissions::remove_favicon().await {
                    Ok(_) => {
                        icons_granted.set(Some(false));
                        feedback.ok(t!("options_icons_off"));
                    }
                    Err(error) => {
                        icons_granted.set(Some(true));
                        feedback.fail(t!("options_icons_off_failed", error));
                    }
                }
            });
        }
    };
    // Saved first, then the worker told (it reads the setting at its next start), then said.
    let switch_keep = move |on: bool| {
        confirm_forget.set(false);
        if settings.with_untracked(Option::is_none) {
            return;
        }
        spawn_local(async move {
            let edit = move |s: &mut Settings| {
                s.keep_forgotten = on;
                s.default_period = s.default_period.offered(on);
            };
            if save(settings, edit, feedback).await {
                ask_kept(Request::SetKeepForgotten { enabled: on }, kept, feedback).await;
            }
        });
    };
    let kept_line = move || match kept.get() {
        Some(pages) => wording::settings::kept_line(pages),
        None => t!("options_kept_counting"),
    };
    let forget_kept = move |_| {
        confirm_forget.set(false);
        spawn_local(ask_kept(Request::ForgetKept, kept, feedback));
    };

    let clear = move |_| {
        spawn_local(async move {
            match storage::clear_conversation().await {
                Ok(()) => feedback.ok(t!("options_conversation_cleared")),
                Err(error) => feedback.fail(t!("options_conversation_clear_failed", error)),
            }
        });
    };

    view! {
        <main class="options">
            <h1>{t!("options_page_title")}</h1>
            <p class="status" role="status">{move || feedback.status.get()}</p>
            <p class="alert" role="alert">{move || feedback.alert.get()}</p>
            {move || unreadable.get().then(|| view! {
                <button type="button" class="retry-read" on:click=retry_read>{t!("options_settings_retry")}</button>
            })}

            <section>
                <h2>{t!("options_provider_heading")}</h2>
                <fieldset role="radiogroup" aria-label=t!("options_provider_heading") disabled=loading>
                    <legend>{t!("options_provider_legend")}</legend>
                    {Provider::ALL
                        .into_iter()
                        .map(|provider| {
                            let choice = Choice::of("provider", provider.as_str(), provider.label(), provider.description());
                            radio(choice, move || current().provider == provider, move || change(Box::new(move |s| s.provider = provider)))
                        })
                        .collect_view()}
                </fieldset>
                <p class="help device-status">{device_line}</p>
                <Show when=can_download>
                    <p>
                        <button type="button" disabled=move || download.get().is_some() on:click=start_download>
                            {t!("options_device_download")}
                        </button>
                        " "
                        {move || download.get().map(|loaded| view! {
                            <progress max="1" value=loaded aria-label=t!("options_device_download_progress")></progress>
                            " "
                            {t!("options_device_download_percent", percent(loaded))}
                        })}
                    </p>
                </Show>
            </section>

            <section>
                <h2>{t!("options_key_heading")}</h2>
                <p class="help">{t!("options_key_help")}</p>
                <div class="key-row">
                    <input
                        type=move || if key_visible.get() { "text" } else { "password" }
                        aria-label=t!("options_key_heading")
                        autocomplete="off"
                        spellcheck="false"
                        // Not words: how every Gemini key begins.
                        placeholder="AIza…"
                        prop:value=move || key_draft.get()
                        on:input=move |event| key_draft.set(event_target_value(&event))
                    />
                    <button type="button" on:click=move |_| key_visible.update(|v| *v = !*v)>
                        {move || if key_visible.get() { t!("options_key_hide") } else { t!("options_key_show") }}
                    </button>
                </div>
                <div class="buttons">
                    <button type="button" disabled=loading on:click=save_key>{t!("options_key_save")}</button>
                    <button type="button" disabled=loading on:click=test_key>{t!("options_key_test")}</button>
                    <button type="button" disabled=loading on:click=remove_key>{t!("options_key_remove")}</button>
                </div>
                <label class="field">
                    {t!("options_model_label")}
                    " "
                    <input
                        type="text"
                        aria-label=t!("options_model_aria")
                        spellcheck="false"
                        placeholder=DEFAULT_MODEL
                        disabled=loading
                        prop:value=move || current().model_name().to_owned()
                        on:change=move |event| {
                            let model = event_target_value(&event).trim().to_owned();
                            change(Box::new(move |s| s.model = model));
                        }
                    />
                </label>
                <p class="help">{t!("options_model_help")}</p>
            </section>

            <section>
                <h2>{t!("options_search_heading")}</h2>
                <fieldset role="radiogroup" aria-label=t!("options_depth_aria") disabled=loading>
                    <legend>{t!("options_depth_legend")}</legend>
                    {Depth::ALL
                        .into_iter()
                        .map(|depth| {
                            let choice = Choice::of("depth", depth.as_str(), depth.label(), depth.description());
                            radio(choice, move || current().depth == depth, move || change(Box::new(move |s| s.depth = depth)))
                        })
                        .collect_view()}
                </fieldset>
                <label class="field">
                    {t!("options_period_label")}
                    " "
                    <select
                        aria-label=t!("options_period_label")
                        disabled=loading
                        on:change=move |event| {
                            let value = Period::parse(&event_target_value(&event)).unwrap_or_default();
                            change(Box::new(move |s| s.default_period = value));
                        }
                    >
                        {move || Period::choices(current().keep_forgotten)
                            .iter()
                            .copied()
                            .map(|p| view! { <option value=p.as_str() prop:selected=move || current().default_period == p>{p.label()}</option> })
                            .collect_view()}
                    </select>
                </label>
            </section>

            <section>
                <h2>{t!("options_excluded_heading")}</h2>
                <p class="help">{t!("options_excluded_help")}</p>
                <textarea
                    class="excluded-sites"
                    aria-label=t!("options_excluded_heading")
                    aria-describedby="excluded-problems"
                    rows="5"
                    spellcheck="false"
                    autocomplete="off"
                    // Not words: example hosts, one per line.
                    placeholder="mail.google.com
    *.bank.example"
                    disabled=loading
                    prop:value=move || excluded_draft.get()
                    on:input=move |event| excluded_draft.set(event_target_value(&event))
                ></textarea>
                <ul class="excluded-problems" id="excluded-problems" role="alert">
                    {move || excluded_problems.get().into_iter().map(|problem| view! { <li>{problem}</li> }).collect_view()}
                </ul>
                <div class="buttons">
                    <button type="button" disabled=loading on:click=save_excluded>{t!("options_excluded_save")}</button>
                </div>
            </section>

            <section>
                <h2>{t!("options_icons_heading")}</h2>
                <label class="choice">
                    <input
                        type="checkbox"
                        aria-label=t!("options_icons_label")
                        disabled=move || icons_granted.get().is_none()
                        prop:checked=move || icons_granted.get().unwrap_or(false)
                        on:change=move |event| switch_icons(event_target_checked(&event))
                    />
                    <span class="choice-label">{t!("options_icons_label")}</span>
                    <span class="help">{t!("options_icons_help")}</span>
                </label>
            </section>

            <PlacesSection feedback/>

            <section>
                <h2>{t!("options_topics_heading")}</h2>
                <label class="choice">
                    <input
                        type="checkbox"
                        aria-label=t!("options_topics_heading")
                        disabled=loading
                        prop:checked=move || current().semantic_search.is_on()
                        on:change=move |event| switch_topics(event_target_checked(&event))
                    />
                    <span class="choice-label">{t!("options_topics_label")}</span>
                    <span class="help">{t!("options_topics_help")}</span>
                </label>
                <p class="help semantic-state">{topics_line}</p>
                {move || topics_building().map(|progress| view! {
                    <progress max=progress.total.max(1) value=progress.understood aria-label=t!("options_topics_progress")></progress>
                })}
            </section>

            <ContentSection settings feedback/>

            <section>
                <h2>{t!("options_kept_heading")}</h2>
                <label class="choice">
                    <input
                        type="checkbox"
                        aria-label=t!("options_kept_label")
                        disabled=loading
                        prop:checked=move || current().keep_forgotten
                        on:change=move |event| switch_keep(event_target_checked(&event))
                    />
                    <span class="choice-label">{t!("options_kept_label")}</span>
                    <span class="help">{t!("options_kept_help", Period::All.label())}</span>
                </label>
                <p class="help kept-state">{kept_line}</p>
                <Show
                    when=move || confirm_forget.get()
                    fallback=move || view! {
                        <button
                            type="button"
                            disabled=move || kept.get().unwrap_or(0) == 0
                            on:click=move |_| confirm_forget.set(true)
                        >
                            {t!("options_forget_button")}
                        </button>
                    }
                >
                    <div class="buttons" role="group" aria-label=t!("options_forget_confirm")>
                        <p>
                            {move || wording::settings::forget_question(kept.get().unwrap_or(0))}
                        </p>
                        <button type="button" on:click=forget_kept>{t!("options_forget_yes")}</button>
                        <button type="button" on:click=move |_| confirm_forget.set(false)>{t!("options_forget_cancel")}</button>
                    </div>
                </Show>
            </section>

            <section>
                <h2>{t!("options_conversation_heading")}</h2>
                <label class="field">
                    {t!("options_retention_label")}
                    " "
                    <select
                        aria-label=t!("options_retention_label")
                        disabled=loading
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
                <p class="help">{t!("options_retention_help")}</p>
                <button type="button" on:click=clear>{t!("options_conversation_clear")}</button>
            </section>

            <section>
                <h2>{t!("options_privacy_heading")}</h2>
                <p>
                    <strong>{t!("options_privacy_no_key_title")}</strong>
                    " "
                    {t!("options_privacy_no_key")}
                </p>
                <p>
                    <strong>{t!("options_privacy_gemini_title")}</strong>
                    " "
                    {t!("options_privacy_gemini")}
                </p>
                <p>
                    <strong>{t!("options_privacy_topics_title")}</strong>
                    " "
                    {t!("options_privacy_topics")}
                </p>
                <p>
                    <strong>{t!("options_privacy_device_title")}</strong>
                    " "
                    {t!("options_privacy_device")}
                </p>
                <p>
                    <strong>{t!("options_privacy_excluded_title")}</strong>
                    " "
                    {t!("options_privacy_excluded")}
                </p>
                <p>
                    <strong>{t!("options_privacy_places_title")}</strong>
                    " "
                    {t!("options_privacy_places")}
                </p>
                <p>
                    <strong>{t!("options_privacy_kept_title")}</strong>
                    " "
                    {t!("options_privacy_kept")}
                </p>
                <p>{t!("options_privacy_storage")}</p>
            </section>
        </main>
    }
}
