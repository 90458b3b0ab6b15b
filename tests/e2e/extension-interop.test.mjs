// MCP servers reached from the extension's service worker in real Chromium (fetch from the
// worker, host permissions instead of CORS, the Origin header a worker sends): server-everything
// and the Python SDK's server, each over Streamable HTTP and legacy HTTP+SSE. The Python server
// refuses foreign Origins on loopback, so its cases prove the Origin rule.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { launchExtension, openExtensionPage, coreCall } from './harness.mjs';
import { hasModule, python, startPythonServer, startServerEverything } from '../interop/lib.mjs';

let ext, panel;
before(async () => {
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
});
after(async () => { await ext?.close(); });

const cases = [
  { name: 'server-everything, Streamable HTTP', start: () => startServerEverything('streamableHttp'), transport: 'streamable',
    call: ['echo', { message: 'through the worker' }, (r) => r.content[0].text.includes('through the worker')], skip: !hasModule('@modelcontextprotocol/server-everything') },
  { name: 'server-everything, HTTP+SSE', start: () => startServerEverything('sse'), transport: 'sse',
    call: ['echo', { message: 'through the worker' }, (r) => r.content[0].text.includes('through the worker')], skip: !hasModule('@modelcontextprotocol/server-everything') },
  { name: 'Python mcp, Streamable HTTP (refuses foreign Origins)', start: () => startPythonServer({ impl: 'mcp' }), transport: 'streamable',
    call: ['add', { a: 2, b: 3 }, (r) => r.structuredContent?.sum === 5], skip: !existsSync(python()) },
  { name: 'Python mcp, HTTP+SSE, auto-detected (refuses foreign Origins)', start: () => startPythonServer({ impl: 'mcp', transport: 'sse' }), transport: 'auto',
    call: ['add', { a: 2, b: 3 }, (r) => r.structuredContent?.sum === 5], skip: !existsSync(python()) },
];

for (const c of cases) {
  test(c.name, { skip: c.skip && 'server not installed' }, async () => {
    const server = await c.start();
    try {
      const added = await coreCall(panel, { type: 'servers/add', server: { name: c.name, url: server.url, transport: c.transport } });
      assert.equal(added.ok, true, JSON.stringify(added.error));
      assert.equal(added.data.state.status, 'connected', JSON.stringify(added.data.state));
      const tools = await coreCall(panel, { type: 'tools/list', serverId: added.data.id });
      assert.equal(tools.ok, true, JSON.stringify(tools.error));
      const [name, args, check] = c.call;
      assert.ok(tools.data.some((t) => t.name === name), `${name} listed`);
      await coreCall(panel, { type: 'tools/policy', serverId: added.data.id, tool: name, policy: 'allow' });
      const called = await coreCall(panel, { type: 'tools/call', serverId: added.data.id, tool: name, arguments: args });
      assert.equal(called.ok, true, JSON.stringify(called.error));
      assert.ok(check(called.data.result), JSON.stringify(called.data.result));
      assert.equal((await coreCall(panel, { type: 'servers/remove', id: added.data.id })).ok, true);
    } finally {
      await server.stop();
    }
  });
}

test('without the Origin rule a loopback Python server refuses the worker, and the error says why', { skip: !existsSync(python()) && 'no python' }, async () => {
  const server = await startPythonServer({ impl: 'mcp' });
  try {
    const added = await coreCall(panel, { type: 'servers/add', server: { name: 'strict', url: server.url, transport: 'streamable' } });
    assert.equal(added.ok, true);
    // Drop the rule the core made, as if the user had not configured the server through us.
    await ext.sw.evaluate(async () => {
      const rules = await chrome.declarativeNetRequest.getSessionRules();
      await chrome.declarativeNetRequest.updateSessionRules({ removeRuleIds: rules.map((r) => r.id) });
    });
    // Every request carries the worker's Origin again; the server checks it on each one.
    const tools = await coreCall(panel, { type: 'tools/list', serverId: added.data.id, refresh: true });
    assert.equal(tools.ok, false, 'the server refused the request');
    assert.equal(tools.error.kind, 'auth', JSON.stringify(tools.error));
    assert.match(`${tools.error.message} ${tools.error.hint}`, /origin/i);
    await coreCall(panel, { type: 'servers/remove', id: added.data.id });
  } finally {
    await server.stop();
  }
});
