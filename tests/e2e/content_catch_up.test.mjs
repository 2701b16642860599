// The catch-up (Options → "Read the pages of the last 7 / 30 days"), end to end: pages visited
// before content search was on, downloaded again from their sites by the real extension (its
// offscreen document's fetch, through Chromium's own network stack), read, kept, and found by what
// they said. The sites are the content evaluation's, served by support/content_site.mjs at their
// real-looking addresses (HTTPS, --host-resolver-rules); its log is the record of what was asked.
// Covered: the plan names the pages and sites the run will ask (the excluded site and pages past
// the period left out); the run asks exactly those, without cookies, at most two at a time; each
// page ends read (or skipped: a shell its script fills says nothing without it) and is found by a fact deep in its text; a cancelled run
// asks nothing more once its downloads out have ended.
import { after, afterEach, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { grantContentAccess } from './support/content_access.mjs';
import { contentHistory, contentPages, startContentSite } from './support/content_site.mjs';
import { ask, hrefs, openPopup } from './support/popup.mjs';
import { flushEvents } from './support/settle.mjs';
import { catchUpOver, turnReadingOn } from './support/catch_up.mjs';

const EXCLUDED = 'www.saltandsimmer.com';
const IDS = [
  // In the last 7 days: asked.
  'qs-rate-limits', 'qs-api-keys', 'nw-expenses', 'nw-vpn', 'nw-office-move',
  // Of the excluded site: never asked.
  'ss-sourdough', 'ss-banana-bread',
  // Visited 8 to 13 days ago: in a 30-day run only.
  'qs-idempotency', 'qs-errors', 'nw-phishing', 'nw-parental-leave',
];

describe('the catch-up: pages visited before, read again from their sites', { timeout: 600_000 }, () => {
  let site;
  let ext;
  let popup;
  const byId = new Map(contentPages().map((page) => [page.id, page]));
  const pages = IDS.map((id) => byId.get(id));
  const within = (days) => pages.filter((p) => p.host !== EXCLUDED && p.visitOffsetMin < days * 1440);

  const send = (message) => popup.evaluate((message) => chrome.runtime.sendMessage(message), message);
  before(async () => {
    site = await startContentSite({ pages });
    ext = await launchExtension({ history: contentHistory(pages), args: site.browserArgs });
    await grantContentAccess(ext);
    popup = await openPopup(ext);
    await turnReadingOn(popup, { excludedSites: [EXCLUDED] });
  });

  after(async () => {
    await ext?.close();
    await site?.close();
  });
  afterEach(async () => {
    await flushEvents(ext);
    ext.assertNoErrors();
  });

  test('the plan names the pages and sites of the period, the excluded site left out', async () => {
    const { catchUpPlanned: { plan } } = await send({ type: 'catchUpPlan', reach: { days: 7 } });
    const expected = within(7);
    assert.deepEqual(plan.reach, { days: 7 });
    assert.equal(plan.pages, expected.length, JSON.stringify(plan));
    const hosts = Object.fromEntries(plan.sites);
    assert.equal(hosts[EXCLUDED], undefined, 'the excluded site is not named');
    for (const host of new Set(expected.map((p) => p.host))) {
      assert.equal(hosts[host], expected.filter((p) => p.host === host).length, `${host}'s pages counted`);
    }
    assert.equal(site.requests.length, 0, 'a plan asks nothing of the sites');
  });

  test('the run asks exactly those pages, without cookies, at most two at a time, and they are found by what they said', async () => {
    await send({ type: 'catchUp', reach: { days: 7 } });
    const state = await catchUpOver(popup, 'the 7-day catch-up over');
    const expected = within(7);
    assert.equal(state.catchUp.total, expected.length);
    assert.equal(state.catchUp.read + state.catchUp.skipped + state.catchUp.failed, expected.length, 'every page done');
    assert.equal(state.catchUp.failed, 0, JSON.stringify(state.catchUp));
    assert.deepEqual(
      site.requests.map((r) => `${r.host}${r.path}`).sort(),
      expected.map((p) => `${p.host}${p.path}`).sort(),
      'each planned page asked once, nothing else (no excluded site, no stylesheet, no script)',
    );
    assert.ok(site.requests.every((r) => r.cookie === null), 'no cookie sent');
    assert.ok(Math.max(...site.requests.map((r) => r.atOnce)) <= 2, `at most two at a time: ${site.requests.map((r) => r.atOnce)}`);
    // A page its site sends as a shell its script fills has nothing to read without the script.
    const written = expected.filter((p) => p.render !== 'script');
    assert.equal(state.catchUp.read, written.length, `the pages the site sends written are read: ${JSON.stringify(state.catchUp)}`);
    assert.equal(state.catchUp.skipped, expected.length - written.length, 'the script-built shells are skipped');
    assert.equal(state.progress.pages, written.length, 'every page read is kept');

    const turn = await ask(popup, 'how many exports can a workspace have in progress at once');
    const rateLimits = byId.get('qs-rate-limits').url;
    assert.ok(hrefs(turn).slice(0, 5).includes(rateLimits), `a fact deep in a page read again finds it: ${JSON.stringify(hrefs(turn))}`);
  });

  test('a cancelled run asks nothing more once the downloads it had out have ended', async () => {
    const before = site.requests.length;
    const { catchUpPlanned: { plan } } = await send({ type: 'catchUpPlan', reach: { days: 30 } });
    const readAlready = new Set(within(7).filter((p) => p.render !== 'script'));
    assert.equal(plan.pages, within(30).filter((p) => !readAlready.has(p)).length, 'the pages read already are not planned again');
    await send({ type: 'catchUp', reach: { days: 30 } });
    await send({ type: 'cancelCatchUp' });
    const state = await catchUpOver(popup, 'the cancelled run over');
    const asked = site.requests.length - before;
    assert.ok(asked <= 2, `at most the two downloads out when it was cancelled: ${asked}`);
    assert.equal(state.catchUp.read + state.catchUp.skipped + state.catchUp.failed, asked, 'each download out ended and was counted');
    assert.ok(state.catchUp.total > asked, 'the rest was never asked');
  });
});
