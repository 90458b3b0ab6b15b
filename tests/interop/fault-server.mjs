#!/usr/bin/env node
// A small Streamable HTTP MCP server that misbehaves on request, for fault tests and the
// latency benchmark. Listens on 127.0.0.1 only, on `--port` (default: chosen by the OS), and
// prints `READY <url>` when listening.
//
//   node tests/interop/fault-server.mjs [--port N] [--sse]      (--sse: answer POSTs as SSE)
//
// Tools: echo (text), hang (never answers), cut (SSE cut mid-event), malformed (truncated JSON),
// big {mb} (a text result of `mb` megabytes), expire_session (forgets every session), and
// arm {fault: "503" | "cut" | "hang"} (the next tools/list fails that way, once).
// GET /stats → {initialize, posts, toolsList, toolsCall, sessions}.

import http from 'node:http';
import { randomUUID } from 'node:crypto';

const args = process.argv.slice(2);
const portArg = args.indexOf('--port');
const port = portArg >= 0 ? Number(args[portArg + 1]) : 0;
const answerWithSse = args.includes('--sse');

const sessions = new Set();
const stats = { initialize: 0, posts: 0, toolsList: 0, toolsCall: 0, sessions: 0 };
let armed = null;

const tools = [
  { name: 'echo', description: 'Echo the message.', inputSchema: { type: 'object', properties: { message: { type: 'string' } } } },
  { name: 'hang', description: 'Never answers.', inputSchema: { type: 'object' } },
  { name: 'cut', description: 'Cuts its SSE answer mid-event.', inputSchema: { type: 'object' } },
  { name: 'malformed', description: 'Answers with truncated JSON.', inputSchema: { type: 'object' } },
  { name: 'big', description: 'Answers with `mb` megabytes of text.', inputSchema: { type: 'object', properties: { mb: { type: 'number' } } } },
  { name: 'expire_session', description: 'Forgets every session.', inputSchema: { type: 'object' } },
  { name: 'arm', description: 'Makes the next tools/list fail.', inputSchema: { type: 'object', properties: { fault: { enum: ['503', 'cut', 'hang'] } } } },
];

function reply(res, message, sessionId) {
  const headers = sessionId ? { 'mcp-session-id': sessionId } : {};
  if (answerWithSse) {
    res.writeHead(200, { ...headers, 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.end(`event: message\ndata: ${JSON.stringify(message)}\n\n`);
  } else {
    const body = JSON.stringify(message);
    res.writeHead(200, { ...headers, 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  }
}

function result(id, value) {
  return { jsonrpc: '2.0', id, result: value };
}

function handleRpc(req, res, message) {
  const { id, method, params } = message;
  if (method === 'initialize') {
    stats.initialize += 1;
    const sessionId = randomUUID();
    sessions.add(sessionId);
    stats.sessions = sessions.size;
    const version = params?.protocolVersion ?? '2025-11-25';
    reply(res, result(id, {
      protocolVersion: version,
      capabilities: { tools: {} },
      serverInfo: { name: 'relay-fault-server', version: '1.0.0' },
    }), sessionId);
    return;
  }
  const sessionId = req.headers['mcp-session-id'];
  if (!sessionId || !sessions.has(sessionId)) {
    res.writeHead(sessionId ? 404 : 400, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32001, message: 'Session not found' } }));
    return;
  }
  if (id === undefined) {
    res.writeHead(202);
    res.end();
    return;
  }
  if (method === 'ping') return reply(res, result(id, {}));
  if (method === 'tools/list') {
    stats.toolsList += 1;
    const fault = armed;
    armed = null;
    if (fault === '503') {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('overloaded, try again');
      return;
    }
    if (fault === 'cut') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"to`);
      setTimeout(() => res.socket?.destroy(), 20);
      return;
    }
    if (fault === 'hang') return; // never answered; the client's timeout decides
    return reply(res, result(id, { tools }));
  }
  if (method === 'tools/call') {
    stats.toolsCall += 1;
    const name = params?.name;
    const input = params?.arguments ?? {};
    switch (name) {
      case 'echo':
        return reply(res, result(id, { content: [{ type: 'text', text: `Echo: ${input.message ?? ''}` }] }));
      case 'hang':
        return; // kept open until the client gives up or the process dies
      case 'cut':
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        res.write(`event: message\ndata: {"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[{"type":"te`);
        setTimeout(() => res.socket?.destroy(), 20);
        return;
      case 'malformed':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(`{"jsonrpc":"2.0","id":${JSON.stringify(id)},"result":{"content":[`);
        return;
      case 'big': {
        const text = 'x'.repeat(Math.round((input.mb ?? 10) * 1024 * 1024));
        return reply(res, result(id, { content: [{ type: 'text', text }] }));
      }
      case 'expire_session':
        sessions.clear();
        stats.sessions = 0;
        return reply(res, result(id, { content: [{ type: 'text', text: 'sessions cleared' }] }));
      case 'arm':
        armed = String(input.fault ?? '503');
        return reply(res, result(id, { content: [{ type: 'text', text: `armed ${armed}` }] }));
      default:
        return reply(res, { jsonrpc: '2.0', id, error: { code: -32602, message: `Unknown tool: ${name}` } });
    }
  }
  reply(res, { jsonrpc: '2.0', id, error: { code: -32601, message: `Method not found: ${method}` } });
}

const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/stats') {
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(stats));
    return;
  }
  if (req.method === 'GET') {
    res.writeHead(405, { allow: 'POST, DELETE' });
    res.end();
    return;
  }
  if (req.method === 'DELETE') {
    sessions.delete(req.headers['mcp-session-id']);
    stats.sessions = sessions.size;
    res.writeHead(200);
    res.end();
    return;
  }
  if (req.method !== 'POST') {
    res.writeHead(405);
    res.end();
    return;
  }
  stats.posts += 1;
  const chunks = [];
  req.on('data', (c) => chunks.push(c));
  req.on('end', () => {
    let message;
    try {
      message = JSON.parse(Buffer.concat(chunks).toString('utf8'));
    } catch {
      res.writeHead(400, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    handleRpc(req, res, message);
  });
});

server.keepAliveTimeout = 60_000;
server.listen(port, '127.0.0.1', () => {
  process.stdout.write(`READY http://127.0.0.1:${server.address().port}/mcp\n`);
});
