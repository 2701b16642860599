// The page reader's content access granted in a test as a user grants it, without changing the
// extension: headless Chromium shows chrome.permissions.request's prompt with no way to answer it
// (favicons.test.mjs), so the grant the prompt would record comes from Chrome's own extensions
// page instead.
//
//   await grantContentAccess(ext);   // then { permissions: ['scripting'], origins: http(s) } is granted
//
// How: chrome://extensions is a page of the browser with its own API, chrome.developerPrivate; its
// site-access controls call `addHostPermission(id, pattern)`, which records a host the user allows
// for the extension (Chromium's PermissionsUpdater::GrantRuntimePermissions). That alone makes
// nothing active for an optional host (permissions.contains stays false: the extension cannot read
// a page before it asks). Then the extension asks, in a click, exactly as the options page will
// (chrome.permissions.request with the content access): Chrome prompts only for what has a warning
// not granted yet; the hosts are granted and `scripting` has no warning of its own, so it answers
// `true` without a prompt, and the permissions become active — onAdded, contains, getAll, the
// content scripts' injection, all as after a real prompt.
//
// What this leaves untested: the prompt itself (its wording, a user refusing it). The grant that
// reaches the extension is Chrome's, through its own permission code, not a stand-in.
// `reader_permissions.test.mjs` checks this helper (the self-test) and what removal does.
import { LIMIT_MS } from './settle.mjs';

/** What the page reader needs: the `scripting` API and every http(s) host (bindings' permissions.rs). */
export const CONTENT_ACCESS = Object.freeze({ permissions: ['scripting'], origins: ['http://*/*', 'https://*/*'] });
/** The Gemini API host, granted on its own when a key is saved. */
export const GEMINI_ORIGIN = 'https://generativelanguage.googleapis.com/*';

/**
 * As a user allowing the extension on these hosts in chrome://extensions (its details page's site
 * access): `chrome.developerPrivate.addHostPermission` for each pattern.
 */
export async function allowSiteAccess(ext, origins) {
  const page = await ext.context.newPage();
  try {
    await page.goto(`chrome://extensions/?id=${ext.extensionId}`);
    await page.evaluate(async ([id, origins]) => {
      for (const origin of origins) await chrome.developerPrivate.addHostPermission(id, origin);
    }, [ext.extensionId, origins]);
  } finally {
    await page.close();
  }
}

/**
 * `chrome.permissions.request(argument)` called inside a real click (a button added to an
 * extension page that runs none of the extension's code, clicked through the input pipeline):
 * resolves with Chrome's answer. Fails when Chrome shows a prompt instead (the answer would never
 * come): the grant was not recorded first.
 */
export async function requestInClick(ext, argument) {
  const page = await ext.openPage('manifest.json');
  try {
    await page.evaluate((argument) => {
      const button = document.createElement('button');
      button.id = 'hc-test-request';
      button.textContent = 'Ask';
      button.addEventListener('click', () => {
        self.__hcAnswer = chrome.permissions.request(argument).then(
          (granted) => ({ granted }),
          (error) => ({ error: String(error?.message ?? error) }),
        );
      });
      document.body.append(button);
    }, argument);
    await page.click('#hc-test-request');
    const answer = await page.evaluate((limit) => Promise.race([
      self.__hcAnswer,
      new Promise((resolve) => setTimeout(() => resolve({ pending: true }), limit)),
    ]), LIMIT_MS);
    if (answer.pending) throw new Error(`chrome.permissions.request(${JSON.stringify(argument)}) is still waiting: Chrome showed its prompt (the grant was not recorded first)`);
    if (answer.error) throw new Error(`chrome.permissions.request(${JSON.stringify(argument)}) failed: ${answer.error}`);
    return answer.granted;
  } finally {
    await page.close();
  }
}

/** The permissions the extension holds now (chrome.permissions.getAll, from its worker). */
export async function grantedPermissions(ext) {
  const all = await ext.serviceWorker.evaluate(() => chrome.permissions.getAll());
  return { permissions: [...all.permissions].sort(), origins: [...all.origins].sort() };
}

/**
 * Grants the page reader's content access as a user does: the hosts allowed in chrome://extensions,
 * then the extension's own request in a click, answered by Chrome without a prompt.
 */
export async function grantContentAccess(ext) {
  await allowSiteAccess(ext, CONTENT_ACCESS.origins);
  const granted = await requestInClick(ext, CONTENT_ACCESS);
  if (!granted) throw new Error('Chrome refused the content access');
}

/** Grants the Gemini host on its own, as saving a key does (the host allowed, then asked in a click). */
export async function grantGeminiHost(ext) {
  await allowSiteAccess(ext, [GEMINI_ORIGIN]);
  const granted = await requestInClick(ext, { origins: [GEMINI_ORIGIN] });
  if (!granted) throw new Error('Chrome refused the Gemini host');
}
