// OCR in the page reader, end to end in the built extension: the shipped offscreen document
// (extractor.js) reads a scanned PDF page (no text layer) and an image with tesseract.js and its
// English and French data, all from the extension's own files. The scans are drawn by the test's
// browser (a canvas: black text on white, a page at about 200 dpi), wrapped in a PDF as a
// scanner does (a JPEG over the whole page), served from 127.0.0.1, and asked of the offscreen
// document as the bindings ask it (support/reader.mjs): 'pdf' as for a PDF opened in Chrome,
// 'url' as for a page downloaded (a catch-up, a bookmarked page).
//
// Covered: a scanned PDF's words are read (through both paths); an image served as image/png is
// read; French text is read with its accents; an image with no text still answers no-text. Every
// host but 127.0.0.1 is unresolvable in this browser (--host-resolver-rules), so a read that works
// took tesseract's core and data from the extension (its defaults fetch them from a CDN).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './support/launch.mjs';
import { grantContentAccess } from './support/content_access.mjs';
import { localServer, offscreenReader } from './support/reader.mjs';
import { SCAN_LINES, scanImage, scannedPdf } from './support/reader_pages.mjs';

const FRENCH_LINES = ['Compte rendu du comité du phare', 'Le gardien a noté quarante navires en octobre', 'Une lanterne en laiton arrive de Brest'];

/** The words of `text`, lower case, accents kept. */
const wordsOf = (text) => new Set(text.toLowerCase().split(/[^\p{L}\p{N}]+/u).filter(Boolean));

/** Asserts that every word of `lines` is among the words of `text` (what OCR read). */
function assertRead(text, lines) {
  const found = wordsOf(text);
  const missing = [...wordsOf(lines.join(' '))].filter((word) => !found.has(word));
  assert.deepEqual(missing, [], `every word of the scan is read:\n${text}`);
}

describe('OCR of scanned PDFs and images', { timeout: 400_000 }, () => {
  let ext;
  let reader;
  let server;
  const routes = {};

  before(async () => {
    server = await localServer(routes);
    ext = await launchExtension({ args: ['--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1'] });
    await grantContentAccess(ext);
    const drawing = await ext.context.newPage();
    routes['/scan.pdf'] = { body: scannedPdf(await scanImage(drawing)), type: 'application/pdf' };
    routes['/notice.png'] = { body: (await scanImage(drawing, { type: 'image/png', width: 1600, height: 600 })).bytes, type: 'image/png' };
    routes['/compte-rendu.pdf'] = { body: scannedPdf(await scanImage(drawing, { lines: FRENCH_LINES })), type: 'application/pdf' };
    routes['/blank.png'] = { body: (await scanImage(drawing, { lines: [], type: 'image/png', width: 400, height: 300 })).bytes, type: 'image/png' };
    await drawing.close();
    reader = await offscreenReader(ext);
  });

  after(async () => {
    await ext?.close();
    await server?.close();
  });

  test('a scanned PDF is read by OCR, opened in Chrome or downloaded', async () => {
    const opened = await reader.pdf(`${server.origin}/scan.pdf`);
    assert.equal(opened.error, undefined, JSON.stringify(opened));
    assertRead(opened.text, SCAN_LINES);
    assert.equal(opened.title, SCAN_LINES[0], 'no metadata: the first line is the title');
    const downloaded = await reader.url(`${server.origin}/scan.pdf`);
    assert.equal(downloaded.error, undefined, JSON.stringify(downloaded));
    assertRead(downloaded.text, SCAN_LINES);
  });

  test('an image served as one is read by OCR; French keeps its accents', async () => {
    const image = await reader.url(`${server.origin}/notice.png`);
    assert.equal(image.error, undefined, JSON.stringify(image));
    assertRead(image.text, SCAN_LINES);
    const french = await reader.url(`${server.origin}/compte-rendu.pdf`);
    assert.equal(french.error, undefined, JSON.stringify(french));
    assertRead(french.text, FRENCH_LINES);
  });

  test('an image with no text answers no-text', async () => {
    const blank = await reader.url(`${server.origin}/blank.png`);
    assert.equal(blank.error, 'no-text', JSON.stringify(blank));
  });
});
