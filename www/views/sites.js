// @ts-check
// Chat sites, inside Settings: the custom sites a user added (a self-hosted Open WebUI or
// LibreChat, say) with the adapter each uses, adding one (asking Chrome for that origin's
// permission first), and the site check of the current tab: which of its adapter's selectors
// match, so a site that changed its page is diagnosed in seconds.
// The adapters are data shared with the content script (a classic script there); imported here
// for its side effect, it defines globalThis.McpRelaySites.
import '../../extension/content/sites.js';
import { h, field, select } from '../dom.js';
import { t } from '../i18n.js';
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
      report.replaceChildren(
        h('p', { text: t('sitesCheckAdapter', r.adapter || 'generic') }),
        h('table', { class: 'site-check' },
          h('thead', {}, h('tr', {}, h('th', { text: t('sitesCheckPart') }), h('th', { text: t('sitesCheckSelector') }), h('th', { text: t('sitesCheckMatches') }))),
          h('tbody', {}, rows)));
    } catch (e) {
      report.replaceChildren(errorView(e));
    }
  });

  /** @param {import('../../extension/contract.js').Site[] | null} sites */
  function render(sites) {
    if (!sites || !sites.length) {
      list.replaceChildren(h('li', { class: 'muted', text: t('sitesNone') }));
      return;
    }
    list.replaceChildren(...sites.map((s) => {
      const remove = h('button', { type: 'button', class: 'link', text: t('sitesRemove'), attrs: { 'aria-label': t('sitesRemoveLabel', s.origin) } });
      remove.addEventListener('click', async () => {
        try {
          render(await call('sites/remove', { origin: s.origin }));
        } catch (e) {
          status.replaceChildren(errorView(e));
        }
      });
      return h('li', { dataset: { origin: s.origin } }, h('code', { text: s.origin }), ' ', h('span', { class: 'muted', text: s.adapter }), ' ', remove);
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
    h('div', { class: 'actions' }, check), report);
  refresh();
  return { refresh };
}
