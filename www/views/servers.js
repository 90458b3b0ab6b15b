// @ts-check
// Servers: the configured MCP servers with their live state, and adding, editing, removing,
// enabling, testing, importing (mcpServers JSON) and exporting them; each card folds the
// server's protocol log (www/wire-log.js).
//
// Shapes (crates/relay-core/src/contract.rs): ServerView = {id, name, url, transport, headers:
// [{name, value, secret?}] (values of secret-marked and secret-looking headers masked "••••",
// with secret: true), timeoutMs, enabled, state: {status, protocolVersion?,
// toolCount?, error?, lastLatencyMs?}, auth: null | {signedIn, scope?, expiresAtMs?, refreshable,
// origins}} (never a token).
import { h, field, select, toggle, nextId, copyText } from '../dom.js';
import { t, tn } from '../i18n.js';
import { call, errorView, requestHostPermission, remoteOrigin, poll, touches } from '../core.js';
import { duration } from '../render.js';
import { wireLog } from '../wire-log.js';
import { localSection, localExtras, importLocalPreview } from './local.js';

/** A header value the core masked; sending it back keeps the stored secret. */
export const MASK = '••••';

const TRANSPORTS = ['auto', 'streamable', 'sse'];

/**
 * @param {HTMLElement} section
 * @param {import('../panel.js').App} app
 * @returns {import('../panel.js').ViewController}
 */
export function mountServers(section, app) {
  /** @type {import('../../extension/contract.js').ServerView[]} */
  let servers = [];
  let loaded = false;
  let painted = false;
  const list = h('ul', { class: 'server-list', attrs: { 'aria-label': t('serversTitle') } });
  const status = h('div', { class: 'view-status', attrs: { 'aria-live': 'polite' } });
  const dialog = serverDialog(app, () => refresh());
  // Local servers: the native host's state; its servers join the list below, marked local.
  const local = localSection(() => servers.some((s) => !!s.local));
  const importer = importDialog(app, () => refresh(), local);
  const exporter = exportDialog();

  function build() {
    section.replaceChildren(
      h('div', { class: 'toolbar' },
        h('h2', { text: t('serversTitle') }),
        h('div', { class: 'toolbar-actions' },
          h('button', { type: 'button', class: 'primary', id: 'server-add', text: t('serverAdd'), on: { click: () => dialog.open(null) } }),
          h('button', { type: 'button', id: 'server-import', text: t('serverImport'), on: { click: () => importer.open() } }),
          h('button', { type: 'button', id: 'server-export', text: t('serverExport'), on: { click: () => exporter.open() } }))),
      status, list, local.element, dialog.element, importer.element, exporter.element);
  }

  async function refresh() {
    // The host is asked beside the list, never before it (a native round trip, or Chrome
    // failing to start a host that is not installed); servers it lists that the extension did
    // not know yet are added by that request, and shown by a second look at the list.
    local.refresh().then(() => {
      const known = new Set(servers.map((s) => s.id));
      const added = (local.host()?.servers || []).some((l) => l.serverId && !known.has(l.serverId));
      if (added) refreshList();
      else render();
    });
    await refreshList();
  }

  async function refreshList() {
    try {
      servers = await (app.takePrefetch('servers/list') || call('servers/list'));
      status.replaceChildren();
    } catch (e) {
      status.replaceChildren(errorView(e));
      servers = [];
    }
    loaded = true;
    render();
    if (!painted) {
      // First paint of the list, for the benchmark: marked after the frame that shows it.
      painted = true;
      performance.mark('servers-rendered');
      requestAnimationFrame(() => setTimeout(() => performance.mark('servers-painted'), 0));
    }
  }

  // Rows are rebuilt only when their server changed, so polling never takes the keyboard focus
  // (or an error message) away from a row that stayed the same.
  let rows = new Map(); // id -> {sig, el}
  function render() {
    local.sync();
    if (!servers.length) {
      rows = new Map();
      list.replaceChildren(h('li', { class: 'empty', text: loaded ? t('serversEmpty') : t('loading') }));
      return;
    }
    const next = servers.map((s) => {
      const sig = JSON.stringify(s) + JSON.stringify(s.local ? local.status(s.local) : null);
      const old = rows.get(s.id);
      return old && old.sig === sig ? old : { sig, el: serverItem(s) };
    });
    const current = [...list.children];
    const sameRows = current.length === next.length && servers.every((s, i) => rows.get(s.id) && current[i] === rows.get(s.id).el);
    if (sameRows) next.forEach((r, i) => { if (current[i] !== r.el) current[i].replaceWith(r.el); });
    else list.replaceChildren(...next.map((r) => r.el));
    rows = new Map(servers.map((s, i) => [s.id, next[i]]));
  }

  /** @param {import('../../extension/contract.js').ServerView} s */
  function serverItem(s) {
    /** @type {Partial<import('../../extension/contract.js').ServerState>} */
    const st = s.state || {};
    const statusName = s.enabled === false ? 'disabled' : st.status || 'idle';
    // `connecting`: the action opens a connection; the row says so until the core answers
    // (the core reports a server's state when it is done, not while it is connecting).
    /**
     * A click handler that runs `fn` with its button disabled, then shows the server again.
     * @param {() => Promise<unknown>} fn
     * @param {{connecting?: boolean}} [options]
     */
    const busy = (fn, { connecting = false } = {}) => async (/** @type {Event} */ ev) => {
      const btn = /** @type {HTMLButtonElement} */ (ev.currentTarget);
      btn.disabled = true;
      btn.setAttribute('aria-busy', 'true');
      const row = btn.closest('li');
      if (connecting && row) {
        row.dataset.status = 'connecting';
        const badge = row.querySelector('.server-head .badge');
        if (badge) {
          badge.className = 'badge status-connecting';
          badge.textContent = t('status_connecting');
        }
      }
      try {
        await fn();
        rows.delete(s.id); // rebuild the row even if the server did not change
        await refresh();
      } catch (e) {
        rows.delete(s.id);
        await refresh();
        const li = list.querySelector(`li[data-id="${CSS.escape(s.id)}"]`) || row;
        li?.querySelector('.row-error')?.replaceChildren(errorView(e));
      }
    };
    const detail = [];
    const info = st.info || {};
    const protocol = info.protocolVersion;
    if (st.status === 'connected') {
      detail.push(h('span', { text: tn('serverConnected', st.toolCount ?? 0, protocol || '?', st.toolCount ?? 0) }));
      const impl = info.serverInfo;
      if (impl && impl.name) detail.push(h('span', { class: 'server-impl', text: t('serverReports', [impl.name, impl.version].filter(Boolean).join(' ')) }));
    }
    if (typeof st.lastLatencyMs === 'number') detail.push(h('span', { class: 'latency', text: t('serverLatency', duration(st.lastLatencyMs)) }));
    // MCP authorization: whether the user is signed in, never a token (the core keeps those).
    const auth = s.auth || null;
    if (auth && auth.signedIn) {
      detail.push(h('span', { class: 'server-auth', text: t('serverSignedIn') }));
      if (auth.scope) detail.push(h('span', { class: 'server-scope', text: t('serverScopes', auth.scope) }));
      if (typeof auth.expiresAtMs === 'number') {
        const at = new Date(auth.expiresAtMs).toLocaleString();
        detail.push(h('span', { class: 'server-expiry', text: auth.refreshable ? `${t('serverExpires', at)} (${t('serverRenews')})` : t('serverExpires', at) }));
      }
    }
    const refused = st.status === 'failed' && st.error && st.error.kind === 'auth';
    const signIn = (refused || (auth && !auth.signedIn)) && s.enabled !== false
      ? h('button', { type: 'button', class: 'primary', dataset: { action: 'sign-in' }, text: t('serverSignIn'), on: { click: busy(() => {
        // Host permission for where signing in fetches from, asked now (Chrome allows it only
        // in a click). Refused or not, the sign-in runs: a server that needs it says so.
        const asked = requestHostPermission([s.url, ...((auth && auth.origins) || [])]);
        return asked.then(() => call('servers/signIn', { id: s.id }));
      }, { connecting: true }) } })
      : null;
    const signOut = auth && auth.signedIn
      ? h('button', { type: 'button', dataset: { action: 'sign-out' }, text: t('serverSignOut'), on: { click: busy(() => call('servers/signOut', { id: s.id })) } })
      : null;
    const removeArea = h('div', { class: 'confirm', hidden: true });
    const removeBtn = h('button', { type: 'button', class: 'danger', dataset: { action: 'remove' }, text: t('serverRemove'), on: { click: () => { removeArea.hidden = false; removeBtn.hidden = true; removeArea.querySelector('button')?.focus(); } } });
    removeArea.append(
      h('span', { text: t('serverRemoveConfirm', s.name || s.id) }),
      h('button', { type: 'button', class: 'danger', dataset: { action: 'remove-confirm' }, text: t('serverRemove'), on: { click: busy(() => call('servers/remove', { id: s.id })) } }),
      h('button', { type: 'button', text: t('cancel'), on: { click: () => { removeArea.hidden = true; removeBtn.hidden = false; removeBtn.focus(); } } }));
    return h('li', { class: 'server card', dataset: { id: s.id, status: statusName } },
      h('div', { class: 'server-head' },
        h('h3', { text: s.name || s.id }),
        h('span', { class: `badge status-${statusName}`, text: t('status_' + statusName) })),
      s.local
        ? localExtras(s.local, local.status(s.local), refresh)
        : h('p', { class: 'server-url' }, h('code', { text: s.url }), h('small', { text: ` · ${s.transport || 'auto'}` })),
      detail.length ? h('p', { class: 'server-detail' }, detail) : null,
      st.status === 'failed' && st.error ? errorView(st.error) : null,
      h('div', { class: 'row-error' }),
      h('div', { class: 'actions' },
        toggle(t('serverEnabled'), s.enabled !== false, async (on, input) => {
          input.disabled = true;
          try {
            // An update carries the whole server; masked header values keep their secrets.
            const { id, name, url, transport, headers, timeoutMs } = s;
            await call('servers/update', { server: { id, name, url, transport, headers, timeoutMs, enabled: on } });
          } catch (e) {
            list.querySelector(`li[data-id="${CSS.escape(s.id)}"] .row-error`)?.replaceChildren(errorView(e));
          }
          await refresh();
        }),
        signIn, signOut,
        h('button', { type: 'button', dataset: { action: 'test' }, text: t('serverTest'), on: { click: busy(() => call('servers/test', { id: s.id }), { connecting: true }) } }),
        h('button', { type: 'button', dataset: { action: 'refresh' }, text: t('serverRefresh'), on: { click: busy(() => call('tools/list', { serverId: s.id, refresh: true }), { connecting: true }) } }),
        h('button', { type: 'button', dataset: { action: 'edit' }, text: t('serverEdit'), on: { click: () => dialog.open(s) } }),
        // A local server is the host's: it leaves the list when the host's list drops it.
        s.local ? h('small', { class: 'hint local-remove', text: t('localRemoveHint', s.local) }) : removeBtn),
      removeArea,
      wireLog(s.id, s.name || s.id));
  }

  build();
  render();
  // Connection state lives in the worker's memory, not in storage: a change made elsewhere (a
  // second panel, an import) is announced by a storage change before the server has connected.
  // So after any change, ask again once a second for a while, until every enabled server has
  // settled (connected or failed) or SETTLE_MS have passed.
  const SETTLE_MS = 15_000;
  let settleUntil = 0;
  const unsettled = () => servers.some((s) => s.enabled !== false && !['connected', 'failed'].includes((s.state && s.state.status) || ''));
  /** @type {(() => void) | null} */
  let stopPoll = null;
  return {
    async show() {
      settleUntil = Date.now() + SETTLE_MS;
      await refresh();
      stopPoll ??= poll(refresh, 1000, () => app.visible('servers') && Date.now() < settleUntil && unsettled());
    },
    hide() {
      stopPoll?.();
      stopPoll = null;
    },
    changed(changes) {
      if (touches(changes, ['config', 'tools'])) {
        settleUntil = Date.now() + SETTLE_MS;
        refresh();
      }
    },
    relocalize() {
      rows = new Map();
      build();
      render();
    },
  };
}

/** The add/edit dialog. `open(null)` adds, `open(serverView)` edits. */
/**
 * @param {import('../panel.js').App} app
 * @param {() => void} done called after a successful save
 */
function serverDialog(app, done) {
  const title = h('h2', { id: nextId('dlg') });
  const name = h('input', { type: 'text', name: 'name', required: true, autocomplete: 'off' });
  // Checked by the panel, not the browser: the browser's own bubbles ("Please enter a URL.")
  // follow its language, not the panel's, and never say how to write an address.
  const url = h('input', { type: 'text', name: 'url', inputMode: 'url', placeholder: 'http://127.0.0.1:3001/mcp', autocomplete: 'off', spellcheck: false });
  const transport = select(TRANSPORTS.map((v) => [v, t('transport_' + v)]), 'auto', { name: 'transport' });
  const timeout = h('input', { type: 'number', name: 'timeout', min: '1', max: '600', step: '1', value: '30' });
  const enabled = h('input', { type: 'checkbox', name: 'enabled', checked: true, attrs: { role: 'switch' }, id: nextId('en') });
  const headers = h('div', { class: 'header-rows' });
  const error = h('div', { class: 'form-error', attrs: { 'aria-live': 'assertive' } });
  const save = h('button', { type: 'submit', class: 'primary', text: t('save') });
  /** @type {import('../../extension/contract.js').ServerView | null} */
  let editing = null;

  /**
   * One header row: name, value, Show, a "secret" switch and remove. A secret header's value is
   * masked by the core in every answer from then on (so are values of secret-looking names).
   * @param {string} [hName]
   * @param {string} [hValue]
   * @param {boolean} [hSecret]
   */
  function headerRow(hName = '', hValue = '', hSecret = false) {
    const n = h('input', { type: 'text', value: hName, placeholder: 'Authorization', class: 'header-name', attrs: { 'aria-label': t('headerName') }, spellcheck: false });
    const v = h('input', { type: 'password', value: hValue, placeholder: 'Bearer …', class: 'header-value', attrs: { 'aria-label': t('headerValue') }, autocomplete: 'off', spellcheck: false });
    const show = h('button', { type: 'button', class: 'icon', text: t('headerShow'), attrs: { 'aria-pressed': 'false' } });
    show.addEventListener('click', () => {
      const on = v.type === 'password';
      v.type = on ? 'text' : 'password';
      show.setAttribute('aria-pressed', String(on));
    });
    if (hValue === MASK) {
      // The core never sends a stored secret back; revealing the mask would show nothing.
      show.hidden = true;
      v.title = t('headerMasked');
    }
    const secret = h('input', { type: 'checkbox', class: 'header-secret', checked: hSecret || hValue === MASK });
    const secretLabel = () => secret.setAttribute('aria-label', t('headerSecretLabel', n.value.trim() || t('headerName')));
    secretLabel();
    n.addEventListener('input', secretLabel);
    const row = h('div', { class: 'header-row' }, n, v, show,
      h('label', { class: 'header-secret-label', title: t('headerSecretLabel', n.value.trim() || t('headerName')) }, secret, h('span', { text: t('headerSecret') })),
      h('button', { type: 'button', class: 'icon', text: '×', attrs: { 'aria-label': t('headerRemove') }, on: { click: () => row.remove() } }));
    headers.append(row);
    return row;
  }

  /** Each checked field with its message slot. @type {[HTMLInputElement, HTMLElement][]} */
  const checked = [name, url, timeout].map((input) => [input, h('small', { class: 'field-error', id: nextId('e'), attrs: { role: 'alert' } })]);
  /** @param {HTMLInputElement} input */
  const slot = (input) => /** @type {HTMLElement} */ ((checked.find(([i]) => i === input) || [])[1]);
  /** @param {HTMLElement} wrap @param {HTMLInputElement} input */
  const withError = (wrap, input) => { wrap.append(slot(input)); return wrap; };
  /**
   * What is wrong with a field's value, in the panel's language, or ''.
   * @param {HTMLInputElement} input
   */
  function problem(input) {
    const v = input.value.trim();
    if (input === name) return v ? '' : t('formRequired');
    if (input === url) {
      if (!v) return t('formRequired');
      if (!/^https?:\/\//i.test(v)) return t('errCause_url_scheme');
      try {
        new URL(v);
      } catch {
        return t('errCause_url_invalid');
      }
      return '';
    }
    const n = Number(v || 30);
    return Number.isInteger(n) && n >= 1 && n <= 600 ? '' : t('serverTimeoutRange');
  }
  /** Marks every field that does not fit; true when all fit. Focuses the first that does not. */
  function validate() {
    let first = null;
    for (const [input, message] of checked) {
      const text = problem(input);
      message.textContent = text;
      if (text) {
        input.setAttribute('aria-invalid', 'true');
        input.setAttribute('aria-errormessage', message.id);
        first ??= input;
      } else {
        input.removeAttribute('aria-invalid');
      }
    }
    first?.focus();
    return !first;
  }
  const form = h('form', { method: 'dialog', class: 'stack', noValidate: true },
    title,
    withError(field(t('serverName'), name, { required: true }), name),
    withError(field(t('serverUrl'), url, { required: true, hint: t('serverUrlHint') }), url),
    field(t('serverTransport'), transport),
    withError(field(t('serverTimeout'), timeout), timeout),
    h('label', { class: 'switch', htmlFor: enabled.id }, enabled, h('span', { text: t('serverEnabled') })),
    h('fieldset', {},
      h('legend', { text: t('serverHeaders') }),
      h('small', { class: 'hint', text: t('serverHeadersHint') }),
      headers,
      h('button', { type: 'button', text: t('headerAdd'), on: { click: () => headerRow().querySelector('input')?.focus() } })),
    error,
    h('div', { class: 'actions end' },
      h('button', { type: 'button', text: t('cancel'), on: { click: () => element.close() } }),
      save));
  const element = h('dialog', { class: 'server-dialog', attrs: { 'aria-labelledby': title.id } }, form);

  form.addEventListener('submit', (ev) => {
    ev.preventDefault();
    error.replaceChildren();
    /** @type {import('../../extension/contract.js').ServerInput} */
    const server = {
      name: name.value.trim(),
      url: url.value.trim(),
      transport: /** @type {import('../../extension/contract.js').TransportKind} */ (transport.value),
      timeoutMs: Math.round(Number(timeout.value || 30) * 1000),
      enabled: enabled.checked,
      headers: [...headers.querySelectorAll('.header-row')]
        .map((r) => ({
          name: /** @type {HTMLInputElement} */ (r.querySelector('.header-name')).value.trim(),
          value: /** @type {HTMLInputElement} */ (r.querySelector('.header-value')).value,
          secret: /** @type {HTMLInputElement} */ (r.querySelector('.header-secret')).checked,
        }))
        .filter((x) => x.name),
    };
    if (!validate()) return;
    // The permission prompt needs the click's user gesture: ask before anything is awaited.
    const granted = requestHostPermission([server.url]);
    save.disabled = true;
    (async () => {
      try {
        if (!(await granted)) {
          error.replaceChildren(errorView({ kind: 'permission', message: t('permDenied', String(remoteOrigin(server.url))), hint: t('permDeniedHint') }));
          return;
        }
        // The core connects and lists tools as part of adding or updating a server, so the
        // answer already carries the live state.
        if (editing) await call('servers/update', { server: { ...server, id: editing.id } });
        else await call('servers/add', { server });
        element.close();
        done();
      } catch (e) {
        error.replaceChildren(errorView(e));
      } finally {
        save.disabled = false;
      }
    })();
  });

  return {
    element,
    /** @param {import('../../extension/contract.js').ServerView | null} s */
    open(s) {
      editing = s;
      title.textContent = s ? t('serverEditTitle', s.name || s.id) : t('serverAddTitle');
      name.value = s ? s.name || '' : '';
      url.value = s ? s.url || '' : '';
      transport.value = s ? s.transport || 'auto' : 'auto';
      timeout.value = String(Math.round((s && s.timeoutMs ? s.timeoutMs : 30_000) / 1000));
      enabled.checked = s ? s.enabled !== false : true;
      headers.replaceChildren();
      for (const hd of (s && s.headers) || []) headerRow(hd.name, hd.value, hd.secret === true);
      error.replaceChildren();
      for (const [input, message] of checked) {
        message.textContent = '';
        input.removeAttribute('aria-invalid');
      }
      element.showModal();
      name.focus();
    },
  };
}

/** Paste an mcpServers JSON, preview what will and will not be added, then add. */
/**
 * @param {import('../panel.js').App} app
 * @param {() => void} done called after the servers were added
 * @param {ReturnType<typeof localSection>} local the host's section (stdio entries go there)
 */
function importDialog(app, done, local) {
  const title = h('h2', { id: nextId('dlg'), text: t('importTitle') });
  const text = h('textarea', { rows: 8, class: 'mono', spellcheck: false, placeholder: '{"mcpServers": {"name": {"url": "http://127.0.0.1:3001/mcp"}}}' });
  const preview = h('div', { class: 'import-preview', attrs: { 'aria-live': 'polite' } });
  const apply = h('button', { type: 'button', class: 'primary', disabled: true, text: t('importApply', 0) });
  /** @type {import('../../extension/contract.js').ImportAnswer | null} */
  let report = null;
  /** @type {import('../../extension/contract.js').LocalPlanView | null} */
  let plan = null;
  const toHost = () => (plan && local.host()?.installed ? plan.servers : []);

  async function doPreview() {
    report = null;
    apply.disabled = true;
    apply.textContent = t('importApply', 0);
    try {
      report = await call('servers/import', { json: text.value, apply: false });
      plan = await call('local/plan', { json: text.value });
      await local.refresh();
    } catch (e) {
      preview.replaceChildren(errorView(e));
      return;
    }
    const add = report.servers || [];
    // stdio entries are the local host's: shown with their command below, not as skipped.
    const stdio = new Set((plan ? plan.servers : []).map((s) => s.name));
    const skipped = [...(report.skipped || []).filter((s) => !stdio.has(s.name)), ...(plan ? plan.skipped : [])];
    // replaceChildren(null) would show the text "null": absent parts are left out.
    /** @param {(HTMLElement | null)[]} els */
    const present = (els) => els.filter((el) => el !== null);
    preview.replaceChildren(...present([
      h('h3', { text: t('importWillAdd', add.length) }),
      add.length
        ? h('ul', { class: 'import-add' }, add.map((s) => h('li', {}, h('strong', { text: s.name }), ' ', h('code', { text: s.url }),
          remoteOrigin(s.url) ? h('small', { class: 'hint', text: ` ${t('importNeedsPermission')}` }) : null)))
        : null,
      importLocalPreview(plan, local.host()),
      skipped.length ? h('h3', { text: t('importSkipped', skipped.length) }) : null,
      skipped.length ? h('ul', { class: 'import-skipped' }, skipped.map((s) => h('li', {}, h('strong', { text: s.name }), ': ', h('span', { text: skipText(s), title: s.reason })))) : null]));
    apply.disabled = add.length + toHost().length === 0;
    apply.textContent = t('importApply', add.length + toHost().length);
  }

  apply.addEventListener('click', () => {
    if (!report) return;
    const granted = requestHostPermission((report.servers || []).map((s) => s.url));
    apply.disabled = true;
    (async () => {
      try {
        if (!(await granted)) {
          preview.append(errorView({ kind: 'permission', message: t('permDeniedImport'), hint: t('permDeniedHint') }));
          return;
        }
        if ((report.servers || []).length) await call('servers/import', { json: text.value, apply: true });
        // One confirmation here; the host then shows the commands once more in its own dialog.
        const proposed = toHost();
        if (proposed.length) await call('local/propose', { servers: proposed });
        element.close();
        done();
      } catch (e) {
        preview.append(errorView(e));
      } finally {
        apply.disabled = false;
      }
    })();
  });

  const element = h('dialog', { class: 'import-dialog', attrs: { 'aria-labelledby': title.id } },
    h('div', { class: 'stack' },
      title,
      field(t('importPaste'), text, { hint: t('importHint') }),
      h('div', { class: 'actions' }, h('button', { type: 'button', id: 'import-preview', text: t('importPreview'), on: { click: doPreview } })),
      preview,
      h('div', { class: 'actions end' }, h('button', { type: 'button', text: t('cancel'), on: { click: () => element.close() } }), apply)));
  return {
    element,
    open() {
      text.value = '';
      report = null;
      plan = null;
      preview.replaceChildren();
      apply.disabled = true;
      apply.textContent = t('importApply', 0);
      element.showModal();
      text.focus();
    },
  };
}

/** Shows the exported mcpServers JSON (no secrets), with Copy and Download. */
function exportDialog() {
  const title = h('h2', { id: nextId('dlg'), text: t('exportTitle') });
  const out = h('textarea', { rows: 10, class: 'mono', readOnly: true, spellcheck: false, attrs: { 'aria-labelledby': title.id } });
  const note = h('p', { class: 'hint', attrs: { 'aria-live': 'polite' } });
  const element = h('dialog', { class: 'export-dialog', attrs: { 'aria-labelledby': title.id } },
    h('div', { class: 'stack' },
      title,
      h('p', { class: 'hint', text: t('exportHint') }),
      out, note,
      h('div', { class: 'actions end' },
        h('button', { type: 'button', text: t('copy'), on: { click: async () => { note.textContent = (await copyText(out.value)) ? t('copied') : t('copyFailed'); } } }),
        h('button', { type: 'button', text: t('download'), on: { click: () => {
          const a = h('a', { href: URL.createObjectURL(new Blob([out.value], { type: 'application/json' })), download: 'mcp-servers.json' });
          a.click();
          setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
        } } }),
        h('button', { type: 'button', class: 'primary', text: t('close'), on: { click: () => element.close() } }))));
  return {
    element,
    async open() {
      out.value = '';
      note.replaceChildren();
      element.showModal();
      try {
        out.value = JSON.stringify(await call('servers/export'), null, 2);
        out.select();
      } catch (e) {
        note.replaceChildren(errorView(e));
      }
    },
  };
}

/**
 * Why an imported entry was skipped, in the panel's language (`importSkip_<why>` with its
 * detail); the core's English reason when the locale has no text for it.
 * @param {{why?: string, detail?: string, reason: string}} s
 */
function skipText(s) {
  if (!s.why || !/^[a-z_]+$/.test(s.why)) return s.reason;
  const text = t('importSkip_' + s.why, s.detail || '');
  return text && text !== 'importSkip_' + s.why ? text : s.reason;
}
