// Pages kept after Chrome forgets them (issue 11, part 1), end to end: the built extension, a seeded
// real chrome.history, the options page's switch, count and "Forget kept pages", the popup's periods.
//
// Chrome reports its own expiry and the user's deletions through the same onVisitRemoved. The rule
// under test (crates/history-chat-core/src/archive.rs): with the option on, a removal is kept only
// when every URL it lists is known to the index and was last visited at least 88 days ago.
//
// How an expiry is produced: Chromium's own expirer deletes seeded visits older than 90 days about
// 30 s after the browser starts (measured: 28 s on this machine), firing onVisitRemoved for them;
// pages 89 days old are left alone. So the deterministic tests seed pages 89 days old and remove them
// with chrome.history.deleteUrl, which by the rule is an expiry; one test waits for Chromium's own
// expirer to delete a 120-day-old page (the only one older than 90 days here).
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { DAY, HOUR, demoHistory } from './support/fixtures.mjs';
import { SEL, ask, assertFound, assertNotFound, describeTurn, openPopup, statusText } from './support/popup.mjs';
import { askWorker, literalSearch, snapshotBytes, stopServiceWorker, waitForIndex } from './support/live.mjs';
import { LIMIT_MS, waitUntil, checkedBelow } from './support/settle.mjs';

const KEEP = 'Keep pages searchable after Chrome forgets them';

/** Pages 89 days old (Chrome keeps them; the rule counts their removal as an expiry). */
const ZYMURGY = { url: 'https://brewing.example/zymurgy-notes', title: 'Zymurgy notes: fermenting a saison' };
const QUOKKA = { url: 'https://animals.example/quokka-rottnest', title: 'Quokka colonies of Rottnest island' };
const NARWHAL = { url: 'https://sea.example/narwhal-tusks', title: 'Why narwhal tusks spiral' };
/** A recent page. */
const AXOLOTL = { url: 'https://pets.example/axolotl-care', title: 'Axolotl care sheet' };
/** Older than Chrome's 90 days: Chromium's own expirer deletes it about 30 s after start. */
const TRILOBITE = { url: 'https://fossils.example/trilobite-eyes', title: 'Trilobite eyes were made of calcite' };

function seeded(now) {
  return [
    ...demoHistory(now),
    { url: ZYMURGY.url, title: ZYMURGY.title, visits: [now - 89 * DAY] },
    { url: QUOKKA.url, title: QUOKKA.title, visits: [now - 89 * DAY - HOUR] },
    { url: NARWHAL.url, title: NARWHAL.title, visits: [now - 89 * DAY - 2 * HOUR] },
    { url: AXOLOTL.url, title: AXOLOTL.title, visits: [now - 2 * HOUR] },
  ];
}

/** How many pages the worker keeps that Chrome forgot (waits for the index to be loaded). */
async function keptCount(page) {
  const answer = await askWorker(page, { type: 'keptPages' });
  assert.equal(answer?.type, 'kept', `the worker answers the kept count: ${JSON.stringify(answer)}`);
  return answer.pages;
}

/** The worker's index answer for `query` over all time (cleaned URLs). */
async function indexed(page, query) {
  const answer = await askWorker(page, { type: 'search', query, startMs: 0, limit: 20 });
  assert.equal(answer?.type, 'pages', JSON.stringify(answer));
  return answer.pages.map((p) => p.url);
}

/** Turns the option on or off on the options page and waits for the worker's applied answer. */
async function switchKeep(options, on) {
  const box = options.getByLabel(KEEP);
  await box.waitFor();
  if (on) await box.check();
  else await box.uncheck();
  const said = on ? 'Saved: pages Chrome forgets will stay searchable.' : 'Saved: pages Chrome had forgotten are no longer kept.';
  await options.waitForFunction((said) => document.querySelector('[role="status"]')?.textContent?.trim() === said, said, { timeout: LIMIT_MS });
}

async function keptLine(options) {
  return options.locator('.kept-state').textContent();
}

async function periodValues(popup) {
  return popup.locator(`${SEL.period} option`).evaluateAll((os) => os.map((o) => o.value));
}

/** Chrome forgets `url` (the rule counts it an expiry: it is 89 days old); waits until the worker applied it. */
async function chromeForgets(page, url, keptAfter) {
  await page.evaluate((url) => chrome.history.deleteUrl({ url }), url);
  await waitUntil(async () => !(await literalSearch(page, '')).includes(url), `Chrome's history no longer has ${url}`);
  await waitUntil(async () => (await keptCount(page)) === keptAfter, `the worker keeps ${keptAfter} page(s)`);
}

describe('pages kept after Chrome forgets them (option on)', () => {
  let ext;
  let options;
  let popup;
  const now = Date.now();

  before(async () => {
    ext = await launchExtension({ history: seeded(now) });
    options = await ext.openOptions();
    assert.equal(await options.getByLabel(KEEP).isChecked(), false, 'off by default');
    await switchKeep(options, true);
    popup = await openPopup(ext);
    await waitForIndex(popup);
  });

  after(async () => {
    await ext?.close();
  });

  test('a page Chrome forgets stays searchable: its words, and the "All time" period', async () => {
    assert.equal(await keptCount(popup), 0);
    await chromeForgets(popup, ZYMURGY.url, 1);
    assert.ok((await indexed(popup, 'zymurgy saison')).includes(ZYMURGY.url), 'the index still holds it');
    await popup.reload();
    // The selector offers All time once the reloaded popup has read its settings.
    await popup.waitForFunction((sel) => [...document.querySelectorAll(`${sel} option`)].some((o) => o.value === 'all'), SEL.period, { timeout: LIMIT_MS }).catch(checkedBelow);
    assert.deepEqual(await periodValues(popup), ['24h', '7d', '30d', '90d', 'all'], 'the period selector offers All time');
    const turn = await ask(popup, 'zymurgy saison', { period: 'all' });
    assertFound(turn, ZYMURGY.url, 'the kept page, All time');
    const quarter = await ask(popup, 'zymurgy saison', { period: '90d' });
    assertFound(quarter, ZYMURGY.url, 'the kept page, 3 months (it is 89 days old)');
    await options.reload();
    await options.waitForFunction(() => document.querySelector('.kept-state')?.textContent === '1 page is kept that Chrome has forgotten.', null, { timeout: LIMIT_MS });
    ext.assertNoErrors();
  });

  test('a recent page\'s removal is honoured at once, even with the option on', async () => {
    assert.ok((await indexed(popup, 'axolotl')).includes(AXOLOTL.url));
    await popup.evaluate((url) => chrome.history.deleteUrl({ url }), AXOLOTL.url);
    await waitUntil(async () => !(await indexed(popup, 'axolotl')).includes(AXOLOTL.url), 'the index forgets the recent page');
    assert.equal(await keptCount(popup), 1, 'only the page Chrome forgot is kept');
    const turn = await ask(popup, 'axolotl care', { period: 'all' });
    assertNotFound(turn, AXOLOTL.url);
  });

  test('a worker restart keeps the kept page (it is in the saved snapshot)', async () => {
    // The snapshot saved after both changes above no longer holds the deleted recent page.
    const holds = async (url) => popup.evaluate(
      (url) => new Promise((resolve) => {
        const open = indexedDB.open('history-chat');
        open.onerror = () => resolve(null);
        open.onsuccess = () => {
          const db = open.result;
          const get = db.transaction('blobs').objectStore('blobs').get('history-index');
          get.onsuccess = () => {
            db.close();
            const bytes = get.result ? new Uint8Array(get.result) : new Uint8Array();
            resolve(new TextDecoder('latin1').decode(bytes).includes(url));
          };
          get.onerror = () => (db.close(), resolve(null));
        };
      }),
      url,
    );
    await waitUntil(async () => (await snapshotBytes(popup)) > 0 && (await holds(AXOLOTL.url)) === false, 'a snapshot saved after the changes');
    assert.equal(await holds(ZYMURGY.url), true, 'the saved snapshot holds the kept page');
    const sw = await stopServiceWorker(ext, popup);
    assert.equal(await keptCount(popup), 1, 'still kept after the restart');
    await sw.running();
    sw.detach();
    assert.ok((await indexed(popup, 'zymurgy')).includes(ZYMURGY.url));
    const turn = await ask(popup, 'zymurgy', { period: 'all' });
    assertFound(turn, ZYMURGY.url);
  });

  test('"Forget kept pages" (with a confirmation) empties them; the option stays on', async () => {
    await options.reload();
    await options.waitForFunction(() => document.querySelector('.kept-state')?.textContent === '1 page is kept that Chrome has forgotten.', null, { timeout: LIMIT_MS });
    await options.getByRole('button', { name: 'Forget kept pages…' }).click();
    const group = options.getByRole('group', { name: 'Confirm forgetting kept pages' });
    assert.match(await group.textContent(), /Forget the kept page\? Chrome no longer has them, so this cannot be undone\./);
    await group.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(await keptCount(popup), 1, 'Cancel forgets nothing');
    await options.getByRole('button', { name: 'Forget kept pages…' }).click();
    await options.getByRole('button', { name: 'Forget them' }).click();
    await options.waitForFunction(() => document.querySelector('[role="status"]')?.textContent?.trim() === 'Kept pages forgotten', null, { timeout: LIMIT_MS });
    assert.match(await keptLine(options), /^No page is kept yet/);
    assert.equal(await keptCount(popup), 0);
    assert.ok(!(await indexed(popup, 'zymurgy')).includes(ZYMURGY.url), 'gone from the index');
    assert.equal(await options.getByLabel(KEEP).isChecked(), true);
    assert.equal(await options.getByRole('button', { name: 'Forget kept pages…' }).isDisabled(), true, 'nothing left to forget');
  });

  test('"clear all history" (deleteAll) is honoured, kept pages included', async () => {
    await chromeForgets(popup, QUOKKA.url, 1);
    await popup.evaluate(() => chrome.history.deleteAll());
    await waitUntil(async () => (await keptCount(popup)) === 0, 'no page kept after deleteAll');
    assert.deepEqual(await indexed(popup, 'quokka'), []);
    assert.deepEqual(await indexed(popup, ''), [], 'the index is empty');
    ext.assertNoNetwork();
    ext.assertNoErrors();
  });
});

describe('turning the option off, and the default (off)', () => {
  test('off by default: a page Chrome forgets is gone, and there is no "All time"', async () => {
    const ext = await launchExtension({ history: seeded(Date.now()) });
    try {
      const popup = await openPopup(ext);
      await waitForIndex(popup);
      assert.deepEqual(await periodValues(popup), ['24h', '7d', '30d', '90d']);
      await popup.evaluate((url) => chrome.history.deleteUrl({ url }), ZYMURGY.url);
      await waitUntil(async () => !(await indexed(popup, 'zymurgy')).includes(ZYMURGY.url), 'the index forgets it');
      assert.equal(await keptCount(popup), 0);
      const turn = await ask(popup, 'zymurgy saison', { period: '90d' });
      assertNotFound(turn, ZYMURGY.url);
      ext.assertNoErrors();
    } finally {
      await ext.close();
    }
  });

  test('turning the option off forgets the kept pages, and the options page says so', async () => {
    const ext = await launchExtension({ history: seeded(Date.now()) });
    try {
      const options = await ext.openOptions();
      assert.match(await options.locator('label.choice', { hasText: KEEP }).textContent(), /Turning this off forgets every kept page\./);
      await switchKeep(options, true);
      const popup = await openPopup(ext);
      await waitForIndex(popup);
      await chromeForgets(popup, NARWHAL.url, 1);
      await switchKeep(options, false);
      assert.equal(await keptCount(popup), 0);
      assert.ok(!(await indexed(popup, 'narwhal')).includes(NARWHAL.url));
      const stored = await options.evaluate(() => chrome.storage.sync.get('settings'));
      assert.equal(stored.settings.keepForgotten, false);
      // What proves the reloaded popup has read its settings: it starts on the stored default period.
      await options.evaluate(async () => {
        const { settings } = await chrome.storage.sync.get('settings');
        await chrome.storage.sync.set({ settings: { ...settings, defaultPeriod: '30d' } });
      });
      await popup.reload();
      await popup.waitForFunction((sel) => document.querySelector(sel)?.value === '30d', SEL.period, { timeout: LIMIT_MS }).catch(checkedBelow);
      assert.equal(await popup.locator(SEL.period).inputValue(), '30d', 'the reloaded popup has read its settings');
      assert.deepEqual(await periodValues(popup), ['24h', '7d', '30d', '90d'], 'All time is no longer offered');
      ext.assertNoErrors();
    } finally {
      await ext.close();
    }
  });
});

describe('Chromium\'s own expiry', () => {
  /**
   * One fresh profile: the option on, the page indexed, then Chromium's expirer. Returns false,
   * having checked nothing, when the expiry came before the option was on or the page indexed (a
   * very slow start): what this test is about was then not exercised, and the caller starts again.
   */
  async function expiredAndKept() {
    const now = Date.now();
    const ext = await launchExtension({ history: [...seeded(now), { url: TRILOBITE.url, title: TRILOBITE.title, visits: [now - 120 * DAY] }] });
    try {
      const options = await ext.openOptions();
      // When Chromium's expirer removes the page, seen from an extension page.
      await options.evaluate(() => {
        window.__expiredAt = null;
        chrome.history.onVisitRemoved.addListener(() => (window.__expiredAt ??= Date.now()));
      });
      await switchKeep(options, true);
      const onAt = Date.now();
      const popup = await openPopup(ext);
      await waitForIndex(popup);
      // Indexed before Chromium expires it (the build reads the whole history at once)?
      const indexedFirst = (await indexed(popup, 'trilobite')).includes(TRILOBITE.url);
      await waitUntil(async () => !(await literalSearch(popup, '')).includes(TRILOBITE.url), 'Chromium expires the 120-day-old page', { timeout: 180_000 });
      const expiredAt = await options.evaluate(() => window.__expiredAt);
      if (!indexedFirst || expiredAt === null || expiredAt < onAt) return false;
      await waitUntil(async () => (await keptCount(popup)) === 1, 'the expired page is kept');
      await popup.reload();
      await popup.locator(SEL.search).waitFor();
      const all = await ask(popup, 'trilobite eyes', { period: 'all' });
      assertFound(all, TRILOBITE.url, 'All time');
      const row = all.results.find((r) => r.href === TRILOBITE.url);
      assert.match(row.time, /kept after Chrome forgot it/, `the row says it is kept: ${describeTurn(all)}`);
      const quarter = await ask(popup, 'trilobite eyes', { period: '90d' });
      assertNotFound(quarter, TRILOBITE.url, '3 months: it is 120 days old');
      assert.equal(await statusText(options), 'Saved: pages Chrome forgets will stay searchable.');
      ext.assertNoNetwork();
      ext.assertNoErrors();
      return true;
    } finally {
      await ext.close();
    }
  }

  test('a page older than 90 days that Chromium expires by itself: kept, found with "All time" only, and marked', async (t) => {
    // Chromium expires the page about 30 s after it starts, whatever the test does; the option and
    // the index are ready long before on this machine. Should a start be slow enough for the expiry
    // to come first, that run proves nothing and a fresh profile is tried: this test passes only
    // on a run that checked the kept page.
    const ATTEMPTS = 3;
    for (let attempt = 1; attempt <= ATTEMPTS; attempt++) {
      if (await expiredAndKept()) return;
      t.diagnostic(`run ${attempt}: Chromium expired the page before the option was on or the page indexed`);
    }
    assert.fail(`in ${ATTEMPTS} fresh profiles, Chromium expired the page before the option was on and the page indexed: the kept page was never checked`);
  });
});
