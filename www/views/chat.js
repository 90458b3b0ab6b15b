// @ts-check
// This chat: which servers the active tab's chat may use, its strategy, template and loop
// switches, the exact prompt the core builds for it (size, Insert, Copy), and the prompts,
// resources and skills its servers offer (browsed here, inserted into the chat; a skill is
// read only when Load is pressed, and the core writes it only once verified).
//
// A chat is {tabId, url}; ChatSettings = {serverIds, strategy, template?, autoExecute, autoSubmit,
// maxConsecutive, maxTotal}; prompt/build answers {text, chars, tokensEstimate, tools} or null.
// One choice at the top says where every setting of the view applies: this conversation (its
// own settings) or the whole site (every conversation of the site without its own); the core
// keeps both (chat/set with that scope; chat/scope switches, starting from the values in use).
import { h, field, select, toggle, nextId, copyText } from '../dom.js';
import { t, tn } from '../i18n.js';
import { call, errorView, currentChat, onTabChange, touches } from '../core.js';
import { resourceContents } from '../render.js';
import { noteInserted } from '../guide.js';

/** Strategies as the core names them (relay_core::prompt::Strategy). */
export const STRATEGIES = ['auto', 'toolFirst', 'toolForced', 'disabled'];

/** MCP list answers come as `{prompts: [...]}` / `{resources: [...]}` or as the bare array. */
/** @type {(answer: any, key: string) => any[]} */
const listOf = (answer, key) => (Array.isArray(answer) ? answer : (answer && Array.isArray(answer[key]) ? answer[key] : []));

/**
 * @param {HTMLElement} section
 * @param {import('../panel.js').App} app
 * @returns {import('../panel.js').ViewController}
 */
export function mountChat(section, app) {
  /** @type {import('../../extension/contract.js').ChatRef | null} */
  let chat = null;
  /** @type {import('../../extension/contract.js').ChatView | null} */
  let settings = null;
  /** @type {import('../../extension/contract.js').ServerView[]} */
  let servers = [];
  /** @type {import('../../extension/contract.js').Prompt | null} */
  let prompt = null;
  const who = h('p', { class: 'chat-who', attrs: { 'aria-live': 'polite' } });
  const status = h('div', { class: 'view-status' });
  const settingsBox = h('div', { class: 'chat-settings stack' });
  const promptBox = h('section', { class: 'prompt-box', attrs: { 'aria-label': t('promptTitle') } });
  const library = h('div', { class: 'library' });
  const libraryOpen = new Set();
  const appsBox = h('section', { class: 'chat-apps', hidden: true });

  function build() {
    section.replaceChildren(h('h2', { text: t('chatTitle') }), who, status, appsBox, settingsBox, promptBox, library);
  }

  /**
   * The chat's calls whose tools come with an interface (MCP Apps), newest first: each opens
   * its app in Activity, where the chat's apps live.
   * @param {import('../../extension/contract.js').ChatRef} forChat
   */
  async function renderApps(forChat) {
    const records = await call('activity/list', { chat: forChat }).catch(() => []);
    const withApps = records.filter((r) => r.hasApp && r.result && !r.byApp).sort((a, b) => b.seq - a.seq).slice(0, 5);
    appsBox.hidden = withApps.length === 0;
    appsBox.replaceChildren(h('h3', { text: t('appsTitle') }), h('ul', { class: 'chat-apps-list' }, withApps.map((r) =>
      h('li', { dataset: { key: r.key } },
        h('strong', { text: r.tool }), ' ',
        h('small', { text: servers.find((s) => s.id === r.serverId)?.name || '' }), ' ',
        h('button', { type: 'button', dataset: { action: 'open-app' }, text: t('appOpen'), on: { click: () => app.openApp({ key: r.key }) } })))));
  }

  async function refresh() {
    status.replaceChildren();
    chat = await currentChat().catch(() => null);
    if (!chat) {
      who.replaceChildren(h('span', { class: 'notice', text: t('chatNone') }));
      settingsBox.replaceChildren();
      promptBox.replaceChildren();
      library.replaceChildren();
      return;
    }
    let host = chat.url;
    try {
      host = new URL(chat.url).host;
    } catch {
      // keep the raw URL
    }
    who.replaceChildren(t('chatFor', host));
    who.title = chat.url;
    try {
      [servers, settings, app.settings] = await Promise.all([call('servers/list'), call('chat/get', { chat }), call('settings/get')]);
    } catch (e) {
      status.replaceChildren(errorView(e));
      settingsBox.replaceChildren();
      promptBox.replaceChildren();
      library.replaceChildren();
      return;
    }
    renderSettings();
    await Promise.all([refreshPrompt(), renderLibrary(), showDiscovery(chat), renderApps(chat)]);
  }

  // A page where the generic adapter cannot tell the parts: say so here too, with the way out.
  const discovery = h('div', { id: 'chat-unsure', hidden: true });
  /** @param {import('../../extension/contract.js').ChatRef} forChat */
  async function showDiscovery(forChat) {
    if (!who.contains(discovery)) who.after(discovery);
    const r = await call('sites/check', { chat: forChat }).catch(() => null);
    discovery.hidden = !(r && r.unsure);
    if (discovery.hidden) return discovery.replaceChildren();
    const teach = h('button', { type: 'button', id: 'chat-teach', text: t('teachStart') });
    teach.addEventListener('click', () => {
      call('sites/teach', { chat: forChat }).catch((e) => status.replaceChildren(errorView(e)));
    });
    discovery.replaceChildren(h('p', { class: 'notice', attrs: { role: 'status' }, text: t('sitesUnsure') }), teach);
  }

  /**
   * Where the settings shown apply: a conversation with settings of its own is edited on its
   * own; any other uses (and so edits) its site's.
   * @returns {import('../../extension/contract.js').Scope}
   */
  const scopeNow = () => (settings && settings.source === 'chat' ? 'chat' : 'site');

  /**
   * Writes the core's answer to a settings change (or shows why there is none) and redraws.
   * @param {() => Promise<import('../../extension/contract.js').ChatView>} change
   */
  async function apply(change) {
    status.replaceChildren();
    if (!chat) return;
    try {
      settings = await change();
    } catch (e) {
      status.replaceChildren(errorView(e));
    }
    renderSettings();
    await Promise.all([refreshPrompt(), renderLibrary()]);
  }

  /** @param {Partial<import('../../extension/contract.js').ChatSettings>} patch */
  const save = (patch) => apply(() => call('chat/set', { chat: /** @type {any} */ (chat), settings: { ...settings, ...patch }, scope: scopeNow() }));

  /** The scope choice: a radio group, the one place the view names where settings apply. */
  function scopeChoice() {
    let host = '';
    try { host = chat ? new URL(chat.url).host : ''; } catch { /* not a URL */ }
    const now = scopeNow();
    const name = nextId('scope');
    /** @param {import('../../extension/contract.js').Scope} value @param {string} label */
    const option = (value, label) => {
      const input = h('input', { type: 'radio', name, value, id: `chat-scope-${value}`, checked: now === value });
      input.addEventListener('change', () => {
        if (input.checked) apply(() => call('chat/scope', { chat: /** @type {any} */ (chat), scope: value }));
      });
      return h('label', { htmlFor: input.id }, input, h('span', { text: label }));
    };
    return h('fieldset', { class: 'chat-scope segmented', id: 'chat-scope', dataset: { scope: now } },
      h('legend', { text: t('chatScope') }),
      h('div', { class: 'segments' }, option('chat', t('chatScopeChat')), option('site', t('chatScopeSite', host))),
      // What the choice means here, and what leaving "this conversation" costs.
      h('p', { class: 'muted', id: 'chat-scope-note', text: now === 'chat' ? t('chatScopeChatNote') : t('chatScopeSiteNote', host) }));
  }

  function renderSettings() {
    /** @type {Partial<import('../../extension/contract.js').ChatSettings>} */
    const s = settings || {};
    const selected = new Set(s.serverIds || []);
    const serverChecks = servers.length
      ? h('ul', { class: 'check-list' }, servers.map((srv) => {
        const input = h('input', { type: 'checkbox', id: nextId('cs'), checked: selected.has(srv.id), value: srv.id });
        input.addEventListener('change', () => {
          const ids = new Set((settings && settings.serverIds) || []);
          if (input.checked) ids.add(srv.id);
          else ids.delete(srv.id);
          // Keep the configured order so the prompt lists servers as the user arranged them.
          save({ serverIds: servers.map((x) => x.id).filter((id) => ids.has(id)) });
        });
        /** @type {Partial<import('../../extension/contract.js').ServerState>} */
        const st = srv.state || {};
        const note = srv.enabled === false ? t('status_disabled') : st.status === 'connected' ? tn('toolCount', st.toolCount ?? 0) : t('status_' + (st.status || 'idle'));
        return h('li', { dataset: { server: srv.id } }, input, h('label', { htmlFor: input.id }, srv.name || srv.id, h('small', { class: 'muted', text: ` · ${note}` })));
      }))
      : h('p', { class: 'muted', text: t('chatNoServers') });
    // No strategy of its own means the default from the settings applies.
    const fallback = (app.settings && app.settings.defaultStrategy) || 'auto';
    const strategy = select([['', t('strategyDefault', t('strategy_' + fallback))], ...STRATEGIES.map((v) => [v, t('strategy_' + v)])], s.strategy || '', { id: 'chat-strategy' });
    strategy.addEventListener('change', () => save({ strategy: /** @type {import('../../extension/contract.js').Strategy} */ (strategy.value) || null }));
    const template = h('textarea', { id: 'chat-template', rows: 3, class: 'mono', value: s.template || '', placeholder: t('chatTemplatePlaceholder'), spellcheck: false });
    template.addEventListener('change', () => save({ template: template.value.trim() ? template.value : null }));
    // Empty limits fall back to the settings' limits, shown as the placeholder.
    /** @param {string} id @param {number | null | undefined} value @param {'maxConsecutive' | 'maxTotal'} key */
    const num = (id, value, key) => {
      const el = h('input', { type: 'number', id, min: '1', max: '500', step: '1', value: String(value ?? ''), placeholder: String((app.settings && app.settings[key]) ?? '') });
      el.addEventListener('change', () => {
        if (el.value.trim() === '') return save({ [key]: null });
        const n = Math.round(Number(el.value));
        if (Number.isFinite(n) && n >= 1) save({ [key]: n });
      });
      return el;
    };
    settingsBox.replaceChildren(
      scopeChoice(),
      h('fieldset', { class: 'chat-servers' }, h('legend', { text: t('chatServers') }), serverChecks),
      field(t('chatStrategy'), strategy, { hint: t('strategyHint_' + (s.strategy || fallback)) }),
      toggle(t('chatAutoExecute'), !!s.autoExecute, (on) => save({ autoExecute: on }), { id: 'chat-auto-execute' }),
      toggle(t('chatAutoSubmit'), !!s.autoSubmit, (on) => save({ autoSubmit: on }), { id: 'chat-auto-submit' }),
      h('div', { class: 'row2' },
        field(t('chatMaxConsecutive'), num('chat-max-consecutive', s.maxConsecutive, 'maxConsecutive')),
        field(t('chatMaxTotal'), num('chat-max-total', s.maxTotal, 'maxTotal'))),
      h('details', { class: 'template', open: !!s.template }, h('summary', { text: t('chatTemplate') }), field(t('chatTemplate'), template, { hint: t('chatTemplateHint') })));
  }

  async function refreshPrompt() {
    try {
      prompt = await call('prompt/build', { chat: chat || undefined });
    } catch (e) {
      promptBox.replaceChildren(h('h3', { text: t('promptTitle') }), errorView(e));
      return;
    }
    const note = h('p', { class: 'hint', attrs: { 'aria-live': 'polite' } });
    const p = prompt;
    if (!p || !p.text) {
      promptBox.replaceChildren(h('h3', { text: t('promptTitle') }), h('p', { class: 'muted', id: 'prompt-empty', text: t('promptNone') }));
      return;
    }
    const toolCount = Array.isArray(p.tools) ? p.tools.length : p.tools;
    const insert = h('button', { type: 'button', class: 'primary', id: 'prompt-insert', text: t('promptInsert') });
    insert.addEventListener('click', () => insertText(p.text, note, insert));
    promptBox.replaceChildren(
      h('h3', { text: t('promptTitle') }),
      h('p', { class: 'prompt-stats', id: 'prompt-stats', text: tn('promptStats', Number(toolCount) || 0, p.chars ?? p.text.length, p.tokensEstimate ?? '?', toolCount ?? '?') }),
      h('div', { class: 'actions' },
        insert,
        h('button', { type: 'button', id: 'prompt-copy', text: t('copy'), on: { click: async () => { note.textContent = (await copyText(p.text)) ? t('copied') : t('copyFailed'); } } })),
      note,
      h('pre', { class: 'prompt-text', id: 'prompt-text', tabIndex: 0, text: p.text, attrs: { 'aria-label': t('promptTitle') } }));
  }

  /**
   * @param {string} text
   * @param {HTMLElement} note
   * @param {HTMLButtonElement} button
   */
  async function insertText(text, note, button) {
    if (!chat) return;
    button.disabled = true;
    note.textContent = '';
    try {
      const r = await call('chat/insert', { chat, text });
      if (r && r.inserted) noteInserted(chat);
      note.textContent = r && r.inserted ? (r.submitted ? t('insertedSubmitted') : t('inserted')) : t('insertFailed');
    } catch (e) {
      note.replaceChildren(errorView(e));
    } finally {
      button.disabled = false;
    }
  }

  async function renderLibrary() {
    const ids = new Set((settings && settings.serverIds) || []);
    const chosen = servers.filter((s) => ids.has(s.id) && s.enabled !== false);
    if (!chosen.length) {
      library.replaceChildren();
      return;
    }
    library.replaceChildren(h('h3', { text: t('libraryTitle') }), ...chosen.map((srv) => {
      const body = h('div', { class: 'library-body' });
      const d = h('details', { dataset: { server: srv.id }, open: libraryOpen.has(srv.id) }, h('summary', { text: srv.name || srv.id }), body);
      const load = () => loadLibrary(srv, body);
      d.addEventListener('toggle', () => {
        if (d.open) {
          libraryOpen.add(srv.id);
          load();
        } else libraryOpen.delete(srv.id);
      });
      if (d.open) load();
      return d;
    }));
  }

  // Prompts, resources and skills are the server's answers: untrusted JSON, typed `any`, shown as text.
  /**
   * @param {import('../../extension/contract.js').ServerView} srv
   * @param {HTMLElement} body
   */
  async function loadLibrary(srv, body) {
    body.replaceChildren(h('p', { class: 'muted', text: t('loading') }));
    const [prompts, resources, skills] = await Promise.all([
      call('prompts/list', { serverId: srv.id }).then((a) => listOf(a, 'prompts'), (e) => e),
      // A skill's files are reached through Skills only, where the core verifies them.
      call('resources/list', { serverId: srv.id }).then((a) => listOf(a, 'resources').filter((r) => !String(r && r.uri).startsWith('skill://')), (e) => e),
      call('skills/list', { serverId: srv.id }).then((views) => views[0] || null, (e) => e),
    ]);
    const note = h('p', { class: 'hint', attrs: { 'aria-live': 'polite' } });
    const preview = h('div', { class: 'library-preview' });
    body.replaceChildren(
      h('h4', { text: t('libraryPrompts') }),
      prompts instanceof Error ? errorView(prompts, { compact: true })
        : prompts.length ? h('ul', { class: 'library-list' }, prompts.map((/** @type {any} */ p) => promptItem(srv, p, note, preview))) : h('p', { class: 'muted', text: t('libraryNone') }),
      h('h4', { text: t('libraryResources') }),
      resources instanceof Error ? errorView(resources, { compact: true })
        : resources.length ? h('ul', { class: 'library-list' }, resources.map((/** @type {any} */ r) => resourceItem(srv, r, note, preview))) : h('p', { class: 'muted', text: t('libraryNone') }),
      h('h4', { text: t('librarySkills') }),
      skills instanceof Error ? errorView(skills, { compact: true })
        : skills && skills.error ? errorView(skills.error, { compact: true })
          : skills && skills.skills.length ? h('ul', { class: 'library-list skills-list' }, skills.skills.map((/** @type {import('../../extension/contract.js').SkillView} */ s) => skillItem(srv, s, note)))
          : h('p', { class: 'muted', text: t('libraryNone') }),
      note, preview);
  }

  /**
   * A server's skill: Load reads its SKILL.md, has the core verify it against the listing, and
   * writes it into the composer (not sent); a file that does not match is an error, and nothing
   * of it is written.
   * @param {import('../../extension/contract.js').ServerView} srv
   * @param {import('../../extension/contract.js').SkillView} s
   * @param {HTMLElement} note
   */
  function skillItem(srv, s, note) {
    const load = h('button', { type: 'button', text: t('skillLoad') });
    load.addEventListener('click', async () => {
      if (!chat) return;
      load.disabled = true;
      note.textContent = '';
      try {
        const r = await call('skills/load', { chat, serverId: srv.id, name: s.name });
        if (r.outcome.inserted) noteInserted(chat);
        note.textContent = r.outcome.inserted ? t('skillLoaded', s.name) : t('insertFailed');
      } catch (e) {
        note.replaceChildren(errorView(e));
      } finally {
        load.disabled = false;
      }
    });
    return h('li', { dataset: { skill: s.name } },
      h('strong', { text: s.name }),
      s.description ? h('p', { class: 'tool-desc', text: s.description }) : null,
      s.references.length ? h('p', { class: 'muted', text: tn('skillFiles', s.references.length) }) : null,
      h('div', { class: 'actions' }, load));
  }

  /**
   * @param {import('../../extension/contract.js').ServerView} srv
   * @param {any} p an MCP prompt
   * @param {HTMLElement} note
   * @param {HTMLElement} preview
   */
  function promptItem(srv, p, note, preview) {
    const args = Array.isArray(p.arguments) ? p.arguments : [];
    const inputs = args.map((/** @type {any} */ a) => {
      const input = h('input', { type: 'text', name: a.name, required: !!a.required });
      return { a, input, el: field(a.title || a.name, input, { hint: a.description, required: !!a.required }) };
    });
    const insert = h('button', { type: 'submit', text: t('libraryInsert') });
    const form = h('form', { class: 'stack' }, inputs.map((/** @type {{el: HTMLElement}} */ i) => i.el), h('div', { class: 'actions' }, insert));
    form.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      if (!form.reportValidity()) return;
      /** @type {Record<string, string>} */
      const values = {};
      for (const { a, input } of inputs) if (input.value !== '') values[a.name] = input.value;
      try {
        const got = await call('prompts/get', { serverId: srv.id, name: p.name, arguments: values });
        const text = (got && Array.isArray(got.messages) ? got.messages : [])
          .map((/** @type {any} */ m) => (m.content && m.content.type === 'text' ? m.content.text : m.content && m.content.type === 'resource' && m.content.resource ? m.content.resource.text || '' : ''))
          .filter(Boolean)
          .join('\n\n');
        preview.replaceChildren(h('pre', { class: 'result-text', text }));
        await insertText(text, note, insert);
      } catch (e) {
        note.replaceChildren(errorView(e));
      }
    });
    return h('li', { dataset: { prompt: String(p.name) } },
      h('strong', { text: String(p.title || p.name) }),
      p.description ? h('p', { class: 'tool-desc', text: String(p.description) }) : null,
      form);
  }

  /**
   * @param {import('../../extension/contract.js').ServerView} srv
   * @param {any} r an MCP resource
   * @param {HTMLElement} note
   * @param {HTMLElement} preview
   */
  function resourceItem(srv, r, note, preview) {
    const read = async () => {
      const got = await call('resources/read', { serverId: srv.id, uri: r.uri });
      return listOf(got, 'contents');
    };
    const view = h('button', { type: 'button', text: t('libraryView') });
    view.addEventListener('click', async () => {
      try {
        preview.replaceChildren(...(await read()).map(resourceContents));
      } catch (e) {
        preview.replaceChildren(errorView(e));
      }
    });
    const insert = h('button', { type: 'button', text: t('libraryInsert') });
    insert.addEventListener('click', async () => {
      try {
        const text = (await read())
          .map((c) => (typeof c.text === 'string' ? c.text : t('resourceBinaryPlaceholder', c.uri || r.uri, c.mimeType || '?')))
          .join('\n\n');
        await insertText(text, note, insert);
      } catch (e) {
        note.replaceChildren(errorView(e));
      }
    });
    return h('li', { dataset: { uri: String(r.uri) } },
      h('strong', { text: String(r.title || r.name || r.uri) }), ' ', h('code', { text: String(r.uri) }),
      r.description ? h('p', { class: 'tool-desc', text: String(r.description) }) : null,
      h('div', { class: 'actions' }, view, insert));
  }

  build();
  /** @type {(() => void) | null} */
  let offTabs = null;
  return {
    async show() {
      offTabs ??= onTabChange(() => { if (app.visible('chat')) refresh(); });
      await refresh();
    },
    hide() {
      offTabs?.();
      offTabs = null;
    },
    changed(changes) {
      if (touches(changes, ['config', 'tools'])) refresh();
    },
    relocalize() {
      build();
      refresh();
    },
  };
}
