// The page reader's permissions and registration, end to end in Chromium: what the bindings'
// permissions.rs and scripting.rs rely on. Covered: nothing is granted at install; the test helper
// grantContentAccess (support/content_access.mjs) grants exactly the content access through
// Chrome's own permission code (its self-test: chrome://extensions' site access alone activates
// nothing, the extension's request in a click then needs no prompt); giving the content access
// back takes the Gemini host with it when it was granted on its own (Chrome removes every pattern
// https://*/* covers), and asking for it again in the same click gives it back without a prompt
// (remove_content_access); chrome.scripting exists only while `scripting` is granted; Chrome
// takes the core's excludeMatches patterns of every kind (IPv6, IDN, hosts of excluded ports),
// updates them, and unregisters, and refuses a pattern with a port (so the core leaves ports
// out). Not covered: Chrome's prompt itself (headless Chromium cannot answer it).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { CONTENT_ACCESS, GEMINI_ORIGIN, allowSiteAccess, grantContentAccess, grantGeminiHost, grantedPermissions } from './support/content_access.mjs';
import { readerRegistration } from './support/reader.mjs';

const INSTALLED = { permissions: ['history', 'offscreen', 'storage'], origins: [] };

const contains = (ext, argument) => ext.serviceWorker.evaluate((argument) => chrome.permissions.contains(argument), argument);

/**
 * What the bindings' remove_content_access does, in a click of an extension page: the Gemini host
 * granted on its own (getAll lists it), the content access removed, the Gemini host asked again
 * if it went.
 */
async function removeContentAccessInClick(ext) {
  const page = await ext.openPage('manifest.json');
  try {
    await page.evaluate(([content, gemini]) => {
      const button = document.createElement('button');
      button.id = 'off';
      button.addEventListener('click', () => {
        self.__removal = (async () => {
          const own = (await chrome.permissions.getAll()).origins.includes(gemini);
          const removed = await chrome.permissions.remove(content);
          const keptByChrome = await chrome.permissions.contains({ origins: [gemini] });
          const askedAgain = own && !keptByChrome ? await chrome.permissions.request({ origins: [gemini] }) : null;
          return { own, removed, keptByChrome, askedAgain };
        })();
      });
      document.body.append(button);
    }, [CONTENT_ACCESS, GEMINI_ORIGIN]);
    await page.click('#off');
    return await page.evaluate(() => self.__removal);
  } finally {
    await page.close();
  }
}

test('grantContentAccess (self-test): nothing at install; site access alone activates nothing; the request in a click is granted without a prompt', { timeout: 120_000 }, async () => {
  const ext = await launchExtension();
  try {
    assert.deepEqual(await grantedPermissions(ext), INSTALLED, 'nothing optional at install');
    assert.equal(await ext.serviceWorker.evaluate(() => typeof chrome.scripting), 'undefined', 'no chrome.scripting without the permission');
    await ext.serviceWorker.evaluate(() => {
      globalThis.__added = [];
      chrome.permissions.onAdded.addListener((added) => globalThis.__added.push(added));
    });

    await allowSiteAccess(ext, CONTENT_ACCESS.origins);
    assert.equal(await contains(ext, { origins: CONTENT_ACCESS.origins }), false, "chrome://extensions' grant alone makes nothing active");
    assert.deepEqual(await grantedPermissions(ext), INSTALLED);

    await grantContentAccess(ext);
    assert.equal(await contains(ext, CONTENT_ACCESS), true);
    assert.deepEqual(await grantedPermissions(ext), {
      permissions: ['history', 'offscreen', 'scripting', 'storage'],
      origins: ['http://*/*', 'https://*/*'],
    }, 'exactly the content access was added');
    assert.equal(await ext.serviceWorker.evaluate(() => typeof chrome.scripting?.registerContentScripts), 'function', 'chrome.scripting appears in the running worker');
    const added = await ext.serviceWorker.evaluate(() => globalThis.__added);
    assert.deepEqual(added.map((a) => ({ permissions: a.permissions.sort(), origins: a.origins.sort() })), [CONTENT_ACCESS], 'permissions.onAdded told the worker, once');
  } finally {
    await ext.close();
  }
});

test('giving the content access back takes the Gemini host granted on its own; asked again in the same click, it comes back without a prompt', { timeout: 120_000 }, async () => {
  const ext = await launchExtension();
  try {
    await grantGeminiHost(ext);
    await grantContentAccess(ext);
    assert.deepEqual((await grantedPermissions(ext)).origins, ['http://*/*', GEMINI_ORIGIN, 'https://*/*'].sort());

    const removal = await removeContentAccessInClick(ext);
    assert.deepEqual(removal, { own: true, removed: true, keptByChrome: false, askedAgain: true },
      'Chrome removed the Gemini host with https://*/*; asked again in the click, it was granted');
    assert.deepEqual(await grantedPermissions(ext), { ...INSTALLED, origins: [GEMINI_ORIGIN] }, 'the Gemini host alone is left');
    assert.equal(await ext.serviceWorker.evaluate(() => typeof chrome.scripting), 'undefined', 'chrome.scripting is gone with the permission');

    // The content access granted while the Gemini host was not: nothing of Gemini's to keep.
    await ext.serviceWorker.evaluate((gemini) => chrome.permissions.remove({ origins: [gemini] }), GEMINI_ORIGIN);
    await grantContentAccess(ext);
    assert.equal(await contains(ext, { origins: [GEMINI_ORIGIN] }), true, 'covered by https://*/* while it is granted');
    const again = await removeContentAccessInClick(ext);
    assert.deepEqual(again, { own: false, removed: true, keptByChrome: false, askedAgain: null });
    assert.deepEqual(await grantedPermissions(ext), INSTALLED);
  } finally {
    await ext.close();
  }
});

test("the reader's registration: Chrome takes the core's exclusion patterns of every kind, updates and unregisters it", { timeout: 120_000 }, async () => {
  const ext = await launchExtension();
  try {
    await grantContentAccess(ext);
    // Exclusions::match_patterns of "mail.google.com", "*.example.com", "localhost:3000",
    // "[::1]:8080", "192.168.1.10", "bücher.de" (its table test): a port is left out.
    const patterns = [
      '*://mail.google.com/*', '*://www.mail.google.com/*',
      '*://example.com/*', '*://*.example.com/*',
      '*://localhost/*', '*://www.localhost/*',
      '*://[::1]/*',
      '*://192.168.1.10/*',
      '*://xn--bcher-kva.de/*', '*://www.xn--bcher-kva.de/*',
    ];
    const registered = () => ext.serviceWorker.evaluate(() => chrome.scripting.getRegisteredContentScripts({ ids: ['reader'] }));
    // Why the port is left out: Chrome refuses a content script's pattern with one, and with it
    // the whole registration.
    const withPort = await ext.serviceWorker.evaluate((r) => chrome.scripting.registerContentScripts([r]).then(() => 'registered', (e) => e.message),
      readerRegistration(['*://localhost:3000/*']));
    assert.match(withPort, /Invalid port/);
    assert.deepEqual(await registered(), [], 'nothing registered');

    await ext.serviceWorker.evaluate((r) => chrome.scripting.registerContentScripts([r]), readerRegistration(patterns));
    const [script] = await registered();
    assert.deepEqual([...script.excludeMatches].sort(), [...patterns].sort(), 'every pattern taken (Chrome lists them sorted)');
    assert.deepEqual(script.matches, ['http://*/*', 'https://*/*']);
    assert.equal(script.allFrames, false);
    assert.equal(script.runAt, 'document_idle');
    assert.equal(script.persistAcrossSessions, true);

    // A second registration under the id is refused: the bindings then update instead.
    const twice = await ext.serviceWorker.evaluate((r) => chrome.scripting.registerContentScripts([r]).then(() => 'registered', (e) => e.message), readerRegistration([]));
    assert.match(twice, /Duplicate script ID/);
    await ext.serviceWorker.evaluate((r) => chrome.scripting.updateContentScripts([r]), readerRegistration([]));
    assert.deepEqual((await registered())[0].excludeMatches ?? [], [], 'the list emptied by an update');

    await ext.serviceWorker.evaluate(() => chrome.scripting.unregisterContentScripts({ ids: ['reader'] }));
    assert.deepEqual(await registered(), []);
  } finally {
    await ext.close();
  }
});
