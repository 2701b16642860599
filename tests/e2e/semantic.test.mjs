// Topic search (issue "Semantic search on the device"), end to end: the built extension with its
// real model (multilingual-e5-small, 4-bit, run by the offscreen document's worker), real
// chrome.history, no key and no network. A question that shares no word with its page finds it.
import { test, before, after, afterEach, describe } from 'node:test';
import assert from 'node:assert/strict';
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchExtension, distDir } from './support/launch.mjs';
import { DAY, HOUR, MINUTE } from './support/fixtures.mjs';
import { SEL, alertText, ask, hrefs, openPopup } from './support/popup.mjs';
import { askWorker, stopServiceWorker } from './support/live.mjs';
import { LIMIT_MS, flushEvents, waitUntil } from './support/settle.mjs';

/** The model reads pages one by one on a shared 2-core machine: a failure limit only. */
const BUILD_LIMIT_MS = 300_000;

const TYRE = { url: 'https://www.velo-entretien.fr/guide/crevaison', title: 'Réparer une crevaison en cinq minutes' };
const IRON = { url: 'https://www.healthline.com/nutrition/vegetarian-foods-high-in-iron', title: '21 Vegetarian Foods That Are Loaded With Iron' };
const NOISE = [
  ['https://github.com/rust-lang/rust/issues/12345', 'Borrow checker rejects valid closure · Issue #12345 · rust-lang/rust'],
  ['https://www.meteofrance.com/previsions-meteo-france/lyon/69000', 'Météo Lyon - Prévisions à 15 jours'],
  ['https://www.lemonde.fr/politique/article/2026/11/20/budget-2027', 'Budget 2027 : le gouvernement présente ses arbitrages'],
  ['https://www.allrecipes.com/recipe/21014/good-old-fashioned-pancakes/', 'Good Old-Fashioned Pancakes Recipe'],
  ['https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API', 'Fetch API - Web APIs | MDN'],
  ['https://docs.python.org/3/library/asyncio.html', 'asyncio — Asynchronous I/O — Python 3.13 documentation'],
  ['https://www.lequipe.fr/Football/Ligue-1/', 'Ligue 1 : résultats et classement'],
  ['https://www.amazon.fr/dp/B0CHX1W1XY', 'Casque Bluetooth à réduction de bruit - Amazon.fr'],
  ['https://fr.wikipedia.org/wiki/Tour_Eiffel', 'Tour Eiffel — Wikipédia'],
  ['https://www.netflix.com/browse', 'Netflix'],
  ['https://www.sncf-connect.com/app/trips/search', 'Billets de train : réservez votre voyage | SNCF Connect'],
  ['https://www.zillow.com/mortgage-rates/', 'Current Mortgage Rates for November 2026'],
  ['https://www.spa.asso.fr/adoption/chats', 'Adopter un chat à la SPA'],
  ['https://www.rtings.com/laptop/reviews/best/by-usage/programming', 'The 6 Best Laptops For Programming - Fall 2026'],
  ['https://www.pianoweb.fr/apprendre-piano-debutant.php', 'Apprendre le piano quand on est débutant'],
  ['https://www.alltrails.com/trail/us/colorado/hanging-lake-trail', 'Hanging Lake Trail, Colorado - 1,024 Reviews, Map | AllTrails'],
];

function topicHistory(now) {
  return [
    { url: TYRE.url, title: TYRE.title, visits: [now - 2 * DAY] },
    { url: IRON.url, title: IRON.title, visits: [now - 3 * DAY - 5 * HOUR] },
    ...NOISE.map(([url, title], i) => ({ url, title, visits: [now - (i + 1) * 7 * HOUR - i * MINUTE] })),
  ];
}

/** Topic search's state as the worker reports it. */
async function semanticState(page) {
  const answer = await askWorker(page, { type: 'semanticState' });
  assert.equal(answer?.type, 'semantic', `semanticState answered ${JSON.stringify(answer)}`);
  // The status as `{ type, reason }`: on the wire it is "ready", or { unavailable: "modelMissing" }.
  const { status } = answer.progress;
  const [type, reason] = typeof status === 'string' ? [status] : Object.entries(status)[0];
  return { ...answer.progress, status: { type, reason } };
}

/** Waits until topic search reports `status` (failing at once on another final state). */
async function waitForSemantic(page, status, { limit = BUILD_LIMIT_MS } = {}) {
  let last;
  await waitUntil(async () => {
    last = await semanticState(page);
    if (last.status.type !== status && !['building', 'loading'].includes(last.status.type)) {
      throw new Error(`topic search became ${JSON.stringify(last)} while waiting for ${status}`);
    }
    return last.status.type === status;
  }, `topic search ${status}`, { timeout: limit, describe: () => JSON.stringify(last) });
  return last;
}

/** The URLs topic search alone gives for `query`. */
async function understood(page, query, startMs = 0) {
  const answer = await askWorker(page, { type: 'understand', query, startMs, limit: 30 });
  assert.equal(answer?.type, 'understood', `understand answered ${JSON.stringify(answer)}`);
  return answer.pages.map((p) => p.url);
}

/** The URLs the words alone (the lexical index) give for `query`. */
async function lexical(page, query) {
  const answer = await askWorker(page, { type: 'search', query, startMs: 0, limit: 25 });
  assert.equal(answer?.type, 'pages');
  return answer.pages.map((p) => p.url);
}

/** Vector records in the extension's IndexedDB (read from an extension page: same origin). */
async function storedVectors(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('history-chat');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('vectors')) { db.close(); resolve(0); return; }
      const count = db.transaction('vectors').objectStore('vectors').count();
      count.onsuccess = () => { db.close(); resolve(count.result); };
      count.onerror = () => reject(count.error);
    };
  }));
}

/** Whether IndexedDB holds a vector record for the page at `url` (its key: the cleaned URL). */
async function hasStoredVector(page, url) {
  return page.evaluate((key) => new Promise((resolve, reject) => {
    const open = indexedDB.open('history-chat');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('vectors')) { db.close(); resolve(false); return; }
      const get = db.transaction('vectors').objectStore('vectors').getKey(key);
      get.onsuccess = () => { db.close(); resolve(get.result === key); };
      get.onerror = () => reject(get.error);
    };
  }), url);
}

/** The number of pages the lexical index holds, once it is ready. */
async function lexicalPages(page) {
  let answer;
  await waitUntil(async () => (answer = await askWorker(page, { type: 'warm' }))?.type === 'ready', 'the lexical index ready');
  return answer.pages;
}

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

describe('topic search when the browser\'s storage is full', () => {
  test('topic search says it is paused, word search works, nothing is lost', async () => {
    const now = Date.now();
    const ext = await launchExtension({ history: [...topicHistory(now), ...manyPages(100, now)], topics: true });
    try {
      const options = await ext.openOptions();
      const pages = await lexicalPages(options);
      // The origin's quota, as the browser enforces it for IndexedDB, set below what it holds.
      const cdp = await ext.context.newCDPSession(options);
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: `chrome-extension://${ext.extensionId}`, quotaSize: 1 });
      const full = await waitForSemantic(options, 'storageFull');
      assert.ok(full.understood < pages, `paused before the end (${full.understood} of ${pages})`);
      await options.waitForFunction(() => /storage for this extension is full/.test(document.querySelector('.semantic-state')?.textContent ?? ''), null, { timeout: LIMIT_MS });
      const popup = await openPopup(ext);
      const turn = await ask(popup, 'crevaison');
      assert.ok(hrefs(turn).includes(TYRE.url), `the words still find it: ${JSON.stringify(hrefs(turn))}`);
      assert.equal(await alertText(popup), '');
      await popup.waitForFunction(() => /storage is full/.test(document.querySelector('.understanding')?.textContent ?? ''), null, { timeout: LIMIT_MS });
      // Space again, and the worker started anew (as when the browser is reopened): the build
      // goes on from what was stored and ends with one record per page.
      await cdp.send('Storage.overrideQuotaForOrigin', { origin: `chrome-extension://${ext.extensionId}` });
      const sw = await stopServiceWorker(ext, options);
      const ready = await waitForSemantic(options, 'ready');
      await sw.running();
      sw.detach();
      assert.equal(ready.understood, pages);
      assert.equal(await storedVectors(options), pages, 'one record per page: none lost, none twice');
      ext.assertNoNetwork();
    } finally {
      await ext.close();
    }
  });
});

/** `count` varied pages, newest first, over the last `days` days. */
function manyPages(count, now, days = 20) {
  const topics = ['recette', 'guide', 'review', 'tutorial', 'actualité', 'forum', 'docs', 'prix', 'météo', 'football'];
  return Array.from({ length: count }, (_, i) => ({
    url: `https://site${i % 37}.example.com/${topics[i % topics.length]}/${i}`,
    title: `${topics[(i * 7) % topics.length]} numéro ${i} — page ${i % 13} de la série ${Math.floor(i / 13)}`,
    visits: [now - Math.floor((i / count) * days * DAY) - 1000],
  }));
}

describe('topic search survives its host and a burst of visits', () => {
  test('the model\'s document closed mid-build: the build resumes, every page understood once', async () => {
    const ext = await launchExtension({ history: [...topicHistory(Date.now()), ...manyPages(100, Date.now())], topics: true });
    try {
      const page = await ext.openOptions();
      const pages = await lexicalPages(page);
      let mid;
      await waitUntil(async () => {
        mid = await semanticState(page);
        return mid.status.type === 'building' && mid.understood > 0;
      }, 'some pages understood', { timeout: BUILD_LIMIT_MS });
      assert.ok(mid.understood < pages, `still building (${mid.understood} of ${pages})`);
      // Closed from the service worker, as Chrome would close a crashed document.
      await ext.serviceWorker.evaluate(() => chrome.offscreen.closeDocument());
      const ready = await waitForSemantic(page, 'ready');
      assert.equal(ready.understood, pages);
      assert.equal(ready.total, pages);
      assert.equal(await storedVectors(page), pages, 'one record per page: none lost, none twice');
    } finally {
      await ext.close();
    }
  });

  test('1,000 visits arriving during a build are all understood, nothing lost, a 10,000-character title included', async () => {
    const now = Date.now();
    const long = { url: 'https://long.example.org/histoire', title: 'Une très longue histoire de vélo. '.repeat(300).slice(0, 10_000), visits: [now - HOUR] };
    const ext = await launchExtension({ history: [...topicHistory(now), ...manyPages(100, now), long], topics: true });
    try {
      const page = await ext.openOptions();
      await lexicalPages(page);
      await waitUntil(async () => (await semanticState(page)).status.type === 'building', 'the build under way', { timeout: BUILD_LIMIT_MS });
      // 1,000 visits: 250 new pages, each visited four times, while pages are being understood.
      await page.evaluate(async () => {
        for (let round = 0; round < 4; round++) {
          await Promise.all(Array.from({ length: 250 }, (_, i) => chrome.history.addUrl({ url: `https://burst.example.org/article/${i}` })));
        }
      });
      let pages;
      await waitUntil(async () => {
        pages = await lexicalPages(page);
        const state = await semanticState(page);
        return state.status.type === 'ready' && state.understood === pages;
      }, 'every page understood, the burst included', { timeout: BUILD_LIMIT_MS, describe: () => `lexical pages: ${pages}` });
      assert.equal(await storedVectors(page), pages);
      assert.ok(await hasStoredVector(page, long.url), 'the page with a 10,000-character title is understood');
      ext.assertNoErrors();
    } finally {
      await ext.close();
    }
  });
});
