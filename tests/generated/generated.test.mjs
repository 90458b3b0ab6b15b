// The generic adapter on generated chat pages (issue 30): a fixed set of seeds that together
// show every value of every dimension (tests/fixtures/generated/space.js, found with
// `coveringSeeds` in lib.mjs), plus the seeds a
// sweep found failing once (REGRESSIONS), each running the whole loop (lib.mjs says what is
// checked). The coverage is printed; `cargo xtask sweep --seeds N` runs random seeds.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { startGenRig, runSeed, loadSpace } from './lib.mjs';

/** Seeds a sweep found failing, kept once fixed (what broke). */
export const REGRESSIONS = [
  39034928, // ProseMirror with markdown input rules: its code block and list items read as lost lines
  906301858, // a regenerated reply caught part way, replaced by a fuller render: matched to the old reply
  394910863, // Regenerate in the reply's own element (a thinking block first): the old reply went on
  618306420, // branches: a reply being written whose element left for good stayed live for ever
  1220353136, // a chat app in a frame: the top page's first look took the frame's page for a reloaded one
  1167418369, // a frame, an old conversation: the portal's top page answered "no input", the result went again and again
  2112268862, // a long paste shown as a file card, turns alike: no reply found
  437568720, // a paste-only editor: the person's greeting typed, never pasted (the driver's mistake)
  1946257797, // an old conversation opened in place while the last reply was live: its call ran
  32759349, // the answer showed only "\n\n" when the page drew the conversation again: the call's reply, drawn above it, was taken for more of the answer and its call ran a third time
];

/** @type {any} */
let rig;
before(async () => { rig = await startGenRig(); });
after(async () => { await rig?.close(); });

/**
 * The fixed seeds: together they show every value of every dimension (the first test checks
 * it; `coveringSeeds` finds such a set greedily when the space changes), each passed in a row.
 */
const FIXED = [339, 593, 1360, 348, 7, 2, 4, 6, 1, 8, 28, 74, 12];
const seeds = [...new Set([...REGRESSIONS, ...FIXED])];

test('the fixed seeds cover every value of every dimension', () => {
  const { DIMENSIONS, pick } = loadSpace();
  const shown = new Set(seeds.flatMap((s) => Object.entries(pick(s)).map(([d, v]) => `${d}=${v}`)));
  for (const [d, values] of Object.entries(DIMENSIONS)) {
    for (const v of values) assert.ok(shown.has(`${d}=${v}`), `${d}=${v}`);
    console.log(`# ${d}: ${values.map((v) => `${v} (seeds ${seeds.filter((s) => pick(s)[d] === v).join(' ')})`).join(', ')}`);
  }
});

for (const seed of seeds) {
  test(`generated page, seed ${seed}`, async () => {
    const r = await runSeed(rig, seed);
    console.log(`# seed ${seed} (${r.ms} ms): ${Object.entries(r.dims).map(([d, v]) => `${d}=${v}`).join(' ')}`);
    assert.deepEqual(r.failures, [], `seed ${seed}: ${JSON.stringify(r.dims)}`);
  });
}
