// MCP Apps (issue 31) with real servers that ship apps: a Python server built with PyPI `mcp`'s
// `mcp.server.apps` (tests/python/apps_server.py: a chart app, an app-only tool, a model-only
// tool and a hostile app) and the official example `@modelcontextprotocol/server-basic-vanillajs`
// (tests/apps/example-server.mjs). A chat's model calls the tool, its app opens in the side
// panel with the call's input and result, and the app calls a tool (it runs once, in Activity),
// writes into the chat's composer, gives the model context and asks to open a link. The hostile
// app tries every way out of its frame: each is refused and nothing runs.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openExtensionPage, until, waitInClosedShadow, trustedClickInClosedShadow } from './harness.mjs';
import { startRig } from '../fixtures/sites/_shared/loop.mjs';
import { startPythonAppsServer, startAppsExampleServer } from '../interop/lib.mjs';

let rig;
let py;
let example;
let pyId;
let exampleId;

before(async () => {
  [rig, py, example] = await Promise.all([startRig(), startPythonAppsServer(), startAppsExampleServer()]);
  pyId = (await rig.call({ type: 'servers/add', server: { name: 'Charts', url: py.url } })).id;
  exampleId = (await rig.call({ type: 'servers/add', server: { name: 'Clock', url: example.url } })).id;
  for (const tool of ['show_chart', 'refresh_chart', 'hostile_view', 'secret_admin']) {
    await rig.call({ type: 'tools/policy', serverId: pyId, tool, policy: 'allow' });
  }
  await rig.call({ type: 'tools/policy', serverId: exampleId, tool: 'get-time', policy: 'allow' });
});
after(async () => {
  await rig?.close();
  await py?.close();
  await example?.close();
});

/** The server's own count of runs per tool. */
const runs = async () => (await fetch(`${py.origin}/calls`)).json();

/**
 * A chat whose model calls `tool` of `serverId`, with the instructions sent; resolves when the
 * call is done, with the page, the chat and the panel open on Activity.
 */
async function chatCalling(serverId, tool, args = {}) {
  const site = await rig.addSite('chatgpt');
  const q = `tool=${encodeURIComponent(tool)}&args=${encodeURIComponent(JSON.stringify(args))}`;
  const { page, chatRef } = await rig.openChat(`${site.origin}/chatgpt/?${q}`, { serverIds: [serverId] }, 'chatgpt');
  const panel = await openExtensionPage(rig.ext, 'www/panel.html#activity');
  const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
  await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
  const record = await until(async () => (await rig.calls(chatRef, page)).find((c) => c.tool === tool && c.state === 'done'),
    { timeoutMs: 30_000, what: `${tool} done` });
  await panel.bringToFront();
  return { page, chatRef, panel, record, prompt };
}

/** The app's own frame (the sandboxed document inside www/app/frame.html). */
async function appFrame(panel) {
  return until(() => panel.frames().find((f) => f.parentFrame()?.url().endsWith('/www/app/frame.html')), { timeoutMs: 15_000, what: "the app's frame" });
}

test("the model's call of a tool with an interface opens its app, which calls its tool once, writes into the chat and tells the model what it shows", async () => {
  const { page, chatRef, panel, record, prompt } = await chatCalling(pyId, 'show_chart', { points: [3, 1, 4] });
  // Visibility: the app-only tool never reached the model; the model-only one did.
  assert.ok(prompt.text.includes('show_chart'));
  assert.ok(prompt.text.includes('secret_admin'));
  assert.ok(!prompt.text.includes('refresh_chart'), 'an app-only tool is absent from the prompt');
  assert.equal(record.hasApp, true);
  // The result the chat got says the user sees an interface.
  const submitted = await until(async () => (await page.evaluate(() => window.__fixture.submitted)).map((s) => s.text).find((s) => s.includes('chart of 3 points')), { what: 'results in the chat' });
  assert.match(submitted, /show_chart also shows the user an interactive view/);

  // The in-page card's Open in panel (a trusted click on the chip's pill): the panel shows it.
  await page.bringToFront();
  await waitInClosedShadow(page, 'mcp-relay-ui', '.chip button[data-action="calls"]');
  await trustedClickInClosedShadow(page, 'mcp-relay-ui', '.chip button[data-action="calls"]');
  await trustedClickInClosedShadow(page, 'mcp-relay-ui', 'button[data-action="open-app"]');
  // The panel (a tab here, beside the chat in a real side panel) opens the app of the chat the
  // click came from.
  await panel.bringToFront();
  const app = panel.locator('section.app-view[data-tool="show_chart"]');
  await app.waitFor();
  const frame = await appFrame(panel);
  // The app got the call's input and result from the host.
  await frame.locator('#result', { hasText: 'chart of 3 points' }).waitFor({ timeout: 15_000 });
  assert.match(await frame.locator('#input').textContent(), /3.*1.*4/);

  // It calls its app-only tool: it runs once, and Activity records it as the app's.
  const before = await runs();
  await frame.locator('#call-refresh').click();
  await frame.locator('#called', { hasText: 'refreshed' }).waitFor({ timeout: 15_000 });
  assert.equal((await runs()).refresh_chart, before.refresh_chart + 1);
  const byApp = await until(async () => (await rig.calls(chatRef, page)).find((c) => c.tool === 'refresh_chart'), { what: "the app's call in Activity" });
  assert.equal(byApp.byApp, 'show_chart');
  assert.equal(byApp.state, 'done');
  await panel.locator('article.call .call-by-app').first().waitFor();

  // Context, then a message: the message reaches the chat (which sends by itself here) with
  // what the app said it shows.
  await frame.locator('#update-context').click();
  await frame.locator('#answer', { hasText: /\{\}|ok/ }).waitFor({ timeout: 10_000 }).catch(() => {});
  await frame.locator('#send-message').click();
  const sent = await until(async () => (await page.evaluate(() => window.__fixture.submitted)).map((s) => s.text).find((s) => s.includes('From the chart app: hello')), { timeoutMs: 15_000, what: "the app's message in the chat" });
  assert.match(sent, /chart shows 3 points/);

  // A link opens only from the user's click on a button that names its host.
  const opened = rig.ext.context.waitForEvent('page', { timeout: 15_000 });
  await frame.locator('#open-link').click();
  const openButton = app.locator('button[data-action="app-open-link"]');
  await openButton.waitFor();
  assert.match(await openButton.textContent(), /example\.com/);
  await openButton.click();
  const tab = await opened;
  assert.match(tab.url(), /^https:\/\/example\.com\/docs|^chrome-error:/);
  await tab.close();

  // Close: the app's instance ends in the core.
  await app.locator('button[data-action="app-close"]').click();
  await app.waitFor({ state: 'detached' });
  await panel.close();
  await page.close();
});

test("the official example app (server-basic-vanillajs) renders its tool's result and calls its server", async () => {
  const { page, chatRef, panel, record } = await chatCalling(exampleId, 'get-time');
  await panel.locator(`article.call[data-key="${record.key}"] button[data-action="open-app"]`).click();
  const frame = await appFrame(panel);
  // The tool's result arrives as the app's first time.
  await until(async () => /\d{4}-\d\d-\d\dT/.test((await frame.locator('#server-time').textContent()) || ''), { timeoutMs: 15_000, what: "the example app shows the result's time" });
  const shown = await frame.locator('#server-time').textContent();
  await frame.locator('#get-time-btn').click();
  await until(async () => ((await frame.locator('#server-time').textContent()) || '') !== shown, { timeoutMs: 15_000, what: 'a new time from the app\'s own call' });
  const byApp = (await rig.calls(chatRef, page)).filter((c) => c.byApp === 'get-time');
  assert.equal(byApp.length, 1, 'the app\'s call ran once, in Activity');
  await panel.close();
  await page.close();
});

test('a hostile app reaches nothing: not the extension, not the panel, not undeclared hosts, not other tools, not the page', async () => {
  const { page, panel, record } = await chatCalling(pyId, 'hostile_view');
  const before = await runs();
  const panelUrl = panel.url();
  await panel.locator(`article.call[data-key="${record.key}"] button[data-action="open-app"]`).click();
  const frame = await appFrame(panel);
  const outcomes = await until(async () => {
    const o = await frame.evaluate(() => window.__outcomes).catch(() => null);
    return o && o['load:done'] ? o : null;
  }, { timeoutMs: 30_000, what: "the hostile app's attacks" });
  if (process.env.APPS_DEBUG) console.log(outcomes);
  const allowed = Object.entries(outcomes).filter(([name, v]) => name !== 'load:done' && String(v).startsWith('ALLOWED'));
  assert.deepEqual(allowed, [], 'every attack is refused');
  for (const attack of ['chrome.runtime', 'parent.document', 'top.document', 'fetch-undeclared', 'popup-without-click', 'call-model-only-tool', 'call-other-server-tool', 'open-link-javascript', 'top.location']) {
    assert.ok(String(outcomes[`load:${attack}`] || '').startsWith('blocked'), `${attack}: ${outcomes[`load:${attack}`]}`);
  }
  // Nothing arrived where it must not: no leak, no model-only call, a bounded flood.
  assert.equal((await (await fetch(`${py.origin}/leak-count`)).json()).count, 0);
  const after = await runs();
  assert.equal(after.secret_admin, before.secret_admin, 'a model-only tool never runs for an app');
  assert.ok(after.refresh_chart - before.refresh_chart <= 20, `a flood of calls is bounded: ${after.refresh_chart - before.refresh_chart} ran`);
  // The panel is where it was, and the look-alike link waits for a click that never came.
  assert.equal(panel.url(), panelUrl);
  await panel.close();
  await page.close();
});

test("a run by hand opens its tool's app too; the Tools view marks app-only tools and This chat lists the chat's apps", async () => {
  const { page, panel, record } = await chatCalling(pyId, 'show_chart', { points: [1, 2] });
  // This chat lists the chat's calls that have an app; its button opens it in Activity.
  await panel.locator('#tab-chat').click();
  const listed = panel.locator(`.chat-apps li[data-key="${record.key}"] button[data-action="open-app"]`);
  await listed.click();
  await panel.locator('#tab-activity[aria-selected="true"]').waitFor();
  await panel.locator('section.app-view[data-tool="show_chart"]').waitFor();
  const chartFrame = await appFrame(panel);
  await chartFrame.locator('#result', { hasText: 'chart of 2 points' }).waitFor({ timeout: 15_000 });
  await panel.locator('section.app-view button[data-action="app-close"]').click();

  // The Tools view: the app-only tool says so; a run by hand of the tool with an app opens it.
  await panel.locator('#tab-tools').click();
  const refresh = panel.locator(`li.tool[data-tool="refresh_chart"]`);
  await refresh.locator('[data-ui="app-only"]').waitFor({ timeout: 15_000 });
  const row = panel.locator(`li.tool[data-tool="show_chart"]`);
  await row.locator('[data-ui="app"]').waitFor();
  const more = row.locator('button.more');
  if ((await more.getAttribute('aria-expanded')) !== 'true') await more.click();
  await row.locator('form.run-form button[type="submit"]').click();
  await row.locator('.run-result article.call, .run-result .error').first().waitFor({ timeout: 15_000 });
  await row.locator('.run-result button[data-action="open-app"]').click();
  await panel.locator('#tab-activity[aria-selected="true"]').waitFor();
  await panel.locator('section.app-view[data-tool="show_chart"]').waitFor();
  const byHand = await appFrame(panel);
  await byHand.locator('#result', { hasText: 'chart of 3 points' }).waitFor({ timeout: 15_000 });
  await panel.close();
  await page.close();
});
