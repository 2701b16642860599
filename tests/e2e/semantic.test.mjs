// Topic search (issue "Semantic search on the device"), end to end: the built extension with its
// real model (multilingual-e5-small, 4-bit, run by the offscreen document's worker), real
// chrome.history, no key and no network. A question that shares no word with its page finds it.
// Its recovery from a full storage, a closed model document and a burst of visits is in
// semantic_storage_full.test.mjs and semantic_recovery.test.mjs.
import { test, before, after, afterEach, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchExtension, distDir } from './support/launch.mjs';
import { SEL, alertText, ask, hrefs, openPopup } from './support/popup.mjs';
import { LIMIT_MS, flushEvents, waitUntil } from './support/settle.mjs';
import { HOUR, largeHistory } from './support/fixtures.mjs';
import { TYRE, IRON, BUILD_LIMIT_MS, topicHistory, semanticState, waitForSemantic, understood, lexical, storedVectors, lexicalPages } from './support/topics.mjs';
import { askWorker } from './support/live.mjs';

describe('topic search with the real model', () => {
  let ext;
  let popup;
  let options;
  let pages;
  const now = Date.now();

  before(async () => {
    ext = await launchExtension({ history: topicHistory(now), topics: true });
    options = await ext.openOptions();
    popup = await openPopup(ext);
    pages = await lexicalPages(popup);
  });
  after(async () => ext?.close());
  // Each test of this browser, whatever ran before it: no network request, no error.
  afterEach(async () => {
    await flushEvents(ext);
    ext.assertNoNetwork();
    ext.assertNoErrors();
  });

  test('the options page shows the build with a <progress>, then says it is ready, every page understood and stored', async () => {
    // Every state of the <progress> the page shows, recorded as it changes.
    await options.evaluate(() => {
      window.__progress = [];
      const record = () => {
        const bar = document.querySelector('progress[aria-label="Pages understood"]');
        if (bar) window.__progress.push({ value: Number(bar.getAttribute('value') ?? bar.value), max: Number(bar.getAttribute('max') ?? bar.max) });
      };
      record();
      new MutationObserver(record).observe(document.body, { subtree: true, childList: true, attributes: true });
    });
    const ready = await waitForSemantic(options, 'ready');
    assert.equal(ready.understood, pages, 'every page of the lexical index is understood');
    assert.equal(ready.total, pages);
    await options.waitForFunction(
      () => /Topic search is ready: \d+ pages understood\./.test(document.querySelector('.semantic-state')?.textContent ?? ''),
      null,
      { timeout: LIMIT_MS },
    );
    const line = await options.locator('.semantic-state').textContent();
    assert.match(line, new RegExp(`Topic search is ready: ${pages} pages understood\\.`));
    const seen = await options.evaluate(() => window.__progress);
    for (const { value, max } of seen) {
      assert.ok(value >= 0 && value <= max && max <= pages, `progress ${value}/${max} of ${pages} pages`);
    }
    assert.equal(await options.locator('progress[aria-label="Pages understood"]').count(), 0, 'no progress bar once ready');
    assert.equal(await storedVectors(options), pages, 'one stored vector per page');
  });

  test('a question is embedded at once, not after the page the model is embedding', async () => {
    await waitForSemantic(options, 'ready');
    // Asked of the offscreen document as the service worker asks it (the worker ignores messages
    // addressed to a `target`): a page's passage of 1,500 characters (seconds of the model's time),
    // then a question right after it. Before either, one of each: both models loaded.
    const long = Array.from({ length: 15 }, (_, i) =>
      `Paragraph ${i}: the workshop replaced the rear tyre, balanced the wheel ${i} times and checked the brake pads.`).join(' ');
    const outcome = await popup.evaluate(async (long) => {
      const open = await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] });
      if (open.length === 0) {
        await chrome.offscreen.createDocument({ url: 'embedder.html', reasons: ['WORKERS', 'DOM_PARSER'], justification: 'test' })
          .catch(async (error) => {
            if ((await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] })).length === 0) throw error;
          });
      }
      const embed = (kind, texts) => chrome.runtime.sendMessage({ target: 'embedder', kind, texts, idleMs: 0 });
      await embed('passage', ['a page']);
      await embed('query', ['a question']);
      const finished = [];
      const page = embed('passage', [long]).then((answer) => (finished.push('page'), answer));
      const question = embed('query', ['where did I get my tyre fixed']).then((answer) => (finished.push('question'), answer));
      const [p, q] = await Promise.all([page, question]);
      return { finished, page: p.vectors?.map((v) => v.length) ?? p, question: q.vectors?.map((v) => v.length) ?? q };
    }, long);
    assert.deepEqual(outcome.page, [384], 'the page got its vector');
    assert.deepEqual(outcome.question, [384], 'the question got its vector');
    assert.deepEqual(outcome.finished, ['question', 'page'], 'the question, asked after the page, is answered first');
  });

  test('a topic question in English finds the French page it shares no word with', async () => {
    await waitForSemantic(popup, 'ready');
    const question = 'how to fix a flat bicycle tire';
    assert.ok(!(await lexical(popup, question)).includes(TYRE.url), 'the words alone do not find it');
    assert.ok((await understood(popup, question)).slice(0, 3).includes(TYRE.url), 'topic search ranks it in its first three');
    const turn = await ask(popup, question);
    // The words found no page with every word of the question: topic search's page leads.
    assert.equal(hrefs(turn)[0], TYRE.url, `the answer shows it first: ${JSON.stringify(hrefs(turn))}`);
    assert.equal(await alertText(popup), '');
  });

  test('opening the popup loads the questions\' model again once it was released', async () => {
    await waitForSemantic(options, 'ready');
    const documents = () => options.evaluate(async () =>
      (await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] })).length);
    // Released, as five idle minutes release its workers: the model's document closed.
    await options.evaluate(() => chrome.offscreen.closeDocument());
    assert.equal(await documents(), 0);
    // A popup opens; nothing is asked: the document comes back for the model to load.
    const again = await openPopup(ext);
    try {
      await waitUntil(async () => (await documents()) === 1, 'the model\'s document open again');
      const turn = await ask(again, 'how to fix a flat bicycle tire');
      assert.equal(hrefs(turn)[0], TYRE.url);
    } finally {
      await again.close();
    }
  });

  test('as you type, topic search joins the words\' matches after a pause', async () => {
    const box = popup.locator(SEL.search);
    await box.fill('repairing a punctured bike wheel');
    await popup.waitForFunction(
      (url) => [...document.querySelectorAll('section[aria-label="Matches as you type"] a')].some((a) => a.href === url),
      TYRE.url,
      { timeout: LIMIT_MS },
    );
    await box.fill('');
  });

  test('odd questions get a clear answer and pull no random page in', async () => {
    const odd = [
      ['', 'empty'],
      ['x', 'one letter'],
      ['🚲🔧🙂', 'emoji only'],
      ['vélo 自転車 bike ποδήλατο', 'mixed scripts'],
      ['réparer '.repeat(625), '5,000 characters'],
      ['qzxv wplk fjdh', 'gibberish'],
    ];
    for (const [query, what] of odd) {
      const urls = await understood(popup, query);
      assert.ok(Array.isArray(urls), what);
      if (['', 'x', 'qzxv wplk fjdh'].includes(query)) assert.deepEqual(urls, [], `${what}: no page above the similarity floor`);
    }
    const turn = await ask(popup, '🚲🔧🙂');
    assert.ok(Array.isArray(hrefs(turn)));
    assert.equal(await alertText(popup), '');
  });

  test('a page deleted from history is forgotten by topic search too, its vector deleted', async () => {
    const before = await storedVectors(popup);
    await popup.evaluate((url) => chrome.history.deleteUrl({ url }), IRON.url);
    await waitUntil(async () => !(await understood(popup, 'iron rich food for vegetarians')).includes(IRON.url), 'topic search no longer gives the deleted page');
    await waitUntil(async () => (await storedVectors(popup)) === before - 1, 'its stored vector deleted');
  });

  test('turning topic search off drops its index; turning it on rebuilds it', async () => {
    await options.reload();
    const box = options.getByLabel('Topic search');
    await box.waitFor();
    assert.equal(await box.isChecked(), true);
    await box.uncheck();
    await options.waitForFunction(() => document.querySelector('.semantic-state')?.textContent === 'Topic search is off.', null, { timeout: LIMIT_MS });
    await waitUntil(async () => (await storedVectors(options)) === 0, 'every stored vector deleted');
    assert.deepEqual(await understood(popup, 'how to fix a flat bicycle tire'), []);
    const stored = await options.evaluate(() => chrome.storage.sync.get('settings'));
    assert.equal(stored.settings.semanticSearch, 'off');
    await box.check();
    const ready = await waitForSemantic(options, 'ready');
    assert.equal(ready.understood, await lexicalPages(popup));
    assert.ok((await understood(popup, 'how to fix a flat bicycle tire')).includes(TYRE.url));
  });
});

/** A copy of the built extension whose model file is replaced (or removed when `bytes` is null). */
async function distWithModel(bytes) {
  const dir = await mkdtemp(path.join(tmpdir(), 'history-chat-dist-'));
  await cp(distDir(), dir, { recursive: true });
  const model = path.join(dir, 'model', 'e5-small-latin-q4.bin');
  if (bytes === null) await rm(model);
  else await writeFile(model, bytes);
  return dir;
}

describe('an answer that topic search reorders', () => {
  // The words find the Lyon weather page first (one word of six) and the bicycle parking page; topic
  // search finds the parking page, which the whole answer so puts first.
  const PARKING = { url: 'https://www.lyon.fr/stationnement-velo', title: 'Bicycle parking in the city centre' };
  const QUESTION = 'bike tyre went flat near Lyon';

  /** Asks QUESTION with the pointer where `at` says; returns every list the new turn showed, and its last. */
  async function askRecording(popup, at) {
    await popup.evaluate(() => {
      window.__shown = [];
      const section = document.querySelector('section.conversation');
      const before = section.querySelector('article.turn');
      const record = () => {
        const newest = section.querySelector('article.turn');
        if (!newest || newest === before) return;
        const list = [...newest.querySelectorAll('ul.results a[href]')].map((a) => a.href);
        if (list.length && JSON.stringify(list) !== JSON.stringify(window.__shown.at(-1))) window.__shown.push(list);
      };
      new MutationObserver(record).observe(section, { subtree: true, childList: true });
    });
    await at();
    const answer = hrefs(await ask(popup, QUESTION));
    return { shown: await popup.evaluate(() => window.__shown), answer };
  }

  test('the rows the pointer is on stay in place when topic search\'s answer comes; elsewhere it reorders them', async () => {
    const now = Date.now();
    const ext = await launchExtension({
      history: [...topicHistory(now), { ...PARKING, visits: [now - HOUR] }],
      topics: true,
    });
    try {
      const popup = await openPopup(ext);
      await lexicalPages(popup);
      await waitForSemantic(popup, 'ready');
      const words = await lexical(popup, QUESTION);
      assert.equal(words[1], PARKING.url, `the words put the parking page second: ${JSON.stringify(words)}`);
      // The pointer away from the conversation: the words' answer shows first, then the whole
      // answer, which moves the parking page up.
      const away = await askRecording(popup, () => popup.mouse.move(1, 1));
      assert.deepEqual(away.shown[0], words.slice(0, away.shown[0].length), `the words' answer first: ${JSON.stringify(away.shown)}`);
      assert.equal(away.answer[0], PARKING.url, `then the whole answer: ${JSON.stringify(away)}`);
      // The pointer where the new turn's rows come: the words' answer shows, and stays as it is.
      const on = await askRecording(popup, async () => {
        const box = await popup.locator('section.conversation').boundingBox();
        await popup.mouse.move(box.x + 60, box.y + 70);
      });
      assert.deepEqual(on.shown[0], away.shown[0], `the words' answer first: ${JSON.stringify(on.shown)}`);
      assert.deepEqual(on.answer.slice(0, on.shown[0].length), on.shown[0], `no row moved: ${JSON.stringify(on)}`);
      ext.assertNoNetwork();
      ext.assertNoErrors();
    } finally {
      await ext.close();
    }
  });
});

describe('topic search without a usable model', () => {
  for (const [what, bytes, words] of [
    ['missing', null, /the on-device model's file is missing/],
    ['corrupt', Buffer.from('E5S1 this is not a model '.repeat(100)), /the on-device model's file is damaged/],
  ]) {
    test(`a ${what} model file: topic search says it is unavailable, word search works`, async () => {
      const dist = await distWithModel(bytes);
      const ext = await launchExtension({ history: topicHistory(Date.now()), dist, topics: true });
      try {
        const options = await ext.openOptions();
        const state = await waitForSemantic(options, 'unavailable', { limit: LIMIT_MS * 4 });
        assert.equal(state.status.reason, what === 'missing' ? 'modelMissing' : 'modelCorrupt');
        await options.waitForFunction((re) => new RegExp(re).test(document.querySelector('.semantic-state')?.textContent ?? ''), words.source, { timeout: LIMIT_MS });
        const popup = await openPopup(ext);
        const turn = await ask(popup, 'crevaison');
        assert.ok(hrefs(turn).includes(TYRE.url), 'the words still find it');
        assert.equal(await alertText(popup), '');
        await popup.waitForFunction(() => /Topic search is unavailable/.test(document.querySelector('.understanding')?.textContent ?? ''), null, { timeout: LIMIT_MS });
        ext.assertNoNetwork();
      } finally {
        await ext.close();
        await rm(dist, { recursive: true, force: true });
      }
    });
  }
});

describe('a long topic-search build', () => {
  test('the options page says how long the build has left once it has seen its pace', async () => {
    // 3,000 pages take minutes to understand: the line gains the time left after the page has
    // watched for PACE_MIN_SPAN_MS (10 s), and the options page never says it before.
    const ext = await launchExtension({ history: largeHistory(3_000), topics: true });
    try {
      // Every line the page shows, recorded from its start (before its own scripts run).
      const options = await ext.context.newPage();
      await options.addInitScript(() => {
        window.__lines = [];
        const record = () => {
          const line = document.querySelector('.semantic-state')?.textContent ?? '';
          if (line && line !== window.__lines[window.__lines.length - 1]) window.__lines.push(line);
        };
        new MutationObserver(record).observe(document, { subtree: true, childList: true, characterData: true });
      });
      await options.goto(ext.url('options.html'));
      await options.waitForFunction(
        () => /Understanding your history: [\d,]+ of [\d,]+ pages so far, about (\d+ min|\d+ h( \d+ min)?) left\./
          .test(document.querySelector('.semantic-state')?.textContent ?? ''),
        null,
        { timeout: LIMIT_MS * 8 },
      );
      const lines = await options.evaluate(() => window.__lines);
      const first = lines.findIndex((line) => / left\./.test(line));
      assert.ok(lines.slice(0, first).some((line) => /^Understanding your history: [\d,]+ of [\d,]+ pages so far\. /.test(line)),
        `the build was shown without a time left before its pace was known: ${JSON.stringify(lines.slice(0, first + 1))}`);
      ext.assertNoNetwork();
      ext.assertNoErrors();
    } finally {
      await ext.close();
    }
  });

  test('on a low battery the build pauses and says so; charging, it goes on to the end', async () => {
    // The offscreen document tells the worker the battery's state (headless Chromium's is
    // charging and full, so it tells nothing here); the test sends what it would send on a low
    // battery, through the same message.
    const ext = await launchExtension({ history: largeHistory(300), topics: true });
    try {
      const options = await ext.openOptions();
      await waitUntil(async () => {
        const state = await semanticState(options);
        return state.understood > 0 && state.status.type === 'building';
      }, 'the first pages understood', { timeout: BUILD_LIMIT_MS });
      const noted = await askWorker(options, { type: 'battery', charging: false, level: 0.12 });
      assert.equal(noted?.type, 'noted');
      const paused = await waitForSemantic(options, 'paused');
      assert.ok(paused.understood < paused.total, `paused with pages left: ${JSON.stringify(paused)}`);
      await options.waitForFunction(
        () => /^Topic search is paused while your computer runs on a low battery: [\d,]+ of [\d,]+ pages understood so far, and searchable\. It goes on once the computer is charging\.$/
          .test(document.querySelector('.semantic-state')?.textContent ?? ''),
        null,
        { timeout: LIMIT_MS },
      );
      // Plugged in: the build goes on and ends.
      await askWorker(options, { type: 'battery', charging: true, level: 0.12 });
      const ready = await waitForSemantic(options, 'ready');
      assert.equal(ready.understood, await lexicalPages(options), 'every page understood');
      ext.assertNoNetwork();
      ext.assertNoErrors();
    } finally {
      await ext.close();
    }
  });
});
