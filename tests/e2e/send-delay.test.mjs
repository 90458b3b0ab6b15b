// The delay before auto-send (Settings → sendDelayMs), in English and in Chinese: results go
// into the chat's input and wait there while the call's card counts down; Cancel on the card
// (a real click; a page script's click does nothing) keeps them unsent for good, and without a
// Cancel they are sent when the countdown ends, not before. The core decides; the card shows.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  coreCall, until, waitInClosedShadow, textsInClosedShadow, trustedClickInClosedShadow, pageWorldCallInClosedShadow, closedShadowNodes,
  startDemoChat, ok, openExtensionPage, ROOT,
} from './harness.mjs';

const HOST = 'mcp-relay-ui';
const DELAY_MS = 4_000;

for (const lang of ['en', 'zh_CN']) {
  test(`${lang}: a delayed auto-send counts down on the card, Cancel keeps the results unsent, no Cancel sends them on time`, { timeout: 120_000 }, async (t) => {
    const m = JSON.parse(readFileSync(join(ROOT, '_locales', lang, 'messages.json'), 'utf8'));
    const rig = await startDemoChat({ lang: lang === 'en' ? 'en-US' : 'zh-CN' });
    t.after(() => rig.close());
    const call = async (message) => ok(await coreCall(rig.panel, message));
    // The delay is set in the panel's Settings, labelled in the user's language.
    const panel = await openExtensionPage(rig.ext, 'www/panel.html#settings');
    const settings = await call({ type: 'settings/get' });
    await call({ type: 'settings/set', settings: { ...settings, language: lang } });
    await panel.reload();
    const field = panel.locator('#set-sendDelayMs');
    await until(async () => (await field.inputValue()) === '0', { what: 'the setting, off by default' });
    assert.equal(await panel.locator(`label[for="set-sendDelayMs"]`).innerText(), m.settingsSendDelay.message);
    await field.fill(String(DELAY_MS / 1000)); // shown in seconds, like the timeouts
    await panel.click('#settings-save');
    await until(async () => (await call({ type: 'settings/get' })).sendDelayMs === DELAY_MS, { what: 'the delay saved' });
    await panel.close();
    await call({ type: 'tools/policy', serverId: rig.serverId, tool: 'add', policy: 'allow' });

    async function openChat(path) {
      const page = await rig.ext.context.newPage();
      await page.goto(rig.chat.origin + path);
      await page.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
      const tabs = await rig.ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((x) => x.url === u).map((x) => x.id), page.url());
      const chatRef = { tabId: Math.max(...tabs), url: page.url() };
      await call({ type: 'chat/set', chat: chatRef, settings: { serverIds: [rig.serverId], autoExecute: true, autoSubmit: true }, scope: 'chat' });
      const prompt = await call({ type: 'prompt/build', chat: chatRef });
      await call({ type: 'chat/insert', chat: chatRef, text: prompt.text, submit: true });
      return { page, chatRef };
    }
    const record = async (chatRef) => (await call({ type: 'activity/list', chat: chatRef }))[0];
    const resultTurns = (page) => page.locator('.turn[data-role="user"]').filter({ has: page.locator('pre .bar span', { hasText: /^tool-result/ }) });
    const counting = '.card[data-state="done"] .countdown';

    await t.test('Cancel on the card keeps the results in the input, unsent', async () => {
      const { page, chatRef } = await openChat('/?cancel');
      await waitInClosedShadow(page, HOST, counting, { timeoutMs: 20_000 });
      const rec = await record(chatRef);
      assert.equal(typeof rec.sendAt, 'number');
      assert.ok(rec.sendAt > Date.now(), 'the send is still to come');
      const [shown] = await textsInClosedShadow(page, HOST, counting);
      const seconds = m.cardSendingIn.message.replace('$SECONDS$', '(\\d+)');
      assert.match(shown, new RegExp(`^${seconds}$`));
      assert.match(await page.locator('#input').inputValue(), /tool-result/, 'the results wait in the input');
      assert.equal(await resultTurns(page).count(), 0);
      const cancel = `${counting.replace(' .countdown', '')} button[data-action="hold-send"]`;
      assert.equal((await textsInClosedShadow(page, HOST, cancel))[0], m.cardCancelSend.message);

      // A page script's click is not the user's: the countdown goes on.
      await pageWorldCallInClosedShadow(page, HOST, cancel, 'function () { this.click(); }');
      assert.equal((await record(chatRef)).sendAt, rec.sendAt);
      // The card keeps off the results held in the input for review: where nothing else holds
      // it, it is one line with the countdown, which the user opens.
      if ((await closedShadowNodes(page, HOST, '.ui[data-collapsed="true"]')).length) {
        assert.match((await textsInClosedShadow(page, HOST, '.summary'))[0], new RegExp(seconds));
        await trustedClickInClosedShadow(page, HOST, '.summary button[data-action="show"]');
        await waitInClosedShadow(page, HOST, '.ui[data-collapsed="false"]', { timeoutMs: 5_000 });
      }
      await trustedClickInClosedShadow(page, HOST, cancel);
      await until(async () => { const r = await record(chatRef); return r.unsent === true && r.sendAt == null; }, { what: 'the core to hold the send' });
      await waitInClosedShadow(page, HOST, '.card[data-unsent="true"]', { timeoutMs: 5_000 });
      assert.equal((await closedShadowNodes(page, HOST, '.countdown')).length, 0, 'no countdown once cancelled');
      // Past the moment it would have gone: still in the input, never sent.
      await until(() => Date.now() > rec.sendAt + 1_500, { timeoutMs: DELAY_MS + 5_000, what: 'the cancelled send\'s moment to pass' });
      assert.match(await page.locator('#input').inputValue(), /tool-result/);
      assert.equal(await resultTurns(page).count(), 0, 'nothing was sent');
      await page.close();
    });

    await t.test('without a Cancel the results are sent when the countdown ends', async () => {
      const { page, chatRef } = await openChat('/?send');
      await waitInClosedShadow(page, HOST, counting, { timeoutMs: 20_000 });
      const { sendAt } = await record(chatRef);
      await resultTurns(page).first().waitFor({ timeout: DELAY_MS + 10_000 });
      const sentAt = Date.now();
      assert.ok(sentAt >= sendAt - 250, `sent ${sendAt - sentAt} ms before the countdown ended`);
      await page.locator('.turn[data-role="assistant"]', { hasText: 'Final answer' }).waitFor({ timeout: 20_000 });
      await until(async () => { const r = await record(chatRef); return r.sendAt == null && !r.unsent; }, { what: 'the record to say sent' });
      await waitInClosedShadow(page, HOST, '.pills .card.pill[data-state="done"]', { timeoutMs: 5_000 });
      await page.close();
    });
  });
}
