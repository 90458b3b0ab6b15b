// Attack: code in the content script's world (a compromised content script, or a page that
// found a way into it) reads the user's server credentials: straight from chrome.storage, or
// through any message a content script may send. Promise (SECURITY.md, "secrets"): secrets live
// only in the worker and the side panel; storage is closed to content scripts
// (TRUSTED_CONTEXTS) and no answer to a content script carries them. Also: the side panel shows
// every secret-looking header (and every header the user marked secret) masked.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from '../e2e/harness.mjs';
import { MESSAGES } from '../../extension/contract.js';
import {
  ok, openExtensionPage, coreCall, startMcpServer, chatSite, openChat, appendReply, fencedCall,
  waitForCall, asContent, inContentWorld, allText,
} from './lib.mjs';

const SECRETS = ['SEKRET-BEARER', 'SEKRET-CUSTOM', 'SEKRET-MARKED'];
const HEADERS = [
  { name: 'Authorization', value: `Bearer ${SECRETS[0]}` },
  { name: 'X-Custom-Auth', value: SECRETS[1] },
  { name: 'X-Other', value: SECRETS[2], secret: true },
];

let ext, server, site, panel, serverId, chatTab;

before(async () => {
  server = await startMcpServer({
    name: 'with-credentials',
    tools: [{ name: 'lookup', description: 'Looks something up.', inputSchema: { type: 'object', properties: { q: { type: 'string' } } }, run: (a) => ({ text: `found ${a.q}` }) }],
  });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  serverId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'credentials', url: server.url, headers: HEADERS } })).id;
  ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'lookup', policy: 'allow' }));
  site = await chatSite(ext, panel);
  chatTab = await openChat(ext, panel, site, { serverIds: [serverId], autoExecute: true, autoSubmit: false });
  // One call in the ledger, so activity and decisions have something to answer with.
  await appendReply(chatTab.page, fencedCall('lookup', { q: 'x' }));
  await waitForCall(panel, chatTab.chat, (c) => c.tool === 'lookup' && c.state === 'done', 'the lookup call to run');
});

after(async () => {
  await ext?.close();
  await site?.close();
  await server?.close();
});

test('the configured headers really reach the server (the secrets exist)', () => {
  const seen = server.requests.find((r) => r.rpc === 'tools/call')?.headers ?? {};
  assert.equal(seen.authorization, HEADERS[0].value);
  assert.equal(seen['x-custom-auth'], HEADERS[1].value);
  assert.equal(seen['x-other'], HEADERS[2].value);
});

test('content scripts cannot read the extension\'s storage', async () => {
  const read = await inContentWorld(ext, chatTab.tabId, async () => {
    const out = {};
    for (const area of ['local', 'session']) {
      try {
        out[area] = { value: JSON.stringify(await chrome.storage[area].get(null)) };
      } catch (e) {
        out[area] = { error: String(e && e.message || e) };
      }
    }
    return out;
  });
  for (const area of ['local', 'session']) {
    for (const secret of SECRETS) {
      assert.ok(!(read[area].value ?? '').includes(secret), `chrome.storage.${area} gave a content script the secret ${secret}`);
    }
    assert.ok(read[area].error, `chrome.storage.${area}.get from a content script must fail, got ${(read[area].value ?? '').slice(0, 120)}…`);
  }
});

test('no message a content script can send answers with a secret', async () => {
  const [rec] = ok(await coreCall(panel, { type: 'activity/list', chat: chatTab.chat }));
  // Plausible fields for every message of the contract (harmless ones where a message changes
  // something, in case a later contract admits it from content); refused ones must say nothing
  // either.
  const fields = {
    'servers/add': { server: { name: 'x', url: server.url } },
    'servers/update': { server: { id: serverId } },
    'servers/remove': { id: 'nope' },
    'servers/import': { json: '{"mcpServers":{}}' },
    'servers/test': { id: serverId },
    'tools/list': { serverId },
    'tools/policy': { serverId },
    'tools/call': { serverId, tool: 'lookup', arguments: { q: 'y' } },
    'prompts/list': { serverId },
    'prompts/get': { serverId, name: 'p' },
    'resources/list': { serverId },
    'resources/read': { serverId, uri: 'x://y' },
    'prompt/build': { serverIds: [serverId] },
    'reply/parse': { text: fencedCall('lookup', { q: 'z' }) },
    'page/observe': { page: 'probe', turns: [] },
    'activity/decide': { key: rec.key, decision: 'deny' },
    'chat/set': { settings: { serverIds: [serverId] } },
    'chat/insert': { text: 'x' },
    'sites/add': { origin: 'https://example.invalid' },
    'sites/remove': { origin: 'https://example.invalid' },
  };
  const leaks = [];
  for (const type of Object.keys(MESSAGES)) {
    const answer = await asContent(ext, chatTab.tabId, { type, ...(fields[type] || {}) });
    assert.ok(answer && typeof answer.ok === 'boolean', `${type} answered an envelope`);
    const text = allText(answer);
    for (const secret of SECRETS) if (text.includes(secret)) leaks.push(`${type} → ${secret}`);
  }
  assert.deepEqual(leaks, [], 'answers to a content script carry no secret');
});

test('the panel shows secret headers masked, including custom auth headers and headers marked secret', async () => {
  const view = ok(await coreCall(panel, { type: 'servers/list' })).find((s) => s.id === serverId);
  const shown = Object.fromEntries(view.headers.map((h) => [h.name.toLowerCase(), h.value]));
  assert.deepEqual(shown, { authorization: '••••', 'x-custom-auth': '••••', 'x-other': '••••' });
});
