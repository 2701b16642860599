// On-device AI (issue "On-device AI: the same smart pipeline on Chrome's built-in model, no key and
// no network"), end to end in the real built extension.
//
// 1. The real path: in this Chromium `LanguageModel.availability()` is "unavailable"; the options
//    page says why and the popup falls back to the local search, quietly and with no network.
// 2. A stand-in `LanguageModel` (support/language_model_stub.mjs) installed by the harness into the
//    extension's pages with `context.addInitScript` (it reaches chrome-extension:// pages) and into
//    its service worker, which runs the searches: the whole pipeline on "the device" — keywords,
//    retrieval, ranking with reasons — the download (in the page, from the user's click) and its
//    progress, the context-window fitting, and every failure.
// 3. The provider choice in the options page, and what the popup does with each.
//
// Contract used (popup): `.mode` chip names the engine ("Local", "On-device · Regular"); a turn is
// `article.turn` with `p.meta` naming the engine, results `li > a` with `p.reason` when ranked,
// `p.notice` lines; failures in `[role=alert]`; `.device-download` offers "Download the on-device
// model" and shows "Downloading the on-device model: NN %". Options: `[role=radiogroup]` "AI
// provider" (radios name=provider, values auto/local/gemini/onDevice), `.device-status`,
// `<progress>` while downloading.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { demoHistory, largeHistory, DAY } from './support/fixtures.mjs';
import { SEL, openPopup, alertText, statusText, logEntries } from './support/popup.mjs';
import { askAi, submit, readAiTurns, describeAiTurn, readSettings, setAiSettings, reopen, waitForStatus } from './support/ai.mjs';
import {
  SERVICE_NOT_RUNNING,
  installLanguageModel,
  configureLanguageModel,
  lmCalls,
  describeLmCalls,
  releaseLanguageModel,
} from './support/language_model_stub.mjs';
import { LIMIT_MS, POPUP_STARTUP, flushEvents, trackChromeCalls, waitForSettled, waitForStored, waitUntil, checkedBelow, failedWaiting } from './support/settle.mjs';

const Q = 'recursive cte postgresql';
/** Seeded pages the stand-in's ranking picks for Q (their lines share words with Q). */
const CTE_URL = 'https://blog.pgdev.io/2026/recursive-ctes-handling-cycles-in-postgresql';
const UNAVAILABLE_LINE = /^Chrome's built-in AI model is not available on this device/;
const SLOW = { timeout: 120_000 };

// ---------------------------------------------------------------------------------------------
// Helpers

/**
 * Launch with the demo history, optionally the stand-in (`lm`: its configuration; omitted: the
 * real API), and settings `provider` (omitted: the installed default) with no Gemini key.
 */
async function launch({ lm, provider, history, key = null } = {}) {
  const now = Date.now();
  const ext = await launchExtension({ history: history ?? demoHistory(now) });
  try {
    if (lm) await installLanguageModel(ext, lm);
    await trackChromeCalls(ext.context);
    const page = await ext.context.newPage();
    await page.goto(ext.url('manifest.json')); // an extension-origin page running none of its code
    await setAiSettings(page, { key, provider });
    await page.close();
    return ext;
  } catch (e) {
    await ext.close();
    throw e;
  }
}

/** Run `fn(ext)`, closing the browser after; on failure, add the stand-in's call log of open pages. */
async function withExt(opts, fn) {
  const ext = await launch(opts);
  try {
    await fn(ext);
  } catch (e) {
    if (opts.lm) {
      const places = ext.context.pages().filter((page) => page.url().startsWith('chrome-extension://'));
      for (const target of [ext.serviceWorker, ...places]) {
        // Only adds to the failure's message: a page closing meanwhile leaves its calls out of it.
        const calls = target ? await lmCalls(target).catch(() => null) : null;
        if (calls) e.message += `\nLanguageModel calls in ${target.url()}:\n${describeLmCalls(calls)}`;
      }
    }
    throw e;
  } finally {
    await ext.close();
  }
}

/** The stand-in's calls in the service worker, which runs the on-device searches. */
async function workerCalls(ext) {
  return lmCalls(ext.serviceWorker);
}

async function chipText(page) {
  // Polled by waitForChip: a chip not rendered yet reads as empty, and the wait goes on.
  return ((await page.locator('.mode').textContent().catch(() => null)) ?? '').trim();
}

/** Wait until the popup's `.mode` chip reads `expected` (the popup learns availability and settings asynchronously). */
async function waitForChip(page, expected, timeout = LIMIT_MS) {
  try {
    await page.waitForFunction((expected) => document.querySelector('.mode')?.textContent.trim() === expected, expected, { timeout, polling: 50 });
  } catch {
    throw new Error(`the popup's .mode chip should read ${JSON.stringify(expected)}; it reads ${JSON.stringify(await chipText(page))}`);
  }
  return expected;
}

/**
 * Wait until the popup has learnt all it reads when it opens: its settings and conversation, the
 * worker's warm-up answer, and (from the stand-in) the model's availability. The chip then shows
 * its settled value, whatever it showed before.
 */
async function waitForPopupReady(page) {
  await page.waitForFunction(() => (globalThis.__lmCalls?.availability.length ?? 0) > 0, null, { timeout: LIMIT_MS, polling: 50 });
  await waitForSettled(page, POPUP_STARTUP);
}

/** The newest turn's meta line (`p.meta`). */
async function newestMeta(page) {
  return (await page.locator(`${SEL.turn} p.meta`).first().textContent())?.trim() ?? null;
}

/** Read the options page's `.device-status` line once the availability check is over. */
async function deviceStatus(options) {
  const line = options.locator('.device-status');
  await line.waitFor({ timeout: LIMIT_MS });
  await options
    .waitForFunction(() => !/^Checking/.test(document.querySelector('.device-status')?.textContent ?? 'Checking'), null, { timeout: LIMIT_MS })
    .catch(failedWaiting('the options page kept saying it is checking the on-device model'));
  return (await line.textContent()).trim();
}

/** Soft checks: every problem is collected so one test reports all of them. */
function softChecks() {
  const problems = [];
  return {
    problems,
    check(ok, message) {
      if (!ok) problems.push(message);
    },
    done(context = '') {
      assert.deepEqual(problems, [], `${problems.length} problem(s)${context ? ` — ${context}` : ''}`);
    },
  };
}

// ---------------------------------------------------------------------------------------------
// 1. The real Prompt API of this Chromium: "unavailable"

test('real Prompt API: LanguageModel exists in extension pages and in the service worker, and says "unavailable" here', SLOW, async () => {
  await withExt({}, async (ext) => {
    const probe = async () => {
      const out = { type: typeof LanguageModel };
      try {
        out.availability = await LanguageModel.availability();
      } catch (e) {
        out.availability = `threw ${e.name}: ${e.message}`;
      }
      return out;
    };
    const page = await ext.openPage('manifest.json');
    // No stand-in in this test: both places see this Chromium's real API.
    for (const [where, seen] of [['an extension page', await page.evaluate(probe)], ['the service worker', await ext.serviceWorker.evaluate(probe)]]) {
      assert.equal(seen.type, 'function', `typeof LanguageModel in ${where}`);
      assert.equal(seen.availability, 'unavailable', `LanguageModel.availability() in ${where} of this Chromium (the rest of the real-path tests assume it)`);
    }
  });
});

for (const provider of ['onDevice', 'auto']) {
  test(`real Prompt API, provider ${provider}: options explain, the popup searches locally with no error and no network`, SLOW, async () => {
    await withExt({ provider }, async (ext) => {
      const soft = softChecks();
      const options = await ext.openOptions();
      const line = await deviceStatus(options);
      soft.check(UNAVAILABLE_LINE.test(line), `options .device-status: expected "Chrome's built-in AI model is not available on this device …", got ${JSON.stringify(line)}`);
      soft.check((await options.getByRole('button', { name: 'Download the on-device model' }).count()) === 0, 'options offers a download although the model is unavailable');
      const checked = await options.locator('input[type=radio][name=provider]:checked').getAttribute('value').catch(checkedBelow);
      soft.check(checked === provider, `options: the checked provider radio should be ${provider}, is ${checked}`);
      await options.close();

      const popup = await openPopup(ext);
      await waitForChip(popup, 'Local').catch((e) => soft.check(false, e.message));
      soft.check((await popup.locator('.device-download').count()) === 0, 'the popup offers a download although the model is unavailable');
      const turn = await askAi(popup, Q);
      soft.check(turn.results.length > 0, `a local search for "${Q}" should list pages:\n${describeAiTurn(turn)}`);
      soft.check(turn.results.some((r) => r.href === CTE_URL), `the CTE article should be among the local results:\n${describeAiTurn(turn)}`);
      soft.check(turn.results.every((r) => r.reason === null), `local results carry no reason:\n${describeAiTurn(turn)}`);
      const meta = await newestMeta(popup);
      soft.check(/^Local\b/.test(meta ?? ''), `the turn's meta line should name "Local", got ${JSON.stringify(meta)}`);
      const why = turn.notices.find((n) => /not available/.test(n) && /Searched locally/.test(n));
      if (provider === 'onDevice') {
        soft.check(Boolean(why), `provider onDevice: the turn should have a p.notice saying why (contains "not available" and "Searched locally"); notices: ${JSON.stringify(turn.notices)}`);
      } else {
        soft.check(!turn.notices.some((n) => /error/i.test(n)), `provider auto: no error notice expected; notices: ${JSON.stringify(turn.notices)}`);
      }
      const alert = await alertText(popup);
      soft.check(alert === '', `no role=alert expected, got ${JSON.stringify(alert)}`);
      soft.check((await popup.locator('article.turn p.notice.error').count()) === 0, 'no p.notice.error expected');
      await waitForSettled(popup, POPUP_STARTUP);
      await flushEvents(ext, popup);
      try {
        ext.assertNoErrors();
      } catch (e) {
        soft.check(false, e.message);
      }
      try {
        ext.assertNoNetwork();
      } catch (e) {
        soft.check(false, e.message);
      }
      soft.done(`provider ${provider}`);
    });
  });
}

// ---------------------------------------------------------------------------------------------
// 2. The stand-in LanguageModel

/** Assertions common to every on-device search: each clone was destroyed, nothing over the network. */
function assertCleanCalls(calls, soft) {
  soft.check(calls.clones > 0, `the search should prompt clones of the base session (clones: ${calls.clones})`);
  soft.check(calls.clonesDestroyed === calls.clones, `every clone should be destroyed after its call: ${calls.clones} clone(s), ${calls.clonesDestroyed} destroyed`);
  soft.check(calls.prompts.every((p) => p.onClone), 'every prompt should go to a clone, never to the base session');
  soft.check(calls.prompts.every((p) => p.signal), 'every prompt should carry an AbortSignal (for Cancel)');
}

test('stand-in "available", provider auto, no key: the whole search runs on-device — keywords, ranking with reasons — with zero network requests', SLOW, async () => {
  await withExt({ lm: { availability: 'available' } }, async (ext) => {
    const soft = softChecks();
    const popup = await openPopup(ext);
    await waitForChip(popup, 'On-device · Regular');
    const turn = await askAi(popup, Q);
    const calls = await workerCalls(ext);
    const kinds = calls.prompts.map((p) => p.kind);
    assert.deepEqual(kinds, ['expansion', 'ranking'], `one expansion then one ranking prompt expected:\n${describeLmCalls(calls)}`);
    const [expansion, ranking] = calls.prompts;

    soft.check(calls.create.length === 1, `one base session expected in the worker, create() called ${calls.create.length} time(s)`);
    const inPopup = await lmCalls(popup);
    soft.check(inPopup.create.length === 0 && inPopup.prompts.length === 0, `the popup only reads the availability; it called create() ${inPopup.create.length} time(s) and prompt() ${inPopup.prompts.length} time(s)`);
    soft.check(calls.create[0]?.monitor, 'create() should be given a monitor (download progress)');
    // JSON Schema with lowercase types, no Gemini-only keys.
    try {
      assert.deepEqual(expansion.responseConstraint, { type: 'array', items: { type: 'string' }, maxItems: 20 });
    } catch {
      soft.check(false, `expansion responseConstraint should be {type: "array", items: {type: "string"}, maxItems: 20}: ${JSON.stringify(expansion.responseConstraint)}`);
    }
    const rc = ranking.responseConstraint;
    soft.check(rc?.type === 'array' && rc.items?.type === 'object' && rc.items.properties?.id?.type === 'integer' && rc.items.properties?.reason?.type === 'string',
      `ranking responseConstraint should be JSON Schema with lowercase types: ${JSON.stringify(rc)}`);
    soft.check(!JSON.stringify(rc).includes('propertyOrdering'), `ranking responseConstraint keeps Gemini's propertyOrdering: ${JSON.stringify(rc)}`);
    soft.check(expansion.question === Q && ranking.question === Q, `both prompts should quote the question: ${JSON.stringify([expansion.question, ranking.question])}`);
    soft.check(ranking.candidateLines.length > 0, 'the ranking prompt should list candidates');
    soft.check(calls.measures.length >= 1, 'the ranking prompt should be measured against the context window');
    assertCleanCalls(calls, soft);

    // What the user sees.
    soft.check(turn.results.length > 0 && turn.results.length <= 5, `1–5 ranked results expected:\n${describeAiTurn(turn)}`);
    soft.check(turn.results.every((r) => r.reason && r.reason.startsWith('On-device pick')), `every result should show the model's reason in p.reason:\n${describeAiTurn(turn)}`);
    soft.check(turn.results[0]?.href === CTE_URL, `the CTE article (matches 3 words) should come first:\n${describeAiTurn(turn)}`);
    soft.check(turn.notices.length === 0, `no notice expected: ${JSON.stringify(turn.notices)}`);
    const meta = await newestMeta(popup);
    soft.check(/^On-device · Regular · /.test(meta ?? ''), `the turn's meta line should name "On-device · Regular", got ${JSON.stringify(meta)}`);
    soft.check(turn.keywords?.text?.includes('recursive'), `the keywords searched should be shown: ${JSON.stringify(turn.keywords)}`);
    soft.check((await alertText(popup)) === '', `no alert expected: ${await alertText(popup)}`);

    // Stored as an on-device turn, and still there after reopening.
    const stored = (await popup.evaluate(() => chrome.storage.local.get(null)));
    const logs = Object.entries(stored).filter(([k]) => k.startsWith('log:')).map(([, v]) => v);
    soft.check(logs.length === 1 && logs[0].mode === 'onDevice', `one stored turn with mode "onDevice" expected: ${JSON.stringify(logs.map((l) => l.mode))}`);
    const again = await reopen(ext, popup);
    await again.waitForFunction((sel) => document.querySelectorAll(sel).length >= 1, SEL.turn, { timeout: LIMIT_MS }).catch(checkedBelow);
    const back = (await readAiTurns(again))[0];
    soft.check(back?.results.length === turn.results.length && back.results.every((r) => r.reason), `after reopening, the turn and its reasons should be back:\n${describeAiTurn(back)}`);

    await waitForSettled(again, POPUP_STARTUP);
    await flushEvents(ext, again);
    try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
    try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
    soft.done();
  });
});

test('closing the popup during the on-device ranking: the worker finishes the search, and the reopened popup shows the answer', SLOW, async () => {
  await withExt({ lm: { hold: 'ranking' } }, async (ext) => {
    const popup = await openPopup(ext);
    await waitForChip(popup, 'On-device · Regular');
    await submit(popup, Q);
    let calls = null;
    await waitUntil(
      async () => (calls = await workerCalls(ext)).prompts.some((p) => p.kind === 'ranking' && p.held),
      'the ranking prompt held in the service worker',
      { describe: () => describeLmCalls(calls) },
    );
    await popup.close();
    await releaseLanguageModel(ext.serviceWorker);
    const store = await ext.openPage('manifest.json'); // an extension page running none of its code
    let entries = [];
    await waitUntil(
      async () => (entries = (await logEntries(store)).filter((e) => e.question === Q)).some((e) => !e.running),
      'the answer written with no popup open',
      { describe: () => JSON.stringify(entries) },
    );
    assert.equal(entries.length, 1, `one turn stored: ${JSON.stringify(entries)}`);
    const [stored] = entries;
    assert.equal(stored.mode, 'onDevice');
    assert.ok(!stored.error && stored.results.length > 0 && stored.results.every((r) => r.reason), `ranked picks with reasons expected: ${JSON.stringify(stored)}`);
    const again = await openPopup(ext);
    await again.waitForFunction((sel) => document.querySelectorAll(sel).length >= 1, SEL.turn, { timeout: LIMIT_MS }).catch(checkedBelow);
    const turn = (await readAiTurns(again))[0];
    assert.deepEqual(turn?.results.map((r) => r.href), stored.results.map((r) => r.url), `the reopened popup shows the stored answer:\n${describeAiTurn(turn)}`);
    assert.ok(turn.results.every((r) => r.reason), describeAiTurn(turn));
    await waitForSettled(again, POPUP_STARTUP);
    await flushEvents(ext, again);
    ext.assertNoNetwork();
    ext.assertNoErrors();
  });
});

/**
 * Records in the page every value of the popup's `.device-download` line, or "(gone)", as it changes
 * (a MutationObserver: no step is missed between polls); read them with `recorded(page)`.
 */
function recordDownloadLine(popup) {
  return popup.evaluate(() => {
    const seen = (window.__hcRecorded = []);
    const push = () => {
      const text = document.querySelector('.device-download')?.textContent.trim() ?? '(gone)';
      if (seen.at(-1) !== text) seen.push(text);
    };
    push();
    new MutationObserver(push).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

/** The same for the options page's download `<progress>`: "value|aria-label", or "(none)". */
function recordProgressBar(options) {
  return options.evaluate(() => {
    const seen = (window.__hcRecorded = []);
    const push = () => {
      const bar = document.querySelector('progress[aria-label="On-device model download"]');
      const text = bar ? `${bar.value}|${bar.getAttribute('aria-label')}` : '(none)';
      if (seen.at(-1) !== text) seen.push(text);
    };
    push();
    new MutationObserver(push).observe(document.body, { subtree: true, childList: true, characterData: true, attributes: true });
  });
}

const recorded = (page) => page.evaluate(() => window.__hcRecorded);

/** Waits until the recorded download line went away after showing a download's progress; returns what was recorded. */
async function downloadEnded(popup) {
  await popup
    .waitForFunction(() => {
      const seen = window.__hcRecorded;
      const first = seen.findIndex((t) => /Downloading the on-device model: \d+ %/.test(t));
      return first >= 0 && seen.indexOf('(gone)', first) > first;
    }, null, { timeout: LIMIT_MS, polling: 50 })
    .catch(failedWaiting('the popup\'s download progress was not seen going from shown to gone'));
  return recorded(popup);
}

test('stand-in "downloadable": the popup offers the download, shows its progress, then searches on-device', SLOW, async () => {
  await withExt({ lm: { availability: 'downloadable' } }, async (ext) => {
    const soft = softChecks();
    const popup = await openPopup(ext);
    await waitForChip(popup, 'Local');
    const button = popup.getByRole('button', { name: 'Download the on-device model' });
    await button.waitFor({ timeout: LIMIT_MS });
    const before = (await popup.locator('.device-download').textContent()).trim();
    soft.check(/ready to download/i.test(before), `.device-download before the click: ${JSON.stringify(before)}`);
    const chipTitle = await popup.locator('.mode').getAttribute('title');
    soft.check(/not downloaded yet/.test(chipTitle ?? ''), `the chip's title should say why on-device AI is not used: ${JSON.stringify(chipTitle)}`);

    await recordDownloadLine(popup);
    await button.click();
    const progress = await downloadEnded(popup);
    const percents = progress.map((t) => /Downloading the on-device model: (\d+) %/.exec(t)?.[1]).filter(Boolean).map(Number);
    soft.check(percents.length >= 3, `"Downloading the on-device model: NN %" should show several steps; seen: ${JSON.stringify(progress)}`);
    soft.check(percents.every((p, i) => i === 0 || p >= percents[i - 1]), `progress should only go up: ${JSON.stringify(percents)}`);
    soft.check(percents.some((p) => p > 0 && p < 100), `intermediate percentages expected: ${JSON.stringify(percents)}`);
    const calls0 = await lmCalls(popup);
    soft.check(calls0.create.length === 1 && calls0.create[0].userActivation === true, `create() should be called once, inside the click (user activation): ${JSON.stringify(calls0.create)}`);
    soft.check(progress[progress.length - 1] === '(gone)', `once downloaded, the download line should go away; last seen: ${JSON.stringify(progress.slice(-3))}`);
    await waitForChip(popup, 'On-device · Regular').catch((e) => soft.check(false, `after the download: ${e.message}`));

    const popupCalls = await lmCalls(popup);
    soft.check(popupCalls.basesDestroyed === 1, `the popup should close the session it made for the download (destroyed: ${popupCalls.basesDestroyed})`);
    const turn = await askAi(popup, Q);
    const calls = await workerCalls(ext);
    soft.check(calls.prompts.map((p) => p.kind).join() === 'expansion,ranking', `after the download the search should run on-device, in the worker:\n${describeLmCalls(calls)}`);
    soft.check(calls.create.length === 1 && calls.create[0].availability === 'available', `the worker should make one session of the downloaded model: ${JSON.stringify(calls.create)}`);
    soft.check((await lmCalls(popup)).create.length === 1, 'the popup should not make another session for the search');
    soft.check(turn.results.length > 0 && turn.results.every((r) => r.reason), `ranked results with reasons expected:\n${describeAiTurn(turn)}`);
    soft.check(/^On-device/.test((await newestMeta(popup)) ?? ''), `meta: ${await newestMeta(popup)}`);
    assertCleanCalls(calls, soft);
    await flushEvents(ext, popup);
    try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
    try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
    soft.done();
  });
});

test('stand-in "downloadable": the options page downloads with a <progress>, then says the model is ready', SLOW, async () => {
  await withExt({ lm: { availability: 'downloadable' } }, async (ext) => {
    const soft = softChecks();
    const options = await ext.openOptions();
    const line = await deviceStatus(options);
    soft.check(/not downloaded yet/.test(line), `.device-status for "downloadable": ${JSON.stringify(line)}`);
    const button = options.getByRole('button', { name: 'Download the on-device model' });
    await button.waitFor({ timeout: LIMIT_MS });
    await recordProgressBar(options);
    await button.click();
    await options.waitForFunction(() => /ready/.test(document.querySelector('[role=status]')?.textContent ?? ''), null, { timeout: LIMIT_MS }).catch(failedWaiting('the options page did not say the model is ready'));
    const values = await recorded(options);
    const numbers = values.filter((v) => v !== '(none)').map((v) => Number(v.split('|')[0]));
    soft.check(numbers.length >= 3, `a <progress> should show the download's steps; seen: ${JSON.stringify(values)}`);
    soft.check(numbers.some((n) => n > 0 && n < 1), `intermediate <progress> values expected: ${JSON.stringify(numbers)}`);
    soft.check(values.some((v) => v.endsWith('|On-device model download')), `the <progress> should be labelled: ${JSON.stringify(values.slice(0, 3))}`);
    soft.check(/The on-device model is ready/.test(await statusText(options)), `role=status after the download: ${JSON.stringify(await statusText(options))}`);
    soft.check(/ready on this device/.test(await deviceStatus(options)), `.device-status after the download: ${JSON.stringify(await deviceStatus(options))}`);
    soft.check((await options.locator('progress[aria-label="On-device model download"]').count()) === 0, 'the <progress> should go once the download is over');
    const calls = await lmCalls(options);
    soft.check(calls.create.length === 1 && calls.create[0].userActivation === true, `create() once, inside the click: ${JSON.stringify(calls.create)}`);
    soft.check(calls.basesDestroyed === 1, `the options page should destroy the session it created for the download (destroyed: ${calls.basesDestroyed})`);

    // The popup opened afterwards uses the downloaded model.
    const popup = await openPopup(ext);
    await waitForChip(popup, 'On-device · Regular').catch((e) => soft.check(false, `popup after an options-page download: ${e.message}`));
    await waitForSettled(popup, POPUP_STARTUP);
    await flushEvents(ext, popup, options);
    try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
    try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
    soft.done();
  });
});

test('stand-in "downloading": popup and options say it is downloading and show its progress', SLOW, async () => {
  await withExt({ lm: { availability: 'downloading' } }, async (ext) => {
    const soft = softChecks();
    const options = await ext.openOptions();
    const line = await deviceStatus(options);
    soft.check(/still downloading/.test(line), `options .device-status for "downloading": ${JSON.stringify(line)}`);
    await options.close();

    const popup = await openPopup(ext);
    await recordDownloadLine(popup);
    await waitForChip(popup, 'Local');
    const area = popup.locator('.device-download');
    await area.waitFor({ timeout: LIMIT_MS }).catch(checkedBelow);
    const before = (await area.count()) ? (await area.textContent()).trim() : null;
    soft.check(before !== null, 'the popup should show the download line while the model is downloading');
    soft.check(before === null || !/ready to download/i.test(before),
      `while Chrome is already downloading the model, the popup should not say it is "ready to download": ${JSON.stringify(before)}`);
    soft.check(before === null || /download/i.test(before), `download line: ${JSON.stringify(before)}`);
    // Progress: shown at once, or after the user asks for it.
    let percents = [];
    if (!/Downloading the on-device model: \d+ %/.test(before ?? '')) {
      const button = popup.getByRole('button', { name: 'Download the on-device model' });
      if (await button.count()) await button.click();
    }
    const progress = await downloadEnded(popup);
    percents = progress.map((t) => /Downloading the on-device model: (\d+) %/.exec(t)?.[1]).filter(Boolean).map(Number);
    soft.check(percents.length >= 2, `"Downloading the on-device model: NN %" expected; seen: ${JSON.stringify(progress)}`);
    soft.check(percents.some((p) => p >= 40 && p < 100), `progress should resume where Chrome is (from 40 %): ${JSON.stringify(percents)}`);
    await waitForChip(popup, 'On-device · Regular').catch((e) => soft.check(false, `after the download: ${e.message}`));
    await flushEvents(ext, popup);
    try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
    try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
    soft.done();
  });
});

test('stand-in "downloadable", create() refused (NotAllowedError): the popup says the download failed, offers it again, nothing throws', SLOW, async () => {
  const lm = { availability: 'downloadable', createError: { name: 'NotAllowedError', message: 'The user or the platform refused the download.' } };
  await withExt({ lm }, async (ext) => {
    const soft = softChecks();
    const popup = await openPopup(ext);
    await waitForChip(popup, 'Local');
    const button = popup.getByRole('button', { name: 'Download the on-device model' });
    await button.waitFor({ timeout: LIMIT_MS });
    await button.click();
    await popup.waitForFunction((sel) => document.querySelector(sel)?.textContent.trim(), SEL.alert, { timeout: LIMIT_MS }).catch(checkedBelow);
    const alert = await alertText(popup);
    soft.check(/refused the download/.test(alert), `role=alert should give the browser's reason: ${JSON.stringify(alert)}`);
    soft.check(!/searched without it/i.test(alert), `no search was made: the download failure should not say "searched without it": ${JSON.stringify(alert)}`);
    const line = await popup.evaluate(() => document.querySelector('.device-download')?.textContent.trim() ?? '(gone)');
    soft.check(/ready to download/.test(line) && (await button.isEnabled()), `the download should be offered again: ${JSON.stringify(line)}`);
    soft.check((await chipText(popup)) === 'Local', `chip: ${await chipText(popup)}`);
    const turn = await askAi(popup, Q);
    soft.check(turn.results.some((r) => r.href === CTE_URL), `a search still works, locally:\n${describeAiTurn(turn)}`);
    await flushEvents(ext, popup);
    try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
    try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
    soft.done();
  });
});

for (const legacy of [false, true]) test(`stand-in with a small context window${legacy ? ' (older API names: inputQuota, inputUsage, measureInputUsage)' : ''}: the ranking request is shrunk to fit (titles ≤ 40 chars, fewer candidates) and the turn says so`, SLOW, async (t) => {
  const WINDOW = 1200;
  const history = largeHistory(3000, Date.now(), 7);
  const question = 'rust cache thread socket parser';
  await withExt({ lm: { availability: 'available', contextWindow: WINDOW, legacyNames: legacy }, history }, async (ext) => {
    const soft = softChecks();
    const popup = await openPopup(ext);
    await waitForChip(popup, 'On-device · Regular');
    const turn = await askAi(popup, question, { period: '90d' });
    const calls = await workerCalls(ext);
    const ranking = calls.prompts.find((p) => p.kind === 'ranking');
    assert.ok(ranking, `a ranking prompt expected:\n${describeLmCalls(calls)}`);
    const sent = ranking.candidateLines;
    const notice = turn.notices.map((n) => /The on-device model could only read (\d+) of the (\d+) pages found/.exec(n)).find(Boolean);
    soft.check(Boolean(notice), `the turn should say "The on-device model could only read N of the M pages found…"; notices: ${JSON.stringify(turn.notices)}`);
    if (notice) {
      const [ranked, found] = [Number(notice[1]), Number(notice[2])];
      soft.check(ranked === sent.length, `the notice says ${ranked} pages were read, the ranking prompt held ${sent.length} candidate lines`);
      soft.check(found > ranked && found <= 100, `found (${found}) should be more than ranked (${ranked}) and at most 100`);
    }
    soft.check(sent.length > 0, 'some candidates should still be sent');
    const long = sent.filter((c) => [...c.title].length > 40);
    soft.check(long.length === 0, `titles in the shrunk request should be ≤ 40 characters; ${long.length} are longer, e.g. ${JSON.stringify(long[0]?.title)}`);
    soft.check(ranking.outcome === 'answered', `the shrunk ranking prompt should fit the window (${WINDOW} tokens): it took ${ranking.tokens} tokens, outcome ${ranking.outcome}`);
    soft.check(calls.measures.length >= 2, `the request should be measured, shrunk and measured again (measures: ${calls.measures.length})`);
    soft.check(turn.results.length > 0 && turn.results.every((r) => r.reason), `ranked results with reasons expected:\n${describeAiTurn(turn)}`);
    soft.check((await alertText(popup)) === '', `no alert expected: ${await alertText(popup)}`);
    assertCleanCalls(calls, soft);
    await flushEvents(ext, popup);
    try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
    try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
    const summary = `ranking prompt: ${sent.length} candidate lines, ${ranking.tokens} tokens for a ${WINDOW}-token window; measured: ${JSON.stringify(calls.measures.map((m) => m.tokens))}; notice: ${JSON.stringify(notice?.[0])}`;
    t.diagnostic(summary);
    soft.done(summary);
  });
});

/**
 * A failure case: the search ends with a clear message (alert or notice) and pages (unranked or
 * local), the turn survives a reopening, and nothing throws. Returns {turn, calls, popup, soft}.
 */
async function failureCase(ext, { message, question = Q, expectResults = true, run }) {
  const soft = softChecks();
  let popup = await openPopup(ext);
  await waitForChip(popup, 'On-device · Regular');
  const turn = run ? await run(popup) : await askAi(popup, question);
  const calls = await workerCalls(ext);
  const alert = await alertText(popup);
  const shown = [alert, ...turn.notices].join(' | ');
  soft.check(message.test(shown), `expected a message matching ${message} in role=alert or a p.notice; alert ${JSON.stringify(alert)}, notices ${JSON.stringify(turn.notices)}`);
  if (expectResults) {
    soft.check(turn.results.length > 0, `pages should still be shown (unranked or local):\n${describeAiTurn(turn)}`);
    soft.check(turn.results.every((r) => !r.reason), `pages shown after a failure are not ranked, so carry no reason:\n${describeAiTurn(turn)}`);
  }
  const gemini = turn.notices.filter((n) => /Gemini/.test(n));
  soft.check(gemini.length === 0, `an on-device turn should not blame Gemini; notices: ${JSON.stringify(gemini)}`);
  soft.check(calls.clonesDestroyed === calls.clones, `every clone should be destroyed, even after a failure: ${calls.clones} clone(s), ${calls.clonesDestroyed} destroyed`);
  soft.check((await popup.locator(SEL.conversation).getAttribute('aria-busy')) === 'false', 'the conversation should not stay busy');
  // Nothing lost.
  popup = await reopen(ext, popup);
  await popup.waitForFunction((sel) => document.querySelectorAll(sel).length >= 1, SEL.turn, { timeout: LIMIT_MS }).catch(checkedBelow);
  const back = (await readAiTurns(popup))[0];
  soft.check(back?.question === question && back.results.length === turn.results.length, `after reopening the popup the turn should be back with its ${turn.results.length} page(s):\n${describeAiTurn(back)}`);
  await waitForSettled(popup, POPUP_STARTUP);
  await flushEvents(ext, popup);
  try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
  try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
  return { turn, calls, popup, soft, alert };
}

test('stand-in failure NotSupportedError (expansion): a clear message, the question\'s words searched, unranked pages, nothing lost', SLOW, async () => {
  const lm = { fail: { expansion: { name: 'NotSupportedError', message: 'The model does not support the requested output language.' } } };
  await withExt({ lm }, async (ext) => {
    const { calls, soft, turn } = await failureCase(ext, { message: /on-device model is not available.*does not support/ });
    soft.check(calls.prompts.map((p) => p.kind).join() === 'expansion', `after NotSupportedError, no ranking call should follow:\n${describeLmCalls(calls)}`);
    soft.check(turn.keywords?.text?.includes('recursive'), `the question's own words should be searched: ${JSON.stringify(turn.keywords)}`);
    soft.done(describeAiTurn(turn));
  });
});

// The other exceptions Chrome's built-in model throws (QuotaExceededError, TimeoutError, ...) and
// its empty answer are read natively, to the sentence shown (ai/model.rs
// `every_prompt_api_exception_reaches_the_user_as_one_sentence_naming_chromes_model`), and the
// pipeline answers every failure with unranked pages (ai/pipeline/tests.rs); TESTING.md maps the
// tests that were here. The popup shows one thrown exception above and the destroyed session below.

test('stand-in failure: the session is destroyed mid-search (InvalidStateError): a clear message and unranked pages, nothing lost', SLOW, async () => {
  await withExt({ lm: { destroyBaseAfter: 'expansion' } }, async (ext) => {
    const { soft, turn, calls } = await failureCase(ext, { message: /on-device model is not available.*destroyed/ });
    soft.check(calls.prompts.some((p) => p.kind === 'expansion' && p.outcome === 'answered'), 'the expansion should have answered before the session was destroyed');
    soft.done(describeAiTurn(turn));
  });
});

test('stand-in: after the session was destroyed, the next search in the same popup creates a new one and ranks on-device again', SLOW, async () => {
  await withExt({ lm: { destroyBaseAfter: 'expansion' } }, async (ext) => {
    const popup = await openPopup(ext);
    await waitForChip(popup, 'On-device · Regular');
    await askAi(popup, Q);
    await configureLanguageModel(ext.serviceWorker, { destroyBaseAfter: null });
    const turn = await askAi(popup, 'crepes recette');
    const calls = await workerCalls(ext);
    const second = calls.prompts.slice(1);
    assert.ok(
      turn.results.length > 0 && turn.results.every((r) => r.reason),
      `the second search should be ranked on-device with a new session; got:\n${describeAiTurn(turn)}\nalert: ${JSON.stringify(await alertText(popup))}\ncreate() calls: ${calls.create.length}; prompts after the first: ${JSON.stringify(second.map((p) => `${p.kind}:${p.outcome}`))}`,
    );
  });
});

test('stand-in: Cancel while the model hangs (AbortError) stops the search, shows what was found, and the next search works', SLOW, async () => {
  await withExt({ lm: { hang: 'ranking' } }, async (ext) => {
    const { soft, turn, popup, calls } = await failureCase(ext, {
      message: /Search cancelled/,
      run: async (popup) => {
        await submit(popup, Q);
        await waitForStatus(popup, /Ranking/);
        await popup.getByRole('button', { name: 'Cancel' }).click();
        await popup.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-busy') === 'false', SEL.conversation, { timeout: LIMIT_MS });
        return (await readAiTurns(popup))[0];
      },
    });
    const ranking = calls.prompts.find((p) => p.kind === 'ranking');
    soft.check(ranking?.error?.name === 'AbortError', `the hanging ranking prompt should be aborted through its signal: ${JSON.stringify(ranking?.error ?? ranking?.outcome)}`);
    // The popup (reopened by failureCase) searches again, with the model answering this time.
    await configureLanguageModel(ext.serviceWorker, { hang: null });
    await waitForChip(popup, 'On-device · Regular').catch((e) => soft.check(false, e.message));
    const next = await askAi(popup, 'crepes recette');
    soft.check(next.results.length > 0 && next.results.every((r) => r.reason), `a search after the cancel should be ranked:\n${describeAiTurn(next)}`);
    soft.done(describeAiTurn(turn));
  });
});

test('stand-in: Cancel during the keyword expansion ends the search at once with "Search cancelled."', SLOW, async (t) => {
  await withExt({ lm: { hang: 'expansion' } }, async (ext) => {
    const { soft, turn } = await failureCase(ext, {
      message: /Search cancelled/,
      expectResults: false,
      run: async (popup) => {
        await submit(popup, Q);
        await waitForStatus(popup, /Expanding/);
        await popup.getByRole('button', { name: 'Cancel' }).click();
        await popup.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-busy') === 'false', SEL.conversation, { timeout: LIMIT_MS });
        return (await readAiTurns(popup))[0];
      },
    });
    t.diagnostic(`pages shown after a cancel during the expansion: ${turn.results.length}`);
    soft.done(describeAiTurn(turn));
  });
});

test('stand-in: Cancel while the worker is still making the model ready (before it says which search runs) cancels the search as soon as it does', SLOW, async () => {
  await withExt({ lm: { hold: 'create' } }, async (ext) => {
    const { soft, calls } = await failureCase(ext, {
      message: /Search cancelled/,
      expectResults: false,
      run: async (popup) => {
        await submit(popup, Q);
        let held = null;
        await waitUntil(
          async () => (held = await workerCalls(ext)).create.some((c) => c.held),
          "the worker's create() held",
          { describe: () => describeLmCalls(held) },
        );
        // The search has no key yet: the click must not be lost.
        await popup.getByRole('button', { name: 'Cancel' }).click();
        await waitForStatus(popup, /Cancelling/);
        await releaseLanguageModel(ext.serviceWorker);
        await popup.waitForFunction((sel) => document.querySelector(sel)?.getAttribute('aria-busy') === 'false', SEL.conversation, { timeout: LIMIT_MS });
        return (await readAiTurns(popup))[0];
      },
    });
    soft.check(!calls.prompts.some((p) => p.kind === 'ranking'), `a cancelled search ranks nothing: ${describeLmCalls(calls)}`);
    const store = await ext.openPage('manifest.json'); // an extension page running none of its code
    const stored = (await logEntries(store)).filter((e) => e.question === Q);
    await store.close();
    soft.check(stored.length === 1 && stored[0].error === 'cancelled' && !stored[0].running, `one turn stored, cancelled: ${JSON.stringify(stored)}`);
    soft.done(describeLmCalls(calls));
  });
});

test('stand-in: the model becomes unavailable after the popup opened: the worker sees it, the search falls back to local with a note, and the chip stops saying On-device', SLOW, async () => {
  await withExt({ lm: { availability: 'available' }, provider: 'onDevice' }, async (ext) => {
    const soft = softChecks();
    const popup = await openPopup(ext);
    await waitForChip(popup, 'On-device · Regular');
    await configureLanguageModel(popup, { availability: 'unavailable' });
    const turn = await askAi(popup, Q);
    const calls = await workerCalls(ext);
    soft.check(calls.availability.some((a) => a.value === 'unavailable'), `the worker should read the availability when asked: ${describeLmCalls(calls)}`);
    soft.check(calls.create.length === 0 && calls.prompts.length === 0, `the worker should neither make a session nor prompt an unavailable model: ${describeLmCalls(calls)}`);
    const why = turn.notices.find((n) => /not available/.test(n) && /locally/i.test(n));
    soft.check(Boolean(why), `the turn should say the model is not available and that it searched locally; notices: ${JSON.stringify(turn.notices)}`);
    soft.check(turn.results.some((r) => r.href === CTE_URL), `local results expected:\n${describeAiTurn(turn)}`);
    soft.check(/^Local\b/.test((await newestMeta(popup)) ?? ''), `the turn's meta should name Local: ${await newestMeta(popup)}`);
    soft.check((await chipText(popup)) !== 'On-device · Regular', `after the model turned out unavailable, the .mode chip still reads ${JSON.stringify(await chipText(popup))}`);
    await flushEvents(ext, popup);
    try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
    try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
    soft.done(`notices: ${JSON.stringify(turn.notices)}`);
  });
});

test('stand-in "available", but the worker\'s session fails to start (OperationError): a local search whose note gives the reason, no prompt, nothing lost', SLOW, async () => {
  const lm = { availability: 'available', createError: { name: 'OperationError', message: 'The model could not be loaded.' } };
  await withExt({ lm, provider: 'onDevice' }, async (ext) => {
    const soft = softChecks();
    let popup = await openPopup(ext);
    await waitForChip(popup, 'On-device · Regular');
    const turn = await askAi(popup, Q);
    const calls = await workerCalls(ext);
    soft.check(calls.create.length === 1 && calls.prompts.length === 0, `the worker should try one session and prompt nothing: ${describeLmCalls(calls)}`);
    const note = /^The on-device model is not available \(The model could not be loaded\.\)\. Searched locally\.$/;
    soft.check(turn.notices.some((n) => note.test(n)), `the turn should say why it searched locally; notices: ${JSON.stringify(turn.notices)}`);
    soft.check(turn.results.some((r) => r.href === CTE_URL) && turn.results.every((r) => !r.reason), `local results expected:\n${describeAiTurn(turn)}`);
    soft.check(/^Local\b/.test((await newestMeta(popup)) ?? ''), `the turn's meta should name Local: ${await newestMeta(popup)}`);
    soft.check((await alertText(popup)) === '', `no alert expected: ${await alertText(popup)}`);
    popup = await reopen(ext, popup);
    await popup.waitForFunction((sel) => document.querySelectorAll(sel).length >= 1, SEL.turn, { timeout: LIMIT_MS }).catch(checkedBelow);
    const back = (await readAiTurns(popup))[0];
    soft.check(back?.notices.some((n) => note.test(n)), `after reopening, the turn and its note should be back:\n${describeAiTurn(back)}`);
    await waitForSettled(popup, POPUP_STARTUP);
    await flushEvents(ext, popup);
    try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
    try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
    soft.done(describeAiTurn(turn));
  });
});

// ---------------------------------------------------------------------------------------------
// 3. The provider choice

const PROVIDERS = ['auto', 'local', 'gemini', 'onDevice'];

test('options: the "AI provider" radio group saves provider auto/local/gemini/onDevice to settings', SLOW, async () => {
  await withExt({ lm: { availability: 'available' } }, async (ext) => {
    const options = await ext.openOptions();
    const group = options.getByRole('radiogroup', { name: 'AI provider' });
    await group.waitFor({ timeout: LIMIT_MS });
    const radios = group.locator('input[type=radio][name=provider]');
    await options.waitForFunction(() => !document.querySelector('fieldset[aria-label="AI provider"]')?.disabled, null, { timeout: LIMIT_MS }).catch(failedWaiting('the AI provider group stayed disabled'));
    assert.deepEqual(await radios.evaluateAll((rs) => rs.map((r) => r.value)), PROVIDERS, 'radio values, in order');
    assert.equal(await group.locator('input:checked').getAttribute('value'), 'auto', 'the default provider is auto');
    for (const value of ['onDevice', 'local', 'gemini', 'auto', 'onDevice']) {
      await group.locator(`input[value="${value}"]`).check();
      await waitForStored(options, (settings) => settings?.provider === value, `provider ${value} stored`).catch(checkedBelow);
      const settings = await readSettings(options);
      assert.equal(settings?.provider, value, `after choosing ${value}, chrome.storage.sync settings.provider is ${JSON.stringify(settings?.provider)}`);
    }
    assert.match(await statusText(options), /Saved/, 'role=status should say Saved');
    await options.reload();
    await options.waitForFunction(() => document.querySelector('input[name=provider]:checked')?.value === 'onDevice', null, { timeout: LIMIT_MS }).catch(checkedBelow);
    assert.equal(await options.locator('input[name=provider]:checked').getAttribute('value'), 'onDevice', 'after a reload the stored provider is checked');
    const other = await readSettings(options);
    assert.equal(other.defaultPeriod, '7d', `other settings are kept: ${JSON.stringify(other)}`);
    await flushEvents(ext, options);
    ext.assertNoErrors();
    ext.assertNoNetwork();
  });
});

/** Ask Q in a popup where on-device is "available" but the provider says otherwise; no model call may happen. */
async function askWithoutModel(ext, { chip, note }) {
  const soft = softChecks();
  const popup = await openPopup(ext);
  await waitForPopupReady(popup);
  soft.check((await chipText(popup)) === chip, `once the popup has read its settings and the model's availability, the .mode chip should read ${JSON.stringify(chip)}; it reads ${JSON.stringify(await chipText(popup))}`);
  const turn = await askAi(popup, Q);
  for (const [where, calls] of [['popup', await lmCalls(popup)], ['service worker', await workerCalls(ext)]]) {
    soft.check(calls.create.length === 0 && calls.prompts.length === 0, `no on-device call expected in the ${where}:\n${describeLmCalls(calls)}`);
  }
  soft.check(turn.results.some((r) => r.href === CTE_URL) && turn.results.every((r) => !r.reason), `local results expected:\n${describeAiTurn(turn)}`);
  soft.check(/^Local\b/.test((await newestMeta(popup)) ?? ''), `meta should name Local: ${await newestMeta(popup)}`);
  if (note) soft.check(turn.notices.some((n) => note.test(n)), `a note matching ${note} expected; notices: ${JSON.stringify(turn.notices)}`);
  else soft.check(turn.notices.length === 0, `no notice expected: ${JSON.stringify(turn.notices)}`);
  soft.check((await alertText(popup)) === '', `no alert expected: ${await alertText(popup)}`);
  soft.check((await chipText(popup)) === chip, `after the search the .mode chip should still read ${JSON.stringify(chip)}; it reads ${JSON.stringify(await chipText(popup))}`);
  await flushEvents(ext, popup);
  try { ext.assertNoErrors(); } catch (e) { soft.check(false, e.message); }
  try { ext.assertNoNetwork(); } catch (e) { soft.check(false, e.message); }
  soft.done();
}

test('provider local with the model available: the popup answers locally, no model call', SLOW, async () => {
  await withExt({ lm: { availability: 'available' }, provider: 'local' }, (ext) => askWithoutModel(ext, { chip: 'Local' }));
});

test('provider gemini with no key (model available): the popup answers locally with a note that no key is set', SLOW, async () => {
  await withExt({ lm: { availability: 'available' }, provider: 'gemini' }, (ext) =>
    askWithoutModel(ext, { chip: 'Local', note: /No Gemini API key is set.*Searched locally/ }),
  );
});

for (const provider of ['onDevice', 'auto']) test(`provider ${provider} with a Gemini key set and the model available: it answers on-device and nothing goes to Gemini`, SLOW, async () => {
  await withExt({ lm: { availability: 'available' }, provider, key: 'AIzaSyE2E-test-key-0123456789abcdefghij' }, async (ext) => {
    const popup = await openPopup(ext);
    await waitForPopupReady(popup);
    assert.equal(await chipText(popup), 'On-device · Regular', 'once the popup has read its settings (a key among them) and the availability');
    const turn = await askAi(popup, Q);
    assert.ok(turn.results.length > 0 && turn.results.every((r) => r.reason), `ranked on-device results expected:\n${describeAiTurn(turn)}`);
    assert.match((await newestMeta(popup)) ?? '', /^On-device/);
    await flushEvents(ext, popup);
    ext.assertNoNetwork();
    ext.assertNoErrors();
  });
});

test('provider onDevice with a Gemini key set but the model unavailable: local search with a note, never Gemini', SLOW, async () => {
  await withExt({ lm: { availability: 'unavailable' }, provider: 'onDevice', key: 'AIzaSyE2E-test-key-0123456789abcdefghij' }, (ext) =>
    askWithoutModel(ext, { chip: 'Local', note: /not available on this device.*Searched locally/ }),
  );
});
