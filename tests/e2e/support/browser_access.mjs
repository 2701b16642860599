// The optional API permissions `bookmarks` and `tabs` granted in a test as a user grants them,
// without changing the extension: headless Chromium shows chrome.permissions.request's prompt with
// no way to answer it, and both have a warning ("Read and change your bookmarks", "Read your
// browsing history"), so Chrome always prompts for them — even `tabs`, whose warning the
// `history` permission already covers (permissions_api.cc compares the request's own warnings
// with none, not with the granted ones: a TODO there). Unlike hosts (content_access.mjs), no page
// of the browser grants an API permission at run time: chrome://extensions' developerPrivate has
// only host calls. No switch makes the prompt answer itself in this build (the old
// --apps-gallery-install-auto-confirm-for-tests is gone; the C++ test hooks have no switch).
//
//   const ext = await launchExtension({ pastGrants: PAST_GRANTS });   // the profile records them
//   await grantBookmarks(ext);   // then { permissions: ['bookmarks'] } is granted
//   await grantTabs(ext);        // then { permissions: ['tabs'] } is granted
//
// How: Chrome keeps, per extension, the optional permissions the user has accepted in a prompt —
// `extensions.settings.<id>.runtime_granted_permissions` in the profile's `Preferences` — and keeps
// them after the extension gives them back with chrome.permissions.remove. A request for an
// optional permission already in that record is answered `true` without a prompt
// (PermissionsRequestFunction::Run: "We don't prompt for already-granted permissions"). So the
// profile is laid with that record, as a user leaves it who accepted the prompt once before
// (`recordPastGrants`, before Chromium starts: a running browser holds its preferences in memory
// and writes them over the file); nothing is active at launch. Then the extension asks, in a
// click, exactly as its options page will (chrome.permissions.request), and Chrome grants through
// its own permission code: onAdded, contains, getAll, and the API appears in the running worker.
//
// Seen in Chromium 156: after the grant, chrome.bookmarks.create works and bookmarks.onCreated
// fires in the worker; chrome.tabs.query({}) gives every tab's url and title. After
// chrome.permissions.remove({permissions:['bookmarks']}), `chrome.bookmarks` stays an object in
// the running worker but its calls throw "'bookmarks.search' is not available in this context";
// asked again in a click, Chrome grants it without a prompt (the record stays). The manifest must
// list the permission in `optional_permissions`, or the request fails.
//
// What this leaves untested: the prompt itself (its wording, a user refusing it), and a first
// grant (the record says the user accepted before). launchExtension must lay the record: it needs
// a `pastGrants` option calling `recordPastGrants(profileDir, expectedId, pastGrants)` after
// `layProfile` (the profile is otherwise made and used inside launchExtension).
import { existsSync, readFileSync } from 'node:fs';
import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { requestInClick } from './content_access.mjs';

export const BOOKMARKS = Object.freeze({ permissions: ['bookmarks'] });
export const TABS = Object.freeze({ permissions: ['tabs'] });
/** Every API permission these helpers grant: launchExtension's `pastGrants` for both. */
export const PAST_GRANTS = Object.freeze(['bookmarks', 'tabs']);

const EMPTY_SET = () => ({ api: [], explicit_host: [], manifest_permissions: [], scriptable_host: [] });

function preferencesPath(profileDir) {
  return path.join(profileDir, 'Default', 'Preferences');
}

/**
 * Writes into a profile no browser runs on yet (launchExtension's, after layProfile) that the user
 * accepted these optional API permissions for `extensionId` before: Chrome's record of past grants
 * (runtime_granted_permissions). Merges with a Preferences file already there.
 */
export async function recordPastGrants(profileDir, extensionId, apis) {
  if (!extensionId) throw new Error('recordPastGrants needs the extension id (a manifest with a key)');
  const file = preferencesPath(profileDir);
  const prefs = existsSync(file) ? JSON.parse(await readFile(file, 'utf8')) : {};
  const settings = (((prefs.extensions ??= {}).settings ??= {})[extensionId] ??= {});
  const record = (settings.runtime_granted_permissions ??= EMPTY_SET());
  record.api = [...new Set([...(record.api ?? []), ...apis])].sort();
  await writeFile(file, JSON.stringify(prefs));
}

/** The API permissions the profile records as granted before (what Chrome will not prompt for). */
function pastGrantsOf(ext) {
  const file = preferencesPath(ext.profileDir);
  if (!existsSync(file)) return [];
  const prefs = JSON.parse(readFileSync(file, 'utf8'));
  return prefs.extensions?.settings?.[ext.extensionId]?.runtime_granted_permissions?.api ?? [];
}

async function grantApi(ext, api) {
  // Checked first: without the record Chrome prompts, and requestInClick would wait out its limit.
  if (!pastGrantsOf(ext).includes(api)) {
    throw new Error(`The profile does not record '${api}' as granted before: launch with launchExtension({ pastGrants: ['${api}'] }) (see browser_access.mjs)`);
  }
  const granted = await requestInClick(ext, { permissions: [api] });
  if (!granted) throw new Error(`Chrome refused the '${api}' permission`);
}

/** Grants `bookmarks` as a user does (recorded before; asked by the extension in a click, answered without a prompt). */
export function grantBookmarks(ext) {
  return grantApi(ext, 'bookmarks');
}

/** Grants `tabs` as a user does (recorded before; asked by the extension in a click, answered without a prompt). */
export function grantTabs(ext) {
  return grantApi(ext, 'tabs');
}
