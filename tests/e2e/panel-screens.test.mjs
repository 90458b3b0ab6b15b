// Screenshots of every side panel view, light and dark, English and Chinese, with real data
// (the demo server, a chat on the demo chat fixture, a finished and a pending call), written to
// target/screenshots/panel/<view>-<scheme>-<lang>.png for people to look at. The test checks
// what a screenshot cannot prove by itself: the theme and the language really changed.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, startProcess, until, ROOT, TARGET } from './harness.mjs';

const OUT = join(TARGET, 'screenshots/panel');
const VIEWS = ['servers', 'tools', 'chat', 'activity', 'settings'];
const WIDTH = 360;
let ext, demo, site, panel, chatPage, chat;

async function core(page, message) {
  const answer = await coreCall(page, message);
  assert.equal(answer.ok, true, `${message.type}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

/** Sends the chat's instructions and waits for the scripted assistant's call to be pending. */
async function pendingCall() {
  const prompt = await core(panel, { type: 'prompt/build', chat });
  // Typed rather than inserted: the input may still hold a delivered result, which insert keeps.
  await chatPage.fill('#input', prompt.text);
  const before = (await core(panel, { type: 'activity/list', chat })).length;
  await chatPage.click('#send');
  return until(async () => {
    const calls = await core(panel, { type: 'activity/list', chat });
    return calls.length > before && calls.find((c) => c.state === 'pending');
  }, { timeoutMs: 20_000, what: 'a pending call' });
}

before(async () => {
  if (!process.env.RELAY_DEMO_SERVER) throw new Error('RELAY_DEMO_SERVER is not set: run through `cargo xtask test`');
  mkdirSync(OUT, { recursive: true });
  ext = await launchExtension();
  demo = await startProcess(process.env.RELAY_DEMO_SERVER, ['--port', '0'], { ready: /listening on (http:\S+)/ });
  site = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
  panel = await openExtensionPage(ext, 'www/panel.html');
  const server = await core(panel, { type: 'servers/add', server: { name: 'Demo', url: demo.match[1], headers: [{ name: 'Authorization', value: 'Bearer demo' }] } });
  await core(panel, { type: 'servers/add', server: { name: 'Offline example', url: 'http://127.0.0.1:9/mcp', enabled: true } });
  await core(panel, { type: 'sites/add', origin: site.origin, adapter: 'generic' });
  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin), { what: 'content script registration' });
  chatPage = await ext.context.newPage();
  await chatPage.goto(site.origin + '/?delay=1');
  await chatPage.locator('mcp-relay-ui').waitFor({ state: 'attached', timeout: 10_000 });
  await panel.bringToFront();
  chat = await panel.evaluate(async () => (await import('/www/core.js')).currentChat());
  await core(panel, { type: 'chat/set', chat, settings: { serverIds: [server.id] } });
  const first = await pendingCall();
  await core(panel, { type: 'activity/decide', key: first.key, decision: 'run' });
  await until(async () => {
    const c = (await core(panel, { type: 'activity/list', chat })).find((r) => r.key === first.key);
    return c.state === 'done' && c.delivered;
  }, { what: 'first call done and its result delivered' });
  await pendingCall();
});
after(async () => {
  await ext?.close();
  await demo?.stop();
  await site?.close();
});

async function shoot(view, scheme, lang) {
  await panel.click('#tab-' + view);
  if (view === 'tools') {
    const row = panel.locator('li.tool[data-tool="generate_image"]');
    await row.waitFor();
    if ((await row.locator('button.more').getAttribute('aria-expanded')) !== 'true') await row.locator('button.more').click();
    await row.locator('form.run-form button[type="submit"]').click();
    await row.locator('.run-result img').waitFor({ timeout: 10_000 });
  }
  if (view === 'chat') await panel.locator('#prompt-stats').waitFor({ timeout: 10_000 });
  if (view === 'activity') await panel.locator('article.call[data-state="pending"]').waitFor({ timeout: 10_000 });
  if (view === 'servers') await panel.locator('li.server[data-status="connected"]').waitFor({ timeout: 10_000 });
  await panel.locator(`#view-${view}:not([hidden]):not([aria-busy])`).waitFor();
  // Two frames: the view's last DOM changes are painted before the capture.
  await panel.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(() => r(undefined)))));
  // A viewport as tall as the content: full-page captures of a scrolled page clip its right edge.
  const height = await panel.evaluate(() => document.documentElement.scrollHeight);
  await panel.setViewportSize({ width: WIDTH, height: Math.min(Math.max(height, 600), 2400) });
  const path = join(OUT, `${view}-${scheme}-${lang}.png`);
  await panel.screenshot({ path });
  await panel.setViewportSize({ width: WIDTH, height: 800 });
  return path;
}

/** The add-server dialog (editing the demo server) and an import preview. */
async function shootDialogs(scheme, lang) {
  await panel.setViewportSize({ width: WIDTH, height: 800 });
  await panel.click('#tab-servers');
  await panel.locator('li.server').first().locator('[data-action="edit"]').click();
  const edit = join(OUT, `dialog-server-${scheme}-${lang}.png`);
  await panel.screenshot({ path: edit });
  await panel.keyboard.press('Escape');
  await panel.click('#server-import');
  const dialog = panel.locator('dialog.import-dialog');
  await dialog.locator('textarea').fill(JSON.stringify({ mcpServers: {
    search: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer …' } },
    files: { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
  } }, null, 2));
  await dialog.locator('#import-preview').click();
  // The stdio entry goes to the native host (its command, or the command that installs it).
  await dialog.locator('.import-local').waitFor();
  const preview = join(OUT, `dialog-import-${scheme}-${lang}.png`);
  await panel.screenshot({ path: preview });
  await panel.keyboard.press('Escape');
  return [edit, preview];
}

for (const lang of ['en', 'zh_CN']) {
  for (const scheme of ['light', 'dark']) {
    test(`screenshots of every view, ${scheme}, ${lang}`, async () => {
      await core(panel, { type: 'settings/set', settings: { ...(await core(panel, { type: 'settings/get' })), language: lang } });
      await panel.emulateMedia({ colorScheme: scheme });
      await panel.setViewportSize({ width: WIDTH, height: 800 });
      await panel.reload();
      await panel.locator('#core-status[data-state="ready"]').waitFor();
      assert.equal(await panel.locator('#tab-servers').textContent(), lang === 'en' ? 'Servers' : '服务器');
      const background = await panel.evaluate(() => getComputedStyle(document.body).backgroundColor);
      assert.equal(background, scheme === 'dark' ? 'rgb(23, 25, 29)' : 'rgb(255, 255, 255)');
      for (const view of VIEWS) {
        const path = await shoot(view, scheme, lang);
        assert.ok(statSync(path).size > 5000, `${path} looks empty`);
      }
      for (const path of await shootDialogs(scheme, lang)) assert.ok(statSync(path).size > 5000, `${path} looks empty`);
    });
  }
}
