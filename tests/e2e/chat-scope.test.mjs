// This chat's one scope choice (issue 33, item 6), in English and Chinese: the view says where its
// settings apply once, as one radio group (this conversation, or the whole site), and none of the
// three older wordings; every change lands in the scope chosen and only there, read back from
// the core (`chat/get` of this chat and of another conversation of the same site); switching to
// this conversation starts from the site's values, switching back drops the conversation's own.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { until, ROOT } from './harness.mjs';
import { startRig } from '../fixtures/sites/_shared/loop.mjs';

const messages = (lang) => JSON.parse(readFileSync(join(ROOT, '_locales', lang, 'messages.json'), 'utf8'));
/** The fill-ins of a message, as chrome.i18n puts them. */
const fill = (message, ...values) => { let i = 0; return message.replace(/\$[A-Z_]+\$/g, () => values[i++] ?? ''); };

// The older view's three scopes, in both languages: none of them may be on screen.
const OLD = {
  en: ['unless you chose this chat only', 'Change this chat only', 'to every conversation on', 'Remembered for', 'Nothing picked on'],
  zh_CN: ['除非选择仅此聊天', '仅更改此聊天', '应用于', '已为', '尚未在'],
};

let rig;
before(async () => { rig = await startRig(); });
after(async () => { await rig?.close(); });

/** A tab on `url` (no settings set for it). */
async function tab(url) {
  const page = await rig.ext.context.newPage();
  await page.goto(url);
  const tabs = await rig.ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
  return { page, chat: { tabId: Math.max(...tabs), url: page.url() } };
}

for (const lang of ['en', 'zh_CN']) {
  test(`${lang}: one choice says where This chat's settings apply, and each change lands there only`, async () => {
    const m = messages(lang);
    const text = (key, ...values) => fill(m[key].message, ...values);
    const site = await rig.addSite('chatgpt');
    const host = new URL(site.origin).host;
    const other = await tab(`${site.origin}/chatgpt/?other`);
    const here = await tab(`${site.origin}/chatgpt/?here`);
    const get = (c) => rig.call({ type: 'chat/get', chat: c.chat });

    await rig.call({ type: 'settings/set', settings: { ...(await rig.call({ type: 'settings/get' })), language: lang } });
    const panel = rig.panel;
    await panel.goto(rig.ext.url('www/panel.html#chat'));
    await panel.reload(); // a new hash alone would not load the page again
    await here.page.bringToFront();
    await panel.bringToFront();
    await panel.locator('#core-status[data-state="ready"]').waitFor();
    const view = panel.locator('#view-chat');
    const scope = view.locator('#chat-scope');
    await scope.waitFor({ timeout: 10_000 });

    // Shown once: one group of two choices, at the top of the settings, and no older wording.
    assert.equal(await view.locator('fieldset.chat-scope').count(), 1);
    assert.equal(await scope.locator('input[type="radio"]').count(), 2);
    assert.equal(await scope.locator('legend').innerText(), text('chatScope'));
    assert.deepEqual(await scope.locator('label').allInnerTexts(), [text('chatScopeChat'), text('chatScopeSite', host)]);
    assert.equal(await view.locator('.chat-settings > :first-child').getAttribute('id'), 'chat-scope');
    const words = await view.innerText();
    for (const old of OLD[lang]) assert.ok(!words.includes(old), `${lang}: "${old}" still in This chat:\n${words}`);
    assert.equal(await view.locator('#chat-only-this, #chat-switches-site, #chat-source').count(), 0);

    // Nothing set yet: the whole site. A server picked and auto-run switched on land in the
    // site: the other conversation of the site has them too, neither has settings of its own.
    assert.equal(await scope.getAttribute('data-scope'), 'site');
    assert.equal(await panel.locator('#chat-scope-site').isChecked(), true);
    assert.equal(await panel.locator('#chat-scope-note').innerText(), text('chatScopeSiteNote', host));
    await view.locator(`.chat-servers li[data-server="${rig.serverId}"] input`).check();
    await until(async () => (await get(other)).serverIds.includes(rig.serverId), { what: 'the pick to reach the site' });
    await view.locator('#chat-auto-execute').check();
    await until(async () => (await get(other)).autoExecute === true, { what: 'auto-run to reach the site' });
    for (const c of [here, other]) assert.equal((await get(c)).source, 'site');

    // This conversation: it starts from the site's values; a change stays in it.
    await panel.locator('#chat-scope-chat').check();
    await view.locator('#chat-scope[data-scope="chat"]').waitFor();
    assert.equal(await panel.locator('#chat-scope-note').innerText(), text('chatScopeChatNote'));
    const own = await get(here);
    assert.deepEqual([own.source, own.serverIds, own.autoExecute], ['chat', [rig.serverId], true]);
    assert.equal(await view.locator('#chat-auto-execute').isChecked(), true);
    await view.locator('#chat-auto-execute').uncheck();
    await until(async () => (await get(here)).autoExecute === false, { what: 'auto-run off in this conversation' });
    const siteNow = await get(other);
    assert.deepEqual([siteNow.source, siteNow.autoExecute], ['site', true], 'the site is unchanged');

    // Back to the whole site: this conversation's own settings are dropped for the site's.
    await panel.locator('#chat-scope-site').check();
    await view.locator('#chat-scope[data-scope="site"]').waitFor();
    const back = await get(here);
    assert.deepEqual([back.source, back.autoExecute], ['site', true]);
    await view.locator('#chat-auto-execute:checked').waitFor();
    for (const c of [here, other]) await c.page.close();
  });
}
