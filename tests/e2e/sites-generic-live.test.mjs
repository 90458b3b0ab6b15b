// The live behaviours of chat pages, with the generic adapter (issue 19): the fixture sites
// registered as pages nobody described, so discovery finds their parts and the core's page
// model alone decides which reply is which and when it ends. On each: the call runs once, its
// result is inserted and submitted by the extension after the reply that asked for it has
// ended, the final answer is seen, and nothing is clicked but Send.
// - Send and Stop as one button (the button keeps Send's classes while it is Stop), with a
//   reply that streams on after its call;
// - a reply that pauses for seconds after its complete call, then goes on;
// - a virtualised list: scrolled up and down, the call's turn mounted again runs nothing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { loadAdapters, startRig, until } from '../fixtures/sites/_shared/loop.mjs';

const claude = loadAdapters().SITES.find((a) => a.id === 'claude');

let rig;
before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

const fixture = (page) => page.evaluate(() => ({ ...window.__fixture }));

/** Runs the loop on a fixture site registered as generic; returns the page and its chat. */
async function loop(site, query) {
  const origin = await rig.addSite('generic');
  const { page, chatRef } = await rig.openChat(`${origin.origin}/${site}/${query}`, {}, 'generic');
  const inserted = await rig.insertInstructions(chatRef);
  assert.equal(inserted.inserted, true, JSON.stringify(inserted));
  await until(async () => (await fixture(page)).replies >= 2, { timeoutMs: 40_000, what: 'the final answer' });
  const f = await fixture(page);
  assert.equal(f.submitted.length, 2, 'the instructions and the result were submitted, nothing else');
  assert.match(f.submitted[1].text, /tool[-_ ]?result/i);
  assert.ok(f.submitted[1].at >= f.replyEnds[0], `the result went in after the call's reply ended (${f.submitted[1].at} < ${f.replyEnds[0]})`);
  assert.equal(f.writesWhileStreaming, 0, 'nothing was written into the input while a reply streamed');
  assert.equal(f.stopClicks || 0, 0, 'Stop was never clicked');
  assert.equal(f.trapClicks || 0, 0, 'no control but Send was clicked');
  const here = { ...chatRef, url: page.url() };
  await until(async () => (await rig.calls(here)).some((c) => c.delivered), { what: 'the call delivered' });
  assert.deepEqual((await rig.calls(here)).map((c) => `${c.tool}:${c.state}`), ['add:done']);
  return { page, here };
}

test('generic adapter, Send and Stop as one button and a reply that streams on after its call', async () => {
  const { page } = await loop('gemini', '?stopclass=0&tail=25&delay=6');
  await page.close();
});

test('generic adapter, a reply that pauses for seconds after its complete call', async () => {
  const { page } = await loop('claude', '?pause=3000');
  await page.close();
});

test('generic adapter, a virtualised list scrolled up and down runs nothing again', async () => {
  const { page, here } = await loop('claude', '?virtual=2');
  const before = await rig.calls(here);
  await page.evaluate(() => window.__fixture.remount());
  // Witness that the core looked at the re-mounted turns and decided each.
  // (The page's replies, counted with the site's own selector, which the generic adapter does not use.)
  const shown = await page.locator(claude.assistant.join(', ')).count();
  assert.ok(shown >= 2, 'both replies are mounted again');
  await until(async () => {
    const view = await rig.call({ type: 'page/state', chat: here });
    return !!view && view.turns.filter((t) => t.onPage).length === shown
      && view.turns.every((t) => t.state !== 'live' && t.state !== 'undecided');
  }, { what: 'the re-mounted turns seen and decided by the core' });
  assert.deepEqual((await rig.calls(here)).map((c) => `${c.key}:${c.state}`), before.map((c) => `${c.key}:${c.state}`));
  await page.close();
});
