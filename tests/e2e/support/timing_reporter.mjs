// A node:test reporter that writes, once every file has run, the slowest files with their slowest
// test, and how many tests passed and failed: scripts/test prints it at the end of the suite
// (TESTING.md, "Where the time goes").
//
//   node --test --test-reporter=spec --test-reporter-destination=stdout \
//     --test-reporter=./tests/e2e/support/timing_reporter.mjs --test-reporter-destination=times.txt
//
// A file's time is the sum of its top-level tests' and suites' durations, as node reports them
// (its imports and root-level hooks aside); with files run side by side, the suite's wall time is
// less than the sum of the files'.
import path from 'node:path';

const SLOWEST_FILES = 10;

export default async function* timingReporter(source) {
  const files = new Map(); // file -> { ms, tests: [{ name, ms }], failed }
  const count = { passed: 0, failed: 0 }; // tests, not suites
  for await (const event of source) {
    if (event.type !== 'test:pass' && event.type !== 'test:fail') continue;
    const { file, nesting, name, details } = event.data;
    if (details?.type !== 'suite') count[event.type === 'test:pass' ? 'passed' : 'failed']++;
    if (!file || nesting !== 0) continue;
    const entry = files.get(file) ?? { ms: 0, tests: [], failed: 0 };
    const ms = details?.duration_ms ?? 0;
    entry.ms += ms;
    entry.tests.push({ name, ms });
    if (event.type === 'test:fail') entry.failed++;
    files.set(file, entry);
  }
  const rows = [...files.entries()].sort((a, b) => b[1].ms - a[1].ms);
  const total = rows.reduce((sum, [, e]) => sum + e.ms, 0);
  const s = (ms) => `${(ms / 1000).toFixed(1)} s`.padStart(9);
  let out = `Slowest test files (of ${rows.length}; their tests' time added up: ${s(total).trim()})\n`;
  for (const [file, entry] of rows.slice(0, SLOWEST_FILES)) {
    const slowest = [...entry.tests].sort((a, b) => b.ms - a.ms)[0];
    const failed = entry.failed ? `, ${entry.failed} failed` : '';
    out += `${s(entry.ms)}  ${path.relative(process.cwd(), file)} (${entry.tests.length} top-level${failed}; slowest: ${s(slowest.ms).trim()} "${slowest.name}")\n`;
  }
  out += `end-to-end: ${count.passed} passed, ${count.failed} failed\n`;
  yield out;
}
