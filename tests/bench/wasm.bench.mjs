// Figures measured through the wasm build in Node (the same module the service worker runs),
// on the inputs the native criterion benchmarks use (written by `cargo xtask bench` into
// target/bench/inputs): prompt size in o200k tokens for the shared tool sets, prompt generation
// for 1,000 tools, parser throughput, and the streaming-versus-full work ratio. The tools are
// held in a ToolSet (converted from JavaScript once), as the service worker holds them.
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const ROOT = process.env.RELAY_ROOT || process.cwd();
const TARGET = process.env.RELAY_TARGET || join(ROOT, 'target');
const INPUTS = join(TARGET, 'bench/inputs');
const require = createRequire(import.meta.url);
const core = require(join(TARGET, 'relay-node/relay_node.js'));
const fixture = (f) => JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/prompts', f), 'utf8'));
const input = (f) => readFileSync(join(INPUTS, f), 'utf8');

const out = {};
const fig = (name, value, unit) => { out[name] = { value: Math.round(value * 100) / 100, unit }; };

function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
function time(fn, { minMs = 500, minRuns = 10 } = {}) {
  for (let i = 0; i < 3; i++) fn(); // warm up the JIT'd glue and the allocator
  const runs = [];
  const end = performance.now() + minMs;
  while (runs.length < minRuns || performance.now() < end) {
    const t = performance.now(); fn(); runs.push(performance.now() - t);
    if (runs.length > 10_000) break;
  }
  return median(runs);
}

/** Median of `runs` timings of `fn(make())`, `make` outside the timing. */
function timeEach(make, fn, runs) {
  for (let i = 0; i < 3; i++) fn(make());
  const times = [];
  for (let i = 0; i < runs; i++) {
    const arg = make();
    const t = performance.now(); fn(arg); times.push(performance.now() - t);
  }
  return median(times);
}

// Prompt sizes for the two shared tool sets.
for (const [name, file, server] of [['everything', 'everything-tools.json', 'everything'], ['tools100', 'tools100.json', 'bench']]) {
  const tools = fixture(file);
  const p = core.promptForServers([{ id: server, name: server, tools }]);
  fig(`prompt tokens o200k, ${name} (${tools.length} tools)`, encode(p.text).length, 'tokens');
  fig(`prompt tokens estimate, ${name}`, p.tokensEstimate, 'tokens');
}

// A first render (the tool list rendered from the definitions, as after tools/list_changed),
// and a rebuild from the rendered list (another chat, other options: a concatenation).
const many = new core.ToolSet(JSON.parse(input('tools_1000.json')));
fig(`prompt generation, ${many.tools} tools (wasm)`, time(() => { many.dropPromptCache(); many.prompt(); }), 'ms');
// promptForServers with a new servers array of the same server objects (a chat's selection
// asked for again): the last conversion and its rendered tool list are reused (relay-node's
// `reuse`). With new server objects (tools/list answers parsed anew, outside the timing): each
// server's JSON text is made and compared with the last array's; the same tools are not read
// again, one server's new tools are read beside the others' kept ones (then the render), and
// all servers' new tools (every server renamed) are the whole conversion and first render.
const text1000 = input('tools_1000.json');
const servers1000 = JSON.parse(text1000);
fig(`promptForServers with a new servers array, ${many.tools} tools (wasm)`, time(() => core.promptForServers([...servers1000]), { minMs: 300 }), 'ms');
fig(`promptForServers with new server objects, same tools, ${many.tools} tools (wasm)`, timeEach(() => JSON.parse(text1000), (servers) => core.promptForServers(servers), 30), 'ms');
let renamed = 0;
const renaming = (all) => () => {
  const servers = JSON.parse(text1000);
  renamed++;
  for (const server of all ? servers : servers.slice(0, 1)) server.name = `${server.id} (${renamed})`;
  return servers;
};
fig(`promptForServers with one server's tools changed, ${many.tools} tools in ${servers1000.length} servers (wasm)`, timeEach(renaming(false), (servers) => core.promptForServers(servers), 30), 'ms');
fig(`promptForServers with new tools, ${many.tools} tools (wasm)`, timeEach(renaming(true), (servers) => core.promptForServers(servers), 30), 'ms');
const forced = { strategy: 'toolForced', customInstructions: 'Answer briefly.' };
fig(`prompt rebuild from rendered tools, ${many.tools} tools (wasm)`, time(() => many.prompt(forced)), 'ms');

// parseToolCalls(text, servers) on a short reply with the same servers array each time: the
// tools are converted once and reused while the array is the same (a new array converts again).
const servers100 = [{ id: 'bench', name: 'bench', tools: fixture('tools100.json') }];
const shortReply = 'Let me look.\n```json\n{"tool": "notes_search_notes", "server": "bench", "arguments": {"query": "x"}}\n```';
fig('parseToolCalls fixed cost, same servers array, 100 tools (wasm)', time(() => core.parseToolCalls(shortReply, servers100)) * 1000, 'µs');
fig('parseToolCalls with a new servers array, 100 tools (wasm)', time(() => core.parseToolCalls(shortReply, [...servers100]), { minMs: 300 }), 'ms');

const set = new core.ToolSet(JSON.parse(input('servers.json')));
for (const size of ['100KB', '1MB']) {
  const text = input(`reply_${size}.txt`);
  const ms = time(() => set.parse(text));
  fig(`parse ${size} reply throughput (wasm)`, (Buffer.byteLength(text) / 1e6) / (ms / 1000), 'MB/s');
}
// The table's other two 1 MB replies: many calls (each one's arguments read, checked and
// converted for JavaScript) and one call that carries almost all of the text.
for (const [file, label] of [['reply_1MB_many_calls.txt', 'calls'], ['reply_1MB_one_large_call.txt', 'one large call']]) {
  const text = input(file);
  const calls = set.parse(text).calls.length;
  const ms = time(() => set.parse(text));
  const what = label === 'calls' ? `${calls} calls` : label;
  fig(`parse 1MB reply, ${what}, throughput (wasm)`, (Buffer.byteLength(text) / 1e6) / (ms / 1000), 'MB/s');
}

// The floor under any parse in wasm of text that is a JavaScript string: copying it into wasm
// memory as UTF-8 (TextEncoder.encodeInto, what wasm-bindgen's glue does for non-ASCII text).
{
  const text = input('reply_1MB.txt');
  const buf = new Uint8Array(Buffer.byteLength(text) + 16);
  const encoder = new TextEncoder();
  const ms = time(() => encoder.encodeInto(text, buf));
  fig('UTF-8 copy of the 1MB reply into a buffer, the floor of any wasm parse', (Buffer.byteLength(text) / 1e6) / (ms / 1000), 'MB/s');
}

// The way in for Latin-1 text (issue 34: 1,618 accented letters in 1 MB made `encodeInto` ten
// times slower than for ASCII): the 1 MB reply made ASCII, then the same with 1,618 of its `e`s
// spread evenly made `é`; each parsed, and `encodeInto` alone of each.
{
  // One byte per character in V8, as `JSON.parse` or a Latin-1 decoder makes such text (a
  // `replace` on the reply, which has Chinese in it, would keep two bytes per character).
  const oneByte = (/** @type {string} */ t) => Buffer.from(t, 'latin1').toString('latin1');
  const ascii = oneByte(input('reply_1MB.txt').replace(/[^\x00-\x7f]/g, 'x'));
  const at = new Set(Array.from({ length: 1618 }, (_, i) => Math.floor((i + 0.5) * ascii.length / 1618)));
  let accented = '';
  for (let i = 0, last = 0; i <= ascii.length; i++) {
    if (i === ascii.length || (at.has(i) && ascii[i] !== '`')) {
      accented += ascii.slice(last, i) + (i < ascii.length ? 'é' : '');
      last = i + 1;
    }
  }
  const buf = new Uint8Array(4 << 20);
  const encoder = new TextEncoder();
  for (const [label, text] of [['ASCII', ascii], ['1,618 accented letters', oneByte(accented)]]) {
    fig(`parse 1MB of prose, ${label} (wasm)`, time(() => set.parse(text)) * 1000, 'µs');
    fig(`encodeInto alone, 1MB of prose, ${label}`, time(() => encoder.encodeInto(text, buf)) * 1000, 'µs');
  }
}

// Adversarial replies (unclosed tags of every kind, nested openers, repeated prefixes): the
// slowest 1 MB one bounds how long a hostile page can hold the worker with one reply.
const adversarial = readdirSync(join(INPUTS, 'adversarial')).filter((f) => f.endsWith('_1MB.txt')).sort();
let worst = { ms: 0, name: '' };
for (const f of adversarial) {
  const text = input(join('adversarial', f));
  const ms = time(() => set.parse(text), { minMs: 100, minRuns: 3 });
  if (ms > worst.ms) worst = { ms, name: f.replace(/_1MB\.txt$/, '') };
}
fig(`parse slowest 1 MB adversarial reply of ${adversarial.length} (wasm; ${worst.name})`, worst.ms, 'ms');

for (const [label, file] of [['100KB', 'reply_100KB.txt'], ['100KB one large call', 'reply_100KB_one_large_call.txt']]) {
  const text = input(file);
  const full = time(() => set.parse(text));
  const step = Math.ceil(text.length / 1000);
  const streamed = time(() => {
    const p = set.streamParser();
    for (let i = 0; i < text.length; i += step) p.append(text.slice(i, i + step));
    p.finish();
    p.free();
  });
  fig(`stream/full ratio, ${label} in 1000 appends (wasm)`, streamed / full, 'x');
}

// The constant cost of one append (boundary crossing, scan step, answer), on one-byte chunks of
// prose so the scanning itself is negligible: 10,000 appends to one parser, per append.
{
  const n = 10_000;
  const perAppend = time(() => {
    const p = set.streamParser();
    for (let i = 0; i < n; i++) p.append('a');
    p.free();
  }, { minMs: 300 }) / n;
  fig('stream append constant cost (wasm)', perAppend * 1000, 'µs');
}

console.log(JSON.stringify(out));
