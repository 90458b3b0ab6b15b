// @ts-check
// Renders what servers send back (tool results, resources, call records) as inert DOM.
// Server data is untrusted: text goes into text nodes; an image is shown only when its MIME type
// is image/* and its payload is base64, through a data: URL on an <img> (which never runs
// script); links are made only for http(s) URLs.
import { h, json, nextId } from './dom.js';
import { t, tn } from './i18n.js';
import { errorView } from './core.js';

const IMAGE_MIME = /^image\/[a-z0-9.+-]+$/i;
const AUDIO_MIME = /^audio\/[a-z0-9.+-]+$/i;
const BASE64 = /^[A-Za-z0-9+/]*={0,2}$/;

// Server payloads are untrusted JSON of any shape: they are typed `any` and checked at run time.

/**
 * @param {string} mime
 * @param {unknown} data
 */
function dataUrl(mime, data) {
  const clean = String(data || '').replace(/\s+/g, '');
  return BASE64.test(clean) ? `data:${mime};base64,${clean}` : null;
}

/**
 * Byte size of a base64 payload, for placeholders.
 * @param {unknown} data
 */
function base64Bytes(data) {
  const s = String(data || '').replace(/\s+/g, '');
  return Math.floor((s.length * 3) / 4) - (s.endsWith('==') ? 2 : s.endsWith('=') ? 1 : 0);
}

/**
 * @param {string} uri
 * @param {string} [label]
 */
function safeLink(uri, label) {
  /** @type {URL | null} */
  let url = null;
  try {
    url = new URL(uri);
  } catch {
    // not a URL: shown as text
  }
  if (url && (url.protocol === 'https:' || url.protocol === 'http:')) {
    return h('a', { href: url.href, target: '_blank', rel: 'noopener noreferrer', text: label || uri });
  }
  return h('code', { text: label || uri });
}

/**
 * @param {string | undefined} mime
 * @param {unknown} data
 */
function image(mime, data) {
  const src = mime && IMAGE_MIME.test(mime) ? dataUrl(mime, data) : null;
  if (!src) return h('p', { class: 'placeholder', text: t('resultBinary', mime || '?', base64Bytes(data)) });
  return h('img', { class: 'result-image', src, alt: t('resultImageAlt', String(mime)) });
}

/**
 * @param {string | undefined} mime
 * @param {unknown} data
 */
function audio(mime, data) {
  const src = mime && AUDIO_MIME.test(mime) ? dataUrl(mime, data) : null;
  if (!src) return h('p', { class: 'placeholder', text: t('resultBinary', mime || '?', base64Bytes(data)) });
  return h('audio', { controls: true, src, attrs: { 'aria-label': t('resultAudio', String(mime)) } });
}

/**
 * One embedded resource's contents (`{uri, mimeType?, text? | blob?}`).
 * @param {any} r
 */
export function resourceContents(r) {
  const head = h('p', { class: 'resource-head' }, t('resultResource'), ' ', safeLink(String(r.uri ?? '')), r.mimeType ? h('small', { text: ` ${r.mimeType}` }) : null);
  let body;
  if (typeof r.text === 'string') body = h('pre', { class: 'result-text', text: r.text });
  else if (typeof r.blob === 'string') body = IMAGE_MIME.test(r.mimeType || '') ? image(r.mimeType, r.blob) : h('p', { class: 'placeholder', text: t('resultBinary', r.mimeType || '?', base64Bytes(r.blob)) });
  return h('div', { class: 'result-resource' }, head, body);
}

/**
 * One MCP content block.
 * @param {any} c
 */
export function contentBlock(c) {
  switch (c && c.type) {
    case 'text': return h('pre', { class: 'result-text', text: String(c.text ?? '') });
    case 'image': return image(c.mimeType, c.data);
    case 'audio': return audio(c.mimeType, c.data);
    case 'resource': return resourceContents(c.resource || {});
    case 'resource_link':
      return h('p', { class: 'result-link' }, t('resultLink'), ' ', safeLink(String(c.uri ?? ''), String(c.name || c.uri || '')),
        c.description ? h('small', { text: ` ${c.description}` }) : null);
    default: return h('pre', { class: 'result-json', text: json(c) });
  }
}

/**
 * An MCP CallToolResult: content blocks, structured content, and the tool-error flag.
 * @param {any} result
 */
export function toolResult(result) {
  if (result === null || result === undefined) return null;
  if (typeof result !== 'object' || !Array.isArray(result.content)) return h('pre', { class: 'result-json', text: json(result) });
  return h('div', { class: 'result' + (result.isError ? ' is-error' : '') },
    result.isError ? h('p', { class: 'badge bad', text: t('resultToolError') }) : null,
    result.content.map(contentBlock),
    result.structuredContent !== undefined
      ? h('details', { class: 'structured' }, h('summary', { text: t('resultStructured') }), h('pre', { class: 'result-json', text: json(result.structuredContent) }))
      : null);
}

/**
 * A call's error: the core's `{kind, message, hint, ...}` (shown as every error of the panel
 * is, `errorView`) or a JSON-RPC `{code, message, data}`.
 * @param {any} error
 */
export function callError(error) {
  if (!error) return null;
  if (typeof error !== 'object') return h('div', { class: 'error', attrs: { role: 'alert' } }, h('p', { class: 'error-message', text: String(error) }));
  if (error.code === undefined) return errorView(error);
  return h('div', { class: 'error', dataset: { kind: 'rpc' } },
    h('p', { class: 'error-message', text: String(error.message ?? json(error)) }),
    h('details', { class: 'error-details' }, h('summary', { text: t('errDetails') }),
      h('p', { class: 'error-kind' }, t('errCode'), ' ', h('code', { text: `JSON-RPC ${error.code}` })),
      error.data !== undefined ? h('pre', { class: 'result-json', text: json(error.data) }) : null));
}

/**
 * A duration for people: "230 ms", "1.4 s".
 * @param {unknown} ms
 */
export function duration(ms) {
  if (typeof ms !== 'number') return '';
  return ms < 1000 ? t('durationMs', Math.round(ms)) : t('durationS', (ms / 1000).toFixed(1));
}

/**
 * Whether a call ended by a Cancel (the user's, or its server's removal): the ledger says
 * failed, a person reads "Cancelled".
 * @param {CallShown} record
 */
export function isCancelled(record) {
  const error = /** @type {any} */ (record.error);
  return record.state === 'failed' && !!error && typeof error === 'object' && error.kind === 'cancelled';
}

/** @type {Record<string, string>} */
const STATE_MARK = { pending: '?', running: '…', done: '✓', failed: '✗', unknown: '?', denied: '⊘', limited: '⊘' };

/**
 * The one-character mark of a call in the tool chain ("weather_search ✓").
 * @param {CallShown} record
 */
export function stateMark(record) {
  if (record.state === 'done' && record.result && record.result.isError) return '✗';
  if (record.state === 'done' && record.unattached) return '⚠';
  if (isCancelled(record)) return '⊘';
  return STATE_MARK[record.state] || '·';
}

/**
 * A call's progress: a bar when the server said the total, and the message and count.
 * @param {any} p a progress notification's params
 */
export function progressView(p) {
  if (p === null || p === undefined) return null;
  if (typeof p !== 'object') return h('p', { class: 'progress', text: String(p) });
  const value = Number(p.progress);
  const total = Number(p.total);
  return h('div', { class: 'progress' },
    Number.isFinite(value) && Number.isFinite(total) && total > 0
      ? h('progress', { value, max: total, attrs: { 'aria-label': t('callProgress') } })
      : null,
    h('small', { text: [p.message, Number.isFinite(value) ? (Number.isFinite(total) ? `${value}/${total}` : String(value)) : ''].filter(Boolean).join(' · ') }));
}

/**
 * What of a call's result the page left out, as the core recorded it: "1 image not attached".
 * @param {import('../extension/contract.js').Unattached} u
 */
function unattachedCount(u) {
  return tn(u.images ? 'callUnattachedImages' : 'callUnattachedFiles', Number(u.count) || 0);
}

/**
 * The note under a call whose files the page did not take: how many, why, and that the chat
 * was told.
 * @param {import('../extension/contract.js').Unattached} u
 */
function unattachedNote(u) {
  const why = t(u.reason === 'no_target' ? 'attachFailure_no_target' : 'attachFailure_not_shown');
  return h('p', { class: 'notice warn', dataset: { unattached: String(u.reason) }, attrs: { role: 'status' }, text: t('callUnattachedWhy', unattachedCount(u), why) });
}

/**
 * The mark of a pending call its server declares destructive, beside Run and Always allow,
 * with the sentence that says what it means (the buttons point to it for screen readers).
 * @returns {{mark: HTMLElement, why: HTMLElement, id: string}}
 */
function destructiveMark() {
  const id = nextId('destructive-why');
  return {
    id,
    mark: h('span', { class: 'badge bad', dataset: { destructive: 'true' }, text: t('callDestructive') }),
    why: h('p', { class: 'notice call-destructive', attrs: { id }, text: t('callDestructiveWhy') }),
  };
}

/**
 * A call: a record of the ledger, or how a run by hand ended (`ManualRun`, which has no key and
 * never waits). `onDecide(decision)` is called for the buttons of pending calls and the explicit
 * re-run of an unknown one.
 * @typedef {Partial<import('../extension/contract.js').CallRecord> & Pick<import('../extension/contract.js').CallRecord, 'tool' | 'state'>} CallShown
 */
/**
 * @param {CallShown} record
 * @param {{onDecide?: (decision: import('../extension/contract.js').UserDecision) => void, onCancel?: () => void, onOpenApp?: () => void, serverName?: string}} [options]
 *   onCancel: a running call shows Cancel (the core aborts it and tells the server);
 *   onOpenApp: a finished call of a tool with an interface shows Open app;
 *   serverName: the server as the user named it (its id is internal: never shown)
 */
export function callView(record, { onDecide, onCancel, onOpenApp, serverName = '' } = {}) {
  const state = String(record.state || 'unknown');
  // The user's own Cancel ends a call as failed in the ledger, but it is no failure to them.
  const cancelled = isCancelled(record);
  const buttons = [];
  if (onCancel && state === 'running') {
    buttons.push(h('button', { type: 'button', class: 'danger', text: t('callCancel'), dataset: { action: 'cancel' }, on: { click: (/** @type {Event} */ ev) => {
      /** @type {HTMLButtonElement} */ (ev.currentTarget).disabled = true;
      onCancel();
    } } }));
  }
  // A tool its server marks destructive is approved here only: the mark sits beside Run and
  // Always allow, and those buttons are described by the sentence that explains it.
  const destructive = onDecide && state === 'pending' && record.destructive === true ? destructiveMark() : null;
  const described = destructive ? { 'aria-describedby': destructive.id } : {};
  if (onDecide && state === 'pending') {
    if (destructive) buttons.push(destructive.mark);
    buttons.push(
      h('button', { type: 'button', class: 'primary', text: t('callRun'), dataset: { decision: 'run' }, attrs: described, on: { click: () => onDecide('run') } }),
      h('button', { type: 'button', text: t('callDeny'), dataset: { decision: 'deny' }, on: { click: () => onDecide('deny') } }),
      h('button', { type: 'button', text: t('callAlways'), dataset: { decision: 'always' }, attrs: described, on: { click: () => onDecide('always') } }));
  }
  // A tool with an interface (MCP App): its app opens in the panel once the call has a result.
  if (onOpenApp && record.hasApp && (state === 'done' || state === 'failed') && record.result) {
    buttons.push(h('button', { type: 'button', class: 'primary', dataset: { action: 'open-app' }, text: t('appOpen'), attrs: { title: t('appOpenHint') }, on: { click: () => onOpenApp() } }));
  }
  if (onDecide && state === 'unknown') {
    buttons.push(h('button', { type: 'button', text: t('callRerun'), dataset: { decision: 'run' }, on: { click: () => onDecide('run') } }));
  }
  const hasArgs = record.arguments && typeof record.arguments === 'object' && Object.keys(record.arguments).length > 0;
  // Short arguments read best inline; long ones fold away.
  const compact = hasArgs ? JSON.stringify(record.arguments) : '';
  const inlineArgs = hasArgs && compact.length <= 60;
  return h('article', { class: 'call', dataset: { state, key: String(record.key ?? '') }, attrs: { 'aria-label': `${record.tool} ${t('state_' + state)}` } },
    h('header', { class: 'call-head' },
      h('span', { class: 'call-mark', attrs: { 'aria-hidden': 'true' }, text: stateMark(record) }),
      h('strong', { class: 'call-tool', text: String(record.tool ?? '') }),
      serverName ? h('small', { class: 'call-server', text: serverName }) : null,
      record.unattached && state === 'done' && !record.unsent
        // Delivered without its files: a warning, never a plain Done.
        ? h('span', { class: 'badge state-unattached', text: `⚠ ${unattachedCount(record.unattached)}` })
        : h('span', { class: `badge state-${record.unsent ? 'unsent' : cancelled ? 'cancelled' : state}`, text: record.unsent ? t('state_unsent') : cancelled ? t('callCancelled') : t('state_' + state) }),
      record.durationMs !== undefined ? h('small', { class: 'call-duration', text: duration(record.durationMs) }) : null),
    state === 'unknown' ? h('p', { class: 'notice', text: t('callUnknownExplain') }) : null,
    record.byApp ? h('p', { class: 'call-by-app', dataset: { byApp: String(record.byApp) }, text: t('callByApp', String(record.byApp)) }) : null,
    // A call its server answered with a task: it outlives the worker, and the user may wonder
    // why a call keeps running after the browser was busy.
    record.task ? h('p', { class: 'call-task', dataset: { task: String(record.task.id ?? '') }, text: t(state === 'running' ? 'callTaskRunning' : 'callTaskDone') }) : null,
    // The result sits in the chat's input: the user has to press Send there.
    record.unsent ? h('p', { class: 'notice', dataset: { unsent: 'true' }, text: t('resultNotSent') }) : null,
    record.deliveryNote ? h('p', { class: 'error-message', text: String(record.deliveryNote) }) : null,
    record.unattached ? unattachedNote(record.unattached) : null,
    // Why a call waits (the core says): an allowed tool in a chat with auto-run off, or a tool
    // that asks every time.
    state === 'pending' && record.wait ? h('p', { class: 'notice call-wait', dataset: { wait: String(record.wait) }, text: t(record.wait === 'auto_run_off' ? 'callWaitAutoRunOff' : 'callWaitPolicyAsk') }) : null,
    inlineArgs ? h('p', { class: 'call-args' }, h('code', { text: compact, attrs: { 'aria-label': t('callArguments') } })) : null,
    hasArgs && !inlineArgs
      ? h('details', { class: 'call-args' }, h('summary', { text: t('callArguments') }), h('pre', { class: 'result-json', text: json(record.arguments) }))
      : null,
    progressView(record.progress),
    toolResult(record.result),
    // The ledger keeps a preview of a large result; the full one is in local storage until
    // the chat's bound prunes it (the core says which).
    record.resultSize ? h('p', { class: 'notice', dataset: { preview: 'true' }, text: t('resultPreview', record.resultSize) }) : null,
    record.resultPruned ? h('p', { class: 'notice', dataset: { pruned: 'true' }, text: t('resultPruned') }) : null,
    cancelled ? null : callError(record.error),
    destructive ? destructive.why : null,
    buttons.length ? h('div', { class: 'actions' }, buttons) : null);
}
