// @ts-check
// MCP Apps in the side panel: a tool's interface (its ui:// document) shown beside the chat, and
// the host side of its JSON-RPC bridge (SEP-1865, protocol 2026-01-26).
//
// Each app runs in www/app/frame.html, a manifest sandbox page (a unique origin, no chrome.*),
// which holds the app's document in a nested sandboxed frame under the Content Security Policy
// the core built from the resource's declarations (relay_core::apps). This module only renders
// and relays: every request the app makes goes to the core as an `apps/*` message, and the core
// decides (which tools it may call, under which policy, where its messages go, which links it
// may open). What needs the user — a call of a tool that asks, a call past the app's budget, a
// link to open — waits here for a click in the panel, never for anything the app can do.
//
// `@modelcontextprotocol/ext-apps` ships a host bridge (`app-bridge`), but it imports the MCP
// SDK and zod as bare modules (the panel loads plain ES modules, no bundler) and expects to hold
// an MCP client itself, while ours lives in the worker's core; so the bridge here speaks the
// protocol from its published schema, as a relay to the core.
import { h } from './dom.js';
import { t, currentLanguage } from './i18n.js';
import { call, describeError, errorView } from './core.js';

/** The Apps protocol version this host speaks. */
const PROTOCOL_VERSION = '2026-01-26';
/** Longest an app's frame grows inline (px); fullscreen takes the panel's height. */
const MAX_INLINE_HEIGHT = 640;
/** Longest wait for an app's answer to `ui/resource-teardown` before its frame goes. */
const TEARDOWN_MS = 1000;

/**
 * @typedef {import('../extension/contract.js').AppOpen} AppOpen
 * @typedef {{jsonrpc?: string, id?: string | number, method?: string, params?: any, result?: any, error?: any}} RpcMessage
 */

/**
 * The open apps of a panel view, in `container`.
 * @param {HTMLElement} container
 */
export function mountApps(container) {
  /** @type {Map<string, OpenApp>} by instance */
  const open = new Map();
  /** The chat the view shows: only its apps are visible (the others stay loaded, hidden). */
  let shownChat = '';

  window.addEventListener('message', (event) => {
    // Only a frame this panel made may speak, and only through its sandbox page's window.
    for (const app of open.values()) {
      if (event.source === app.frame.contentWindow) {
        app.received(event.data);
        return;
      }
    }
  });

  function showOnly() {
    for (const app of open.values()) app.element.hidden = app.chatId !== shownChat;
    container.hidden = ![...open.values()].some((a) => a.chatId === shownChat);
  }

  /**
   * Opens the app of a call (or brings it to view when it is open already), for `chatId`.
   * @param {{key?: string, serverId?: string, tool?: string, arguments?: unknown, result?: unknown, chat?: unknown}} what
   * @param {string} chatId
   */
  async function openApp(what, chatId) {
    for (const app of open.values()) {
      if (what.key && app.view.callKey === what.key) {
        app.element.scrollIntoView({ block: 'nearest' });
        return app;
      }
    }
    /** @type {AppOpen} */
    const view = await call('apps/open', /** @type {any} */ (what));
    const app = new OpenApp(view, chatId, () => { open.delete(view.instance); showOnly(); });
    open.set(view.instance, app);
    container.prepend(app.element);
    showOnly();
    app.element.scrollIntoView({ block: 'nearest' });
    return app;
  }

  return {
    open: openApp,
    /** Tells every open app that the panel's theme, language or size changed. */
    contextChanged() {
      for (const app of open.values()) app.notify('ui/notifications/host-context-changed', app.hostContext());
    },
    /** Shows the apps of `chatId` only (the others keep running, hidden). @param {string} chatId */
    showChat(chatId) {
      shownChat = chatId;
      showOnly();
    },
    /** Closes every app (the view is going away). */
    async closeAll() {
      await Promise.all([...open.values()].map((a) => a.close()));
    },
    /** @param {string} key a call's ledger key */
    isOpen(key) {
      return [...open.values()].some((a) => a.view.callKey === key);
    },
  };
}

class OpenApp {
  /**
   * @param {AppOpen} view
   * @param {string} chatId the chat whose view shows it
   * @param {() => void} onClosed
   */
  constructor(view, chatId, onClosed) {
    this.view = view;
    this.chatId = chatId;
    this.onClosed = onClosed;
    this.displayMode = 'inline';
    this.initialized = false;
    this.closed = false;
    this.asking = false;
    this.nextId = 1;
    /** @type {Map<string | number, (m: RpcMessage) => void>} answers the host waits for */
    this.waiting = new Map();
    const tool = view.tool;
    const name = tool.title || tool.name;
    this.status = h('div', { class: 'app-status', attrs: { 'aria-live': 'polite' } });
    this.frame = /** @type {HTMLIFrameElement} */ (h('iframe', {
      class: 'app-frame',
      attrs: {
        src: 'app/frame.html',
        title: t('appFrameTitle', name, view.serverName),
        // The sandbox page's own limits (the manifest's) hold too; these say the same here.
        sandbox: 'allow-scripts allow-forms',
        referrerpolicy: 'no-referrer',
        ...(view.document.allow ? { allow: view.document.allow } : {}),
      },
    }));
    this.frame.style.height = '160px';
    this.expand = h('button', { type: 'button', dataset: { action: 'app-fullscreen' }, attrs: { 'aria-pressed': 'false' }, text: t('appFullscreen'), on: { click: () => this.setMode(this.displayMode === 'fullscreen' ? 'inline' : 'fullscreen') } });
    this.element = h('section', { class: 'app-view', dataset: { instance: view.instance, tool: tool.name, border: String(view.document.prefersBorder !== false) }, attrs: { 'aria-label': t('appLabel', name) } },
      h('header', { class: 'app-head' },
        h('strong', { class: 'app-title', text: name }),
        h('small', { class: 'app-server', text: view.serverName }),
        this.expand,
        h('button', { type: 'button', dataset: { action: 'app-close' }, text: t('appClose'), on: { click: () => this.close() } })),
      this.status,
      this.frame);
  }

  /** The host context an app gets on `ui/initialize` and on changes. */
  hostContext() {
    const dark = window.matchMedia('(prefers-color-scheme: dark)').matches;
    const width = Math.round(this.element.getBoundingClientRect().width) || 360;
    return {
      toolInfo: { tool: this.view.tool },
      theme: dark ? 'dark' : 'light',
      displayMode: this.displayMode,
      availableDisplayModes: ['inline', 'fullscreen'],
      containerDimensions: { width, maxHeight: this.displayMode === 'fullscreen' ? window.innerHeight : MAX_INLINE_HEIGHT },
      locale: currentLanguage(),
      timeZone: Intl.DateTimeFormat().resolvedOptions().timeZone,
      platform: 'web',
      userAgent: 'mcp-relay',
      deviceCapabilities: { touch: navigator.maxTouchPoints > 0, hover: window.matchMedia('(hover: hover)').matches },
    };
  }

  /** @param {RpcMessage} message */
  post(message) {
    if (this.closed || !this.frame.contentWindow) return;
    this.frame.contentWindow.postMessage({ type: 'mcp-relay/to-app', message: { jsonrpc: '2.0', ...message } }, '*');
  }

  /** @param {string} method @param {unknown} [params] */
  notify(method, params) {
    if (this.initialized) this.post({ method, params: params ?? {} });
  }

  /**
   * A request to the app; resolves with its answer, or null after `ms`.
   * @param {string} method @param {unknown} params @param {number} ms
   * @returns {Promise<RpcMessage | null>}
   */
  request(method, params, ms) {
    const id = `host-${this.nextId++}`;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { this.waiting.delete(id); resolve(null); }, ms);
      this.waiting.set(id, (m) => { clearTimeout(timer); resolve(m); });
      this.post({ id, method, params });
    });
  }

  /** A message from the sandbox page. @param {any} data */
  received(data) {
    if (!data || typeof data !== 'object') return;
    if (data.type === 'mcp-relay/ready') {
      // The sandbox page is there: it gets the document and the policy the core built.
      const { html, csp, allow } = this.view.document;
      this.frame.contentWindow?.postMessage({ type: 'mcp-relay/load', html, csp, allow }, '*');
      return;
    }
    if (data.type === 'mcp-relay/navigated') {
      this.fail(t('appNavigated'));
      return;
    }
    if (data.type !== 'mcp-relay/from-app') return;
    /** @type {RpcMessage} */
    const m = data.message;
    if (!m || typeof m !== 'object' || m.jsonrpc !== '2.0') return;
    if (m.method === undefined && m.id !== undefined) {
      this.waiting.get(m.id)?.(m);
      this.waiting.delete(m.id);
      return;
    }
    if (typeof m.method !== 'string') return;
    if (m.id === undefined) {
      this.notification(m.method, m.params ?? {});
      return;
    }
    const id = m.id;
    this.handle(m.method, m.params ?? {}).then(
      (result) => this.post({ id, result }),
      (e) => this.post({ id, error: rpcError(e) }));
  }

  /** @param {string} method @param {any} params */
  notification(method, params) {
    switch (method) {
      case 'ui/notifications/initialized':
        this.initialized = true;
        this.notify('ui/notifications/tool-input', { arguments: this.view.arguments ?? {} });
        if (this.view.result) this.notify('ui/notifications/tool-result', this.view.result);
        break;
      case 'ui/notifications/size-changed':
        if (this.displayMode === 'inline' && Number.isFinite(params.height)) {
          this.frame.style.height = `${Math.max(48, Math.min(MAX_INLINE_HEIGHT, Math.ceil(params.height)))}px`;
        }
        break;
      case 'notifications/message':
        call('apps/log', { instance: this.view.instance, text: JSON.stringify({ level: params.level, logger: params.logger, data: params.data }) }).catch(() => {});
        break;
      case 'ui/notifications/request-teardown':
        this.close();
        break;
      default:
        break; // notifications this host does not use are dropped
    }
  }

  /**
   * Answers one request of the app (the result, or throws the error).
   * @param {string} method @param {any} params
   */
  async handle(method, params) {
    const instance = this.view.instance;
    switch (method) {
      case 'ui/initialize':
        return {
          protocolVersion: PROTOCOL_VERSION,
          hostInfo: { name: 'mcp-relay', version: chromeVersion() },
          hostCapabilities: {
            openLinks: {},
            serverTools: {},
            serverResources: {},
            logging: {},
            ...(this.view.chat ? { message: { text: {} }, updateModelContext: { text: {}, structuredContent: {} } } : {}),
          },
          hostContext: this.hostContext(),
        };
      case 'ping':
        return {};
      case 'tools/call':
        return this.toolCall(String(params.name ?? ''), params.arguments ?? {}, false);
      case 'resources/read':
        return call('apps/read', { instance, uri: String(params.uri ?? '') });
      case 'ui/open-link':
        return this.openLink(String(params.url ?? ''));
      case 'ui/message': {
        const text = textOf(params.content);
        if (!text) throw rpc(-32602, 'the message has no text');
        try {
          await call('apps/message', { instance, text });
          return {};
        } catch (e) {
          this.show(errorView(e, { compact: true }));
          return { isError: true };
        }
      }
      case 'ui/update-model-context': {
        const parts = [textOf(params.content)];
        if (params.structuredContent && typeof params.structuredContent === 'object') parts.push(JSON.stringify(params.structuredContent));
        await call('apps/context', { instance, text: parts.filter(Boolean).join('\n') });
        return {};
      }
      case 'ui/request-display-mode': {
        this.setMode(params.mode === 'fullscreen' ? 'fullscreen' : 'inline');
        return { mode: this.displayMode };
      }
      default:
        throw rpc(-32601, `${method} is not offered by this host`);
    }
  }

  /**
   * An app's tool call: the core decides; a call that must ask waits for the user's click.
   * @param {string} tool @param {unknown} args @param {boolean} approved
   * @returns {Promise<unknown>}
   */
  async toolCall(tool, args, approved) {
    try {
      return await call('apps/call', { instance: this.view.instance, tool, arguments: args, approved });
    } catch (e) {
      const { kind, message } = describeError(e);
      if (kind !== 'confirm_required' || approved) throw e;
      if (!(await this.ask(message, t('appRunTool', tool), 'app-approve'))) throw rpc(-32000, `the user did not run ${tool}`);
      return this.toolCall(tool, args, true);
    }
  }

  /** @param {string} url */
  async openLink(url) {
    /** @type {import('../extension/contract.js').Link} */
    let link;
    try {
      link = await call('apps/link', { instance: this.view.instance, url });
    } catch (e) {
      this.show(errorView(e, { compact: true }));
      return { isError: true };
    }
    const host = link.host + (link.port ? `:${link.port}` : '');
    const warnings = [
      link.unicodeHost ? t('questionWarnInternational', link.unicodeHost, link.host) : '',
      link.userinfo ? t('questionWarnUserinfo', link.userinfo, link.host) : '',
      link.warnings.includes('unencrypted') ? t('questionWarnUnencrypted') : '',
    ].filter(Boolean);
    const yes = await this.ask([t('appOpensLink', host), ...warnings].join(' '), t('questionOpenHost', host), 'app-open-link');
    // The browser's own reading of the URL must name the same host the user was shown.
    let browserHost = '';
    try { browserHost = new URL(url).host; } catch { /* stays empty */ }
    if (!yes || browserHost !== host) return { isError: true };
    await chrome.tabs.create({ url });
    return {};
  }

  /**
   * Asks the user in the app's header; resolves with their choice (a click in the panel).
   * @param {string} message @param {string} yesText @param {string} action
   * @returns {Promise<boolean>}
   */
  ask(message, yesText, action) {
    // One question at a time: what the app asks while the user is being asked is refused (a
    // flood of requests never stacks questions or hides the one on screen).
    if (this.asking) return Promise.resolve(false);
    this.asking = true;
    return new Promise((resolve) => {
      const done = (/** @type {boolean} */ answer) => { this.asking = false; this.status.replaceChildren(); resolve(answer); };
      this.show(h('div', { class: 'confirm', attrs: { role: 'alertdialog', 'aria-label': message } },
        h('p', { class: 'notice', text: message }),
        h('div', { class: 'actions' },
          h('button', { type: 'button', class: 'primary', dataset: { action }, text: yesText, on: { click: (/** @type {Event} */ ev) => { if (ev.isTrusted) done(true); } } }),
          h('button', { type: 'button', dataset: { action: `${action}-cancel` }, text: t('cancel'), on: { click: () => done(false) } }))));
    });
  }

  /** @param {Node} node */
  show(node) {
    this.status.replaceChildren(node);
  }

  /** @param {string} text */
  fail(text) {
    this.frame.remove();
    this.closed = true;
    this.show(h('p', { class: 'error-message', attrs: { role: 'alert' }, text }));
    call('apps/close', { instance: this.view.instance }).catch(() => {});
  }

  /** @param {'inline' | 'fullscreen'} mode */
  setMode(mode) {
    this.displayMode = mode;
    this.element.classList.toggle('fullscreen', mode === 'fullscreen');
    this.expand.setAttribute('aria-pressed', String(mode === 'fullscreen'));
    this.expand.textContent = mode === 'fullscreen' ? t('appInline') : t('appFullscreen');
    this.notify('ui/notifications/host-context-changed', { displayMode: mode, containerDimensions: this.hostContext().containerDimensions });
  }

  /** Asks the app to clean up, then removes its frame and ends its instance in the core. */
  async close() {
    if (this.closed) return;
    if (this.initialized) await this.request('ui/resource-teardown', {}, TEARDOWN_MS);
    this.closed = true;
    this.element.remove();
    this.onClosed();
    await call('apps/close', { instance: this.view.instance }).catch(() => {});
  }
}

/** The text of MCP content blocks (the text blocks, one per line). @param {unknown} content */
function textOf(content) {
  if (!Array.isArray(content)) return '';
  return content.filter((c) => c && c.type === 'text' && typeof c.text === 'string').map((c) => c.text).join('\n').trim();
}

/** @param {number} code @param {string} message */
function rpc(code, message) {
  return { rpc: { code, message } };
}

/** A JSON-RPC error from what a request threw. @param {any} e */
function rpcError(e) {
  if (e && e.rpc) return e.rpc;
  const { kind, message } = describeError(e);
  return { code: kind === 'invalid_argument' ? -32602 : -32000, message, data: { kind } };
}

function chromeVersion() {
  try {
    return chrome.runtime.getManifest().version;
  } catch {
    return '0';
  }
}
