// Launch Debian's Chromium with the built extension in a throwaway profile.
//
//   const ext = await launchExtension({ history: demoHistory() });
//   const popup = await ext.openPopup();
//   ...
//   ext.assertNoNetwork();      // zero requests from extension pages and its service worker
//   ext.assertNoErrors();       // no console error / uncaught error in extension pages or worker
//   await ext.close();
//
// The profile is laid from templates (profiles.mjs) and its history seeded by writing its
// `Default/History` SQLite DB before the browser starts (seed_history.mjs), so a launch starts
// Chromium once. Every request that is not to chrome-extension:// is recorded,
// whether it comes from a page or from the extension's service worker.
import { chromium } from 'playwright-core';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { seedHistory } from './seed_history.mjs';
import { CHROMIUM, REPO_ROOT, checkDist, chromiumArgs, distDir, extensionIdFromKey, layProfile } from './profiles.mjs';
import { faultedDist, installFaultsInPages } from './faults.mjs';
import { recordPastGrants } from './browser_access.mjs';

export { CHROMIUM, REPO_ROOT, checkDist, distDir, extensionIdFromKey };
export const DEFAULT_VIEWPORT = { width: 420, height: 600 };

function launchOptions(dist, { viewport, uiLanguage, args }) {
  return {
    executablePath: CHROMIUM,
    headless: true,
    // Chromium on Linux takes its UI language (chrome.i18n's) from the environment, not --lang;
    // Debian ships the French UI in chromium-l10n.
    ...(uiLanguage ? { env: { ...process.env, LANGUAGE: uiLanguage, LANG: `${uiLanguage}.UTF-8`, LC_ALL: `${uiLanguage}.UTF-8` } } : {}),
    // Playwright passes --disable-extensions by default; it must not when we load ours.
    ignoreDefaultArgs: ['--disable-extensions'],
    args: [...chromiumArgs(), `--disable-extensions-except=${dist}`, `--load-extension=${dist}`, ...args],
    viewport,
  };
}

/**
 * @param {object} [opts]
 * @param {Array<{url:string,title?:string,visits:number[]}>} [opts.history] entries to seed (visits: ms since epoch)
 * @param {string} [opts.dist] unpacked extension dir (default $DIST or <repo>/dist)
 * @param {{width:number,height:number}} [opts.viewport]
 * @param {string} [opts.uiLanguage] the browser's UI language, e.g. 'fr_FR' (default: the machine's)
 * @param {boolean} [opts.topics] Topic search as installed (on, the model running); by default the
 *   profile holds the settings of a user who turned it off (profiles.mjs says why)
 * @param {boolean} [opts.faults] with the fault script of faults.mjs in the worker (a copy of
 *   `dist` whose worker imports it first; same extension id) and in every page, before the pages'
 *   scripts and before the chrome.* call tracker
 * @param {string[]} [opts.args] more Chromium switches, after the suite's own (e.g. content_site.mjs'
 *   --host-resolver-rules for the content evaluation's sites); none by default
 * @param {string[]} [opts.pastGrants] optional API permissions the profile records as accepted in
 *   a prompt before (browser_access.mjs: `bookmarks`, `tabs`), so that asking for them in a click
 *   is granted without the prompt headless Chromium cannot answer; none by default
 */
export async function launchExtension({ history, dist = distDir(), viewport = DEFAULT_VIEWPORT, uiLanguage, topics = false, faults = false, args = [], pastGrants = [] } = {}) {
  let manifest = checkDist(dist);
  if (faults) manifest = checkDist((dist = await faultedDist(dist)));
  const expectedId = manifest.key ? extensionIdFromKey(manifest.key) : null;
  const profileDir = await mkdtemp(path.join(tmpdir(), 'history-chat-e2e-'));
  let context;
  try {
    const historyPath = await layProfile(profileDir, { seeded: Boolean(history), topics, dist, extensionId: expectedId });
    if (history) await seedHistory(historyPath, history);
    if (pastGrants.length) await recordPastGrants(profileDir, expectedId, pastGrants);
    context = await chromium.launchPersistentContext(profileDir, launchOptions(dist, { viewport, uiLanguage, args }));
    // First of the init scripts: the call tracker (trackChromeCalls, added later) wraps its wrappers.
    if (faults) await installFaultsInPages(context);
  } catch (e) {
    // The launch failed already: that error is rethrown below; a failing close adds nothing to it.
    await context?.close().catch(() => {});
    await rm(profileDir, { recursive: true, force: true });
    throw e;
  }

  // --- recording (attached before anything of ours runs) ---
  const requests = []; // {url, method, resourceType, source}
  const errors = []; // {source, text}
  const consoleMessages = []; // every console message of extension pages and workers: {source, type, text}
  let extensionId = expectedId;
  const extOrigin = () => `chrome-extension://${extensionId}/`;
  const isExtUrl = (u) => typeof u === 'string' && extensionId && u.startsWith(extOrigin());

  const sourceOf = (request) => {
    const sw = request.serviceWorker();
    if (sw) return `service worker ${sw.url()}`;
    let frame = null;
    try { frame = request.frame(); } catch { /* service-worker requests have no frame */ }
    const pageUrl = frame?.page()?.url() ?? frame?.url() ?? '';
    return `page ${pageUrl || '(unknown)'}`;
  };
  const fromExtension = (source) => source.includes(`chrome-extension://${extensionId}/`);

  context.on('request', (request) => {
    const url = request.url();
    if (url.startsWith('chrome-extension://')) return;
    requests.push({ url, method: request.method(), resourceType: request.resourceType(), source: sourceOf(request) });
  });

  const watchPage = (page) => {
    page.on('console', (msg) => {
      if (msg.worker?.()) return; // worker messages are also delivered here; recorded by watchWorker
      if (isExtUrl(page.url())) consoleMessages.push({ source: page.url(), type: msg.type(), text: msg.text() });
      if (msg.type() === 'error' && isExtUrl(page.url())) errors.push({ source: `console.error in ${page.url()}`, text: msg.text() });
    });
    page.on('pageerror', (err) => {
      if (isExtUrl(page.url())) errors.push({ source: `uncaught error in ${page.url()}`, text: String(err?.stack || err) });
    });
    page.on('crash', () => errors.push({ source: `crash of ${page.url()}`, text: 'page crashed' }));
  };
  // Per worker: the promise of its error listeners being installed.
  const watchedWorkers = new WeakMap();
  const watchWorker = (worker) => {
    if (watchedWorkers.has(worker)) return watchedWorkers.get(worker);
    worker.on('console', (msg) => {
      consoleMessages.push({ source: worker.url(), type: msg.type(), text: msg.text() });
      if (msg.type() === 'error') errors.push({ source: `console.error in ${worker.url()}`, text: msg.text() });
    });
    // Playwright reports no uncaught errors for workers: turn them into console errors.
    // (Re-done for each worker instance, so a worker restarted after idling is covered too.)
    const installed = worker.url().startsWith('chrome-extension://')
      ? worker
          .evaluate(() => {
            self.addEventListener('error', (e) => console.error(`uncaught error: ${e.message}`));
            self.addEventListener('unhandledrejection', (e) => console.error(`unhandled rejection: ${e.reason?.stack || e.reason}`));
          })
          .catch(() => {})
      : Promise.resolve();
    watchedWorkers.set(worker, installed);
    return installed;
  };
  context.on('page', watchPage);
  context.pages().forEach(watchPage);
  context.on('serviceworker', watchWorker);

  // --- the extension's service worker gives its id ---
  let worker = context.serviceWorkers().find((w) => w.url().startsWith('chrome-extension://'));
  if (!worker) {
    worker = await context
      .waitForEvent('serviceworker', { predicate: (w) => w.url().startsWith('chrome-extension://'), timeout: 60_000 }) // a failure limit
      .catch(() => null);
  }
  if (worker) {
    await watchWorker(worker); // its uncaught errors are reported from the first test step on
    const id = new URL(worker.url()).host;
    if (expectedId && id !== expectedId) {
      await context.close();
      throw new Error(`Extension id from the service worker (${id}) differs from the id derived from manifest.key (${expectedId})`);
    }
    extensionId = id;
  } else if (!extensionId) {
    await context.close();
    throw new Error(`The extension at ${dist} did not start a service worker within 60 s (and its manifest has no key to derive the id from). Check that it loads: chromium --load-extension=${dist}`);
  }

  const url = (file) => `chrome-extension://${extensionId}/${file}`;

  const ext = {
    context,
    extensionId,
    profileDir,
    dist,
    faults,
    requests,
    errors,
    consoleMessages,
    url,
    get serviceWorker() {
      return context.serviceWorkers().find((w) => w.url().startsWith(extOrigin())) ?? null;
    },
    /** Open an extension page in a new tab; resolves after `load`. */
    async openPage(file, { waitUntil = 'load' } = {}) {
      const page = await context.newPage();
      await page.goto(url(file), { waitUntil });
      return page;
    },
    openPopup(opts) {
      return ext.openPage('popup.html', opts);
    },
    openOptions(opts) {
      return ext.openPage('options.html', opts);
    },
    /** Requests (not to chrome-extension://) made by the extension's pages or its worker. */
    extensionRequests() {
      return requests.filter((r) => fromExtension(r.source));
    },
    assertNoNetwork() {
      const made = ext.extensionRequests();
      if (made.length) {
        const list = made.map((r) => `  ${r.method} ${r.url} (${r.resourceType}, from ${r.source})`).join('\n');
        throw new Error(`Expected zero network requests from the extension, got ${made.length}:\n${list}`);
      }
    },
    assertNoErrors({ ignore = [] } = {}) {
      const left = errors.filter((e) => !ignore.some((re) => re.test(e.text)));
      if (left.length) {
        const list = left.map((e) => `  ${e.source}: ${e.text}`).join('\n');
        throw new Error(`Expected no console errors / uncaught errors in the extension, got ${left.length}:\n${list}`);
      }
    },
    async close() {
      await context.close().catch(() => {});
      await rm(profileDir, { recursive: true, force: true }).catch(() => {});
    },
  };
  return ext;
}
