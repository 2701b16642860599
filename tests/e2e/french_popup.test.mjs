// The toolbar popup in the browser's UI language (issue 11, part 5), end to end: the built
// extension in Chromium started in French (chromium-l10n), a seeded real chrome.history, the
// worker's index. The popup's own words come from _locales/fr: the static shell (popup.html, worded
// by i18n.js) and the mounted Leptos popup, its header, welcome text, search results with their row
// actions, site chips, the remove confirmation, the status after Clear conversation; and no English
// label of the popup is left in what the user reads or in its accessible names. One test in the
// default (English) UI checks the English catalogue answers there.
//
// Strings worded by the core (period labels, relative times, the status after a search or a
// removal) are checked where they show in the popup too.
import { test, before, after, describe } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { HOUR, DAY } from './support/fixtures.mjs';
import { waitForIndex } from './support/live.mjs';
import { setAiSettings } from './support/ai.mjs';
import { LIMIT_MS, POPUP_STARTUP, flushEvents, trackChromeCalls, waitForSettled } from './support/settle.mjs';

const NBSP = '\u00a0';

/** Selectors that do not depend on the UI language. */
const BOX = 'main.popup:not(.shell) input[type="search"]';
const CONVERSATION = 'section.conversation';
const TURN = `${CONVERSATION} article.turn`;
const LIVE_SECTION = 'section.live';

const FR = {
  searchLabel: 'Rechercher dans votre historique',
  placeholder: `De quoi vous souvenez-vous sur cette page${NBSP}?`,
  clear: 'Effacer la conversation',
  options: 'Options',
  modeTitle: 'Moteur qui répond',
  hint:
    'Tapez des mots dont vous vous souvenez dans le titre ou l’adresse d’une page, choisissez une période, ' +
    `appuyez sur Entrée. Votre historique est parcouru sur cet appareil${NBSP}; rien n’en sort.`,
  period: 'Période',
  conversation: 'Conversation',
  live: 'Résultats au fil de la saisie',
  liveList: 'Résultats',
  copy: 'Copier le lien',
  copied: 'Copié',
  remove: 'Retirer de l’historique',
  confirmLabel: `Retirer cette page de votre historique${NBSP}?`,
  confirmQuestion: `Retirer cette page de votre historique Chrome${NBSP}?`,
  cancel: 'Annuler',
  confirmRemove: 'Retirer',
  recent: 'Pages récentes',
  siteFilters: 'Filtres de site',
  removeFilter: (label) => `Retirer le filtre ${label}`,
  cleared: 'Conversation effacée',
  // Worded by the core.
  periods: ['Dernières 24 heures', '7 derniers jours', '30 derniers jours', '3 derniers mois'],
  found: (n) => `${n} pages trouvées`,
  removed: (title) => `Retirée de votre historique${NBSP}: ${title}`,
};

const EN = {
  searchLabel: 'Search your history',
  placeholder: 'What do you remember about the page?',
  clear: 'Clear conversation',
  hint: "Type words you remember from a page's title or address, pick a period, press Enter. Your history is searched on this device; nothing leaves it.",
};

/**
 * The popup's own English labels (popup.rs): none may show in the French popup, as text or as an
 * accessible name. Matched as whole words, case-sensitively ("Removed", a core word, is not
 * "Remove").
 */
const ENGLISH_LABELS = [
  'Search your history',
  'What do you remember',
  'Clear conversation',
  'Which engine answers',
  'On-device',
  'Download the on-device model',
  'Type words you remember',
  'Describe the page',
  'Your history is searched',
  'nothing leaves it',
  'Period',
  'Site filters',
  'Remove filter',
  'Matches as you type',
  'Matches',
  'Recent pages',
  'asked',
  'visited',
  'Copy link',
  'Copied',
  'Remove from history',
  'Remove this page',
  'Remove',
  'Removing',
  'Cancel',
  'Cancelling',
  'Open options',
  'Searching your history',
  'Searching further',
  'Conversation cleared',
  'Keywords searched',
  'could not be',
];

/** Pages whose titles hold no English label (an English title would be the page's, not ours). */
const TART = 'https://recettes.example.org/tarte-aux-zorblats';
const CAKE = 'https://recettes.example.org/gateau-zorblat-coing';
const FLAN = 'https://cuisine.example.net/flan-zorblat';

function seeded(now) {
  return [
    { url: TART, title: 'Tarte aux zorblats, la recette', visits: [now - 2 * HOUR] },
    { url: CAKE, title: 'Gâteau de zorblat au coing', visits: [now - 5 * HOUR, now - DAY] },
    { url: FLAN, title: 'Flan au zorblat en dix minutes', visits: [now - 3 * HOUR] },
  ];
}

/**
 * Installed before the popup's scripts: when popup.js removes the static shell (the WebAssembly
 * popup has mounted), records what its search box said, so the shell can be checked even though
 * it is gone by the time the test looks.
 */
function recordShell() {
  new MutationObserver((changes, observer) => {
    for (const change of changes) {
      for (const node of change.removedNodes) {
        if (node.id !== 'shell') continue;
        const box = node.querySelector('#shell-search');
        window.__hcShell = {
          placeholder: box?.getAttribute('placeholder') ?? null,
          label: box?.getAttribute('aria-label') ?? null,
          heading: node.querySelector('h1')?.textContent ?? null,
        };
        observer.disconnect();
      }
    }
  }).observe(document, { childList: true, subtree: true });
}

/** Opens the popup and waits until it has mounted (the shell handed over), read its settings and conversation, and the index is ready. */
async function openPopup(ext) {
  const page = await ext.context.newPage();
  await page.addInitScript(recordShell);
  await page.goto(ext.url('popup.html'), { waitUntil: 'domcontentloaded' });
  await page.locator(BOX).waitFor({ state: 'visible', timeout: LIMIT_MS });
  await page.locator(CONVERSATION).waitFor({ state: 'attached', timeout: LIMIT_MS });
  await page.waitForFunction(() => window.__hcShell !== undefined, null, { timeout: LIMIT_MS });
  await waitForIndex(page);
  await waitForSettled(page, POPUP_STARTUP);
  return page;
}

/** Types `question` into the mounted box, presses Enter, and waits for its turn (newest first) with the conversation no longer busy. */
async function ask(page, question) {
  const before = await page.locator(TURN).count();
  const box = page.locator(BOX);
  await box.fill(question);
  await box.press('Enter');
  await page.waitForFunction(
    ({ conversation, before }) => {
      const section = document.querySelector(conversation);
      return section?.getAttribute('aria-busy') === 'false' && section.querySelectorAll('article.turn').length > before;
    },
    { conversation: CONVERSATION, before },
    { timeout: LIMIT_MS },
  );
  return page.locator(TURN).first();
}

/** The English labels found in the popup's visible text and in its accessible names, tooltips and placeholders. */
async function englishLeft(page) {
  return page.evaluate((labels) => {
    const attributes = [...document.querySelectorAll('[aria-label], [title], [placeholder]')].flatMap((el) =>
      ['aria-label', 'title', 'placeholder'].map((a) => el.getAttribute(a)).filter(Boolean),
    );
    const read = [document.body.innerText, ...attributes].join('\n');
    const word = (label) => new RegExp(`(^|[^\\p{L}-])${label.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}($|[^\\p{L}-])`, 'u');
    return labels.filter((label) => word(label).test(read));
  }, ENGLISH_LABELS);
}

describe('the popup in French', () => {
  let ext;
  let popup;
  const now = Date.now();

  before(async () => {
    ext = await launchExtension({ history: seeded(now), uiLanguage: 'fr_FR' });
    await trackChromeCalls(ext.context);
    // The local search, chosen in Options: the mode badge then shows its own tooltip (with the
    // default, "auto", it shows why on-device AI is not answering, a core message).
    const setup = await ext.openPopup();
    await setAiSettings(setup, { key: null, provider: 'local' });
    await setup.close();
    popup = await openPopup(ext);
  });

  after(async () => {
    await ext?.close();
  });

  test('<html lang="fr">; the static shell and the mounted box carry the French label and placeholder; header and welcome text are French', async () => {
    assert.equal(await popup.evaluate(() => document.documentElement.lang), 'fr');
    const shell = await popup.evaluate(() => window.__hcShell);
    assert.deepEqual(shell, { placeholder: FR.placeholder, label: FR.searchLabel, heading: 'History Chat' }, 'the static shell, as i18n.js worded it');
    const box = popup.locator(BOX);
    assert.equal(await box.getAttribute('placeholder'), FR.placeholder, 'the mounted box reads the same as the shell');
    assert.equal(await box.getAttribute('aria-label'), FR.searchLabel);

    assert.deepEqual(await popup.locator('header.bar button').allTextContents(), [FR.clear, FR.options]);
    const badge = popup.locator('header.bar .mode');
    assert.equal(await badge.textContent(), 'Local');
    assert.equal(await badge.getAttribute('title'), FR.modeTitle);
    assert.equal((await popup.locator(`${CONVERSATION} p.hint`).first().textContent()).trim(), FR.hint);
    assert.equal(await popup.locator(CONVERSATION).getAttribute('aria-label'), FR.conversation);

    const period = popup.locator('form.ask select');
    assert.equal(await period.getAttribute('aria-label'), FR.period);
    assert.deepEqual((await period.locator('option').allTextContents()).map((t) => t.trim()), FR.periods);

    assert.deepEqual(await englishLeft(popup), [], 'English labels left in the French popup');
  });

  test('as-you-type results and a committed search read in French, with their row actions', async () => {
    const box = popup.locator(BOX);
    await box.fill('zorblat');
    const live = popup.locator(LIVE_SECTION);
    await popup.waitForFunction((sel) => document.querySelectorAll(`${sel} li.result`).length === 3, LIVE_SECTION, { timeout: LIMIT_MS });
    assert.equal(await live.getAttribute('aria-label'), FR.live);
    assert.equal(await live.locator('ul[role="listbox"]').getAttribute('aria-label'), FR.liveList);
    assert.deepEqual(await englishLeft(popup), [], 'English labels left while typing');

    const turn = await ask(popup, 'zorblat');
    assert.equal(await popup.locator(LIVE_SECTION).count(), 0, 'the committed answer replaces the as-you-type list');
    assert.equal((await turn.locator('p.question').textContent()).trim(), 'zorblat');
    // "<engine> · <period> · demandé <when>" (the period and the relative time are the core's).
    assert.match(await turn.locator('p.meta').textContent(), /^Local · 7 derniers jours · demandé (à l’instant|il y a \d+ minutes?)$/);
    assert.equal((await popup.locator('[role="status"]').textContent()).trim(), FR.found(3));
    const rows = turn.locator('li.result');
    assert.equal(await rows.count(), 3);
    for (let i = 0; i < 3; i++) {
      const row = rows.nth(i);
      assert.match(await row.locator('time').textContent(), /^visitée il y a [235] heures$/, `row ${i + 1}'s last visit`);
      assert.deepEqual(await row.locator('.row-actions button').allTextContents(), [FR.copy, FR.remove], `row ${i + 1}'s actions`);
    }
    assert.deepEqual(await englishLeft(popup), [], 'English labels left after a search');
  });

  test('Copier le lien copies and says "Copié"', async () => {
    const cdp = await ext.context.newCDPSession(popup);
    await cdp.send('Browser.grantPermissions', {
      origin: `chrome-extension://${ext.extensionId}`,
      permissions: ['clipboardReadWrite', 'clipboardSanitizedWrite'],
    });
    await popup.bringToFront();
    const row = popup.locator(TURN).first().locator('li.result').first();
    const href = await row.locator('a.result-link').getAttribute('href');
    await row.getByRole('button', { name: FR.copy, exact: true }).click();
    await row.getByRole('button', { name: FR.copied, exact: true }).waitFor({ timeout: LIMIT_MS });
    assert.equal(await popup.evaluate(() => navigator.clipboard.readText()), href);
    await row.getByRole('button', { name: FR.copy, exact: true }).waitFor({ timeout: LIMIT_MS });
    await cdp.detach();
  });

  test('the remove confirmation and its buttons are French; Annuler keeps the page, Retirer removes it', async () => {
    const turn = popup.locator(TURN).first();
    const row = turn.locator('li.result').filter({ has: popup.locator(`a[href="${FLAN}"]`) });
    await row.getByRole('button', { name: FR.remove, exact: true }).click();
    const confirm = row.getByRole('group', { name: FR.confirmLabel, exact: true });
    await confirm.waitFor({ timeout: LIMIT_MS });
    assert.equal((await confirm.locator('span').textContent()).trim(), FR.confirmQuestion);
    assert.deepEqual(await confirm.locator('button').allTextContents(), [FR.cancel, FR.confirmRemove]);
    await popup.waitForFunction((name) => document.activeElement?.textContent?.trim() === name, FR.cancel, { timeout: LIMIT_MS });
    assert.deepEqual(await englishLeft(popup), [], 'English labels left on the confirmation');

    await confirm.getByRole('button', { name: FR.cancel, exact: true }).click();
    await confirm.waitFor({ state: 'detached', timeout: LIMIT_MS });
    await popup.waitForFunction((name) => document.activeElement?.textContent?.trim() === name, FR.remove, { timeout: LIMIT_MS });

    await row.getByRole('button', { name: FR.remove, exact: true }).click();
    await row.getByRole('button', { name: FR.confirmRemove, exact: true }).click();
    await popup.waitForFunction(
      (href) => ![...document.querySelectorAll('section.conversation a.result-link')].some((a) => a.getAttribute('href') === href),
      FLAN,
      { timeout: LIMIT_MS },
    );
    const left = await popup.evaluate(() => chrome.history.search({ text: 'zorblat', startTime: 0, maxResults: 0 }));
    assert.ok(!left.some((item) => item.url === FLAN), 'chrome.history no longer holds the page');
    assert.equal((await popup.locator('[role="alert"]').textContent()).trim(), '', 'no alert');
    assert.equal((await popup.locator('[role="status"]').textContent()).trim(), FR.removed('Flan au zorblat en dix minutes'));
    assert.deepEqual(await englishLeft(popup), [], 'English labels left after the removal');
  });

  test('a site: chip, an empty question ("Pages récentes") and Clear conversation are French', async () => {
    const box = popup.locator(BOX);
    await box.fill('site:recettes.example.org zorblat');
    const chips = popup.getByRole('group', { name: FR.siteFilters, exact: true });
    await chips.waitFor({ timeout: LIMIT_MS });
    const chip = chips.locator('button.chip');
    assert.equal(await chip.getAttribute('aria-label'), FR.removeFilter('site:recettes.example.org'));
    assert.equal(await chip.getAttribute('title'), FR.removeFilter('site:recettes.example.org'));
    assert.deepEqual(await englishLeft(popup), [], 'English labels left with a site chip');

    const turn = await ask(popup, '');
    assert.equal((await turn.locator('p.question').textContent()).trim(), FR.recent);

    await popup.getByRole('button', { name: FR.clear, exact: true }).click();
    await popup.waitForFunction((sel) => document.querySelectorAll(sel).length === 0, TURN, { timeout: LIMIT_MS });
    await popup.waitForFunction((text) => document.querySelector('[role="status"]')?.textContent?.trim() === text, FR.cleared, { timeout: LIMIT_MS });
    assert.equal((await popup.locator(`${CONVERSATION} p.hint`).first().textContent()).trim(), FR.hint, 'the welcome text is back');
    assert.deepEqual(await englishLeft(popup), [], 'English labels left after clearing');

    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });
});

describe('the popup in the default (English) UI', () => {
  let ext;

  before(async () => {
    ext = await launchExtension({ history: seeded(Date.now()) });
    await trackChromeCalls(ext.context);
  });

  after(async () => {
    await ext?.close();
  });

  test('<html lang="en">; the shell and the mounted box carry the English label and placeholder', async () => {
    const popup = await openPopup(ext);
    assert.equal(await popup.evaluate(() => document.documentElement.lang), 'en');
    assert.deepEqual(await popup.evaluate(() => window.__hcShell), { placeholder: EN.placeholder, label: EN.searchLabel, heading: 'History Chat' });
    const box = popup.locator(BOX);
    assert.equal(await box.getAttribute('placeholder'), EN.placeholder);
    assert.equal(await box.getAttribute('aria-label'), EN.searchLabel);
    assert.equal(await popup.locator('header.bar button').first().textContent(), EN.clear);
    assert.equal((await popup.locator(`${CONVERSATION} p.hint`).first().textContent()).trim(), EN.hint);
    // The French tests' check finds the English labels where they are (text and accessible names).
    const found = await englishLeft(popup);
    for (const label of ['Search your history', 'What do you remember', 'Clear conversation', 'Type words you remember', 'Period']) {
      assert.ok(found.includes(label), `englishLeft finds "${label}" in the English popup (found ${JSON.stringify(found)})`);
    }
    await flushEvents(ext, popup);
    ext.assertNoErrors();
  });
});
