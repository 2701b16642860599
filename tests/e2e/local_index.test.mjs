// The smart local search without a key (issue "Smart local search without a key"), end to end:
// the built extension, real chrome.history (seeded History DB, real visits, real deletions), the
// index in the service worker, the popup's as-you-type list and committed turns.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { CTE_ARTICLE, DAY, HOUR, MINUTE, demoHistory, expectedRecent, largeHistory } from './support/fixtures.mjs';
import { SEL, alertText, assertFound, assertNotFound, describeTurn, hrefs, openPopup, openPopupMeasured, readTurns, waitForAnswer } from './support/popup.mjs';
import {
  LIVE, askWorker, assertIncludes, deleteSnapshot, instrumentedPopup, isIndexingNotice, literalSearch, openAndAsk, readLive,
  snapshotBytes, stopServiceWorker, typeSlowly, waitForIndex, waitForLive, waitForSnapshot,
} from './support/live.mjs';
import { LIMIT_MS, flushEvents, waitUntil } from './support/settle.mjs';

const CREME = { url: 'https://www.750g.com/recette-98213.htm', title: 'Crème brûlée facile au four' };
/** Deleted from history by a test; its only URL, so the page must go. */
const ARABIC = { url: 'https://ar.wikipedia.org/wiki/%D8%A8%D8%B1%D9%85%D8%AC%D8%A9', title: 'برمجة الحاسوب - ويكيبيديا' };
const HEBREW = { url: 'https://he.wikipedia.org/wiki/%D7%AA%D7%9B%D7%A0%D7%95%D7%AA', title: 'תכנות מחשבים – ויקיפדיה' };
const DOOMED = { url: 'https://www.lesnumeriques.com/casque-audio/sony-wh-1000xm6-p81234/test.html', title: 'Test Sony WH-1000XM6 : le casque à réduction de bruit' };

/** Commits what is in the box with Enter; returns the new turn. */
async function commit(page, question) {
  const before = await page.locator(SEL.turn).count();
  await page.locator(SEL.search).press('Enter');
  await waitForAnswer(page, question, before);
  return (await readTurns(page))[0];
}

/** Types `query` key by key and waits for `href` among the first five of the as-you-type list; returns the list. */
async function typeAndSee(page, query, href) {
  await typeSlowly(page, query);
  return waitForLive(page, (l) => l.hrefs.includes(href) && l.hrefs.indexOf(href) < 5, `"${query}" → ${href} in the first five`, LIMIT_MS);
}

/**
 * The as-you-type answer to `query` entered at once (one input event, after clearing the box, which
 * removes the list): the list shown next can only be that answer.
 */
async function liveAnswerFor(page, query) {
  const box = page.locator(SEL.search);
  await box.fill('');
  await page.waitForFunction((live) => !document.querySelector(live), LIVE, { timeout: LIMIT_MS });
  await box.fill(query);
  await page.waitForFunction((live) => document.querySelector(live), LIVE, { timeout: LIMIT_MS });
  return readLive(page);
}

/**
 * The URLs the worker's index gives for `query` (the message the popup sends for each keystroke;
 * only `type` and `pages[].url` of the answer are read).
 */
async function indexAnswer(page, query) {
  const answer = await askWorker(page, { type: 'search', query, startMs: 0, limit: 25 });
  return answer?.type === 'pages' ? answer.pages.map((p) => p.url) : null;
}

/** Waits until the worker's index answers `query` as `predicate(urls)` wants: the index has applied a change to the history. */
async function waitForIndexAnswer(page, query, predicate, what) {
  let last;
  await waitUntil(async () => {
    last = await indexAnswer(page, query);
    return last !== null && predicate(last);
  }, `the index's answer to "${query}": ${what}`, { describe: () => `last answer: ${JSON.stringify(last)}` });
  return last;
}

describe('smart local search in a seeded profile', () => {
  let ext;
  let popup;
  let history;
  const now = Date.now();

  before(async () => {
    history = [
      ...demoHistory(now),
      { url: CREME.url, title: CREME.title, visits: [now - 3 * HOUR, now - 4 * DAY] },
      { url: DOOMED.url, title: DOOMED.title, visits: [now - 2 * HOUR] },
      { url: ARABIC.url, title: ARABIC.title, visits: [now - 5 * DAY] },
      { url: HEBREW.url, title: HEBREW.title, visits: [now - 6 * DAY] },
    ];
    ext = await launchExtension({ history });
    popup = await openPopup(ext);
    await waitForIndex(popup);
  });

  after(async () => {
    await ext?.close();
  });

  test('typing shows matches at each keystroke without Enter; Enter commits a turn', async () => {
    const turnsBefore = await popup.locator(SEL.turn).count();
    await typeSlowly(popup, 'flatm');
    const flatMap = 'https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array/flatMap';
    const live = await waitForLive(popup, (l) => l.hrefs[0] === flatMap, 'flatMap as the best match while typing "flatm"', LIMIT_MS);
    assert.deepEqual(live.notices, [], 'answered by the index (no "Indexing…" notice)');
    // Each keystroke updates the list: one more word narrows it to something else.
    await popup.keyboard.type(' ');
    await popup.keyboard.type('btreemap', { delay: 20 });
    await waitForLive(popup, (l) => l.hrefs.join() !== live.hrefs.join(), 'a different list once more words are typed', LIMIT_MS);
    await typeSlowly(popup, 'btreem');
    await waitForLive(popup, (l) => l.hrefs[0] === 'https://doc.rust-lang.org/std/collections/struct.BTreeMap.html', '"btreem" → BTreeMap', LIMIT_MS);
    assert.equal(await popup.locator(SEL.turn).count(), turnsBefore, 'typing alone adds no turn to the conversation');
    const turn = await commit(popup, 'btreem');
    assert.equal(turn.question, 'btreem');
    assertFound(turn, 'https://doc.rust-lang.org/std/collections/struct.BTreeMap.html', 'BTreeMap (committed, unfinished word)');
    assert.equal(await popup.locator(SEL.turn).count(), turnsBefore + 1, 'Enter added one turn');
    assert.equal(await popup.locator(LIVE).count(), 0, 'the committed turn replaces the as-you-type list');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });

  const CASES = [
    { what: 'accents left out', query: 'creme brulee', href: CREME.url, literalFinds: false },
    { what: 'word order', query: 'cte recursive cycles', href: CTE_ARTICLE.cleanUrl, literalFinds: true },
    { what: 'word order and inflections', query: 'handle cycle recursive cte', href: CTE_ARTICLE.cleanUrl, literalFinds: false },
    { what: 'one typo', query: 'recursiv ctes cycels', href: CTE_ARTICLE.cleanUrl, literalFinds: false },
  ];
  for (const c of CASES) {
    test(`${c.what}: "${c.query}" finds its page as you type and committed${c.literalFinds ? '' : '; the browser alone does not'}`, async (t) => {
      const literal = await literalSearch(popup, c.query);
      // Chrome's matcher is an AND of word prefixes (see crates/history-chat-core/src/index/literal.rs): order does not matter to it,
      // accents, typos and other inflections do.
      assert.equal(literal.includes(c.href), c.literalFinds, `chrome.history.search("${c.query}") gave ${JSON.stringify(literal)}`);
      t.diagnostic(`chrome.history.search("${c.query}") alone: ${literal.includes(c.href) ? 'finds it' : `misses it (${literal.length} results)`}`);
      await typeAndSee(popup, c.query, c.href); // in the first five as you type
      const turn = await commit(popup, c.query);
      assertFound(turn, c.href, `${c.what} (committed)`);
      assert.ok(hrefs(turn).indexOf(c.href) < 5, `in the first five once committed: ${describeTurn(turn)}`);
    });
  }

  test('an empty question (Enter on an empty box) lists the most recent pages of the period, newest first', async () => {
    await popup.locator(SEL.period).selectOption('24h');
    await popup.locator(SEL.search).fill('');
    const turn = await commit(popup, '');
    const expected = expectedRecent(history, Date.now(), DAY);
    assert.ok(expected.length >= 10, 'the fixture has recent pages');
    assert.deepEqual(hrefs(turn), expected.slice(0, turn.results.length), `newest first; ${describeTurn(turn)}`);
    assert.equal(turn.results.length, Math.min(expected.length, 25), 'all of them (up to the result limit)');
    await popup.locator(SEL.period).selectOption('90d');
  });

  test('a page deleted from history (chrome.history.deleteUrl) disappears, as you type and committed', async () => {
    const query = 'sony casque bruit';
    await typeAndSee(popup, query, DOOMED.url);
    await popup.evaluate((url) => chrome.history.deleteUrl({ url }), DOOMED.url);
    // onVisitRemoved reaches the worker asynchronously: wait until its index has applied it.
    await waitForIndexAnswer(popup, query, (urls) => !urls.includes(DOOMED.url), 'without the deleted page');
    const live = await liveAnswerFor(popup, query);
    assert.ok(!live.hrefs.includes(DOOMED.url), `the deleted page is gone from the as-you-type list: ${JSON.stringify(live)}`);
    const turn = await commit(popup, query);
    assertNotFound(turn, DOOMED.url, 'the deleted page (committed: index and browser fused)');
    assert.deepEqual(await literalSearch(popup, 'sony'), [], 'the browser no longer has it either');
    // Other pages stay.
    await typeAndSee(popup, 'creme brulee', CREME.url);
  });

  test('a page visited while the popup is open is found without reopening Chrome (onVisited)', async () => {
    const url = 'https://www.orchidees-passion.example/guides/zygopetalum-arrosage-hiver';
    const title = 'Zygopetalum : arrosage et floraison en hiver';
    await ext.context.route('https://www.orchidees-passion.example/**', (route) =>
      route.fulfill({ status: 200, contentType: 'text/html; charset=utf-8', body: `<!doctype html><meta charset="utf-8"><title>${title}</title><p>Orchidées.` }),
    );
    const tab = await ext.context.newPage();
    await tab.goto(url);
    await tab.waitForFunction((t) => document.title === t, title);
    // The popup stayed open all along; accents and a plural left out. onVisited reaches the worker
    // asynchronously (and the title comes after the visit): wait until its index has the page.
    await popup.bringToFront();
    const query = 'zygopetalum arrosage floraisons';
    await waitForIndexAnswer(popup, query, (urls) => urls.includes(url), 'with the new visit');
    await typeSlowly(popup, query, 5);
    // The assertion below reports what the list showed when the wait gave up.
    const live = await waitForLive(popup, (l) => l.hrefs.includes(url), 'the new visit', LIMIT_MS).catch(() => readLive(popup));
    assertIncludes(live?.hrefs ?? [], url, 'the new visit in the as-you-type list');
    const turn = await commit(popup, 'zygopetalum arrosage floraisons');
    assertFound(turn, url, 'the new visit (committed)');
    await tab.close();
  });

  test('odd input: stop words, punctuation, 500 characters, emoji, right-to-left, one letter — no error, still responsive', async (t) => {
    const cases = [
      'the of and',
      '?!...',
      'cte '.repeat(125).trim().padEnd(500, 'x'),
      '🍮🔥 😀',
      'مرحبا بالعالم',
      'שלום עולם',
      'r',
    ];
    for (const q of cases) {
      await popup.locator(SEL.search).fill('');
      await popup.locator(SEL.search).focus();
      if (q.length > 40) await popup.keyboard.insertText(q);
      else await popup.keyboard.type(q, { delay: 5 });
      const turn = await commit(popup, q);
      const shown = turn.results.length ? `${turn.results.length} results` : `notice ${JSON.stringify(turn.notice)}`;
      t.diagnostic(`${JSON.stringify(q.length > 40 ? `${q.slice(0, 20)}…(${q.length} chars)` : q)} → ${shown}`);
      assert.ok(turn.results.length > 0 || (turn.notice && turn.notice.length > 10), `a sensible answer for ${JSON.stringify(q)}: ${describeTurn(turn)}`);
      assert.equal(await alertText(popup), '', `no alert for ${JSON.stringify(q)}`);
    }
    // Right-to-left words of a page's title find it.
    for (const [q, page] of [['برمجة', ARABIC], ['תכנות', HEBREW]]) {
      await typeAndSee(popup, q, page.url);
      assertFound(await commit(popup, q), page.url, `the ${page === ARABIC ? 'Arabic' : 'Hebrew'} page`);
    }
    // Still responsive: a normal query right after, as you type and committed.
    await typeAndSee(popup, 'creme brulee', CREME.url);
    assertFound(await commit(popup, 'creme brulee'), CREME.url);
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });

  test('after chrome.history.deleteAll() nothing is found, as you type or committed', async () => {
    await popup.evaluate(() => chrome.history.deleteAll());
    // onVisitRemoved (all history) reaches the worker asynchronously: wait until its index is empty of it.
    await waitForIndexAnswer(popup, 'creme brulee', (urls) => urls.length === 0, 'nothing');
    const live = await liveAnswerFor(popup, 'creme brulee');
    assert.deepEqual(live.hrefs, [], `an empty as-you-type list: ${JSON.stringify(live)}`);
    const turn = await commit(popup, 'creme brulee');
    assert.equal(turn.results.length, 0, describeTurn(turn));
    await popup.locator(SEL.search).fill('');
    const recent = await commit(popup, '');
    assert.equal(recent.results.length, 0, `no recent page after deleteAll: ${describeTurn(recent)}`);
  });

  test('zero network requests from the extension throughout', async () => {
    await flushEvents(ext, popup);
    ext.assertNoErrors();
    ext.assertNoNetwork();
  });
});

describe('a 50,000-entry history', () => {
  let ext;
  const now = Date.now();
  const BTREEMAP = 'https://doc.rust-lang.org/std/collections/struct.BTreeMap.html';

  before(async () => {
    ext = await launchExtension({ history: [...largeHistory(50_000, now), ...demoHistory(now), { url: CREME.url, title: CREME.title, visits: [now - HOUR] }] });
  });

  after(async () => {
    await ext?.close();
  });

  test('while the index builds, the popup says how far it has got and answers at once, the browser filling in; then the index answers alone', async () => {
    // A cold worker with no snapshot, whatever the build started at launch had done: stop the
    // worker, then delete its snapshot (nothing can write it while the worker is stopped).
    const blank = await ext.openPage('popup.html');
    const sw = await stopServiceWorker(ext, blank);
    await deleteSnapshot(blank);
    assert.equal(await snapshotBytes(blank), 0, 'precondition: no snapshot');
    // The question is typed as soon as the box has focus, as a user does with the shortcut.
    const page = await instrumentedPopup(ext);
    await page.keyboard.insertText('btreemap');
    await page.waitForFunction(() => window.__hc.liveAt !== undefined, null, { timeout: 60_000 });
    const first = await page.evaluate(() => window.__hc);
    // The popup's first question to the worker, on opening, meets the build at its start: the
    // progress line is the first thing said about the index.
    assert.match(first.indexingLines[0] ?? '', /^Indexing your history/, `the popup says it is indexing: ${JSON.stringify(first.indexingLines)}`);
    assert.ok(first.liveNotices.some(isIndexingNotice), `the first results say the index is not complete: ${JSON.stringify(first.liveNotices)}`);
    // Chrome's literal match is there once the browser has filled in.
    const filled = await waitForLive(page, (l) => l.hrefs.includes(BTREEMAP), "the browser's literal match", 60_000);
    // While the index still did not reach back to the period's start, that list must say so.
    const state = await askWorker(page, { type: 'warm' });
    if (state.type === 'indexing' && !(state.progress.sinceMs <= Date.now() - 7 * DAY)) {
      assert.ok(filled.notices.some(isIndexingNotice), `a list filled in by Chrome's search says so: ${JSON.stringify(filled)}`);
    }
    // A committed question during the build or after: the literal match is in the answer.
    const turn = await commit(page, 'btreemap');
    assertFound(turn, BTREEMAP, 'the committed answer');
    const ready = await waitForIndex(page);
    assert.ok(ready.pages > 50_000, `the whole history is indexed (${ready.pages} pages)`);
    // The progress line goes once the index is complete, and answers come from the index alone.
    await page.waitForFunction(() => !document.querySelector('p.indexing'), null, { timeout: 30_000 });
    const lines = await page.evaluate(() => window.__hc.indexingLines);
    assert.ok(lines.some((l) => /\d pages? so far, back to /.test(l)), `the progress said how far it had got: ${JSON.stringify(lines)}`);
    await typeSlowly(page, 'creme brulee');
    const smart = await waitForLive(page, (l) => l.hrefs.includes(CREME.url), "the index's answer once built");
    assert.deepEqual(smart.notices, [], 'no notice once the index answers');
    const committed = await commit(page, 'creme brulee');
    assertFound(committed, CREME.url, 'committed, from the index alone');
    assert.equal(committed.notice, null, `no indexing note on an answer the index gave alone: ${describeTurn(committed)}`);
    sw.detach();
    await blank.close();
    await page.close();
    ext.assertNoErrors();
  });

  test('the index survives a worker restart: the first search after it is answered from the snapshot', async (t) => {
    const page = await ext.openPage('popup.html');
    await waitForIndex(page);
    await waitForSnapshot(page);
    const sw = await stopServiceWorker(ext, page); // (the protocol session lives in this page: keep it open)
    // The popup is opened on the stopped worker, and the question typed as soon as the box has
    // focus, as a user does with the keyboard shortcut.
    const first = await openAndAsk(ext, 'creme brulee');
    await sw.running();
    assert.deepEqual(first.notices, [], `the first answer after the restart comes from the snapshot, not Chrome's search: ${JSON.stringify(first)}`);
    assertIncludes(first.hrefs, CREME.url, 'the first answer after the restart');
    sw.detach();
    await page.close();
    ext.assertNoErrors();
    ext.assertNoNetwork();
  });
});
