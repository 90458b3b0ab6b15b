// Chat pages as they really are (issue 10): the live behaviours the site fixtures model, each
// driven through the real extension against the demo MCP server.
// - an in-page "New chat" (the URL changes without a reload): the new conversation's calls run,
//   in that conversation's chat, however many replies the old one had;
// - a virtualised list re-mounting an old turn never runs its call again;
// - a call written inside a reasoning ("thinking") block never runs;
// - a write that loses line breaks is repaired, or reported as not inserted, never "inserted";
// - a send that did not take is reported ("not sent"), never "done";
// - where Send and Stop are one button, Stop is never clicked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadAdapters, startRig, waitForReply, linesOf, until } from '../fixtures/sites/_shared/loop.mjs';
import { textsInClosedShadow, waitInClosedShadow } from './harness.mjs';

const { SITES } = loadAdapters();
const adapter = (id) => SITES.find((s) => s.id === id);
let rig;
/** One origin per fixture site, registered with its adapter once. */
const sites = new Map();

before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

async function open(id, query = '') {
  if (!sites.has(id)) sites.set(id, await rig.addSite(id));
  return rig.openChat(`${sites.get(id).origin}/${id}/${query}`, {}, id);
}

const fixture = (page) => page.evaluate(() => ({ ...window.__fixture }));

/** Every reply's text in every look (`page/observe`) the worker receives, as seen by a listener of its own. */
async function recordReports() {
  await rig.ext.sw.evaluate(() => {
    globalThis.__relayReports = [];
    if (globalThis.__relayListening) return;
    globalThis.__relayListening = true;
    chrome.runtime.onMessage.addListener((m) => {
      if (!m || m.type !== 'page/observe') return;
      for (const t of m.turns || []) {
        if (t.text !== undefined) globalThis.__relayReports.push({ url: m.url, h: t.h, at: t.at, length: String(t.text).length });
      }
    });
  });
}

/** The core's page model of a chat's tab. */
const pageState = (chatRef) => rig.call({ type: 'page/state', chat: chatRef });

test('in-page New chat: the new conversation\'s call runs, in its own chat', async () => {
  const { page, chatRef } = await open('chatgpt');
  await rig.insertInstructions(chatRef);
  await waitForReply(page, adapter('chatgpt'), 'Final answer');
  const first = page.url();
  assert.match(first, /\/chatgpt\/c\/[\w-]+/, 'the first send gave the new chat its conversation URL');
  assert.deepEqual((await rig.calls(chatRef, page)).map((c) => `${c.tool}:${c.state}`), ['add:done']);

  // The conversation is on the page when the content script looks: history.
  await page.reload();
  await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
  await waitForReply(page, adapter('chatgpt'), 'Final answer');
  await recordReports();
  // The page's own "New chat": the URL changes, the transcript empties, no reload.
  await page.click('#fixture-new-chat');
  await until(() => page.url().endsWith('/chatgpt/'), { what: 'the new-chat URL' });
  await rig.insertInstructions({ ...chatRef, url: page.url() });
  await waitForReply(page, adapter('chatgpt'), 'Final answer');
  const second = page.url();
  assert.notEqual(second, first, 'the new chat is its own conversation');
  assert.deepEqual((await rig.calls(chatRef, page)).map((c) => `${c.tool}:${c.state}:${c.delivered}`), ['add:done:true'],
    'the new conversation\'s call ran, in its own chat');
  assert.deepEqual((await rig.calls({ ...chatRef, url: first })).map((c) => `${c.tool}:${c.state}`), ['add:done'], 'the old chat is unchanged');
  const reports = await rig.ext.sw.evaluate(() => globalThis.__relayReports);
  // The core's page model: the new conversation's replies were live, and ended (none is old).
  await until(async () => {
    const view = await pageState({ ...chatRef, url: second });
    return view.turns.length > 0 && view.turns.every((t) => t.state !== 'live' && t.state !== 'undecided');
  }, { what: 'the core decided every reply of the new conversation' });
  const view = await pageState({ ...chatRef, url: second });
  assert.ok(view.turns.every((t) => t.state === 'done'), `the new replies were live and ended, none is history: ${JSON.stringify(view)}`);
  // A streaming reply goes to the worker as what was appended since its last update, each
  // update extending exactly the text the one before left (no whole text sent again).
  assert.ok(reports.some((r) => r.at > 0), `some update carried only appended text: ${JSON.stringify(reports)}`);
  const total = new Map();
  for (const r of reports) {
    if (r.at !== undefined) assert.equal(r.at, total.get(r.h) ?? 0, `an update extends the text sent before: ${JSON.stringify(reports)}`);
    total.set(r.h, (r.at ?? 0) + r.length);
  }
  await page.close();
});

test('virtualised list: an old turn mounted again never runs its call again', async () => {
  const { page, chatRef } = await open('claude', '?virtual=2');
  await rig.insertInstructions(chatRef);
  await waitForReply(page, adapter('claude'), 'Final answer');
  assert.equal(await page.locator('.font-claude-response', { hasText: '"tool": "add"' }).count(), 0, 'the call\'s turn left the DOM');
  // Scrolling up mounts every turn again, as new elements (this site has no message ids).
  await recordReports();
  await page.evaluate(() => window.__fixture.remount());
  assert.equal(await page.locator('.font-claude-response', { hasText: '"tool": "add"' }).count(), 1, 'the call\'s turn is back');
  // Witness that the core saw the re-mounted turns: every reply of its page model is on the
  // page again, as the reply it was (none new, none live).
  const shown = await page.locator('.font-claude-response').count();
  await until(async () => {
    const view = await pageState({ ...chatRef, url: page.url() });
    return view.turns.filter((t) => t.onPage).length === shown && view.turns.every((t) => t.state !== 'live' && t.state !== 'undecided');
  }, { what: 'the re-mounted turns seen and decided by the core' });
  const view = await pageState({ ...chatRef, url: page.url() });
  assert.ok(view.turns.every((t) => t.state === 'history' || t.state === 'done'), JSON.stringify(view));
  assert.equal(view.turns.length, shown, `the same replies, no new ones: ${JSON.stringify(view)}`);
  // Witness that the re-mounted page was read: a later reply's call runs, and it is the only
  // other call.
  await rig.insertInstructions({ ...chatRef, url: page.url() });
  await until(async () => (await rig.calls(chatRef, page)).filter((c) => c.state === 'done' && c.delivered).length >= 2,
    { timeoutMs: 30_000, what: 'the later reply\'s call' });
  await waitForReply(page, adapter('claude'), 'Final answer');
  const calls = await rig.calls(chatRef, page);
  assert.deepEqual(calls.map((c) => `${c.tool}:${c.state}`), ['add:done', 'add:done']);
  assert.notEqual(calls[0].messageId, calls[1].messageId);
  await page.close();
});

for (const id of ['deepseek', 'kimi', 'qwen', 'gemini', 'claude', 'grok', 'aistudio']) {
  test(`${adapter(id).name}: a call inside a thinking block is not run`, async () => {
    const { page, chatRef } = await open(id, '?think=1');
    await rig.insertInstructions(chatRef);
    // The thinking block (with its decoy call, add 40 + 2) came before the reply's own call.
    await waitForReply(page, adapter(id), 'Final answer');
    assert.ok(await page.evaluate(() => document.body.innerText.includes('"a": 40')), 'the thinking block is on the page');
    const calls = await rig.calls(chatRef, page);
    assert.deepEqual(calls.map((c) => [c.tool, c.arguments, c.state]), [['add', { a: 2, b: 3 }, 'done']]);
    await page.close();
  });
}

test('a lost line break is repaired (Gemini\'s Quill drops "\\n" from insertText)', async () => {
  const { page, chatRef } = await open('gemini');
  const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
  const answer = await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
  assert.equal(answer.inserted, true, JSON.stringify(answer));
  assert.equal(answer.submitted, true, JSON.stringify(answer));
  assert.notEqual(answer.how, 'insert-text', 'insertText lost the line breaks: a fallback wrote them');
  const { submitted } = await fixture(page);
  assert.deepEqual(linesOf(submitted[0].text), linesOf(prompt.text), 'every line arrived as its own line');
  await waitForReply(page, adapter('gemini'), 'Final answer');
  await page.close();
});

test('a lost line break that cannot be repaired is reported, never "inserted", never sent', async () => {
  const { page, chatRef } = await open('gemini', '?flatten=1');
  const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
  const answer = await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
  assert.equal(answer.inserted, false, JSON.stringify(answer));
  assert.equal(answer.submitted, false);
  assert.equal(answer.partial, true, 'the damaged text is left in the input for the user');
  assert.match(answer.error, /line breaks/);
  assert.equal((await fixture(page)).sends, 0, 'nothing was sent');
  await page.close();
});

test('a send that did not take is reported as not sent, never done', async () => {
  // The site refuses the second send (the result's): its text stays in the input.
  const { page, chatRef } = await open('kimi', '?sendfail=2');
  await rig.insertInstructions(chatRef);
  await until(async () => (await rig.calls(chatRef, page)).some((c) => c.unsent), { timeoutMs: 30_000, what: 'the call marked not sent' });
  const [call] = await rig.calls(chatRef, page);
  assert.equal(call.delivered, true, 'the result is in the input');
  assert.equal(call.unsent, true);
  assert.match(call.deliveryNote, /not sent/);
  assert.equal((await fixture(page)).refused, 1);
  // The card says so, and does not say "Done".
  await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-unsent="true"]');
  const card = (await textsInClosedShadow(page, 'mcp-relay-ui', '.card')).join('\n');
  assert.match(card, /not sent — press Send/);
  assert.doesNotMatch(card, /\bDone\b/);
  // The user presses Send: the loop goes on.
  await page.click('.send-button');
  await waitForReply(page, adapter('kimi'), 'Final answer');
  await page.close();
});

test('Send and Stop as one button: Stop is never clicked, the result waits for the reply to end', async () => {
  // The reply goes on streaming after its call; the button is Stop meanwhile and (stopclass=0)
  // keeps the classes of Send, so only its label and the stop selectors tell.
  const { page, chatRef } = await open('gemini', '?stopclass=0&tail=25&delay=6');
  await rig.insertInstructions(chatRef);
  await waitForReply(page, adapter('gemini'), 'Final answer');
  const f = await fixture(page);
  assert.equal(f.stopClicks, 0, 'Stop was never clicked');
  assert.equal(f.writesWhileStreaming, 0, 'the result was written once the reply had ended, not while it streamed');
  const callReply = await page.evaluate(() => document.querySelectorAll('model-response message-content.model-response-text')[0].innerText);
  assert.equal((callReply.match(/I will wait for the result of that call\./g) || []).length, 25, 'the reply streamed to its end');
  assert.deepEqual((await rig.calls(chatRef, page)).map((c) => `${c.tool}:${c.state}:${c.delivered}`), ['add:done:true']);
  await page.close();
});

test('a long paste that becomes an attachment chip is sent as the attachment', async () => {
  // Claude: an editor that ignores insertText, so the paste path runs; pastes over 500
  // characters become a "Pasted text" chip the site sends to the model.
  const { page, chatRef } = await open('claude', '?noinserttext=1&chip=500');
  const answer = await rig.insertInstructions(chatRef);
  assert.equal(answer.how, 'chip', JSON.stringify(answer));
  assert.equal(answer.submitted, true);
  await waitForReply(page, adapter('claude'), 'Final answer');
  const { submitted, chips } = await fixture(page);
  assert.equal(chips, 1);
  assert.deepEqual(submitted[0].files.map((x) => x.name), ['Pasted text.txt']);
  assert.deepEqual((await rig.calls(chatRef, page)).map((c) => `${c.tool}:${c.state}`), ['add:done']);
  await page.close();
});
