//! URL cleaning: one normal form per page, and the pages that are never shown.
//!
//! The rules: drop the `#fragment`, drop tracking parameters, sort what remains; exclude Google
//! search result pages and everything that is not a web page (`chrome://`, `chrome-extension://`,
//! `file://`, `about:`, `data:`, `javascript:`, `view-source:`, …). Only `http` and `https` pages
//! pass, which is also what makes "only http(s) links are ever opened" hold.
//!
//! The query string is edited as raw text, piece by piece, so the parameters we keep are byte-for-byte
//! what the site wrote (re-encoding could turn `%20` into `+` and change the page).

use url::Url;

use crate::address::web_address;

/// Query parameters that only track the visitor and never change the page, compared
/// case-insensitively. Any parameter starting with `utm_` is also dropped (see [`is_tracking_param`]).
///
/// Sources: Google Analytics/Ads (`gclid`, `gclsrc`, `dclid`, `gbraid`, `wbraid`, `_ga`, `_gl`,
/// `srsltid` — Google Shopping/Search result ids), Meta (`fbclid`, `igshid`), Microsoft Ads
/// (`msclkid`), Mailchimp (`mc_eid`, `mc_cid`), Yandex (`yclid`), HubSpot (`_hsenc`, `_hsmi`,
/// `__hssc`, `__hstc`, `__hsfp`, `hsCtaTracking`), Marketo (`mkt_tok`), Omeda (`oly_enc_id`,
/// `oly_anon_id`), Vero (`vero_id`, `vero_conv`), Adobe (`s_cid`), Twitter/X (`ref_src`, `ref_url`,
/// `twclid`), TikTok (`ttclid`), LinkedIn (`li_fat_id`), Instagram/Threads (`igsh`).
pub const TRACKING_PARAMS: &[&str] = &[
    "gclid",
    "gclsrc",
    "dclid",
    "gbraid",
    "wbraid",
    "fbclid",
    "msclkid",
    "mc_eid",
    "mc_cid",
    "igshid",
    "igsh",
    "yclid",
    "_ga",
    "_gl",
    "_hsenc",
    "_hsmi",
    "__hssc",
    "__hstc",
    "__hsfp",
    "hsctatracking",
    "mkt_tok",
    "oly_enc_id",
    "oly_anon_id",
    "vero_id",
    "vero_conv",
    "s_cid",
    "ref_src",
    "ref_url",
    "twclid",
    "ttclid",
    "li_fat_id",
    "srsltid",
];

/// Prefix of the Google Analytics campaign parameters (`utm_source`, `utm_medium`, …).
const UTM_PREFIX: &str = "utm_";

/// Why a history entry is not shown (worded in `wording::history`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Rejection {
    /// The text is not a URL at all.
    Invalid,
    /// Not a web page: `chrome:`, `chrome-extension:`, `file:`, `about:`, `data:`, `javascript:`,
    /// `view-source:` or any other scheme that is not `http`/`https`.
    NotWebPage {
        /// The scheme, without the colon.
        scheme: String,
    },
    /// A Google search result page: search noise, not a page the user is looking for.
    GoogleSearch,
}

impl std::error::Error for Rejection {}

/// Whether a query parameter name (raw, as written in the URL) is a tracking parameter.
pub fn is_tracking_param(name: &str) -> bool {
    let name = name.to_ascii_lowercase();
    name.starts_with(UTM_PREFIX) || TRACKING_PARAMS.contains(&name.as_str())
}

/// Cleans a URL from history into the one form we show, link to and deduplicate on.
///
/// ```
/// use history_chat_core::clean::clean_url;
/// let url = clean_url("https://Example.com/a?utm_source=x&b=2&a=1#top").unwrap();
/// assert_eq!(url.as_str(), "https://example.com/a?a=1&b=2");
/// ```
pub fn clean_url(raw: &str) -> Result<Url, Rejection> {
    let mut url = Url::parse(raw.trim()).map_err(|_| Rejection::Invalid)?;
    match url.scheme() {
        "http" | "https" => {}
        other => {
            return Err(Rejection::NotWebPage {
                scheme: other.to_owned(),
            });
        }
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err(Rejection::Invalid);
    }
    if is_google_search(&url) {
        return Err(Rejection::GoogleSearch);
    }
    url.set_fragment(None);
    let kept = url.query().map(kept_query_pieces).unwrap_or_default();
    if kept.is_empty() {
        url.set_query(None);
    } else {
        url.set_query(Some(&kept.join("&")));
    }
    Ok(url)
}

/// Whether a link may be opened: only `http` and `https` URLs with a host, whatever a stored log or
/// a model says. Everything we show passed [`clean_url`], so this is a second, independent check at
/// the moment of opening, read as text ([`crate::address::web_address`]: the popup links no URL
/// parser).
pub fn is_openable(url: &str) -> bool {
    web_address(url).is_some()
}

/// The query's `name=value` pieces that are not tracking parameters, sorted by name, then by the
/// whole piece (so `a=2&a=1` and `a=1&a=2` are the same page once cleaned).
fn kept_query_pieces(query: &str) -> Vec<&str> {
    let mut kept: Vec<&str> = query
        .split('&')
        .filter(|piece| !piece.is_empty())
        .filter(|piece| !is_tracking_param(param_name(piece)))
        .collect();
    kept.sort_by(|a, b| param_name(a).cmp(param_name(b)).then(a.cmp(b)));
    kept
}

fn param_name(piece: &str) -> &str {
    piece.split_once('=').map_or(piece, |(name, _)| name)
}

/// Google's result pages: `/search` on `google.<tld>`, `google.co.<cc>` or `google.com.<cc>`,
/// with or without `www.`.
fn is_google_search(url: &Url) -> bool {
    let Some(host) = url.host_str() else {
        return false;
    };
    let host = host.strip_prefix("www.").unwrap_or(host);
    let Some(suffix) = host.strip_prefix("google.") else {
        return false;
    };
    let is_tld = |label: &str| {
        (2..=3).contains(&label.len()) && label.bytes().all(|b| b.is_ascii_lowercase())
    };
    let is_google_domain = match suffix.split_once('.') {
        None => is_tld(suffix),
        Some((second, cc)) => matches!(second, "co" | "com") && is_tld(cc) && cc.len() == 2,
    };
    let path = url.path();
    is_google_domain && (path == "/search" || path.starts_with("/search/"))
}

#[cfg(test)]
mod tests;
