// AI searches hosted by the service worker, end to end: a Gemini search outlives the popup that
// asked, every open popup follows it over the `ask` port, Cancel works from any of them, one search
// runs at a time, and a worker the browser stops leaves a turn that says so with a Retry.
//
// Gemini is answered at the network layer (support/gemini.mjs); a reply can be held by a gate until
// the test has closed the popup, opened another, or cancelled — so each fault happens at a known
// step of the real pipeline, with no timer.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { demoHistory } from './support/fixtures.mjs';
import { SEL, openPopup, logEntries, alertText } from './support/popup.mjs';
import { geminiError, hang } from './support/gemini.mjs';
import { sharedGemini, withGemini, submit, readAiTurns, describeAiTurn, waitForStatus, recordStatuses } from './support/ai.mjs';
import { askWorker, stopServiceWorker } from './support/live.mjs';
import { LIMIT_MS, POPUP_STARTUP, flushEvents, gate, trackChromeCalls, waitForSettled, waitUntil } from './support/settle.mjs';

const Q = 'recursive cte postgresql';
const SLOW = { timeout: 180_000 };
const INTERRUPTED = /stopped before it ended/i;
/** A popup opened while the worker's search runs is busy until it ends: do not wait for that. */
const WHILE_RUNNING = { idle: false };

/** The browser most tests share, reset between them (support/ai.mjs `sharedGemini`). */
const demo = sharedGemini();
after(() => demo.close());

/**
 * With a key, opens a popup and runs `fn`, in the shared browser — or, with `own`, in a browser of
 * its own, for a test that deletes history, stops the worker or breaks its storage.
 */
async function withWorkerAi(fn, { own = false } = {}) {
  const inPopup = async ({ ext, gemini }) => {
    const popup = await openPopup(ext);
    await waitForSettled(popup, POPUP_STARTUP);
    await fn({ ext, gemini, popup });
  };
  if (!own) return demo.run({}, inPopup);
  await withGemini({ history: demoHistory(Date.now()) }, async ({ ext, gemini }) => {
    await trackChromeCalls(ext.context);
    await inPopup({ ext, gemini });
  });
}

/** A reply of `kind` held until the gate opens, then the smart answer. */
function hold(gemini, kind) {
  const held = gate();
  gemini.queue(kind, async () => {
    await held.opened;
    return null;
  });
  return held;
}

/** An extension page that runs none of the extension's code: reads storage while no popup is open. */
async function storagePage(ext) {
  const page = await ext.context.newPage();
  await page.goto(ext.url('manifest.json'));
  return page;
}

/** The stored turns of `question`, once one satisfies `done` (the limit is for failing only). */
async function waitForStored(page, question, done, what) {
  let entries = [];
  await waitUntil(
    async () => {
      entries = (await logEntries(page)).filter((e) => e.question === question);
      return entries.some(done);
    },
    what,
    { describe: () => JSON.stringify(entries) },
  );
  return entries;
}

const answered = (e) => !e.running && !e.error && (e.results?.length ?? 0) > 0;

/** Waits until the popup is not busy and its newest turn is `question`'s. */
async function waitForShownTurn(popup, question) {
  await popup.waitForFunction(
    ({ sel, question }) => {
      const section = document.querySelector(sel.conversation);
      const first = section?.querySelector('article.turn p.question');
      return section?.getAttribute('aria-busy') === 'false' && first?.textContent.trim() === question;
    },
    { sel: SEL, question },
    { timeout: LIMIT_MS, polling: 50 },
  );
  return (await readAiTurns(popup))[0];
}

const cancelButton = (popup) => popup.getByRole('button', { name: 'Cancel', exact: true });

for (const step of ['expansion', 'ranking']) {
  test(`closing the popup during the ${step}: the worker finishes the search, and the reopened popup shows the answer`, SLOW, async () => {
    await withWorkerAi(async ({ ext, gemini, popup }) => {
      const held = hold(gemini, step);
      await submit(popup, Q);
      await gemini.waitForCalls(1, { kind: step, timeout: LIMIT_MS });
      await popup.close();
      held.open();
      const store = await storagePage(ext);
      const [stored] = await waitForStored(store, Q, answered, 'the answer written with no popup open');
      assert.equal(stored.mode, 'gemini');
      assert.ok(stored.results.every((r) => r.reason), 'the picks keep their reasons');
      for (const call of gemini.requests) assert.match(call.source, /^service worker/, `the worker made ${call.kind}`);
      const again = await openPopup(ext);
      const turn = await waitForShownTurn(again, Q);
      assert.ok(turn.results.length > 0, describeAiTurn(turn));
      assert.deepEqual(turn.results.map((r) => r.href), stored.results.map((r) => r.url), 'the popup shows the stored answer');
      assert.equal((await logEntries(again)).filter((e) => e.question === Q).length, 1, 'one turn stored');
    });
  });
}

test('closing the popup during a retry wait: the worker retries, and the answer is there on reopening', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    gemini.queue('expansion', geminiError.quota('2s'));
    await recordStatuses(popup);
    await submit(popup, Q);
    await waitForStatus(popup, /retrying in 2\s*s/i);
    await popup.close();
    const store = await storagePage(ext);
    await waitForStored(store, Q, answered, 'the answer after the retry');
    assert.equal(gemini.calls('expansion').length, 2, 'the expansion was retried once');
    assert.equal(gemini.calls('ranking').length, 1);
    const turn = await waitForShownTurn(await openPopup(ext), Q);
    assert.ok(turn.results.length > 0, describeAiTurn(turn));
  });
});

test('a popup opened while the search runs shows its live progress and Cancel, then its answer', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    const held = hold(gemini, 'expansion');
    await submit(popup, Q);
    await gemini.waitForCalls(1, { kind: 'expansion', timeout: LIMIT_MS });
    await popup.close();
    const again = await openPopup(ext, WHILE_RUNNING);
    await recordStatuses(again);
    await waitForStatus(again, /expanding/i);
    assert.equal(await again.locator(SEL.conversation).getAttribute('aria-busy'), 'true');
    assert.equal(await cancelButton(again).count(), 1, 'Cancel is offered');
    assert.equal(await again.locator(SEL.turn).count(), 0, 'the running search is not shown as a turn yet');
    held.open();
    const turn = await waitForShownTurn(again, Q);
    assert.ok(turn.results.length > 0, describeAiTurn(turn));
    assert.doesNotMatch(turn.text, INTERRUPTED);
  });
});

test('two popups on one search: both follow it, both show the answer, one turn is stored', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    const held = hold(gemini, 'ranking');
    await submit(popup, Q);
    const second = await openPopup(ext, WHILE_RUNNING);
    await gemini.waitForCalls(1, { kind: 'ranking', timeout: LIMIT_MS });
    await waitForStatus(second, /rank/i);
    held.open();
    const [first, other] = await Promise.all([waitForShownTurn(popup, Q), waitForShownTurn(second, Q)]);
    assert.ok(first.results.length > 0, describeAiTurn(first));
    assert.deepEqual(other.results, first.results, 'both popups show the same answer');
    assert.equal(await popup.locator(SEL.search).inputValue(), '', 'the asking popup clears its question');
    await flushEvents(ext, popup, second);
    assert.equal((await logEntries(second)).filter((e) => e.question === Q).length, 1, 'one turn stored');
    assert.equal(gemini.calls('expansion').length, 1, 'one search ran');
  });
});

test('Cancel from a second popup stops the search for both: cancelled, stored once, no further request', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    gemini.queue('expansion', hang());
    await submit(popup, Q);
    await gemini.waitForCalls(1, { kind: 'expansion', timeout: LIMIT_MS });
    const second = await openPopup(ext, WHILE_RUNNING);
    await waitForStatus(second, /expanding/i);
    await cancelButton(second).click();
    const [first, other] = await Promise.all([waitForShownTurn(popup, Q), waitForShownTurn(second, Q)]);
    for (const turn of [first, other]) assert.match(turn.text, /cancel/i, describeAiTurn(turn));
    const stored = (await logEntries(second)).filter((e) => e.question === Q);
    assert.equal(stored.length, 1);
    assert.equal(stored[0].error, 'cancelled');
    await flushEvents(ext, popup, second);
    assert.equal(gemini.requests.length, 1, 'no request after Cancel');
    assert.equal(await cancelButton(popup).count(), 0, 'no Cancel left in the first popup');
  });
});

test('a second question while one runs is refused, said plainly, and the first search ends as it should', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    const held = hold(gemini, 'expansion');
    await submit(popup, Q);
    await gemini.waitForCalls(1, { kind: 'expansion', timeout: LIMIT_MS });
    const second = await openPopup(ext, WHILE_RUNNING);
    await waitForStatus(second, /expanding/i);
    await submit(second, 'sourdough starter');
    await second.waitForFunction((sel) => /already running/i.test(document.querySelector(sel)?.textContent ?? ''), SEL.alert, { timeout: LIMIT_MS });
    assert.match(await alertText(second), new RegExp(`already running.*${Q}`, 'i'), 'the refusal names the running question');
    assert.equal(await second.locator(SEL.search).inputValue(), 'sourdough starter', 'the refused question stays in the box');
    held.open();
    const turn = await waitForShownTurn(second, Q);
    assert.ok(turn.results.length > 0, describeAiTurn(turn));
    await waitForShownTurn(popup, Q);
    await flushEvents(ext, popup, second);
    assert.deepEqual(gemini.calls('expansion').map((c) => c.question), [Q], 'the refused question was never sent');
    assert.deepEqual((await logEntries(second)).map((e) => e.question), [Q], 'only the first question is stored');
  });
});

test('the worker stopped mid-search: the turn says it was interrupted (shown and stored), and Retry answers it', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    gemini.queue('expansion', hang());
    await submit(popup, Q);
    await gemini.waitForCalls(1, { kind: 'expansion', timeout: LIMIT_MS });
    const worker = await stopServiceWorker(ext, popup);
    try {
      const turn = await waitForShownTurn(popup, Q);
      assert.match(turn.text, INTERRUPTED, describeAiTurn(turn));
      assert.match(await alertText(popup), INTERRUPTED);
      // The popup connects again, which starts a worker; it marks the stored turn interrupted.
      await worker.running();
      const [stored] = await waitForStored(popup, Q, (e) => e.error === 'interrupted', 'the stored turn marked interrupted');
      assert.ok(!stored.running, 'no turn is left "running"');
      const reopened = await openPopup(ext);
      const shown = await waitForShownTurn(reopened, Q);
      assert.match(shown.text, INTERRUPTED, 'a popup opened later shows it interrupted, not searching');
      await reopened.getByRole('button', { name: 'Retry', exact: true }).click();
      await waitForStored(reopened, Q, answered, 'the retried search answered');
      const retried = await waitForShownTurn(reopened, Q);
      assert.ok(retried.results.length > 0, describeAiTurn(retried));
      const turns = await readAiTurns(reopened);
      assert.equal(turns.filter((t) => t.question === Q).length, 2, 'the interrupted turn stays below the answer');
    } finally {
      await worker.detach();
    }
  }, { own: true });
});

test('Gemini answering after the user cancelled is ignored: nothing written twice, no ranking', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    const held = hold(gemini, 'expansion');
    await submit(popup, Q);
    const [call] = await gemini.waitForCalls(1, { kind: 'expansion', timeout: LIMIT_MS });
    await waitForStatus(popup, /expanding/i);
    await cancelButton(popup).click();
    const turn = await waitForShownTurn(popup, Q);
    assert.match(turn.text, /cancel/i, describeAiTurn(turn));
    held.open();
    await waitUntil(() => call.answeredAt != null, 'the late answer delivered');
    await flushEvents(ext, popup);
    const stored = (await logEntries(popup)).filter((e) => e.question === Q);
    assert.equal(stored.length, 1, 'one turn stored');
    assert.equal(stored[0].error, 'cancelled', 'still the cancelled turn');
    assert.equal(gemini.calls('ranking').length, 0, 'the late keywords started no ranking');
    assert.equal((await readAiTurns(popup)).filter((t) => t.question === Q).length, 1, 'one turn shown');
  });
});

test('a page deleted from Chrome\'s own history while the search runs is left out of its answer', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    const DOCS = 'https://www.postgresql.org/docs/current/queries-with.html';
    const indexed = async () => (await askWorker(popup, { type: 'search', query: 'queries common table expressions', startMs: 0, limit: 25 }))
      ?.pages?.map((p) => p.url) ?? [];
    assert.ok((await indexed()).includes(DOCS), 'the page is indexed before');
    const held = hold(gemini, 'ranking');
    await submit(popup, Q);
    await gemini.waitForCalls(1, { kind: 'ranking', timeout: LIMIT_MS });
    const [ranking] = gemini.calls('ranking');
    assert.ok(ranking.candidates.some((c) => c.url.includes('queries-with')), 'the page is among the candidates sent');
    // Deleted as from chrome://history (not through the popup); the worker's index forgetting it
    // proves the worker has handled Chrome's onVisitRemoved.
    await popup.evaluate((url) => chrome.history.deleteUrl({ url }), DOCS);
    await waitUntil(async () => !(await indexed()).includes(DOCS), 'the worker forgets the deleted page');
    held.open();
    const store = await storagePage(ext);
    const [stored] = await waitForStored(store, Q, answered, 'the answer written');
    const urls = stored.results.map((r) => r.url);
    assert.ok(!urls.includes(DOCS), `the deleted page is not in the stored answer: ${urls.join(', ')}`);
    const turn = await waitForShownTurn(popup, Q);
    assert.ok(!turn.results.some((r) => r.href === DOCS), describeAiTurn(turn));
    assert.deepEqual(turn.results.map((r) => r.href), urls, 'the popup shows the stored answer');
  }, { own: true });
});

test('settings the worker cannot read: the search says it could not start, the question stays, nothing is sent or stored', SLOW, async () => {
  await withWorkerAi(async ({ ext, gemini, popup }) => {
    // The popup has read the key; the worker's own read of the settings now fails.
    await ext.serviceWorker.evaluate(() => {
      chrome.storage.sync.get = () => Promise.reject(new Error('sync storage is unavailable'));
    });
    await submit(popup, Q);
    await popup.waitForFunction((sel) => /could not start/i.test(document.querySelector(sel)?.textContent ?? ''), SEL.alert, { timeout: LIMIT_MS });
    assert.match(await alertText(popup), /could not read its settings; it tries again by itself, so ask again in a moment.*Try again/, 'the alert says why and what to do, in the catalogue\'s words');
    await flushEvents(ext, popup);
    assert.ok(ext.consoleMessages.some((m) => m.type === 'warning' && /sync storage is unavailable/.test(m.text)), 'the browser\'s own words are in the console');
    assert.equal(await popup.locator(SEL.search).inputValue(), Q, 'the question stays in the box');
    assert.equal(await popup.locator(SEL.conversation).getAttribute('aria-busy'), 'false', 'the popup is not left busy');
    assert.equal(gemini.requests.length, 0, 'nothing sent to Gemini');
    assert.deepEqual((await logEntries(popup)).filter((e) => e.question === Q), [], 'no turn stored, not even a local one');
  }, { own: true });
});
