// A stand-in for Chrome's built-in Prompt API (`LanguageModel`, Gemini Nano), installed by the
// test harness where the extension uses the API: into every page of the browser context before any
// page script runs (`context.addInitScript`, which Playwright applies to chrome-extension:// pages
// too — checked: the popup and options pages see it), and into the running service worker, which
// runs the on-device searches (`serviceWorker.evaluate`: the worker looks `LanguageModel` up at each
// call, so a stand-in installed after it started is the one it finds). The extension's code is
// unchanged: it finds this `LanguageModel` where Chrome's would be.
//
//   await installLanguageModel(ext, { availability: 'available', contextWindow: 1200 });
//   const popup = await openPopup(ext);
//   ... search ...
//   const calls = await lmCalls(ext.serviceWorker);   // every call the worker made, with prompts and schemas
//   const clicks = await lmCalls(popup);               // the popup's own (availability, the download)
//
// What it imitates (the shape the explainer and Chrome document, and this Chromium's messages):
// - `LanguageModel.availability(options)` → the configured state;
// - `LanguageModel.create({monitor, signal, expectedInputs, ...})`: `monitor(m)` is called with an
//   EventTarget; when the state is "downloadable"/"downloading" it fires `downloadprogress`
//   ProgressEvents (`loaded` 0..1, total 1) then resolves, and the state becomes "available" for
//   the whole extension, worker included (kept in `chrome.storage.session`); without user
//   activation in those states it rejects with NotAllowedError, like Chrome (a worker never has
//   one); "unavailable" rejects with this Chromium's real NotSupportedError;
// - a session: `contextWindow`, `contextUsage`, `measureContextUsage(text)` (≈ length / 4),
//   `clone({signal})`, `prompt(text, {responseConstraint, signal})`, `destroy()`. A prompt over the
//   window rejects with QuotaExceededError; a responseConstraint that is not JSON Schema (types
//   other than the lowercase JSON Schema ones) rejects with NotSupportedError; aborting `signal`
//   rejects with the signal's reason (an AbortError DOMException); a destroyed session rejects
//   with InvalidStateError, and destroying it aborts its pending prompts.
// - answers like a smart model: for the keyword expansion (schema: array of strings) the
//   question's content words and a few related words; for the ranking (candidate lines
//   `id|age|title|url`) the lines sharing words with the question, with a reason each.
//
// Failures and hangs are configurable per call kind; every call is recorded on
// `globalThis.__lmCalls` of the page or worker that made it; `globalThis.__lmConfig` can be changed
// while it runs (`configureLanguageModel`).

/** Chromium's own message when the model cannot run here (seen from this Chromium's real API). */
export const SERVICE_NOT_RUNNING = 'Unable to create a text session because the service is not running.';

export const LM_DEFAULTS = {
  /** 'available' | 'downloadable' | 'downloading' | 'unavailable' (shared by the origin's pages once changed). */
  availability: 'available',
  /** Download progress fired by create() when downloadable/downloading: `loaded` values and the pause between them. */
  download: { steps: [0, 0.1, 0.25, 0.4, 0.55, 0.7, 0.85, 1], intervalMs: 350 },
  /** "downloading" starts part-way: progress events start at this fraction. */
  downloadingFrom: 0.4,
  /** Like Chrome: create() while downloadable/downloading needs transient user activation. */
  requireActivation: true,
  /** {name, message}: create() rejects with this DOMException. */
  createError: null,
  /** Tokens in a session's window, and used by the base session (no initial prompts: a little). */
  contextWindow: 9216,
  contextUsage: 0,
  /** Sessions use Chrome's older member names (inputQuota, inputUsage, measureInputUsage). */
  legacyNames: false,
  /** Tokens per character for measureContextUsage and the window check. */
  tokensPerChar: 0.25,
  /** Delay of each prompt answer (ms). */
  promptDelayMs: 40,
  /** Per call kind ('expansion' | 'ranking' | 'any'): {name, message} — the prompt rejects with it. */
  fail: {},
  /** Call kind whose prompt never answers (until its signal aborts or its session is destroyed). */
  hang: null,
  /**
   * Call kind whose prompt waits until `releaseLanguageModel` (or its signal aborts), then answers;
   * 'create': `LanguageModel.create` waits so (the session a search makes before it starts).
   */
  hold: null,
  /** Call kind after whose answer the base session is destroyed (as Chrome may do), or null. */
  destroyBaseAfter: null,
  /** Per call kind: a raw text answer instead of the smart one. */
  reply: {},
  /** Words a model would add to the question's own, for the fixture histories' topics. */
  related: {
    cte: ['recursive', 'postgresql', 'sql'],
    postgresql: ['sql', 'postgres'],
    recursive: ['recursion', 'cte'],
    crepes: ['crêpes', 'pâte', 'recette', 'marmiton'],
    sourdough: ['starter', 'bread', 'levain'],
    mouse: ['logitech', 'wireless'],
    rust: ['rust-lang', 'cargo'],
  },
};

/** Install the stand-in in every page of `ext` opened from now on, and in its running service worker. */
export async function installLanguageModel(ext, config = {}) {
  const merged = { ...LM_DEFAULTS, ...config, download: { ...LM_DEFAULTS.download, ...(config.download ?? {}) } };
  await ext.context.addInitScript(languageModelStub, merged);
  const worker = ext.serviceWorker;
  if (!worker) throw new Error('the extension has no running service worker to install the LanguageModel stand-in into');
  await worker.evaluate(languageModelStub, merged);
  return merged;
}

/** Every call a page or the service worker (`target`) made so far (a structured-clone-able copy). */
export async function lmCalls(target) {
  return target.evaluate(() => JSON.parse(JSON.stringify(globalThis.__lmCalls ?? null)));
}

/**
 * Change the running stand-in's configuration in `target` (a page, or the service worker, which
 * runs the searches); an `availability` is the whole extension's.
 */
export async function configureLanguageModel(target, patch) {
  await target.evaluate(async (patch) => {
    if (!globalThis.__lmConfig) throw new Error('the LanguageModel stand-in is not installed here');
    Object.assign(globalThis.__lmConfig, patch);
    if (patch.availability) await chrome.storage.session.set({ '__lmStub:availability': patch.availability });
  }, patch);
}

/** Lets the prompts held by `hold` in `target` (a page, or the service worker) answer. */
export async function releaseLanguageModel(target) {
  await target.evaluate(() => globalThis.__lmRelease());
}

/** One line per call, for assertion messages. */
export function describeLmCalls(calls) {
  if (!calls) return '  (the stand-in was not installed in this page)';
  const lines = [];
  for (const c of calls.log) lines.push(`  ${c}`);
  return lines.join('\n') || '  (no call)';
}

/** `id|age|title|url` lines of a ranking prompt. */
export function candidateLines(text) {
  const out = [];
  for (const line of String(text).split('\n')) {
    const m = /^\s*(\d+)\|([^|]*)\|(.*)\|([^|]*)$/.exec(line);
    if (m) out.push({ id: Number(m[1]), age: m[2].trim(), title: m[3].trim(), url: m[4].trim() });
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// The stand-in itself: runs in the page, so it is self-contained.

function languageModelStub(initial) {
  const config = (globalThis.__lmConfig = JSON.parse(JSON.stringify(initial)));
  const calls = (globalThis.__lmCalls = {
    availability: [],
    create: [],
    clones: 0,
    clonesDestroyed: 0,
    basesDestroyed: 0,
    prompts: [],
    measures: [],
    progress: [],
    log: [],
  });
  // The availability, shared by the extension's pages and its worker once it changed.
  const SHARED = '__lmStub:availability';
  const state = async () => {
    try {
      return (await chrome.storage.session.get(SHARED))[SHARED] ?? config.availability;
    } catch {
      return config.availability;
    }
  };
  const setState = async (value) => {
    config.availability = value;
    try {
      await chrome.storage.session.set({ [SHARED]: value });
    } catch {
      /* not an extension page: this page only */
    }
  };
  const log = (line) => calls.log.push(`${new Date().toISOString().slice(11, 23)} ${line}`);
  const reasonOf = (signal) => signal.reason ?? new DOMException('The operation was aborted.', 'AbortError');
  const tokens = (text) => Math.ceil(String(text).length * config.tokensPerChar);
  const sleep = (ms, signal) =>
    new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(reasonOf(signal));
      const timer = setTimeout(resolve, ms);
      signal?.addEventListener('abort', () => {
        clearTimeout(timer);
        reject(reasonOf(signal));
      }, { once: true });
    });

  // --- a small "smart model" ---
  const STOP = new Set(('the a an and or of in on at to for with from by about into over that this these those what which who ' +
    'where when why how is are was were be been it its i me my we our you your they them there here one some any page article ' +
    'site thing read saw seen visited looked found remember last week yesterday today ago few le la les un une des du de et ou ' +
    'en au sur pour par avec dans que qui').split(' '));
  const fold = (s) => String(s ?? '').normalize('NFD').replace(/\p{M}/gu, '').toLowerCase();
  const contentWords = (question) => {
    const out = [];
    for (const w of String(question).toLowerCase().split(/[^\p{L}\p{N}+#-]+/u)) {
      if (w.length < 3 || STOP.has(w) || out.includes(w)) continue;
      out.push(w);
    }
    return out;
  };
  const questionOf = (text) => (/^Question:\s*(.*)$/m.exec(text)?.[1] ?? '').trim();
  const linesOf = (text) => {
    const out = [];
    for (const line of String(text).split('\n')) {
      const m = /^\s*(\d+)\|([^|]*)\|(.*)\|([^|]*)$/.exec(line);
      if (m) out.push({ id: Number(m[1]), title: m[3].trim(), url: m[4].trim() });
    }
    return out;
  };
  const keywords = (question, max) => {
    const out = [];
    const words = contentWords(question);
    for (const w of words) if (!out.includes(w)) out.push(w);
    for (const w of words) for (const r of config.related[w] ?? config.related[fold(w)] ?? []) if (!out.includes(r)) out.push(r);
    return out.slice(0, max ?? 20);
  };
  const picks = (question, lines, max) => {
    const words = contentWords(question).map(fold);
    return lines
      .map((c) => ({ c, hits: words.filter((w) => fold(`${c.title} ${c.url}`).includes(w)) }))
      .filter((s) => s.hits.length)
      .sort((a, b) => b.hits.length - a.hits.length || a.c.id - b.c.id)
      .slice(0, max ?? 5)
      .map(({ c, hits }) => ({ id: c.id, reason: `On-device pick: mentions ${hits.map((h) => `“${h}”`).join(', ')}` }));
  };
  const JSON_TYPES = new Set(['string', 'number', 'integer', 'boolean', 'object', 'array', 'null']);
  const badTypes = (schema, at = '$') => {
    if (!schema || typeof schema !== 'object') return [];
    const out = [];
    if ('type' in schema && !(typeof schema.type === 'string' ? JSON_TYPES.has(schema.type) : Array.isArray(schema.type) && schema.type.every((t) => JSON_TYPES.has(t)))) {
      out.push(`${at}.type=${JSON.stringify(schema.type)}`);
    }
    for (const [k, v] of Object.entries(schema)) if (v && typeof v === 'object') out.push(...badTypes(v, `${at}.${k}`));
    return out;
  };
  const kindOf = (text, constraint) => {
    if (constraint?.type === 'array' && constraint.items?.type === 'string') return 'expansion';
    if (linesOf(text).length) return 'ranking';
    if (/keyword/i.test(text)) return 'expansion';
    return 'other';
  };
  const failureFor = (kind) => config.fail?.[kind] ?? config.fail?.any ?? null;
  const held = [];
  globalThis.__lmRelease = () => {
    for (const go of held.splice(0)) go();
  };
  /** Waits for `releaseLanguageModel`; rejects with the abort reason if `signal` aborts first. */
  const untilReleased = (signal) =>
    new Promise((resolve, reject) => {
      held.push(resolve);
      signal?.addEventListener('abort', () => reject(reasonOf(signal)), { once: true });
    });

  let sessions = 0;
  class LanguageModelSession extends EventTarget {
    #destroyed = false;
    #pending = new Set();
    constructor(options, base) {
      super();
      this.id = ++sessions;
      this.isClone = Boolean(base);
      this.base = base ?? null;
      this.options = options;
      if (config.legacyNames) {
        // Chrome before the rename: inputQuota / inputUsage / measureInputUsage.
        this.inputQuota = config.contextWindow;
        this.inputUsage = config.contextUsage;
        this.measureInputUsage = (text) => this.#measure(text);
        this.measureContextUsage = undefined;
      } else {
        this.contextWindow = config.contextWindow;
        this.contextUsage = config.contextUsage;
      }
      this.topK = 3;
      this.temperature = 1;
    }
    #check(what) {
      if (this.#destroyed || this.base?.destroyedFlag) {
        throw new DOMException('The model execution session has been destroyed.', 'InvalidStateError');
      }
      return what;
    }
    get destroyedFlag() {
      return this.#destroyed;
    }
    measureContextUsage(text) {
      return this.#measure(text);
    }
    async #measure(text) {
      this.#check();
      const n = tokens(text);
      calls.measures.push({ session: this.id, chars: String(text).length, tokens: n });
      log(`measureContextUsage(${String(text).length} chars) on #${this.id} -> ${n}`);
      return n;
    }
    async clone(options = {}) {
      log(`clone() of #${this.id}${options.signal ? ' with signal' : ''}`);
      if (options.signal?.aborted) throw reasonOf(options.signal);
      this.#check();
      calls.clones++;
      return new LanguageModelSession(this.options, this);
    }
    async prompt(input, options = {}) {
      const text = String(input);
      const constraint = options.responseConstraint ?? null;
      const kind = kindOf(text, constraint);
      const record = {
        session: this.id,
        onClone: this.isClone,
        kind,
        text,
        question: questionOf(text),
        candidateLines: linesOf(text),
        responseConstraint: constraint === null ? null : JSON.parse(JSON.stringify(constraint)),
        signal: Boolean(options.signal),
        tokens: tokens(text),
        outcome: 'pending',
      };
      calls.prompts.push(record);
      log(`prompt(${kind}, ${text.length} chars, ${record.candidateLines.length} candidate lines) on #${this.id}`);
      const settle = (outcome, value) => {
        record.outcome = outcome;
        log(`  -> ${kind} ${outcome}${value ? `: ${String(value).slice(0, 120)}` : ''}`);
      };
      try {
        this.#check();
        if (options.signal?.aborted) throw reasonOf(options.signal);
        const bad = badTypes(constraint);
        if (bad.length) throw new DOMException(`The response constraint is not a valid JSON schema (${bad.join(', ')}).`, 'NotSupportedError');
        const available = (this.contextWindow ?? this.inputQuota) - (this.contextUsage ?? this.inputUsage);
        if (record.tokens > available) throw new DOMException(`The input is too large: ${record.tokens} tokens, ${available} available.`, 'QuotaExceededError');
        // Pending prompts end when the signal aborts or the session is destroyed.
        let cancelPending;
        const stop = new Promise((_, reject) => {
          cancelPending = reject;
        });
        stop.catch(() => {});
        this.#pending.add(cancelPending);
        const base = this.base;
        if (base) base.#pending.add(cancelPending);
        try {
          const work = (async () => {
            if (config.hang === kind || config.hang === 'any') {
              record.hung = true;
              await new Promise((resolve, reject) => options.signal?.addEventListener('abort', () => reject(reasonOf(options.signal)), { once: true }));
            }
            if (config.hold === kind || config.hold === 'any') {
              record.held = true;
              log(`  (${kind} held until released)`);
              await untilReleased(options.signal);
            }
            await sleep(config.promptDelayMs, options.signal);
            const failure = failureFor(kind);
            if (failure) throw new DOMException(failure.message ?? failure.name, failure.name);
            if (config.reply?.[kind] !== undefined) return String(config.reply[kind]);
            if (kind === 'expansion') return JSON.stringify(keywords(record.question, constraint?.maxItems));
            if (kind === 'ranking') return JSON.stringify(picks(record.question, record.candidateLines, constraint?.maxItems));
            return 'OK';
          })();
          work.catch(() => {}); // when `stop` wins, `work` may reject later: not an unhandled rejection
          const answer = await Promise.race([work, stop]);
          this.#check();
          settle('answered', answer);
          record.answer = answer;
          if (config.destroyBaseAfter === kind) {
            const root = this.base ?? this;
            log(`  (the stand-in destroys base session #${root.id} after the ${kind})`);
            root.destroy();
            calls.basesDestroyedByStandIn = (calls.basesDestroyedByStandIn ?? 0) + 1;
          }
          return answer;
        } finally {
          this.#pending.delete(cancelPending);
          base?.#pending.delete(cancelPending);
        }
      } catch (error) {
        settle(`rejected ${error?.name}`, error?.message);
        record.error = { name: error?.name, message: error?.message };
        throw error;
      }
    }
    promptStreaming() {
      throw new DOMException('promptStreaming is not part of the stand-in', 'NotSupportedError');
    }
    destroy() {
      if (this.#destroyed) return;
      this.#destroyed = true;
      if (this.isClone) calls.clonesDestroyed++;
      else calls.basesDestroyed++;
      log(`destroy() #${this.id}${this.isClone ? ' (clone)' : ' (base)'}`);
      for (const reject of this.#pending) reject(new DOMException('The model execution session has been destroyed.', 'AbortError'));
      this.#pending.clear();
    }
  }

  class LanguageModel extends EventTarget {
    static async availability(options = {}) {
      const value = await state();
      calls.availability.push({ options: JSON.parse(JSON.stringify(options ?? {})), value });
      log(`availability() -> ${value}`);
      return value;
    }
    static async params() {
      return { defaultTopK: 3, maxTopK: 128, defaultTemperature: 1, maxTemperature: 2 };
    }
    static async create(options = {}) {
      const value = await state();
      const activation = navigator.userActivation?.isActive ?? null;
      calls.create.push({
        availability: value,
        userActivation: activation,
        monitor: typeof options.monitor === 'function',
        signal: Boolean(options.signal),
        expectedInputs: options.expectedInputs ?? null,
        expectedOutputs: options.expectedOutputs ?? null,
        initialPrompts: options.initialPrompts ?? null,
      });
      log(`create() while ${value}, user activation ${activation}`);
      if (config.hold === 'create') {
        calls.create.at(-1).held = true;
        log('  (create held until released)');
        await untilReleased(options.signal);
      }
      if (options.signal?.aborted) throw reasonOf(options.signal);
      if (config.createError) throw new DOMException(config.createError.message ?? config.createError.name, config.createError.name);
      if (value === 'unavailable') throw new DOMException('Unable to create a text session because the service is not running.', 'NotSupportedError');
      if (value === 'downloadable' || value === 'downloading') {
        if (config.requireActivation && !activation) {
          throw new DOMException('Requires a user gesture when availability is "downloading" or "downloadable".', 'NotAllowedError');
        }
        const monitor = new EventTarget();
        if (typeof options.monitor === 'function') options.monitor(monitor);
        const from = value === 'downloading' ? config.downloadingFrom : 0;
        const steps = config.download.steps.filter((s) => s >= from);
        if (steps[0] !== from) steps.unshift(from);
        if (value !== 'downloading') await setState('downloading');
        for (const loaded of steps) {
          await sleep(config.download.intervalMs, options.signal);
          calls.progress.push(loaded);
          log(`downloadprogress ${loaded}`);
          monitor.dispatchEvent(new ProgressEvent('downloadprogress', { loaded, total: 1, lengthComputable: true }));
        }
        await setState('available');
      }
      return new LanguageModelSession(options, null);
    }
  }
  Object.defineProperty(globalThis, 'LanguageModel', { value: LanguageModel, writable: true, configurable: true, enumerable: false });
}
