// @ts-check
// Servers' questions to the user (MCP elicitation), shown while they wait in a card docked to the
// bottom of the panel with its own scroll (it never moves the tabs or the view): a
// form built from the question's schema (the tool-run form, defaults prefilled; fields that ask
// for a secret carry a warning), or a page to open (the host it opens shown, with its Unicode
// form and warnings, and a button named after that host). Send / Decline / Dismiss answer it through the core, which checks a form against its
// schema (an error shows next to the question, which stays open) and cancels a question nobody
// answers in time. The core mirrors the waiting questions into storage.session
// (`elicitations`), so every open panel hears of a new one at once.
import { h } from './dom.js';
import { t } from './i18n.js';
import { call, describeError, errorView, onStorageChange, touches } from './core.js';
import { schemaForm } from './schema-form.js';

/** @typedef {import('../extension/contract.js').ElicitationView} ElicitationView */

/** @param {HTMLElement} root */
export function mountQuestions(root) {
  /** Questions on screen by key, kept while they wait so a half-filled form is never rebuilt. */
  let shown = new Map();

  async function refresh() {
    try {
      render(await call('elicitation/list'));
    } catch {
      // the core is restarting: its next change to the list refreshes this again
    }
  }

  /** @param {ElicitationView[]} list */
  function render(list) {
    const next = new Map(list.map((q) => [q.key, shown.get(q.key) || question(q)]));
    root.replaceChildren(...next.values());
    root.hidden = next.size === 0;
    shown = next;
  }

  /** @param {ElicitationView} q */
  function question(q) {
    const error = h('div', { class: 'row-error' });
    /** @type {((name: string, message: string | Node) => boolean) | null} */
    let showFieldError = null;
    /** @param {'accept' | 'decline' | 'cancel'} action @param {Record<string, unknown>} [content] */
    const answer = async (action, content) => {
      error.replaceChildren();
      try {
        render(await call('elicitation/answer', { key: q.key, action, content }));
      } catch (e) {
        // The core refused a field: the message goes next to it, and the question stays open.
        const { kind, details } = describeError(e);
        if (kind === 'field_invalid' && showFieldError && showFieldError(details[0] || '', errorView(e, { compact: true }))) return;
        error.replaceChildren(errorView(e));
      }
    };
    let body;
    let accept;
    if (q.mode === 'url') {
      // The page opens only from a click on a button that names the host it opens (as the core
      // parsed it, crate::link), after the browser's own parse agreed on that host.
      const link = q.link ?? { scheme: '', host: '', warnings: [] };
      const host = link.host + (link.port ? `:${link.port}` : '');
      body = h('div', { class: 'question-url' },
        h('p', { class: 'question-host' }, t('questionOpensHost'), ' ', h('strong', { class: 'question-host-name', dataset: { host }, text: host })),
        link.unicodeHost ? h('p', { class: 'notice', dataset: { warning: 'international' }, text: t('questionWarnInternational', link.unicodeHost, link.host) }) : null,
        link.userinfo ? h('p', { class: 'notice', dataset: { warning: 'userinfo' }, text: t('questionWarnUserinfo', link.userinfo, link.host) }) : null,
        link.warnings.includes('unencrypted') ? h('p', { class: 'notice', dataset: { warning: 'unencrypted' }, text: t('questionWarnUnencrypted') }) : null,
        h('code', { class: 'hint', text: q.url || '' }));
      accept = h('button', { type: 'button', class: 'primary', dataset: { action: 'open' }, text: t('questionOpenHost', host), on: { click: () => {
        if (browserHost(q.url || '') !== host) {
          error.replaceChildren(t('questionHostMismatch'));
          return;
        }
        chrome.tabs.create({ url: q.url });
        answer('accept');
      } } });
    } else {
      const form = schemaForm(q.schema || {});
      showFieldError = form.showError;
      body = form.element;
      // Servers must not ask for secrets in a form (MCP 2025-11-25): the core names the kind.
      for (const f of q.fields || []) {
        if (!f.secret) continue;
        const wrap = body.querySelector(`[data-param="${CSS.escape(f.name)}"]`);
        wrap?.append(h('p', { class: 'notice', dataset: { warning: 'secret' }, text: t('questionWarnSecret', f.secret) }));
      }
      accept = h('button', { type: 'button', class: 'primary', dataset: { action: 'accept' }, text: t('questionAccept'), on: { click: () => {
        const filled = form.collect();
        if (filled.ok) answer('accept', filled.value);
      } } });
    }
    return h('article', { class: 'question card', dataset: { key: q.key, server: q.serverId, mode: q.mode } },
      h('h2', { text: t('questionFrom', q.serverName) }),
      h('p', { class: 'question-message', text: q.message }),
      body, error,
      h('div', { class: 'actions' }, accept,
        h('button', { type: 'button', dataset: { action: 'decline' }, text: t('questionDecline'), on: { click: () => answer('decline') } }),
        h('button', { type: 'button', dataset: { action: 'cancel' }, text: t('questionCancel'), on: { click: () => answer('cancel') } })));
  }

  /**
   * The host (and port) the browser itself reads in `url`, or '' when it cannot.
   * @param {string} url
   */
  function browserHost(url) {
    try {
      return new URL(url).host;
    } catch {
      return '';
    }
  }

  // The docked card covers the bottom of the view: the view gets that much room below, so
  // everything in it can still be scrolled into sight.
  new ResizeObserver(() => {
    document.documentElement.style.setProperty('--questions-height', root.hidden ? '0px' : `${root.offsetHeight}px`);
  }).observe(root);

  onStorageChange((changes, area) => {
    if (area === 'session' && touches(changes, ['elicitations'])) refresh();
  });
  refresh();
}
