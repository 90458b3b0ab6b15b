// The README's screenshots (docs/screenshots) are there and current. What this checks: every
// picture the manifest lists exists, is a PNG of the manifest's size and stays small, the README
// shows it, and a fresh run of the demo (tests/demo/demo.mjs, the same walk through the panel's
// UI) records the same DOM state for each shot: the texts and states the pictures were checked
// against when they were taken. It does not compare pixels (fonts and timing vary): a change that
// only restyles what is shown is not caught; a change to what the views, the card or the chat
// show is. Regenerate with `cargo xtask demo --screenshots docs/screenshots`.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawn } from 'node:child_process';
import { ROOT } from '../e2e/harness.mjs';

const DIR = join(ROOT, 'docs/screenshots');
const REGENERATE = 'regenerate them with `cargo xtask demo --screenshots docs/screenshots`';
/** A committed picture's largest size. */
const MAX_BYTES = 300 * 1024;

const readManifest = (dir) => {
  const file = join(dir, 'manifest.json');
  assert.ok(existsSync(file), `${file} is missing: ${REGENERATE}`);
  return JSON.parse(readFileSync(file, 'utf8'));
};

/** Width and height from a PNG's IHDR chunk; fails on anything that is not a PNG. */
function pngSize(file) {
  const b = readFileSync(file);
  assert.deepEqual([...b.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a], `${file} is not a PNG`);
  assert.equal(b.subarray(12, 16).toString('latin1'), 'IHDR', `${file} has no IHDR`);
  return { width: b.readUInt32BE(16), height: b.readUInt32BE(20) };
}

test('the committed screenshots exist, are small PNGs of the recorded size, and the README shows each', () => {
  const manifest = readManifest(DIR);
  assert.ok(manifest.shots.length >= 3 && manifest.shots.length <= 6, `3 to 6 screenshots, not ${manifest.shots.length}`);
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  for (const { file } of manifest.shots) {
    const path = join(DIR, file);
    assert.ok(existsSync(path), `${file} is missing: ${REGENERATE}`);
    assert.deepEqual(pngSize(path), manifest.size, `${file} is not ${manifest.size.width}×${manifest.size.height}: ${REGENERATE}`);
    assert.ok(statSync(path).size <= MAX_BYTES, `${file} is over ${MAX_BYTES} bytes`);
    assert.ok(readme.includes(`docs/screenshots/${file}`), `README.md does not show docs/screenshots/${file}`);
  }
});

test('a fresh run of the demo records the same state for every screenshot', { timeout: 240_000 }, async (t) => {
  if (!process.env.RELAY_DEMO_SERVER) throw new Error('RELAY_DEMO_SERVER is not set: run through `cargo xtask test`');
  const committed = readManifest(DIR);
  const out = mkdtempSync(join(tmpdir(), 'mcp-relay-shots-'));
  t.after(() => rmSync(out, { recursive: true, force: true }));
  const child = spawn(process.execPath, [join(ROOT, 'tests/demo/demo.mjs'), '--screenshots', out], { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
  let log = '';
  child.stdout.on('data', (d) => { log += d; });
  child.stderr.on('data', (d) => { log += d; });
  const code = await new Promise((ok) => child.on('close', ok));
  assert.equal(code, 0, `the demo failed:\n${log.slice(-4000)}`);
  const fresh = readManifest(out);
  assert.deepEqual(fresh.size, committed.size, `the pictures' size changed: ${REGENERATE}`);
  assert.deepEqual(fresh.shots.map((s) => s.file), committed.shots.map((s) => s.file), `the list of screenshots changed: ${REGENERATE}`);
  for (const [i, shot] of fresh.shots.entries()) {
    assert.deepEqual({ shows: shot.shows, state: shot.state }, { shows: committed.shots[i].shows, state: committed.shots[i].state },
      `docs/screenshots/${shot.file} is stale (what it shows changed): ${REGENERATE}`);
  }
});
