// A chat app inside a same-origin iframe of a portal page (tests/fixtures/sites/_unadapted/
// portal/): the content script runs in every frame of an added site, and the frame holding the
// composer answers the core's messages to the tab (not the portal with its search box): the
// site check reports the frame's parts and the instructions go into the frame's editor with
// every line break; the frame is a page of its own for the core's page model (a tab's frames
// are told apart by Chrome's frame id), so the call in the frame's reply runs once and its
// result goes back into the frame.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig, until } from '../fixtures/sites/_shared/loop.mjs';

let rig;
before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

/** Non-empty lines, trimmed. */
const lines = (s) => s.split('\n').map((l) => l.trim()).filter(Boolean);

/** Opens the portal and waits for the content script in its framed app. */
async function openPortal() {
  const site = await rig.addSite('generic');
  const { page, chatRef } = await rig.openChat(`${site.origin}/_unadapted/portal/`, {}, 'generic');
  const frame = await until(() => page.frames().find((f) => f.url().endsWith('/portal/app.html')), { what: 'the framed app' });
  await frame.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
  return { page, chatRef, frame };
}

test('a chat app in a same-origin iframe of a portal: the site check finds the frame\'s parts, the instructions go into the frame with every line break', async () => {
  const { page, chatRef, frame } = await openPortal();
  const report = await rig.call({ type: 'sites/check', chat: chatRef });
  assert.ok(report.found.input && report.found.input.endsWith('textarea'), `the frame's composer: ${JSON.stringify(report.found)}`);
  assert.ok(report.found.send && report.found.send.endsWith('button:nth-of-type(2)'), `the frame's send button: ${JSON.stringify(report.found)}`);

  const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
  const inserted = await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
  assert.equal(inserted.inserted, true, JSON.stringify(inserted));
  assert.equal(inserted.submitted, true, JSON.stringify(inserted));
  const submitted = await frame.evaluate(() => window.__fixture.submitted.map((s) => s.text));
  assert.equal(submitted.length, 1, 'the instructions were submitted in the frame');
  assert.deepEqual(lines(submitted[0]), lines(prompt.text), 'the instructions arrived with every line break');
  assert.equal(await page.locator('input[type="search"]').inputValue(), '', 'nothing was written into the portal\'s search box');
  await page.close();
});

test('a chat app in a same-origin iframe of a portal: the call in the frame\'s reply runs once and the loop completes', async () => {
    const { page, chatRef, frame } = await openPortal();
    const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
    await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
    await until(() => frame.evaluate(() => window.__transcript().some((t) => t.includes('Final answer'))), { timeoutMs: 30_000, what: 'the final answer in the frame' });
    assert.deepEqual((await rig.calls(chatRef, page)).map((c) => [c.tool, c.state, c.delivered]), [['add', 'done', true]], 'one call, run once, delivered');
    assert.equal(await frame.evaluate(() => window.__fixture.submitted.length), 2, 'the instructions and the result were submitted');
    assert.equal(await frame.evaluate(() => window.__fixture.writesWhileStreaming), 0, 'the result went in once the reply had ended');
    await page.close();
  });

test('"Teach this page" inside the framed chat app: the picker runs in the frame, and the taught adapter runs the loop there', async () => {
  const { page, chatRef, frame } = await openPortal();
  // A first loop with the generic adapter leaves replies to point at.
  await rig.insertInstructions(chatRef);
  await until(() => frame.evaluate(() => window.__transcript().some((t) => t.includes('Final answer'))), { timeoutMs: 30_000, what: 'the final answer in the frame' });
  await until(async () => (await rig.calls(chatRef, page)).some((c) => c.delivered), { what: 'the first call delivered' });

  const started = await rig.call({ type: 'sites/teach', chat: chatRef });
  assert.equal(started.started, true, JSON.stringify(started));
  const teach = frame.locator('mcp-relay-teach');
  const step = (s) => until(async () => (await teach.getAttribute('data-step')) === s, { what: `teach step ${s} in the frame` });
  await step('input');
  assert.equal(await page.locator('mcp-relay-teach[data-step]').count(), 0, 'no picker over the portal: the frame holding the chat has it');
  // Trusted clicks at the frame's elements (their boxes are in the page's coordinates).
  const clickAt = async (locator) => {
    const b = await locator.boundingBox();
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
  };
  await clickAt(frame.locator('textarea'));
  await step('send');
  await clickAt(frame.locator('button.go'));
  await step('assistant');
  const reply = frame.locator('section[data-author="assistant"] .text').last();
  await reply.scrollIntoViewIfNeeded();
  await clickAt(reply);
  await frame.locator('mcp-relay-ui[data-adapter="taught"]').waitFor({ state: 'attached', timeout: 10_000 });
  const saved = (await rig.call({ type: 'sites/list' })).find((x) => chatRef.url.startsWith(x.origin));
  assert.equal(saved.adapter, 'taught', JSON.stringify(saved));
  assert.ok(saved.custom.input.some((x) => x.includes('textarea')), JSON.stringify(saved.custom));
  assert.ok(saved.custom.assistant.some((x) => x.includes('section')), JSON.stringify(saved.custom));

  // The taught adapter at work in the frame: a second loop, its own call, run once.
  await rig.insertInstructions(chatRef);
  await until(async () => (await rig.calls(chatRef, page)).filter((c) => c.delivered).length >= 2, { timeoutMs: 30_000, what: 'the second call delivered' });
  assert.deepEqual((await rig.calls(chatRef, page)).map((c) => `${c.tool}:${c.state}`), ['add:done', 'add:done']);
  await page.close();
});
