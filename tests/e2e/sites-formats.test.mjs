// Call formats other extensions teach their models, written by a site fixture's bot: the
// DeepSeek fixture page (tests/fixtures/sites/deepseek) with `?format=tooltag` answers the
// instructions with deepseek-pp's `<add>{"a": 2, "b": 3}</add>`, with `?format=dsml` with
// DeepSeek's own `<｜DSML｜tool_calls>` markup. The extension must run the call once, deliver
// its result and get the final answer, as it does for its own format (sites.test.mjs).
//
//   node --test tests/e2e/sites-formats.test.mjs
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadAdapters, startRig, waitForReply } from '../fixtures/sites/_shared/loop.mjs';

const { SITES } = loadAdapters();
const adapter = SITES.find((s) => s.id === 'deepseek');
let rig;

before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

for (const [format, written] of [['tooltag', /<add>\s*\{"a":2,"b":3\}\s*<\/add>/], ['dsml', /<｜DSML｜invoke name="add">/]]) {
  test(`DeepSeek fixture, a call written as ${format}: run once, result delivered, final answer`, async () => {
    assert.ok(adapter, 'the deepseek adapter exists');
    const site = await rig.addSite(adapter.id);
    const { page, chatRef } = await rig.openChat(`${site.origin}/${adapter.id}/?format=${format}`, {}, adapter.id);
    const inserted = await rig.insertInstructions(chatRef);
    assert.equal(inserted.submitted, true, JSON.stringify(inserted));
    const final = await waitForReply(page, adapter, 'Final answer');
    const first = await page.evaluate(() => window.__fixture.done[0]);
    assert.match(first, written, `the bot wrote the call as ${format}`);
    assert.match(final, /\b5\b/, 'the assistant saw the real result of add(2, 3)');
    const calls = await rig.calls(chatRef, page);
    assert.deepEqual(calls.map((c) => [c.tool, c.state, c.delivered]), [['add', 'done', true]], 'one call, run once, delivered');
    await page.close();
  });
}
