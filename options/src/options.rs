//! The options page: Gemini key (save, test, remove), search depth, model, default period, topic
//! search, excluded sites, site icons, pages kept after Chrome forgets them (the switch, how many,
//! forget them), conversation retention, and what leaves the machine in each mode.

use history_chat_bindings::http::{self, Cancel};
use history_chat_bindings::messages::ask_worker;
use history_chat_bindings::on_device::{self, OnDevice};
use history_chat_bindings::{gemini, permissions, storage};
use history_chat_core::ai::Depth;
use history_chat_core::ai::provider::{Availability, Engine, Provider};
use history_chat_core::api_key::ApiKey;
use history_chat_core::archive;
use history_chat_core::exclusions::{BadLine, Exclusions};
use history_chat_core::gemini::DEFAULT_MODEL;
use history_chat_core::index::host::PROGRESS_REFRESH_MS;
use history_chat_core::messages::{Request, Response};
use history_chat_core::period::Period;
use history_chat_core::semantic::{SemanticProgress, SemanticStatus};
use history_chat_core::settings::{Retention, Settings, Switch};
use leptos::prelude::*;
use leptos::task::spawn_local;

/// The page's outcome lines: `role="status"` for what worked, `role="alert"` for what did not.
#[derive(Clone, Copy)]
struct Feedback {
    status: RwSignal<String>,
    alert: RwSignal<Option<String>>,
}

impl Feedback {
    fn ok(self, message: impl Into<String>) {
        self.alert.set(None);
        self.status.set(message.into());
    }

    fn fail(self, message: impl Into<String>) {
        self.status.set(String::new());
        self.alert.set(Some(message.into()));
    }
}

/// Stores `next` and reports the outcome with `done`.
fn store(
    settings: RwSignal<Option<Settings>>,
    next: Settings,
    feedback: Feedback,
    done: &'static str,
) {
    settings.set(Some(next.clone()));
    spawn_local(async move {
        match storage::save_settings(&next).await {
            Ok(()) => feedback.ok(done),
            Err(error) => feedback.fail(format!("Not saved ({error}). Try again.")),
        }
    });
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

/// Asks the worker about topic search (or sends the switch), then keeps asking while it moves.
async fn follow_semantic(request: Request, state: RwSignal<Option<SemanticProgress>>) {
    let mut request = request;
    loop {
        let progress = match ask_worker(&request).await {
            Ok(Response::Semantic { progress }) => progress,
            _ => return,
        };
        if state.try_set(Some(progress)).is_some() || !progress.is_moving() {
            return;
        }
        request = Request::SemanticState;
        http::sleep(PROGRESS_REFRESH_MS, &Cancel::new()).await;
    }
}

/// Asks the worker how many pages it keeps after Chrome forgot them (or sends the switch, or the
/// forget), and shows the answer or what went wrong.
async fn ask_kept(request: Request, kept: RwSignal<Option<usize>>, feedback: Feedback) {
    match ask_worker(&request).await {
        Ok(Response::Kept { pages }) => {
            let _ = kept.try_set(Some(pages));
            match request {
                Request::ForgetKept => feedback.ok("Kept pages forgotten"),
                Request::SetKeepForgotten { enabled } => feedback.ok(archive::switched(enabled)),
                _ => {}
            }
        }
        Ok(Response::Failed { message }) => feedback.fail(message),
        Ok(_) | Err(_) => feedback.fail(
            "The background worker did not answer about kept pages. Close this page and open it again.",
        ),
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
        icons_granted.set(Some(permissions::has_favicon().await.unwrap_or(false)));
    });

    spawn_local(async move { availability.set(Some(on_device::availability().await)) });
    let understanding = RwSignal::new(None::<SemanticProgress>);
    spawn_local(follow_semantic(Request::SemanticState, understanding));
    let kept = RwSignal::new(None::<usize>);
    let confirm_forget = RwSignal::new(false);
    spawn_local(ask_kept(Request::KeptPages, kept, feedback));

    spawn_local(async move {
        let loaded = match storage::load_settings().await {
            Ok(loaded) => loaded,
            Err(error) => {
                feedback.fail(format!(
                    "Your settings could not be read ({error}); showing the defaults."
                ));
                Settings::default()
            }
        };
        key_draft.set(loaded.gemini_api_key.expose().to_owned());
        excluded_draft.set(loaded.excluded_sites.join("\n"));
        settings.set(Some(loaded));
    });

    // Applies one change to the loaded settings and stores them (fields from other versions kept).
    let change = move |edit: Box<dyn FnOnce(&mut Settings)>| {
        if let Some(mut next) = settings.get_untracked() {
            edit(&mut next);
            store(settings, next, feedback, "Saved");
        }
    };
    let current = move || settings.get().unwrap_or_default();
    let loading = move || settings.with(Option::is_none);

    let save_key = move |_| {
        let key = key_draft.get_untracked().trim().to_owned();
        if key.is_empty() {
            feedback.fail("Paste your Gemini API key first.");
            return;
        }
        if let Err(problem) = ApiKey::new(key.as_str()).check() {
            feedback.fail(problem.to_string());
            return;
        }
        // The permission prompt must start inside the click, before any await.
        let permission = permissions::request_gemini_host();
        let Some(mut next) = settings.get_untracked() else {
            return;
        };
        next.gemini_api_key = ApiKey::new(key);
        store(settings, next, feedback, "Key saved");
        if let Ok(answer) = permission {
            spawn_local(async move {
                if let Ok(false) = answer.await {
                    feedback.ok(
                        "Key saved. Chrome did not grant access to the Gemini API host; searches will still try to reach it.",
                    );
                }
            });
        }
    };
    let test_key = move |_| {
        let key = key_draft.get_untracked();
        if key.trim().is_empty() {
            feedback.fail("Paste your Gemini API key first.");
            return;
        }
        if let Err(problem) = ApiKey::new(key.as_str()).check() {
            feedback.fail(problem.to_string());
            return;
        }
        let model = current().model_name().to_owned();
        feedback.ok("Testing the key…");
        spawn_local(async move {
            match gemini::test_key(&ApiKey::new(key), &model).await {
                Ok(()) => feedback.ok(format!("The key works with {model}.")),
                Err(failure) => feedback.fail(failure.user_message(Engine::Gemini)),
            }
        });
    };
    let remove_key = move |_| {
        let Some(mut next) = settings.get_untracked() else {
            return;
        };
        next.gemini_api_key = ApiKey::default();
        key_draft.set(String::new());
        store(settings, next, feedback, "Key removed");
        spawn_local(async move {
            // Best effort: without a key nothing is sent anyway.
            let _ = permissions::remove_gemini_host().await;
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
                    feedback.ok("The on-device model is ready.");
                }
                Err(failure) => feedback.fail(failure.download_message()),
            }
            model.close();
            download.set(None);
        });
    };
    let device_line = move || match availability.get() {
        _ if download.get().is_some() => "Downloading Chrome's built-in AI model…".to_owned(),
        None => "Checking Chrome's built-in AI model…".to_owned(),
        Some(known) => known
            .reason()
            .unwrap_or_else(|| "Chrome's built-in AI model is ready on this device.".to_owned())
            .to_owned(),
    };
    let can_download = move || {
        matches!(
            availability.get(),
            Some(Availability::Downloadable | Availability::Downloading)
        )
    };

    let switch_topics = move |on: bool| {
        change(Box::new(move |s| s.semantic_search = Switch::from_on(on)));
        spawn_local(follow_semantic(
            Request::SetSemantic { enabled: on },
            understanding,
        ));
    };
    let topics_line = move || match understanding.get() {
        Some(progress) => progress.options_line(),
        None => "Asking how far topic search has got…".to_owned(),
    };
    let topics_building = move || {
        understanding
            .get()
            .filter(|progress| progress.status == SemanticStatus::Building)
    };

    let save_excluded = move |_| {
        let Some(mut next) = settings.get_untracked() else {
            return;
        };
        match Exclusions::parse(&excluded_draft.get_untracked()) {
            Ok(list) => {
                excluded_problems.set(Vec::new());
                next.excluded_sites = list.lines();
                excluded_draft.set(next.excluded_sites.join("\n"));
                store(settings, next, feedback, "Excluded sites saved");
            }
            Err(bad) => {
                excluded_problems.set(bad.iter().map(BadLine::message).collect());
                feedback.fail("The excluded sites were not saved: correct the lines named below.");
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
                            feedback.ok("Site icons are shown on results.");
                        }
                        Ok(false) => {
                            icons_granted.set(Some(false));
                            feedback.fail("Chrome did not grant access to site icons; results keep a plain placeholder.");
                        }
                        Err(error) => {
                            icons_granted.set(Some(false));
                            feedback.fail(format!("Site icons could not be turned on ({error})."));
                        }
                    }
                }),
                Err(error) => {
                    icons_granted.set(Some(false));
                    feedback.fail(format!("Site icons could not be turned on ({error})."));
                }
            }
        } else {
            spawn_local(async move {
                match permissions::remove_favicon().await {
                    Ok(_) => {
                        icons_granted.set(Some(false));
                        feedback.ok("Site icons are off; results show a plain placeholder.");
                    }
                    Err(error) => {
                        icons_granted.set(Some(true));
                        feedback.fail(format!(
                            "Site icons could not be turned off ({error}). Try again."
                        ));
                    }
                }
            });
        }
    };
    // Saved first, then the worker told (it reads the setting at its next start), then said.
    let switch_keep = move |on: bool| {
        confirm_forget.set(false);
        let Some(mut next) = settings.get_untracked() else {
            return;
        };
        next.keep_forgotten = on;
        next.default_period = next.default_period.offered(on);
        settings.set(Some(next.clone()));
        spawn_local(async move {
            if let Err(error) = storage::save_settings(&next).await {
                return feedback.fail(format!("Not saved ({error}). Try again."));
            }
            ask_kept(Request::SetKeepForgotten { enabled: on }, kept, feedback).await;
        });
    };
    let kept_line = move || match kept.get() {
        Some(pages) => archive::kept_line(pages),
        None => "Counting the kept pages…".to_owned(),
    };
    let forget_kept = move |_| {
        confirm_forget.set(false);
        spawn_local(ask_kept(Request::ForgetKept, kept, feedback));
    };

    let clear = move |_| {
        spawn_local(async move {
            match storage::clear_conversation().await {
                Ok(()) => feedback.ok("Conversation cleared"),
                Err(error) => feedback.fail(format!(
                    "The conversation could not be cleared ({error}). Try again."
                )),
            }
        });
    };

    view! {
        <main class="options">
            <h1>"History Chat — Options"</h1>
            <p class="status" role="status">{move || feedback.status.get()}</p>
            <p class="alert" role="alert">{move || feedback.alert.get()}</p>

            <section>
                <h2>"AI provider"</h2>
                <fieldset role="radiogroup" aria-label="AI provider" disabled=loading>
                    <legend>"Who answers your questions"</legend>
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
                            "Download the on-device model"
                        </button>
                        " "
                        {move || download.get().map(|loaded| view! {
                            <progress max="1" value=loaded aria-label="On-device model download"></progress>
                            {format!(" {:.0} %", loaded * 100.0)}
                        })}
                    </p>
                </Show>
            </section>

            <section>
                <h2>"Gemini API key"</h2>
                <p class="help">
                    "Optional. With your own key, Gemini expands your question into keywords and ranks the pages found. "
                    "Without one, everything stays on this device."
                </p>
                <div class="key-row">
                    <input
                        type=move || if key_visible.get() { "text" } else { "password" }
                        aria-label="Gemini API key"
                        autocomplete="off"
                        spellcheck="false"
                        placeholder="AIza…"
                        prop:value=move || key_draft.get()
                        on:input=move |event| key_draft.set(event_target_value(&event))
                    />
                    <button type="button" on:click=move |_| key_visible.update(|v| *v = !*v)>
                        {move || if key_visible.get() { "Hide key" } else { "Show key" }}
                    </button>
                </div>
                <div class="buttons">
                    <button type="button" disabled=loading on:click=save_key>"Save key"</button>
                    <button type="button" disabled=loading on:click=test_key>"Test key"</button>
                    <button type="button" disabled=loading on:click=remove_key>"Remove key"</button>
                </div>
                <label class="field">
                    "Model "
                    <input
                        type="text"
                        aria-label="Gemini model"
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
                <p class="help">"If Google retires this model, History Chat uses the current Flash model and tells you."</p>
            </section>

            <section>
                <h2>"Search"</h2>
                <fieldset role="radiogroup" aria-label="Search depth" disabled=loading>
                    <legend>"Search depth (with a key)"</legend>
                    {Depth::ALL
                        .into_iter()
                        .map(|depth| {
                            let choice = Choice::of("depth", depth.as_str(), depth.label(), depth.description());
                            radio(choice, move || current().depth == depth, move || change(Box::new(move |s| s.depth = depth)))
                        })
                        .collect_view()}
                </fieldset>
                <label class="field">
                    "Default period "
                    <select
                        aria-label="Default period"
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
                <h2>"Excluded sites"</h2>
                <p class="help">
                    "Pages of these sites are never indexed, never shown (in the popup, its saved answers and the "
                    "address bar's hc suggestions) and never sent to Gemini or the on-device model. One site per "
                    "line: mail.google.com leaves out that site (and www.mail.google.com); *.example.com leaves out "
                    "example.com and every subdomain of it. Write the host only, not an address. Taking a site off "
                    "the list brings its pages back from your Chrome history."
                </p>
                <textarea
                    class="excluded-sites"
                    aria-label="Excluded sites"
                    aria-describedby="excluded-problems"
                    rows="5"
                    spellcheck="false"
                    autocomplete="off"
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
                    <button type="button" disabled=loading on:click=save_excluded>"Save excluded sites"</button>
                </div>
            </section>

            <section>
                <h2>"Site icons"</h2>
                <label class="choice">
                    <input
                        type="checkbox"
                        aria-label="Show site icons"
                        disabled=move || icons_granted.get().is_none()
                        prop:checked=move || icons_granted.get().unwrap_or(false)
                        on:change=move |event| switch_icons(event_target_checked(&event))
                    />
                    <span class="choice-label">"Show site icons"</span>
                    <span class="help">
                        "Shows each result's site icon, read from the icons Chrome already keeps on this computer "
                        "(Chrome asks for the permission to read them). Nothing is downloaded: a page whose icon "
                        "Chrome does not have keeps a plain placeholder."
                    </span>
                </label>
            </section>

            <section>
                <h2>"Topic search"</h2>
                <label class="choice">
                    <input
                        type="checkbox"
                        aria-label="Topic search"
                        disabled=loading
                        prop:checked=move || current().semantic_search.is_on()
                        on:change=move |event| switch_topics(event_target_checked(&event))
                    />
                    <span class="choice-label">"Find pages by what they were about, not only by their words"</span>
                    <span class="help">
                        "A small language model that comes with the extension (multilingual-e5-small) reads each "
                        "page's title and address on this computer and turns it into numbers that capture its "
                        "meaning, so \"how to fix a flat bike tyre\" finds \"Réparer une crevaison\". Turning it "
                        "off deletes what it computed."
                    </span>
                </label>
                <p class="help semantic-state">{topics_line}</p>
                {move || topics_building().map(|progress| view! {
                    <progress max=progress.total.max(1) value=progress.understood aria-label="Pages understood"></progress>
                })}
            </section>

            <section>
                <h2>"Pages Chrome forgets"</h2>
                <label class="choice">
                    <input
                        type="checkbox"
                        aria-label="Keep pages searchable after Chrome forgets them"
                        disabled=loading
                        prop:checked=move || current().keep_forgotten
                        on:change=move |event| switch_keep(event_target_checked(&event))
                    />
                    <span class="choice-label">"Keep pages searchable after Chrome forgets them"</span>
                    <span class="help">
                        "Chrome deletes history older than 90 days. With this on, History Chat keeps those pages in "
                        "its own index on this computer — each page's title, address, last visit and visit count, "
                        "and topic search's numbers for it — so your words, topic search and the \"All time\" "
                        "period still find them. Deleting pages or all history in Chrome still deletes them here. "
                        "Turning this off forgets every kept page. If History Chat has to rebuild its index (an "
                        "update that changes its format, or a damaged index), the kept pages are lost: Chrome no "
                        "longer has them."
                    </span>
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
                            "Forget kept pages…"
                        </button>
                    }
                >
                    <div class="buttons" role="group" aria-label="Confirm forgetting kept pages">
                        <p>
                            {move || archive::forget_question(kept.get().unwrap_or(0))}
                        </p>
                        <button type="button" on:click=forget_kept>"Forget them"</button>
                        <button type="button" on:click=move |_| confirm_forget.set(false)>"Cancel"</button>
                    </div>
                </Show>
            </section>

            <section>
                <h2>"Conversation"</h2>
                <label class="field">
                    "Keep conversation for "
                    <select
                        aria-label="Keep conversation for"
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
                <p class="help">"Older questions and answers are deleted when the popup opens."</p>
                <button type="button" on:click=clear>"Clear conversation"</button>
            </section>

            <section>
                <h2>"What leaves this computer"</h2>
                <p>
                    <strong>"Without a key: nothing. "</strong>
                    "History Chat searches your Chrome history on this device and makes no network request."
                </p>
                <p>
                    <strong>"With a Gemini key: "</strong>
                    "for each question, your question is sent to Google's Gemini API to be turned into keywords; "
                    "then the title, address and last-visit time of at most 100 pages from your history that match "
                    "those keywords are sent with your question to be ranked. Never your full history. "
                    "The key travels in a request header, only to generativelanguage.googleapis.com. "
                    "Google's Gemini API terms apply to what is sent."
                </p>
                <p>
                    <strong>"Topic search: nothing. "</strong>
                    "Its model runs inside the extension, on this computer; what it computes from your page "
                    "titles and addresses (a list of numbers per page) stays in this browser's storage, and is "
                    "deleted when the pages are deleted from your history or when you turn topic search off."
                </p>
                <p>
                    <strong>"With the on-device model: nothing. "</strong>
                    "Chrome's built-in model runs on this computer; your question and history stay on it. "
                    "(Chrome downloads the model once, from Google, when you ask it to.)"
                </p>
                <p>
                    <strong>"Excluded sites: nothing, in every mode. "</strong>
                    "Their pages are left out of the index and of topic search (what was computed for them is "
                    "deleted), and never sent to a model."
                </p>
                <p>
                    <strong>"Pages Chrome forgets: nothing. "</strong>
                    "Off by default. When you turn it on, the pages Chrome deletes after 90 days stay in History "
                    "Chat's index in this browser's storage (IndexedDB), on this computer only: title, address, "
                    "last visit and visit count, and topic search's numbers. They are sent to Gemini only as any "
                    "other page is, when they match a question asked with a key."
                </p>
                <p>
                    "Your settings, key and excluded sites included, are kept in Chrome's synced storage; your "
                    "conversation stays in this browser's local storage."
                </p>
            </section>
        </main>
    }
}
