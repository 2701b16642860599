// Topic search when the browser's storage is full, end to end: the built extension with its real
// model, real chrome.history, the origin's IndexedDB quota set below what it holds by the DevTools
// protocol. Topic search pauses and says so, words still search, and nothing is lost once there
// is room again.
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { alertText, ask, hrefs, openPopup } from './support/popup.mjs';
import { stopServiceWorker } from './support/live.mjs';
import { LIMIT_MS } from './support/settle.mjs';
import { TYRE, topicHistory, waitForSemantic, understood, storedVectors, lexicalPages, manyPages } from './support/topics.mjs';

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
