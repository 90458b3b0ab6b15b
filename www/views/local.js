// @ts-check
// Local servers in the side panel: the native host's (`relay-host`) state beside the remote
// servers, each local server's status, log and Restart, and the one command that installs the
// host when Chrome cannot start it. The host's list is the host's: the panel shows it and asks
// the host, which asks the user itself before it adds anything.

import { h } from '../dom.js';
import { t, tn } from '../i18n.js';
import { call, errorView } from '../core.js';

/** @typedef {import('../../extension/contract.js').LocalHostView} LocalHostView */
/** @typedef {import('../../extension/contract.js').LocalServerView} LocalServerView */

/** The host's section of the servers view. */
export function localSection() {
  const element = h('section', { class: 'local-host', attrs: { 'aria-label': t('localTitle') } });
  /** @type {LocalHostView | null} */
  let host = null;

  /** Asks the host again (which also adds its new servers to the extension's list). */
  async function refresh() {
    try {
      host = await call('local/list');
    } catch (e) {
      host = null;
      element.replaceChildren(h('h3', { text: t('localTitle') }), errorView(e));
      return;
    }
    render();
  }

  function render() {
    if (!host) return;
    const title = h('h3', { text: t('localTitle') });
    if (!host.installed) {
      element.replaceChildren(title,
        h('p', { class: 'hint', text: t('localNotInstalled') }),
        h('pre', { class: 'local-install' }, h('code', { text: host.install })),
        host.error ? h('p', { class: 'hint local-error', text: host.error }) : '');
      return;
    }
    element.replaceChildren(title, h('p', { class: 'hint', text: host.servers.length ? tn('localListed', host.servers.length) : t('localEmpty') }));
  }

  return {
    element,
    refresh,
    /** @returns {LocalHostView | null} */
    host: () => host,
    /**
     * The host's view of one server.
     * @param {string} name
     * @returns {LocalServerView | undefined}
     */
    status: (name) => host?.servers.find((s) => s.name === name),
  };
}

/**
 * What a local server's row shows beside a remote one's: the command the host runs, its status
 * in the host, its log and Restart.
 * @param {string} name the host's name of the server
 * @param {LocalServerView | undefined} state
 * @param {() => Promise<void>} changed called after a restart
 */
export function localExtras(name, state, changed) {
  const log = h('pre', { class: 'local-log', hidden: true, attrs: { 'aria-live': 'polite' } });
  const error = h('div', { class: 'local-row-error' });
  const status = state ? state.status : 'stopped';
  const showLog = h('button', { type: 'button', dataset: { action: 'local-log' }, text: t('localLog'), on: { click: async () => {
    error.replaceChildren();
    try {
      const got = await call('local/log', { name });
      log.textContent = got.lines.length ? got.lines.join('\n') : t('localLogEmpty');
      log.hidden = false;
    } catch (e) {
      error.replaceChildren(errorView(e));
    }
  } } });
  const restart = h('button', { type: 'button', dataset: { action: 'local-restart' }, text: t('localRestart'), on: { click: async () => {
    error.replaceChildren();
    try {
      await call('local/restart', { name });
      await changed();
    } catch (e) {
      error.replaceChildren(errorView(e));
    }
  } } });
  return h('div', { class: 'local-server', dataset: { local: name, hostStatus: status } },
    h('p', { class: 'local-command' }, h('span', { class: 'badge local', text: t('localBadge') }), ' ',
      h('span', { class: `badge host-${status}`, text: t('localStatus_' + status) }), ' ',
      h('code', { text: state ? state.command : name })),
    state && state.detail ? h('p', { class: 'hint local-detail', text: state.detail }) : '',
    h('div', { class: 'actions' }, showLog, restart),
    error, log);
}

/**
 * The import dialog's part for stdio entries: what the host would run, each command shown in
 * full, or the one command that installs the host.
 * @param {import('../../extension/contract.js').LocalPlanView | null} plan
 * @param {LocalHostView | null} host
 */
export function importLocalPreview(plan, host) {
  if (!plan || !plan.servers.length) return null;
  const items = h('ul', { class: 'import-local' }, plan.servers.map((s) =>
    h('li', {}, h('strong', { text: s.name }), ' ', h('code', { class: 'local-command', text: s.display }))));
  if (!host || !host.installed) {
    return h('div', {}, h('h3', { text: t('importLocalNoHost', plan.servers.length) }), items,
      h('p', { class: 'hint', text: t('localNotInstalled') }),
      h('pre', { class: 'local-install' }, h('code', { text: host ? host.install : 'cargo xtask install-host' })));
  }
  return h('div', {}, h('h3', { text: t('importLocal', plan.servers.length) }), items,
    h('p', { class: 'hint', text: t('importLocalHint') }));
}
