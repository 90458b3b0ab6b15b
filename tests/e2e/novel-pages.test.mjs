// The two chat pages the generic adapter failed on, written outside the project
// (tests/fixtures/novel/, unchanged copies of shared/novel-pages; their README gives the
// scenarios): each runs the whole loop with the unmodified extension and the generic adapter,
// as a user drives it — the server added and its tool on Allow, the page added as a custom site,
// the server picked for the chat with auto-run and auto-send, Insert into chat, one send by
// the user. Calls are counted at the server's door by a pass-through proxy.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, ok, serveStatic, until, ROOT } from './harness.mjs';
import { startServerEverything, hasModule } from '../interop/lib.mjs';
import { startCountingProxy } from './counting-proxy.mjs';

const NOVEL = join(ROOT, 'tests/fixtures/novel');
const skip = hasModule('@modelcontextprotocol/server-everything') ? false : 'server-everything is not installed (npm ci)';

/** @type {any} */
let rig;

before(async () => {
  if (skip) return;
  const everything = await startServerEverything('streamableHttp');
  const proxy = await startCountingProxy(everything.url);
  const ext = await launchExtension();
  const panel = await openExtensionPage(ext, 'www/panel.html');
  const call = async (/** @type {any} */ m) => ok(await coreCall(panel, m));
  const serverId = (await call({ type: 'servers/add', server: { name: 'everything', url: proxy.url } })).id;
  const tools = await call({ type: 'tools/list', serverId, refresh: true });
  for (const tool of ['get-sum', 'echo']) assert.ok(tools.some((/** @type {any} */ t) => t.name === tool), `server-everything lists ${tool}`);
  for (const tool of ['get-sum', 'echo']) await call({ type: 'tools/policy', serverId, tool, policy: 'allow' });
  rig = { everything, proxy, ext, panel, call, serverId, statics: [] };
});

after(async () => {
  if (!rig) return;
  await rig.ext.close();
  for (const s of rig.statics) await s.close();
  await rig.proxy.close();
  await rig.everything.stop();
});

/** Serves a novel page's folder (single-page deep links fall back to its index.html) as a custom site with the generic adapter. */
async function addSite(/** @type {string} */ folder) {
  const site = await serveStatic(join(NOVEL, folder), { fallback: (/** @type {string} */ p) => (p.startsWith('/c/') ? 'index.html' : null) });
  rig.statics.push(site);
  await rig.call({ type: 'sites/add', origin: site.origin, adapter: 'generic' });
  await until(() => rig.ext.sw.evaluate(async (/** @type {string} */ id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin),
    { what: `content script for ${site.origin}` });
  return site;
}

/** The page opened with the content script ready (generic adapter). */
async function open(/** @type {string} */ url) {
  const page = await rig.ext.context.newPage();
  await page.goto(url);
  await page.locator('mcp-relay-ui[data-state="ready"][data-adapter="generic"]').waitFor({ state: 'attached', timeout: 15_000 });
  return page;
}

/** The chat reference of a page as the side panel names it (its tab and its URL now). */
async function chatOf(/** @type {import('playwright-core').Page} */ page) {
  const tabs = await rig.ext.sw.evaluate(async (/** @type {string} */ u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
  return { tabId: Math.max(...tabs), url: page.url() };
}

/** Picks the server for the chat with auto-run and auto-send, and inserts the instructions without sending them. */
async function insert(/** @type {any} */ chat) {
  await rig.call({ type: 'chat/set', chat, settings: { serverIds: [rig.serverId], autoExecute: true, autoSubmit: true } });
  const prompt = await rig.call({ type: 'prompt/build', chat });
  const inserted = await rig.call({ type: 'chat/insert', chat, text: prompt.text, submit: false });
  assert.equal(inserted.inserted, true, JSON.stringify(inserted));
  return prompt.text;
}

/** Every line break of `sent` (the instructions) reached the page's model in `received`. */
function assertLines(/** @type {string} */ received, /** @type {string} */ sent) {
  const lines = (/** @type {string} */ s) => s.replace(/\r\n?/g, '\n').split('\n').map((l) => l.trimEnd());
  const breaks = (/** @type {string} */ s) => (s.trim().match(/\n/g) || []).length;
  assert.equal(breaks(received), breaks(sent), `the page's model received ${breaks(received)} line breaks of the instructions' ${breaks(sent)}`);
  assert.deepEqual(lines(received.trim()), lines(sent.trim()));
}

test('novel page 1: a contenteditable with its own model gets every line break, get-sum runs once, "The sum is 42."', { skip }, async () => {
  const site = await addSite('page-1');
  const page = await open(`${site.origin}/index.html`);
  const chat = await chatOf(page);
  const text = await insert(chat);
  // The send control follows the page's model: enabled means the model holds the instructions.
  await until(() => page.evaluate(() => !(/** @type {HTMLButtonElement} */ (document.querySelector('button.go'))).disabled), { what: 'send enabled by the model' });
  await page.click('button.go');
  await until(() => page.evaluate(() => document.body.innerText.includes('The sum is 42.')), { timeoutMs: 40_000, what: '"The sum is 42."' });
  const sent = await page.evaluate(() => /** @type {any} */ (window).__sent);
  assertLines(sent[0], text);
  assert.equal(sent.length, 2, 'the instructions, then the result, nothing else');
  assert.match(sent[1], /42/);
  assert.equal(rig.proxy.count('get-sum', (/** @type {any} */ a) => a.a === 19 && a.b === 23), 1, 'get-sum {a: 19, b: 23} ran exactly once at the server');
  const calls = await rig.call({ type: 'activity/list', chat: { ...chat, url: page.url() } });
  assert.deepEqual(calls.map((/** @type {any} */ c) => `${c.tool}:${c.state}:${!!c.delivered}`), ['get-sum:done:true']);
  await page.close();
});

test('novel page 2: web components, a thinking draft and a second conversation; echo runs once, "Verified: relay-check-7."', { skip }, async () => {
  const site = await addSite('page-2');
  const page = await open(`${site.origin}/`);
  const events = () => page.evaluate(() => /** @type {any[]} */ ((/** @type {any} */ (window)).__events).map((e) => ({ ...e })));
  // The user greets the assistant by typing and sending.
  await page.locator('x-composer textarea').click();
  await page.keyboard.type('你好');
  await page.locator('[aria-label="发送消息"]').click();
  await until(async () => (await events()).some((e) => e.what === 'bot-done' && e.kind === 'polite'), { timeoutMs: 20_000, what: 'the greeting answered' });
  // A new conversation, without a reload.
  await page.locator('x-chat button').filter({ hasText: '新对话' }).click();
  await until(() => page.evaluate(() => location.pathname.startsWith('/c/')), { what: 'the new conversation URL' });
  const chat = await chatOf(page);
  const text = await insert(chat);
  await until(() => page.evaluate(() => {
    const send = /** @type {any} */ (document.querySelector('x-chat')).shadowRoot.querySelector('x-composer').shadowRoot.querySelector('[aria-label="发送消息"]');
    return send.getAttribute('aria-disabled') === 'false';
  }), { what: 'send enabled by the composer state' });
  await page.locator('[aria-label="发送消息"]').click();
  await until(async () => (await events()).some((e) => e.what === 'bot-done' && e.kind === 'verified'), { timeoutMs: 60_000, what: '"Verified: relay-check-7."' });
  const received = await page.evaluate(() => /** @type {string[]} */ ((/** @type {any} */ (window)).__received).slice());
  assertLines(received[0], text);
  assert.equal(received.length, 2, 'the instructions, then the result, nothing else');
  assert.equal(rig.proxy.count('echo', (/** @type {any} */ a) => a.message === 'relay-check-7'), 1, 'echo relay-check-7 ran exactly once at the server');
  assert.equal(rig.proxy.count('echo', (/** @type {any} */ a) => a.message === 'draft-should-not-run'), 0, 'the draft in the thinking block never ran');
  assert.deepEqual(await page.evaluate(() => (/** @type {any} */ (window)).__wrongClicks.length), 0, 'no wrong control was pressed');
  assert.equal((await events()).filter((e) => e.what === 'new-chat').length, 1, 'no extra 新对话');
  await page.close();
});
