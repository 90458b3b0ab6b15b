// "Teach this page" on a page whose every class name is hashed (issue 30, class 8): the
// picked composer, an icon-only send control without a name and a reply are described without
// class names (structure from stable landmarks, what the reply holds), the core keeps the
// adapter, and the taught adapter then runs the whole loop.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { until } from '../e2e/harness.mjs';
import { startGenRig, gen, press, chatOf } from './lib.mjs';

/** @type {any} */
let rig;
before(async () => { rig = await startGenRig(); });
after(async () => { await rig?.close(); });

test('Teach this page describes a hashed page without its class names, and the taught adapter runs the loop', async () => {
  const dims = 'turn=hashed&body=rich&user=bubble&structure=plain&editor=textarea&send=icon-unnamed&sendKey=enter&sendState=empty&guard=none&popup=none&decoys=few&lang=en&stream=append&think=none&lock=no&conversation=single';
  const page = await rig.ext.context.newPage();
  await page.goto(`${rig.site.origin}/?seed=11&delay=4&b=950&${dims}`);
  await until(async () => (await gen(page))?.ready, { what: 'the generated page built' });
  await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 15_000 });
  // A first exchange, typed and sent by the person.
  await press(page, 'composer');
  await page.keyboard.type('Hello there');
  await press(page, 'send');
  await until(async () => (await gen(page))?.done.length >= 1, { timeoutMs: 20_000, what: 'the greeting answered' });
  const chat = await chatOf(rig, page);
  assert.equal((await rig.call({ type: 'sites/teach', chat })).started, true);
  const step = (/** @type {string} */ s) => until(async () => (await page.locator('mcp-relay-teach').getAttribute('data-step')) === s, { what: `teach step ${s}` });
  await step('input');
  await press(page, 'composer');
  await step('send');
  await press(page, 'send');
  await step('assistant');
  // The reply: where its text shows.
  const at = await page.evaluate(() => {
    const text = /** @type {any} */ (window).__gen.done[0].slice(0, 12);
    const el = [...document.querySelectorAll('.log *')].reverse().find((e) => e.children.length === 0 && (e.textContent || '').includes(text));
    const r = /** @type {Element} */ (el).getBoundingClientRect();
    return { x: r.left + Math.min(r.width / 2, 40), y: r.top + r.height / 2 };
  });
  await page.mouse.click(at.x, at.y);
  await page.locator('mcp-relay-ui[data-adapter="taught"]').waitFor({ state: 'attached', timeout: 10_000 });
  const saved = (await rig.call({ type: 'sites/list' })).find((/** @type {any} */ s) => s.origin === rig.site.origin);
  assert.equal(saved.adapter, 'taught');
  for (const part of ['input', 'send', 'assistant']) {
    assert.equal(saved.custom[part].length, 1, part);
    assert.ok(!/\.[\w-]*\d/.test(saved.custom[part][0]), `${part}: ${saved.custom[part][0]} names no hashed class`);
  }
  // The loop with the taught adapter.
  await rig.call({ type: 'chat/set', chat: { ...chat, url: page.url() }, settings: { serverIds: [rig.serverId], autoExecute: true, autoSubmit: true } });
  const prompt = await rig.call({ type: 'prompt/build', chat: { ...chat, url: page.url() } });
  assert.equal((await rig.call({ type: 'chat/insert', chat: { ...chat, url: page.url() }, text: prompt.text, submit: true })).inserted, true);
  await until(async () => (await gen(page))?.done.some((/** @type {string} */ d) => d.includes('Final answer: 952.')), { timeoutMs: 45_000, what: 'the final answer' });
  assert.equal(rig.proxy.count('add', (/** @type {any} */ a) => a.a === 2 && a.b === 950), 1, 'the call ran once');
  assert.equal((await gen(page))?.decoys.length, 0, 'no decoy pressed');
  await page.close();
});
