// @ts-check
// Local servers in the side panel: the native host's (`relay-host`) state beside the remote
// servers, each local server's status, log and Restart, and the one command of the release zip
// that installs the host when Chrome cannot start it (folded away until the user has local
// servers or opens it). The host's list is the host's: the panel shows it and asks
// the host, which asks the user itself before it adds anything.

import { h } from '../dom.js';
import { t, tn } from '../i18n.js';
import { call, errorView } from '../core.js';

/** @typedef {import('../../extension/contract.js').LocalHostView} LocalHostView */
/** @typedef {import('../../extension/contract.js').LocalServerView} LocalServerView */

/** Where the panel keeps whether the user opened or closed the section (this panel's own view
 * state, not a setting: nothing else reads it). */
const OPEN_KEY = 'mcpRelay.localSectionOpen';

/** @returns {boolean | null} the user's last choice, or null before they made one */
function rememberedOpen() {
  try {
    const v = localStorage.getItem(OPEN_KEY);
    return v === null ? null : v === '1';
  } catch {
    return null;
  }
}

/**
 * The host's section of the servers view: a disclosure, folded for everyone who has no local
 * servers until they open it (the choice is remembered), open for those who have some.
 * @param {() => boolean} [configured] whether the user has local servers configured
 */
export function localSection(configured = () => false) {
  const body = h('div', { class: 'local-body' });
  const element = h('details', { class: 'local-host' },
    h('summary', { class: 'local-summary', text: t('localTitle') }), body);
  /** @type {LocalHostView | null} */
  let host = null;
  let chosen = rememberedOpen();
  // What the panel set last: a `toggle` that differs from it is the user's.
  let shown = false;
  element.addEventListener('toggle', () => {
    if (element.open === shown) return;
    shown = element.open;
    chosen = element.open;
    try { localStorage.setItem(OPEN_KEY, chosen ? '1' : '0'); } catch { /* private storage off: not remembered */ }
  });

  /** Opens or folds the section as the user chose, else by whether they have local servers. */
  function sync() {
    const listed = !!host && host.servers.length > 0;
    const open = chosen ?? (configured() || listed);
    if (open !== element.open) {
      shown = open;
      element.open = open;
    }
  }
  sync();

  /** Asks the host again (which also adds its new servers to the extension's list). */
  async function refresh() {
    try {
      const platform = await chrome.runtime.getPlatformInfo().catch(() => null);
      host = await call('local/list', { os: platform ? platform.os : '', extensionId: chrome.runtime.id });
    } catch (e) {
      host = null;
      body.replaceChildren(errorView(e));
      sync();
      return;
    }
    render();
  }

  function render() {
    sync();
    if (!host) return;
    if (!host.installed) {
      body.replaceChildren(...notInstalled(host));
      return;
    }
    body.replaceChildren(h('p', { class: 'hint', text: host.servers.length ? tn('localListed', host.servers.length) : t('localEmpty') }));
  }

  return {
    element,
    refresh,
    sync,
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
 * What to do when Chrome cannot start the host, in the panel's words: not installed (the usual
 * case: no alarm, the one command of the release zip's script), or the core's typed failure
 * with its advice (Chrome's own English only under Details); then the command, and the
 * developer's alternative.
 * @param {LocalHostView} host
 */
function notInstalled(host) {
  const missing = !host.error || host.error.cause === 'host_missing';
  return [
    missing ? h('p', { class: 'hint local-not-installed', text: t('localNotInstalled') }) : errorView(host.error),
    missing ? '' : h('p', { class: 'hint', text: t('localInstallAgain') }),
    h('pre', { class: 'local-install' }, h('code', { text: host.install })),
    h('p', { class: 'hint local-developer' }, t('localDeveloper'), ' ', h('code', { text: host.developer })),
  ];
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
      ...(host ? notInstalled(host) : []));
  }
  return h('div', {}, h('h3', { text: t('importLocal', plan.servers.length) }), items,
    h('p', { class: 'hint', text: t('importLocalHint') }));
}
