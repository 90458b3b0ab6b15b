// Local (stdio) servers through the native host, end to end: Chromium with a temporary profile
// whose NativeMessagingHosts folder holds the test's host manifest (Chromium on Linux reads
// <user-data-dir>/NativeMessagingHosts), the host (`target/debug/relay-host`) started by Chrome
// on demand, server-everything in stdio mode and a Python `mcp` stdio server added through the
// host's command line (its list in a temporary folder, RELAY_HOST_CONFIG_DIR), listed in the
// panel, their tools run by hand and from the demo chat, stopped by the host when idle; the
// attacks of SECURITY.md ("The native host"); and an mcpServers import into both places.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync, existsSync, rmSync, chmodSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SITES_DIR, loadAdapters, waitForReply } from '../fixtures/sites/_shared/loop.mjs';
import {
  launchExtension, openExtensionPage, coreCall, ok, until, serveStatic, startProcess, stopServiceWorker, ROOT, TARGET,
} from './harness.mjs';

const HOST = process.env.RELAY_HOST || join(TARGET, 'debug/relay-host');
const PYTHON = join(TARGET, 'venv/bin/python');
const PY_SERVER = join(ROOT, 'tests/interop/servers/py_stdio_server.py');
const EVERYTHING = join(ROOT, 'node_modules/@modelcontextprotocol/server-everything/dist/index.js');
// The id Chrome derives from manifest.json's `key` (crates/xtask/src/host.rs checks the same).
const EXTENSION_ID = 'ellfknbogpmjfnllbfnllmflekcknadb';

let dir, config, ext, panel, demo, chat;
const pidFile = () => join(dir, 'py.pids');
const confirmLog = () => join(dir, 'confirmed.txt');
const callsFile = () => join(dir, 'calls.txt');

/** The host's command line, with the test's list. */
function host(...args) {
  return execFileSync(HOST, args, { env: { ...process.env, RELAY_HOST_CONFIG_DIR: config }, encoding: 'utf8' });
}

function alive(pid) {
  try {
    process.kill(pid, 0);
    return !readFileSync(`/proc/${pid}/stat`, 'utf8').includes(') Z ');
  } catch {
    return false;
  }
}

const localList = async () => ok(await coreCall(panel, { type: 'local/list' }));
const serverOf = async (name) => (await localList()).servers.find((s) => s.name === name);

before(async () => {
  for (const [what, path] of [['relay-host (cargo xtask build)', HOST], ['the venv (cargo xtask setup)', PYTHON], ['server-everything (npm ci)', EVERYTHING]]) {
    assert.ok(existsSync(path), `${what} is missing: ${path}`);
  }
  dir = mkdtempSync(join(tmpdir(), 'mcp-relay-host-'));
  config = join(dir, 'config');
  const profile = join(dir, 'profile');
  mkdirSync(join(profile, 'NativeMessagingHosts'), { recursive: true });
  host('install', '--extension-id', EXTENSION_ID, '--dir', join(profile, 'NativeMessagingHosts'));
  host('add', 'everything', '--', process.execPath, EVERYTHING, 'stdio');
  host('add', 'py', '--env', `PID_FILE=${pidFile()}`, '--env', `CALLS_FILE=${callsFile()}`, '--', PYTHON, PY_SERVER);
  // The host's own confirmation dialog, answered yes; it keeps what it was shown.
  const confirm = join(dir, 'confirm.sh');
  writeFileSync(confirm, `#!/bin/sh\nprintf '%s' "$1" > '${confirmLog()}'\nexit 0\n`);
  chmodSync(confirm, 0o755);
  ext = await launchExtension({
    userDataDir: profile,
    env: { RELAY_HOST_CONFIG_DIR: config, RELAY_HOST_IDLE_MS: '4000', RELAY_HOST_BACKOFF_MS: '200', RELAY_HOST_CONFIRM: confirm },
  });
  panel = await openExtensionPage(ext, 'www/panel.html');
});

after(async () => {
  await ext?.close();
  // Chrome closed the port: the host stops its servers and exits.
  if (existsSync(pidFile())) {
    const pids = readFileSync(pidFile(), 'utf8').trim().split('\n').map(Number);
    await until(() => pids.every((p) => !alive(p)), { timeoutMs: 10_000, what: 'the local servers to exit with Chrome' });
  }
  await chat?.close();
  await demo?.stop();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the manifest key fixes the extension id the host manifest names', () => {
  assert.equal(ext.extensionId, EXTENSION_ID);
});

test('servers added with the host CLI are listed in the panel, marked local, and their tools run by hand', async () => {
  await panel.click('#tab-servers');
  for (const name of ['everything', 'py']) {
    await panel.locator(`li.server .local-server[data-local="${name}"]`).waitFor({ timeout: 20_000 });
  }
  assert.match(await panel.locator('.local-server[data-local="py"] .local-command code').innerText(), /py_stdio_server\.py/);
  // The user has local servers: their section is open (it folds away only for those without).
  await panel.locator('details.local-host[open] .local-body .hint').waitFor({ timeout: 10_000 });
  mkdirSync(join(TARGET, 'screenshots'), { recursive: true });
  await panel.screenshot({ path: join(TARGET, 'screenshots/local-servers.png'), fullPage: true });
  // The panel's refresh added them; a list made meanwhile may not name their ids yet.
  await until(async () => (await localList()).servers.every((s) => s.serverId), { what: 'both local servers in the extension' });
  const list = await localList();
  assert.equal(list.installed, true);
  const ids = (await ok(await coreCall(panel, { type: 'servers/list' }))).filter((s) => s.local).map((s) => s.local).sort();
  assert.deepEqual(ids, ['everything', 'py'], 'each local server once');
  const py = list.servers.find((s) => s.name === 'py');
  const everything = list.servers.find((s) => s.name === 'everything');
  assert.ok(py.serverId && everything.serverId, 'both are servers of the extension');
  const result = await ok(await coreCall(panel, { type: 'tools/call', serverId: py.serverId, tool: 'echo', arguments: { message: 'from python' } }));
  assert.equal(result.result.content[0].text, 'Echo: from python');
  const fromNode = await ok(await coreCall(panel, { type: 'tools/call', serverId: everything.serverId, tool: 'echo', arguments: { message: 'from node' } }));
  assert.match(fromNode.result.content[0].text, /from node/);
  assert.equal((await serverOf('py')).status, 'running');
});

test('the host stops idle servers', async () => {
  await ok(await coreCall(panel, { type: 'tools/call', serverId: (await serverOf('py')).serverId, tool: 'echo', arguments: { message: 'x' } }));
  const pid = Number(readFileSync(pidFile(), 'utf8').trim().split('\n').at(-1));
  assert.ok(alive(pid), 'the server runs after a call');
  await until(async () => (await localList()).servers.every((s) => s.status === 'stopped'), { timeoutMs: 20_000, what: 'both servers stopped when idle' });
  assert.equal((await serverOf('py')).detail, 'idle');
  await until(() => !alive(pid), { timeoutMs: 5_000, what: `the idle server's process ${pid} to exit` });
  // Asked again, it starts again (the host initializes it with the client's own initialize).
  const again = await ok(await coreCall(panel, { type: 'tools/call', serverId: (await serverOf('py')).serverId, tool: 'echo', arguments: { message: 'again' } }));
  assert.equal(again.result?.content?.[0]?.text, 'Echo: again', JSON.stringify(again));
});

for (const name of ['py', 'everything']) {
  test(`the whole loop in the demo chat with a local server (${name})`, async () => {
    if (!chat) {
      chat = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
      await ok(await coreCall(panel, { type: 'sites/add', origin: chat.origin, adapter: 'generic' }));
      await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + chat.origin));
    }
    const serverId = (await serverOf(name)).serverId;
    await ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'echo', policy: 'allow' }));
    const page = await ext.context.newPage();
    // A conversation of its own per server, so each run's Activity holds only its own calls.
    await page.goto(`${chat.origin}/?conversation=${name}`);
    await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
    const tabs = await ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
    const chatRef = { tabId: Math.max(...tabs), url: page.url() };
    await ok(await coreCall(panel, { type: 'chat/set', chat: chatRef, settings: { serverIds: [serverId], autoExecute: true, autoSubmit: true } }));
    const prompt = await ok(await coreCall(panel, { type: 'prompt/build', chat: chatRef }));
    assert.ok(prompt.text.includes('echo'), 'the prompt describes the local server\'s tools');
    await ok(await coreCall(panel, { type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true }));
    const final = page.locator('.turn[data-role="assistant"]', { hasText: 'Final answer' });
    await final.waitFor({ timeout: 30_000 });
    await page.locator('#stop').waitFor({ state: 'hidden', timeout: 30_000 }); // the reply finished streaming
    assert.match(await final.innerText(), /Echo: hello from the demo/, 'the assistant saw the local server\'s real result');
    const calls = await ok(await coreCall(panel, { type: 'activity/list', chat: chatRef }));
    assert.deepEqual(calls.map((c) => `${c.tool}:${c.state}`), ['echo:done']);
    await page.close();
  });
}

test('attacks: no command rides on a message, unlisted and path names are refused, oversized messages too', async () => {
  const native = (request) => ext.sw.evaluate((r) => globalThis.relayNative(r).catch((e) => ({ rejected: String(e.message || e) })), request);
  const table = [
    [{ type: 'open', name: 'py', command: '/bin/sh', args: ['-c', 'touch /tmp/pwned'] }, 'badMessage'],
    [{ type: 'run', command: '/bin/sh' }, 'badMessage'],
    [{ type: 'open', name: 'not-listed' }, 'unknownServer'],
    [{ type: 'open', name: '../../bin/sh' }, 'badName'],
    [{ type: 'log', name: 'a/b' }, 'badName'],
  ];
  for (const [request, kind] of table) {
    const answer = await native(request);
    assert.equal(answer.ok, false, JSON.stringify(request));
    assert.equal(answer.error.kind, kind, JSON.stringify(answer));
  }
  const big = await native({ type: 'list', pad: 'x'.repeat(100_000) });
  assert.match(big.rejected, /larger than the local host accepts/);
  // The host still answers after all of that.
  assert.equal((await native({ type: 'list' })).ok, true);

  // Through the panel's own messages: the core refuses path names before asking the host.
  const pathName = await coreCall(panel, { type: 'local/log', name: '../../etc/passwd' });
  assert.equal(pathName.ok, false);
  assert.match(pathName.error.message, /not allowed/);
  const many = Array.from({ length: 40 }, (_, i) => ({ name: `s${i}`, command: 'true', args: [], env: {}, cwd: null, display: 'true' }));
  const flood = await coreCall(panel, { type: 'local/propose', servers: many });
  assert.equal(flood.ok, false);
  assert.match(flood.error.message, /1 to 32 servers/);
  assert.equal(existsSync(confirmLog()), false, 'the user was never asked');
});

test('a crashing server is contained: the call says so, the log shows why, the next call gets a fresh process', async () => {
  const serverId = (await serverOf('py')).serverId;
  const crashed = await coreCall(panel, { type: 'tools/call', serverId, tool: 'crash', arguments: {} });
  assert.equal(crashed.ok, false);
  // Not "refused": the server may have done part of it.
  assert.equal(crashed.error.kind, 'outcome_unknown', JSON.stringify(crashed.error));
  assert.match(crashed.error.message, /py stopped \(exit status: 3\)/, JSON.stringify(crashed.error));
  // The panel shows the host's status and the server's own last words.
  await panel.click('#tab-servers');
  const row = panel.locator('.local-server[data-local="py"]');
  await until(async () => ['crashed', 'running'].includes(await row.getAttribute('data-host-status')), { timeoutMs: 10_000, what: 'the crash in the panel' });
  await row.locator('button[data-action="local-log"]').click();
  await until(async () => (await row.locator('.local-log').innerText()).includes('crashing on purpose'), { timeoutMs: 10_000, what: 'the stderr line in the log' });
  const again = await ok(await coreCall(panel, { type: 'tools/call', serverId, tool: 'echo', arguments: { message: 'after the crash' } }));
  assert.equal(again.result.content[0].text, 'Echo: after the crash');
  // Restart from the panel: a new process, its start in the log.
  const starts = readFileSync(pidFile(), 'utf8').trim().split('\n').length;
  await panel.locator('.local-server[data-local="py"] button[data-action="local-restart"]').click();
  await until(() => readFileSync(pidFile(), 'utf8').trim().split('\n').length === starts + 1, { timeoutMs: 10_000, what: 'a new process after Restart' });
  await until(async () => (await panel.locator('.local-server[data-local="py"]').getAttribute('data-host-status')) === 'running', { timeoutMs: 10_000, what: 'running after Restart' });
});

test('an mcpServers file with stdio and HTTP entries imports into both places after one confirmation', async () => {
  demo = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
    { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
  const file = { mcpServers: { 'remote-demo': { url: demo.match[1] }, py2: { command: PYTHON, args: [PY_SERVER], env: { PID_FILE: pidFile() } } } };
  await panel.click('#tab-servers');
  await panel.click('#server-import');
  await panel.locator('.import-dialog textarea').fill(JSON.stringify(file));
  await panel.click('#import-preview');
  const shown = panel.locator('.import-dialog .import-local .local-command');
  await shown.waitFor({ timeout: 10_000 });
  const command = `PID_FILE=${pidFile()} ${PYTHON} ${PY_SERVER}`;
  assert.equal(await shown.innerText(), command, 'the exact command is shown to confirm');
  await panel.locator('.import-dialog .actions.end button.primary').click();
  await until(async () => {
    const servers = await ok(await coreCall(panel, { type: 'servers/list' }));
    const local = await serverOf('py2');
    return servers.some((s) => s.name === 'remote-demo') && local && local.serverId;
  }, { timeoutMs: 20_000, what: 'the remote server in the extension and py2 in the host' });
  assert.match(readFileSync(confirmLog(), 'utf8'), new RegExp(`py2: ${command.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}`), 'the host asked the user itself, showing the command');
  assert.match(host('list'), /^py2: /m, 'the host\'s own list holds it');
  // Removed from the host's list with its command line: gone from the extension's too.
  host('remove', 'py2');
  await localList();
  const after = await ok(await coreCall(panel, { type: 'servers/list' }));
  assert.deepEqual(after.filter((s) => s.local).map((s) => s.local).sort(), ['everything', 'py']);
});

test('the worker stopped mid-call on a local server: the call becomes unknown, never runs again, and the next call works', async () => {
  const serverId = (await serverOf('py')).serverId;
  await ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'slow', policy: 'allow' }));
  const site = await serveStatic(SITES_DIR, { fallback: (path) => (path.includes('/_shared/') ? path.slice(path.indexOf('/_shared/') + 1) : 'chatgpt/index.html') });
  try {
    await ok(await coreCall(panel, { type: 'sites/add', origin: site.origin, adapter: 'chatgpt' }));
    await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin));
    const page = await ext.context.newPage();
    await page.goto(`${site.origin}/chatgpt/?tool=slow&args=${encodeURIComponent(JSON.stringify({ seconds: 4 }))}`);
    await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
    const tabs = await ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
    const chatRef = { tabId: Math.max(...tabs), url: page.url() };
    await ok(await coreCall(panel, { type: 'chat/set', chat: chatRef, settings: { serverIds: [serverId], autoExecute: true, autoSubmit: true } }));
    const prompt = await ok(await coreCall(panel, { type: 'prompt/build', chat: chatRef }));
    await ok(await coreCall(panel, { type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true }));
    const states = async () => (await ok(await coreCall(panel, { type: 'activity/list', chat: { ...chatRef, url: page.url() } }))).map((c) => `${c.tool}:${c.state}`);
    await until(async () => (await states()).includes('slow:running') && existsSync(callsFile()), { timeoutMs: 20_000, what: 'the slow call running in the local server' });
    const pid = Number(readFileSync(pidFile(), 'utf8').trim().split('\n').at(-1));
    await stopServiceWorker(ext, page);
    // The port closed with the worker: the host stopped the server and exited.
    await until(() => !alive(pid), { timeoutMs: 10_000, what: 'the local server to stop with the worker' });
    await until(async () => (await states()).includes('slow:unknown'), { timeoutMs: 20_000, what: 'the call unknown after the restart' });
    await until(() => page.evaluate(() => window.__fixture.submitted.length >= 2), { timeoutMs: 10_000, what: 'the outcome sent to the model' });
    assert.match((await page.evaluate(() => window.__fixture.submitted[1].text)), /unknown/i);
    const chatgpt = loadAdapters().SITES.find((s) => s.id === 'chatgpt');
    await waitForReply(page, chatgpt, 'Final answer');
    assert.deepEqual(await states(), ['slow:unknown'], 'run once, never again by itself');
    assert.equal(readFileSync(callsFile(), 'utf8'), 'slow\n', 'the server saw the call once');
    // A new worker starts a new host; the local server answers again.
    const again = await ok(await coreCall(panel, { type: 'tools/call', serverId, tool: 'echo', arguments: { message: 'new host' } }));
    assert.equal(again.result.content[0].text, 'Echo: new host');
    await page.close();
  } finally {
    await site.close();
  }
});

test('without the host installed, the panel and the import dialog say the release zip\'s one command, in words, never Chrome\'s', async () => {
  const bare = await launchExtension(); // a fresh profile: no NativeMessagingHosts folder
  try {
    const page = await openExtensionPage(bare, 'www/panel.html');
    await page.click('#tab-servers');
    const section = page.locator('details.local-host');
    const install = section.locator('.local-install code');
    await install.waitFor({ state: 'attached', timeout: 10_000 });
    assert.equal(await section.evaluate((d) => d.open), false, 'folded for a user without local servers');
    await section.locator('summary').click();
    // The zip's script with this extension's id; cargo only as the developer's alternative.
    assert.equal(await install.innerText(), `sh install-host.sh ${EXTENSION_ID}`);
    assert.equal(await section.locator('.local-developer code').innerText(), 'cargo xtask install-host');
    assert.match(await section.locator('.local-not-installed').innerText(), /not installed\. Download MCP Relay's zip, unzip it and run/);
    assert.doesNotMatch(await section.innerText(), /native messaging host/i);
    const view = await ok(await coreCall(page, { type: 'local/list', os: 'win', extensionId: EXTENSION_ID }));
    assert.equal(view.installed, false);
    assert.equal(view.error.kind, 'local_host');
    assert.equal(view.error.cause, 'host_missing', 'Chrome\'s "Specified native messaging host not found." as a cause');
    assert.doesNotMatch(view.error.message, /native messaging host/i);
    assert.equal(view.install, `powershell -ExecutionPolicy Bypass -File .\\install-host.ps1 ${EXTENSION_ID}`);
    await page.click('#server-import');
    await page.locator('.import-dialog textarea').fill(JSON.stringify({ mcpServers: { git: { command: 'uvx', args: ['mcp-server-git'] } } }));
    await page.click('#import-preview');
    await page.locator('.import-dialog .import-local .local-command').waitFor({ timeout: 10_000 });
    assert.equal(await page.locator('.import-dialog .import-local .local-command').innerText(), 'uvx mcp-server-git');
    assert.equal(await page.locator('.import-dialog .local-install code').innerText(), `sh install-host.sh ${EXTENSION_ID}`);
    assert.equal(await page.locator('.import-dialog .actions.end button.primary').isDisabled(), true, 'nothing to add here without the host');
  } finally {
    await bare.close();
  }
});
