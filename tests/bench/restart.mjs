// The first answer after a worker restart, for two builds side by side in one run: Chrome stops an
// idle extension's worker after 30 s, so this is what a user meets at most openings of the popup.
//
//   BENCH_BEFORE=<dist> BENCH_AFTER=<dist> node tests/bench/restart.mjs
//   BENCH_TOPICS=1 ...     topic search on, as installed: each browser's model understands its
//                          history's pages in the background all along the run (both browsers at
//                          once: twice the background work one user's computer has)
//
// Both builds are installed at once, each in its own browser on a fresh profile seeded with
// largeHistory(50_000) + demoHistory (+ the "Crème brûlée" page the question finds); each builds its
// index and saves its snapshot, then stays idle (topic search off, as the e2e profiles, unless
// BENCH_TOPICS=1). Then
// BENCH_ROUNDS rounds (6), the builds' order swapped every other round, each build twice a round:
// the worker stopped through the DevTools protocol (what Chrome's idle timer does), then the popup
// opened and "creme brulee" typed
//   - at once: as soon as the box has focus (openAndAsk, as the committed bench's restart phase);
//     timed in the popup from navigation start to the first as-you-type answer shown;
//   - later: BENCH_LATER_MS (300) after navigation start, as a user who starts typing after a
//     moment; timed from the input event to the answer listing the page;
//   - over the whole history, as the address bar's keyword asks (no popup): a search message sent
//     from an extension page as the worker is stopped; timed in that page, send → answer (the
//     worker's answer, not rendered).
// Before the next stop, the worker is waited for until its index is ready again.
import path from 'node:path';
import { launchExtension } from '../e2e/support/launch.mjs';
import { MINUTE, demoHistory, largeHistory } from '../e2e/support/fixtures.mjs';
import { LIVE, openAndAsk, snapshotBytes, stopServiceWorker, waitForIndex, waitForSnapshot } from '../e2e/support/live.mjs';
import { fmt, median, report, table } from './lib.mjs';

const BUILDS = [
  ['before', process.env.BENCH_BEFORE],
  ['after', process.env.BENCH_AFTER],
];
const ROUNDS = Number(process.env.BENCH_ROUNDS || 6);
const ENTRIES = 50_000;
const CREME = { url: 'https://www.750g.com/recette-98213.htm', title: 'Crème brûlée facile au four' };
const QUESTION = 'creme brulee';
const LATER_MS = Number(process.env.BENCH_LATER_MS || 300);
const TOPICS = process.env.BENCH_TOPICS === '1';

/** Installed before the popup's scripts: when the question was typed, and when the as-you-type list first showed `url` after that. */
function watchFor([url, live]) {
  const r = (window.__restart = { inputAt: undefined, foundAt: undefined });
  document.addEventListener('input', () => (r.inputAt ??= performance.now()), true);
  new MutationObserver(() => {
    if (r.inputAt !== undefined && r.foundAt === undefined && document.querySelector(`${live} a[href="${url}"]`)) r.foundAt = performance.now();
  }).observe(document, { childList: true, subtree: true });
}

/** A search of the whole history sent from `page` to the stopped worker; ms from the send to the answer. */
async function askWhole(page) {
  const { ms, found } = await page.evaluate(async (query) => {
    const started = performance.now();
    const answer = await chrome.runtime.sendMessage({ type: 'search', query, startMs: 0, limit: 10 });
    return { ms: performance.now() - started, found: JSON.stringify(answer).includes('750g.com') };
  }, QUESTION);
  if (!found) throw new Error('the whole-history search did not find the page');
  return ms;
}

/** Opens the popup, types the question `LATER_MS` after navigation start; ms from the input to the answer. */
async function openThenAsk(ext) {
  const page = await ext.context.newPage();
  await page.addInitScript(watchFor, [CREME.url, LIVE]);
  await page.goto(ext.url('popup.html'), { waitUntil: 'domcontentloaded' });
  await page.waitForFunction((ms) => performance.now() >= ms, LATER_MS, { polling: 10, timeout: 15_000 });
  await page.keyboard.insertText(QUESTION);
  await page.waitForFunction(() => window.__restart.foundAt !== undefined, null, { timeout: 15_000 });
  const r = await page.evaluate(() => window.__restart);
  await page.close();
  return r.foundAt - r.inputAt;
}

for (const [name, dist] of BUILDS) {
  if (!dist) throw new Error(`BENCH_${name.toUpperCase()} is not set (an unpacked build's directory)`);
}

const now = Date.now();
const history = [...largeHistory(ENTRIES, now), ...demoHistory(now), { url: CREME.url, title: CREME.title, visits: [now - 3 * MINUTE] }];
const installed = {};
try {
  for (const [name, dist] of BUILDS) {
    const ext = await launchExtension({ history, dist: path.resolve(dist), topics: TOPICS });
    const helper = await ext.context.newPage();
    await helper.goto(ext.url('popup.html'));
    await waitForIndex(helper, 180_000);
    await waitForSnapshot(helper, 60_000);
    installed[name] = { ext, helper, bytes: await snapshotBytes(helper), runs: [], later: [], whole: [] };
    process.stderr.write(`restart bench: ${name} installed, snapshot ${fmt(installed[name].bytes / 1e6)} MB\n`);
  }
  for (let round = 0; round < ROUNDS; round++) {
    const order = round % 2 ? [...BUILDS].reverse() : BUILDS;
    for (const [name] of order) {
      const { ext, helper, runs, later, whole } = installed[name];
      let sw = await stopServiceWorker(ext, helper);
      const run = await openAndAsk(ext, QUESTION);
      await sw.detach();
      if (!run.hrefs.includes(CREME.url)) throw new Error(`${name}: the answer lacks ${CREME.url}: ${JSON.stringify(run)}`);
      runs.push(run);
      await waitForIndex(helper);
      sw = await stopServiceWorker(ext, helper);
      later.push(await openThenAsk(ext));
      await sw.detach();
      await waitForIndex(helper);
      sw = await stopServiceWorker(ext, helper);
      whole.push(await askWhole(helper));
      await sw.detach();
      await waitForIndex(helper);
      process.stderr.write(`restart bench: round ${round + 1}, ${name}: ${fmt(run.answerMs, 0)} ms at once${run.fromBrowser ? ' (answered by Chrome’s search)' : ''}, ${fmt(later.at(-1), 0)} ms after a key ${LATER_MS} ms in, ${fmt(whole.at(-1), 0)} ms over the whole history\n`);
    }
  }
  for (const [name] of BUILDS) {
    installed[name].ext.assertNoNetwork();
    installed[name].ext.assertNoErrors();
  }
} finally {
  for (const { ext } of Object.values(installed)) await ext.close();
}

const rows = BUILDS.map(([name, dist]) => {
  const { runs, later, whole, bytes } = installed[name];
  const answers = runs.map((r) => r.answerMs);
  return [
    `${name} (${dist})`,
    `${fmt(bytes / 1e6)} MB`,
    answers.map((v) => fmt(v, 0)).join(', '),
    fmt(median(answers), 0),
    `${runs.filter((r) => !r.fromBrowser).length} of ${runs.length}`,
    later.map((v) => fmt(v, 0)).join(', '),
    fmt(median(later), 0),
    whole.map((v) => fmt(v, 0)).join(', '),
    fmt(median(whole), 0),
  ];
});
const ratio = (key) => {
  const [before, after] = BUILDS.map(([name]) => median(key(installed[name])));
  return fmt(after / before, 2);
};
report('restart', 'The first answer after a worker restart', [
  `${ENTRIES.toLocaleString('en')}-entry history, both builds installed side by side, each with its index ready and saved, ${TOPICS ? "topic search on (each browser's model understanding its pages in the background)" : 'topic search off (idle)'}. ${ROUNDS} rounds, the builds alternated; each time the worker stopped (DevTools protocol), then the popup opened and "${QUESTION}" typed: at once (navigation start → the first as-you-type answer shown), and ${LATER_MS} ms after navigation start (the input → the answer listing the page); then a search of the whole history sent to the stopped worker from an extension page (send → answer).`,
  table(['build', 'snapshot', 'typed at once: open → answer (ms), each round', 'median', 'answered by the index', `typed at ${LATER_MS} ms: key → answer (ms), each round`, 'median', 'whole history: send → answer (ms), each round', 'median'], rows),
  `after / before: ${ratio((i) => i.runs.map((r) => r.answerMs))}× typed at once, ${ratio((i) => i.later)}× typed later, ${ratio((i) => i.whole)}× over the whole history`,
]);
