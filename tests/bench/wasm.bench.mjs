// Figures measured through the wasm build in Node (the same module the service worker runs):
// prompt size in o200k tokens for the shared tool sets, prompt generation for 1,000 tools, parser
// throughput on a 1 MB reply, and the streaming-versus-full work ratio. Prints one JSON line.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { encode } from 'gpt-tokenizer/encoding/o200k_base';

const ROOT = process.env.RELAY_ROOT || process.cwd();
const TARGET = process.env.RELAY_TARGET || join(ROOT, 'target');
const require = createRequire(import.meta.url);
const core = require(join(TARGET, 'relay-node/relay_wasm.js'));
const data = (f) => JSON.parse(readFileSync(join(ROOT, '..', 'shared', 'data', f), 'utf8'));
const dataOr = (f, alt) => { try { return data(f); } catch { return JSON.parse(readFileSync(join(ROOT, alt), 'utf8')); } };

const everything = dataOr('everything-tools.json', 'tests/fixtures/tools/everything-tools.json');
const tools100 = dataOr('tools100.json', 'tests/fixtures/tools/tools100.json');
const out = {};
const fig = (name, value, unit) => { out[name] = { value: Math.round(value * 100) / 100, unit }; };

function median(xs) { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; }
function time(fn, { minMs = 300, minRuns = 5 } = {}) {
  const runs = [];
  const end = performance.now() + minMs;
  while (runs.length < minRuns || performance.now() < end) {
    const t = performance.now(); fn(); runs.push(performance.now() - t);
    if (runs.length > 10_000) break;
  }
  return median(runs);
}

// Prompt sizes.
for (const [name, tools, server] of [['everything', everything, 'everything'], ['tools100', tools100, 'bench']]) {
  const p = core.promptForServers([{ id: server, name: server, tools }]);
  fig(`prompt tokens o200k, ${name} (${tools.length} tools)`, encode(p.text).length, 'tokens');
  fig(`prompt tokens estimate, ${name}`, p.tokensEstimate, 'tokens');
}

// 1,000 tools: the 100-tool set ten times, renamed.
const many = [];
for (let i = 0; i < 10; i++) many.push({ id: `s${i}`, name: `server${i}`, tools: tools100.map((t) => ({ ...t, name: `${t.name}_${i}` })) });
fig('prompt generation, 1000 tools (wasm)', time(() => core.promptForServers(many)), 'ms');

// Parser inputs: prose with calls every so often, and one reply with a single large call.
const prose = 'The quick brown fox jumps over the lazy dog; results are summarised below with care. ';
function reply(bytes) {
  let s = '';
  let n = 0;
  while (s.length < bytes) {
    s += prose.repeat(40);
    s += '\n```json\n' + JSON.stringify({ tool: 'echo', arguments: { message: `call ${n++}` } }) + '\n```\n';
  }
  return s.slice(0, bytes);
}
function oneLargeCall(bytes) {
  const head = prose.repeat(20) + '\n```json\n{"tool": "echo", "arguments": {"message": "';
  const tail = '"}}\n```\nDone.';
  return head + 'x'.repeat(Math.max(0, bytes - head.length - tail.length)) + tail;
}
const servers = [{ id: 'everything', name: 'everything', tools: everything }];
const mb = reply(1 << 20);
const tFull = time(() => core.parseToolCalls(mb, servers));
fig('parse 1MB reply throughput (wasm)', (mb.length / 1e6) / (tFull / 1000), 'MB/s');

for (const [label, text] of [['100KB', reply(100 * 1024)], ['100KB one large call', oneLargeCall(100 * 1024)]]) {
  const full = time(() => core.parseToolCalls(text, servers));
  const step = Math.ceil(text.length / 1000);
  const streamed = time(() => {
    const p = new core.StreamParser(servers);
    for (let i = 0; i < text.length; i += step) p.append(text.slice(i, i + step));
    p.finish();
    p.free();
  }, { minRuns: 3 });
  fig(`stream/full ratio, ${label} in 1000 appends (wasm)`, streamed / full, 'x');
}

console.log(JSON.stringify(out));
