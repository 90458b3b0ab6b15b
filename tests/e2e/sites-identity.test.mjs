// Which reply is which on a site without message ids (issue 18): the core's page model tells a
// reply from its re-mount, its reload and its copy in a second tab by content and position,
// so a call runs once whatever the page does afterwards. The Claude fixture names no message
// id (its adapter has no `messageId`), re-renders its replies per token and can virtualise its
// transcript (`?virtual=2`: turns far from the bottom leave the DOM and come back as new
// elements; `tabs=1`: a second tab shows the conversation too).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadAdapters, startRig, waitForReply, until } from '../fixtures/sites/_shared/loop.mjs';

const { SITES } = loadAdapters();
const claude = SITES.find((s) => s.id === 'claude');
let rig;
let site;

before(async () => {
  assert.ok(claude && !claude.messageId, 'the adapter of this test names no message id');
  rig = await startRig();
  site = await rig.addSite('claude');
});
after(async () => { await rig?.close(); });

const pageState = (chatRef) => rig.call({ type: 'page/state', chat: chatRef });

/**
 * Waits until the core's page model of the tab shows `count` replies on the page and has
 * decided each (none is still being written or undecided).
 */
async function coreSees(chatRef, count, what) {
  await until(async () => {
    const view = await pageState(chatRef);
    return !!view && view.turns.filter((t) => t.onPage).length === count
      && view.turns.every((t) => t.state !== 'live' && t.state !== 'undecided');
  }, { what });
  return pageState(chatRef);
}

const replies = (page) => page.locator(claude.assistant.join(', ')).count();

test('a reload, a re-mount and a second tab never run a call again (no message ids)', async () => {
  const { page, chatRef } = await rig.openChat(`${site.origin}/claude/?virtual=2&tabs=1`, {}, 'claude');
  await rig.insertInstructions(chatRef);
  await waitForReply(page, claude, 'Final answer');
  const here = { ...chatRef, url: page.url() };
  await until(async () => (await rig.calls(here)).some((c) => c.delivered), { what: 'the call delivered' });
  const ran = await rig.calls(here);
  assert.deepEqual(ran.map((c) => `${c.tool}:${c.state}`), ['add:done']);

  // Re-mount: every turn leaves the DOM and comes back as a new element.
  await page.evaluate(() => window.__fixture.remount());
  let view = await coreSees(here, await replies(page), 're-mounted turns seen by the core');
  assert.ok(view.turns.every((t) => t.state === 'history' || t.state === 'done'), JSON.stringify(view));

  // Reload: a new page load shows the same replies; the core keeps their ids (by text).
  const ids = view.turns.map((t) => t.messageId);
  await page.reload();
  await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
  await waitForReply(page, claude, 'Final answer');
  view = await coreSees(here, await replies(page), 'the reloaded page seen by the core');
  assert.ok(view.turns.every((t) => t.state === 'history'), JSON.stringify(view));
  assert.ok(view.turns.some((t) => ids.includes(t.messageId)), `the call's reply kept its id: ${JSON.stringify(view)} ${ids}`);

  // A second tab on the same conversation.
  const second = await rig.openChat(page.url(), {}, 'claude');
  await waitForReply(second.page, claude, 'Final answer');
  const there = { ...second.chatRef, url: second.page.url() };
  view = await coreSees(there, await replies(second.page), 'the second tab seen by the core');
  assert.ok(view.turns.every((t) => t.state === 'history'), JSON.stringify(view));

  // Nothing ran again, in either tab: the only call is the first one, with its own id.
  const after = [...await rig.calls(here), ...await rig.calls(there)];
  assert.deepEqual(after.map((c) => `${c.key}:${c.state}`), ran.map((c) => `${c.key}:${c.state}`));
  await second.page.close();
  await page.close();
});
