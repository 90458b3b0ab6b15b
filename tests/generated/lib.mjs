// The whole tool loop on generated chat pages (tests/fixtures/generated: one chat site per
// seed, built from independent choices of every dimension), with the generic adapter, driven as
// a person drives it: the page added as a site, the server picked for the chat with auto-run
// and auto-send, Insert into chat, one send on the page (and the conversation's own steps:
// a greeting and New chat before, Regenerate, branches, a reload or an old conversation after).
// Shared by the fixed seeds of `cargo xtask test` (generated.test.mjs) and `cargo xtask sweep`.
//
// What each page is asked (one verdict per seed, every failed check named):
// - the page's model received the instructions with every line break, and every result;
// - each real call ran exactly once at the server (twice where the user regenerated the reply),
//   counted at the server's door; the draft in a thinking block and the old conversation's call
//   never ran;
// - no decoy control was ever pressed; the final answer appeared.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { launchExtension, openExtensionPage, coreCall, serveStatic, startProcess, until, ROOT, TARGET } from '../e2e/harness.mjs';
import { startCountingProxy } from '../e2e/counting-proxy.mjs';

export const GEN_DIR = join(ROOT, 'tests/fixtures/generated');

/** The generator's space as the page sees it: `{DIMENSIONS, pick}`. */
export function loadSpace() {
  const sandbox = /** @type {any} */ ({});
  sandbox.globalThis = sandbox;
  vm.runInNewContext(readFileSync(join(GEN_DIR, 'space.js'), 'utf8'), sandbox);
  const { DIMENSIONS, pick } = sandbox.ChatGenSpace;
  return { DIMENSIONS: /** @type {Record<string, string[]>} */ (JSON.parse(JSON.stringify(DIMENSIONS))), pick: (/** @type {number} */ s) => /** @type {Record<string, string>} */ (JSON.parse(JSON.stringify(pick(s, {})))) };
}

/**
 * The fewest seeds (greedily, from 1 up) whose pages together show every value of every
 * dimension, plus the regression seeds kept from earlier sweeps.
 * @param {number[]} regressions
 */
export function coveringSeeds(regressions = []) {
  const { DIMENSIONS, pick } = loadSpace();
  const missing = new Set(Object.entries(DIMENSIONS).flatMap(([d, vs]) => vs.map((v) => `${d}=${v}`)));
  for (const s of regressions) for (const [d, v] of Object.entries(pick(s))) missing.delete(`${d}=${v}`);
  const seeds = [...regressions];
  const candidates = Array.from({ length: 5000 }, (_, i) => i + 1);
  while (missing.size) {
    let best = 0, gain = 0;
    for (const s of candidates) {
      const g = Object.entries(pick(s)).filter(([d, v]) => missing.has(`${d}=${v}`)).length;
      if (g > gain) { best = s; gain = g; }
    }
    if (!gain) throw new Error(`no seed shows ${[...missing].join(', ')}`);
    seeds.push(best);
    for (const [d, v] of Object.entries(pick(best))) missing.delete(`${d}=${v}`);
  }
  return seeds;
}

/**
 * One browser with the extension, the demo MCP server behind a counting proxy, and the
 * generated site on one origin, registered as a custom site with the generic adapter.
 */
export async function startGenRig() {
  const server = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
    { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
  const proxy = await startCountingProxy(server.match[1]);
  const site = await serveStatic(GEN_DIR, { fallback: () => 'index.html' });
  const ext = await launchExtension();
  const panel = await openExtensionPage(ext, 'www/panel.html');
  const call = async (/** @type {any} */ m) => {
    const e = await coreCall(panel, m);
    if (!e.ok) throw new Error(`${m.type}: ${JSON.stringify(e.error)}`);
    return e.data;
  };
  const serverId = (await call({ type: 'servers/add', server: { name: 'demo', url: proxy.url } })).id;
  await call({ type: 'tools/policy', serverId, tool: 'add', policy: 'allow' });
  await call({ type: 'sites/add', origin: site.origin, adapter: 'generic' });
  // A person pastes into an editor that takes nothing else (editor=ce-paste).
  await ext.context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: site.origin });
  await until(() => ext.sw.evaluate(async (/** @type {string} */ id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin),
    { what: `content script for ${site.origin}` });
  return {
    ext, panel, proxy, site, serverId, call,
    async close() {
      await ext.close();
      await site.close();
      await proxy.close();
      await server.stop();
    },
  };
}

// Each run's calls carry a number of its own (the page's `?b=`): the real call adds 2 and b, the
// draft in a thinking block 1000 and b, the old conversation's call 7 and 1000 + b; so pages
// running at the same time against one server are told apart at its door.
let nextB = 100;
const ARGS = {
  draft: (/** @type {number} */ b) => (/** @type {any} */ a) => a.a === 1000 && a.b === b,
  old: (/** @type {number} */ b) => (/** @type {any} */ a) => a.a === 7 && a.b === 1000 + b,
};

/** The generator's record on a page (its top window holds it, also for the iframe structure). */
export const gen = (/** @type {import('playwright-core').Page} */ page) => page.evaluate(() => {
  const g = /** @type {any} */ (window).__gen;
  return g ? { ready: !!g.ready, received: [...g.received], sends: g.sends.map((/** @type {any} */ s) => ({ ...s })), decoys: g.decoys.map((/** @type {any} */ d) => ({ ...d })), dialogs: g.dialogs.length, done: [...g.done], finals: g.finals, streaming: !!g.streaming, conv: g.conv } : null;
});

/** A trusted click where the page says a person would click `name`. */
export async function press(/** @type {import('playwright-core').Page} */ page, /** @type {string} */ name) {
  const at = await until(() => page.evaluate((n) => /** @type {any} */ (window).__gen.point(n), name), { timeoutMs: 10_000, what: `the page's ${name} control` });
  await page.mouse.click(at.x, at.y);
}

// The system clipboard is the browser's, shared by the pages a sweep runs at once: one paste at
// a time, each held until the page shows what it pasted.
let clipboard = Promise.resolve();

/**
 * Text entered into the composer as a person enters it on this page: typed, or pasted (a real
 * Ctrl+V) where the editor's model takes pastes only.
 * @param {import('playwright-core').Page} page
 * @param {Record<string, string>} dims
 * @param {string} text
 */
async function enter(page, dims, text) {
  await press(page, 'composer');
  if (dims.editor !== 'ce-paste') { await page.keyboard.type(text); return; }
  const run = clipboard.then(async () => {
    await page.evaluate((t) => navigator.clipboard.writeText(t), text);
    await page.keyboard.press('ControlOrMeta+V');
    await until(async () => (await Promise.all(page.frames().map((f) => f.evaluate(focusedText).catch(() => '')))).some((t) => t.includes(text)),
      { timeoutMs: 5_000, what: 'the pasted text in the composer' });
  });
  clipboard = run.catch(() => {});
  await run;
}

/** The text of the element that has the focus in a frame, through open shadow roots (runs in the page). */
function focusedText() {
  /** @type {any} */
  let a = document.activeElement;
  while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
  if (!a || a === document.body || a.localName === 'iframe') return '';
  return typeof a.value === 'string' ? a.value : a.innerText || '';
}

/** The tab's chat as the side panel names it (its tab, its URL now). */
export async function chatOf(/** @type {any} */ rig, /** @type {import('playwright-core').Page} */ page) {
  const tabs = await rig.ext.sw.evaluate(async (/** @type {string} */ u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
  return { tabId: Math.max(...tabs), url: page.url() };
}

/** The user's own send on the page: the send control, or the key the page sends with. */
async function userSend(/** @type {import('playwright-core').Page} */ page, /** @type {Record<string, string>} */ dims) {
  await press(page, 'send');
  if (dims.guard === 'dialog') {
    // A long message: the page asks first; the person answers "Send anyway".
    const asked = await until(async () => (await gen(page))?.dialogs || (await gen(page))?.sends.length, { timeoutMs: 5_000, what: 'the send or the page\'s dialog' }).catch(() => 0);
    if (asked && (await gen(page))?.dialogs) {
      const at = await page.evaluate(() => /** @type {any} */ (window).__gen.point('dialog-anyway'));
      if (at) await page.mouse.click(at.x, at.y);
    }
  }
}

/**
 * Waits until the extension is ready in every frame of the site, the app's own frame too
 * (structure=iframe): its first look at the page then precedes the person's first message,
 * which it would otherwise take for a conversation shown at load.
 * @param {any} rig
 * @param {import('playwright-core').Page} page
 * @param {string} [also] more of the selector of our UI's host
 */
async function extensionReady(rig, page, also = '') {
  for (const f of page.frames().filter((fr) => fr.url().startsWith(rig.site.origin))) {
    await f.locator(`mcp-relay-ui[data-state="ready"]${also}`).waitFor({ state: 'attached', timeout: 15_000 });
  }
}

/** Waits until the core has looked at the page and decided every turn it shows. */
async function settled(/** @type {any} */ rig, /** @type {any} */ chat, /** @type {import('playwright-core').Page} */ page) {
  await until(async () => {
    const view = await rig.call({ type: 'page/state', chat: { ...chat, url: page.url() } });
    return !!view && view.url === page.url() && view.turns.every((/** @type {any} */ t) => t.state !== 'live' && t.state !== 'undecided');
  }, { timeoutMs: 20_000, what: 'every turn on the page seen and decided by the core' });
}

/**
 * Runs the loop on the page of `seed`; resolves with `{seed, dims, ok, failures, ms}` (never
 * throws for a page's failure: the sweep goes on).
 * @param {any} rig
 * @param {number} seed
 * @param {{delay?: number}} [opts]
 */
export async function runSeed(rig, seed, { delay = 4 } = {}) {
  const { pick } = loadSpace();
  const dims = pick(seed);
  const started = Date.now();
  /** @type {string[]} */
  const failures = [];
  const page = await rig.ext.context.newPage();
  const b = nextB++;
  const real = (/** @type {any} */ a) => a.a === 2 && a.b === b;
  const before = { real: rig.proxy.count('add', real), draft: rig.proxy.count('add', ARGS.draft(b)), old: rig.proxy.count('add', ARGS.old(b)) };
  try {
    // A regenerated reply streams as a person sees one stream: at 4 ms a token it appears whole
    // in the look after the click, as a re-render of the old reply would, which the page
    // model takes for the reply it was (its documented limit without a streaming signal).
    const pace = dims.conversation === 'regenerate' || dims.conversation === 'branch-back' ? Math.max(delay, 12) : delay;
    await page.goto(`${rig.site.origin}/?seed=${seed}&delay=${pace}&b=${b}`);
    await until(async () => (await gen(page))?.ready, { what: 'the generated page built' });
    await extensionReady(rig, page, '[data-adapter="generic"]');
    let sends = 0;
    if (dims.conversation === 'newchat') {
      await enter(page, dims, 'Hello there');
      await press(page, 'send');
      await until(async () => (await gen(page))?.done.length >= 1, { timeoutMs: 20_000, what: 'the greeting answered' });
      sends += 1;
      const conv = (await gen(page))?.conv;
      await press(page, 'newchat');
      await until(async () => (await gen(page))?.conv !== conv, { what: 'the new conversation' });
    }
    const chat = await chatOf(rig, page);
    await rig.call({ type: 'chat/set', chat, settings: { serverIds: [rig.serverId], autoExecute: true, autoSubmit: true } });
    const prompt = await rig.call({ type: 'prompt/build', chat });
    const inserted = await rig.call({ type: 'chat/insert', chat, text: prompt.text, submit: false });
    if (!inserted.inserted) throw new Error(`Insert failed: ${inserted.error || JSON.stringify(inserted)}`);
    await userSend(page, dims);
    const instructionsAt = sends;
    let finals = 1, runs = 1;
    await until(async () => (await gen(page))?.finals >= 1, { timeoutMs: 45_000, what: 'the final answer' });
    sends += 2;
    if (dims.conversation === 'regenerate' || dims.conversation === 'branch-back') {
      await press(page, 'regenerate');
      finals = 2; runs = 2; sends += 1;
      await until(async () => (await gen(page))?.finals >= 2, { timeoutMs: 45_000, what: 'the final answer after Regenerate' });
      if (dims.conversation === 'branch-back') {
        await press(page, 'branch-prev');
        await settled(rig, chat, page);
        await press(page, 'branch-next');
        await settled(rig, chat, page);
      }
    } else if (dims.conversation === 'reload') {
      await page.reload();
      await until(async () => (await gen(page))?.ready, { what: 'the page built again' });
      await extensionReady(rig, page);
      await settled(rig, chat, page);
    } else if (dims.conversation === 'old') {
      const conv = (await gen(page))?.conv;
      await press(page, 'old');
      await until(async () => (await gen(page))?.conv !== conv, { what: 'the old conversation opened' });
      await settled(rig, chat, page);
    }
    // Every delivery the core made is on the page before anything is counted.
    await until(async () => (await gen(page))?.received.length >= sends && !(await gen(page))?.streaming, { timeoutMs: 20_000, what: `${sends} messages received` });
    const g = /** @type {any} */ (await gen(page));
    const check = (/** @type {boolean} */ ok, /** @type {string} */ what) => { if (!ok) failures.push(what); };
    const breaks = (/** @type {string} */ s) => (s.trim().match(/\n/g) || []).length;
    const got = g.received[instructionsAt] || '';
    check(breaks(got) === breaks(prompt.text), `the instructions reached the page's model with ${breaks(got)} of ${breaks(prompt.text)} line breaks`);
    check(got.includes(prompt.text.trim().split('\n')[0].trim()), 'the instructions reached the page\'s model');
    check(g.received.length === sends, `the page's model received ${g.received.length} messages, ${sends} expected`);
    const results = g.received.filter((/** @type {string} */ r, /** @type {number} */ i) => i !== instructionsAt && /tool-result/.test(r));
    check(results.length === runs, `${results.length} results reached the page's model, ${runs} expected`);
    const answers = g.done.filter((/** @type {string} */ d) => d.includes(`Final answer: ${2 + b}.`)).length;
    check(answers >= finals, `${answers} right final answers, ${finals} expected`);
    const ran = rig.proxy.count('add', real) - before.real;
    check(ran === runs, `the call ran ${ran} times at the server, ${runs} expected`);
    check(rig.proxy.count('add', ARGS.draft(b)) === before.draft, 'the draft in the thinking block ran');
    check(rig.proxy.count('add', ARGS.old(b)) === before.old, 'the old conversation\'s call ran');
    check(g.decoys.length === 0, `decoys pressed: ${g.decoys.map((/** @type {any} */ d) => d.label).join(', ')}`);
  } catch (e) {
    failures.push(String(/** @type {any} */ (e)?.message || e).split('\n')[0]);
  }
  if (failures.length) failures.push(`what the page and the core show: ${await diagnose(rig, page).catch((e) => String(e))}`);
  try {
    // (the page is closed below)
  } finally {
    await page.close().catch(() => {});
  }
  return { seed, dims, ok: failures.length === 0, failures, ms: Date.now() - started };
}

/** What a failed page and the core show, in one line: the page's record and the core's view of the tab. */
async function diagnose(/** @type {any} */ rig, /** @type {import('playwright-core').Page} */ page) {
  const g = await gen(page);
  const chat = await chatOf(rig, page);
  const view = await rig.call({ type: 'page/state', chat });
  const calls = await rig.call({ type: 'activity/list', chat });
  const site = await rig.call({ type: 'sites/check', chat }).catch((/** @type {any} */ e) => ({ error: String(e) }));
  return JSON.stringify({
    check: site && { checks: (site.checks || []).map((/** @type {any} */ c) => `${c.part}: ${c.selector} ×${c.matches}`), found: site.found && { ...site.found, lastReply: String(site.found.lastReply || '').slice(0, 60) } },
    url: page.url(),
    received: g && g.received.map((r) => `${r.length} chars: ${r.slice(0, 40)}…`), sends: g && g.sends.map((s) => s.via), dialogs: g && g.dialogs, decoys: g && g.decoys.map((d) => d.label),
    done: g && g.done.map((d) => d.slice(-40)),
    turns: view && view.turns.map((/** @type {any} */ t) => `${t.state}${t.onPage ? '' : ' (gone)'} ${t.length}`),
    calls: calls.map((/** @type {any} */ c) => `${c.tool}(${JSON.stringify(c.arguments)}) ${c.state}${c.delivered ? ' delivered' : ''}${c.error ? ' ' + JSON.stringify(c.error).slice(0, 200) : ''}`),
  });
}

/**
 * The sweep's table: per dimension value, the pages, the passes and the first failing seed.
 * @param {{seed: number, dims: Record<string, string>, ok: boolean}[]} results
 */
export function table(results) {
  const { DIMENSIONS } = loadSpace();
  const lines = ['| dimension | value | pages | passed | first failure |', '|---|---|---|---|---|'];
  for (const [d, values] of Object.entries(DIMENSIONS)) {
    for (const v of values) {
      const here = results.filter((r) => r.dims[d] === v);
      const failed = here.find((r) => !r.ok);
      lines.push(`| ${d} | ${v} | ${here.length} | ${here.filter((r) => r.ok).length} | ${failed ? failed.seed : '—'} |`);
    }
  }
  return lines.join('\n');
}

export { assert };
