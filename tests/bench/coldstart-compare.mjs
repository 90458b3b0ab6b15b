// Two builds of the extension side by side in one browser: this checkout and another one's
// build (DIR), both loaded at once, cold starts alternating between them. Before each start
// every worker is stopped; then one extension page sends its worker one message (`ping`, then
// `servers/list`, which reads the state first, then `local/plan`, work of the second module
// where the build has one: its first use in the worker's life) and times the answer. Whatever the machine or the
// browser does meanwhile falls on both builds alike, which separate browsers one after the
// other did not give (the same build measured 41 and 52 ms in two runs of the earlier version of
// this script; BENCHMARKS.md, "Cold start").
//
//   node tests/bench/coldstart-compare.mjs --base DIR [--runs 30] [--messages ping,servers/list]
//
// DIR is another checkout's root after its own `cargo xtask build` (for example `git worktree
// add /tmp/base main && cd /tmp/base && CARGO_TARGET_DIR=/tmp/base-target cargo xtask build`).
// Its extension is copied to a temporary folder without the manifest's `key`, so that Chrome
// gives it an ID of its own. Prints each build's median per message and its module's
// size gzipped; the first start of each build is not counted.
import { chromium } from 'playwright-core';
import { cpSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { gzipSync } from 'node:zlib';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { timedMessage, workerControl } from './worker-control.mjs';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const args = process.argv.slice(2);
const opt = (f, d) => { const i = args.indexOf(f); return i < 0 ? d : args[i + 1]; };
const base = opt('--base', '');
const runs = Math.max(3, Math.min(200, Number(opt('--runs', '30'))));
const built = (dir) => ['relay_wasm_bg.wasm.gz', 'relay_wasm_bg.wasm'].some((f) => existsSync(path.join(dir, 'extension/pkg', f)));
if (!base || !built(base)) {
  console.error('usage: node tests/bench/coldstart-compare.mjs --base DIR (a checkout whose `cargo xtask build` has run)');
  process.exit(2);
}

/** The extension ID Chrome derives from a manifest's `key`: SHA-256 of the key, a–p for 0–f. */
const idOf = (key) => [...createHash('sha256').update(Buffer.from(key, 'base64')).digest('hex').slice(0, 32)]
  .map((c) => String.fromCharCode(97 + parseInt(c, 16))).join('');

/** The module's size gzipped (level 9); a build that ships it gzipped has the file already. */
function shippedSize(dir) {
  const gz = path.join(dir, 'extension/pkg/relay_wasm_bg.wasm.gz');
  return existsSync(gz) ? readFileSync(gz).length : gzipSync(readFileSync(path.join(dir, 'extension/pkg/relay_wasm_bg.wasm')), { level: 9 }).length;
}

/** The messages timed, each after a cold start (`--messages` picks some). */
const ALL_MESSAGES = {
  ping: { type: 'ping' },
  'servers/list': { type: 'servers/list' },
  'local/plan': { type: 'local/plan', json: JSON.stringify({ mcpServers: { fs: { command: 'npx', args: ['-y', 'server-fs'] } } }) },
};
const picked = opt('--messages', Object.keys(ALL_MESSAGES).join(',')).split(',');
const MESSAGES = Object.fromEntries(Object.entries(ALL_MESSAGES).filter(([type]) => picked.includes(type)));
if (!Object.keys(MESSAGES).length) {
  console.error(`--messages: one or more of ${Object.keys(ALL_MESSAGES).join(', ')}`);
  process.exit(2);
}

const copy = mkdtempSync(path.join(tmpdir(), 'relay-base-ext-'));
const profile = mkdtempSync(path.join(tmpdir(), 'relay-compare-profile-'));
let context;
try {
  for (const part of ['extension', 'www', '_locales', 'icons', 'tests/bench/coldstart.html']) {
    if (existsSync(path.join(base, part))) cpSync(path.join(base, part), path.join(copy, part), { recursive: true });
  }
  const manifest = JSON.parse(readFileSync(path.join(base, 'manifest.json'), 'utf8'));
  delete manifest.key;
  writeFileSync(path.join(copy, 'manifest.json'), JSON.stringify(manifest));
  const thisId = idOf(JSON.parse(readFileSync(path.join(root, 'manifest.json'), 'utf8')).key);

  const dirs = `${root},${copy}`;
  context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: false, viewport: { width: 1100, height: 800 },
    args: ['--headless=new', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-quic',
      '--disable-background-networking', '--disable-component-update', '--disable-sync',
      `--disable-extensions-except=${dirs}`, `--load-extension=${dirs}`,
      '--disable-features=DisableLoadExtensionCommandLineSwitch'],
  });
  // Both workers running (bounded: 20 s).
  for (let t = 0; t < 400 && context.serviceWorkers().length < 2; t++) await new Promise((r) => setTimeout(r, 50));
  const ids = [...new Set(context.serviceWorkers().map((sw) => new URL(sw.url()).host))];
  const baseId = ids.find((id) => id !== thisId);
  if (ids.length < 2 || !ids.includes(thisId) || !baseId) throw new Error(`expected both builds' workers, found ${ids.join(', ')}`);

  /** @type {Record<string, { id: string, page: import('playwright-core').Page, stop: () => Promise<void>, totals: Record<string, number[]>, fetchCompile: number[] }>} */
  const builds = {};
  for (const [name, id] of [['base', baseId], ['this', thisId]]) {
    const page = await context.newPage();
    await page.goto(`chrome-extension://${id}/tests/bench/coldstart.html`);
    const { stop } = await workerControl(context, page);
    builds[name] = { id, page, stop, totals: Object.fromEntries(Object.keys(MESSAGES).map((t) => [t, []])), fetchCompile: [] };
  }

  /** One cold start of `build` answering `type`: ms, or null when Chrome dropped the message. */
  async function start(build, type) {
    await build.stop();
    return timedMessage(build.page, MESSAGES[type]);
  }

  /** The start-up marks of the running worker of extension `id` (background.js), if it has them. */
  async function marks(id) {
    for (let t = 0; t < 50; t++) {
      for (const sw of context.serviceWorkers().filter((w) => new URL(w.url()).host === id).reverse()) {
        const m = await sw.evaluate(() => globalThis.__relayStartup).catch(() => undefined);
        if (m && m.answer !== undefined) return m;
      }
      await new Promise((r) => setTimeout(r, 20));
    }
    return undefined;
  }

  for (let i = 0; i <= runs; i++) {
    for (const type of Object.keys(MESSAGES)) {
      // Alternate which build starts first.
      for (const name of i % 2 === 0 ? ['base', 'this'] : ['this', 'base']) {
        let total = null;
        // A message Chrome drops while a forced stop is torn down is sent again (as in
        // coldstart.bench.mjs): bounded attempts, each waiting longer.
        for (let attempt = 1; attempt <= 24 && total === null; attempt++) {
          total = await start(builds[name], type);
          if (total === null) await new Promise((r) => setTimeout(r, 250 * Math.min(attempt, 8)));
        }
        if (total === null) throw new Error(`${name}: a cold start's ${type} was dropped 24 times in a row`);
        if (i > 0) {
          builds[name].totals[type].push(total);
          const m = await marks(builds[name].id);
          if (m && m.compiled !== undefined) builds[name].fetchCompile.push(m.compiled - m.script);
        }
      }
    }
  }

  const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
  const figures = {};
  for (const [name, dir] of [['base', base], ['this', root]]) {
    figures[`${name}: module gzipped`] = { value: shippedSize(dir), unit: 'bytes' };
    const fc = builds[name].fetchCompile;
    if (fc.length) figures[`${name}: the module fetched and compiled, from the worker's script (median of ${fc.length})`] = { value: Math.round(median(fc) * 10) / 10, unit: 'ms' };
    for (const type of Object.keys(MESSAGES)) {
      const xs = builds[name].totals[type];
      figures[`${name}: cold start to the first answer, ${type} (median of ${xs.length})`] = { value: Math.round(median(xs) * 10) / 10, unit: 'ms' };
    }
  }
  for (const [k, v] of Object.entries(figures)) console.error(`${k}: ${v.value} ${v.unit}`);
  console.log(JSON.stringify(figures));
} finally {
  await context?.close().catch(() => {});
  rmSync(copy, { recursive: true, force: true });
  rmSync(profile, { recursive: true, force: true });
}
