//! The page reader's extraction: a page's main text (its rendered HTML, sent by the content script
//! `reader.js`) or a PDF's (fetched from its address), read in the offscreen document
//! (`embedder.html` with `extractor.js`: DOMParser and Mozilla's Readability, pdf.js), never in the
//! service worker, which has no DOM and must stay free to answer the pages. The document is the
//! one that hosts the embedding model ([`crate::embedder`]), created the same way, on demand
//! (`src/offscreen.js`).
//!
//! Nothing here logs a page's address or text: a failure's message is the document's, which never
//! holds them.

use serde::Deserialize;
use wasm_bindgen::prelude::*;
use wasm_bindgen_futures::JsFuture;

use crate::js_json::from_js;

#[wasm_bindgen(module = "/src/offscreen.js")]
extern "C" {
    #[wasm_bindgen(catch, js_name = readerAsk)]
    fn reader_ask(
        kind: &str,
        url: &str,
        html: &str,
        timeout_ms: u32,
    ) -> Result<js_sys::Promise, JsValue>;
}

const ASK: &str = "the page reader";

/// How long the worker waits for the document before it counts it as stopped: longer than the
/// document's own bounds (a PDF's 30 s for its download and its pages; a page's HTML is read in
/// well under a second, but a document busy with a PDF answers it after).
pub const READER_PATIENCE_MS: u32 = 45_000;

/// What the reader found in a page or a PDF.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct Extracted {
    /// The article's title (Readability's, from the page's metadata or headings; a PDF's
    /// metadata title or its first line), or the page's `<title>`; may be empty.
    pub title: String,
    /// The main text: one block (paragraph, heading, list item, PDF line) per line, whitespace
    /// otherwise collapsed, at most 500,000 characters. Never empty.
    pub text: String,
    /// The language the page declares (`<html lang>`, Content-Language; a PDF's `/Lang`), as
    /// written (`en`, `fr-FR`), if any.
    #[serde(default)]
    pub lang: Option<String>,
    /// How many words the text holds (`Intl.Segmenter`'s word-like segments).
    pub words: u32,
}

/// Why a page or a PDF gave no text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ReaderError {
    /// Nothing readable: no article in the page, or a PDF whose text layer is nearly empty (a
    /// scan). Not worth another try.
    #[error("no readable text")]
    NoText,
    /// Over the reader's bounds (the page's HTML or elements, the PDF's bytes).
    #[error("too large to read ({0})")]
    TooLarge(String),
    /// The address did not give a PDF (an HTML login page, an image).
    #[error("not a PDF ({0})")]
    NotPdf(String),
    /// The PDF could not be downloaded: the network, or an HTTP status. May work later.
    #[error("the PDF could not be downloaded ({0})")]
    Unreachable(String),
    /// The document's own time bound passed (a slow download, a PDF too long to parse).
    #[error("reading took too long ({0})")]
    TimedOut(String),
    /// The parser refused the document (a damaged PDF, Readability failing on the page).
    #[error("the document could not be read ({0})")]
    Unreadable(String),
    /// The request was not one the document reads (not an http(s) address).
    #[error("not a page the reader reads ({0})")]
    BadRequest(String),
    /// The offscreen document stopped, did not answer in time, or answered something unreadable:
    /// worth another try.
    #[error("the page reader stopped ({0})")]
    Crashed(String),
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Answer {
    Failed {
        error: String,
        #[serde(default)]
        message: String,
    },
    Read(Extracted),
}

async fn ask(kind: &str, url: &str, html: &str) -> Result<Extracted, ReaderError> {
    let crashed = |e: JsValue| ReaderError::Crashed(crate::ChromeError::failed(ASK, e).to_string());
    let promise = reader_ask(kind, url, html, READER_PATIENCE_MS).map_err(crashed)?;
    let value = JsFuture::from(promise).await.map_err(crashed)?;
    let answer: Answer = from_js(ASK, &value).map_err(|e| ReaderError::Crashed(e.to_string()))?;
    match answer {
        Answer::Read(extracted) if !extracted.text.is_empty() => Ok(extracted),
        Answer::Read(_) => Err(ReaderError::NoText),
        Answer::Failed { error, message } => Err(match error.as_str() {
            "no-text" => ReaderError::NoText,
            "too-large" => ReaderError::TooLarge(message),
            "not-pdf" => ReaderError::NotPdf(message),
            "unreachable" => ReaderError::Unreachable(message),
            "timeout" => ReaderError::TimedOut(message),
            "unreadable" => ReaderError::Unreadable(message),
            "bad-request" => ReaderError::BadRequest(message),
            _ => ReaderError::Crashed(message),
        }),
    }
}

/// The main text of a page, from its rendered HTML as the content script sent it (`pageRead`'s
/// `html`) and its address (the base of its relative links). Form controls, editable regions and
/// scripts are removed before anything reads it.
pub async fn extract_html(url: &str, html: &str) -> Result<Extracted, ReaderError> {
    ask("html", url, html).await
}

/// The text of the PDF at `url` (`pdfSeen`'s address): downloaded again without cookies (from
/// the browser's cache when it has it), checked to be a PDF, every page read by pdf.js (within the
/// document's bounds: 32 MiB, the first 300 pages, 30 s).
pub async fn extract_pdf(url: &str) -> Result<Extracted, ReaderError> {
    ask("pdf", url, "").await
}

/// The main text of the page at `url`, downloaded again from its site without cookies (a
/// catch-up, [`history_chat_core::catch_up`]): a web page is read as [`extract_html`] reads one,
/// a PDF as [`extract_pdf`] does; anything else has nothing to read.
pub async fn extract_url(url: &str) -> Result<Extracted, ReaderError> {
    ask("url", url, "").await
}
