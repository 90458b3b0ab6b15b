// Attack: the chat page approves a tool call by itself. A page script writes a fake assistant
// reply with a call to a tool whose policy is "ask", waits for MCP Relay's card, and clicks the
// card's Run button (or dispatches any event it can on anything it can reach). Promise
// (SECURITY.md, "in-page cards"): MCP Relay's UI lives in closed shadow roots and acts on
// trusted input only, so nothing a page script does approves a call or runs an unknown one again.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, startProcess, TARGET } from '../e2e/harness.mjs';
import {
  ok, openExtensionPage, coreCall, until, startMcpServer, chatSite, openChat, appendReply, fencedCall,
  activity, waitForCall, cardOf,
} from './lib.mjs';

let ext, demo, slow, site, panel, demoId, slowId;

before(async () => {
  demo = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
    { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
  // A tool that never answers: its call ends "unknown" when the server's timeout passes.
  slow = await startMcpServer({
    name: 'slow',
    tools: [
      { name: 'slow_write', description: 'Writes slowly.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, run: () => ({ hang: true }) },
      { name: 'quick_read', description: 'Reads quickly.', inputSchema: { type: 'object', properties: { n: { type: 'number' } } }, run: (a) => ({ text: `read ${a.n}` }) },
    ],
  });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  demoId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'demo', url: demo.match[1] } })).id;
  slowId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'slow', url: slow.url, timeoutMs: 1500 } })).id;
  for (const tool of ['slow_write', 'quick_read']) {
    ok(await coreCall(panel, { type: 'tools/policy', serverId: slowId, tool, policy: 'allow' }), 'tools/policy');
  }
  site = await chatSite(ext, panel);
});

after(async () => {
  await ext?.close();
  await site?.close();
  await slow?.close();
  await demo?.stop();
});

/**
 * The page's attack, in the page's own (main) world: for every MCP Relay host element, record
 * whether its shadow root is reachable, then click every Run button in it and dispatch synthetic
 * clicks and key presses on everything it can reach (the host included).
 */
function pageAttack(page) {
  return page.evaluate(() => {
    const hosts = [];
    let buttons = 0;
    for (const el of document.querySelectorAll('*')) {
      if (!/^mcp-relay/i.test(el.localName)) continue;
      const root = el.shadowRoot;
      hosts.push({ tag: el.localName, shadowRoot: root !== null });
      const targets = [el];
      if (root) targets.push(...root.querySelectorAll('[data-action="run"]'));
      for (const t of targets) {
        if (t !== el) buttons += 1;
        if (typeof t.click === 'function') t.click();
        t.focus?.();
        for (const type of ['pointerdown', 'mousedown', 'pointerup', 'mouseup', 'click']) {
          t.dispatchEvent(new MouseEvent(type, { bubbles: true, composed: true, cancelable: true }));
        }
        for (const key of ['Enter', ' ']) {
          t.dispatchEvent(new KeyboardEvent('keydown', { key, code: key === ' ' ? 'Space' : 'Enter', bubbles: true, composed: true, cancelable: true }));
          t.dispatchEvent(new KeyboardEvent('keyup', { key, code: key === ' ' ? 'Space' : 'Enter', bubbles: true, composed: true, cancelable: true }));
        }
      }
    }
    return { hosts, buttons };
  });
}

/**
 * A positive sign that the content script handled everything the attack triggered: a second
 * reply, appended after the attack, produced its own record. The attack's clicks sent their
 * messages synchronously, before this reply was even read.
 */
async function witnessReply(page, panel, chat, tool, args) {
  await appendReply(page, 'One more thing.\n\n' + fencedCall(tool, args));
  return waitForCall(panel, chat, (c) => c.tool === tool && JSON.stringify(c.arguments) === JSON.stringify(args), `the witness call ${tool}`);
}

test('a page script cannot approve a pending "ask" call from its card', async () => {
  const { page, chat } = await openChat(ext, panel, site, { serverIds: [demoId], autoExecute: true, autoSubmit: false });
  const title = 'written by the page ' + Date.now();
  await appendReply(page, 'I will save that.\n\n' + fencedCall('notes_add', { title, body: 'the page approved this' }));
  const rec = await waitForCall(panel, chat, (c) => c.tool === 'notes_add' && c.state === 'pending', 'the pending notes_add call');
  await until(async () => (await cardOf(page, rec.key))?.actions.includes('run'), { what: 'the card with its Run button' });

  const attack = await pageAttack(page);
  await witnessReply(page, panel, chat, 'notes_add', { title: 'witness', body: 'second reply' });

  const after = (await activity(panel, chat)).find((c) => c.key === rec.key);
  assert.equal(after.state, 'pending', `the page's clicks decided the call (state ${after.state})`);
  assert.ok(attack.hosts.length >= 1, 'the page found MCP Relay\'s host element');
  assert.deepEqual(attack.hosts.filter((h) => h.shadowRoot), [], 'every MCP Relay host has a closed shadow root (shadowRoot is null for the page)');

  // The user (an extension page) can still decide: the call is still waiting, so deny works.
  const denied = ok(await coreCall(panel, { type: 'activity/decide', key: rec.key, decision: 'deny' }), 'deny from the panel');
  assert.equal(denied.state, 'denied');
  const notes = ok(await coreCall(panel, { type: 'tools/call', serverId: demoId, tool: 'notes_list', arguments: {} }), 'notes_list');
  assert.ok(!JSON.stringify(notes.result).includes(title), 'no note was written by the page');
  await page.close();
});

test('a page script cannot "Run again" a call whose outcome is unknown', async () => {
  const { page, chat } = await openChat(ext, panel, site, { serverIds: [slowId], autoExecute: true, autoSubmit: false });
  await appendReply(page, 'Writing.\n\n' + fencedCall('slow_write', { n: 1 }));
  const rec = await waitForCall(panel, chat, (c) => c.tool === 'slow_write' && c.state === 'unknown', 'the call to time out as unknown', 20_000);
  await until(async () => (await cardOf(page, rec.key))?.actions.includes('run'), { what: 'the card with its Run again button' });
  assert.equal(slow.calls('slow_write').length, 1);

  const attack = await pageAttack(page);
  const witness = await witnessReply(page, panel, chat, 'quick_read', { n: 2 });
  await until(async () => (await activity(panel, chat)).find((c) => c.key === witness.key && c.state === 'done'), { what: 'the witness call to run' });

  const after = (await activity(panel, chat)).find((c) => c.key === rec.key);
  assert.equal(after.state, 'unknown', `the page's clicks ran the unknown call again (state ${after.state})`);
  assert.equal(slow.calls('slow_write').length, 1, 'the server got the call once only');
  assert.deepEqual(attack.hosts.filter((h) => h.shadowRoot), [], 'every MCP Relay host has a closed shadow root');
  await page.close();
});
