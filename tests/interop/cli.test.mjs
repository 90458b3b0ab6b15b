// tests/conformance/client.mjs as a command-line client: its output for each method equals the
// MCP Inspector CLI's (npm @modelcontextprotocol/inspector, the reference client) against
// server-everything; errors come out as {kind, message, hint} with exit code 1.
//
//   node --test tests/interop/cli.test.mjs

import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { hasModule, node22, nodeModules, repoRoot, startServerEverything } from './lib.mjs';

const run = promisify(execFile);
const client = path.join(repoRoot, 'tests', 'conformance', 'client.mjs');
const inspector = path.join(nodeModules(), '@modelcontextprotocol', 'inspector', 'cli', 'build', 'index.js');
const everythingMissing = hasModule('@modelcontextprotocol/server-everything')
  ? null
  : 'npm @modelcontextprotocol/server-everything is not installed';
const inspectorMissing = hasModule('@modelcontextprotocol/inspector') && node22()
  ? null
  : 'npm @modelcontextprotocol/inspector (and Node >= 22) not installed';

async function ours(url, args) {
  const { stdout } = await run(process.execPath, [client, ...args, url], { timeout: 30_000 });
  return JSON.parse(stdout);
}

async function reference(url, args) {
  const { stdout } = await run(node22(), [inspector, url, '--transport', 'http', ...args], { timeout: 60_000 });
  return JSON.parse(stdout);
}

// [our arguments, the Inspector's arguments]
const cases = [
  [['--method', 'tools/list'], ['--method', 'tools/list']],
  [['--method', 'tools/call', '--tool', 'get-sum', '--args', '{"a": 2, "b": 40}'], ['--method', 'tools/call', '--tool-name', 'get-sum', '--tool-arg', 'a=2', '--tool-arg', 'b=40']],
  [['--method', 'tools/call', '--tool', 'get-structured-content', '--tool-arg', 'location=Chicago'], ['--method', 'tools/call', '--tool-name', 'get-structured-content', '--tool-arg', 'location=Chicago']],
  [['--method', 'tools/call', '--tool', 'get-tiny-image'], ['--method', 'tools/call', '--tool-name', 'get-tiny-image']],
  [['--method', 'prompts/list'], ['--method', 'prompts/list']],
  [['--method', 'prompts/get', '--prompt', 'args-prompt', '--args', '{"city": "Paris"}'], ['--method', 'prompts/get', '--prompt-name', 'args-prompt', '--prompt-args', 'city=Paris']],
  [['--method', 'resources/list'], ['--method', 'resources/list']],
  [['--method', 'resources/templates/list'], ['--method', 'resources/templates/list']],
  [['--method', 'resources/read', '--uri', 'demo://resource/static/document/features.md'], ['--method', 'resources/read', '--uri', 'demo://resource/static/document/features.md']],
];

describe('client.mjs command line', { skip: everythingMissing ?? false }, () => {
  let server;
  before(async () => {
    server = await startServerEverything('streamableHttp');
  });
  after(async () => {
    await server?.stop();
  });

  for (const [mine, theirs] of cases) {
    test(`${mine.join(' ')} matches the MCP Inspector CLI`, { skip: inspectorMissing ?? false }, async () => {
      const [a, b] = await Promise.all([ours(server.url, mine), reference(server.url, theirs)]);
      assert.deepEqual(a, b);
    });
  }

  test('failures print {kind, message, hint} and exit 1', async () => {
    const bad = `http://127.0.0.1:${server.port}/nothing-here`;
    const error = await run(process.execPath, [client, '--transport', 'streamable', '--method', 'tools/list', bad], { timeout: 30_000 })
      .then(() => null, (e) => e);
    assert.equal(error?.code, 1);
    const report = JSON.parse(error.stderr.trim().split('\n').at(-1));
    assert.equal(report.kind, 'http');
    assert.match(report.message, /404/);
    assert.match(report.hint, /\/mcp/);
  });

  test('custom headers are sent', async () => {
    // server-everything ignores unknown headers; the call succeeding with one set proves the
    // header reached fetch without breaking the request.
    const out = await ours(server.url, ['--header', 'X-Relay-Test: yes', '--method', 'tools/call', '--tool', 'echo', '--args', '{"message": "h"}']);
    assert.equal(out.content[0].text, 'Echo: h');
  });
});
