// The pure API of the Node build (target/relay-node, made by `cargo xtask build`): the tools of a
// `servers` array are converted once and reused while the same array comes back; a new array is
// converted again; a ToolSet's prompts come from its tool list rendered once and equal
// promptForServers' for any options; a ToolSet's stream parser reports what parseToolCalls finds.
//
//   node --test tests/api/api.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
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

test('a new array of the same server objects reuses their conversion; any change to a member converts again', () => {
  // Each case passes a new array built from the one before it (or from scratch) and expects
  // the prompt of the tools it names. A new array whose members are the same objects, with the
  // same id, name and tools array of the same length, reuses the last conversion and its
  // rendered tool list (which the last case shows: an edit inside a tool object is not seen,
  // as the module docs say); any other change converts again.
  const copy = (s) => ({ ...s, tools: [...s.tools] });
  const a = copy(everything);
  const b = copy(bench);
  const want = (servers) => {
    const set = new core.ToolSet(servers.map((s) => ({ ...s, tools: structuredClone(s.tools) })));
    const text = set.prompt().text;
    set.free();
    return text;
  };
  const cases = [
    ['first conversion', () => [a, b]],
    ['a new array of the same members', () => [a, b]],
    ['the members in another order', () => [b, a]],
    ['a member left out', () => [b]],
    ['both again', () => [a, b]],
    ['a tool added to a tools array in place', () => { b.tools.push({ ...b.tools[0], name: 'added_tool' }); return [a, b]; }],
    ['a tools array replaced', () => { b.tools = b.tools.slice(0, 3); return [a, b]; }],
    ['a server renamed in place', () => { a.name = 'renamed'; return [a, b]; }],
    ['a member replaced by a copy with other tools', () => [a, { ...b, tools: bench.tools.slice(5, 9) }]],
  ];
  for (const [name, make] of cases) {
    const servers = make();
    assert.equal(core.promptForServers(servers).text, want(servers), name);
    assert.equal(core.promptForServers([...servers]).text, want(servers), `${name}, copied array`);
  }
  const servers = [a, b];
  const before = core.promptForServers(servers).text;
  b.tools[0] = { ...b.tools[0], description: 'Edited in place.' }; // same array, same length
  assert.equal(core.promptForServers([...servers]).text, before, 'an edit inside a tools array is not seen: the conversion was reused');
  assert.notEqual(core.promptForServers([a, { ...b }]).text, before, 'a new server object converts again');
});

test('new server objects with the same JSON text give the last prompt; any other text, its own', () => {
  // Each case builds its servers from scratch (new objects, as a tools/list answer parsed
  // anew) and expects the prompt of exactly what it holds: equal text may reuse the last
  // conversion, and a change of the same length (one letter of one description) must not.
  const base = JSON.stringify([everything, bench]);
  const edited = base.replace('"Echoes back the input string', '"Echoes back the input strinG');
  assert.notEqual(edited, base, 'the edit applies');
  assert.equal(edited.length, base.length);
  const want = (text) => {
    const set = new core.ToolSet(JSON.parse(text));
    const prompt = set.prompt()?.text; // no tools: null
    set.free();
    return prompt;
  };
  const cases = [
    ['first', base],
    ['the same text again, new objects', base],
    ['one letter changed', edited],
    ['back to the first text', base],
    ['the servers in the other order', JSON.stringify([bench, everything])],
    ['the first text, then a copy of the array', base],
    ['one server edited, the other the same', JSON.stringify([everything, { ...bench, tools: bench.tools.slice(1) }])],
    ['one server twice', JSON.stringify([everything, everything])],
    ['a server added', JSON.stringify([everything, bench, { id: 'third', name: 'third', tools: bench.tools.slice(0, 2) }])],
    ['a server left out', JSON.stringify([bench])],
    ['empty', '[]'],
    ['both again', base],
  ];
  for (const [name, text] of cases) {
    const servers = JSON.parse(text);
    assert.equal(core.promptForServers(servers)?.text, want(text), name);
    assert.equal(core.promptForServers([...servers])?.text, want(text), `${name}, copied array`);
  }
  assert.ok(want(edited).includes('Echoes back the input strinG') && !want(base).includes('Echoes back the input strinG'));
  // A StreamParser made from the last array holds its tools: a new array that reuses some of
  // them copies them, and the parser still has all of its own.
  const reply = call('get-sum', 'everything', { a: 1, b: 2 }) + call('notes_search_notes', 'bench', { query: 'x' });
  const parser = new core.StreamParser(JSON.parse(base));
  const mixed = JSON.stringify([everything, { ...bench, tools: bench.tools.slice(0, 4) }]);
  assert.equal(core.promptForServers(JSON.parse(mixed)).text, want(mixed), 'reusing a server a parser holds');
  assert.deepEqual([...parser.append(reply).calls, ...parser.finish().calls].map((c) => c.tool), ['get-sum', 'notes_search_notes']);
  parser.free();
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

test('a long reply (staged through encodeInto) reports what the same calls report in a short one', () => {
  const servers = [everything];
  // An ASCII head (long replies with one cross staged; with a non-ASCII character early, the
  // glue), then calls with non-ASCII text.
  const head = 'Plain words here. '.repeat(64) + call('echo', 'everything', { message: 'héllo 🙂' }) + 'then ' + call('get-sum', 'everything', { a: 2, b: 3 });
  assert.ok(head.length < 2048, 'the short reply crosses through the glue');
  const short = core.parseToolCalls(head, servers);
  assert.equal(short.calls.length, 2);
  for (const pad of ['plain ascii prose. ', 'accents é and emoji 🙂 ', 'a lone surrogate \ud800 here ']) {
    const long = head + pad.repeat(Math.ceil(3000 / pad.length));
    assert.ok(/^[\x00-\x7f]{1024}/.test(long), 'its head is ASCII');
    assert.ok(long.length >= 2048, 'the long reply crosses staged');
    const out = core.parseToolCalls(long, servers);
    assert.deepEqual(out.calls, short.calls, `calls and spans the same with ${JSON.stringify(pad)} after them`);
    assert.deepEqual(new core.ToolSet(servers).parse(long).calls, short.calls);
    const p = new core.StreamParser(servers);
    assert.deepEqual(p.push(long).calls, short.calls, 'push reads the long reply the same');
    assert.equal(p.finish().calls.length, 0, 'and reported every call on that step');
    // Spans are UTF-8 byte offsets into the reply.
    const bytes = Buffer.from(long);
    for (const c of out.calls) assert.match(bytes.subarray(c.span.start, c.span.end).toString(), /^\{"tool"/);
  }
  // Not a string: read as String(value), long or short.
  assert.deepEqual(core.parseToolCalls({ toString: () => head }, servers).calls, short.calls);
});

test('every way a long reply crosses (ASCII, sparse or dense accents, wider characters) reads the same text', () => {
  // Replies of 2,048 UTF-16 units and more cross by `encodeInto` when eight windows across them
  // are ASCII; in Node by `latin1Write` (made UTF-8 in wasm) when the windows show Latin-1 and
  // the accents are sparse, with `encodeInto` for what follows a character past U+00FF or where
  // accents turn dense; else by wasm-bindgen's glue (relay-node/src/staged.rs). Each reply
  // holds calls whose arguments carry its kind of text; each must come out as the same text,
  // at its UTF-8 offsets, as appending the reply in small chunks (another way in) reads it.
  const servers = [everything];
  const words = (n, accent, every) => Array.from({ length: n }, (_, i) => (i % every === every - 1 ? accent : 'word')).join(' ') + '. ';
  // An accent every 40 words (~200 units): every window holds one, and they stay sparse.
  const sparse = (n) => words(n, 'café', 40);
  const dense = (n) => words(n, 'naïve', 3);
  const echo = (message) => call('echo', 'everything', { message });
  const cases = [
    ['all ASCII', words(2_000, 'x', 50) + echo('plain') + words(100, 'x', 50)],
    ['sparse accents', sparse(3_000) + echo('déjà vu') + sparse(200) + echo('ÿ½°')],
    ['dense accents from the start', dense(3_000) + echo('à la carte') + dense(100)],
    ['sparse, then dense after the first 64 KB', sparse(16_000) + echo('first é') + dense(8_000) + echo('then ü')],
    ['sparse, then one character past U+00FF between the windows', sparse(2_600) + '— ' + sparse(2_600) + echo('après “this”')],
    ['sparse, then a lone surrogate between the windows', sparse(2_600) + '\ud800 ' + sparse(2_600) + echo('ok é')],
    ['an emoji in a window, ASCII head', words(3_000, 'x', 50) + echo('🙂 é') + '🙂'],
    ['Chinese from the start', '服务器返回结果。'.repeat(400) + echo('结果 é')],
  ];
  for (const [what, reply] of cases) {
    assert.ok(reply.length >= 2048, `${what}: a long reply`);
    const out = core.parseToolCalls(reply, servers);
    const expected = [...reply.matchAll(/"message":"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`));
    assert.deepEqual(out.calls.map((c) => c.arguments.message), expected, `${what}: the arguments' text`);
    const bytes = Buffer.from(reply);
    for (const c of out.calls) assert.match(bytes.subarray(c.span.start, c.span.end).toString(), /^\{"tool"/, `${what}: UTF-8 offsets`);
    const chunked = new core.StreamParser(servers);
    const seen = [];
    for (let i = 0; i < reply.length; i += 1000) seen.push(...chunked.append(reply.slice(i, i + 1000)).calls);
    seen.push(...chunked.finish().calls);
    assert.deepEqual(seen, out.calls, `${what}: appended in chunks, the same calls and spans`);
    assert.deepEqual(new core.ToolSet(servers).parse(reply).calls, out.calls, `${what}: ToolSet.parse`);
  }
});

test('calls cross as plain JSON data: arguments equal JSON.parse of their text, keys in order, `__proto__` an own key', () => {
  const server = { id: 'any', name: 'any', tools: [{ name: 'put', inputSchema: { type: 'object' } }] };
  const set = new core.ToolSet([server]);
  const table = [
    '{"a": 1, "b": "two"}',
    '{"nested": {"deep": [1, 2.5, -3e-7, true, false, null, {"x": "y"}]}, "empty": {}, "list": []}',
    '{"text": "é 🎉 \\u0000 \\"quoted\\" \\n line", "z": 1, "a": 2}',
    '{"big": 1152921504606846976, "neg": -9007199254740993, "small": 0.1}',
    '{"__proto__": {"polluted": true}, "after": 1}',
    '{"constructor": "c", "toString": "t", "hasOwnProperty": 1}',
  ];
  for (const args of table) {
    const reply = `Calling.\n\`\`\`json\n{"tool": "put", "arguments": ${args}}\n\`\`\`\n`;
    const outs = [set.parse(reply), core.parseToolCalls(reply, [server])];
    const p = set.streamParser();
    const streamed = [...reply].map((ch) => p.append(ch)).flatMap((u) => u.calls).concat(p.finish().calls);
    p.free();
    for (const [i, call] of [...outs.map((o) => o.calls[0]), streamed[0]].entries()) {
      assert.deepEqual(Object.keys(call), ['tool', 'server', 'arguments', 'callId', 'span', 'format'], `${args} (${i})`);
      assert.deepEqual(Object.keys(call.span), ['start', 'end']);
      assert.equal(JSON.stringify(call.arguments), JSON.stringify(JSON.parse(args)), `${args} (${i})`);
      assert.deepEqual(call.arguments, JSON.parse(args), `${args} (${i})`);
      assert.equal(Object.getPrototypeOf(call.arguments), Object.prototype, `${args} (${i})`);
    }
  }
  const [call] = set.parse(`\`\`\`json\n{"tool": "put", "arguments": ${table[4]}}\n\`\`\``).calls;
  assert.ok(Object.hasOwn(call.arguments, '__proto__'));
  assert.equal(/** @type {any} */ (call.arguments).polluted, undefined, 'the prototype is not set');
  set.free();
});

test('a result of many calls (crossing as buffers) is the value the structured crossing gives', () => {
  const servers = [everything];
  // Arguments of every JSON kind, non-ASCII text (UTF-16 lengths differ from UTF-8 ones), a
  // `__proto__` key (an own property, as JSON.parse makes it), numbers at the edges of doubles.
  const args = [
    { message: 'héllo 🙂 世界' },
    { message: '', nested: { list: [1, -2.5, 1e300, null, true, false, 'x', [], {}], deep: { a: { b: [{ c: 'ü' }] } } } },
    { message: 'n', ['__proto__']: { polluted: true }, 10: 'ten', 2: 'two', z: -0 },
    { message: 'big', n: 18014398509481985, m: 9007199254740993, f: 0.1 },
  ];
  let reply = 'Calls follow. ';
  for (let i = 0; i < 40; i++) reply += call('echo', 'everything', { ...args[i % args.length], i }) + `then é ${i}. `;
  // Diagnostics too: an unknown tool (details), an ambiguous one, a repaired call.
  reply += call('ech', 'everything', {}) + '```json\n{"tool": "echo", "server": "everything", "arguments": {"message": "x",},}\n```\n';
  const parsed = new core.ToolSet(servers).parse(reply);
  assert.equal(parsed.calls.length, 41);
  assert.ok(parsed.diagnostics.some((d) => d.kind === 'unknown_tool' && d.details?.length));
  assert.ok(parsed.diagnostics.some((d) => d.kind === 'repaired'));
  const p = new core.StreamParser(servers);
  const streamed = p.push(reply);
  const finished = p.finish();
  p.free();
  assert.deepEqual(parsed.calls, [...streamed.calls, ...finished.calls]);
  assert.deepEqual(parsed.diagnostics, [...streamed.diagnostics, ...finished.diagnostics]);
  const proto = parsed.calls[2].arguments;
  assert.equal(Object.getPrototypeOf(proto), Object.prototype);
  assert.deepEqual(Object.keys(proto), ['2', '10', 'message', '__proto__', 'z', 'i']);
  assert.equal(proto.z, 0);
  assert.equal(parsed.calls[3].arguments.m, 9007199254740992);
  assert.equal(JSON.stringify(parsed), JSON.stringify(JSON.parse(JSON.stringify(parsed))));
});

test('where code made from strings is refused, many calls cross structured, to the same value', () => {
  const servers = [everything];
  let reply = 'Calls follow. ';
  for (let i = 0; i < 40; i++) reply += call('echo', 'everything', { message: `é ${i}`, n: i, list: [i, { k: 'v' }] }) + `then ${i}. `;
  const here = core.parseToolCalls(reply, servers);
  assert.equal(here.calls.length, 40);
  // A child Node that refuses `Function(...)`: the buffers' builder cannot be made there.
  const script = `
    const core = require(${JSON.stringify(join(TARGET, 'relay-node/relay_node.js'))});
    let refused = false;
    try { Function('return 1'); } catch { refused = true; }
    const out = core.parseToolCalls(${JSON.stringify(reply)}, ${JSON.stringify(servers)});
    process.stdout.write(JSON.stringify({ refused, out }));`;
  const child = JSON.parse(execFileSync(process.execPath, ['--disallow-code-generation-from-strings', '-e', script], { encoding: 'utf8' }));
  assert.equal(child.refused, true, 'the child refuses code from strings');
  assert.deepEqual(child.out, JSON.parse(JSON.stringify(here)));
});
