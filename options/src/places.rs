//! The options page's "Bookmarks and open tabs" section: two switches, each its own optional
//! permission, asked inside the click (`bookmarks`; `tabs`, the least that gives the open tabs'
//! addresses and titles). The switch's state is the permission's: nothing is saved in the
//! settings. Off gives the permission back, and the worker, told by Chrome
//! (`permissions.onRemoved`), forgets what it held of that source; it never stores any.

use history_chat_bindings::{log, permissions};
use history_chat_core::t;
use leptos::prelude::*;
use leptos::task::spawn_local;

use crate::saving::Feedback;

/// One switch: its permission, and the words for each outcome (a failure's with the browser's
/// error).
#[derive(Clone, Copy)]
struct Switch {
    permission: &'static str,
    label: fn() -> String,
    help: fn() -> String,
    on: fn() -> String,
    refused: fn() -> String,
    on_failed: fn(String) -> String,
    off: fn() -> String,
    off_failed: fn(String) -> String,
}

const BOOKMARKS: Switch = Switch {
    permission: permissions::BOOKMARKS_PERMISSION,
    label: || t!("options_bookmarks_label"),
    help: || t!("options_bookmarks_help"),
    on: || t!("options_bookmarks_on"),
    refused: || t!("options_bookmarks_refused"),
    on_failed: |error| t!("options_bookmarks_on_failed", error),
    off: || t!("options_bookmarks_off"),
    off_failed: |error| t!("options_bookmarks_off_failed", error),
};

const TABS: Switch = Switch {
    permission: permissions::TABS_PERMISSION,
    label: || t!("options_tabs_label"),
    help: || t!("options_tabs_help"),
    on: || t!("options_tabs_on"),
    refused: || t!("options_tabs_refused"),
    on_failed: |error| t!("options_tabs_on_failed", error),
    off: || t!("options_tabs_off"),
    off_failed: |error| t!("options_tabs_off_failed", error),
};

/// The section: a heading and the two switches.
#[component]
pub fn PlacesSection(feedback: Feedback) -> impl IntoView {
    view! {
        <section>
            <h2>{t!("options_places_heading")}</h2>
            <PlaceSwitch switch=BOOKMARKS feedback/>
            <PlaceSwitch switch=TABS feedback/>
        </section>
    }
}

#[component]
fn PlaceSwitch(switch: Switch, feedback: Feedback) -> impl IntoView {
    // Whether the permission is granted (`None` until known), read again when a permission
    // changes anywhere (Chrome's extensions page can take it back).
    let granted = RwSignal::new(None::<bool>);
    let check = move || {
        spawn_local(async move {
            let held = permissions::has_api(switch.permission)
                .await
                .unwrap_or_else(|error| {
                    // Shown as off: turning it on asks again.
                    log::failure("checking a permission of bookmarks or tabs", &error);
                    false
                });
            let _ = granted.try_set(Some(held));
        })
    };
    check();
    if let Err(error) = permissions::follow_changes(check) {
        // The switch shows what was read at opening; the page's next opening reads it again.
        log::failure("following the permissions' changes", &error);
    }
    let flip = move |on: bool| {
        feedback.clear();
        if on {
            // The permission prompt must start inside the click, before any await.
            match permissions::request_api(switch.permission) {
                Ok(answer) => spawn_local(async move {
                    match answer.await {
                        Ok(true) => {
                            granted.set(Some(true));
                            feedback.ok((switch.on)());
                        }
                        Ok(false) => {
                            granted.set(Some(false));
                            feedback.fail((switch.refused)());
                        }
                        Err(error) => {
                            granted.set(Some(false));
                            feedback.fail((switch.on_failed)(error.to_string()));
                        }
                    }
                }),
                Err(error) => {
                    granted.set(Some(false));
                    feedback.fail((switch.on_failed)(error.to_string()));
                }
            }
        } else {
            spawn_local(async move {
                match permissions::remove_api(switch.permission).await {
                    Ok(_) => {
                        granted.set(Some(false));
                        feedback.ok((switch.off)());
                    }
                    Err(error) => {
                        granted.set(Some(true));
                        feedback.fail((switch.off_failed)(error.to_string()));
                    }
                }
            });
        }
    };
    view! {
        <label class="choice">
            <input
                type="checkbox"
                aria-label=(switch.label)()
                disabled=move || granted.get().is_none()
                prop:checked=move || granted.get().unwrap_or(false)
                on:change=move |event| flip(event_target_checked(&event))
            />
            <span class="choice-label">{(switch.label)()}</span>
            <span class="help">{(switch.help)()}</span>
        </label>
    }
}
