// Bookmarks and open tabs searched by topic, end to end: with topic search and their switches on,
// a bookmarked page is found by meaning whatever the period, and a page known only as a bookmark
// (never visited) or as an open tab (its history deleted) is understood by its bookmark's or tab's
// title, its vector kept while it is bookmarked or open. The real model (multilingual-e5-small, the
// offscreen document's worker), real chrome.bookmarks and real tabs (the permissions granted as a
// user grants them: browser_access.mjs), real chrome.history; no key, no network from the
// extension.
//
// Covered: a bookmark-only page found by a question sharing no word with its title, shown as a
// bookmark in the popup's 24 h period; a history page bookmarked found outside its period as a
// bookmark, and back to its period once unbookmarked; a bookmark retitled understood by its new
// title; a bookmark removed takes its vector out of IndexedDB; `history:` leaves bookmarks and tabs
// out, `tab:` finds the tab; a tab closed takes its page's vector with it; the bookmarks' switch
// off deletes the vector of every page known only as a bookmark and leaves the history's.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { PAST_GRANTS, grantBookmarks, grantTabs } from './support/browser_access.mjs';
import { SEL, ask, openPopup } from './support/popup.mjs';
import { flushEvents, waitUntil } from './support/settle.mjs';
import { DAY, HOUR } from './support/fixtures.mjs';
import { NOISE, TYRE, hasStoredVector, semanticState, storedVector, waitForSemantic } from './support/topics.mjs';
import { askWorker } from './support/live.mjs';

/** Never visited: known to History Chat only as bookmarks. */
const COMPOST = { url: 'https://garden.example/compost-at-home', title: 'Composting kitchen scraps at home: a beginner guide' };
const BACK = { url: 'https://physio.example/lower-back', title: 'Ten exercises to ease lower back pain' };

/**
 * The bike repair page two days ago, the others within the last 16 hours: the last 24 hours hold
 * enough pages for topic search to tell a match from noise (it answers nothing under ten).
 */
function history(now) {
  return [
    { url: TYRE.url, title: TYRE.title, visits: [now - 2 * DAY] },
    ...NOISE.map(([url, title], i) => ({ url, title, visits: [now - (i + 1) * HOUR] })),
  ];
}

describe('bookmarks and open tabs searched by topic', { timeout: 600_000 }, () => {
  let ext;
  let popup;
  let options;
  const now = Date.now();

  /**
   * What topic search alone answers for `query` since `startMs`: each page's URL and whether it is
   * shown as a bookmark. Asked from the options page: a question from the popup is the user asking,
   * which pauses the build for a moment, and a wait that asks again and again would hold it paused.
   */
  const understood = async (query, startMs, { tab = false } = {}) => {
    const answer = await askWorker(options, { type: 'understand', query, startMs, limit: 30 });
    assert.equal(answer?.type, 'understood', JSON.stringify(answer));
    return answer.pages.map((p) => ({
      url: p.url,
      bookmark: Boolean(p.marks?.bookmark),
      ...(tab ? { tab: Boolean(p.marks?.tab), outsideHistory: Boolean(p.marks?.outsideHistory) } : {}),
    }));
  };
  const urls = (pages) => pages.map((p) => p.url);
  /** Waits until every page known is understood and stored (the build over). */
  const built = async () => {
    const state = await waitForSemantic(popup, 'ready');
    assert.equal(state.understood, state.total, JSON.stringify(state));
    return state;
  };
  const bookmark = (page) => popup.evaluate(({ url, title }) => chrome.bookmarks.create({ url, title }).then((node) => node.id), page);
  const dayAgo = () => Date.now() - 24 * HOUR;

  before(async () => {
    ext = await launchExtension({ history: history(now), topics: true, pastGrants: PAST_GRANTS });
    await grantBookmarks(ext);
    popup = await openPopup(ext);
    options = await ext.openOptions();
    await built();
  });
  after(async () => ext?.close());
  afterEach(async () => {
    await flushEvents(ext);
    ext.assertNoNetwork();
    ext.assertNoErrors();
  });

  test('a page known only as a bookmark is understood by its title and shown as a bookmark in any period', async () => {
    const before = (await semanticState(popup)).total;
    const compostId = await bookmark(COMPOST);
    await bookmark(BACK);
    await waitUntil(async () => (await semanticState(popup)).total === before + 2, 'both bookmarks to understand');
    await built();
    assert.ok(await hasStoredVector(popup, COMPOST.url) && await hasStoredVector(popup, BACK.url));
    // No word in common with its title, and bookmarked just now: found in the last 24 hours.
    const found = await understood('what to do with food waste in the garden', dayAgo());
    assert.deepEqual(found.slice(0, 3).find((p) => p.url === COMPOST.url), { url: COMPOST.url, bookmark: true }, JSON.stringify(found));
    // The popup's row says it is a bookmark, with no removal from history.
    const turn = await ask(popup, 'what to do with food waste in the garden', { period: '24h' });
    assert.ok(turn.results.some((r) => r.href === COMPOST.url), JSON.stringify(turn.results));
    const row = await popup.evaluate(({ sel, url }) => {
      const li = [...document.querySelector(sel.turn).querySelectorAll('li.result')]
        .find((item) => item.querySelector('a.result-link')?.getAttribute('href') === url);
      return {
        sources: [...li.querySelectorAll('.sources .source')].map((s) => s.textContent.trim()),
        actions: [...li.querySelectorAll('.row-actions button')].map((b) => b.textContent.trim()),
      };
    }, { sel: SEL, url: COMPOST.url });
    assert.deepEqual(row.sources, ['Bookmark in Other bookmarks'], JSON.stringify(row));
    assert.ok(!row.actions.includes('Remove from history'), JSON.stringify(row));
    // `history:` leaves the bookmarks out.
    assert.ok(!urls(await understood('history: what to do with food waste in the garden', 0)).includes(COMPOST.url));

    // Retitled: understood again, by its new title.
    const retitled = 'sourdough starter feeding schedule';
    assert.ok(!urls(await understood(retitled, 0)).includes(COMPOST.url));
    const vectorBefore = JSON.stringify(await storedVector(popup, COMPOST.url));
    await popup.evaluate((id) => chrome.bookmarks.update(id, { title: 'Sourdough starter feeding schedule' }), compostId);
    // Waited for by its record written again (asking meanwhile would pause the build: a user asking).
    await waitUntil(async () => JSON.stringify(await storedVector(popup, COMPOST.url)) !== vectorBefore, 'the retitled bookmark\'s vector written again');
    await built();
    assert.ok(urls(await understood(retitled, 0)).includes(COMPOST.url), 'found by its new title');

    // Removed: its vector leaves IndexedDB, and it is found no more.
    await popup.evaluate((id) => chrome.bookmarks.remove(id), compostId);
    await waitUntil(async () => !(await hasStoredVector(popup, COMPOST.url)), 'the removed bookmark\'s vector deleted');
    assert.ok(!urls(await understood(retitled, 0)).includes(COMPOST.url));
    assert.equal((await semanticState(popup)).understood, before + 1, 'the other bookmark stays');
  });

  test('a page of the history bookmarked is found whatever its age, and in its period again once unbookmarked', async () => {
    // Visited two days ago: outside the last 24 hours.
    const question = 'how to fix a flat bicycle tire';
    const day = dayAgo();
    assert.ok(urls(await understood(question, 0)).includes(TYRE.url), 'found over the whole history');
    assert.ok(!urls(await understood(question, day)).includes(TYRE.url), 'not in the last 24 hours');
    const id = await bookmark(TYRE);
    await waitUntil(async () => (await understood(question, day)).some((p) => p.url === TYRE.url), 'the bookmarked page found in the last 24 hours');
    assert.deepEqual((await understood(question, day)).find((p) => p.url === TYRE.url), { url: TYRE.url, bookmark: true });
    // Over the whole history it is the history's page (bookmarked).
    assert.deepEqual((await understood(question, 0)).find((p) => p.url === TYRE.url), { url: TYRE.url, bookmark: true });
    await popup.evaluate((bookmarkId) => chrome.bookmarks.remove(bookmarkId), id);
    await waitUntil(async () => !urls(await understood(question, day)).includes(TYRE.url), 'back to its period once unbookmarked');
    // Its vector is the history's: kept.
    assert.ok(await hasStoredVector(popup, TYRE.url));
  });

  test('a page open in a tab and outside the history is understood by its tab\'s title, and forgotten once the tab closes', async () => {
    await grantTabs(ext);
    const KNITTING = { url: 'https://crafts.example/knitting-cable-stitch', title: 'Knitting a cable stitch pattern step by step' };
    await ext.context.route(/^https:\/\/crafts\.example\//, (route) => route.fulfill({
      status: 200,
      contentType: 'text/html; charset=utf-8',
      body: `<!doctype html><html><head><title>${KNITTING.title}</title></head><body>${KNITTING.title}</body></html>`,
    }));
    const tab = await ext.context.newPage();
    await tab.goto(KNITTING.url);
    // Visited, so in the history; taken out of it, the page is known only as an open tab.
    await waitUntil(() => hasStoredVector(popup, KNITTING.url), 'the visited page understood');
    await popup.evaluate((url) => chrome.history.deleteUrl({ url }), KNITTING.url);
    const question = 'twisting wool strands with a needle';
    const asTab = { url: KNITTING.url, bookmark: false, tab: true, outsideHistory: true };
    let seen = [];
    await waitUntil(
      async () => (seen = await understood(question, dayAgo(), { tab: true })).some((p) => JSON.stringify(p) === JSON.stringify(asTab)),
      'the page found as an open tab outside the history',
      { describe: () => JSON.stringify(seen) },
    );
    assert.ok(await hasStoredVector(popup, KNITTING.url), 'its vector kept while the tab is open');
    // `history:` leaves it out; `tab:` alone finds it.
    assert.ok(!urls(await understood(`history: ${question}`, dayAgo())).includes(KNITTING.url));
    assert.ok(urls(await understood(`tab: ${question}`, dayAgo())).includes(KNITTING.url));
    await tab.close();
    await waitUntil(async () => !(await hasStoredVector(popup, KNITTING.url)), 'the closed tab\'s vector deleted');
    assert.ok(!urls(await understood(question, dayAgo())).includes(KNITTING.url));
  });

  test('the bookmarks\' switch off deletes the vectors of the pages known only as bookmarks, and keeps the history\'s', async () => {
    assert.ok(await hasStoredVector(popup, BACK.url));
    const seen = await understood('stretches for a sore spine', 0);
    assert.ok(urls(seen).includes(BACK.url), JSON.stringify(seen));
    const before = (await semanticState(popup)).total;
    assert.equal(await ext.serviceWorker.evaluate(() => chrome.permissions.remove({ permissions: ['bookmarks'] })), true);
    await waitUntil(async () => !(await hasStoredVector(popup, BACK.url)), 'the bookmark-only vector deleted');
    const state = await built();
    assert.equal(state.total, before - 1, JSON.stringify(state));
    assert.ok(await hasStoredVector(popup, TYRE.url), 'the history\'s vectors stay');
    assert.ok(!urls(await understood('stretches for a sore spine', 0)).includes(BACK.url));
  });
});
