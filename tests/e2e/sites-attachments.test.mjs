// Writing files into chats: an image from a tool result is attached through the site's own
// file path (file input, drop zone or paste), not dropped, and goes out with the result text.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadAdapters, startRig, waitForReply } from '../fixtures/sites/_shared/loop.mjs';

const { SITES } = loadAdapters();
let rig;

before(async () => {
  rig = await startRig();
  await rig.call({ type: 'tools/policy', serverId: rig.serverId, tool: 'generate_image', policy: 'allow' });
});
after(async () => { await rig?.close(); });

for (const id of ['chatgpt', 'gemini', 'kimi']) {
  const adapter = SITES.find((s) => s.id === id);
  test(`${adapter.name}: an image result is attached and submitted with the result`, async () => {
    const site = await rig.addSite(id);
    const args = encodeURIComponent(JSON.stringify({ color: 'blue', size: 16 }));
    const { page, chatRef } = await rig.openChat(`${site.origin}/${id}/?tool=generate_image&args=${args}`, {}, id);
    await rig.insertInstructions(chatRef);
    const final = await waitForReply(page, adapter, 'Final answer');
    assert.match(final, /I received tool-result-1\.png/, 'the assistant got the file');
    const submitted = await page.evaluate(() => window.__fixture.submitted);
    const withFile = submitted.find((s) => s.files.length);
    assert.deepEqual(withFile.files.map((f) => [f.name, f.type]), [['tool-result-1.png', 'image/png']]);
    assert.ok(withFile.files[0].size > 50, 'the PNG bytes came through');
    assert.match(withFile.text, /tool-result-1\.png/, 'the text names the attachment');
    assert.deepEqual((await rig.calls(chatRef, page)).map((c) => `${c.tool}:${c.state}`), ['generate_image:done']);
    await page.close();
  });
}
