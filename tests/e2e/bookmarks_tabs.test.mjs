// Bookmarks and open tabs searched with the history, end to end: the built extension in headless
// Chromium, real chrome.bookmarks and real tabs (their pages served by the test at their
// addresses, through the browser's network layer: context.route). Each switch is turned on by a
// click on the options page, which asks Chrome for its optional permission in the click
// (browser_access.mjs: the profile records that the user accepted the prompt before, so Chrome
// answers without showing it); turned off, it gives the permission back.
//
// Covered: nothing granted at install; each switch's permission; a bookmark found by its folder's
// words, with its label, its added date and no "Remove from history"; each bookmark event (added,
// renamed, moved, removed, a folder renamed and removed); each tab event (opened, navigated,
// closed); "Switch to tab" as Enter's action on a tab row; a page open and in the history shown
// once, marked; a page the history found marked as bookmarked; source chips; the address bar's
// keyword; excluded sites; a switch off (or the permission taken back elsewhere: the switch
// follows) forgets its source, in the worker and in the stored conversation.
import { describe, test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { PAST_GRANTS } from './support/browser_access.mjs';
import { SEL, ask, openPopup } from './support/popup.mjs';
import { askWorker, waitForIndex } from './support/live.mjs';
import { LIMIT_MS, waitUntil } from './support/settle.mjs';
import { readSettings } from './support/ai.mjs';
import * as omnibox from './support/omnibox.mjs';

const QUANTUM = 'https://physics.example/quantum?title=Quantum+entanglement+explained';
const BOOKMARKS_SWITCH = 'input[type="checkbox"][aria-label="Search my bookmarks"]';
const TABS_SWITCH = 'input[type="checkbox"][aria-label="Search my open tabs"]';

/** Titles of the pages the test serves, by path: `https://<host>/<path>?title=…` gives `title`. */
function servedPage(url) {
  const title = new URL(url).searchParams.get('title') ?? 'Untitled';
  const text = title.replace(/[<&>]/g, ' ');
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${text}</title></head><body><h1>${text}</h1></body></html>`;
}

/** The worker's answer to the places search for `query`: the pages' addresses, best first. */
async function places(page, query) {
  const answer = await askWorker(page, { type: 'places', query, limit: 25 });
  assert.equal(answer?.type, 'pages', `places answered ${JSON.stringify(answer)}`);
  return answer.pages;
}

/** Waits until the places search for `query` gives exactly `urls` (in any order). */
async function waitForPlaces(page, query, urls) {
  let last = [];
  await waitUntil(async () => {
    last = (await places(page, query)).map((p) => p.url).sort();
    return JSON.stringify(last) === JSON.stringify([...urls].sort());
  }, `the places search for "${query}" to give ${JSON.stringify(urls)}`, { describe: () => JSON.stringify(last) });
}

async function granted(page, permission) {
  return page.evaluate((permission) => chrome.permissions.contains({ permissions: [permission] }), permission);
}

/** Clicks a switch of the options page and waits for the outcome line it says. */
async function flip(options, selector, status) {
  await options.locator(selector).click();
  await options.locator('[role="status"]', { hasText: status }).waitFor({ timeout: LIMIT_MS });
}

/** One result row of the newest turn, as data: its link, labels and actions. */
async function rows(popup) {
  return popup.evaluate((sel) => {
    const turn = document.querySelector(sel.turn);
    return [...turn.querySelectorAll('li.result')].map((li) => ({
      href: li.querySelector('a.result-link')?.getAttribute('href'),
      sources: [...li.querySelectorAll('.sources .source')].map((s) => s.textContent.trim()),
      time: li.querySelector('time')?.textContent.trim() ?? '',
      actions: [...li.querySelectorAll('.row-actions button')].map((b) => b.textContent.trim()),
    }));
  }, SEL);
}

describe('bookmarks and open tabs', () => {
  let ext;
  let options;

  before(async () => {
    ext = await launchExtension({ history: [], pastGrants: PAST_GRANTS });
    await ext.context.route(/^https:\/\/[a-z]+\.example\//, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: servedPage(route.request().url()) }));
    options = await ext.openOptions();
    await options.locator(BOOKMARKS_SWITCH).waitFor({ timeout: LIMIT_MS });
    await options.waitForFunction((sel) => !document.querySelector(sel).disabled, BOOKMARKS_SWITCH, { timeout: LIMIT_MS });
    await waitForIndex(options);
  });

  after(async () => {
    await ext?.close();
  });

  test('nothing is asked at install; each switch asks for its own permission in the click', async () => {
    assert.equal(await granted(options, 'bookmarks'), false, 'bookmarks not granted at install');
    assert.equal(await granted(options, 'tabs'), false, 'tabs not granted at install');
    assert.equal(await options.locator(BOOKMARKS_SWITCH).isChecked(), false);
    assert.equal(await options.locator(TABS_SWITCH).isChecked(), false);
    // Off: the worker answers no bookmark and no tab.
    assert.deepEqual(await places(options, 'bookmark:'), []);

    await flip(options, BOOKMARKS_SWITCH, 'Your bookmarks are searched with your history.');
    assert.equal(await granted(options, 'bookmarks'), true);
    assert.equal(await granted(options, 'tabs'), false, 'only what the switch asked for');
    assert.equal(await options.locator(BOOKMARKS_SWITCH).isChecked(), true);
    // Nothing of it is in the settings: the switch is the permission.
    const settings = await readSettings(options);
    assert.ok(!JSON.stringify(settings).includes('bookmark'), JSON.stringify(settings));
  });

  test('a bookmark is found by its folder, labelled, and kept current by every event', async () => {
    const ids = await ext.serviceWorker.evaluate(async () => {
      const folder = await chrome.bookmarks.create({ parentId: '1', title: 'Recettes' });
      const tatin = await chrome.bookmarks.create({ parentId: folder.id, title: 'Tarte Tatin', url: 'https://cuisine.example/r/1' });
      return { folder: folder.id, tatin: tatin.id };
    });
    const TATIN = 'https://cuisine.example/r/1';
    await waitForPlaces(options, 'recettes', [TATIN]);

    // In the popup: the folder's word finds it, labelled with its folders, its added date shown,
    // and no "Remove from history" (it is not in the history).
    const popup = await openPopup(ext);
    const turn = await ask(popup, 'recettes');
    assert.deepEqual(turn.results.map((r) => r.href), [TATIN]);
    const [row] = await rows(popup);
    assert.deepEqual(row.sources, ['Bookmark in Bookmarks bar › Recettes']);
    assert.match(row.time, /^bookmarked /);
    assert.deepEqual(row.actions, ['Copy link']);
    await popup.close();

    // Renamed.
    await ext.serviceWorker.evaluate((id) => chrome.bookmarks.update(id, { title: 'Apple pie' }), ids.tatin);
    await waitForPlaces(options, 'apple pie', [TATIN]);
    await waitForPlaces(options, 'tatin', []);
    // A folder renamed: what it holds is found by the new name.
    await ext.serviceWorker.evaluate((id) => chrome.bookmarks.update(id, { title: 'Desserts' }), ids.folder);
    await waitForPlaces(options, 'desserts pie', [TATIN]);
    await waitForPlaces(options, 'recettes', []);
    // Moved out of the folder.
    await ext.serviceWorker.evaluate((id) => chrome.bookmarks.move(id, { parentId: '2' }), ids.tatin);
    await waitForPlaces(options, 'desserts', []);
    await waitForPlaces(options, 'other bookmarks pie', [TATIN]);
    // Added into the folder, then the folder removed with what it holds.
    await ext.serviceWorker.evaluate((id) => chrome.bookmarks.create({ parentId: id, title: 'Crumble', url: 'https://cuisine.example/crumble' }), ids.folder);
    await waitForPlaces(options, 'desserts crumble', ['https://cuisine.example/crumble']);
    await ext.serviceWorker.evaluate((id) => chrome.bookmarks.removeTree(id), ids.folder);
    await waitForPlaces(options, 'crumble', []);
    // A bookmark removed.
    await ext.serviceWorker.evaluate((id) => chrome.bookmarks.remove(id), ids.tatin);
    await waitForPlaces(options, 'pie', []);
  });

  test('open tabs: found as opened and navigated, gone when closed; Enter switches to the tab', async () => {
    await flip(options, TABS_SWITCH, 'Your open tabs are searched with your history.');
    const tab = await ext.context.newPage();
    await tab.goto(QUANTUM);
    await waitForPlaces(options, 'entanglement', [QUANTUM]);
    // The page is also in the history now: one row, marked as an open tab, removable.
    let indexed = [];
    await waitUntil(async () => {
      const answer = await askWorker(options, { type: 'search', query: 'entanglement', startMs: 0, limit: 5 });
      indexed = (answer?.pages ?? []).map((p) => p.url);
      return indexed.includes(QUANTUM);
    }, 'the visit to be in the index', { describe: () => JSON.stringify(indexed) });
    const popup = await openPopup(ext);
    const turn = await ask(popup, 'entanglement');
    assert.deepEqual(turn.results.map((r) => r.href), [QUANTUM], 'shown once');
    const [row] = await rows(popup);
    assert.deepEqual(row.sources, ['Open tab']);
    assert.deepEqual(row.actions, ['Switch to tab', 'Copy link', 'Remove from history']);

    // Enter on the row brings that tab to the front (no new tab is opened).
    const tabsBefore = ext.context.pages().length;
    await popup.locator(`${SEL.turn} a.result-link`).first().focus();
    await popup.keyboard.press('Enter');
    await waitUntil(async () => {
      const [active] = await ext.serviceWorker.evaluate(() => chrome.tabs.query({ active: true, lastFocusedWindow: true }));
      return active?.url === QUANTUM;
    }, 'the quantum tab to be the active tab');
    assert.equal(ext.context.pages().length, tabsBefore, 'no tab was opened');
    await popup.close();

    // Navigated: found by its new title only.
    const WEATHER = 'https://weather.example/today?title=Weather+forecast';
    await tab.goto(WEATHER);
    await waitForPlaces(options, 'forecast', [WEATHER]);
    await waitForPlaces(options, 'tab: entanglement', []);
    // Closed.
    await tab.close();
    await waitForPlaces(options, 'forecast', []);
  });

  test('source terms are chips and narrow the search; excluded sites are left out', async () => {
    const LAMP = 'https://lamps.example/brass?title=Brass+lamp';
    await ext.serviceWorker.evaluate((url) => chrome.bookmarks.create({ parentId: '1', title: 'Brass lamp', url }), LAMP);
    await waitForPlaces(options, 'favori: brass', [LAMP]);
    await waitForPlaces(options, 'onglet: brass', []);
    // The address bar's keyword suggests it too.
    await omnibox.instrument(ext);
    const { suggestions } = await omnibox.changed(ext, 'brass lamp');
    assert.deepEqual(suggestions.map((s) => s.content), [LAMP]);
    const popup = await openPopup(ext);
    await popup.locator(SEL.search).fill('favori: brass');
    const chip = popup.getByRole('button', { name: 'Remove filter Bookmarks only' });
    await chip.waitFor({ timeout: LIMIT_MS });
    await chip.click();
    assert.equal(await popup.locator(SEL.search).inputValue(), 'brass ');
    await popup.close();

    // A page the history found (history: leaves the bookmarks and tabs out of the search) says
    // it is bookmarked, and stays removable.
    await ext.serviceWorker.evaluate((url) => chrome.bookmarks.create({ parentId: '1', title: 'Notes', url }), QUANTUM);
    await waitForPlaces(options, 'notes', [QUANTUM]);
    const again = await openPopup(ext);
    const turn = await ask(again, 'history: entanglement');
    assert.deepEqual(turn.results.map((r) => r.href), [QUANTUM]);
    const [row] = await rows(again);
    assert.deepEqual(row.sources, ['Bookmark in Bookmarks bar']);
    assert.ok(row.actions.includes('Remove from history'), JSON.stringify(row.actions));
    await again.close();

    // Excluded: the bookmark's site leaves the answer, and comes back when lifted.
    const settings = await readSettings(options);
    await options.evaluate((s) => chrome.storage.sync.set({ settings: { ...s, excludedSites: ['lamps.example'] } }), settings);
    await waitForPlaces(options, 'brass', []);
    await options.evaluate((s) => chrome.storage.sync.set({ settings: s }), settings);
    await waitForPlaces(options, 'brass', [LAMP]);
  });

  test('a switch off gives its permission back and forgets its source', async () => {
    const GRAVITY = 'https://physics.example/gravity?title=Gravity';
    const tab = await ext.context.newPage();
    await tab.goto(GRAVITY);
    await waitForPlaces(options, 'tab: gravity', [GRAVITY]);
    const LAMP = 'https://lamps.example/brass?title=Brass+lamp';
    await waitForPlaces(options, 'bookmark: brass', [LAMP]);
    // An answer holding it is stored in the conversation, with its folders.
    const popup = await openPopup(ext);
    const turn = await ask(popup, 'brass lamp');
    assert.deepEqual(turn.results.map((r) => r.href), [LAMP]);
    await popup.close();
    const stored = async () => JSON.stringify(await options.evaluate(() => chrome.storage.local.get(null)));
    assert.ok((await stored()).includes('lamps.example'), 'the answer is stored');
    await flip(options, BOOKMARKS_SWITCH, 'Your bookmarks are no longer searched; History Chat keeps nothing of them.');
    assert.equal(await granted(options, 'bookmarks'), false);
    await waitForPlaces(options, 'bookmark:', []);
    // Nothing of the bookmarks stays stored: the row found only among them left the answer.
    let left = '';
    await waitUntil(async () => !(left = await stored()).includes('lamps.example'), 'the bookmark gone from the stored conversation', { describe: () => left });
    assert.ok(!left.includes('Bookmarks bar'), left);
    // Taken back elsewhere (as Chrome's extensions page does): the switch follows, the worker forgets.
    assert.equal(await ext.serviceWorker.evaluate(() => chrome.permissions.remove({ permissions: ['tabs'] })), true);
    await options.waitForFunction((sel) => !document.querySelector(sel).checked, TABS_SWITCH, { timeout: LIMIT_MS });
    assert.equal(await granted(options, 'tabs'), false);
    await waitForPlaces(options, 'tab:', []);
    await tab.close();
    ext.assertNoErrors();
    ext.assertNoNetwork();
  });
});
