// @ts-check
// Chat sites, inside Settings: the custom sites a user added (a self-hosted Open WebUI or
// LibreChat, say) with the adapter each uses, adding one (asking Chrome for that origin's
// permission first), and the site check of the current tab: which of its adapter's selectors
// match, so a site that changed its page is diagnosed in seconds.
// The adapters are data shared with the content script (a classic script there); imported here
// for its side effect, it defines globalThis.McpRelaySites.
import '../../extension/content/sites.js';
import { h, field, select } from '../dom.js';
import { t, tn } from '../i18n.js';
import { call, currentChat, errorView, requestHostPermission } from '../core.js';

/** Adapter ids and names: the built-in site descriptions, plus the generic adapter. */
function adapters() {
  const sites = (globalThis.McpRelaySites && globalThis.McpRelaySites.SITES) || [];
  return [['generic', t('adapterGeneric')], ...sites.map((s) => [s.id, s.name || s.id])];
}

/**
 * Accepts what a user pastes (a page URL or an origin) and returns the origin, or null.
 * @param {unknown} text
 */
export function originOf(text) {
  try {
    const u = new URL(String(text).trim());
    return /^https?:$/.test(u.protocol) ? u.origin : null;
  } catch {
    return null;
  }
}

/**
 * The custom sites part of the settings view.
 * @param {HTMLElement} container
 */
export function mountSites(container) {
  const list = h('ul', { class: 'sites-list', id: 'sites-list' });
  const status = h('div', { class: 'view-status', attrs: { 'aria-live': 'polite' } });
  const origin = h('input', { type: 'url', id: 'site-origin', placeholder: 'https://chat.example.com', required: true });
  const adapter = select(adapters(), 'generic', { id: 'site-adapter' });
  const report = h('div', { id: 'site-check-report' });

  const form = h('form', { class: 'stack', id: 'site-form' },
    field(t('sitesOrigin'), origin, { hint: t('sitesOriginHint') }),
    field(t('sitesAdapter'), adapter),
    h('div', { class: 'actions' }, h('button', { type: 'submit', id: 'site-add', text: t('sitesAdd') })));

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    const o = originOf(origin.value);
    if (!o) {
      status.replaceChildren(errorView({ kind: 'invalid_argument', message: t('sitesBadOrigin') }));
      return;
    }
    // The permission prompt must start inside the gesture, before any await.
    const granted = requestHostPermission([o]);
    granted.then(async (ok) => {
      if (!ok) {
        status.replaceChildren(errorView({ kind: 'permission', message: t('sitesPermissionDenied', o) }));
        return;
      }
      try {
        render(await call('sites/add', { origin: o, adapter: adapter.value }));
        origin.value = '';
        status.replaceChildren(h('p', { class: 'ok', text: t('sitesAdded', o) }));
      } catch (e) {
        status.replaceChildren(errorView(e));
      }
    });
  });

  const check = h('button', { type: 'button', id: 'site-check', text: t('sitesCheck') });
  check.addEventListener('click', async () => {
    report.replaceChildren();
    try {
      const chat = await currentChat();
      if (!chat) throw Object.assign(new Error(t('sitesNoChat')), { kind: 'no_chat' });
      const r = await call('sites/check', { chat });
      const rows = (r.checks || []).map((c) => h('tr', { dataset: { part: c.part, matches: String(c.matches) } },
        h('th', { attrs: { scope: 'row' }, text: c.part }),
        h('td', {}, h('code', { text: c.selector || '—' })),
        h('td', { class: c.matches ? 'ok' : 'bad', text: String(c.matches) })));
      // Discovery that cannot tell the page's parts: say so, and offer to teach the page.
      const unsure = r.unsure ? [h('div', { class: 'notice', id: 'site-unsure', attrs: { role: 'status' } },
        h('p', { text: t('sitesUnsure') }), teachButton(chat))] : [];
      report.replaceChildren(
        ...unsure,
        h('p', { text: t('sitesCheckAdapter', r.adapter || 'generic') }),
        h('table', { class: 'site-check' },
          h('thead', {}, h('tr', {}, h('th', { text: t('sitesCheckPart') }), h('th', { text: t('sitesCheckSelector') }), h('th', { text: t('sitesCheckMatches') }))),
          h('tbody', {}, rows)));
    } catch (e) {
      report.replaceChildren(errorView(e));
    }
  });

  /**
   * Starts "Teach this page" in the chat's tab: the user picks the parts there.
   * @param {{tabId: number, url: string}} chat
   */
  function teachButton(chat) {
    const b = h('button', { type: 'button', id: 'site-teach', text: t('teachStart') });
    b.addEventListener('click', async () => {
      try {
        await call('sites/teach', { chat });
        status.replaceChildren(h('p', { class: 'ok', text: t('sitesTeachStarted') }));
        if (chat.tabId) chrome.tabs.update(chat.tabId, { active: true }).catch(() => {});
      } catch (e) {
        status.replaceChildren(errorView(e));
      }
    });
    return b;
  }

  // Adapters as JSON: every custom site with its adapter (id, or the data of a taught or edited
  // one). Export fills the box (and offers the file); Import reads the box, asks Chrome for
  // the origins (inside the click) and saves each site, the core validating each adapter.
  const json = h('textarea', { id: 'sites-json', rows: 8, spellcheck: false, attrs: { 'aria-label': t('sitesJson') } });
  const jsonStatus = h('div', { class: 'view-status', attrs: { 'aria-live': 'polite' } });
  const exportBtn = h('button', { type: 'button', id: 'sites-export', text: t('sitesExport') });
  const importBtn = h('button', { type: 'button', id: 'sites-import', text: t('sitesImport') });
  exportBtn.addEventListener('click', async () => {
    try {
      const sites = await call('sites/list');
      json.value = JSON.stringify(sites, null, 2);
      const url = URL.createObjectURL(new Blob([json.value], { type: 'application/json' }));
      jsonStatus.replaceChildren(h('a', { href: url, download: 'mcp-relay-sites.json', id: 'sites-download', text: t('sitesDownload') }));
    } catch (e) {
      jsonStatus.replaceChildren(errorView(e));
    }
  });
  importBtn.addEventListener('click', () => {
    /** @type {{origin: string, adapter: string | import('../../extension/contract.js').AdapterData}[]} */
    let entries;
    try {
      const parsed = JSON.parse(json.value);
      const list = Array.isArray(parsed) ? parsed : [parsed];
      entries = list.map((x) => {
        const o = x && typeof x === 'object' ? originOf(x.origin) : null;
        if (!o) throw new Error(t('sitesBadOrigin'));
        return { origin: o, adapter: x.custom && typeof x.custom === 'object' ? x.custom : (x.adapter || 'generic') };
      });
    } catch (e) {
      jsonStatus.replaceChildren(errorView({ kind: 'invalid_argument', message: String(/** @type {any} */ (e).message || e) }));
      return;
    }
    // The permission prompt must start inside the gesture, before any await.
    requestHostPermission(entries.map((x) => x.origin)).then(async (ok) => {
      if (!ok) {
        jsonStatus.replaceChildren(errorView({ kind: 'permission', message: t('sitesPermissionDenied', entries.map((x) => x.origin).join(', ')) }));
        return;
      }
      try {
        /** @type {import('../../extension/contract.js').Site[]} */
        let sites = [];
        for (const x of entries) sites = await call('sites/add', { origin: x.origin, adapter: x.adapter });
        render(sites);
        jsonStatus.replaceChildren(h('p', { class: 'ok', id: 'sites-imported', text: tn('sitesImported', entries.length) }));
      } catch (e) {
        jsonStatus.replaceChildren(errorView(e));
      }
    });
  });

  /** @param {import('../../extension/contract.js').Site[] | null} sites */
  function render(sites) {
    if (!sites || !sites.length) {
      list.replaceChildren(h('li', { class: 'muted', text: t('sitesNone') }));
      return;
    }
    list.replaceChildren(...sites.map((s) => {
      const remove = h('button', { type: 'button', class: 'link', text: t('sitesRemove'), dataset: { action: 'remove' }, attrs: { 'aria-label': t('sitesRemoveLabel', s.origin) } });
      remove.addEventListener('click', async () => {
        try {
          render(await call('sites/remove', { origin: s.origin }));
        } catch (e) {
          status.replaceChildren(errorView(e));
        }
      });
      // View or edit this site's adapter as JSON (a taught one's data, or a start from the
      // generic adapter's shape); saving goes through the core's validation.
      const edit = h('button', { type: 'button', class: 'link', text: t('sitesEditAdapter'), dataset: { action: 'edit' } });
      edit.addEventListener('click', () => {
        const start = s.custom || { id: 'custom', name: s.origin, editor: 'auto', input: [], send: [], assistant: [] };
        json.value = JSON.stringify([{ origin: s.origin, adapter: s.adapter, custom: start }], null, 2);
        json.focus();
      });
      return h('li', { dataset: { origin: s.origin, adapter: s.adapter } }, h('code', { text: s.origin }), ' ', h('span', { class: 'muted', text: s.adapter }), ' ', edit, ' ', remove);
    }));
  }

  async function refresh() {
    try {
      render(await call('sites/list'));
    } catch (e) {
      status.replaceChildren(errorView(e));
    }
  }

  container.replaceChildren(
    h('h2', { id: 'sites-title', text: t('sitesTitle') }),
    h('p', { class: 'muted', text: t('sitesHint') }),
    list, form, status,
    h('div', { class: 'actions' }, check), report,
    h('h3', { text: t('sitesJson') }),
    h('p', { class: 'muted', text: t('sitesJsonHint') }),
    json, h('div', { class: 'actions' }, exportBtn, importBtn), jsonStatus);
  refresh();
  return { refresh };
}
