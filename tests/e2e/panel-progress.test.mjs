// The activity view during a real loop: a call that needs approval is approved in the side
// panel, its MCP progress notifications show while it runs, and its result shows when it ends.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { openExtensionPage, waitInClosedShadow } from './harness.mjs';
import { startRig, waitForReply } from '../fixtures/sites/_shared/loop.mjs';

let rig;
before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

test('approve a pending call in the activity view, watch its progress, see its result', async () => {
  await rig.call({ type: 'tools/policy', serverId: rig.serverId, tool: 'slow_count', policy: 'ask' });
  const site = await rig.addSite('chatgpt');
  const args = encodeURIComponent(JSON.stringify({ steps: 6, delay_ms: 500 }));
  const { page, chatRef } = await rig.openChat(`${site.origin}/chatgpt/?tool=slow_count&args=${args}`, {}, 'chatgpt');

  const panel = await openExtensionPage(rig.ext, 'www/panel.html#activity');
  await panel.bringToFront();
  await rig.insertInstructions(chatRef);

  const pending = panel.locator('article.call[data-state="pending"]');
  await pending.waitFor({ timeout: 20_000 });
  assert.equal(await pending.locator('.call-tool').textContent(), 'slow_count');
  await pending.locator('[data-decision="run"]').click();
  // The card in the chat page shows the panel's decision at once (it runs for 3 s more).
  await waitInClosedShadow(page, 'mcp-relay-ui', '.card[data-state="running"]', { timeoutMs: 2_500 });

  // Progress arrives while the call runs (6 steps, 500 ms apart).
  const progress = panel.locator('article.call[data-state="running"] .progress');
  await progress.waitFor({ timeout: 10_000 });
  assert.match(await progress.textContent(), /\d+\/6/);

  const done = panel.locator('article.call[data-state="done"]');
  await done.waitFor({ timeout: 20_000 });
  const [record] = await rig.calls(chatRef, page);
  assert.equal(record.state, 'done');
  assert.equal(record.progress.total, 6);
  assert.ok(JSON.stringify(record.result).length > 20, 'a result came back');

  await page.bringToFront();
  await waitForReply(page, { assistant: ['div[data-message-author-role="assistant"]'] }, 'Final answer');
  await page.close();
  await panel.close();
});
