// Keyboard, screen readers and open modes of the popup's results (issue 11, part 7), end to end:
// the built extension in headless Chromium, a seeded real chrome.history, real chrome.tabs.
// - The search box is a combobox over the as-you-type listbox: role, aria-controls, aria-expanded,
//   aria-activedescendant following the highlight (aria-selected on the option), the count in a
//   polite live region; focus stays in the box while the arrows move the highlight.
// - Where a result opens, checked through the tabs that exist afterwards (chrome.tabs.query: which
//   is active) and the pages Playwright sees: Enter / click a new tab in front, Ctrl+Enter /
//   Ctrl+click / middle click a new tab behind (the popup's tab stays in front), Shift+Enter the
//   tab the popup was opened over (the popup shown in its own popup window over a web page, as
//   Chrome shows the toolbar popup over the current tab).
// - "Copy link" puts the page's URL on the real clipboard (read back with clipboard permissions
//   granted through CDP) and says "Copied".
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { HOUR, demoHistory } from './support/fixtures.mjs';
import { SEL, openPopup } from './support/popup.mjs';
import { LIVE, askWorker, tabAddress, typeSlowly, waitForIndex } from './support/live.mjs';
import { LIMIT_MS, POPUP_STARTUP, flushEvents, trackChromeCalls, waitForSettled, waitUntil } from './support/settle.mjs';

const PAGES = [
  { url: 'https://notes.example.net/quorvex-one', title: 'Quorvex notes, part one' },
  { url: 'https://notes.example.net/quorvex-two', title: 'Quorvex notes, part two' },
  { url: 'https://notes.example.net/quorvex-three', title: 'Quorvex notes, part three' },
];

/** The one page with this word. */
const SOLO = { url: 'https://solo.example.net/flumberwick', title: 'Flumberwick, the only one', visits: [Date.now() - HOUR] };

function seeded(now) {
  return [...demoHistory(now), ...PAGES.map((p, i) => ({ url: p.url, title: p.title, visits: [now - (i + 1) * HOUR] })), SOLO];
}

/** Installed before the popup's scripts: records chrome.tabs.create/update calls and the tabs they made. */
function recordTabs() {
  if (typeof chrome === 'undefined' || !chrome.tabs) return;
  const rec = (globalThis.__hcTabs = []);
  for (const api of ['create', 'update']) {
    const original = chrome.tabs[api].bind(chrome.tabs);
    chrome.tabs[api] = (...args) => {
      const entry = { api, args: JSON.parse(JSON.stringify(args)), settled: false };
      rec.push(entry);
      const promise = original(...args);
      promise.then(
        (tab) => Object.assign(entry, { settled: true, ok: true, tabId: tab?.id }),
        (e) => Object.assign(entry, { settled: true, ok: false, error: String(e?.message ?? e) }),
      );
      return promise;
    };
  }
}

/** The combobox's state as read from the DOM. */
async function comboState(page) {
  return page.evaluate(([search, live]) => {
    const box = document.querySelector(search);
    const listbox = document.getElementById(box.getAttribute('aria-controls'));
    const options = listbox ? [...listbox.querySelectorAll('[role="option"]')] : [];
    const active = box.getAttribute('aria-activedescendant');
    return {
      role: box.getAttribute('role'),
      controls: box.getAttribute('aria-controls'),
      expanded: box.getAttribute('aria-expanded'),
      active,
      activeHref: active ? document.getElementById(active)?.querySelector('a')?.getAttribute('href') ?? `(no element #${active})` : null,
      listboxRole: listbox?.getAttribute('role') ?? null,
      inLive: !!listbox?.closest(live),
      options: options.map((o) => ({ id: o.id, selected: o.getAttribute('aria-selected'), href: o.querySelector('a')?.getAttribute('href') })),
      focusInBox: document.activeElement === box,
      count: document.querySelector('[aria-live="polite"]')?.textContent?.trim() ?? null,
    };
  }, [SEL.search, LIVE]);
}

/** Types `text` and waits until the listbox shows exactly `n` options and the count says so. */
async function typeAndWait(page, text, n) {
  await typeSlowly(page, text);
  const want = n === 0 ? 'No results' : n === 1 ? '1 result' : `${n} results`;
  await page.waitForFunction(
    ([search, n, want]) => {
      const box = document.querySelector(search);
      const listbox = document.getElementById(box.getAttribute('aria-controls'));
      const options = listbox ? listbox.querySelectorAll('[role="option"]').length : 0;
      return options === n && document.querySelector('[aria-live="polite"]')?.textContent?.trim() === want;
    },
    [SEL.search, n, want],
    { timeout: LIMIT_MS },
  ).catch(async (e) => {
    throw new Error(`typed ${JSON.stringify(text)}: expected ${want}; shown ${JSON.stringify(await comboState(page))} (${e.message})`);
  });
}

describe('the search box as a combobox', () => {
  let ext;
  let popup;

  before(async () => {
    ext = await launchExtension({ history: seeded(Date.now()) });
    await trackChromeCalls(ext.context);
    popup = await openPopup(ext);
    await waitForIndex(popup);
    // Topic search off: its late pages would reorder the list while the test reads it.
    await askWorker(popup, { type: 'setSemantic', enabled: false });
    await waitForSettled(popup, POPUP_STARTUP);
  });

  after(async () => {
    await ext?.close();
  });

  test('role, aria-controls, aria-expanded, the count, and aria-activedescendant as the highlight moves', async () => {
    const idle = await comboState(popup);
    assert.equal(idle.role, 'combobox');
    assert.equal(idle.controls, 'live-results');
    assert.equal(idle.expanded, 'false', 'nothing typed: collapsed');
    assert.equal(idle.active, null);

    await typeAndWait(popup, 'quorvex', 3);
    let s = await comboState(popup);
    assert.equal(s.expanded, 'true');
    assert.equal(s.listboxRole, 'listbox');
    assert.ok(s.inLive, 'the listbox is the as-you-type section\'s');
    assert.equal(s.count, '3 results', 'the count is in the polite live region');
    assert.equal(s.active, null, 'no highlight before an arrow');
    assert.deepEqual(s.options.map((o) => o.selected), ['false', 'false', 'false']);
    const order = s.options.map((o) => o.href);
    assert.deepEqual([...order].sort(), PAGES.map((p) => p.url).sort());

    const expectHighlight = async (at, what) => {
      const now = await comboState(popup);
      assert.ok(now.focusInBox, `${what}: focus stays in the search box`);
      if (at === null) {
        assert.equal(now.active, null, `${what}: no aria-activedescendant`);
        assert.ok(now.options.every((o) => o.selected === 'false'), `${what}: no option selected: ${JSON.stringify(now.options)}`);
        return;
      }
      assert.equal(now.active, now.options[at].id, `${what}: aria-activedescendant names option ${at + 1}`);
      assert.equal(now.activeHref, order[at], `${what}: that option shows result ${at + 1}`);
      assert.deepEqual(now.options.map((o) => o.selected), now.options.map((_, i) => String(i === at)), `${what}: aria-selected`);
      const highlighted = await popup.locator(`#${now.active}`).getAttribute('class');
      assert.match(highlighted, /highlighted/, `${what}: the option is visibly highlighted`);
    };
    await popup.keyboard.press('ArrowDown');
    await expectHighlight(0, 'ArrowDown from the box');
    await popup.keyboard.press('ArrowDown');
    await expectHighlight(1, 'a second ArrowDown');
    await popup.keyboard.press('ArrowDown');
    await expectHighlight(2, 'a third ArrowDown');
    await popup.keyboard.press('ArrowUp');
    await expectHighlight(1, 'ArrowUp');
    await popup.keyboard.press('ArrowUp');
    await popup.keyboard.press('ArrowUp');
    await expectHighlight(null, 'ArrowUp from the first result');
    await popup.keyboard.press('ArrowDown');
    await popup.keyboard.press('Escape');
    await expectHighlight(null, 'Escape');

    await typeAndWait(popup, 'flumberwick', 1);
    s = await comboState(popup);
    assert.equal(s.count, '1 result');
    await typeAndWait(popup, 'zzqqxxnothing', 0);
    s = await comboState(popup);
    assert.equal(s.expanded, 'false', 'no results: collapsed');
    assert.equal(s.count, 'No results');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });
});

describe('open modes and Copy link', () => {
  let ext;
  let popup;
  const served = [];

  before(async () => {
    ext = await launchExtension({ history: seeded(Date.now()) });
    await ext.context.route(/^https?:\/\//, (route) => {
      served.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>stub</title><p>stub page</p>' });
    });
    await ext.context.addInitScript(recordTabs);
    await trackChromeCalls(ext.context);
    popup = await openPopup(ext);
    await waitForIndex(popup);
    await askWorker(popup, { type: 'setSemantic', enabled: false });
    await waitForSettled(popup, POPUP_STARTUP);
  });

  after(async () => {
    await ext?.close();
  });

  const calls = (page) => page.evaluate(() => globalThis.__hcTabs.slice());
  const tabStates = (page) => page.evaluate(async () => (await chrome.tabs.query({})).map((t) => ({ id: t.id, active: t.active, windowId: t.windowId })));
  const ownTab = (page) => page.evaluate(async () => (await chrome.tabs.getCurrent())?.id ?? null);

  /** Runs `action`, waits for the one new tab it opens at `href`; returns the recorded call and the tabs afterwards. */
  async function opened(action, href) {
    const from = (await calls(popup)).length;
    const [tab] = await Promise.all([ext.context.waitForEvent('page', { timeout: LIMIT_MS }), action()]);
    let address = null;
    await waitUntil(async () => (address = await tabAddress(ext, tab)) === href, 'the new tab is sent to the result', {
      describe: () => `its address: ${address}`,
    });
    await popup.waitForFunction((from) => globalThis.__hcTabs.length > from && globalThis.__hcTabs.slice(from).every((c) => c.settled), from, { timeout: LIMIT_MS });
    const made = (await calls(popup)).slice(from);
    assert.equal(made.length, 1, `one call: ${JSON.stringify(made)}`);
    const states = await tabStates(popup);
    return { call: made[0], states, close: () => tab.close() };
  }

  test('Enter on the highlighted result opens it in a new tab, in front', async () => {
    await popup.bringToFront();
    await typeAndWait(popup, 'quorvex', 3);
    await popup.locator(SEL.search).focus();
    await popup.keyboard.press('ArrowDown');
    const href = (await comboState(popup)).activeHref;
    const { call, states, close } = await opened(() => popup.keyboard.press('Enter'), href);
    assert.deepEqual([call.api, call.args, call.ok], ['create', [{ url: href, active: true }], true]);
    assert.equal(states.find((t) => t.id === call.tabId)?.active, true, `the new tab is active: ${JSON.stringify(states)}`);
    assert.equal(await popup.locator(SEL.turn).count(), 0, 'Enter on a highlight opened the page, it did not submit the question');
    await close();
  });

  for (const [name, act] of [
    ['Ctrl+Enter on the highlighted result', async () => popup.keyboard.press('Control+Enter')],
    ['Ctrl+click', async () => popup.locator(`${LIVE} a.result-link`).nth(1).click({ modifiers: ['Control'] })],
    ['a middle click', async () => popup.locator(`${LIVE} a.result-link`).nth(1).click({ button: 'middle' })],
  ]) {
    test(`${name} opens the result in a new tab behind; the popup stays in front`, async () => {
      await popup.bringToFront();
      await typeAndWait(popup, 'quorvex', 3);
      await popup.locator(SEL.search).focus();
      await popup.keyboard.press('ArrowDown');
      await popup.keyboard.press('ArrowDown');
      const href = (await comboState(popup)).activeHref;
      const own = await ownTab(popup);
      const { call, states, close } = await opened(act, href);
      assert.deepEqual([call.api, call.args, call.ok], ['create', [{ url: href, active: false }], true]);
      assert.equal(states.find((t) => t.id === call.tabId)?.active, false, `the new tab is behind: ${JSON.stringify(states)}`);
      assert.equal(states.find((t) => t.id === own)?.active, true, 'the popup\'s tab is still the active one');
      await close();
    });
  }

  test('a plain click opens the result in a new tab, in front', async () => {
    await popup.bringToFront();
    await typeAndWait(popup, 'quorvex', 3);
    const link = popup.locator(`${LIVE} a.result-link`).first();
    const href = await link.getAttribute('href');
    const { call, states, close } = await opened(() => link.click(), href);
    assert.deepEqual([call.api, call.args, call.ok], ['create', [{ url: href, active: true }], true]);
    assert.equal(states.find((t) => t.id === call.tabId)?.active, true);
    await close();
  });

  test('Shift+Enter opens the result in the tab the popup was opened over', async () => {
    // A web page in a browser window, and the popup over it in its own popup window.
    const current = await ext.context.newPage();
    await current.goto('https://start.example.com/', { waitUntil: 'load' });
    await current.bringToFront();
    const [over] = await Promise.all([
      ext.context.waitForEvent('page', { timeout: LIMIT_MS }),
      popup.evaluate((url) => chrome.windows.create({ url, type: 'popup', width: 420, height: 600 }), ext.url('popup.html')),
    ]);
    await over.locator(SEL.search).waitFor({ timeout: LIMIT_MS });
    await over.waitForFunction(() => globalThis.__hcTabs !== undefined, null, { timeout: LIMIT_MS });
    await typeAndWait(over, 'quorvex', 3);
    await over.locator(SEL.search).focus();
    await over.keyboard.press('ArrowDown');
    const href = (await comboState(over)).activeHref;
    const pagesBefore = ext.context.pages().length;
    await over.keyboard.press('Shift+Enter');
    await current.waitForURL(href, { timeout: LIMIT_MS });
    await over.waitForFunction(() => globalThis.__hcTabs.length === 1 && globalThis.__hcTabs[0].settled, null, { timeout: LIMIT_MS });
    const [call] = await calls(over);
    assert.equal(call.api, 'update', `the current tab is updated, no tab is created: ${JSON.stringify(call)}`);
    assert.equal(call.args[1]?.url, href);
    assert.equal(call.ok, true);
    assert.equal(ext.context.pages().length, pagesBefore, 'no new tab');
    assert.ok(over.url().startsWith(ext.url('popup.html')), 'the popup itself did not navigate');
    await over.close();
    await current.close();
  });

  test('the page opened is the row\'s own http(s) address, whatever the link\'s attribute says', async () => {
    await popup.bringToFront();
    await typeAndWait(popup, 'quorvex', 3);
    const from = (await calls(popup)).length;
    const link = popup.locator(`${LIVE} a.result-link`).first();
    // The row's URL is the popup's own data; the href attribute is only what a user sees. Tamper with
    // the attribute: the page opened is still the row's https page.
    const href = await link.getAttribute('href');
    await link.evaluate((a) => a.setAttribute('href', 'javascript:alert(1)'));
    const { call, close } = await opened(() => link.click(), href);
    assert.equal(call.args[0]?.url, href, 'the row\'s own https URL, not the attribute');
    assert.equal((await calls(popup)).length, from + 1);
    await close();
  });

  test('Copy link puts the page\'s URL on the clipboard and says "Copied"', async () => {
    const cdp = await ext.context.newCDPSession(popup);
    await cdp.send('Browser.grantPermissions', {
      origin: `chrome-extension://${ext.extensionId}`,
      permissions: ['clipboardReadWrite', 'clipboardSanitizedWrite'],
    });
    await popup.bringToFront();
    await typeAndWait(popup, 'quorvex', 3);
    const row = popup.locator(`${LIVE} li.result`).nth(2);
    const href = await row.locator('a.result-link').getAttribute('href');
    await popup.evaluate(() => navigator.clipboard.writeText('before'));
    await row.getByRole('button', { name: 'Copy link', exact: true }).click();
    await row.getByRole('button', { name: 'Copied', exact: true }).waitFor({ timeout: LIMIT_MS });
    assert.equal(await popup.evaluate(() => navigator.clipboard.readText()), href);
    // "Copied" is brief: the button says "Copy link" again.
    await row.getByRole('button', { name: 'Copy link', exact: true }).waitFor({ timeout: LIMIT_MS });
    await cdp.detach();
    await flushEvents(ext, popup);
    ext.assertNoErrors();
    assert.ok(served.every((u) => /^https?:/.test(u)));
  });
});
