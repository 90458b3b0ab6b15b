// The MCP Apps test servers of issue 31, checked over plain JSON-RPC (no browser, no core):
// npm `@modelcontextprotocol/server-basic-vanillajs` served by tests/apps/example-server.mjs, and
// tests/python/apps_server.py (PyPI `mcp`'s `mcp.server.apps`). Each is started on 127.0.0.1
// with a port chosen at run time and stopped by pid.
//
//   node --test tests/interop/apps-servers.test.mjs

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, describe, test } from 'node:test';

import { hasModule, python, startAppsExampleServer, startPythonAppsServer, within } from './lib.mjs';

const APP_MIME = 'text/html;profile=mcp-app';
const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** A minimal Streamable HTTP client: initialize (keeping the session, if any), then requests. */
async function connect(url) {
  let session = null;
  let id = 0;
  async function post(body) {
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
    if (session) {
      headers['mcp-session-id'] = session;
      headers['mcp-protocol-version'] = '2025-11-25';
    }
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    session = response.headers.get('mcp-session-id') ?? session;
    const text = await response.text();
    if (body.id === undefined) return response.status;
    assert.equal(response.status, 200, `${body.method}: HTTP ${response.status} ${text}`);
    const messages = (response.headers.get('content-type') ?? '').includes('text/event-stream')
      ? text.split('\n').filter((l) => l.startsWith('data:')).map((l) => JSON.parse(l.slice(5)))
      : [JSON.parse(text)];
    const answer = messages.find((m) => m.id === body.id);
    assert.ok(answer, `${body.method}: no answer in ${text}`);
    return answer;
  }
  const request = async (method, params = {}) => {
    const answer = await post({ jsonrpc: '2.0', id: ++id, method, params });
    assert.equal(answer.error, undefined, `${method}: ${JSON.stringify(answer.error)}`);
    return answer.result;
  };
  const init = await request('initialize', {
    protocolVersion: '2025-11-25',
    capabilities: { extensions: { [UI_EXTENSION]: { mimeTypes: [APP_MIME] } } },
    clientInfo: { name: 'apps-servers-test', version: '0' },
  });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized', params: {} });
  return { init, request, raw: post };
}

const nodeMissing = hasModule('@modelcontextprotocol/server-basic-vanillajs')
  ? null
  : 'npm @modelcontextprotocol/server-basic-vanillajs is not installed (npm ci)';
const pythonMissing = existsSync(python()) ? null : `no Python at ${python()} (set RELAY_PYTHON)`;

describe('apps example server (server-basic-vanillajs)', { skip: nodeMissing ?? false }, () => {
  let server;
  let client;
  before(async () => {
    server = await startAppsExampleServer();
    client = await within(10_000, connect(server.url), 'connect');
  });
  after(async () => { await server?.close(); });

  test('listens on 127.0.0.1 only', () => {
    assert.match(server.url, /^http:\/\/127\.0\.0\.1:\d+\/mcp$/);
  });

  test('get-time carries _meta.ui.resourceUri (and the deprecated flat key)', async () => {
    const { tools } = await client.request('tools/list');
    const tool = tools.find((t) => t.name === 'get-time');
    assert.ok(tool, JSON.stringify(tools));
    assert.deepEqual(tool._meta.ui, { resourceUri: 'ui://get-time/mcp-app.html' });
    assert.equal(tool._meta['ui/resourceUri'], 'ui://get-time/mcp-app.html');
  });

  test('its ui:// resource is an MCP App (text/html;profile=mcp-app)', async () => {
    const { contents } = await client.request('resources/read', { uri: 'ui://get-time/mcp-app.html' });
    assert.equal(contents.length, 1);
    assert.equal(contents[0].uri, 'ui://get-time/mcp-app.html');
    assert.equal(contents[0].mimeType, APP_MIME);
    assert.match(contents[0].text, /<html/i);
    for (const label of ['Get Server Time', 'Send Message', 'Send Log', 'Open Link']) {
      assert.ok(contents[0].text.includes(`>${label}</button>`), label);
    }
  });

  test('get-time returns the time as text and structuredContent', async () => {
    const result = await client.request('tools/call', { name: 'get-time', arguments: {} });
    assert.match(result.content[0].text, /^\d{4}-\d\d-\d\dT/);
    assert.equal(result.structuredContent.time, result.content[0].text);
  });
});

describe('python apps server (mcp.server.apps)', { skip: pythonMissing ?? false }, () => {
  let server;
  let client;
  before(async () => {
    server = await startPythonAppsServer();
    client = await within(10_000, connect(server.url), 'connect');
  });
  after(async () => { await server?.close(); });

  test('tools carry _meta.ui: resourceUri and visibility', async () => {
    const { tools } = await client.request('tools/list');
    const byName = Object.fromEntries(tools.map((t) => [t.name, t._meta?.ui]));
    assert.deepEqual(byName, {
      show_chart: { resourceUri: 'ui://charts/chart.html', visibility: ['model', 'app'] },
      hostile_view: { resourceUri: 'ui://charts/hostile.html', visibility: ['model', 'app'] },
      refresh_chart: { visibility: ['app'] },
      secret_admin: { visibility: ['model'] },
    });
  });

  test('the apps are text/html;profile=mcp-app with their CSP in _meta.ui', async () => {
    const chart = (await client.request('resources/read', { uri: 'ui://charts/chart.html' })).contents[0];
    assert.equal(chart.mimeType, APP_MIME);
    assert.deepEqual(chart._meta.ui.csp, { connectDomains: [server.origin] });
    for (const id of ['input', 'result', 'called', 'call-refresh', 'send-message', 'open-link', 'update-context', 'log']) {
      assert.ok(chart.text.includes(`id="${id}"`), id);
    }
    assert.doesNotMatch(chart.text, /<script[^>]+src=/);
    const hostile = (await client.request('resources/read', { uri: 'ui://charts/hostile.html' })).contents[0];
    assert.equal(hostile.mimeType, APP_MIME);
    assert.deepEqual(hostile._meta.ui.csp, { connectDomains: ['https://api.example.com'] });
    assert.ok(hostile.text.includes(`${server.origin}/leak`));
    assert.ok(hostile.text.includes('id="attack"'));
  });

  test('the tools answer; /calls counts them and /leak-count starts at 0', async () => {
    const chart = await client.request('tools/call', { name: 'show_chart', arguments: { points: [1, 2, 3, 4] } });
    assert.equal(chart.content[0].text, 'chart of 4 points');
    assert.deepEqual(chart.structuredContent, { points: [1, 2, 3, 4], count: 4 });
    const refreshed = await client.request('tools/call', { name: 'refresh_chart', arguments: {} });
    assert.equal(refreshed.content[0].text, 'refreshed');
    const admin = await client.request('tools/call', { name: 'secret_admin', arguments: {} });
    assert.equal(admin.content[0].text, 'admin');
    const calls = await (await fetch(`${server.origin}/calls`)).json();
    assert.deepEqual(calls, { show_chart: 1, refresh_chart: 1, secret_admin: 1, hostile_view: 0 });
    assert.deepEqual(await (await fetch(`${server.origin}/leak-count`)).json(), { count: 0 });
    await fetch(`${server.origin}/leak`);
    assert.deepEqual(await (await fetch(`${server.origin}/leak-count`)).json(), { count: 1 });
  });
});
