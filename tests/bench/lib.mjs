// Shared by the browser benchmarks: markdown tables, percentiles, artifacts/bench/*.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { LIMIT_MS } from '../e2e/support/settle.mjs';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
export const ARTIFACTS = path.join(REPO_ROOT, 'artifacts', 'bench');

/** Value at fraction `p` (0..1) of an unsorted list (nearest rank), as index_bench does. */
export function percentile(values, p) {
  if (!values.length) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.round((sorted.length - 1) * p)];
}

export const median = (values) => percentile(values, 0.5);

/** A markdown table from a header row and rows (numbers formatted by the caller). */
export function table(header, rows, align = header.map((_, i) => (i === 0 ? 'l' : 'r'))) {
  const line = (cells) => `| ${cells.join(' | ')} |`;
  const sep = align.map((a) => (a === 'l' ? '---' : '---:'));
  return [line(header), line(sep), ...rows.map(line)].join('\n');
}

/** Prints a report and writes it to artifacts/bench/<name>.md. */
export function report(name, title, sections) {
  const text = `# ${title}\n\n${sections.join('\n\n')}\n`;
  mkdirSync(ARTIFACTS, { recursive: true });
  writeFileSync(path.join(ARTIFACTS, `${name}.md`), text);
  console.log(`\n${text}`);
  return text;
}

export const fmt = (n, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : 'n/a');
export const mb = (bytes) => fmt(bytes / (1024 * 1024), 1);
export const verdict = (ok) => (ok ? 'met' : '**not met**');

/**
 * Installed before a page's own scripts (`page.addInitScript(instrumentCommitted, [search box,
 * answer, as-you-type section or null])`): records in `window.__bench` the search box's focus, the
 * keystrokes, the as-you-type section's changes, Enter, and the first new answer rendered once
 * nothing is `aria-busy`.
 */
export function instrumentCommitted([search, answerSel, live]) {
  const b = (window.__bench = { focusAt: undefined, inputs: [], live: [], enterAt: undefined, answerAt: undefined, answer: null });
  let before = new Set();
  const mark = (el) => {
    if (b.focusAt === undefined && el?.matches?.(search)) b.focusAt = performance.now();
  };
  document.addEventListener('focusin', (e) => mark(e.target), true);
  const poll = () => {
    mark(document.activeElement);
    if (b.focusAt === undefined) requestAnimationFrame(poll);
  };
  requestAnimationFrame(poll);
  document.addEventListener('input', (e) => {
    if (e.target.matches?.(search)) b.inputs.push(performance.now());
  }, true);
  document.addEventListener('keydown', (e) => {
    if (e.key !== 'Enter' || !e.target.matches?.(search) || b.enterAt !== undefined) return;
    const now = performance.now();
    // The event's own time counts the wait for a busy main thread; trust it only if it is on this clock.
    b.enterAt = e.timeStamp > now - 5_000 && e.timeStamp <= now ? e.timeStamp : now;
    before = new Set(document.querySelectorAll(answerSel));
  }, true);
  const inLive = (node) => node.nodeType === 1 && (node.matches(live) || node.querySelector(live));
  new MutationObserver((records) => {
    const at = performance.now();
    if (live) {
      const section = document.querySelector(live);
      const touched = records.some((r) => section?.contains(r.target) || [...r.addedNodes, ...r.removedNodes].some(inLive));
      if (touched) {
        b.live.push({
          at,
          shows: Boolean(section?.querySelector('ul a, p.notice')),
          results: section ? section.querySelectorAll('ul a').length : 0,
          notices: section ? [...section.querySelectorAll('p.notice')].map((p) => p.textContent.trim()) : [],
        });
      }
    }
    if (b.enterAt !== undefined && b.answerAt === undefined && !document.querySelector('[aria-busy="true"]')) {
      for (const el of document.querySelectorAll(answerSel)) {
        if (before.has(el) || !el.querySelector('li a, p.notice')) continue;
        b.answerAt = at;
        b.answer = {
          question: el.querySelector('p.question')?.textContent.trim() ?? null,
          results: el.querySelectorAll('li a').length,
          notice: el.querySelector('li a') ? null : el.querySelector('p.notice')?.textContent.trim() ?? null,
        };
        break;
      }
    }
  }).observe(document, { childList: true, subtree: true, characterData: true });
}

/** Clicks the options page's switch named `label` once it is enabled, and waits for its `status` line. */
export async function clickSwitch(options, label, status) {
  const sel = `input[type="checkbox"][aria-label="${label}"]`;
  await options.locator(sel).waitFor({ timeout: LIMIT_MS });
  await options.waitForFunction((sel) => !document.querySelector(sel).disabled, sel, { timeout: LIMIT_MS });
  await options.locator(sel).click();
  await options.locator('[role="status"]', { hasText: status }).waitFor({ timeout: LIMIT_MS });
}

/** The folders the benches file their bookmarks in. */
export const BOOKMARK_FOLDERS = ['Rust', 'Databases', 'Recettes', 'Voyages', 'Jardin', 'Papers', 'Music', 'Work', 'News', 'Santé'];

/**
 * Adds `bookmarks` ({ url, title }) with chrome.bookmarks.create from an extension page holding the
 * permission, filed in turn in the folders BOOKMARK_FOLDERS (made first, in the bar and "Other
 * bookmarks").
 */
export async function addBookmarks(page, bookmarks) {
  await page.evaluate(async ({ folders, bookmarks }) => {
    const ids = [];
    for (const [n, title] of folders.entries()) {
      ids.push((await chrome.bookmarks.create({ parentId: n % 2 ? '1' : '2', title })).id);
    }
    for (const [n, b] of bookmarks.entries()) {
      await chrome.bookmarks.create({ parentId: ids[n % ids.length], title: b.title, url: b.url });
    }
  }, { folders: BOOKMARK_FOLDERS, bookmarks: bookmarks.map(({ url, title }) => ({ url, title })) });
}
