// The JavaScript driver of the core's sign-in state machine (`AuthFlow`, relay-node's
// binding of relay_core::auth::Authorizer) for command-line use: requests through `fetch`,
// and the browser step done by following the authorization endpoint's redirect, which works
// against authorization servers that redirect without a login page (the conformance suite's,
// and test servers). The extension does the browser step with chrome.identity.launchWebAuthFlow.

import { webcrypto } from 'node:crypto';

/** Most actions one sign-in may take (discovery tries a handful of URLs). */
const MAX_STEPS = 64;

/**
 * Carries out the flow's actions until it reports an outcome; resolves on `signedIn`, throws
 * `{kind, message}` on `failed`.
 * @param {any} flow an AuthFlow
 * @param {{ redirectUri: string, timeoutMs?: number,
 *   sign?: (alg: string, input: string) => Promise<string>,
 *   dpop?: { sign: (input: string) => Promise<string> } }} options  `sign` makes a
 *   `private_key_jwt` assertion's base64url signature with the client's key (signer());
 *   `dpop` signs DPoP proofs with the sign-in's proof key (dpopKey()).
 */
export async function drive(flow, { redirectUri, timeoutMs = 15_000, sign, dpop }) {
  for (let step = 0; step < MAX_STEPS; step += 1) {
    const next = flow.poll();
    if (!next) throw { kind: 'auth_state', message: 'the sign-in stopped without an outcome' };
    if (next.type === 'fetch') await perform(flow, next, timeoutMs);
    else if (next.type === 'browser') await browse(flow, next.url, redirectUri, timeoutMs);
    else if (next.type === 'sign') {
      const what = next.key === 'dpop' ? 'DPoP proof' : 'client assertion';
      try {
        let signature;
        if (next.key === 'dpop') {
          if (!dpop || next.alg !== 'ES256') throw new Error('no DPoP key for this algorithm');
          signature = await dpop.sign(next.signingInput);
        } else {
          if (!sign) throw new Error('no signing key is configured');
          signature = await sign(next.alg, next.signingInput);
        }
        flow.send({ type: 'signature', id: next.id, signature }, Date.now());
      } catch (error) {
        const message = `cannot sign the ${what}: ${error?.message ?? error}`;
        flow.send({ type: 'fetchError', id: next.id, message }, Date.now());
      }
    } else if (next.type === 'failed') throw next.error;
    else return next;
  }
  throw { kind: 'auth_state', message: `the sign-in took more than ${MAX_STEPS} steps` };
}

async function perform(flow, action, timeoutMs) {
  let response;
  try {
    response = await fetch(action.url, {
      method: action.method,
      headers: action.headers,
      body: action.body ?? undefined,
      signal: AbortSignal.timeout(timeoutMs),
    });
  } catch (error) {
    const message = String(error?.cause?.message ?? error?.message ?? error);
    flow.send({ type: 'fetchError', id: action.id, message }, Date.now());
    return;
  }
  const body = await response.text();
  const dpopNonce = response.headers.get('dpop-nonce') ?? undefined;
  flow.send({ type: 'response', id: action.id, status: response.status, body, dpopNonce }, Date.now());
}

/** The browser step without a browser: one GET of the authorization URL, whose redirect to
 * the redirect URI carries the code. A page instead of a redirect means a human is needed. */
async function browse(flow, url, redirectUri, timeoutMs) {
  const failed = (message) => flow.send({ type: 'browserError', message }, Date.now());
  let location = null;
  try {
    const response = await fetch(url, { redirect: 'manual', signal: AbortSignal.timeout(timeoutMs) });
    location = response.headers.get('location');
    if (!location) {
      failed(`the authorization endpoint answered HTTP ${response.status} without a redirect`);
      return;
    }
  } catch (error) {
    failed(String(error?.message ?? error));
    return;
  }
  const target = new URL(location, url).href;
  if (!target.startsWith(redirectUri)) {
    failed('the authorization endpoint redirected elsewhere than the redirect URI');
    return;
  }
  flow.send({ type: 'redirect', url: target }, Date.now());
}

/** JWS algorithms WebCrypto can sign with here: ECDSA, whose raw r‖s output is the JWS form. */
const ALGORITHMS = {
  ES256: { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' },
  ES384: { name: 'ECDSA', namedCurve: 'P-384', hash: 'SHA-384' },
};

/**
 * A signer for `drive` from a PKCS#8 PEM private key: the key is imported into WebCrypto
 * (not extractable) and never handed to the core, which only sees signatures.
 * @param {string} pem
 * @param {string} alg
 */
export async function signer(pem, alg) {
  const spec = ALGORITHMS[alg];
  if (!spec) throw new Error(`unsupported assertion algorithm ${alg}`);
  const der = Buffer.from(pem.replace(/-----[^-]+-----/g, '').replace(/\s+/g, ''), 'base64');
  const key = await webcrypto.subtle.importKey('pkcs8', der, { name: spec.name, namedCurve: spec.namedCurve }, false, ['sign']);
  return async (requested, input) => {
    if (requested !== alg) throw new Error(`the key is ${alg}, not ${requested}`);
    const signature = await webcrypto.subtle.sign({ name: spec.name, hash: spec.hash }, key, new TextEncoder().encode(input));
    return Buffer.from(signature).toString('base64url');
  };
}

/**
 * A DPoP proof key (RFC 9449): an ECDSA P-256 pair made in WebCrypto whose private half is not
 * extractable; the core gets the public JWK and asks for signatures of proofs it builds.
 * @returns {Promise<{ jwk: {kty: string, crv: string, x: string, y: string},
 *   sign: (input: string) => Promise<string> }>}
 */
export async function dpopKey() {
  const pair = await webcrypto.subtle.generateKey({ name: 'ECDSA', namedCurve: 'P-256' }, false, ['sign', 'verify']);
  const { kty, crv, x, y } = await webcrypto.subtle.exportKey('jwk', pair.publicKey);
  return {
    jwk: { kty, crv, x, y },
    sign: async (input) => {
      const signature = await webcrypto.subtle.sign({ name: 'ECDSA', hash: 'SHA-256' }, pair.privateKey, new TextEncoder().encode(input));
      return Buffer.from(signature).toString('base64url');
    },
  };
}

/** 32 bytes from the platform's CSPRNG, the flow's seed. */
export function seed() {
  return webcrypto.getRandomValues(new Uint8Array(32));
}
