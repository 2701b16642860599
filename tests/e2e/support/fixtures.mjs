// Fixture histories. Every entry: {url, title, visits: [ms since epoch, ...]} — what seed_history.py takes.
// Times are relative to `now` (passed in, so a test can compute expectations from the same clock).

export const MINUTE = 60_000;
export const HOUR = 60 * MINUTE;
export const DAY = 24 * HOUR;

/** The cleaned URL of the article that is visited three times with tracking parameters / a fragment. */
export const CTE_ARTICLE = {
  cleanUrl: 'https://blog.pgdev.io/2026/recursive-ctes-handling-cycles-in-postgresql',
  title: 'Recursive CTEs: handling cycles in PostgreSQL',
  rawUrls: [
    'https://blog.pgdev.io/2026/recursive-ctes-handling-cycles-in-postgresql?utm_source=twitter&utm_medium=social',
    'https://blog.pgdev.io/2026/recursive-ctes-handling-cycles-in-postgresql?fbclid=IwAR2xQ9sLk4bVd0_yTmR3n8cW1pZ7fHjKq',
    'https://blog.pgdev.io/2026/recursive-ctes-handling-cycles-in-postgresql#comments',
  ],
};

/** Visited exactly 10 days ago and never since; the only page matching "sourdough". */
export const TEN_DAYS_AGO_PAGE = {
  url: 'https://www.kingarthurbaking.com/blog/2026/11/20/sourdough-starter-troubleshooting',
  title: 'Sourdough starter troubleshooting: why is my starter not rising? | King Arthur Baking',
  query: 'sourdough',
};

/** Rows that must never be shown: Google search result pages and non-web schemes. */
export const EXCLUDED = [
  { url: 'https://www.google.com/search?q=recursive+cte+postgresql+cycle&oq=recursive+cte&sourceid=chrome&ie=UTF-8', title: 'recursive cte postgresql cycle - Google Search' },
  { url: 'https://www.google.fr/search?q=recette+cr%C3%AApes+facile&sourceid=chrome&ie=UTF-8', title: 'recette crêpes facile - Recherche Google' },
  { url: 'chrome://settings/', title: 'Settings - recursive cte' },
  { url: 'chrome-extension://abcdefghijklmnopabcdefghijklmnop/x.html', title: 'Recursive CTE cheat sheet (extension page)' },
  { url: 'file:///home/me/notes.txt', title: 'notes.txt — recursive cte postgresql' },
  { url: 'about:blank', title: 'recursive cte about:blank' },
  { url: 'data:text/html,<h1>recursive cte</h1>', title: 'data:text/html recursive cte' },
  { url: 'javascript:void(0)', title: 'recursive cte javascript' },
  { url: 'view-source:https://blog.pgdev.io/2026/recursive-ctes-handling-cycles-in-postgresql', title: 'view-source: Recursive CTEs: handling cycles in PostgreSQL' },
];

/**
 * Reference cleaning for expectations in tests (not the extension's implementation): drop the
 * fragment and the tracking parameters used in these fixtures, sort the remaining parameters.
 */
export function cleanForTest(url) {
  const u = new URL(url);
  u.hash = '';
  for (const k of [...u.searchParams.keys()]) if (/^(utm_.*|fbclid|gclid)$/.test(k)) u.searchParams.delete(k);
  u.searchParams.sort();
  return u.href;
}

/** Cleaned web URLs visited within [now - periodMs, now], most recent first — what an empty question should list. */
export function expectedRecent(entries, now, periodMs) {
  const latest = new Map();
  for (const e of entries) {
    if (isExcludedHref(e.url)) continue;
    const last = Math.max(...e.visits);
    if (last < now - periodMs) continue;
    const key = cleanForTest(e.url);
    latest.set(key, Math.max(latest.get(key) ?? 0, last));
  }
  return [...latest.entries()].sort((a, b) => b[1] - a[1]).map(([url]) => url);
}

/** Predicate used by tests: a result href that must never be shown. */
export function isExcludedHref(href) {
  let u;
  try {
    u = new URL(href);
  } catch {
    return true;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return true;
  return /(^|\.)google\.[a-z.]+$/.test(u.hostname) && u.pathname === '/search';
}

// [url, title, visits as "ago" offsets in ms]
const PAGES = [
  // developer articles and docs
  ['https://developer.mozilla.org/en-US/docs/Web/JavaScript/Reference/Global_Objects/Array/flatMap', 'Array.prototype.flatMap() - JavaScript | MDN', [2 * DAY, 3 * HOUR]],
  ['https://developer.mozilla.org/en-US/docs/Web/API/IntersectionObserver', 'IntersectionObserver - Web APIs | MDN', [4 * DAY]],
  ['https://developer.mozilla.org/en-US/docs/Web/HTTP/Headers/Content-Security-Policy', 'Content-Security-Policy (CSP) header - HTTP | MDN', [6 * DAY, 25 * DAY]],
  ['https://doc.rust-lang.org/std/collections/struct.BTreeMap.html', 'BTreeMap in std::collections - Rust', [1 * DAY]],
  ['https://docs.rs/serde_json/latest/serde_json/', 'serde_json - Rust', [5 * DAY]],
  ['https://github.com/leptos-rs/leptos/issues/2345', 'Hydration mismatch when using Suspense inside For · Issue #2345 · leptos-rs/leptos', [3 * DAY]],
  ['https://github.com/rustwasm/wasm-bindgen/issues/3685', 'externref table corrupted after running wasm-opt · Issue #3685 · rustwasm/wasm-bindgen', [2 * HOUR]],
  ['https://github.com/rust-lang/rust/pull/118000', 'Stabilize async closures by compiler-errors · Pull Request #118000 · rust-lang/rust', [12 * DAY]],
  ['https://stackoverflow.com/questions/1109061/insert-on-duplicate-update-in-postgresql', 'sql - Insert, on duplicate update in PostgreSQL? - Stack Overflow', [2 * DAY]],
  ['https://www.postgresql.org/docs/current/queries-with.html', 'PostgreSQL: Documentation: 17: 7.8. WITH Queries (Common Table Expressions)', [2 * DAY + HOUR]],
  ['https://developer.chrome.com/docs/extensions/reference/api/history', 'chrome.history | API | Chrome for Developers', [30 * MINUTE]],
  ['https://developer.chrome.com/docs/extensions/develop/concepts/service-workers/lifecycle', 'The extension service worker lifecycle | Chrome for Developers', [20 * DAY]],
  ['https://news.ycombinator.com/item?id=42012345', 'Show HN: A history search that runs entirely on-device | Hacker News', [6 * HOUR]],
  ['https://jvns.ca/blog/2026/10/12/how-dns-resolvers-cache/', 'How DNS resolvers cache answers', [40 * DAY]],
  // encyclopaedia
  ['https://en.wikipedia.org/wiki/Dijkstra%27s_algorithm', "Dijkstra's algorithm - Wikipedia", [8 * DAY]],
  ['https://en.wikipedia.org/wiki/Byzantine_fault', 'Byzantine fault - Wikipedia', [60 * DAY]],
  ['https://fr.wikipedia.org/wiki/Cath%C3%A9drale_Notre-Dame_de_Paris', 'Cathédrale Notre-Dame de Paris — Wikipédia', [3 * DAY]],
  // news
  ['https://www.bbc.com/news/articles/c4gq2x7y9z1o', 'Undersea cable cut disrupts internet across West Africa - BBC News', [1 * DAY + 2 * HOUR]],
  ['https://arstechnica.com/gadgets/2026/11/framework-laptop-16-review/', 'Framework Laptop 16 review: a modular laptop that finally delivers - Ars Technica', [9 * DAY]],
  ['https://www.lemonde.fr/planete/article/2026/11/22/la-cop31-s-acheve-sur-un-accord-a-minima_6543210_3244.html', 'La COP31 s’achève sur un accord a minima', [4 * HOUR]],
  ['https://www.liberation.fr/culture/cinema/festival-lumiere-les-films-a-ne-pas-manquer-20261015/', 'Festival Lumière : les films à ne pas manquer – Libération', [45 * DAY]],
  // French everyday pages
  ['https://www.marmiton.org/recettes/recette_pate-a-crepes-facile_12372.aspx', 'Pâte à crêpes facile : Recette de Pâte à crêpes facile', [5 * HOUR, 6 * DAY]],
  ['https://www.service-public.fr/particuliers/vosdroits/F1342', 'Carte d’identité : première demande | Service-Public.fr', [11 * DAY]],
  ['https://www.sncf-connect.com/app/trips/search?origin=Paris&destination=Lyon', 'Billets de train Paris → Lyon | SNCF Connect', [2 * DAY + 5 * HOUR]],
  // video
  ['https://www.youtube.com/watch?v=8aGhZQkoFbQ', 'What the heck is the event loop anyway? | Philip Roberts | JSConf EU - YouTube', [7 * HOUR]],
  ['https://www.youtube.com/watch?v=rQvOAnNvcNQ', 'Rust for TypeScript developers - YouTube', [13 * DAY]],
  // shopping
  ['https://www.amazon.com/Logitech-MX-Master-3S-Wireless/dp/B09HM94VDS', 'Logitech MX Master 3S Wireless Performance Mouse : Electronics - Amazon.com', [1 * DAY + 6 * HOUR]],
  ['https://www.ikea.com/fr/fr/p/billy-bibliotheque-blanc-00263850/', 'BILLY Bibliothèque, blanc, 80x28x202 cm - IKEA', [3 * DAY + 3 * HOUR]],
  ['https://www.decathlon.fr/p/chaussures-de-randonnee-montagne-mh500-impermeables-homme/_/R-p-300476', 'Chaussures de randonnée montagne imperméables MH500 homme | Decathlon', [15 * DAY]],
  ['https://www.etsy.com/listing/1234567890/handmade-ceramic-coffee-mug', 'Handmade Ceramic Coffee Mug - Etsy', [70 * DAY]],
  // misc
  ['https://mail.google.com/mail/u/0/#inbox', 'Inbox (3) - me@example.com - Gmail', [10 * MINUTE]],
  ['https://www.google.com/maps/place/Gare+de+Lyon/@48.844,2.373,17z', 'Gare de Lyon - Google Maps', [2 * DAY + 4 * HOUR]],
  ['https://example.org/untitled-notes', '', [5 * DAY]],
];

/**
 * The realistic ~45-entry history used by most tests and the demo.
 * @param {number} [now]
 */
export function demoHistory(now = Date.now()) {
  const at = (agoList) => agoList.map((ago) => now - ago);
  const entries = PAGES.map(([url, title, ago]) => ({ url, title, visits: at(ago) }));
  // The same article three times, each variant a separate URL row (as Chrome stores it).
  CTE_ARTICLE.rawUrls.forEach((url, i) => entries.push({ url, title: CTE_ARTICLE.title, visits: at([(i + 1) * (DAY + HOUR)]) }));
  entries.push({ url: TEN_DAYS_AGO_PAGE.url, title: TEN_DAYS_AGO_PAGE.title, visits: [now - 10 * DAY] });
  // Excluded rows are the most recent ones, so an unfiltered list would show them first.
  EXCLUDED.forEach((e, i) => entries.push({ url: e.url, title: e.title, visits: at([(i + 1) * MINUTE, 3 * DAY]) }));
  return entries;
}

// ---------------------------------------------------------------------------
// 20,000-entry synthetic history: deterministic, realistic-looking URLs and titles.

function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const SITES = [
  ['https://github.com', (w, n) => `/${w[0]}-${w[1]}/${w[2]}/issues/${n}`, (w, n) => `${cap(w[3])} ${w[4]} fails when ${w[5]} is ${w[6]} · Issue #${n} · ${w[0]}-${w[1]}/${w[2]}`],
  ['https://stackoverflow.com', (w, n) => `/questions/${n}/how-to-${w[0]}-${w[1]}-${w[2]}`, (w) => `How to ${w[0]} ${w[1]} ${w[2]} in ${w[3]}? - Stack Overflow`],
  ['https://developer.mozilla.org', (w) => `/en-US/docs/Web/API/${cap(w[0])}${cap(w[1])}`, (w) => `${cap(w[0])}${cap(w[1])} - Web APIs | MDN`],
  ['https://en.wikipedia.org', (w) => `/wiki/${cap(w[0])}_${w[1]}`, (w) => `${cap(w[0])} ${w[1]} - Wikipedia`],
  ['https://fr.wikipedia.org', (w) => `/wiki/${cap(w[7])}_${w[8]}`, (w) => `${cap(w[7])} ${w[8]} — Wikipédia`],
  ['https://www.youtube.com', (w, n) => `/watch?v=${vid(n)}`, (w) => `${cap(w[0])} ${w[1]} explained in ${w[2].length} minutes - YouTube`],
  ['https://www.reddit.com', (w, n) => `/r/${w[0]}/comments/${n.toString(36)}/${w[1]}_${w[2]}_${w[3]}/`, (w) => `${cap(w[1])} ${w[2]} ${w[3]}? : r/${w[0]}`],
  ['https://news.ycombinator.com', (w, n) => `/item?id=${40000000 + n}`, (w) => `${cap(w[0])} ${w[1]}: ${w[2]} ${w[3]} | Hacker News`],
  ['https://www.amazon.com', (w, n) => `/${cap(w[0])}-${cap(w[1])}-${cap(w[2])}/dp/B0${n.toString(36).toUpperCase().padStart(8, 'X')}`, (w) => `${cap(w[0])} ${cap(w[1])} ${cap(w[2])} : Home & Kitchen - Amazon.com`],
  ['https://www.lemonde.fr', (w, n) => `/societe/article/2026/${(n % 12) + 1}/${(n % 28) + 1}/${w[7]}-${w[8]}_${6000000 + n}_3224.html`, (w) => `${cap(w[7])} : ${w[8]} et ${w[9]}`],
  ['https://medium.com', (w, n) => `/@${w[0]}${w[1]}/${w[2]}-${w[3]}-${w[4]}-${n.toString(16)}`, (w) => `${cap(w[2])} ${w[3]} ${w[4]}: lessons learned | by ${cap(w[0])} | Medium`],
  ['https://docs.rs', (w) => `/${w[0]}-${w[1]}/latest/${w[0]}_${w[1]}/`, (w) => `${w[0]}_${w[1]} - Rust`],
];
const WORDS = 'async rust cache query index thread socket parser vector tensor kernel docker compose webpack react hooks render stream buffer lambda router schema migration cluster shard replica token session cookie header layout grid flexbox canvas shader texture audio codec sensor battery garden recipe travel budget camera lens guitar chess'.split(' ');
const FR = 'économie école santé élection cinéma musique météo rentrée retraite logement transport énergie forêt littoral fromage vendanges'.split(' ');
const cap = (s) => s.charAt(0).toUpperCase() + s.slice(1);
const vid = (n) => Buffer.from(String(n * 7919)).toString('base64url').padEnd(11, 'x').slice(0, 11);

/**
 * @param {number} [count]
 * @param {number} [now]
 * @param {number} [seed]
 */
export function largeHistory(count = 20_000, now = Date.now(), seed = 42) {
  const rnd = mulberry32(seed);
  const pick = (arr) => arr[Math.floor(rnd() * arr.length)];
  const entries = [];
  const seen = new Set();
  for (let n = 1; entries.length < count; n++) {
    const [origin, pathOf, titleOf] = pick(SITES);
    const w = [pick(WORDS), pick(WORDS), pick(WORDS), pick(WORDS), pick(WORDS), pick(WORDS), pick(WORDS), pick(FR), pick(FR), pick(FR)];
    const url = origin + pathOf(w, n);
    if (seen.has(url)) continue;
    seen.add(url);
    const visitCount = 1 + Math.floor(rnd() * rnd() * 6);
    // Recent visits are denser, like real browsing; everything within Chrome's 90-day window.
    const visits = Array.from({ length: visitCount }, () => now - Math.floor(rnd() * rnd() * 89 * DAY) - MINUTE);
    entries.push({ url, title: titleOf(w, n), visits });
  }
  return entries;
}
