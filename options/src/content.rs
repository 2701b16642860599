//! The options page's "Page content" section: the switch that reads the pages the user visits
//! (the access asked in its click), the content store's line and progress, the room it may take,
//! the catch-up of the last 7 or 30 days or of the bookmarked pages when the bookmarks' switch is
//! on (its plan shown first), and the access asked again when the user took it back in Chrome.
//!
//! The worker does the work (`Request::SetContent` registers the reader or clears the store);
//! this module only saves the settings, asks Chrome in the click and shows the worker's answers.

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::log;
use history_chat_bindings::messages::ask_worker;
use history_chat_bindings::permissions::{self, GeminiAccess};
use history_chat_core::catch_up::{DAYS, Reach};
use history_chat_core::index::host::PROGRESS_REFRESH_MS;
use history_chat_core::messages::{CatchUpSummary, ContentState, OptionsAnswer, Request};
use history_chat_core::settings::{ContentCap, Settings};
use history_chat_core::t;
use history_chat_core::wording::content as wording;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::saving::{Feedback, save, store};

/// Asks the worker about reading pages (or sends the switch, a catch-up, its cancel) and shows
/// its answer, or says what went wrong. Whether it answered.
async fn ask_content(
    request: &Request,
    state: RwSignal<Option<ContentState>>,
    feedback: Feedback,
) -> bool {
    match ask_worker(request).await {
        Ok(OptionsAnswer::Content { state: answer }) => {
            let _ = state.try_set(Some(answer));
            true
        }
        Ok(OptionsAnswer::Failed { failure }) => {
            feedback.fail(failure.sentence());
            false
        }
        Ok(_) => {
            feedback.fail(t!("options_content_no_answer"));
            false
        }
        Err(error) => {
            log::failure("asking the worker about reading pages", &error);
            feedback.fail(t!("options_content_no_answer"));
            false
        }
    }
}

/// Follows the content's state for the page's life: asked once, then every
/// [`PROGRESS_REFRESH_MS`] while reading is on (pages are read as the user browses) or the state
/// still moves. A poll that goes unanswered is tried again at the next one, silently.
async fn follow_content(
    settings: RwSignal<Option<Settings>>,
    state: RwSignal<Option<ContentState>>,
) {
    let mut first = true;
    loop {
        let Some(on) = settings.try_with_untracked(|s| s.as_ref().is_some_and(|s| s.read_content))
        else {
            return;
        };
        let moving = state
            .try_with_untracked(|s| s.as_ref().is_some_and(ContentState::is_moving))
            .unwrap_or(false);
        if first || on || moving {
            first = false;
            if let Ok(OptionsAnswer::Content { state: answer }) =
                ask_worker(&Request::ContentState).await
                && state.try_set(Some(answer)).is_some()
            {
                return;
            }
        }
        http::sleep(PROGRESS_REFRESH_MS, &Cancel::new()).await;
    }
}

/// Whether a Gemini key is saved.
fn has_key(settings: RwSignal<Option<Settings>>) -> bool {
    settings.with_untracked(|s| {
        s.as_ref()
            .is_some_and(|s| !s.gemini_api_key.expose().trim().is_empty())
    })
}

/// The "Page content" section.
#[component]
pub fn ContentSection(settings: RwSignal<Option<Settings>>, feedback: Feedback) -> impl IntoView {
    let state = RwSignal::new(None::<ContentState>);
    spawn_local(follow_content(settings, state));
    // Chrome took the Gemini host back with the sites' access: said until the page is reopened.
    let gemini_lost = RwSignal::new(None::<String>);
    let plan = RwSignal::new(None::<CatchUpSummary>);
    let planning = RwSignal::new(false);

    let current = move || settings.get().unwrap_or_default();
    let loading = move || settings.with(Option::is_none);
    let on = move || settings.with(|s| s.as_ref().is_some_and(|s| s.read_content));

    // On: the access asked in the click (before any await), then saved, then the worker told.
    // Off: saved, the worker told (it clears the store and unregisters the reader, which needs
    // the access still), then the access given back. A switch that could not be saved changes
    // nothing.
    let switch = move |turn_on: bool| {
        if settings.with_untracked(Option::is_none) {
            return;
        }
        if turn_on {
            let answer = match permissions::request_content_access() {
                Ok(answer) => answer,
                Err(error) => {
                    feedback.fail(t!("options_content_request_failed", error));
                    settings.update(|_| {});
                    return;
                }
            };
            spawn_local(async move {
                match answer.await {
                    Ok(true) => {}
                    Ok(false) => {
                        feedback.fail(t!("options_content_refused"));
                        settings.update(|_| {});
                        return;
                    }
                    Err(error) => {
                        feedback.fail(t!("options_content_request_failed", error));
                        settings.update(|_| {});
                        return;
                    }
                }
                gemini_lost.set(None);
                if !save(settings, |s| s.read_content = true, feedback).await {
                    if let Err(error) = permissions::remove_content_access().await {
                        log::failure("giving back the access to read pages", &error);
                    }
                    return;
                }
                if ask_content(&Request::SetContent { enabled: true }, state, feedback).await {
                    feedback.ok(t!("options_content_on"));
                }
            });
        } else {
            plan.set(None);
            spawn_local(async move {
                if !save(settings, |s| s.read_content = false, feedback).await {
                    return;
                }
                let told =
                    ask_content(&Request::SetContent { enabled: false }, state, feedback).await;
                match permissions::remove_content_access().await {
                    Ok(gemini) => {
                        if told {
                            feedback.ok(t!("options_content_off"));
                        }
                        if gemini == GeminiAccess::Lost && has_key(settings) {
                            gemini_lost.set(Some(t!("options_content_gemini_lost")));
                        }
                    }
                    Err(error) => {
                        log::failure("giving back the access to read pages", &error);
                        feedback.fail(t!("options_content_off_failed", error));
                    }
                }
            });
        }
    };
    let grant_again = move |_| {
        let answer = match permissions::request_content_access() {
            Ok(answer) => answer,
            Err(error) => {
                feedback.fail(t!("options_content_request_failed", error));
                return;
            }
        };
        spawn_local(async move {
            match answer.await {
                Ok(true) => {
                    if ask_content(&Request::SetContent { enabled: true }, state, feedback).await {
                        feedback.ok(t!("options_content_access_back"));
                    }
                }
                Ok(false) => feedback.fail(t!("options_content_refused")),
                Err(error) => feedback.fail(t!("options_content_request_failed", error)),
            }
        });
    };

    let state_line = move || match state.get() {
        Some(known) => wording::state_line(&known),
        None => t!("options_content_asking"),
    };
    let understanding = move || {
        state
            .get()
            .and_then(|known| wording::understanding(&known.progress))
    };
    let access_lost = move || state.get().is_some_and(|known| known.access_lost(on()));
    let granted = move || on() && state.get().is_some_and(|known| known.access);
    let offers_catch_up = move || state.get().is_some_and(|known| known.offers_catch_up(on()));
    let catching_up = move || state.get().is_some_and(|known| known.catching_up());
    let catch_up_line = move || state.get().and_then(|known| wording::catch_up_line(&known));
    let bookmarks_on = move || state.get().is_some_and(|known| known.bookmarks);
    // The bookmarks' switch, turned on or off below (or in Chrome): their button follows.
    let permissions_changed = move || {
        spawn_local(async move {
            if let Ok(OptionsAnswer::Content { state: answer }) =
                ask_worker(&Request::ContentState).await
            {
                let _ = state.try_set(Some(answer));
            }
        })
    };
    if let Err(error) = permissions::follow_changes(permissions_changed) {
        // The button shows as the state was read at opening; the page's next opening reads it.
        log::failure("following the permissions' changes", &error);
    }

    let ask_plan = move |reach: Reach| {
        plan.set(None);
        planning.set(true);
        spawn_local(async move {
            match ask_worker(&Request::CatchUpPlan { reach }).await {
                Ok(OptionsAnswer::CatchUpPlanned { plan: planned }) => plan.set(Some(planned)),
                Ok(OptionsAnswer::Failed { failure }) => feedback.fail(failure.sentence()),
                Ok(_) => feedback.fail(t!("options_content_no_answer")),
                Err(error) => {
                    log::failure("asking the worker for a catch-up's plan", &error);
                    feedback.fail(t!("options_content_no_answer"));
                }
            }
            planning.set(false);
        });
    };
    let start = move |_| {
        let Some(reach) = plan.with_untracked(|p| p.as_ref().map(|p| p.reach)) else {
            return;
        };
        plan.set(None);
        spawn_local(async move {
            ask_content(&Request::CatchUp { reach }, state, feedback).await;
        });
    };
    let stop = move |_| {
        spawn_local(async move {
            ask_content(&Request::CancelCatchUp, state, feedback).await;
        });
    };

    let change_cap = move |typed: String| {
        if settings.with_untracked(Option::is_none) {
            return;
        }
        match ContentCap::parse(&typed) {
            Some(cap) => store(
                settings,
                move |s| s.content_cap_mb = cap,
                feedback,
                t!("options_saved"),
            ),
            None => {
                feedback.fail(wording::cap_refused());
                // The field shows the stored cap again.
                settings.update(|_| {});
            }
        }
    };
    view! {
        <section class="page-content">
            <h2>{t!("options_content_heading")}</h2>
            <label class="choice">
                <input
                    type="checkbox"
                    aria-label=t!("options_content_label")
                    disabled=loading
                    prop:checked=move || current().read_content
                    on:change=move |event| switch(event_target_checked(&event))
                />
                <span class="choice-label">{t!("options_content_label")}</span>
                <span class="help">{t!("options_content_help")}</span>
            </label>
            <p class="alert content-gemini-lost" role="alert">{move || gemini_lost.get()}</p>
            <Show when=on>
                <p class="help content-state">{state_line}</p>
                {move || understanding().map(|(understood, total)| view! {
                    <progress max=total.max(1) value=understood aria-label=t!("options_content_progress")></progress>
                })}
                <Show when=access_lost>
                    <button type="button" on:click=grant_again>{t!("options_content_grant_again")}</button>
                </Show>
            </Show>
            <Show when=granted>
                <h3>{t!("options_catch_up_heading")}</h3>
                <p class="help">{t!("options_catch_up_help")}</p>
                <p class="help catch-up-state">{catch_up_line}</p>
                <Show when=catching_up>
                    <button type="button" on:click=stop>{t!("options_catch_up_stop")}</button>
                </Show>
                <Show when=move || offers_catch_up() && plan.with(Option::is_none)>
                    <div class="buttons">
                        {DAYS
                            .into_iter()
                            .map(|days| view! {
                                <button type="button" disabled=move || planning.get() on:click=move |_| ask_plan(Reach::Days(days))>
                                    {t!("options_catch_up_button", days.to_string())}
                                </button>
                            })
                            .collect_view()}
                        <Show when=bookmarks_on>
                            <button type="button" disabled=move || planning.get() on:click=move |_| ask_plan(Reach::Bookmarks)>
                                {t!("options_catch_up_bookmarks_button")}
                            </button>
                        </Show>
                    </div>
                    <Show when=move || planning.get()>
                        <p class="help">{t!("options_catch_up_planning")}</p>
                    </Show>
                </Show>
                {move || plan.get().filter(|_| offers_catch_up()).map(|planned| view! {
                    <div class="buttons catch-up-plan" role="group" aria-label=t!("options_catch_up_group")>
                        <p>{wording::plan_line(&planned)}</p>
                        {(planned.pages > 0).then(|| view! {
                            <button type="button" on:click=start>{t!("options_catch_up_start")}</button>
                        })}
                        <button type="button" on:click=move |_| plan.set(None)>{t!("options_catch_up_cancel")}</button>
                    </div>
                })}
            </Show>
            <label class="field">
                {t!("options_content_cap_label")}
                " "
                <input
                    type="number"
                    aria-label=t!("options_content_cap_label")
                    min=ContentCap::MIN_MB
                    max=ContentCap::MAX_MB
                    step="1"
                    disabled=loading
                    prop:value=move || current().content_cap_mb.mb().to_string()
                    on:change=move |event| change_cap(event_target_value(&event))
                />
            </label>
            <p class="help">{t!("options_content_cap_help")}</p>
        </section>
    }
}
