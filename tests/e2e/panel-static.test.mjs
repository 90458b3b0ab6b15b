// Checks of the side panel's sources that need no browser: no markup-parsing DOM APIs anywhere
// in www/, both locales complete and consistent with what the panel uses, and the in-panel
// message formatter agreeing with chrome.i18n's placeholder rules.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { ROOT } from './harness.mjs';
import { format } from '../../www/i18n.js';
import { ERROR_KINDS, ERROR_CAUSES } from '../../extension/contract.js';
import { editType, resolve } from '../../www/schema-form.js';

const WWW = join(ROOT, 'www');

function files(dir) {
  return readdirSync(dir).flatMap((name) => {
    const p = join(dir, name);
    return statSync(p).isDirectory() ? files(p) : [p];
  });
}
const sources = files(WWW).filter((p) => /\.(js|mjs|html)$/.test(p)).map((p) => ({ path: relative(ROOT, p), text: readFileSync(p, 'utf8') }));

test('www/ never hands a string to an HTML parser', () => {
  // Built from parts so this file does not trip the same check if it is ever copied under www/.
  const banned = ['inner' + 'HTML', 'outer' + 'HTML', 'insertAdjacent' + 'HTML', 'document.' + 'write', 'createContextual' + 'Fragment', 'DOMParser', 'srcdoc', 'eval(', 'new Function'];
  // One exception, by design: an MCP App's document is HTML, and the manifest sandbox page
  // that holds it (a unique origin without chrome.*) gives it to a nested sandboxed frame as
  // `srcdoc`, under the CSP the core built. Nothing else may, and that page nothing more.
  const allowed = new Set(['www/app/frame.js: srcdoc']);
  const hits = [];
  for (const { path, text } of sources) {
    for (const word of banned) if (text.includes(word) && !allowed.has(`${path}: ${word}`)) hits.push(`${path}: ${word}`);
  }
  assert.ok(sources.length >= 5, `found only ${sources.length} panel sources`);
  assert.deepEqual(hits, []);
  const sandbox = sources.find((s) => s.path === 'www/app/frame.js');
  assert.ok(sandbox && sandbox.text.includes('srcdoc'), 'the sandbox page is where it was');
  assert.ok(!/chrome\./.test(sandbox.text.replace(/^\s*\/\/.*$/gm, '')), 'the sandbox page uses no chrome.* API');
  const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8'));
  assert.deepEqual(manifest.sandbox?.pages, ['www/app/frame.html'], 'the page that parses app documents is a manifest sandbox page');
});

const locale = (lang) => JSON.parse(readFileSync(join(ROOT, '_locales', lang, 'messages.json'), 'utf8'));
const en = locale('en');
const zh = locale('zh_CN');
const placeholderNames = (entry) => Object.keys(entry.placeholders || {}).map((n) => n.toLowerCase()).sort();

test('English and Chinese have the same messages with the same placeholders', () => {
  assert.deepEqual(Object.keys(zh).sort(), Object.keys(en).sort());
  for (const key of Object.keys(en)) {
    assert.deepEqual(placeholderNames(zh[key]), placeholderNames(en[key]), `placeholders of ${key}`);
    for (const [name, entry] of [['en', en[key]], ['zh_CN', zh[key]]]) {
      assert.ok(entry.message.trim(), `${name}.${key} is empty`);
      const used = [...entry.message.matchAll(/\$([A-Za-z0-9_@]+)\$/g)].map((m) => m[1].toLowerCase());
      for (const u of used) assert.ok(placeholderNames(entry).includes(u), `${name}.${key} uses $${u}$ without defining it`);
    }
  }
});

// Message families the panel builds from values (`t('state_' + state)`): every value needs a message.
const FAMILIES = {
  state_: ['pending', 'running', 'done', 'failed', 'unknown', 'denied', 'limited'],
  status_: ['idle', 'connecting', 'connected', 'failed', 'disabled'],
  policy_: ['allow', 'ask', 'deny'],
  strategy_: ['auto', 'toolFirst', 'toolForced', 'disabled'],
  strategyHint_: ['auto', 'toolFirst', 'toolForced', 'disabled'],
  transport_: ['auto', 'streamable', 'sse'],
  lang_: ['auto', 'en', 'zh_CN'],
  // A local server's status in the native host (relay-host's supervisor::Status).
  localStatus_: ['stopped', 'starting', 'running', 'crashed', 'failed'],
  // The string formats a form checks (www/schema-form.js FORMATS, `-` written `_`).
  formHintFormat_: ['email', 'uri', 'date', 'date_time'],
  formFormat_: ['email', 'uri', 'date', 'date_time'],
  // The first-run guide's steps (www/guide.js GUIDE_STEPS).
  guide_: ['addServer', 'openChat', 'pickServers', 'insert', 'ready'],
  // The core's error kinds, said in the panel's language (www/core.js errorView): every kind of
  // relay_core::contract::ErrorKind, as the codegen lists them in extension/contract.js.
  errKind_: Object.keys(ERROR_KINDS),
  // Why an import skipped an entry (relay_core::client::SkipReason).
  importSkip_: ['not_object', 'stdio', 'no_url', 'unknown_transport', 'bad_headers', 'bad_url', 'bad_local_entry'],
  // What to do about each cause (relay_core::contract::ErrorCause), said as the error's hint.
  errCause_: [...ERROR_CAUSES],
  errHint_: ['invalid_argument',  'internal',  'tab',  'storage',  'outcome_unknown',  'denied',  'connection',  'auth',  'http',  'protocol',  'rpc',  'tool',  'timeout',  'retries_exhausted',  'session_expired',  'unsupported_protocol_version',  'config',  'forbidden',  'unknown_message',  'permission'],
};

test('every error kind has its text in every locale, with its details filled in', () => {
  assert.ok(Object.keys(ERROR_KINDS).length >= 40, 'the generated list of error kinds');
  for (const [kind, details] of Object.entries(ERROR_KINDS)) {
    for (const [lang, messages] of [['en', en], ['zh_CN', zh]]) {
      const entry = messages['errKind_' + kind];
      assert.ok(entry, `${lang} has no errKind_${kind}`);
      assert.deepEqual(placeholderNames(entry), [...details].sort(), `${lang}.errKind_${kind}: one placeholder per detail`);
      // Each detail, given as a substitution in order, appears in the text.
      const values = details.map((d, i) => `<${d}-${i}>`);
      const text = format(entry, values);
      for (const v of values) assert.ok(text.includes(v), `${lang}.errKind_${kind} shows ${v}: ${text}`);
    }
  }
});

test('every message the panel uses exists', () => {
  const used = new Set();
  for (const { text } of sources) {
    for (const m of text.matchAll(/\bt\('([A-Za-z0-9_]+)'\s*[,)]/g)) used.add(m[1]);
    for (const m of text.matchAll(/data-i18n(?:-[a-z]+)?="([A-Za-z0-9_]+)"/g)) used.add(m[1]);
    // A counted message (`tn('toolCount', n)`) has its plural forms as keys of their own.
    for (const m of text.matchAll(/\btn\('([A-Za-z0-9_]+)'\s*,/g)) for (const form of ['one', 'other']) used.add(`${m[1]}_${form}`);
    for (const m of text.matchAll(/\bt\('([A-Za-z0-9_]+_)'\s*\+/g)) {
      assert.ok(FAMILIES[m[1]], `message family ${m[1]} is not listed in this test`);
      for (const v of FAMILIES[m[1]]) used.add(m[1] + v);
    }
  }
  // The settings view names its number fields' messages in a table.
  for (const m of readFileSync(join(WWW, 'views/settings.js'), 'utf8').matchAll(/'(settings[A-Z][A-Za-z]+)'/g)) used.add(m[1]);
  assert.ok(used.size > 100, `only ${used.size} messages found: is the scan broken?`);
  const missing = [...used].filter((k) => !(k in en)).sort();
  assert.deepEqual(missing, []);
});

test('counts are said in the plural form they take, never as "(s)"', () => {
  for (const [lang, messages] of [['en', en], ['zh_CN', zh]]) {
    for (const [key, entry] of Object.entries(messages)) assert.doesNotMatch(entry.message, /\w\(s\)/, `${lang}.${key}`);
  }
  // Every counted message has both forms; English says one of a thing in the singular.
  const counted = Object.keys(en).filter((k) => k.endsWith('_one')).map((k) => k.slice(0, -4));
  assert.ok(counted.length >= 8, `only ${counted.length} counted messages`);
  for (const key of counted) {
    assert.ok(en[key + '_other'], `${key}_other`);
    assert.ok(!(key in en), `${key}: the forms replace the plain key`);
    const one = format(en[key + '_one'], ['1', '1', '1']);
    assert.doesNotMatch(one, /\b1 (tools|calls|sites|servers|headers)\b/, `en.${key}_one: ${one}`);
  }
});

test('the in-panel formatter follows chrome.i18n placeholder rules', () => {
  const cases = [
    [{ message: 'plain' }, [], 'plain'],
    [{ message: 'Core $VERSION$ ready', placeholders: { version: { content: '$1' } } }, ['0.1.0'], 'Core 0.1.0 ready'],
    [{ message: '$a$ of $B$', placeholders: { A: { content: '$2' }, b: { content: '$1' } } }, ['x', 'y'], 'y of x'],
    [{ message: 'cost $$5 and $${x}' }, [], 'cost $5 and ${x}'],
    [{ message: 'direct $1 and $2' }, ['one'], 'direct one and '],
    [{ message: 'fixed $P$', placeholders: { p: { content: 'constant' } } }, [], 'fixed constant'],
    [{ message: 'unknown $NOPE$ stays' }, [], 'unknown $NOPE$ stays'],
    [{ message: 'markup $X$', placeholders: { x: { content: '$1' } } }, ['<b>$1</b>'], 'markup <b>$1</b>'],
  ];
  for (const [entry, subs, want] of cases) assert.equal(format(entry, subs), want, entry.message);
  // Every real message formats without leaving a placeholder behind.
  for (const [lang, messages] of [['en', en], ['zh_CN', zh]]) {
    for (const [key, entry] of Object.entries(messages)) {
      const out = format(entry, ['A', 'B', 'C', 'D']);
      assert.doesNotMatch(out, /\$[A-Za-z_]+\$/, `${lang}.${key}: ${out}`);
    }
  }
});

test('schema properties map to the control the run form uses', () => {
  const cases = [
    [{ type: 'string' }, 'string'],
    [{ type: 'integer' }, 'integer'],
    [{ type: 'number' }, 'number'],
    [{ type: 'boolean' }, 'boolean'],
    [{ type: ['string', 'null'] }, 'string'],
    [{ type: ['null', 'integer'] }, 'integer'],
    [{ enum: ['a', 'b'] }, 'string'],
    [{ enum: [1, 2] }, 'number'],
    [{ enum: [1, 'a'] }, 'json'],
    [{ type: 'array', items: { type: 'string' } }, 'json'],
    [{ type: 'object' }, 'json'],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, 'json'],
    [{}, 'json'],
    [null, 'json'],
  ];
  for (const [schema, want] of cases) assert.equal(editType(schema), want, JSON.stringify(schema));
});

test('generator wrappers around a property are undone before choosing its control', () => {
  const root = {
    $defs: { Color: { type: 'string', enum: ['red', 'blue'], description: 'a colour' }, Loop: { $ref: '#/$defs/Loop' } },
    definitions: { Size: { type: 'integer', minimum: 1 } },
  };
  const cases = [
    [{ $ref: '#/$defs/Color', default: 'blue', description: 'Colour of the gradient.' }, { type: 'string', enum: ['red', 'blue'], default: 'blue', description: 'Colour of the gradient.' }],
    [{ allOf: [{ $ref: '#/definitions/Size' }], default: 16 }, { type: 'integer', minimum: 1, default: 16 }],
    [{ anyOf: [{ type: 'string' }, { type: 'null' }], description: 'optional text' }, { type: 'string', description: 'optional text', nullable: true }],
    // Python's `list[float] | None = None`: an array field whose default, null, stays valid.
    [{ anyOf: [{ type: 'array', items: { type: 'number' } }, { type: 'null' }], default: null }, { type: 'array', items: { type: 'number' }, default: null, nullable: true }],
    [{ oneOf: [{ const: 'a', description: 'A' }, { const: 'b' }] }, { enum: ['a', 'b'], type: 'string' }],
    [{ anyOf: [{ type: 'string' }, { type: 'number' }] }, { anyOf: [{ type: 'string' }, { type: 'number' }] }],
    [{ $ref: '#/$defs/Missing', title: 'kept' }, { title: 'kept' }],
    [{ $ref: 'https://example.com/schema' }, { $ref: 'https://example.com/schema' }],
    // Titled options keep their titles (the select shows them), the legacy enumNames too.
    [{ type: 'string', oneOf: [{ const: 'h1', title: 'Superman' }, { const: 'h2' }] }, { type: 'string', enum: ['h1', 'h2'], enumTitles: ['Superman', undefined] }],
    [{ type: 'string', enum: ['p1'], enumNames: ['Cats'] }, { type: 'string', enum: ['p1'], enumNames: ['Cats'], enumTitles: ['Cats'] }],
    // An array of listed values is a multi-select (checkboxes).
    [{ type: 'array', items: { enum: ['a', 'b'] } }, { type: 'array', items: { enum: ['a', 'b'] }, options: ['a', 'b'] }],
    [{ type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }] } }, { type: 'array', items: { anyOf: [{ const: 'f1', title: 'Tuna' }] }, options: ['f1'], optionTitles: ['Tuna'] }],
  ];
  for (const [prop, want] of cases) assert.deepEqual(resolve(prop, root), want, JSON.stringify(prop));
  // A reference cycle ends instead of recursing forever.
  assert.ok(resolve({ $ref: '#/$defs/Loop' }, root));
  assert.equal(editType(resolve({ $ref: '#/$defs/Color' }, root)), 'string');
});
