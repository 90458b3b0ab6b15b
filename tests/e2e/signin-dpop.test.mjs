// Signing in to an MCP server whose authorization server issues DPoP-bound tokens (RFC 9449,
// SEP-1932), end to end: real Chromium, the core in the service worker, an ECDSA P-256 key made
// with WebCrypto and kept in IndexedDB, and tests/e2e/oauth-server.mjs checking every proof for
// real (signature with the JWK in it, htm, htu, iat, jti never replayed, ath, the key the token
// is bound to) and wanting its nonce on both servers (`use_dpop_nonce` + `DPoP-Nonce`). The user
// presses Sign in; tools are listed and called with `Authorization: DPoP`; a worker restart keeps
// the token usable (the key comes back from IndexedDB); the private key is never readable.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension, openExtensionPage, coreCall, until } from './harness.mjs';
import { startOAuthServer } from './oauth-server.mjs';

let ext, oauth, panel, serverId;

async function core(message) {
  const answer = await coreCall(panel, message);
  assert.equal(answer.ok, true, `${message.type}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

const row = () => panel.locator(`li.server[data-id="${serverId}"]`);
const failedProofs = () => oauth.state.proofs.filter((p) => !p.ok && p.error !== 'use_dpop_nonce');

before(async () => {
  ext = await launchExtension();
  oauth = await startOAuthServer({ dpop: true, dpopNonce: true });
  panel = await openExtensionPage(ext, 'www/panel.html');
  await panel.locator('#core-status[data-state="ready"]').waitFor({ timeout: 10_000 });
  const view = await core({ type: 'servers/add', server: { name: 'Notes (DPoP)', url: oauth.url } });
  serverId = view.id;
});
after(async () => {
  await ext?.close();
  await oauth?.close();
});

test('Sign in binds the token to a WebCrypto key: proofs at the token endpoint with its nonce', async () => {
  await row().locator('button[data-action="sign-in"]').click();
  await until(async () => (await row().getAttribute('data-status')) === 'connected', { timeoutMs: 30_000, what: 'the server connected after signing in' });
  const token = oauth.state.proofs.filter((p) => p.where === 'token');
  // The first proof had no nonce; the authorization server asked for one and the same grant
  // came back with it.
  assert.deepEqual(token.map((p) => [p.grant, p.ok, p.error]), [
    ['authorization_code', false, 'use_dpop_nonce'],
    ['authorization_code', true, undefined],
  ]);
  assert.deepEqual(oauth.state.grants, ['authorization_code', 'authorization_code']);
  assert.deepEqual(failedProofs(), []);
  const stored = await ext.sw.evaluate(() => chrome.storage.local.get('auth'));
  const auth = stored.auth[serverId];
  assert.equal(auth.tokens.tokenType, 'DPoP');
  assert.deepEqual(Object.keys(auth.dpopKey).sort(), ['crv', 'kty', 'x', 'y'], 'only the public key is stored with the tokens');
});

test('tools are listed and called with Authorization: DPoP and a fresh proof, after the resource nonce', async () => {
  const mcp = oauth.state.proofs.filter((p) => p.where === 'mcp');
  // The resource server's first proved request was asked for its nonce, then every one passed.
  assert.equal(mcp[0].error, 'use_dpop_nonce');
  assert.ok(mcp.slice(1).length > 0 && mcp.slice(1).every((p) => p.ok), JSON.stringify(mcp));
  const tools = await core({ type: 'tools/list', serverId });
  assert.ok(tools.some((t) => t.name === 'whoami'), JSON.stringify(tools));
  const before = oauth.state.calls;
  const result = await core({ type: 'tools/call', serverId, tool: 'whoami', arguments: {} });
  assert.equal(result.result.content[0].text, 'signed in as ada');
  assert.equal(oauth.state.calls, before + 1, 'the tool ran exactly once');
  const last = oauth.state.mcpAuthorization.at(-1);
  assert.match(last ?? '', /^DPoP /);
  assert.ok(oauth.state.access.has(last.replace(/^DPoP /, '')));
  assert.deepEqual(failedProofs(), [], 'every proof verified (signature, htm, htu, iat, jti, ath, key)');
});

test('the key lives in IndexedDB and cannot be exported', async () => {
  const found = await ext.sw.evaluate(async (id) => {
    const db = await new Promise((resolve, reject) => {
      const r = indexedDB.open('mcp-relay-dpop');
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    const record = await new Promise((resolve, reject) => {
      const r = db.transaction('keys').objectStore('keys').get(id);
      r.onsuccess = () => resolve(r.result);
      r.onerror = () => reject(r.error);
    });
    db.close();
    let exported = 'exported';
    try {
      await crypto.subtle.exportKey('jwk', record.privateKey);
    } catch (error) {
      exported = error.name;
    }
    return { type: record.privateKey.type, extractable: record.privateKey.extractable, algorithm: record.privateKey.algorithm, exported, jwk: record.jwk };
  }, serverId);
  assert.deepEqual(
    { type: found.type, extractable: found.extractable, curve: found.algorithm.namedCurve, exported: found.exported },
    { type: 'private', extractable: false, curve: 'P-256', exported: 'InvalidAccessError' },
  );
  const stored = await ext.sw.evaluate(() => chrome.storage.local.get('auth'));
  assert.equal(found.jwk.x, stored.auth[serverId].dpopKey.x, 'the stored token is bound to this key');
});

test('a worker restart keeps the DPoP-bound token usable', async () => {
  const cdp = await ext.context.newCDPSession(panel);
  await cdp.send('ServiceWorker.enable');
  await cdp.send('ServiceWorker.stopAllWorkers');
  await until(async () => (await coreCall(panel, { type: 'ping' })).ok === true, { timeoutMs: 15_000, what: 'the worker answering again' });
  const calls = oauth.state.calls;
  const grants = oauth.state.grants.length;
  const result = await core({ type: 'tools/call', serverId, tool: 'whoami', arguments: {} });
  assert.equal(result.result.content[0].text, 'signed in as ada');
  assert.equal(oauth.state.calls, calls + 1);
  assert.equal(oauth.state.grants.length, grants, 'no new token was needed');
  assert.equal(oauth.state.authorize.length, 1, 'no new browser step after the restart');
  assert.deepEqual(failedProofs(), []);
});

test('a refused token is refreshed with a proof and the call runs once', async () => {
  oauth.dropAccessTokens();
  const before = { calls: oauth.state.calls, grants: oauth.state.grants.length };
  const result = await core({ type: 'tools/call', serverId, tool: 'whoami', arguments: {} });
  assert.equal(result.result.content[0].text, 'signed in as ada');
  assert.deepEqual(oauth.state.grants.slice(before.grants), ['refresh_token']);
  assert.equal(oauth.state.calls, before.calls + 1, 'the tool ran exactly once');
  const refresh = oauth.state.proofs.filter((p) => p.where === 'token' && p.grant === 'refresh_token');
  assert.deepEqual(refresh.map((p) => p.ok), [true], 'proved, with the nonce it already had');
  assert.deepEqual(failedProofs(), []);
});
