// The official MCP Apps example server `@modelcontextprotocol/server-basic-vanillajs` (npm, pinned
// in package.json), served over Streamable HTTP on 127.0.0.1 only.
//
//     node tests/apps/example-server.mjs [PORT]      (or PORT=N; 0 or nothing: a free port)
//
// Its own main (dist/index.js) binds 0.0.0.0, so it is not run: this file imports the package's
// `createServer` and serves it the way that main does (a new server and a stateless
// `NodeStreamableHTTPServerTransport` per request, permissive CORS), on a node:http server bound
// to 127.0.0.1. Prints `listening http://127.0.0.1:PORT/mcp` once it listens; stops on SIGTERM.

import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = process.env.RELAY_NODE_MODULES
  ?? path.join(path.dirname(new URL(import.meta.url).pathname), '..', '..', 'node_modules');
const load = (rel) => import(pathToFileURL(path.join(modules, ...rel.split('/'))).href);

const { createServer } = await load('@modelcontextprotocol/server-basic-vanillajs/dist/server.js');
const { NodeStreamableHTTPServerTransport } = await load('@modelcontextprotocol/node/dist/index.mjs');

const port = Number(process.argv[2] ?? process.env.PORT ?? 0);

function cors(res) {
  res.setHeader('Access-Control-Allow-Origin', '*');
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, DELETE, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', '*');
  res.setHeader('Access-Control-Expose-Headers', 'Mcp-Session-Id, Mcp-Protocol-Version');
}

const httpServer = http.createServer(async (req, res) => {
  cors(res);
  const { pathname } = new URL(req.url ?? '/', 'http://127.0.0.1');
  if (req.method === 'OPTIONS') {
    res.writeHead(204).end();
    return;
  }
  if (pathname !== '/mcp') {
    res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
    return;
  }
  const server = createServer();
  const transport = new NodeStreamableHTTPServerTransport({ sessionIdGenerator: undefined });
  res.on('close', () => {
    transport.close().catch(() => {});
    server.close().catch(() => {});
  });
  try {
    await server.connect(transport);
    await transport.handleRequest(req, res);
  } catch (error) {
    console.error('MCP error:', error);
    if (!res.headersSent) {
      res.writeHead(500, { 'content-type': 'application/json' }).end(JSON.stringify({
        jsonrpc: '2.0', error: { code: -32603, message: 'Internal server error' }, id: null,
      }));
    }
  }
});

httpServer.listen(port, '127.0.0.1', () => {
  console.log(`listening http://127.0.0.1:${httpServer.address().port}/mcp`);
});
const shutdown = () => {
  httpServer.close(() => process.exit(0));
  httpServer.closeAllConnections?.();
  setTimeout(() => process.exit(0), 1_000).unref();
};
process.on('SIGINT', shutdown);
process.on('SIGTERM', shutdown);
