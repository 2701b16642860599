// Prints the extension id that Chrome derives from the manifest's `key`: the first 32 hex digits
// of the SHA-256 of the public key, written with the letters a–p.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

const manifest = JSON.parse(readFileSync(new URL('../manifest.json', import.meta.url), 'utf8'));
const digest = createHash('sha256').update(Buffer.from(manifest.key, 'base64')).digest('hex');
console.log([...digest.slice(0, 32)].map((c) => String.fromCharCode(97 + parseInt(c, 16))).join(''));
