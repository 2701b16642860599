// The setup most end-to-end tests share, in one place: a seeded real chrome.history, the built
// extension launched over it, a page of it open, the worker's index loaded, and the page done with
// what it reads when it opens. Then a question asked in a popup, its answer waited for. And one
// browser shared by the tests of a file, reset between them (sharedBrowser).
import { launchExtension } from './launch.mjs';
import { waitForIndex } from './live.mjs';
import { ask, openPopup, storageGet } from './popup.mjs';
import { LIMIT_MS, POPUP_STARTUP, flushEvents, trackChromeCalls, waitForSettled, waitForStored } from './settle.mjs';
import { releaseFaults } from './faults.mjs';

/**
 * Launches the built extension with `history` seeded into chrome.history, opens a page with
 * `open(ext)` (the popup by default), and waits until the worker's index is loaded (asked from
 * that page). With `startup` (the popup's start-up calls by default; `null` for none), the
 * chrome.* call tracker is installed before the page opens and the page's start-up reads are
 * waited for too ([`waitForSettled`]), so a test's first step never races them. `topics` launches
 * with Topic search on (see launchExtension).
 * @returns {Promise<{ext: object, page: import('playwright-core').Page}>}
 */
export async function launchWithPage({ history, open = openPopup, startup = POPUP_STARTUP, topics = false } = {}) {
  const ext = await launchExtension({ history, topics });
  try {
    if (startup) await trackChromeCalls(ext.context);
    const page = await open(ext);
    await waitForIndex(page);
    if (startup) await waitForSettled(page, startup);
    return { ext, page };
  } catch (e) {
    await ext.close();
    throw e;
  }
}

/**
 * Opens a new popup and asks `question` in it ([`ask`]: typed, Enter, the new turn shown and the
 * conversation no longer busy).
 * @returns {Promise<{popup: import('playwright-core').Page, turn: object}>} the popup and the new turn
 */
export async function askInNewPopup(ext, question, options = {}) {
  const popup = await openPopup(ext);
  const turn = await ask(popup, question, options);
  return { popup, turn };
}

/**
 * Waits until the service worker has written the install-time settings (so it cannot overwrite
 * ours): a field the install fills in (`retention`) is there, whatever the profile held before.
 */
export async function waitForInstalledSettings(page, timeout = LIMIT_MS) {
  await waitForStored(page, (settings) => settings?.retention !== undefined, 'the worker wrote its install-time settings', { timeout });
}

/**
 * One browser for the tests of a file (or of a `describe`) that can share it: launched with
 * `launchOptions` at the first `fresh()`, and handed to each test as a new user's extension is,
 * through the product's own reset paths rather than a new profile:
 * - every page of the previous test is closed, once a popup has shown that no search of the
 *   worker is still running (its late answer would otherwise land in the next test);
 * - the conversation is cleared (`chrome.storage.local` holds nothing else) and the settings are
 *   put back as the extension installed them (`chrome.storage.sync`);
 * - the harness's records (requests, console messages, errors) start empty;
 * - with `faults` (launchExtension), the faults a test left armed are released first, so the reset
 *   itself runs unfaulted (clearing storage.local would release them too, but only after the popup
 *   it opens).
 * The chrome.* call tracker ([`trackChromeCalls`]) is installed in every page it opens.
 * What the worker keeps in memory for its life (the index, the on-device model's session) is
 * kept: tests that change it, or the browser's clock, launch a browser of their own.
 */
export function sharedBrowser(launchOptions = {}) {
  let launched = null;
  let installed = null;
  const launch = async () => {
    const ext = await launchExtension(launchOptions);
    try {
      await trackChromeCalls(ext.context);
      const page = await ext.openPage('manifest.json'); // an extension-origin page running none of its code
      await waitForIndex(page);
      await waitForInstalledSettings(page);
      installed = (await storageGet(page, 'sync', 'settings')).settings;
      await page.close();
      return ext;
    } catch (e) {
      await ext.close();
      throw e;
    }
  };
  return {
    /** The browser, reset for a new test. */
    async fresh() {
      launched ??= launch();
      const ext = await launched;
      await settleAndClose(ext);
      const page = await ext.openPage('manifest.json');
      await page.evaluate(async (settings) => {
        await chrome.storage.local.clear();
        await chrome.storage.sync.clear();
        await chrome.storage.sync.set({ settings });
      }, installed);
      await flushEvents(ext, page);
      await page.close();
      ext.requests.length = 0;
      ext.consoleMessages.length = 0;
      ext.errors.length = 0;
      return ext;
    },
    /**
     * Waits for the worker's search to end and closes every page (for a test's `finally`). A
     * browser that does not settle (a search left hanging) is closed, and the next `fresh()`
     * launches a new one, so that one broken test does not fail the ones after it.
     */
    async settle() {
      if (!launched) return;
      const ext = await launched;
      try {
        await settleAndClose(ext);
      } catch (e) {
        launched = null;
        await ext.close();
        throw new Error(`the shared browser did not settle after the test (it is replaced): ${e.message}`);
      }
    },
    async close() {
      if (launched) await (await launched).close();
    },
  };
}

/**
 * Every page closed but one blank tab (as the browser starts), after a popup has shown that no
 * search of the worker is running.
 */
async function settleAndClose(ext) {
  if (ext.faults) {
    const page = await ext.openPage('manifest.json');
    await releaseFaults(page);
    await page.close();
  }
  const popup = await openPopup(ext); // waits until the conversation is no longer busy
  await flushEvents(ext, popup);
  const blank = await ext.context.newPage();
  for (const page of ext.context.pages()) if (page !== blank) await page.close();
}
