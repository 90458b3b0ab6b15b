// @ts-check
// Activity: the tool chain of the current chat as it happens. Each call shows its arguments,
// progress, duration, result or error; pending calls wait for Run / Deny / Always allow; a call
// whose outcome is unknown (timed out, worker stopped) runs again only on an explicit click; a
// running call shows its progress and a Cancel (the core aborts it and tells the server). The
// chat's calls export as JSON or Markdown.
//
// The ledger lives in chrome.storage (keys starting with "ledger"): a change there refreshes
// the list at once, and while calls are pending or running the view also polls once a second.
import { h } from '../dom.js';
import { t, tn } from '../i18n.js';
import { call, describeError, errorView, currentChat, onTabChange, poll, touches } from '../core.js';
import { callView, duration, isCancelled, stateMark } from '../render.js';
import { activityMarkdown, download, fileSafe } from '../export.js';
import { mountApps } from '../apps.js';

/**
 * @param {HTMLElement} section
 * @param {import('../panel.js').App} app
 * @returns {import('../panel.js').ViewController}
 */
export function mountActivity(section, app) {
  /** @type {import('../../extension/contract.js').ChatRef | null} */
  let chat = null;
  /** @type {import('../../extension/contract.js').CallRecord[]} */
  let records = [];
  /** The servers' names by id: a call names its server as the user does. @type {Map<string, string>} */
  let names = new Map();
  let signature = '';
  const who = h('p', { class: 'chat-who' });
  const chain = h('ol', { class: 'chain', attrs: { 'aria-label': t('activityChain') } });
  const status = h('div', { class: 'view-status' });
  const list = h('div', { class: 'call-list', attrs: { 'aria-live': 'polite', 'aria-relevant': 'additions text' } });
  const pendingNote = h('p', { class: 'notice', hidden: true, attrs: { role: 'status' } });
  // The chat's open apps (MCP Apps) live apart from the list, which is re-rendered on every
  // change: a frame moved or rebuilt would reload its app.
  const appsArea = h('div', { class: 'apps-area', hidden: true });
  const apps = mountApps(appsArea);
  let appsChat = '';

  /** @param {import('../panel.js').AppTarget} what */
  async function openApp(what) {
    try {
      // A run by hand's app may write into the chat this view shows.
      await apps.open(what.key ? what : { ...what, chat }, appsChat);
    } catch (e) {
      status.replaceChildren(errorView(e));
    }
  }

  /** @param {'json' | 'md'} format */
  function exportAs(format) {
    let host = 'chat';
    try {
      host = chat ? new URL(chat.url).host : host;
    } catch {
      // keep 'chat'
    }
    const name = `mcp-activity-${fileSafe(host)}`;
    if (format === 'json') {
      download(`${name}.json`, JSON.stringify({ chat: chat && chat.url, calls: records }, null, 2), 'application/json');
      return;
    }
    const labels = {
      state: (/** @type {string} */ s) => t('state_' + s),
      arguments: t('callArguments'), result: t('exportResult'), error: t('exportError'),
      server: t('exportServer'), started: t('exportStarted'),
      took: (/** @type {number} */ ms) => t('exportTook', duration(ms)),
      payload: (/** @type {string} */ mime, /** @type {number} */ bytes) => t('exportPayload', mime, bytes),
    };
    download(`${name}.md`, activityMarkdown(records, { title: t('activityTitle'), chat: chat ? chat.url : '', servers: names, labels }), 'text/markdown');
  }

  const exports = h('div', { class: 'actions export-actions' },
    h('button', { type: 'button', dataset: { action: 'export-json' }, on: { click: () => exportAs('json') } }),
    h('button', { type: 'button', dataset: { action: 'export-md' }, on: { click: () => exportAs('md') } }));

  function build() {
    chain.setAttribute('aria-label', t('activityChain'));
    const [asJson, asMd] = /** @type {HTMLButtonElement[]} */ ([...exports.children]);
    asJson.textContent = t('activityExportJson');
    asMd.textContent = t('activityExportMarkdown');
    appsArea.setAttribute('aria-label', t('appsTitle'));
    section.replaceChildren(h('h2', { text: t('activityTitle') }), who, pendingNote, appsArea, exports, chain, status, list);
  }

  async function refresh() {
    chat = await currentChat().catch(() => null);
    // Another chat: its apps are not this one's (they stay open, hidden, for when it is back).
    const chatId = chat ? `${chat.tabId}|${chat.url}` : '';
    if (chatId !== appsChat) {
      appsChat = chatId;
      apps.showChat(chatId);
    }
    if (!chat) {
      who.textContent = t('chatNone');
      records = [];
      signature = '';
      render();
      return;
    }
    let host = chat.url;
    try {
      host = new URL(chat.url).host;
    } catch {
      // keep the raw URL
    }
    who.textContent = t('chatFor', host);
    try {
      const [got, servers] = await Promise.all([call('activity/list', { chat }), call('servers/list').catch(() => [])]);
      status.replaceChildren();
      records = Array.isArray(got) ? got : [];
      names = new Map(servers.map((s) => [s.id, s.name || s.url]));
    } catch (e) {
      status.replaceChildren(errorView(e));
      records = [];
    }
    // Re-render only when something changed: keeps focus on a button across polls.
    const sig = JSON.stringify([records, [...names]]);
    if (sig === signature) return;
    signature = sig;
    render();
  }

  /**
   * @param {import('../../extension/contract.js').CallRecord} record
   * @param {import('../../extension/contract.js').UserDecision} decision
   * @param {boolean} [confirm] the user confirmed allowing a destructive tool
   */
  async function decide(record, decision, confirm = false) {
    try {
      await call('activity/decide', { key: record.key, decision, confirm });
    } catch (e) {
      const { kind } = describeError(e);
      if (kind === 'confirm_required' && !confirm) {
        // "Always allow" on a tool its server marks destructive: the core wants the user's
        // explicit confirmation, asked here inline (no window.confirm in a side panel), in one
        // sentence of the panel's language.
        const message = t('toolDestructiveConfirm', record.tool);
        status.replaceChildren(h('div', { class: 'confirm', attrs: { role: 'alertdialog', 'aria-label': message }, dataset: { kind } },
          h('p', { class: 'error-message', text: message }),
          h('button', { type: 'button', class: 'danger', dataset: { action: 'confirm-allow' }, text: t('toolDestructiveAllow'), on: { click: () => decide(record, decision, true) } }),
          h('button', { type: 'button', dataset: { action: 'confirm-cancel' }, text: t('cancel'), on: { click: () => status.replaceChildren() } })));
        return;
      }
      status.replaceChildren(errorView(e));
    }
    await refresh();
  }

  /** @param {import('../../extension/contract.js').CallRecord} record */
  async function cancel(record) {
    try {
      await call('calls/cancel', { key: record.key });
    } catch (e) {
      status.replaceChildren(errorView(e));
    }
    await refresh();
  }

  function render() {
    const sorted = [...records].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0) || (a.startedAt ?? 0) - (b.startedAt ?? 0));
    const pending = sorted.filter((r) => r.state === 'pending').length;
    pendingNote.hidden = pending === 0;
    pendingNote.textContent = pending ? tn('activityPending', pending) : '';
    for (const b of /** @type {HTMLButtonElement[]} */ ([...exports.children])) b.disabled = sorted.length === 0;
    chain.replaceChildren(...sorted.map((r) => h('li', { class: `chip state-${isCancelled(r) ? 'cancelled' : r.state}`, text: `${r.tool} ${stateMark(r)}` })));
    if (!sorted.length) {
      list.replaceChildren(h('p', { class: 'empty', text: chat ? t('activityEmpty') : '' }));
      return;
    }
    // Newest first: the call that needs attention is at the top.
    list.replaceChildren(...sorted.reverse().map((r) => callView(r, { onDecide: (d) => decide(r, d), onCancel: () => cancel(r), onOpenApp: () => openApp({ key: r.key }), serverName: names.get(String(r.serverId)) || '' })));
  }

  build();
  /** @type {(() => void) | null} */
  let stopPoll = null;
  /** @type {(() => void) | null} */
  let offTabs = null;
  return {
    async show() {
      offTabs ??= onTabChange(() => { if (app.visible('activity')) refresh(); });
      // At most once a second, only while this view is visible and something is still moving.
      stopPoll ??= poll(refresh, 1000, () => app.visible('activity') && records.some((r) => r.state === 'pending' || r.state === 'running'));
      await refresh();
    },
    hide() {
      stopPoll?.();
      stopPoll = null;
      offTabs?.();
      offTabs = null;
    },
    changed(changes) {
      if (touches(changes, ['ledger', 'call:'])) refresh();
    },
    async openApp(what) {
      await refresh();
      await openApp(what);
    },
    relocalize() {
      build();
      apps.contextChanged();
      signature = '';
      refresh();
    },
  };
}
