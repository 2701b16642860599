// A committed question without a model, end to end: the service worker searches it and writes its
// answer, so that closing the popup does not lose it.
//
// The worker's write of the answer (`chrome.storage.local.set` of a `log:…` item) is held by the
// test until the popup that asked is closed: the fault happens at a known step, with no timer.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { demoHistory, CTE_ARTICLE } from './support/fixtures.mjs';
import { SEL, openPopup, logEntries, readTurns, waitForTurns, hrefs, describeTurn } from './support/popup.mjs';
import { submit } from './support/ai.mjs';
import { LIMIT_MS, POPUP_STARTUP, flushEvents, trackChromeCalls, waitForSettled, waitUntil } from './support/settle.mjs';

const Q = 'recursive cte';

/**
 * Holds the worker's writes of turns until `release()`; `held()` counts those waiting, `stored(q)`
 * says whether a turn of `q` is written.
 */
async function holdTurnWrites(ext) {
  await ext.serviceWorker.evaluate(() => {
    const area = chrome.storage.local;
    const real = area.set.bind(area);
    globalThis.__heldWrites = [];
    area.set = (items) => {
      if (!Object.keys(items).some((key) => key.startsWith('log:'))) return real(items);
      return new Promise((resolve, reject) => {
        globalThis.__heldWrites.push(() => real(items).then(resolve, reject));
      });
    };
    globalThis.__releaseWrites = () => {
      area.set = real;
      for (const write of globalThis.__heldWrites.splice(0)) write();
    };
  });
  return {
    held: () => ext.serviceWorker.evaluate(() => globalThis.__heldWrites.length),
    release: () => ext.serviceWorker.evaluate(() => globalThis.__releaseWrites()),
    /** Whether a turn of `question` is in storage. */
    stored: (question) =>
      ext.serviceWorker.evaluate(
        (q) => chrome.storage.local.get(null).then((all) => Object.entries(all).some(([key, turn]) => key.startsWith('log:') && turn?.question === q)),
        question,
      ),
  };
}

test('a local search whose popup closes before its answer is written is answered, stored once, and shown on reopening', { timeout: 120_000 }, async () => {
  const ext = await launchExtension({ history: demoHistory(Date.now()) });
  try {
    await trackChromeCalls(ext.context);
    const popup = await openPopup(ext);
    await waitForSettled(popup, POPUP_STARTUP);
    const writes = await holdTurnWrites(ext);
    await submit(popup, Q);
    // The worker has searched and is writing the answer: the popup that asked goes away.
    await waitUntil(async () => (await writes.held()) > 0, "the worker's write of the answer");
    assert.equal(await logEntries(popup).then((e) => e.filter((t) => t.question === Q).length), 0, 'precondition: not written yet');
    await popup.close();
    await writes.release();
    await waitUntil(() => writes.stored(Q), 'the answer written, no popup open');
    const again = await openPopup(ext);
    await waitForTurns(again, 1, LIMIT_MS);
    const [turn] = await readTurns(again);
    assert.equal(turn.question, Q, describeTurn(turn));
    assert.ok(hrefs(turn).includes(CTE_ARTICLE.cleanUrl), `the answer holds the page: ${describeTurn(turn)}`);
    const stored = (await logEntries(again)).filter((e) => e.question === Q);
    assert.equal(stored.length, 1, `stored once: ${JSON.stringify(stored)}`);
    assert.equal(stored[0].mode, 'local');
    assert.equal(await again.locator(SEL.conversation).getAttribute('aria-busy'), 'false', 'the reopened popup is not busy');
    await flushEvents(ext, again);
    ext.assertNoErrors();
    ext.assertNoNetwork();
  } finally {
    await ext.close();
  }
});
