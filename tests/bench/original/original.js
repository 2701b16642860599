// The "literal original" (original.html): the question goes straight to
// chrome.history.search({text: question, startTime: periodStart, maxResults: 100}); the answer is
// cleaned — fragment dropped, tracking parameters dropped, the other parameters sorted, entries
// that clean to the same URL merged, Google search pages and non-http(s) pages excluded — and its
// first 25 pages (what History Chat's popup shows) are listed: title, URL. Plain JS, no WebAssembly:
// the baseline tests/bench/committed.mjs times History Chat against.
//
// For the benchmark's instrumentation each answer is a new `div.answer` in the Results section,
// holding `p.question` and a `ul[role=list]` of `li > a` (span.title, span.url), or a `p.notice`.

const DAY_MS = 24 * 60 * 60 * 1000;
const PERIOD_DAYS = { '24h': 1, '7d': 7, '30d': 30, '90d': 90 };
const MAX_RESULTS = 100;
const SHOWN = 25;

// The core's clean::TRACKING_PARAMS, compared case-insensitively; every `utm_*` too.
const TRACKING = new Set([
  'gclid', 'gclsrc', 'dclid', 'gbraid', 'wbraid', 'fbclid', 'msclkid', 'mc_eid', 'mc_cid', 'igshid', 'igsh',
  'yclid', '_ga', '_gl', '_hsenc', '_hsmi', '__hssc', '__hstc', '__hsfp', 'hsctatracking', 'mkt_tok',
  'oly_enc_id', 'oly_anon_id', 'vero_id', 'vero_conv', 's_cid', 'ref_src', 'ref_url', 'twclid', 'ttclid',
  'li_fat_id', 'srsltid',
]);

const compare = (a, b) => (a < b ? -1 : a > b ? 1 : 0);
const paramName = (piece) => piece.split('=', 1)[0];
const isTracking = (name) => {
  const lower = name.toLowerCase();
  return lower.startsWith('utm_') || TRACKING.has(lower);
};

/** google.<tld>, google.co.<cc>, google.com.<cc> (with or without www.), path /search… */
function isGoogleSearch(url) {
  const host = url.hostname.replace(/^www\./, '');
  const googleDomain = /^google\.([a-z]{2,3}|(co|com)\.[a-z]{2})$/.test(host);
  return googleDomain && (url.pathname === '/search' || url.pathname.startsWith('/search/'));
}

/** The one form a page is shown and merged under, or null when it is never shown. */
export function cleanUrl(raw) {
  let url;
  try {
    url = new URL(String(raw).trim());
  } catch {
    return null;
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || !url.hostname || isGoogleSearch(url)) return null;
  url.hash = '';
  // Raw pieces, kept byte for byte; sorted by name, then by the whole piece.
  const kept = url.search
    .slice(1)
    .split('&')
    .filter((piece) => piece && !isTracking(paramName(piece)))
    .sort((a, b) => compare(paramName(a), paramName(b)) || compare(a, b));
  url.search = kept.length ? `?${kept.join('&')}` : '';
  return url.href;
}

/** Cleans and merges history items, keeping the browser's order (most recent first). */
export function cleanAndMerge(items) {
  const pages = new Map(); // cleaned URL -> {url, title, lastVisitTime, titleVisit}
  for (const item of items) {
    const url = cleanUrl(item.url);
    if (!url) continue;
    const title = (item.title || '').trim();
    const visit = item.lastVisitTime || 0;
    const page = pages.get(url);
    if (!page) {
      pages.set(url, { url, title, lastVisitTime: visit, titleVisit: visit });
      continue;
    }
    page.lastVisitTime = Math.max(page.lastVisitTime, visit);
    if (title && (visit > page.titleVisit || !page.title)) {
      page.title = title;
      page.titleVisit = visit;
    }
  }
  return [...pages.values()];
}

const box = document.querySelector('input[type="search"]');
const period = document.querySelector('select');
const status = document.querySelector('[role="status"]');
const results = document.querySelector('section[aria-label="Results"]');

function render(question, pages, days) {
  const answer = document.createElement('div');
  answer.className = 'answer';
  const asked = answer.appendChild(document.createElement('p'));
  asked.className = 'question';
  asked.textContent = question;
  if (pages.length === 0) {
    const notice = answer.appendChild(document.createElement('p'));
    notice.className = 'notice';
    notice.textContent = `Nothing in the last ${days === 1 ? '24 hours' : `${days} days`} matches “${question}”.`;
  } else {
    const list = answer.appendChild(document.createElement('ul'));
    list.setAttribute('role', 'list');
    for (const page of pages.slice(0, SHOWN)) {
      const link = list.appendChild(document.createElement('li')).appendChild(document.createElement('a'));
      link.href = page.url;
      link.target = '_blank';
      link.rel = 'noreferrer';
      const title = link.appendChild(document.createElement('span'));
      title.className = 'title';
      title.textContent = page.title || page.url;
      const url = link.appendChild(document.createElement('span'));
      url.className = 'url';
      url.textContent = page.url;
    }
  }
  results.replaceChildren(answer);
  status.textContent = pages.length === 1 ? '1 page found' : `${pages.length} pages found`;
}

document.querySelector('form').addEventListener('submit', async (event) => {
  event.preventDefault();
  const question = box.value.trim();
  const days = PERIOD_DAYS[period.value] ?? 7;
  status.textContent = 'Searching your history…';
  try {
    const items = await chrome.history.search({ text: question, startTime: Date.now() - days * DAY_MS, maxResults: MAX_RESULTS });
    render(question, cleanAndMerge(items), days);
  } catch (error) {
    status.textContent = `Your history could not be searched (${error}).`;
  }
});

// Focused once the handlers are in place: focus means usable.
box.focus();
