#!/usr/bin/env node
// Added latency of a tools/call made through the core's MCP client (Node build) compared with
// the same call made directly with plain fetch, on loopback; and the number of initialize
// requests the client sends for 100 calls (must be 1).
//
//   node tests/interop/latency.mjs [--calls N] [--sse]
//
// Prints one JSON object: {"added_latency_ms_median": x, "initialize_requests": n, ...details};
// the added latency is the median of per-pair differences (each pair: one call each way, back
// to back, alternating which goes first).
// The server is tests/interop/fault-server.mjs (JSON answers, or SSE with --sse): a minimal
// server keeps its own cost small and steady, so the difference is the client's.

import path from 'node:path';
import { performance } from 'node:perf_hooks';

import { loadRelay, repoRoot, startProcess } from './lib.mjs';

const args = process.argv.slice(2);
const callsArg = args.indexOf('--calls');
const calls = Math.max(200, callsArg >= 0 ? Number(args[callsArg + 1]) : 300);
const sse = args.includes('--sse');
const warmup = 30;

function median(values) {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
}

function percentile(values, p) {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))];
}

const round = (x) => Math.round(x * 1000) / 1000;

/** The same exchange as the client's, by hand: one session, then a POST per call. */
async function directClient(url) {
  const base = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const readMessage = async (response) => {
    const text = await response.text();
    if (!(response.headers.get('content-type') ?? '').includes('text/event-stream')) return JSON.parse(text);
    const data = text.split('\n').filter((l) => l.startsWith('data:')).map((l) => l.slice(5).trim()).join('\n');
    return JSON.parse(data);
  };
  const init = await fetch(url, {
    method: 'POST',
    headers: base,
    body: JSON.stringify({
      jsonrpc: '2.0', id: 0, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'direct', version: '1' } },
    }),
  });
  const session = init.headers.get('mcp-session-id');
  const version = (await readMessage(init)).result.protocolVersion;
  const headers = { ...base, 'mcp-session-id': session, 'mcp-protocol-version': version };
  await (await fetch(url, { method: 'POST', headers, body: JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }) })).text();
  let id = 1;
  return async (message) => {
    id += 1;
    const response = await fetch(url, {
      method: 'POST',
      headers,
      body: JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name: 'echo', arguments: { message } } }),
    });
    const answer = await readMessage(response);
    if (!answer.result) throw new Error(`direct call failed: ${JSON.stringify(answer)}`);
    return answer.result;
  };
}

async function serverStats(url) {
  return (await fetch(new URL('/stats', url))).json();
}

async function main() {
  const { RelayClient } = loadRelay();
  const script = path.join(repoRoot, 'tests', 'interop', 'fault-server.mjs');
  const server = await startProcess(process.execPath, [script, ...(sse ? ['--sse'] : [])], { ready: /READY (\S+)/ });
  const url = server.match[1];
  try {
    const direct = await directClient(url);
    const before = await serverStats(url);
    const relay = new RelayClient([{ id: 'bench', name: 'bench', url }], {});
    const viaRelay = (message) => relay.request('bench', { method: 'tools/call', name: 'echo', arguments: { message } });

    // 100 calls on a fresh client: one initialize, reused by every call.
    for (let i = 0; i < 100; i += 1) await viaRelay(`warm ${i}`);
    const initializeRequests = (await serverStats(url)).initialize - before.initialize;
    for (let i = 0; i < warmup; i += 1) await direct(`warm ${i}`);

    const directMs = [];
    const relayMs = [];
    const pairedMs = [];
    for (let i = 0; i < calls; i += 1) {
      // Alternate which goes first, so neither always meets a warmer socket or JIT.
      const order = i % 2 ? [['relay', viaRelay], ['direct', direct]] : [['direct', direct], ['relay', viaRelay]];
      for (const [which, call] of order) {
        const started = performance.now();
        const result = await call(`call ${i}`);
        const elapsed = performance.now() - started;
        if (result.content[0].text !== `Echo: call ${i}`) throw new Error(`wrong answer ${JSON.stringify(result)}`);
        (which === 'relay' ? relayMs : directMs).push(elapsed);
      }
      pairedMs.push(relayMs.at(-1) - directMs.at(-1));
    }
    relay.close();
    // The two calls of a pair run back to back, so they share the machine's momentary load;
    // the median of their differences is far less noisy on a busy machine than the difference
    // of the two medians (both are reported).
    const report = {
      added_latency_ms_median: round(median(pairedMs)),
      added_latency_ms_difference_of_medians: round(median(relayMs) - median(directMs)),
      initialize_requests: initializeRequests,
      relay_ms_median: round(median(relayMs)),
      direct_ms_median: round(median(directMs)),
      relay_ms_p90: round(percentile(relayMs, 90)),
      direct_ms_p90: round(percentile(directMs, 90)),
      calls,
      server: `fault-server (${sse ? 'SSE' : 'JSON'} answers), loopback`,
    };
    process.stdout.write(`${JSON.stringify(report)}\n`);
  } finally {
    await server.stop();
  }
}

main().then(() => process.exit(0), (error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
