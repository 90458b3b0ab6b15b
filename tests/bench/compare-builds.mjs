// Two (or more) builds of the wasm core side by side, alternating in one process, three rounds:
// on a loaded machine only figures taken in the same minutes compare. Usage (inputs written by
// `cargo xtask bench`, or `cargo run --release -p relay-core --example bench_inputs target/bench/inputs`):
//   cp -r target/relay-node /tmp/before   # then change, `cargo xtask build`
//   node tests/bench/compare-builds.mjs /tmp/before target/relay-node [--what=prompt|stream]
// Prints per build and round: the first render of 1,000 tools (ms), the 100 KB replies' full
// parse and 1,000-append stream (ms) and their ratio, one append's constant cost and a new
// stream parser's cost (µs).
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join, resolve } from 'node:path';
const require = createRequire(import.meta.url);
const INPUTS = join(process.env.RELAY_TARGET || join(process.cwd(), 'target'), 'bench/inputs');
const input = (f) => readFileSync(`${INPUTS}/${f}`, 'utf8');
const dirs = process.argv.slice(2).filter((a) => !a.startsWith('--'));
const what = (process.argv.find((a) => a.startsWith('--what=')) || '--what=all').slice(7);
const builds = dirs.map((d) => ({ d, core: require(join(resolve(d), 'relay_node.js')) }));
function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
function time(fn, minMs = 300, minRuns = 10) { for (let i = 0; i < 3; i++) fn(); const r = []; const end = performance.now() + minMs; while (r.length < minRuns || performance.now() < end) { const t = performance.now(); fn(); r.push(performance.now() - t); if (r.length > 5000) break; } return median(r); }
const tools = JSON.parse(input('tools_1000.json')), servers = JSON.parse(input('servers.json'));
const t100 = input('reply_100KB.txt'), tlarge = input('reply_100KB_one_large_call.txt');
for (const b of builds) { b.many = new b.core.ToolSet(tools); b.set = new b.core.ToolSet(servers); }
const fmt = (x) => x.toFixed(3);
for (let round = 0; round < 3; round++) {
  for (const b of builds) {
    const out = [];
    if (what === 'all' || what === 'prompt') out.push('first render ms ' + fmt(time(() => { b.many.dropPromptCache(); b.many.prompt(); })));
    if (what === 'all' || what === 'stream') {
      for (const [label, text] of [['prose', t100], ['large', tlarge]]) {
        const full = time(() => b.set.parse(text));
        const step = Math.ceil(text.length / 1000);
        const streamed = time(() => { const p = b.set.streamParser(); for (let i = 0; i < text.length; i += step) p.append(text.slice(i, i + step)); p.finish(); p.free(); });
        out.push(`${label} full ${fmt(full)} stream ${fmt(streamed)} ratio ${(streamed / full).toFixed(2)}`);
      }
      const n = 10000;
      out.push('append µs ' + fmt(time(() => { const p = b.set.streamParser(); for (let i = 0; i < n; i++) p.append('a'); p.free(); }) / n * 1000));
      out.push('new parser µs ' + fmt(time(() => { for (let i = 0; i < 100; i++) b.set.streamParser().free(); }) / 100 * 1000));
    }
    console.log(b.d.padEnd(22), out.join(' | '));
  }
}
