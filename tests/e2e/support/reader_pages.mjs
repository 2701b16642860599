// Pages and PDFs for the page reader's tests and its benchmark (tests/bench/reader_cost.mjs): an
// article in a site's usual clothes (navigation, a cookie banner, a sidebar, a footer), the same
// in French, a tiny page, a long page of a chosen length, a heavy DOM, and PDFs written here (one
// with a text layer, one that is an image only: a scan). Every boilerplate part carries words of
// its own (BOILERPLATE), so a test can tell the article's words from the rest.

/** Words only the boilerplate holds: none may reach the extracted text. */
export const BOILERPLATE = Object.freeze({
  nav: 'Marketplace Podcasts Horoscopes',
  cookie: 'Tracking consent preferences partners',
  sidebar: 'Trending elsewhere celebrity gossip',
  footer: 'Copyright Examplemedia Holdings investor relations',
});

const SHELL_STYLE = 'body{font:16px/1.5 serif;margin:0} nav a{margin:0 .5em}';

function shell({ lang = 'en', title, article, extraHead = '', extraBody = '' }) {
  const nav = BOILERPLATE.nav.split(' ').map((word) => `<li><a href="/${word.toLowerCase()}">${word}</a></li>`).join('');
  const sidebar = BOILERPLATE.sidebar.split(' ').map((word, i) => `<li><a href="/story/${i}">${word} story number ${i}</a></li>`).join('');
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<title>${title}</title>
<style>${SHELL_STYLE}</style>
${extraHead}
</head>
<body>
<div id="cookie-consent" class="consent-banner" role="dialog">
  <p>${BOILERPLATE.cookie}: we and our partners use cookies.</p>
  <button>Accept all</button> <button>Reject</button>
</div>
<header class="site-header">
  <a class="logo" href="/">Example Media</a>
  <nav class="main-nav"><ul>${nav}</ul></nav>
  <form class="search" action="/search"><input name="q" value="typed search words"><button>Search</button></form>
</header>
<main>
${article}
</main>
<aside class="sidebar"><h3>Most read</h3><ul>${sidebar}</ul></aside>
<footer class="site-footer"><p>${BOILERPLATE.footer}. All rights reserved.</p>
<ul><li><a href="/about">About us</a></li><li><a href="/careers">Careers</a></li></ul></footer>
${extraBody}
</body>
</html>`;
}

/** The article's own words, checked in the text. */
export const ARTICLE_FACTS = Object.freeze([
  'The hydrangea colour depends on the aluminium the soil lets the plant take up',
  'Gardeners in Brittany add crushed oyster shells to keep their hydrangeas pink',
  'A soil test kit costs less than a single potted shrub',
]);

export function articlePage() {
  const paragraphs = [
    `${ARTICLE_FACTS[0]}: in acid soil the aluminium dissolves and the flowers turn blue, while in chalky soil it stays locked away and the same plant flowers pink. The pigment itself, delphinidin, is the same in both; only its partner changes.`,
    'Most garden soils sit between the two, which is why one bush can carry blue, mauve and pink heads at once. Rainwater, compost and even the concrete of a nearby wall move the balance a little each season, and the plant answers the following summer.',
    `${ARTICLE_FACTS[1]}, and growers who want blue flowers water them with a solution of aluminium sulphate every fortnight from March. The change is slow: a plant moved from one soil to another may need two years to settle into its new colour.`,
    `White varieties do not change at all, because they make no pigment to begin with. ${ARTICLE_FACTS[2]}, and it tells in an afternoon whether the soil is acid enough for blue flowers or needs a correction before planting.`,
    'Pruning matters less than gardeners fear. Mophead hydrangeas flower on the previous year\'s wood, so a hard cut in spring removes the buds; the safe rule is to take off only the dead heads, down to the first pair of fat buds, once the frosts are over.',
  ];
  const article = `<article class="post">
  <h1>Why hydrangeas change colour</h1>
  <p class="byline">By Jane Gardener</p>
  ${paragraphs.map((p) => `<p>${p}</p>`).join('\n  ')}
  <h2>What to do this autumn</h2>
  <ul><li>Test the soil before planting.</li><li>Mulch with pine needles for blue flowers.</li><li>Keep the dead heads on through winter: they shelter the buds.</li></ul>
</article>`;
  return shell({ title: 'Notes', article });
}

export const FRENCH_FACTS = Object.freeze([
  'La crevaison lente vient le plus souvent d’une épine restée dans le pneu',
  'Il faut passer la main à l’intérieur de l’enveloppe avant de remonter une chambre neuve',
]);

export function frenchPage() {
  const paragraphs = [
    `${FRENCH_FACTS[0]} : la chambre à air se vide en quelques heures, et la réparer sans retirer l’épine ne fait que repousser la prochaine crevaison de quelques kilomètres.`,
    `${FRENCH_FACTS[1]}, doucement, pour sentir ce qui dépasse encore. Un morceau de verre ou un fil métallique se cache souvent dans une rainure de la bande de roulement.`,
    'La rustine se pose sur une surface poncée et sèche ; la colle doit être laissée à l’air une minute avant d’appuyer la pièce, sans quoi elle ne prend pas. On vérifie ensuite la réparation en gonflant la chambre et en la plongeant dans une bassine d’eau.',
    'Enfin, on regonfle à la pression indiquée sur le flanc du pneu : trop peu, et la chambre se pince au premier trottoir ; trop, et le confort disparaît sur les pavés.',
  ];
  const article = `<article><h1>Réparer une crevaison</h1>
  ${paragraphs.map((p) => `<p>${p}</p>`).join('\n  ')}
</article>`;
  return shell({ lang: 'fr', title: 'Atelier', article });
}

export function tinyPage() {
  return '<!doctype html><html lang="en"><head><title>Dashboard</title></head><body><p>Back soon.</p></body></html>';
}

const LOREM = ('garden river mountain lantern copper harbour violin meadow thunder pepper window ' +
  'orchard glacier saddle compass ribbon falcon candle marble velvet anchor pillow tunnel ' +
  'biscuit lagoon parsley quartz saffron timber walnut').split(' ');

/** A long article of `words` words in paragraphs of 80, inside the same boilerplate. */
export function longPage(words = 5000) {
  const paragraphs = [];
  let n = 0;
  while (n < words) {
    const count = Math.min(80, words - n);
    const p = [];
    for (let i = 0; i < count; i += 1) p.push(LOREM[(n + i * 7) % LOREM.length]);
    p[0] = p[0][0].toUpperCase() + p[0].slice(1);
    paragraphs.push(`<p>${p.join(' ')}.</p>`);
    n += count;
  }
  return shell({ title: 'Report', article: `<article><h1>A long report</h1>${paragraphs.join('\n')}</article>` });
}

/**
 * A long article as a news site serves it: `words` words in paragraphs with links and emphasis,
 * share buttons with icons, inline scripts and JSON data, a comment form and 150 comments, 200
 * related links, inside the same boilerplate (about 3,500 elements for 5,000 words).
 */
export function newsPage(words = 5000) {
  const paragraphs = [];
  let n = 0;
  let k = 0;
  while (n < words) {
    const count = Math.min(90, words - n);
    const p = [];
    for (let i = 0; i < count; i += 1) p.push(LOREM[(n + i * 7) % LOREM.length]);
    p[0] = p[0][0].toUpperCase() + p[0].slice(1);
    p[10] = `<a href="/topic/${p[10]}">${p[10]}</a>`;
    p[30] = `<em>${p[30]}</em>`;
    p[50] = `<a href="https://elsewhere.example/${k}" rel="noopener">${p[50]} ${p[51]}</a>`;
    p.splice(51, 1);
    paragraphs.push(`<p>${p.join(' ')}.</p>`);
    if (k % 6 === 5) paragraphs.push(`<figure><img src="/img/${k}.jpg" alt="A picture" width="600" height="400"><figcaption>Figure ${k}</figcaption></figure><script>window.__ad${k}={slot:${k}}</script>`);
    n += count;
    k += 1;
  }
  const icon = '<svg viewBox="0 0 24 24" width="16" height="16"><path d="M12 2l3 7h7l-6 4 2 7-6-4-6 4 2-7-6-4h7z"/></svg>';
  const share = `<div class="share">${['Facebook', 'X', 'Mail', 'Print'].map((s) => `<button aria-label="${s}">${icon}</button>`).join('')}</div>`;
  const comments = [];
  for (let i = 0; i < 150; i += 1) comments.push(`<li class="comment"><div class="meta"><a href="/u/${i}">reader${i}</a> <time>2 h</time></div><p>${LOREM[i % LOREM.length]} comment ${i}</p><button class="reply">Reply</button></li>`);
  const related = [];
  for (let i = 0; i < 200; i += 1) related.push(`<li><a href="/story/${i}"><img src="/t/${i}.jpg" alt="">Related story ${i}</a></li>`);
  const article = `<article><h1>A long report</h1>${share}${paragraphs.join('\n')}${share}</article>
<section class="comments"><h2>Comments</h2><form><textarea name="c">my draft</textarea><button>Post</button></form><ol>${comments.join('')}</ol></section>
<section class="related"><h2>Related</h2><ul>${related.join('')}</ul></section>
<script type="application/ld+json">{"@type":"NewsArticle","headline":"A long report"}</script>
<script>${'window.__state = ' + JSON.stringify({ items: Array.from({ length: 300 }, (_, i) => ({ id: i, title: `Story ${i}` })) })}</script>`;
  return shell({ title: 'Report', article });
}

/**
 * A heavy DOM, as a social feed or a big table page has: `items` cards of nested elements with
 * attributes, an icon each (inline SVG), a like button and a comment box (form controls), around
 * a short article.
 */
export function heavyPage(items = 6000) {
  const cards = [];
  for (let i = 0; i < items; i += 1) {
    cards.push(`<div class="card card-${i % 7}" data-id="${i}"><div class="card-head"><span class="avatar" aria-hidden="true"><svg viewBox="0 0 10 10" width="10" height="10"><circle cx="5" cy="5" r="4"/></svg></span><a class="author" href="/u/${i}">user${i}</a><time datetime="2025-01-01">1 Jan</time></div><div class="card-body"><p>${LOREM[i % LOREM.length]} ${LOREM[(i * 3) % LOREM.length]} post number ${i}</p></div><div class="card-foot"><button class="like">Like</button><input class="reply" value="draft ${i}"></div></div>`);
  }
  const article = `<article><h1>Feed</h1><p>${ARTICLE_FACTS.join('. ')}.</p><section class="feed">${cards.join('')}</section></article>`;
  return shell({ title: 'Home', article });
}

// --- PDFs -------------------------------------------------------------------------------------

/** A PDF file from its objects' bodies (object n is objects[n - 1]); the catalog is object 1. */
function pdfFile(objects, { info } = {}) {
  let out = '%PDF-1.7\n%\u00e2\u00e3\u00cf\u00d3\n';
  const offsets = [];
  const all = info ? [...objects, info] : objects;
  all.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${all.length + 1}\n0000000000 65535 f \n`;
  for (const offset of offsets) out += `${String(offset).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${all.length + 1} /Root 1 0 R${info ? ` /Info ${all.length} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const stream = (content) => `<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}\nendstream`;
const pdfString = (text) => `(${text.replace(/[\\()]/g, (c) => `\\${c}`)})`;

/** The text of each page of textPdf, by line. */
export const PDF_PAGES = Object.freeze([
  ['Annual report of the beekeeping cooperative', 'Honey production rose to eleven tonnes this year', 'The lavender fields gave the darkest honey'],
  ['Varroa mites were treated with oxalic acid in December', 'Two hives were lost to a late frost in April'],
  ['The cooperative will buy a second extractor next spring', 'Members meet on the first Tuesday of each month'],
]);

/** A three-page PDF with a text layer (Helvetica, not embedded), a title and a language. */
export function textPdf() {
  const pages = PDF_PAGES.length;
  const objects = [
    `<< /Type /Catalog /Pages 2 0 R /Lang ${pdfString('en-GB')} >>`,
    `<< /Type /Pages /Kids [${PDF_PAGES.map((_, i) => `${4 + i * 2} 0 R`).join(' ')}] /Count ${pages} >>`,
    '<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>',
  ];
  PDF_PAGES.forEach((lines, i) => {
    const content = ['BT', '/F1 14 Tf', '16 TL', '72 720 Td', ...lines.map((line) => `${pdfString(line)} '`), 'ET'].join('\n');
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /Font << /F1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`);
    objects.push(stream(content));
  });
  return pdfFile(objects, { info: `<< /Title ${pdfString('Cooperative report 2025')} >>` });
}

/** A two-page PDF of images only, no text layer: a scan. */
export function scanPdf() {
  const pixels = 'ffffffff00000000'.repeat(2); // 4 × 4 grey pixels
  const image = `<< /Type /XObject /Subtype /Image /Width 4 /Height 4 /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /ASCIIHexDecode /Length ${pixels.length + 1} >>\nstream\n${pixels}>\nendstream`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R 6 0 R] /Count 2 >>',
    image,
  ];
  for (let i = 0; i < 2; i += 1) {
    objects.push(`<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 3 0 R >> >> /Contents ${5 + i * 2} 0 R >>`);
    objects.push(stream('q 500 0 0 700 56 46 cm /Im1 Do Q'));
  }
  return pdfFile(objects);
}

/** Lines a scan shows: distinctive words OCR must find (a printed page, not a photo). */
export const SCAN_LINES = Object.freeze([
  'Minutes of the lighthouse committee',
  'The keeper logged forty seven ships in October',
  'A new brass lantern arrives from Plymouth',
]);

/**
 * A scanned page as a browser draws it: `lines` in black on white, `width` × `height` pixels (a
 * letter page at about 200 dpi), encoded as `type` ('image/jpeg' for a scanner's PDF, 'image/png'
 * for an image on the web). Drawn by `page` (any page of the test's browser: a canvas and its
 * fonts), returned as bytes.
 */
export async function scanImage(page, { lines = SCAN_LINES, type = 'image/jpeg', width = 1700, height = 2200 } = {}) {
  const base64 = await page.evaluate(({ lines, type, width, height }) => {
    const canvas = document.createElement('canvas');
    canvas.width = width;
    canvas.height = height;
    const context = canvas.getContext('2d');
    context.fillStyle = '#fff';
    context.fillRect(0, 0, width, height);
    context.fillStyle = '#000';
    context.font = '56px serif';
    lines.forEach((line, i) => context.fillText(line, 150, 300 + i * 110));
    return canvas.toDataURL(type, 0.92).split(',')[1];
  }, { lines, type, width, height });
  return { bytes: Buffer.from(base64, 'base64'), width, height };
}

/** A one-page PDF holding only `jpeg` (a scanImage in 'image/jpeg') over its whole page: a scan. */
export function scannedPdf({ bytes, width, height }) {
  const image = `<< /Type /XObject /Subtype /Image /Width ${width} /Height ${height} /ColorSpace /DeviceRGB /BitsPerComponent 8 /Filter /DCTDecode /Length ${bytes.length} >>\nstream\n${bytes.toString('latin1')}\nendstream`;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [4 0 R] /Count 1 >>',
    image,
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Resources << /XObject << /Im1 3 0 R >> >> /Contents 5 0 R >>',
    stream('q 612 0 0 792 0 0 cm /Im1 Do Q'),
  ];
  return pdfFile(objects);
}
