// @ts-check
// Tools: every tool of every server, grouped by server and searchable, with its description and
// parameters, its policy (allow / ask / deny) and enabled switch, bulk settings per server, and a
// form generated from its input schema to run it by hand (or all arguments as one JSON object,
// checked as typed), with the run's progress and a Cancel while it runs; and each server's
// skills (SEP-2640: name and description, as listed; loaded from This chat).
//
// ToolView = MCP Tool + {serverId, policy: allow|ask|deny, enabled, revision, readOnly, allowedBy?,
// changed} (crates/relay-core/src/contract/views.rs). "Allow read-only tools" first shows which
// tools it covers and why, and sends back exactly those (name and revision): the core allows
// them as they were shown, and a tool that changes or appears later asks again.
import { h, select, nextId, json } from '../dom.js';
import { t, tn } from '../i18n.js';
import { call, describeError, errorText, errorView, poll, touches, withCode } from '../core.js';
import { schemaForm, editType, resolve } from '../schema-form.js';
import { callView, progressView } from '../render.js';

const POLICIES = ['allow', 'ask', 'deny'];

/** @param {import('../../extension/contract.js').ToolView} tool */
const keyOf = (tool) => `${tool.serverId}\u0000${tool.name}`;

/**
 * A short signature of one parameter: type, required, default, enum, bounds.
 * @param {string} name
 * @param {any} prop the parameter's schema (from the server: untrusted JSON)
 * @param {boolean} required
 * @param {any} root the whole input schema ($ref targets)
 */
function paramLine(name, prop, required, root) {
  const p = (prop && typeof prop === 'object' && resolve(prop, root)) || {};
  const type = editType(p) === 'json' ? (Array.isArray(p.type) ? p.type.join('|') : p.type || (p.anyOf || p.oneOf ? 'union' : 'any')) : editType(p);
  const bits = [required ? t('paramRequired') : t('paramOptional')];
  if (p.default !== undefined) bits.push(t('paramDefault', JSON.stringify(p.default)));
  if (Array.isArray(p.enum)) bits.push(t('paramEnum', p.enum.map((/** @type {unknown} */ v) => JSON.stringify(v)).join(', ')));
  if (p.minimum !== undefined || p.maximum !== undefined) bits.push(`${p.minimum ?? '…'}–${p.maximum ?? '…'}`);
  const nested = (p.type === 'object' && p.properties) || (p.type === 'array' && p.items && typeof p.items === 'object' && (p.items.properties || p.items.type));
  return h('li', { class: 'param', dataset: { param: name } },
    h('code', { text: name }), ' ', h('span', { class: 'param-type', text: type }),
    h('small', { class: required ? 'req-tag' : 'opt-tag', text: ` ${bits.join(' · ')}` }),
    p.description ? h('div', { class: 'param-desc', text: String(p.description) }) : null,
    nested ? h('details', {}, h('summary', { text: t('paramShape') }), h('pre', { class: 'result-json', text: json(p.type === 'array' ? p.items : p.properties) })) : null);
}

/**
 * @param {HTMLElement} section
 * @param {import('../panel.js').App} app
 * @returns {import('../panel.js').ViewController}
 */
export function mountTools(section, app) {
  /** @type {import('../../extension/contract.js').ToolView[]} */
  let tools = [];
  /** @type {import('../../extension/contract.js').ServerView[]} */
  let servers = [];
  /** @type {Map<string, import('../../extension/contract.js').SkillView[]>} */
  let skills = new Map();
  const expanded = new Set();
  const details = new Map(); // key -> {schema, el}: keeps an open run form's input across refreshes
  const search = h('input', { type: 'search', id: 'tool-search', placeholder: t('toolsSearch'), attrs: { 'aria-label': t('toolsSearch') }, autocomplete: 'off' });
  const count = h('p', { class: 'muted', attrs: { 'aria-live': 'polite' } });
  const noHits = h('p', { class: 'empty no-match', hidden: true });
  const status = h('div', { class: 'view-status' });
  const groups = h('div', { class: 'tool-groups' });
  search.addEventListener('input', () => filter());

  function build() {
    search.placeholder = t('toolsSearch');
    search.setAttribute('aria-label', t('toolsSearch'));
    section.replaceChildren(
      h('div', { class: 'toolbar' },
        h('h2', { text: t('toolsTitle') }),
        h('button', { type: 'button', id: 'tools-refresh', text: t('toolsRefresh'), on: { click: () => refresh({ refreshTools: true }) } })),
      search, count, noHits, status, groups);
  }

  async function refresh({ refreshTools = false } = {}) {
    try {
      [servers, tools] = await Promise.all([call('servers/list'), call('tools/list', refreshTools ? { refresh: true } : {})]);
      status.replaceChildren();
    } catch (e) {
      status.replaceChildren(errorView(e));
      tools = [];
    }
    render();
    // The skills come apart, so the tools never wait for them; listed only, no file is read.
    const listed = await call('skills/list').catch(() => []);
    skills = new Map();
    for (const v of listed) skills.set(v.serverId, v.skills);
    if (listed.length) render();
  }

  /**
   * Sends a policy change. When the core asks for a confirmation first (allowing a tool marked
   * destructive answers `confirm_required`), the row shows the core's message and hint with
   * "Allow anyway" (which resends with `confirm: true`) and Cancel (which shows the stored
   * policy again).
   * @param {import('../../extension/contract.js').Requests['tools/policy']} fields
   * @param {HTMLElement | null} [row]
   */
  async function setPolicy(fields, row) {
    const area = row?.querySelector('.row-error');
    try {
      await call('tools/policy', fields);
    } catch (e) {
      if (describeError(e).kind === 'confirm_required' && !fields.confirm && area) {
        // Nothing changed yet: the row shows the stored policy until the user confirms.
        const shown = /** @type {HTMLSelectElement | null} */ (row?.querySelector('select.policy'));
        if (shown && row?.dataset.policy) shown.value = row.dataset.policy;
        area.replaceChildren(confirmView(e, fields, /** @type {HTMLElement} */ (row)));
        /** @type {HTMLButtonElement | null} */ (area.querySelector('button[data-action="confirm-allow"]'))?.focus();
      } else {
        area?.replaceChildren(errorView(e, { compact: true }));
      }
      return;
    }
    await refresh();
  }

  /**
   * @param {unknown} e the core's confirm_required error
   * @param {import('../../extension/contract.js').Requests['tools/policy']} fields
   * @param {HTMLElement} row
   */
  function confirmView(e, fields, row) {
    // One sentence says what allowing means, in the panel's language; the core's words are
    // the same warning, so they are not repeated.
    const text = fields.tool ? t('toolDestructiveConfirm', fields.tool) : errorText(e).message;
    return h('div', { class: 'confirm', attrs: { role: 'alertdialog', 'aria-label': text }, dataset: { kind: 'confirm_required' } },
      h('p', { class: 'error-message' }, ...withCode(text)),
      h('button', { type: 'button', class: 'danger', dataset: { action: 'confirm-allow' }, text: t('toolDestructiveAllow'), on: { click: () => setPolicy({ ...fields, confirm: true }, row) } }),
      h('button', { type: 'button', dataset: { action: 'confirm-cancel' }, text: t('cancel'), on: { click: () => refresh() } }));
  }

  /**
   * Shows what "Allow read-only tools" will allow and why, with the button that allows exactly
   * those tools as shown.
   * @param {HTMLElement} group
   * @param {string} serverId
   * @param {import('../../extension/contract.js').ToolView[]} covered
   */
  function showReadOnly(group, serverId, covered) {
    const area = group.querySelector('.row-error');
    if (!area) return;
    const seen = covered.map((tool) => ({ name: tool.name, revision: tool.revision }));
    const view = h('div', { class: 'confirm read-only-preview', attrs: { role: 'alertdialog', 'aria-label': tn('toolsReadOnlyWhat', covered.length) }, dataset: { kind: 'read_only' } },
      h('p', { text: tn('toolsReadOnlyWhat', covered.length) }),
      h('ul', { class: 'read-only-list' }, covered.map((tool) => h('li', { dataset: { tool: tool.name } }, h('code', { text: tool.name }), ' ', h('small', { class: 'muted', text: t('toolsReadOnlyWhy') })))),
      h('p', { class: 'error-hint', text: t('toolsReadOnlyLater') }),
      h('button', { type: 'button', class: 'primary', dataset: { action: 'confirm-read-only' }, text: tn('toolsReadOnlyConfirm', covered.length), on: { click: () => setPolicy({ serverId, policy: 'allow', readOnly: true, seen }, group) } }),
      h('button', { type: 'button', dataset: { action: 'cancel-read-only' }, text: t('cancel'), on: { click: () => area.replaceChildren() } }));
    area.replaceChildren(view);
    /** @type {HTMLButtonElement | null} */ (view.querySelector('button[data-action="confirm-read-only"]'))?.focus();
  }

  /** @param {import('../../extension/contract.js').ToolView} tool */
  function toolItem(tool) {
    const key = keyOf(tool);
    const detailId = nextId('td');
    const isOpen = expanded.has(key);
    const row = h('li', { class: 'tool', dataset: { server: tool.serverId, tool: tool.name, policy: tool.policy, enabled: String(tool.enabled !== false) } });
    // A visible label ("Details & run"), its accessible name starting with the same words.
    const moreText = (/** @type {boolean} */ open) => `${t('toolDetailsRun')} ${open ? '▾' : '▸'}`;
    const more = h('button', { type: 'button', class: 'more', text: moreText(isOpen), attrs: { 'aria-expanded': String(isOpen), 'aria-controls': detailId, 'aria-label': t('toolDetailsRunFor', tool.name) } });
    const enabled = h('input', { type: 'checkbox', checked: tool.enabled !== false, attrs: { 'aria-label': t('toolEnable', tool.name) } });
    enabled.addEventListener('change', () => setPolicy({ serverId: tool.serverId, tool: tool.name, enabled: enabled.checked }, row));
    const policy = select(POLICIES.map((p) => [p, t('policy_' + p)]), tool.policy || 'ask', { class: `policy policy-${tool.policy}`, attrs: { 'aria-label': t('toolPolicy', tool.name) } });
    policy.addEventListener('change', () => setPolicy({ serverId: tool.serverId, tool: tool.name, policy: /** @type {import('../../extension/contract.js').ToolPolicy} */ (policy.value) }, row));
    const ann = tool.annotations || {};
    // The detail (parameters and run form) is built on first opening: most of 500 tools are
    // never opened. Once built it is kept across refreshes so typed arguments survive.
    const schemaText = JSON.stringify(tool.inputSchema ?? null);
    let detail = details.get(key);
    if (detail && detail.schema !== schemaText) {
      details.delete(key);
      detail = undefined;
    }
    const slot = h('div', { id: detailId, class: 'tool-detail-slot', hidden: !isOpen });
    const attach = () => {
      if (!detail) {
        detail = { schema: schemaText, el: toolDetail(tool) };
        details.set(key, detail);
      }
      if (detail.el.parentNode !== slot) slot.replaceChildren(detail.el);
    };
    if (isOpen) attach();
    more.addEventListener('click', () => {
      const open = slot.hidden;
      if (open) attach();
      slot.hidden = !open;
      more.setAttribute('aria-expanded', String(open));
      more.textContent = moreText(!!open);
      if (open) expanded.add(key);
      else expanded.delete(key);
    });
    const subtitle = tool.title && tool.title !== tool.name ? String(tool.title) : null;
    row.append(
      h('div', { class: 'tool-head' }, enabled, h('strong', { class: 'tool-name', text: tool.name }), policy, more),
      h('div', { class: 'tool-meta' },
        subtitle ? h('span', { class: 'tool-title', text: subtitle }) : null,
        ann.readOnlyHint ? h('span', { class: 'badge', text: t('toolReadOnly') }) : null,
        ann.destructiveHint ? h('span', { class: 'badge bad', text: t('toolDestructive') }) : null,
        tool.ui?.resourceUri ? h('span', { class: 'badge', dataset: { ui: 'app' }, text: t('toolHasApp') }) : null,
        tool.ui && !tool.ui.model ? h('span', { class: 'badge', dataset: { ui: 'app-only' }, text: t('toolAppOnly'), attrs: { title: t('toolAppOnlyWhy') } }) : null,
        tool.allowedBy === 'read_only' ? h('span', { class: 'badge', dataset: { allowance: 'read_only' }, text: t('toolAllowedReadOnly'), attrs: { title: t('toolAllowedReadOnlyWhy') } }) : null,
        tool.changed ? h('span', { class: 'badge bad', dataset: { allowance: 'changed' }, text: t('toolChangedAsks'), attrs: { title: t('toolChangedAsksWhy') } }) : null,
        tool.description ? h('p', { class: 'tool-desc', text: String(tool.description) }) : null),
      h('div', { class: 'row-error' }),
      slot);
    return row;
  }

  /** @param {import('../../extension/contract.js').ToolView} tool */
  function toolDetail(tool) {
    const schema = tool.inputSchema || {};
    const req = new Set(Array.isArray(schema.required) ? schema.required : []);
    const params = Object.entries(schema.properties || {});
    const form = schemaForm(schema);
    const out = h('div', { class: 'run-result', attrs: { 'aria-live': 'polite' } });
    const run = h('button', { type: 'submit', class: 'primary', text: t('toolRun') });
    /** @param {import('../render.js').CallShown} record */
    const showRecord = (record) => out.replaceChildren(callView({ ...record, hasApp: !!tool.ui?.resourceUri }, {
      // A tool with an interface: its app opens in Activity, with this run's input and result.
      onOpenApp: () => app.openApp({ serverId: tool.serverId, tool: tool.name, arguments: record.arguments, result: record.result }),
      onDecide: async (decision) => {
        try {
          showRecord(await call('activity/decide', { key: record.key || '', decision }));
        } catch (e) {
          out.append(errorView(e));
        }
      },
    }));
    // The JSON editor mode: all arguments as one JSON object, checked as it is typed.
    const jsonArea = h('textarea', { class: 'mono json-editor', rows: 6, spellcheck: false, hidden: true, dataset: { editor: 'arguments' }, attrs: { 'aria-label': t('toolArgsJson') } });
    const jsonError = h('small', { class: 'field-error', attrs: { role: 'alert' } });
    const jsonRead = () => {
      let value;
      try {
        value = JSON.parse(jsonArea.value.trim() || '{}');
      } catch (e) {
        throw new Error(t('formBadJson', /** @type {Error} */ (e).message));
      }
      if (!value || typeof value !== 'object' || Array.isArray(value)) throw new Error(t('formJsonType', 'object'));
      return value;
    };
    const jsonCheck = () => {
      try {
        jsonRead();
        jsonError.textContent = '';
        jsonArea.removeAttribute('aria-invalid');
        return true;
      } catch (e) {
        jsonError.textContent = /** @type {Error} */ (e).message;
        jsonArea.setAttribute('aria-invalid', 'true');
        return false;
      }
    };
    jsonArea.addEventListener('input', jsonCheck);
    const jsonMode = h('input', { type: 'checkbox', dataset: { action: 'json-mode' } });
    jsonMode.addEventListener('change', () => {
      // One value, two editors: what one holds is what the other shows.
      if (jsonMode.checked) {
        jsonArea.value = json(form.read());
        jsonCheck();
      } else if (jsonCheck()) {
        form.fill(jsonRead());
      } else {
        // JSON that does not parse stays in its editor until it does.
        jsonMode.checked = true;
        return;
      }
      jsonArea.hidden = !jsonMode.checked;
      form.element.hidden = jsonMode.checked;
      jsonError.hidden = !jsonMode.checked;
    });
    const formEl = h('form', { class: 'run-form stack' }, h('h4', { text: t('toolRunTitle') }),
      h('label', { class: 'check' }, jsonMode, ' ', t('toolArgsJsonMode')),
      form.element, jsonArea, jsonError, h('div', { class: 'actions' }, run), out);
    formEl.addEventListener('submit', async (ev) => {
      ev.preventDefault();
      /** @type {Record<string, unknown>} */
      let value;
      if (jsonMode.checked) {
        if (!jsonCheck()) return;
        value = jsonRead();
      } else {
        const args = form.collect();
        if (!args.ok) return;
        value = args.value || {};
      }
      run.disabled = true;
      run.setAttribute('aria-busy', 'true');
      // While it runs: its progress (a bar when the server says the total) and Cancel, which
      // stops the request and tells the server.
      const runKey = crypto.randomUUID();
      const progress = h('div', { class: 'run-progress' });
      const cancel = h('button', { type: 'button', class: 'danger', dataset: { action: 'cancel' }, text: t('callCancel'), on: { click: async () => {
        cancel.disabled = true;
        try {
          await call('calls/cancel', { key: runKey });
        } catch (e) {
          out.append(errorView(e));
        }
      } } });
      out.replaceChildren(h('div', { class: 'running', dataset: { run: runKey } }, h('p', { class: 'muted', text: t('toolRunning') }), progress, h('div', { class: 'actions' }, cancel)));
      const stop = poll(async () => {
        const running = await call('calls/running');
        const mine = running.find((r) => r.key === runKey);
        if (mine && mine.progress) progress.replaceChildren(progressView(mine.progress) || '');
      }, 300);
      try {
        showRecord(await call('tools/call', { serverId: tool.serverId, tool: tool.name, arguments: value, runKey }));
      } catch (e) {
        out.replaceChildren(errorView(e));
      } finally {
        stop();
        run.disabled = false;
        run.removeAttribute('aria-busy');
      }
    });
    return h('div', { class: 'tool-detail' },
      params.length
        ? h('ul', { class: 'params', attrs: { 'aria-label': t('toolParams') } }, params.map(([n, p]) => paramLine(n, p, req.has(n), schema)))
        : h('p', { class: 'muted', text: t('formNoParams') }),
      formEl);
  }

  function render() {
    const names = new Map(servers.map((s) => [s.id, s.name || s.id]));
    const byServer = new Map();
    for (const tool of tools) {
      if (!byServer.has(tool.serverId)) byServer.set(tool.serverId, []);
      byServer.get(tool.serverId).push(tool);
    }
    const live = new Set(tools.map(keyOf));
    for (const k of details.keys()) if (!live.has(k)) details.delete(k);
    if (!byServer.size) {
      groups.replaceChildren(h('p', { class: 'empty', text: t('toolsEmpty') }));
      filter();
      return;
    }
    groups.replaceChildren(...[...byServer.entries()].map(([serverId, list]) => {
      const headingId = nextId('tg');
      const bulk = select([['', t('toolsBulk')], ...POLICIES.map((p) => [p, t('bulkPolicy', t('policy_' + p))]), ['enable', t('bulkEnable')], ['disable', t('bulkDisable')]], '', { class: 'bulk', attrs: { 'aria-label': t('toolsBulkFor', names.get(serverId) || serverId) } });
      const group = h('section', { class: 'tool-group', dataset: { server: serverId }, attrs: { 'aria-labelledby': headingId } });
      bulk.addEventListener('change', () => {
        const v = bulk.value;
        bulk.value = '';
        if (!v) return;
        setPolicy(v === 'enable' || v === 'disable' ? { serverId, enabled: v === 'enable' } : { serverId, policy: /** @type {import('../../extension/contract.js').ToolPolicy} */ (v) }, group);
      });
      // The common safe choice, shown before it is made: which tools it covers (the core's
      // reading: annotated read-only and not destructive) and why; the confirmation sends those
      // tools as shown, and the core allows nothing else.
      const covered = list.filter((/** @type {import('../../extension/contract.js').ToolView} */ tool) => tool.readOnly);
      const readOnly = h('button', { type: 'button', class: 'allow-read-only', dataset: { action: 'allow-read-only' }, text: t('toolsAllowReadOnlyCount', covered.length),
        disabled: covered.length === 0,
        attrs: { 'aria-label': t('toolsAllowReadOnlyFor', names.get(serverId) || serverId) },
        on: { click: () => showReadOnly(group, serverId, covered) } });
      group.append(
        h('div', { class: 'group-head' }, h('h3', { id: headingId, text: names.get(serverId) || serverId }), h('small', { class: 'muted', text: tn('toolCount', list.length) }), readOnly, bulk),
        h('div', { class: 'row-error' }),
        h('ul', { class: 'tool-list' }, list.map(toolItem)),
        ...skillsOf(serverId));
      return group;
    }));
    filter();
  }

  /**
   * A server's skills, as listed (loading one is This chat's): none, or their block.
   * @param {string} serverId
   * @returns {HTMLElement[]}
   */
  function skillsOf(serverId) {
    const list = skills.get(serverId) || [];
    if (!list.length) return [];
    return [h('div', { class: 'skill-group', dataset: { server: serverId } },
      h('h4', { text: tn('toolsSkills', list.length) }),
      h('ul', { class: 'skill-list' }, list.map((s) => h('li', { class: 'skill', dataset: { skill: s.name } },
        h('strong', { text: s.name }),
        s.description ? h('p', { class: 'tool-desc', text: s.description }) : null))),
      h('p', { class: 'muted', text: t('toolsSkillsHint') }))];
  }

  function filter() {
    const q = search.value.trim().toLowerCase();
    let shown = 0;
    for (const group of groups.querySelectorAll(/** @type {'section'} */ ('.tool-group'))) {
      const serverName = (group.querySelector('h3')?.textContent || '').toLowerCase();
      let any = 0;
      for (const row of group.querySelectorAll(/** @type {'li'} */ ('li.tool'))) {
        const hit = !q || serverName.includes(q) || (row.dataset.tool || '').toLowerCase().includes(q) || (row.querySelector('.tool-desc')?.textContent || '').toLowerCase().includes(q) || (row.querySelector('.tool-title')?.textContent || '').toLowerCase().includes(q);
        row.hidden = !hit;
        if (hit) any += 1;
      }
      group.hidden = any === 0;
      shown += any;
    }
    count.textContent = tools.length ? tn('toolsShown', tools.length, shown, tools.length) : '';
    // A search that hides every tool says so, and how to get them back.
    noHits.hidden = !(tools.length && q && shown === 0);
    noHits.textContent = noHits.hidden ? '' : t('toolsNoMatch', search.value.trim());
  }

  build();
  return {
    show: () => refresh(),
    hide() {},
    changed(changes) {
      if (touches(changes, ['config', 'tools'])) refresh();
    },
    relocalize() {
      details.clear();
      build();
      render();
    },
  };
}
