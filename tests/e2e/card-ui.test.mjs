// The in-page call card as a user meets it, in English and in Chinese: it never covers the reply
// (measured: the card's box against the reply's box, for layouts where it goes after the reply,
// beside it and over the empty composer) nor what the user types (it folds into one line with a
// count), it takes the page's colours (light and dark), a finished call becomes a small pill in
// the "N calls" chip that opens and closes, and a card can be dismissed, by the user only (a page
// script's click does nothing). card-layout.test.mjs tries three chat layouts with a user typing.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import {
  coreCall, until, waitInClosedShadow, closedShadowNodes, trustedClickInClosedShadow, pageWorldCallInClosedShadow, textsInClosedShadow,
  startDemoChat, ok,
} from './harness.mjs';

const HOST = 'mcp-relay-ui';

/** The box (viewport CSS pixels) and background of the first element matching `inner` in the closed shadow root. */
async function shadowRect(page, inner) {
  if (!(await closedShadowNodes(page, HOST, inner)).length) return null;
  return pageWorldCallInClosedShadow(page, HOST, inner,
    'function () { const r = this.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right, color: getComputedStyle(this).backgroundColor }; }');
}

/** The last assistant turn's box, clipped to the viewport (what the user sees of the reply). */
const replyRect = (page) => page.evaluate(() => {
  const turns = document.querySelectorAll('.turn[data-role="assistant"]');
  const r = turns[turns.length - 1].getBoundingClientRect();
  return { top: Math.max(r.top, 0), bottom: Math.min(r.bottom, innerHeight), left: r.left, right: r.right };
});

const intersects = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

for (const { lang, dismiss, done, oneCall } of [{ lang: 'en', dismiss: 'Dismiss', done: 'Done', oneCall: '1 call' }, { lang: 'zh-CN', dismiss: '关闭', done: '完成', oneCall: '1 次调用' }]) {
  test(`${lang}: the call card`, async (t) => {
    const rig = await startDemoChat({ lang: lang === 'en' ? 'en-US' : lang });
    t.after(() => rig.close());
    const call = async (message) => ok(await coreCall(rig.panel, message));
    await call({ type: 'tools/policy', serverId: rig.serverId, tool: 'add', policy: 'allow' });
    const page = await rig.ext.context.newPage();
    await page.setViewportSize({ width: 900, height: 700 });
    await page.goto(rig.chat.origin + '/');
    await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
    const tabs = await rig.ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((x) => x.url === u).map((x) => x.id), page.url());
    const chatRef = { tabId: Math.max(...tabs), url: page.url() };
    // Auto-run off: the call waits on its card.
    await call({ type: 'chat/set', chat: chatRef, settings: { serverIds: [rig.serverId], autoExecute: false, autoSubmit: false } });
    const prompt = await call({ type: 'prompt/build', chat: chatRef });
    await call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
    const pending = '.card[data-state="pending"]';
    await waitInClosedShadow(page, HOST, pending, { timeoutMs: 20_000 });
    await page.locator('#stop').waitFor({ state: 'hidden', timeout: 20_000 }); // the reply has ended
    await page.bringToFront();

    await t.test('it never covers the reply: after it, beside it or over the composer', async () => {
      // The layouts: a tall window (room between the reply's end and the composer), a wide one
      // (a margin beside the reply's column, above the composer), and a small one (only the
      // composer is free, and empty: it hides nothing).
      const layouts = [
        { width: 900, height: 700, where: 'composer' },
        { width: 1500, height: 700, where: 'above-composer|beside-reply' },
        { width: 900, height: 2600, where: 'after-reply' },
      ];
      for (const { width, height, where } of layouts) {
        await page.setViewportSize({ width, height });
        await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
        await until(async () => where.split('|').includes(await pageWorldCallInClosedShadow(page, HOST, '.ui', 'function () { return this.dataset.where; }')),
          { timeoutMs: 5_000, what: `the cards ${where}` });
        let seen = null;
        await until(async () => {
          const card = await shadowRect(page, pending);
          const reply = await replyRect(page);
          seen = { card, reply };
          return card && !intersects(card, reply) && card.bottom <= height && card.top >= 0;
        }, { what: `the card (${where}, ${width}×${height}) in view and off the reply` }).catch((e) => {
          throw new Error(`${e.message}: ${JSON.stringify(seen)}`);
        });
      }
      await page.setViewportSize({ width: 900, height: 700 });
    });

    await t.test('once the user types, it folds into one line off the composer\'s text', async () => {
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await waitInClosedShadow(page, HOST, '.ui[data-where="composer"][data-collapsed="false"]', { timeoutMs: 5_000 });
      await page.focus('#input');
      await page.keyboard.type('my next question');
      await waitInClosedShadow(page, HOST, '.ui[data-collapsed="true"]', { timeoutMs: 5_000 });
      let seen = null;
      await until(async () => {
        const line = await shadowRect(page, '.summary');
        const { text, host } = await page.evaluate(() => {
          const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
          return { text: box(document.getElementById('input')), host: box(document.querySelector('mcp-relay-ui')) };
        });
        seen = { line, text, host, reply: await replyRect(page) };
        return line && line.bottom > line.top && host.bottom - host.top < 40 && !intersects(host, text) && !intersects(host, seen.reply);
      }, { what: 'one line clear of the typed text and the reply' }).catch((e) => { throw new Error(`${e.message}: ${JSON.stringify(seen)}`); });
      assert.match((await textsInClosedShadow(page, HOST, '.summary'))[0], new RegExp(`${oneCall}.*add`));
      // The composer emptied: the whole card again.
      await page.keyboard.press('Control+A');
      await page.keyboard.press('Backspace');
      await waitInClosedShadow(page, HOST, '.ui[data-where="composer"][data-collapsed="false"]', { timeoutMs: 5_000 });
    });

    await t.test('it takes the page\'s colours, light or dark', async () => {
      await page.emulateMedia({ colorScheme: 'dark' });
      await waitInClosedShadow(page, HOST, '.ui[data-theme="dark"]', { timeoutMs: 5_000 });
      const dark = await shadowRect(page, pending);
      await page.emulateMedia({ colorScheme: 'light' });
      await waitInClosedShadow(page, HOST, '.ui[data-theme="light"]', { timeoutMs: 5_000 });
      const light = await shadowRect(page, pending);
      assert.notEqual(dark.color, light.color, 'the card\'s background follows the theme');
      assert.equal(light.color, 'rgb(255, 255, 255)');
    });

    await t.test('a finished call is a pill that opens and closes', async () => {
      await waitInClosedShadow(page, HOST, `${pending} button[data-action="run"][data-armed="true"]`);
      await trustedClickInClosedShadow(page, HOST, `${pending} button[data-action="run"]`);
      const pill = '.pills .card.pill[data-state="done"]';
      await waitInClosedShadow(page, HOST, pill, { timeoutMs: 20_000 });
      // Finished calls fold into one chip; the user's click lists them.
      const chip = '.chip[data-count="1"] button[data-action="calls"]';
      await waitInClosedShadow(page, HOST, chip, { timeoutMs: 5_000 });
      assert.equal((await textsInClosedShadow(page, HOST, chip))[0].replace(/\s*[▸▾]$/, ''), `✓ ${oneCall}`);
      await pageWorldCallInClosedShadow(page, HOST, chip, 'function () { this.click(); }');
      assert.equal((await closedShadowNodes(page, HOST, '.done[data-open="true"]')).length, 0, 'a synthetic click lists nothing');
      // The result waits in the composer (auto-send is off): the cards keep off it, folded into
      // one line, which the user opens.
      if ((await closedShadowNodes(page, HOST, '.ui[data-collapsed="true"]')).length) {
        await trustedClickInClosedShadow(page, HOST, '.summary button[data-action="show"]');
        await waitInClosedShadow(page, HOST, '.ui[data-collapsed="false"]', { timeoutMs: 5_000 });
      }
      await trustedClickInClosedShadow(page, HOST, chip);
      await waitInClosedShadow(page, HOST, '.done[data-open="true"]', { timeoutMs: 5_000 });
      const small = await shadowRect(page, pill);
      assert.ok(small.bottom - small.top < 32, `a pill is one short line (${small.bottom - small.top}px)`);
      assert.match((await textsInClosedShadow(page, HOST, pill))[0], /add/);
      assert.equal((await closedShadowNodes(page, HOST, `${pill} .args`)).length, 0, 'no arguments on the pill');
      // A page script's click does not open it (the handler ran: click() is synchronous).
      await pageWorldCallInClosedShadow(page, HOST, `${pill} button[data-action="expand"]`, 'function () { this.click(); }');
      assert.equal((await closedShadowNodes(page, HOST, pill)).length, 1, 'still a pill after a synthetic click');
      await trustedClickInClosedShadow(page, HOST, `${pill} button[data-action="expand"]`);
      const open = '.list .card[data-state="done"]:not(.pill)';
      await waitInClosedShadow(page, HOST, `${open} .args`, { timeoutMs: 5_000 });
      assert.match((await textsInClosedShadow(page, HOST, `${open} .state`))[0], new RegExp(done));
      assert.match((await textsInClosedShadow(page, HOST, `${open} .args`))[0], /"a":2/);
      await trustedClickInClosedShadow(page, HOST, `${open} button[data-action="collapse"]`);
      await waitInClosedShadow(page, HOST, pill, { timeoutMs: 5_000 });
    });

    await t.test('the user (only) can dismiss it', async () => {
      const pill = '.card.pill[data-state="done"]';
      const label = await pageWorldCallInClosedShadow(page, HOST, `${pill} button[data-action="dismiss"]`, 'function () { return this.getAttribute("aria-label"); }');
      assert.equal(label, dismiss);
      await pageWorldCallInClosedShadow(page, HOST, `${pill} button[data-action="dismiss"]`, 'function () { this.click(); }');
      assert.equal((await closedShadowNodes(page, HOST, pill)).length, 1, 'a synthetic click dismisses nothing');
      await trustedClickInClosedShadow(page, HOST, `${pill} button[data-action="dismiss"]`);
      await until(async () => (await closedShadowNodes(page, HOST, '.card')).length === 0, { what: 'the card to go' });
      assert.equal((await closedShadowNodes(page, HOST, '.done:not([hidden])')).length, 0, 'no chip without finished calls');
      await until(() => page.evaluate(() => document.querySelector('mcp-relay-ui').hidden), { what: 'the empty host to take no room' });
      // The call itself is untouched.
      assert.deepEqual((await call({ type: 'activity/list', chat: chatRef })).map((c) => `${c.tool}:${c.state}`), ['add:done']);
    });
  });
}
