// On-device AI (issue "On-device AI: the same smart pipeline on Chrome's built-in model, no key and
// no network"), end to end in the real built extension.
//
// 1. The real path: in this Chromium `LanguageModel.availability()` is "unavailable"; the options
//    page says why and the popup falls back to the local search, quietly and with no network.
// 2. A stand-in `LanguageModel` (support/language_model_stub.mjs) installed by the harness into the
//    extension's pages with `context.addInitScript` (it reaches chrome-extension:// pages): the
//    whole pipeline on "the device" — keywords, retrieval, ranking with reasons — the download and
//    its progress, the context-window fitting, and every failure.
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
import { SEL, openPopup, alertText, statusText } from './support/popup.mjs';
import { askAi, submit, readAiTurns, describeAiTurn, readSettings, setAiSettings, reopen, waitForStatus } from './support/ai.mjs';
import {
  SERVICE_NOT_RUNNING,
  installLanguageModel,
  configureLanguageModel,
  lmCalls,
  describeLmCalls,
} from './support/language_model_stub.mjs';

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
    if (lm) await installLanguageModel(ext.context, lm);
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
      for (const page of ext.context.pages()) {
        if (!page.url().startsWith('chrome-extension://')) continue;
        const calls = await lmCalls(page).catch(() => null);
        if (calls) e.message += `\nLanguageModel calls in ${page.url()}:\n${describeLmCalls(calls)}`;
      }
    }
    throw e;
  } finally {
    await ext.close();
  }
}

async function chipText(page) {
  return ((await page.locator('.mode').textContent().catch(() => null)) ?? '').trim();
}

/** Wait until the popup's `.mode` chip reads `expected` (the popup learns availability and settings asynchronously). */
async function waitForChip(page, expected, timeout = 5_000) {
  const deadline = Date.now() + timeout;
  let seen;
  while (Date.now() < deadline) {
    seen = await chipText(page);
    if (seen === expected) return seen;
    await page.waitForTimeout(50);
  }
  throw new Error(`the popup's .mode chip should read ${JSON.stringify(expected)}; it reads ${JSON.stringify(seen)}`);
}

/** The newest turn's meta line (`p.meta`). */
async function newestMeta(page) {
  return (await page.locator(`${SEL.turn} p.meta`).first().textContent())?.trim() ?? null;
}

/** Read the options page's `.device-status` line once the availability check is over. */
async function deviceStatus(options) {
  const line = options.locator('.device-status');
  await line.waitFor({ timeout: 10_000 });
  await options
    .waitForFunction(() => !/^Checking/.test(document.querySelector('.device-status')?.textContent ?? 'Checking'), null, { timeout: 5_000 })
    .catch(() => {});
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

test('real Prompt API: LanguageModel exists in extension pages and says "unavailable" here', SLOW, async () => {
  await withExt({}, async (ext) => {
    const page = await ext.openPage('manifest.json');
    const probe = await page.evaluate(async () => {
      const out = { type: typeof LanguageModel };
      try {
        out.availability = await LanguageModel.availability();
      } catch (e) {
        out.availability = `threw ${e.name}: ${e.message}`;
      }
      return out;
    });
    assert.equal(probe.type, 'function', 'typeof LanguageModel in an extension page');
    assert.equal(probe.availability, 'unavailable', 'LanguageModel.availability() in this Chromium (the rest of the real-path tests assume it)');
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
      const checked = await options.locator('input[type=radio][name=provider]:checked').getAttribute('value').catch(() => null);
      soft.check(checked === provider, `options: the checked provider radio should be ${provider}, is ${checked}`);
      await options.close();

      const popup = await openPopup(ext);
      await waitForChip(popup, 'Local').catch((e) => soft.check(false, e.message));
      soft.check((await popup.locator('.device-download').count()) === 0, 'the popup offers a download although the model is unavailable');
      const turn = await askAi(popup, Q, { timeout: 20_000 });
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
      await popup.waitForTimeout(300);
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
