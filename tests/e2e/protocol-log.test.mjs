// A server's protocol log in the side panel: a server behind MCP authorization, signed in
// through the real flow (tests/e2e/oauth-server.mjs), with a configured API-key header. Its log
// shows the requests, statuses and messages, and neither the OAuth access token nor the header
// secret appears anywhere: not in the panel, not in the exported JSON (en and zh_CN).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launchExtension, openExtensionPage, coreCall, until } from './harness.mjs';
import { startOAuthServer } from './oauth-server.mjs';

const API_KEY = 'sk-test-5f0e1d2c3b4a';
let ext, oauth, panel, serverId;

async function core(message) {
  const answer = await coreCall(panel, message);
  assert.equal(answer.ok, true, `${message.type}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}
const row = () => panel.locator(`li.server[data-id="${serverId}"]`);

before(async () => {
  ext = await launchExtension();
  oauth = await startOAuthServer();
  panel = await openExtensionPage(ext, 'www/panel.html');
  await panel.locator('#core-status[data-state="ready"]').waitFor({ timeout: 10_000 });
  const view = await core({ type: 'servers/add', server: { name: 'Notes (OAuth)', url: oauth.url, headers: [{ name: 'X-Api-Key', value: API_KEY }] } });
  serverId = view.id;
  await row().locator('button[data-action="sign-in"]').click();
  await until(async () => (await row().getAttribute('data-status')) === 'connected', { timeoutMs: 30_000, what: 'signed in and connected' });
  await core({ type: 'tools/list', serverId, refresh: true });
});
after(async () => {
  await ext?.close();
  await oauth?.close();
});

/** Every secret the log must not show: the header's, and each token the server issued. */
const secrets = () => [API_KEY, ...oauth.state.access, ...oauth.state.refresh];

const TEXT = { en: 'Protocol log', zh_CN: '协议日志' };

for (const lang of ['en', 'zh_CN']) {
  test(`the protocol log shows the exchange with the header secret and the OAuth token masked (${lang})`, async () => {
    await core({ type: 'settings/set', settings: { ...(await core({ type: 'settings/get' })), language: lang } });
    await panel.reload();
    await panel.locator('#core-status[data-state="ready"]').waitFor();
    assert.ok(oauth.state.access.size > 0, 'a token was issued');
    const log = row().locator('details.wire-log');
    assert.equal(await log.locator(':scope > summary').textContent(), TEXT[lang]);
    await log.locator(':scope > summary').click();
    // Requests out, statuses and messages back: the tools/list with its answer among them.
    const request = log.locator('li.wire-entry[data-kind="request"]', { hasText: 'tools/list' }).last();
    await request.waitFor({ timeout: 10_000 });
    const exchange = await request.getAttribute('data-exchange');
    await log.locator(`li.wire-entry[data-kind="status"][data-exchange="${exchange}"]`).waitFor();
    await log.locator(`li.wire-entry[data-kind="message"][data-exchange="${exchange}"]`).waitFor();
    await request.locator('.wire-headers summary').click();
    const headers = await request.locator('.wire-headers pre').textContent();
    assert.match(headers, /^authorization: Bearer ••••$/im);
    assert.match(headers, /^x-api-key: ••••$/im);
    const shown = await log.textContent();
    for (const secret of secrets()) assert.ok(!shown.includes(secret), `the panel shows a secret: ${secret.slice(0, 6)}…`);

    // The export is the same log as JSON, as masked.
    const download = panel.waitForEvent('download');
    await log.locator('button[data-action="wire-export"]').click();
    const file = readFileSync(await (await download).path(), 'utf8');
    const exported = JSON.parse(file);
    assert.equal(exported.server.id, serverId);
    assert.ok(exported.entries.some((e) => e.kind === 'request' && /tools\/list/.test(e.text || '')), 'the export has the requests');
    assert.ok(exported.entries.some((e) => e.kind === 'status' && e.status === 200));
    for (const secret of secrets()) assert.ok(!file.includes(secret), `the export holds a secret: ${secret.slice(0, 6)}…`);
  });
}

test('Clear empties the log; a server nobody configured has none', async () => {
  const log = row().locator('details.wire-log');
  if (!(await log.evaluate((d) => d.open))) await log.locator(':scope > summary').click();
  await log.locator('button[data-action="wire-clear"]').click();
  await until(async () => (await core({ type: 'servers/log', id: serverId })).length === 0, { what: 'the log emptied' });
  await log.locator('li.empty').waitFor();
  const missing = await coreCall(panel, { type: 'servers/log', id: 'nope' });
  assert.equal(missing.ok, false);
  assert.equal(missing.error.kind, 'invalid_argument');
});
