// @ts-check
// The panel's only way to the core: the message contract (extension/contract.js), plus what the
// panel needs around it: error presentation, change notifications, and which chat it is for.
// The panel keeps no state of its own that the core also has: every view reads it back from the
// core, so two open panels always show the same thing.
import { call, ERROR_KINDS } from '../extension/contract.js';
import { h } from './dom.js';
import { t, currentLanguage } from './i18n.js';

export { call };

/**
 * `{kind, message, hint, details, cause}` of any thrown value.
 * @param {any} e
 * @returns {{kind: string, message: string, hint: string, details: string[], cause: string}}
 */
export function describeError(e) {
  return {
    kind: (e && e.kind) || 'internal',
    message: (e && e.message) || String(e),
    hint: (e && e.hint) || '',
    details: Array.isArray(e && e.details) ? e.details.map(String) : [],
    cause: (e && typeof e.cause === 'string' && e.cause) || '',
  };
}

/**
 * An inline error block: what happened and what to do, in the panel's language, with the
 * core's exact words and what kind of failure it is, in words, under "Details"; the kind's code
 * is only the block's `data-kind`, never text. `code spans` of the core's texts are shown as
 * code. A cancelled request (the user's own Cancel) is no failure: a neutral "Cancelled".
 * @param {any} e an error of the core (`{kind, message, hint, details?, cause?}`) or any thrown value
 * @param {{compact?: boolean}} [options] compact: without the hint
 */
export function errorView(e, { compact = false } = {}) {
  const { kind, message, hint } = describeError(e);
  if (kind === 'cancelled') {
    return h('p', { class: 'notice cancelled', attrs: { role: 'status' }, dataset: { kind } }, t('callCancelled'));
  }
  if (kind === 'unavailable') {
    return h('p', { class: 'notice unavailable', attrs: { role: 'status' }, dataset: { kind } }, t('errUnavailable'), ' ', h('code', { text: message }));
  }
  const { message: shown, hint: advice, localized } = errorText(e);
  // What kind of failure it is, in the panel's words, when the main text does not say it so.
  const about = localizedError(kind, describeError(e).details);
  const aboutText = about && about.message !== shown ? about.message : '';
  return h('div', { class: 'error', attrs: { role: 'alert' }, dataset: { kind, ...(localized ? { localized: 'true' } : {}) } },
    h('p', { class: 'error-message' }, ...withCode(shown)),
    !compact && advice ? h('p', { class: 'error-hint' }, ...withCode(advice)) : null,
    h('details', { class: 'error-details' }, h('summary', { text: t('errDetails') }),
      localized ? h('p', { class: 'error-original' }, ...withCode(message)) : null,
      localized && hint ? h('p', { class: 'error-original' }, ...withCode(hint)) : null,
      aboutText ? h('p', { class: 'error-kind' }, ...withCode(aboutText)) : null));
}

/**
 * What an error says in the panel's language: its message and what to do. The core writes its
 * messages in English, with every specific it knows. In another panel language they are the
 * kind's text with its details (status, address, tool...) and the cause's advice in that
 * language (`localized`); the core's exact words then go under "Details".
 * @param {any} e
 * @returns {{message: string, hint: string, localized: boolean}}
 */
export function errorText(e) {
  const { kind, message, hint, details, cause } = describeError(e);
  const localized = !currentLanguage().startsWith('en') ? localizedError(kind, details, cause) : null;
  return localized ? { ...localized, localized: true } : { message: sentence(message), hint, localized: false };
}

/**
 * The core's message as a sentence: its first word capitalized when it is a plain word (never
 * an address, a method like `tools/list` or a code span).
 * @param {string} text
 */
function sentence(text) {
  return /^[a-z]+[\s,]/.test(text) ? text[0].toUpperCase() + text.slice(1) : text;
}

/**
 * A text's `code spans` as <code> elements, the rest as text nodes (never markup).
 * @param {string} text
 * @returns {(string | HTMLElement)[]}
 */
export function withCode(text) {
  const parts = String(text).split('`');
  // An odd number of backticks leaves the last one literal: no span is left open.
  if (parts.length % 2 === 0) return [String(text)];
  return parts.map((part, i) => (i % 2 ? h('code', { text: part }) : part)).filter((p) => p !== '');
}

/**
 * The panel language's message and hint for an error kind of the core, with the error's
 * details filled in (`ERROR_KINDS` names them per kind) and the cause's advice
 * (`errCause_<cause>`) as the hint when there is one, or null when the locale has no text for
 * the kind (the core's English text is shown then).
 * @param {string} kind
 * @param {string[]} [details]
 * @param {string} [cause]
 * @returns {{message: string, hint: string} | null}
 */
export function localizedError(kind, details = [], cause = '') {
  if (!/^[a-z_]+$/.test(kind)) return null;
  /** @type {Record<string, readonly string[]>} */
  const kinds = ERROR_KINDS;
  // An error that lacks a detail (one stored by an older version) still reads as a sentence.
  const wanted = (kinds[kind] || []).length;
  const filled = [...details, ...Array(Math.max(0, wanted - details.length)).fill('…')];
  const message = t('errKind_' + kind, ...filled);
  if (!message || message === 'errKind_' + kind) return null;
  const causeText = /^[a-z_]+$/.test(cause) ? t('errCause_' + cause) : '';
  const hint = causeText && causeText !== 'errCause_' + cause ? causeText : t('errHint_' + kind);
  return { message, hint: hint && hint !== 'errHint_' + kind ? hint : '' };
}

/**
 * Calls `fn(changes, area)` when chrome.storage changes (local or session: the call ledger lives
 * in session storage). Returns an unsubscribe function.
 * @param {(changes: Record<string, chrome.storage.StorageChange>, area: string) => void} fn
 */
export function onStorageChange(fn) {
  /** @type {(changes: Record<string, chrome.storage.StorageChange>, area: string) => void} */
  const listener = (changes, area) => fn(changes, area);
  chrome.storage.onChanged.addListener(listener);
  return () => chrome.storage.onChanged.removeListener(listener);
}

/**
 * Whether a storage change touches a key with one of the prefixes.
 * @param {Record<string, unknown>} changes
 * @param {string[]} prefixes
 */
export function touches(changes, prefixes) {
  return Object.keys(changes).some((k) => prefixes.some((p) => k.startsWith(p)));
}

/**
 * The chat this panel is for: `{tabId, url}` of the active tab of the panel's window.
 * The manifest has no "tabs" permission: `tab.url` is visible only for hosts the extension may
 * access, which includes every chat site; a tab without a visible http(s) URL is not a chat.
 * When the panel itself is open as a tab (a detached window, the tests), the chat is the most
 * recently used tab with a visible http(s) URL.
 * @returns {Promise<{tabId: number, url: string} | null>}
 */
export async function currentChat() {
  const [active] = await chrome.tabs.query({ active: true, currentWindow: true });
  const self = await chrome.tabs.getCurrent().catch(() => undefined);
  /** @param {chrome.tabs.Tab | undefined} tab @returns {{tabId: number, url: string} | null} */
  const asChat = (tab) => (tab && typeof tab.id === 'number' && tab.url && /^https?:\/\//.test(tab.url) ? { tabId: tab.id, url: tab.url } : null);
  if (active && (!self || active.id !== self.id)) return asChat(active);
  const tabs = (await chrome.tabs.query({})).filter((tab) => asChat(tab) && (!self || tab.id !== self.id));
  tabs.sort((a, b) => (b.lastAccessed || 0) - (a.lastAccessed || 0));
  return asChat(tabs[0]);
}

/**
 * Calls `fn` when the active tab changes or navigates. Returns an unsubscribe function.
 * @param {() => void} fn
 */
export function onTabChange(fn) {
  const activated = () => fn();
  /** @param {number} _id @param {chrome.tabs.OnUpdatedInfo} info */
  const updated = (_id, info) => { if (info.url || info.status === 'complete') fn(); };
  chrome.tabs.onActivated.addListener(activated);
  chrome.tabs.onUpdated.addListener(updated);
  return () => {
    chrome.tabs.onActivated.removeListener(activated);
    chrome.tabs.onUpdated.removeListener(updated);
  };
}

/**
 * Origins a server URL needs permission for: null for loopback hosts (granted in the manifest).
 * @param {string} url
 * @returns {string | null}
 */
export function remoteOrigin(url) {
  let u;
  try {
    u = new URL(url);
  } catch {
    return null;
  }
  if (!/^https?:$/.test(u.protocol)) return null;
  const host = u.hostname.replace(/^\[|\]$/g, '');
  if (host === '127.0.0.1' || host === 'localhost' || host === '::1') return null;
  return u.origin;
}

/**
 * Asks for host permission for the remote origins among `urls`. Must be called synchronously
 * from a user gesture (a click or submit handler, before any await), or Chrome refuses.
 * Resolves true when nothing was needed or everything was granted.
 * @param {string[]} urls
 * @returns {Promise<boolean>}
 */
export function requestHostPermission(urls) {
  const origins = [...new Set(urls.map(remoteOrigin).filter(Boolean))].map((o) => o + '/*');
  if (!origins.length) return Promise.resolve(true);
  return chrome.permissions.request({ origins }).catch(() => false);
}

/**
 * Runs `fn` about every `ms` while the page is visible and `active()` holds; returns stop().
 * Bounded by construction: one tick at a time, never faster than `ms`.
 * @param {() => unknown} fn
 * @param {number} ms
 * @param {() => boolean} [active]
 * @returns {() => void}
 */
export function poll(fn, ms, active = () => true) {
  /** @type {ReturnType<typeof setTimeout> | null} */
  let timer = null;
  let stopped = false;
  const tick = async () => {
    timer = null;
    if (stopped) return;
    if (document.visibilityState === 'visible' && active()) {
      try {
        await fn();
      } catch {
        // the view shows its own errors; polling simply tries again next tick
      }
    }
    if (!stopped) timer = setTimeout(tick, ms);
  };
  timer = setTimeout(tick, ms);
  return () => {
    stopped = true;
    if (timer) clearTimeout(timer);
  };
}
