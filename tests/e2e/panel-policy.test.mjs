// The side panel's safe defaults, end to end against the real core and the demo MCP server:
// one click allows a server's read-only tools (and nothing else), allowing a tool marked
// destructive asks for a confirmation first, and headers marked secret are masked by the core.
// Every outcome is read back from the core, not from what the panel shows.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, startProcess, until, TARGET } from './harness.mjs';

let ext, demo, panel, serverId;

async function core(message) {
  const answer = await coreCall(panel, message);
  assert.equal(answer.ok, true, `${message.type}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

before(async () => {
  demo = await startProcess(process.env.RELAY_DEMO_SERVER || join(TARGET, 'debug/relay-demo-server'), ['--port', '0'],
    { ready: /listening on (http:\/\/127\.0\.0\.1:\d+\/mcp)/ });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  await panel.locator('#core-status[data-state="ready"]').waitFor({ timeout: 10_000 });
  serverId = (await core({ type: 'servers/add', server: { name: 'Demo', url: demo.match[1] } })).id;
});
after(async () => {
  await ext?.close();
  await demo?.stop();
});

const policies = async () => Object.fromEntries((await core({ type: 'tools/list', serverId })).map((t) => [t.name, t.policy]));
const isSafe = (t) => t.annotations?.readOnlyHint === true && t.annotations?.destructiveHint !== true;

test('"Allow read-only tools" allows exactly the tools annotated read-only and not destructive', async () => {
  const tools = await core({ type: 'tools/list', serverId });
  // The demo server has both kinds (else this test would prove nothing).
  assert.ok(tools.some(isSafe) && tools.some((t) => !isSafe(t)), JSON.stringify(tools.map((t) => [t.name, t.annotations])));
  await core({ type: 'tools/policy', serverId, policy: 'ask' });
  assert.ok(Object.values(await policies()).every((p) => p === 'ask'));

  await panel.click('#tab-tools');
  const group = panel.locator(`section.tool-group[data-server="${serverId}"]`);
  await group.locator('button[data-action="allow-read-only"]').click();
  // First it shows which tools it will allow and why; nothing changed yet.
  const preview = group.locator('.confirm[data-kind="read_only"]');
  await preview.waitFor({ timeout: 10_000 });
  const listed = await preview.locator('li[data-tool]').evaluateAll((els) => els.map((el) => el.getAttribute('data-tool')));
  assert.deepEqual(listed.sort(), tools.filter(isSafe).map((t) => t.name).sort());
  assert.match(await preview.textContent(), /only reads/);
  assert.ok(Object.values(await policies()).every((p) => p === 'ask'), 'nothing allowed before the confirmation');
  await preview.locator('button[data-action="confirm-read-only"]').click();
  const want = Object.fromEntries(tools.map((t) => [t.name, isSafe(t) ? 'allow' : 'ask']));
  await until(async () => JSON.stringify(await policies()) === JSON.stringify(want), { what: 'read-only tools allowed' });
  assert.deepEqual(await policies(), want);
  assert.equal(want.notes_delete, 'ask', 'the destructive tool still asks');
  assert.equal(want.add, 'allow');
  const row = group.locator('li.tool[data-tool="add"] [data-allowance="read_only"]');
  await row.waitFor({ timeout: 10_000 });
});

test('allowing a destructive tool asks for confirmation; Cancel keeps it, "Allow anyway" allows it', async () => {
  const row = panel.locator(`section.tool-group[data-server="${serverId}"] li.tool[data-tool="notes_delete"]`);
  await row.locator('select.policy').selectOption('allow');
  const confirm = row.locator('.confirm[data-kind="confirm_required"]');
  await confirm.waitFor({ timeout: 10_000 });
  assert.match(await confirm.textContent(), /notes_delete/);
  assert.equal((await policies()).notes_delete, 'ask', 'nothing changed before the confirmation');

  await confirm.locator('button[data-action="confirm-cancel"]').click();
  await until(async () => (await row.locator('select.policy').inputValue()) === 'ask', { what: 'the select back to the stored policy' });
  assert.equal((await policies()).notes_delete, 'ask');

  await row.locator('select.policy').selectOption('allow');
  await row.locator('.confirm[data-kind="confirm_required"] button[data-action="confirm-allow"]').click();
  await until(async () => (await policies()).notes_delete === 'allow', { what: 'notes_delete allowed after confirming' });
  // A non-destructive tool needs no confirmation.
  await row.page().locator(`li.tool[data-tool="notes_add"] select.policy`).selectOption('allow');
  await until(async () => (await policies()).notes_add === 'allow', { what: 'notes_add allowed at once' });
  await core({ type: 'tools/policy', serverId, tool: 'notes_delete', policy: 'ask' });
});

test('headers marked secret (and secret-looking names) are masked by the core and stay marked', async () => {
  await panel.click('#tab-servers');
  await panel.click('#server-add');
  const dialog = panel.locator('dialog.server-dialog');
  await dialog.locator('input[name="name"]').fill('Headers');
  await dialog.locator('input[name="url"]').fill(demo.match[1]);
  const rows = [['X-Plain', 'plain-value', false], ['X-Tenant', 'tenant-s3cret', true], ['Authorization', 'Bearer tok-s3cret', false]];
  for (const [i, [name, value, secret]] of rows.entries()) {
    await dialog.getByRole('button', { name: 'Add header' }).click();
    const row = dialog.locator('.header-row').nth(i);
    await row.locator('.header-name').fill(name);
    await row.locator('.header-value').fill(value);
    if (secret) await row.locator('.header-secret').check();
  }
  await dialog.locator('button[type="submit"]').click();
  await panel.locator('li.server', { hasText: 'Headers' }).waitFor({ timeout: 15_000 });
  const view = (await core({ type: 'servers/list' })).find((s) => s.name === 'Headers');
  const byName = Object.fromEntries(view.headers.map((h) => [h.name, h]));
  assert.equal(byName['X-Plain'].value, 'plain-value');
  assert.notEqual(byName['X-Plain'].secret, true);
  for (const name of ['X-Tenant', 'Authorization']) {
    assert.equal(byName[name].value, '••••', `${name} masked`);
    assert.equal(byName[name].secret, true, `${name} marked secret`);
  }
  assert.ok(!JSON.stringify(view).includes('s3cret'), 'no secret in the server view');

  // The edit form shows the marks, and saving it unchanged keeps the stored secrets.
  await panel.locator('li.server', { hasText: 'Headers' }).locator('[data-action="edit"]').click();
  await dialog.locator('.header-row').first().waitFor();
  const marks = await dialog.locator('.header-row').evaluateAll((rs) => Object.fromEntries(rs.map((r) => [r.querySelector('.header-name').value, r.querySelector('.header-secret').checked])));
  assert.deepEqual(marks, { 'X-Plain': false, 'X-Tenant': true, Authorization: true });
  await dialog.locator('button[type="submit"]').click();
  await dialog.waitFor({ state: 'hidden' });
  const again = (await core({ type: 'servers/list' })).find((s) => s.name === 'Headers');
  assert.deepEqual(again.headers, view.headers);
});
