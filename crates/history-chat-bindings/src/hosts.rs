//! The browser's own URL parser (`URL`), installed into the core as the reader of sites' hosts
//! ([`history_chat_core::site_filter::install_host_parser`]) once per page or worker: a site is
//! then named exactly as the browser wrote the history's addresses, and no page carries the
//! Unicode tables of international names (UTS 46) that the `url` crate's parser links in.

/// Makes the core read `site:` values and excluded sites with the browser's URL parser. Call first
/// thing in every entry point (popup, options page, service worker).
pub fn install() {
    history_chat_core::site_filter::install_host_parser(browser_host);
}

/// The host of `http://{host}/` as the browser parses it; `None` when that is not a URL. The core
/// has already refused what would end a host early (`/`, `?`, `#`, `@`, `\`, a colon outside
/// brackets), so the parser reads `host` whole.
fn browser_host(host: &str) -> Option<String> {
    web_sys::Url::new(&format!("http://{host}/"))
        .ok()
        .map(|url| url.hostname())
        .filter(|parsed| !parsed.is_empty())
}
