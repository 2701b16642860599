// The French UI where the service worker words things (issue 11, part 5): the browser's UI
// language is French (Chromium started with a French environment, its French UI installed from
// chromium-l10n), and the worker, which words through chrome.i18n, answers in French. The English
// wording of the same lines is covered by omnibox.test.mjs.
//
// Covered here: the extension's name and description as the browser lists them (the manifest's
// __MSG_…__ keys), and the address-bar keyword's lines (the prompt, the best match, no match, the
// index's progress) — the worker's own sentences, built by the core from the French catalogue, and
// accepted by the browser's XML parser.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { REPO_ROOT, launchExtension } from './support/launch.mjs';
import { TEN_DAYS_AGO_PAGE, demoHistory } from './support/fixtures.mjs';
import { changed, instrument, parseDescription, waitForWholeIndex } from './support/omnibox.mjs';

const french = JSON.parse(readFileSync(path.join(REPO_ROOT, '_locales/fr/messages.json'), 'utf8'));
const fr = (key) => french[key].message;

describe('the service worker in a French browser', () => {
  let ext;

  before(async () => {
    ext = await launchExtension({ history: demoHistory(Date.now()), uiLanguage: 'fr_FR' });
    await instrument(ext);
    await waitForWholeIndex(ext, 'Indexation de votre historique');
  });

  after(async () => {
    await ext?.close();
  });

  test('the browser runs in French and the worker reads the French catalogue', async () => {
    const [ui, lang] = await ext.serviceWorker.evaluate(() => [chrome.i18n.getUILanguage(), chrome.i18n.getMessage('lang')]);
    assert.match(ui, /^fr/, 'Chromium started with a French UI');
    assert.equal(lang, 'fr');
  });

  test('the extension is listed with its French description', async () => {
    const self = await ext.serviceWorker.evaluate(() => chrome.management.getSelf());
    assert.equal(self.name, 'History Chat');
    assert.equal(self.description, fr('ext_description'));
    assert.match(self.description, /Retrouvez une page de votre historique Chrome/);
  });

  test('the address-bar keyword prompts, finds and says "no match" in French', async () => {
    const prompt = await changed(ext, '');
    assert.deepEqual(prompt.defaults.map((d) => [d.description, d.ok]), [[fr('omnibox_prompt'), true]]);
    assert.match(fr('omnibox_prompt'), /^Cherchez dans votre historique/);

    const found = await changed(ext, TEN_DAYS_AGO_PAGE.query);
    assert.equal(found.suggestions[0]?.content, TEN_DAYS_AGO_PAGE.url, 'the page is suggested');
    assert.deepEqual(found.defaults.map((d) => [d.description, d.ok]), [[fr('omnibox_open_best'), true]], 'the browser took the French line');
    assert.match(fr('omnibox_open_best'), /^Ouvrir la meilleure correspondance/);

    const none = await changed(ext, 'zzqxv');
    assert.deepEqual(none.defaults.map((d) => [d.description, d.ok]), [[fr('omnibox_no_match'), true]]);
    for (const description of [prompt, found, none].map((r) => r.defaults.at(-1).description)) parseDescription(description);
  });
});
