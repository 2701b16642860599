// Page content's catch-up driven from an extension page as the options page drives it: reading
// turned on (the settings saved, then the worker told), the worker's content state read, and a
// wait for a run to end.
//
//   await turnReadingOn(popup, { excludedSites: ['www.example.com'] });
//   const state = await catchUpOver(popup, 'the 7-day catch-up over');
//   const state = await catchUpOver(popup, 'both pages read', (s) => s.catchUp.read === 2);
import { waitUntil } from './settle.mjs';

const send = (page, message) => page.evaluate((message) => chrome.runtime.sendMessage(message), message);

/** Reading on, as the options page's switch saves it (with `excludedSites`), then the worker told. */
export async function turnReadingOn(page, { excludedSites = [] } = {}) {
  await page.evaluate(async (excludedSites) => {
    const { settings } = await chrome.storage.sync.get('settings');
    await chrome.storage.sync.set({ settings: { ...settings, readContent: true, excludedSites } });
  }, excludedSites);
  await send(page, { type: 'setContent', enabled: true });
}

/** The worker's content state ({progress, catchUp, access, bookmarks}). */
export async function contentState(page) {
  return (await send(page, { type: 'contentState' }))?.content?.state;
}

/**
 * Waits until a catch-up has ended (not running, no download out), the store has settled (neither
 * loading nor reading) and `done(state)` holds; returns the content state.
 */
export async function catchUpOver(page, what, done = () => true) {
  let state;
  await waitUntil(
    async () => {
      state = await contentState(page);
      const run = state?.catchUp;
      return Boolean(run && !run.running && run.out === 0 && !['loading', 'reading'].includes(state.progress.status) && done(state));
    },
    what,
    { timeout: 300_000, describe: () => JSON.stringify(state) },
  );
  return state;
}
