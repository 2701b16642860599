// Opening a result: click or Enter opens it in a new tab (chrome.tabs.create), http(s) only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { demoHistory } from './support/fixtures.mjs';
import { SEL, ask, describeTurn, openPopup } from './support/popup.mjs';
import { LIMIT_MS, flushEvents, checkedBelow } from './support/settle.mjs';

let ext;
const served = [];

before(async () => {
  ext = await launchExtension({ history: demoHistory() });
  // The opened tabs must not reach the real network: answer every web request locally.
  await ext.context.route(/^https?:\/\//, (route) => {
    served.push(route.request().url());
    return route.fulfill({ status: 200, contentType: 'text/html', body: '<!doctype html><title>stub</title><p>stub page</p>' });
  });
});

after(async () => {
  await ext?.close();
});

async function expectNewTab(popup, action, href) {
  const [tab] = await Promise.all([ext.context.waitForEvent('page', { timeout: LIMIT_MS }), action()]);
  // The new tab may first show chrome-error:// (its first navigation can start before Playwright
  // attaches its routing), then loads the stubbed page: wait for the expected URL.
  await tab.waitForURL(href, { timeout: LIMIT_MS }).catch(checkedBelow);
  assert.equal(tab.url(), href, 'the new tab shows the cleaned result URL');
  assert.ok(!popup.isClosed(), 'the popup page itself did not navigate away');
  assert.ok(popup.url().startsWith(ext.url('popup.html')), `the popup stays on popup.html, is at ${popup.url()}`);
  await tab.close();
}

test('clicking a result opens it in a new tab', async () => {
  const popup = await openPopup(ext);
  const turn = await ask(popup, 'flatMap');
  assert.ok(turn.results.length > 0, describeTurn(turn));
  const link = popup.locator(SEL.turn).first().locator('li a').first();
  await expectNewTab(popup, () => link.click(), turn.results[0].href);
  await popup.close();
});

test('Enter on a focused result opens it in a new tab', async () => {
  const popup = await openPopup(ext);
  const turn = await ask(popup, 'intersectionobserver');
  assert.ok(turn.results.length > 0, describeTurn(turn));
  const link = popup.locator(SEL.turn).first().locator('li a').first();
  await link.focus();
  await expectNewTab(popup, () => popup.keyboard.press('Enter'), turn.results[0].href);
  await popup.close();
});

test('"Options" in the popup opens the options page', async () => {
  const popup = await openPopup(ext);
  const control = popup.getByRole('link', { name: 'Options', exact: true }).or(popup.getByRole('button', { name: 'Options', exact: true }));
  const [tab] = await Promise.all([ext.context.waitForEvent('page', { timeout: LIMIT_MS }), control.click()]);
  await tab.waitForURL(ext.url('options.html'), { timeout: LIMIT_MS }).catch(checkedBelow);
  assert.equal(tab.url(), ext.url('options.html'), 'a new tab with the options page');
  await tab.locator('select[aria-label="Default period"]').waitFor({ timeout: LIMIT_MS });
  await flushEvents(ext, popup, tab);
  await tab.close();
  await popup.close();
  ext.assertNoErrors();
});
