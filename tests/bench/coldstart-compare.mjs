// Two builds of the extension side by side: cold start to the first answer (`ping` and
// `servers/list`), rounds alternating between them so that the machine's load falls on both
// alike, then the median of each build's pooled starts and its module's size.
//
//   node tests/bench/coldstart-compare.mjs --base DIR [--rounds 4] [--runs 5]
//
// DIR is another checkout's root after its own `cargo xtask build` (for example
// `git worktree add /tmp/base main && cd /tmp/base && CARGO_TARGET_DIR=$PWD/../main/target
// cargo xtask build`). Each round runs tests/bench/coldstart.bench.mjs once per build with
// COLDSTART_RUNS=runs (a fresh browser each time; its first start is not counted).
import { execFileSync } from 'node:child_process';
import { readFileSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';

const root = path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const args = process.argv.slice(2);
const opt = (f, d) => { const i = args.indexOf(f); return i < 0 ? d : args[i + 1]; };
const base = opt('--base', '');
const rounds = Math.max(1, Math.min(20, Number(opt('--rounds', '4'))));
const runs = Math.max(2, Math.min(50, Number(opt('--runs', '5'))));
if (!base || !existsSync(path.join(base, 'extension/pkg/relay_wasm_bg.wasm'))) {
  console.error('usage: node tests/bench/coldstart-compare.mjs --base DIR (a checkout whose `cargo xtask build` has run)');
  process.exit(2);
}

const builds = [['base', path.resolve(base)], ['this', root]];
const totals = { base: { ping: [], 'servers/list': [] }, this: { ping: [], 'servers/list': [] } };
for (let r = 0; r < rounds; r++) {
  // Alternate which build goes first, so neither always follows the other's browser.
  const order = r % 2 === 0 ? builds : [...builds].reverse();
  for (const [name, dir] of order) {
    let out;
    try {
      out = execFileSync('node', [path.join(root, 'tests/bench/coldstart.bench.mjs')], {
        cwd: root,
        env: { ...process.env, COLDSTART_EXTENSION_DIR: dir, COLDSTART_RUNS: String(runs), COLDSTART_SAMPLES: '1' },
        stdio: ['ignore', 'pipe', 'pipe'],
        timeout: 600_000,
      }).toString();
    } catch (e) {
      throw new Error(`coldstart.bench.mjs on ${name} (${dir}), round ${r + 1}, failed:\n${String(e.stderr || e.message).slice(-2000)}`);
    }
    const figures = JSON.parse(out.trim().split('\n').pop());
    for (const type of ['ping', 'servers/list']) totals[name][type].push(...figures[`cold start, first message ${type}: totals`].value);
  }
}

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const figures = {};
for (const [name, dir] of builds) {
  const wasm = readFileSync(path.join(dir, 'extension/pkg/relay_wasm_bg.wasm'));
  figures[`${name}: module gzipped`] = { value: gzipSync(wasm, { level: 9 }).length, unit: 'bytes' };
  for (const type of ['ping', 'servers/list']) {
    figures[`${name}: cold start to the first answer, ${type} (median of ${totals[name][type].length})`] = { value: median(totals[name][type]), unit: 'ms' };
  }
}
for (const [k, v] of Object.entries(figures)) console.error(`${k}: ${v.value} ${v.unit}`);
console.log(JSON.stringify(figures));
