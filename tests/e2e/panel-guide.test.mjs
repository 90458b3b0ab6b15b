// The side panel's first-run guide, walked as a newcomer walks it, in English and in Chinese: no
// server → add one (its button opens the form); a server that failed keeps step 1, with its
// error and what to do; a connected server but no chat → open a chat site; a chat without
// servers → pick them in This chat (no button to open This chat once there); not inserted →
// Insert (its button writes the instructions into the chat's input); then one short "ready"
// line that leaves at the next view and stays gone (a reopened panel has no guide). The tools'
// "Details & run" button is labelled in words.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, startProcess, until, ok, ROOT } from './harness.mjs';

const messages = (lang) => JSON.parse(readFileSync(join(ROOT, '_locales', lang, 'messages.json'), 'utf8'));
/** A message with its fill-ins, as chrome.i18n puts them. */
const fill = (message, ...values) => { let i = 0; return message.replace(/\$[A-Z_]+\$/g, () => values[i++] ?? ''); };
const OFFLINE = 'http://127.0.0.1:9/mcp';

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
    const stepOne = text('guideProgress').replace('$N$', '1').replace('$TOTAL$', '4');
    assert.equal(await panel.locator('#guide-progress').innerText(), stepOne);

    // The only server fails: still step 1, saying which server, why and what to do; the way to
    // Servers is offered from another view, not on Servers itself.
    await panel.click('#tab-settings');
    const offline = await ok(await coreCall(panel, { type: 'servers/add', server: { name: 'Offline', url: OFFLINE } }));
    await panel.locator('#guide[data-step="addServer"][data-server="failed"][data-view="settings"]').waitFor({ timeout: 30_000 });
    assert.equal(await panel.locator('#guide-progress').innerText(), stepOne);
    const said = await panel.locator('#guide-text').innerText();
    assert.ok(said.startsWith(fill(text('guideServerFailed'), 'Offline', '')), said);
    assert.ok(said.length > fill(text('guideServerFailed'), 'Offline', '').length + 3, `the error is said: ${said}`);
    assert.ok((await panel.locator('#guide-advice').innerText()).length > 0, 'what to do');
    await panel.click('#guide-servers');
    await panel.locator('#guide[data-server="failed"][data-view="servers"]').waitFor();
    assert.equal(await panel.locator('#guide-servers').count(), 0, 'no button to open the view shown');
    await ok(await coreCall(panel, { type: 'servers/remove', id: offline.id }));
    await panel.locator('#guide[data-step="addServer"][data-server=""]').waitFor({ timeout: 10_000 });

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
    // On This chat the guide says what to do there, without a button to open it.
    await panel.locator('#guide[data-step="pickServers"][data-view="chat"]').waitFor();
    assert.equal(await panel.locator('#guide-chat').count(), 0, 'no "Open This chat" on This chat');
    await panel.locator('#view-chat .chat-servers input[type="checkbox"]').first().check();

    await atStep('insert');
    await panel.click('#guide-insert');
    await until(async () => (await chat.locator('#input').inputValue()).includes('"arguments"'), { what: 'the instructions in the chat input' });
    await atStep('ready');
    // Ready is one short line (two at most in a 400 px panel): no steps, no buttons but close.
    const { height } = await guide.boundingBox();
    const line = await panel.locator('#guide-text').evaluate((el) => parseFloat(getComputedStyle(el).lineHeight) || 18);
    assert.ok(height <= 2 * line + 20, `the ready line is ${height} px high (a line is ${line} px)`);
    assert.equal(await panel.locator('#guide-progress').count(), 0);
    assert.deepEqual(await guide.locator('button').evaluateAll((bs) => bs.map((b) => b.id)), ['guide-dismiss']);
    assert.equal(await panel.locator('#guide-dismiss').getAttribute('aria-label'), text('guideDismiss'));
    // Seen once is enough: the guide's end is kept at once, and the line goes with the next view.
    await until(async () => (await ok(await coreCall(panel, { type: 'settings/get' }))).guideDismissed === true, { what: 'the end to be kept' });
    await panel.click('#tab-activity');
    await panel.locator('#guide[data-dismissed="true"]').waitFor({ state: 'attached' });
    assert.equal(await guide.isHidden(), true);
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
