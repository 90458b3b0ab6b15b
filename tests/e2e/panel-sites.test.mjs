// The side panel's chat sites: a custom site added from Settings gets the content script (no
// reload of the extension, no manifest entry), the site check of the current tab lists which
// adapter selectors match, and removing the site unregisters it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, serveStatic, until, ROOT } from './harness.mjs';

let ext, site;
before(async () => {
  ext = await launchExtension();
  site = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
});
after(async () => {
  await ext?.close();
  await site?.close();
});

const registered = () => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin);

test('add a custom site from Settings, check the chat page, remove the site', async () => {
  const panel = await openExtensionPage(ext, 'www/panel.html#settings');
  await panel.bringToFront();
  await panel.locator('#site-origin').waitFor();
  assert.match(await panel.locator('#sites-list').innerText(), /./);

  // A page URL is accepted; its origin is what gets registered.
  await panel.fill('#site-origin', site.origin + '/some/chat?x=1');
  await panel.selectOption('#site-adapter', 'generic');
  await panel.click('#site-add');
  await panel.locator(`#sites-list li[data-origin="${site.origin}"]`).waitFor({ timeout: 10_000 });
  await until(registered, { what: 'the content script registration' });

  const chat = await ext.context.newPage();
  await chat.goto(site.origin + '/');
  await chat.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });

  // The check runs against the most recent chat tab (the panel is a tab itself here).
  await panel.bringToFront();
  await panel.click('#site-check');
  const input = panel.locator('#site-check-report tr[data-part="input"]');
  await input.waitFor({ timeout: 10_000 });
  assert.notEqual(await input.getAttribute('data-matches'), '0', 'the generic adapter found the input box');
  assert.notEqual(await panel.locator('#site-check-report tr[data-part="send"]').getAttribute('data-matches'), '0');

  // A bad address is refused with a message, nothing is added.
  await panel.fill('#site-origin', 'javascript:alert(1)');
  await panel.click('#site-add');
  await panel.locator('.view-status [role="alert"]').first().waitFor();
  assert.equal(await panel.locator('#sites-list li[data-origin]').count(), 1);

  await panel.locator(`#sites-list li[data-origin="${site.origin}"] button[data-action="remove"]`).click();
  await panel.locator(`#sites-list li[data-origin="${site.origin}"]`).waitFor({ state: 'detached' });
  await until(async () => !(await registered()), { what: 'the content script to be unregistered' });
  await chat.close();
  await panel.close();
});
