#!/usr/bin/env node
// Headless demo of the built extension, for a machine without a display:
// seeds a small embedded history into a throwaway profile, opens the popup in headless Chromium,
// asks a question, prints the results and how long the popup took to become usable, and saves a
// screenshot to artifacts/demo-popup.png.
//
//   node scripts/demo.mjs ["your question"] [--period 24h|7d|30d|90d]
//   DIST=path/to/unpacked/extension node scripts/demo.mjs
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { launchExtension, REPO_ROOT, DEFAULT_VIEWPORT } from '../tests/e2e/support/launch.mjs';
import { demoHistory } from '../tests/e2e/support/fixtures.mjs';
import { ask, openPopupMeasured, statusText, alertText } from '../tests/e2e/support/popup.mjs';

const argv = process.argv.slice(2);
let period = '30d';
const words = [];
for (let i = 0; i < argv.length; i++) {
  if (argv[i] === '--period') period = argv[++i];
  else if (argv[i] === '-h' || argv[i] === '--help') {
    console.log('usage: node scripts/demo.mjs ["question"] [--period 24h|7d|30d|90d]');
    process.exit(0);
  } else words.push(argv[i]);
}
const question = words.join(' ') || 'recursive cte';
if (!['24h', '7d', '30d', '90d'].includes(period)) {
  console.error(`demo: unknown period ${period} (use 24h, 7d, 30d or 90d)`);
  process.exit(2);
}

const screenshot = path.join(REPO_ROOT, 'artifacts', 'demo-popup.png');
const history = demoHistory();
let ext;
let code = 0;
try {
  ext = await launchExtension({ history, viewport: DEFAULT_VIEWPORT });
  console.log(`History Chat demo — extension ${ext.extensionId} from ${ext.dist}`);
  console.log(`Seeded a throwaway profile with ${history.length} history entries.`);
  const { page, readyMs } = await openPopupMeasured(ext);
  console.log(`Popup usable in ${readyMs} ms (navigation start -> search box focused).`);

  const t0 = Date.now();
  const turn = await ask(page, question, { period });
  const answerMs = Date.now() - t0;
  console.log(`\nQ: ${question}   (period ${period}, answered in ${answerMs} ms)`);
  if (turn.results.length) {
    for (const r of turn.results) console.log(`  ${r.title} — ${r.href} — ${r.time}`);
  } else {
    console.log(`  ${turn.notice ?? '(no results and no notice)'}`);
  }
  const status = await statusText(page);
  if (status) console.log(`status: ${status}`);
  const alert = await alertText(page);
  if (alert) {
    console.log(`alert: ${alert}`);
    code = 1;
  }

  await mkdir(path.dirname(screenshot), { recursive: true });
  await page.screenshot({ path: screenshot });
  console.log(`\nScreenshot: ${path.relative(process.cwd(), screenshot) || screenshot}`);

  const requests = ext.extensionRequests();
  console.log(`Network requests made by the extension: ${requests.length}`);
  for (const r of requests) console.log(`  ${r.method} ${r.url} (from ${r.source})`);
  if (requests.length) code = 1; // local mode promises zero requests
  if (ext.errors.length) {
    console.log(`Errors in the extension:`);
    for (const e of ext.errors) console.log(`  ${e.source}: ${e.text}`);
    code = 1;
  }
} catch (e) {
  console.error(`demo failed: ${e.message}`);
  code = 1;
} finally {
  await ext?.close();
}
process.exit(code);
