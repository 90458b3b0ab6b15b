// Attack: clickjacking the in-page card (issue 24). The chat page cannot click Run itself
// (page-clicks.test.mjs), so it lures the user into clicking it: it makes MCP Relay's host
// element transparent (`opacity: 0`) over a "Continue" button of its own, or covers the card
// with an opaque banner that lets clicks through (`pointer-events: none`). The user's click is
// real (trusted) and lands on Run, which they never saw.
// Promise (SECURITY.md, "in-page cards"): Run acts only when its card has been visible and
// unobscured for a moment (IntersectionObserver v2); otherwise the call stays pending and the
// card says to approve in the side panel. On a page that leaves the card alone, a real click on
// Run still runs the call.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from '../e2e/harness.mjs';
import {
  ok, openExtensionPage, coreCall, until, startMcpServer, chatSite, openChat, appendReply, fencedCall,
  activity, waitForCall,
} from './lib.mjs';

let ext, server, site, panel, serverId;

before(async () => {
  server = await startMcpServer({
    name: 'notes',
    tools: [{ name: 'notes_add', description: 'Adds a note.', inputSchema: { type: 'object', properties: { title: { type: 'string' } } }, run: (a) => ({ text: `added ${a.title}` }) }],
  });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  // Policy "ask" (the default): every call waits for Run on its card.
  serverId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'notes', url: server.url } })).id;
  site = await chatSite(ext, panel);
});

after(async () => {
  await ext?.close();
  await site?.close();
  await server?.close();
});

/**
 * The Run button of card `key`, through CDP (which reaches closed shadow roots): its centre on
 * the page and whether the card says it is armed (visible long enough). Undefined when absent.
 */
async function runButton(page, key) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
    const attrs = (n) => {
      const out = {};
      for (let i = 0; i + 1 < (n.attributes || []).length; i += 2) out[n.attributes[i]] = n.attributes[i + 1];
      return out;
    };
    const kids = (n) => [...(n.shadowRoots || []), ...(n.children || [])];
    const find = (n, pred) => {
      if (pred(n)) return n;
      for (const k of kids(n)) {
        const f = find(k, pred);
        if (f) return f;
      }
      return undefined;
    };
    const card = find(root, (n) => attrs(n)['data-key'] === key);
    const button = card && find(card, (n) => attrs(n)['data-action'] === 'run');
    if (!button) return undefined;
    const { model } = await cdp.send('DOM.getBoxModel', { backendNodeId: button.backendNodeId });
    const [x1, y1, , , x3, y3] = model.border;
    return { x: (x1 + x3) / 2, y: (y1 + y3) / 2, armed: attrs(button)['data-armed'] === 'true' };
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** The card's text, through CDP. */
async function cardText(page, key) {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { root } = await cdp.send('DOM.getDocument', { depth: -1, pierce: true });
    const kids = (n) => [...(n.shadowRoots || []), ...(n.children || [])];
    const text = (n) => (n.nodeType === 3 ? n.nodeValue : n.localName === 'style' ? '' : kids(n).map(text).join(' '));
    const find = (n) => {
      const a = n.attributes || [];
      for (let i = 0; i + 1 < a.length; i += 2) if (a[i] === 'data-key' && a[i + 1] === key) return n;
      for (const k of kids(n)) {
        const f = find(k);
        if (f) return f;
      }
      return undefined;
    };
    const card = find(root);
    return card ? text(card).replace(/\s+/g, ' ') : '';
  } finally {
    await cdp.detach().catch(() => {});
  }
}

/** A pending notes_add call with its card's Run button on the page. */
async function pendingCall(page, chat, title) {
  await appendReply(page, 'Saving it.\n\n' + fencedCall('notes_add', { title }));
  const rec = await waitForCall(panel, chat, (c) => c.tool === 'notes_add' && c.arguments.title === title && c.state === 'pending', `the pending call ${title}`);
  await until(() => runButton(page, rec.key), { what: 'the Run button' });
  return rec;
}

/** Each hostile page: what it does to MCP Relay's card before the user's click. */
const attacks = {
  'transparent host over a "Continue" button': (page) => page.evaluate(() => {
    const style = document.createElement('style');
    style.textContent = 'mcp-relay-ui { opacity: 0 !important; }';
    document.head.append(style);
    const lure = document.createElement('button');
    lure.textContent = 'Continue';
    Object.assign(lure.style, { position: 'fixed', right: '12px', bottom: '96px', zIndex: '1', padding: '40px 120px' });
    document.body.append(lure);
  }),
  'opaque banner that lets clicks through': (page) => page.evaluate(() => {
    const banner = document.createElement('div');
    banner.textContent = 'Click anywhere to continue';
    Object.assign(banner.style, { position: 'fixed', inset: '0', background: '#fff', zIndex: '2147483647', pointerEvents: 'none' });
    document.body.append(banner);
  }),
  'host shrunk to a speck': (page) => page.evaluate(() => {
    const style = document.createElement('style');
    style.textContent = 'mcp-relay-ui { transform: scale(0.05) !important; transform-origin: 100% 100%; }';
    document.head.append(style);
  }),
};

for (const [name, attack] of Object.entries(attacks)) {
  test(`clickjacking (${name}): a real click on Run runs nothing`, async () => {
    const { page, chat } = await openChat(ext, panel, site, { serverIds: [serverId], autoExecute: true, autoSubmit: false });
    const before = server.calls('notes_add').length;
    const rec = await pendingCall(page, chat, `lured ${name}`);
    await attack(page);
    const target = await runButton(page, rec.key);
    await page.mouse.click(target.x, target.y);
    // Positive sign: the card handled the trusted click, and said why it ran nothing.
    await until(async () => (await cardText(page, rec.key)).includes('approve in the MCP Relay side panel'), { what: 'the card to refuse the unseen click' });
    const after = (await activity(panel, chat)).find((c) => c.key === rec.key);
    assert.equal(after.state, 'pending', `the lured click decided the call (state ${after.state})`);
    assert.equal(server.calls('notes_add').length, before, 'the tool never ran');
    // The side panel still approves it.
    const ran = ok(await coreCall(panel, { type: 'activity/decide', key: rec.key, decision: 'run' }), 'run from the panel');
    assert.ok(['running', 'done'].includes(ran.state), ran.state);
    await page.close();
  });
}

test('on a page that leaves the card alone, a real click on Run runs the call', async () => {
  const { page, chat } = await openChat(ext, panel, site, { serverIds: [serverId], autoExecute: true, autoSubmit: false });
  const before = server.calls('notes_add').length;
  const rec = await pendingCall(page, chat, 'seen and clicked');
  const target = await until(async () => {
    const b = await runButton(page, rec.key);
    return b?.armed ? b : undefined;
  }, { what: 'the card to have been in view long enough' });
  await page.mouse.click(target.x, target.y);
  await waitForCall(panel, chat, (c) => c.key === rec.key && c.state === 'done', 'the clicked call to run');
  assert.equal(server.calls('notes_add').length, before + 1);
  await page.close();
});
