// A send the page holds in a dialog of its own (issue 30, class 9): a length guard asks "This
// message is long. Send as a file?" after Send. The person answers it for their own message;
// for the results the extension sends, the page's question is the person's to answer: the
// record says the results are in the input and not sent, with the page's question named, and
// the extension neither answers the dialog nor reports a delivery.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../e2e/harness.mjs';
import { startGenRig, gen, press, chatOf } from './lib.mjs';

/** @type {any} */
let rig;
before(async () => { rig = await startGenRig(); });
after(async () => { await rig?.close(); });

test('results held by the page\'s own dialog are never reported as sent', async () => {
  // A plain page (textarea, Send button, no thinking), its guard asking over 60 characters.
  const dims = 'turn=roles&body=one&user=div&structure=plain&editor=textarea&send=button&sendKey=enter&sendState=empty&guard=dialog&popup=none&decoys=few&lang=en&stream=append&think=none&lock=no&conversation=single';
  const page = await rig.ext.context.newPage();
  await page.goto(`${rig.site.origin}/?seed=7&delay=4&b=900&guardAt=60&${dims}`);
  await until(async () => (await gen(page))?.ready, { what: 'the generated page built' });
  await page.locator('mcp-relay-ui[data-state="ready"][data-adapter="generic"]').waitFor({ state: 'attached', timeout: 15_000 });
  const chat = await chatOf(rig, page);
  await rig.call({ type: 'chat/set', chat, settings: { serverIds: [rig.serverId], autoExecute: true, autoSubmit: true } });
  const prompt = await rig.call({ type: 'prompt/build', chat });
  assert.equal((await rig.call({ type: 'chat/insert', chat, text: prompt.text, submit: false })).inserted, true);
  await press(page, 'send');
  await until(async () => (await gen(page))?.dialogs === 1, { what: 'the page asking about the long instructions' });
  await press(page, 'dialog-anyway');
  // The call runs; its results are written and the extension's send is held by the dialog.
  await until(async () => (await gen(page))?.dialogs === 2, { timeoutMs: 30_000, what: 'the page asking about the results' });
  const here = { ...chat, url: page.url() };
  const record = await until(async () => {
    const calls = await rig.call({ type: 'activity/list', chat: here });
    return calls.find((/** @type {any} */ c) => c.state === 'done' && c.unsent) || null;
  }, { timeoutMs: 20_000, what: 'the call recorded as done, its results unsent' });
  // Written into the input (never written twice), not sent, and the page's question named.
  assert.equal(record.unsent, true, JSON.stringify(record));
  assert.match(record.deliveryNote || '', /dialog/, JSON.stringify(record));
  assert.equal(rig.proxy.count('add', (/** @type {any} */ a) => a.a === 2 && a.b === 900), 1, 'the call ran once');
  const g = await gen(page);
  assert.equal(g?.received.length, 1, 'only the instructions reached the page\'s model');
  assert.deepEqual(await page.evaluate(() => /** @type {any} */ (window).__gen.dialogs.map((/** @type {any} */ d) => d.choice)), ['anyway', null], 'the extension never answered the page\'s question');
  await page.close();
});
