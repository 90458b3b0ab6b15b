// @ts-check
// The native host's port: `relayNative(request)` for the core (relay-wasm binds it). Chrome
// starts the host (`com.mcp_relay.host`, registered by the release zip's install-host script or
// `cargo xtask install-host`) on the first request; the port then stays open while it is used
// and is closed after IDLE_MS without a request, which makes the host stop its servers and exit. Requests get their id here; the
// host's answers are matched by it. Nothing here decides anything: the core builds every
// request and reads every answer.

const HOST = 'com.mcp_relay.host';
// The host reads at most 64 KiB per message; larger ones are refused here already.
const MAX_REQUEST = 60 * 1024;
const IDLE_MS = 10 * 60_000;

/** @type {chrome.runtime.Port | null} */
let port = null;
let nextId = 1;
/** @type {Map<number, {resolve: (v: unknown) => void, reject: (e: Error) => void}>} */
const waiting = new Map();
/** @type {ReturnType<typeof setTimeout> | undefined} */
let idle;

function connect() {
  const p = chrome.runtime.connectNative(HOST);
  p.onMessage.addListener((/** @type {any} */ msg) => {
    const entry = msg && typeof msg.id === 'number' ? waiting.get(msg.id) : undefined;
    if (!entry) return; // a status event, or an answer nobody waits for
    waiting.delete(msg.id);
    entry.resolve(msg);
  });
  p.onDisconnect.addListener(() => {
    const why = (chrome.runtime.lastError && chrome.runtime.lastError.message) || 'the native host closed the port';
    if (port === p) port = null;
    for (const entry of waiting.values()) entry.reject(new Error(why));
    waiting.clear();
  });
  return p;
}

/**
 * One request to the native host, answered with the host's `{id, ok, data | error}`.
 * @param {Record<string, unknown>} request
 * @returns {Promise<unknown>}
 */
function relayNative(request) {
  return new Promise((resolve, reject) => {
    const id = nextId++;
    const message = { ...request, id };
    if (JSON.stringify(message).length > MAX_REQUEST) {
      reject(new Error(`the request is larger than the local host accepts (${MAX_REQUEST} bytes)`));
      return;
    }
    try {
      port ??= connect();
      waiting.set(id, { resolve, reject });
      port.postMessage(message);
    } catch (e) {
      waiting.delete(id);
      reject(e instanceof Error ? e : new Error(String(e)));
      return;
    }
    clearTimeout(idle);
    idle = setTimeout(() => { port?.disconnect(); port = null; }, IDLE_MS);
  });
}

Object.defineProperty(globalThis, 'relayNative', { value: relayNative });
