// The demo MCP server's tools/call round trip with an SSE answer, on loopback, from plain fetch:
// the figure that shows Nagle's algorithm (an SSE answer's second write waiting for the
// client's delayed ACK adds ~40 ms to every call; with TCP_NODELAY a call takes about a
// millisecond). It was a timed assertion in crates/relay-demo-server/tests; timings belong here.
// Goal: median under 20 ms. Run by `cargo xtask bench`, or alone (after `cargo build -p
// relay-demo-server`): `node tests/bench/demo-server.bench.mjs`.
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startProcess, TARGET } from '../e2e/harness.mjs';

const CALLS = Number(process.env.DEMO_BENCH_CALLS || 200);
const WARMUP = 20;
const PROTOCOL = '2025-11-25';

const server = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
  { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
const url = server.match[1];
try {
  let session = null;
  let id = 0;
  /** One JSON-RPC message; the answer's text (JSON or SSE), read to its end. */
  const post = async (body) => {
    const headers = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream', 'MCP-Protocol-Version': PROTOCOL };
    if (session) headers['Mcp-Session-Id'] = session;
    const response = await fetch(url, { method: 'POST', headers, body: JSON.stringify(body) });
    session = response.headers.get('mcp-session-id') || session;
    const text = await response.text();
    if (!response.ok) throw new Error(`HTTP ${response.status}: ${text}`);
    return { text, type: response.headers.get('content-type') || '' };
  };
  await post({ jsonrpc: '2.0', id: ++id, method: 'initialize', params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'demo-server-bench', version: '0' } } });
  await post({ jsonrpc: '2.0', method: 'notifications/initialized' });
  const times = [];
  for (let i = 0; i < WARMUP + CALLS; i++) {
    const started = performance.now();
    const answer = await post({ jsonrpc: '2.0', id: ++id, method: 'tools/call', params: { name: 'add', arguments: { a: 1, b: 2 } } });
    const elapsed = performance.now() - started;
    if (!answer.type.includes('text/event-stream') || !answer.text.includes('"3"')) throw new Error(`unexpected answer (${answer.type}): ${answer.text}`);
    if (i >= WARMUP) times.push(elapsed);
  }
  times.sort((a, b) => a - b);
  const median = times[times.length >> 1];
  console.error(`demo server tools/call (SSE answer): median ${median.toFixed(2)} ms, p90 ${times[Math.floor(times.length * 0.9)].toFixed(2)} ms over ${CALLS} calls`);
  console.log(JSON.stringify({
    'demo server tools/call round trip, SSE answers (median)': { value: Number(median.toFixed(3)), unit: 'ms' },
  }));
} finally {
  await server.stop();
}
