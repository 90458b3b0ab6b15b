// Progress and Cancel wherever a call runs, against the demo server's `slow_count` (progress
// notifications with a total; it logs on stderr when the client's cancellation reaches it):
// a run by hand in the Tools view (en and zh_CN), a chat call in Activity, and a chat call on
// its in-page card. Each Cancel must stop the call at the server, not only in the panel. And
// around them: the per-tab toolbar badge, Activity's export, the run form's JSON editors and the
// keyboard shortcuts.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openExtensionPage, until, waitInClosedShadow, trustedClickInClosedShadow, textsInClosedShadow } from './harness.mjs';
import { startRig } from '../fixtures/sites/_shared/loop.mjs';

let rig;
/** How many cancellations the server has reported (on stderr), since it started. */
let cancellations = 0;
before(async () => {
  rig = await startRig();
  let tail = '';
  rig.server.onStderr((chunk) => {
    const lines = (tail + chunk).split('\n');
    tail = lines.pop() || '';
    cancellations += lines.filter((l) => l.includes('slow_count cancelled by the client')).length;
  });
});
after(async () => { await rig?.close(); });

const cancelledAtServer = () => cancellations;

/** Opens a tool's details (its run form) unless they are open already. */
async function openTool(row) {
  const more = row.locator('button.more');
  if ((await more.getAttribute('aria-expanded')) !== 'true') await more.click();
}

const TEXT = {
  en: { cancel: 'Cancel run', tab: 'Tools', cancelled: 'Cancelled' },
  zh_CN: { cancel: '取消运行', tab: '工具', cancelled: '已取消' },
};

for (const lang of ['en', 'zh_CN']) {
  test(`a run by hand shows its progress bar and Cancel stops it at the server (${lang})`, async () => {
    const before = cancelledAtServer();
    const panel = rig.panel;
    await rig.call({ type: 'settings/set', settings: { ...(await rig.call({ type: 'settings/get' })), language: lang } });
    // A fresh load (the panel may already show #tools, where a goto would not reload it): the
    // language is the stored one from the first paint.
    await panel.goto('about:blank');
    await panel.goto(rig.ext.url('www/panel.html#tools'));
    await panel.locator('#core-status[data-state="ready"]').waitFor();
    assert.equal(await panel.locator('#tab-tools').textContent(), TEXT[lang].tab);
    const row = panel.locator('li.tool[data-tool="slow_count"]');
    await row.waitFor({ timeout: 15_000 });
    await openTool(row);
    await row.locator('[data-param="steps"] input').fill('20');
    await row.locator('[data-param="delay_ms"] input').fill('400');
    await row.locator('form.run-form button[type="submit"]').click();
    // The bar appears with the server's total once the first notification arrived.
    const bar = row.locator('.run-progress progress');
    await bar.waitFor({ timeout: 15_000 });
    assert.equal(await bar.getAttribute('max'), '20');
    const cancel = row.locator('.running button[data-action="cancel"]');
    assert.equal(await cancel.textContent(), TEXT[lang].cancel);
    await cancel.click();
    // The run ends as cancelled, said as a neutral note (the user's own doing, not a failure),
    // and the server saw it.
    const note = row.locator('.run-result [data-kind="cancelled"]');
    await note.waitFor({ timeout: 10_000 });
    assert.equal(await note.textContent(), TEXT[lang].cancelled);
    assert.equal(await row.locator('.run-result .error, .run-result [role="alert"]').count(), 0);
    await until(() => cancelledAtServer() === before + 1, { what: 'the server observes the cancellation' });
    assert.equal(await row.locator('.running').count(), 0);
    assert.deepEqual(await rig.call({ type: 'calls/running' }), []);
  });
}

test('Cancel of a run nobody is running is refused with a clear error', async () => {
  const got = await rig.panel.evaluate(() => chrome.runtime.sendMessage({ type: 'calls/cancel', key: 'no-such-run' }));
  assert.equal(got.ok, false);
  assert.equal(got.error.kind, 'invalid_state');
});

/** Opens a chat whose reply calls slow_count (asked before it runs); returns the page. */
async function slowChat(steps) {
  await rig.call({ type: 'tools/policy', serverId: rig.serverId, tool: 'slow_count', policy: 'ask' });
  const site = await rig.addSite('chatgpt');
  const args = encodeURIComponent(JSON.stringify({ steps, delay_ms: 400 }));
  const { page, chatRef } = await rig.openChat(`${site.origin}/chatgpt/?tool=slow_count&args=${args}`, {}, 'chatgpt');
  return { page, chatRef };
}

test('Activity: a running chat call shows its progress and Cancel stops it at the server', async () => {
  await rig.call({ type: 'settings/set', settings: { ...(await rig.call({ type: 'settings/get' })), language: 'en' } });
  const before = cancelledAtServer();
  const { page, chatRef } = await slowChat(20);
  const panel = await openExtensionPage(rig.ext, 'www/panel.html#activity');
  await panel.bringToFront();
  await rig.insertInstructions(chatRef);
  const pending = panel.locator('article.call[data-state="pending"]');
  await pending.waitFor({ timeout: 20_000 });
  // The toolbar badge of this chat's tab counts its waiting call.
  const tabBadge = () => rig.ext.sw.evaluate((tabId) => chrome.action.getBadgeText({ tabId }), chatRef.tabId);
  await until(async () => (await tabBadge()) === '1', { what: "the chat tab's badge" });
  await pending.locator('[data-decision="run"]').click();
  await until(async () => (await tabBadge()) === '', { what: "the chat tab's badge to clear" });
  const running = panel.locator('article.call[data-state="running"]');
  await running.locator('.progress progress').waitFor({ timeout: 15_000 });
  await running.locator('button[data-action="cancel"]').click();
  const failed = panel.locator('article.call[data-state="failed"]');
  await failed.waitFor({ timeout: 10_000 });
  await until(() => cancelledAtServer() === before + 1, { what: 'the server observes the cancellation' });
  const [record] = await rig.calls(chatRef, page);
  assert.equal(record.state, 'failed');
  assert.equal(record.error.kind, 'cancelled');

  // The chat's activity exports as JSON and as Markdown.
  const saved = async (action) => {
    const download = panel.waitForEvent('download');
    await panel.locator(`button[data-action="${action}"]`).click();
    return readFileSync(await (await download).path(), 'utf8');
  };
  const asJson = JSON.parse(await saved('export-json'));
  assert.equal(asJson.calls.length, 1);
  assert.equal(asJson.calls[0].tool, 'slow_count');
  assert.equal(asJson.calls[0].error.kind, 'cancelled');
  const asMd = await saved('export-md');
  assert.match(asMd, /^# Activity/m);
  assert.match(asMd, /^## slow_count — /m);
  assert.match(asMd, /```json\n\{\n  "steps": 20/);
  assert.match(asMd, /cancelled: cancelled by the user/);
  await panel.close();
  await page.close();
});

test('the in-page card shows progress and its Cancel (a trusted click) stops the call at the server', async () => {
  const before = cancelledAtServer();
  const { page, chatRef } = await slowChat(20);
  await rig.insertInstructions(chatRef);
  const pending = await until(async () => (await rig.calls(chatRef, page)).find((c) => c.state === 'pending'), { timeoutMs: 20_000, what: 'a pending call' });
  await rig.call({ type: 'activity/decide', key: pending.key, decision: 'run' });
  await page.bringToFront();
  await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="running"] progress', { timeoutMs: 15_000 });
  const [info] = await textsInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="running"] .progress');
  assert.match(info, /\d+\/20/);
  await trustedClickInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="running"] button[data-action="cancel"]');
  await until(() => cancelledAtServer() === before + 1, { what: 'the server observes the cancellation' });
  const record = await until(async () => (await rig.calls(chatRef, page)).find((c) => c.key === pending.key && c.state === 'failed'), { what: 'the call ends cancelled' });
  assert.equal(record.error.kind, 'cancelled');
  await page.close();
});

test('the run form edits all arguments as JSON, checked as typed', async () => {
  const panel = rig.panel;
  await panel.goto(rig.ext.url('www/panel.html#tools'));
  await panel.locator('#core-status[data-state="ready"]').waitFor();
  const row = panel.locator('li.tool[data-tool="slow_count"]');
  await row.waitFor({ timeout: 15_000 });
  await openTool(row);
  await row.locator('[data-param="steps"] input').fill('2');
  await row.locator('input[data-action="json-mode"]').check();
  const editor = row.locator('textarea[data-editor="arguments"]');
  assert.equal(JSON.parse(await editor.inputValue()).steps, 2, "the form's values carry over");
  const error = row.locator('form.run-form > .field-error');
  for (const [text, problem] of [['{"steps": ', /JSON/], ['[1, 2]', /object/]]) {
    await editor.fill(text);
    await until(async () => problem.test(await error.textContent()), { what: `the editor refuses ${text}` });
    assert.equal(await editor.getAttribute('aria-invalid'), 'true');
  }
  await editor.fill('{"steps": 1, "delay_ms": 0}');
  await until(async () => (await error.textContent()) === '', { what: 'the editor accepts an object' });
  await row.locator('form.run-form button[type="submit"]').click();
  await row.locator('.run-result article.call[data-state="done"]').waitFor({ timeout: 10_000 });
  assert.match(await row.locator('.run-result').textContent(), /counted to 1/);
});

test('an array argument is edited as JSON and checked as it is typed', async () => {
  const row = rig.panel.locator('li.tool[data-tool="notes_add"]');
  await row.waitFor({ timeout: 15_000 });
  await openTool(row);
  const tags = row.locator('[data-param="tags"] textarea[data-editor="json"]');
  const error = row.locator('[data-param="tags"] .field-error');
  await tags.fill('{"a": 1}');
  await until(async () => (await error.textContent()) === 'Must be JSON of type array.', { what: 'the type refusal' });
  await tags.fill('["x", ');
  await until(async () => /^Not valid JSON/.test(await error.textContent()), { what: 'the syntax refusal' });
  await tags.fill('["x", "y"]');
  await until(async () => (await error.textContent()) === '', { what: 'the editor accepts an array' });
  assert.equal(await tags.getAttribute('aria-invalid'), null);
});

test('the keyboard shortcuts are declared, and "insert the instructions" writes them into the active chat', async () => {
  const commands = await rig.ext.sw.evaluate(() => chrome.commands.getAll());
  const byName = Object.fromEntries(commands.map((c) => [c.name, c]));
  assert.ok(byName['open-panel'] && byName['insert-instructions'], JSON.stringify(commands));
  assert.equal(byName['insert-instructions'].description, 'Insert the MCP Relay instructions into the current chat');
  const site = await rig.addSite('chatgpt');
  const { page, chatRef } = await rig.openChat(`${site.origin}/chatgpt/`, { autoSubmit: false }, 'chatgpt');
  await page.bringToFront();
  await rig.ext.sw.evaluate((tabId) => chrome.tabs.get(tabId).then((tab) => globalThis.__relayCommand('insert-instructions', tab)), chatRef.tabId);
  const composer = () => page.evaluate(() => {
    const el = document.querySelector('#prompt-textarea, textarea, [contenteditable="true"]');
    return el ? (el instanceof HTMLTextAreaElement ? el.value : el.textContent || '') : '';
  });
  await until(async () => (await composer()).includes('slow_count'), { what: 'the instructions in the chat input' });
  await page.close();
});
