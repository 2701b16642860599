// "Remove from history" on a result (issue 11, part 2), end to end: the built extension, a seeded
// real chrome.history, the worker's index, the stored conversation. A page merged from several raw
// entries (tracking parameters, fragments) is removed whole: chrome.history no longer holds any of
// them, the row is gone, the index no longer finds it (asked again), and the stored answer no
// longer shows it once the popup is reopened. The entries come from the worker's complete index
// (no history search), an old one visited weeks before the row's last visit included. The service
// worker does the removal, so it ends even when the popup closes meanwhile. Bad input: a stray Enter
// on the confirmation, a page already gone from the history, a refused deleteUrl, the popup closed
// while the browser is still deleting, and a removal while a search that shows the page is still
// running (AI mode, its ranking held by the Gemini stand-in).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { DAY, HOUR, demoHistory } from './support/fixtures.mjs';
import { SEL, alertText, ask, assertFound, assertNotFound, describeTurn, logEntries, openPopup, readTurns, statusText, waitForTurns } from './support/popup.mjs';
import { askWorker, waitForIndex } from './support/live.mjs';
import { askAi, readAiTurns, launchAi, submit } from './support/ai.mjs';
import { LIMIT_MS, flushEvents, gate, waitUntil } from './support/settle.mjs';
import { launchWithPage } from './support/session.mjs';

/** One page seen under three raw URLs (merged into one row), and a sibling that must stay. */
const CAKE = 'https://recipes.example.org/zorblat-cake';
const CAKE_TITLE = 'Zorblat cake with quince glaze';
const CAKE_RAW = [`${CAKE}?utm_source=newsletter`, `${CAKE}#step-3`, CAKE];
const PIE = 'https://recipes.example.org/zorblat-pie';
const PIE_TITLE = 'Zorblat pie, the classic';
/** A page removed behind the popup's back, then removed from its row. */
const TART = 'https://recipes.example.org/zorblat-tart?utm_medium=social';
const TART_CLEAN = 'https://recipes.example.org/zorblat-tart';
/** A page whose deletion the browser refuses (the test replaces deleteUrl). */
const FLAN = 'https://recipes.example.org/zorblat-flan';
/** A page removed by a popup that is closed before the browser has deleted it. */
const SCONE = 'https://recipes.example.org/zorblat-scone';
const SCONE_RAW = [`${SCONE}?utm_source=home`, SCONE];
/** A page with a raw entry last visited weeks before the row's last visit. */
const CRUMBLE = 'https://recipes.example.org/zorblat-crumble';
const CRUMBLE_RAW = [`${CRUMBLE}?utm_source=feed`, `${CRUMBLE}#comments`];

function seeded(now) {
  return [
    ...demoHistory(now),
    { url: CAKE_RAW[0], title: CAKE_TITLE, visits: [now - 2 * HOUR] },
    { url: CAKE_RAW[1], title: CAKE_TITLE, visits: [now - 5 * HOUR] },
    { url: CAKE_RAW[2], title: CAKE_TITLE, visits: [now - DAY] },
    { url: PIE, title: PIE_TITLE, visits: [now - 3 * HOUR] },
    { url: TART, title: 'Zorblat tart for a crowd', visits: [now - 4 * HOUR] },
    { url: FLAN, title: 'Zorblat flan in ten minutes', visits: [now - 6 * HOUR] },
    { url: SCONE_RAW[0], title: 'Zorblat scones for breakfast', visits: [now - 7 * HOUR] },
    { url: SCONE_RAW[1], title: 'Zorblat scones for breakfast', visits: [now - 8 * HOUR] },
    { url: CRUMBLE_RAW[0], title: 'Zorblat crumble, no oven', visits: [now - HOUR] },
    { url: CRUMBLE_RAW[1], title: 'Zorblat crumble, no oven', visits: [now - 45 * DAY] },
  ];
}

/** Every raw URL chrome.history holds whose address contains `part` (the whole history). */
async function historyUrls(page, part) {
  const items = await page.evaluate(() => chrome.history.search({ text: '', startTime: 0, maxResults: 0 }));
  return items.map((i) => i.url).filter((u) => u.includes(part));
}

/**
 * Wraps the service worker's `chrome.history.<name>` (the removal runs there; wasm-bindgen's glue
 * looks it up at each call): `wrapper(real, ...args)` answers instead. `restoreInWorker` undoes it.
 */
async function wrapInWorker(ext, name, wrapper) {
  // One expression, compiled by the debugger protocol: `eval` in the worker would break its CSP.
  await ext.serviceWorker.evaluate(`(() => {
    const name = ${JSON.stringify(name)};
    const wrap = ${wrapper.toString()};
    self.__hcReal ??= {};
    self.__hcReal[name] ??= chrome.history[name];
    chrome.history[name] = (...args) => wrap(self.__hcReal[name].bind(chrome.history), ...args);
  })()`);
}

async function restoreInWorker(ext, name) {
  await ext.serviceWorker.evaluate((name) => {
    chrome.history[name] = self.__hcReal[name];
  }, name);
}

/** The result row (li) showing `href` in the newest turn. */
function rowOf(popup, href) {
  return popup.locator(SEL.turn).first().locator('li.result').filter({ has: popup.locator(`a[href="${href}"]`) });
}

/** Waits until no turn of the conversation shows `href`. */
async function waitForRowGone(popup, href) {
  await popup.waitForFunction(
    ({ sel, href }) => ![...document.querySelectorAll(`${sel} a.result-link`)].some((a) => a.getAttribute('href') === href),
    { sel: SEL.conversation, href },
    { timeout: LIMIT_MS },
  );
}

describe('Remove from history in local search', () => {
  let ext;
  let popup;
  const now = Date.now();

  before(async () => {
    ({ ext, page: popup } = await launchWithPage({ history: seeded(now) }));
  });

  after(async () => {
    await ext?.close();
  });

  test('a stray Enter on the confirmation cancels; Remove deletes every raw entry, the row, the index entry and the stored result', async () => {
    assert.deepEqual((await historyUrls(popup, 'zorblat-cake')).sort(), [...CAKE_RAW].sort(), 'fixture: three raw entries of the page');
    const turn = await ask(popup, 'zorblat');
    assertFound(turn, CAKE, 'the merged page');
    assertFound(turn, PIE, 'its sibling');
    assert.equal(turn.results.filter((r) => r.href === CAKE).length, 1, `one row for the three entries:\n${describeTurn(turn)}`);

    const row = rowOf(popup, CAKE);
    await row.getByRole('button', { name: 'Remove from history', exact: true }).click();
    const confirm = row.getByRole('group', { name: 'Remove this page from your history?' });
    await confirm.waitFor({ timeout: LIMIT_MS });
    await popup.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Cancel', null, { timeout: LIMIT_MS });
    // A stray Enter lands on Cancel, never on Remove.
    await popup.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached', timeout: LIMIT_MS });
    await popup.waitForFunction(() => document.activeElement?.textContent?.trim() === 'Remove from history', null, { timeout: LIMIT_MS });
    assert.equal(await row.count(), 1, 'the row is still shown');
    assert.equal((await historyUrls(popup, 'zorblat-cake')).length, 3, 'nothing was deleted by the stray Enter');

    await row.getByRole('button', { name: 'Remove from history', exact: true }).click();
    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await waitForRowGone(popup, CAKE);
    assert.deepEqual(await historyUrls(popup, 'zorblat-cake'), [], 'chrome.history holds none of the raw entries');
    assert.equal((await historyUrls(popup, 'zorblat-pie')).length, 1, 'the sibling page is untouched');
    assert.match(await statusText(popup), new RegExp(`Removed from your history: ${CAKE_TITLE}`));
    assert.equal(await alertText(popup), '', 'no alert');
    await popup.waitForFunction((s) => document.activeElement === document.querySelector(s), SEL.search, { timeout: LIMIT_MS });

    const index = await askWorker(popup, { type: 'search', query: 'zorblat', startMs: 0, limit: 25 });
    assert.equal(index.type, 'pages');
    assert.ok(!index.pages.some((p) => p.url === CAKE), `the index no longer holds it: ${JSON.stringify(index.pages.map((p) => p.url))}`);
    assert.ok(index.pages.some((p) => p.url === PIE), 'the index still holds the sibling');
    const again = await ask(popup, 'zorblat cake');
    assertNotFound(again, CAKE, 'the removed page, asked again');

    const stored = (await logEntries(popup)).filter((e) => e.question === 'zorblat');
    assert.equal(stored.length, 1);
    assert.ok(!stored[0].results.some((r) => r.url === CAKE), `the stored answer no longer holds it: ${JSON.stringify(stored[0].results.map((r) => r.url))}`);
    assert.ok(stored[0].results.some((r) => r.url === PIE), 'the stored answer keeps the other pages');

    await popup.close();
    popup = await openPopup(ext);
    await waitForTurns(popup, 2, LIMIT_MS);
    const turns = await readTurns(popup);
    const reopened = turns.find((t) => t.question === 'zorblat');
    assert.ok(reopened, 'the turn is still in the conversation');
    assertNotFound(reopened, CAKE, 'the removed page, after reopening');
    assertFound(reopened, PIE, 'the sibling, after reopening');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });

  test('an entry visited weeks before the row\'s last visit goes too, and the complete index names them: no history search', async () => {
    assert.deepEqual((await historyUrls(popup, 'zorblat-crumble')).sort(), [...CRUMBLE_RAW].sort(), 'fixture: two raw entries, 45 days apart');
    const turn = await ask(popup, 'zorblat crumble');
    assertFound(turn, CRUMBLE, 'the merged page');
    // Every search of the history the worker makes from now on, by its words (the index's own
    // reads have none; a removal's would name the page's host).
    await wrapInWorker(ext, 'search', (real, query) => {
      (self.__hcSearches ??= []).push(query.text);
      return real(query);
    });
    const searches = () => ext.serviceWorker.evaluate(() => (self.__hcSearches ?? []).filter((text) => text !== ''));
    const row = rowOf(popup, CRUMBLE);
    await row.getByRole('button', { name: 'Remove from history', exact: true }).click();
    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await waitForRowGone(popup, CRUMBLE);
    assert.match(await statusText(popup), /Removed from your history: Zorblat crumble, no oven/);
    assert.deepEqual(await searches(), [], 'the removal read no history: the index named the entries');
    await restoreInWorker(ext, 'search');
    assert.deepEqual(await historyUrls(popup, 'zorblat-crumble'), [], 'both raw entries are deleted, the old one too');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });

  test('"Remove" on a page already gone from the history: a plain outcome, the row goes, no error', async () => {
    const turn = await ask(popup, 'zorblat tart');
    assertFound(turn, TART_CLEAN);
    // Deleted elsewhere (Chrome's History page) while the popup shows it.
    const other = await ext.openPage('manifest.json');
    await other.evaluate((url) => chrome.history.deleteUrl({ url }), TART);
    assert.deepEqual(await historyUrls(other, 'zorblat-tart'), [], 'fixture: gone from the history');
    await other.close();

    const row = rowOf(popup, TART_CLEAN);
    await row.getByRole('button', { name: 'Remove from history', exact: true }).click();
    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await waitForRowGone(popup, TART_CLEAN);
    assert.match(await statusText(popup), /already gone from your history/);
    assert.equal(await alertText(popup), '', 'no alert: nothing went wrong');
    const index = await askWorker(popup, { type: 'search', query: 'zorblat tart', startMs: 0, limit: 25 });
    assert.ok(!index.pages.some((p) => p.url === TART_CLEAN), 'the index does not hold it');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });

  test('a refused deleteUrl says so and keeps the row; trying again removes it', async () => {
    const turn = await ask(popup, 'zorblat flan');
    assertFound(turn, FLAN);
    await wrapInWorker(ext, 'deleteUrl', () => Promise.reject(new Error('History is locked by the test')));
    const row = rowOf(popup, FLAN);
    await row.getByRole('button', { name: 'Remove from history', exact: true }).click();
    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await popup.waitForFunction((sel) => document.querySelector(sel)?.textContent?.includes('could not be removed'), SEL.alert, { timeout: LIMIT_MS });
    const alert = await alertText(popup);
    assert.match(alert, /This page could not be removed from your history/);
    assert.match(alert, /Chrome refused chrome\.history\.deleteUrl/, 'the reason, in the catalogue\'s words');
    await flushEvents(ext, popup);
    assert.ok(ext.consoleMessages.some((m) => m.type === 'warning' && /History is locked by the test/.test(m.text)), 'the browser\'s own words are in the console');
    assert.match(alert, /try again/);
    assert.equal(await row.count(), 1, 'the row is kept');
    await row.getByRole('button', { name: 'Remove from history', exact: true }).waitFor({ timeout: LIMIT_MS });
    assert.equal((await historyUrls(popup, 'zorblat-flan')).length, 1, 'still in the history');
    const index = await askWorker(popup, { type: 'search', query: 'zorblat flan', startMs: 0, limit: 25 });
    assert.ok(index.pages.some((p) => p.url === FLAN), 'still in the index');
    const stored = (await logEntries(popup)).filter((e) => e.question === 'zorblat flan');
    assert.ok(stored[0].results.some((r) => r.url === FLAN), 'still in the stored answer');

    await restoreInWorker(ext, 'deleteUrl');
    await row.getByRole('button', { name: 'Remove from history', exact: true }).click();
    await row.getByRole('button', { name: 'Remove', exact: true }).click();
    await waitForRowGone(popup, FLAN);
    assert.deepEqual(await historyUrls(popup, 'zorblat-flan'), [], 'removed on the second try');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });

  test('a popup closed while the browser is still deleting: the worker ends the removal, the reopened popup no longer shows the page', async () => {
    assert.deepEqual((await historyUrls(popup, 'zorblat-scone')).sort(), [...SCONE_RAW].sort(), 'fixture: two raw entries of the page');
    const turn = await ask(popup, 'zorblat scones');
    assertFound(turn, SCONE, 'the merged page');
    // The browser's deletions are held until the popup is closed.
    await ext.serviceWorker.evaluate(() => {
      self.__hcDeletes = [];
      self.__hcLetDelete = new Promise((resolve) => {
        self.__hcReleaseDeletes = resolve;
      });
    });
    await wrapInWorker(ext, 'deleteUrl', async (real, details) => {
      self.__hcDeletes.push(details.url);
      await self.__hcLetDelete;
      return real(details);
    });
    try {
      const row = rowOf(popup, SCONE);
      await row.getByRole('button', { name: 'Remove from history', exact: true }).click();
      await row.getByRole('button', { name: 'Remove', exact: true }).click();
      await waitUntil(
        async () => (await ext.serviceWorker.evaluate(() => self.__hcDeletes.length)) > 0,
        'the worker starting to delete the page',
      );
      await popup.close();
    } finally {
      await ext.serviceWorker.evaluate(() => self.__hcReleaseDeletes());
    }
    // No popup is open now: another extension page watches the worker's work end.
    const other = await ext.openPage('manifest.json');
    let left = [];
    await waitUntil(async () => (left = await historyUrls(other, 'zorblat-scone')).length === 0, 'chrome.history holding no entry of the page', {
      describe: () => `still held: ${JSON.stringify(left)}`,
    });
    // The worker rewrites the stored answer after the deletions: wait for that write, not a time.
    await other.waitForFunction(
      async (url) => {
        const items = await chrome.storage.local.get(null);
        return Object.values(items).some((t) => t?.question === 'zorblat scones' && !t.results?.some((r) => r.url === url));
      },
      SCONE,
      { timeout: LIMIT_MS },
    );
    await other.close();
    await restoreInWorker(ext, 'deleteUrl');
    assert.deepEqual((await ext.serviceWorker.evaluate(() => self.__hcDeletes)).sort(), [...SCONE_RAW].sort(), 'every raw entry was deleted by the worker');

    popup = await openPopup(ext);
    await waitForTurns(popup, 6, LIMIT_MS);
    const reopened = (await readTurns(popup)).find((t) => t.question === 'zorblat scones');
    assert.ok(reopened, 'the turn is still in the conversation');
    assertNotFound(reopened, SCONE, 'the removed page, after reopening');
    const index = await askWorker(popup, { type: 'search', query: 'zorblat scones', startMs: 0, limit: 25 });
    assert.ok(!index.pages.some((p) => p.url === SCONE), 'the index no longer holds it');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });
});

describe('Remove from history while a search that shows the page is running', () => {
  let ext;
  let gemini;
  const now = Date.now();
  const question = 'zorblat cake quince';

  before(async () => {
    ({ ext, gemini } = await launchAi({ history: seeded(now) }));
  });

  after(async () => {
    await ext?.close();
  });

  test('the page is never shown nor stored by the answer that was running, though the model picked it', async () => {
    const popup = await openPopup(ext);
    await waitForIndex(popup);
    const first = await askAi(popup, question);
    assert.ok(first.results.some((r) => r.href === CAKE), `fixture: the model picks the page: ${JSON.stringify(first.results)}`);

    const ranking = gate();
    gemini.queue('ranking', async () => (await ranking.opened, null));
    const rankingsBefore = gemini.calls('ranking').length;
    try {
      await submit(popup, question);
      await gemini.waitForCalls(rankingsBefore + 1, { kind: 'ranking', timeout: LIMIT_MS });
      const held = gemini.calls('ranking').at(-1);
      assert.ok(held.candidates.some((c) => c.title === CAKE_TITLE), 'the running search sent the page to the model');

      const row = popup.locator(SEL.turn).first().locator('li.result').filter({ has: popup.locator(`a[href="${CAKE}"]`) });
      await row.getByRole('button', { name: 'Remove from history', exact: true }).click();
      await row.getByRole('button', { name: 'Remove', exact: true }).click();
      await waitForRowGone(popup, CAKE);
      assert.equal(await popup.locator(SEL.conversation).getAttribute('aria-busy'), 'true', 'the search was still running');
    } finally {
      ranking.open();
    }
    await popup.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-busy') === 'false' && document.querySelectorAll(`${sel} article.turn`).length >= 2, SEL.conversation, { timeout: 60_000 });
    const turns = await readAiTurns(popup);
    assert.equal(turns[0].question, question);
    assert.ok(turns[0].results.length > 0, 'the running search still answered');
    assert.ok(!turns.some((t) => t.results.some((r) => r.href === CAKE)), `no turn shows the removed page: ${JSON.stringify(turns.map((t) => t.results.map((r) => r.href)))}`);
    const stored = await logEntries(popup);
    assert.ok(!stored.some((e) => e.results?.some((r) => r.url === CAKE)), 'no stored answer holds it');
    assert.deepEqual(await historyUrls(popup, 'zorblat-cake'), []);
    await flushEvents(ext, popup);
    ext.assertNoErrors();
    await popup.close();
  });
});
