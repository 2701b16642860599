// The page reader's content script (assets/reader.js), end to end: the built extension with the
// content access granted as a user grants it (support/content_access.mjs) and the script
// registered through the worker's real chrome.scripting as the bindings register it
// (support/reader.mjs: readerRegistration), pages served at the network layer. Covered: one
// `pageRead` for a top frame, carrying the page's rendered (JS-built) HTML, never a form field's
// value or an editable region's text; the script never runs in its iframe; nothing before the
// page's `load`; an excluded site never runs it; an in-page navigation to another address is read
// again, a #fragment alone is not; a PDF in Chrome's viewer sends `pdfSeen` and nothing else.
// Negative checks wait for an event that proves the work ended: a control page's own read, or the
// isolated worlds DevTools lists. Not covered: incognito tabs (a test profile's extension is not
// allowed there; the worker checks sender.tab.incognito too).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { grantContentAccess } from './support/content_access.mjs';
import { framesRunningReader, recordReads, registerReader, serve } from './support/reader.mjs';
import { ARTICLE_FACTS, articlePage, heavyPage, textPdf, tinyPage } from './support/reader_pages.mjs';
import { LIMIT_MS, gate, waitUntil } from './support/settle.mjs';

const SITE = 'http://www.reader.test';
const BUILT_FACT = 'This paragraph was written by the page script after load';

/** An article whose text the page's script writes after `load`, with an iframe, a form and an editor. */
const builtPage = `<!doctype html><html lang="en"><head><title>App</title></head><body>
<header><nav><a href="/">Home</a></nav></header>
<main id="root"><p>Loading…</p></main>
<form><input id="search" name="q" value="default-secret-value"><input type="password" id="pw"></form>
<div id="editor" contenteditable="true"><p>x</p></div>
<iframe src="http://frame.reader.test/inner" width="300" height="100"></iframe>
<script>
addEventListener('load', () => setTimeout(() => {
  document.getElementById('root').innerHTML =
    '<article><h1>Built</h1><p>${BUILT_FACT}, from data it fetched.</p><p>${ARTICLE_FACTS[0]}.</p></article>';
}, 300));
</script>
</body></html>`;

const innerPage = '<!doctype html><html><head><title>Inner</title></head><body><p>Iframe-only text, a widget.</p></body></html>';

/** A single-page app: its router changes the address and the text without loading a document. */
const appPage = `<!doctype html><html lang="en"><head><title>App</title></head><body>
<main id="view"><article><h1>Inbox</h1><p>The first view of the application.</p></article></main>
<script>
window.show = (path, text) => {
  history.pushState({}, '', path);
  document.getElementById('view').innerHTML = '<article><h1>' + path + '</h1><p>' + text + '</p></article>';
};
</script></body></html>`;

describe('the content script', { timeout: 300_000 }, () => {
  let ext;
  let reads;
  const image = gate();

  before(async () => {
    ext = await launchExtension();
    await grantContentAccess(ext);
    await registerReader(ext, ['*://excluded.reader.test/*', '*://www.excluded.reader.test/*']);
    reads = await recordReads(ext);
    await serve(ext.context, {
      [`${SITE}/built`]: { body: builtPage },
      'http://frame.reader.test/inner': { body: innerPage },
      [`${SITE}/held`]: { body: `<!doctype html><title>Held</title><p>${ARTICLE_FACTS[1]}.</p><img src="${SITE}/slow.png">` },
      [`${SITE}/slow.png`]: { body: 'not really a picture', type: 'image/png', hold: image.opened },
      [`${SITE}/control`]: { body: tinyPage() },
      [`${SITE}/control-2`]: { body: tinyPage() },
      'http://www.excluded.reader.test/private': { body: articlePage() },
      [`${SITE}/app`]: { body: appPage },
      [`${SITE}/report.pdf`]: { body: textPdf(), type: 'application/pdf' },
      [`${SITE}/feed`]: { body: heavyPage(400).replace('<main>', '<main>Fish &amp; chips &lt;b&gt;not bold&lt;/b&gt;') },
    });
  });

  after(async () => {
    image.open();
    await ext?.close();
  });

  const readsOf = async (url) => (await reads.all()).filter((r) => r.url === url);

  test("one pageRead for the top frame, with the page's JS-built text and no form value; none in its iframe", async () => {
    const page = await ext.context.newPage();
    await page.goto(`${SITE}/built`);
    // Typed by the user while the page is open, before it is read.
    await page.fill('#search', 'typed-secret-words');
    await page.fill('#pw', 'hunter2-password');
    await page.locator('#editor').pressSequentially('draft typed into the editor');
    const [read] = await reads.waitFor((r) => r.url === `${SITE}/built`, 'the top frame read');
    assert.deepEqual(read.keys, ['html', 'type', 'url'], 'the message is { type, url, html }');
    assert.equal(read.type, 'pageRead');
    assert.equal(read.frameId, 0, 'sent from the top frame');
    assert.ok(read.html.includes(BUILT_FACT), 'the text the page built after load is in the HTML');
    assert.ok(!read.html.includes('Loading…'), 'the HTML is as the page was when read, not as it loaded');
    for (const secret of ['typed-secret-words', 'default-secret-value', 'hunter2-password', 'draft typed into the editor']) {
      assert.ok(!read.html.includes(secret), `"${secret}" is not sent`);
    }
    assert.ok(!/<script\b/i.test(read.html), 'no script is sent');

    const frames = await framesRunningReader(ext, page);
    const iframe = frames.frames.find((f) => f.url === 'http://frame.reader.test/inner');
    assert.ok(iframe, `the iframe is there: ${JSON.stringify(frames.frames)}`);
    assert.ok(frames.running.has(frames.main), 'the script runs in the top frame');
    assert.ok(!frames.running.has(iframe.id), 'the script never ran in the iframe');
    assert.deepEqual(await readsOf(`${SITE}/built`), [read], 'one message for the page');
    assert.deepEqual(await readsOf('http://frame.reader.test/inner'), [], 'none for the iframe');
    await page.close();
  });

  test('a big page (walked in slices) is sent whole, escaped as the browser serialises it, without any form control, icon or script', async () => {
    const page = await ext.context.newPage();
    await page.goto(`${SITE}/feed`);
    const elements = await page.evaluate(() => document.getElementsByTagName('*').length);
    assert.ok(elements > 4000, `a page too big for one piece: ${elements} elements`);
    const [read] = await reads.waitFor((r) => r.url === `${SITE}/feed`, 'the big page read');
    const cards = read.html.match(/<div class="card card-\d" data-id="\d+">/g) ?? [];
    assert.equal(cards.length, 400, 'every card, in one piece each');
    assert.ok(read.html.includes('post number 0</p>') && read.html.includes('post number 399</p>'));
    assert.ok(read.html.includes('Fish &amp; chips &lt;b&gt;not bold&lt;/b&gt;'), 'text escaped as outerHTML escapes it');
    for (const left of ['<input', '<svg', '<script', 'draft 1', '<style']) assert.ok(!read.html.includes(left), `no ${left}`);
    assert.ok(read.html.startsWith('<html lang="en">') && read.html.endsWith('</html>'), 'the whole document');
    await page.close();
  });

  test('nothing before load: a page whose load is held is read only after it', async () => {
    const page = await ext.context.newPage();
    await page.goto(`${SITE}/held`, { waitUntil: 'domcontentloaded' });
    // The script is in the page (its isolated world exists), and the page has not loaded.
    await waitUntil(async () => {
      const frames = await framesRunningReader(ext, page);
      return frames.running.has(frames.main);
    }, 'the content script injected in the held page');
    assert.equal(await page.evaluate(() => document.readyState), 'interactive');
    // A page opened after it, which loads at once, is read: the held one would have been by then.
    const control = await ext.context.newPage();
    await control.goto(`${SITE}/control`);
    await reads.waitFor((r) => r.url === `${SITE}/control`, 'the control page read');
    assert.deepEqual(await readsOf(`${SITE}/held`), [], 'no message before load');
    assert.equal(await page.evaluate(() => document.readyState), 'interactive', 'still not loaded');

    image.open();
    await page.waitForLoadState('load');
    const loadedAt = await page.evaluate(() => performance.timeOrigin + performance.getEntriesByType('navigation')[0].loadEventStart);
    const [read] = await reads.waitFor((r) => r.url === `${SITE}/held`, 'the held page read after its load');
    assert.ok(read.at >= loadedAt, `sent after load (${read.at - loadedAt} ms after)`);
    assert.ok(read.html.includes(ARTICLE_FACTS[1]));
    await page.close();
    await control.close();
  });

  test('an excluded site never runs the script', async () => {
    const page = await ext.context.newPage();
    await page.goto('http://www.excluded.reader.test/private');
    const control = await ext.context.newPage();
    await control.goto(`${SITE}/control-2`);
    await reads.waitFor((r) => r.url === `${SITE}/control-2`, 'the control page read');
    const frames = await framesRunningReader(ext, page);
    assert.equal(frames.running.size, 0, 'no isolated world of the extension in the excluded page');
    assert.deepEqual(await readsOf('http://www.excluded.reader.test/private'), []);
    await page.close();
    await control.close();
  });

  test('an in-page navigation to another address is read again; a #fragment alone is not', async () => {
    const page = await ext.context.newPage();
    await page.goto(`${SITE}/app`);
    const [first] = await reads.waitFor((r) => r.url === `${SITE}/app`, 'the first view read');
    assert.ok(first.html.includes('The first view of the application.'));

    await page.evaluate(() => { location.hash = 'section-2'; });
    await page.evaluate(() => window.show('/app/messages/42', 'The second view: a message about the quarterly budget.'));
    const [second] = await reads.waitFor((r) => r.url === `${SITE}/app/messages/42`, 'the second view read');
    assert.ok(second.html.includes('a message about the quarterly budget'), 'the new view is sent');
    assert.equal(second.frameId, 0);
    const all = (await reads.all()).filter((r) => r.url.startsWith(`${SITE}/app`));
    assert.deepEqual(all.map((r) => r.url), [`${SITE}/app`, `${SITE}/app/messages/42`], 'the #fragment alone was not read again');
    await page.close();
  });

  test("a PDF in Chrome's viewer sends pdfSeen, with its address alone", async () => {
    const page = await ext.context.newPage();
    await page.goto(`${SITE}/report.pdf`);
    const [seen] = await reads.waitFor((r) => r.url === `${SITE}/report.pdf`, 'the PDF seen', { timeout: LIMIT_MS });
    assert.equal(seen.type, 'pdfSeen');
    assert.deepEqual(seen.keys, ['type', 'url']);
    assert.equal(seen.frameId, 0);
    assert.deepEqual(await readsOf(`${SITE}/report.pdf`), [seen], 'once');
    await page.close();
  });
});
