// Writes the evaluation's HTML pages (pages/<host>/…) and their manifest (pages.json) from the
// texts in sources/*.txt: edit the sources or the hosts below, never the generated pages.
//
//   node tests/content_eval/make_pages.mjs
//
// Each host is a site with its own look and its own boilerplate, as real sites have it: a header
// with a navigation menu of topic words, a cookie banner, a sidebar of "related" / "most read"
// links carrying their own topic words, a footer. Some pages are built in the browser by the
// host's script (/static/app.js) from a JSON blob in the page, as single-page apps are. A page
// loads nothing but its own host's files (its stylesheet, and its script when it has one); its
// icon is an inline data: URL, so the browser asks for no /favicon.ico.
//
// Source format (one file per host, pages one after another):
//
//   === <id>
//   path: /p/8f3a2c            the address's path and query (opaque, as most pages in the set)
//   title: Notes               the <title>: uninformative, unless the page is one of the few
//                              "title" pages whose title or address says what it is about
//   visit: 3d | 5h | 40m       how long before "now" the page was last visited (for seeding)
//   render: script             (optional) the body built by /static/app.js from a JSON blob
//   by: … / date: …            (optional) a byline and date, shown by news and blog templates
//   ---
//   # Heading, ## Subheading, ### …, paragraphs (lines joined until a blank line),
//   - list items, 1. numbered steps, > quotes, ``` code ```, **bold**, `code`;
//   @@ author | date           starts a post (forums)
import { existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const SOURCES = path.join(HERE, 'sources');
const PAGES = path.join(HERE, 'pages');

// ---------------------------------------------------------------------------------------------
// The hosts. `related` is the pool a page's sidebar draws six links from (by the page's place in
// its source), so every link text appears in the sidebars of several pages of that host.

export const HOSTS = {
  'www.openlore.org': {
    lang: 'en', kind: 'wiki', name: 'OpenLore', source: 'openlore.txt',
    nav: ['Main page', 'Astronomy', 'Ancient history', 'Geology', 'Music theory', 'Bridges and tunnels', 'Random article', 'Recent changes'],
    relatedTitle: 'Featured articles',
    related: ['The lighthouse keepers of the Atlantic coast', 'How glaciers carve valleys', 'Solar eclipses through history', 'The invention of the pendulum clock', 'Medieval guilds of stonemasons', 'Tides and the Moon', 'Volcanic winters', 'Roman aqueducts and their engineering', 'The history of sourdough bread', 'Ocean currents of the North Atlantic'],
    cookie: 'OpenLore uses cookies to remember your reading preferences. We never sell your data.',
    footer: ['Text is available under an open licence; additional terms may apply.', 'Privacy policy · About OpenLore · Disclaimers · Contact · Mobile view'],
  },
  'forum.benchtalk.net': {
    lang: 'en', kind: 'forum', name: 'BenchTalk Forums', source: 'benchtalk.txt',
    nav: ['Plumbing', 'Electrical', 'Woodworking', 'Gardening', 'Heating and insulation', 'Roofing', 'Tools', 'Off topic'],
    relatedTitle: 'Hot topics this week',
    related: ['Heat pump grants: worth the paperwork?', 'Which cordless drill for a beginner', 'Damp patch on bedroom ceiling', 'Laying laminate over old tiles', 'Best compost bin for a small garden', 'Replacing a consumer unit yourself', 'Fence post rotted at the base', 'Insulating a loft with sheep wool', 'Pruning apple trees in winter', 'Silicone sealant mould around the bath'],
    cookie: 'This board uses cookies to keep you logged in. By continuing you accept our cookie policy.',
    footer: ['Board index · The team · Delete cookies · All times are UTC', 'Powered by a forum package · Style by BenchTalk volunteers'],
  },
  'news.dailyledger.com': {
    lang: 'en', kind: 'news', name: 'The Daily Ledger', source: 'dailyledger.txt',
    nav: ['World', 'Markets', 'Pensions', 'Mortgages', 'Football', 'Cycling', 'Courts', 'Science', 'Travel', 'Opinion'],
    relatedTitle: 'Most read',
    related: ['Interest rates held for a third month', 'Marathon training after fifty', 'Electric car batteries: how long do they last?', 'Tenants win landmark deposit case', 'Overpaying your mortgage: the maths', 'Why flights keep getting delayed', 'The vitamin D question', 'Town votes to keep its last cinema', 'Cyber attack hits regional hospital', 'Premier League wage bill hits record'],
    cookie: 'We and our partners use cookies to personalise content and measure audiences. Manage your choices at any time.',
    footer: ['© The Daily Ledger · Terms · Privacy · Cookie settings · Complaints · Subscribe · Advertise with us'],
  },
  'intranet.northwind-corp.com': {
    lang: 'en', kind: 'app', name: 'Northwind Intranet', source: 'northwind.txt',
    nav: ['Dashboard', 'People directory', 'Expenses', 'IT help desk', 'Security', 'Travel booking', 'Payroll', 'Facilities'],
    relatedTitle: 'Announcements',
    related: ['Quarterly town hall moved to Thursday', 'New VPN client rollout', 'Parking permits renewal', 'Phishing test results', 'Canteen menu changes', 'Laptop refresh programme', 'Parental leave policy updated', 'Fire drill next Tuesday', 'Password manager now mandatory', 'Car sharing scheme launches'],
    cookie: 'Northwind uses essential cookies for single sign-on.',
    footer: ['Northwind Corp internal · Do not share outside the company · Report a problem with this page'],
  },
  'www.saltandsimmer.com': {
    lang: 'en', kind: 'blog', name: 'Salt & Simmer', source: 'saltandsimmer.txt',
    nav: ['Recipes', 'Breakfast', 'Soups', 'Baking', 'Vegetarian', 'Slow cooker', 'Desserts', 'About me'],
    relatedTitle: 'Popular recipes',
    related: ['Easy banana bread', 'One-pot chicken and rice', 'Creamy tomato soup', 'Lemon drizzle cake', 'Homemade pizza dough', 'Slow cooker beef stew', 'Chocolate chip cookies', 'Vegetable lasagne', 'Overnight oats five ways', 'Thai green curry'],
    cookie: 'This site uses cookies for analytics and to remember your recipe box. Accept or reject them.',
    footer: ['© Salt & Simmer · Privacy · Recipe index · Work with me · Newsletter'],
  },
  'docs.quillstack.dev': {
    lang: 'en', kind: 'docs', name: 'Quillstack Docs', source: 'quillstack.txt',
    nav: ['Getting started', 'Authentication', 'Webhooks', 'Rate limits', 'SDKs', 'Deployments', 'Billing', 'Changelog'],
    relatedTitle: 'On this site',
    related: ['Rotating API keys', 'Pagination with cursors', 'Idempotency keys', 'Error codes reference', 'Migrating from v1', 'Running the CLI in CI', 'Custom domains and TLS', 'Audit logs', 'Single sign-on with SAML', 'Exporting your data'],
    cookie: 'We use cookies to keep you signed in to the console and to understand how the docs are used.',
    footer: ['© Quillstack · Status · Security · Terms · Privacy · Edit this page'],
  },
  'www.lequotidien-regional.fr': {
    lang: 'fr', kind: 'news', name: 'Le Quotidien régional', source: 'quotidien.txt',
    nav: ['Actualités', 'Économie', 'Politique', 'Santé', 'Sports', 'Justice', 'Culture', 'Météo', 'Immobilier'],
    relatedTitle: 'Les plus lus',
    related: ['Le prix du gazole repart à la hausse', 'Fermeture de la maternité : les élus mobilisés', 'Cyclisme : le Tour passera par la vallée', 'Impôts locaux : ce qui change cette année', 'Les moustiques tigres gagnent du terrain', 'Un nouveau radar sur la départementale', 'Grève des contrôleurs aériens ce week-end', 'Le festival de jazz dévoile sa programmation', 'Logement : les loyers encadrés dans trois villes', 'Rugby : le club local promu en deuxième division'],
    cookie: 'Avec votre accord, nous et nos partenaires utilisons des cookies pour mesurer l\'audience et personnaliser les publicités.',
    footer: ['© Le Quotidien régional · Mentions légales · Données personnelles · Gestion des cookies · Nous contacter · Abonnement'],
  },
  'forum.bricoleurs.fr': {
    lang: 'fr', kind: 'forum', name: 'Le forum des bricoleurs', source: 'bricoleurs.txt',
    nav: ['Plomberie', 'Électricité', 'Menuiserie', 'Jardinage', 'Chauffage', 'Maçonnerie', 'Outillage', 'Café du forum'],
    relatedTitle: 'Discussions populaires',
    related: ['Poêle à granulés qui s\'encrasse', 'Chasse d\'eau qui coule en continu', 'Fissure sur un mur porteur', 'Taille des rosiers en automne', 'Isolation des combles perdus', 'Remplacer un interrupteur va-et-vient', 'Parquet qui grince dans le couloir', 'Potager en carrés surélevés', 'Humidité dans la cave', 'Peinture qui cloque sur un volet'],
    cookie: 'Ce forum utilise des cookies pour maintenir votre connexion. En poursuivant, vous acceptez leur utilisation.',
    footer: ['Index du forum · L\'équipe · Supprimer les cookies · Les heures sont au format UTC+01:00', 'Charte du forum · Contact'],
  },
  'www.carnetdecuisine.fr': {
    lang: 'fr', kind: 'blog', name: 'Carnet de cuisine', source: 'carnet.txt',
    nav: ['Recettes', 'Entrées', 'Plats', 'Desserts', 'Pâtisserie', 'Végétarien', 'Batch cooking', 'À propos'],
    relatedTitle: 'Recettes populaires',
    related: ['Gratin dauphinois comme chez ma grand-mère', 'Quiche lorraine sans crème', 'Tarte tatin inratable', 'Blanquette de veau à l\'ancienne', 'Crêpes de la Chandeleur', 'Soupe au potiron et châtaignes', 'Clafoutis aux cerises', 'Ratatouille au four', 'Pain d\'épices maison', 'Mousse au chocolat légère'],
    cookie: 'Ce site utilise des cookies de mesure d\'audience. Vous pouvez les accepter ou les refuser.',
    footer: ['© Carnet de cuisine · Mentions légales · Index des recettes · Me contacter · Lettre d\'information'],
  },
  'encyclo.savoirs-libres.fr': {
    lang: 'fr', kind: 'wiki', name: 'Savoirs libres', source: 'savoirs.txt',
    nav: ['Accueil', 'Histoire', 'Géographie', 'Sciences', 'Arts', 'Musique', 'Architecture', 'Article au hasard'],
    relatedTitle: 'Articles de qualité',
    related: ['Les cathédrales gothiques', 'La découverte des vaccins', 'Les volcans d\'Auvergne', 'Histoire de l\'imprimerie', 'Le canal du Midi', 'Les phares de Bretagne', 'La Révolution industrielle', 'Les grottes ornées', 'Le calendrier républicain', 'La transhumance dans les Alpes'],
    cookie: 'Savoirs libres n\'utilise qu\'un cookie de session pour vos préférences de lecture.',
    footer: ['Le texte est disponible sous licence libre ; d\'autres conditions peuvent s\'appliquer.', 'Confidentialité · À propos · Avertissements · Contact · Version mobile'],
  },
};

// ---------------------------------------------------------------------------------------------
// Reading the sources.

function parseSource(file) {
  const text = readFileSync(file, 'utf8');
  const pages = [];
  for (const chunk of text.split(/^=== /m).slice(1)) {
    const [head, ...rest] = chunk.split(/^---\s*$/m);
    const lines = head.split('\n');
    const page = { id: lines[0].trim(), meta: {} };
    for (const line of lines.slice(1)) {
      const m = line.match(/^(\w+):\s*(.*)$/);
      if (m) page.meta[m[1]] = m[2].trim();
    }
    page.body = rest.join('---\n');
    pages.push(page);
  }
  return pages;
}

/** The body as blocks: {t: 'h1'|'h2'|'h3'|'p'|'ul'|'ol'|'quote'|'code'|'post', …}. */
function blocks(body) {
  const out = [];
  const lines = body.split('\n');
  let para = [];
  const flush = () => {
    if (para.length) out.push({ t: 'p', x: para.join(' ') });
    para = [];
  };
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const trimmed = line.trim();
    if (trimmed.startsWith('```')) {
      flush();
      const code = [];
      while (++i < lines.length && !lines[i].trim().startsWith('```')) code.push(lines[i]);
      out.push({ t: 'code', x: code.join('\n') });
      continue;
    }
    let m;
    if (!trimmed) flush();
    else if ((m = trimmed.match(/^(#{1,3}) (.*)$/))) (flush(), out.push({ t: `h${m[1].length}`, x: m[2] }));
    else if ((m = trimmed.match(/^@@ (.*?)\s*\|\s*(.*)$/))) (flush(), out.push({ t: 'post', author: m[1], date: m[2] }));
    else if ((m = trimmed.match(/^- (.*)$/))) {
      flush();
      const last = out[out.length - 1];
      if (last?.t === 'ul' && !last.closed) last.items.push(m[1]);
      else out.push({ t: 'ul', items: [m[1]] });
    } else if ((m = trimmed.match(/^\d+\. (.*)$/))) {
      flush();
      const last = out[out.length - 1];
      if (last?.t === 'ol' && !last.closed) last.items.push(m[1]);
      else out.push({ t: 'ol', items: [m[1]] });
    } else if ((m = trimmed.match(/^> ?(.*)$/))) {
      flush();
      const last = out[out.length - 1];
      if (last?.t === 'quote') last.x += ' ' + m[1];
      else out.push({ t: 'quote', x: m[1] });
    } else {
      const last = out[out.length - 1];
      if (!para.length && last && (last.t === 'ul' || last.t === 'ol')) last.closed = true;
      para.push(trimmed);
    }
  }
  flush();
  for (const b of out) delete b.closed;
  return out;
}

const esc = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const inline = (s) => esc(s).replace(/\*\*(.+?)\*\*/g, '<strong>$1</strong>').replace(/`(.+?)`/g, '<code>$1</code>');

function blockHtml(b) {
  switch (b.t) {
    case 'h1': case 'h2': case 'h3': return `<${b.t}>${inline(b.x)}</${b.t}>`;
    case 'p': return `<p>${inline(b.x)}</p>`;
    case 'ul': case 'ol': return `<${b.t}>${b.items.map((x) => `<li>${inline(x)}</li>`).join('')}</${b.t}>`;
    case 'quote': return `<blockquote>${inline(b.x)}</blockquote>`;
    case 'code': return `<pre><code>${esc(b.x)}</code></pre>`;
    default: throw new Error(`unknown block ${b.t}`);
  }
}

// ---------------------------------------------------------------------------------------------
// The templates: one per kind of site.

const slug = (s) => s.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '');
const linkList = (items, prefix) => items.map((x) => `<li><a href="/${prefix}/${slug(x)}">${esc(x)}</a></li>`).join('');

/** The body's HTML: forum posts become the forum's post markup, everything else blocks in order. */
function bodyHtml(host, list) {
  if (!list.some((b) => b.t === 'post')) return list.map(blockHtml).join('\n');
  const out = [];
  let post = null;
  const close = () => post && out.push(post.html + '</div></div>');
  let n = 0;
  for (const b of list) {
    if (b.t === 'post') {
      close();
      n++;
      post = {
        html: host.lang === 'fr'
          ? `<div class="topic-post" id="post-${n}"><div class="topic-meta"><span class="username">${esc(b.author)}</span> <span class="post-date">${esc(b.date)}</span></div><div class="cooked">`
          : `<div class="post" id="p${n}"><div class="postprofile"><strong>${esc(b.author)}</strong><br><span class="posted">${esc(b.date)}</span></div><div class="postbody content">`,
      };
    } else if (post) post.html += blockHtml(b);
    else out.push(blockHtml(b));
  }
  close();
  return out.join('\n');
}

function sidebar(host, index) {
  const picks = [];
  for (let k = 0; k < 6; k++) picks.push(host.related[(index * 7 + k) % host.related.length]);
  return [...new Set(picks)];
}

function page(host, hostName, p, index) {
  const list = blocks(p.body);
  const lang = host.lang;
  const related = sidebar(host, index);
  const script = p.meta.render === 'script';
  const main = script
    ? `<div id="app" aria-busy="true"></div>\n<script type="application/json" id="page-data">${JSON.stringify({ blocks: list, by: p.meta.by ?? null, date: p.meta.date ?? null }).replace(/</g, '\\u003c')}</script>`
    : bodyHtml(host, list);
  const byline = !script && (p.meta.by || p.meta.date)
    ? `<p class="byline">${p.meta.by ? `${lang === 'fr' ? 'Par' : 'By'} <span class="author">${esc(p.meta.by)}</span>` : ''}${p.meta.date ? ` · <time>${esc(p.meta.date)}</time>` : ''}</p>`
    : '';
  const nav = `<ul>${linkList(host.nav, 'c')}</ul>`;
  const cookie = `<div id="cookie-notice" class="cookie-consent"><p>${esc(host.cookie)}</p><button type="button">${lang === 'fr' ? 'Tout accepter' : 'Accept all'}</button> <button type="button">${lang === 'fr' ? 'Refuser' : 'Reject'}</button></div>`;
  const aside = `<h2>${esc(host.relatedTitle)}</h2><ul>${linkList(related, 'r')}</ul>`;
  const footer = host.footer.map((f) => `<p>${esc(f)}</p>`).join('');
  const search = lang === 'fr' ? 'Rechercher' : 'Search';
  let shell;
  switch (host.kind) {
    case 'wiki':
      shell = `<div id="mw-head"><a class="logo" href="/">${esc(host.name)}</a><form class="search" action="/search"><input type="search" name="q" placeholder="${search} ${esc(host.name)}"></form></div>
<div id="mw-panel" class="navigation" role="navigation"><h2>${lang === 'fr' ? 'Portails' : 'Portals'}</h2>${nav}</div>
${cookie}
<div id="content" class="mw-body"><div id="bodyContent" class="mw-content-text">
${main}
</div></div>
<div id="featured" class="sidebar"><div class="portal">${aside}</div></div>
<div id="footer" class="footer">${footer}</div>`;
      break;
    case 'forum':
      shell = `<div class="headerbar"><a class="logo" href="/">${esc(host.name)}</a></div>
<nav class="navbar"><ul class="nav-forums">${linkList(host.nav, 'f')}</ul></nav>
${cookie}
<div class="page-body"><div class="topic-body">
${main}
</div>
<div class="side-column"><div class="panel related-topics">${aside}</div></div></div>
<div class="page-footer">${footer}</div>`;
      break;
    case 'news':
      shell = `<header class="masthead"><a class="logo" href="/">${esc(host.name)}</a><nav class="sections">${nav}</nav></header>
${cookie}
<div class="layout"><article class="story">
${byline}
${main}
</article>
<div class="right-rail"><section class="most-read">${aside}</section></div></div>
<footer class="site-footer">${footer}</footer>`;
      break;
    case 'app':
      shell = `<header class="topbar"><span class="brand">${esc(host.name)}</span><input type="search" aria-label="${search}" placeholder="${search} people, policies, tools"></header>
<nav class="app-menu">${nav}</nav>
${cookie}
<main class="workspace">
${main}
</main>
<aside class="announcements">${aside}</aside>
<footer class="app-footer">${footer}</footer>`;
      break;
    case 'blog':
      shell = `<header class="site-header"><a class="logo" href="/">${esc(host.name)}</a><nav class="main-menu">${nav}</nav></header>
${cookie}
<div class="wrap"><article class="post-entry">
${byline}
${main}
</article>
<aside class="widget-area sidebar"><section class="widget">${aside}</section><section class="widget newsletter"><p>${lang === 'fr' ? 'Recevez les nouvelles recettes chaque semaine.' : 'Get new recipes every week.'}</p><form><input type="email" placeholder="email"><button type="button">OK</button></form></section></aside></div>
<footer class="site-footer">${footer}</footer>`;
      break;
    case 'docs':
      shell = `<header class="docs-header"><a class="logo" href="/">${esc(host.name)}</a><input type="search" aria-label="${search}" placeholder="${search} docs"></header>
<nav class="docs-nav" aria-label="Documentation">${nav}</nav>
${cookie}
<main class="docs-content"><article>
${main}
</article></main>
<aside class="docs-toc">${aside}</aside>
<footer class="docs-footer">${footer}</footer>`;
      break;
    default:
      throw new Error(`unknown kind ${host.kind}`);
  }
  const scripts = script ? '\n<script src="/static/app.js"></script>' : '';
  return `<!doctype html>
<html lang="${lang}">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(p.meta.title)}</title>
<link rel="icon" href="data:,">
<link rel="stylesheet" href="/static/site.css">
</head>
<body class="${host.kind}">
${shell}${scripts}
</body>
</html>
`;
}

// The host's own script: builds the body from the page's JSON blob, as a single-page app does.
const APP_JS = `// Renders the page body from the JSON blob the server put in the page.
(function () {
  var data = JSON.parse(document.getElementById('page-data').textContent);
  var app = document.getElementById('app');
  function text(tag, s) { var el = document.createElement(tag); el.textContent = s.replace(/\\*\\*|\`/g, ''); return el; }
  if (data.by || data.date) app.appendChild(text('p', [data.by, data.date].filter(Boolean).join(' · '))).className = 'byline';
  var post = null;
  data.blocks.forEach(function (b) {
    var el;
    if (b.t === 'post') {
      post = document.createElement('div');
      post.className = 'entry';
      post.appendChild(text('p', b.author + ' · ' + b.date)).className = 'entry-meta';
      app.appendChild(post);
      return;
    }
    if (b.t === 'ul' || b.t === 'ol') {
      el = document.createElement(b.t);
      b.items.forEach(function (x) { el.appendChild(text('li', x)); });
    } else if (b.t === 'code') {
      el = document.createElement('pre');
      el.appendChild(text('code', b.x));
    } else if (b.t === 'quote') {
      el = text('blockquote', b.x);
    } else {
      el = text(b.t, b.x);
    }
    (post || app).appendChild(el);
  });
  app.setAttribute('aria-busy', 'false');
})();
`;

const CSS = (kind) => `body{font-family:system-ui,sans-serif;margin:0;line-height:1.5;color:#222}
a{color:#1a5fb4}nav ul,.navigation ul,.nav-forums{display:flex;flex-wrap:wrap;gap:.8em;list-style:none;padding:0}
#cookie-notice{position:fixed;bottom:0;left:0;right:0;background:#333;color:#fff;padding:.6em 1em}
aside,.sidebar,.right-rail,.side-column{font-size:.9em;background:#f4f4f4;padding:.5em 1em}
footer,.footer,.page-footer,.app-footer{font-size:.8em;color:#666;border-top:1px solid #ccc;margin-top:2em;padding:1em}
pre{background:#f6f8fa;padding:.8em;overflow:auto}blockquote{border-left:3px solid #ccc;margin-left:0;padding-left:1em;color:#555}
.post,.topic-post{border-bottom:1px solid #ddd;padding:1em 0}
/* ${kind} */
`;

// ---------------------------------------------------------------------------------------------

/** Where an address's path and query are stored under pages/<host>/. */
export function fileFor(pathAndQuery) {
  const [p, q] = pathAndQuery.split('?');
  const base = p.replace(/^\/+|\/+$/g, '') || 'index';
  return `${base}${q ? '__' + q.replace(/[^A-Za-z0-9=_-]/g, '_') : ''}.html`;
}

const OFFSET = { m: 1, h: 60, d: 1440 };
const words = (s) => (s.match(/[\p{L}\p{N}]+(?:['’-][\p{L}\p{N}]+)*/gu) ?? []).length;

function main() {
  rmSync(PAGES, { recursive: true, force: true });
  const manifest = [];
  const seen = new Set();
  for (const [hostName, host] of Object.entries(HOSTS)) {
    const file = path.join(SOURCES, host.source);
    if (!existsSync(file)) { console.warn(`no source ${file} for ${hostName}: skipped`); continue; }
    const pages = parseSource(file);
    const dir = path.join(PAGES, hostName);
    mkdirSync(path.join(dir, 'static'), { recursive: true });
    writeFileSync(path.join(dir, 'static', 'site.css'), CSS(host.kind));
    if (pages.some((p) => p.meta.render === 'script')) writeFileSync(path.join(dir, 'static', 'app.js'), APP_JS);
    pages.forEach((p, index) => {
      for (const key of ['path', 'title', 'visit']) if (!p.meta[key]) throw new Error(`${p.id}: no ${key}`);
      if (seen.has(p.id)) throw new Error(`${p.id}: id used twice`);
      seen.add(p.id);
      const rel = fileFor(p.meta.path);
      mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
      writeFileSync(path.join(dir, rel), page(host, hostName, p, index));
      const m = p.meta.visit.match(/^(\d+)([mhd])$/);
      if (!m) throw new Error(`${p.id}: visit "${p.meta.visit}" is not like 40m, 5h or 3d`);
      manifest.push({
        id: p.id,
        host: hostName,
        path: p.meta.path,
        url: `https://${hostName}${p.meta.path}`,
        file: `${hostName}/${rel}`,
        lang: host.lang,
        title: p.meta.title,
        informative: p.meta.informative === 'yes',
        render: p.meta.render === 'script' ? 'script' : 'static',
        words: words(blocks(p.body).map((b) => b.x ?? (b.items ?? []).join(' ') ?? '').join(' ')),
        visitOffsetMin: Number(m[1]) * OFFSET[m[2]],
      });
    });
  }
  writeFileSync(path.join(HERE, 'pages.json'), JSON.stringify({ comment: 'Generated by make_pages.mjs from sources/: one entry per page. visitOffsetMin: minutes before "now" of the page\'s last visit, for a test that seeds history; words: the body as written (before extraction).', pages: manifest }, null, 1) + '\n');
  const byHost = {};
  for (const p of manifest) byHost[p.host] = (byHost[p.host] ?? 0) + 1;
  console.log(`${manifest.length} pages`, byHost);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
