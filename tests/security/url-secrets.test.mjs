// Attack surface: secrets written into a server URL (a `?token=` query, `user:password@`) leak
// into the chat when a call fails, because error messages quote the URL. The chat page, its
// scripts and the model then hold the user's credentials. Promise (SECURITY.md, "secrets"):
// what reaches the chat (the input box, the card, what a content script can ask) never carries
// a URL's credentials; the side panel may show the URL whole.
// Also here, on the same failing server: an HTTP 500 to tools/call means the request reached
// the server, so the model is told the outcome is unknown, never that the tool did not run.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from '../e2e/harness.mjs';
import {
  ok, openExtensionPage, coreCall, startMcpServer, chatSite, openChat, appendReply, fencedCall,
  waitForCall, asContent, relayUi, until, allText,
} from './lib.mjs';

const TOKEN = 'SECRET123';
const PASSWORD = 'pw456';

let ext, first, second, site, panel, tokenId, userinfoId, userinfoNote;

before(async () => {
  const failing = (name) => ({ name, description: 'Fails on the server.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, run: () => ({ status: 500, body: 'internal server error' }) });
  first = await startMcpServer({ name: 'token-in-query', tools: [failing('boom_query')] });
  second = await startMcpServer({ name: 'userinfo', tools: [failing('boom_userinfo')] });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  tokenId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'query token', url: `${first.url}?token=${TOKEN}` } })).id;
  // The user adds the second server, then edits its URL to carry credentials.
  userinfoId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'userinfo', url: second.url } })).id;
  const edited = await coreCall(panel, { type: 'servers/update', server: { id: userinfoId, name: 'userinfo', url: second.url.replace('http://', `http://user:${PASSWORD}@`) } });
  if (!edited.ok) {
    // Refusing such a URL is a fix too; its refusal must not echo the password back to a page
    // that is not the panel (it is the panel here, so only the chat side is checked below).
    userinfoNote = `servers/update refused the URL with credentials (${edited.error.kind})`;
  }
  for (const [serverId, tool] of [[tokenId, 'boom_query'], [userinfoId, 'boom_userinfo']]) {
    ok(await coreCall(panel, { type: 'tools/policy', serverId, tool, policy: 'allow' }), 'tools/policy');
  }
  site = await chatSite(ext, panel);
});

after(async () => {
  await ext?.close();
  await site?.close();
  await first?.close();
  await second?.close();
});

const isFinal = (c) => !['pending', 'running'].includes(c.state);

test('credentials in a server URL never reach the chat, its card, or a content script', async (t) => {
  if (userinfoNote) t.diagnostic(userinfoNote);
  const { page, chat, tabId } = await openChat(ext, panel, site, { serverIds: [tokenId, userinfoId], autoExecute: true, autoSubmit: false });
  await appendReply(page, fencedCall('boom_query', { n: 1 }) + '\n\n' + fencedCall('boom_userinfo', { n: 2 }));
  for (const tool of ['boom_query', 'boom_userinfo']) {
    await waitForCall(panel, chat, (c) => c.tool === tool && isFinal(c) && c.delivered, `the ${tool} call to end and be delivered`, 30_000);
  }
  assert.equal(first.calls('boom_query').length, 1, 'the first call reached its server (and got HTTP 500)');

  const input = await page.inputValue('#input');
  assert.match(input, /boom_query/, 'the results were written into the chat input');
  assert.match(input, /boom_userinfo/);
  const cards = await until(async () => {
    const ui = await relayUi(page);
    const all = ui.flatMap((h) => h.cards);
    return all.length >= 2 && all.every((c) => !['pending', 'running'].includes(c.state)) ? ui : null;
  }, { what: 'both cards to show their final state' });
  const seen = {
    'the chat input': input,
    'the in-page cards': allText(cards),
    'activity/list to the content script': allText(await asContent(ext, tabId, { type: 'activity/list' })),
    'prompt/build to the content script': allText(await asContent(ext, tabId, { type: 'prompt/build' })),
    'chat/get to the content script': allText(await asContent(ext, tabId, { type: 'chat/get' })),
  };
  const leaks = [];
  for (const [where, text] of Object.entries(seen)) {
    for (const secret of [TOKEN, PASSWORD]) {
      const at = text.indexOf(secret);
      if (at >= 0) leaks.push(`${where} contains ${secret}: …${text.slice(Math.max(0, at - 100), at + 20)}…`);
    }
  }
  assert.deepEqual(leaks, [], 'no URL secret reaches the chat side');
  await page.close();
});

test('HTTP 500 to tools/call: the model is told the outcome is unknown, not that the tool did not run', async () => {
  const { page, chat } = await openChat(ext, panel, site, { serverIds: [tokenId], autoExecute: true, autoSubmit: false });
  const before = first.calls('boom_query').length;
  await appendReply(page, fencedCall('boom_query', { n: 3 }));
  const rec = await waitForCall(panel, chat, (c) => c.tool === 'boom_query' && isFinal(c) && c.delivered, 'the call to end and be delivered', 30_000);
  assert.equal(first.calls('boom_query').length, before + 1, 'the request reached the server');
  const text = await page.inputValue('#input');
  assert.match(text, /boom_query/, 'the result was delivered into the chat input');
  assert.match(text, /status="unknown"/, `the result says the outcome is unknown:\n${text}`);
  assert.doesNotMatch(text, /did not run/i);
  assert.doesNotMatch(text, /status="failed"/);
  assert.equal(rec.state, 'unknown', 'the ledger records the outcome as unknown (Run again is the user\'s call)');
  await page.close();
});
