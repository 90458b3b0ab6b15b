// @ts-check
// A server's protocol log, under its card in the Servers view: every request the client sent
// (method, URL, headers, body), every status and every message that came back, as the core
// recorded them with secrets already masked (`relay_core::client::wire_log`), newest last;
// Refresh, Clear and Export as JSON. The log lives in the worker's memory: it starts empty when
// the worker starts.
import { h } from './dom.js';
import { t, tn } from './i18n.js';
import { call, errorView, poll } from './core.js';
import { download, fileSafe } from './export.js';

/** Which servers' logs are open, so a rebuilt row keeps its log open. */
const open = new Set();

/**
 * A logged body as people read JSON: indented, one member a line. An event stream's `data:`
 * lines are indented each; text that is not JSON stays as it came.
 * @param {string} text
 */
export function pretty(text) {
  /** @param {string} s */
  const indent = (s) => {
    try {
      return JSON.stringify(JSON.parse(s), null, 2);
    } catch {
      return null;
    }
  };
  const whole = indent(text);
  if (whole !== null) return whole;
  return text.split('\n').map((line) => {
    const m = /^data:\s?(.*)$/.exec(line);
    const body = m ? indent(m[1]) : null;
    return body === null ? line : `data:\n${body}`;
  }).join('\n');
}

/**
 * @param {import('../extension/contract.js').WireEntry} e
 */
function entryView(e) {
  const time = new Date(e.at).toLocaleTimeString();
  const arrow = e.dir === 'out' ? '→' : '←';
  const head = e.kind === 'request'
    ? `${e.method || ''} ${e.url || ''}`
    : e.kind === 'status'
      ? `HTTP ${e.status}${(e.headers || []).length ? ` · ${(e.headers || [])[0][1]}` : ''}`
      : t('wireMessage');
  const headers = e.kind === 'request' && (e.headers || []).length
    ? h('details', { class: 'wire-headers' }, h('summary', { text: tn('wireHeaders', (e.headers || []).length) }),
      h('pre', { class: 'result-json', text: (e.headers || []).map(([k, v]) => `${k}: ${v}`).join('\n') }))
    : null;
  return h('li', { class: `wire-entry wire-${e.dir}`, dataset: { kind: e.kind, dir: e.dir, exchange: String(e.exchange) } },
    h('div', { class: 'wire-head' }, h('span', { class: 'wire-dir', attrs: { 'aria-label': e.dir === 'out' ? t('wireSent') : t('wireReceived') }, text: arrow }), ' ',
      h('small', { class: 'muted', text: time }), ' ', h('code', { class: 'wire-what', text: head })),
    headers,
    e.text ? h('pre', { class: 'result-json wire-text', text: pretty(e.text) }) : null,
    e.cut ? h('small', { class: 'muted', text: t('wireCut', String(e.cut)) }) : null);
}

/**
 * The log of server `id` (named `name`), folded until opened.
 * @param {string} id
 * @param {string} name
 */
export function wireLog(id, name) {
  /** @type {import('../extension/contract.js').WireEntry[]} */
  let entries = [];
  const list = h('ol', { class: 'wire-list', attrs: { 'aria-live': 'off' } });
  const status = h('div', { class: 'wire-status' });
  let signature = '';
  async function refresh() {
    try {
      entries = await call('servers/log', { id });
      status.replaceChildren();
    } catch (e) {
      status.replaceChildren(errorView(e, { compact: true }));
      return;
    }
    const sig = `${entries.length}:${entries.length ? entries[entries.length - 1].at : 0}`;
    if (sig === signature) return;
    signature = sig;
    list.replaceChildren(...(entries.length ? entries.map(entryView) : [h('li', { class: 'empty', text: t('wireEmpty') })]));
  }
  /** @type {(() => void) | null} */
  let stop = null;
  // Only the summary until it is opened: a folded log adds one line to its card.
  const details = h('details', { class: 'wire-log', dataset: { server: id } }, h('summary', { text: t('wireTitle') }));
  const body = () => [
    h('p', { class: 'hint', text: t('wireHint') }),
    h('div', { class: 'actions' },
      h('button', { type: 'button', dataset: { action: 'wire-refresh' }, text: t('wireRefresh'), on: { click: () => refresh() } }),
      h('button', { type: 'button', dataset: { action: 'wire-export' }, text: t('wireExport'), on: { click: async () => {
        await refresh();
        download(`mcp-log-${fileSafe(name)}.json`, JSON.stringify({ server: { id, name }, entries }, null, 2), 'application/json');
      } } }),
      h('button', { type: 'button', dataset: { action: 'wire-clear' }, text: t('wireClear'), on: { click: async () => {
        try {
          await call('servers/log', { id, clear: true });
        } catch (e) {
          status.replaceChildren(errorView(e, { compact: true }));
        }
        signature = '';
        await refresh();
      } } })),
    status, list];
  const toggled = () => {
    if (details.open) {
      if (details.children.length === 1) details.append(...body());
      open.add(id);
      refresh();
      stop ??= poll(refresh, 1000, () => details.isConnected && details.open);
    } else {
      open.delete(id);
      stop?.();
      stop = null;
    }
  };
  details.addEventListener('toggle', toggled);
  details.open = open.has(id);
  return details;
}
