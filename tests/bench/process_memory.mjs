// The browser's processes as the memory benchmarks read them: a DevTools protocol client on the
// browser's endpoint (a browser launched with --remote-debugging-port=0; node run with
// --experimental-websocket), the extension's renderer process (where its worker, its pages and its
// offscreen document run, with their dedicated workers), and a process's resident memory and
// threads from /proc.
import { readFileSync } from 'node:fs';
import path from 'node:path';

/** A DevTools protocol client on the browser's endpoint, with flattened target sessions. */
export async function connectBrowser(profileDir) {
  const [port, browserPath] = readFileSync(path.join(profileDir, 'DevToolsActivePort'), 'utf8').split('\n');
  const ws = new WebSocket(`ws://127.0.0.1:${port.trim()}${browserPath.trim()}`);
  await new Promise((resolve, reject) => {
    ws.onopen = resolve;
    ws.onerror = () => reject(new Error('cannot connect to the browser\'s DevTools endpoint'));
  });
  let next = 0;
  const pending = new Map();
  ws.onmessage = (event) => {
    const message = JSON.parse(event.data);
    const waiting = message.id != null && pending.get(message.id);
    if (!waiting) return;
    pending.delete(message.id);
    if (message.error) waiting.reject(new Error(`${waiting.method}: ${message.error.message}`));
    else waiting.resolve(message.result);
  };
  const send = (method, params = {}, sessionId) =>
    new Promise((resolve, reject) => {
      const id = ++next;
      pending.set(id, { resolve, reject, method });
      ws.send(JSON.stringify({ id, method, params, ...(sessionId ? { sessionId } : {}) }));
    });
  return { send, close: () => ws.close() };
}

/** Pids of the browser's processes of `type` (SystemInfo.getProcessInfo). */
async function processIds(cdp, type) {
  const { processInfo } = await cdp.send('SystemInfo.getProcessInfo');
  return processInfo.filter((p) => p.type === type).map((p) => p.id);
}

const cmdline = (pid) => {
  try {
    // Chromium's zygote children rewrite their command line as one string: split on spaces too.
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8').split(/[\0 ]/);
  } catch {
    return [];
  }
};

/** The browser's extension renderer (where the extension's worker and pages run), or null. */
export async function extensionProcess(cdp) {
  const pids = (await processIds(cdp, 'renderer')).filter((pid) => cmdline(pid).includes('--extension-process'));
  if (pids.length > 1) throw new Error(`more than one extension renderer: ${pids.join(', ')}`);
  return pids[0] ?? null;
}

/**
 * Resident memory of a process, bytes: VmRSS, RssAnon, RssShmem (shared memory it maps: canvases,
 * blobs and images the browser shares with it; /proc/pid/status), Pss (smaps_rollup).
 */
export function residentOf(pid) {
  const field = (text, name) => {
    const m = text.match(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm'));
    return m ? Number(m[1]) * 1024 : NaN;
  };
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const rollup = readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8');
  return {
    rss: field(status, 'VmRSS'),
    anon: field(status, 'RssAnon'),
    shmem: field(status, 'RssShmem'),
    pss: field(rollup, 'Pss'),
  };
}

/** How many threads a process runs now (/proc/pid/status): a dedicated worker is one. */
export function threadsOf(pid) {
  const m = readFileSync(`/proc/${pid}/status`, 'utf8').match(/^Threads:\s+(\d+)/m);
  return m ? Number(m[1]) : NaN;
}
