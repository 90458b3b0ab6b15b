// StreamParser and ToolSet cannot leak: the Node build is made with wasm-bindgen's --weak-refs,
// so an object JavaScript drops without calling free() is freed by a FinalizationRegistry.
// 10,000 of each kind are made and dropped; after each round of 1,000 the test collects garbage
// until the module says none of them is alive (the positive sign that the finalizers ran), and
// the module's memory must stop growing after the first round. Speed is measured by the bench
// (`tests/bench/wasm.bench.mjs`, "new parser without free()"), not here.
//
//   node --test tests/api/lifetime.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

const ROOT = process.env.RELAY_ROOT || process.cwd();
const TARGET = process.env.RELAY_TARGET || join(ROOT, 'target');
const core = createRequire(import.meta.url)(join(TARGET, 'relay-node/relay_node.js'));

setFlagsFromString('--expose-gc');
/** @type {() => void} */
const gc = runInNewContext('gc');

const tools = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/prompts/everything-tools.json'), 'utf8'));
const servers = [{ id: 'everything', name: 'everything', tools }];
const reply = 'Sure.\n```json\n{"tool": "echo", "arguments": {"message": "hi"}}\n```\n' + 'prose '.repeat(200);

const ROUNDS = 10;
const PER_ROUND = 1000;

/** Collects garbage until no StreamParser or ToolSet is alive, or gives up. */
async function collected() {
  for (let i = 0; i < 500; i++) {
    gc();
    await new Promise((resolve) => setImmediate(resolve));
    const live = core.__liveObjects();
    if (live.streamParsers === 0 && live.toolSets === 0) return live;
  }
  return core.__liveObjects();
}

/** Makes `n` parsers and tool sets, uses them and drops them (in a function of its own, so no
 * frame of the async test keeps the last ones reachable). */
function makeAndDrop(n) {
  for (let i = 0; i < n; i++) {
    const parser = new core.StreamParser(servers);
    parser.append(reply);
    assert.equal(parser.finish().calls.length, 0, 'append reported the call already');
    const set = new core.ToolSet(servers);
    set.streamParser().append(reply.slice(0, 40));
  }
}

test('10,000 StreamParsers and ToolSets dropped without free() release their memory', async () => {
  const start = await collected();
  assert.deepEqual([start.streamParsers, start.toolSets], [0, 0], 'nothing alive before the test');
  const memory = [];
  for (let round = 0; round < ROUNDS; round++) {
    makeAndDrop(PER_ROUND);
    const live = core.__liveObjects();
    assert.ok(live.streamParsers > 0, `round ${round}: the objects are counted while alive`);
    const after = await collected();
    assert.deepEqual(
      [after.streamParsers, after.toolSets],
      [0, 0],
      `round ${round}: every dropped object was freed (alive: ${JSON.stringify(after)})`,
    );
    memory.push(after.memoryBytes);
  }
  const growth = memory[ROUNDS - 1] - memory[0];
  assert.ok(
    growth <= 1 << 20,
    `the module's memory stays flat after the first round: ${memory.map((b) => (b / 1048576).toFixed(1)).join(', ')} MB`,
  );
});

test('free() still releases at once, and a freed object is not freed again by the finalizer', async () => {
  await collected();
  (() => {
    const parsers = Array.from({ length: 100 }, () => new core.StreamParser(servers));
    assert.equal(core.__liveObjects().streamParsers, 100);
    for (const p of parsers) p.free();
    assert.equal(core.__liveObjects().streamParsers, 0, 'free() released them at once');
  })();
  const after = await collected();
  assert.equal(after.streamParsers, 0, 'no count went below zero or came back');
});
