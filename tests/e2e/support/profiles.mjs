// The profiles the end-to-end tests launch Chromium on, made from two templates so that a launch
// starts Chromium once:
//
// - an empty `History` database, as Chromium creates it on a profile's first run (its schema is
//   Chromium's own, never written by hand); a seeded launch copies it and writes its history into
//   the copy while no browser runs (seed_history.mjs);
// - the extension's synced storage as a user leaves it after turning **Topic search** off in the
//   options page: `settings.semanticSearch` "off", nothing else. Tests of other features launch on
//   a copy, so the on-device model never runs beside them on the machine's two cores; the
//   extension's install (`chrome.runtime.onInstalled`) then fills in every other default, as it does
//   for a user's synced settings. Tests of topic search launch without it (`topics: true`).
//
// Each template is made once per Chromium version and extension id, by the first test process that
// needs it (scripts/test makes them before the files start: `node tests/e2e/support/profiles.mjs`),
// and kept under the system's temporary folder; a template is written to a folder of its own and
// renamed into place whole, so a process that finds one finds it complete.
import { chromium } from 'playwright-core';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { cp, mkdir, mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { historyTablesReady } from './seed_history.mjs';

export const CHROMIUM = process.env.CHROMIUM || '/usr/bin/chromium';
export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');

/** The stored settings of a user who turned Topic search off (and changed nothing else). */
export const TOPICS_OFF_SETTINGS = { semanticSearch: 'off' };

const TEMPLATES = path.join(tmpdir(), 'history-chat-e2e-templates');
/** A failure limit only: how long a broken Chromium may take before the template step gives up. */
const LIMIT_MS = 60_000;

export function distDir() {
  return path.resolve(process.env.DIST || path.join(REPO_ROOT, 'dist'));
}

/** The switches every launch of the suite passes (see the machine's notes in TESTING.md). */
export function chromiumArgs() {
  return [
    '--headless=new',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ];
}

/** Chrome derives an unpacked extension's id from its manifest `key`: sha256 of the DER key, first 16 bytes, hex digits mapped 0-f -> a-p. */
export function extensionIdFromKey(keyBase64) {
  const hex = createHash('sha256').update(Buffer.from(keyBase64, 'base64')).digest('hex').slice(0, 32);
  return [...hex].map((c) => String.fromCharCode('a'.charCodeAt(0) + parseInt(c, 16))).join('');
}

/** Fail early with a readable message instead of a 30 s "waiting for serviceworker" timeout. */
export function checkDist(dist) {
  const manifestPath = path.join(dist, 'manifest.json');
  if (!existsSync(manifestPath)) {
    throw new Error(`No built extension at ${dist} (missing manifest.json). Build it first (scripts/build) or set DIST=...`);
  }
  const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'));
  const referenced = [
    manifest.background?.service_worker,
    manifest.action?.default_popup,
    manifest.options_ui?.page ?? manifest.options_page,
  ].filter(Boolean);
  const missing = referenced.filter((f) => !existsSync(path.join(dist, f)));
  if (missing.length) {
    throw new Error(`The extension at ${dist} is incomplete: manifest.json references missing file(s) ${missing.join(', ')} — Chromium would refuse to load it.`);
  }
  return manifest;
}

let version;
function chromiumVersion() {
  // (Debian's wrapper script complains on stderr about this machine's memory size: not ours to show.)
  version ??= execFileSync(CHROMIUM, ['--version'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  return version;
}

function keyOf(...parts) {
  return createHash('sha256').update(parts.join('\n')).digest('hex').slice(0, 16);
}

/** Makes `name` with `make(workDir)` unless it is there; returns its folder. */
async function template(name, make) {
  const dir = path.join(TEMPLATES, name);
  if (existsSync(path.join(dir, 'complete'))) return dir;
  await mkdir(TEMPLATES, { recursive: true });
  const work = await mkdtemp(path.join(TEMPLATES, `${name}.making-`));
  try {
    await make(work);
    await mkdir(path.join(work, 'complete'));
    await rename(work, dir).catch(async (e) => {
      // Another process renamed its own first: use that one.
      if (!existsSync(path.join(dir, 'complete'))) throw e;
    });
  } finally {
    await rm(work, { recursive: true, force: true });
  }
  return dir;
}

async function waitForFile(file, what) {
  const deadline = Date.now() + LIMIT_MS;
  while (!existsSync(file)) {
    if (Date.now() > deadline) throw new Error(`${what}: Chromium did not create ${file} within ${LIMIT_MS / 1000} s`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const made = new Map();
function once(name, make) {
  if (!made.has(name)) made.set(name, template(name, make));
  return made.get(name);
}

/**
 * The folder holding `History`: the empty database of a profile's first run. Chromium is closed
 * before it is copied (which shuts its history backend down cleanly); its tables are checked, and a
 * second run completes a database the first left half-made.
 */
export function historyTemplate() {
  return once(`history-${keyOf(chromiumVersion())}`, async (work) => {
    const profile = path.join(work, 'profile');
    const history = path.join(profile, 'Default', 'History');
    for (let attempt = 1; ; attempt++) {
      const context = await chromium.launchPersistentContext(profile, { executablePath: CHROMIUM, headless: true, args: chromiumArgs() });
      try {
        await waitForFile(history, 'the History template');
      } finally {
        await context.close();
      }
      if (await historyTablesReady(history)) break;
      if (attempt === 3) throw new Error(`${history} still lacks its urls/visits tables after ${attempt} runs of Chromium`);
    }
    await cp(history, path.join(work, 'History'));
    await rm(profile, { recursive: true, force: true });
  });
}

/**
 * The folder holding `Sync Extension Settings`: the extension `extensionId` (built in `dist`) with
 * Topic search turned off. Made by the extension itself: its worker stores the setting through
 * `chrome.storage.sync`, after its install has written the defaults (which are then replaced by the
 * one setting, as a user's synced storage holds only what they set).
 */
export function topicsOffTemplate(dist, extensionId) {
  const settings = JSON.stringify(TOPICS_OFF_SETTINGS);
  return once(`topics-off-${keyOf(chromiumVersion(), extensionId, settings)}`, async (work) => {
    const profile = path.join(work, 'profile');
    const context = await chromium.launchPersistentContext(profile, {
      executablePath: CHROMIUM,
      headless: true,
      ignoreDefaultArgs: ['--disable-extensions'],
      args: [...chromiumArgs(), `--disable-extensions-except=${dist}`, `--load-extension=${dist}`],
    });
    try {
      const isOurs = (w) => w.url().startsWith(`chrome-extension://${extensionId}/`);
      const worker = context.serviceWorkers().find(isOurs) ?? (await context.waitForEvent('serviceworker', { predicate: isOurs, timeout: LIMIT_MS }));
      await worker.evaluate(
        async ({ settings, limit }) => {
          const deadline = Date.now() + limit;
          // The install's defaults first, so that they cannot land after ours.
          while ((await chrome.storage.sync.get('settings')).settings === undefined) {
            if (Date.now() > deadline) throw new Error('the extension did not write its install-time settings');
            await new Promise((resolve) => setTimeout(resolve, 50));
          }
          await chrome.storage.sync.set({ settings: JSON.parse(settings) });
          const stored = (await chrome.storage.sync.get('settings')).settings;
          if (JSON.stringify(stored) !== settings) throw new Error(`stored ${JSON.stringify(stored)}, not ${settings}`);
        },
        { settings, limit: LIMIT_MS },
      );
    } finally {
      await context.close();
    }
    const store = path.join(profile, 'Default', 'Sync Extension Settings', extensionId);
    if (!existsSync(store)) throw new Error(`Chromium kept the extension's synced storage somewhere else than ${store}`);
    await cp(store, path.join(work, 'Sync Extension Settings', extensionId), { recursive: true });
    await rm(profile, { recursive: true, force: true });
  });
}

/**
 * Lays a new profile in `profileDir`: the History template when `history` is to be seeded, and the
 * Topic-search-off storage unless `topics` (or the extension is not one with a known id).
 */
export async function layProfile(profileDir, { seeded, topics, dist, extensionId }) {
  const defaultDir = path.join(profileDir, 'Default');
  await mkdir(defaultDir, { recursive: true });
  if (seeded) await cp(path.join(await historyTemplate(), 'History'), path.join(defaultDir, 'History'));
  if (!topics && extensionId) {
    const from = path.join(await topicsOffTemplate(dist, extensionId), 'Sync Extension Settings');
    await cp(from, path.join(defaultDir, 'Sync Extension Settings'), { recursive: true });
  }
  return path.join(defaultDir, 'History');
}

// `node tests/e2e/support/profiles.mjs`: makes both templates for the built extension (scripts/test).
if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dist = distDir();
  const manifest = checkDist(dist);
  await historyTemplate();
  if (manifest.key) await topicsOffTemplate(dist, extensionIdFromKey(manifest.key));
  console.log(`profile templates ready in ${TEMPLATES}`);
}
