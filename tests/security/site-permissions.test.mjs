// Attack surface: a chat site or server the user removed keeps the host permission granted for
// it, so the extension (and anything that later abuses it) still has access to that origin.
// Promise (SECURITY.md, "permissions"): removing a custom chat site gives back its host
// permission; removing a server gives back its origin's (and its sign-in's authorization
// servers', decided by the core: crates/relay-core/tests/test_app_run.rs) unless something
// else still needs it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ok, coreCall, until, launchWithGrantedOrigins } from './lib.mjs';

const ORIGIN = 'https://chat.example.test';
const SERVER = 'https://mcp.example.test';
const SHARED = 'https://shared.example.test';

let ext, panel;

before(async () => {
  // The user granted the permission when adding the site (the panel asks from the click).
  ext = await launchWithGrantedOrigins([ORIGIN + '/*', SERVER + '/*', SHARED + '/*']);
  panel = await ext.context.newPage();
  await panel.goto(ext.url('www/panel.html'));
});

after(async () => {
  await ext?.close();
});

const contains = (origin = ORIGIN) => panel.evaluate((o) => chrome.permissions.contains({ origins: [o + '/*'] }), origin);
const registered = () => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + ORIGIN);

test('removing a custom chat site removes its host permission', async () => {
  assert.equal(await contains(), true, 'the permission was granted');
  ok(await coreCall(panel, { type: 'sites/add', origin: ORIGIN, adapter: 'generic' }), 'sites/add');
  await until(registered, { what: 'the site\'s content script to be registered' });
  ok(await coreCall(panel, { type: 'sites/remove', origin: ORIGIN }), 'sites/remove');
  // Witness that the removal was processed: the content script is unregistered.
  await until(async () => !(await registered()), { what: 'the site\'s content script to be unregistered' });
  await until(async () => !(await contains()), { timeoutMs: 5_000, what: `chrome.permissions.contains(${ORIGIN}/*) to be false after the site was removed` });
});

test('removing a server removes its origin\'s host permission, unless a chat site still uses it', async () => {
  for (const origin of [SERVER, SHARED]) assert.equal(await contains(origin), true, `${origin} was granted`);
  ok(await coreCall(panel, { type: 'sites/add', origin: SHARED, adapter: 'generic' }), 'sites/add');
  const ids = [];
  for (const url of [`${SERVER}/mcp`, `${SHARED}/mcp`]) {
    // Nothing answers there: the server is added all the same, with its connection error.
    const added = await coreCall(panel, { type: 'servers/add', server: { name: url, url, enabled: false } });
    ids.push(ok(added, `servers/add ${url}`).id);
  }
  for (const id of ids) ok(await coreCall(panel, { type: 'servers/remove', id }), `servers/remove ${id}`);
  const listed = ok(await coreCall(panel, { type: 'servers/list' }));
  assert.ok(ids.every((id) => !listed.some((s) => s.id === id)), 'both servers removed');
  await until(async () => !(await contains(SERVER)), { timeoutMs: 5_000, what: `chrome.permissions.contains(${SERVER}/*) to be false after its server was removed` });
  assert.equal(await contains(SHARED), true, 'the custom chat site on that origin keeps it');
});
