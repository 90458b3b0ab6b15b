// Every shipped site adapter, end to end: its fixture page (the site's DOM and editor
// behaviour) registered as a custom site with that adapter, the instructions inserted, a
// streamed reply whose call is detected once and run against the demo MCP server, the result
// inserted and submitted, the final answer observed; then a site check shows the adapter's
// selectors match. The instructions must arrive with every line break, both messages must be
// submitted by the extension, and no stop, voice or other trap control may be clicked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { loadAdapters, fixtureFolders, startRig, waitForReply, linesOf, SITES_DIR } from '../fixtures/sites/_shared/loop.mjs';

const { SITES } = loadAdapters();
let rig;

before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

test('every adapter has a fixture page and every fixture page an adapter', () => {
  const adapters = SITES.map((s) => s.id).sort();
  assert.deepEqual(fixtureFolders().sort(), adapters);
  for (const id of adapters) assert.ok(existsSync(join(SITES_DIR, id, 'index.html')), `${id}/index.html`);
});

for (const adapter of SITES) {
  test(`${adapter.name}: instructions → streamed call → run once → result submitted → final answer; site check`, async () => {
    const site = await rig.addSite(adapter.id);
    const { page, chatRef } = await rig.openChat(`${site.origin}/${adapter.id}/`, {}, adapter.id);
    const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
    const inserted = await rig.insertInstructions(chatRef);
    assert.equal(inserted.inserted, true, JSON.stringify(inserted));
    assert.equal(inserted.submitted, true, 'the instructions were submitted');

    const final = await waitForReply(page, adapter, 'Final answer');
    assert.match(final, /\b5\b/, 'the assistant saw the real result of add(2, 3)');
    // The conversation has its own URL now (reached without a reload): the chat followed it.
    const calls = await rig.calls(chatRef, page);
    assert.deepEqual(calls.map((c) => [c.tool, c.state, c.delivered, !!c.unsent]), [['add', 'done', true, false]], 'one call, run once, delivered and sent');
    const f = await page.evaluate(() => ({ ...window.__fixture }));
    assert.deepEqual(linesOf(f.submitted[0].text), linesOf(prompt.text), 'the instructions arrived with every line break');
    assert.equal(f.submitted.length, 2, 'the extension submitted the instructions and the result');
    assert.match(f.submitted[1].text, /tool[- _]result/, 'the second message is the result');
    assert.deepEqual([f.stopClicks, f.trapClicks], [0, 0], 'no stop, voice or other control was clicked');

    // The site check: the adapter's first-choice selectors match this page (with text in the
    // composer: an empty one shows a voice button in Send's place on some sites).
    await page.locator(adapter.input[0]).click();
    await page.keyboard.type('x');
    const report = await rig.call({ type: 'sites/check', chat: chatRef });
    assert.equal(report.adapter, adapter.id);
    const byPart = Object.fromEntries(report.checks.map((c) => [c.part, c]));
    assert.deepEqual(Object.keys(byPart).sort(), ['assistant', 'input', 'send', 'stop', 'user']);
    for (const part of ['input', 'send']) {
      assert.equal(byPart[part].matches, 1, `${part}: ${JSON.stringify(byPart[part])}`);
      assert.equal(byPart[part].selector, adapter[part][0], `${part} matched by its first selector`);
    }
    // Two turns each: the instructions and the result; the call and the final answer.
    assert.equal(byPart.user.matches, 2, JSON.stringify(byPart.user));
    assert.equal(byPart.assistant.matches, 2, JSON.stringify(byPart.assistant));
    assert.equal(byPart.stop.visible, 0, 'nothing streams now');
    await page.close();
  });
}
