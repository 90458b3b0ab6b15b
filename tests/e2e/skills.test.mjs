// Skills (SEP-2640, issue 32) with a real server that publishes them: tests/python/skills_server.py
// (PyPI `mcp`, the extension served as an `mcp.server.extension.Extension`) lists a good skill
// and one whose SKILL.md is served with other bytes than it listed. The Tools view shows each
// server's skills without reading a file; in the demo chat, This chat → Skills → Load writes the
// good skill, verified, into the composer; the tampered one is refused with a clear error and
// nothing of it is written; the model's own `load_skill` call gets the verified skill as its
// result. Screenshots: target/e2e-screens/skills-*.png.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { startDemoChat, ok, coreCall, until, TARGET } from './harness.mjs';
import { startRig } from '../fixtures/sites/_shared/loop.mjs';
import { startPythonSkillsServer } from '../interop/lib.mjs';

const SCREENS = join(TARGET, 'e2e-screens');
const GOOD_URI = 'skill://release-notes/SKILL.md';
const STYLE_URI = 'skill://release-notes/references/STYLE.md';
const TAMPERED_URI = 'skill://tampered/SKILL.md';

let demo;
let py;
let pyId;

before(async () => {
  [demo, py] = await Promise.all([startDemoChat(), startPythonSkillsServer()]);
  pyId = (await ok(await coreCall(demo.panel, { type: 'servers/add', server: { name: 'Skills', url: py.url } }))).id;
  mkdirSync(SCREENS, { recursive: true });
});
after(async () => {
  await demo?.close();
  await py?.close();
});

/** The server's own count of reads per file. */
const reads = async () => (await fetch(`${py.origin}/reads`)).json();

test("the Tools view lists a server's skills and reads none of their files", async () => {
  const { panel } = demo;
  await panel.setViewportSize({ width: 400, height: 900 });
  await panel.bringToFront();
  await panel.click('#tab-tools');
  const group = panel.locator(`.skill-group[data-server="${pyId}"]`);
  await group.locator('li.skill[data-skill="release-notes"]').waitFor({ timeout: 15_000 });
  const text = await group.textContent();
  assert.ok(text.includes('Write release notes from a list of merged changes'), text);
  assert.ok(text.includes('tampered'), text);
  await panel.screenshot({ path: join(SCREENS, 'skills-tools-view.png') });
  assert.deepEqual(await reads(), { [GOOD_URI]: 0, [STYLE_URI]: 0, [TAMPERED_URI]: 0 }, 'no prefetch on connect or list');
});

test('This chat → Skills → Load writes the verified skill into the composer; a tampered one is refused and nothing is written', async () => {
  const { panel, ext, chat } = demo;
  const chatPage = await ext.context.newPage();
  await chatPage.goto(chat.origin + '/');
  await chatPage.locator('mcp-relay-ui').waitFor({ state: 'attached', timeout: 10_000 });
  await panel.bringToFront();
  await panel.click('#tab-chat');
  await panel.locator(`.chat-servers li[data-server="${pyId}"] input`).check();
  // The view re-renders once the choice is saved: the prompt shows then.
  await panel.locator('#prompt-stats').waitFor({ timeout: 10_000 });
  const details = panel.locator(`.library details[data-server="${pyId}"]`);
  await details.locator('summary').click();
  const good = details.locator('li[data-skill="release-notes"]');
  await good.waitFor({ timeout: 15_000 });
  assert.deepEqual(await reads(), { [GOOD_URI]: 0, [STYLE_URI]: 0, [TAMPERED_URI]: 0 }, 'listing reads nothing');

  await good.getByRole('button', { name: 'Load' }).click();
  await until(async () => (await chatPage.locator('#input').inputValue()).includes('RELEASE_NOTES_SKILL_BODY'), { what: 'the skill in the composer' });
  const written = await chatPage.locator('#input').inputValue();
  assert.ok(written.includes(STYLE_URI), 'its reference file is named, not loaded');
  assert.ok(!written.includes('STYLE_REFERENCE_BODY'));
  assert.deepEqual(await reads(), { [GOOD_URI]: 1, [STYLE_URI]: 0, [TAMPERED_URI]: 0 });
  await panel.screenshot({ path: join(SCREENS, 'skills-loaded.png') });

  await chatPage.locator('#input').fill('');
  // The view may render again after a write into the chat (a tab update), taking a click with
  // the old button: the load happened when the server saw its read; otherwise click again.
  const error = details.locator('.error[data-kind="skill_unverified"]');
  for (let attempt = 0; attempt < 3 && !(await reads())[TAMPERED_URI]; attempt++) {
    await details.locator('li[data-skill="tampered"]').getByRole('button', { name: 'Load' }).click();
    await until(async () => (await reads())[TAMPERED_URI] > 0 || (await error.count()) > 0, { timeoutMs: 5_000, what: 'the load under way' }).catch(() => {});
  }
  await error.waitFor({ timeout: 15_000 });
  assert.match(await error.textContent(), /does not match/);
  assert.ok((await error.textContent()).includes(TAMPERED_URI));
  await panel.screenshot({ path: join(SCREENS, 'skills-unverified.png') });
  assert.equal(await chatPage.locator('#input').inputValue(), '', 'nothing of the tampered skill was written');
  assert.equal((await reads())[TAMPERED_URI], 1);
  await chatPage.close();
});

test("the model's load_skill call gets the verified skill as its result", async () => {
  const rig = await startRig();
  const server = await startPythonSkillsServer();
  try {
    const id = (await rig.call({ type: 'servers/add', server: { name: 'Skills', url: server.url } })).id;
    await rig.call({ type: 'tools/policy', serverId: id, tool: 'load_skill', policy: 'allow' });
    const site = await rig.addSite('chatgpt');
    const q = `tool=load_skill&args=${encodeURIComponent(JSON.stringify({ name: 'release-notes' }))}`;
    const { page, chatRef } = await rig.openChat(`${site.origin}/chatgpt/?${q}`, { serverIds: [id] }, 'chatgpt');
    const prompt = await rig.call({ type: 'prompt/build', chat: chatRef });
    assert.ok(prompt.text.includes('load_skill') && prompt.text.includes('release-notes'), 'the prompt offers the skill');
    await rig.call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
    await until(async () => (await rig.calls(chatRef, page)).find((c) => c.tool === 'load_skill' && c.state === 'done'),
      { timeoutMs: 30_000, what: 'load_skill done' });
    const submitted = await until(async () => (await page.evaluate(() => window.__fixture.submitted)).map((s) => s.text).find((s) => s.includes('RELEASE_NOTES_SKILL_BODY')),
      { what: 'the skill in the chat' });
    assert.ok(!submitted.includes('STYLE_REFERENCE_BODY'));
    const counts = await (await fetch(`${server.origin}/reads`)).json();
    assert.deepEqual(counts, { [GOOD_URI]: 1, [STYLE_URI]: 0, [TAMPERED_URI]: 0 });
  } finally {
    await rig.close();
    await server.close();
  }
});
