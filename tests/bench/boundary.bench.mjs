// The JS boundary, JSON text against serde-wasm-bindgen, in the same optimised module: a
// typical message in and answer out, a 100-tool tools/list answer (out) and the same tools as
// `[{id, name, tools}]` (in), and a ~1 MB parse result (one large call) out. It builds its own
// module with the cargo feature `boundary-bench` (BoundaryBench is never in the extension's
// build), with the same profile, wasm-bindgen and wasm-opt steps as `cargo xtask build`.
// Run by `cargo xtask bench`, or alone: `node tests/bench/boundary.bench.mjs`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { wasmOptFlags } from './wasm-opt-flags.mjs';

const ROOT = process.env.RELAY_ROOT || process.cwd();
const TARGET = process.env.RELAY_TARGET || join(ROOT, 'target');
const OUT = join(TARGET, 'bench/boundary-node');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });

run('cargo', ['build', '--quiet', '-p', 'relay-node', '--target', 'wasm32-unknown-unknown', '--profile', 'wasm-release', '--features', 'boundary-bench']);
mkdirSync(OUT, { recursive: true });
const cargoBin = join(process.env.CARGO_HOME || join(homedir(), '.cargo'), 'bin/wasm-bindgen');
run(existsSync(cargoBin) ? cargoBin : 'wasm-bindgen', ['--target', 'nodejs', '--no-typescript', '--out-dir', OUT, join(TARGET, 'wasm32-unknown-unknown/wasm-release/relay_node.wasm')]);
const bg = join(OUT, 'relay_node_bg.wasm');
run(join(ROOT, 'node_modules/.bin/wasm-opt'), [...wasmOptFlags(ROOT), bg, '-o', bg]);
writeFileSync(join(OUT, 'package.json'), '{"type": "commonjs"}\n');

const require = createRequire(import.meta.url);
const core = require(join(OUT, 'relay_node.js'));

const out = {};
const fig = (name, value, unit) => { out[name] = { value: Math.round(value * 1000) / 1000, unit }; };
function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
function time(fn, { minMs = 400, minRuns = 10 } = {}) {
  for (let i = 0; i < 3; i++) fn();
  const runs = [];
  const end = performance.now() + minMs;
  while (runs.length < minRuns || performance.now() < end) {
    const t = performance.now(); fn(); runs.push(performance.now() - t);
    if (runs.length > 20_000) break;
  }
  return median(runs);
}

// A look at the page (page/observe) as a content script sends it mid-stream (2 KB of reply
// text appended to a reply, the page's other turns as handles), and the answer the handler
// gives: one call record.
const text = 'Let me look that up. '.repeat(100);
const message = {
  type: 'page/observe', page: 'k3v9x2mf1', conversation: '3f2a', pattern: true, streaming: true, submitted: false,
  turns: [{ h: 1, user: true }, { h: 2 }, { h: 3, user: true }, { h: 4, text, at: 2048 }],
};
const answer = {
  ok: true,
  data: {
    pending: false,
    calls: [{
      id: 'c-91d0e2', tool: 'get_weather', server: 'weather', status: 'done', decision: 'allow',
      arguments: { city: 'Berlin', units: 'metric', days: 3 }, startedAt: 1763900000000, endedAt: 1763900000412,
      result: { text: 'Berlin: 4°C, light rain; tomorrow 6°C; then 5°C.', isError: false, attachments: [] },
    }],
  },
};
const tools = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/prompts/tools100.json'), 'utf8'));
const servers = [{ id: 'bench', name: 'bench', tools }];
const demo = [{ id: 'demo', name: 'demo', tools: [{ name: 'notes_add', description: 'Adds a note.', inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } }, required: ['title', 'body'] } }] }];
const bench = new core.BoundaryBench(JSON.stringify(answer), JSON.stringify(tools), JSON.stringify(demo), 1_000_000);
if (bench.calls !== 1) throw new Error(`the large reply parsed to ${bench.calls} calls`);
const parseKB = bench.parseBytes / 1024;

// Parse results of many calls, by size (issue 22, item 3): JSON text, serde-wasm-bindgen, and
// a typed array of the calls' spans (the floor: a result that carried only where each call is).
const bySize = [0, 1, 2, 3].map((i) => {
  const [calls, bytes] = bench.parseOfSize(i);
  return [`parse result out (${calls} calls, ${(bytes / 1024).toFixed(1)} KB)`, i];
});

// Each pair first checks that both ways give the same plain data.
const same = (a, b, what) => {
  if (JSON.stringify(a) !== JSON.stringify(b)) throw new Error(`${what}: JSON text and serde-wasm-bindgen differ`);
};
same(bench.writeAnswer(true), bench.writeAnswer(false), 'answer');
same(bench.writeTools(true), bench.writeTools(false), 'tools');
same(bench.writeParse(true), bench.writeParse(false), 'parse result');
if (bench.readMessage(message, true) !== bench.readMessage(message, false)) throw new Error('message differs');

const cases = [
  ['message in (page/observe, 2 KB)', (t) => bench.readMessage(message, t)],
  ['answer out (one call record)', (t) => bench.writeAnswer(t)],
  [`servers in (${tools.length} tools)`, (t) => bench.readServers(servers, t)],
  [`tools/list answer out (${tools.length} tools)`, (t) => bench.writeTools(t)],
  [`parse result out (${Math.round(parseKB)} KB, one large call)`, (t) => bench.writeParse(t)],
];
// The readable table goes to stderr as plain lines: `cargo xtask bench` takes the last line of
// the output that starts with `{` as this script's figures, and stderr comes after stdout.
for (const [name, fn] of cases) {
  const jsonMs = time(() => fn(true));
  const swbMs = time(() => fn(false));
  fig(`boundary ${name}, JSON text`, jsonMs * 1000, 'µs');
  fig(`boundary ${name}, serde-wasm-bindgen`, swbMs * 1000, 'µs');
  console.error(`${name}: JSON text ${(jsonMs * 1000).toFixed(1)} µs, serde-wasm-bindgen ${(swbMs * 1000).toFixed(1)} µs (${(swbMs / jsonMs).toFixed(2)}×)`);
}
for (const [name, i] of bySize) {
  same(bench.writeParseOf(i, true, false), bench.writeParseOf(i, false, false), name);
  const jsonMs = time(() => bench.writeParseOf(i, true, false));
  const swbMs = time(() => bench.writeParseOf(i, false, false));
  const spansMs = time(() => bench.writeParseOf(i, false, true));
  fig(`boundary ${name}, JSON text`, jsonMs * 1000, 'µs');
  fig(`boundary ${name}, serde-wasm-bindgen`, swbMs * 1000, 'µs');
  fig(`boundary ${name}, spans as a Uint32Array`, spansMs * 1000, 'µs');
  console.error(`${name}: JSON text ${(jsonMs * 1000).toFixed(1)} µs, serde-wasm-bindgen ${(swbMs * 1000).toFixed(1)} µs, spans only ${(spansMs * 1000).toFixed(1)} µs`);
}
bench.free();
console.log(JSON.stringify(out));
