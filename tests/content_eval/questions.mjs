// Collects the questions written beside each page in sources/*.txt into questions.json, and checks
// each against the pages' extracted texts (texts.json) and their HTML:
//
//   node tests/content_eval/questions.mjs           writes questions.json, prints the checks
//   node tests/content_eval/questions.mjs --check   fails on a failed check or a stale questions.json
//
// A question line in a source: `q: <kind> <lang> <question> [|| <evidence>]`, under the page it is
// about. Checks, per kind:
//   every kind   the expected page exists; the evidence, when given, is in its extracted text
//   cross        the question's language is not the page's
//   deep         the evidence starts after the 2,000th word of the extracted text
//   paraphrase   no content word of the question (stop words aside, compared on folded 5-letter
//                stems) is in the page's extracted text or its title
//   trap         every content word of the question is in the page's extracted text, and the
//                question's words all appear in the boilerplate (the HTML's text that extraction
//                leaves out: menus, sidebars, footers) of at least 3 other pages
//   title        the page's title or address is informative (pages.json `informative`)
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const KINDS = ['body', 'paraphrase', 'deep', 'cross', 'trap', 'title'];

const STOP = new Set(`a an the and or of to in on at for by with from into is are was were be been it its this that these those
what which who whom how when where why do does did can could should would will my our your their his her
i we you they me us them there here than then so if not no yes as about after before over under up down out
per each every any some more most much many one two first last very just also only still own same other
de la le les des du un une et ou à au aux en dans sur sous par pour avec sans ce cet cette ces qui que quoi
quel quelle quels quelles comment pourquoi où quand est sont été être a ont avoir fait faire se sa son ses
leur leurs nos notre votre vos mon ma mes il elle ils elles on nous vous je tu y ne pas plus moins très
combien faut entre lors après avant chez d l qu s n c j m t`.split(/\s+/));

const fold = (s) => s.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');
const wordsOf = (s) => fold(s).match(/[a-z0-9]+/g) ?? [];
const content = (s) => wordsOf(s).filter((w) => !STOP.has(w) && (w.length > 2 || /\d/.test(w)));
const stem = (w) => w.slice(0, 5);

function readQuestions() {
  const out = [];
  for (const file of readdirSync(path.join(HERE, 'sources')).sort()) {
    let page = null;
    for (const line of readFileSync(path.join(HERE, 'sources', file), 'utf8').split('\n')) {
      if (line.startsWith('=== ')) page = line.slice(4).trim();
      const m = line.match(/^q: (\w+) (en|fr) (.*?)(?: \|\| (.*))?$/);
      if (!m) continue;
      if (!KINDS.includes(m[1])) throw new Error(`${file}: unknown kind ${m[1]}`);
      out.push({ question: m[3].trim(), kind: m[1], expected: [page], lang: m[2], ...(m[4] ? { evidence: m[4].trim() } : {}) });
    }
  }
  return out.sort((a, b) => KINDS.indexOf(a.kind) - KINDS.indexOf(b.kind));
}

/** The visible text of a page's HTML, scripts and styles aside (the JSON blob read as its blocks). */
function htmlText(html) {
  const blob = html.match(/<script type="application\/json" id="page-data">([\s\S]*?)<\/script>/);
  const data = blob ? JSON.parse(blob[1]).blocks.map((b) => b.x ?? (b.items ?? []).join(' ') ?? '').join(' ') : '';
  const dec = (s) => s.replace(/&amp;/g, '&').replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"');
  return dec(html.replace(/<(script|style|title)[\s\S]*?<\/\1>/g, ' ').replace(/<[^>]+>/g, ' ')) + ' ' + data;
}

export function check() {
  const pages = JSON.parse(readFileSync(path.join(HERE, 'pages.json'), 'utf8')).pages;
  const texts = Object.fromEntries(JSON.parse(readFileSync(path.join(HERE, 'texts.json'), 'utf8')).texts.map((t) => [t.id, t]));
  const byId = Object.fromEntries(pages.map((p) => [p.id, p]));
  // Boilerplate: words of the page's HTML that are not in its extracted text.
  const boiler = {};
  for (const p of pages) {
    const kept = new Set(wordsOf(texts[p.id].text + ' ' + (texts[p.id].readTitle ?? '')));
    boiler[p.id] = new Set(wordsOf(htmlText(readFileSync(path.join(HERE, 'pages', p.file), 'utf8'))).filter((w) => !kept.has(w)));
  }
  const questions = readQuestions();
  const problems = [];
  for (const q of questions) {
    const say = (what) => problems.push(`[${q.kind}] "${q.question}": ${what}`);
    const page = byId[q.expected[0]];
    if (!page) { say(`no page ${q.expected[0]}`); continue; }
    const text = texts[page.id].text;
    const all = `${texts[page.id].readTitle ?? ''} ${text}`;
    if (q.evidence) {
      const at = text.indexOf(q.evidence);
      if (at < 0) say(`evidence not in ${page.id}'s text: ${q.evidence}`);
      else if (q.kind === 'deep') {
        const before = text.slice(0, at).split(' ').length;
        if (before < 2000) say(`evidence at word ${before} of ${page.id} (deep needs ≥ 2,000)`);
        q.wordsBefore = before;
      }
    } else if (q.kind === 'deep') say('a deep question needs its evidence');
    if (q.kind === 'cross' && q.lang === page.lang) say(`same language as ${page.id}`);
    if (q.kind !== 'cross' && q.lang !== page.lang) say(`not ${page.id}'s language (${page.lang})`);
    if (q.kind === 'paraphrase') {
      const seen = new Set([...wordsOf(all), ...wordsOf(page.title)].map(stem));
      const shared = content(q.question).filter((w) => seen.has(stem(w)));
      if (shared.length) say(`shares ${shared.join(', ')} with ${page.id}`);
    }
    if (q.kind === 'trap') {
      const words = content(q.question);
      const inText = new Set(wordsOf(all).map(stem));
      const missing = words.filter((w) => !inText.has(stem(w)));
      if (missing.length) say(`${missing.join(', ')} not in ${page.id}'s text`);
      const others = pages.filter((p) => p.id !== page.id && words.every((w) => [...boiler[p.id]].some((b) => stem(b) === stem(w))));
      q.boilerplatePages = others.length;
      if (others.length < 3) say(`its words are in the boilerplate of only ${others.length} other page(s)`);
    }
    if (q.kind === 'title' && !page.informative) say(`${page.id}'s title and address are not marked informative`);
  }
  return { questions, problems, pages };
}

function main() {
  const { questions, problems } = check();
  const out = JSON.stringify({
    comment: 'Generated by questions.mjs from the q: lines of sources/*.txt. expected: page ids of pages.json; evidence: where the answer is in the page\'s extracted text (deep: after its 2,000th word, wordsBefore); boilerplatePages (trap): how many other pages carry every word of the question in their menus, sidebars or footers.',
    questions: questions.map(({ question, kind, expected, lang, evidence, wordsBefore, boilerplatePages }) => ({ question, kind, expected, lang, ...(evidence ? { evidence } : {}), ...(wordsBefore ? { wordsBefore } : {}), ...(boilerplatePages !== undefined ? { boilerplatePages } : {}) })),
  }, null, 1) + '\n';
  const file = path.join(HERE, 'questions.json');
  const counts = {};
  for (const q of questions) counts[q.kind] = (counts[q.kind] ?? 0) + 1;
  console.log(`${questions.length} questions`, counts);
  for (const p of problems) console.log(`  ${p}`);
  if (process.argv.includes('--check')) {
    if (readFileSync(file, 'utf8') !== out) problems.push('questions.json is stale: run node tests/content_eval/questions.mjs');
    if (problems.length) process.exit(1);
    return;
  }
  writeFileSync(file, out);
}

if (process.argv[1] === fileURLToPath(import.meta.url)) main();
