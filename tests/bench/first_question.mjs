// The first topic question of a visit to the popup once the model has been released (the user comes
// back after the five minutes the model stays loaded, or after the browser restarted): Enter → the
// answer rendered and the conversation no longer busy, in the real extension, for two builds
// alternately in one run.
//
//   BENCH_BEFORE=<dist> BENCH_AFTER=<dist> node tests/bench/first_question.mjs
//
// Each round and build: a fresh profile (the topic fixture's 18 pages: the French tyre page the
// question is about, and unrelated ones),
// topic search on as installed, waited for until every page is understood; then the model's
// offscreen document is closed (what the five idle minutes do to its workers), the popup is
// opened, a 10-word question typed at BENCH_TYPE_DELAY_MS a key (100 ms), Enter 300 ms after the
// last key. BENCH_ROUNDS rounds (3), the builds' order swapped every other round.
import path from 'node:path';
import { launchExtension } from '../e2e/support/launch.mjs';
import { SEL } from '../e2e/support/popup.mjs';
import { LIVE } from '../e2e/support/live.mjs';
import { TYRE, topicHistory, waitForSemantic } from '../e2e/support/topics.mjs';
import { fmt, instrumentCommitted, median, report, table } from './lib.mjs';

const BUILDS = [
  ['before', process.env.BENCH_BEFORE],
  ['after', process.env.BENCH_AFTER],
];
const ROUNDS = Number(process.env.BENCH_ROUNDS || 3);
const TYPE_DELAY_MS = Number(process.env.BENCH_TYPE_DELAY_MS || 100);
const ENTER_PAUSE_MS = 300;
const QUESTION = 'how do I fix a flat tire on my bicycle quickly';
const ANSWER_TIMEOUT_MS = 30_000;

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

async function once(dist) {
  const now = Date.now();
  const ext = await launchExtension({ history: topicHistory(now), dist, topics: true });
  try {
    const options = await ext.openOptions();
    await waitForSemantic(options, 'ready');
    // The model released: its document closed, as no page has been embedded for a while.
    const open = await options.evaluate(async () => {
      const documents = () => chrome.runtime.getContexts({ contextTypes: ['OFFSCREEN_DOCUMENT'] });
      if ((await documents()).length > 0) await chrome.offscreen.closeDocument();
      return (await documents()).length;
    });
    if (open !== 0) throw new Error('the model document is still open');
    const page = await ext.context.newPage();
    await page.addInitScript(instrumentCommitted, [SEL.search, SEL.turn, LIVE]);
    await page.goto(ext.url('popup.html'), { waitUntil: 'domcontentloaded' });
    await page.waitForFunction(() => window.__bench.focusAt !== undefined, null, { timeout: 15_000 });
    await page.keyboard.type(QUESTION, { delay: TYPE_DELAY_MS });
    await sleep(ENTER_PAUSE_MS);
    await page.keyboard.press('Enter');
    await page.waitForFunction(() => window.__bench.answerAt !== undefined, null, { timeout: ANSWER_TIMEOUT_MS });
    const b = await page.evaluate(() => window.__bench);
    const found = await page.evaluate(
      ([sel, url]) => [...document.querySelectorAll(`${sel} li a`)].some((a) => a.href === url),
      [SEL.turn, TYRE.url],
    );
    ext.assertNoNetwork();
    ext.assertNoErrors();
    return { enterMs: b.answerAt - b.enterAt, found };
  } finally {
    await ext.close();
  }
}

for (const [name, dist] of BUILDS) {
  if (!dist) throw new Error(`BENCH_${name.toUpperCase()} is not set (an unpacked build's directory)`);
}
const results = Object.fromEntries(BUILDS.map(([name]) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = round % 2 ? [...BUILDS].reverse() : BUILDS;
  for (const [name, dist] of order) {
    const r = await once(path.resolve(dist));
    results[name].push(r);
    process.stderr.write(`first question: round ${round + 1}, ${name}: ${fmt(r.enterMs, 0)} ms${r.found ? '' : ' (the tyre page not in the answer)'}\n`);
  }
}
const rows = BUILDS.map(([name, dist]) => {
  const ms = results[name].map((r) => r.enterMs);
  return [
    `${name} (${dist})`,
    ms.map((v) => fmt(v, 0)).join(', '),
    fmt(median(ms), 0),
    `${results[name].filter((r) => r.found).length} of ${ms.length}`,
  ];
});
report('first_question', 'The first topic question once the model was released', [
  `A fresh profile per round and build (18 pages, topic search on, every page understood), the model's document then closed; the popup opened, "${QUESTION}" typed at ${TYPE_DELAY_MS} ms a key, Enter ${ENTER_PAUSE_MS} ms after the last; Enter → the answer rendered and no longer busy. ${ROUNDS} rounds, the builds alternated.`,
  table(['build', 'Enter → answer (ms), each round', 'median', 'the tyre page found'], rows),
]);
