// @ts-check
// The native host's bridge (ARCHITECTURE.md, "crates/relay-host"): the median round trip of a
// tools/call `echo` against a standard-library stdio server, straight over its stdio and through
// relay-host's Streamable HTTP on 127.0.0.1 (plain fetch, the host's secret). What the bridge
// adds is the cost of serving local servers over HTTP instead of MCP over the native port.
// Goal: under 2 ms added. Run by `cargo xtask bench`, or alone after `cargo build -p
// relay-host`: `node tests/bench/host-bridge.bench.mjs`.
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { ROOT, TARGET } from '../e2e/harness.mjs';

const HOST = process.env.RELAY_HOST || join(TARGET, 'debug/relay-host');
const SERVER = join(ROOT, 'crates/relay-host/tests/fixtures/stdio_server.py');
const CALLS = Number(process.env.DEMO_BENCH_CALLS || 300);
const init = { jsonrpc: '2.0', id: 0, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'bench', version: '1' } } };
/** @param {number} id */
const call = (id) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { text: 'x'.repeat(100) } } });
/** @param {number[]} a */
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];

/** @param {(m: object) => Promise<unknown>} roundTrip */
async function time(roundTrip) {
  await roundTrip(init);
  const t = [];
  for (let i = 1; i <= CALLS; i++) {
    const start = performance.now();
    await roundTrip(call(i));
    t.push(performance.now() - start);
  }
  return median(t);
}

async function direct() {
  const child = spawn('python3', ['-u', SERVER], { stdio: ['pipe', 'pipe', 'ignore'] });
  let buffer = '';
  /** @type {((line: string) => void)[]} */
  const waiting = [];
  child.stdout.on('data', (d) => {
    buffer += d;
    for (let i; (i = buffer.indexOf('\n')) >= 0; buffer = buffer.slice(i + 1)) waiting.shift()?.(buffer.slice(0, i));
  });
  try {
    return await time((m) => new Promise((resolve) => { waiting.push(resolve); child.stdin.write(JSON.stringify(m) + '\n'); }));
  } finally {
    child.kill();
  }
}

async function bridged() {
  const dir = mkdtempSync(join(tmpdir(), 'mcp-relay-host-bench-'));
  const env = { ...process.env, RELAY_HOST_CONFIG_DIR: dir };
  execFileSync(HOST, ['add', 'bench', '--', 'python3', '-u', SERVER], { env });
  const host = spawn(HOST, ['chrome-extension://abcdefghijklmnopabcdefghijklmnop/'], { env, stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    /** @type {{url: string, token: string}} */
    const endpoint = await new Promise((resolve, reject) => {
      let acc = Buffer.alloc(0);
      host.stdout.on('data', (d) => {
        acc = Buffer.concat([acc, d]);
        while (acc.length >= 4 && acc.length >= 4 + acc.readUInt32LE(0)) {
          const n = acc.readUInt32LE(0);
          const m = JSON.parse(acc.subarray(4, 4 + n).toString());
          acc = acc.subarray(4 + n);
          if (m.id === 1) (m.ok ? resolve(m.data) : reject(new Error(JSON.stringify(m.error))));
        }
      });
      const body = Buffer.from(JSON.stringify({ type: 'open', name: 'bench', id: 1 }));
      const len = Buffer.alloc(4);
      len.writeUInt32LE(body.length);
      host.stdin.write(Buffer.concat([len, body]));
    });
    return await time(async (m) => {
      const response = await fetch(endpoint.url, {
        method: 'POST',
        headers: { Authorization: `Bearer ${endpoint.token}`, 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify(m),
      });
      return response.text();
    });
  } finally {
    host.stdin.end();
    rmSync(dir, { recursive: true, force: true });
  }
}

const stdio = await direct();
const http = await bridged();
console.error(`tools/call echo, median of ${CALLS}: stdio ${stdio.toFixed(3)} ms, through relay-host ${http.toFixed(3)} ms`);
console.log(JSON.stringify({ host_bridge_stdio_ms: stdio, host_bridge_http_ms: http, host_bridge_added_ms: http - stdio }));
