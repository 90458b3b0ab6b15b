// The foundation: the extension loads in real Chromium, its service worker instantiates the
// wasm core, and the core answers the side panel page and a content script on a chat page.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, until, ROOT } from './harness.mjs';

let ext, site;
before(async () => {
  ext = await launchExtension();
  site = await serveStatic(join(ROOT, 'tests/fixtures/sites/plain'));
});
after(async () => {
  await ext?.close();
  await site?.close();
});

test('the side panel page gets an answer from the wasm core', async () => {
  const page = await openExtensionPage(ext, 'www/panel.html');
  const status = page.locator('#core-status[data-state="ready"]');
  await status.waitFor({ timeout: 10_000 });
  // Nothing to read when all is well; the version is on hover, for bug reports.
  assert.match(await status.getAttribute('title') || '', /0\.1\.0/);
  const pong = await coreCall(page, { type: 'ping' });
  assert.deepEqual(pong, { ok: true, data: { core: '0.1.0', role: 'page' } });
  await page.close();
});

test('the contract refuses unknown and malformed messages with an envelope', async () => {
  const page = await openExtensionPage(ext, 'www/panel.html');
  assert.equal((await coreCall(page, { type: 'nope' })).error.kind, 'unknown_message');
  assert.equal((await coreCall(page, { kind: 'ping' })).error.kind, 'malformed');
  await page.close();
});

test('a content script on a custom chat site gets an answer from the core', async () => {
  const panel = await openExtensionPage(ext, 'www/panel.html');
  const added = await coreCall(panel, { type: 'sites/add', origin: site.origin, adapter: 'generic' });
  assert.equal(added.ok, true, JSON.stringify(added));
  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin),
    { what: 'content script registration' });
  const page = await ext.context.newPage();
  await page.goto(site.origin + '/');
  const host = page.locator('mcp-relay-ui[data-state="ready"]');
  await host.waitFor({ state: 'attached', timeout: 10_000 });
  assert.equal(await host.getAttribute('data-core'), '0.1.0');
  await page.close();
  await panel.close();
});

test('a web page cannot reach the core', async () => {
  const page = await ext.context.newPage();
  await page.goto(site.origin + '/');
  // Pages have no chrome.runtime of ours: no externally_connectable entry exists.
  const reachable = await page.evaluate((id) => {
    try { return typeof chrome !== 'undefined' && !!chrome.runtime && typeof chrome.runtime.sendMessage === 'function' && !!id; }
    catch { return false; }
  }, ext.extensionId);
  assert.equal(reachable, false);
  await page.close();
});
