// Interop matrix: the core's MCP client (Node build) against real servers, each started on
// 127.0.0.1 with a port chosen at run time and stopped by pid.
//
//   node --test tests/interop/interop.test.mjs
//
// Servers: npm @modelcontextprotocol/server-everything (streamableHttp, sse), PyPI `mcp`
// (streamable-http, streamable-http with json_response, sse), PyPI `fastmcp` with
// list_page_size=1 (pagination), and the bundled rmcp demo server. For each: initialize, list
// every tool (all pages), call a tool of each result kind it offers, read a resource, get a
// prompt, and a call with progress where offered. A server whose dependencies are missing is
// skipped with the reason (see CONFORMANCE.md for how to install them).

import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import {
  hasModule, loadRelay, python, repoRoot, startDemoServer, startPythonServer, startServerEverything, until, within,
} from './lib.mjs';

const { RelayClient } = loadRelay();

const everythingCalls = {
  text: ['echo', { message: 'hello relay' }, (r) => r.content[0].type === 'text' && r.content[0].text.includes('hello relay')],
  image: ['get-tiny-image', {}, (r) => r.content.some((c) => c.type === 'image' && c.mimeType === 'image/png' && c.data.length > 0)],
  resource: ['get-resource-reference', { resourceType: 'Text', resourceId: 1 }, (r) => r.content.some((c) => c.type === 'resource' && c.resource.uri)],
  resource_link: ['get-resource-links', { count: 2 }, (r) => r.content.filter((c) => c.type === 'resource_link').length === 2],
  structured: ['get-structured-content', { location: 'Chicago' }, (r) => typeof r.structuredContent === 'object' && r.structuredContent !== null],
  is_error: ['get-sum', { a: 'not a number' }, (r) => r.isError === true],
};

const pythonCalls = {
  text: ['echo', { message: 'hello relay' }, (r) => r.content[0].text === 'Echo: hello relay'],
  structured: ['add', { a: 2, b: 3 }, (r) => r.structuredContent?.sum === 5],
  image: ['tiny_image', {}, (r) => r.content.some((c) => c.type === 'image' && c.mimeType === 'image/png')],
  audio: ['tiny_audio', {}, (r) => r.content.some((c) => c.type === 'audio' && c.mimeType === 'audio/wav')],
  // mcp 2.x hides the exception's text from the client; fastmcp passes it on.
  is_error: ['fail', { reason: 'for the test' }, (r) => r.isError === true && r.content[0].type === 'text'],
};

const pythonExtras = {
  resource: ['test://static/hello', (r) => r.contents[0].text === 'Hello, resource!'],
  template: ['test://greeting/relay', (r) => r.contents[0].text === 'Hello, relay!'],
  prompt: ['weather', { city: 'Paris' }, (r) => JSON.stringify(r.messages).includes('Paris')],
  progress: ['slow', { steps: 3 }, 3],
};

const everythingExtras = {
  resource: ['demo://resource/static/document/architecture.md', (r) => r.contents[0].text.includes('Architecture')],
  template: ['demo://resource/dynamic/text/1', (r) => r.contents.length === 1],
  prompt: ['args-prompt', { city: 'Paris', state: 'IDF' }, (r) => JSON.stringify(r.messages).includes('Paris')],
  progress: ['trigger-long-running-operation', { duration: 0.3, steps: 3 }, 3],
};

const demoCalls = {
  text: ['echo', { message: 'hello relay' }, (r) => r.content[0].text === 'hello relay'],
  image: ['generate_image', {}, (r) => r.content.some((c) => c.type === 'image' && c.mimeType === 'image/png')],
  resource: ['read_guide', {}, (r) => r.content.some((c) => c.type === 'resource' && c.resource.uri === 'demo://docs/guide')],
  resource_link: ['read_guide', {}, (r) => r.content.some((c) => c.type === 'resource_link')],
  is_error: ['divide', { dividend: 1, divisor: 0 }, (r) => r.isError === true],
};

const demoExtras = {
  resource: ['demo://docs/guide', (r) => r.contents[0].text.length > 0],
  template: ['demo://docs/mcp-overview', (r) => r.contents[0].text.length > 0],
  prompt: ['simple_chat', { user_intent: 'check the weather in Paris' }, (r) => JSON.stringify(r.messages).includes('Paris')],
  progress: ['slow_count', { steps: 3, delay_ms: 10 }, 3],
};

const pythonMissing = existsSync(python()) ? null : `no Python at ${python()} (set RELAY_PYTHON)`;
const everythingMissing = hasModule('@modelcontextprotocol/server-everything')
  ? null
  : 'npm @modelcontextprotocol/server-everything is not installed (set RELAY_NODE_MODULES)';
const demoBinary = process.env.RELAY_DEMO_SERVER ?? path.join(repoRoot, 'target', 'debug', 'relay-demo-server');
const demoMissing = existsSync(demoBinary) ? null : `no demo server at ${demoBinary} (cargo build -p relay-demo-server, or set RELAY_DEMO_SERVER)`;

/** Initialize requests a whole run costs: none in protocol 2026-07-28, one for a session,
 * two when auto-detection found a legacy HTTP+SSE server. */
function expectedInitializes(status) {
  if (status.info?.protocolVersion === '2026-07-28') return 0;
  return status.transport === 'sse' ? 2 : 1;
}

const matrix = [
  { name: 'server-everything streamableHttp', skip: everythingMissing, start: () => startServerEverything('streamableHttp'), calls: everythingCalls, extras: everythingExtras, transport: 'streamable' },
  { name: 'server-everything sse (auto-detected)', skip: everythingMissing, start: () => startServerEverything('sse'), calls: everythingCalls, extras: everythingExtras, transport: 'sse' },
  { name: 'python mcp streamable-http', skip: pythonMissing, start: () => startPythonServer({ impl: 'mcp' }), calls: pythonCalls, extras: pythonExtras, transport: 'streamable' },
  { name: 'python mcp streamable-http json_response', skip: pythonMissing, start: () => startPythonServer({ impl: 'mcp', jsonResponse: true }), calls: pythonCalls, extras: { ...pythonExtras, progress: ['slow', { steps: 3 }, 0] }, transport: 'streamable' },
  { name: 'python mcp sse (auto-detected)', skip: pythonMissing, start: () => startPythonServer({ impl: 'mcp', transport: 'sse' }), calls: pythonCalls, extras: pythonExtras, transport: 'sse' },
  { name: 'python fastmcp list_page_size=1', skip: pythonMissing, start: () => startPythonServer({ impl: 'fastmcp', pageSize: 1 }), calls: pythonCalls, extras: pythonExtras, transport: 'streamable', paged: true },
  { name: 'rmcp demo server', skip: demoMissing, start: () => startDemoServer(), calls: demoCalls, extras: demoExtras, transport: 'streamable' },
];

for (const entry of matrix) {
  describe(entry.name, { skip: entry.skip ?? false }, () => {
    let server;
    let client;
    const events = [];
    before(async () => {
      server = await entry.start();
      client = new RelayClient([{ id: 's', name: entry.name, url: server.url }], {});
      client.setEventListener((id, event) => events.push(event));
    });
    after(async () => {
      client?.close();
      await server?.stop();
    });

    test('initializes once and lists every tool', async () => {
      const tools = await within(15_000, client.request('s', { method: 'tools/list' }));
      assert.ok(tools.length > 0);
      for (const tool of tools) {
        assert.equal(typeof tool.name, 'string');
        assert.equal(typeof tool.inputSchema, 'object');
      }
      const [status] = client.status();
      assert.equal(status.connected, true);
      assert.equal(status.transport, entry.transport);
      // Protocol 2026-07-28 is tried first, once (server/discover); a server that speaks it
      // needs no initialize. Auto-detecting a legacy server costs one more probe (POST
      // initialize → 4xx → GET).
      assert.equal(status.stats.discoverRequests, 1, JSON.stringify(status.stats));
      assert.equal(status.stats.initializeRequests, expectedInitializes(status), JSON.stringify(status.info));
      if (entry.paged) {
        // list_page_size=1: one request per tool, all followed.
        // Plus the handshake: server/discover alone in 2026-07-28, else initialize and its
        // notification.
        const handshake = status.info?.protocolVersion === '2026-07-28' ? 1 : 2;
        assert.ok(status.stats.httpRequests >= tools.length + handshake, JSON.stringify(status.stats));
      }
      if (entry.calls) {
        for (const [name] of Object.values(entry.calls)) {
          assert.ok(tools.some((t) => t.name === name), `${name} is listed`);
        }
      }
      // The next listing comes from the cache, unless the server announced a change meanwhile
      // (server-everything sends tools/list_changed right after initialization; over the legacy
      // transport it may arrive after the first listing). A third listing is then cached.
      const again = await client.request('s', { method: 'tools/list' });
      assert.deepEqual(again.map((t) => t.name), tools.map((t) => t.name));
      const changed = events.some((e) => e.type === 'listChanged' && e.list === 'tools');
      if (client.status()[0].info?.protocolVersion === '2026-07-28') {
        // The server's `ttlMs` decides: PyPI mcp 2.3.0 (and fastmcp on it) send `ttlMs: 0` on
        // tools/list, so every listing asks the server again.
        assert.equal(client.status()[0].stats.cacheHits, 0);
        return;
      }
      if (client.status()[0].stats.cacheHits === 0) {
        assert.ok(changed, 'a refetch only after list_changed');
        await client.request('s', { method: 'tools/list' });
      }
      assert.equal(client.status()[0].stats.cacheHits, 1);
    });

    test('calls a tool of each result kind', { skip: entry.calls ? false : 'tools discovered at run time' }, async () => {
      for (const [kind, [name, args, check]] of Object.entries(entry.calls)) {
        const result = await within(15_000, client.request('s', { method: 'tools/call', name, arguments: args }), `${kind} call`);
        assert.ok(check(result), `${kind}: ${JSON.stringify(result).slice(0, 300)}`);
      }
    });

    test('reads a resource and a templated resource', { skip: entry.extras ? false : 'no known resource' }, async () => {
      const [uri, check] = entry.extras.resource;
      assert.ok(check(await within(15_000, client.request('s', { method: 'resources/read', uri }))));
      const [templated, checkTemplated] = entry.extras.template;
      assert.ok(checkTemplated(await within(15_000, client.request('s', { method: 'resources/read', uri: templated }))));
      const resources = await client.request('s', { method: 'resources/list' });
      assert.ok(resources.length > 0);
      const templates = await client.request('s', { method: 'resources/templates/list' });
      assert.ok(templates.length > 0);
    });

    test('lists prompts and gets one with arguments', { skip: entry.extras ? false : 'no known prompt' }, async () => {
      const prompts = await within(15_000, client.request('s', { method: 'prompts/list' }));
      const [name, args, check] = entry.extras.prompt;
      assert.ok(prompts.some((p) => p.name === name));
      assert.ok(check(await within(15_000, client.request('s', { method: 'prompts/get', name, arguments: args }))));
    });

    test('reports progress of a long call', { skip: entry.extras ? false : 'no known progress tool' }, async () => {
      const [name, args, expected] = entry.extras.progress;
      const updates = [];
      const result = await within(20_000, client.request('s', { method: 'tools/call', name, arguments: args }, { onProgress: (p) => updates.push(p) }));
      assert.ok(result.content.length > 0);
      // json_response servers cannot stream progress: they drop it, and the call still works.
      assert.equal(updates.length, expected, JSON.stringify(updates));
      if (expected > 0) assert.equal(updates.at(-1).progress, updates.at(-1).total);
    });

    test('an unknown tool is reported by the server, and the session goes on', async () => {
      let outcome;
      try {
        outcome = await within(15_000, client.request('s', { method: 'tools/call', name: 'no-such-tool-here', arguments: {} }));
      } catch (error) {
        outcome = error;
      }
      // Servers differ: a JSON-RPC error (kind "tool") or a result with isError.
      assert.ok(outcome.kind === 'tool' || outcome.isError === true, JSON.stringify(outcome));
      await within(15_000, client.request('s', { method: 'ping' }));
      const [last] = client.status();
      assert.equal(last.stats.initializeRequests, expectedInitializes(last), 'one session for the whole run');
      assert.equal(last.stats.discoverRequests, 1, 'protocol 2026-07-28 tried once for the whole run');
    });

    test('generic sweep: every tool without required arguments answers', { skip: entry.calls ? 'covered above' : false }, async () => {
      const tools = await client.request('s', { method: 'tools/list' });
      let called = 0;
      for (const tool of tools.filter((t) => !(t.inputSchema.required?.length))) {
        const result = await within(15_000, client.request('s', { method: 'tools/call', name: tool.name, arguments: {} }), tool.name);
        assert.ok(Array.isArray(result.content), tool.name);
        called += 1;
      }
      assert.ok(called > 0, 'at least one tool callable without arguments');
    });
  });
}

describe('transport selection', { skip: everythingMissing ?? false }, () => {
  test('explicit transports and a wrong one', async () => {
    const sse = await startServerEverything('sse');
    const http = await startServerEverything('streamableHttp');
    const client = new RelayClient([
      { id: 'sse', url: sse.url, transport: 'sse' },
      { id: 'http', url: http.url, transport: 'streamable' },
      { id: 'wrong', url: sse.url, transport: 'streamable', timeoutMs: 3_000 },
    ], { listen: false, maxAttempts: 1 });
    try {
      assert.ok((await within(15_000, client.request('sse', { method: 'tools/list' }))).length > 0);
      assert.ok((await within(15_000, client.request('http', { method: 'tools/list' }))).length > 0);
      let error;
      try {
        await within(15_000, client.request('wrong', { method: 'tools/list' }));
      } catch (e) {
        error = e;
      }
      assert.equal(error?.kind, 'http', JSON.stringify(error));
      const byId = Object.fromEntries(client.status().map((s) => [s.id, s]));
      assert.equal(byId.sse.transport, 'sse');
      assert.equal(byId.http.transport, 'streamable');
    } finally {
      client.close();
      await sse.stop();
      await http.stop();
    }
  });

  test('removing a server deletes its session on the server', async () => {
    const http = await startServerEverything('streamableHttp');
    const client = new RelayClient([{ id: 'http', url: http.url }], { listen: false });
    try {
      await within(15_000, client.request('http', { method: 'ping' }));
      assert.equal(client.removeServer('http'), true);
      let error;
      try {
        await client.request('http', { method: 'ping' });
      } catch (e) {
        error = e;
      }
      assert.equal(error?.kind, 'config');
      // The DELETE arrived: server-everything logs each session termination request it gets.
      const logged = await until(() => http.log().match(/Received session termination request for session (\S+)/), {
        timeoutMs: 5_000,
        what: 'server-everything to log the DELETE of the session',
      });
      // …for the session this client opened (the only one server-everything initialized).
      const opened = [...http.log().matchAll(/Session initialized with ID: (\S+)/g)].map((m) => m[1]);
      assert.deepEqual(opened, [logged[1]], http.log());
    } finally {
      client.close();
      await http.stop();
    }
  });
});
