// @ts-check
// MCP Relay's second module: `relayRare(call)` for the core (relay-wasm binds it). Work that
// runs rarely (a sign-in's flow, relay_core::rare) lives in a module of its own, so the worker's
// start-up module stays small: this one is fetched, compiled and instantiated on the first call
// only, once per worker life. Its glue is imported statically (a module service worker has no
// import()); nothing here decides anything: the core builds every call and reads every reply.
import initRare, { serve } from './pkg/relay_rare.js';

/** @type {Promise<unknown> | null} */
let loading = null;

/**
 * The second module's reply to one call: plain objects for the core, JSON text for the second
 * module (whose glue, imported on every start, then only passes strings). A module that failed
 * to load is loaded again on the next call; the error reaches the core, which tells the user.
 * @param {unknown} call
 * @returns {Promise<unknown>}
 */
async function relayRare(call) {
  if (!loading) {
    loading = initRare({ module_or_path: new URL('./pkg/relay_rare_bg.wasm', import.meta.url) });
    loading.catch(() => { loading = null; });
  }
  await loading;
  return JSON.parse(serve(JSON.stringify(call)));
}

Object.defineProperty(globalThis, 'relayRare', { value: relayRare });
