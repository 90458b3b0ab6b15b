// What a user is told: an allowed tool that waits because auto-run is off says so on its card
// and in the panel; waiting calls show as a badge on the toolbar icon and on the Activity tab
// (gone once decided); settings set for the whole site reach the site's conversations without
// their own, and one conversation's own stay in it; in Chinese, the core's errors are said in
// Chinese with the core's own words kept as details.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  coreCall, until, waitInClosedShadow, trustedClickInClosedShadow, textsInClosedShadow, startDemoChat, ok, openExtensionPage,
} from './harness.mjs';

let rig;
before(async () => { rig = await startDemoChat(); });
after(async () => { await rig?.close(); });

const call = async (message) => ok(await coreCall(rig.panel, message));

async function openTab(path = '/') {
  const page = await rig.ext.context.newPage();
  await page.goto(rig.chat.origin + path);
  await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
  const tabs = await rig.ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
  return { page, chatRef: { tabId: Math.max(...tabs), url: page.url() } };
}

const badge = () => rig.ext.sw.evaluate(() => chrome.action.getBadgeText({}));

test('auto-run off: the card says why an allowed tool waits; badges count waiting calls', async () => {
  await call({ type: 'tools/policy', serverId: rig.serverId, tool: 'add', policy: 'allow' });
  const { page, chatRef } = await openTab('/?first');
  await call({ type: 'chat/set', chat: chatRef, settings: { serverIds: [rig.serverId], autoExecute: false, autoSubmit: true } });
  const prompt = await call({ type: 'prompt/build', chat: chatRef });
  await call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });

  await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="pending"] [data-wait="auto_run_off"]');
  const [why] = await textsInClosedShadow(page, 'mcp-relay-ui', '[data-wait="auto_run_off"]');
  assert.match(why, /auto-run is off in this chat/);
  const [rec] = await call({ type: 'activity/list', chat: chatRef });
  assert.equal(rec.wait, 'auto_run_off');
  assert.equal(await badge(), '1', 'the toolbar icon counts the waiting call');

  const panel = await openExtensionPage(rig.ext, 'www/panel.html');
  await until(async () => (await panel.locator('#activity-badge').innerText().catch(() => '')) === '1', { what: 'the Activity tab badge' });

  // Run acts once the card has been in full view for a moment (clickjacking defence).
  await page.bringToFront();
  await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="pending"] button[data-action="run"][data-armed="true"]');
  await trustedClickInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="pending"] button[data-action="run"]');
  await until(async () => (await call({ type: 'activity/list', chat: chatRef }))[0].state === 'done', { timeoutMs: 20_000, what: 'the call to run' });
  await until(async () => (await badge()) === '', { what: 'the toolbar badge to clear' });
  await until(async () => panel.locator('#activity-badge').isHidden(), { what: 'the Activity tab badge to clear' });
  await panel.close();
  await page.close();
});

test('set for the whole site: a new chat of the site uses it, auto-run too; a conversation of its own keeps its own', async () => {
  const a = await openTab('/?a');
  const picked = await call({ type: 'chat/set', chat: a.chatRef, settings: { serverIds: [rig.serverId], autoExecute: true, autoSubmit: true }, scope: 'site' });
  assert.equal(picked.source, 'site');
  const b = await openTab('/?b');
  // The user chose the whole site: its other conversations get the switches too.
  const inherited = await call({ type: 'chat/get', chat: b.chatRef });
  assert.equal(inherited.source, 'site');
  assert.deepEqual([inherited.serverIds, inherited.autoExecute, inherited.autoSubmit], [[rig.serverId], true, true]);

  await call({ type: 'chat/set', chat: b.chatRef, settings: { ...inherited, autoExecute: false }, scope: 'chat' });
  const c = await openTab('/?c');
  const site = await call({ type: 'chat/get', chat: c.chatRef });
  assert.equal(site.autoExecute, true, 'one conversation of its own did not change the site');
  assert.equal((await call({ type: 'chat/get', chat: b.chatRef })).autoExecute, false);
  // A change that names no scope stays in its conversation.
  await call({ type: 'chat/set', chat: c.chatRef, settings: { serverIds: [], autoExecute: false } });
  assert.equal((await call({ type: 'chat/get', chat: a.chatRef })).autoExecute, true);
  for (const p of [a, b, c]) await p.page.close();
});

test('in Chinese, the core\'s error is said in Chinese and its own words are kept as details', async () => {
  await call({ type: 'settings/set', settings: { language: 'zh_CN' } });
  try {
    const panel = await openExtensionPage(rig.ext, 'www/panel.html#settings');
    await panel.locator('#sites-json').waitFor();
    await panel.fill('#sites-json', JSON.stringify([{ origin: rig.chat.origin, custom: { input: ['textarea'], send: ['button'] } }]));
    await panel.click('#sites-import');
    const error = panel.locator('.error[data-localized="true"]');
    await error.waitFor();
    assert.equal(await error.locator('.error-message').innerText(), '请求无效。');
    assert.match(await error.locator('.error-original').first().textContent(), /adapter field 'assistant'/);
    await panel.close();
  } finally {
    await call({ type: 'settings/set', settings: { language: 'auto' } });
  }
});
