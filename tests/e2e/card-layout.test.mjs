// The in-page card never covers what the user types nor the reply (issue 33, item 1). In three
// chat layouts (a centred column with a floating composer, as ChatGPT; turns and a composer
// across the whole width; a narrow window), with a user typing into the composer, the card's
// box is measured against the composer's text area (and its send button), the last reply and
// the view: for a call waiting for approval, a running one, the send-delay countdown (the
// results held in the input for review) and three finished calls folded into one "3 calls"
// chip, which lists them on a trusted click only. Where no free spot holds the cards they fold
// into one line with a count, which a trusted click opens.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import {
  coreCall, until, waitInClosedShadow, closedShadowNodes, trustedClickInClosedShadow, pageWorldCallInClosedShadow, textsInClosedShadow,
  startProcess, serveStatic, launchExtension, openExtensionPage, ok, ROOT, TARGET,
} from './harness.mjs';

const HOST = 'mcp-relay-ui';
let rig;

before(async () => {
  const server = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
    { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
  const chat = await serveStatic(join(ROOT, 'tests/fixtures/cards/layouts'));
  const ext = await launchExtension();
  const panel = await openExtensionPage(ext, 'www/panel.html');
  const call = async (message) => ok(await coreCall(panel, message));
  const serverId = (await call({ type: 'servers/add', server: { name: 'demo', url: server.match[1] } })).id;
  await call({ type: 'sites/add', origin: chat.origin, adapter: 'generic' });
  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + chat.origin));
  await call({ type: 'tools/policy', serverId, tool: 'slow_count', policy: 'ask' });
  await call({ type: 'tools/policy', serverId, tool: 'add', policy: 'allow' });
  rig = {
    server, chat, ext, panel, call, serverId,
    async close() { await ext.close(); await chat.close(); await server.stop(); },
  };
});
after(async () => { await rig?.close(); });

const intersects = (a, b) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/** What the user sees: our host's box, the composer's text area and send button, the last reply and the last turn (clipped to the view). */
const measure = (page) => page.evaluate(() => {
  const box = (el) => { const r = el.getBoundingClientRect(); return { top: r.top, bottom: r.bottom, left: r.left, right: r.right }; };
  const seen = (el) => { const r = box(el); return { ...r, top: Math.max(r.top, 0), bottom: Math.min(r.bottom, innerHeight) }; };
  const host = document.querySelector('mcp-relay-ui');
  const replies = document.querySelectorAll('.turn[data-role="assistant"]');
  const turns = document.querySelectorAll('.turn');
  const input = document.getElementById('input');
  // The text area's own points: each must be the text area for the user (nothing over it).
  const t = box(input);
  const points = [[t.left + 3, t.top + 3], [t.right - 3, t.top + 3], [t.left + 3, t.bottom - 3], [t.right - 3, t.bottom - 3], [(t.left + t.right) / 2, (t.top + t.bottom) / 2]];
  const covered = points.filter(([x, y]) => document.elementFromPoint(x, y) !== input).length;
  return {
    host: box(host), hidden: host.hidden, text: t, send: box(document.getElementById('send')), covered,
    reply: seen(replies[replies.length - 1]), last: seen(turns[turns.length - 1]), view: { width: innerWidth, height: innerHeight },
  };
});

/**
 * Waits until the cards sit clear of the text area, the send button and the replies, in view,
 * and stay there a frame later.
 */
async function assertClear(page, what) {
  let seen = null;
  const clear = async () => {
    const g = seen = await measure(page);
    const h = g.host;
    return !g.hidden && h.bottom - h.top > 4 && h.top >= 0 && h.left >= 0 && h.bottom <= g.view.height && h.right <= g.view.width
      && g.covered === 0 && !intersects(h, g.text) && !intersects(h, g.send) && !intersects(h, g.reply) && !intersects(h, g.last);
  };
  await until(clear, { timeoutMs: 5_000, what: `${what}: the card clear of the composer and the reply` }).catch((e) => {
    throw new Error(`${e.message}: ${JSON.stringify(seen)}`);
  });
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  assert.ok(await clear(), `${what}: still clear a frame later: ${JSON.stringify(seen)}`);
  return pageWorldCallInClosedShadow(page, HOST, '.ui', 'function () { return `${this.dataset.where}${this.dataset.collapsed === "true" ? " (one line)" : ""}`; }');
}

/** The user types into the composer (real key presses); the text is there. */
async function type(page, text) {
  await page.focus('#input');
  const before = await page.locator('#input').inputValue();
  await page.keyboard.type(text);
  await until(async () => (await page.locator('#input').inputValue()) === before + text, { what: 'the typed text in the composer' });
}

async function clearComposer(page) {
  await page.focus('#input');
  await page.keyboard.press('Control+A');
  await page.keyboard.press('Backspace');
  await until(async () => (await page.locator('#input').inputValue()) === '', { what: 'an empty composer' });
}

/** A trusted click on the folded line when the cards are folded (the user opens them). */
async function openIfFolded(page) {
  if ((await closedShadowNodes(page, HOST, '.ui[data-collapsed="true"]')).length) {
    await trustedClickInClosedShadow(page, HOST, '.summary button[data-action="show"]');
    await waitInClosedShadow(page, HOST, '.ui[data-collapsed="false"]', { timeoutMs: 5_000 });
  }
}

/**
 * The page writes an assistant reply as a site streams one: a first part, then, once the core
 * has seen it, the rest (a reply that appears whole with nothing before it is an old one).
 */
async function reply(page, chatRef, text) {
  const replies = async () => {
    const view = (await coreCall(rig.panel, { type: 'page/state', chat: chatRef })).data;
    return view ? view.turns.filter((t) => t.onPage) : [];
  };
  const before = (await replies()).length;
  await page.evaluate(() => {
    const div = document.createElement('div');
    div.className = 'turn';
    div.dataset.role = 'assistant';
    div.textContent = 'Sure, I will do that now.\n';
    document.getElementById('log').appendChild(div);
    window.scrollTo(0, document.documentElement.scrollHeight);
  });
  await until(async () => {
    const on = await replies();
    return on.length > before && on[on.length - 1].length > 0;
  }, { what: 'the core saw the reply begin' });
  await page.evaluate((rest) => {
    const turns = document.querySelectorAll('.turn[data-role="assistant"]');
    turns[turns.length - 1].textContent += rest;
    window.scrollTo(0, document.documentElement.scrollHeight);
  }, text);
}

const block = (tool, args) => '```json\n' + JSON.stringify({ tool, arguments: args }) + '\n```\n';
const TYPED = 'I am writing my next question while the tool works, and this sentence is long enough to wrap onto a second line of the box';

const LAYOUTS = [
  { layout: 'centred', width: 1440, height: 800, history: 8 },
  { layout: 'full', width: 1000, height: 1000, history: 0 },
  { layout: 'narrow', width: 400, height: 720, history: 6 },
];

for (const { layout, width, height, history } of LAYOUTS) {
  test(`${layout} layout (${width}×${height}): no card or chip covers the composer's text or the reply while the user types`, { timeout: 180_000 }, async (t) => {
    const { call, ext, chat, serverId } = rig;
    await call({ type: 'settings/set', settings: { ...(await call({ type: 'settings/get' })), sendDelayMs: 60_000 } });
    const page = await ext.context.newPage();
    t.after(() => page.close());
    await page.setViewportSize({ width, height });
    await page.goto(`${chat.origin}/?layout=${layout}`);
    await page.locator(`${HOST}[data-state="ready"]`).waitFor({ state: 'attached', timeout: 10_000 });
    await page.evaluate((n) => {
      const log = document.getElementById('log');
      for (let i = 0; i < n; i++) {
        const div = document.createElement('div');
        div.className = 'turn';
        div.dataset.role = i % 2 ? 'assistant' : 'user';
        div.textContent = `Earlier turn ${i + 1}. `.repeat(i % 2 ? 30 : 4);
        log.appendChild(div);
      }
      window.scrollTo(0, document.documentElement.scrollHeight);
    }, history);
    const tabs = await ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((x) => x.url === u).map((x) => x.id), page.url());
    const chatRef = { tabId: Math.max(...tabs), url: page.url() };
    await call({ type: 'chat/set', chat: chatRef, settings: { serverIds: [serverId], autoExecute: true, autoSubmit: true }, scope: 'chat' });
    await page.bringToFront();
    const where = {};

    // A call waiting for approval, while the user types.
    await reply(page, chatRef, block('slow_count', { steps: 20, delay_ms: 600 }));
    const pending = '.card[data-state="pending"]';
    await waitInClosedShadow(page, HOST, pending, { timeoutMs: 20_000 });
    await type(page, TYPED);
    where.pending = await assertClear(page, 'pending');
    // RELAY_SHOTS=<folder>: the page as the user sees it then (README's screenshot of the card beside typed text).
    if (process.env.RELAY_SHOTS) await page.screenshot({ path: join(process.env.RELAY_SHOTS, `card-${layout}-typing.png`) });

    // The user runs it (opening the folded line first where the cards are folded) and types on.
    await openIfFolded(page);
    await waitInClosedShadow(page, HOST, `${pending} button[data-action="run"][data-armed="true"]`, { timeoutMs: 10_000 });
    await trustedClickInClosedShadow(page, HOST, `${pending} button[data-action="run"]`);
    await waitInClosedShadow(page, HOST, '.card[data-state="running"] progress', { timeoutMs: 10_000 });
    await type(page, ' More words.');
    where.running = await assertClear(page, 'running');
    await clearComposer(page);

    // The countdown before the results are sent: they wait in the input, for review.
    await waitInClosedShadow(page, HOST, '.card .countdown', { timeoutMs: 30_000 });
    assert.match(await page.locator('#input').inputValue(), /tool-result/);
    where.countdown = await assertClear(page, 'countdown');
    // Cancel sending, from the card or, folded, from its line.
    const folded = (await closedShadowNodes(page, HOST, '.ui[data-collapsed="true"]')).length > 0;
    await trustedClickInClosedShadow(page, HOST, folded ? '.summary button[data-action="hold-send"]' : '.card button[data-action="hold-send"]');
    await waitInClosedShadow(page, HOST, '.card[data-unsent="true"]', { timeoutMs: 10_000 }).catch(async (e) => {
      const line = await pageWorldCallInClosedShadow(page, HOST, '.summary', 'function () { const r = this.getBoundingClientRect(); return [this.innerText, r.left, r.right, r.top, r.bottom]; }').catch(() => null);
      throw new Error(`${e.message}: folded ${folded}, line ${JSON.stringify(line)}, records ${JSON.stringify(await rig.call({ type: 'activity/list', chat: chatRef }))}`);
    });
    await openIfFolded(page);
    // Dismissed: the card is gone. (A click that landed while the cards were being placed
    // again missed it; the person clicks again, as they would.)
    const unsent = '.card[data-unsent="true"]';
    for (let attempt = 0; attempt < 3 && (await closedShadowNodes(page, HOST, unsent)).length > 0; attempt++) {
      await trustedClickInClosedShadow(page, HOST, `${unsent} button[data-action="dismiss"]`);
      await until(async () => (await closedShadowNodes(page, HOST, unsent)).length === 0, { timeoutMs: 3_000, what: 'the dismissed card gone' }).catch(() => {});
    }
    assert.equal((await closedShadowNodes(page, HOST, unsent)).length, 0, 'the dismissed card is gone');
    await clearComposer(page);
    await call({ type: 'settings/set', settings: { ...(await call({ type: 'settings/get' })), sendDelayMs: 0 } });

    // Three finished calls: one "3 calls" chip, clear of what the user types.
    await reply(page, chatRef, [block('add', { a: 1, b: 2 }), block('add', { a: 3, b: 4 }), block('add', { a: 5, b: 6 })].join('\n'));
    await waitInClosedShadow(page, HOST, '.chip[data-count="3"]', { timeoutMs: 30_000 });
    const open = await textsInClosedShadow(page, HOST, '.list .card');
    assert.equal(open.length, 0, `no open card for a finished call: ${JSON.stringify(open)}`);
    await type(page, TYPED);
    where.chip = await assertClear(page, 'chip');
    await openIfFolded(page);
    const [label] = await textsInClosedShadow(page, HOST, '.chip button[data-action="calls"]');
    assert.match(label, /^✓ 3 calls/);
    // A page script's click does not open it; the user's does, and the pills stay clear too.
    await pageWorldCallInClosedShadow(page, HOST, '.chip button[data-action="calls"]', 'function () { this.click(); }');
    assert.equal((await closedShadowNodes(page, HOST, '.done[data-open="true"]')).length, 0, 'still folded after a synthetic click');
    await trustedClickInClosedShadow(page, HOST, '.chip button[data-action="calls"]');
    await waitInClosedShadow(page, HOST, '.done[data-open="true"]', { timeoutMs: 5_000 });
    assert.equal((await closedShadowNodes(page, HOST, '.pills .card.pill[data-state="done"]')).length, 3);
    await type(page, ' And more.');
    where.pills = await assertClear(page, 'pills');
    t.diagnostic(`${layout}: ${JSON.stringify(where)}`);
  });
}
