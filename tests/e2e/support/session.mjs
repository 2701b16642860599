// The setup most end-to-end tests share, in one place: a seeded real chrome.history, the built
// extension launched over it, a page of it open, the worker's index loaded, and the page done with
// what it reads when it opens. Then a question asked in a popup, its answer waited for.
import { launchExtension } from './launch.mjs';
import { waitForIndex } from './live.mjs';
import { ask, openPopup } from './popup.mjs';
import { POPUP_STARTUP, trackChromeCalls, waitForSettled } from './settle.mjs';

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
