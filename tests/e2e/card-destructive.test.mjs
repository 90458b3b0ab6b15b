// A call of a tool its server marks destructive (`destructiveHint: true`, the demo's
// `notes_delete`), in English and in Chinese: the in-page card says in words what that means
// and where to approve it (the core refuses a page's approval of it), and Activity's pending
// record carries a "Destructive" mark beside Run and Always allow, with the sentence that
// explains it, which Run and Always allow name as their description for screen readers.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import {
  coreCall, until, waitInClosedShadow, textsInClosedShadow, closedShadowNodes, openExtensionPage, startDemoChat, ok,
} from './harness.mjs';

const HOST = 'mcp-relay-ui';

const TEXT = {
  en: {
    browser: 'en-US',
    card: /This tool can change or delete things \(its server marks it destructive\)\. Approve it in the MCP Relay side panel\./,
    mark: 'Destructive',
    why: /^Its server marks this tool destructive: it can change or delete things\./,
  },
  zh_CN: {
    browser: 'zh-CN',
    card: /此工具可能更改或删除内容（其服务器将其标记为破坏性）。请在 MCP Relay 侧边栏中批准。/,
    mark: '破坏性',
    why: /^其服务器将此工具标记为破坏性：它可能更改或删除内容。/,
  },
};

for (const lang of ['en', 'zh_CN']) {
  test(`a destructive call is explained on its card and marked in Activity (${lang})`, async (t) => {
    const want = TEXT[lang];
    const rig = await startDemoChat({ lang: want.browser });
    t.after(() => rig.close());
    const { ext, chat, panel, serverId } = rig;
    const call = async (message) => ok(await coreCall(panel, message));
    await call({ type: 'settings/set', settings: { ...(await call({ type: 'settings/get' })), language: lang } });
    await call({ type: 'tools/policy', serverId, tool: 'notes_delete', policy: 'ask' });

    const page = await ext.context.newPage();
    await page.goto(`${chat.origin}/`);
    await page.locator(`${HOST}[data-state="ready"]`).waitFor({ state: 'attached', timeout: 10_000 });
    const tabs = await ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((x) => x.url === u).map((x) => x.id), page.url());
    const chatRef = { tabId: Math.max(...tabs), url: page.url() };
    await call({ type: 'chat/set', chat: chatRef, settings: { serverIds: [serverId], autoExecute: true, autoSubmit: false } });
    // The page writes a reply calling notes_delete, as a site streams one: a first part, then,
    // once the core has seen it, the call (a reply complete at once is an old one).
    await page.evaluate(() => {
      const div = document.createElement('div');
      div.className = 'turn';
      div.dataset.role = 'assistant';
      div.id = 'fake-reply';
      div.textContent = 'I will delete that note.\n';
      document.getElementById('log').appendChild(div);
    });
    await until(async () => {
      const view = (await coreCall(panel, { type: 'page/state', chat: chatRef })).data;
      return !!view && view.turns.some((x) => x.onPage && x.length > 0);
    }, { what: 'the core saw the reply begin' });
    await page.evaluate((text) => { document.getElementById('fake-reply').textContent += text; },
      '```json\n' + JSON.stringify({ tool: 'notes_delete', arguments: { id: 1 } }) + '\n```');

    // The card: what destructive means, and where to approve; no Run on the page.
    const pending = '.card[data-state="pending"]';
    await waitInClosedShadow(page, HOST, `${pending} [data-destructive="true"]`, { timeoutMs: 20_000 });
    const [note] = await textsInClosedShadow(page, HOST, `${pending} [data-destructive="true"]`);
    assert.match(note, want.card);
    assert.equal((await closedShadowNodes(page, HOST, `${pending} button[data-action="run"]`)).length, 0, 'no Run on the page');

    // Activity: the mark beside Run and Always allow, explained in words the buttons point to.
    const [rec] = await call({ type: 'activity/list', chat: chatRef });
    assert.equal(rec.destructive, true);
    const activity = await openExtensionPage(ext, 'www/panel.html#activity');
    const record = activity.locator(`article.call[data-key="${rec.key}"][data-state="pending"]`);
    await record.waitFor({ timeout: 15_000 });
    const actions = record.locator('.actions');
    assert.equal(await actions.locator('.badge[data-destructive="true"]').textContent(), want.mark);
    for (const decision of ['run', 'always']) {
      const button = actions.locator(`button[data-decision="${decision}"]`);
      const describedBy = await button.getAttribute('aria-describedby');
      assert.ok(describedBy, `${decision} names its description`);
      const why = activity.locator(`[id="${describedBy}"]`);
      assert.equal(await why.count(), 1);
      assert.match(await why.textContent(), want.why);
      assert.ok(await why.isVisible(), 'the explanation is on screen, not only for screen readers');
    }
    // The mark stands beside the decision only: once the call is denied, it is gone.
    await actions.locator('button[data-decision="deny"]').click();
    await until(async () => (await call({ type: 'activity/list', chat: chatRef }))[0].state === 'denied', { what: 'the denial' });
    await activity.locator(`article.call[data-key="${rec.key}"][data-state="denied"]`).waitFor({ timeout: 10_000 });
    assert.equal(await activity.locator('[data-destructive="true"]').count(), 0, 'no mark once the call is decided');
  });
}
