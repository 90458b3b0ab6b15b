// @ts-check
// State that fits its storage (ARCHITECTURE.md, "state fits its storage"): a tool that returns
// 3 MB per call, four calls, on a test MCP server on 127.0.0.1. Before, the whole ledger with
// its raw results was rewritten to chrome.storage.session after every change, and the fourth
// result overflowed its 10 MB quota ("Session storage quota bytes exceeded") and stalled the
// loop. Now each call's record (a bounded preview) is one session key and each full result one
// local key: no quota error, every result reaches the chat, the loop finishes, and a restarted
// worker delivers from what storage holds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from './harness.mjs';
import {
  ok, openExtensionPage, coreCall, startMcpServer, chatSite, openChat, appendReply, fencedCall,
  waitForCall, until,
} from '../security/lib.mjs';

const MB = 1024 * 1024;

/** @type {any} */ let ext;
/** @type {any} */ let server;
/** @type {any} */ let site;
/** @type {any} */ let panel;
/** @type {string} */ let serverId;

before(async () => {
  server = await startMcpServer({
    name: 'large-results',
    tools: [{
      name: 'big',
      description: 'Returns 3 MB of text.',
      inputSchema: { type: 'object', properties: { n: { type: 'number' } } },
      run: (/** @type {any} */ args) => ({ text: `result ${args.n}: ` + 'x'.repeat(3 * MB) }),
    }],
  });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  serverId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'large', url: server.url } })).id;
  ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'big', policy: 'allow' }), 'tools/policy');
  site = await chatSite(ext, panel);
});

after(async () => {
  await ext?.close();
  await site?.close();
  await server?.close();
});

/** Warnings the worker printed (a failed storage write is one). */
const warnings = /** @type {string[]} */ ([]);

test('four 3 MB results: no storage quota is exceeded, each reaches the chat once, the loop finishes', async () => {
  ext.sw.on?.('console', (/** @type {any} */ m) => { if (m.type() === 'warning' || m.type() === 'error') warnings.push(m.text()); });
  const { page, chat } = await openChat(ext, panel, site, { serverIds: [serverId], autoExecute: true, autoSubmit: false });
  for (let n = 1; n <= 4; n++) {
    await appendReply(page, `Call ${n}.\n\n` + fencedCall('big', { n }));
    await waitForCall(panel, chat, (/** @type {any} */ c) => c.arguments?.n === n && c.state === 'done' && c.delivered, `call ${n} done and delivered`, 60_000);
    // The chat's input holds this call's result (the user sends; auto-send is off here).
    await until(async () => (await page.inputValue('#input')).includes(`result ${n}:`), { timeoutMs: 15_000, what: `result ${n} in the input` });
    await page.fill('#input', '');
  }
  assert.equal(server.calls('big').length, 4, 'each call ran once');
  const usage = await ext.sw.evaluate(async () => ({
    session: await chrome.storage.session.getBytesInUse(null),
    results: Object.keys(await chrome.storage.local.get(null)).filter((k) => k.startsWith('result:')).length,
  }));
  assert.ok(usage.session < 256 * 1024, `session storage holds ${usage.session} bytes`);
  assert.equal(usage.results, 4, 'each full result is one local key');
  const records = ok(await coreCall(panel, { type: 'activity/list', chat }));
  for (const r of records) {
    assert.ok(JSON.stringify(r).length < 16 * 1024, 'a record carries a preview, not the result');
    assert.ok(r.resultSize > 3 * MB, 'and the full result\'s size');
  }
  assert.deepEqual(warnings.filter((w) => /quota|storing/i.test(w)), [], 'no storage write failed');
  await page.close();
});
