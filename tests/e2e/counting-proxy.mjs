// A pass-through HTTP proxy in front of an MCP server that records every `tools/call` it
// forwards: the witness, at the server's door, that a call ran exactly once (the extension's
// own records could be wrong in the same way as its decisions). Bound to 127.0.0.1 on a port
// the OS picks; responses (JSON or SSE streams) are piped through unchanged.
import { createServer, request } from 'node:http';

/**
 * Starts a proxy to `target` (an MCP endpoint URL). Returns `{url, calls, count(tool, match?),
 * close()}`: `url` is the target's URL on the proxy, `calls` every `{name, arguments}` in the
 * order the proxy received them.
 * @param {string} target
 */
export async function startCountingProxy(target) {
  const to = new URL(target);
  /** @type {{name: string, arguments: any}[]} */
  const calls = [];
  const server = createServer((req, res) => {
    /** @type {Buffer[]} */
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      try {
        const msg = JSON.parse(body.toString('utf8'));
        for (const m of Array.isArray(msg) ? msg : [msg]) {
          if (m && m.method === 'tools/call' && m.params) calls.push({ name: m.params.name, arguments: m.params.arguments || {} });
        }
      } catch { /* not JSON (a GET, an empty body): forwarded as it is */ }
      const headers = { ...req.headers, host: to.host };
      const up = request({ hostname: to.hostname, port: to.port, path: req.url, method: req.method, headers }, (r) => {
        res.writeHead(r.statusCode || 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => { if (!res.headersSent) res.writeHead(502); res.end(); });
      res.on('close', () => up.destroy());
      up.end(body);
    });
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', () => ok(undefined)));
  const { port } = /** @type {import('node:net').AddressInfo} */ (server.address());
  return {
    url: `http://127.0.0.1:${port}${to.pathname}${to.search}`,
    calls,
    /** How many calls of `tool` (whose arguments pass `match`, when given) the server received. */
    count: (/** @type {string} */ tool, /** @type {(a: any) => boolean} */ match = () => true) => calls.filter((c) => c.name === tool && match(c.arguments)).length,
    close: () => new Promise((ok) => { server.closeAllConnections(); server.close(() => ok(undefined)); }),
  };
}
