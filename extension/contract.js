// The JavaScript mirror of the message contract. The source of truth is
// crates/relay-core/src/contract.rs; tests/test_contract.rs (in relay-core) fails when the
// names or roles here drift from it.

/** Who may send each message: "page" (side panel, options) and/or "content" (content scripts). */
export const MESSAGES = Object.freeze({
  'ping': ['page', 'content'],
  'servers/list': ['page'],
  'servers/add': ['page'],
  'servers/update': ['page'],
  'servers/remove': ['page'],
  'servers/import': ['page'],
  'servers/export': ['page'],
  'servers/test': ['page'],
  'tools/list': ['page'],
  'tools/policy': ['page'],
  'tools/call': ['page'],
  'prompts/list': ['page'],
  'prompts/get': ['page'],
  'resources/list': ['page'],
  'resources/read': ['page'],
  'chat/get': ['page', 'content'],
  'chat/set': ['page'],
  'prompt/build': ['page', 'content'],
  'chat/insert': ['page'],
  'reply/parse': ['page', 'content'],
  'reply/update': ['content'],
  'activity/list': ['page', 'content'],
  'activity/decide': ['page', 'content'],
  'settings/get': ['page'],
  'settings/set': ['page'],
  'sites/list': ['page'],
  'sites/add': ['page'],
  'sites/remove': ['page'],
  'sites/check': ['page'],
  'sites/adapter': ['content'],
});

/**
 * Sends a message to the core and unwraps the envelope.
 * Resolves with `data`; rejects with an Error carrying `kind` and `hint` from the core.
 * @param {string} type a key of MESSAGES
 * @param {object} [fields]
 */
export async function call(type, fields = {}) {
  const answer = await chrome.runtime.sendMessage({ ...fields, type });
  if (answer && answer.ok) return answer.data;
  const e = (answer && answer.error) || { kind: 'no_answer', message: 'The extension did not answer.' };
  throw Object.assign(new Error(e.message), { kind: e.kind, hint: e.hint });
}
