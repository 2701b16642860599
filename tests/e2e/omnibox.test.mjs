// The address-bar keyword `hc` (issue 11, part 6), end to end: the built extension, real
// chrome.history (a seeded History DB), the index in the service worker.
//
// What is covered, and how. Headless Chromium has no address bar that a test can type into: CDP
// and Playwright reach pages and workers, not the browser's own UI. So the test fires the real
// `chrome.omnibox` events inside the extension's service worker, with the event objects' own
// `dispatch` (`chrome.omnibox.onInputChanged.dispatch(text, suggest)`,
// `chrome.omnibox.onInputEntered.dispatch(text, disposition)`): it calls the listeners that
// assets/service_worker.js registered, with the arguments Chrome's dispatch gives them after its
// argument massager (the text and a `suggest` callback; the text and a disposition). From there
// everything is the product's: the listeners, the wasm handlers, the index, the real
// `chrome.omnibox.setDefaultSuggestion` (the browser parses its XML and rejects a malformed one,
// which the worker would log as an error), the real `chrome.tabs.create` / `chrome.tabs.update`,
// and the tabs they open. The worker's `chrome.omnibox.setDefaultSuggestion`, `chrome.tabs.create`
// and `chrome.tabs.update` are wrapped to record their calls (the wasm glue looks them up at each
// call); the calls still go through.
//
// Not covered: Chrome's keyword detection and keyboard handling (Alt+Enter → `newForegroundTab` is
// Chrome's mapping), its request ids, and how it draws the rows. The `suggest` callback here
// records the suggestions instead of passing them to `chrome.omnibox.sendSuggestions` (which
// reports nothing back); each suggestion's description is instead handed to the browser's parser
// through `setDefaultSuggestion`, which must accept it. "Still being indexed" is covered by the
// core's table tests (crates/history-chat-core/src/omnibox/tests.rs), not here: a build cannot be
// held at a given point from outside.
import { test, before, after, afterEach, describe } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { TEN_DAYS_AGO_PAGE, demoHistory } from './support/fixtures.mjs';
import { changed, entered, instrument, parseDescription, tabStates, waitForWholeIndex } from './support/omnibox.mjs';
import { LIMIT_MS, flushEvents, waitUntil } from './support/settle.mjs';
import { tabAddress } from './support/live.mjs';

const PROMPT = 'Search your history: type what you remember about a page';
const BEST_MATCH = 'Open the best match in your history for <match>%s</match>';
const NO_MATCH = 'No page in your history matches <match>%s</match>';
const EMPTY_HISTORY = 'Your history is empty: there is nothing to search yet';
/** Chrome shows 8 rows, the default suggestion first. */
const MAX_SUGGESTIONS = 7;

/** Hostile titles and odd URLs, all findable by the word "quokka". */
const HOSTILE = [
  {
    url: 'https://hostile.example/markup',
    title: '<b>Quokka</b> & <i>friends</i> </match><url>javascript:alert(1)</url> &amp; &lt; <![CDATA[x]]>',
  },
  {
    url: 'https://hostile.example/fragment',
    title: 'Quokka </fragment><internal-suggestion>spoofed row</internal-suggestion>',
  },
  { url: 'https://hostile.example/controls', title: 'Quokka\u0001\u0007\u0008\u000b\u001b\u007f\u009f controls\nnew\tline\r\u2028sep \u202espoof' },
  { url: 'https://hostile.example/long', title: `Quokka ${'A&<'.repeat(3_400)}` },
  { url: 'https://hostile.example/odd/%0A%3Cb%3E%26?x=%3Cy%3E&z=%26amp', title: 'Quokka odd address' },
  { url: 'https://hostile.example/quokka-untitled', title: '' },
];
const HOSTILE_URLS = new Set(HOSTILE.map((h) => h.url));

/**
 * Waits until a tab the extension opened was sent to `url`. Its first request can leave before
 * Playwright's routing is attached to it (it then shows chrome-error://, the network being out of
 * reach): the tab's navigation entry says where it was sent, whatever the network answered.
 */
async function waitForTabSentTo(ext, tab, url) {
  let entry;
  await waitUntil(async () => (entry = await tabAddress(ext, tab)) === url, `the tab navigated to ${url}`, {
    describe: () => `its entry is ${entry}, it shows ${tab.url()}`,
  });
}

describe('with a seeded history', () => {
  let ext;
  const served = [];

  before(async () => {
    const now = Date.now();
    const history = demoHistory(now);
    HOSTILE.forEach((h, i) => history.push({ url: h.url, title: h.title, visits: [now - (i + 2) * 3_600_000] }));
    ext = await launchExtension({ history });
    // The opened tabs must not reach the real network: every web request is answered locally.
    await ext.context.route(/^https?:\/\//, (route) => {
      served.push(route.request().url());
      return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>stub</title><p>stub page</p>' });
    });
    await instrument(ext);
    await waitForWholeIndex(ext);
  });

  after(async () => {
    await ext?.close();
  });

  // Each test of this browser, whatever ran before it: no network request, no error (a test run
  // alone, or first, checks it too).
  afterEach(async () => {
    await flushEvents(ext);
    ext.assertNoNetwork();
    ext.assertNoErrors();
  });

  test('a seeded page is suggested, its words in <match> and its address in <url>', async () => {
    const { suggestions, defaults } = await changed(ext, 'sourdough');
    assert.ok(suggestions.length >= 1 && suggestions.length <= MAX_SUGGESTIONS, JSON.stringify(suggestions));
    assert.equal(suggestions[0].content, TEN_DAYS_AGO_PAGE.url, 'the best suggestion opens the page');
    assert.equal(
      suggestions[0].description,
      '<match>Sourdough</match> starter troubleshooting: why is my starter not rising? | King Arthur Baking <dim>-</dim> ' +
        '<url>kingarthurbaking.com/blog/2026/11/20/<match>sourdough</match>-starter-troubleshooting</url>',
    );
    assert.deepEqual(defaults.map((d) => [d.description, d.ok]), [[BEST_MATCH, true]], 'the browser took the default suggestion');
  });

  test('hostile titles and odd URLs arrive escaped, and the browser parses every row', async () => {
    const { suggestions, defaults } = await changed(ext, 'quokka');
    assert.equal(defaults.at(-1).description, BEST_MATCH);
    assert.ok(suggestions.length <= MAX_SUGGESTIONS, `at most ${MAX_SUGGESTIONS}, got ${suggestions.length}`);
    const hostile = suggestions.filter((s) => HOSTILE_URLS.has(s.content));
    assert.equal(hostile.length, HOSTILE.length, `every hostile page is suggested: ${JSON.stringify(suggestions.map((s) => s.content))}`);
    for (const { content, description } of suggestions) {
      const text = parseDescription(description);
      assert.match(description, /<match>quokka<\/match>/i, `the word is marked in ${description}`);
      assert.match(description, /<url>[^]*<\/url>$/, `the address closes the row: ${description}`);
      assert.ok(text.length <= 250, `a 10,000-character title is cut: ${text.length} characters`);
      for (const raw of ['<b>', '</match><url>', '</fragment>', '<internal-suggestion>', '<![CDATA[']) {
        assert.ok(!description.includes(raw), `no raw ${raw} in ${description}`);
      }
      assert.ok(/^https?:\/\//.test(content), `only web pages: ${content}`);
    }
    const markup = suggestions.find((s) => s.content === HOSTILE[0].url);
    assert.ok(
      parseDescription(markup.description).startsWith('<b>Quokka</b> & <i>friends</i> </match><url>javascript:alert(1)</url> &amp; &lt;'),
      `the markup is shown as text: ${markup.description}`,
    );
    const controls = suggestions.find((s) => s.content === HOSTILE[2].url);
    assert.ok(parseDescription(controls.description).startsWith('Quokka controls new line sep spoof -'), controls.description);
    const refused = await ext.serviceWorker.evaluate((d) => self.__omnibox.browserAccepts(d), suggestions.map((s) => s.description));
    assert.deepEqual(refused, [], 'Chrome parses every description');
  });

  test('an empty input lists recent pages and invites a question; a nonsense one says nothing matches', async () => {
    const empty = await changed(ext, '');
    assert.equal(empty.defaults.at(-1).description, PROMPT);
    assert.equal(empty.suggestions.length, MAX_SUGGESTIONS, 'the most recent pages');
    for (const s of empty.suggestions) parseDescription(s.description);
    const nonsense = await changed(ext, 'qzxv wplk fjdh');
    assert.deepEqual(nonsense.suggestions, []);
    assert.equal(nonsense.defaults.at(-1).description, NO_MATCH);
    assert.ok(nonsense.defaults.every((d) => d.ok), JSON.stringify(nonsense.defaults));
  });

  test('Enter on a suggestion with newForegroundTab opens it in a new tab in front', async () => {
    const [tab, calls] = await Promise.all([
      ext.context.waitForEvent('page', { timeout: LIMIT_MS }),
      entered(ext, [TEN_DAYS_AGO_PAGE.url], 'newForegroundTab'),
    ]);
    assert.deepEqual(calls.map((c) => [c.api, c.args, c.ok]), [['create', [{ url: TEN_DAYS_AGO_PAGE.url, active: true }], true]]);
    await waitForTabSentTo(ext, tab, TEN_DAYS_AGO_PAGE.url);
    const states = await tabStates(ext);
    assert.equal(states.find((t) => t.id === calls[0].tabId)?.active, true, `the new tab is in front: ${JSON.stringify(states)}`);
    await tab.close();
  });

  test('Enter with newBackgroundTab opens the page behind the current tab', async () => {
    const current = await ext.context.newPage();
    await current.goto('https://start.example/');
    await current.bringToFront();
    const before = await tabStates(ext);
    const activeBefore = before.find((t) => t.active)?.id;
    const [tab, calls] = await Promise.all([
      ext.context.waitForEvent('page', { timeout: LIMIT_MS }),
      entered(ext, [TEN_DAYS_AGO_PAGE.url], 'newBackgroundTab'),
    ]);
    assert.deepEqual(calls.map((c) => [c.api, c.args, c.ok]), [['create', [{ url: TEN_DAYS_AGO_PAGE.url, active: false }], true]]);
    await waitForTabSentTo(ext, tab, TEN_DAYS_AGO_PAGE.url);
    const after = await tabStates(ext);
    assert.equal(after.find((t) => t.id === calls[0].tabId)?.active, false, `the new tab is behind: ${JSON.stringify(after)}`);
    assert.equal(after.find((t) => t.active)?.id, activeBefore, 'the current tab stays in front');
    await tab.close();
    await current.close();
  });

  test('Enter on words (no suggestion picked) with currentTab opens the best match in the current tab', async () => {
    const current = await ext.context.newPage();
    await current.goto('https://start.example/');
    await current.bringToFront();
    const pagesBefore = ext.context.pages().length;
    const calls = await entered(ext, ['sourdough starter'], 'currentTab');
    assert.deepEqual(calls.map((c) => [c.api, c.args, c.ok]), [['update', [{ url: TEN_DAYS_AGO_PAGE.url, active: true }], true]]);
    await current.waitForURL(TEN_DAYS_AGO_PAGE.url, { timeout: LIMIT_MS });
    assert.equal(ext.context.pages().length, pagesBefore, 'no new tab');
    await current.close();
  });

  test('Enter on nothing, on a stop word or on words nothing matches opens nothing', async () => {
    // The worker handles the events in order, each up to its tabs call without waiting for anything
    // else (the index answers at once): once the last one's tab is opened, the ones before it have
    // been handled, and a tab one of them opened would have been asked for first.
    const [tab, calls] = await Promise.all([
      ext.context.waitForEvent('page', { timeout: LIMIT_MS }),
      entered(ext, ['', '   ', 'the', '🙂', 'qzxv wplk fjdh', 'https://opened.example/after'], 'newForegroundTab'),
    ]);
    assert.deepEqual(calls.map((c) => c.args[0].url), ['https://opened.example/after'], 'only the address typed last was opened');
    await waitForTabSentTo(ext, tab, 'https://opened.example/after');
    await tab.close();
  });

  test('Enter never opens anything but a web page', async () => {
    // Text that is not a web address is searched for (its words), never opened as written.
    const calls = await entered(
      ext,
      ['javascript:alert(1)', 'chrome://settings', 'file:///etc/passwd', 'data:text/html,<b>x</b>', 'https://opened.example/last'],
      'newBackgroundTab',
    );
    assert.equal(calls.at(-1).args[0].url, 'https://opened.example/last');
    const opened = await ext.serviceWorker.evaluate(() => self.__omnibox.tabs.map((c) => c.args[0].url));
    for (const url of opened) assert.match(url, /^https?:\/\//, `only http(s) pages are opened, got ${url}`);
  });

});

describe('with an empty history', () => {
  let ext;

  before(async () => {
    ext = await launchExtension({ history: [] });
    await ext.context.route(/^https?:\/\//, (route) =>
      route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>stub</title><p>stub page</p>' }),
    );
    await instrument(ext);
    await waitForWholeIndex(ext);
  });

  after(async () => {
    await ext?.close();
  });

  test('the default suggestion says the history is empty, and Enter opens nothing', async () => {
    for (const text of ['', 'sourdough']) {
      const { suggestions, defaults } = await changed(ext, text);
      assert.deepEqual(suggestions, [], JSON.stringify(text));
      assert.equal(defaults.at(-1).description, EMPTY_HISTORY);
      assert.equal(defaults.at(-1).ok, true);
    }
    // Words with no page behind them, then an address: only the address is opened.
    const [tab, calls] = await Promise.all([
      ext.context.waitForEvent('page', { timeout: LIMIT_MS }),
      entered(ext, ['sourdough', 'https://opened.example/empty'], 'newForegroundTab'),
    ]);
    assert.deepEqual(calls.map((c) => c.args[0].url), ['https://opened.example/empty']);
    await tab.close();
    ext.assertNoErrors();
  });
});
