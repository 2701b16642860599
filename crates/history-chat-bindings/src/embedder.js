// The offscreen document that hosts the embedding model (imported by src/embedder.rs): created on
// demand (one at a time, even when several callers ask at once), asked with a runtime message
// addressed to it, closed when the service worker says so.
const URL_PATH = 'embedder.html';
let creating = null;

async function exists() {
  const contexts = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] });
  return contexts.length > 0;
}

export async function embedderEnsure() {
  if (await exists()) return;
  if (!creating) {
    creating = chrome.offscreen
      .createDocument({
        url: URL_PATH,
        reasons: ['WORKERS'],
        justification: 'Runs the on-device model that understands page titles, for local search.',
      })
      .catch(async (error) => {
        // Another caller created it between the check and now.
        if (!(await exists())) throw error;
      })
      .finally(() => { creating = null; });
  }
  await creating;
}

export async function embedderAsk(kind, texts) {
  await embedderEnsure();
  return chrome.runtime.sendMessage({ target: 'embedder', kind, texts });
}

export async function embedderClose() {
  if (await exists()) await chrome.offscreen.closeDocument();
}
