// Shared harness of the browser tests and the demo: Debian's Chromium with the unpacked
// extension (the repository root), static servers on 127.0.0.1, child processes stopped by pid.
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, extname, resolve, dirname } from 'node:path';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';

export const ROOT = process.env.RELAY_ROOT || resolve(dirname(fileURLToPath(import.meta.url)), '../..');
export const TARGET = process.env.RELAY_TARGET || join(ROOT, 'target');

/**
 * Launches Chromium with the extension loaded; resolves once its service worker runs. A given
 * `userDataDir` (a profile the caller prepared) is kept on close; a fresh one is removed. `lang`
 * (e.g. 'zh-CN') is the browser's UI language, which content scripts' chrome.i18n follows. `env`
 * adds variables to Chromium's environment (a native host it starts inherits them).
 */
export async function launchExtension({ headed = false, extensionDir = ROOT, userDataDir: given = '', lang = '', env = {} } = {}) {
  if (!existsSync(join(extensionDir, 'extension/pkg/relay_wasm_bg.wasm'))) {
    throw new Error('extension/pkg is missing: run `cargo xtask build` first');
  }
  const userDataDir = given || mkdtempSync(join(tmpdir(), 'mcp-relay-profile-'));
  const args = [
    headed ? null : '--headless=new',
    '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic',
    '--disable-background-networking', '--disable-component-update', '--disable-sync',
    `--disable-extensions-except=${extensionDir}`, `--load-extension=${extensionDir}`,
    '--disable-features=DisableLoadExtensionCommandLineSwitch',
    lang ? `--lang=${lang}` : null,
  ].filter(Boolean);
  const context = await chromium.launchPersistentContext(userDataDir, {
    executablePath: '/usr/bin/chromium', headless: false, args, viewport: { width: 1100, height: 800 },
    env: { ...process.env, ...env },
  });
  let sw = context.serviceWorkers()[0];
  if (!sw) sw = await context.waitForEvent('serviceworker', { timeout: 20_000 });
  const extensionId = new URL(sw.url()).host;
  return {
    context, sw, extensionId,
    url: (path) => `chrome-extension://${extensionId}/${path}`,
    async close() {
      await context.close().catch(() => {});
      if (!given) rmSync(userDataDir, { recursive: true, force: true });
    },
  };
}

/** The data of a success envelope; fails the test with the error of any other. */
export async function ok(envelope) {
  assert.equal(envelope.ok, true, JSON.stringify(envelope.error));
  return envelope.data;
}

/**
 * The rig of the demo chat tests: the demo MCP server, the demo chat fixture added as a custom
 * site with the generic adapter (its content script registered), the extension and a panel page.
 */
export async function startDemoChat({ lang = '' } = {}) {
  const server = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
    { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
  const chat = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
  const ext = await launchExtension({ lang });
  const panel = await openExtensionPage(ext, 'www/panel.html');
  const serverId = (await ok(await coreCall(panel, { type: 'servers/add', server: { name: 'demo', url: server.match[1] } }))).id;
  await ok(await coreCall(panel, { type: 'sites/add', origin: chat.origin, adapter: 'generic' }));
  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + chat.origin));
  return {
    ext, server, chat, panel, serverId,
    async close() {
      await ext.close();
      await chat.close();
      await server.stop();
    },
  };
}

/** Opens an extension page (side panel page as a tab) and returns the Playwright page. */
export async function openExtensionPage(ext, path) {
  const page = await ext.context.newPage();
  await page.goto(ext.url(path));
  return page;
}

/**
 * Stops the extension's service worker the way Chrome does when it idles it out: its DevTools
 * target closed, through a CDP session of `page`. Throws when no worker runs.
 * @param {{context: import('playwright-core').BrowserContext, extensionId: string}} ext
 * @param {import('playwright-core').Page} page
 */
export async function stopServiceWorker(ext, page) {
  const cdp = await ext.context.newCDPSession(page);
  const { targetInfos } = await cdp.send('Target.getTargets');
  const worker = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${ext.extensionId}/`));
  if (!worker) throw new Error('the extension service worker is not a target');
  await cdp.send('Target.closeTarget', { targetId: worker.targetId });
  await cdp.detach();
}

/** Sends a contract message from an extension page and returns the envelope. */
export async function coreCall(page, message) {
  return page.evaluate((m) => chrome.runtime.sendMessage(m), message);
}

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.mjs': 'text/javascript', '.css': 'text/css', '.json': 'application/json', '.png': 'image/png' };

/**
 * Serves a folder on 127.0.0.1 with a port chosen by the OS. `fallback(path)` names the file
 * (relative to `dir`) to serve for a path that has none, as a single-page app's server does.
 */
export async function serveStatic(dir, { routes = {}, fallback = null } = {}) {
  const server = createServer((req, res) => {
    const path = new URL(req.url, 'http://x').pathname;
    if (routes[path]) return routes[path](req, res);
    let file = resolve(dir, '.' + (path.endsWith('/') ? path + 'index.html' : path));
    if (fallback && !existsSync(file)) {
      const other = fallback(path);
      if (other) file = resolve(dir, other);
    }
    if (!file.startsWith(resolve(dir)) || !existsSync(file)) { res.writeHead(404); res.end('not found'); return; }
    res.writeHead(200, { 'content-type': TYPES[extname(file)] || 'application/octet-stream' });
    res.end(readFileSync(file));
  });
  await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
  const { port } = server.address();
  return { origin: `http://127.0.0.1:${port}`, port, close: () => new Promise((ok) => server.close(ok)) };
}

/**
 * Starts a child process and waits (bounded) for a stdout line matching `ready`; returns the
 * match, its recent stderr and a stop() that kills it by pid.
 */
export async function startProcess(cmd, args, { ready, env = {}, timeoutMs = 30_000, cwd = ROOT } = {}) {
  const child = spawn(cmd, args, { cwd, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => { stderr = (stderr + d).slice(-4000); });
  const match = await new Promise((ok, fail) => {
    let buf = '';
    const timer = setTimeout(() => fail(new Error(`${cmd} not ready in ${timeoutMs} ms; stderr: ${stderr}`)), timeoutMs);
    child.stdout.on('data', (d) => {
      buf += d;
      const m = buf.match(ready);
      if (m) { clearTimeout(timer); ok(m); }
    });
    child.on('exit', (code) => { clearTimeout(timer); fail(new Error(`${cmd} exited (${code}) before ready; stderr: ${stderr}`)); });
  });
  return {
    match, pid: child.pid,
    /** The last 4,000 characters the process wrote to stderr. */
    stderr: () => stderr,
    /** Calls `fn(chunk)` with everything the process writes to stderr from now on. */
    onStderr: (fn) => child.stderr.on('data', (d) => fn(String(d))),
    stop: () => new Promise((ok) => {
      if (child.exitCode !== null) return ok();
      child.once('exit', ok);
      process.kill(child.pid, 'SIGTERM');
      setTimeout(() => { if (child.exitCode === null) process.kill(child.pid, 'SIGKILL'); }, 3000).unref();
    }),
  };
}

/** Polls `fn` until it returns a truthy value, at most `timeoutMs`. */
export async function until(fn, { timeoutMs = 10_000, intervalMs = 50, what = 'condition' } = {}) {
  const end = Date.now() + timeoutMs;
  for (;;) {
    const v = await fn();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

// ---- our UI in a chat page: a closed shadow root ----------------------------------------------
//
// The content script's cards live in a closed shadow root (a page must not reach their buttons),
// which Playwright's locators do not pierce. The helpers below reach it the way only a debugger
// can: CDP's DOM domain with `pierce: true`, and click with real (trusted) mouse input.

const cdpSessions = new WeakMap();
async function cdpFor(page) {
  if (!cdpSessions.has(page)) cdpSessions.set(page, await page.context().newCDPSession(page));
  return cdpSessions.get(page);
}

/**
 * Node ids (CDP) of the elements matching `innerSelector` inside the closed shadow roots of the
 * elements matching `hostSelector`. Empty when there is none (yet).
 */
export async function closedShadowNodes(page, hostSelector, innerSelector) {
  const cdp = await cdpFor(page);
  const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
  const { nodeIds: hosts } = await cdp.send('DOM.querySelectorAll', { nodeId: root.nodeId, selector: hostSelector });
  const wanted = new Set(hosts);
  const shadowRoots = [];
  const walk = (node) => {
    if (wanted.has(node.nodeId)) for (const sr of node.shadowRoots || []) shadowRoots.push(sr);
    for (const child of node.children || []) walk(child);
  };
  walk(root);
  const found = [];
  for (const sr of shadowRoots) {
    const { nodeIds } = await cdp.send('DOM.querySelectorAll', { nodeId: sr.nodeId, selector: innerSelector });
    found.push(...nodeIds);
  }
  return found;
}

/** Waits (bounded) until `innerSelector` matches inside the host's closed shadow root. */
export async function waitInClosedShadow(page, hostSelector, innerSelector, { timeoutMs = 30_000 } = {}) {
  return until(async () => (await closedShadowNodes(page, hostSelector, innerSelector)).length > 0,
    { timeoutMs, intervalMs: 100, what: `${innerSelector} inside ${hostSelector}` });
}

/**
 * Runs `act` on the node ids of `innerSelector` inside the host's closed shadow root, again on
 * fresh ids when the page replaced a node between finding it and acting on it (the cards render
 * again whenever a call changes state; CDP then answers "No node with given id"). At most five
 * tries: a node that keeps going is a failure of its own.
 */
async function onFreshNodes(page, hostSelector, innerSelector, act) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await act(await closedShadowNodes(page, hostSelector, innerSelector));
    } catch (e) {
      if (attempt >= 5 || !/No node with given id|Could not find node with given id/.test(String(e?.message))) throw e;
    }
  }
}

/** innerText of each element matching `innerSelector` inside the host's closed shadow root. */
export async function textsInClosedShadow(page, hostSelector, innerSelector) {
  const cdp = await cdpFor(page);
  return onFreshNodes(page, hostSelector, innerSelector, async (nodeIds) => {
    const texts = [];
    for (const nodeId of nodeIds) {
      const { object } = await cdp.send('DOM.resolveNode', { nodeId });
      const { result } = await cdp.send('Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration: 'function () { return this.innerText; }', returnByValue: true });
      texts.push(result.value);
    }
    return texts;
  });
}

/**
 * Clicks the first element matching `innerSelector` inside the host's closed shadow root with
 * real mouse input at the centre of its box: a trusted click, as a user's.
 */
export async function trustedClickInClosedShadow(page, hostSelector, innerSelector) {
  const cdp = await cdpFor(page);
  const q = await onFreshNodes(page, hostSelector, innerSelector, ([nodeId]) => {
    if (!nodeId) throw new Error(`nothing matches ${innerSelector} inside ${hostSelector}`);
    return steadyBox(page, cdp, nodeId);
  });
  const x = (q[0] + q[2] + q[4] + q[6]) / 4;
  const y = (q[1] + q[3] + q[5] + q[7]) / 4;
  await page.bringToFront();
  await page.mouse.click(x, y);
}

/** The border quad of a node once it holds still, scrolled into view. */
async function steadyBox(page, cdp, nodeId) {
  // Where it is once it holds still: the cards are placed again after a render (a list opened,
  // the page scrolled), and a click aimed at the box of one frame lands beside it in the next.
  // Two boxes alike across two animation frames (of the page in front), at most 20 looks.
  await page.bringToFront();
  let q = null;
  for (let look = 0; look < 20; look++) {
    await cdp.send('DOM.scrollIntoViewIfNeeded', { nodeId });
    const { model } = await cdp.send('DOM.getBoxModel', { nodeId });
    const same = q && model.border.every((v, i) => v === q[i]);
    q = model.border; // x1,y1 … x4,y4 in CSS pixels of the main frame's viewport
    if (same) break;
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  }
  return q;
}

/**
 * Runs `fn` (source of a function taking the element as `this`) in the page's main world on
 * the first element matching `innerSelector` inside the closed shadow root: what a page script
 * could do if it ever got hold of one of our elements. Returns its value.
 */
export async function pageWorldCallInClosedShadow(page, hostSelector, innerSelector, fn) {
  const cdp = await cdpFor(page);
  const { result, exceptionDetails } = await onFreshNodes(page, hostSelector, innerSelector, async ([nodeId]) => {
    if (!nodeId) throw new Error(`nothing matches ${innerSelector} inside ${hostSelector}`);
    const { object } = await cdp.send('DOM.resolveNode', { nodeId });
    return cdp.send('Runtime.callFunctionOn', { objectId: object.objectId, functionDeclaration: fn, returnByValue: true, awaitPromise: true });
  });
  if (exceptionDetails) throw new Error(exceptionDetails.text);
  return result.value;
}
