// `cargo xtask demo`: MCP Relay's main job on bundled defaults, done the way a user does it.
// Starts the bundled demo MCP server and a demo chat (a scripted assistant), launches Chromium
// with the extension, and walks the loop through the side panel's UI and the chat page: the
// chat site added in Settings, the server added in Servers (from the first-run guide), picked in
// This chat with auto-run and auto-send on, the instructions inserted, a question sent, the first
// call approved ("Always allow") in Activity, the second call run by itself, the final answer;
// then a call with an interface (the notes board, an MCP App) opened from Activity in the panel.
//
// The side panel: Chromium's own side panel cannot be opened or captured by automation, so the
// panel page (www/panel.html, unchanged) is opened as an extension page in its own tab at a side
// panel's width. It works on the chat tab exactly as the side panel does (www/core.js
// currentChat: the active tab, or the most recent chat tab when the panel is the active tab).
// Each screenshot is the panel's and the chat's own captures put side by side into one PNG (by
// a separate plain browser: nothing is composed inside the extension's pages).
//
// Each screenshot's state is checked through the DOM right before and right after it is taken
// (the demo fails otherwise), and recorded in manifest.json beside the pictures.
// `--screenshots DIR` also writes them (and the manifest) into DIR: `cargo xtask demo
// --screenshots docs/screenshots` regenerates the README's pictures; tests/demo/screenshots.test.mjs
// fails when those are missing or their manifest differs from a fresh run's.
// Headless it prints each step; with RELAY_HEADED=1 it leaves the browser open.
import { mkdirSync, writeFileSync, copyFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import {
  launchExtension, openExtensionPage, serveStatic, startProcess, until, waitInClosedShadow, textsInClosedShadow, closedShadowNodes, ROOT, TARGET,
} from '../e2e/harness.mjs';

const argv = process.argv.slice(2);
const outDir = argv[0] === '--screenshots' && argv[1] ? resolve(argv[1]) : null;
if (argv.length && !outDir) {
  console.error('usage: node tests/demo/demo.mjs [--screenshots DIR]');
  process.exit(2);
}
const headed = !outDir && process.env.RELAY_HEADED === '1';
const shotsDir = join(TARGET, 'demo');
mkdirSync(shotsDir, { recursive: true });
if (outDir) mkdirSync(outDir, { recursive: true });

/** The panel at a side panel's width, the chat beside it. */
const PANEL = { width: 400, height: 820 };
const CHAT = { width: 880, height: 820 };
/** The composed picture's scale (keeps the committed PNGs small). */
const SCALE = 0.75;
const QUESTION = 'What is 2 + 3 + 4?';
/** The question whose call has an app (the notes board), and the note added from the app. */
const BOARD_QUESTION = 'Show my notes on a board.';
const BOARD_NOTE = 'Try the notes board';

let stepNo = 0;
const step = (msg) => console.log(`[demo] ${String(++stepNo).padStart(2)}. ${msg}`);

/**
 * Text as a picture shows it, without what changes from run to run: the port of a local URL,
 * durations, tab ids and other long numbers.
 */
function stable(text) {
  return String(text)
    .replace(/127\.0\.0\.1:\d+/g, '127.0.0.1:<port>')
    .replace(/\(tab \d+\)/g, '(tab <id>)')
    .replace(/id="c_[0-9a-f]+"/g, 'id="<call>"')
    .replace(/\b\d+(?:\.\d+)?\s?(?:ms|s)\b/g, '<time>')
    .replace(/\b\d{5,}\b/g, '<n>')
    .replace(/[ \t]+\n/g, '\n')
    .trim();
}

/** The panel's visible view and guide, as the user sees them. */
const panelState = (panel) => panel.evaluate(() => {
  const view = document.querySelector('[role="tabpanel"]:not([hidden])');
  const guide = document.getElementById('guide');
  return {
    view: view ? view.id.replace(/^view-/, '') : null,
    guide: guide && !guide.hidden ? guide.dataset.step : null,
    text: view ? view.innerText : '',
  };
});

/** The chat's turns (role and text) and its input. */
const chatState = (chat) => chat.evaluate(() => ({
  turns: [...document.querySelectorAll('.turn')].map((t) => ({ role: t.dataset.role, text: t.innerText })),
  input: document.getElementById('input').value,
  replying: !document.getElementById('stop').hidden,
}));

/** The call cards on the chat page (inside their closed shadow root, read through CDP). */
async function cardState(chat) {
  const states = [];
  for (const sel of ['.list .card', '.pills .card']) {
    const texts = await textsInClosedShadow(chat, 'mcp-relay-ui', sel);
    for (const text of texts) states.push({ where: sel.includes('pills') ? 'pill' : 'card', text });
  }
  return states;
}

let composer = null;
/** Puts the panel's and the chat's captures side by side into one PNG (a plain browser page). */
async function compose(panelPng, chatPng) {
  composer ??= await (await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless=new', '--no-sandbox', '--disable-gpu'] })).newPage({
    viewport: { width: Math.round((PANEL.width + CHAT.width + 2) * SCALE), height: Math.round(CHAT.height * SCALE) },
  });
  const img = (png, w) => `<img src="data:image/png;base64,${png.toString('base64')}" style="width:${w * SCALE}px;height:${CHAT.height * SCALE}px;display:block">`;
  await composer.setContent(`<body style="margin:0;display:flex;gap:${2 * SCALE}px;background:#888">${img(chatPng, CHAT.width)}${img(panelPng, PANEL.width)}</body>`);
  await composer.waitForFunction(() => [...document.images].every((i) => i.complete && i.naturalWidth > 0));
  return composer.screenshot({ type: 'png' });
}

const manifest = {
  note: 'Generated by `cargo xtask demo --screenshots docs/screenshots`. Each shot\'s state was checked through the DOM when it was taken; tests/demo/screenshots.test.mjs compares these states with a fresh run (not the pixels).',
  size: { width: Math.round((PANEL.width + CHAT.width + 2) * SCALE), height: Math.round(CHAT.height * SCALE) },
  shots: [],
};

/**
 * Takes one screenshot: `check()` must hold (it returns the state to record) right before and
 * right after both captures, or the demo fails.
 */
async function shot(file, shows, { panel, chat }, check) {
  const before = await check();
  const [panelPng, chatPng] = [await panel.screenshot(), await chat.screenshot()];
  const after = await check();
  assert.deepEqual(after, before, `${file}: the state changed while it was taken`);
  const png = await compose(panelPng, chatPng);
  writeFileSync(join(shotsDir, file), png);
  if (outDir) copyFileSync(join(shotsDir, file), join(outDir, file));
  manifest.shots.push({ file, shows, state: before });
  step(`screenshot ${file}: ${shows}`);
}

async function main() {
  const cleanup = [];
  try {
    const server = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
      { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
    cleanup.push(server.stop);
    const serverUrl = server.match[1];
    step(`demo MCP server (rmcp) listening on ${serverUrl}`);

    const site = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
    cleanup.push(site.close);
    step(`demo chat served on ${site.origin}`);

    const ext = await launchExtension({ headed, lang: 'en-US' });
    if (!headed) cleanup.push(ext.close);
    cleanup.push(async () => { await composer?.context().browser()?.close(); });
    step(`Chromium started with MCP Relay (extension id ${ext.extensionId})`);

    const panel = await openExtensionPage(ext, 'www/panel.html#settings');
    await panel.setViewportSize(PANEL);
    await panel.locator('#core-status[data-state="ready"]').waitFor({ timeout: 10_000 });

    // The demo chat is a page on this machine: added in Settings as a user adds a self-hosted chat.
    await panel.locator('#site-origin').fill(site.origin);
    await panel.selectOption('#site-adapter', 'generic');
    await panel.click('#site-add');
    await panel.locator(`#sites-list li[data-origin="${site.origin}"]`).waitFor({ timeout: 10_000 });
    step('Settings → Sites: the demo chat added (generic adapter)');

    const chat = await ext.context.newPage();
    await chat.setViewportSize(CHAT);
    await chat.goto(site.origin + '/');
    await chat.locator('mcp-relay-ui[data-state="ready"]').waitFor({ state: 'attached', timeout: 10_000 });
    step('demo chat opened; the content script is connected to the core');
    const pages = { panel, chat };

    // Servers, from the guide's first step.
    await panel.click('#tab-servers');
    await panel.locator('#guide[data-step="addServer"]').waitFor({ timeout: 10_000 });
    await panel.click('#guide-add');
    const dialog = panel.locator('dialog.server-dialog');
    await dialog.locator('input[name="name"]').fill('demo');
    await dialog.locator('input[name="url"]').fill(serverUrl);
    await dialog.locator('button[type="submit"]').click();
    const row = panel.locator('#view-servers li.server[data-status="connected"]');
    await row.waitFor({ timeout: 15_000 });
    await panel.locator('#guide[data-step="pickServers"]').waitFor({ timeout: 10_000 });
    step(`Servers: "demo" added and connected (${stable(await row.locator('.server-head').innerText()).replace(/\s+/g, ' ')})`);
    await shot('1-server-added.png', 'Servers: the demo server added and connected; the guide says what is next', pages, async () => {
      const p = await panelState(panel);
      assert.equal(p.view, 'servers');
      assert.equal(p.guide, 'pickServers');
      assert.equal(await panel.locator('#view-servers li.server[data-status="connected"]').count(), 1);
      // The server list (the local-servers section below it depends on this machine's native host).
      const list = await panel.locator('#view-servers ul.server-list').innerText();
      return { panel: { view: p.view, guide: p.guide, servers: stable(list) } };
    });

    // This chat: pick the server, auto-run and auto-send on.
    await panel.click('#guide-chat');
    const pick = panel.locator('#view-chat .chat-servers input[type="checkbox"]').first();
    await pick.check();
    await panel.locator('#prompt-stats').waitFor({ timeout: 10_000 });
    for (const id of ['#chat-auto-execute', '#chat-auto-submit']) {
      await panel.locator(id).check();
      await until(() => panel.locator(id).isChecked(), { what: `${id} on` });
    }
    await panel.locator('#guide[data-step="insert"]').waitFor({ timeout: 10_000 });
    step(`This chat: "demo" picked, auto-run and auto-send on (${await panel.locator('#prompt-stats').innerText()})`);
    await shot('2-chat-servers-picked.png', 'This chat: the server picked for the chat, auto-run and auto-send on; the instructions ready to insert', pages, async () => {
      const p = await panelState(panel);
      assert.equal(p.view, 'chat');
      assert.equal(await pick.isChecked(), true);
      assert.equal(await panel.locator('#chat-auto-execute').isChecked(), true);
      assert.equal(await panel.locator('#chat-auto-submit').isChecked(), true);
      // The prompt itself scrolls in its own box: recorded as a placeholder.
      const prompt = await panel.locator('#prompt-text').innerText();
      return { panel: { view: p.view, guide: p.guide, text: stable(p.text.replace(prompt, '<prompt>')) } };
    });

    // Insert, then the question, then Send.
    await panel.click('#prompt-insert');
    await until(async () => (await chat.locator('#input').inputValue()).includes('"arguments"'), { what: 'the instructions in the chat input' });
    step('This chat → Insert: the instructions are in the chat input');
    await chat.bringToFront();
    await chat.locator('#input').focus();
    await chat.keyboard.press('Control+End');
    // Shift+Enter makes a new line (Enter sends, as on chat sites).
    await chat.keyboard.press('Shift+Enter');
    await chat.keyboard.press('Shift+Enter');
    await chat.keyboard.type(QUESTION);
    await chat.click('#send');
    step(`question typed under them and sent: "${QUESTION}"`);

    // The first call waits: add is not allowed yet ("ask").
    await waitInClosedShadow(chat, 'mcp-relay-ui', '.card[data-state="pending"]', { timeoutMs: 20_000 }).catch(async (e) => {
      const c = await chatState(chat);
      throw new Error(`${e.message}; the chat shows: ${JSON.stringify(c.turns.map((x) => `${x.role}: ${x.text.slice(-300)}`))}; cards: ${JSON.stringify(await cardState(chat))}`);
    });
    await chat.locator('#stop').waitFor({ state: 'hidden', timeout: 20_000 });
    await panel.click('#tab-activity');
    const waiting = panel.locator('#view-activity article.call[data-state="pending"]');
    await waiting.waitFor({ timeout: 10_000 });
    step('the assistant called add: the call waits for approval (card on the page, Activity in the panel)');
    await shot('3-call-waiting.png', 'The call waiting for approval: its card beside the reply, and in Activity', pages, async () => {
      const p = await panelState(panel);
      assert.equal(p.view, 'activity');
      assert.equal(await waiting.count(), 1);
      const c = await chatState(chat);
      assert.equal(c.replying, false);
      const cards = await cardState(chat);
      assert.equal(cards.length, 1);
      assert.equal((await closedShadowNodes(chat, 'mcp-relay-ui', '.list .card[data-state="pending"] button[data-action="run"]')).length, 1);
      return { panel: { view: p.view, text: stable(p.text) }, chat: { lastReply: stable(c.turns.at(-1).text) }, cards: cards.map((x) => ({ ...x, text: stable(x.text) })) };
    });

    // Approve in Activity: "Always allow" runs it and allows add from now on. The scripted
    // assistant is held before its next reply (the page's own switch, see assistant.js) until
    // the result has been seen in the chat.
    await chat.evaluate(() => { /** @type {any} */ (window).demoChatPaused = true; });
    await waiting.locator('button[data-decision="always"]').click();
    step('Activity → Always allow: the call runs; add no longer asks');
    // The result's message: a user turn holding a tool-result block.
    const resultTurn = chat.locator('.turn[data-role="user"]').filter({ has: chat.locator('pre .bar span', { hasText: /^tool-result/ }) }).first();
    await resultTurn.waitFor({ timeout: 20_000 });
    step('the result went back into the chat and was sent (auto-send)');
    await shot('4-result-in-chat.png', 'The result in the chat, sent by itself; the finished call is a small pill', pages, async () => {
      assert.equal(await resultTurn.count(), 1);
      const c = await chatState(chat);
      assert.equal(c.turns.at(-1).role, 'user', 'the next reply has not started');
      const text = await resultTurn.innerText();
      assert.equal(c.turns.at(-1).text, text, 'the result is the last message');
      assert.match(text, /tool="add"[\s\S]*\b5\b/);
      assert.equal((await closedShadowNodes(chat, 'mcp-relay-ui', '.pills .card.pill[data-state="done"]')).length >= 1, true);
      return { chat: { result: stable(text) } };
    });

    await chat.evaluate(() => { /** @type {any} */ (window).demoChatPaused = false; });
    // The second call runs without asking (allowed, auto-run on), then the final answer.
    const final = chat.locator('.turn[data-role="assistant"]', { hasText: 'Final answer' });
    await final.waitFor({ timeout: 30_000 });
    await chat.locator('#stop').waitFor({ state: 'hidden', timeout: 20_000 });
    await until(async () => (await panel.locator('#view-activity article.call[data-state="done"]').count()) === 2, { what: 'both calls done in Activity' });
    step(`the second add ran by itself; the assistant answered: ${(await final.innerText()).trim()}`);
    await shot('5-final-answer.png', 'The final answer; Activity shows both calls, the second one run by itself', pages, async () => {
      const c = await chatState(chat);
      assert.equal(c.replying, false);
      assert.match(c.turns.at(-1).text, /Final answer: 2 \+ 3 \+ 4 = 9/);
      const p = await panelState(panel);
      assert.equal(p.view, 'activity');
      assert.equal(await panel.locator('#view-activity article.call[data-state="done"]').count(), 2);
      return { panel: { view: p.view, text: stable(p.text) }, chat: { roles: c.turns.map((x) => x.role), answer: stable(c.turns.at(-1).text) } };
    });

    // An app: the chat asks for the notes board; its call (approved once in Activity) has an
    // interface, opened from Activity into the panel, where a note is added from the app itself.
    await chat.bringToFront();
    await chat.locator('#input').fill(BOARD_QUESTION);
    await chat.click('#send');
    const boardCall = panel.locator('#view-activity article.call[data-state="pending"]');
    await boardCall.waitFor({ timeout: 20_000 });
    await chat.locator('#stop').waitFor({ state: 'hidden', timeout: 20_000 });
    await boardCall.locator('button[data-decision="run"]').click();
    const boardReply = chat.locator('.turn[data-role="assistant"]', { hasText: 'in the side panel, from Activity' });
    await boardReply.waitFor({ timeout: 30_000 });
    await chat.locator('#stop').waitFor({ state: 'hidden', timeout: 20_000 });
    step(`"${BOARD_QUESTION}": notes_board ran once (Activity → Run); the assistant answered: ${(await boardReply.innerText()).trim()}`);
    await panel.locator('#view-activity article.call[data-state="done"] button[data-action="open-app"]').click();
    const appView = panel.locator('section.app-view[data-tool="notes_board"]');
    await appView.waitFor({ timeout: 10_000 });
    const board = await until(() => panel.frames().find((f) => f.parentFrame()?.url().endsWith('/www/app/frame.html')), { timeoutMs: 15_000, what: "the app's frame" });
    await board.locator('body[data-state="rendered"]').waitFor({ timeout: 15_000 });
    step('Activity → Open app: the notes board renders the call\'s result in the panel');
    await board.locator('#title').fill(BOARD_NOTE);
    await board.locator('#add-note').click();
    // notes_add asks before it runs: the panel asks the user, never the app.
    await appView.locator('button[data-action="app-approve"]').click();
    await board.locator('#answer', { hasText: /^Added note #\d+/ }).waitFor({ timeout: 15_000 });
    await until(async () => (await appView.locator('.app-status').innerText()) === '', { what: "the panel's question gone from the app" });
    // The app reports its size; the panel sizes its frame to it (no scrolling inside).
    const fits = () => board.evaluate(() => document.documentElement.scrollHeight <= window.innerHeight);
    await until(fits, { what: 'the app sized to its content' });
    step(`the app added "${BOARD_NOTE}" through notes_add, approved in the panel`);
    await shot('7-app-in-panel.png', "An app in the side panel: the notes board of the chat's notes_board call, a note added from it", pages, async () => {
      const p = await panelState(panel);
      assert.equal(p.view, 'activity');
      assert.equal(await appView.count(), 1);
      assert.equal(await appView.locator('.app-status').innerText(), '', 'no question waits in the app');
      assert.equal(await board.locator('body').getAttribute('data-state'), 'rendered');
      assert.equal(await board.locator('#cards li').count(), 1);
      assert.equal(await fits(), true, 'the app fits its frame');
      const c = await chatState(chat);
      assert.equal(c.replying, false);
      return {
        app: { head: stable(await appView.locator('.app-head').innerText()), board: stable(await board.locator('body').innerText()) },
        chat: { lastReply: stable(c.turns.at(-1).text) },
      };
    });

    writeFileSync(join(shotsDir, 'manifest.json'), JSON.stringify(manifest, null, 2) + '\n');
    if (outDir) copyFileSync(join(shotsDir, 'manifest.json'), join(outDir, 'manifest.json'));
    step(`screenshots in ${shotsDir}${outDir ? ` and ${outDir}` : ''}`);
    if (headed) {
      step('the browser stays open: close it to end the demo');
      await new Promise((r) => ext.context.once('close', r));
    }
  } finally {
    for (const stop of cleanup.reverse()) await stop().catch(() => {});
  }
}

main().then(() => process.exit(0), (e) => {
  console.error(`[demo] failed: ${e.stack || e}`);
  process.exit(1);
});
