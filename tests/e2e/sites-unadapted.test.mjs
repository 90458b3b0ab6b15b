// Chat pages no adapter describes (tests/fixtures/sites/_unadapted/): the generic adapter alone
// runs the whole loop on each (instructions inserted with every line break, the call run once,
// the result inserted and submitted by the extension, the final answer seen) without clicking
// any button but the send button; and where nothing on the page ties the transcript to what
// was sent, discovery says it is unsure and "Teach this page", driven by trusted mouse clicks,
// makes an adapter with which the loop completes.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig, until, waitForReplyDone } from '../fixtures/sites/_shared/loop.mjs';
import { trustedClickInClosedShadow, waitInClosedShadow, pageWorldCallInClosedShadow } from './harness.mjs';

let rig;
before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

/** Records, in the page, every click on a button other than the page's send button. */
function recordStrayClicks(page) {
  return page.evaluate(() => {
    window.__stray = [];
    document.addEventListener('click', (e) => {
      const b = e.composedPath().find((n) => n instanceof Element && n.matches('button, [role="button"]'));
      if (b && b !== window.__send) window.__stray.push(b.getAttribute('aria-label') || b.getAttribute('title') || b.textContent);
    }, true);
  });
}

/** Waits for the page's "reply done" signal for a reply containing `text`; its text in the page's own transcript. */
async function reply(page, text, timeoutMs = 30_000) {
  await waitForReplyDone(page, text, timeoutMs);
  const read = () => page.evaluate((t) => window.__transcript().find((x) => x.includes(t)) || null, text);
  return until(read, { timeoutMs, what: `a reply containing "${text}" in the transcript` });
}

/** Non-empty lines, trimmed: what "every line break kept" compares. */
const lines = (s) => s.split('\n').map((l) => l.trim()).filter(Boolean);

/** The loop's checks once the final answer is in. */
async function assertLoop(page, chatRef, promptText) {
  const final = await reply(page, 'Final answer');
  assert.match(final, /\b5\b/, 'the assistant saw the real result of add(2, 3)');
  const calls = await rig.calls(chatRef, page);
  assert.deepEqual(calls.map((c) => [c.tool, c.state, c.delivered]), [['add', 'done', true]], 'one call, run once, delivered');
  const submitted = await page.evaluate(() => window.__fixture.submitted.map((s) => s.text));
  assert.equal(submitted.length, 2, 'the instructions and the result were submitted (by the extension)');
  assert.deepEqual(lines(submitted[0]), lines(promptText), 'the instructions arrived with every line break');
  assert.match(submitted[1], /tool[-_ ]?result/i);
  const { writesWhileStreaming, replyEnds, submitted: sent } = await page.evaluate(() => window.__fixture);
  assert.equal(writesWhileStreaming, 0, 'nothing was written into the input while a reply streamed');
  assert.ok(sent[1].at >= replyEnds[0], 'the result went in after the call\'s reply ended');
}

const PAGES = [
  { id: 'shadow', how: 'scored', what: 'turns inside web components (open shadow roots)' },
  { id: 'vue', how: 'scored', what: 'a list that re-renders on every token' },
  { id: 'article', how: 'scored', what: 'an article transcript whose assistant has no known selector' },
  { id: 'article', how: 'scored', query: '?collapse=1', what: 'an article transcript that folds the user\'s messages' },
  { id: 'article', how: 'growth', query: '?collapse=1&anon=1', what: 'an article transcript that folds the user\'s messages and names no author (the reply is the turn that grows)' },
  { id: 'ja', how: 'scored', what: 'a Japanese UI (「プロンプトを送信」, 「音声入力」, 「ファイルを追加」)' },
  // Editors that keep their own model; the page sends the model's text (_shared/editors.js).
  { id: 'lexical', how: 'scored', what: 'a Lexical editor (its model takes beforeinput, paste and an input event\'s text; the browser\'s own line breaks are re-rendered away)' },
  { id: 'lexical', how: 'scored', query: '?bare=1', what: 'a Lexical-style model editor nothing names (no data-lexical-editor)' },
  { id: 'prosemirror', how: 'scored', what: 'a ProseMirror editor (the DOM parsed back into paragraphs and hard breaks)' },
  { id: 'quill', how: 'scored', what: 'a Quill editor that drops the line breaks of a multi-line insertText' },
  { id: 'codemirror', how: 'scored', what: 'a CodeMirror 6 editor (.cm-line blocks read back from the DOM)' },
  { id: 'textarea', how: 'scored', what: 'a React-controlled textarea (reverted unless the native setter and an input event are used)' },
  // A long paste that the site turns into an attachment chip it sends to the model as a file.
  { id: 'lexical', how: 'scored', query: '?bare=1&chip=1000', chip: true, what: 'a long paste that becomes an attachment chip showing the text (a model editor nothing names)' },
  { id: 'lexical', how: 'scored', query: '?bare=1&chip=1000&chipname=1', chip: true, what: 'a long paste that becomes an attachment chip named "Pasted text.txt"' },
  // The site refuses a long paste with an alert about pasted text and no chip: not a delivery;
  // the next path writes the text.
  { id: 'lexical', how: 'scored', query: '?bare=1&chiprefuse=1000', refused: true, what: 'a long paste refused with an alert (no chip, the editor empty) is not delivered' },
];

for (const p of PAGES) {
  test(`generic adapter, ${p.what}: the whole loop, no stray click`, async (t) => {
    const site = await rig.addSite('generic');
    const { page, chatRef } = await rig.openChat(`${site.origin}/_unadapted/${p.id}/${p.query || ''}`, {}, 'generic');
    await recordStrayClicks(page);
    const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
    const inserted = await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
    t.diagnostic(`write: ${JSON.stringify(inserted)}; the page sent: ${JSON.stringify(await page.evaluate(() => window.__fixture.submitted.map((s) => s.text.slice(0, 160))))}`);
    assert.equal(inserted.inserted, true, JSON.stringify(inserted));
    assert.equal(inserted.submitted, true, 'the instructions were submitted');
    if (p.chip) {
      assert.equal(inserted.how, 'chip', `delivered as the chip: ${JSON.stringify(inserted)}`);
      const { chips, submitted } = await page.evaluate(() => window.__fixture);
      assert.equal(chips, 1, 'one chip: the text was pasted once');
      assert.deepEqual(submitted[0].files.map((f) => f.name), ['Pasted text.txt'], 'the site sent the chip as a file');
    }
    if (p.refused) {
      assert.notEqual(inserted.how, 'chip', JSON.stringify(inserted));
      const { refusedPastes, submitted } = await page.evaluate(() => window.__fixture);
      assert.equal(refusedPastes, 1, 'the paste was tried, and refused');
      assert.deepEqual(submitted[0].files, [], 'no chip was sent');
    }
    await assertLoop(page, chatRef, prompt.text);
    assert.deepEqual(await page.evaluate(() => window.__stray), [], 'no button but send was clicked (a code block\'s Copy, say)');

    // Discovery keeps what it found for a moment (300 ms, discover.js): the check reads the
    // page as discovery last saw it, so it is asked again until it has seen the final answer.
    let report = await rig.call({ type: 'sites/check', chat: chatRef });
    const replies = (r) => r.checks.find((c) => c.part === 'assistant').matches;
    await until(async () => replies(report = await rig.call({ type: 'sites/check', chat: chatRef })) >= 2,
      { timeoutMs: 5_000, what: 'the site check to count both replies' }).catch(() => {});
    const byPart = Object.fromEntries(report.checks.map((c) => [c.part, c]));
    assert.equal(report.adapter, 'generic');
    assert.equal(byPart.input.matches, 1, JSON.stringify(byPart.input));
    assert.equal(byPart.send.matches, 1, JSON.stringify(byPart.send));
    assert.equal(byPart.assistant.matches, 2, `the call and the final answer: ${JSON.stringify(byPart.assistant)}`);
    assert.ok(byPart.assistant.selector.startsWith(`(${p.how})`), `found by ${p.how}: ${byPart.assistant.selector}`);
    assert.equal(report.unsure, false);
    if (p.id === 'vue') {
      // The fixture did what it claims: the whole list was replaced many times over.
      assert.ok(await page.evaluate(() => window.__renders) > 40, 'the list re-rendered on every token');
    }
    await page.close();
  });
}

test('unsure discovery says so; "Teach this page" by trusted clicks makes the adapter that completes the loop', async () => {
  const site = await rig.addSite('generic');
  const { page, chatRef } = await rig.openChat(`${site.origin}/_unadapted/article/?collapse=1&instant=1&anon=1`, {}, 'generic');
  const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
  const inserted = await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
  assert.equal(inserted.submitted, true, JSON.stringify(inserted));
  // The reply with the call is there, and nothing found it: the page says so.
  await until(() => page.evaluate(() => window.__fixture.replies === 1), { what: 'the reply with the call' });
  await waitInClosedShadow(page, 'mcp-relay-teach', '.notice:not([hidden])', { timeoutMs: 15_000 });
  assert.equal((await rig.call({ type: 'sites/check', chat: chatRef })).unsure, true, 'the site check says discovery is unsure');
  assert.deepEqual(await rig.calls(chatRef, page), [], 'no call seen before teaching');

  // A page script that reached the notice's button cannot start the picker (untrusted click).
  await pageWorldCallInClosedShadow(page, 'mcp-relay-teach', 'button[data-action="teach"]', 'function () { this.click(); }');
  assert.equal(await page.locator('mcp-relay-teach').getAttribute('data-step'), null, 'an untrusted click starts nothing');
  await trustedClickInClosedShadow(page, 'mcp-relay-teach', 'button[data-action="teach"]');
  const step = (s) => until(async () => (await page.locator('mcp-relay-teach').getAttribute('data-step')) === s, { what: `teach step ${s}` });
  await step('input');
  // Untrusted clicks on the overlay are ignored as well.
  await pageWorldCallInClosedShadow(page, 'mcp-relay-teach', '.overlay', 'function () { this.dispatchEvent(new MouseEvent("click", {bubbles: true, clientX: 5, clientY: 5})); }');
  await step('input');
  const clickAt = async (locator) => {
    const b = await locator.boundingBox();
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
  };
  await clickAt(page.locator('.rich-input'));
  await step('send');
  await clickAt(page.locator('button.round'));
  await step('assistant');
  await clickAt(page.locator('article[data-speaker="orion-7"] .content').first());
  await page.locator('mcp-relay-ui[data-adapter="taught"]').waitFor({ state: 'attached', timeout: 10_000 });

  const saved = (await rig.call({ type: 'sites/list' })).find((s) => s.origin === site.origin);
  assert.equal(saved.adapter, 'taught');
  assert.deepEqual(saved.custom.input, ['div.rich-input']);
  assert.deepEqual(saved.custom.send, ['button[aria-label="Send prompt"]']);
  assert.deepEqual(saved.custom.assistant, ['article[data-speaker="orion-7"]']);
  await assertLoop(page, chatRef, prompt.text);

  // The taught adapter is the origin's: a new page of the site uses it from the start.
  const again = await rig.openChat(`${site.origin}/_unadapted/article/?collapse=1&instant=1&anon=1&fresh=1`, {}, 'taught');
  await again.page.close();
  await page.close();
});

test('Open WebUI on an origin added as generic is recognised by its page signature and runs the loop', async () => {
  const site = await rig.addSite('generic');
  const { page, chatRef } = await rig.openChat(`${site.origin}/openwebui/`, {}, 'openwebui');
  const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
  const inserted = await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
  assert.equal(inserted.submitted, true, JSON.stringify(inserted));
  await until(() => page.evaluate(() => [...document.querySelectorAll('div.chat-assistant')].some((e) => e.innerText.includes('Final answer'))),
    { timeoutMs: 30_000, what: 'the final answer' });
  await until(async () => (await rig.calls(chatRef, page)).some((c) => c.delivered), { what: 'the delivered call' });
  assert.deepEqual((await rig.calls(chatRef, page)).map((c) => [c.tool, c.state, c.delivered]), [['add', 'done', true]]);
  await page.close();
});
