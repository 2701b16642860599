// Self-test of the content evaluation's site (support/content_site.mjs): every page of
// tests/content_eval/ is served at its address through --host-resolver-rules and the real network
// stack, a visit lands in chrome.history with the page's (uninformative) title, script-built pages
// are built, and nothing else is requested: no other file of the sites, no other host, nothing by
// the extension.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { startContentSite, visitAll } from './support/content_site.mjs';
import { waitUntil } from './support/settle.mjs';

let site;
let ext;
let visits;

before(async () => {
  site = await startContentSite();
  ext = await launchExtension({ args: site.browserArgs });
  // Script-built pages: the body is there once `load` has fired (the host's script runs before it).
  visits = await visitAll(ext, site.pages, {
    concurrency: 4,
    onLoaded: async (tab, page) => {
      if (page.render === 'script') page.built = await tab.evaluate(() => document.querySelector('#app[aria-busy="false"]')?.innerText.length ?? 0);
    },
  });
});

after(async () => {
  await ext?.close();
  await site?.close();
});

test('the set has pages on at least 8 hosts, in English and French, a third of them French', () => {
  assert.ok(site.hosts.length >= 8, `hosts: ${site.hosts.join(', ')}`);
  const french = site.pages.filter((p) => p.lang === 'fr').length;
  assert.ok(french * 3 >= site.pages.length, `${french} French pages of ${site.pages.length}`);
});

test('every page is served at its address, with its title, without a redirect', () => {
  for (const [i, page] of site.pages.entries()) {
    const v = visits[i];
    assert.equal(v.status, 200, `${page.id}: status`);
    assert.equal(v.finalUrl, page.url, `${page.id}: the tab ended at another address`);
    assert.equal(v.title, page.title, `${page.id}: the tab's title`);
  }
});

test('pages built by their host\'s script are built by the time of `load`', () => {
  const scripted = site.pages.filter((p) => p.render === 'script');
  assert.ok(scripted.length > 0, 'some pages are built by a script');
  for (const page of scripted) assert.ok(page.built > 100, `${page.id}: the script built ${page.built} characters of text`);
});

test('the visits land in chrome.history with the pages\' titles', async () => {
  const helper = await ext.openPage('manifest.json');
  try {
    const read = () => helper.evaluate(async () => {
      const items = await chrome.history.search({ text: '', startTime: 0, maxResults: 100000 });
      return Object.fromEntries(items.map((i) => [i.url, i.title]));
    });
    let seen = {};
    await waitUntil(async () => {
      seen = await read();
      return site.pages.every((p) => seen[p.url] === p.title);
    }, 'every page in chrome.history with its title', {
      describe: () => JSON.stringify(site.pages.filter((p) => seen[p.url] !== p.title).map((p) => [p.url, seen[p.url] ?? null]).slice(0, 10)),
    });
    const ours = Object.keys(seen).filter((u) => !u.startsWith('chrome-extension://'));
    assert.deepEqual(ours.sort(), site.pages.map((p) => p.url).sort(), 'nothing but the pages in the history');
    const uninformative = site.pages.filter((p) => !p.informative);
    assert.ok(uninformative.length >= site.pages.length * 0.85, 'most titles say nothing of the page');
  } finally {
    await helper.close();
  }
});

test('nothing else is requested: each page asks only for its own files, no other host is reached, the extension asks nothing', () => {
  assert.deepEqual(site.unexpected(), [], 'requests the site had no file for');
  const asked = site.requests.map((r) => `${r.host}${r.path}`);
  const expected = new Set(site.pages.flatMap((p) => site.expectedPaths(p).map((x) => `${p.host}${x}`)));
  assert.deepEqual(asked.filter((a) => !expected.has(a)), [], 'requests outside the pages and their files');
  for (const page of site.pages) assert.equal(asked.filter((a) => a === `${page.host}${page.path}`).length, 1, `${page.id}: asked once`);
  // What the browser itself sent, from tabs and the extension alike: only the sites' addresses.
  const elsewhere = ext.requests.filter((r) => !site.hosts.includes(new URL(r.url).host) && !r.url.startsWith('data:'));
  assert.deepEqual(elsewhere, [], 'requests to other hosts');
  ext.assertNoNetwork();
  ext.assertNoErrors();
});
