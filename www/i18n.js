// @ts-check
// Every visible string comes from _locales/<lang>/messages.json. Elements name their message
// with data-i18n (text), data-i18n-title, data-i18n-placeholder and data-i18n-label
// (aria-label). Text is always set with textContent.
//
// chrome.i18n follows the browser's UI language and cannot be switched at run time, so the
// panel can override it: setLanguage() loads the chosen messages.json from the extension and
// t() formats its entries with the same placeholder rules chrome.i18n applies.

/** Languages the panel offers; "auto" follows the browser. */
export const LANGUAGES = ['auto', 'en', 'zh_CN'];

/** One entry of a messages.json. @typedef {{message: string, placeholders?: Record<string, {content?: string}>}} MessageEntry */
/** @type {{lang: string, messages: Record<string, MessageEntry>} | null} */
let override = null; // {lang, messages} when a language other than the browser's is chosen

/**
 * Chooses the panel's language. "auto" (or nothing) returns to chrome.i18n; a locale loads its
 * messages.json. Unknown locales fall back to "auto" rather than showing keys.
 * @param {string} [lang]
 */
export async function setLanguage(lang) {
  if (!lang || lang === 'auto' || !LANGUAGES.includes(lang)) {
    override = null;
    return;
  }
  const res = await fetch(chrome.runtime.getURL(`_locales/${lang}/messages.json`));
  if (!res.ok) throw new Error(`messages for ${lang}: HTTP ${res.status}`);
  const raw = await res.json();
  // chrome.i18n matches message and placeholder names case-insensitively.
  /** @type {Record<string, MessageEntry>} */
  const messages = {};
  for (const [key, entry] of Object.entries(raw)) messages[key.toLowerCase()] = entry;
  override = { lang, messages };
}

/** The language in effect, as a BCP 47 tag for the `lang` attribute. */
export function currentLanguage() {
  return (override ? override.lang : chrome.i18n.getUILanguage()).replace('_', '-');
}

/**
 * Formats a messages.json entry like chrome.i18n.getMessage: `$NAME$` takes its placeholder's
 * content, `$1`..`$9` take substitutions, `$$` is a literal dollar.
 * @param {MessageEntry} entry
 * @param {string[]} [subs]
 */
export function format(entry, subs = []) {
  /** @type {Record<string, string>} */
  const placeholders = {};
  for (const [name, p] of Object.entries(entry.placeholders || {})) placeholders[name.toLowerCase()] = p.content ?? '';
  /** @param {string} s */
  const fill = (s) => s.replace(/\$\$|\$(\d)/g, (m, n) => (m === '$$' ? '$' : String(subs[Number(n) - 1] ?? '')));
  return entry.message.replace(/\$\$|\$([A-Za-z0-9_@]+)\$|\$(\d)/g, (m, /** @type {string | undefined} */ name, /** @type {string} */ n) => {
    if (m === '$$') return '$';
    if (name !== undefined) {
      const content = placeholders[name.toLowerCase()];
      return content === undefined ? m : fill(content);
    }
    return String(subs[Number(n) - 1] ?? '');
  });
}

/**
 * The message `key` with substitutions; the key itself when it is missing (visible in review).
 * @param {string} key
 * @param {...(string | number)} subs
 */
export function t(key, ...subs) {
  const strings = subs.map(String);
  if (override) {
    const entry = override.messages[key.toLowerCase()];
    return entry ? format(entry, strings) : key;
  }
  return chrome.i18n.getMessage(key, strings) || key;
}

/**
 * The message `key` in the form `count` takes: `<key>_one`, `<key>_other` (and any other plural
 * category the language has, by Intl.PluralRules), falling back to `<key>_other`. chrome.i18n
 * has no plural rules, so every counted message has its forms as keys of their own (Chinese
 * writes one text in each). The substitutions are `subs`, or the count alone when none are given.
 * @param {string} key
 * @param {number} count
 * @param {...(string | number)} subs
 */
export function tn(key, count, ...subs) {
  const args = subs.length ? subs : [count];
  let form = 'other';
  try {
    form = new Intl.PluralRules(currentLanguage()).select(count);
  } catch {
    // an unknown language tag: the general form
  }
  const text = t(`${key}_${form}`, ...args);
  return text === `${key}_${form}` ? t(`${key}_other`, ...args) : text;
}

/** Applies the data-i18n* attributes under `root`. */
export function localize(root = document) {
  for (const el of root.querySelectorAll('[data-i18n]')) el.textContent = t(/** @type {HTMLElement} */ (el).dataset.i18n || '');
  for (const el of root.querySelectorAll('[data-i18n-title]')) /** @type {HTMLElement} */ (el).title = t(/** @type {HTMLElement} */ (el).dataset.i18nTitle || '');
  for (const el of root.querySelectorAll('[data-i18n-placeholder]')) /** @type {HTMLInputElement} */ (el).placeholder = t(/** @type {HTMLElement} */ (el).dataset.i18nPlaceholder || '');
  for (const el of root.querySelectorAll('[data-i18n-label]')) el.setAttribute('aria-label', t(/** @type {HTMLElement} */ (el).dataset.i18nLabel || ''));
  document.documentElement.lang = currentLanguage();
}
