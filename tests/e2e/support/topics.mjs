// Topic search's end-to-end kit, shared by the semantic*.test.mjs files: its fixture history,
// generated pages, and the worker's and IndexedDB's state read from an extension page.
import assert from 'node:assert/strict';
import { DAY, HOUR, MINUTE } from './fixtures.mjs';
import { askWorker } from './live.mjs';
import { waitUntil } from './settle.mjs';

/** The model reads pages one by one on a shared 2-core machine: a failure limit only. */
export const BUILD_LIMIT_MS = 300_000;

export const TYRE = { url: 'https://www.velo-entretien.fr/guide/crevaison', title: 'Réparer une crevaison en cinq minutes' };
export const IRON = { url: 'https://www.healthline.com/nutrition/vegetarian-foods-high-in-iron', title: '21 Vegetarian Foods That Are Loaded With Iron' };
export const NOISE = [
  ['https://github.com/rust-lang/rust/issues/12345', 'Borrow checker rejects valid closure · Issue #12345 · rust-lang/rust'],
  ['https://www.meteofrance.com/previsions-meteo-france/lyon/69000', 'Météo Lyon - Prévisions à 15 jours'],
  ['https://www.lemonde.fr/politique/article/2026/11/20/budget-2027', 'Budget 2027 : le gouvernement présente ses arbitrages'],
  ['https://www.allrecipes.com/recipe/21014/good-old-fashioned-pancakes/', 'Good Old-Fashioned Pancakes Recipe'],
  ['https://developer.mozilla.org/en-US/docs/Web/API/Fetch_API', 'Fetch API - Web APIs | MDN'],
  ['https://docs.python.org/3/library/asyncio.html', 'asyncio — Asynchronous I/O — Python 3.13 documentation'],
  ['https://www.lequipe.fr/Football/Ligue-1/', 'Ligue 1 : résultats et classement'],
  ['https://www.amazon.fr/dp/B0CHX1W1XY', 'Casque Bluetooth à réduction de bruit - Amazon.fr'],
  ['https://fr.wikipedia.org/wiki/Tour_Eiffel', 'Tour Eiffel — Wikipédia'],
  ['https://www.netflix.com/browse', 'Netflix'],
  ['https://www.sncf-connect.com/app/trips/search', 'Billets de train : réservez votre voyage | SNCF Connect'],
  ['https://www.zillow.com/mortgage-rates/', 'Current Mortgage Rates for November 2026'],
  ['https://www.spa.asso.fr/adoption/chats', 'Adopter un chat à la SPA'],
  ['https://www.rtings.com/laptop/reviews/best/by-usage/programming', 'The 6 Best Laptops For Programming - Fall 2026'],
  ['https://www.pianoweb.fr/apprendre-piano-debutant.php', 'Apprendre le piano quand on est débutant'],
  ['https://www.alltrails.com/trail/us/colorado/hanging-lake-trail', 'Hanging Lake Trail, Colorado - 1,024 Reviews, Map | AllTrails'],
];

export function topicHistory(now) {
  return [
    { url: TYRE.url, title: TYRE.title, visits: [now - 2 * DAY] },
    { url: IRON.url, title: IRON.title, visits: [now - 3 * DAY - 5 * HOUR] },
    ...NOISE.map(([url, title], i) => ({ url, title, visits: [now - (i + 1) * 7 * HOUR - i * MINUTE] })),
  ];
}

/** Topic search's state as the worker reports it. */
export async function semanticState(page) {
  const answer = await askWorker(page, { type: 'semanticState' });
  assert.equal(answer?.type, 'semantic', `semanticState answered ${JSON.stringify(answer)}`);
  // The status as `{ type, reason }`: on the wire it is "ready", or { unavailable: "modelMissing" }.
  const { status } = answer.progress;
  const [type, reason] = typeof status === 'string' ? [status] : Object.entries(status)[0];
  return { ...answer.progress, status: { type, reason } };
}

/** Waits until topic search reports `status` (failing at once on another final state). */
export async function waitForSemantic(page, status, { limit = BUILD_LIMIT_MS } = {}) {
  let last;
  await waitUntil(async () => {
    last = await semanticState(page);
    if (last.status.type !== status && !['building', 'loading'].includes(last.status.type)) {
      throw new Error(`topic search became ${JSON.stringify(last)} while waiting for ${status}`);
    }
    return last.status.type === status;
  }, `topic search ${status}`, { timeout: limit, describe: () => JSON.stringify(last) });
  return last;
}

/** The URLs topic search alone gives for `query`. */
export async function understood(page, query, startMs = 0) {
  const answer = await askWorker(page, { type: 'understand', query, startMs, limit: 30 });
  assert.equal(answer?.type, 'understood', `understand answered ${JSON.stringify(answer)}`);
  return answer.pages.map((p) => p.url);
}

/** The URLs the words alone (the lexical index) give for `query`. */
export async function lexical(page, query) {
  const answer = await askWorker(page, { type: 'search', query, startMs: 0, limit: 25 });
  assert.equal(answer?.type, 'pages');
  return answer.pages.map((p) => p.url);
}

/** Vector records in the extension's IndexedDB (read from an extension page: same origin). */
export async function storedVectors(page) {
  return page.evaluate(() => new Promise((resolve, reject) => {
    const open = indexedDB.open('history-chat');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('vectors')) { db.close(); resolve(0); return; }
      const count = db.transaction('vectors').objectStore('vectors').count();
      count.onsuccess = () => { db.close(); resolve(count.result); };
      count.onerror = () => reject(count.error);
    };
  }));
}

/** Whether IndexedDB holds a vector record for the page at `url` (its key: the cleaned URL). */
export async function hasStoredVector(page, url) {
  return (await storedVector(page, url)) !== null;
}

/** The stored vector record of the page at `url` (its key: the cleaned URL), as an array of bytes (`null`: none). */
export async function storedVector(page, url) {
  return page.evaluate((key) => new Promise((resolve, reject) => {
    const open = indexedDB.open('history-chat');
    open.onerror = () => reject(open.error);
    open.onsuccess = () => {
      const db = open.result;
      if (!db.objectStoreNames.contains('vectors')) { db.close(); resolve(null); return; }
      const get = db.transaction('vectors').objectStore('vectors').get(key);
      get.onsuccess = () => {
        db.close();
        const value = get.result;
        resolve(value == null ? null : Array.from(new Uint8Array(value.buffer ?? value)));
      };
      get.onerror = () => reject(get.error);
    };
  }), url);
}

/** The number of pages the lexical index holds, once it is ready. */
export async function lexicalPages(page) {
  let answer;
  await waitUntil(async () => (answer = await askWorker(page, { type: 'warm' }))?.type === 'ready', 'the lexical index ready');
  return answer.pages;
}

/** `count` varied pages, newest first, over the last `days` days. */
export function manyPages(count, now, days = 20) {
  const topics = ['recette', 'guide', 'review', 'tutorial', 'actualité', 'forum', 'docs', 'prix', 'météo', 'football'];
  return Array.from({ length: count }, (_, i) => ({
    url: `https://site${i % 37}.example.com/${topics[i % topics.length]}/${i}`,
    title: `${topics[(i * 7) % topics.length]} numéro ${i} — page ${i % 13} de la série ${Math.floor(i / 13)}`,
    visits: [now - Math.floor((i / count) * days * DAY) - 1000],
  }));
}
