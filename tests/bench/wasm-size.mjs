// Where the bytes of the wasm module go: per crate and per function.
//
//   node tests/bench/wasm-size.mjs [--build] [--top N] [--json] [FILE.wasm]
//
// --build makes the module to analyse: relay-wasm as the extension ships it (no JavaScript API), with the `wasm-symbols` profile (the shipped
// `wasm-release` profile without stripping, so the name section survives), wasm-bindgen
// `--target web`, then wasm-opt with the very flags `cargo xtask build` uses plus `-g` (keep
// names). Function bodies are then what the extension ships, give or take the names.
// Without --build it reads FILE (default target/size/relay_wasm_bg.wasm).
//
// The module is read directly (sections, code bodies, the name section); Rust symbols are
// demangled (legacy `_ZN…E` and already-demangled names) and attributed to the first crate
// their path names: `<serde_json::de::Deserializer<R> as serde::Deserializer>::deserialize_map`
// counts for serde_json, the crate whose code it is (wasm-opt inlines freely: an exported
// async function's whole state machine can land in `js_sys::futures::future_to_promise`'s
// closure). Monomorphised copies of one generic function are summed under its name.
import { wasmOptFlags } from './wasm-opt-flags.mjs';
import { execFileSync } from 'node:child_process';
import { readFileSync, mkdirSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import path from 'node:path';

const root = process.env.RELAY_ROOT || path.resolve(path.dirname(new URL(import.meta.url).pathname), '../..');
const args = process.argv.slice(2);
const flag = (f) => { const i = args.indexOf(f); if (i < 0) return false; args.splice(i, 1); return true; };
const opt = (f, d) => { const i = args.indexOf(f); if (i < 0) return d; const v = args[i + 1]; args.splice(i, 2); return v; };
const build = flag('--build');
const asJson = flag('--json');
const top = Number(opt('--top', '40'));
const target = process.env.RELAY_TARGET || path.join(root, 'target');
let file = args[0] || path.join(target, 'size/relay_wasm_bg.wasm');

if (build) {
  const run = (cmd, a) => execFileSync(cmd, a, { cwd: root, stdio: ['ignore', 'inherit', 'inherit'] });
  run('cargo', ['build', '-p', 'relay-wasm', '--target', 'wasm32-unknown-unknown', '--profile', 'wasm-symbols']);
  const out = path.join(target, 'size');
  mkdirSync(out, { recursive: true });
  run('wasm-bindgen', ['--target', 'web', '--no-typescript', '--out-dir', out,
    path.join(target, 'wasm32-unknown-unknown/wasm-symbols/relay_wasm.wasm')]);
  file = path.join(out, 'relay_wasm_bg.wasm');
  // The flags of crates/xtask/src/build.rs (WASM_OPT_FLAGS, WASM_FEATURES), plus -g.
  const flags = wasmOptFlags(root);
  run(path.join(root, 'node_modules/.bin/wasm-opt'), [...flags, '-g', file, '-o', file]);
}

const bytes = readFileSync(file);

function leb(buf, pos) {
  let result = 0, shift = 0, b;
  do { b = buf[pos++]; result += (b & 0x7f) * 2 ** shift; shift += 7; } while (b & 0x80);
  return [result, pos];
}
function str(buf, pos) { const [n, p] = leb(buf, pos); return [buf.toString('utf8', p, p + n), p + n]; }

const sections = [];
let importedFuncs = 0;
const bodies = [];
const names = new Map();
for (let pos = 8; pos < bytes.length;) {
  const id = bytes[pos];
  const [size, start] = leb(bytes, pos + 1);
  const end = start + size;
  let name = ['custom', 'type', 'import', 'function', 'table', 'memory', 'global', 'export', 'start', 'element', 'code', 'data', 'datacount'][id] || `id${id}`;
  if (id === 0) {
    const [n, p] = str(bytes, start);
    name = `custom:${n}`;
    if (n === 'name') {
      for (let q = p; q < end;) {
        const sub = bytes[q];
        const [len, s] = leb(bytes, q + 1);
        if (sub === 1) {
          let [count, r] = leb(bytes, s);
          for (let i = 0; i < count; i++) {
            let idx, nm;
            [idx, r] = leb(bytes, r);
            [nm, r] = str(bytes, r);
            names.set(idx, nm);
          }
        }
        q = s + len;
      }
    }
  } else if (id === 2) {
    let [count, r] = leb(bytes, start);
    for (let i = 0; i < count; i++) {
      let kind;
      [, r] = str(bytes, r); [, r] = str(bytes, r);
      kind = bytes[r++];
      if (kind === 0) { [, r] = leb(bytes, r); importedFuncs++; }
      else if (kind === 1) { r++; const fl = bytes[r++]; [, r] = leb(bytes, r); if (fl & 1) [, r] = leb(bytes, r); }
      else if (kind === 2) { const fl = bytes[r++]; [, r] = leb(bytes, r); if (fl & 1) [, r] = leb(bytes, r); }
      else if (kind === 3) { r += 2; }
      else if (kind === 4) { r += 1; [, r] = leb(bytes, r); }
    }
  } else if (id === 10) {
    let [count, r] = leb(bytes, start);
    for (let i = 0; i < count; i++) {
      const [len, b] = leb(bytes, r);
      bodies.push({ index: importedFuncs + i, size: b + len - r, bytes: bytes.subarray(r, b + len) });
      r = b + len;
    }
  }
  sections.push({ name, size: end - pos });
  pos = end;
}

// Legacy Rust mangling: _ZN<len><ident>…17h<hash>E, with $LT$ etc. escapes.
function demangle(s) {
  if (!s.startsWith('_ZN')) return s;
  const parts = [];
  let i = 3;
  while (i < s.length && s[i] !== 'E') {
    let n = 0;
    while (/[0-9]/.test(s[i])) n = n * 10 + Number(s[i++]);
    if (!n) break;
    parts.push(s.slice(i, i + n));
    i += n;
  }
  if (parts.length && /^h[0-9a-f]{16}$/.test(parts[parts.length - 1])) parts.pop();
  const esc = { SP: '@', BP: '*', RF: '&', LT: '<', GT: '>', LP: '(', RP: ')', C: ',' };
  return parts.map((p) => p.replace(/^_\$/, '$')
    .replace(/\$([A-Z]{1,2}|u[0-9a-f]+)\$/g, (m, c) => esc[c] ?? (c[0] === 'u' ? String.fromCodePoint(parseInt(c.slice(1), 16)) : m))
    .replace(/\.\./g, '::')).join('::').replace(/::h[0-9a-f]{16}$/, '');
}

const CRATE = /(?:^|[<&*\s(,[])(?:dyn )?(?:mut )?([a-z_][a-z0-9_]*)::/g;
function crateOf(name) {
  if (!name) return '(unnamed)';
  CRATE.lastIndex = 0;
  const m = CRATE.exec(name);
  if (m) return m[1];
  if (/^__wbg|^__wbindgen|^wasm_bindgen/.test(name)) return 'wasm_bindgen';
  if (/^(mem|str|__|dl|sbrk|f|r)/.test(name)) return '(runtime)';
  return '(other)';
}
const funcs = bodies.map((b) => {
  const raw = names.get(b.index) || '';
  const name = demangle(raw);
  return { ...b, name, crate: crateOf(name) };
});
const codeTotal = funcs.reduce((a, f) => a + f.size, 0);
const byCrate = new Map();
for (const f of funcs) {
  const c = byCrate.get(f.crate) || { crate: f.crate, size: 0, count: 0, parts: [] };
  c.size += f.size; c.count++; c.parts.push(f.bytes);
  byCrate.set(f.crate, c);
}
// Legacy mangling carries no generic arguments, so monomorphised copies of one generic
// function share a name (and differ in the hash): grouped here, with their total size.
const copies = new Map();
for (const f of funcs) {
  const key = f.name.replace(/::h[0-9a-f]{16}$/, '');
  const c = copies.get(key) || { name: key, size: 0, count: 0 };
  c.size += f.size; c.count++;
  copies.set(key, c);
}
const serdeLike = funcs.filter((f) => /serde|Deserializ|Serializ|[Vv]isit/.test(f.name));
const fmtLike = funcs.filter((f) => /core::fmt|alloc::fmt|Display|Debug/.test(f.name));
const crates = [...byCrate.values()].sort((a, b) => b.size - a.size)
  .map((c) => ({ crate: c.crate, bytes: c.size, functions: c.count, gzipped: gzipSync(Buffer.concat(c.parts), { level: 9 }).length }));
const result = {
  file: path.relative(root, file),
  total: bytes.length,
  gzipped: gzipSync(bytes, { level: 9 }).length,
  sections: sections.sort((a, b) => b.size - a.size),
  code: codeTotal,
  functions: funcs.length,
  crates,
  generic: [...copies.values()].filter((c) => c.count > 1).sort((a, b) => b.size - a.size).slice(0, 20).map((c) => ({ name: c.name.slice(0, 160), bytes: c.size, copies: c.count })),
  serde: { bytes: serdeLike.reduce((a, f) => a + f.size, 0), functions: serdeLike.length },
  fmt: { bytes: fmtLike.reduce((a, f) => a + f.size, 0), functions: fmtLike.length },
  top: [...funcs].sort((a, b) => b.size - a.size).slice(0, top).map((f) => ({ name: f.name.slice(0, 160), bytes: f.size, crate: f.crate })),
};

if (asJson) {
  console.log(JSON.stringify(result, null, 1));
} else {
  const kb = (n) => (n / 1024).toFixed(1);
  console.log(`${result.file}: ${kb(result.total)} KB raw, ${kb(result.gzipped)} KB gzipped; code ${kb(codeTotal)} KB in ${funcs.length} functions`);
  console.log('\nsections:');
  for (const s of result.sections) console.log(`  ${s.name.padEnd(24)} ${kb(s.size).padStart(8)} KB`);
  console.log('\nper crate (code bytes, share of code, functions, code gzipped alone):');
  for (const c of crates) console.log(`  ${c.crate.padEnd(24)} ${kb(c.bytes).padStart(8)} KB ${(100 * c.bytes / codeTotal).toFixed(1).padStart(5)}% ${String(c.functions).padStart(5)} ${kb(c.gzipped).padStart(7)} KB`);
  console.log('\ngeneric functions with several monomorphised copies (total, copies):');
  for (const g of result.generic) console.log(`  ${kb(g.bytes).padStart(7)} KB ${String(g.copies).padStart(4)}×  ${g.name}`);
  console.log(`\nserde-related functions: ${kb(result.serde.bytes)} KB in ${result.serde.functions}; fmt-related: ${kb(result.fmt.bytes)} KB in ${result.fmt.functions}`);
  console.log(`\ntop ${top} functions:`);
  for (const f of result.top) console.log(`  ${kb(f.bytes).padStart(7)} KB  ${f.name}`);
}
