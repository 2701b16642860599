// Driving the popup and options page through the UI contract, with readable failures.
//
// Popup contract (see the issue): search box `input[type=search][aria-label="Search your history"]`
// focused on open, Enter submits; `select[aria-label="Period"]` (24h/7d/30d/90d);
// `section[aria-label="Conversation"]` with aria-busy, turns newest first as `article.turn`
// holding `p.question` and either `ul[role=list] > li > a[href]` (span.title, span.url, time)
// or `p.notice`; `[role=status]`, `[role=alert]`; buttons "Clear conversation" and "Options".
import assert from 'node:assert/strict';
import { LIMIT_MS } from './settle.mjs';

export const SEL = {
  search: 'input[type="search"][aria-label="Search your history"]',
  period: 'select[aria-label="Period"]',
  conversation: 'section[aria-label="Conversation"]',
  turn: 'section[aria-label="Conversation"] article.turn',
  status: '[role="status"]',
  alert: '[role="alert"]',
  defaultPeriod: 'select[aria-label="Default period"]',
  retention: 'select[aria-label="Keep conversation for"]',
};

// A failure limit only (the suite's one default), never a speed claim.
const TIMEOUT = LIMIT_MS;

/** Installed before navigation: records when the search box first gets focus (ms since navigation start). */
function recordSearchFocus(selector) {
  const mark = (el) => {
    if (window.__hcSearchFocusedAt === undefined && el instanceof Element && el.matches(selector)) {
      window.__hcSearchFocusedAt = performance.now();
    }
  };
  document.addEventListener('focusin', (e) => mark(e.target), true);
  document.addEventListener('focus', (e) => mark(e.target), true);
  // Covers focus() called while the document itself has no focus (no event is then dispatched).
  const poll = () => {
    mark(document.activeElement);
    if (window.__hcSearchFocusedAt === undefined) requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
}

function describeActive() {
  const a = document.activeElement;
  if (!a) return String(a);
  const attrs = [...a.attributes].map((x) => `${x.name}="${x.value}"`).join(' ');
  return `<${a.tagName.toLowerCase()}${attrs ? ' ' + attrs : ''}>`;
}

/**
 * Open the popup in a new tab and measure how long it takes to become usable:
 * navigation start (performance.timeOrigin) to the search box having focus.
 * Throws a readable error if the search box never gets focus.
 * @returns {Promise<{page: import('playwright-core').Page, readyMs: number}>}
 */
export async function openPopupMeasured(ext, { file = 'popup.html', timeout = TIMEOUT } = {}) {
  const page = await ext.context.newPage();
  await page.addInitScript(recordSearchFocus, SEL.search);
  await page.goto(ext.url(file), { waitUntil: 'domcontentloaded' });
  try {
    await page.waitForFunction(() => window.__hcSearchFocusedAt !== undefined, null, { timeout });
  } catch {
    const active = await page.evaluate(describeActive).catch((e) => `(unreadable: ${e.message})`);
    const count = await page.locator(SEL.search).count();
    await page.close();
    throw new Error(
      `The popup's search box (${SEL.search}) was not focused within ${timeout} ms of opening ` +
        `(${count} matching element(s) in the page; document.activeElement is ${active}).`,
    );
  }
  const readyMs = await page.evaluate(() => window.__hcSearchFocusedAt);
  return { page, readyMs: Math.round(readyMs) };
}

/**
 * Open the popup for driving it. Waits for the search box and the conversation section to be
 * there, for the search box to be focused (what a user types goes there), and for aria-busy to be
 * "false" — unless `idle: false`: a popup opened while the worker runs an AI search is busy until
 * it ends. Each wait that does not end throws, saying which.
 */
export async function openPopup(ext, { file = 'popup.html', timeout = TIMEOUT, idle = true } = {}) {
  const page = await ext.context.newPage();
  await page.goto(ext.url(file), { waitUntil: 'domcontentloaded' });
  try {
    await page.locator(SEL.search).waitFor({ state: 'visible', timeout });
    await page.locator(SEL.conversation).waitFor({ state: 'attached', timeout });
  } catch {
    const body = await page.evaluate(() => document.body?.innerHTML.slice(0, 400) ?? '(no body)').catch(() => '?');
    throw new Error(`The popup did not show ${SEL.search} and ${SEL.conversation} within ${timeout} ms. Body starts: ${body}`);
  }
  await page.waitForFunction((sel) => document.activeElement === document.querySelector(sel), SEL.search, { timeout }).catch(async (e) => {
    const active = await page.evaluate(describeActive).catch((read) => `(unreadable: ${read.message})`);
    throw new Error(`The popup's search box was not focused within ${timeout} ms (document.activeElement is ${active}): ${e.message}`);
  });
  if (idle) {
    await page
      .waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-busy') !== 'true', SEL.conversation, { timeout })
      .catch((e) => {
        throw new Error(`The popup's conversation stayed aria-busy for ${timeout} ms after opening (pass idle: false while a search runs): ${e.message}`);
      });
  }
  return page;
}

/** Wait until the conversation shows at least `n` turns (it may be loaded from storage after mount). */
export async function waitForTurns(page, n, timeout = TIMEOUT) {
  await page.waitForFunction(({ sel, n }) => document.querySelectorAll(sel).length >= n, { sel: SEL.turn, n }, { timeout }).catch(async (e) => {
    const shown = await page.locator(SEL.turn).count().catch(() => '?');
    throw new Error(`The conversation did not show ${n} turn(s) within ${timeout} ms (it shows ${shown}): ${e.message}`);
  });
}

/** Read the conversation as plain data, checking the structure the contract promises. */
export async function readTurns(page) {
  const turns = await page.evaluate((sel) => {
    const section = document.querySelector(sel.conversation);
    if (!section) return { error: `no ${sel.conversation} in the popup` };
    return [...section.querySelectorAll('article.turn')].map((turn) => {
      const lists = turn.querySelectorAll('ul[role="list"]');
      const problems = [];
      if (lists.length > 1) problems.push(`${lists.length} result lists in one turn`);
      const items = lists.length ? [...lists[0].children].filter((c) => c.tagName === 'LI') : [];
      const results = items.map((li, i) => {
        const anchors = li.querySelectorAll('a');
        if (anchors.length !== 1) problems.push(`result li #${i + 1} holds ${anchors.length} <a> (expected exactly 1)`);
        const a = anchors[0];
        if (!a) return null;
        const text = (s) => a.querySelector(s)?.textContent?.trim() ?? null;
        return { href: a.getAttribute('href'), title: text('span.title'), url: text('span.url'), time: text('time') };
      });
      return {
        question: turn.querySelector('p.question')?.textContent?.trim() ?? null,
        results: results.filter(Boolean),
        hasList: lists.length > 0,
        notice: turn.querySelector('p.notice')?.textContent?.trim() ?? null,
        problems,
      };
    });
  }, SEL);
  if (turns.error) throw new Error(turns.error);
  for (const [i, t] of turns.entries()) {
    assert.deepEqual(t.problems, [], `turn #${i + 1} ("${t.question}") breaks the markup contract`);
  }
  return turns;
}

export async function busyState(page) {
  return page.locator(SEL.conversation).getAttribute('aria-busy');
}

/**
 * Ask a question: optionally choose the period, type, press Enter, and wait until a new turn
 * for it is shown and the conversation is no longer busy.
 * @returns the new (newest) turn, as read by readTurns
 */
export async function ask(page, question, { period, timeout = TIMEOUT } = {}) {
  if (period) await page.locator(SEL.period).selectOption(period);
  const before = await page.locator(SEL.turn).count();
  const box = page.locator(SEL.search);
  await box.fill(question);
  await box.press('Enter');
  await waitForAnswer(page, question, before, timeout);
  const turns = await readTurns(page);
  return turns[0];
}

/** Wait until there are more than `before` turns, the newest is for `question`, and aria-busy is "false". */
export async function waitForAnswer(page, question, before, timeout = TIMEOUT) {
  try {
    await page.waitForFunction(
      ({ sel, question, before }) => {
        const section = document.querySelector(sel.conversation);
        if (!section || section.getAttribute('aria-busy') !== 'false') return false;
        const turns = section.querySelectorAll('article.turn');
        if (turns.length <= before) return false;
        const q = turns[0].querySelector('p.question')?.textContent?.trim() ?? '';
        return question === '' || q === question.trim();
      },
      { sel: SEL, question, before },
      { timeout },
    );
  } catch {
    const state = await page
      .evaluate((sel) => {
        const s = document.querySelector(sel.conversation);
        return {
          busy: s?.getAttribute('aria-busy'),
          turns: s ? [...s.querySelectorAll('article.turn')].map((t) => t.querySelector('p.question')?.textContent?.trim()) : null,
          alert: document.querySelector(sel.alert)?.textContent?.trim() || null,
        };
      }, SEL)
      .catch((e) => ({ error: String(e) }));
    throw new Error(
      `No answer for "${question}" within ${timeout} ms (turns before: ${before}; now: ` +
        `aria-busy=${JSON.stringify(state.busy)}, questions newest first=${JSON.stringify(state.turns)}, alert=${JSON.stringify(state.alert)})`,
    );
  }
}

export async function statusText(page) {
  const texts = await page.locator(SEL.status).allTextContents();
  return texts.map((t) => t.trim()).filter(Boolean).join(' | ');
}

export async function alertText(page) {
  const texts = await page.locator(SEL.alert).allTextContents();
  return texts.map((t) => t.trim()).filter(Boolean).join(' | ');
}

/** Result hrefs of a turn, with a readable listing for assertion messages. */
export function hrefs(turn) {
  return turn.results.map((r) => r.href);
}

export function describeTurn(turn) {
  if (!turn) return '(no turn)';
  if (!turn.results.length) return `"${turn.question}" -> notice ${JSON.stringify(turn.notice)}`;
  return `"${turn.question}" -> ${turn.results.length} result(s):\n` + turn.results.map((r) => `    ${r.href}  [${r.title}]`).join('\n');
}

export function assertFound(turn, href, what = href) {
  assert.ok(turn.results.some((r) => r.href === href), `expected ${what} among the results of ${describeTurn(turn)}`);
}

export function assertNotFound(turn, href, what = href) {
  assert.ok(!turn.results.some((r) => r.href === href), `did not expect ${what} among the results of ${describeTurn(turn)}`);
}

/** Read chrome.storage from an extension page. */
export async function storageGet(page, area, keys = null) {
  return page.evaluate(([area, keys]) => chrome.storage[area].get(keys), [area, keys]);
}

export async function storageSet(page, area, items) {
  return page.evaluate(([area, items]) => chrome.storage[area].set(items), [area, items]);
}

/** Conversation-log entries in chrome.storage.local (keys `log:<13-digit atMs>:<nonce>`), oldest first. */
export async function logEntries(page) {
  const all = await storageGet(page, 'local');
  return Object.keys(all)
    .filter((k) => k.startsWith('log:'))
    .sort()
    .map((k) => ({ key: k, ...all[k] }));
}

export function logKey(atMs, nonce = Math.random().toString(36).slice(2, 10)) {
  return `log:${String(atMs).padStart(13, '0')}:${nonce}`;
}
