// The options page's AI settings: the Gemini key (save, show/hide, test, remove), the search depth
// and the model — and what they do to the popup's searches. Gemini is the network-layer stand-in.
//
// Contract: <input type=password aria-label="Gemini API key">; buttons "Show key" (then "Hide key"),
// "Save key", "Test key", "Remove key"; outcomes in role=status ("Key saved", "The key works",
// "Key removed") or role=alert; radiogroup "Search depth" of input[name=depth] (superficial,
// regular (default), exhaustive, sheerlock); <input type=text aria-label="Gemini model"> (default
// gemini-2.5-flash), saved on change.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { demoHistory } from './support/fixtures.mjs';
import { SEL, openPopup, ask, logEntries, statusText, alertText } from './support/popup.mjs';
import { TEST_KEY, BAD_KEY } from './support/gemini.mjs';
import { AI_FIELDS, OPTIONS, launchAi, askAi, readSettings, setAiSettings, waitForInstalledSettings, assertNoKey } from './support/ai.mjs';
import { LIMIT_MS, flushEvents, checkedBelow } from './support/settle.mjs';

const SLOW = { timeout: 180_000 };

async function openOptions(ext) {
  const page = await ext.openOptions();
  await page.locator(OPTIONS.key).waitFor({ timeout: LIMIT_MS }).catch(async () => {
    const body = await page.evaluate(() => document.body?.innerText.slice(0, 400)).catch(() => '?');
    throw new Error(`the options page has no ${OPTIONS.key} within ${LIMIT_MS} ms; it shows: ${JSON.stringify(body)}`);
  });
  return page;
}

async function waitForText(page, selector, re, what, timeout = LIMIT_MS) {
  try {
    await page.waitForFunction(({ selector, source, flags }) => [...document.querySelectorAll(selector)].some((e) => new RegExp(source, flags).test(e.textContent)), { selector, source: re.source, flags: re.flags }, { timeout, polling: 100 });
  } catch {
    throw new Error(`${what}: expected ${selector} to match ${re}; status=${JSON.stringify(await statusText(page))} alert=${JSON.stringify(await alertText(page))}`);
  }
}

/** Waits until chrome.storage.sync settings[field] is `expected` (null: absent or empty); returns the settings (the caller asserts). */
async function waitForSetting(page, field, expected, timeout = LIMIT_MS) {
  await page
    .waitForFunction(
      async ({ field, expected }) => {
        const value = (await chrome.storage.sync.get('settings')).settings?.[field];
        return expected === null ? !value : value === expected;
      },
      { field, expected },
      { timeout, polling: 100 },
    )
    .catch(checkedBelow); // every caller asserts on the settings returned
  return readSettings(page);
}

test('options: save (shown on demand), test with one cheap request, refused key reported, remove → local mode with zero network', SLOW, async () => {
  const { ext, gemini } = await launchAi({ history: demoHistory(), key: null });
  try {
    const options = await openOptions(ext);
    const field = options.locator(OPTIONS.key);
    assert.equal(await field.getAttribute('type'), 'password', 'the key field is a password field');

    await field.fill(TEST_KEY);
    await options.getByRole('button', { name: 'Show key', exact: true }).click();
    assert.equal(await field.getAttribute('type'), 'text', '"Show key" shows the key');
    const hide = options.getByRole('button', { name: 'Hide key', exact: true });
    assert.equal(await hide.count(), 1, 'the button is then named "Hide key"');
    await hide.click();
    assert.equal(await field.getAttribute('type'), 'password', '"Hide key" hides it again');

    await options.getByRole('button', { name: 'Save key', exact: true }).click();
    await waitForText(options, SEL.status, /key saved/i, 'after Save key');
    const saved = await waitForSetting(options, AI_FIELDS.key, TEST_KEY);
    assert.equal(saved?.[AI_FIELDS.key], TEST_KEY, `the key is saved in chrome.storage.sync settings.${AI_FIELDS.key}`);
    await flushEvents(ext, options);
    assert.equal(gemini.requests.length, 0, `saving makes no request:\n${gemini.describe()}`);

    // Test key: exactly one cheap request, key in the header, success reported.
    await options.getByRole('button', { name: 'Test key', exact: true }).click();
    await waitForText(options, SEL.status, /works/i, 'after Test key');
    assert.equal(gemini.requests.length, 1, `"Test key" makes exactly one request:\n${gemini.describe()}`);
    const probe = gemini.requests[0];
    assert.equal(probe.apiKey, TEST_KEY, 'the test request carries the key in x-goog-api-key');
    assert.ok(!probe.urlHasKey, `no key in the URL: ${probe.url}`);
    const cheap = probe.method === 'GET' || /:countTokens$/.test(probe.path) || ((probe.rawBody?.length ?? 0) < 1_000 && (probe.body?.generationConfig?.maxOutputTokens ?? Infinity) <= 64);
    assert.ok(cheap, `the test request is cheap (a GET/countTokens, or a generateContent under 1 kB with maxOutputTokens ≤ 64): ${probe.method} ${probe.path} ${probe.rawBody?.slice(0, 300)}`);

    // A refused key is reported clearly, without the key.
    gemini.refuseKey(TEST_KEY);
    await options.getByRole('button', { name: 'Test key', exact: true }).click();
    await waitForText(options, SEL.alert, /key/i, 'after Test key with a refused key');
    const alert = await alertText(options);
    assert.match(alert, /refused|not valid|invalid|rejected/i, `the alert says the key was refused: ${JSON.stringify(alert)}`);
    assertNoKey({ 'the options alert': alert, 'the options status': await statusText(options) });
    assert.equal(gemini.requests.length, 2, `one more request for the second test:\n${gemini.describe()}`);
    gemini.refusedKeys.clear();

    // The popup searches in AI mode with the saved key.
    const popup = await openPopup(ext);
    const turn = await askAi(popup, 'recursive cte postgresql');
    assert.ok(gemini.calls('expansion').length === 1 && gemini.calls('ranking').length === 1, `AI search with the saved key:\n${gemini.describe()}`);
    assert.ok(turn.results.length > 0);
    assert.equal((await logEntries(popup)).at(-1)?.mode, 'gemini');
    await popup.close();

    // Remove key.
    await options.getByRole('button', { name: 'Remove key', exact: true }).click();
    await waitForText(options, SEL.status, /key removed/i, 'after Remove key');
    const removed = await waitForSetting(options, AI_FIELDS.key, null);
    assert.ok(!removed?.[AI_FIELDS.key], `the key is gone from settings: ${JSON.stringify(removed?.[AI_FIELDS.key])}`);
    assert.equal(await field.inputValue(), '', 'the key field is empty after removal');

    // Local mode: a search works with zero requests to any host.
    const before = ext.extensionRequests().length;
    const geminiBefore = gemini.requests.length;
    const popup2 = await openPopup(ext);
    const local = await ask(popup2, 'recursive cte');
    assert.ok(local.results.length > 0, 'the local search finds pages');
    // The search is over (its turn is stored, the conversation not busy): what it sent has reached the harness.
    await flushEvents(ext, popup2);
    const after = ext.extensionRequests().slice(before);
    assert.deepEqual(after.map((r) => `${r.method} ${r.url}`), [], 'no network request of any kind after the key was removed');
    assert.equal(gemini.requests.length, geminiBefore, 'no request to Gemini');
    assert.equal((await logEntries(popup2)).at(-1)?.mode, 'local', 'the turn is stored with mode "local"');
  } catch (e) {
    e.message += `\nGemini requests:\n${gemini.describe()}`;
    throw e;
  } finally {
    await ext.close();
  }
});

test('options: search depth radio group (regular by default) and the model field; the popup uses both', SLOW, async () => {
  const { ext, gemini } = await launchAi({ history: demoHistory() });
  try {
    const options = await openOptions(ext);
    const group = options.locator(OPTIONS.depthGroup);
    assert.equal(await group.count(), 1, `a radiogroup named "Search depth" (${OPTIONS.depthGroup})`);
    const values = await group.locator('input[type="radio"][name="depth"]').evaluateAll((rs) => rs.map((r) => r.value));
    assert.deepEqual(values, ['superficial', 'regular', 'exhaustive', 'sheerlock']);
    await options.waitForFunction((sel) => document.querySelector(sel)?.checked, OPTIONS.depth('regular'), { timeout: LIMIT_MS }).catch(checkedBelow);
    assert.equal(await options.locator(OPTIONS.depth('regular')).isChecked(), true, 'regular is the default');

    await options.locator(OPTIONS.depth('sheerlock')).check();
    const s1 = await waitForSetting(options, AI_FIELDS.depth, 'sheerlock');
    assert.equal(s1?.[AI_FIELDS.depth], 'sheerlock', 'the depth is saved');

    const model = options.locator(OPTIONS.model);
    assert.equal(await model.count(), 1, `a text field ${OPTIONS.model}`);
    const shown = (await model.inputValue()) || (await model.getAttribute('placeholder'));
    assert.equal(shown, 'gemini-2.5-flash', 'the model field shows the default model');
    await model.fill('gemini-2.5-flash-lite');
    await model.press('Tab');
    const s2 = await waitForSetting(options, AI_FIELDS.model, 'gemini-2.5-flash-lite');
    assert.equal(s2?.[AI_FIELDS.model], 'gemini-2.5-flash-lite', 'the model is saved on change');
    assert.equal(s2?.[AI_FIELDS.key], TEST_KEY, 'changing depth and model keeps the key');

    // A fresh options page shows what was saved.
    await options.close();
    const again = await openOptions(ext);
    await again.waitForFunction((sel) => document.querySelector(sel)?.checked, OPTIONS.depth('sheerlock'), { timeout: LIMIT_MS }).catch(checkedBelow);
    assert.equal(await again.locator(OPTIONS.depth('sheerlock')).isChecked(), true, 'reopened options shows the saved depth');
    assert.equal(await again.locator(OPTIONS.model).inputValue(), 'gemini-2.5-flash-lite', 'reopened options shows the saved model');

    const popup = await openPopup(ext);
    await askAi(popup, 'recursive cte postgresql');
    const [expansion] = gemini.calls('expansion');
    assert.ok(expansion, gemini.describe());
    assert.match(expansion.prompt.all, /(^|\D)100(\D|$)/, 'sheerlock asks for 100 keywords');
    assert.ok(gemini.requests.every((c) => c.path === '/v1beta/models/gemini-2.5-flash-lite:generateContent'), `every request goes to the chosen model:\n${gemini.describe()}`);
  } catch (e) {
    e.message += `\nGemini requests:\n${gemini.describe()}`;
    throw e;
  } finally {
    await ext.close();
  }
});

test('a key written to storage by another window switches the popup to AI mode; BAD_KEY refused → message, local results', SLOW, async () => {
  const { ext, gemini } = await launchAi({ history: demoHistory(), key: null });
  try {
    const page = await ext.context.newPage();
    await page.goto(ext.url('manifest.json'));
    await waitForInstalledSettings(page);
    await setAiSettings(page, { key: BAD_KEY });
    gemini.refuseKey(BAD_KEY);
    const popup = await openPopup(ext);
    const turn = await askAi(popup, 'recursive cte postgresql');
    assert.ok(gemini.requests.length >= 1 && gemini.requests.every((c) => c.apiKey === BAD_KEY), gemini.describe());
    assert.match(turn.notices.join(' '), /key/i, `the refused key is explained: ${JSON.stringify(turn.notices)}`);
    assert.ok(turn.results.length > 0, 'local results anyway');
    assertNoKey({ notices: turn.notices.join(' '), alert: await alertText(popup) }, BAD_KEY);
  } finally {
    await ext.close();
  }
});

for (const [provider, expectAi] of [['gemini', true], ['local', false]]) {
  test(`settings provider "${provider}" with a key: ${expectAi ? 'searches with Gemini' : 'stays local with zero network'}`, SLOW, async () => {
    const { ext, gemini } = await launchAi({ history: demoHistory(), provider });
    try {
      const popup = await openPopup(ext);
      const turn = await askAi(popup, 'recursive cte postgresql');
      assert.ok(turn.results.length > 0, 'results either way');
      const mode = (await logEntries(popup)).at(-1)?.mode;
      if (expectAi) {
        assert.ok(gemini.calls('expansion').length === 1 && gemini.calls('ranking').length === 1, gemini.describe());
        assert.equal(mode, 'gemini');
      } else {
        await flushEvents(ext, popup); // the search is over: what it sent has reached the harness
        assert.deepEqual(ext.extensionRequests().map((r) => `${r.method} ${r.url}`), [], 'no network request with provider "local"');
        assert.equal(mode, 'local');
      }
    } finally {
      await ext.close();
    }
  });
}

test('options: a key pasted with a character no header can carry is refused by name, nothing saved or sent', SLOW, async () => {
  const { ext, gemini } = await launchAi({ history: demoHistory(), key: null });
  try {
    const options = await openOptions(ext);
    const field = options.locator(OPTIONS.key);
    for (const [typed, named] of [[`“${TEST_KEY}”`, '““”'], [`${TEST_KEY.slice(0, 8)} ${TEST_KEY.slice(8)}`, 'a space']]) {
      await field.fill(typed);
      for (const button of ['Save key', 'Test key']) {
        await options.getByRole('button', { name: button, exact: true }).click();
        await waitForText(options, SEL.alert, /character an API key cannot have/, `after ${button} with ${JSON.stringify(typed)}`);
        const alert = await alertText(options);
        assert.ok(alert.includes(`(${named})`), `the alert names the character (${named}): ${JSON.stringify(alert)}`);
        assertNoKey({ 'the options alert': alert });
      }
    }
    const settings = await readSettings(options);
    assert.ok(!settings?.[AI_FIELDS.key], `no key saved: ${JSON.stringify(settings?.[AI_FIELDS.key])}`);
    await flushEvents(ext, options);
    assert.equal(gemini.requests.length, 0, `nothing sent:\n${gemini.describe()}`);
  } finally {
    await ext.close();
  }
});
