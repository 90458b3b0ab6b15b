// `cargo xtask sweep`: the generated-page loop (lib.mjs) on many seeds with one browser and
// one loaded extension, a few pages at a time, then the table per dimension value (pages,
// passes, first failing seed) on stdout and in target/sweep/summary.{md,json}.
//   --seeds N   N random seeds (default 200), printed so that any one can be run again
//   --seed S    this seed (repeatable; instead of random ones)
//   --jobs J    pages at a time (default 2)
// Exit status 1 when a page failed: keep its seed in generated.test.mjs's REGRESSIONS once fixed.
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { randomInt } from 'node:crypto';
import { startGenRig, runSeed, table } from './lib.mjs';
import { TARGET } from '../e2e/harness.mjs';

const args = process.argv.slice(2);
const opt = (/** @type {string} */ name, /** @type {string} */ dflt) => { const i = args.indexOf(name); return i >= 0 ? args[i + 1] : dflt; };
const given = args.flatMap((a, i) => (a === '--seed' ? [Number(args[i + 1])] : []));
const count = Number(opt('--seeds', '200'));
const jobs = Math.max(1, Number(opt('--jobs', '2')));
const seeds = given.length ? given : Array.from({ length: count }, () => randomInt(1, 2 ** 31 - 1));

const dir = join(TARGET, 'sweep');
mkdirSync(dir, { recursive: true });
/** The summary of the seeds run so far (written after each page, so a long sweep cut short still tells). */
function summarize() {
  const passed = results.filter((r) => r.ok).length;
  const summary = `${passed} of ${results.length} seeds passed (${(100 * passed / Math.max(1, results.length)).toFixed(1)}%) in ${Math.round((Date.now() - started) / 1000)} s, ${jobs} at a time`;
  const md = `${summary}\n\n${table(results)}\n\nFailing seeds: ${results.filter((r) => !r.ok).map((r) => `${r.seed} (${r.failures[0]})`).join('; ') || 'none'}\n`;
  writeFileSync(join(dir, 'summary.md'), md);
  writeFileSync(join(dir, 'summary.json'), JSON.stringify(results, null, 1));
  return { passed, md };
}

const rig = await startGenRig();
/** @type {Awaited<ReturnType<typeof runSeed>>[]} */
const results = [];
let next = 0;
const started = Date.now();
async function worker() {
  while (next < seeds.length) {
    const seed = seeds[next++];
    const r = await runSeed(rig, seed);
    results.push(r);
    summarize();
    console.log(`${r.ok ? 'ok  ' : 'FAIL'} seed ${seed} (${r.ms} ms) ${Object.entries(r.dims).map(([d, v]) => `${d}=${v}`).join(' ')}${r.ok ? '' : `\n     ${r.failures.join('\n     ')}`}`);
  }
}
try {
  await Promise.all(Array.from({ length: jobs }, worker));
} finally {
  await rig.close();
}
const { passed, md } = summarize();
console.log(`\n${md}`);
process.exit(passed === results.length ? 0 : 1);
