// Chrome's built-in Prompt API (`LanguageModel`, Gemini Nano), wrapped for src/on_device.rs.
// Every function returns a promise; errors are the browser's DOMExceptions, read by their name.
// Both the current and the older names of the API's members are accepted.

function api() {
  return typeof LanguageModel === 'undefined' ? null : LanguageModel;
}

const TEXT_EN = { expectedInputs: [{ type: 'text', languages: ['en'] }], expectedOutputs: [{ type: 'text', languages: ['en'] }] };

export async function availability() {
  const model = api();
  if (!model) return 'unsupported';
  return String(await model.availability(TEXT_EN));
}

// Creates a base session (a page's, or the worker's). `onProgress(fraction)` hears the download's progress.
export async function createSession(onProgress, signal) {
  const model = api();
  if (!model) throw new DOMException('The Prompt API is not available in this browser.', 'NotSupportedError');
  return model.create({
    ...TEXT_EN,
    signal,
    monitor(monitor) {
      monitor.addEventListener('downloadprogress', (event) => onProgress(Number(event.loaded) || 0));
    },
  });
}

function contextWindow(session) {
  return Number(session.contextWindow ?? session.inputQuota ?? 0);
}

function contextUsed(session) {
  return Number(session.contextUsage ?? session.inputUsage ?? 0);
}

async function measureText(session, text) {
  if (typeof session.measureContextUsage === 'function') return Number(await session.measureContextUsage(text));
  if (typeof session.measureInputUsage === 'function') return Number(await session.measureInputUsage(text));
  return Math.ceil(text.length / 4);
}

// Tokens `text` would take, and tokens left in a fresh clone of the base session.
export async function measure(session, text) {
  const needed = await measureText(session, text);
  const available = Math.max(0, contextWindow(session) - contextUsed(session));
  return { needed, available };
}

// One call: a clone of the base session answers `text` under the JSON schema, then is destroyed.
export async function promptJson(session, text, schema, signal) {
  const clone = await session.clone({ signal });
  try {
    return String(await clone.prompt(text, { responseConstraint: schema, signal }));
  } finally {
    clone.destroy();
  }
}

export function destroy(session) {
  session.destroy();
}
