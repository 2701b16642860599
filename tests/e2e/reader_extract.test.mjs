// The page reader's extraction in the offscreen document, end to end in the built extension: the
// shipped src/offscreen.js run in the extension's worker (support/reader.mjs: offscreenReader), as
// the bindings' reader::extract_html / extract_pdf call it, creating the one offscreen document
// (embedder.html: the model's relay and extractor.js) and asking it. Covered: a realistic article
// keeps its words and loses the navigation, the cookie banner, the sidebar and the footer, with its
// blocks as lines; a French page and its language; a tiny page (few words); form controls and
// editable regions never reach the text; a PDF with a text layer (every page, its title and
// language), fetched once, without the browser's cookies; a scan (no text layer) answers no-text;
// an address that is no PDF, or answers 404; a close of the document asked while a PDF is read
// waits for it. PDFs come from a server on 127.0.0.1: Playwright's routing does not see the
// offscreen document's requests, and the server sees every one.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { grantContentAccess } from './support/content_access.mjs';
import { localServer, offscreenReader } from './support/reader.mjs';
import { ARTICLE_FACTS, BOILERPLATE, FRENCH_FACTS, PDF_PAGES, articlePage, frenchPage, scanPdf, textPdf, tinyPage } from './support/reader_pages.mjs';
import { gate } from './support/settle.mjs';

const words = (text) => text.split(/\s+/).filter(Boolean).length;

function assertNoBoilerplate(text) {
  for (const [part, boilerplate] of Object.entries(BOILERPLATE)) {
    for (const word of boilerplate.split(' ')) assert.ok(!text.includes(word), `the ${part}'s "${word}" is not in the text:\n${text}`);
  }
}

describe('the offscreen reader', { timeout: 240_000 }, () => {
  let ext;
  let reader;
  let server;
  const held = gate();

  before(async () => {
    server = await localServer({
      '/report.pdf': { body: textPdf(), type: 'application/pdf' },
      '/scan.pdf': { body: scanPdf(), type: 'application/pdf' },
      '/login.pdf': { body: '<!doctype html><title>Sign in</title><form><input name="user"></form>' },
      '/slow.pdf': { body: textPdf(), type: 'application/pdf', hold: held.opened },
    });
    ext = await launchExtension();
    // The PDF is fetched with the content access the user grants (every http(s) host).
    await grantContentAccess(ext);
    await ext.context.addCookies([{ name: 'session', value: 'secret-session', url: server.origin }]);
    reader = await offscreenReader(ext);
  });

  after(async () => {
    held.open();
    await ext?.close();
    await server?.close();
  });

  test('an article: its words in, the navigation, cookie banner, sidebar and footer out, a block a line', async () => {
    const answer = await reader.html('https://www.example.test/2025/a81f3', articlePage());
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    for (const fact of ARTICLE_FACTS) assert.ok(answer.text.includes(fact), `"${fact}" is in the text:\n${answer.text}`);
    assertNoBoilerplate(answer.text);
    assert.ok(!answer.text.includes('typed search words'), 'no form field value');
    const lines = answer.text.split('\n');
    assert.ok(lines.includes('What to do this autumn'), `a heading is a line of its own: ${JSON.stringify(lines)}`);
    assert.ok(lines.includes('Test the soil before planting.'), 'a list item is a line of its own');
    assert.ok(lines.every((line) => line === line.trim() && !/\s{2}/.test(line)), 'whitespace is collapsed in each line');
    assert.equal(answer.lang, 'en');
    assert.equal(answer.title, 'Notes', "the page's title");
    assert.ok(Math.abs(answer.words - words(answer.text)) <= 10, `words counts the text's words: ${answer.words} vs ${words(answer.text)}`);
    assert.ok(answer.words > 250 && answer.words < 320, `the article's words, not the page's: ${answer.words}`);
  });

  test('a French page: its text and its language', async () => {
    const answer = await reader.html('https://atelier.example.test/p/9912', frenchPage());
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    for (const fact of FRENCH_FACTS) assert.ok(answer.text.includes(fact), `"${fact}" is in the text:\n${answer.text}`);
    assert.ok(answer.text.startsWith('Réparer une crevaison'), answer.text.slice(0, 80));
    assertNoBoilerplate(answer.text);
    assert.equal(answer.lang, 'fr');
    assert.ok(answer.words > 120 && answer.words < 200, `${answer.words} words`);
  });

  test('a tiny page: a few words', async () => {
    const answer = await reader.html('https://dash.example.test/', tinyPage());
    assert.deepEqual(answer, { title: 'Dashboard', text: 'Back soon.', lang: 'en', words: 2 });
  });

  test('form controls and editable regions never reach the text', async () => {
    const html = articlePage().replace('<h2>What to do this autumn</h2>', `
      <textarea name="comment">my unsent comment about the neighbours</textarea>
      <select name="size"><option>Extra large shrubs only</option></select>
      <div contenteditable="true"><p>a draft reply typed into an editor</p></div>
      <input type="password" value="hunter2-password">
      <h2>What to do this autumn</h2>`);
    const answer = await reader.html('https://www.example.test/2025/a81f3', html);
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    for (const secret of ['unsent comment', 'Extra large shrubs', 'draft reply', 'hunter2']) {
      assert.ok(!answer.text.includes(secret), `"${secret}" is not in the text`);
    }
    assert.ok(answer.text.includes(ARTICLE_FACTS[2]), 'the article is still read');
  });

  test("a PDF with a text layer: every page's text, its title and language; fetched once, without cookies", async () => {
    const before = server.requests.length;
    const answer = await reader.pdf(`${server.origin}/report.pdf`);
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.deepEqual(answer.text.split('\n'), PDF_PAGES.flat(), 'each line of each page, in order');
    assert.equal(answer.title, 'Cooperative report 2025');
    assert.equal(answer.lang, 'en-GB');
    assert.equal(answer.words, words(PDF_PAGES.flat().join(' ')));
    const made = server.requests.slice(before);
    assert.deepEqual(made.map((r) => r.path), ['/report.pdf'], 'one request, to the PDF');
    assert.equal(made[0].headers.cookie, undefined, 'no cookie sent');
    assert.equal(made[0].headers.referer, undefined, 'no referrer sent');
  });

  test('a scan (no text layer) answers no-text', async () => {
    const answer = await reader.pdf(`${server.origin}/scan.pdf`);
    assert.equal(answer.error, 'no-text', JSON.stringify(answer));
  });

  test('an address that gives no PDF: not-pdf; one that answers 404: unreachable', async () => {
    assert.equal((await reader.pdf(`${server.origin}/login.pdf`)).error, 'not-pdf');
    const missing = await reader.pdf(`${server.origin}/gone.pdf`);
    assert.deepEqual(missing, { error: 'unreachable', message: 'HTTP 404' });
    assert.equal((await reader.pdf('file:///etc/passwd')).error, 'bad-request');
  });

  test('one offscreen document, made by the shared path; a close asked while a PDF is read waits for it', async () => {
    const contexts = () => ext.serviceWorker.evaluate(async () =>
      (await chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] })).map((c) => new URL(c.documentUrl).pathname));
    assert.deepEqual(await contexts(), ['/embedder.html']);
    const asked = server.requests.length;
    const reading = reader.pdf(`${server.origin}/slow.pdf`);
    // The request has reached the server (the reading is under way) before the close is asked.
    while (server.requests.length === asked) await new Promise((resolve) => setTimeout(resolve, 20));
    await reader.close();
    assert.deepEqual(await contexts(), ['/embedder.html'], 'still open while the PDF is read');
    held.open();
    const answer = await reading;
    assert.equal(answer.error, undefined, JSON.stringify(answer));
    assert.deepEqual(answer.text.split('\n'), PDF_PAGES.flat());
    assert.deepEqual(await contexts(), [], 'closed once the reading is over');
    ext.assertNoErrors();
  });
});
