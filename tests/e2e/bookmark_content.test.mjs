// The bookmarked pages' content, end to end: with page content and the bookmarks' switch on, the
// options page's "Read my bookmarked pages" downloads them from their sites (the offscreen
// document's fetch, through Chromium's own network stack, as the catch-up does), a bookmark added
// is read as it is added, and the pages are found by what they said although they were never
// visited. The sites are the content evaluation's, served by support/content_site.mjs at their
// real-looking addresses; its log is the record of what was asked. The bookmarks are real
// (chrome.bookmarks, the permission granted as a user grants it: browser_access.mjs).
//
// Covered: the plan names the bookmarked pages (an excluded site's left out) and the run asks
// exactly those, without cookies; a page read is found by a fact deep in its text, as a bookmark
// (its label, no "Remove from history"), whatever the period; `tab:` alone does not search it; a
// bookmark added is read without asking, and so is a bookmark's new address (the old page's content
// deleted); a bookmark removed takes its page's content with it; a
// bookmark whose title holds every word asked leads the pages found by what they said; the switch
// off deletes what was read of pages that are only bookmarked.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { grantContentAccess } from './support/content_access.mjs';
import { grantBookmarks } from './support/browser_access.mjs';
import { contentPages, startContentSite } from './support/content_site.mjs';
import { SEL, ask, hrefs, openPopup } from './support/popup.mjs';
import { LIMIT_MS, flushEvents } from './support/settle.mjs';
import { catchUpOver, contentState, turnReadingOn } from './support/catch_up.mjs';

const EXCLUDED = 'www.saltandsimmer.com';
const IDS = ['qs-rate-limits', 'bt-rainwater', 'ss-sourdough', 'bt-underfloor', 'bt-boiler-pressure'];

describe('the bookmarked pages\' content', { timeout: 600_000 }, () => {
  let site;
  let ext;
  let popup;
  const byId = new Map(contentPages().map((page) => [page.id, page]));
  const [rateLimits, rainwater, sourdough, underfloor, boiler] = IDS.map((id) => byId.get(id));

  const bookmark = (page) => popup.evaluate(({ url, title }) => chrome.bookmarks.create({ url, title }).then((node) => node.id), page);
  /** The result rows of the newest turn: link, source labels, actions. */
  const rows = () => popup.evaluate((sel) => {
    const turn = document.querySelector(sel.turn); // the newest first
    return [...turn.querySelectorAll('li.result')].map((li) => ({
      href: li.querySelector('a.result-link')?.getAttribute('href'),
      sources: [...li.querySelectorAll('.sources .source')].map((s) => s.textContent.trim()),
      actions: [...li.querySelectorAll('.row-actions button')].map((b) => b.textContent.trim()),
    }));
  }, SEL);

  before(async () => {
    site = await startContentSite({ pages: [rateLimits, rainwater, sourdough, underfloor, boiler] });
    ext = await launchExtension({ history: [], args: site.browserArgs, pastGrants: ['bookmarks'] });
    await grantContentAccess(ext);
    await grantBookmarks(ext);
    popup = await openPopup(ext);
    // Bookmarked before reading is on: nothing is read until asked.
    for (const page of [rateLimits, rainwater, sourdough]) await bookmark(page);
    await turnReadingOn(popup, { excludedSites: [EXCLUDED] });
  });

  after(async () => {
    await ext?.close();
    await site?.close();
  });
  afterEach(async () => {
    await flushEvents(ext);
    ext.assertNoErrors();
  });

  test('"Read my bookmarked pages" says what it will ask, then reads exactly those, found by what they said', async () => {
    const options = await ext.openOptions();
    await options.getByRole('button', { name: 'Read my bookmarked pages' }).click();
    const plan = options.locator('.catch-up-plan');
    await plan.waitFor({ timeout: LIMIT_MS });
    const line = await plan.locator('p').textContent();
    assert.match(line, /^This will download 2 pages from 2 sites \(/, line);
    assert.ok(line.includes(rateLimits.host) && line.includes(rainwater.host) && !line.includes(EXCLUDED), line);
    assert.equal(site.requests.length, 0, 'a plan asks nothing of the sites');
    await plan.getByRole('button', { name: 'Start' }).click();
    const state = await catchUpOver(popup, 'the bookmarked pages read', (s) => s.catchUp.read === 2);
    assert.deepEqual(state.catchUp.reach, 'bookmarks');
    assert.equal(state.catchUp.total, 2);
    assert.equal(state.progress.pages, 2, 'both pages kept');
    assert.deepEqual(
      site.requests.map((r) => `${r.host}${r.path}`).sort(),
      [rateLimits, rainwater].map((p) => `${p.host}${p.path}`).sort(),
      'each bookmarked page asked once, the excluded site never',
    );
    assert.ok(site.requests.every((r) => r.cookie === null), 'no cookie sent');
    await options.locator('.catch-up-state', { hasText: 'Done: the 2 pages were read.' }).waitFor({ timeout: LIMIT_MS });
    await options.close();

    // Never visited: found by a fact deep in its text, as a bookmark, in the shortest period too.
    await ask(popup, 'how many exports can a workspace have in progress at once', { period: '24h' });
    const found = (await rows()).find((row) => row.href === rateLimits.url);
    assert.ok(found, `the bookmarked page is found by what it said: ${JSON.stringify(await rows())}`);
    assert.deepEqual(found.sources, ['Bookmark in Other bookmarks'], JSON.stringify(found));
    assert.ok(!found.actions.includes('Remove from history'), `a bookmark only: nothing to remove from history: ${found.actions}`);
    // Open tabs alone do not hold it.
    const tabsOnly = await ask(popup, 'tab: how many exports can a workspace have in progress at once');
    assert.ok(!hrefs(tabsOnly).includes(rateLimits.url), JSON.stringify(hrefs(tabsOnly)));
  });

  test('a bookmark added is read without asking; given another address, that page is read instead; removed, its page\'s content goes', async () => {
    const before = site.requests.length;
    const id = await bookmark(underfloor);
    await catchUpOver(popup, 'the page of the bookmark just added read', (s) => s.progress.pages === 3);
    assert.deepEqual(site.requests.slice(before).map((r) => `${r.host}${r.path}`), [`${underfloor.host}${underfloor.path}`]);
    const question = 'how long was the longest underfloor heating loop in the extension';
    assert.ok(hrefs(await ask(popup, question)).includes(underfloor.url), 'found by what it said');

    await popup.evaluate(([id, url]) => chrome.bookmarks.update(id, { url }), [id, boiler.url]);
    const boilerAsked = () => site.requests.some((r) => r.host === boiler.host && r.path === boiler.path);
    await catchUpOver(popup, 'the new address read, the old one\'s content gone', (s) => boilerAsked() && s.progress.pages === 3);
    const boilerQuestion = 'which part of the pressure relief valve was found dripping into the drain outside';
    assert.ok(hrefs(await ask(popup, boilerQuestion)).includes(boiler.url), 'the new address found by what it said');
    assert.ok(!hrefs(await ask(popup, question)).includes(underfloor.url), 'the old one no longer found');

    await popup.evaluate((id) => chrome.bookmarks.remove(id), id);
    const state = await catchUpOver(popup, 'the removed bookmark\'s content gone', (s) => s.progress.pages === 2);
    assert.equal(state.progress.pages, 2);
    assert.ok(!hrefs(await ask(popup, boilerQuestion)).includes(boiler.url), 'no longer found');
  });

  test('a bookmark whose title holds every word asked comes before pages found only by what they said', async () => {
    // Its page is never read (the site does not serve it): it is found by its title alone.
    const cheatsheet = `https://${rateLimits.host}/never-served`;
    const before = (await contentState(popup)).catchUp.failed;
    await popup.evaluate((url) => chrome.bookmarks.create({ url, title: 'Quillstack rate limits cheatsheet' }), cheatsheet);
    await catchUpOver(popup, 'the download of the bookmark just added ended', (s) => s.catchUp.failed === before + 1);
    const answer = await ask(popup, 'rate limits cheatsheet');
    assert.ok(hrefs(answer).includes(rateLimits.url), `the page that said it is found too: ${JSON.stringify(hrefs(answer))}`);
    assert.equal(hrefs(answer)[0], cheatsheet, `the words found a bookmark: theirs leads: ${JSON.stringify(hrefs(answer))}`);
    await popup.evaluate((url) => chrome.bookmarks.search({ url }).then(([node]) => chrome.bookmarks.remove(node.id)), cheatsheet);
  });

  test('the bookmarks\' switch off deletes what was read of pages that are only bookmarked', async () => {
    const options = await ext.openOptions();
    await options.locator('input[type="checkbox"][aria-label="Search my bookmarks"]').click();
    await options.locator('[role="status"]', { hasText: 'Your bookmarks are no longer searched' }).waitFor({ timeout: LIMIT_MS });
    await options.close();
    const state = await catchUpOver(popup, 'the bookmarked pages\' content gone', (s) => s.progress.pages === 0);
    assert.equal(state.progress.pages, 0);
    const stored = await ext.serviceWorker.evaluate(() => new Promise((resolve, reject) => {
      const open = indexedDB.open('history-chat');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const count = db.transaction('content').objectStore('content').count();
        count.onsuccess = () => resolve(count.result);
        count.onerror = () => reject(count.error);
      };
    }));
    assert.equal(stored, 0, 'no content record left in IndexedDB');
  });
});
