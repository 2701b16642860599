// Self-test of the e2e harness, against a tiny throwaway MV3 extension generated here (not the
// real one): proves that seeded history is what chrome.history.search sees (including startTime
// filtering on past visit times, and 20,000 entries), and that requests made by an extension page
// AND by the extension's service worker are recorded.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchExtension } from './support/launch.mjs';
import { DAY, demoHistory, largeHistory, TEN_DAYS_AGO_PAGE, CTE_ARTICLE } from './support/fixtures.mjs';
import { waitUntil } from './support/settle.mjs';

let dist;

before(async () => {
  dist = await mkdtemp(path.join(tmpdir(), 'history-chat-probe-ext-'));
  await writeFile(path.join(dist, 'manifest.json'), JSON.stringify({
    manifest_version: 3,
    name: 'History Chat harness probe',
    version: '0.0.1',
    permissions: ['history', 'storage'],
    host_permissions: ['http://127.0.0.1/*'],
    background: { service_worker: 'sw.js', type: 'module' },
  }));
  await writeFile(path.join(dist, 'sw.js'), `
    chrome.runtime.onMessage.addListener((msg, _sender, reply) => {
      if (msg.kind === 'error') { console.error('probe worker error'); reply('logged'); return; }
      if (msg.kind === 'throw') { setTimeout(() => { throw new Error('probe worker uncaught'); }); reply('thrown'); return; }
      // Answered after the tasks queued before it (a 'throw' above): its log comes after their errors.
      if (msg.kind === 'mark') { setTimeout(() => { console.log('probe worker mark'); reply('marked'); }); return true; }
      if (msg.kind === 'fetch') { fetch(msg.url).then(r => reply('status ' + r.status), e => reply('error ' + e)); return true; }
    });`);
  await writeFile(path.join(dist, 'page.html'), '<!doctype html><meta charset="utf-8"><title>probe</title><script type="module" src="page.js"></script>');
  await writeFile(path.join(dist, 'page.js'), 'console.log("probe page loaded");');
});

after(async () => {
  if (dist) await rm(dist, { recursive: true, force: true });
});

async function historySearch(page, query) {
  return page.evaluate((q) => chrome.history.search(q), query);
}

test('seeded history is visible to chrome.history.search, with visit-time filtering', async () => {
  const now = Date.now();
  const ext = await launchExtension({ dist, history: demoHistory(now) });
  try {
    const page = await ext.openPage('page.html');
    const thirty = await historySearch(page, { text: TEN_DAYS_AGO_PAGE.query, startTime: now - 30 * DAY, maxResults: 0 });
    assert.deepEqual(thirty.map((r) => r.url), [TEN_DAYS_AGO_PAGE.url], 'page visited 10 days ago should be found with startTime 30 days ago');
    assert.equal(thirty[0].title, TEN_DAYS_AGO_PAGE.title);
    assert.ok(Math.abs(thirty[0].lastVisitTime - (now - 10 * DAY)) < 2, `lastVisitTime ${thirty[0].lastVisitTime} should be ${now - 10 * DAY}`);
    const seven = await historySearch(page, { text: TEN_DAYS_AGO_PAGE.query, startTime: now - 7 * DAY, maxResults: 0 });
    assert.deepEqual(seven, [], 'page visited 10 days ago must not be found with startTime 7 days ago');
    const cte = await historySearch(page, { text: 'recursive cte', startTime: now - 30 * DAY, maxResults: 0 });
    for (const raw of CTE_ARTICLE.rawUrls) assert.ok(cte.some((r) => r.url === raw), `raw variant ${raw} should be in history; got ${cte.map((r) => r.url).join(', ')}`);
    const accents = await historySearch(page, { text: 'cathédrale', startTime: now - 30 * DAY, maxResults: 0 });
    assert.equal(accents.length, 1, 'accented title should be searchable');
  } finally {
    await ext.close();
  }
});

test('20,000 seeded entries are all visible', async () => {
  const now = Date.now();
  const entries = largeHistory(20_000, now);
  const ext = await launchExtension({ dist, history: entries });
  try {
    const page = await ext.openPage('page.html');
    const all = await historySearch(page, { text: '', startTime: 0, maxResults: 0 });
    // Opening page.html in a tab adds that chrome-extension:// page to history too.
    assert.equal(all.filter((r) => r.url.startsWith('https://')).length, 20_000);
  } finally {
    await ext.close();
  }
});

test('requests from an extension page and from the service worker are both recorded', async () => {
  const ext = await launchExtension({ dist });
  try {
    assert.equal(ext.extensionRequests().length, 0);
    ext.assertNoNetwork();
    const page = await ext.openPage('page.html');
    // From the page.
    await page.evaluate(() => fetch('http://127.0.0.1:9/from-page').catch(() => 'failed'));
    // From the service worker (port 9 is closed: the request is still made, then fails).
    const swResult = await page.evaluate(() => chrome.runtime.sendMessage({ kind: 'fetch', url: 'http://127.0.0.1:9/from-worker' }));
    assert.match(swResult, /^error|^status/);
    // The harness hears of a request asynchronously: wait until it has heard of both.
    const recorded = () => ext.extensionRequests().map((r) => `${r.url} <- ${r.source}`);
    await waitUntil(() => recorded().length >= 2, 'both requests recorded', { describe: () => JSON.stringify(recorded()) });
    const urls = recorded();
    assert.ok(urls.some((u) => u.startsWith('http://127.0.0.1:9/from-page <- page chrome-extension://')), `page fetch not recorded: ${JSON.stringify(urls)}`);
    assert.ok(urls.some((u) => u.startsWith('http://127.0.0.1:9/from-worker <- service worker chrome-extension://')), `worker fetch not recorded: ${JSON.stringify(urls)}`);
    assert.throws(() => ext.assertNoNetwork(), /Expected zero network requests from the extension, got 2/);
  } finally {
    await ext.close();
  }
});

test('console errors and uncaught errors in extension pages and the worker are collected', async () => {
  const ext = await launchExtension({ dist });
  try {
    const page = await ext.openPage('page.html');
    // Each source logs a mark after its errors (a task queued after the one that throws); events of
    // one source arrive in order, so once both marks are recorded every error before them is too.
    await page.evaluate(() => {
      console.error('probe console error');
      setTimeout(() => { throw new Error('probe uncaught'); });
      setTimeout(() => console.log('probe page mark'));
    });
    await page.evaluate(() => chrome.runtime.sendMessage({ kind: 'error' }));
    await page.evaluate(() => chrome.runtime.sendMessage({ kind: 'throw' }));
    assert.equal(await page.evaluate(() => chrome.runtime.sendMessage({ kind: 'mark' })), 'marked');
    const marks = () => ext.consoleMessages.filter((m) => /^probe (page|worker) mark$/.test(m.text)).length;
    await waitUntil(() => marks() === 2, 'the page\'s and the worker\'s marks recorded', { describe: () => JSON.stringify(ext.consoleMessages) });
    assert.throws(() => ext.assertNoErrors(), /probe console error[\s\S]*probe uncaught/);
    assert.throws(() => ext.assertNoErrors(), /console\.error in chrome-extension:\/\/[a-p]{32}\/sw\.js: probe worker error/);
    assert.throws(() => ext.assertNoErrors(), /sw\.js: uncaught error: Uncaught Error: probe worker uncaught/);
    assert.equal(ext.errors.length, 4, `each error recorded once: ${JSON.stringify(ext.errors, null, 1)}`);
  } finally {
    await ext.close();
  }
});
