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

// Resolves with the document's answer ({ vectors } or { error, message }); after `timeoutMs`
// (0: no limit) with { error: 'crashed', message: 'timed out' }. `idleMs` tells the document how
// long to keep the model loaded after its last job.
export async function embedderAsk(kind, texts, timeoutMs, idleMs) {
  await embedderEnsure();
  const asked = chrome.runtime.sendMessage({ target: 'embedder', kind, texts, idleMs });
  if (!timeoutMs) return asked;
  let timer;
  const late = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ error: 'crashed', message: `no answer within ${timeoutMs} ms` }), timeoutMs);
  });
  try {
    return await Promise.race([asked, late]);
  } finally {
    clearTimeout(timer);
  }
}

export async function embedderClose() {
  if (await exists()) await chrome.offscreen.closeDocument();
}
