// Attack surface: a chat site the user removed keeps the host permission granted for it, so the
// extension (and anything that later abuses it) still has access to that origin. Promise
// (SECURITY.md, "permissions"): removing a custom chat site gives back its host permission.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ok, coreCall, until, launchWithGrantedOrigins } from './lib.mjs';

const ORIGIN = 'https://chat.example.test';

let ext, panel;

before(async () => {
  // The user granted the permission when adding the site (the panel asks from the click).
  ext = await launchWithGrantedOrigins([ORIGIN + '/*']);
  panel = await ext.context.newPage();
  await panel.goto(ext.url('www/panel.html'));
});

after(async () => {
  await ext?.close();
});

const contains = () => panel.evaluate((o) => chrome.permissions.contains({ origins: [o + '/*'] }), ORIGIN);
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
