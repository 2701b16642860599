// The address-bar keyword's test kit: the service worker's `chrome.omnibox` events fired with
// their own `dispatch`, and the browser's answers recorded (see omnibox.test.mjs for why and what
// this covers).
import assert from 'node:assert/strict';
import { LIMIT_MS, waitUntil } from './settle.mjs';

/**
 * Installs, in the service worker, the recorder of `setDefaultSuggestion` and of the tabs calls,
 * and the two helpers the tests call (`__omnibox.changed`, `__omnibox.entered`).
 */
export async function instrument(ext) {
  await ext.serviceWorker.evaluate((limitMs) => {
    if (self.__omnibox) return;
    const rec = (self.__omnibox = { defaults: [], tabs: [], waiters: [] });
    const notify = () => {
      for (const w of rec.waiters.splice(0)) w();
    };
    const until = (condition, what) =>
      new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`${what}: not within ${limitMs} ms`)), limitMs); // a failure limit only
        const check = () => {
          if (condition()) {
            clearTimeout(timer);
            resolve();
          } else {
            rec.waiters.push(check);
          }
        };
        check();
      });
    const setDefault = chrome.omnibox.setDefaultSuggestion.bind(chrome.omnibox);
    chrome.omnibox.setDefaultSuggestion = (suggestion) => {
      const entry = { description: suggestion?.description, settled: false };
      rec.defaults.push(entry);
      const promise = setDefault(suggestion);
      promise.then(
        () => Object.assign(entry, { settled: true, ok: true }),
        (e) => Object.assign(entry, { settled: true, ok: false, error: String(e?.message ?? e) }),
      ).then(notify);
      return promise;
    };
    for (const api of ['create', 'update']) {
      const original = chrome.tabs[api].bind(chrome.tabs);
      chrome.tabs[api] = (...args) => {
        const entry = { api, args: JSON.parse(JSON.stringify(args)), settled: false };
        rec.tabs.push(entry);
        const promise = original(...args);
        promise.then(
          (tab) => Object.assign(entry, { settled: true, ok: true, tabId: tab?.id }),
          (e) => Object.assign(entry, { settled: true, ok: false, error: String(e?.message ?? e) }),
        ).then(notify);
        return promise;
      };
    }
    /** Types `text` after the keyword: the suggestions, and the default suggestion once the browser took it. */
    rec.changed = async (text) => {
      const from = rec.defaults.length;
      const suggestions = await new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no suggestions for ${JSON.stringify(text)} within ${limitMs} ms`)), limitMs);
        chrome.omnibox.onInputChanged.dispatch(text, (s) => {
          clearTimeout(timer);
          resolve(s);
        });
      });
      await until(() => rec.defaults.length > from && rec.defaults.at(-1).settled, `the default suggestion for ${JSON.stringify(text)}`);
      return { suggestions, defaults: rec.defaults.slice(from) };
    };
    /**
     * Presses Enter on each of `texts` in turn; resolves with the tabs calls made, once the call
     * opening `last` (the last text, an address) has settled, or once `count` calls have.
     */
    rec.entered = async (texts, disposition, { last, count }) => {
      const from = rec.tabs.length;
      for (const text of texts) chrome.omnibox.onInputEntered.dispatch(text, disposition);
      const made = () => rec.tabs.slice(from);
      const done = () =>
        made().every((t) => t.settled) && (last ? made().some((t) => t.args[0]?.url === last) : made().length >= count);
      await until(done, `the tabs call(s) for ${JSON.stringify(texts)}`);
      return made();
    };
    /** Checks descriptions with the browser's own parser. */
    rec.browserAccepts = async (descriptions) => {
      const refused = [];
      for (const description of descriptions) {
        await setDefault({ description }).catch((e) => refused.push({ description: description.slice(0, 200), error: String(e?.message ?? e) }));
      }
      return refused;
    };
  }, LIMIT_MS);
}

export const changed = (ext, text) => ext.serviceWorker.evaluate((t) => self.__omnibox.changed(t), text);
/** Enter on each of `texts`; waits for the tabs call opening the last one (an address), or for `count` tabs calls. */
export const entered = (ext, texts, disposition, { count = 1 } = {}) => {
  const lastText = texts.at(-1);
  const last = /^https?:\/\//.test(lastText) ? lastText : null;
  return ext.serviceWorker.evaluate(([t, d, o]) => self.__omnibox.entered(t, d, o), [texts, disposition, { last, count }]);
};
export const tabStates = (ext) => ext.serviceWorker.evaluate(async () => (await chrome.tabs.query({})).map((t) => ({ id: t.id, active: t.active })));

/**
 * Waits until the default suggestion no longer says the index is being built (`indexing`: those
 * words in the UI's language): the index holds the whole history.
 */
export async function waitForWholeIndex(ext, indexing = 'Indexing your history') {
  let last;
  await waitUntil(async () => {
    last = await changed(ext, '');
    return !last.defaults.at(-1).description.includes(indexing);
  }, 'the index covering the whole history', { timeout: 120_000, describe: () => JSON.stringify(last?.defaults) });
}

/** A description as Chrome's parser reads it, stricter: only <match>, <url>, <dim>, balanced; only &amp; &lt; &gt;; no control character. */
export function parseDescription(xml) {
  let text = '';
  const open = [];
  for (let i = 0; i < xml.length; ) {
    const c = xml[i];
    if (c === '<') {
      const end = xml.indexOf('>', i);
      assert.ok(end > i, `unclosed tag in ${xml}`);
      const tag = xml.slice(i + 1, end);
      if (tag.startsWith('/')) assert.equal(open.pop(), tag.slice(1), `</${tag.slice(1)}> closes what was opened in ${xml}`);
      else {
        assert.ok(['match', 'url', 'dim'].includes(tag), `only <match>, <url>, <dim> as tags, got <${tag}> in ${xml}`);
        open.push(tag);
      }
      i = end + 1;
    } else if (c === '&') {
      const entity = ['&amp;', '&lt;', '&gt;'].find((e) => xml.startsWith(e, i));
      assert.ok(entity, `a raw & in ${xml.slice(Math.max(0, i - 40), i + 40)}`);
      text += { '&amp;': '&', '&lt;': '<', '&gt;': '>' }[entity];
      i += entity.length;
    } else {
      assert.ok(c !== '>', `a raw > in ${xml}`);
      assert.ok(!/[\u0000-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069\u2028\u2029]/.test(c), `control character U+${c.charCodeAt(0).toString(16)} in ${xml}`);
      text += c;
      i += 1;
    }
  }
  assert.deepEqual(open, [], `every tag closed in ${xml}`);
  return text;
}
