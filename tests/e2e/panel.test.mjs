// The side panel end to end: real Chromium, the real core (wasm in the service worker), the
// bundled demo MCP server and the demo chat fixture. Every check reads the outcome back from
// the core (or from a second panel) rather than trusting what the panel shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, startProcess, until, ROOT } from './harness.mjs';

let ext, demo, demoUrl, site, panel, panel2, chatPage;

async function core(page, message) {
  const answer = await coreCall(page, message);
  assert.equal(answer.ok, true, `${message.type}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

async function openPanel(width = 400) {
  const page = await openExtensionPage(ext, 'www/panel.html');
  await page.setViewportSize({ width, height: 900 });
  await page.locator('#core-status[data-state="ready"]').waitFor({ timeout: 10_000 });
  return page;
}

/** The chat the panel works on, as the panel itself determines it. */
const panelChat = (page) => page.evaluate(async () => (await import('/www/core.js')).currentChat());

before(async () => {
  if (!process.env.RELAY_DEMO_SERVER) throw new Error('RELAY_DEMO_SERVER is not set: run through `cargo xtask test`');
  ext = await launchExtension();
  demo = await startProcess(process.env.RELAY_DEMO_SERVER, ['--port', '0'], { ready: /listening on (http:\S+)/ });
  demoUrl = demo.match[1];
  site = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
  panel = await openPanel();
});
after(async () => {
  await ext?.close();
  await demo?.stop();
  await site?.close();
});

test('the sections are an ARIA tab list operated with the arrow keys', async () => {
  const tabs = panel.locator('[role="tablist"] [role="tab"]');
  assert.equal(await tabs.count(), 5);
  for (const tab of await tabs.all()) {
    const controls = await tab.getAttribute('aria-controls');
    const view = panel.locator('#' + controls);
    assert.equal(await view.getAttribute('role'), 'tabpanel');
    assert.equal(await view.getAttribute('aria-labelledby'), await tab.getAttribute('id'));
  }
  await panel.locator('#tab-servers').focus();
  const keys = [['ArrowRight', 'tools'], ['ArrowRight', 'chat'], ['End', 'settings'], ['ArrowRight', 'servers'], ['ArrowLeft', 'settings'], ['Home', 'servers']];
  for (const [key, want] of keys) {
    await panel.keyboard.press(key);
    assert.equal(await panel.evaluate(() => document.activeElement.id), 'tab-' + want, key);
    assert.equal(await panel.locator('#tab-' + want).getAttribute('aria-selected'), 'true');
    assert.equal(await panel.locator('#view-' + want).isVisible(), true);
    // Only the selected tab is in the Tab order (roving tabindex).
    assert.deepEqual(await panel.$$eval('[role="tab"]', (ts) => ts.map((t) => t.tabIndex).sort()), [-1, -1, -1, -1, 0]);
  }
});

test('adding a server through the form shows it connected, with protocol version and tool count', async () => {
  await panel.click('#tab-servers');
  assert.match(await panel.locator('#view-servers').textContent(), /No servers yet|还没有服务器/);
  await panel.click('#server-add');
  const dialog = panel.locator('dialog.server-dialog');
  await dialog.locator('input[name="name"]').fill('Demo');
  await dialog.locator('input[name="url"]').fill(demoUrl);
  await dialog.getByRole('button', { name: 'Add header' }).click();
  await dialog.locator('.header-name').fill('Authorization');
  await dialog.locator('.header-value').fill('Bearer s3cret-token');
  await dialog.locator('button[type="submit"]').click();
  const item = panel.locator('li.server[data-status="connected"]');
  await item.waitFor({ timeout: 15_000 });
  const [view] = await core(panel, { type: 'servers/list' });
  assert.equal(view.url, demoUrl);
  assert.equal(view.headers[0].value, '••••', 'the core masks the secret');
  const text = await item.textContent();
  assert.ok(text.includes(view.state.info.protocolVersion), text);
  assert.ok(text.includes(`${view.state.toolCount} tools`), text);
  assert.ok(view.state.toolCount >= 10);
});

test('the edit form keeps a secret masked and the export leaves it out', async () => {
  await panel.click('li.server [data-action="edit"]');
  const dialog = panel.locator('dialog.server-dialog');
  assert.equal(await dialog.locator('.header-value').inputValue(), '••••');
  assert.equal(await dialog.locator('.header-value').getAttribute('type'), 'password');
  await dialog.getByRole('button', { name: 'Cancel' }).click();

  await panel.click('#server-export');
  const out = panel.locator('dialog.export-dialog textarea');
  await until(async () => (await out.inputValue()).includes('mcpServers'), { what: 'export' });
  const exported = JSON.parse(await out.inputValue());
  assert.equal(exported.mcpServers.Demo.url, demoUrl);
  assert.ok(!(await out.inputValue()).includes('s3cret'), 'no secret in the export');
  await panel.locator('dialog.export-dialog').getByRole('button', { name: 'Close' }).click();
});

test('a second panel shows the same servers and follows changes made in the first', async () => {
  panel2 = await openPanel();
  await panel2.locator('li.server').first().waitFor();
  const ids = (p) => p.$$eval('li.server', (ls) => ls.map((l) => l.dataset.id));
  assert.deepEqual(await ids(panel2), await ids(panel));
  await panel.bringToFront();
  await panel.locator('li.server .switch input').first().uncheck();
  await panel2.locator('li.server[data-status="disabled"]').waitFor({ timeout: 5000 });
  assert.equal((await core(panel, { type: 'servers/list' }))[0].enabled, false);
  await panel.locator('li.server .switch input').first().check();
  await panel2.locator('li.server[data-status="connected"]').waitFor({ timeout: 15_000 });
});

test('tools are grouped by server and searchable; policies and switches land in the core', async () => {
  await panel.bringToFront(); // a background tab gets no animation frames: clicks would crawl
  await panel.click('#tab-tools');
  await panel2.click('#tab-tools');
  const tools = await core(panel, { type: 'tools/list' });
  const serverId = tools[0].serverId;
  const group = panel.locator(`section.tool-group[data-server="${serverId}"]`);
  await group.waitFor();
  assert.equal(await group.locator('h3').textContent(), 'Demo');
  assert.equal(await group.locator('li.tool').count(), tools.length);

  await panel.fill('#tool-search', 'divide');
  assert.deepEqual(await panel.$$eval('li.tool:not([hidden])', (ls) => ls.map((l) => l.dataset.tool)), ['divide']);
  // Search is case-insensitive over names, titles and descriptions.
  await panel.fill('#tool-search', 'NOTE');
  const hits = await panel.$$eval('li.tool:not([hidden])', (ls) => ls.map((l) => [l.dataset.tool, l.textContent.toLowerCase().includes('note')]));
  const names = hits.map(([n]) => n);
  for (const n of tools.map((t) => t.name).filter((n) => n.startsWith('notes_'))) assert.ok(names.includes(n), `${n} found`);
  assert.ok(hits.every(([, has]) => has), JSON.stringify(hits));
  assert.ok(names.length < tools.length, 'the search filters');
  await panel.fill('#tool-search', '');

  const policyOf = async (name) => (await core(panel, { type: 'tools/list' })).find((t) => t.name === name);
  await panel.selectOption('li.tool[data-tool="echo"] select.policy', 'deny');
  await until(async () => (await policyOf('echo')).policy === 'deny', { what: 'echo denied in the core' });
  await until(async () => (await panel2.locator('li.tool[data-tool="echo"] select.policy').inputValue()) === 'deny', { what: 'second panel follows' });

  await panel.locator('li.tool[data-tool="multiply"] .tool-head input[type="checkbox"]').uncheck();
  await until(async () => (await policyOf('multiply')).enabled === false, { what: 'multiply disabled in the core' });

  await panel.selectOption(`section.tool-group[data-server="${serverId}"] select.bulk`, 'ask');
  await until(async () => (await core(panel, { type: 'tools/list' })).every((t) => t.policy === 'ask'), { what: 'bulk ask' });
  await panel.selectOption(`section.tool-group[data-server="${serverId}"] select.bulk`, 'enable');
  await until(async () => (await core(panel, { type: 'tools/list' })).every((t) => t.enabled), { what: 'bulk enable' });
  await until(async () => (await panel.locator('li.tool[data-tool="echo"] select.policy').inputValue()) === 'ask', { what: 'view refreshed' });
});

test('a tool runs by hand from a form generated from its input schema', async () => {
  await panel.bringToFront(); // a background tab gets no animation frames: clicks would crawl
  const row = panel.locator('li.tool[data-tool="divide"]');
  await row.locator('button.more').click();
  assert.equal(await row.locator('button.more').getAttribute('aria-expanded'), 'true');
  const form = row.locator('form.run-form');
  // Both parameters are required numbers: marked, and refused when empty.
  assert.equal(await form.locator('[data-param="dividend"] input').getAttribute('type'), 'number');
  assert.equal(await form.locator('[data-param="dividend"] input').getAttribute('aria-required'), 'true');
  await form.getByRole('button', { name: 'Run', exact: true }).click();
  assert.match(await form.locator('[data-param="dividend"] .field-error').textContent(), /Required/);
  assert.equal(await form.locator('.run-result article').count(), 0, 'nothing ran');

  await form.locator('[data-param="dividend"] input').fill('7');
  await form.locator('[data-param="divisor"] input').fill('2');
  await form.getByRole('button', { name: 'Run', exact: true }).click();
  await form.locator('.run-result article.call[data-state="done"]').waitFor({ timeout: 10_000 });
  assert.match(await form.locator('.run-result .result-text').first().textContent(), /3\.5/);

  // A tool error (isError) is shown as such.
  await form.locator('[data-param="divisor"] input').fill('0');
  await form.getByRole('button', { name: 'Run', exact: true }).click();
  await form.locator('.run-result .result.is-error').waitFor({ timeout: 10_000 });
  assert.match(await form.locator('.run-result').textContent(), /divide by zero/);

  // An image result is shown inline from a data: URL.
  const image = panel.locator('li.tool[data-tool="generate_image"]');
  await image.locator('button.more').click();
  await image.getByRole('button', { name: 'Run', exact: true }).click();
  const img = image.locator('.run-result img.result-image');
  await img.waitFor({ timeout: 10_000 });
  assert.match(await img.getAttribute('src'), /^data:image\/png;base64,[A-Za-z0-9+/]+=*$/);
  assert.ok(await img.evaluate((el) => el.complete && el.naturalWidth > 0), 'the image decodes');

  // A denied tool is refused by the core, and the panel says why.
  await panel.selectOption('li.tool[data-tool="echo"] select.policy', 'deny');
  await until(async () => (await core(panel, { type: 'tools/list' })).find((t) => t.name === 'echo').policy === 'deny', { what: 'echo denied' });
  const echo = panel.locator('li.tool[data-tool="echo"]');
  await echo.locator('button.more').click();
  await echo.locator('[data-param="message"] input, [data-param="message"] textarea').fill('hi');
  await echo.getByRole('button', { name: 'Run', exact: true }).click();
  await echo.locator('.run-result .error[data-kind="denied"]').waitFor({ timeout: 10_000 });
});

test('importing an mcpServers JSON previews what is added and what cannot be, then adds', async () => {
  await panel.bringToFront(); // a background tab gets no animation frames: clicks would crawl
  await panel.click('#tab-servers');
  await panel.click('#server-import');
  const dialog = panel.locator('dialog.import-dialog');
  await dialog.locator('textarea').fill(JSON.stringify({
    mcpServers: {
      'Second demo': { url: demoUrl, headers: { Authorization: 'Bearer other-secret' } },
      'local-files': { command: 'npx', args: ['-y', '@modelcontextprotocol/server-filesystem', '/tmp'] },
    },
  }));
  await dialog.locator('#import-preview').click();
  await dialog.locator('.import-add li').first().waitFor();
  assert.equal(await dialog.locator('.import-add li').count(), 1);
  assert.match(await dialog.locator('.import-add').textContent(), /Second demo/);
  // The stdio entry is the native host's, shown with its exact command; this profile has no
  // host, so the dialog says the release zip's command that installs it (tests/e2e/local-host.test.mjs).
  assert.equal(await dialog.locator('.import-skipped li').count(), 0);
  assert.equal(await dialog.locator('.import-local li .local-command').textContent(), 'npx -y @modelcontextprotocol/server-filesystem /tmp');
  assert.match(await dialog.locator('.local-install code').textContent(), /^sh install-host\.sh [a-p]{32}$/);
  assert.equal((await core(panel, { type: 'servers/list' })).length, 1, 'a preview adds nothing');
  await dialog.getByRole('button', { name: 'Import 1' }).click();
  await until(async () => (await panel.locator('li.server').count()) === 2, { what: 'two servers listed' });
  const added = (await core(panel, { type: 'servers/list' })).find((s) => s.name === 'Second demo');
  assert.equal(added.url, demoUrl);
  await panel.locator(`li.server[data-id="${added.id}"][data-status="connected"]`).waitFor({ timeout: 15_000 });
});

test('a server that cannot be reached shows why and what to do; Test asks again', async () => {
  await panel.bringToFront();
  const dead = await core(panel, { type: 'servers/add', server: { name: 'Dead', url: 'http://127.0.0.1:9/mcp' } });
  const row = panel.locator(`li.server[data-id="${dead.id}"]`);
  await row.locator('.server-head .status-failed').waitFor({ timeout: 15_000 });
  assert.equal(await row.getAttribute('data-status'), 'failed');
  const error = row.locator('.error');
  assert.equal(await error.getAttribute('data-kind'), dead.state.error.kind);
  // The core's words, as a sentence (its first word capitalized).
  const message = dead.state.error.message;
  assert.equal(await error.locator('.error-message').textContent(), message[0].toUpperCase() + message.slice(1));
  assert.match(message, /could not be reached/);
  assert.equal(await error.locator('.error-hint').textContent(), dead.state.error.hint);
  await row.locator('[data-action="test"]').click();
  await until(async () => (await row.getAttribute('data-status')) === 'failed' && !(await row.locator('[data-action="test"]').isDisabled()), { timeoutMs: 15_000, what: 'tested again' });
  const healthy = panel.locator('li.server[data-status="connected"]').first();
  await healthy.locator('[data-action="test"]').click();
  await until(async () => (await healthy.getAttribute('data-status')) === 'connected' && !(await healthy.locator('[data-action="test"]').isDisabled()), { timeoutMs: 15_000, what: 'healthy server tested' });
  await core(panel, { type: 'servers/remove', id: dead.id });
  await until(async () => (await row.count()) === 0, { what: 'dead server gone from the list' });
});

test('a remote server asks for host permission from the click, and a refusal adds nothing', async () => {
  await panel.bringToFront(); // a background tab gets no animation frames: clicks would crawl
  await panel.evaluate(() => {
    window.__requests = [];
    chrome.permissions.request = (p) => { window.__requests.push(p); return Promise.resolve(false); };
  });
  const before = (await core(panel, { type: 'servers/list' })).length;
  await panel.click('#server-add');
  const dialog = panel.locator('dialog.server-dialog');
  await dialog.locator('input[name="name"]').fill('Remote');
  await dialog.locator('input[name="url"]').fill('https://mcp.example.invalid:8443/mcp');
  await dialog.locator('button[type="submit"]').click();
  await dialog.locator('.form-error .error[data-kind="permission"]').waitFor();
  assert.deepEqual(await panel.evaluate(() => window.__requests), [{ origins: ['https://mcp.example.invalid:8443/*'] }]);
  assert.equal((await core(panel, { type: 'servers/list' })).length, before);
  await dialog.getByRole('button', { name: 'Cancel' }).click();
});

test('this chat: choose servers and strategy, see the exact prompt with its size, insert it', async () => {
  await core(panel, { type: 'sites/add', origin: site.origin, adapter: 'generic' });
  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin), { what: 'content script registration' });
  chatPage = await ext.context.newPage();
  await chatPage.goto(site.origin + '/?delay=1');
  await chatPage.locator('mcp-relay-ui').waitFor({ state: 'attached', timeout: 10_000 });
  await panel.bringToFront();
  await panel.click('#tab-chat');
  const chat = await panelChat(panel);
  assert.equal(chat.url, site.origin + '/?delay=1');
  await until(async () => (await panel.locator('#view-chat .chat-who').textContent()).includes(new URL(site.origin).host), { what: 'chat identified' });
  assert.match(await panel.locator('#prompt-empty').textContent(), /Nothing to insert/);

  const servers = await core(panel, { type: 'servers/list' });
  const demoId = servers.find((s) => s.name === 'Demo').id;
  await panel.locator(`.chat-servers li[data-server="${demoId}"] input`).check();
  await panel.locator('#prompt-stats').waitFor();
  assert.deepEqual((await core(panel, { type: 'chat/get', chat })).serverIds, [demoId]);
  let prompt = await core(panel, { type: 'prompt/build', chat });
  assert.equal(await panel.locator('#prompt-text').textContent(), prompt.text);
  assert.equal(await panel.locator('#prompt-stats').textContent(), `${prompt.chars} characters · about ${prompt.tokensEstimate} tokens · ${prompt.tools} tools`);

  await panel.selectOption('#chat-strategy', 'toolForced');
  await until(async () => (await core(panel, { type: 'chat/get', chat })).strategy === 'toolForced', { what: 'strategy saved' });
  prompt = await core(panel, { type: 'prompt/build', chat });
  await until(async () => (await panel.locator('#prompt-text').textContent()) === prompt.text, { what: 'prompt follows the strategy' });
  await panel.selectOption('#chat-strategy', '');
  await until(async () => (await core(panel, { type: 'chat/get', chat })).strategy == null, { what: 'strategy back to default' });
  // Value and change in one task: the view re-renders when the strategy's save reaches storage,
  // and a re-render between a fill and its change event would send the new, empty field.
  await panel.locator('#chat-max-total').evaluate((el) => { el.value = '7'; el.dispatchEvent(new Event('change')); });
  await until(async () => (await core(panel, { type: 'chat/get', chat })).maxTotal === 7, { what: 'limit saved' });

  prompt = await core(panel, { type: 'prompt/build', chat });
  await until(async () => (await panel.locator('#prompt-text').textContent()) === prompt.text, { what: 'prompt shown' });
  await panel.click('#prompt-insert');
  await until(async () => (await chatPage.locator('#input').inputValue()).includes(prompt.text.slice(0, 200)), { what: 'prompt in the chat input' });
});

test('a call waiting for approval runs from the activity view', async () => {
  const chat = await panelChat(panel);
  await panel.click('#tab-activity');
  await chatPage.click('#send');
  const pending = panel.locator('article.call[data-state="pending"]');
  await pending.waitFor({ timeout: 20_000 });
  assert.match(await pending.locator('.call-tool').textContent(), /^(add|echo)$/);
  const [record] = await core(panel, { type: 'activity/list', chat });
  assert.equal(record.state, 'pending');
  await pending.locator('[data-decision="run"]').click();
  const done = panel.locator(`article.call[data-key="${record.key}"][data-state="done"]`);
  await done.waitFor({ timeout: 15_000 });
  assert.match(await done.textContent(), /\b5\b|hello from the demo/);
  assert.match(await panel.locator('.chain').textContent(), /✓/);
  assert.equal((await core(panel, { type: 'activity/list', chat })).find((r) => r.key === record.key).state, 'done');
});

test('the language switches to Chinese, persists, and a second panel follows', async () => {
  await panel.bringToFront(); // a background tab gets no animation frames: clicks would crawl
  await panel.click('#tab-settings');
  await panel.selectOption('#set-language', 'zh_CN');
  await panel.click('#settings-save');
  await until(async () => (await panel.locator('#tab-servers').textContent()) === '服务器', { what: 'Chinese tabs' });
  assert.equal(await panel.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.equal((await core(panel, { type: 'settings/get' })).language, 'zh_CN');
  await until(async () => (await panel2.locator('#tab-servers').textContent()) === '服务器', { what: 'second panel in Chinese' });
  await panel.reload();
  await panel.locator('#core-status[data-state="ready"]').waitFor();
  // Ready says nothing on screen; the version is on hover, in the panel's language.
  assert.equal(await panel.locator('#core-status').textContent(), '');
  assert.match(await panel.locator('#core-status').getAttribute('title'), /^核心 .* 已就绪$/);
  await panel.click('#tab-servers');
  await panel.locator('li.server[data-status="connected"]').first().waitFor({ timeout: 15_000 });
  assert.match(await panel.locator('li.server').first().textContent(), /协议 .* · \d+ 个工具/);

  await panel.click('#tab-settings');
  await panel.selectOption('#set-language', 'auto');
  await panel.click('#settings-save');
  await until(async () => (await panel.locator('#tab-servers').textContent()) === 'Servers', { what: 'back to the browser language' });
});

test('the in-panel formatter gives what chrome.i18n gives for every English message', async () => {
  const page = await openPanel();
  const diffs = await page.evaluate(async () => {
    const i18n = await import('/www/i18n.js');
    const messages = await (await fetch(chrome.runtime.getURL('_locales/en/messages.json'))).json();
    await i18n.setLanguage('en');
    const out = [];
    for (const key of Object.keys(messages)) {
      const subs = ['α', '<b>β</b>', '$1', 'δ'];
      const ours = i18n.t(key, ...subs);
      const chromes = chrome.i18n.getMessage(key, subs);
      if (ours !== chromes) out.push({ key, ours, chromes });
    }
    return { count: Object.keys(messages).length, out };
  });
  assert.ok(diffs.count > 150);
  assert.deepEqual(diffs.out, []);
  await page.close();
});

test('every view fits 320 px without horizontal scrolling', async () => {
  await panel.bringToFront(); // a background tab gets no animation frames: clicks would crawl
  await panel.setViewportSize({ width: 320, height: 700 });
  for (const view of ['servers', 'tools', 'chat', 'activity', 'settings']) {
    await panel.click('#tab-' + view);
    await panel.locator(`#view-${view}:not([hidden]):not([aria-busy])`).waitFor();
    const { scroll, client, wide } = await panel.evaluate(() => {
      const client = document.documentElement.clientWidth;
      const wide = [...document.querySelectorAll('main *')].filter((el) => el.getBoundingClientRect().right > client + 1 && el.getClientRects().length)
        .slice(0, 5).map((el) => `${el.tagName}.${el.className}`);
      return { scroll: document.documentElement.scrollWidth, client, wide };
    });
    assert.ok(scroll <= client, `${view}: ${scroll} > ${client}: ${wide.join(', ')}`);
    assert.deepEqual(wide, [], view);
  }
  await panel.setViewportSize({ width: 400, height: 900 });
});

test('removing a server asks first, then removes it from the core', async () => {
  await panel.bringToFront(); // a background tab gets no animation frames: clicks would crawl
  await panel.click('#tab-servers');
  const servers = await core(panel, { type: 'servers/list' });
  const victim = servers.find((s) => s.name === 'Second demo');
  const row = panel.locator(`li.server[data-id="${victim.id}"]`);
  await row.locator('[data-action="remove"]').click();
  assert.equal((await core(panel, { type: 'servers/list' })).length, servers.length, 'one click removes nothing');
  await row.locator('[data-action="remove-confirm"]').click();
  await until(async () => (await panel.locator(`li.server[data-id="${victim.id}"]`).count()) === 0, { what: 'row gone' });
  assert.ok(!(await core(panel, { type: 'servers/list' })).some((s) => s.id === victim.id));
});
