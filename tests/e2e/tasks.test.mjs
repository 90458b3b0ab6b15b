// Tasks (`io.modelcontextprotocol/tasks`) from a chat, against server-everything's real task
// tool `simulate-research-query` (SEP-1686: the `task` request param, `tasks/get`,
// `tasks/result`; four stages of a second each):
// - Chrome stops the service worker while the task runs: the restarted worker polls the same
//   task in the same server-side session, the chat gets the real report once, and the tool ran
//   once at the server's door (a counting proxy). The time from the stop to the report in the
//   chat is printed.
// - An ambiguous query: the server asks which interpretation is meant while the task waits
//   (`input_required`, the question on the `tasks/result` stream); the user answers in the side
//   panel and the report names the answer.
// Screenshots: target/e2e-screens/tasks-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadAdapters, startRig, waitForReply, until } from '../fixtures/sites/_shared/loop.mjs';
import { startServerEverything } from '../interop/lib.mjs';
import { startCountingProxy } from './counting-proxy.mjs';
import { openExtensionPage, stopServiceWorker, TARGET } from './harness.mjs';
import { join } from 'node:path';
import { mkdirSync } from 'node:fs';

const SCREENS = join(TARGET, 'e2e-screens');
mkdirSync(SCREENS, { recursive: true });

const { SITES } = loadAdapters();
const chatgpt = SITES.find((s) => s.id === 'chatgpt');
const TOOL = 'simulate-research-query';
let rig, site, everything, proxy, serverId;

before(async () => {
  rig = await startRig();
  site = await rig.addSite('chatgpt');
  everything = await startServerEverything('streamableHttp');
  proxy = await startCountingProxy(everything.url);
  serverId = (await rig.call({ type: 'servers/add', server: { name: 'Everything', url: proxy.url } })).id;
  await until(async () => (await rig.call({ type: 'tools/list' })).some((t) => t.name === TOOL && t.serverId === serverId),
    { timeoutMs: 20_000, what: `${TOOL} listed (a tool server-everything offers to clients that declare tasks)` });
  await rig.call({ type: 'tools/policy', serverId, tool: TOOL, policy: 'allow' });
});
after(async () => {
  await rig?.close();
  await proxy?.close();
  await everything?.stop();
});

/** A chat whose scripted assistant calls the research tool with `args`, Everything selected. */
async function researchChat(args) {
  const q = `?tool=${TOOL}&args=${encodeURIComponent(JSON.stringify(args))}`;
  const { page, chatRef } = await rig.openChat(`${site.origin}/chatgpt/${q}`, { serverIds: [serverId] }, 'chatgpt');
  const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
  assert.ok(prompt.text.includes(TOOL), 'the prompt describes the task tool');
  await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
  return { page, chatRef };
}

const research = async (chatRef, page) => (await rig.calls(chatRef, page)).find((c) => c.tool === TOOL);

/** Stops the extension's service worker, marked first so that its restart shows. */
async function stopWorker(page) {
  await rig.ext.sw.evaluate(() => { globalThis.__relayTestMarker = true; });
  await stopServiceWorker(rig.ext, page);
}

test('the worker stopped mid-task: the restarted worker gets the real report into the chat once, and the tool ran once', async (t) => {
  const topic = 'tidal energy';
  const { page, chatRef } = await researchChat({ topic });
  // The server answered with a task, and the task is kept with the call's record.
  const running = await until(async () => {
    const c = await research(chatRef, page);
    return c?.state === 'running' && c.task ? c : null;
  }, { timeoutMs: 20_000, what: 'the call running as a task' });
  assert.equal(running.task.form, 'legacy', 'server-everything speaks SEP-1686');
  assert.equal(proxy.count(TOOL), 1);
  // What the panel shows of it: Activity says it runs as a task, with the server's status.
  await page.bringToFront();
  const shot = await openExtensionPage(rig.ext, 'www/panel.html#activity');
  await shot.setViewportSize({ width: 400, height: 700 });
  const row = shot.locator(`.call[data-key="${running.key}"]`);
  await row.locator('.call-task').waitFor({ timeout: 10_000 });
  assert.match(await row.locator('.call-task').textContent(), /Runs as a task/);
  await until(async () => /Gathering|Analyzing|Synthesizing|Generating/.test(await row.textContent()), { what: 'the task\'s status message in Activity' });
  await shot.screenshot({ path: join(SCREENS, 'tasks-running.png') });
  await shot.close();
  await stopWorker(page);
  const stoppedAt = Date.now();
  // The panel's next message wakes a fresh worker (as any message would): it resumes polling.
  await until(async () => (await research(chatRef, page))?.state === 'done', { timeoutMs: 30_000, what: 'the task\'s result after the restart' });
  const marker = await rig.ext.context.serviceWorkers().at(-1).evaluate(() => globalThis.__relayTestMarker === true);
  assert.equal(marker, false, 'the worker was restarted (its globals are gone)');
  await until(() => page.evaluate(() => window.__fixture.submitted.length >= 2), { timeoutMs: 15_000, what: 'the report sent to the model' });
  const { submitted } = await page.evaluate(() => window.__fixture);
  assert.match(submitted[1].text, new RegExp(`Research Report: ${topic}`), 'the real result, not "unknown"');
  t.diagnostic(`the call started ${stoppedAt - running.startedAt} ms before the stop; stop -> the real report in the chat: ${submitted[1].at - stoppedAt} ms (the task takes 4 stages of 1 s)`);
  await waitForReply(page, chatgpt, 'Final answer');
  const { submitted: after } = await page.evaluate(() => window.__fixture);
  assert.equal(after.length, 2, 'told once');
  assert.equal(proxy.count(TOOL), 1, 'the tool ran once at the server');
  const record = await research(chatRef, page);
  assert.equal(record.state, 'done');
  await page.close();
});

test('an ambiguous query: the task asks which interpretation is meant, the user answers in the panel, and the report names it', async () => {
  const ran = proxy.count(TOOL);
  const { page, chatRef } = await researchChat({ topic: 'python', ambiguous: true });
  // The question appears in the side panel while the task waits.
  const q = rig.panel.locator(`#questions .question[data-server="${serverId}"]`);
  await q.waitFor({ timeout: 30_000 }).catch(async (e) => {
    console.log(JSON.stringify(await rig.calls(chatRef, page)), JSON.stringify(await rig.call({ type: 'elicitation/list' })), rig.panel.url());
    throw e;
  });
  assert.match(await q.locator('.question-message').textContent(), /multiple interpretations/);
  const select = q.locator('[data-param="interpretation"] select');
  const options = await select.locator('option').allInnerTexts();
  const choice = options.find((o) => /programming/i.test(o));
  assert.ok(choice, `an option about programming among ${JSON.stringify(options)}`);
  await select.selectOption({ label: choice });
  await rig.panel.screenshot({ path: join(SCREENS, 'tasks-question.png') });
  await q.locator('button[data-action="accept"]').click();
  await until(async () => (await research(chatRef, page))?.state === 'done', { timeoutMs: 30_000, what: 'the task done after the answer' });
  await until(() => page.evaluate(() => window.__fixture.submitted.length >= 2), { timeoutMs: 15_000, what: 'the report sent to the model' });
  const { submitted } = await page.evaluate(() => window.__fixture);
  assert.match(submitted[1].text, /\*\*Clarification\*\*: [^\n]*[Pp]rogramming/, 'the report names the user\'s answer');
  assert.equal(proxy.count(TOOL), ran + 1, 'the tool ran once');
  await page.close();
});
