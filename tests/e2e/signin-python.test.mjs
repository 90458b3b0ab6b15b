// Interop beyond our own servers: a PyPI `mcp` 2.3.0 server (MCPServer with the SDK's
// AuthSettings and a token verifier) behind a local authorization server on another port
// (tests/e2e/oauth-server.mjs, which the SDK's verifier asks through RFC 7662 introspection).
// In real Chromium the user presses Sign in; the sign-in runs through launchWebAuthFlow; the
// SDK accepts the token; then one of its tools asks the user something mid-call (the SDK's
// elicitation resolver, an `input_required` result in 2026-07-28), answered in the side panel.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, startProcess, until, ROOT } from './harness.mjs';
import { freePort, python } from '../interop/lib.mjs';
import { startOAuthServer } from './oauth-server.mjs';

let ext, as, rs, panel, caller, serverId;

async function core(page, message) {
  const answer = await coreCall(page, message);
  assert.equal(answer.ok, true, `${message.type}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

before(async () => {
  as = await startOAuthServer();
  const port = await freePort();
  rs = await startProcess(python(), [join(ROOT, 'tests/interop/servers/py_auth_server.py'), '--port', String(port), '--issuer', as.base],
    { ready: /READY (\S+)/, timeoutMs: 60_000 });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  await panel.locator('#core-status[data-state="ready"]').waitFor({ timeout: 10_000 });
  caller = await openExtensionPage(ext, 'www/panel.html');
  serverId = (await core(panel, { type: 'servers/add', server: { name: 'Python (OAuth)', url: rs.match[1] } })).id;
});
after(async () => {
  await ext?.close();
  await rs?.stop();
  await as?.close();
});

test('the Python SDK refuses without a token, and Sign in gets one it accepts', async () => {
  const [view] = (await core(panel, { type: 'servers/list' })).filter((s) => s.id === serverId);
  assert.equal(view.state.error?.kind, 'auth', JSON.stringify(view.state));
  const row = panel.locator(`li.server[data-id="${serverId}"]`);
  await row.locator('button[data-action="sign-in"]').click();
  await until(async () => (await row.getAttribute('data-status')) === 'connected', { timeoutMs: 30_000, what: 'connected after signing in' });
  // The resource indicator the SDK checks is its own URL.
  assert.equal(as.state.authorize[0].resource, rs.match[1]);
  const result = await core(panel, { type: 'tools/call', serverId, tool: 'whoami', arguments: {} });
  assert.match(result.result.content[0].text, /notes:read/);
  // mcp 2.3.0 speaks 2026-07-28: no session, the token on every request.
  const [connected] = (await core(panel, { type: 'servers/list' })).filter((s) => s.id === serverId);
  assert.equal(connected.state.info.protocolVersion, '2026-07-28');
});

test("the SDK's elicitation mid-call is answered in the panel, with the schema's default", async () => {
  const pending = coreCall(caller, { type: 'tools/call', serverId, tool: 'ask', arguments: {} });
  const q = panel.locator('#questions .question');
  await q.waitFor({ timeout: 15_000 });
  assert.equal(await q.locator('.question-message').textContent(), 'Who is asking?');
  await q.locator('[data-param="name"] input').fill('Ada');
  await q.locator('button[data-action="accept"]').click();
  const answer = await pending;
  assert.equal(answer.ok, true, JSON.stringify(answer.error));
  assert.equal(answer.data.result.content[0].text, 'accept: Ada likes blue');
});
