// What the popup loads, and when it is ready, for two builds side by side in one run: the files
// (raw and gzip -9) it fetches before its own search box is mounted, and those it fetches after
// (the lazily loaded chunks of a split build), then opening times measured in the page.
//
//   BENCH_BEFORE=/path/to/dist-a BENCH_AFTER=/path/to/dist-b node tests/bench/popup_load.mjs
//   (BENCH_AFTER defaults to dist/; BENCH_OPENINGS per pass, 8 by default; BENCH_PASSES, 2)
//
// Each pass launches each build in turn (before, after, before, after…) on a fresh profile seeded
// with the demo history, asks three questions so that the conversation has turns to show, then
// opens the popup BENCH_OPENINGS times. Measured with performance.now() from navigation start:
//   shell focused   the static page's box (popup.html) has focus: usable for typing;
//   module mounted  the wasm popup has replaced the static box (its own box is in the DOM);
//   conversation    the stored turns are rendered (`article.turn` × 3);
//   box painted     the first contentful paint (the static box on screen);
//   module painted  the first animation frame after the module's own box is in the DOM (the frame
//                   that paints it);
// and what the page asked for before each of the two paints: every resource whose request started
// before it (the DevTools protocol's requestWillBeSent, its wall time on the page's clock), counted
// at its gzip -9 size in the build, beside popup.html itself.
// Tables: printed, and written to artifacts/bench/popup_load.md.
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { gzipSync } from 'node:zlib';
import { distDir, launchExtension } from '../e2e/support/launch.mjs';
import { demoHistory } from '../e2e/support/fixtures.mjs';
import { SEL, ask, openPopup } from '../e2e/support/popup.mjs';
import { fmt, median, report, table } from './lib.mjs';

const BEFORE = process.env.BENCH_BEFORE;
const AFTER = process.env.BENCH_AFTER || distDir();
const OPENINGS = Number(process.env.BENCH_OPENINGS || 8);
const PASSES = Number(process.env.BENCH_PASSES || 2);
const QUESTIONS = ['rust', 'recipe', 'weather'];
const TIMEOUT_MS = 30_000;

if (!BEFORE) {
  console.error('usage: BENCH_BEFORE=<dist> [BENCH_AFTER=<dist>] node tests/bench/popup_load.mjs');
  process.exit(2);
}
const builds = [
  { name: 'before', dist: BEFORE },
  { name: 'after', dist: AFTER },
];

/** The popup's module files of a build: what its first load fetches, and the rest. */
function popupFiles(dist) {
  const pkg = path.join(dist, 'pkg');
  const size = (name) => {
    const bytes = readFileSync(path.join(pkg, name));
    return { name, raw: statSync(path.join(pkg, name)).size, gzip: gzipSync(bytes, { level: 9 }).length };
  };
  const names = readdirSync(pkg);
  // The glue imports the splitter's loader statically: it is part of the first load.
  const first = ['history_chat_popup_bg.wasm', 'history_chat_popup.js', '__wasm_split.js'].filter((n) => names.includes(n));
  const lazy = names.filter((n) => /^(split|chunk)_.*\.wasm$/.test(n)).sort();
  return { first: first.map(size), lazy: lazy.map(size) };
}

const sum = (files, key) => files.reduce((total, file) => total + file[key], 0);
const bytes = (n) => n.toLocaleString('en-US');

/** Installed before the page's scripts: when the static box has focus, the module is mounted, the turns are shown. */
function instrument([search, turn, turns]) {
  const marks = (window.__hcLoad = {});
  const check = () => {
    const now = performance.now();
    if (marks.shell === undefined && document.activeElement?.matches?.(search)) marks.shell = now;
    if (marks.mounted === undefined && document.querySelector('main.popup:not(.shell) input[type="search"]')) {
      marks.mounted = now;
      requestAnimationFrame(() => { marks.mountedPainted = performance.now(); });
    }
    if (marks.conversation === undefined && document.querySelectorAll(turn).length >= turns) marks.conversation = now;
    if (marks.conversation === undefined || marks.shell === undefined) requestAnimationFrame(check);
  };
  new PerformanceObserver((list) => {
    for (const entry of list.getEntries()) if (entry.name === 'first-contentful-paint') marks.painted ??= entry.startTime;
  }).observe({ type: 'paint', buffered: true });
  requestAnimationFrame(check);
  new MutationObserver(check).observe(document, { childList: true, subtree: true });
  document.addEventListener('focusin', check, true);
}

async function measure(build) {
  const ext = await launchExtension({ history: demoHistory(), dist: build.dist });
  try {
    const page = await openPopup(ext);
    for (const question of QUESTIONS) await ask(page, question);
    await page.close();
    const runs = [];
    for (let i = 0; i < OPENINGS; i++) {
      const popup = await ext.context.newPage();
      await popup.addInitScript(instrument, [SEL.search, SEL.turn, QUESTIONS.length]);
      // The page's requests, from the DevTools protocol (Resource Timing leaves extension files out).
      const requests = [];
      const cdp = await ext.context.newCDPSession(popup);
      cdp.on('Network.requestWillBeSent', (e) => requests.push({ url: e.request.url, wallMs: e.wallTime * 1000 }));
      await cdp.send('Network.enable');
      await popup.goto(ext.url('popup.html'), { waitUntil: 'domcontentloaded' });
      await popup.waitForFunction(() => window.__hcLoad.conversation !== undefined && window.__hcLoad.shell !== undefined, null, { timeout: TIMEOUT_MS });
      await popup.waitForFunction(() => window.__hcLoad.painted !== undefined && window.__hcLoad.mountedPainted !== undefined, null, { timeout: TIMEOUT_MS });
      const marks = await popup.evaluate(() => ({ ...window.__hcLoad, timeOrigin: performance.timeOrigin }));
      await cdp.detach().catch(() => {});
      runs.push({
        ...marks,
        requests: requests
          .filter((r) => r.url.startsWith('chrome-extension://') && !r.url.endsWith('/popup.html'))
          .map((r) => ({ path: new URL(r.url).pathname, start: r.wallMs - marks.timeOrigin })),
      });
      await popup.close();
    }
    return runs;
  } finally {
    await ext.close();
  }
}

const runs = Object.fromEntries(builds.map((b) => [b.name, []]));
for (let pass = 0; pass < PASSES; pass++) {
  for (const build of builds) {
    console.log(`popup load bench: pass ${pass + 1}, ${build.name} (${build.dist})…`);
    runs[build.name].push(...(await measure(build)));
  }
}

const files = Object.fromEntries(builds.map((b) => [b.name, popupFiles(b.dist)]));
const fileRows = [];
for (const build of builds) {
  const { first, lazy } = files[build.name];
  for (const f of first) fileRows.push([build.name, `\`${f.name}\``, 'first', bytes(f.raw), bytes(f.gzip)]);
  fileRows.push([build.name, '**the popup\'s first load**', '', `**${bytes(sum(first, 'raw'))}**`, `**${bytes(sum(first, 'gzip'))}**`]);
  if (lazy.length) {
    fileRows.push([build.name, `${lazy.length} lazily loaded files (\`split_*\`, \`chunk_*\`)`, 'after', bytes(sum(lazy, 'raw')), bytes(sum(lazy, 'gzip'))]);
    for (const f of lazy) fileRows.push([build.name, `\`${f.name}\``, 'after', bytes(f.raw), bytes(f.gzip)]);
  }
  fileRows.push([build.name, 'everything', '', bytes(sum([...first, ...lazy], 'raw')), bytes(sum([...first, ...lazy], 'gzip'))]);
}

/** gzip -9 bytes of a file of the build, by its path in the extension. */
const gzipOf = (dist, file) => {
  try {
    return gzipSync(readFileSync(path.join(dist, file)), { level: 9 }).length;
  } catch {
    return 0; // not a file of the build (none expected: reported as 0 B)
  }
};
/** What an opening asked for before `mark`: files (paths) and their gzip bytes, popup.html included. */
function requestedBefore(build, run, mark) {
  const files = [...new Set(run.requests.filter((r) => r.start < run[mark]).map((r) => r.path))];
  const gzip = gzipOf(build.dist, 'popup.html') + files.reduce((total, f) => total + gzipOf(build.dist, f), 0);
  return { files, gzip };
}
const fetchRows = [];
for (const build of builds) {
  for (const [mark, label] of [['painted', 'the static box painted (first contentful paint)'], ['mountedPainted', 'the module\'s box painted']]) {
    const seen = runs[build.name].map((run) => requestedBefore(build, run, mark));
    const widest = seen.reduce((a, b) => (b.gzip > a.gzip ? b : a));
    fetchRows.push([
      build.name,
      label,
      fmt(median(runs[build.name].map((r) => r[mark])), 0),
      fmt(median(seen.map((s) => s.files.length + 1)), 0),
      bytes(median(seen.map((s) => s.gzip))),
      bytes(widest.gzip),
      ['popup.html', ...widest.files.map((f) => f.replace(/^\//, ''))].join(', '),
    ]);
  }
}

const med = (name, key) => median(runs[name].map((r) => r[key]));
const timeRows = ['painted', 'shell', 'mounted', 'mountedPainted', 'conversation'].map((key) => [
  {
    painted: 'static box painted (first contentful paint)',
    shell: 'static box focused',
    mounted: 'module mounted',
    mountedPainted: 'module\'s box painted',
    conversation: 'conversation shown (3 turns)',
  }[key],
  fmt(med('before', key), 0),
  fmt(med('after', key), 0),
  fmt(med('after', key) / med('before', key), 2),
]);

report('popup_load', 'The popup\'s load, two builds side by side', [
  `before: ${BEFORE}; after: ${AFTER}; ${PASSES} passes × ${OPENINGS} openings per build, alternately.`,
  table(['build', 'file', 'fetched', 'raw (B)', 'gzip -9 (B)'], fileRows),
  table(['ms from navigation start (median)', 'before', 'after', 'after / before'], timeRows),
  'What each opening asked for before the box was on screen (requests started before the paint; popup.html counted; ' +
    'gzip -9 of each file; target ≤ 200 KB gzip before the search box is visible):',
  table(['build', 'before', 'ms (median)', 'files (median)', 'gzip B (median)', 'gzip B (most)', 'files of the opening that asked most'], fetchRows),
]);
