// Content search (issue "Search what pages said"), end to end: the built extension with the content
// switch on and its access granted as a user grants it (support/content_access.mjs), pages served at
// the network layer and visited in real tabs, read by the real content script, extracted by the
// offscreen document's Readability, kept by the worker's content store in IndexedDB, found from the
// popup. Covered: a page found by what it said (its title says nothing), the passage shown under its
// title with the question's words marked and the page's markup shown as text, cut from the page's
// record read back from IndexedDB (a page whose record cannot be read: shown without); each kind of deletion
// (the page removed from Chrome's history, its site excluded, all history deleted, the switch
// turned off) takes the page's content out of the store and out of the answers; an excluded site's
// new page is never kept. No key, no network: every page is answered by the test (serve).
//
// Each negative check waits first for the event that proves the work ended: the store's count
// reaching what it must be (the worker's content state), then the IndexedDB records listed.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { grantContentAccess } from './support/content_access.mjs';
import { serve } from './support/reader.mjs';
import { SEL, ask, hrefs, openPopup } from './support/popup.mjs';
import { flushEvents, waitUntil } from './support/settle.mjs';

/** A page whose title and address say nothing, its text in an article among a site's boilerplate. */
function page(title, paragraphs) {
  return `<!doctype html><html lang="en"><head><title>${title}</title></head><body>
<header><nav><a href="/">Home</a> <a href="/pricing">Pricing</a> <a href="/careers">Careers</a></nav></header>
<div class="cookie-banner">We use cookies to improve your experience. Accept all cookies.</div>
<main><article><h1>${title}</h1>${paragraphs.map((p) => `<p>${p}</p>`).join('\n')}</article></main>
<aside><h2>Related</h2><ul><li><a href="/a">Archive</a></li><li><a href="/b">Newsletter</a></li></ul></aside>
<footer>Copyright Example Ltd. Terms. Privacy. Contact.</footer>
</body></html>`;
}

const SOURDOUGH = 'http://notes.alpha.test/n/8f3a2c';
const DERAILLEUR = 'http://wiki.beta.test/p/77';
const PARKING = 'http://intranet.gamma.test/d/1';
const PARKING_LATER = 'http://intranet.gamma.test/d/2';
const CONTROL = 'http://notes.alpha.test/n/control';

const ROUTES = {
  [SOURDOUGH]: page('Notes', [
    'Feed the sourdough starter twice a day with equal weights of rye flour and water &lt;img src=x onerror=alert(1)&gt;, which keeps its hydration near one hundred percent.',
    'A starter that doubles within six hours at room temperature is ready to leaven a loaf; a slower one needs another week of regular feeding.',
    'Keep the jar loosely covered, away from draughts, and discard half of the starter before each feeding so the acidity stays mild.',
  ]),
  [DERAILLEUR]: page('Dashboard', [
    'To adjust the rear derailleur, shift to the smallest cog and turn the barrel adjuster until the chain runs quietly without rubbing.',
    'If the chain hesitates when climbing to larger cogs, add cable tension a quarter turn at a time; if it hesitates coming down, release it.',
    'The limit screws stop the derailleur from pushing the chain into the spokes or off the smallest cog and rarely need to be touched.',
  ]),
  [PARKING]: page('Re: question', [
    'Parking permits for the new building are issued by the facilities desk on the ground floor, one per employee, renewed every January.',
    'The charging bays for electric vehicles are on the second underground level; each car may stay there for at most four hours a day.',
    'Bicycles go in the locked shed behind the loading dock, and the access badge opens it from seven in the morning until nine at night.',
  ]),
  [PARKING_LATER]: page('Re: question (2)', [
    'The cafeteria on the fourth floor serves breakfast from eight, and the vending machines near the lifts take the access badge as payment.',
    'Lockers for visitors stand by the reception desk; ask the receptionist for a key and return it before leaving the building in the evening.',
    'Meeting rooms are booked through the shared calendar, and a room left empty for fifteen minutes is released for others to book.',
  ]),
  [CONTROL]: page('Untitled', [
    'Glazing pottery at home starts with bisque firing the clay, then dipping each piece in glaze and wiping the foot ring clean before firing.',
    'A cone six electric kiln reaches about twelve hundred degrees; let it cool overnight before opening the lid or the glaze may craze.',
    'Test tiles of every glaze save disappointment, since colours change a great deal between the bucket and the finished, fired surface.',
  ]),
};

describe('content search: pages found by what they said, and forgotten when they must be', { timeout: 600_000 }, () => {
  let ext;
  let popup;

  /** The worker's content state (the options page's ContentState request). */
  const contentState = async () => {
    const answer = await popup.evaluate(() => chrome.runtime.sendMessage({ type: 'contentState' }));
    return answer?.content?.state;
  };

  /** Waits until the content store holds `pages` pages and has nothing left to do; returns its state. */
  const settledAt = async (pages, what) => {
    let state;
    await waitUntil(
      async () => {
        state = await contentState();
        return state?.progress?.pages === pages && !['loading', 'reading'].includes(state.progress.status);
      },
      what,
      { describe: () => `content state: ${JSON.stringify(state)}` },
    );
    return state;
  };

  /** The addresses whose content IndexedDB holds (the worker's `content` records). */
  const storedUrls = () => popup.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('history-chat');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      const keys = db.transaction('content').objectStore('content').getAllKeys();
      keys.onsuccess = () => {
        db.close();
        resolve([...keys.result].map(String).sort());
      };
      keys.onerror = () => reject(keys.error);
    };
  }));

  const visit = async (url) => {
    const tab = await ext.context.newPage();
    await tab.goto(url);
    return tab;
  };

  const setSettings = (patch) => popup.evaluate(async (patch) => {
    const { settings } = await chrome.storage.sync.get('settings');
    await chrome.storage.sync.set({ settings: { ...settings, ...patch } });
  }, patch);

  before(async () => {
    ext = await launchExtension();
    await serve(ext.context, Object.fromEntries(Object.entries(ROUTES).map(([url, body]) => [url, { body }])));
    await grantContentAccess(ext);
    popup = await openPopup(ext);
    // The switch as the options page turns it on: saved, then the worker told.
    await setSettings({ readContent: true });
    await popup.evaluate(() => chrome.runtime.sendMessage({ type: 'setContent', enabled: true }));
    await waitUntil(
      () => popup.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).length === 1),
      'the page reader registered by the worker',
    );
  });

  after(async () => ext?.close());
  afterEach(async () => {
    await flushEvents(ext);
    ext.assertNoNetwork();
    ext.assertNoErrors();
  });

  test('a page is found by what it said: its passage under its title, the question words marked, its markup as text', async () => {
    const tabs = [];
    for (const url of [SOURDOUGH, DERAILLEUR, PARKING]) tabs.push(await visit(url));
    const state = await settledAt(3, 'the three visited pages read and kept');
    assert.ok(state.progress.bytes > 0, 'their size is counted');
    // Every passage embedded and written: the store holds no page's text any more, so the passage
    // shown below is cut from the page's record, read back from IndexedDB.
    assert.ok(
      state.progress.passagesTotal > 0 && state.progress.passagesEmbedded === state.progress.passagesTotal,
      `every passage embedded: ${JSON.stringify(state.progress)}`,
    );
    assert.deepEqual(await storedUrls(), [DERAILLEUR, PARKING, SOURDOUGH].sort());
    for (const tab of tabs) await tab.close();

    await popup.reload();
    const turn = await ask(popup, 'rye flour hydration of the starter');
    assert.equal(hrefs(turn)[0], SOURDOUGH, `the page about the starter comes first: ${JSON.stringify(hrefs(turn))}`);
    const row = popup.locator(`${SEL.turn} li:has(a[href="${SOURDOUGH}"])`).last();
    const passage = row.locator('.passage');
    await passage.waitFor();
    const text = await passage.textContent();
    assert.match(text, /rye flour/i, `the passage that matched is shown: ${text}`);
    const marked = (await passage.locator('mark').allTextContents()).map((m) => m.toLowerCase());
    assert.ok(marked.includes('rye') && marked.includes('flour'), `the question's words are marked: ${JSON.stringify(marked)}`);
    assert.ok(text.includes('<img src=x onerror=alert(1)>'), `the page's text that looks like markup is shown as text: ${text}`);
    assert.equal(await passage.locator('img').count(), 0, 'and never rendered');
  });

  test('a page whose record cannot be read back is still found, shown without a passage', async () => {
    // The store holds no page's text once its record is final: the passage is cut from the record.
    // Take the record out of IndexedDB behind the worker's back, ask, then put it back as it was.
    const record = (mode, url, bytes) => popup.evaluate(([mode, url, bytes]) => new Promise((resolve, reject) => {
      const open = indexedDB.open('history-chat');
      open.onerror = () => reject(open.error);
      open.onsuccess = () => {
        const db = open.result;
        const transaction = db.transaction('content', mode === 'get' ? 'readonly' : 'readwrite');
        const store = transaction.objectStore('content');
        const request = mode === 'get' ? store.get(url)
          : mode === 'delete' ? store.delete(url) : store.put(new Uint8Array(bytes), url);
        transaction.oncomplete = () => {
          db.close();
          resolve(mode === 'get' ? Array.from(request.result) : null);
        };
        transaction.onerror = () => reject(transaction.error);
      };
    }), [mode, url, bytes]);
    const bytes = await record('get', SOURDOUGH);
    assert.ok(bytes.length > 0, 'the page has a record');
    await record('delete', SOURDOUGH);
    try {
      await popup.reload();
      const turn = await ask(popup, 'rye flour hydration of the starter');
      assert.equal(hrefs(turn)[0], SOURDOUGH, `still found first: ${JSON.stringify(hrefs(turn))}`);
      // The newest turn comes first; the first test's, with its passage, is below it.
      const row = popup.locator(SEL.turn).first().locator(`li:has(a[href="${SOURDOUGH}"])`);
      await row.waitFor();
      assert.equal(await row.locator('.passage').count(), 0, 'no passage without its record');
    } finally {
      await record('put', SOURDOUGH, bytes);
    }
    assert.deepEqual(await storedUrls(), [DERAILLEUR, PARKING, SOURDOUGH].sort());
    // The record back: its passage is shown again, from it.
    await ask(popup, 'rye flour hydration of the starter');
    const row = popup.locator(SEL.turn).first().locator(`li:has(a[href="${SOURDOUGH}"])`);
    const text = await row.locator('.passage').textContent();
    assert.match(text, /rye flour/i, `the passage from the record put back: ${text}`);
  });

  test("a page removed from Chrome's history leaves the content store and the answers", async () => {
    await popup.evaluate((url) => chrome.history.deleteUrl({ url }), DERAILLEUR);
    await settledAt(2, 'the removed page forgotten');
    assert.deepEqual(await storedUrls(), [PARKING, SOURDOUGH].sort());
    const turn = await ask(popup, 'barrel adjuster cable tension derailleur');
    assert.ok(!hrefs(turn).includes(DERAILLEUR), `not found any more: ${JSON.stringify(hrefs(turn))}`);
  });

  test("excluding a site deletes its pages' content, and its new pages are never kept", async () => {
    await setSettings({ excludedSites: ['intranet.gamma.test'] });
    await settledAt(1, 'the excluded site forgotten');
    assert.deepEqual(await storedUrls(), [SOURDOUGH]);
    // A new page of the excluded site, then one of another site: once the second is kept, the
    // first (visited before it) has had its chance.
    const excluded = await visit(PARKING_LATER);
    const control = await visit(CONTROL);
    await settledAt(2, 'the control page read');
    assert.deepEqual(await storedUrls(), [CONTROL, SOURDOUGH].sort(), 'the excluded page is not kept');
    await excluded.close();
    await control.close();
    const turn = await ask(popup, 'charging bays for electric vehicles');
    assert.ok(!hrefs(turn).some((href) => href.startsWith('http://intranet.gamma.test/')), `nothing of the excluded site: ${JSON.stringify(hrefs(turn))}`);
    await setSettings({ excludedSites: [] });
  });

  test('deleting all history deletes all content', async () => {
    await popup.evaluate(() => chrome.history.deleteAll());
    await settledAt(0, 'everything forgotten');
    assert.deepEqual(await storedUrls(), []);
  });

  test('turning the switch off deletes every page read, and nothing more is read', async () => {
    const tab = await visit(SOURDOUGH);
    await settledAt(1, 'the page read again');
    await tab.close();
    await setSettings({ readContent: false });
    await popup.evaluate(() => chrome.runtime.sendMessage({ type: 'setContent', enabled: false }));
    let state;
    await waitUntil(
      async () => (state = await contentState())?.progress?.status === 'off',
      'the content store off',
      { describe: () => JSON.stringify(state) },
    );
    assert.equal(state.progress.pages, 0);
    await waitUntil(async () => (await storedUrls()).length === 0, 'the stored content cleared', {
      describe: () => 'records left in IndexedDB',
    });
    assert.equal(
      await popup.evaluate(async () => (await chrome.scripting.getRegisteredContentScripts()).length),
      0,
      'the reader is unregistered',
    );
  });
});
