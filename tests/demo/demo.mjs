// `cargo xtask demo`: MCP Relay's main job on bundled defaults.
// Starts the bundled demo MCP server and a demo chat (a scripted assistant), launches Chromium
// with the extension, configures the server, and walks the loop: instructions inserted, reply
// parsed, tool run, result inserted and submitted, final answer shown. Headless it prints each
// step and saves screenshots under target/demo/; with RELAY_HEADED=1 it leaves the browser open.
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, startProcess, until, waitInClosedShadow, ROOT, TARGET } from '../e2e/harness.mjs';

const headed = process.env.RELAY_HEADED === '1';
const shots = join(TARGET, 'demo');
mkdirSync(shots, { recursive: true });
let stepNo = 0;
const step = (msg) => console.log(`[demo] ${String(++stepNo).padStart(2)}. ${msg}`);

async function expectOk(envelope, what) {
  if (!envelope || !envelope.ok) throw new Error(`${what}: ${JSON.stringify(envelope && envelope.error)}`);
  return envelope.data;
}

async function main() {
  const cleanup = [];
  try {
    const server = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
      { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
    cleanup.push(server.stop);
    const serverUrl = server.match[1];
    step(`demo MCP server (rmcp) listening on ${serverUrl}`);

    const chat = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
    cleanup.push(chat.close);
    step(`demo chat served on ${chat.origin}`);

    const ext = await launchExtension({ headed });
    if (!headed) cleanup.push(ext.close);
    step(`Chromium started with MCP Relay (extension id ${ext.extensionId})`);

    const panel = await openExtensionPage(ext, 'www/panel.html');
    const added = await expectOk(await coreCall(panel, { type: 'servers/add', server: { name: 'demo', url: serverUrl } }), 'add server');
    const tools = await expectOk(await coreCall(panel, { type: 'tools/list', serverId: added.id }), 'list tools');
    step(`server "demo" added: ${tools.length} tools (${tools.map((t) => t.name).join(', ')})`);
    await expectOk(await coreCall(panel, { type: 'tools/policy', serverId: added.id, tool: 'add', policy: 'allow' }), 'policy');
    step('policy: "add" may run without asking');

    await expectOk(await coreCall(panel, { type: 'sites/add', origin: chat.origin, adapter: 'generic' }), 'add site');
    await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + chat.origin),
      { what: 'content script registration' });
    const page = await ext.context.newPage();
    await page.goto(chat.origin + '/');
    await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
    step('demo chat opened; the content script is connected to the core');

    const tabId = await ext.sw.evaluate(async (url) => (await chrome.tabs.query({ url: url + '/*' }))[0].id, chat.origin);
    const chatRef = { tabId, url: page.url() };
    await expectOk(await coreCall(panel, { type: 'chat/set', chat: chatRef, settings: { serverIds: [added.id], autoExecute: true, autoSubmit: true } }), 'chat settings');
    const prompt = await expectOk(await coreCall(panel, { type: 'prompt/build', chat: chatRef }), 'prompt');
    step(`system prompt built: ${prompt.tools} tools, ${prompt.chars} characters, ~${prompt.tokensEstimate} tokens`);

    await expectOk(await coreCall(panel, { type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true }), 'insert');
    step('instructions inserted into the chat input and submitted');
    await page.screenshot({ path: join(shots, '1-instructions.png'), fullPage: true });

    await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="done"]', { timeoutMs: 20_000 });
    const calls = await expectOk(await coreCall(panel, { type: 'activity/list', chat: chatRef }), 'activity');
    const done = calls.find((c) => c.state === 'done');
    step(`assistant called ${done.tool}(${JSON.stringify(done.arguments)}) → ran in ${done.durationMs} ms`);
    await page.screenshot({ path: join(shots, '2-tool-ran.png'), fullPage: true });

    const final = page.locator('.turn[data-role="assistant"]', { hasText: 'Final answer' });
    await final.waitFor({ timeout: 20_000 });
    await page.locator('#stop').waitFor({ state: 'hidden', timeout: 20_000 }); // the reply finished streaming
    step('result inserted and submitted; the assistant answered:');
    console.log('       ' + (await final.innerText()).trim());
    await page.screenshot({ path: join(shots, '3-final-answer.png'), fullPage: true });
    step(`screenshots in ${shots}`);
    if (headed) {
      step('the browser stays open: close it to end the demo');
      await new Promise((r) => ext.context.once('close', r));
    }
  } finally {
    for (const stop of cleanup.reverse()) await stop().catch(() => {});
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(`[demo] failed: ${e.stack || e}`);
  process.exit(1);
});
