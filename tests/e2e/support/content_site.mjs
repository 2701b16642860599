// The content evaluation's pages (tests/content_eval/) served at their real-looking addresses to a
// browser launched by launchExtension, and visited as a user visits them.
//
//   const site = await startContentSite();
//   const ext = await launchExtension({ args: site.browserArgs });
//   await visitAll(ext, site.pages, { concurrency: 4 });
//   site.unexpected();   // requests the site could not answer with one of the pages' files
//   await ext.close(); await site.close();
//
// How: one HTTPS server on 127.0.0.1 (a free port) answers for every host of the set, and
// Chromium's --host-resolver-rules maps each host to it ("MAP <host> 127.0.0.1:<port>"), then
// every other name to nothing ("MAP * ~NOTFOUND"), so that a page or the extension reaching for any
// other host fails at once instead of going out. Everything of the browser goes through its own
// network stack as for a real site: tabs, the extension's worker and its offscreen document alike
// (the catch-up action of issue 29 fetches pages again from the worker, which context.route would
// not see), and the server's log is the one record of what was asked of the sites.
//
// Why HTTPS: the addresses are https:// as on the real web, so the pages are read as the content
// script reads most pages (the https://*/* permission, a secure context), and no http:// address
// meets Chromium's HTTPS upgrade (which would first try port 443 of the same mapping). The
// certificate is self-signed, made here with openssl for the set's hosts, and Chromium accepts it
// through --ignore-certificate-errors-spki-list (the hash of its public key): that one certificate
// is trusted, every other certificate is still checked.
import { execFileSync } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync } from 'node:fs';
import { createServer } from 'node:https';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { REPO_ROOT } from './profiles.mjs';

export const CONTENT_EVAL = path.join(REPO_ROOT, 'tests', 'content_eval');

/** The manifest's pages: {id, host, path, url, file, lang, title, informative, render, words, visitOffsetMin}. */
export function contentPages(dir = CONTENT_EVAL) {
  return JSON.parse(readFileSync(path.join(dir, 'pages.json'), 'utf8')).pages;
}

/** A self-signed certificate for `hosts`, made once per set of hosts and kept under the temporary folder. */
function certificate(hosts) {
  const key = createHash('sha256').update(hosts.join('\n')).digest('hex').slice(0, 16);
  const dir = path.join(tmpdir(), 'history-chat-content-site', key);
  const certFile = path.join(dir, 'cert.pem');
  const keyFile = path.join(dir, 'key.pem');
  if (!existsSync(certFile)) {
    mkdirSync(dir, { recursive: true });
    const work = `${dir}.${process.pid}`;
    mkdirSync(work, { recursive: true });
    execFileSync('openssl', [
      'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-sha256', '-days', '3650',
      '-subj', '/CN=History Chat content evaluation',
      '-addext', `subjectAltName=${hosts.map((h) => `DNS:${h}`).join(',')}`,
      '-keyout', path.join(work, 'key.pem'), '-out', path.join(work, 'cert.pem'),
    ], { stdio: ['ignore', 'ignore', 'pipe'] });
    // The key first: a process that finds the certificate finds its key too.
    renameSync(path.join(work, 'key.pem'), keyFile);
    renameSync(path.join(work, 'cert.pem'), certFile);
  }
  const cert = readFileSync(certFile);
  const spki = new X509Certificate(cert).publicKey.export({ type: 'spki', format: 'der' });
  return { cert, key: readFileSync(keyFile), spki: createHash('sha256').update(spki).digest('base64') };
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.css': 'text/css; charset=utf-8', '.js': 'text/javascript; charset=utf-8' };

/**
 * Starts the server for every page of the manifest (or `pages`, a subset of it).
 * @returns {Promise<{port:number, pages:object[], hosts:string[], browserArgs:string[], requests:object[],
 *   expectedPaths:(page:object)=>string[], unexpected:()=>object[], close:()=>Promise<void>}>}
 */
export async function startContentSite({ dir = CONTENT_EVAL, pages = contentPages(dir) } = {}) {
  const hosts = [...new Set(pages.map((p) => p.host))].sort();
  const byAddress = new Map(pages.map((p) => [`${p.host}${p.path}`, p]));
  const requests = []; // {host, path, method, file, at, cookie, open, status}
  const { cert, key, spki } = certificate(hosts);
  const server = createServer({ cert, key }, (req, res) => {
    const host = (req.headers.host ?? '').replace(/:\d+$/, '');
    const page = byAddress.get(`${host}${req.url}`);
    let file = page ? path.join(dir, 'pages', page.file) : null;
    if (!page && hosts.includes(host) && /^\/static\/[a-z_]+\.(css|js)$/.test(req.url)) file = path.join(dir, 'pages', host, req.url);
    // open: whether the answer is still being written (how many requests the site serves at once).
    const record = { host, path: req.url, method: req.method, file: file && path.relative(dir, file), at: Date.now(), cookie: req.headers.cookie ?? null, open: true };
    requests.push(record);
    record.atOnce = requests.filter((r) => r.open).length;
    res.on('close', () => {
      record.open = false;
    });
    if (req.method !== 'GET' || !file || !existsSync(file)) {
      record.status = 404;
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not one of the evaluation\'s files');
      return;
    }
    record.status = 200;
    res.writeHead(200, { 'content-type': TYPES[path.extname(file)], 'cache-control': 'no-store' }).end(readFileSync(file));
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  const rules = [...hosts.map((h) => `MAP ${h} 127.0.0.1:${port}`), 'MAP * ~NOTFOUND'].join(', ');
  const scriptHosts = new Set(pages.filter((p) => p.render === 'script').map((p) => p.host));
  return {
    port,
    pages,
    hosts,
    requests,
    browserArgs: [`--host-resolver-rules=${rules}`, `--ignore-certificate-errors-spki-list=${spki}`],
    /** What visiting `page` asks of its site: the page, its stylesheet, and its script when it has one. */
    expectedPaths(page) {
      return [page.path, '/static/site.css', ...(page.render === 'script' ? ['/static/app.js'] : [])];
    },
    /** Requests that were not for one of the pages or their host's files (404s). */
    unexpected() {
      return requests.filter((r) => r.status !== 200);
    },
    /** The script-rendered hosts (their pages load /static/app.js). */
    scriptHosts,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * Opens each page in a normal tab of the extension's browser, waits for its `load`, and closes it:
 * a visit as a user makes it (the page lands in chrome.history with its title). `concurrency` tabs at
 * a time; `dwellMs` keeps each tab open that long after `load` (what a reader that waits for a still
 * moment needs); `onLoaded(tab, page)` runs before the tab closes. Returns per page
 * {id, url, status, finalUrl, title, ms}.
 */
export async function visitAll(ext, pages, { concurrency = 4, dwellMs = 0, onLoaded, timeout = 30_000 } = {}) {
  const results = new Array(pages.length);
  let next = 0;
  const worker = async () => {
    while (next < pages.length) {
      const i = next++;
      const page = pages[i];
      const started = Date.now();
      const tab = await ext.context.newPage();
      try {
        const response = await tab.goto(page.url, { waitUntil: 'load', timeout });
        if (dwellMs) await tab.waitForTimeout(dwellMs);
        if (onLoaded) await onLoaded(tab, page);
        results[i] = { id: page.id, url: page.url, status: response?.status() ?? null, finalUrl: tab.url(), title: await tab.title(), ms: Date.now() - started };
      } catch (e) {
        throw new Error(`visiting ${page.id} (${page.url}): ${e.message}`);
      } finally {
        await tab.close();
      }
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, pages.length) }, worker));
  return results;
}

/**
 * The pages as history entries for launchExtension's `history` (a visit `visitOffsetMin` before
 * `now`), for a test that seeds them instead of, or before, visiting them.
 */
export function contentHistory(pages, now = Date.now()) {
  return pages.map((p) => ({ url: p.url, title: p.title, visits: [now - p.visitOffsetMin * 60_000] }));
}
