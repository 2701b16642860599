// Topic search survives its host and a burst of visits, end to end: the built extension with its
// real model, real chrome.history. The model's offscreen document closed mid-build, and 1,000
// visits arriving while it builds: every page is understood once, nothing lost.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { HOUR } from './support/fixtures.mjs';
import { waitUntil } from './support/settle.mjs';
import { BUILD_LIMIT_MS, topicHistory, semanticState, waitForSemantic, understood, lexical, storedVectors, hasStoredVector, lexicalPages, manyPages } from './support/topics.mjs';

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
