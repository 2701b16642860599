// AI mode helpers: launch with the Gemini stand-in, set the key (directly in storage, or through the
// options page), read AI turns, and look for the key where it must never be.
import assert from 'node:assert/strict';
import { launchExtension } from './launch.mjs';
import { installGemini, TEST_KEY } from './gemini.mjs';
import { SEL, openPopup, statusText } from './popup.mjs';
import { demoHistory } from './fixtures.mjs';
import { sharedBrowser, waitForInstalledSettings } from './session.mjs';

/**
 * Field names of AI settings inside chrome.storage.sync `settings` — the single place to adjust to
 * crates/history-chat-core/src/settings.rs.
 */
export const AI_FIELDS = { key: 'geminiApiKey', depth: 'depth', model: 'model', provider: 'provider' };

export const DEPTHS = { superficial: 5, regular: 20, exhaustive: 50, sheerlock: 100 };

export const OPTIONS = {
  key: 'input[aria-label="Gemini API key"]',
  model: 'input[type="text"][aria-label="Gemini model"]',
  depthGroup: '[role="radiogroup"][aria-label="Search depth"]',
  depth: (value) => `input[type="radio"][name="depth"][value="${value}"]`,
};

export { waitForInstalledSettings };

/**
 * Merge AI settings into chrome.storage.sync `settings` from an extension page.
 * `key: null` removes the key field.
 */
export async function setAiSettings(page, { key = TEST_KEY, depth, model, provider, extra = {} } = {}) {
  await waitForInstalledSettings(page);
  const patch = { ...extra };
  if (depth !== undefined) patch[AI_FIELDS.depth] = depth;
  if (model !== undefined) patch[AI_FIELDS.model] = model;
  if (provider !== undefined) patch[AI_FIELDS.provider] = provider;
  await page.evaluate(
    async ({ patch, keyField, key }) => {
      const { settings = {} } = await chrome.storage.sync.get('settings');
      const next = { ...settings, ...patch };
      if (key === null) delete next[keyField];
      else next[keyField] = key;
      await chrome.storage.sync.set({ settings: next });
    },
    { patch, keyField: AI_FIELDS.key, key },
  );
}

export async function readSettings(page) {
  return (await page.evaluate(() => chrome.storage.sync.get('settings'))).settings;
}

/**
 * Launch with a seeded history, the Gemini stand-in, and (unless key: null) a key in settings.
 * Returns {ext, gemini}; the settings page used to write is closed.
 */
export async function launchAi({ history, key = TEST_KEY, depth, model, provider, viewport, pastGrants } = {}) {
  const ext = await launchExtension({ history, viewport, pastGrants });
  try {
    const gemini = await installGemini(ext.context);
    const page = await ext.context.newPage();
    await page.goto(ext.url('manifest.json')); // an extension-origin page running none of its code
    if (key !== null || depth !== undefined || model !== undefined) await setAiSettings(page, { key, depth, model, provider });
    await page.close();
    return { ext, gemini };
  } catch (e) {
    await ext.close();
    throw e;
  }
}

/**
 * Launches as `launchAi` does and runs `fn({ ext, gemini })`; a failure's message gets the Gemini
 * requests made, and held replies are released and the browser closed whatever happened.
 */
export async function withGemini(opts, fn) {
  const { ext, gemini } = await launchAi(opts);
  try {
    await fn({ ext, gemini });
  } catch (e) {
    e.message += `\nGemini requests:\n${gemini.describe()}`;
    throw e;
  } finally {
    gemini.releaseHangs();
    await ext.close();
  }
}

/**
 * The browser a file's AI tests over the demo history share (session.mjs `sharedBrowser`, reset
 * between tests): `run(opts, fn)` puts the AI settings of `opts` (the test key unless `key: null`)
 * over the installed ones, installs a new Gemini stand-in, and runs `fn({ ext, gemini, history,
 * now })`; a failure's message gets the Gemini requests made, and held replies are released, the
 * worker's search waited for and the stand-in removed, whatever happened. The history's visits are
 * relative to `now`, the time of the file's start.
 */
export function sharedGemini() {
  const now = Date.now();
  const history = demoHistory(now);
  const shared = sharedBrowser({ history });
  return {
    now,
    history,
    async run(opts, fn) {
      const ext = await shared.fresh();
      const gemini = await installGemini(ext.context);
      let failed = false;
      try {
        const page = await ext.openPage('manifest.json'); // an extension-origin page running none of its code
        await setAiSettings(page, opts);
        await page.close();
        await fn({ ext, gemini, history, now });
      } catch (e) {
        failed = true;
        e.message += `\nGemini requests:\n${gemini.describe()}`;
        throw e;
      } finally {
        gemini.releaseHangs();
        try {
          await shared.settle();
        } catch (e) {
          // After a failure, the test's own error is the one to report (the browser is replaced).
          if (!failed) throw e;
        } finally {
          await gemini.uninstall();
        }
      }
    },
    close: () => shared.close(),
  };
}

// ---------------------------------------------------------------------------------------------
// Reading AI turns (the popup contract's AI additions)

/**
 * The conversation's turns with the AI parts: results (href, title, reason), keywords (text of the
 * <details class="keywords"> and whether it is open), notices, cancelled wording.
 */
export async function readAiTurns(page) {
  const turns = await page.evaluate((sel) => {
    const section = document.querySelector(sel.conversation);
    if (!section) return { error: `no ${sel.conversation} in the popup` };
    return [...section.querySelectorAll('article.turn')].map((turn) => {
      const problems = [];
      const lists = turn.querySelectorAll('ul[role="list"]');
      if (lists.length > 1) problems.push(`${lists.length} result lists in one turn`);
      const items = lists.length ? [...lists[0].children].filter((c) => c.tagName === 'LI') : [];
      const results = items.map((li, i) => {
        const anchors = li.querySelectorAll('a');
        if (anchors.length !== 1) problems.push(`result li #${i + 1} holds ${anchors.length} <a> (expected exactly 1)`);
        const a = anchors[0];
        const reasons = li.querySelectorAll('p.reason');
        if (reasons.length > 1) problems.push(`result li #${i + 1} holds ${reasons.length} p.reason`);
        return {
          href: a?.getAttribute('href') ?? null,
          title: a?.querySelector('span.title')?.textContent?.trim() ?? null,
          reason: reasons[0]?.textContent?.trim() ?? null,
          sources: [...li.querySelectorAll('.sources .source')].map((source) => source.textContent.trim()),
        };
      });
      const details = turn.querySelector('details.keywords');
      const summary = details?.querySelector('summary');
      let keywordsText = null;
      if (details) {
        const clone = details.cloneNode(true);
        clone.querySelector('summary')?.remove();
        keywordsText = clone.textContent.replace(/\s+/g, ' ').trim();
      }
      return {
        question: turn.querySelector('p.question')?.textContent?.trim() ?? null,
        results,
        hasList: lists.length > 0,
        notices: [...turn.querySelectorAll('p.notice')].map((p) => p.textContent.trim()),
        keywords: details ? { open: details.open, summary: summary?.textContent?.trim() ?? null, text: keywordsText } : null,
        allAnchors: [...turn.querySelectorAll('a')].map((a) => a.getAttribute('href')),
        text: turn.textContent.replace(/\s+/g, ' ').trim(),
        problems,
      };
    });
  }, SEL);
  if (turns.error) throw new Error(turns.error);
  for (const [i, t] of turns.entries()) assert.deepEqual(t.problems, [], `turn #${i + 1} ("${t.question}") breaks the markup contract`);
  return turns;
}

export function describeAiTurn(turn) {
  if (!turn) return '(no turn)';
  const lines = [`"${turn.question}"`];
  for (const n of turn.notices) lines.push(`    notice: ${n}`);
  for (const r of turn.results) lines.push(`    ${r.href}  [${r.title}]  reason: ${JSON.stringify(r.reason)}`);
  if (turn.keywords) lines.push(`    keywords (${turn.keywords.open ? 'open' : 'closed'}): ${turn.keywords.text}`);
  if (!turn.results.length && !turn.notices.length) lines.push(`    text: ${turn.text.slice(0, 300)}`);
  return lines.join('\n');
}

/** Every text a user may read after a search: alerts, status, notices of all turns. */
export async function visibleMessages(page) {
  return page.evaluate((sel) => {
    const texts = [];
    for (const el of document.querySelectorAll(`${sel.alert}, ${sel.status}, p.notice`)) {
      const t = el.textContent.trim();
      if (t) texts.push(t);
    }
    return texts;
  }, SEL);
}

/**
 * Ask in AI mode: type, Enter, wait until the newest turn is for `question` and the conversation is
 * not busy; longer default timeout (retries and time limits take real seconds).
 */
export async function askAi(page, question, { period, timeout = 60_000 } = {}) {
  if (period) await page.locator(SEL.period).selectOption(period);
  const before = await page.locator(SEL.turn).count();
  const box = page.locator(SEL.search);
  await box.fill(question);
  await box.press('Enter');
  try {
    await page.waitForFunction(
      ({ sel, question, before }) => {
        const section = document.querySelector(sel.conversation);
        if (!section || section.getAttribute('aria-busy') !== 'false') return false;
        const turns = section.querySelectorAll('article.turn');
        return turns.length > before && turns[0].querySelector('p.question')?.textContent?.trim() === question.trim();
      },
      { sel: SEL, question, before },
      { timeout, polling: 100 },
    );
  } catch {
    const state = await page
      .evaluate((sel) => ({
        busy: document.querySelector(sel.conversation)?.getAttribute('aria-busy'),
        turns: [...document.querySelectorAll(`${sel.conversation} article.turn p.question`)].map((p) => p.textContent.trim()),
        status: document.querySelector(sel.status)?.textContent?.trim(),
        alert: document.querySelector(sel.alert)?.textContent?.trim(),
      }), SEL)
      .catch((e) => ({ error: String(e) }));
    throw new Error(`No AI answer for "${question}" within ${timeout} ms (turns before: ${before}; now: ${JSON.stringify(state)})`);
  }
  return (await readAiTurns(page))[0];
}

/** Start a search without waiting for its answer. */
export async function submit(page, question) {
  const box = page.locator(SEL.search);
  await box.fill(question);
  await box.press('Enter');
}

/**
 * (Re)starts recording, in the page, every text the status line shows (a MutationObserver), so that a
 * short-lived step is not missed between two polls. Call it before submitting when the step to wait
 * for may be brief; waitForStatus starts it itself otherwise.
 */
export async function recordStatuses(page) {
  await page.evaluate((sel) => {
    const read = () => [...document.querySelectorAll(sel)].map((e) => e.textContent.trim()).filter(Boolean).join(' | ');
    const seen = (window.__hcStatuses = []);
    const push = () => {
      const text = read();
      if (text && seen.at(-1) !== text) seen.push(text);
    };
    push();
    window.__hcStatusObserver?.disconnect();
    window.__hcStatusObserver = new MutationObserver(push);
    window.__hcStatusObserver.observe(document.body, { subtree: true, childList: true, characterData: true });
  }, SEL.status);
}

/**
 * Waits until the status line has shown a text matching `re` since the recording started (see
 * recordStatuses); returns that text or throws with what was seen. The limit is for failing only.
 */
export async function waitForStatus(page, re, timeout = 30_000) {
  if (!(await page.evaluate(() => Array.isArray(window.__hcStatuses)))) await recordStatuses(page);
  try {
    const handle = await page.waitForFunction(
      ({ source, flags }) => window.__hcStatuses.find((t) => new RegExp(source, flags).test(t)) ?? false,
      { source: re.source, flags: re.flags },
      { timeout, polling: 50 },
    );
    return await handle.jsonValue();
  } catch {
    const seen = await page.evaluate(() => window.__hcStatuses).catch(() => null);
    throw new Error(`the status line never matched ${re} within ${timeout} ms; it showed: ${JSON.stringify(seen)}`);
  }
}

/** Close the popup and open a fresh one: the conversation must come back from storage. */
export async function reopen(ext, page) {
  await page.close();
  return openPopup(ext);
}

/**
 * Assert the key appears nowhere it must not: `haystacks` is {label: text}.
 */
export function assertNoKey(haystacks, key = TEST_KEY) {
  for (const [label, text] of Object.entries(haystacks)) {
    const s = typeof text === 'string' ? text : JSON.stringify(text);
    assert.ok(!s.includes(key), `the API key appears in ${label}: …${s.slice(Math.max(0, s.indexOf(key) - 80), s.indexOf(key) + key.length + 20)}…`);
    // A key cut short or partly masked still leaks if a long run of it remains.
    assert.ok(!s.includes(key.slice(4, 24)), `a 20-character run of the API key appears in ${label}`);
  }
}

/** Everything in chrome.storage.local and every IndexedDB database of the extension origin, as text. */
export async function dumpExtensionStorage(page) {
  return page.evaluate(async () => {
    const out = { local: await chrome.storage.local.get(null), session: null, idb: {} };
    try {
      out.session = await chrome.storage.session.get(null);
    } catch {
      /* not available to this context */
    }
    const dbs = (await indexedDB.databases?.()) ?? [];
    for (const { name } of dbs) {
      const db = await new Promise((res, rej) => {
        const r = indexedDB.open(name);
        r.onsuccess = () => res(r.result);
        r.onerror = () => rej(r.error);
      });
      for (const store of db.objectStoreNames) {
        const values = await new Promise((res, rej) => {
          const r = db.transaction(store).objectStore(store).getAll();
          r.onsuccess = () => res(r.result);
          r.onerror = () => rej(r.error);
        });
        out.idb[`${name}/${store}`] = values.map((v) =>
          v instanceof Uint8Array || v instanceof ArrayBuffer ? new TextDecoder('utf-8', { fatal: false }).decode(v) : v,
        );
      }
      db.close();
    }
    return JSON.stringify(out);
  });
}

export { statusText };

// ---------------------------------------------------------------------------------------------
// Mapping what the ranking request carried back to the seeded history

/**
 * Reference of the ranking prompt's URL column (not the extension's code): no scheme, no `www.`,
 * percent-decoded, no query string unless the path is `/`, `/` alone dropped.
 */
export function compactForTest(url) {
  const u = new URL(url);
  const host = u.hostname.replace(/^www\./, '');
  let rest = u.pathname === '/' ? u.search : u.pathname;
  try {
    rest = decodeURIComponent(rest);
  } catch {
    /* keep as is */
  }
  if (rest === '/') rest = '';
  return host + rest;
}

/** A title as the ranking prompt writes it, before cutting: `|` → `/`, controls → spaces, whitespace collapsed. */
function titleField(title) {
  return String(title ?? '').replace(/\|/g, '/').replace(/[\u0000-\u001f\u007f-\u009f]/g, ' ').split(/\s+/).filter(Boolean).join(' ');
}

/**
 * Seeded entries a candidate line may stand for: same compact URL (the candidate's may be cut,
 * ending in "…"), and a title the candidate's is a prefix of (the prompt drops a trailing site name
 * and cuts long titles). Pages told apart only by their query string (youtube.com/watch?v=…) share
 * a compact URL, so the title is needed; several entries remain only when both coincide.
 */
export function entriesForCandidate(candidate, history) {
  const cutPrefix = (s) => (s.endsWith('…') ? { prefix: s.slice(0, -1).trimEnd(), cut: true } : { prefix: s, cut: false });
  const url = cutPrefix(candidate.url);
  const title = cutPrefix(candidate.title);
  return history.filter((e) => {
    let compact;
    try {
      compact = compactForTest(e.url);
    } catch {
      return false;
    }
    if (url.cut ? !compact.startsWith(url.prefix) : compact !== url.prefix) return false;
    const full = titleField(e.title);
    return title.prefix === '' ? true : full.startsWith(title.prefix);
  });
}
