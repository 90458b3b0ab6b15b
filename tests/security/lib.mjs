// Shared helpers of the attack tests (tests/security/*.test.mjs). Each test plays one attacker
// (the chat page, a content script the page drives, a hostile MCP server, a web page on this
// computer) against the real extension in Chromium, and asserts the fixed behaviour that
// SECURITY.md promises. Browser launch, static servers and polling come from
// tests/e2e/harness.mjs; what is here is what the attacks need on top of it:
//   - a small in-process MCP server whose tools behave as a test says (HTTP 500, a hang, a
//     result that quotes a call, annotations) and that records every request it gets;
//   - a chat tab on the demo chat fixture with the chat's settings;
//   - messages sent AS the content script (its isolated world, so the worker classifies the
//     sender as `content`), and code run in that world;
//   - the text of MCP Relay's in-page cards read through CDP (which reaches closed shadow
//     roots, as only a debugger can);
//   - a browser whose profile already holds an optional host permission.
import { createServer } from 'node:http';
import { randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';
import { launchExtension, openExtensionPage, coreCall, serveStatic, until, ROOT } from '../e2e/harness.mjs';

export { ROOT, until, coreCall, openExtensionPage, serveStatic };

/** Unwraps a `{ok: true, data}` envelope, failing the test with the error otherwise. */
export function ok(envelope, what = 'answer') {
  assert.equal(envelope?.ok, true, `${what}: ${JSON.stringify(envelope?.error ?? envelope)}`);
  return envelope.data;
}

/** Asserts a refusal `{ok: false, error: {kind}}` whose kind is one of `kinds`. */
export function refused(envelope, kinds, what) {
  assert.equal(envelope?.ok, false, `${what} must be refused, got ${JSON.stringify(envelope)}`);
  const list = Array.isArray(kinds) ? kinds : [kinds];
  assert.ok(list.includes(envelope.error?.kind), `${what}: error kind ${JSON.stringify(envelope.error)} is not one of ${list.join(', ')}`);
  return envelope.error;
}

// ---- a small MCP server ----------------------------------------------------------------------

/**
 * Starts a Streamable HTTP MCP server (plain JSON answers) on 127.0.0.1, port chosen by the OS,
 * in this process. `tools` are MCP tool definitions plus `run(args) → behaviour`, where the
 * behaviour is one of `{text}` (a text result), `{result}` (a raw CallToolResult), `{status,
 * body, headers}` (that HTTP status instead of an answer, e.g. a 307 with a `location`), `{rpcError: {code, message}}` or `{hang:
 * true}` (never answered). `state.listStatus`, when set, makes tools/list answer that HTTP
 * status. Every request is recorded in `requests` ({method, path, origin, rpc, tool,
 * arguments}); preflights get permissive CORS answers so web pages can reach it too.
 */
export async function startMcpServer({ name = 'security-test-server', tools = [] } = {}) {
  const requests = [];
  const state = { listStatus: null };
  const sockets = new Set();
  const hanging = new Set();
  const cors = (req) => ({
    'access-control-allow-origin': req.headers.origin || '*',
    'access-control-allow-headers': req.headers['access-control-request-headers'] || '*',
    'access-control-allow-methods': 'POST, GET, DELETE, OPTIONS',
    'access-control-expose-headers': 'mcp-session-id',
  });
  const server = createServer((req, res) => {
    const url = new URL(req.url, 'http://x');
    const entry = { method: req.method, path: url.pathname + url.search, origin: req.headers.origin ?? null, headers: req.headers };
    requests.push(entry);
    if (req.method === 'OPTIONS') {
      res.writeHead(204, cors(req));
      res.end();
      return;
    }
    if (req.method === 'DELETE') { res.writeHead(200, cors(req)); res.end(); return; }
    if (req.method !== 'POST') { res.writeHead(405, { ...cors(req), allow: 'POST, DELETE' }); res.end(); return; }
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      let msg;
      try { msg = JSON.parse(Buffer.concat(chunks).toString('utf8')); } catch { msg = null; }
      entry.rpc = msg?.method ?? null;
      const send = (status, body, extra = {}) => {
        const text = typeof body === 'string' ? body : JSON.stringify(body);
        res.writeHead(status, { ...cors(req), 'content-type': typeof body === 'string' ? 'text/plain' : 'application/json', ...extra });
        res.end(text);
      };
      if (!msg || typeof msg.method !== 'string') return send(400, { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } });
      const { id, method, params } = msg;
      if (id === undefined || id === null) { res.writeHead(202, cors(req)); res.end(); return; }
      const result = (value) => send(200, { jsonrpc: '2.0', id, result: value });
      if (method === 'initialize') {
        return send(200, { jsonrpc: '2.0', id, result: { protocolVersion: params?.protocolVersion ?? '2025-06-18', capabilities: { tools: {} }, serverInfo: { name, version: '1.0.0' } } },
          { 'mcp-session-id': randomUUID() });
      }
      if (method === 'ping') return result({});
      if (method === 'tools/list') {
        if (state.listStatus) return send(state.listStatus, 'tools are not available right now');
        return result({ tools: tools.map(({ run, ...t }) => ({ inputSchema: { type: 'object' }, ...t })) });
      }
      if (method === 'tools/call') {
        entry.tool = params?.name;
        entry.arguments = params?.arguments ?? {};
        const tool = tools.find((t) => t.name === params?.name);
        if (!tool) return send(200, { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${params?.name}` } });
        const b = tool.run ? tool.run(entry.arguments) : { text: 'ok' };
        if (b.hang) { hanging.add(res); res.on('close', () => hanging.delete(res)); return; }
        if (b.status) return send(b.status, b.body ?? 'internal error', b.headers);
        if (b.rpcError) return send(200, { jsonrpc: '2.0', id, error: b.rpcError });
        return result(b.result ?? { content: [{ type: 'text', text: String(b.text ?? '') }] });
      }
      return send(200, { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
    });
  });
  server.on('connection', (s) => { sockets.add(s); s.on('close', () => sockets.delete(s)); });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  const origin = `http://127.0.0.1:${port}`;
  return {
    port, origin, url: `${origin}/mcp`, requests, state,
    /** The tools/call requests for `tool` (all tools when omitted). */
    calls: (tool) => requests.filter((r) => r.rpc === 'tools/call' && (!tool || r.tool === tool)),
    close: () => new Promise((resolve) => {
      for (const res of hanging) res.destroy();
      for (const s of sockets) s.destroy();
      server.close(() => resolve());
    }),
  };
}

// ---- the chat --------------------------------------------------------------------------------

/** Serves the demo chat fixture and registers it as a custom chat site (generic adapter). */
export async function chatSite(ext, panel) {
  const site = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
  ok(await coreCall(panel, { type: 'sites/add', origin: site.origin, adapter: 'generic' }), 'sites/add');
  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin),
    { what: 'the content script registration' });
  return site;
}

/**
 * Opens a chat tab on `site` whose content script is ready, and gives it `settings` (from the
 * panel). Returns {page, chat: {tabId, url}, tabId}.
 */
export async function openChat(ext, panel, site, settings, path = '/') {
  const page = await ext.context.newPage();
  await page.goto(site.origin + path);
  await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 15_000 });
  const tabs = await ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
  const chat = { tabId: Math.max(...tabs), url: page.url() };
  ok(await coreCall(panel, { type: 'chat/set', chat, settings }), 'chat/set');
  return { page, chat, tabId: chat.tabId };
}

/**
 * Appends an assistant reply to the demo chat page from the page's own script (the main world):
 * what a site, a page script or an injected ad could do. It streams as a site does (its Stop
 * control shown, the text in pieces): a reply that appears complete with nothing sent before
 * it is an old one to the core, and nothing in it runs. Returns the reply's index.
 */
export function appendReply(page, text) {
  return page.evaluate(async (t) => {
    const stop = document.getElementById('stop');
    if (stop) stop.hidden = false;
    const div = document.createElement('div');
    div.className = 'turn';
    div.dataset.role = 'assistant';
    document.getElementById('log').appendChild(div);
    const pieces = 10;
    const size = Math.ceil(t.length / pieces);
    for (let i = 0; i < t.length; i += size) {
      div.textContent = t.slice(0, i + size);
      await new Promise((r) => setTimeout(r, 50));
    }
    if (stop) stop.hidden = true;
    return document.querySelectorAll('.turn[data-role="assistant"]').length - 1;
  }, text);
}

/** A fenced call in the format of the extension's instructions. */
export function fencedCall(tool, args) {
  return '```json\n' + JSON.stringify({ tool, arguments: args }) + '\n```';
}

/** The chat's call records, as the side panel sees them. */
export async function activity(panel, chat) {
  return ok(await coreCall(panel, { type: 'activity/list', chat }), 'activity/list');
}

/** Waits until the chat has a record matching `pred`; returns it. */
export function waitForCall(panel, chat, pred, what, timeoutMs = 15_000) {
  return until(async () => (await activity(panel, chat)).find(pred), { timeoutMs, what });
}

// ---- the content script's world ----------------------------------------------------------------

/**
 * Runs `func(arg)` in the content script's isolated world of a tab (where MCP Relay's content
 * script runs, the default world of chrome.scripting) and returns its result.
 */
export async function inContentWorld(ext, tabId, func, arg = null) {
  // The function travels as source text inside the worker's own code (CDP evaluates it, so the
  // extension's CSP does not apply); chrome.scripting then injects it like any content script.
  // No eval in the content world: MV3 isolated worlds forbid it.
  return ext.sw.evaluate(`(async () => {
    const [r] = await chrome.scripting.executeScript({ target: { tabId: ${Number(tabId)} }, func: ${func.toString()}, args: [${JSON.stringify(arg)}] });
    return r.result;
  })()`);
}

/** Sends a contract message from a tab's content script world and returns the envelope. */
export function asContent(ext, tabId, message) {
  return ext.sw.evaluate(async ({ tabId, message }) => {
    const [r] = await chrome.scripting.executeScript({
      target: { tabId },
      func: (m) => chrome.runtime.sendMessage(m),
      args: [message],
    });
    return r.result;
  }, { tabId, message });
}

// ---- MCP Relay's in-page UI, through CDP -----------------------------------------------------

/**
 * Every MCP Relay host element of the page (`mcp-relay-*`) with its shadow root's type and
 * text, and its cards ({key, state, text, actions}). CDP's DOM domain with `pierce: true` sees
 * closed shadow roots too, so this works before and after they are closed.
 */
export async function relayUi(page) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
    const attrs = (n) => {
      const out = {};
      for (let i = 0; i + 1 < (n.attributes || []).length; i += 2) out[n.attributes[i]] = n.attributes[i + 1];
      return out;
    };
    const kids = (n) => [...(n.shadowRoots || []), ...(n.children || []), ...(n.contentDocument ? [n.contentDocument] : [])];
    const text = (n) => (n.nodeType === 3 ? n.nodeValue : (n.localName === 'style' ? '' : kids(n).map(text).join(' ')));
    const hosts = [];
    const cardsIn = (n, out = []) => {
      const a = attrs(n);
      if (n.nodeType === 1 && a['data-key'] !== undefined) {
        const actions = [];
        const walk = (m) => { const b = attrs(m); if (b['data-action']) actions.push(b['data-action']); kids(m).forEach(walk); };
        walk(n);
        out.push({ key: a['data-key'], state: a['data-state'], text: text(n).replace(/\s+/g, ' ').trim(), actions });
      }
      kids(n).forEach((k) => cardsIn(k, out));
      return out;
    };
    const visit = (n) => {
      if (n.nodeType === 1 && /^mcp-relay/.test(n.localName || '')) {
        hosts.push({
          tag: n.localName,
          shadowRootTypes: (n.shadowRoots || []).map((s) => s.shadowRootType),
          text: text(n).replace(/\s+/g, ' ').trim(),
          cards: cardsIn(n),
        });
      }
      kids(n).forEach(visit);
    };
    visit(root);
    return hosts;
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** The card of call `key` (through CDP), or undefined. */
export async function cardOf(page, key) {
  for (const h of await relayUi(page)) {
    const c = h.cards.find((x) => x.key === key);
    if (c) return c;
  }
  return undefined;
}

// ---- a browser whose profile holds optional host permissions --------------------------------

/**
 * Launches the extension (as harness.launchExtension does) in a profile where the user has
 * already granted the optional host permissions `origins` (match patterns). Chrome shows a
 * permission prompt no automation can answer, so the grant is written into the profile's
 * preferences between a first launch (which creates the extension's entry) and the real one.
 */
export async function launchWithGrantedOrigins(origins) {
  const userDataDir = mkdtempSync(join(tmpdir(), 'mcp-relay-sec-profile-'));
  const first = await launchExtension({ userDataDir });
  const id = first.extensionId;
  await first.close();
  const prefsFile = join(userDataDir, 'Default', 'Preferences');
  const prefs = JSON.parse(readFileSync(prefsFile, 'utf8'));
  const entry = prefs.extensions?.settings?.[id];
  if (!entry) throw new Error(`no preferences entry for extension ${id}`);
  for (const k of ['granted_permissions', 'active_permissions']) {
    entry[k] = entry[k] || {};
    entry[k].explicit_host = [...new Set([...(entry[k].explicit_host || []), ...origins])];
  }
  writeFileSync(prefsFile, JSON.stringify(prefs));
  const ext = await launchExtension({ userDataDir });
  return {
    ...ext,
    async close() {
      await ext.close();
      rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** All strings inside a JSON-like value, joined: what an attacker who got the value could read. */
export function allText(value) {
  return JSON.stringify(value ?? null);
}
