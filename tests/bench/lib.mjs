// Shared by the browser benchmarks: markdown tables, percentiles, artifacts/bench/*.md.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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
