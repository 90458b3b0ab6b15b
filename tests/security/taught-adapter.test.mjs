// Attack: "Teach this page" on a chat page whose user turns share the replies' markup (issue
// 24). The reply selector the user teaches then also matches the user's own messages, so text
// the user sent (a pasted e-mail with a call block, the instructions with their example call)
// would be read as a reply and its calls would run. Promise (SECURITY.md, "Decisions in the
// core"): the content script counts the turns the taught reply selector matches that show a
// text the user sent, and the core (`app::validate_adapter`) refuses such an adapter with an
// explanation; the page keeps its previous adapter.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startRig, until } from '../fixtures/sites/_shared/loop.mjs';
import { trustedClickInClosedShadow, textsInClosedShadow } from '../e2e/harness.mjs';

/** @type {any} */ let rig;
before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

/**
 * Teaches `page` by trusted clicks: the composer, the send button, then `reply`; resolves when
 * the picker has closed.
 */
async function teach(page, chatRef, reply) {
  await rig.call({ type: 'sites/teach', chat: chatRef });
  const step = (s) => until(async () => (await page.locator('mcp-relay-teach').getAttribute('data-step')) === s, { what: `teach step ${s}` });
  const clickAt = async (locator) => {
    // The instructions make a long user turn: bring the target into view first.
    await locator.scrollIntoViewIfNeeded();
    const b = await locator.boundingBox();
    await page.mouse.click(b.x + b.width / 2, b.y + b.height / 2);
  };
  await step('input');
  await clickAt(page.locator('.rich-input'));
  await step('send');
  await clickAt(page.locator('button.round'));
  await step('assistant');
  await clickAt(reply);
}

test('a taught reply selector that also matches the user\'s own messages is refused, and says why', async () => {
  const site = await rig.addSite('generic');
  const { page, chatRef } = await rig.openChat(`${site.origin}/_unadapted/article/?same=1&instant=1`, { autoExecute: false }, 'generic');
  // The user sent the instructions: their turn shows them, in the replies' markup.
  await rig.insertInstructions(chatRef);
  await until(() => page.evaluate(() => window.__fixture.replies === 1), { what: 'the reply' });
  const replies = page.locator('article[data-speaker="orion-7"]');
  await until(async () => (await replies.count()) >= 2, { what: 'the user turn and the reply' });

  await teach(page, chatRef, replies.last().locator('.content'));
  // Positive sign: the core answered, and the page says why it refused.
  const notice = await until(async () => {
    const texts = await textsInClosedShadow(page, 'mcp-relay-teach', '.notice:not([hidden])');
    return texts.find((x) => /your own messages/.test(x));
  }, { what: 'the refusal on the page' });
  assert.match(notice, /also matches 1 of your own messages/);
  assert.match(notice, /'user' selector/, 'the hint says what to do');
  const saved = (await rig.call({ type: 'sites/list' })).find((s) => s.origin === site.origin);
  assert.equal(saved.adapter, 'generic', 'no taught adapter was saved');
  assert.equal(await page.locator('mcp-relay-ui').getAttribute('data-adapter'), 'generic');
  await page.close();
});

test('where the user\'s messages look different, the same teaching is accepted', async () => {
  const site = await rig.addSite('generic');
  const { page, chatRef } = await rig.openChat(`${site.origin}/_unadapted/article/?instant=1`, { autoExecute: false }, 'generic');
  await rig.insertInstructions(chatRef);
  await until(() => page.evaluate(() => window.__fixture.replies === 1), { what: 'the reply' });
  await teach(page, chatRef, page.locator('article[data-speaker="orion-7"] .content').first());
  await page.locator('mcp-relay-ui[data-adapter="taught"]').waitFor({ state: 'attached', timeout: 10_000 });
  const saved = (await rig.call({ type: 'sites/list' })).find((s) => s.origin === site.origin);
  assert.equal(saved.adapter, 'taught');
  assert.equal(saved.custom.userTurns, undefined, 'the measure is not stored');
  await page.close();
});
