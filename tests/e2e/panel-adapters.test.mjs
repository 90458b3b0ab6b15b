// Adapters as data in the side panel's Settings: an adapter the core refuses is not saved and
// its message names the field; a valid one is saved, exported in its normal form and used by
// the content script on its origin; on a page where discovery is unsure, the site check says so
// and its "Teach this page" starts the picker in the chat tab.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, serveStatic, until, ROOT } from './harness.mjs';

let ext, site;
before(async () => {
  ext = await launchExtension();
  site = await serveStatic(join(ROOT, 'tests/fixtures/sites'));
});
after(async () => {
  await ext?.close();
  await site?.close();
});

const ADAPTER = { id: 'mine', name: 'Mine', editor: 'lexical', input: ['div.rich-input'], send: ['button[aria-label="Send prompt"]'], assistant: ['article[data-speaker="orion-7"] .content'] };

test('import a refused adapter, a valid one, export it, and the page uses it', async () => {
  const panel = await openExtensionPage(ext, 'www/panel.html#settings');
  await panel.locator('#sites-json').waitFor();

  // Refused by the core: no assistant selector. Nothing is saved; the message names the field.
  await panel.fill('#sites-json', JSON.stringify([{ origin: site.origin, custom: { ...ADAPTER, assistant: [] } }]));
  await panel.click('#sites-import');
  const alert = panel.locator('[role="alert"] .error-message');
  await alert.first().waitFor();
  assert.match(await alert.first().innerText(), /adapter field 'assistant'/i);
  assert.equal(await panel.locator(`#sites-list li[data-origin="${site.origin}"]`).count(), 0);

  await panel.fill('#sites-json', JSON.stringify([{ origin: site.origin, custom: ADAPTER }]));
  await panel.click('#sites-import');
  await panel.locator('#sites-imported').waitFor();
  await panel.locator(`#sites-list li[data-origin="${site.origin}"][data-adapter="mine"]`).waitFor();

  await panel.fill('#sites-json', '');
  await panel.click('#sites-export');
  await panel.locator('#sites-download').waitFor();
  const exported = JSON.parse(await panel.inputValue('#sites-json'));
  const mine = exported.find((s) => s.origin === site.origin);
  assert.equal(mine.adapter, 'mine');
  assert.deepEqual(mine.custom.stop, [], 'the normal form names every part');
  assert.deepEqual(mine.custom.assistant, ADAPTER.assistant);

  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin),
    { what: 'the content script registration' });
  const chat = await ext.context.newPage();
  await chat.goto(`${site.origin}/_unadapted/article/`);
  await chat.locator('mcp-relay-ui[data-state="ready"][data-adapter="mine"]').waitFor({ state: 'attached', timeout: 10_000 });
  await chat.close();
  await panel.close();
});

test('the site check of an unsure page offers "Teach this page", which starts the picker in the tab', async () => {
  const panel = await openExtensionPage(ext, 'www/panel.html#settings');
  await panel.locator('#sites-json').waitFor();
  // The plain page's transcript is empty and its parts are unlabelled: a generic site.
  const sites = await panel.evaluate((o) => chrome.runtime.sendMessage({ type: 'sites/add', origin: o, adapter: 'generic' }), site.origin);
  assert.equal(sites.ok, true, JSON.stringify(sites.error));
  const chat = await ext.context.newPage();
  // No author and no reply toolbar (anon): nothing tells the turns apart.
  await chat.goto(`${site.origin}/_unadapted/article/?collapse=1&instant=1&anon=1`);
  await chat.locator('mcp-relay-ui[data-state="ready"][data-adapter="generic"]').waitFor({ state: 'attached', timeout: 10_000 });
  // Something was sent (typed by the user) and no reply was recognised.
  await chat.locator('.rich-input').click();
  await chat.keyboard.type('hello there, assistant');
  await chat.keyboard.press('Enter');
  await until(() => chat.evaluate(() => window.__fixture.replies === 1), { what: 'the reply' });

  // The chat view says so by itself, with the same way out.
  const chatView = await openExtensionPage(ext, 'www/panel.html#chat');
  await chatView.locator('#chat-unsure:not([hidden]) #chat-teach').waitFor({ timeout: 10_000 });
  await chatView.close();

  await panel.bringToFront();
  await panel.click('#site-check');
  await panel.locator('#site-unsure').waitFor({ timeout: 10_000 });
  await panel.click('#site-teach');
  await until(async () => (await chat.locator('mcp-relay-teach').getAttribute('data-step')) === 'input', { what: 'the picker in the chat tab' });
  await chat.close();
  await panel.close();
});
