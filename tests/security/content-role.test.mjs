// Attack: the chat page drives MCP Relay's content script (or anything running in its world)
// to do more than the in-page card needs. Every message here is sent AS the content script:
// injected into its isolated world with chrome.scripting, so Chrome's MessageSender says it
// comes from a tab on a web origin and the worker classifies it `content`. Promise
// (SECURITY.md, "sender roles" and "decisions in the core"): a content sender may build the
// prompt of its own chat's servers, and run or deny a call waiting in its own chat, nothing
// more; a destructive tool is approved in the side panel only.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from '../e2e/harness.mjs';
import {
  ok, refused, openExtensionPage, coreCall, startMcpServer, chatSite, openChat, appendReply, fencedCall,
  activity, waitForCall, asContent,
} from './lib.mjs';

let ext, picked, other, site, panel, pickedId, otherId;

before(async () => {
  picked = await startMcpServer({
    name: 'picked',
    tools: [
      { name: 'ask_me', description: 'Needs approval.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, run: (a) => ({ text: `asked ${a.n}` }) },
      { name: 'ask_too', description: 'Needs approval too.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, run: (a) => ({ text: `asked too ${a.n}` }) },
      { name: 'wipe_disk', description: 'Erases everything.', annotations: { destructiveHint: true, readOnlyHint: false }, inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, run: () => ({ text: 'wiped' }) },
      { name: 'refuse', description: 'Always refused by the server.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, run: () => ({ rpcError: { code: -32603, message: 'refused' } }) },
      { name: 'count', description: 'Counts.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, run: (a) => ({ text: `count ${a.n}` }) },
    ],
  });
  other = await startMcpServer({
    name: 'other',
    tools: [{ name: 'other_private_tool', description: 'PRIVATE-DESCRIPTION of a server this chat does not use.', inputSchema: { type: 'object' } }],
  });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  pickedId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'picked', url: picked.url } })).id;
  for (const tool of ['refuse', 'count']) ok(await coreCall(panel, { type: 'tools/policy', serverId: pickedId, tool, policy: 'allow' }));
  // The other server's tools are not known yet (its list fails while it is added), so a prompt
  // that names it would make the worker connect to it.
  other.state.listStatus = 401;
  otherId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'other', url: other.url } })).id;
  other.state.listStatus = null;
  site = await chatSite(ext, panel);
});

after(async () => {
  await ext?.close();
  await site?.close();
  await picked?.close();
  await other?.close();
});

const chatSettings = (extra = {}) => ({ serverIds: [pickedId], autoExecute: true, autoSubmit: false, ...extra });

test('(a) prompt/build from a content script names only its chat\'s servers; others are refused and not contacted', async () => {
  const { page, tabId } = await openChat(ext, panel, site, chatSettings());
  const before = other.requests.length;
  const answer = await asContent(ext, tabId, { type: 'prompt/build', serverIds: [otherId] });
  refused(answer, 'forbidden', 'prompt/build naming a server not picked for this chat');
  // Witness: the allowed request that follows returns, so the refused one was fully handled.
  const prompt = ok(await asContent(ext, tabId, { type: 'prompt/build', serverIds: [pickedId] }), 'prompt/build of the picked server');
  assert.match(prompt.text, /ask_me/);
  assert.equal(other.requests.length, before, 'the worker did not connect to the server that is not picked');
  await page.close();
});

test('(b) "always" from a content script is refused and changes no policy', async () => {
  const { page, chat, tabId } = await openChat(ext, panel, site, chatSettings());
  await appendReply(page, fencedCall('ask_me', { n: 1 }));
  const rec = await waitForCall(panel, chat, (c) => c.tool === 'ask_me' && c.state === 'pending', 'the pending ask_me call');
  refused(await asContent(ext, tabId, { type: 'activity/decide', key: rec.key, decision: 'always' }), 'forbidden', 'decision "always" from a content script');
  const tools = ok(await coreCall(panel, { type: 'tools/list', serverId: pickedId }));
  assert.equal(tools.find((t) => t.name === 'ask_me').policy, 'ask', 'the tool\'s policy did not change');
  assert.equal((await activity(panel, chat)).find((c) => c.key === rec.key).state, 'pending');
  assert.equal(picked.calls('ask_me').length, 0, 'the call did not run');
  await page.close();
});

test('(c) a failed or limited call cannot be run again by "run" (content script or page)', async () => {
  // One call in a row at most: the reply's second call is "limited".
  const { page, chat, tabId } = await openChat(ext, panel, site, chatSettings({ maxConsecutive: 1 }));
  await appendReply(page, fencedCall('refuse', { n: 1 }) + '\n\n' + fencedCall('count', { n: 2 }));
  const failed = await waitForCall(panel, chat, (c) => c.tool === 'refuse' && c.state === 'failed', 'the failed call');
  const limited = await waitForCall(panel, chat, (c) => c.tool === 'count' && c.state === 'limited', 'the limited call');
  assert.equal(picked.calls('refuse').length, 1);
  for (const [rec, tool] of [[failed, 'refuse'], [limited, 'count']]) {
    const callsBefore = picked.calls(tool).length;
    refused(await asContent(ext, tabId, { type: 'activity/decide', key: rec.key, decision: 'run' }), ['forbidden', 'invalid_state'], `run of a ${rec.state} call from a content script`);
    refused(await coreCall(panel, { type: 'activity/decide', key: rec.key, decision: 'run' }), ['forbidden', 'invalid_state', 'invalid_argument'], `run of a ${rec.state} call from the panel`);
    assert.equal((await activity(panel, chat)).find((c) => c.key === rec.key).state, rec.state, 'the call kept its state');
    assert.equal(picked.calls(tool).length, callsBefore, `the ${rec.state} call did not run again`);
  }
  await page.close();
});

test('(d) a content script cannot decide a call of another tab\'s chat', async () => {
  const victim = await openChat(ext, panel, site, chatSettings());
  const attacker = await openChat(ext, panel, site, chatSettings());
  await appendReply(victim.page, fencedCall('ask_too', { n: 4 }));
  const rec = await waitForCall(panel, victim.chat, (c) => c.tool === 'ask_too' && c.state === 'pending', 'the victim\'s pending call');
  for (const decision of ['run', 'deny']) {
    refused(await asContent(ext, attacker.tabId, { type: 'activity/decide', key: rec.key, decision }), 'forbidden', `${decision} of another chat's call`);
  }
  assert.equal((await activity(panel, victim.chat)).find((c) => c.key === rec.key).state, 'pending');
  assert.equal(picked.calls('ask_too').filter((c) => c.arguments.n === 4).length, 0);
  await victim.page.close();
  await attacker.page.close();
});

test('(e) a destructive tool is approved in the side panel only, never from the page\'s content script', async () => {
  const { page, chat, tabId } = await openChat(ext, panel, site, chatSettings());
  await appendReply(page, fencedCall('wipe_disk', { n: 5 }));
  const rec = await waitForCall(panel, chat, (c) => c.tool === 'wipe_disk' && c.state === 'pending', 'the pending destructive call');
  refused(await asContent(ext, tabId, { type: 'activity/decide', key: rec.key, decision: 'run' }), 'forbidden', 'run of a destructive tool from a content script');
  assert.equal((await activity(panel, chat)).find((c) => c.key === rec.key).state, 'pending');
  assert.equal(picked.calls('wipe_disk').length, 0, 'the destructive tool did not run');
  // The side panel can approve it.
  ok(await coreCall(panel, { type: 'activity/decide', key: rec.key, decision: 'run' }), 'run from the panel');
  await waitForCall(panel, chat, (c) => c.key === rec.key && c.state === 'done', 'the approved call to finish');
  assert.equal(picked.calls('wipe_disk').length, 1);
  await page.close();
});

test('(f) a content script saves a taught adapter for its own origin only, and only a valid one', async () => {
  const tab = await openChat(ext, panel, site, chatSettings());
  const adapter = { id: 'taught', input: ['textarea'], send: ['button'], assistant: ['.reply'] };
  // An invalid adapter is refused by the core's validation.
  refused(await asContent(ext, tab.tabId, { type: 'sites/taught', adapter: { ...adapter, assistant: [] } }), 'invalid_argument', 'an adapter without replies');
  // An `origin` in the message is not the content script's to choose: the sender's is used.
  ok(await asContent(ext, tab.tabId, { type: 'sites/taught', adapter, origin: 'https://victim.example' }));
  const sites = ok(await coreCall(panel, { type: 'sites/list' }));
  assert.ok(!sites.some((s) => s.origin === 'https://victim.example'), 'no adapter for another origin');
  const own = sites.find((s) => s.origin === new URL(tab.page.url()).origin);
  assert.deepEqual(own && own.custom.assistant, ['.reply']);
  await tab.page.close();
});
