// An MCP server behind MCP authorization, for the sign-in tests: one process-local HTTP server
// on 127.0.0.1 (port chosen by the OS) that is both the protected resource (`/mcp`, Streamable
// HTTP answered as JSON) and its authorization server (RFC 9728 and RFC 8414 metadata, dynamic
// registration, an authorization endpoint that redirects at once, as a signed-in user's
// browser sees it, PKCE S256 checked, refresh tokens, revocation). What the tests look at is
// in `state`: registrations, grants, tokens issued and revoked, and the Authorization of each
// MCP request. `/introspect` (RFC 7662) lets a resource server in another process (the Python
// SDK's, tests/interop/servers/py_auth_server.py) check the tokens it issued.
//
// With `dpop`, tokens are DPoP-bound (RFC 9449): the metadata lists ES256, the token endpoint
// wants a proof and issues `token_type: DPoP` bound to the proof key's thumbprint, and `/mcp`
// wants `Authorization: DPoP` with a proof whose signature (WebCrypto, with the JWK it carries),
// typ, alg, htm, htu, iat, jti (never seen before), ath and key are checked for real; with
// `dpopNonce` both also want their nonce (`use_dpop_nonce` with `DPoP-Nonce`, RFC 9449 §8, §9).
import http from 'node:http';
import { createHash, randomBytes, webcrypto } from 'node:crypto';

/** @param {string} s */
const b64url = (s) => createHash('sha256').update(s).digest('base64url');
const token = () => randomBytes(18).toString('base64url');

/** The RFC 7638 SHA-256 thumbprint of an EC public JWK. */
const thumbprint = (jwk) => createHash('sha256').update(JSON.stringify({ crv: jwk.crv, kty: jwk.kty, x: jwk.x, y: jwk.y })).digest('base64url');

/**
 * Checks a DPoP proof (RFC 9449 §4.3); resolves with `{jkt}` or `{error}`.
 * @param {string | undefined} proof
 * @param {{method: string, url: string, token?: string, nonce?: string, jtis: Set<string>}} expected
 */
async function checkProof(proof, { method, url, token: accessToken, nonce, jtis }) {
  if (!proof || proof.includes(',')) return { error: 'exactly one DPoP proof is needed' };
  const [h, p, sig] = proof.split('.');
  let header;
  let claims;
  try {
    header = JSON.parse(Buffer.from(h, 'base64url').toString());
    claims = JSON.parse(Buffer.from(p, 'base64url').toString());
  } catch {
    return { error: 'not a JWT' };
  }
  if (header.typ !== 'dpop+jwt' || header.alg !== 'ES256') return { error: 'typ/alg' };
  if (!header.jwk || header.jwk.d !== undefined || header.jwk.crv !== 'P-256') return { error: 'jwk' };
  const key = await webcrypto.subtle.importKey('jwk', header.jwk, { name: 'ECDSA', namedCurve: 'P-256' }, false, ['verify']);
  const valid = await webcrypto.subtle.verify({ name: 'ECDSA', hash: 'SHA-256' }, key, Buffer.from(sig ?? '', 'base64url'), new TextEncoder().encode(`${h}.${p}`));
  if (!valid) return { error: 'signature' };
  if (claims.htm !== method) return { error: 'htm' };
  if (claims.htu !== url) return { error: `htu ${claims.htu} is not ${url}` };
  if (typeof claims.iat !== 'number' || Math.abs(Date.now() / 1000 - claims.iat) > 300) return { error: 'iat' };
  if (typeof claims.jti !== 'string' || jtis.has(claims.jti)) return { error: 'jti missing or replayed' };
  if (accessToken !== undefined && claims.ath !== b64url(accessToken)) return { error: 'ath' };
  if (nonce !== undefined && claims.nonce !== nonce) return { error: 'use_dpop_nonce' };
  jtis.add(claims.jti);
  return { jkt: thumbprint(header.jwk) };
}

/**
 * @param {{expiresIn?: number, dpop?: boolean, dpopNonce?: boolean}} [options] seconds an access
 *   token lives; DPoP-bound tokens; DPoP nonces required by both servers
 */
export async function startOAuthServer({ expiresIn = 3600, dpop = false, dpopNonce = false } = {}) {
  const state = {
    registrations: /** @type {any[]} */ ([]),
    grants: /** @type {string[]} */ ([]),
    authorize: /** @type {Record<string, string>[]} */ ([]),
    access: new Set(),
    refresh: new Set(),
    revoked: /** @type {string[]} */ ([]),
    mcpAuthorization: /** @type {(string | undefined)[]} */ ([]),
    calls: 0,
    refused: 0,
    /** the JSON-RPC method of every accepted MCP request, in order */
    methods: /** @type {string[]} */ ([]),
    expiresIn,
    /** DPoP: every proof checked, `{where, htm, ok, error?, nonce?}` */
    proofs: /** @type {any[]} */ ([]),
  };
  /** DPoP: access token → the thumbprint of the key it is bound to; seen jtis; nonces */
  const bound = new Map();
  const jtis = new Set();
  const nonces = { as: dpopNonce ? `as-${token()}` : undefined, rs: dpopNonce ? `rs-${token()}` : undefined };
  /** code → {verifier challenge, client, redirect} */
  const codes = new Map();
  let base = '';

  const json = (res, status, body, headers = {}) => {
    const text = JSON.stringify(body);
    res.writeHead(status, { 'content-type': 'application/json', 'access-control-allow-origin': '*', 'access-control-expose-headers': 'DPoP-Nonce, WWW-Authenticate', ...headers });
    res.end(text);
  };
  /** access token → what introspection says of it (RFC 7662) */
  const issued = new Map();
  const issue = (res, scope, resource, client, jkt) => {
    const access = token();
    const refresh = token();
    state.access.add(access);
    issued.set(access, { scope, aud: resource, client_id: client, exp: Math.floor(Date.now() / 1000) + state.expiresIn });
    state.refresh.add(refresh);
    if (jkt) bound.set(access, jkt);
    const type = jkt ? 'DPoP' : 'Bearer';
    json(res, 200, { access_token: access, token_type: type, expires_in: state.expiresIn, refresh_token: refresh, scope });
  };

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url || '/', base);
    let body = '';
    for await (const chunk of req) body += chunk;
    const form = new URLSearchParams(body);
    const route = `${req.method} ${url.pathname}`;
    switch (route) {
      case 'GET /.well-known/oauth-protected-resource/mcp':
        return json(res, 200, { resource: `${base}/mcp`, authorization_servers: [base], scopes_supported: ['notes:read'] });
      case 'GET /.well-known/oauth-authorization-server':
        return json(res, 200, {
          issuer: base,
          authorization_endpoint: `${base}/authorize`,
          token_endpoint: `${base}/token`,
          registration_endpoint: `${base}/register`,
          revocation_endpoint: `${base}/revoke`,
          response_types_supported: ['code'],
          grant_types_supported: ['authorization_code', 'refresh_token'],
          code_challenge_methods_supported: ['S256'],
          token_endpoint_auth_methods_supported: ['none'],
          scopes_supported: ['notes:read', 'offline_access'],
          ...(dpop ? { dpop_signing_alg_values_supported: ['ES256'] } : {}),
        });
      case 'POST /register': {
        const meta = JSON.parse(body || '{}');
        state.registrations.push(meta);
        return json(res, 201, { ...meta, client_id: `client-${state.registrations.length}` });
      }
      case 'GET /authorize': {
        const q = Object.fromEntries(url.searchParams);
        state.authorize.push(q);
        const registered = state.registrations.some((r) => (r.redirect_uris || []).includes(q.redirect_uri));
        if (!registered || q.code_challenge_method !== 'S256' || !q.code_challenge) {
          res.writeHead(400).end('bad authorization request');
          return;
        }
        const code = token();
        codes.set(code, { challenge: q.code_challenge, client: q.client_id, redirect: q.redirect_uri, scope: q.scope });
        const back = new URL(q.redirect_uri);
        back.searchParams.set('code', code);
        back.searchParams.set('state', q.state);
        back.searchParams.set('iss', base);
        res.writeHead(302, { location: back.href }).end();
        return;
      }
      case 'POST /token': {
        const grant = form.get('grant_type') || '';
        state.grants.push(grant);
        let jkt;
        if (dpop) {
          const checked = await checkProof(req.headers.dpop, { method: 'POST', url: `${base}/token`, nonce: nonces.as, jtis });
          state.proofs.push({ where: 'token', grant, ok: !checked.error, error: checked.error });
          if (checked.error === 'use_dpop_nonce') {
            return json(res, 400, { error: 'use_dpop_nonce' }, { 'dpop-nonce': nonces.as });
          }
          if (checked.error) return json(res, 400, { error: 'invalid_dpop_proof', error_description: checked.error });
          jkt = checked.jkt;
        }
        if (grant === 'authorization_code') {
          const c = codes.get(form.get('code'));
          codes.delete(form.get('code'));
          const verifier = form.get('code_verifier') || '';
          if (!c || c.redirect !== form.get('redirect_uri') || b64url(verifier) !== c.challenge) {
            return json(res, 400, { error: 'invalid_grant' });
          }
          return issue(res, c.scope || 'notes:read', form.get('resource'), c.client, jkt);
        }
        if (grant === 'refresh_token' && state.refresh.has(form.get('refresh_token'))) {
          state.refresh.delete(form.get('refresh_token'));
          return issue(res, 'notes:read', form.get('resource'), form.get('client_id'), jkt);
        }
        return json(res, 400, { error: 'invalid_grant' });
      }
      case 'POST /introspect': {
        // For resource servers in other processes (the Python SDK's token verifier).
        const t = form.get('token') || '';
        const info = issued.get(t);
        return json(res, 200, state.access.has(t) && info ? { active: true, ...info } : { active: false });
      }
      case 'POST /revoke': {
        const t = form.get('token') || '';
        state.revoked.push(t);
        state.refresh.delete(t);
        state.access.clear();
        return json(res, 200, {});
      }
      case 'POST /mcp': {
        const authorization = req.headers.authorization;
        state.mcpAuthorization.push(authorization);
        const scheme = dpop ? /^DPoP / : /^Bearer /;
        const bearer = scheme.test(authorization ?? '') ? authorization.replace(scheme, '') : undefined;
        if (dpop && bearer && state.access.has(bearer)) {
          const checked = await checkProof(req.headers.dpop, { method: 'POST', url: `${base}/mcp`, token: bearer, nonce: nonces.rs, jtis });
          state.proofs.push({ where: 'mcp', ok: !checked.error, error: checked.error });
          if (checked.error === 'use_dpop_nonce') {
            state.refused += 1;
            return json(res, 401, { error: 'use_dpop_nonce' }, {
              'www-authenticate': `DPoP error="use_dpop_nonce", algs="ES256"`,
              'dpop-nonce': nonces.rs,
            });
          }
          if (checked.error || checked.jkt !== bound.get(bearer)) {
            state.refused += 1;
            return json(res, 401, { error: 'invalid_token' }, {
              'www-authenticate': `DPoP error="invalid_token", algs="ES256", resource_metadata="${base}/.well-known/oauth-protected-resource/mcp"`,
            });
          }
        }
        if (!bearer || !state.access.has(bearer)) {
          state.refused += 1;
          res.writeHead(401, {
            'www-authenticate': `${dpop ? 'DPoP algs="ES256",' : 'Bearer'} resource_metadata="${base}/.well-known/oauth-protected-resource/mcp", scope="notes:read"`,
            'content-type': 'application/json',
          });
          res.end(JSON.stringify({ error: 'unauthorized' }));
          return;
        }
        const m = JSON.parse(body);
        state.methods.push(m.method);
        if (m.id === undefined) return void res.writeHead(202).end();
        if (m.method === 'initialize') {
          return json(res, 200, { jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'oauth-notes', version: '1.0.0' } } });
        }
        if (m.method === 'tools/list') {
          return json(res, 200, { jsonrpc: '2.0', id: m.id, result: { tools: [{ name: 'whoami', description: 'Who the token belongs to.', inputSchema: { type: 'object', properties: {} } }] } });
        }
        if (m.method === 'tools/call') {
          state.calls += 1;
          return json(res, 200, { jsonrpc: '2.0', id: m.id, result: { content: [{ type: 'text', text: 'signed in as ada' }] } });
        }
        return json(res, 200, { jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'unknown method' } });
      }
      case 'DELETE /mcp':
        return void res.writeHead(405).end();
      case 'GET /mcp':
        return void res.writeHead(405).end();
      default:
        res.writeHead(404).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(undefined)));
  const address = /** @type {import('node:net').AddressInfo} */ (server.address());
  base = `http://127.0.0.1:${address.port}`;
  return {
    url: `${base}/mcp`,
    base,
    state,
    /** Every access token stops working (as when the server restarts); refresh tokens stay. */
    dropAccessTokens() {
      state.access.clear();
    },
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve(undefined)); }),
  };
}
