// @ts-check
// MCP Relay's service worker: the core (Rust → wasm) answers every message.
//
// Rules of a module service worker: the wasm glue is imported statically (no import(), no
// top-level await); init() starts at once and handlers await it; listeners are registered
// synchronously on the first turn so Chrome can wake us for events.
import init, { handle, answerAtOnce } from './pkg/relay_wasm.js';
import { STORAGE } from './contract.js';
// Defines relayNative, the native host's port, before the core needs it.
import './native.js';
// Defines relayRare, the second module (loaded on its first call), before the core needs it.
import './rare.js';

// Start-up marks (ms since the worker started), read by tests/bench/coldstart.bench.mjs: where a
// cold start's time goes (script, fetch, compile, instantiate, first message, first answer).
/** @type {Record<string, number>} */
const startup = { script: performance.now() };
Object.defineProperty(globalThis, '__relayStartup', { value: startup });

// compileStreaming compiles while the bytes arrive; instantiating the compiled module is then a
// separate, measurable step.
const ready = WebAssembly.compileStreaming(fetch(new URL('./pkg/relay_wasm_bg.wasm', import.meta.url)))
  .then((module) => {
    startup.compiled = performance.now();
    return init({ module_or_path: module });
  })
  .then(() => { startup.instantiated = performance.now(); });

// Server headers (credentials) live in chrome.storage.local, which content scripts could read
// by default: restrict it to the extension's own pages and this worker, first thing on every
// start (the level does not outlive the browser session, hence onStartup below, which also
// wakes the worker when the browser starts).
function restrictStorage() {
  chrome.storage.local.setAccessLevel({ accessLevel: 'TRUSTED_CONTEXTS' })
    .catch((e) => console.error('MCP Relay: cannot restrict storage access', e));
}
restrictStorage();
chrome.runtime.onStartup.addListener(restrictStorage);
const EXTENSION_ORIGIN = new URL(chrome.runtime.getURL('')).origin;

/**
 * Decides who sent a message from Chrome's own sender information (never from the message).
 * Returns "page" for this extension's pages, "content" for this extension's content scripts,
 * null for anything else (other extensions, web pages).
 * @param {chrome.runtime.MessageSender | undefined} sender
 * @returns {'page' | 'content' | null}
 */
function senderRole(sender) {
  if (!sender || sender.id !== chrome.runtime.id) return null;
  const origin = sender.origin || (sender.url ? new URL(sender.url).origin : '');
  if (origin === EXTENSION_ORIGIN) return 'page';
  // A content script: it runs in a tab, on a web origin.
  if (sender.tab && typeof sender.tab.id === 'number' && /^https?:$/.test(new URL(sender.url || 'about:blank').protocol)) {
    return 'content';
  }
  return null;
}

chrome.runtime.onMessage.addListener((message, sender, sendResponse) => {
  const role = senderRole(sender);
  if (!role) return false;
  const url = sender.url || '';
  const origin = sender.origin || new URL(url).origin;
  const tabId = sender.tab && sender.tab.id;
  /** @type {Parameters<typeof handle>[1]} */
  let who;
  // The frame: a tab's frames (a chat app in a same-origin frame of a portal) are pages of
  // their own.
  if (role === 'content' && typeof tabId === 'number') who = { role, origin, tabId, frameId: sender.frameId ?? 0, url };
  else if (role === 'page') who = { role, origin };
  else return false;
  // The in-page card's Open in panel (MCP Apps): the panel opens within the click's gesture,
  // before anything is awaited; the core then decides whether the call's app is shown there.
  if (role === 'content' && message && message.type === 'apps/show' && typeof tabId === 'number') {
    // Chrome may refuse outside a gesture, by a rejection or at once: the message goes on.
    try {
      chrome.sidePanel.open({ tabId }).catch(() => {});
    } catch {
      // the panel stays as it is; the core still marks the call for it
    }
  }
  if (startup.message === undefined) startup.message = performance.now();
  ready
    .then(() => {
      if (startup.call === undefined) startup.call = performance.now();
      // A ping is answered without the state or the full handler (see answerAtOnce).
      return answerAtOnce(message, role) ?? handle(message, who);
    })
    .then((answer) => {
      if (startup.answer === undefined) startup.answer = performance.now();
      sendResponse(answer);
    }, (e) => sendResponse({ ok: false, error: { kind: 'internal', message: String(e && e.message || e) } }));
  return true; // the answer is asynchronous
});

chrome.runtime.onInstalled.addListener(() => {
  chrome.sidePanel.setPanelBehavior({ openPanelOnActionClick: true }).catch(() => {});
});

// Custom chat sites live in chrome.storage.local ("sites"); their content scripts are derived
// from it, so a restart, a second panel or an import all converge on the same registrations.
const CUSTOM_PREFIX = 'custom:';
// The content script's files, in order: one list, the manifest's, for built-in and custom sites.
const CONTENT_FILES = contentFiles(chrome.runtime.getManifest());

/**
 * The files of the manifest's (only) content script entry.
 * @param {chrome.runtime.Manifest} manifest
 * @returns {string[]}
 */
function contentFiles(manifest) {
  const js = manifest.content_scripts && manifest.content_scripts[0] && manifest.content_scripts[0].js;
  if (!js || !js.length) throw new Error('manifest.json: content_scripts[0].js lists no files');
  return [...js];
}

async function syncContentScripts() {
  const stored = await chrome.storage[STORAGE.sites.area].get(STORAGE.sites.key);
  const value = stored[STORAGE.sites.key];
  /** @type {import('./contract.js').Site[]} */
  const sites = Array.isArray(value) ? value : [];
  const wanted = new Map(sites.map((s) => [CUSTOM_PREFIX + s.origin, s]));
  const registered = await chrome.scripting.getRegisteredContentScripts();
  const stale = registered.filter((r) => r.id.startsWith(CUSTOM_PREFIX) && !wanted.has(r.id)).map((r) => r.id);
  if (stale.length) await chrome.scripting.unregisterContentScripts({ ids: stale });
  const have = new Set(registered.map((r) => r.id));
  /** @type {chrome.scripting.RegisteredContentScript[]} */
  const fresh = [...wanted.entries()]
    .filter(([id]) => !have.has(id))
    .map(([id, s]) => ({ id, matches: [s.origin + '/*'], js: CONTENT_FILES, runAt: /** @type {const} */ ('document_idle'), allFrames: true, persistAcrossSessions: true }));
  if (fresh.length) await chrome.scripting.registerContentScripts(fresh);
  // Registrations of an older version ran in the top frame only: same-origin frames (a chat
  // app embedded in a portal page) need the script too.
  const old = registered.filter((r) => wanted.has(r.id) && !r.allFrames).map((r) => ({ id: r.id, js: CONTENT_FILES, allFrames: true }));
  if (old.length) await chrome.scripting.updateContentScripts(old);
}

let syncing = Promise.resolve();
function scheduleSync() {
  syncing = syncing.then(syncContentScripts).catch((e) => console.warn('MCP Relay: content script sync failed', e));
  return syncing;
}

chrome.storage.onChanged.addListener((changes, area) => {
  if (area === STORAGE.sites.area && changes[STORAGE.sites.key]) scheduleSync();
});
scheduleSync();


// Keyboard shortcuts (manifest `commands`, changeable in chrome://extensions/shortcuts): open the
// side panel; insert the instructions into the active tab's chat. The instructions are the
// core's (`prompt/build` for that chat's servers, `chat/insert`, as the panel's Insert does);
// a chat with no servers picked gets the panel opened instead, where they are picked.
/**
 * @param {string} command
 * @param {chrome.tabs.Tab | undefined} tab the active tab
 */
async function onCommand(command, tab) {
  if (!tab || typeof tab.id !== 'number') return;
  if (command === 'open-panel') {
    // Called before any await: Chrome opens the side panel only within the shortcut's gesture.
    await chrome.sidePanel.open({ tabId: tab.id });
    return;
  }
  if (command !== 'insert-instructions' || !tab.url) return;
  const chat = { tabId: tab.id, url: tab.url };
  const self = { role: /** @type {const} */ ('page'), origin: EXTENSION_ORIGIN };
  await ready;
  const built = await handle({ type: 'prompt/build', chat }, self);
  if (!built.ok || !built.data) {
    await chrome.sidePanel.open({ tabId: tab.id }).catch(() => {});
    return;
  }
  const inserted = await handle({ type: 'chat/insert', chat, text: built.data.text, submit: false }, self);
  if (!inserted.ok) console.warn('MCP Relay: insert', inserted.error);
}
chrome.commands.onCommand.addListener((command, tab) => {
  onCommand(command, tab).catch((e) => console.warn('MCP Relay: shortcut', command, e));
});
// For the browser tests, which cannot press a browser-wide shortcut in headless Chromium.
Object.defineProperty(globalThis, '__relayCommand', { value: onCommand });
