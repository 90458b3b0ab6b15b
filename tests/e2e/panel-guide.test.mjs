// The side panel's first-run guide, walked as a newcomer walks it, in English and in Chinese: no
// server → add one (its button opens the form); a server but no chat → open a chat site; a chat
// without servers → pick them in This chat; not inserted → Insert (its button writes the
// instructions into the chat's input); then ready. Closing it is kept (a reopened panel has no
// guide). The tools' "Details & run" button is labelled in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, startProcess, until, ok, ROOT } from './harness.mjs';

const messages = (lang) => JSON.parse(readFileSync(join(ROOT, '_locales', lang, 'messages.json'), 'utf8'));

for (const lang of ['en', 'zh_CN']) {
  test(`${lang}: the guide leads from no server to a chat ready to send, and stays closed once closed`, async (t) => {
    const m = messages(lang);
    const text = (key) => m[key].message;
    const ext = await launchExtension();
    const server = await startProcess(process.env.RELAY_DEMO_SERVER, ['--port', '0'], { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
    const site = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
    t.after(async () => { await ext.close(); await server.stop(); await site.close(); });

    const setup = await openExtensionPage(ext, 'www/panel.html');
    const settings = await ok(await coreCall(setup, { type: 'settings/get' }));
    await ok(await coreCall(setup, { type: 'settings/set', settings: { ...settings, language: lang } }));
    // The demo chat is a local page: added as a site (Settings), as a user adds a self-hosted chat.
    await ok(await coreCall(setup, { type: 'sites/add', origin: site.origin, adapter: 'generic' }));
    await setup.close();

    const panel = await openExtensionPage(ext, 'www/panel.html');
    await panel.setViewportSize({ width: 400, height: 900 });
    const guide = panel.locator('#guide');
    const atStep = async (step) => {
      await panel.locator(`#guide[data-step="${step}"]`).waitFor({ timeout: 10_000 });
      assert.equal(await panel.locator('#guide-text').innerText(), text('guide_' + step));
    };

    await atStep('addServer');
    assert.equal(await panel.locator('#guide-progress').innerText(), text('guideProgress').replace('$N$', '1').replace('$TOTAL$', '4'));
    await panel.click('#guide-add');
    const dialog = panel.locator('dialog.server-dialog');
    await dialog.locator('input[name="name"]').fill('demo');
    await dialog.locator('input[name="url"]').fill(server.match[1]);
    await dialog.locator('button[type="submit"]').click();
    await panel.locator('#view-servers li.server[data-status="connected"]').waitFor({ timeout: 15_000 });

    await atStep('openChat');
    const chat = await ext.context.newPage();
    await chat.goto(site.origin + '/');
    await chat.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });

    await atStep('pickServers');
    await panel.bringToFront();
    await panel.click('#guide-chat');
    await panel.locator('#tab-chat[aria-selected="true"]').waitFor();
    await panel.locator('#view-chat .chat-servers input[type="checkbox"]').first().check();

    await atStep('insert');
    await panel.click('#guide-insert');
    await until(async () => (await chat.locator('#input').inputValue()).includes('"arguments"'), { what: 'the instructions in the chat input' });
    await atStep('ready');
    assert.equal(await panel.locator('#guide-progress').innerText(), text('guideAllSet'));

    // Closed, it stays closed: in the core's settings and in a panel opened later.
    assert.equal(await panel.locator('#guide-dismiss').getAttribute('aria-label'), text('guideDismiss'));
    await panel.click('#guide-dismiss');
    assert.equal(await guide.isHidden(), true);
    await until(async () => (await ok(await coreCall(panel, { type: 'settings/get' }))).guideDismissed === true, { what: 'the closing to be kept' });
    const again = await openExtensionPage(ext, 'www/panel.html');
    await again.locator('#core-status[data-state="ready"]').waitFor({ timeout: 10_000 });
    await again.locator('#view-servers li.server').first().waitFor();
    // The guide has mounted and read the settings: it stays hidden.
    await again.locator('#guide[data-dismissed="true"]').waitFor({ state: 'attached', timeout: 10_000 });
    assert.equal(await again.locator('#guide').isHidden(), true);
    assert.equal(await again.locator('#guide-text').count(), 0);

    // Run by hand is behind a labelled button, not a bare "+".
    await again.click('#tab-tools');
    const more = again.locator('li.tool button.more').first();
    await more.waitFor({ timeout: 10_000 });
    assert.match(await more.innerText(), new RegExp('^' + text('toolDetailsRun')));
    assert.match(await more.getAttribute('aria-label'), new RegExp('^' + text('toolDetailsRun')));
    await more.click();
    assert.equal(await more.getAttribute('aria-expanded'), 'true');
  });
}
