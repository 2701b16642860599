// The popup against a realistic seeded history, in local mode (no API key).
// One browser for the file; tests run in order and each reads only the turns it created.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { DAY, CTE_ARTICLE, EXCLUDED, TEN_DAYS_AGO_PAGE, demoHistory, expectedRecent, isExcludedHref } from './support/fixtures.mjs';
import {
  SEL, alertText, ask, assertFound, assertNotFound, describeTurn, hrefs, logEntries, openPopup,
  openPopupMeasured, readTurns, statusText, waitForAnswer, waitForTurns,
} from './support/popup.mjs';
import { LIMIT_MS, OPTIONS_STARTUP, POPUP_STARTUP, flushEvents, trackChromeCalls, waitForSettled, checkedBelow } from './support/settle.mjs';

let ext;
let history;
const now = Date.now();

before(async () => {
  history = demoHistory(now);
  ext = await launchExtension({ history });
  await trackChromeCalls(ext.context);
});

after(async () => {
  await ext?.close();
});

test('the popup loads with no console error, search box focused, controls present', async () => {
  const { page } = await openPopupMeasured(ext);
  const focused = await page.evaluate((sel) => document.activeElement === document.querySelector(sel), SEL.search);
  assert.ok(focused, 'the search box should have focus on open');
  assert.equal(await page.locator(SEL.period).inputValue(), '7d', 'the period should start at the default setting, 7d');
  const options = await page.locator(SEL.period).locator('option').evaluateAll((os) => os.map((o) => [o.value, o.textContent.trim()]));
  assert.deepEqual(options, [['24h', 'Last 24 hours'], ['7d', 'Last 7 days'], ['30d', 'Last 30 days'], ['90d', 'Last 3 months']]);
  assert.equal(await page.getByRole('button', { name: 'Clear conversation', exact: true }).count(), 1, 'one "Clear conversation" button');
  const optionsControls = (await page.getByRole('button', { name: 'Options', exact: true }).count()) + (await page.getByRole('link', { name: 'Options', exact: true }).count());
  assert.equal(optionsControls, 1, 'one link or button named "Options"');
  assert.equal(await page.locator(SEL.conversation).count(), 1, `one ${SEL.conversation}`);
  // Late errors would come from its first reads (settings, conversation, the worker's warm-up):
  // wait until they are answered, and until what the page logged meanwhile has reached the harness.
  await waitForSettled(page, POPUP_STARTUP);
  await flushEvents(ext, page);
  assert.equal(await alertText(page), '', 'no alert on open');
  ext.assertNoErrors();
  await page.close();
});

test('what is typed before the popup\'s module has started is kept, Enter included', async () => {
  const page = await ext.context.newPage();
  // Hold the WebAssembly module until the test lets it go, so the keystrokes surely come first.
  await page.addInitScript(() => {
    let release;
    const held = new Promise((resolve) => (release = resolve));
    window.__releaseWasm = release;
    for (const name of ['instantiateStreaming', 'instantiate']) {
      const original = WebAssembly[name].bind(WebAssembly);
      WebAssembly[name] = (...args) => held.then(() => original(...args));
    }
  });
  await page.goto(ext.url('popup.html'), { waitUntil: 'domcontentloaded' });
  await page.waitForFunction((sel) => document.activeElement?.matches(sel), SEL.search);
  await page.keyboard.type('recursive cte', { delay: 10 });
  await page.keyboard.press('Enter');
  assert.equal(await page.locator(SEL.conversation).count(), 0, 'precondition: the module has not mounted the popup yet');
  assert.equal(await page.locator(SEL.search).inputValue(), 'recursive cte');
  await page.evaluate(() => window.__releaseWasm());
  await waitForAnswer(page, 'recursive cte', 0);
  const [turn] = await readTurns(page);
  assertFound(turn, CTE_ARTICLE.cleanUrl, 'the question typed before the module started');
  assert.equal(await page.locator(SEL.search).count(), 1, 'one search box once mounted');
  assert.ok(await page.evaluate((sel) => document.activeElement === document.querySelector(sel), SEL.search), 'the popup\'s box has the focus');
  await page.close();
});

test('a search finds the right pages', async () => {
  const page = await openPopup(ext);
  const cte = await ask(page, 'recursive cte', { period: '7d' });
  assertFound(cte, CTE_ARTICLE.cleanUrl, 'the recursive CTE article');
  const r = cte.results.find((x) => x.href === CTE_ARTICLE.cleanUrl);
  assert.equal(r.title, CTE_ARTICLE.title);
  assert.ok(r.url && r.url.includes('blog.pgdev.io'), `span.url should show a readable URL, got ${JSON.stringify(r.url)}`);
  assert.ok(r.time && /ago|yesterday|today/i.test(r.time), `<time> should read like "3 days ago", got ${JSON.stringify(r.time)}`);
  const status = await statusText(page);
  assert.match(status, new RegExp(`\\b${cte.results.length}\\b`), `role=status should announce the count (${cte.results.length}), got ${JSON.stringify(status)}`);

  const mdn = await ask(page, 'flatMap');
  assert.deepEqual(hrefs(mdn), ['https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array/flatMap'], describeTurn(mdn));

  const fr = await ask(page, 'crêpes');
  assertFound(fr, 'https://www.marmiton.org/recettes/recette_pate-a-crepes-facile_12372.aspx', 'the crêpes recipe (accented query)');

  const untitled = await ask(page, 'untitled');
  const u = untitled.results.find((x) => x.href === 'https://example.org/untitled-notes');
  assert.ok(u, `the untitled page should be found by its URL: ${describeTurn(untitled)}`);
  assert.ok(u.title && u.title.includes('example.org/untitled-notes'), `a page without title shows its URL as title, got ${JSON.stringify(u.title)}`);

  // Nothing matches: no word, and no page stands out in meaning while topic search understands
  // this history (a real word can: "zanzibar" brings the untitled page in at 2.8 σ).
  const none = await ask(page, 'qzxv wplk fjdh');
  assert.equal(none.hasList, false, `no result list when nothing matches: ${describeTurn(none)}`);
  assert.ok(none.notice && none.notice.includes('qzxv wplk fjdh'), `a notice naming the question, got ${JSON.stringify(none.notice)}`);
  assert.equal(await alertText(page), '', 'no result is not an error');
  await flushEvents(ext, page);
  ext.assertNoErrors();
  await page.close();
});

test('an empty question lists the most recent pages of the period, newest first', async () => {
  const page = await openPopup(ext);
  const turn = await ask(page, '', { period: '24h' });
  const expected = expectedRecent(history, Date.now(), DAY);
  assert.deepEqual(hrefs(turn), expected, `the web pages visited in the last 24 hours, most recent first; ${describeTurn(turn)}`);
  for (const r of turn.results) {
    assert.ok(r.title, `every result has a title: ${JSON.stringify(r)}`);
    assert.ok(r.url && !/^[a-z]+:\/\//.test(r.url), `span.url is a readable URL without scheme (e.g. example.com/path), got ${JSON.stringify(r.url)}`);
    assert.ok(r.time, `every result has a <time>: ${JSON.stringify(r)}`);
  }
  await page.close();
});

test('aria-busy is "true" while a search runs, then "false"', async () => {
  const page = await openPopup(ext);
  assert.equal(await page.locator(SEL.conversation).getAttribute('aria-busy'), 'false', 'not busy when idle');
  await page.evaluate((sel) => {
    window.__busySeen = [];
    new MutationObserver((records) => {
      for (const r of records) window.__busySeen.push(r.target.getAttribute('aria-busy'));
    }).observe(document.querySelector(sel), { attributes: true, attributeFilter: ['aria-busy'] });
  }, SEL.conversation);
  await ask(page, 'postgresql', { period: '30d' });
  const seen = await page.evaluate(() => window.__busySeen);
  assert.ok(seen.includes('true'), `aria-busy should become "true" during the search; changes seen: ${JSON.stringify(seen)}`);
  assert.equal(seen.at(-1), 'false', `and end "false"; changes seen: ${JSON.stringify(seen)}`);
  await page.close();
});

test('the same article seen with tracking parameters and fragments appears once, with the cleaned URL', async () => {
  const page = await openPopup(ext);
  const turn = await ask(page, 'recursive cte', { period: '30d' });
  const onPage = turn.results.filter((r) => r.href.includes('recursive-ctes-handling-cycles'));
  assert.deepEqual(onPage.map((r) => r.href), [CTE_ARTICLE.cleanUrl], `expected the article once, cleaned; ${describeTurn(turn)}`);
  for (const r of turn.results) {
    assert.doesNotMatch(r.href, /[?&](utm_[a-z]+|fbclid|gclid)=|#/, `result href still has tracking parameters or a fragment: ${r.href}`);
  }
  await page.close();
});

test('Google search pages, chrome:// and other non-web schemes never appear', async () => {
  const page = await openPopup(ext);
  const turns = [
    await ask(page, 'recursive cte', { period: '90d' }),
    await ask(page, 'recette', { period: '90d' }),
    await ask(page, 'settings', { period: '90d' }),
    await ask(page, '', { period: '24h' }), // most recent pages: the excluded rows are the newest visits
    await ask(page, '', { period: '90d' }),
  ];
  for (const turn of turns) {
    const bad = turn.results.filter((r) => isExcludedHref(r.href));
    assert.deepEqual(bad, [], `excluded pages shown for ${describeTurn(turn)}`);
    for (const e of EXCLUDED) assertNotFound(turn, e.url);
  }
  assert.ok(turns[3].results.length > 0, `an empty question over 24h lists recent pages: ${describeTurn(turns[3])}`);
  await flushEvents(ext, page);
  ext.assertNoErrors();
  await page.close();
});

test('a page visited 10 days ago is found with "30 days" and not with "7 days"', async () => {
  const page = await openPopup(ext);
  const month = await ask(page, TEN_DAYS_AGO_PAGE.query, { period: '30d' });
  assert.deepEqual(hrefs(month), [TEN_DAYS_AGO_PAGE.url], describeTurn(month));
  assert.match(month.results[0].time ?? '', /10 days ago|1 week ago|last week/i, 'time of a visit 10 days ago');
  const week = await ask(page, TEN_DAYS_AGO_PAGE.query, { period: '7d' });
  assert.equal(week.results.length, 0, `not within 7 days: ${describeTurn(week)}`);
  assert.ok(week.notice, 'a notice explains there is nothing in the last 7 days');
  assert.ok(week.notice.includes(TEN_DAYS_AGO_PAGE.query), `notice should name the question: ${JSON.stringify(week.notice)}`);
  assert.match(week.notice, /7 days/, `notice should name the period: ${JSON.stringify(week.notice)}`);
  await page.close();
});

test('keyboard: ArrowDown from the search box moves to the first result, then the next', async () => {
  const page = await openPopup(ext);
  const turn = await ask(page, '', { period: '30d' });
  assert.ok(turn.results.length >= 2, `need at least two results: ${describeTurn(turn)}`);
  const links = page.locator(`${SEL.turn} >> nth=0`).locator('li a');
  await page.locator(SEL.search).focus();
  await page.keyboard.press('ArrowDown');
  const focusedHref = () => page.evaluate(() => document.activeElement?.getAttribute('href') ?? document.activeElement?.outerHTML.slice(0, 120));
  assert.equal(await focusedHref(), await links.nth(0).getAttribute('href'), 'ArrowDown from the search box focuses the first result link');
  await page.keyboard.press('ArrowDown');
  assert.equal(await focusedHref(), await links.nth(1).getAttribute('href'), 'a second ArrowDown focuses the second result link');
  await page.keyboard.press('ArrowUp');
  assert.equal(await focusedHref(), await links.nth(0).getAttribute('href'), 'ArrowUp goes back to the first result link');
  await page.close();
});

test('the conversation is still there after the popup is closed and reopened', async () => {
  const page = await openPopup(ext);
  const asked = await ask(page, 'dijkstra', { period: '30d' });
  assertFound(asked, 'https://en.wikipedia.org/wiki/Dijkstra%27s_algorithm');
  await page.close();
  const again = await openPopup(ext);
  await waitForTurns(again, 1, LIMIT_MS);
  const turns = await readTurns(again);
  assert.ok(turns.length > 0, 'the reopened popup shows the conversation');
  assert.equal(turns[0].question, 'dijkstra', `newest turn first; questions: ${JSON.stringify(turns.map((t) => t.question))}`);
  assert.deepEqual(hrefs(turns[0]), hrefs(asked), 'the same answer is shown after reopening');
  await again.close();
});

test('two popups writing at once never lose an entry', async () => {
  // Several rounds: a read-modify-write race would lose one of the two entries in some of them.
  const asked = [];
  for (const [qa, qb] of [['framework laptop', 'undersea cable'], ['btreemap', 'serde_json'], ['notre-dame', 'billy']]) {
    const [a, b] = [await openPopup(ext), await openPopup(ext)];
    const [beforeA, beforeB] = [await a.locator(SEL.turn).count(), await b.locator(SEL.turn).count()];
    await a.locator(SEL.search).fill(qa);
    await b.locator(SEL.search).fill(qb);
    await Promise.all([a.locator(SEL.search).press('Enter'), b.locator(SEL.search).press('Enter')]);
    await Promise.all([waitForAnswer(a, qa, beforeA), waitForAnswer(b, qb, beforeB)]);
    await Promise.all([a.close(), b.close()]);
    asked.push(qa, qb);
  }
  const c = await openPopup(ext);
  const log = (await logEntries(c)).map((e) => e.question);
  const lostInStorage = asked.filter((q) => !log.includes(q));
  assert.deepEqual(lostInStorage, [], `questions missing from chrome.storage.local; stored: ${JSON.stringify(log)}`);
  await waitForTurns(c, log.length, LIMIT_MS);
  const shown = (await readTurns(c)).map((t) => t.question);
  const lostOnScreen = asked.filter((q) => !shown.includes(q));
  assert.deepEqual(lostOnScreen, [], `questions missing from the reopened popup; shown: ${JSON.stringify(shown)}`);
  await c.close();
});

test('the conversation log is stored one key per turn, as the contract says', async () => {
  const page = await openPopup(ext);
  const askedFrom = Date.now();
  await ask(page, 'btreemap', { period: '7d' });
  const answeredBy = Date.now();
  const entries = await logEntries(page);
  const e = entries.filter((x) => x.question === 'btreemap').at(-1); // the newest: an earlier test asked it too
  assert.ok(e, `a log:… entry for "btreemap"; keys: ${entries.map((x) => x.key).join(', ')}`);
  assert.match(e.key, /^log:\d{13}:.+$/, 'key shape log:<13-digit atMs>:<nonce>');
  assert.equal(Number(e.key.split(':')[1]), e.atMs, 'the key carries atMs');
  assert.ok(askedFrom <= e.atMs && e.atMs <= answeredBy, `atMs (${e.atMs}) is the time of asking: between ${askedFrom} and ${answeredBy}`);
  assert.equal(e.period, '7d');
  assert.equal(e.mode, 'local');
  assert.ok(Array.isArray(e.results) && e.results.some((r) => r.url === 'https://doc.rust-lang.org/std/collections/struct.BTreeMap.html'), JSON.stringify(e.results));
  const r = e.results[0];
  for (const k of ['url', 'title', 'lastVisitMs', 'visitCount']) assert.ok(k in r, `stored result lacks "${k}": ${JSON.stringify(r)}`);
  assert.equal(typeof r.lastVisitMs, 'number');
  assert.equal(typeof r.visitCount, 'number');
  await page.close();
});

test('clear conversation empties it, and it stays empty', async () => {
  const page = await openPopup(ext);
  await ask(page, 'intersectionobserver', { period: '7d' });
  assert.ok((await readTurns(page)).length > 0);
  await page.getByRole('button', { name: 'Clear conversation', exact: true }).click();
  await page.waitForFunction((sel) => document.querySelectorAll(sel).length === 0, SEL.turn, { timeout: LIMIT_MS }).catch(checkedBelow);
  assert.deepEqual((await readTurns(page)).map((t) => t.question), [], 'no turn left after "Clear conversation"');
  await page.close();
  const again = await openPopup(ext);
  await waitForSettled(again, POPUP_STARTUP); // it has read the conversation: a cleared turn would be shown by now
  assert.deepEqual((await readTurns(again)).map((t) => t.question), [], 'still empty after reopening');
  assert.deepEqual((await logEntries(again)).map((e) => e.key), [], 'no log:… key left in chrome.storage.local');
  await again.close();
});

test('the extension made zero network requests in local mode (pages and service worker)', async () => {
  // Everything above ran in this browser: searches, reopenings, two popups, clearing.
  const page = await openPopup(ext);
  await ask(page, 'postgresql', { period: '90d' });
  await flushEvents(ext, page);
  await page.close();
  const options = await ext.openOptions();
  await options.waitForFunction((sel) => document.querySelector(sel)?.disabled === false, SEL.retention, { timeout: LIMIT_MS }); // settings read
  await waitForSettled(options, OPTIONS_STARTUP);
  await flushEvents(ext, options);
  await options.close();
  ext.assertNoNetwork();
  ext.assertNoErrors();
});
