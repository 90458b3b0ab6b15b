// Tasks in their SEP-2663 form (`io.modelcontextprotocol/tasks`, protocol 2026-07-28) from a
// chat, against a real server built with PyPI `mcp`: tests/python/tasks_server.py answers
// `plan_trip` with `resultType: "task"`, works a second, asks which month (`input_required`,
// one `elicitation/create` in `inputRequests`), takes the answer from `tasks/update`, works a
// second more and completes with `TRIP_PLAN: <city> in <month>` in `tasks/get`. The question
// shows in the side panel and is answered there like a user would; the chat gets the plan,
// naming the answer, once; the server received one `tools/call` and one `tasks/update`
// carrying exactly the answer; the call's record ends `done` with its task kept.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { loadAdapters, startRig, waitForReply, until } from '../fixtures/sites/_shared/loop.mjs';
import { freePort, python, repoRoot, startProcess } from '../interop/lib.mjs';

const { SITES } = loadAdapters();
const chatgpt = SITES.find((s) => s.id === 'chatgpt');
const TOOL = 'plan_trip';
let rig, site, py, serverId;

/** tests/python/tasks_server.py on 127.0.0.1 (a free port); `origin` serves `/calls`. */
async function startPythonTasksServer() {
  const port = await freePort();
  const script = path.join(repoRoot, 'tests', 'python', 'tasks_server.py');
  const server = await startProcess(python(), [script, '--port', String(port)], {
    ready: /listening (http:\/\/127\.0\.0\.1:(\d+)\/mcp)/,
    timeoutMs: 30_000,
  });
  const url = server.match[1];
  return { ...server, url, origin: new URL(url).origin, close: server.stop };
}

before(async () => {
  [rig, py] = await Promise.all([startRig(), startPythonTasksServer()]);
  site = await rig.addSite('chatgpt');
  serverId = (await rig.call({ type: 'servers/add', server: { name: 'Trips', url: py.url } })).id;
  await until(async () => (await rig.call({ type: 'tools/list' })).some((t) => t.name === TOOL && t.serverId === serverId),
    { timeoutMs: 20_000, what: `${TOOL} listed` });
  await rig.call({ type: 'tools/policy', serverId, tool: TOOL, policy: 'allow' });
});
after(async () => {
  await rig?.close();
  await py?.close();
});

/** The server's own witness: tools/call received, tasks/get polls, what each tasks/update carried. */
const serverSaw = async () => (await fetch(`${py.origin}/calls`)).json();

test('a SEP-2663 task asks a question in the side panel; the answer goes back with tasks/update and the chat gets the plan naming it, once', async (t) => {
  const started = Date.now();
  const q = `?tool=${TOOL}&args=${encodeURIComponent(JSON.stringify({ city: 'Lisbon' }))}`;
  const { page, chatRef } = await rig.openChat(`${site.origin}/chatgpt/${q}`, { serverIds: [serverId] }, 'chatgpt');
  const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
  assert.ok(prompt.text.includes(TOOL), 'the prompt describes the task tool');
  await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
  const trip = async () => (await rig.calls(chatRef, page)).find((c) => c.tool === TOOL);

  // The server answered with a task in the extension's form, kept with the call's record.
  const running = await until(async () => {
    const c = await trip();
    return c?.state === 'running' && c.task ? c : null;
  }, { timeoutMs: 20_000, what: 'the call running as a task' });
  assert.equal(running.task.form, 'extension', 'the Python server speaks SEP-2663');
  assert.match(running.task.id, /^trip-/);

  // The task's question shows in the side panel; the user picks a month and accepts.
  const question = rig.panel.locator(`#questions .question[data-server="${serverId}"]`);
  await question.waitFor({ timeout: 30_000 });
  assert.match(await question.locator('.question-message').textContent(), /Which month should the trip to Lisbon be in\?/);
  const select = question.locator('[data-param="month"] select');
  assert.ok((await select.locator('option').allInnerTexts()).includes('October'), 'the months are offered');
  await select.selectOption({ label: 'October' });
  await question.locator('button[data-action="accept"]').click();
  await rig.panel.locator(`#questions .question[data-server="${serverId}"]`).waitFor({ state: 'detached', timeout: 15_000 });

  const done = await until(async () => {
    const c = await trip();
    return c?.state === 'done' ? c : null;
  }, { timeoutMs: 30_000, what: 'the task done after the answer' });
  assert.ok(done.task, 'the record keeps its task once done');
  assert.equal(done.task.id, running.task.id);
  assert.equal(done.task.form, 'extension');

  await until(() => page.evaluate(() => window.__fixture.submitted.some((s) => s.text.includes('TRIP_PLAN:'))),
    { timeoutMs: 15_000, what: 'the plan sent to the model' });
  await waitForReply(page, chatgpt, 'Final answer');
  const { submitted } = await page.evaluate(() => window.__fixture);
  const plans = submitted.filter((s) => s.text.includes('TRIP_PLAN:'));
  assert.equal(plans.length, 1, 'the chat was told once');
  assert.match(plans[0].text, /TRIP_PLAN: Lisbon in October/, 'the result names the user\'s answer');
  assert.equal(submitted.length, 2, 'the instructions, then the result: nothing else went into the chat');

  const saw = await serverSaw();
  assert.equal(saw.calls, 1, 'the server received one tools/call');
  assert.deepEqual(saw.declared, [true], 'from a client declaring the tasks extension');
  assert.deepEqual(saw.updates, [{ month: { action: 'accept', content: { month: 'October' } } }], 'one tasks/update with the answer');
  assert.equal(saw.cancels, 0);
  assert.ok(saw.polls >= 3, `polled with tasks/get (${saw.polls} polls)`);
  const calls = await rig.calls(chatRef, page);
  assert.deepEqual(calls.map((c) => `${c.tool}:${c.state}`), [`${TOOL}:done`], 'one call, run once');
  t.diagnostic(`send -> plan in the chat: ${plans[0].at - started} ms (two 1 s stages and the user's answer); ${saw.polls} polls`);
  await page.close();
});
