// MCP Relay's content script (classic script: content scripts cannot be modules).
// It finds the site's adapter, talks to the core through extension messaging only, and keeps
// its own UI inside a shadow root. It never reads the page's storage and never receives secrets.
(() => {
  'use strict';
  if (globalThis.__mcpRelayContent) return; // injected twice (static + dynamic registration)
  globalThis.__mcpRelayContent = true;

  async function call(type, fields = {}) {
    const answer = await chrome.runtime.sendMessage({ ...fields, type });
    if (answer && answer.ok) return answer.data;
    const e = (answer && answer.error) || { kind: 'no_answer', message: 'no answer' };
    throw Object.assign(new Error(e.message), { kind: e.kind });
  }

  /** The host element of our UI; its state attribute tells tests and users we are connected. */
  function uiHost() {
    let host = document.querySelector('mcp-relay-ui');
    if (!host) {
      host = document.createElement('mcp-relay-ui');
      host.attachShadow({ mode: 'open' });
      document.documentElement.appendChild(host);
    }
    return host;
  }

  async function start() {
    const host = uiHost();
    try {
      const pong = await call('ping');
      host.dataset.state = 'ready';
      host.dataset.core = pong.core;
      const adapter = globalThis.McpRelaySites && globalThis.McpRelaySites.forLocation(location);
      host.dataset.adapter = adapter ? adapter.id : 'generic';
    } catch (e) {
      host.dataset.state = 'error';
      host.dataset.error = String(e.kind || 'error');
    }
  }

  start();
})();
