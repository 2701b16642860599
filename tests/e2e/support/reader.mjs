// The page reader's kit for end-to-end tests: its pieces driven as the worker will drive them,
// through the code the build ships.
//
//   await grantContentAccess(ext);                 // content_access.mjs
//   await registerReader(ext, ['*://excluded.test/*']);
//   const reads = await recordReads(ext);          // every pageRead / pdfSeen the worker receives
//   await serve(ext.context, { 'http://www.reader.test/a': { body: articlePage() } });
//   const page = await ext.context.newPage(); await page.goto('http://www.reader.test/a');
//   const [read] = await reads.waitFor((r) => r.url === 'http://www.reader.test/a');
//   const reader = await offscreenReader(ext);     // the shipped src/offscreen.js, in the worker
//   const answer = await reader.html(read.url, read.html);   // { title, text, lang, words } or { error, message }
import { readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { LIMIT_MS, waitUntil } from './settle.mjs';

/** The registration the bindings make (crates/history-chat-bindings/src/scripting.rs, `Registration::reader`). */
export function readerRegistration(excludeMatches = []) {
  return {
    id: 'reader',
    js: ['reader.js'],
    matches: ['http://*/*', 'https://*/*'],
    excludeMatches,
    runAt: 'document_idle',
    allFrames: false,
    persistAcrossSessions: true,
    world: 'ISOLATED',
  };
}

/** Registers the reader's content script through the extension worker's real chrome.scripting. */
export async function registerReader(ext, excludeMatches = []) {
  await ext.serviceWorker.evaluate((registration) => chrome.scripting.registerContentScripts([registration]), readerRegistration(excludeMatches));
}

/**
 * Records, in the worker, every message of the content script (`pageRead`, `pdfSeen`) with its
 * sender (tab, frame) and the time it came (Date.now()). The worker must stay up meanwhile (a test
 * with Playwright attached keeps it); a restart is reported rather than missed.
 */
export async function recordReads(ext) {
  await ext.serviceWorker.evaluate(() => {
    if (globalThis.__hcReads) return;
    const reads = (globalThis.__hcReads = []);
    chrome.runtime.onMessage.addListener((message, sender) => {
      if (message?.type === 'pageRead' || message?.type === 'pdfSeen') {
        reads.push({
          type: message.type,
          url: message.url,
          html: message.html,
          keys: Object.keys(message).sort(),
          tabId: sender.tab?.id ?? null,
          frameId: sender.frameId ?? null,
          incognito: sender.tab?.incognito ?? null,
          at: Date.now(),
        });
      }
      return false; // the worker's own listener answers
    });
  });
  const all = async () => {
    const got = await ext.serviceWorker.evaluate(() => globalThis.__hcReads ?? null);
    if (!got) throw new Error('the worker restarted: its recorder of the content script messages is gone');
    return got;
  };
  return {
    all,
    /** Waits until some recorded message satisfies `predicate`; returns those that do. */
    async waitFor(predicate, what = 'a message of the content script', { timeout = LIMIT_MS } = {}) {
      let seen = [];
      await waitUntil(async () => (seen = (await all()).filter(predicate)).length > 0, what, {
        timeout,
        describe: () => `recorded: ${JSON.stringify(seen)}`,
      });
      return seen;
    },
  };
}

/**
 * Serves pages to the browser at the network layer: `routes` maps an exact URL to
 * `{ body, type = 'text/html; charset=utf-8', status = 200, hold }` (`hold`: a promise the answer
 * waits for). Any other http(s) request is answered 404, so nothing leaves the machine.
 */
export async function serve(context, routes) {
  await context.route(/^https?:\/\//, async (route) => {
    const url = route.request().url();
    const page = routes[url];
    if (!page) return route.fulfill({ status: 404, contentType: 'text/plain', body: 'not here' });
    if (page.hold) await page.hold;
    return route.fulfill({ status: page.status ?? 200, contentType: page.type ?? 'text/html; charset=utf-8', body: page.body });
  });
}

/** The shipped bindings' offscreen.js (dist/pkg/snippets/history-chat-bindings-*\/src/offscreen.js). */
function offscreenSource(dist) {
  const snippets = path.join(dist, 'pkg', 'snippets');
  for (const crate of readdirSync(snippets)) {
    if (!crate.startsWith('history-chat-bindings-')) continue;
    const file = path.join(snippets, crate, 'src', 'offscreen.js');
    try {
      return readFileSync(file, 'utf8');
    } catch {
      // Another build's folder: look further.
    }
  }
  throw new Error(`no offscreen.js among ${snippets}'s bindings snippets: build dist/ again (scripts/build)`);
}

/**
 * The offscreen document's reader, asked from the extension's worker through the very module the
 * bindings ship (src/offscreen.js: its one creation path of the document, reasons WORKERS and
 * DOM_PARSER, and `readerAsk`), as `reader::extract_html` / `extract_pdf` call it. A service
 * worker cannot import() a module, so its text is evaluated there (DevTools, not the page's CSP).
 */
export async function offscreenReader(ext) {
  const code = offscreenSource(ext.dist).replace(/^export /gm, '');
  const install = `globalThis.__hcOffscreen ??= (() => {\n${code}\nreturn { offscreenEnsure, readerAsk, embedderClose };\n})(); true`;
  const ensure = async () => {
    const installed = await ext.serviceWorker.evaluate(() => Boolean(globalThis.__hcOffscreen));
    if (!installed) await ext.serviceWorker.evaluate(install);
  };
  const ask = async (kind, url, html = '') => {
    await ensure();
    return ext.serviceWorker.evaluate(([kind, url, html]) => globalThis.__hcOffscreen.readerAsk(kind, url, html, 45_000), [kind, url, html]);
  };
  return {
    html: (url, html) => ask('html', url, html),
    pdf: (url) => ask('pdf', url),
    url: (url) => ask('url', url),
    async close() {
      await ensure();
      await ext.serviceWorker.evaluate(() => globalThis.__hcOffscreen.embedderClose());
    },
  };
}

/**
 * Which frames of `page` run the extension's content script: those holding an isolated world of
 * the extension (DevTools' execution contexts; same-process frames only).
 * @returns {Promise<{main: string, frames: Array<{id: string, url: string}>, running: Set<string>}>}
 */
export async function framesRunningReader(ext, page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const running = new Set();
    cdp.on('Runtime.executionContextCreated', ({ context }) => {
      if (context.auxData?.type === 'isolated' && context.origin === `chrome-extension://${ext.extensionId}`) running.add(context.auxData.frameId);
    });
    await cdp.send('Runtime.enable'); // reports every context that exists before it answers
    await cdp.send('Runtime.disable');
    const { frameTree } = await cdp.send('Page.getFrameTree');
    const frames = [];
    const walk = (tree) => {
      frames.push({ id: tree.frame.id, url: tree.frame.url });
      for (const child of tree.childFrames ?? []) walk(child);
    };
    walk(frameTree);
    return { main: frameTree.frame.id, frames, running };
  } finally {
    // Cleanup only: a session already gone with its page has nothing to detach, and the frames
    // were read above.
    await cdp.detach().catch(() => {});
  }
}

/**
 * A web server on this machine (127.0.0.1, a free port) for what the offscreen document fetches
 * itself (a PDF): Playwright's routing does not see that document's requests. `routes` maps a
 * path to `{ body, type, status, hold }` as for `serve`; every request is recorded with its headers.
 * @returns {Promise<{origin: string, requests: Array<{path: string, headers: object}>, close: () => Promise<void>}>}
 */
export async function localServer(routes) {
  const { createServer } = await import('node:http');
  const requests = [];
  const server = createServer(async (request, response) => {
    requests.push({ path: request.url, headers: request.headers });
    const page = routes[request.url];
    if (!page) {
      response.writeHead(404, { 'content-type': 'text/plain' }).end('not here');
      return;
    }
    if (page.hold) await page.hold;
    response.writeHead(page.status ?? 200, { 'content-type': page.type ?? 'text/html; charset=utf-8' }).end(page.body);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
