// A stand-in for the Gemini API, installed at the network layer of a Playwright browser context:
//
//   const gemini = await installGemini(ext.context);
//   gemini.queue('expansion', geminiError.quota('2s'));     // next expansion call: 429, then smart
//   gemini.unavailableModels.add('gemini-2.5-flash');       // every call to that model: 404
//   gemini.refuseKey(TEST_KEY);                             // every call with that key: 400 API_KEY_INVALID
//   ...drive the popup...
//   gemini.calls('ranking')[0].candidates                   // what the extension sent
//
// `context.route` sees requests from extension pages AND from the extension's service worker.
// Every request is recorded (method, URL, headers, parsed JSON body, which call it is, who made it,
// what was answered). Answers come, in this order of precedence, from: the key rules (missing key →
// 403, refused key → 400 API_KEY_INVALID), the unavailable models (→ 404), the per-kind queue, the
// per-kind default, and finally the "smart" handler, which answers an expansion with keywords
// taken from the question and a ranking by picking the candidates whose line shares words with the
// question — so happy-path tests assert on real behaviour, not on canned ids.
//
// A reply is plain data (or a function `(call) => reply`, possibly async):
//   {status, json} | {status, text}      fulfilled, with the real API's headers (CORS *, JSON UTF-8)
//   {abort: 'internetdisconnected'}      network failure (route.abort error code)
//   {hang: true}                         never answered (until the client gives up)
//   {delayMs, then: reply}               answered after a delay
// Build them with geminiText / geminiJson / geminiError.* / geminiBlocked* / networkDown / hang / delayed.

export const GEMINI_ORIGIN = 'https://generativelanguage.googleapis.com';
export const GEMINI_PATTERN = `${GEMINI_ORIGIN}/**`;
export const DEFAULT_MODEL = 'gemini-2.5-flash';

/** Shaped like a real key (AIza + 35 chars), so format checks accept it; distinctive, so leaks are easy to find. */
export const TEST_KEY = 'AIzaSyE2E-test-key-0123456789abcdefghij';
/** A second well-formed key, for "refused key" scenarios. */
export const BAD_KEY = 'AIzaSyE2E-bad-key-zyxwvutsrqponmlkjihgf';

const JSON_HEADERS = {
  'content-type': 'application/json; charset=UTF-8',
  'access-control-allow-origin': '*',
  vary: 'Origin, X-Origin, Referer',
  server: 'scaffolding on HTTPServer2',
  'x-content-type-options': 'nosniff',
};

// ---------------------------------------------------------------------------------------------
// Reply builders

let responseCounter = 0;
const responseId = () => `e2e${(++responseCounter).toString(36)}${Math.random().toString(36).slice(2, 10)}`;
const tokens = (s) => Math.max(1, Math.ceil(String(s ?? '').length / 4));

/**
 * A successful generateContent answer holding `text`.
 * @param {string} text
 * @param {{finishReason?: string, usage?: object, modelVersion?: string, promptTokens?: number}} [opts]
 */
export function geminiText(text, { finishReason = 'STOP', usage, modelVersion = DEFAULT_MODEL, promptTokens = 420 } = {}) {
  const out = tokens(text);
  return {
    status: 200,
    json: {
      candidates: [{ content: { parts: [{ text }], role: 'model' }, finishReason, index: 0 }],
      usageMetadata: usage ?? { promptTokenCount: promptTokens, candidatesTokenCount: out, totalTokenCount: promptTokens + out, thoughtsTokenCount: 0 },
      modelVersion,
      responseId: responseId(),
    },
  };
}

/** A successful answer whose text is `JSON.stringify(value)` (what responseMimeType application/json gives). */
export function geminiJson(value, opts) {
  return geminiText(JSON.stringify(value), opts);
}

/**
 * An error answer shaped like Google's: {"error": {code, message, status, details}}.
 * @param {number} status HTTP status (also error.code)
 * @param {string} code google.rpc code name (INVALID_ARGUMENT, RESOURCE_EXHAUSTED, ...)
 */
export function geminiError(status, code, message, details) {
  const error = { code: status, message, status: code };
  if (details) error.details = details;
  return { status, json: { error } };
}

const errorInfo = (reason, extra = {}) => ({
  '@type': 'type.googleapis.com/google.rpc.ErrorInfo',
  reason,
  domain: 'googleapis.com',
  metadata: { service: 'generativelanguage.googleapis.com', ...extra },
});

/** The errors the real API gives, with its real messages. */
geminiError.keyInvalid = () =>
  geminiError(400, 'INVALID_ARGUMENT', 'API key not valid. Please pass a valid API key.', [
    errorInfo('API_KEY_INVALID'),
    { '@type': 'type.googleapis.com/google.rpc.LocalizedMessage', locale: 'en-US', message: 'API key not valid. Please pass a valid API key.' },
  ]);
geminiError.location = () => geminiError(400, 'FAILED_PRECONDITION', 'User location is not supported for the API use.');
geminiError.permissionDenied = () =>
  geminiError(
    403,
    'PERMISSION_DENIED',
    'Requests to this API generativelanguage.googleapis.com method google.ai.generativelanguage.v1beta.GenerativeService.GenerateContent are blocked.',
    [errorInfo('API_KEY_SERVICE_BLOCKED', { consumer: 'projects/123456789012', methodName: 'google.ai.generativelanguage.v1beta.GenerativeService.GenerateContent' })],
  );
geminiError.unregisteredCaller = () =>
  geminiError(
    403,
    'PERMISSION_DENIED',
    "Method doesn't allow unregistered callers (callers without established identity). Please use API Key or other form of API consumer identity to call this API.",
  );
geminiError.modelNotFound = (model = DEFAULT_MODEL) =>
  geminiError(404, 'NOT_FOUND', `models/${model} is not found for API version v1beta, or is not supported for generateContent. Call ListModels to see the list of available models and their supported methods.`);
geminiError.quota = (retryDelay = '2s', model = DEFAULT_MODEL) => {
  const details = [
    {
      '@type': 'type.googleapis.com/google.rpc.QuotaFailure',
      violations: [
        {
          quotaMetric: 'generativelanguage.googleapis.com/generate_content_free_tier_requests',
          quotaId: 'GenerateRequestsPerMinutePerProjectPerModel-FreeTier',
          quotaDimensions: { location: 'global', model },
          quotaValue: '10',
        },
      ],
    },
    { '@type': 'type.googleapis.com/google.rpc.Help', links: [{ description: 'Learn more about Gemini API quotas', url: 'https://ai.google.dev/gemini-api/docs/rate-limits' }] },
  ];
  if (retryDelay != null) details.push({ '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay });
  return geminiError(
    429,
    'RESOURCE_EXHAUSTED',
    'You exceeded your current quota, please check your plan and billing details. For more information on this error, head to: https://ai.google.dev/gemini-api/docs/rate-limits.\n' +
      `* Quota exceeded for metric: generativelanguage.googleapis.com/generate_content_free_tier_requests, limit: 10, model: ${model}` +
      (retryDelay != null ? `\nPlease retry in ${retryDelay}.` : ''),
    details,
  );
};
geminiError.internal = () =>
  geminiError(500, 'INTERNAL', 'An internal error has occurred. Please retry or report in https://developers.generativeai.google/guide/troubleshooting');
geminiError.overloaded = () => geminiError(503, 'UNAVAILABLE', 'The model is overloaded. Please try again later.');
geminiError.deadline = () => geminiError(504, 'DEADLINE_EXCEEDED', 'The request timed out. Please try again.');

const SAFETY_RATINGS = (blocked) => [
  { category: 'HARM_CATEGORY_SEXUALLY_EXPLICIT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_HATE_SPEECH', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_HARASSMENT', probability: 'NEGLIGIBLE' },
  { category: 'HARM_CATEGORY_DANGEROUS_CONTENT', probability: 'HIGH', ...(blocked ? { blocked: true } : {}) },
];

/** The prompt itself was blocked: promptFeedback.blockReason, no candidates. */
export function geminiBlockedPrompt(reason = 'SAFETY') {
  return {
    status: 200,
    json: {
      promptFeedback: { blockReason: reason, safetyRatings: SAFETY_RATINGS(true) },
      usageMetadata: { promptTokenCount: 420, totalTokenCount: 420 },
      modelVersion: DEFAULT_MODEL,
      responseId: responseId(),
    },
  };
}

/** The answer was withheld: a candidate with finishReason SAFETY and no content. */
export function geminiBlockedCandidate(reason = 'SAFETY') {
  return {
    status: 200,
    json: {
      candidates: [{ finishReason: reason, index: 0, safetyRatings: SAFETY_RATINGS(true) }],
      usageMetadata: { promptTokenCount: 420, totalTokenCount: 420 },
      modelVersion: DEFAULT_MODEL,
      responseId: responseId(),
    },
  };
}

/** The answer hit maxOutputTokens: `text` is what came out before the cut (may be empty). */
export function geminiTruncated(text) {
  return geminiText(text, { finishReason: 'MAX_TOKENS' });
}

/** A non-JSON body with a 200, as a captive portal or proxy would give. */
export function htmlPage(status = 200) {
  return { status, text: '<!doctype html><html><head><title>Sign in to the network</title></head><body>Please sign in.</body></html>', contentType: 'text/html; charset=utf-8' };
}

export const networkDown = (code = 'internetdisconnected') => ({ abort: code });
/** Never answered; with `ms`, answered by `then` after ms (default: never). */
export const hang = (ms = Infinity, then = null) => (Number.isFinite(ms) && then ? { delayMs: ms, then } : { hang: true });
export const delayed = (ms, then) => ({ delayMs: ms, then });

// ---------------------------------------------------------------------------------------------
// Reading a request

/** The prompt's parts: system instruction and user text. */
export function promptParts(body) {
  const texts = (content) => (content?.parts ?? []).map((p) => (typeof p?.text === 'string' ? p.text : '')).join('\n');
  const system = texts(body?.systemInstruction ?? body?.system_instruction);
  const user = (body?.contents ?? []).map(texts).join('\n');
  return { system, user, all: `${system}\n${user}` };
}

/** `id|age|title|url` lines of a ranking prompt. Titles have `|` replaced by the extension, but tolerate it anyway. */
export function parseCandidateLines(text) {
  const out = [];
  for (const line of String(text).split('\n')) {
    const m = /^\s*(\d+)\|([^|]*)\|(.*)\|([^|]*)$/.exec(line);
    if (m) out.push({ id: Number(m[1]), age: m[2].trim(), title: m[3].trim(), url: m[4].trim(), line });
  }
  return out;
}

/**
 * Which call a request is: 'expansion', 'ranking' or 'other' (key test, model listing, ...).
 * The single place to adjust when the prompts change.
 */
export function classifyGeminiCall({ method, path, prompt }) {
  if (method !== 'POST' || !/:generateContent$/.test(path)) return 'other';
  if (parseCandidateLines(prompt.user).length > 0) return 'ranking';
  if (/keyword/i.test(prompt.all)) return 'expansion';
  return 'other';
}

/** The user's question as written in either prompt ("Question: ..."), else the user text's first line. */
export function questionOf(prompt) {
  const m = /^Question:\s*(.*)$/m.exec(prompt.user);
  return (m ? m[1] : prompt.user.split('\n')[0] ?? '').trim();
}

/** How many keywords the expansion prompt asks for ("at most 20 keywords"), or the schema's maxItems. */
export function requestedKeywordCount(call) {
  const m = /at most (\d+) keywords/i.exec(call.prompt.all) ?? /(\d+) keywords/i.exec(call.prompt.all);
  if (m) return Number(m[1]);
  return call.body?.generationConfig?.responseSchema?.maxItems ?? null;
}

// ---------------------------------------------------------------------------------------------
// The smart default handler

const STOP = new Set(
  ('the a an and or of in on at to for with from by about into over that this these those what which who whom where when why how ' +
    'is are was were be been it its i me my we our you your he she they them his her their there here one some any ' +
    'page article site thing stuff read saw seen visited looked found remember last week yesterday today ago few ' +
    'le la les un une des du de et ou en au aux sur pour par avec dans que qui quoi ce cet cette ces mon ma mes ' +
    'est sont était vu lu page article site').split(' '),
);

/** Lowercase, accents removed: for matching only. */
export function fold(s) {
  return String(s ?? '').normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
}

/** The question's content words (lowercase, in order, without duplicates or stop words). */
export function contentWords(question) {
  const seen = new Set();
  const out = [];
  for (const w of String(question).toLowerCase().split(/[^\p{L}\p{N}+#]+/u)) {
    if (w.length < 3 || STOP.has(w) || STOP.has(fold(w)) || seen.has(w)) continue;
    seen.add(w);
    out.push(w);
  }
  return out;
}

/** A few related words a model would add, for the fixture histories' topics. */
const RELATED = {
  cte: ['recursive', 'postgresql', 'sql'],
  ctes: ['recursive', 'postgresql'],
  postgres: ['postgresql', 'sql'],
  postgresql: ['sql', 'postgres'],
  recursive: ['recursion', 'cte'],
  crepes: ['crêpes', 'pâte', 'recette', 'marmiton'],
  crêpes: ['crepes', 'pâte', 'recette', 'marmiton'],
  pancake: ['crêpes', 'crepes', 'recette'],
  mouse: ['logitech', 'wireless'],
  sourdough: ['starter', 'bread', 'levain'],
  bread: ['sourdough', 'baking'],
  train: ['sncf', 'billets', 'lyon'],
  cathedral: ['cathédrale', 'notre-dame', 'paris'],
  rust: ['rust-lang', 'cargo'],
  wasm: ['wasm-bindgen', 'webassembly'],
  event: ['loop', 'javascript'],
  dns: ['resolver', 'cache'],
};

/** Keywords for a question, as a model might give them: its content words, then related words; at most `max`. */
export function smartKeywords(question, max = 20) {
  const out = [];
  const add = (w) => {
    if (out.length < max && !out.includes(w)) out.push(w);
  };
  const words = contentWords(question);
  words.forEach(add);
  for (const w of words) (RELATED[w] ?? RELATED[fold(w)] ?? []).forEach(add);
  return out;
}

/** Candidates sharing words with the question, best first (most shared words, then lowest id), at most `max`. */
export function smartPicks(question, candidates, max = 5) {
  const words = contentWords(question).map(fold);
  const scored = candidates
    .map((c) => {
      const hay = fold(`${c.title} ${c.url}`);
      const hits = words.filter((w) => hay.includes(w));
      return { c, hits };
    })
    .filter((s) => s.hits.length > 0)
    .sort((a, b) => b.hits.length - a.hits.length || a.c.id - b.c.id);
  return scored.slice(0, max).map(({ c, hits }) => ({
    id: c.id,
    reason: `Mentions ${hits.map((h) => `“${h}”`).join(', ')} (${c.title ? 'title' : 'address'}: ${(c.title || c.url).slice(0, 40)})`,
  }));
}

const MODEL_RESOURCE = (model) => ({
  name: `models/${model}`,
  version: '001',
  displayName: 'Gemini 2.5 Flash',
  description: 'Stable version of Gemini 2.5 Flash',
  inputTokenLimit: 1048576,
  outputTokenLimit: 65536,
  supportedGenerationMethods: ['generateContent', 'countTokens', 'createCachedContent', 'batchGenerateContent'],
  temperature: 1,
  topP: 0.95,
  topK: 64,
  maxTemperature: 2,
  thinking: true,
});

/** The text of a successful reply recorded on a call (what the extension got), or null. */
export function replyText(call) {
  return call.replyJson?.candidates?.[0]?.content?.parts?.map((p) => p.text ?? '').join('') ?? null;
}

/** The default answer for each kind of call. */
export function smartReply(call) {
  if (call.kind === 'expansion') {
    const max = requestedKeywordCount(call) ?? 20;
    const keywords = smartKeywords(call.question, max);
    return geminiJson(keywords, { modelVersion: call.model ?? DEFAULT_MODEL, promptTokens: tokens(call.prompt.all) });
  }
  if (call.kind === 'ranking') {
    return geminiJson(smartPicks(call.question, call.candidates), { modelVersion: call.model ?? DEFAULT_MODEL, promptTokens: tokens(call.prompt.all) });
  }
  // other: a key check. generateContent → a short text; countTokens → a count; models.get / list → the model.
  if (/:countTokens$/.test(call.path)) return { status: 200, json: { totalTokens: 3, promptTokensDetails: [{ modality: 'TEXT', tokenCount: 3 }] } };
  if (/:generateContent$/.test(call.path)) return geminiText('OK', { modelVersion: call.model ?? DEFAULT_MODEL, promptTokens: 3 });
  if (call.method === 'GET' && call.model) return { status: 200, json: MODEL_RESOURCE(call.model) };
  if (call.method === 'GET') return { status: 200, json: { models: [MODEL_RESOURCE(DEFAULT_MODEL), MODEL_RESOURCE('gemini-2.5-flash-lite'), MODEL_RESOURCE('gemini-flash-latest')] } };
  return geminiError(404, 'NOT_FOUND', `Method not found.`);
}

// ---------------------------------------------------------------------------------------------
// Installing the stand-in

const KINDS = ['expansion', 'ranking', 'other'];

function describeReply(reply) {
  if (!reply) return 'none';
  if (reply.hang) return 'hang';
  if (reply.abort) return `abort ${reply.abort}`;
  if (reply.delayMs != null) return `after ${reply.delayMs} ms: ${describeReply(reply.then)}`;
  const err = reply.json?.error;
  if (err) return `${reply.status} ${err.status}`;
  const fr = reply.json?.candidates?.[0]?.finishReason;
  const block = reply.json?.promptFeedback?.blockReason;
  return `${reply.status}${block ? ` blocked ${block}` : fr ? ` ${fr}` : ''}${reply.text != null ? ' (non-JSON body)' : ''}`;
}

/**
 * Install the stand-in on `context` (call before the extension makes any Gemini request).
 * @param {import('playwright-core').BrowserContext} context
 */
export async function installGemini(context) {
  const queues = Object.fromEntries(KINDS.map((k) => [k, []]));
  const defaults = {};
  const calls = [];
  const preflights = [];
  const waiters = new Set();
  let closed = false;
  const releases = new Set();

  const gemini = {
    /** Every non-preflight request, in order: {kind, method, url, path, model, headers, apiKey, body, prompt, question, candidates, source, at, reply, answeredAt}. */
    requests: calls,
    /** CORS preflights (OPTIONS), answered like the real API. */
    preflights,
    /** Keys answered with 400 API_KEY_INVALID. */
    refusedKeys: new Set(),
    /** Models answered with 404 NOT_FOUND. */
    unavailableModels: new Set(),
    /** Queue replies for the next calls of `kind` ('expansion' | 'ranking' | 'other'). */
    queue(kind, ...replies) {
      if (!queues[kind]) throw new Error(`unknown call kind ${kind}`);
      queues[kind].push(...replies);
      return gemini;
    },
    /** Answer every call of `kind` with `reply` (data or function) once its queue is empty; null restores the smart handler. */
    setDefault(kind, reply) {
      if (!queues[kind]) throw new Error(`unknown call kind ${kind}`);
      if (reply == null) delete defaults[kind];
      else defaults[kind] = reply;
      return gemini;
    },
    /** Answer every Gemini request (all kinds) with `reply`. */
    setAll(reply) {
      KINDS.forEach((k) => gemini.setDefault(k, reply));
      return gemini;
    },
    refuseKey(key) {
      gemini.refusedKeys.add(key);
      return gemini;
    },
    /** Calls of one kind (or all). */
    calls(kind) {
      return kind ? calls.filter((c) => c.kind === kind) : calls.slice();
    },
    /** Pending queued replies per kind (a test can check its script was consumed). */
    pending() {
      return Object.fromEntries(KINDS.map((k) => [k, queues[k].length]));
    },
    /** Resolves when at least `n` calls (of `kind`, if given) were made. */
    waitForCalls(n, { kind, timeout = 30_000 } = {}) {
      const count = () => (kind ? calls.filter((c) => c.kind === kind).length : calls.length);
      if (count() >= n) return Promise.resolve(gemini.calls(kind));
      return new Promise((resolve, reject) => {
        const w = () => {
          if (count() >= n) {
            clearTimeout(timer);
            waiters.delete(w);
            resolve(gemini.calls(kind));
          }
        };
        const timer = setTimeout(() => {
          waiters.delete(w);
          reject(new Error(`expected ${n} Gemini call(s)${kind ? ` of kind ${kind}` : ''} within ${timeout} ms; got ${count()}:\n${gemini.describe()}`));
        }, timeout);
        waiters.add(w);
      });
    },
    /** One line per call, for assertion messages. */
    describe() {
      if (!calls.length) return '  (no Gemini request)';
      return calls
        .map((c, i) => `  #${i + 1} ${c.kind} ${c.method} ${c.path}${c.urlHasKey ? ' [KEY IN URL]' : ''} key=${c.apiKey ? (c.apiKey === TEST_KEY ? 'TEST_KEY' : c.apiKey === BAD_KEY ? 'BAD_KEY' : 'other') : 'none'} from ${c.source} → ${c.reply}`)
        .join('\n');
    },
    /** Unblock hung requests (they are then aborted) — for cleanup. */
    releaseHangs() {
      for (const r of releases) r();
      releases.clear();
    },
    async uninstall() {
      closed = true;
      gemini.releaseHangs();
      await context.unroute(GEMINI_PATTERN, handler).catch(() => {});
    },
  };

  const sourceOf = (request) => {
    const sw = request.serviceWorker?.();
    if (sw) return `service worker ${sw.url()}`;
    try {
      const frame = request.frame();
      return `page ${frame.page()?.url() ?? frame.url()}`;
    } catch {
      return 'unknown';
    }
  };

  async function answer(route, call, reply) {
    while (typeof reply === 'function') reply = await reply(call);
    if (!reply) reply = smartReply(call);
    if (reply.delayMs != null) {
      const ms = reply.delayMs;
      await new Promise((resolve) => {
        const t = setTimeout(resolve, ms);
        releases.add(() => {
          clearTimeout(t);
          resolve();
        });
      });
      if (closed) return route.abort('aborted').catch(() => {});
      return answer(route, call, reply.then);
    }
    call.reply = describeReply(reply);
    if (reply.hang) {
      await new Promise((resolve) => releases.add(resolve));
      return route.abort('aborted').catch(() => {});
    }
    call.answeredAt = Date.now();
    call.status = reply.abort ? null : reply.status ?? 200;
    call.replyJson = reply.json ?? null;
    if (reply.abort) return route.abort(reply.abort).catch(() => {});
    const headers = { ...JSON_HEADERS, ...(reply.contentType ? { 'content-type': reply.contentType } : {}), ...(reply.headers ?? {}) };
    const body = reply.text != null ? reply.text : JSON.stringify(reply.json ?? {});
    return route.fulfill({ status: reply.status ?? 200, headers, body }).catch(() => {});
  }

  async function handler(route) {
    const request = route.request();
    const method = request.method();
    const url = request.url();
    const headers = await request.allHeaders().catch(() => request.headers());
    if (method === 'OPTIONS') {
      preflights.push({ url, headers, at: Date.now() });
      return route
        .fulfill({
          status: 200,
          headers: {
            'access-control-allow-origin': '*',
            'access-control-allow-methods': 'DELETE,GET,HEAD,PATCH,POST,PUT',
            'access-control-allow-headers': headers['access-control-request-headers'] ?? 'content-type,x-goog-api-key',
            'access-control-max-age': '3600',
            vary: 'Origin, X-Origin, Referer',
          },
          body: '',
        })
        .catch(() => {});
    }
    const u = new URL(url);
    const rawBody = request.postData();
    let body = null;
    try {
      body = rawBody ? JSON.parse(rawBody) : null;
    } catch {
      body = { unparsable: rawBody };
    }
    const modelMatch = /\/models\/([^/:]+)/.exec(u.pathname);
    const prompt = promptParts(body);
    const apiKey = headers['x-goog-api-key'] ?? null;
    const call = {
      method,
      url,
      path: u.pathname,
      model: modelMatch ? decodeURIComponent(modelMatch[1]) : null,
      headers,
      apiKey,
      urlHasKey: u.searchParams.has('key') || (apiKey ? url.includes(apiKey) : false) || /AIza/.test(url),
      rawBody,
      body,
      prompt,
      source: sourceOf(request),
      at: Date.now(),
      reply: null,
    };
    call.kind = classifyGeminiCall(call);
    call.question = questionOf(prompt);
    call.candidates = call.kind === 'ranking' ? parseCandidateLines(prompt.user) : [];
    calls.push(call);
    for (const w of [...waiters]) w();

    let reply;
    const keyParam = u.searchParams.get('key');
    const key = apiKey ?? keyParam;
    if (!key) reply = geminiError.unregisteredCaller();
    else if (gemini.refusedKeys.has(key)) reply = geminiError.keyInvalid();
    else if (call.model && gemini.unavailableModels.has(call.model)) reply = geminiError.modelNotFound(call.model);
    else if (queues[call.kind].length) reply = queues[call.kind].shift();
    else if (defaults[call.kind] !== undefined) reply = defaults[call.kind];
    else reply = smartReply;
    return answer(route, call, reply);
  }

  await context.route(GEMINI_PATTERN, handler);
  return gemini;
}
