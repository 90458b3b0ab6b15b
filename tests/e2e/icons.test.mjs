// The icon set: the committed PNGs are what extension/icons/make-icons.mjs draws (so the
// script stays the source), each has its declared size, and the manifest names them for the
// extensions page, the store and the toolbar.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './harness.mjs';
import { png, SIZES } from '../../extension/icons/make-icons.mjs';

test('icons: committed = generated, sizes right, named by the manifest', () => {
  const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8'));
  assert.deepEqual(SIZES, [16, 32, 48, 128]);
  for (const size of SIZES) {
    const path = `extension/icons/icon-${size}.png`;
    const file = readFileSync(join(ROOT, path));
    assert.ok(file.equals(png(size)), `${path} is stale: run node extension/icons/make-icons.mjs`);
    assert.equal(file.readUInt32BE(16), size, `${path} width`);
    assert.equal(file.readUInt32BE(20), size, `${path} height`);
    assert.equal(manifest.icons[String(size)], path);
  }
  assert.equal(manifest.action.default_icon['16'], 'extension/icons/icon-16.png');
});
