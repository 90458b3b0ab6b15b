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
const core = createRequire(import.meta.url)(join(TARGET, 'relay-node/relay_wasm.js'));
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
