// The extension's one offscreen document (imported by src/embedder.rs and src/reader.rs): it hosts
// the embedding model's dedicated worker (reason WORKERS) and reads pages and PDFs for the page
// reader (reason DOM_PARSER: DOMParser and Readability; pdf.js's worker). One creation path for
// both: created on demand (one at a time, even when several callers ask at once), asked with a
// runtime message addressed to its `target`, closed when the service worker says so — but not
// while a reading it was asked for is under way: the close then waits for it.
const URL_PATH = 'embedder.html';
let creating = null;
let reading = 0;
let closeAfterReading = false;

async function exists() {
  const contexts = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] });
  return contexts.length > 0;
}

export async function offscreenEnsure() {
  if (await exists()) return;
  if (!creating) {
    creating = chrome.offscreen
      .createDocument({
        url: URL_PATH,
        reasons: ['WORKERS', 'DOM_PARSER'],
        justification:
          'Runs the on-device model that understands pages, and reads the text of the pages you visit, for local search.',
      })
      .catch(async (error) => {
        // Another caller created it between the check and now.
        if (!(await exists())) throw error;
      })
      .finally(() => { creating = null; });
  }
  await creating;
}

/** Sends `message` to the document; after `timeoutMs` (0: no limit) resolves with `late` instead. */
async function ask(message, timeoutMs, late) {
  await offscreenEnsure();
  const asked = chrome.runtime.sendMessage(message);
  if (!timeoutMs) return asked;
  let timer;
  const gaveUp = new Promise((resolve) => {
    timer = setTimeout(() => resolve(late), timeoutMs);
  });
  try {
    return await Promise.race([asked, gaveUp]);
  } finally {
    clearTimeout(timer);
  }
}

// Resolves with the document's answer ({ vectors } or { error, message }); after `timeoutMs`
// (0: no limit) with { error: 'crashed', message: 'timed out' }. `idleMs` tells the document how
// long to keep the model loaded after its last job.
export function embedderAsk(kind, texts, timeoutMs, idleMs) {
  return ask({ target: 'embedder', kind, texts, idleMs }, timeoutMs,
    { error: 'crashed', message: `no answer within ${timeoutMs} ms` });
}

// Resolves with the document's answer ({ title, text, lang, words } or { error, message }), after
// `timeoutMs` with { error: 'crashed' }: the document stopped answering (its own bounds are shorter).
export async function readerAsk(kind, url, html, timeoutMs) {
  reading += 1;
  try {
    const message = kind === 'html' ? { target: 'reader', kind, url, html } : { target: 'reader', kind, url };
    return await ask(message, timeoutMs, { error: 'crashed', message: `no answer within ${timeoutMs} ms` });
  } finally {
    reading -= 1;
    if (reading === 0 && closeAfterReading) {
      closeAfterReading = false;
      await close().catch(() => {});
    }
  }
}

async function close() {
  if (await exists()) await chrome.offscreen.closeDocument();
}

export async function embedderClose() {
  if (reading > 0) {
    closeAfterReading = true;
    return;
  }
  await close();
}
