// Writing files into chats: an image from a tool result is attached through the site's own
// file path (file input, drop zone or paste), not dropped, and goes out with the result text.
// On a chat page that takes no files, the text says the image is missing (never "attached
// as"), and Activity warns (en and zh_CN) instead of a plain Done.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadAdapters, startRig, waitForReply, waitForReplyDone } from '../fixtures/sites/_shared/loop.mjs';
import { openExtensionPage } from './harness.mjs';

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

const REFUSED = {
  en: { note: /^1 image not attached: this page does not take files\. /, badge: '⚠ 1 image not attached', done: 'Done' },
  zh_CN: { note: /^1 张图片未附加：此页面不接受文件。/, badge: '⚠ 1 张图片未附加', done: '完成' },
};

for (const lang of ['en', 'zh_CN']) {
  test(`a chat page that takes no files: the text says the image is missing and Activity warns (${lang})`, async (t) => {
    await rig.call({ type: 'settings/set', settings: { ...(await rig.call({ type: 'settings/get' })), language: lang } });
    const site = await rig.addSite('generic');
    const args = encodeURIComponent(JSON.stringify({ color: 'red', size: 16 }));
    const { page, chatRef } = await rig.openChat(`${site.origin}/_unadapted/textarea/?nofiles=1&tool=generate_image&args=${args}`, {}, 'generic');
    t.after(() => page.close());
    await rig.insertInstructions(chatRef);
    await waitForReplyDone(page, 'Final answer');
    const submitted = await page.evaluate(() => window.__fixture.submitted);
    const result = submitted.find((s) => /^`{3,}tool-result /.test(s.text));
    assert.ok(result, 'the result was sent');
    assert.deepEqual(result.files, [], 'the page took no file');
    assert.doesNotMatch(result.text, /attached as/, 'no claim of an attachment that did not happen');
    assert.match(result.text, /\[image 1: image\/png, [^\]]*not attached: the chat page did not take files\]/);
    const [rec] = await rig.calls(chatRef, page);
    assert.equal(rec.state, 'done');
    assert.deepEqual(rec.unattached, { count: 1, images: true, reason: 'no_target' }, 'the record says what was left out and why');
    assert.doesNotMatch(rec.replyText, /attached as/, 'the record keeps the text the chat got');

    // Activity: a warning with the reason, never a plain Done.
    const panel = await openExtensionPage(rig.ext, 'www/panel.html#activity');
    t.after(() => panel.close());
    const call = panel.locator(`article.call[data-key="${rec.key}"]`);
    const note = call.locator('[data-unattached="no_target"]');
    await note.waitFor({ timeout: 15_000 });
    assert.match(await note.textContent(), REFUSED[lang].note);
    assert.equal(await call.locator('.badge.state-unattached').textContent(), REFUSED[lang].badge);
    assert.equal(await call.locator('.badge.state-done').count(), 0, 'no plain Done badge');
    assert.ok(!(await call.locator('.call-head').textContent()).includes(REFUSED[lang].done));
    assert.match(await panel.locator('.chain').textContent(), /generate_image ⚠/);
    // The warning's colour, light and dark: the panel's warning colour, never Done's.
    const colours = async () => call.locator('.badge.state-unattached').evaluate((el) => {
      const probe = (cls) => {
        const p = document.createElement('span');
        p.className = `badge ${cls}`;
        el.parentElement.appendChild(p);
        const c = getComputedStyle(p).color;
        p.remove();
        return c;
      };
      return { badge: getComputedStyle(el).color, warn: probe('state-pending'), done: probe('state-done') };
    });
    for (const scheme of ['light', 'dark']) {
      await panel.emulateMedia({ colorScheme: scheme });
      const c = await colours();
      assert.equal(c.badge, c.warn, `${scheme}: the warning colour`);
      assert.notEqual(c.badge, c.done, `${scheme}: not Done's colour`);
    }
  });
}
