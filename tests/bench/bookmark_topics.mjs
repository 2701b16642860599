// Bookmarks understood by topic, in the real extension (dist/, or DIST): how long after the user
// turns "Search my bookmarks" on, with thousands of bookmarks the history does not hold, until
// topic search has understood every one of them (their vectors stored), with topic search on as
// installed and its history understood first.
//
//   node tests/bench/bookmark_topics.mjs     BENCH_BOOKMARKS (5,000), BENCH_ENTRIES (1,000 history entries)
//
// A fresh profile seeded with largeHistory(BENCH_ENTRIES); once the index is built and topic search
// has understood it, the bookmarks' switch is clicked on in the options page (the permission
// granted as a user grants it: browser_access.mjs), BENCH_BOOKMARKS bookmarks are added in 10
// folders (titles and addresses from largeHistory of another seed), and the switch is clicked
// off: their vectors are deleted. Then the measure: the switch clicked on again, as a user who
// has those bookmarks turns it on; from the click to the options page's topic search state ready
// with every page understood, the pages to understand having grown by the bookmarks outside the
// history. The state is asked from the options page every 500 ms (as the page itself does): a
// question from the popup would be the user asking, which pauses the build.
import { launchExtension } from '../e2e/support/launch.mjs';
import { PAST_GRANTS } from '../e2e/support/browser_access.mjs';
import { largeHistory } from '../e2e/support/fixtures.mjs';
import { waitForIndex, waitForSnapshot } from '../e2e/support/live.mjs';
import { semanticState, waitForSemantic } from '../e2e/support/topics.mjs';
import { addBookmarks, clickSwitch, fmt, report, table } from './lib.mjs';

const BOOKMARKS = Number(process.env.BENCH_BOOKMARKS || 5_000);
const ENTRIES = Number(process.env.BENCH_ENTRIES || 1_000);
const ON = ['Search my bookmarks', 'Your bookmarks are searched with your history.'];
const OFF = ['Search my bookmarks', 'Your bookmarks are no longer searched; History Chat keeps nothing of them.'];
/** The build of thousands of pages on a shared 2-core machine: a failure limit only. */
const BUILD_LIMIT_MS = 3_600_000;

const now = Date.now();
const ext = await launchExtension({ history: largeHistory(ENTRIES, now), topics: true, pastGrants: PAST_GRANTS });
try {
  const options = await ext.openOptions();
  await waitForIndex(options, 180_000);
  await waitForSnapshot(options, 60_000);
  const history = await waitForSemantic(options, 'ready', { limit: BUILD_LIMIT_MS });
  process.stderr.write(`bookmark topics bench: the history understood (${history.total} pages)\n`);
  await clickSwitch(options, ...ON);
  await addBookmarks(options, largeHistory(BOOKMARKS, now, 7));
  await clickSwitch(options, ...OFF);
  let state = await waitForSemantic(options, 'ready', { limit: BUILD_LIMIT_MS });
  while (state.total !== history.total) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    state = await waitForSemantic(options, 'ready', { limit: BUILD_LIMIT_MS });
  }
  process.stderr.write('bookmark topics bench: bookmarks added, switched off, their vectors gone; switching on\n');

  const started = Date.now();
  await clickSwitch(options, ...ON);
  const samples = [];
  for (;;) {
    state = await semanticState(options);
    samples.push({ at: Date.now() - started, understood: state.understood, total: state.total });
    if (state.status.type === 'ready' && state.total > history.total && state.understood === state.total) break;
    if (Date.now() - started > BUILD_LIMIT_MS) throw new Error(`not understood within the limit: ${JSON.stringify(state)}`);
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  const ms = Date.now() - started;
  const outside = state.total - history.total;
  const firstGrowth = samples.find((s) => s.total > history.total);
  const rows = [
    ['bookmarks added', String(BOOKMARKS)],
    ['outside the history (pages to understand)', String(outside)],
    ['click → the pages to understand counted (s)', fmt((firstGrowth?.at ?? NaN) / 1000)],
    ['click → every one understood and stored (s)', fmt(ms / 1000)],
    ['pages understood per second', fmt(outside / (ms / 1000))],
  ];
  report('bookmark_topics', 'Bookmarks understood by topic', [
    `${ENTRIES.toLocaleString('en')} history entries (${history.total} pages), understood first; topic search on, as installed.`,
    table(['', 'measured'], rows),
    `Extension errors: ${ext.errors.length}.`,
  ]);
} finally {
  await ext.close();
}
