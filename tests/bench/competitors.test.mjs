// @ts-check
// The competitors bench's own machinery (issue 22), without any competitor's code: the
// bench-time bundler on a small checkout written here (TypeScript that needs transforming, a
// workspace alias, `.js` specifiers naming `.ts` files, plain JavaScript, a specifier in a
// comment), the fenced-block split that stands for a chat site's Markdown renderer, and the
// refusals of an unknown competitor or a checkout without its files.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { fencedBlocks, loadCompetitor, node22, preElement } from './competitors/loaders.mjs';

const ROOT = process.env.RELAY_ROOT || process.cwd();

/** Writes `files` (path → text) under a new temporary folder and returns it. */
function checkout(/** @type {Record<string, string>} */ files) {
  const dir = mkdtempSync(join(tmpdir(), 'relay-competitor-'));
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  return dir;
}

test('transpile.mjs bundles every module an entry reaches, TypeScript transformed, aliases and .js specifiers resolved', async (t) => {
  const dir = checkout({
    'src/parser/index.ts': [
      "export * from './scan';",
      "import { log } from '@scope/shared/lib/log';",
      "// as its README says: import { x } from '@/elsewhere'; and from './not-a-file'",
      'export const parse = (text: string): number => { log(text); return text.length; };',
    ].join('\n'),
    'src/parser/scan.ts': [
      'import type { Kind } from "../types";',
      'export enum Mode { Fast = 1, Slow = 2 }',
      'export class Scanner { constructor(private readonly mode: Mode) {} run(k?: Kind): Mode { return this.mode; } }',
    ].join('\n'),
    'src/types.ts': 'export type Kind = string;',
    'packages/shared/lib/log/index.ts': "export { log } from './impl.js';",
    'packages/shared/lib/log/impl.ts': 'export let logged = 0;\nexport function log(_: string): void { logged++; }',
    'plain/tool.js': "import { helper } from './helper.js';\nexport const tool = (s) => helper(s) + '!';",
    'plain/helper.js': 'export const helper = (s) => s.toUpperCase();',
  });
  const out = join(dir, 'out');
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const printed = execFileSync(node22(ROOT), ['--no-warnings', join(ROOT, 'tests/bench/competitors/transpile.mjs'), dir, out,
    '--alias', '@scope/shared=packages/shared', 'src/parser/index.ts', 'plain/tool.js'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
  const entries = printed.trim().split('\n');
  assert.deepEqual(entries, [join(out, 'src/parser/index.mjs'), join(out, 'plain/tool.mjs')]);
  // Loaded by this Node (20), which has no type stripping: the bundle is plain JavaScript.
  const parser = await import(pathToFileURL(entries[0]).href);
  assert.equal(parser.parse('abc'), 3);
  assert.equal(parser.Mode.Slow, 2);
  assert.equal(new parser.Scanner(parser.Mode.Fast).run(), 1);
  const log = await import(pathToFileURL(join(out, 'packages/shared/lib/log/impl.mjs')).href);
  assert.equal(log.logged, 1, 'the alias led to the same module instance the entry used');
  const tool = await import(pathToFileURL(entries[1]).href);
  assert.equal(tool.tool('ok'), 'OK!');
});

test('transpile.mjs names an entry that is not in the checkout', () => {
  const dir = checkout({ 'a.ts': 'export const a = 1;' });
  try {
    assert.throws(
      () => execFileSync(node22(ROOT), ['--no-warnings', join(ROOT, 'tests/bench/competitors/transpile.mjs'), dir, join(dir, 'out'), 'b.ts'], { stdio: ['ignore', 'pipe', 'pipe'] }),
      (/** @type {any} */ e) => /b\.ts not found under/.test(String(e.stderr)),
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('fencedBlocks reads fenced blocks as a Markdown renderer does', () => {
  /** @type {[string, string, { lang: string, body: string }[]][]} */
  const cases = [
    ['none', 'prose with `inline` code and ``` not at a line start', []],
    ['one with an info string', 'a\n```jsonl\n{"x": 1}\n{"y": 2}\n```\nb', [{ lang: 'jsonl', body: '{"x": 1}\n{"y": 2}' }]],
    ['at the very start, no info string, no text after', '```\nbody\n```', [{ lang: '', body: 'body' }]],
    ['two, prose between', '```xml\n<a/>\n```\nmid ``` text\n```json\n{}\n```\n', [{ lang: 'xml', body: '<a/>' }, { lang: 'json', body: '{}' }]],
    ['unclosed (still streaming)', 'a\n```json\n{"tool": "x"', []],
    ['a closed one, then an unclosed one', '```\n1\n```\n```\n2', [{ lang: '', body: '1' }]],
  ];
  for (const [name, text, want] of cases) assert.deepEqual(fencedBlocks(text), want, name);
});

test('preElement answers what a <pre><code> element would', () => {
  const pre = preElement('{"type": "x"}');
  assert.equal(pre.textContent, '{"type": "x"}');
  assert.equal(pre.querySelector('code:not(.function-block code)')?.textContent, '{"type": "x"}');
  assert.equal(pre.querySelector('.function-name'), null);
  assert.equal(pre.closest(), null);
  assert.equal(pre.getAttribute(), null);
  assert.equal(pre.hasAttribute(), false);
});

test('an unknown competitor, or a checkout without its files, is refused by name', async () => {
  const dir = checkout({ 'README.md': 'not an extension' });
  try {
    const where = { root: ROOT, outDir: join(dir, 'out') };
    await assert.rejects(loadCompetitor('nobody', dir, where), /unknown competitor nobody \(known: deepseek-pp, superassistant, gemini-nexus\)/);
    await assert.rejects(loadCompetitor('superassistant', dir, where), /superassistant: pages\/content\/src\/render_prescript\/src\/parser\/index\.ts not found under/);
    await assert.rejects(loadCompetitor('gemini-nexus', '', where), /gemini-nexus: shared\/text\/tool_call_text\.js not found under \(no directory given\)/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
