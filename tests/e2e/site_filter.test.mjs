// The `site:` filter (issue 11, part 8), end to end: the built extension, a seeded real
// chrome.history, the worker's index, the popup's chips, and AI mode with Gemini answered at the
// network layer. Rules under test (crates/history-chat-core/src/site_filter.rs): `site:github.com`
// keeps github.com and its subdomains, is taken out of the words searched, and a bad value is
// searched as words with a plain notice.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { DAY, HOUR, demoHistory } from './support/fixtures.mjs';
import { SEL, ask, assertFound, assertNotFound, describeTurn, logEntries, openPopup, readTurns } from './support/popup.mjs';
import { readLive } from './support/live.mjs';
import { askAi, describeAiTurn, withGemini } from './support/ai.mjs';
import { LIMIT_MS, POPUP_STARTUP, flushEvents, trackChromeCalls, waitForSettled, waitUntil } from './support/settle.mjs';
import { launchWithPage } from './support/session.mjs';

/** The same words on three sites: github.com, a subdomain of it, and another site. */
const GITHUB = { url: 'https://github.com/postgres/postgres/blob/master/src/test/regress/sql/zebracte.sql', title: 'zebracte quokka cycles: regression tests' };
const GIST = { url: 'https://gist.github.com/someone/5f1e2d', title: 'zebracte quokka cycles, a gist' };
const BLOG = { url: 'https://blog.example.com/zebracte-quokka-cycles', title: 'Zebracte quokka cycles explained' };
/** An international name (bücher.example, kept by the browser as xn--bcher-kva.example), and an
 * ASCII look-alike site with the same words. */
const BUCHER = { url: 'https://xn--bcher-kva.example/wombat-kaffeeklatsch', title: 'Wombat kaffeeklatsch reading list' };
const LOOKALIKE = { url: 'https://buecher.example/wombat-kaffeeklatsch', title: 'Wombat kaffeeklatsch shop' };

function seeded(now) {
  return [
    ...demoHistory(now),
    { url: GITHUB.url, title: GITHUB.title, visits: [now - 3 * HOUR] },
    { url: GIST.url, title: GIST.title, visits: [now - 1 * DAY] },
    // The other site's page is the most visited and most recent: unfiltered, it would come first.
    { url: BLOG.url, title: BLOG.title, visits: [now - 10 * 60_000, now - HOUR, now - 2 * DAY] },
    { url: BUCHER.url, title: BUCHER.title, visits: [now - 5 * HOUR] },
    { url: LOOKALIKE.url, title: LOOKALIKE.title, visits: [now - 4 * HOUR] },
  ];
}

const host = (href) => new URL(href).hostname;
const isGithub = (href) => host(href) === 'github.com' || host(href).endsWith('.github.com');

/** The chips next to the search box, by accessible name. */
async function chipNames(page) {
  return page.locator('[role="group"][aria-label="Site filters"] button').evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
}

/** Waits until the as-you-type list satisfies `predicate`; returns it. */
async function waitForLiveWhere(page, predicate, what) {
  let live = null;
  await waitUntil(async () => {
    live = await readLive(page);
    return live !== null && predicate(live);
  }, `as-you-type list: ${what}`, { describe: () => `last shown: ${JSON.stringify(live)}` });
  return live;
}

describe('site: filter in local search', () => {
  let ext;
  let popup;
  const now = Date.now();

  before(async () => {
    ({ ext, page: popup } = await launchWithPage({ history: seeded(now) }));
  });

  after(async () => {
    await ext?.close();
  });

  test('site: narrows a question: the other site\'s page with the same words is not shown', async () => {
    const unfiltered = await ask(popup, 'zebracte quokka cycles');
    assertFound(unfiltered, BLOG.url, 'the other site\'s page (fixture sanity: it matches the words)');

    const question = 'site:GitHub.com zebracte quokka cycles';
    const turn = await ask(popup, question);
    assert.equal(turn.question, question, 'the turn shows the question as typed');
    assertFound(turn, GITHUB.url, 'the github.com page');
    assertFound(turn, GIST.url, 'the gist.github.com page (subdomains match)');
    assertNotFound(turn, BLOG.url, 'the blog.example.com page');
    for (const r of turn.results) assert.ok(isGithub(r.href), `${r.href} is not of github.com:\n${describeTurn(turn)}`);

    const stored = (await logEntries(popup)).filter((e) => e.question === question);
    assert.equal(stored.length, 1, 'the turn is stored with the question as typed');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });

  test('a question of site: only lists that site\'s most recent pages of the period', async () => {
    const turn = await ask(popup, 'site:github.com');
    assert.ok(turn.results.length >= 3, `the site's pages are listed:\n${describeTurn(turn)}`);
    for (const r of turn.results) assert.ok(isGithub(r.href), `${r.href} is not of github.com:\n${describeTurn(turn)}`);
    assert.equal(turn.results[0].href, 'https://github.com/rustwasm/wasm-bindgen/issues/3685', 'the most recent github page first (2 hours ago, before the seeded one)');
    assertFound(turn, GITHUB.url);
    assertFound(turn, GIST.url);
    // Outside the 7-day period: github.com/rust-lang/rust/pull/118000 was visited 12 days ago.
    assertNotFound(turn, 'https://github.com/rust-lang/rust/pull/118000', 'a page outside the period');
  });

  test('-site: leaves a site out', async () => {
    const turn = await ask(popup, '-site:blog.example.com zebracte quokka cycles');
    assertFound(turn, GITHUB.url);
    assertFound(turn, GIST.url);
    assertNotFound(turn, BLOG.url, 'the page of the site left out');
  });

  test('nothing of the site: the notice names the filter, as you type and once asked', async () => {
    await popup.locator(SEL.search).fill('site:gitlab.com zebracte quokka cycles');
    const live = await waitForLiveWhere(popup, (l) => l.notices.length > 0, 'a notice in the as-you-type list');
    assert.deepEqual(live.hrefs, []);
    assert.deepEqual(live.notices, ['No match yet from gitlab.com — press Enter to search.']);
    const turn = await ask(popup, 'site:gitlab.com zebracte quokka cycles');
    assert.deepEqual(turn.results, [], describeTurn(turn));
    assert.equal(turn.notice, 'Nothing from gitlab.com in the last 7 days matches “zebracte quokka cycles” — try the last 30 days.');
  });

  test('each site: term is a chip; removing it (keyboard) edits the question and re-runs the search', async () => {
    const box = popup.locator(SEL.search);
    await box.fill('');
    await box.focus();
    await popup.keyboard.type('site:github.com zebracte quokka cycles', { delay: 10 });
    await waitForLiveWhere(popup, (l) => l.hrefs.length > 0 && l.hrefs.every((h) => /^https:\/\/([^/]*\.)?github\.com\//.test(h)), 'only github pages while the filter is on');
    const live = await readLive(popup);
    assert.ok(live.hrefs.includes('https://github.com/postgres/postgres/blob/master/src/test/regress/sql/zebracte.sql'), JSON.stringify(live));
    assert.ok(!live.hrefs.includes(BLOG.url), `the other site's page is not in the list: ${JSON.stringify(live)}`);
    assert.deepEqual(await chipNames(popup), ['Remove filter site:github.com']);

    // Keyboard: Tab from the search box reaches the chip (past the period selector).
    await box.focus();
    await popup.keyboard.press('Tab');
    await popup.keyboard.press('Tab');
    const focused = await popup.evaluate(() => document.activeElement?.getAttribute('aria-label'));
    assert.equal(focused, 'Remove filter site:github.com', 'the chip is reachable with Tab');
    await popup.keyboard.press('Enter');

    await waitForLiveWhere(popup, (l) => l.hrefs.includes('https://blog.example.com/zebracte-quokka-cycles'), 'the other site\'s page once the filter is removed');
    assert.equal(await box.inputValue(), 'zebracte quokka cycles ', 'the term is taken out of the question');
    assert.deepEqual(await chipNames(popup), [], 'no chip left');
    assert.equal(await popup.evaluate((sel) => document.activeElement === document.querySelector(sel), SEL.search), true, 'focus goes back to the search box');
    await box.fill('');
  });

  test('an international site name works in either form, capitals too, and its chip names it in Unicode', async () => {
    // The worker's index reads the term, with the browser's own URL parser (UTS 46 mapping included).
    for (const typed of ['site:bücher.example', 'site:BÜCHER.example', 'site:xn--bcher-kva.example']) {
      const turn = await ask(popup, `${typed} wombat kaffeeklatsch`);
      assertFound(turn, BUCHER.url, `the bücher.example page for ${typed}`);
      assertNotFound(turn, LOOKALIKE.url, `the look-alike site's page for ${typed}`);
    }
    // The popup reads it too, for its chip.
    await popup.locator(SEL.search).fill('site:BÜCHER.example wombat');
    let chips = [];
    await waitUntil(async () => (chips = await chipNames(popup)).length > 0, 'the chip of the term', { describe: () => JSON.stringify(chips) });
    assert.deepEqual(chips, ['Remove filter site:bücher.example']);
    await popup.locator(SEL.search).fill('');
  });

  test('a bad site: value is searched as words, with a plain notice and no chip', async () => {
    const box = popup.locator(SEL.search);
    await box.fill('site:https:// zebracte quokka cycles');
    const notice = popup.locator('[role="group"][aria-label="Site filters"] p.notice');
    await notice.waitFor({ state: 'visible', timeout: LIMIT_MS });
    assert.equal(
      (await notice.textContent()).trim(),
      '“site:https://” is not a site filter (write site:example.com), so it was searched as words.',
    );
    assert.deepEqual(await chipNames(popup), [], 'a bad value makes no chip');
    const turn = (await readTurns(popup)).length;
    await box.press('Enter');
    await popup.waitForFunction(
      ([sel, n]) => document.querySelectorAll(sel.turn).length > n && document.querySelector(sel.conversation).getAttribute('aria-busy') === 'false',
      [SEL, turn],
      { timeout: LIMIT_MS },
    );
    const [answer] = await readTurns(popup);
    assert.equal(answer.question, 'site:https:// zebracte quokka cycles');
    // No filter: both sites' pages are found by the words.
    assertFound(answer, BLOG.url);
    assertFound(answer, GITHUB.url);
  });
});

test('AI mode: the model never sees site: and is sent only candidates of that site', { timeout: 180_000 }, async () => {
  const now = Date.now();
  const history = seeded(now);
  await withGemini({ history }, async ({ ext, gemini }) => {
    await trackChromeCalls(ext.context);
    const popup = await openPopup(ext);
    await waitForSettled(popup, POPUP_STARTUP);
    const question = 'site:github.com zebracte quokka cycles';
    const turn = await askAi(popup, question);
    assert.equal(turn.question, question, 'the turn shows the question as typed');

    const expansions = gemini.calls('expansion');
    assert.equal(expansions.length, 1, 'one expansion request');
    assert.equal(expansions[0].question, 'zebracte quokka cycles', 'the question sent has its site: term removed');
    const rankings = gemini.calls('ranking');
    assert.equal(rankings.length, 1, `one ranking request:\n${describeAiTurn(turn)}`);
    for (const call of gemini.requests) assert.ok(!/site:/i.test(call.prompt?.all ?? ''), `no prompt carries "site:": ${call.prompt?.all}`);
    const candidates = rankings[0].candidates;
    assert.ok(candidates.length >= 2, `the github pages are candidates: ${JSON.stringify(candidates)}`);
    for (const c of candidates) {
      const h = c.url.split('/')[0];
      assert.ok(h === 'github.com' || h.endsWith('.github.com'), `candidate ${c.line} is not of github.com`);
    }
    assert.ok(candidates.some((c) => c.url.startsWith('gist.github.com/')), 'the gist is a candidate');
    assert.ok(!candidates.some((c) => c.url.includes('blog.example.com')), 'the other site\'s page is never sent');
    assert.ok(turn.results.length >= 1, describeAiTurn(turn));
    for (const r of turn.results) assert.ok(isGithub(r.href), `${r.href} is not of github.com:\n${describeAiTurn(turn)}`);

    // A question of site: only lists the site's recent pages without asking the model.
    const before = gemini.requests.length;
    const only = await askAi(popup, 'site:gist.github.com');
    assert.deepEqual(only.results.map((r) => r.href), [GIST.url], describeAiTurn(only));
    assert.equal(gemini.requests.length, before, 'no request to Gemini for a question of site: only');
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });
});
