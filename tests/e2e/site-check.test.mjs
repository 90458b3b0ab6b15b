// The site check (side panel → sites/check → relay/check in the tab) counts what a taught
// adapter's selectors match, shadow hops (`host >>> inner`) included: an adapter whose parts
// live in open shadow roots shows them found, not 0 matches.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig } from '../fixtures/sites/_shared/loop.mjs';

let rig;
before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

test('a taught adapter with shadow-hop selectors: the site check counts their matches', async () => {
  const adapter = {
    id: 'taught',
    input: ['chat-app >>> chat-composer >>> textarea'],
    send: ['chat-app >>> chat-composer >>> button.send'],
    assistant: ['chat-app >>> chat-turn[kind=theirs]'],
  };
  const site = await rig.addSite(adapter);
  const { page, chatRef } = await rig.openChat(`${site.origin}/_unadapted/shadow/`, {}, 'taught');
  const report = await rig.call({ type: 'sites/check', chat: chatRef });
  assert.equal(report.adapter, 'taught');
  const row = (part) => report.checks.find((c) => c.part === part);
  // (part, selector, matches): one composer textarea and one send button, each behind two hops.
  for (const [part, selector] of [['input', adapter.input[0]], ['send', adapter.send[0]]]) {
    assert.deepEqual([row(part).selector, row(part).matches, row(part).visible], [selector, 1, 1], JSON.stringify(report));
  }
  await page.close();
});
