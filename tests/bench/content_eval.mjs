// Recall@5 on the content evaluation (tests/content_eval/), in the real browser, asked in the
// popup as a user asks: the set's pages served at their addresses (support/content_site.mjs),
// visited in tabs, then every question typed in the popup, Enter, and the answer's first five
// result links read. Two runs, each on a fresh profile:
//
//   titles    content search off (what ships today): the pages known by their titles and addresses.
//             RUNS NOW.
//   content   content search on: the access granted as a user grants it (grantContentAccess,
//             tests/e2e/support/content_access.mjs), then the options page's checkbox whose
//             accessible name holds "content" checked; every page visited and kept open while the
//             reader waits for its still moment, then the worker asked {type: "contentState"} until
//             its {content: {state: {progress}}} has every read page embedded.
//
//   bookmarks content search and the bookmarks' switch on, the pages bookmarked (never visited),
//             then the options page's "Read my bookmarked pages" (its plan's Start): every page
//             downloaded from its site as the extension does, without the page's scripts (a page
//             its scripts build is skipped). The bookmarked-content target is read on the questions
//             about the pages a download can read.
//
//   scripts/bench content-eval                     the titles and content runs
//   CONTENT_EVAL_RUNS=bookmarks scripts/bench content-eval    the bookmarks run alone
//   CONTENT_EVAL_RUNS=titles scripts/bench content-eval    the titles run alone
//   CONTENT_EVAL_TOPICS=on    topic search on in both runs (as installed; off by default, as the suite)
//   CONTENT_EVAL_DWELL_MS     how long each tab stays open after `load` in the content run (default 7000:
//                             the reader waits for a still moment, as Chrome's 5 s)
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { launchExtension } from '../e2e/support/launch.mjs';
import { CONTENT_EVAL, startContentSite, visitAll } from '../e2e/support/content_site.mjs';
import { askWorker, waitForIndex } from '../e2e/support/live.mjs';
import { grantContentAccess } from '../e2e/support/content_access.mjs';
import { grantBookmarks } from '../e2e/support/browser_access.mjs';
import { SEL, ask, openPopup } from '../e2e/support/popup.mjs';
import { waitForSemantic } from '../e2e/support/topics.mjs';
import { REPO_ROOT, fmt, report, table } from './lib.mjs';

const RUNS = (process.env.CONTENT_EVAL_RUNS ?? 'titles,content').split(',').map((s) => s.trim());
const TOPICS = process.env.CONTENT_EVAL_TOPICS === 'on';
const DWELL_MS = Number(process.env.CONTENT_EVAL_DWELL_MS ?? 7000);
const KINDS = ['body', 'paraphrase', 'deep', 'cross', 'trap', 'title'];
const TARGETS = { body: 0.95, paraphrase: 0.8, deep: 0.85, cross: 0.75, trap: 0.85 };
/** Failure limits only: how long a broken build may take before the run gives up. */
const READ_LIMIT_MS = 20 * 60_000;

const { questions } = JSON.parse(readFileSync(path.join(CONTENT_EVAL, 'questions.json'), 'utf8'));

/** The content switch of the options page: a checkbox whose accessible name holds "content". */
function contentSwitch(options) {
  return options.getByRole('checkbox', { name: /content/i });
}

/** The worker's content progress as {read, embedded, toEmbed}. */
function readProgress(answer) {
  const progress = answer?.type === 'content' ? answer.state?.progress : null;
  if (!progress) return null;
  return { read: progress.pages, embedded: progress.passagesEmbedded, toEmbed: progress.passagesTotal, status: progress.status, raw: progress };
}

/** The switch turned on as a user turns it on: the access granted, the checkbox checked. */
async function turnContentOn(ext) {
  await grantContentAccess(ext);
  const options = await ext.openOptions();
  const box = contentSwitch(options);
  await box.check();
  await options.close();
}

async function waitUntilEverythingRead(page, expectedPages) {
  const started = Date.now();
  let last = null;
  let stableSince = Date.now();
  for (;;) {
    const answer = await askWorker(page, { type: 'contentState' });
    const p = readProgress(answer);
    if (!p) throw new Error(`contentState answered ${JSON.stringify(answer)}, not the content's state`);
    if (!last || p.read !== last.read || p.embedded !== last.embedded) stableSince = Date.now();
    last = p;
    const allRead = p.read >= expectedPages;
    const allEmbedded = p.embedded >= p.toEmbed && p.toEmbed > 0 && p.status === 'ready';
    // Done when every visited page is read and embedded; or when nothing has moved for a minute
    // with everything read embedded (a page the reader refused, e.g. too short, is reported below).
    if (allEmbedded && (allRead || Date.now() - stableSince > 60_000)) return { ...p, ms: Date.now() - started };
    if (Date.now() - started > READ_LIMIT_MS) throw new Error(`content search did not read and embed the pages within ${READ_LIMIT_MS / 60_000} min: ${JSON.stringify(p.raw)}`);
    await page.waitForTimeout(1000);
  }
}

/** One run: a fresh profile, the pages visited, every question asked in the popup. */
async function run(mode) {
  const site = await startContentSite();
  const bookmarks = mode === 'bookmarks';
  const ext = await launchExtension({ args: site.browserArgs, topics: TOPICS, ...(bookmarks ? { pastGrants: ['bookmarks'] } : {}) });
  const out = { mode, rows: [], notes: [] };
  try {
    const content = mode === 'content' || bookmarks;
    if (bookmarks) {
      // Bookmarked before reading is on: then "Read my bookmarked pages" reads them all.
      await grantBookmarks(ext);
      const helper = await ext.openPage('options.html');
      await helper.evaluate(async (pages) => {
        for (const { url, title } of pages) await chrome.bookmarks.create({ url, title });
      }, site.pages.map(({ url, title }) => ({ url, title })));
      await helper.close();
      out.notes.push(`${site.pages.length} pages bookmarked, none visited`);
    }
    if (content) await turnContentOn(ext);
    const started = Date.now();
    if (bookmarks) {
      const helper = await ext.openPage('options.html');
      await helper.getByRole('button', { name: 'Read my bookmarked pages' }).click();
      await helper.locator('.catch-up-plan').getByRole('button', { name: 'Start' }).click();
      await helper.close();
    } else {
      await visitAll(ext, site.pages, { concurrency: mode === 'content' ? 4 : 6, dwellMs: mode === 'content' ? DWELL_MS : 0 });
      out.notes.push(`${site.pages.length} pages visited in ${fmt((Date.now() - started) / 1000, 0)} s`);
    }
    const helper = await ext.openPage('options.html');
    await waitForIndex(helper);
    if (TOPICS) await waitForSemantic(helper, 'ready');
    // A download reads what the site sends: a page its scripts build says nothing without them.
    const readable = bookmarks ? site.pages.filter((p) => p.render !== 'script') : site.pages;
    if (content) {
      const done = await waitUntilEverythingRead(helper, readable.length);
      out.notes.push(`content search: ${done.read} pages read, ${done.embedded} of ${done.toEmbed} passages embedded, ${fmt(done.ms / 1000, 0)} s after the ${bookmarks ? 'Start' : 'last visit'}`);
    }
    out.readable = new Set(readable.map((p) => p.id));
    await helper.close();
    let popup = await openPopup(ext);
    for (const [i, q] of questions.entries()) {
      if (i > 0 && i % 25 === 0) {
        // A fresh popup now and then: the conversation grows with every question.
        await popup.close();
        popup = await openPopup(ext);
      }
      const turn = await ask(popup, q.question, { period: '90d' });
      const top = turn.results.slice(0, 5).map((r) => r.href);
      const expected = new Set(q.expected.map((id) => site.pages.find((p) => p.id === id).url));
      const found = [...expected].filter((u) => top.includes(u)).length;
      const downloadable = q.expected.every((id) => out.readable.has(id));
      out.rows.push({ ...q, recall: found / expected.size, top, downloadable });
    }
    await popup.close();
    out.errors = ext.errors.length;
    out.extensionRequests = ext.extensionRequests().length;
    out.unexpected = site.unexpected().length;
  } finally {
    await ext.close();
    await site.close();
  }
  return out;
}

function recallTable(result) {
  const mean = (rows) => rows.reduce((s, r) => s + r.recall, 0) / Math.max(1, rows.length);
  const content = result.rows.filter((r) => r.kind !== 'title');
  if (result.mode === 'bookmarks') {
    // The questions about the pages a download can read, beside all of them.
    const kinds = ['body', 'paraphrase', 'deep', 'cross', 'trap', 'title'];
    return table(
      ['kind', 'questions (readable pages)', 'recall@5 (readable pages)', 'questions (all)', 'recall@5 (all)'],
      [...kinds, 'all'].map((k) => {
        const all = k === 'all' ? result.rows : result.rows.filter((r) => r.kind === k);
        const readable = all.filter((r) => r.downloadable);
        return [k, readable.length, fmt(mean(readable), 2), all.length, fmt(mean(all), 2)];
      }),
    );
  }
  return table(
    ['kind', 'questions', 'recall@5', 'target'],
    [
      ...KINDS.map((k) => {
        const rows = result.rows.filter((r) => r.kind === k);
        return [k, rows.length, fmt(mean(rows), 2), TARGETS[k] !== undefined ? `≥ ${TARGETS[k].toFixed(2)}` : 'no worse than titles only'];
      }),
      ['all content kinds', content.length, fmt(mean(content), 2), ''],
      ['overall', result.rows.length, fmt(mean(result.rows), 2), ''],
    ],
  );
}

const sections = [
  `Set: ${questions.length} questions over the pages of tests/content_eval/ (see its README), asked in the popup (period 90 days), ` +
    `first five result links. Topic search ${TOPICS ? 'on' : 'off'} (CONTENT_EVAL_TOPICS).`,
];
for (const mode of RUNS) {
  process.stderr.write(`content eval: ${mode} run…\n`);
  const result = await run(mode);
  sections.push(
    `## ${{ titles: 'Content search off (titles and addresses only)', content: 'Content search on', bookmarks: 'The pages bookmarked, not visited, read by "Read my bookmarked pages"' }[mode]}\n\n${result.notes.join('; ')}.`,
    recallTable(result),
    'Misses: ' + (result.rows.filter((r) => r.recall < 1).map((r) => `"${r.question}" (${r.kind})`).join(', ') || 'none') +
      `.\n\nExtension errors: ${result.errors}; requests from the extension: ${result.extensionRequests}; requests the site could not answer: ${result.unexpected}.`,
  );
  // Written after each run: a later run's failure does not lose this one's figures.
  report('content_eval', 'Content evaluation: recall@5 in the real browser', sections);
}
