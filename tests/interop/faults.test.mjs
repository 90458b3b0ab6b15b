// Fault tests of the core's MCP client (Node build) against tests/interop/fault-server.mjs:
// each fault ends in the right typed error or a recovered success, and the client stays usable.
//
//   node --test tests/interop/faults.test.mjs

import assert from 'node:assert/strict';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';

import { loadRelay, repoRoot, startProcess, until, within } from './lib.mjs';

const { RelayClient } = loadRelay();
const faultServer = path.join(repoRoot, 'tests', 'interop', 'fault-server.mjs');

async function startFaultServer(extra = []) {
  const server = await startProcess(process.execPath, [faultServer, ...extra], { ready: /READY (\S+)/ });
  return { ...server, url: server.match[1] };
}

async function stats(url) {
  const response = await fetch(new URL('/stats', url));
  return response.json();
}

function client(url, { timeoutMs = 5_000, ...options } = {}) {
  return new RelayClient([{ id: 'f', name: 'fault', url, timeoutMs }], { listen: false, baseDelayMs: 50, ...options });
}

/** Awaits a promise expected to reject, and returns the `{kind, message, hint}` it rejected with. */
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  assert.fail('expected a rejection');
}

async function stillUsable(c) {
  const echoed = await within(5_000, c.request('f', { method: 'tools/call', name: 'echo', arguments: { message: 'still here' } }), 'follow-up call');
  assert.equal(echoed.content[0].text, 'Echo: still here');
}

for (const mode of ['json', 'sse']) {
  describe(`fault server answering with ${mode}`, () => {
    let server;
    before(async () => {
      server = await startFaultServer(mode === 'sse' ? ['--sse'] : []);
    });
    after(async () => {
      await server?.stop();
    });

    test('a server that never answers a tool call: outcome unknown after the timeout, never re-sent', async () => {
      const c = client(server.url, { timeoutMs: 400 });
      const before = await stats(server.url);
      const started = Date.now();
      const error = await rejection(within(5_000, c.request('f', { method: 'tools/call', name: 'hang', arguments: {} })));
      assert.equal(error.kind, 'outcome_unknown', JSON.stringify(error));
      assert.ok(Date.now() - started >= 400, 'waited the timeout');
      assert.match(error.hint, /may or may not have run/);
      const after = await stats(server.url);
      assert.equal(after.toolsCall - before.toolsCall, 1, 'tools/call is never retried');
      await stillUsable(c);
      c.close();
    });

    test('a listing that never answers is retried, then reported with the timeout as its cause', async () => {
      const c = client(server.url, { timeoutMs: 300, maxAttempts: 2 });
      await c.request('f', { method: 'ping' });
      await c.request('f', { method: 'tools/call', name: 'arm', arguments: { fault: 'hang' } });
      const listed = await within(5_000, c.request('f', { method: 'tools/list', refresh: true }));
      assert.ok(listed.some((t) => t.name === 'echo'), 'the retry succeeded');
      c.close();
    });

    test('5xx then success: retried transparently', async () => {
      const c = client(server.url);
      await c.request('f', { method: 'tools/call', name: 'arm', arguments: { fault: '503' } });
      const before = await stats(server.url);
      const tools = await within(5_000, c.request('f', { method: 'tools/list', refresh: true }));
      assert.ok(tools.length > 0);
      const after = await stats(server.url);
      assert.equal(after.toolsList - before.toolsList, 2, 'one 503, one success');
      const [status] = c.status();
      assert.equal(status.stats.retries, 1);
      c.close();
    });

    test('SSE stream cut mid-event: a listing is retried, a tool call is unknown', async () => {
      const c = client(server.url);
      await c.request('f', { method: 'tools/call', name: 'arm', arguments: { fault: 'cut' } });
      const tools = await within(5_000, c.request('f', { method: 'tools/list', refresh: true }));
      assert.ok(tools.length > 0, 'listing recovered');
      const error = await rejection(within(5_000, c.request('f', { method: 'tools/call', name: 'cut', arguments: {} })));
      assert.equal(error.kind, 'outcome_unknown', JSON.stringify(error));
      await stillUsable(c);
      c.close();
    });

    test('malformed JSON-RPC answer to a tool call: outcome unknown (it reached the server), the session survives', async () => {
      const c = client(server.url);
      const before = await stats(server.url);
      const error = await rejection(within(5_000, c.request('f', { method: 'tools/call', name: 'malformed', arguments: {} })));
      // The call was delivered and answered unreadably: it may have run, so it is never re-sent.
      assert.equal(error.kind, 'outcome_unknown', JSON.stringify(error));
      assert.match(error.message, /malformed JSON-RPC/);
      assert.match(error.hint, /may or may not have run/);
      await stillUsable(c);
      const after = await stats(server.url);
      assert.equal(after.initialize - before.initialize, 1, 'no re-initialization needed');
      c.close();
    });

    test('session expired mid-session: re-initialized transparently, the call goes through', async () => {
      const c = client(server.url);
      await c.request('f', { method: 'ping' });
      const before = await stats(server.url);
      await c.request('f', { method: 'tools/call', name: 'expire_session', arguments: {} });
      const echoed = await within(5_000, c.request('f', { method: 'tools/call', name: 'echo', arguments: { message: 'after expiry' } }));
      assert.equal(echoed.content[0].text, 'Echo: after expiry');
      const after = await stats(server.url);
      assert.equal(after.initialize - before.initialize, 1, 'exactly one new initialize');
      assert.equal(c.status()[0].stats.reinitializations, 1);
      c.close();
    });

    test('a 10 MB result arrives whole', async () => {
      const c = client(server.url, { timeoutMs: 20_000 });
      const started = Date.now();
      const big = await within(20_000, c.request('f', { method: 'tools/call', name: 'big', arguments: { mb: 10 } }));
      assert.equal(big.content[0].text.length, 10 * 1024 * 1024);
      process.stderr.write(`# 10 MB ${mode} result in ${Date.now() - started} ms\n`);
      await stillUsable(c);
      c.close();
    });

    test('unknown tool: a tool error (the tool did not run), not a transport failure', async () => {
      const c = client(server.url);
      const error = await rejection(c.request('f', { method: 'tools/call', name: 'no_such_tool', arguments: {} }));
      assert.equal(error.kind, 'tool');
      await stillUsable(c);
      c.close();
    });
  });
}

describe('server lifecycle faults', () => {
  test('server killed mid-call: outcome unknown; after a restart on the same port the client recovers', async () => {
    let server = await startFaultServer();
    const port = new URL(server.url).port;
    const c = client(server.url, { timeoutMs: 5_000 });
    try {
      await c.request('f', { method: 'ping' });
      const before = await stats(server.url);
      // Observed at once: the rejection arrives while the server is being stopped.
      const outcome = rejection(within(5_000, c.request('f', { method: 'tools/call', name: 'hang', arguments: {} })));
      // The server counted the call: it is in flight (never answered) when the server dies.
      await until(async () => (await stats(server.url)).toolsCall === before.toolsCall + 1, {
        timeoutMs: 5_000,
        what: 'the hang call to reach the server',
      });
      await server.stop();
      const error = await outcome;
      assert.equal(error.kind, 'outcome_unknown', JSON.stringify(error));
      // Down: safe requests fail as connection errors after their retries.
      const down = await rejection(within(10_000, c.request('f', { method: 'ping' })));
      assert.match(down.kind, /connection|retries_exhausted/, JSON.stringify(down));
      server = await startFaultServer(['--port', port]);
      await stillUsable(c);
    } finally {
      c.close();
      await server.stop();
    }
  });

  test('nothing listening: connection error after bounded retries, with an actionable hint', async () => {
    const server = await startFaultServer();
    const url = server.url;
    await server.stop();
    const c = client(url, { maxAttempts: 2 });
    const started = Date.now();
    const error = await rejection(within(10_000, c.request('f', { method: 'tools/list' })));
    assert.equal(error.kind, 'retries_exhausted', JSON.stringify(error));
    assert.match(error.message, /\(tried 2 times\)/);
    assert.match(error.hint, /server is running/);
    assert.ok(Date.now() - started < 5_000);
    c.close();
  });
});
