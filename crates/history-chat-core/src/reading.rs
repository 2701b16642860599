//! Which visited pages have their content read: the worker asks [`may_read`] for every page the
//! reader (a content script) sends, and reads only what it allows. The content script runs only
//! where the user granted access and where the excluded sites' match patterns do not keep it out;
//! this is the second, authoritative check, made with what the worker knows of the settings
//! ([`KnownSettings`]): nothing is read while the switch or the excluded sites are not known.

use crate::clean::{clean_url, is_openable};
use crate::settings::KnownSettings;

/// A page the reader sent, as the browser describes who sent it (`chrome.runtime.onMessage`'s
/// `sender`): never the page's own word for it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Visit<'a> {
    /// The frame's address (`sender.url`).
    pub url: &'a str,
    /// Whether the frame is the tab's top frame (`sender.frameId === 0`).
    pub top_frame: bool,
    /// Whether the tab is in an incognito window (`sender.tab.incognito`); a sender with no tab
    /// (an extension page) is not a visit at all ([`NotRead::NotATab`]).
    pub incognito: bool,
    /// Whether the sender is a tab.
    pub in_tab: bool,
}

/// Why a page is not read.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NotRead {
    /// Content search is off.
    Off,
    /// The switch or the excluded sites are not known (the settings could not be read and
    /// nothing is remembered): nothing is read until they are.
    SettingsUnknown,
    /// Not sent from a tab.
    NotATab,
    /// A frame inside the page, not the page.
    NotTopFrame,
    /// An incognito window: never read.
    Incognito,
    /// Not an `http(s)` page (or one the cleaning drops: a search results page, a local file).
    NotAWebPage,
    /// A site the user excluded.
    Excluded,
}

/// Whether `visit` is read, and under which address (the cleaned URL, as the indexes name the
/// page).
pub fn may_read(visit: &Visit<'_>, known: &KnownSettings) -> Result<String, NotRead> {
    match known.read_content() {
        None => return Err(NotRead::SettingsUnknown),
        Some(false) => return Err(NotRead::Off),
        Some(true) => {}
    }
    let Some(exclusions) = known.exclusions() else {
        return Err(NotRead::SettingsUnknown);
    };
    if !visit.in_tab {
        return Err(NotRead::NotATab);
    }
    if visit.incognito {
        return Err(NotRead::Incognito);
    }
    if !visit.top_frame {
        return Err(NotRead::NotTopFrame);
    }
    let url = match clean_url(visit.url) {
        Ok(url) if is_openable(url.as_str()) => String::from(url),
        _ => return Err(NotRead::NotAWebPage),
    };
    if exclusions.excludes(&url) {
        return Err(NotRead::Excluded);
    }
    Ok(url)
}

/// The text kept of a page read: its body as the reader extracted it, led by its title when the
/// body does not already start with it — Readability takes a page's main heading as the
/// article's title and leaves it out of the text, and its words are often the page's best.
pub fn page_text(title: &str, text: &str) -> String {
    let title = title.trim();
    let body = text.trim_start();
    if title.is_empty() || body.starts_with(title) {
        return text.to_owned();
    }
    format!("{title}\n{text}")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::settings::{Remembered, Settings};

    fn reading() -> Settings {
        Settings {
            read_content: true,
            excluded_sites: vec!["bank.example".into()],
            ..Settings::default()
        }
    }

    #[test]
    fn only_a_top_frame_of_a_normal_tab_on_a_web_page_the_user_did_not_exclude_is_read() {
        let page = Visit {
            url: "https://news.example/a?utm_source=x#top",
            top_frame: true,
            incognito: false,
            in_tab: true,
        };
        let on = KnownSettings::Read(reading());
        let rows: Vec<(Visit, &KnownSettings, Result<&str, NotRead>)> = vec![
            (page, &on, Ok("https://news.example/a")),
            (
                Visit {
                    url: "https://bank.example/login",
                    ..page
                },
                &on,
                Err(NotRead::Excluded),
            ),
            (
                Visit {
                    url: "https://www.bank.example/login",
                    ..page
                },
                &on,
                Err(NotRead::Excluded),
            ),
            (
                Visit {
                    incognito: true,
                    ..page
                },
                &on,
                Err(NotRead::Incognito),
            ),
            (
                Visit {
                    top_frame: false,
                    ..page
                },
                &on,
                Err(NotRead::NotTopFrame),
            ),
            (
                Visit {
                    in_tab: false,
                    ..page
                },
                &on,
                Err(NotRead::NotATab),
            ),
            (
                Visit {
                    url: "file:///home/me/notes.html",
                    ..page
                },
                &on,
                Err(NotRead::NotAWebPage),
            ),
            (
                Visit {
                    url: "chrome://settings",
                    ..page
                },
                &on,
                Err(NotRead::NotAWebPage),
            ),
            (
                Visit {
                    url: "https://www.google.com/search?q=secret",
                    ..page
                },
                &on,
                Err(NotRead::NotAWebPage),
            ),
        ];
        for (visit, known, expected) in rows {
            assert_eq!(
                may_read(&visit, known),
                expected.map(str::to_owned),
                "{visit:?}"
            );
        }
    }

    #[test]
    fn nothing_is_read_while_off_or_not_known() {
        let page = Visit {
            url: "https://news.example/a",
            top_frame: true,
            incognito: false,
            in_tab: true,
        };
        let rows = [
            (KnownSettings::Read(Settings::default()), Err(NotRead::Off)),
            (
                KnownSettings::Remembered(Remembered::of(&Settings::default())),
                Err(NotRead::Off),
            ),
            (
                KnownSettings::Remembered(Remembered::of(&reading())),
                Ok("https://news.example/a".to_owned()),
            ),
            (KnownSettings::Unknown, Err(NotRead::SettingsUnknown)),
        ];
        for (known, expected) in rows {
            assert_eq!(may_read(&page, &known), expected, "{known:?}");
        }
    }

    #[test]
    fn a_page_s_text_is_led_by_its_title_once() {
        let rows = [
            (
                "Crème brûlée",
                "Whisk the yolks.",
                "Crème brûlée\nWhisk the yolks.",
            ),
            (
                "Crème brûlée",
                "Crème brûlée\nWhisk the yolks.",
                "Crème brûlée\nWhisk the yolks.",
            ),
            ("  ", "Whisk the yolks.", "Whisk the yolks."),
            ("", "", ""),
        ];
        for (title, text, kept) in rows {
            assert_eq!(page_text(title, text), kept, "{title:?}");
        }
    }
}
