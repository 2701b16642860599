// Excluded sites (Options → Excluded sites), end to end: the built extension, a seeded real
// chrome.history, the options page's editor, the worker's index, topic search, the address-bar
// keyword, the popup (as you type, committed, stored answers) and AI mode with Gemini answered at
// the network layer. Rules under test (crates/history-chat-core/src/exclusions.rs): one host or
// `*.domain` per line; `*.secret.example` excludes secret.example and every subdomain; a bad line
// is refused with a message naming it and nothing is saved; a change applies at once, and a site
// taken off the list comes back from the history.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { DAY, HOUR, demoHistory } from './support/fixtures.mjs';
import { SEL, ask, assertFound, assertNotFound, describeTurn, logEntries, openPopup, readTurns } from './support/popup.mjs';
import { askWorker, readLive, waitForIndex } from './support/live.mjs';
import { askAi, describeAiTurn, withGemini, readSettings, setAiSettings } from './support/ai.mjs';
import { LIMIT_MS, flushEvents, waitUntil } from './support/settle.mjs';
import { askInNewPopup, launchWithPage } from './support/session.mjs';

/** The same words on an excluded site (a subdomain of it) and on another site. */
const SECRET = { url: 'https://mail.secret.example/inbox/zorblax-invoice', title: 'Zorblax invoice from the accountant' };
const SECRET_ROOT = { url: 'https://secret.example/zorblax-invoice-archive', title: 'Zorblax invoice archive' };
const OPEN = { url: 'https://open.example/zorblax-invoice-guide', title: 'Zorblax invoice guide' };
/** An international name (bücher.example, kept by the browser as xn--bcher-kva.example), and an
 * ASCII look-alike site with the same words. */
const BUCHER = { url: 'https://xn--bcher-kva.example/wombat-kaffeeklatsch', title: 'Wombat kaffeeklatsch reading list' };
const LOOKALIKE = { url: 'https://buecher.example/wombat-kaffeeklatsch', title: 'Wombat kaffeeklatsch shop' };
const QUESTION = 'zorblax invoice';
const LIST = '*.secret.example';
const isSecret = (href) => /^https:\/\/([^/]*\.)?secret\.example\//.test(href);

function seeded(now) {
  return [
    ...demoHistory(now),
    // The excluded pages are the most recent: unfiltered, they would come first.
    { url: SECRET.url, title: SECRET.title, visits: [now - 10 * 60_000, now - HOUR] },
    { url: SECRET_ROOT.url, title: SECRET_ROOT.title, visits: [now - 2 * HOUR] },
    { url: OPEN.url, title: OPEN.title, visits: [now - 1 * DAY] },
    { url: BUCHER.url, title: BUCHER.title, visits: [now - 5 * HOUR] },
    { url: LOOKALIKE.url, title: LOOKALIKE.title, visits: [now - 4 * HOUR] },
  ];
}

const EDITOR = 'textarea[aria-label="Excluded sites"]';
const PROBLEMS = 'ul.excluded-problems li';

async function openOptions(ext) {
  const page = await ext.openOptions();
  await page.locator(EDITOR).waitFor({ timeout: LIMIT_MS });
  // Enabled once the settings are loaded.
  await page.waitForFunction((sel) => !document.querySelector(sel).disabled, EDITOR, { timeout: LIMIT_MS });
  return page;
}

/** Types `text` into the editor and presses "Save excluded sites". */
async function saveList(options, text) {
  await options.locator(EDITOR).fill(text);
  await options.getByRole('button', { name: 'Save excluded sites', exact: true }).click();
}

/** The worker's index answer for `query` over the whole history, as the address bar asks it. */
async function indexUrls(page, query) {
  const answer = await askWorker(page, { type: 'search', query, startMs: 0, limit: 25 });
  assert.equal(answer?.type, 'pages', `search answered ${JSON.stringify(answer)}`);
  return answer.pages.map((p) => p.url);
}

/** Waits until the worker's index holds (or no longer holds) the excluded pages. */
async function waitForIndexed(page, present) {
  let last;
  await waitUntil(async () => {
    last = await indexUrls(page, QUESTION);
    return last.includes(SECRET.url) === present && last.includes(SECRET_ROOT.url) === present;
  }, `the excluded pages ${present ? 'back in' : 'gone from'} the index`, { timeout: 60_000, describe: () => JSON.stringify(last) });
}

/** The address bar's `hc` suggestions for `text`, fired in the worker as the omnibox test does. */
async function omniboxContents(ext, text) {
  return ext.serviceWorker.evaluate(
    ([text, limitMs]) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no suggestions within ${limitMs} ms`)), limitMs); // a failure limit only
        chrome.omnibox.onInputChanged.dispatch(text, (suggestions) => {
          clearTimeout(timer);
          resolve(suggestions.map((s) => s.content));
        });
      }),
    [text, LIMIT_MS],
  );
}

/** Topic search's pages for `query`, once it is ready. */
async function understood(page, query) {
  const answer = await askWorker(page, { type: 'understand', query, startMs: 0, limit: 30 });
  assert.equal(answer?.type, 'understood', `understand answered ${JSON.stringify(answer)}`);
  return answer.pages.map((p) => p.url);
}

async function waitForTopicsReady(page) {
  let last;
  await waitUntil(async () => {
    last = (await askWorker(page, { type: 'semanticState' }))?.progress;
    return last?.status === 'ready';
  }, 'topic search ready', { timeout: 240_000, describe: () => JSON.stringify(last) });
}

describe('excluded sites in local search', () => {
  let ext;
  let options;
  const now = Date.now();

  before(async () => {
    ({ ext, page: options } = await launchWithPage({ history: seeded(now), open: openOptions, startup: null, topics: true }));
  });

  after(async () => {
    await ext?.close();
  });

  test('bad lines are refused, each named with what to write, and nothing is saved', async () => {
    const stored = (await readSettings(options))?.excludedSites ?? [];
    await saveList(options, 'ok.example\nhttps://mail.google.com/x\n\n*.*\nmail google.com\n*\nhttps://');
    await options.locator(PROBLEMS).first().waitFor({ timeout: LIMIT_MS });
    const problems = await options.locator(PROBLEMS).allTextContents();
    assert.deepEqual(problems, [
      'Line 2 (“https://mail.google.com/x”): write the host alone: mail.google.com.',
      'Line 4 (“*.*”): a * can only start the line, before a domain, as in *.example.com.',
      'Line 5 (“mail google.com”): a site has no spaces; put one site on each line.',
      'Line 6 (“*”): a * can only start the line, before a domain, as in *.example.com.',
      'Line 7 (“https://”): write a site’s host, such as example.com or *.example.com.',
    ]);
    const alert = (await options.locator(SEL.alert).first().textContent()).trim();
    assert.equal(alert, 'The excluded sites were not saved: correct the lines named below.');
    await flushEvents(ext, options);
    assert.deepEqual((await readSettings(options))?.excludedSites ?? [], stored, 'nothing was saved');
    assert.equal(await options.locator(EDITOR).inputValue(), 'ok.example\nhttps://mail.google.com/x\n\n*.*\nmail google.com\n*\nhttps://', 'the text stays for correcting');
  });

  test('an excluded site is absent everywhere, and comes back when taken off the list', { timeout: 400_000 }, async () => {
    // Fixture sanity, and a stored answer showing the pages, before the exclusion.
    const { popup, turn: before } = await askInNewPopup(ext, QUESTION);
    assertFound(before, SECRET.url, 'the excluded page, before the exclusion');
    assertFound(before, SECRET_ROOT.url);
    assertFound(before, OPEN.url);
    await waitForTopicsReady(popup);
    assert.ok((await understood(popup, SECRET.title)).includes(SECRET.url), 'topic search finds it before the exclusion');
    await popup.close();

    await saveList(options, `  ${LIST}  \n`);
    await options.locator(SEL.status).filter({ hasText: 'Excluded sites saved' }).waitFor({ timeout: LIMIT_MS });
    assert.deepEqual((await readSettings(options)).excludedSites, [LIST], 'saved, trimmed');
    assert.equal(await options.locator(PROBLEMS).count(), 0, 'no problem listed');
    await waitForIndexed(options, false);

    // The address bar's suggestions.
    const suggested = await omniboxContents(ext, QUESTION);
    assert.ok(suggested.includes(OPEN.url), `the other site is suggested: ${JSON.stringify(suggested)}`);
    assert.ok(!suggested.some(isSecret), `no excluded page suggested: ${JSON.stringify(suggested)}`);

    // Topic search: the vectors are gone.
    const topics = await understood(options, SECRET.title);
    assert.ok(!topics.some(isSecret), `topic search gives no excluded page: ${JSON.stringify(topics)}`);

    const popup2 = await openPopup(ext);
    // The stored answer is shown without them (and still stored with them).
    await popup2.waitForFunction((sel) => document.querySelectorAll(sel).length > 0, SEL.turn, { timeout: LIMIT_MS });
    const [shown] = await readTurns(popup2);
    assert.equal(shown.question, QUESTION);
    assertNotFound(shown, SECRET.url, 'the excluded page in the stored answer');
    assertFound(shown, OPEN.url);
    const log = (await logEntries(popup2)).find((e) => e.question === QUESTION);
    assert.ok(JSON.stringify(log).includes(SECRET.url), 'the stored turn itself is kept');

    // As you type: the words' answer, then topic search's pages fused in.
    await popup2.locator(SEL.search).fill(QUESTION);
    let live;
    await waitUntil(async () => (live = await readLive(popup2))?.hrefs.includes(OPEN.url), 'the as-you-type list', { describe: () => JSON.stringify(live) });
    assert.ok(!live.hrefs.some(isSecret), `no excluded page as you type: ${JSON.stringify(live)}`);

    // Committed.
    const turn = await ask(popup2, QUESTION);
    assertFound(turn, OPEN.url);
    for (const r of turn.results) assert.ok(!isSecret(r.href), `${r.href} is excluded:\n${describeTurn(turn)}`);
    await popup2.close();

    // Taken off the list: back from the history, in the index, topic search and the popup.
    await saveList(options, '');
    await options.locator(SEL.status).filter({ hasText: 'Excluded sites saved' }).waitFor({ timeout: LIMIT_MS });
    assert.deepEqual((await readSettings(options)).excludedSites, []);
    await waitForIndexed(options, true);
    let back;
    await waitUntil(async () => (back = await understood(options, SECRET.title)).includes(SECRET.url), 'topic search finds the page again', { timeout: 240_000, describe: () => JSON.stringify(back) });
    const { popup: popup3, turn: again } = await askInNewPopup(ext, QUESTION);
    assertFound(again, SECRET.url, 'the page is back');
    assertFound(again, SECRET_ROOT.url);
    assert.ok((await omniboxContents(ext, QUESTION)).includes(SECRET.url), 'suggested again in the address bar');
    await flushEvents(ext, popup3, options);
    ext.assertNoErrors();
  });

  test('an international name is excluded however it is written, in the stored answers too', async () => {
    const words = 'wombat kaffeeklatsch';
    const { popup, turn: before } = await askInNewPopup(ext, words);
    assertFound(before, BUCHER.url, 'the bücher.example page, before the exclusion');
    assertFound(before, LOOKALIKE.url);
    await popup.close();

    // An address is refused, naming its host as written (with its ASCII capitals made small).
    await saveList(options, 'https://Bücher.example/x');
    await options.locator(PROBLEMS).first().waitFor({ timeout: LIMIT_MS });
    assert.deepEqual(await options.locator(PROBLEMS).allTextContents(), [
      'Line 1 (“https://Bücher.example/x”): write the host alone: bücher.example.',
    ]);

    // In Unicode with capitals: the worker's index (the browser's parser there) drops the page.
    await saveList(options, 'BÜCHER.example');
    let saved;
    await waitUntil(async () => (saved = (await readSettings(options))?.excludedSites)?.[0] === 'BÜCHER.example', 'the list saved', { describe: () => JSON.stringify(saved) });
    let indexed;
    await waitUntil(async () => !(indexed = await indexUrls(options, words)).includes(BUCHER.url), 'the page gone from the index', {
      timeout: 60_000,
      describe: () => JSON.stringify(indexed),
    });
    assert.ok(indexed.includes(LOOKALIKE.url), `the look-alike site stays: ${JSON.stringify(indexed)}`);

    // The popup reads the list itself for the stored answer it shows.
    const popup2 = await openPopup(ext);
    await popup2.waitForFunction((sel) => document.querySelectorAll(sel).length > 0, SEL.turn, { timeout: LIMIT_MS });
    const shown = (await readTurns(popup2)).find((t) => t.question === words);
    assert.ok(shown, 'the stored answer is shown');
    assertNotFound(shown, BUCHER.url, 'the excluded page in the stored answer');
    assertFound(shown, LOOKALIKE.url);
    const turn = await ask(popup2, words);
    assertNotFound(turn, BUCHER.url, 'the excluded page, asked again');
    assertFound(turn, LOOKALIKE.url);
    await popup2.close();

    await saveList(options, '');
    await waitUntil(async () => ((saved = (await readSettings(options))?.excludedSites) ?? []).length === 0, 'the list emptied', { describe: () => JSON.stringify(saved) });
    await flushEvents(ext, options);
    ext.assertNoErrors();
  });
});

test('AI mode: an excluded site\'s pages are never sent to Gemini nor shown', { timeout: 180_000 }, async () => {
  const now = Date.now();
  await withGemini({ history: seeded(now) }, async ({ ext, gemini }) => {
    const page = await ext.context.newPage();
    await page.goto(ext.url('manifest.json'));
    await setAiSettings(page, { extra: { excludedSites: [LIST] } });
    await waitForIndex(page);
    await waitForIndexed(page, false);
    await page.close();
    const popup = await openPopup(ext);
    const turn = await askAi(popup, QUESTION);
    const rankings = gemini.calls('ranking');
    assert.equal(rankings.length, 1, `one ranking request:\n${describeAiTurn(turn)}`);
    const candidates = rankings[0].candidates;
    assert.ok(candidates.some((c) => c.url.startsWith('open.example/')), `the other site is a candidate: ${JSON.stringify(candidates)}`);
    for (const call of gemini.requests) {
      assert.ok(!(call.rawBody ?? '').includes('secret.example'), `no request body names the excluded site: ${call.rawBody?.slice(0, 400)}`);
    }
    for (const r of turn.results) assert.ok(!isSecret(r.href), `${r.href} is excluded:\n${describeAiTurn(turn)}`);
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });
});
