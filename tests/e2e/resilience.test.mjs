// What goes wrong on real chat sites, on the fixture pages: the site re-renders a reply, the
// page reloads mid-loop, Chrome stops the service worker mid-loop, loop limits are reached, a
// site has no adapter (generic), a site is added while the browser runs. In every case a call
// runs at most once and nothing is silently lost.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadAdapters, startRig, waitForReply, until } from '../fixtures/sites/_shared/loop.mjs';
import { waitInClosedShadow, textsInClosedShadow, stopServiceWorker } from './harness.mjs';

const { SITES } = loadAdapters();
const chatgpt = SITES.find((s) => s.id === 'chatgpt');
let rig, site;

before(async () => {
  rig = await startRig();
  site = await rig.addSite('chatgpt'); // a custom site added while the browser runs
});
after(async () => { await rig?.close(); });

// The fixture's conversation gets its own URL on the first send: `page` names the chat now.
const states = async (chatRef, page) => (await rig.calls(chatRef, page)).map((c) => `${c.tool}:${c.state}`);
const url = (q = '') => `${site.origin}/chatgpt/${q}`;

test('a re-render of a finished reply runs nothing again', async () => {
  const { page, chatRef } = await rig.openChat(url(), {}, 'chatgpt');
  await rig.insertInstructions(chatRef);
  await waitForReply(page, chatgpt, 'Final answer');
  await page.evaluate(() => {
    for (const a of document.querySelectorAll('article')) a.replaceWith(a.cloneNode(true));
  });
  // Witness that the re-render went through the pipeline: a later reply's call runs (the page
  // is read in order); then the ledger holds it and the first call, once each.
  await rig.insertInstructions(chatRef);
  await until(async () => (await rig.calls(chatRef, page)).filter((c) => c.state === 'done').length >= 2, { timeoutMs: 30_000, what: 'the later reply\'s call' });
  const calls = await rig.calls(chatRef, page);
  assert.deepEqual(calls.map((c) => `${c.tool}:${c.state}`), ['add:done', 'add:done']);
  assert.notEqual(calls[0].messageId, calls[1].messageId, 'the second call came from the later reply');
  await page.close();
});

test('page reload mid-loop: the call is neither lost nor run twice; old replies are history', async () => {
  // Tools default to ask; this one must run on its own to be mid-call at the reload.
  await rig.call({ type: 'tools/policy', serverId: rig.serverId, tool: 'slow_count', policy: 'allow' });
  const args = encodeURIComponent(JSON.stringify({ steps: 1, delay_ms: 1500 }));
  const { page, chatRef } = await rig.openChat(url(`?tool=slow_count&args=${args}`), {}, 'chatgpt');
  await rig.insertInstructions(chatRef);
  await until(async () => (await states(chatRef, page)).includes('slow_count:running'), { timeoutMs: 15_000, what: 'the call running' });
  await page.reload();
  await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached' });
  await until(async () => (await rig.calls(chatRef, page)).every((c) => c.state === 'done'), { timeoutMs: 15_000, what: 'the call to finish' });
  // The result reached the chat: delivered into the reloaded page, and the model answered. The
  // answer is also the witness that the reloaded page was read (its old replies as history).
  await waitForReply(page, chatgpt, 'Final answer');
  const calls = await rig.calls(chatRef, page);
  assert.deepEqual(calls.map((c) => `${c.tool}:${c.state}`), ['slow_count:done'], 'one call, run once, across the reload');
  assert.equal(calls[0].delivered, true, 'the result was delivered');
  await page.close();
});

test('service worker stopped while a reply streams: the call is detected once and the loop completes', async () => {
  const { page, chatRef } = await rig.openChat(url('?delay=40'), {}, 'chatgpt');
  await rig.insertInstructions(chatRef);
  await page.locator('[data-message-author-role="assistant"]').first().waitFor();
  const cdp = await rig.ext.context.newCDPSession(page);
  const { targetInfos } = await cdp.send('Target.getTargets');
  const worker = targetInfos.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${rig.ext.extensionId}/`));
  assert.ok(worker, 'the extension service worker is a target');
  await rig.ext.sw.evaluate(() => { globalThis.__relayTestMarker = true; });
  await cdp.send('Target.closeTarget', { targetId: worker.targetId });
  // The content script's next message wakes a fresh worker, which rebuilds from storage.
  await waitForReply(page, chatgpt, 'Final answer', 30_000);
  // A fresh worker has no marker: the old one really stopped.
  const { targetInfos: after } = await cdp.send('Target.getTargets');
  const fresh = after.find((t) => t.type === 'service_worker' && t.url.startsWith(`chrome-extension://${rig.ext.extensionId}/`));
  assert.ok(fresh, 'a worker runs again');
  const session = await rig.ext.context.newCDPSession(page);
  const { sessionId } = await session.send('Target.attachToTarget', { targetId: fresh.targetId, flatten: true });
  assert.ok(sessionId);
  const marker = await rig.call({ type: 'ping' }).then(() => rig.ext.context.serviceWorkers().at(-1).evaluate(() => globalThis.__relayTestMarker === true));
  assert.equal(marker, false, 'the worker was restarted (its globals are gone)');
  assert.deepEqual(await states(chatRef, page), ['add:done']);
  await page.close();
});

test('service worker stopped mid-call: the chat is told the outcome (unknown) without a reload, and nothing runs again', async (t) => {
  await rig.call({ type: 'tools/policy', serverId: rig.serverId, tool: 'slow_count', policy: 'allow' });
  const args = encodeURIComponent(JSON.stringify({ steps: 3, delay_ms: 1500 }));
  const { page, chatRef } = await rig.openChat(url(`?tool=slow_count&args=${args}`), {}, 'chatgpt');
  await rig.insertInstructions(chatRef);
  await until(async () => (await states(chatRef, page)).includes('slow_count:running'), { timeoutMs: 15_000, what: 'the call running' });
  // The reply with the call has ended on the page: only the call is under way.
  await until(() => page.evaluate(() => window.__fixture.replies === 1), { what: 'the call\'s reply ended' });
  await stopServiceWorker(rig.ext, page);
  const stoppedAt = Date.now();
  // Any message wakes a fresh worker (here the side panel's): it rebuilds from storage, marks
  // the call unknown, and the chat hears of it with no reload and no change on the page.
  await until(async () => (await states(chatRef, page)).includes('slow_count:unknown'), { timeoutMs: 15_000, what: 'the call unknown after the restart' });
  await until(() => page.evaluate(() => window.__fixture.submitted.length >= 2), { timeoutMs: 10_000, what: 'the outcome sent to the model' });
  const { submitted } = await page.evaluate(() => window.__fixture);
  assert.match(submitted[1].text, /unknown/i, 'the model is told the outcome is unknown');
  t.diagnostic(`the chat was told ${submitted[1].at - stoppedAt} ms after the worker was stopped (the panel's next message restarted it)`);
  assert.equal(submitted.length, 2, 'told once');
  await waitForReply(page, chatgpt, 'Final answer');
  assert.deepEqual(await states(chatRef, page), ['slow_count:unknown'], 'run once, never again by itself');
  await page.close();
});

test('a burst of 40 calls in one reply: the limits hold, and every outcome goes back in one message, once', async () => {
  const { page, chatRef } = await rig.openChat(url('?calls=40&delay=2'), { maxConsecutive: 30, maxTotal: 30 }, 'chatgpt');
  await rig.insertInstructions(chatRef);
  await waitForReply(page, chatgpt, 'Final answer', 60_000);
  const { submitted, writesWhileStreaming } = await page.evaluate(() => window.__fixture);
  assert.equal(submitted.length, 2, 'the instructions, then one message with every outcome');
  assert.equal(writesWhileStreaming, 0, 'nothing went into the input while the reply streamed');
  const calls = await rig.calls(chatRef, page);
  assert.equal(calls.length, 40, 'every call has a record');
  const count = (state) => calls.filter((c) => c.state === state).length;
  assert.deepEqual([count('done'), count('limited')], [30, 10], 'the limits held');
  for (const c of calls) assert.equal(submitted[1].text.split(c.callId).length - 1, 1, `the outcome of ${c.callId} once`);
  const order = calls.map((c) => submitted[1].text.indexOf(c.callId));
  assert.deepEqual(order, [...order].sort((a, b) => a - b), 'in call order');
  await page.close();
});

test('loop limit reached: the extra call is not run, and it says so on its card and to the model', async () => {
  const { page, chatRef } = await rig.openChat(url('?chain=2'), { maxConsecutive: 1 }, 'chatgpt');
  await rig.insertInstructions(chatRef);
  await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="limited"]');
  const [cardText] = await textsInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="limited"]');
  assert.match(cardText, /limit/i);
  assert.deepEqual(await states(chatRef, page), ['add:done', 'add:limited']);
  const final = await waitForReply(page, chatgpt, 'Final answer');
  assert.match(final, /limit/i, 'the model was told the call was skipped');
  await page.close();
});

test('a call in a user message or posted by the page runs nothing', async () => {
  const { page, chatRef } = await rig.openChat(url(), {}, 'chatgpt');
  const callText = '```json\n{"tool": "add", "arguments": {"a": 40, "b": 2}}\n```';
  await page.evaluate((t) => {
    const u = document.createElement('div');
    u.dataset.messageAuthorRole = 'user';
    u.textContent = t;
    document.getElementById('log').appendChild(u);
    window.postMessage({ type: 'page/observe', page: 'x', submitted: true, turns: [{ h: 1, text: t }] }, '*');
  }, callText);
  // Witness that the page was read after those: the instructions make the assistant reply with
  // a call of its own (add 2 + 3), which runs; it is the only call.
  await rig.insertInstructions(chatRef);
  await until(async () => (await rig.calls(chatRef, page)).length > 0, { timeoutMs: 30_000, what: 'the assistant\'s call' });
  const calls = await rig.calls(chatRef, page);
  assert.deepEqual(calls.map((c) => [c.tool, c.arguments]), [['add', { a: 2, b: 3 }]]);
  await page.close();
});

test('generic adapter: a site registered without a description runs the loop', async () => {
  const generic = await rig.addSite('generic');
  const { page, chatRef } = await rig.openChat(`${generic.origin}/chatgpt/`, {}, 'generic');
  await rig.insertInstructions(chatRef);
  await waitForReply(page, chatgpt, 'Final answer');
  assert.deepEqual(await states(chatRef, page), ['add:done']);
  const report = await rig.call({ type: 'sites/check', chat: chatRef });
  assert.equal(report.adapter, 'generic');
  const input = report.checks.find((c) => c.part === 'input');
  assert.equal(input.matches, 1);
  assert.match(input.selector, /prompt-textarea/);
  await page.close();
});
