// The pure API of the Node build (target/relay-node, made by `cargo xtask build`): the tools of a
// `servers` array are converted once and reused while the same array comes back; a new array is
// converted again; a ToolSet's prompts come from its tool list rendered once and equal
// promptForServers' for any options; a ToolSet's stream parser reports what parseToolCalls finds.
//
//   node --test tests/api/api.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';

const ROOT = process.env.RELAY_ROOT || process.cwd();
const TARGET = process.env.RELAY_TARGET || join(ROOT, 'target');
const core = createRequire(import.meta.url)(join(TARGET, 'relay-node/relay_node.js'));
const fixture = (f) => JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/prompts', f), 'utf8'));

const everything = { id: 'everything', name: 'everything', tools: fixture('everything-tools.json') };
const bench = { id: 'bench', name: 'bench', tools: fixture('tools100.json') };
const call = (tool, server, args) => `Sure.\n\`\`\`json\n${JSON.stringify({ tool, server, arguments: args })}\n\`\`\`\n`;

test('parseToolCalls resolves against the array it is given, whether or not it saw it before', () => {
  const both = [everything, bench];
  const reply = call('get-sum', 'everything', { a: 1, b: 2 }) + call('notes_search_notes', 'bench', { query: 'x' });
  const cases = [
    { servers: both, tools: ['get-sum', 'notes_search_notes'], unknown: 0 },
    { servers: both, tools: ['get-sum', 'notes_search_notes'], unknown: 0 }, // the same array again
    { servers: [everything], tools: ['get-sum'], unknown: 1 }, // a new array: bench is gone
    { servers: [bench], tools: ['notes_search_notes'], unknown: 1 },
    { servers: both, tools: ['get-sum', 'notes_search_notes'], unknown: 0 }, // the first array is back
    { servers: undefined, tools: [], unknown: 2 },
  ];
  for (const [i, c] of cases.entries()) {
    const out = core.parseToolCalls(reply, c.servers);
    assert.deepEqual(out.calls.map((x) => x.tool), c.tools, `case ${i}`);
    assert.equal(out.diagnostics.filter((d) => d.kind === 'unknown_tool').length, c.unknown, `case ${i}`);
  }
});

test('a StreamParser made from an array reports what parseToolCalls reports', () => {
  const servers = [everything];
  const reply = 'First ' + call('echo', 'everything', { message: 'hi' }) + 'then ' + call('get-sum', 'everything', { a: 2, b: 3 });
  for (const parser of [new core.StreamParser(servers), new core.ToolSet(servers).streamParser()]) {
    const seen = [];
    for (let i = 0; i < reply.length; i += 7) seen.push(...parser.append(reply.slice(i, i + 7)).calls);
    seen.push(...parser.finish().calls);
    parser.free();
    assert.deepEqual(seen, core.parseToolCalls(reply, servers).calls);
  }
});

test('StreamParser.append takes any text in any chunks, as parseToolCalls reads it whole', () => {
  // Appended chunks reach the parser through a staging buffer in wasm memory (encodeInto), which
  // grows for a large chunk and whose view is made again when the memory grows.
  const servers = [everything];
  const echo = (message) => call('echo', 'everything', { message });
  const texts = [
    ['ascii', 'Plain words. ' + echo('hi') + 'and more words'],
    ['accents and dashes', 'Voilà — “quoted” ' + echo('é—ü') + ' fin'],
    ['outside the BMP', 'Emoji 😀🎉 ' + echo('🚀 launch') + ' 𝄞'],
    ['40 KB chunk (the buffer grows)', 'é'.repeat(20_000) + echo('big') + 'x'.repeat(20_000)],
    ['non-ASCII over 16 KB', '😀'.repeat(9_000) + echo('after')],
  ];
  const expected = (text) => core.parseToolCalls(text, servers).calls;
  for (const [name, text] of texts) {
    for (const size of [1, 7, 4096, text.length]) {
      // Cut between code points (a chunk that splits a surrogate pair is two lone surrogates).
      const cps = Array.from(text);
      const parser = new core.StreamParser(servers);
      const seen = [];
      const others = [];
      for (let i = 0, n = 0; i < cps.length; i += size, n++) {
        seen.push(...parser.append(cps.slice(i, i + size).join('')).calls);
        // Grow wasm memory between appends twice (2 MB kept by other parsers each time): the
        // staging buffer's view must follow it.
        if (n === 2 || i + size >= cps.length / 2 && i < cps.length / 2) {
          const other = new core.StreamParser(servers);
          other.append('y'.repeat(2 << 20));
          others.push(other);
        }
      }
      seen.push(...parser.finish().calls);
      parser.free();
      for (const other of others) other.free();
      assert.deepEqual(seen, expected(text), `${name}, chunks of ${size} code points`);
    }
  }
  // Other values read as String(value), and the parser goes on.
  const parser = new core.StreamParser(servers);
  const throws = { toString() { throw new Error('no text'); } }; // reads as nothing
  for (const value of [42, null, undefined, throws, Symbol('s'), { toString: () => 'Sure' }]) assert.deepEqual(parser.append(value).calls, []);
  assert.deepEqual(parser.append(echo('after')).calls.map((c) => c.arguments), [{ message: 'after' }]);
  parser.free();
});

test('tool lists of any size and text convert alike, however often', () => {
  // `servers` crosses as JSON text through a staging buffer in wasm memory (one encodeInto),
  // which grows for a large list and is given back past 4 MB; a small list after a large one
  // reuses it. Each conversion must find the same tools and calls.
  const reply = call('get-sum', 'everything', { a: 1, b: 2 }) + call('notes_search_notes', 'bench', { query: 'x' });
  const big = { id: 'big', name: 'big', tools: Array.from({ length: 30 }, (_, i) => fixture('tools100.json').map((t) => ({ ...t, name: `${t.name}_${i}` }))).flat() };
  const odd = { ...everything, tools: everything.tools.map((t) => ({ ...t, description: `${t.description ?? ''} \ud800 — é 😀` })) };
  const cases = [
    { servers: [everything], count: 13, calls: ['get-sum'] },
    { servers: [big, bench], count: 3100, calls: ['notes_search_notes'] }, // ~6 MB of JSON
    { servers: [everything, bench], count: 113, calls: ['get-sum', 'notes_search_notes'] },
    { servers: [odd], count: 13, calls: ['get-sum'] }, // a lone surrogate, non-ASCII text
  ];
  for (const [i, c] of cases.entries()) {
    const set = new core.ToolSet(c.servers);
    assert.equal(set.tools, c.count, `case ${i}`);
    assert.deepEqual(set.parse(reply).calls.map((x) => x.tool), c.calls, `case ${i}`);
    assert.deepEqual(core.parseToolCalls(reply, [...c.servers]).calls.map((x) => x.tool), c.calls, `case ${i}, parseToolCalls`);
    set.free();
  }
  const prompt = core.promptForServers([odd]).text;
  assert.ok(prompt.includes('\ufffd — é 😀'), 'the lone surrogate reads as U+FFFD, the rest as written');
});

test('ToolSet prompts, rendered once, equal promptForServers for every option', () => {
  const variants = [
    undefined,
    { strategy: 'toolFirst' },
    { strategy: 'toolForced', maxCallsPerReply: 2, maxCallsPerTurn: 4, customInstructions: 'Réponds en français.', siteAddendum: 'No lists.' },
    { strategy: 'disabled' },
  ];
  for (const servers of [[everything], [bench], [everything, bench]]) {
    const set = new core.ToolSet(servers);
    for (const options of variants) {
      const fresh = core.promptForServers([...servers], options); // a new array: rendered anew
      assert.deepEqual(set.prompt(options), fresh, JSON.stringify(options));
      set.dropPromptCache();
      assert.deepEqual(set.prompt(options), fresh, `after dropPromptCache, ${JSON.stringify(options)}`);
    }
    set.free();
  }
  assert.equal(core.promptForServers([{ id: 'empty', name: 'empty', tools: [] }]), null);
});

test('the Node build reads the formats of other extensions as the core does (fixtures deepseek_*)', () => {
  const dir = join(ROOT, 'tests/fixtures/replies');
  const servers = JSON.parse(readFileSync(join(dir, 'servers.json'), 'utf8'));
  for (const name of ['deepseek_pp_tool_tags', 'deepseek_pp_negatives', 'deepseek_dsml']) {
    const text = readFileSync(join(dir, `${name}.txt`), 'utf8');
    const want = JSON.parse(readFileSync(join(dir, `${name}.expected`), 'utf8'));
    // Spans are UTF-8 byte offsets in both.
    assert.deepEqual(JSON.parse(JSON.stringify(core.parseToolCalls(text, servers))), want, name);
    const parser = new core.ToolSet(servers).streamParser();
    const calls = [];
    for (let i = 0; i < text.length; i += 5) calls.push(...parser.append(text.slice(i, i + 5)).calls);
    calls.push(...parser.finish().calls);
    assert.deepEqual(JSON.parse(JSON.stringify(calls)), want.calls, `${name}, streamed`);
  }
});
