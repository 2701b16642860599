// Edge sizes of history: none at all, and 20,000 entries. Both must give a clear state, no error.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { CTE_ARTICLE, demoHistory, isExcludedHref, largeHistory } from './support/fixtures.mjs';
import { SEL, alertText, ask, assertFound, busyState, describeTurn, openPopupMeasured, statusText } from './support/popup.mjs';
import { flushEvents } from './support/settle.mjs';

/** A failure limit for a search over 20,000 pages on a slow machine (the worker may still be indexing). */
const BIG = { timeout: 90_000 };

function assertClearState(turn, what) {
  assert.ok(turn, `${what}: a turn is shown`);
  if (turn.results.length === 0) {
    assert.equal(turn.hasList, false, `${what}: no empty result list`);
    assert.ok(turn.notice && turn.notice.length > 10, `${what}: a notice explains there is nothing (got ${JSON.stringify(turn.notice)})`);
  } else if (turn.notice !== null) {
    // Right after install the index may not reach back far enough yet: the turn then says that
    // Chrome's own search filled in — never that nothing was found.
    assert.match(turn.notice, /^Indexing your history…/, `${what}: results and no "nothing found" notice`);
  }
}

test('an empty history gives a clear state and no error', async () => {
  const ext = await launchExtension({ history: [] });
  try {
    const { page } = await openPopupMeasured(ext);
    const recent = await ask(page, '', { period: '7d' });
    assertClearState(recent, 'empty question, empty history');
    assert.equal(recent.results.length, 0, describeTurn(recent));
    const q = await ask(page, 'recursive cte', { period: '90d' });
    assertClearState(q, 'question, empty history');
    assert.equal(q.results.length, 0, describeTurn(q));
    assert.ok(q.notice.includes('recursive cte'), `the notice names the question: ${JSON.stringify(q.notice)}`);
    assert.equal(await busyState(page), 'false');
    assert.notEqual(await statusText(page), '', 'role=status announces the outcome');
    assert.equal(await alertText(page), '', 'an empty history is not an error');
    await flushEvents(ext, page);
    ext.assertNoErrors();
    ext.assertNoNetwork();
  } finally {
    await ext.close();
  }
});

test('a 20,000-entry history gives a clear state and no error', async () => {
  const now = Date.now();
  const ext = await launchExtension({ history: [...largeHistory(20_000, now), ...demoHistory(now)] });
  try {
    const { page } = await openPopupMeasured(ext);
    for (const period of ['24h', '90d']) {
      const recent = await ask(page, '', { period, ...BIG });
      assertClearState(recent, `empty question over ${period}`);
      assert.ok(recent.results.length > 0, `recent pages over ${period}: ${describeTurn(recent)}`);
      assert.deepEqual(recent.results.filter((r) => isExcludedHref(r.href)), [], 'no excluded page');
      const unique = new Set(recent.results.map((r) => r.href));
      assert.equal(unique.size, recent.results.length, 'no duplicate result');
    }
    const cte = await ask(page, 'recursive cte', { period: '30d', ...BIG });
    assertFound(cte, CTE_ARTICLE.cleanUrl, 'the recursive CTE article among 20,000 pages');
    const none = await ask(page, 'zzqxjv', { period: '90d', ...BIG });
    assertClearState(none, 'no match among 20,000');
    assert.equal(none.results.length, 0);
    assert.equal(await alertText(page), '', 'no alert');
    await flushEvents(ext, page);
    ext.assertNoErrors();
    ext.assertNoNetwork();
  } finally {
    await ext.close();
  }
});
