// The content script's parts without a browser: the manifest is the one list of its files (in
// the order the parts need), every part guards against a second injection, and the adapter's
// `editor` selects the write path.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { ROOT } from './harness.mjs';
import { loadAdapters } from '../fixtures/sites/_shared/loop.mjs';

const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8'));
const files = manifest.content_scripts[0].js;

test('the manifest lists every content part once, adapters first and the entry last', () => {
  const onDisk = readdirSync(join(ROOT, 'extension/content')).filter((f) => f.endsWith('.js')).map((f) => `extension/content/${f}`).sort();
  assert.deepEqual([...files].sort(), onDisk);
  assert.equal(new Set(files).size, files.length);
  assert.equal(files[0], 'extension/content/sites.js');
  assert.equal(files[1], 'extension/content/dom.js', 'dom.js creates the namespace the others fill');
  assert.equal(files.at(-1), 'extension/content/main.js');
  assert.equal(manifest.content_scripts.length, 1, 'background.js registers content_scripts[0] for custom sites');
  const bg = readFileSync(join(ROOT, 'extension/background.js'), 'utf8');
  assert.match(bg, /getManifest\(\)/);
  assert.ok(!/extension\/content\/\w+\.js/.test(bg), 'background.js names no content file itself');
});

test('no part of the content script opens a shadow root or exposes one', () => {
  for (const f of files) {
    const src = readFileSync(join(ROOT, f), 'utf8').replace(/^\s*(\/\/|\*|\/\*\*).*$/gm, ''); // code, not comments
    assert.ok(!/mode:\s*'open'/.test(src), `${f} opens a shadow root`);
    // discover.js reads the page's own open shadow roots (web components) to find its parts;
    // no other part touches a shadow root but through its own closed one.
    if (f !== 'extension/content/discover.js') assert.ok(!/\.shadowRoot\b/.test(src), `${f} reads .shadowRoot`);
    assert.ok(!/'always'/.test(src), `${f} mentions the decision 'always'`);
  }
  const cards = readFileSync(join(ROOT, 'extension/content/cards.js'), 'utf8');
  assert.match(cards, /attachShadow\(\{ mode: 'closed' \}\)/);
  assert.match(cards, /if \(!ev\.isTrusted\) return;/);
});

/** Runs write.js against a bare namespace (no DOM needed for the pure parts). */
function writePart() {
  const sandbox = { McpRelayContent: { state: {}, dom: {} } };
  sandbox.globalThis = sandbox;
  vm.runInNewContext(readFileSync(join(ROOT, 'extension/content/write.js'), 'utf8'), sandbox);
  return sandbox.McpRelayContent.write;
}

test('the adapter\'s editor selects the write path; the element found overrides an impossible one', () => {
  const { writePath } = writePart();
  const cases = [
    // [editor, the element is a textarea/input, path]
    ['textarea', true, ['native-setter']],
    ['textarea', false, ['paste', 'beforeinput', 'insert-text', 'lines', 'dom-text']], // a site moved to a rich editor
    ['prosemirror', false, ['insert-text', 'lines', 'paste', 'beforeinput']],
    ['prosemirror', true, ['native-setter']], // a site moved back to a textarea (Grok's fallback)
    // Lexical joins the lines of execCommand('insertText'): its own beforeinput path first.
    ['lexical', false, ['beforeinput', 'paste', 'insert-text', 'lines']],
    // Quill drops the line breaks of insertText: line by line (insertParagraph) comes next.
    ['quill', false, ['insert-text', 'lines', 'paste', 'beforeinput']],
    ['codemirror', false, ['insert-text', 'lines', 'paste', 'beforeinput']],
    ['contenteditable', false, ['insert-text', 'lines', 'paste', 'dom-text']],
    ['auto', false, ['paste', 'beforeinput', 'insert-text', 'lines', 'dom-text']],
    ['auto', true, ['native-setter']],
    ['no-such-editor', false, ['paste', 'beforeinput', 'insert-text', 'lines', 'dom-text']],
    // The generic adapter ('auto') takes the kind the element's own markers name...
    ['auto', false, ['beforeinput', 'paste', 'insert-text', 'lines'], 'lexical'],
    ['auto', false, ['insert-text', 'lines', 'paste', 'beforeinput'], 'quill'],
    ['auto', false, ['paste', 'beforeinput', 'insert-text', 'lines', 'dom-text'], 'auto'],
    // ...an adapter's own editor comes first, and a field is a field.
    ['prosemirror', false, ['insert-text', 'lines', 'paste', 'beforeinput'], 'lexical'],
    ['auto', true, ['native-setter'], 'lexical'],
  ];
  for (const [editor, field, want, kind] of cases) assert.deepEqual([...writePath(editor, field, kind)], want, `${editor} field=${field} kind=${kind}`);
  // Model editors never get a raw DOM write: their model would revert it and it proves nothing.
  for (const e of ['prosemirror', 'lexical', 'quill', 'codemirror']) assert.ok(!writePath(e, false).includes('dom-text'), e);
  // Every adapter's editor is one the table knows.
  const { SITES, GENERIC } = loadAdapters();
  const { WRITE_PATHS } = writePart();
  for (const a of [...SITES, GENERIC]) assert.ok(a.editor in WRITE_PATHS, `${a.id}: editor ${a.editor}`);
});

test('a write is checked line by line: lost line breaks and lost lines are counted, blank lines and spacing are not losses', () => {
  const { lineLoss } = writePart();
  const meant = 'Call a tool:\n```json\n{"tool": "add"}\n```\nThen stop.';
  const cases = [
    // [what the editor holds, what lineLoss says (null: nothing lost)]
    [meant, null],
    ['Call a tool:\n\n```json\n\n{"tool":  "add"}\n\n```\n\nThen stop.\n', null], // paragraphs render with blank lines
    ['earlier text\n\n' + meant, null], // what was in the input before stays before it
    ['Call a tool:```json{"tool": "add"}```Then stop.', /4 of 4 line breaks were lost/], // Quill's insertText
    ['Call a tool:\n```json\n{"tool": "add"}```\nThen stop.', /1 of 4 line breaks were lost/],
    ['Call a tool:\n```json\n```\nThen stop.', /1 of 5 lines did not arrive \(first: "\{"tool": "add"\}"\)/],
    ['', /stayed empty/],
  ];
  for (const [held, want] of cases) {
    const got = lineLoss(held, meant);
    if (want === null) assert.equal(got, null, JSON.stringify(held));
    else assert.match(String(got), want, JSON.stringify(held));
  }
});

test('every part keeps the first copy when injected twice', () => {
  for (const f of files.slice(2)) {
    const src = readFileSync(join(ROOT, f), 'utf8');
    assert.match(src, /if \(!found \|\| found\.\w+\) return;/, `${f} has no guard`);
  }
});

function jsFiles(dir) {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((e) => {
    const rel = `${dir}/${e.name}`;
    if (e.isDirectory()) return rel === 'extension/pkg' ? [] : jsFiles(rel);
    return e.name.endsWith('.js') ? [rel] : [];
  });
}

test('every JavaScript file of extension/ (but the generated pkg) and www/ is type-checked', () => {
  const all = [...jsFiles('extension'), ...jsFiles('www')];
  assert.ok(all.length >= 20, `found only ${all.length} files`);
  const unchecked = all.filter((f) => !readFileSync(join(ROOT, f), 'utf8').startsWith('// @ts-check\n'));
  assert.deepEqual(unchecked, []);
  const tsconfig = readFileSync(join(ROOT, 'tsconfig.json'), 'utf8');
  for (const glob of ['extension/**/*.js', 'www/**/*.js']) assert.ok(tsconfig.includes(`"${glob}"`), glob);
});

test('every message the content script shows exists in both locales', () => {
  const en = JSON.parse(readFileSync(join(ROOT, '_locales/en/messages.json'), 'utf8'));
  const zh = JSON.parse(readFileSync(join(ROOT, '_locales/zh_CN/messages.json'), 'utf8'));
  const used = new Set();
  for (const f of files) {
    for (const m of readFileSync(join(ROOT, f), 'utf8').matchAll(/\bt\('([A-Za-z0-9_]+)'\s*[,)]/g)) used.add(m[1]);
  }
  assert.ok(used.has('callDestructiveApproveInPanel') && used.has('callRun'), [...used].join());
  assert.deepEqual([...used].filter((k) => !(k in en) || !(k in zh)), []);
});

/**
 * Runs read.js against a bare namespace whose `call` is `core` (no DOM: its pure parts).
 * @param {(type: string, fields: any) => Promise<any>} core
 */
function readPart(core, onAnswer = () => {}) {
  const sandbox = {
    McpRelayContent: { call: core, state: { adapter: {} }, dom: {}, cards: { renderCard() {}, setPending: onAnswer, setStatus: onAnswer } },
    MutationObserver: class { observe() {} disconnect() {} },
    location: { href: 'https://chat.example/c/1' },
    Math, Promise, String, Map, Set, WeakMap, Date,
  };
  sandbox.globalThis = sandbox;
  vm.runInNewContext(readFileSync(join(ROOT, 'extension/content/read.js'), 'utf8'), sandbox);
  return sandbox.McpRelayContent.read;
}

test('a growing reply is sent as what was appended, anything else whole', () => {
  const { replyDelta } = readPart(async () => ({}));
  const cases = [
    // [text the core was sent, text now, what goes]
    [undefined, 'Hello', { text: 'Hello' }],
    ['', 'Hello', { text: 'Hello' }],
    ['Hel', 'Hello', { text: 'lo', at: 3 }],
    ['Hello', 'Hello', { text: '', at: 5 }],
    ['Voilà 🎉', 'Voilà 🎉 ok', { text: ' ok', at: 8 }], // at counts UTF-16 units, as the core does
    ['Hello', 'Help!', { text: 'Help!' }], // a re-render changed earlier text
    ['Hello world', 'Hello', { text: 'Hello' }], // shorter
  ];
  for (const [sent, text, want] of cases) assert.deepEqual({ ...replyDelta(sent, text) }, want, `${sent} → ${text}`);
});

