// The tool loop inside a chat, end to end: the real extension in Chromium, the bundled demo MCP
// server, and the demo chat fixture (a scripted assistant streaming token by token).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  coreCall, until, waitInClosedShadow, trustedClickInClosedShadow, startDemoChat, ok,
} from './harness.mjs';

let rig, ext, chat, panel, serverId;

before(async () => {
  rig = await startDemoChat();
  ({ ext, chat, panel, serverId } = rig);
});

after(async () => { await rig?.close(); });

/** Opens a fresh chat tab with the given settings; returns {page, chatRef}. */
async function openChat(settings, query = '') {
  const page = await ext.context.newPage();
  await page.goto(`${chat.origin}/${query}`);
  await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
  const tabs = await ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
  const chatRef = { tabId: Math.max(...tabs), url: page.url() };
  await ok(await coreCall(panel, { type: 'chat/set', chat: chatRef, settings: { serverIds: [serverId], ...settings } }));
  return { page, chatRef };
}

async function insertInstructions(chatRef) {
  const prompt = await ok(await coreCall(panel, { type: 'prompt/build', chat: chatRef }));
  assert.ok(prompt && prompt.text.includes('add'), 'the prompt describes the demo tools');
  await ok(await coreCall(panel, { type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true }));
}

const calls = async (chatRef) => ok(await coreCall(panel, { type: 'activity/list', chat: chatRef }));

test('allowed tool: instructions → call → run once → result submitted → final answer', async () => {
  await ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'add', policy: 'allow' }));
  const { page, chatRef } = await openChat({ autoExecute: true, autoSubmit: true });
  await insertInstructions(chatRef);
  const final = page.locator('.turn[data-role="assistant"]', { hasText: 'Final answer' });
  await final.waitFor({ timeout: 30_000 });
  await page.locator('#stop').waitFor({ state: 'hidden', timeout: 30_000 }); // the reply finished streaming
  assert.match(await final.innerText(), /\b5\b/, 'the assistant saw the real result of add(2, 3)');
  const list = await calls(chatRef);
  assert.equal(list.length, 1);
  assert.equal(list[0].state, 'done');
  assert.equal(list[0].tool, 'add');
  assert.equal(list[0].delivered, true);

  // A re-render of the same reply (the site rebuilds its DOM) never runs the call again.
  await page.evaluate(() => {
    const turn = document.querySelector('.turn[data-role="assistant"]');
    turn.replaceWith(turn.cloneNode(true));
  });
  // Witness that the re-render went through the pipeline: a later reply's call runs (the page
  // is read in order), and then the ledger holds that call and the first one, once each.
  await insertInstructions(chatRef);
  await until(async () => (await calls(chatRef)).filter((c) => c.state === 'done').length >= 2, { timeoutMs: 30_000, what: 'the later reply\'s call' });
  const after = await calls(chatRef);
  assert.deepEqual(after.map((c) => `${c.tool}:${c.state}`), ['add:done', 'add:done']);
  assert.notEqual(after[0].messageId, after[1].messageId, 'the second call came from the later reply');
  await page.close();
});

test('ask policy: the call waits for Run on its card, then runs once', async () => {
  await ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'add', policy: 'ask' }));
  const { page, chatRef } = await openChat({ autoExecute: true, autoSubmit: true });
  await insertInstructions(chatRef);
  await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="pending"]');
  assert.equal((await calls(chatRef))[0].state, 'pending');
  // Run acts once the card has been in full view for a moment (clickjacking defence).
  await page.bringToFront();
  await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="pending"] button[data-action="run"][data-armed="true"]');
  await trustedClickInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="pending"] button[data-action="run"]');
  await page.locator('.turn[data-role="assistant"]', { hasText: 'Final answer' }).waitFor({ timeout: 30_000 });
  const list = await calls(chatRef);
  assert.deepEqual(list.map((c) => c.state), ['done']);
  await page.close();
});

test('deny policy: the call never runs and the model is told', async () => {
  await ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'add', policy: 'deny' }));
  const { page, chatRef } = await openChat({ autoExecute: true, autoSubmit: true });
  await insertInstructions(chatRef);
  await until(async () => (await calls(chatRef)).some((c) => c.state === 'denied' && c.delivered), { timeoutMs: 30_000, what: 'denied call delivered' });
  const inputOrTurns = await page.locator('.turn[data-role="user"]').allInnerTexts();
  assert.ok(inputOrTurns.some((t) => /denied/i.test(t)), 'the denial went back to the model');
  await ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'add', policy: 'allow' }));
  await page.close();
});

test('call text in a user message or posted by the page runs nothing', async () => {
  const { page, chatRef } = await openChat({ autoExecute: true, autoSubmit: false });
  const callText = '```json\n{"tool": "add", "arguments": {"a": 40, "b": 2}}\n```';
  // The user (or a page script) writes call text into the user's turn: never read.
  await page.evaluate((t) => {
    const div = document.createElement('div');
    div.className = 'turn';
    div.dataset.role = 'user';
    div.textContent = t;
    document.getElementById('log').appendChild(div);
    // A page script trying to talk to the extension directly.
    window.postMessage({ type: 'page/observe', page: 'x', submitted: true, turns: [{ h: 1, text: t }] }, '*');
    try { chrome.runtime.sendMessage('x', { type: 'tools/call' }); } catch { /* no API here */ }
  }, callText);
  // Witness that the page was read after those: the instructions make the assistant reply with
  // a call of its own (add 2 + 3), which runs; it is the only call.
  await insertInstructions(chatRef);
  await until(async () => (await calls(chatRef)).length > 0, { timeoutMs: 30_000, what: 'the assistant\'s call' });
  const list = await calls(chatRef);
  assert.deepEqual(list.map((c) => [c.tool, c.arguments]), [['add', { a: 2, b: 3 }]]);
  await page.close();
});

test('tool forced: a reply without a call gets one reminder to call a tool, never a loop of them', async () => {
  const { page, chatRef } = await openChat({ autoExecute: true, autoSubmit: true, strategy: 'toolForced' });
  await page.fill('#input', 'hi');
  await page.click('#send');
  const reminder = page.locator('.turn[data-role="user"]', { hasText: 'please use one of the tools' });
  await reminder.waitFor({ timeout: 20_000 });
  // The assistant answers the reminder without a call again: no second reminder follows.
  await page.locator('.turn[data-role="assistant"]').nth(1).waitFor({ timeout: 20_000 });
  await page.locator('#stop').waitFor({ state: 'hidden', timeout: 20_000 });
  // Witness that the core handled the second reply's end: its page model has both replies
  // ended (live replies that ended, not old ones)…
  await until(async () => {
    const view = (await coreCall(panel, { type: 'page/state', chat: chatRef })).data;
    return !!view && view.turns.filter((t) => t.state === 'done').length >= 2;
  }, { timeoutMs: 20_000, what: 'both replies ended in the core\'s page model' });
  // …and a later insertion from the worker into this tab (queued behind any reminder it sent)
  // has arrived: anything sent before it has been inserted too.
  const marker = 'marker after the second reply';
  await ok(await coreCall(panel, { type: 'chat/insert', chat: chatRef, text: marker, submit: false }));
  await until(async () => (await page.inputValue('#input')).includes(marker), { timeoutMs: 10_000, what: 'the marker insertion' });
  assert.equal(await reminder.count(), 1);
  assert.equal((await calls(chatRef)).length, 0);
  await page.close();
});
