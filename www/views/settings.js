// @ts-check
// Settings: custom instructions, default strategy, loop limits, result size limit, and
// the panel's language. Saved with settings/set; keys the panel does not know are kept as they
// are, so a newer core's settings survive an older panel.
import { h, field, select } from '../dom.js';
import { t, LANGUAGES } from '../i18n.js';
import { call, errorView, touches } from '../core.js';
import { STRATEGIES } from './chat.js';
import { mountSites } from './sites.js';

/**
 * The settings the panel edits (the core's `Settings`), with the defaults it shows until the
 * core answers. `language` "" follows the browser. Timeouts are per server (server dialog).
 */
export const DEFAULTS = Object.freeze({
  customInstructions: '',
  defaultStrategy: 'auto',
  maxConsecutive: 5,
  maxTotal: 20,
  resultMaxChars: 20_000,
  defaultTimeoutMs: 30_000,
  language: '',
  sendDelayMs: 0,
});

/**
 * The numeric settings, each shown in the unit the user thinks in: a stored value is the shown
 * one times `scale` (timeouts are stored in milliseconds and shown in seconds, as in the server
 * dialog).
 * @type {[key: string, message: string, min: number, max: number, scale: number][]}
 */
const NUMBERS = [
  // [key, message, min, max, scale] (min and max as shown)
  ['maxConsecutive', 'settingsMaxConsecutive', 1, 100, 1],
  ['maxTotal', 'settingsMaxTotal', 1, 500, 1],
  ['resultMaxChars', 'settingsMaxResult', 100, 1_000_000, 1],
  ['defaultTimeoutMs', 'settingsDefaultTimeout', 1, 600, 1_000],
  ['sendDelayMs', 'settingsSendDelay', 0, 60, 1_000],
];

/**
 * @param {HTMLElement} section
 * @param {import('../panel.js').App} app
 * @returns {import('../panel.js').ViewController}
 */
export function mountSettings(section, app) {
  /** @type {Record<string, any>} */
  let stored = {};
  let dirty = false;
  const status = h('div', { class: 'view-status', attrs: { 'aria-live': 'polite' } });
  /** @type {{instructions: HTMLTextAreaElement, strategy: HTMLSelectElement, language: HTMLSelectElement, numbers: {key: string, msg: string, el: HTMLInputElement, scale: number}[]} | null} */
  let controls = null;
  /** @type {{refresh(): Promise<void>} | null} */
  let sitesView = null;
  const about = h('p', { class: 'muted about', id: 'about' });

  function build() {
    const instructions = h('textarea', { id: 'set-instructions', rows: 4 });
    const strategy = select(STRATEGIES.map((v) => [v, t('strategy_' + v)]), 'auto', { id: 'set-strategy' });
    const language = select(LANGUAGES.map((v) => [v, t('lang_' + v)]), 'auto', { id: 'set-language' });
    const numbers = NUMBERS.map(([key, msg, min, max, scale]) => {
      const el = h('input', { type: 'number', id: 'set-' + key, min: String(min), max: String(max), step: '1', required: true });
      return { key, msg, el, scale };
    });
    controls = { instructions, strategy, language, numbers };
    const form = h('form', { class: 'stack', id: 'settings-form' },
      field(t('settingsInstructions'), instructions, { hint: t('settingsInstructionsHint') }),
      field(t('settingsStrategy'), strategy),
      h('div', { class: 'row2' }, numbers.map((n) => field(t(n.msg), n.el))),
      field(t('settingsLanguage'), language, { hint: t('settingsLanguageHint') }),
      h('div', { class: 'actions' }, h('button', { type: 'submit', class: 'primary', id: 'settings-save', text: t('save') })),
      status);
    form.addEventListener('input', () => { dirty = true; });
    form.addEventListener('submit', (ev) => {
      ev.preventDefault();
      if (form.reportValidity()) save();
    });
    const sites = h('section', { class: 'sites', attrs: { 'aria-labelledby': 'sites-title' } });
    section.replaceChildren(h('h2', { text: t('settingsTitle') }), form, sites,
      about);
    sitesView = mountSites(sites);
    fill();
  }

  function fill() {
    if (!controls) return;
    /** @type {Record<string, any>} */
    const s = { ...DEFAULTS, ...stored };
    controls.instructions.value = s.customInstructions || '';
    controls.strategy.value = STRATEGIES.includes(s.defaultStrategy) ? s.defaultStrategy : 'auto';
    controls.language.value = LANGUAGES.includes(s.language) ? s.language : 'auto';
    for (const n of controls.numbers) n.el.value = String(Math.round(Number(s[n.key]) / n.scale));
    dirty = false;
  }

  async function refresh() {
    if (sitesView) sitesView.refresh();
    about.textContent = app.coreVersion ? t('aboutCore', app.coreVersion) : '';
    try {
      stored = (await call('settings/get')) || {};
      status.replaceChildren();
    } catch (e) {
      stored = {};
      status.replaceChildren(errorView(e));
    }
    // Never overwrite what the user is typing with what arrived meanwhile.
    if (!dirty) fill();
  }

  async function save() {
    if (!controls) return;
    /** @type {Record<string, any>} */
    const next = {
      ...stored,
      customInstructions: controls.instructions.value,
      defaultStrategy: controls.strategy.value,
      language: controls.language.value === 'auto' ? '' : controls.language.value,
    };
    for (const n of controls.numbers) next[n.key] = Math.round(Number(n.el.value)) * n.scale;
    const languageChanged = (stored.language || '') !== next.language;
    try {
      // `next` is the stored Settings with the user's edits.
      stored = (await call('settings/set', { settings: /** @type {import('../../extension/contract.js').Settings} */ (next) })) || next;
      dirty = false;
      if (languageChanged) await app.applyLanguage(stored.language);
      status.replaceChildren(h('p', { class: 'ok', text: t('saved') }));
    } catch (e) {
      status.replaceChildren(errorView(e));
    }
  }

  build();
  return {
    show: () => refresh(),
    hide() {},
    changed(changes) {
      // Another panel saved: show it, unless the user is in the middle of editing here.
      if (touches(changes, ['config']) && !dirty) refresh();
    },
    relocalize() {
      build();
    },
  };
}
