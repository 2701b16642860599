// Self-test of the Gemini stand-in (support/gemini.mjs), against a tiny throwaway MV3 extension
// generated here (not the real one, which need not have AI mode for this to run): requests from an
// extension page and from the service worker, made like the extension makes them (POST, JSON body,
// key in the x-goog-api-key header, no host permission so CORS applies), are intercepted, recorded,
// classified, and answered from the script.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { launchExtension } from './support/launch.mjs';
import {
  TEST_KEY,
  BAD_KEY,
  installGemini,
  geminiError,
  geminiText,
  geminiBlockedPrompt,
  networkDown,
  hang,
  parseCandidateLines,
  smartKeywords,
  smartPicks,
} from './support/gemini.mjs';

let dist;

// The requests as the real extension shapes them (crates/history-chat-core/src/ai/prompts.rs).
const EXPANSION_BODY = {
  systemInstruction: { parts: [{ text: 'You turn a question ... into keywords ...\nReply with a JSON array of at most 20 keywords:' }] },
  contents: [{ role: 'user', parts: [{ text: 'Question: that recursive CTE article about postgresql\nAt most 20 keywords.' }] }],
  generationConfig: { maxOutputTokens: 192, responseMimeType: 'application/json', responseSchema: { type: 'ARRAY', items: { type: 'STRING' }, maxItems: 20 } },
};
const RANKING_BODY = {
  systemInstruction: { parts: [{ text: 'You help the user find a page... one per line: id|age|title|url ...' }] },
  contents: [
    {
      role: 'user',
      parts: [
        {
          text:
            'Question: that recursive CTE article about postgresql\n\nCandidates (id|age|title|url):\n' +
            '1|1d|Recursive CTEs: handling cycles in PostgreSQL|blog.pgdev.io/2026/recursive-ctes-handling-cycles-in-postgresql\n' +
            '2|3d|Handmade Ceramic Coffee Mug|etsy.com/listing/1234567890/handmade-ceramic-coffee-mug\n' +
            '3|2d|PostgreSQL: Documentation: 17: 7.8. WITH Queries (Common Table Expressions)|postgresql.org/docs/current/queries-with.html',
        },
      ],
    },
  ],
  generationConfig: { maxOutputTokens: 352, responseMimeType: 'application/json' },
};

before(async () => {
  dist = await mkdtemp(path.join(tmpdir(), 'history-chat-gemini-probe-'));
  await writeFile(
    path.join(dist, 'manifest.json'),
    JSON.stringify({ manifest_version: 3, name: 'Gemini stand-in probe', version: '0.0.1', permissions: ['storage'], background: { service_worker: 'sw.js', type: 'module' } }),
  );
  const call = `
    async function call({ url, key, body, method = 'POST' }) {
      try {
        const headers = { 'content-type': 'application/json' };
        if (key) headers['x-goog-api-key'] = key;
        const r = await fetch(url, method === 'POST' ? { method, headers, body: JSON.stringify(body) } : { method, headers });
        return { status: r.status, contentType: r.headers.get('content-type'), text: await r.text() };
      } catch (e) {
        return { error: String(e) };
      }
    }`;
  await writeFile(path.join(dist, 'sw.js'), `${call}\nchrome.runtime.onMessage.addListener((msg, _s, reply) => { call(msg).then(reply); return true; });`);
  await writeFile(path.join(dist, 'page.html'), '<!doctype html><meta charset="utf-8"><title>probe</title><script src="page.js"></script>');
  await writeFile(path.join(dist, 'page.js'), `${call}\nself.callGemini = call;`);
});

after(async () => {
  if (dist) await rm(dist, { recursive: true, force: true });
});

const URL_FLASH = 'https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:generateContent';

async function setup() {
  const ext = await launchExtension({ dist });
  const gemini = await installGemini(ext.context);
  const page = await ext.openPage('page.html');
  const fromPage = (msg) => page.evaluate((m) => self.callGemini(m), msg);
  const fromWorker = (msg) => page.evaluate((m) => chrome.runtime.sendMessage(m), msg);
  return { ext, gemini, page, fromPage, fromWorker };
}

test('requests from an extension page and from the service worker are intercepted, recorded and classified', async () => {
  const { ext, gemini, fromPage, fromWorker } = await setup();
  try {
    const a = await fromPage({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY });
    assert.equal(a.status, 200, JSON.stringify(a));
    assert.equal(a.contentType, 'application/json; charset=UTF-8');
    const reply = JSON.parse(a.text);
    assert.equal(reply.candidates[0].finishReason, 'STOP');
    assert.equal(reply.modelVersion, 'gemini-2.5-flash');
    assert.ok(reply.usageMetadata.totalTokenCount > 0);
    const keywords = JSON.parse(reply.candidates[0].content.parts[0].text);
    assert.ok(keywords.includes('recursive') && keywords.includes('cte') && keywords.includes('postgresql'), `smart keywords: ${keywords}`);
    assert.ok(keywords.length <= 20);

    const b = await fromWorker({ url: URL_FLASH, key: TEST_KEY, body: RANKING_BODY });
    assert.equal(b.status, 200, JSON.stringify(b));
    const picks = JSON.parse(JSON.parse(b.text).candidates[0].content.parts[0].text);
    assert.deepEqual(picks.map((p) => p.id), [1, 3], `smart picks: ${JSON.stringify(picks)}`);
    assert.ok(picks.every((p) => p.reason.length > 0));

    const [e, r] = gemini.requests;
    assert.equal(e.kind, 'expansion');
    assert.equal(e.apiKey, TEST_KEY);
    assert.equal(e.model, 'gemini-2.5-flash');
    assert.equal(e.question, 'that recursive CTE article about postgresql');
    assert.equal(e.urlHasKey, false);
    assert.match(e.source, /^page chrome-extension:\/\/.*page\.html$/);
    assert.equal(r.kind, 'ranking');
    assert.match(r.source, /^service worker chrome-extension:\/\/.*sw\.js$/);
    assert.deepEqual(r.candidates.map((c) => c.id), [1, 2, 3]);
    assert.equal(r.candidates[1].url, 'etsy.com/listing/1234567890/handmade-ceramic-coffee-mug');
    assert.deepEqual(r.body, RANKING_BODY);
    // Nothing reached the network: the context's request log has these two only, both answered by the stand-in.
    assert.equal(gemini.requests.length, 2, gemini.describe());
  } finally {
    await ext.close();
  }
});

test('scripted replies: queues per kind, errors with real bodies, key and model rules, network failure, hang', async () => {
  const { ext, gemini, fromPage, fromWorker } = await setup();
  try {
    gemini.queue('expansion', geminiError.quota('2s'), geminiError.overloaded());
    const q = await fromWorker({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY });
    assert.equal(q.status, 429);
    const err = JSON.parse(q.text).error;
    assert.equal(err.status, 'RESOURCE_EXHAUSTED');
    assert.deepEqual(err.details.find((d) => d['@type'].endsWith('RetryInfo')), { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '2s' });
    assert.ok(err.details.some((d) => d['@type'].endsWith('QuotaFailure')));
    // The ranking queue is separate: a ranking call now gets the smart answer.
    assert.equal((await fromPage({ url: URL_FLASH, key: TEST_KEY, body: RANKING_BODY })).status, 200);
    assert.equal((await fromPage({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY })).status, 503);
    assert.equal((await fromPage({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY })).status, 200, 'queue consumed: smart again');

    gemini.refuseKey(BAD_KEY);
    const k = await fromWorker({ url: URL_FLASH, key: BAD_KEY, body: EXPANSION_BODY });
    assert.equal(k.status, 400);
    assert.equal(JSON.parse(k.text).error.details[0].reason, 'API_KEY_INVALID');
    assert.equal((await fromWorker({ url: URL_FLASH, body: EXPANSION_BODY })).status, 403, 'no key: 403 like the real API');

    gemini.unavailableModels.add('gemini-2.5-flash');
    const m = await fromPage({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY });
    assert.equal(m.status, 404);
    assert.match(JSON.parse(m.text).error.message, /^models\/gemini-2\.5-flash is not found for API version v1beta/);
    const other = await fromPage({ url: URL_FLASH.replace('gemini-2.5-flash', 'gemini-flash-latest'), key: TEST_KEY, body: EXPANSION_BODY });
    assert.equal(other.status, 200);
    assert.equal(gemini.requests.at(-1).model, 'gemini-flash-latest');
    gemini.unavailableModels.clear();

    gemini.queue('ranking', geminiBlockedPrompt(), geminiText('```json\n[{"id": 1, "reason": "x"}]\n```'));
    assert.equal(JSON.parse((await fromPage({ url: URL_FLASH, key: TEST_KEY, body: RANKING_BODY })).text).promptFeedback.blockReason, 'SAFETY');
    assert.match(JSON.parse((await fromPage({ url: URL_FLASH, key: TEST_KEY, body: RANKING_BODY })).text).candidates[0].content.parts[0].text, /^```json/);

    gemini.queue('expansion', networkDown());
    const n = await fromWorker({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY });
    assert.match(n.error ?? '', /TypeError: Failed to fetch/, JSON.stringify(n));

    // A hang: the request is recorded and left unanswered; a later request is answered meanwhile.
    gemini.queue('expansion', hang());
    let settled = false;
    const pending = fromPage({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY }).finally(() => {
      settled = true;
    });
    const [hung] = (await gemini.waitForCalls(gemini.requests.length + 1)).slice(-1);
    assert.equal((await fromWorker({ url: URL_FLASH, key: TEST_KEY, body: RANKING_BODY })).status, 200, 'a later request is answered');
    assert.equal(settled, false, 'a hung request is not answered, even after a later one was');
    assert.equal(hung.answeredAt, undefined, 'the stand-in never answered the hung request');
    gemini.releaseHangs();
    assert.match((await pending).error ?? '', /Failed to fetch/, 'a released hang fails like a dropped connection');

    // A delayed reply: held while its delay runs (here: until released), then the scripted reply.
    gemini.queue('expansion', hang(600_000, geminiText('["late"]')));
    settled = false;
    const delayedReply = fromWorker({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY }).finally(() => {
      settled = true;
    });
    const [held] = (await gemini.waitForCalls(gemini.requests.length + 1)).slice(-1);
    assert.equal((await fromPage({ url: URL_FLASH, key: TEST_KEY, body: RANKING_BODY })).status, 200, 'a later request is answered');
    assert.equal(settled, false, 'a delayed reply is not given before its delay is over');
    assert.equal(held.answeredAt, undefined);
    gemini.releaseHangs(); // ends the delay at once
    const late = await delayedReply;
    assert.equal(JSON.parse(JSON.parse(late.text).candidates[0].content.parts[0].text)[0], 'late', 'then the scripted reply comes');
    // A short delay runs out by itself.
    gemini.queue('expansion', hang(300, geminiText('["later"]')));
    const later = await fromWorker({ url: URL_FLASH, key: TEST_KEY, body: EXPANSION_BODY });
    assert.equal(JSON.parse(JSON.parse(later.text).candidates[0].content.parts[0].text)[0], 'later');
    assert.deepEqual(gemini.pending(), { expansion: 0, ranking: 0, other: 0 });
  } finally {
    await ext.close();
  }
});

test('smart handler helpers: candidate lines, keywords, picks', () => {
  const lines = parseCandidateLines('Question: x\n\nCandidates (id|age|title|url):\n7|3h|A / B title|example.com/a\n8|2w||example.org/');
  assert.deepEqual(lines.map(({ id, age, title, url }) => ({ id, age, title, url })), [
    { id: 7, age: '3h', title: 'A / B title', url: 'example.com/a' },
    { id: 8, age: '2w', title: '', url: 'example.org/' },
  ]);
  assert.deepEqual(smartKeywords('la recette des crêpes', 5), ['recette', 'crêpes', 'crepes', 'pâte', 'marmiton']);
  assert.deepEqual(smartKeywords('the rust page', 1), ['rust']);
  const picks = smartPicks('recette crepes', [
    { id: 1, title: 'Pâte à crêpes facile : Recette', url: 'marmiton.org/recettes/x' },
    { id: 2, title: 'Mug', url: 'etsy.com/x' },
  ]);
  assert.deepEqual(picks.map((p) => p.id), [1]);
});
