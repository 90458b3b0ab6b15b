// The wasm-opt flags `cargo xtask build` uses (WASM_OPT_FLAGS and WASM_FEATURES in
// crates/xtask/src/build.rs, their one definition), for the benchmark scripts that build a
// module of their own: a feature the build enables (SIMD, say) must be enabled there too.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** @param {string} root the repository */
export function wasmOptFlags(root) {
  const src = readFileSync(join(root, 'crates/xtask/src/build.rs'), 'utf8');
  const list = (name) => {
    const m = src.match(new RegExp(`const ${name}: &\\[&str\\] = &\\[([\\s\\S]*?)\\];`));
    if (!m) throw new Error(`${name} not found in crates/xtask/src/build.rs`);
    return (m[1].match(/"([^"]+)"/g) || []).map((s) => s.slice(1, -1));
  };
  return [...list('WASM_OPT_FLAGS'), ...list('WASM_FEATURES')];
}
