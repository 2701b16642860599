// JS wrapper around seed_history.py: writes entries into a closed profile's History DB.
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const run = promisify(execFile);
const SCRIPT = path.join(path.dirname(fileURLToPath(import.meta.url)), 'seed_history.py');
export const PYTHON = process.env.PYTHON || 'python3';

/**
 * @param {string} historyDbPath  <profile>/Default/History (browser closed)
 * @param {Array<{url:string,title?:string,visits:number[],typed?:boolean}>} entries visits in ms since epoch
 */
export async function seedHistory(historyDbPath, entries) {
  if (!Array.isArray(entries)) throw new TypeError('seedHistory: entries must be an array');
  const dir = await mkdtemp(path.join(tmpdir(), 'history-seed-'));
  const file = path.join(dir, 'entries.json');
  try {
    await writeFile(file, JSON.stringify(entries));
    const { stdout } = await run(PYTHON, [SCRIPT, historyDbPath, file], { maxBuffer: 1 << 20 });
    return stdout.trim();
  } catch (e) {
    throw new Error(`seeding history into ${historyDbPath} failed: ${e.stderr || e.message}`);
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/** Whether a closed profile's History DB has the tables seeding writes to. */
export async function historyTablesReady(historyDbPath) {
  const check =
    'import sqlite3, sys\n' +
    'con = sqlite3.connect(sys.argv[1])\n' +
    "names = {row[0] for row in con.execute(\"SELECT name FROM sqlite_master WHERE type = 'table'\")}\n" +
    "print('ready' if {'urls', 'visits'} <= names else 'missing')\n";
  const { stdout } = await run(PYTHON, ['-c', check, historyDbPath]);
  return stdout.trim() === 'ready';
}
