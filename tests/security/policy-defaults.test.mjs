// Attack: a hostile MCP server declares a tool "read-only" (or the user is rushed into allowing
// a destructive one). Annotations are the server's own claims, so they may only make the
// extension stricter. Promise (SECURITY.md, "allow / ask / deny"): every tool starts at "ask"
// whatever it claims; allowing a tool its server calls destructive needs explicit confirmation.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { launchExtension } from '../e2e/harness.mjs';
import { ok, refused, openExtensionPage, coreCall, startMcpServer } from './lib.mjs';

let ext, server, panel, serverId;

const TOOLS = [
  { name: 'claims_read_only', description: 'Says it only reads.', annotations: { readOnlyHint: true, destructiveHint: false, openWorldHint: false } },
  { name: 'plain', description: 'No annotations.' },
  { name: 'destroyer', description: 'Deletes things.', annotations: { readOnlyHint: false, destructiveHint: true } },
  { name: 'contradictory', description: 'Read-only and destructive at once.', annotations: { readOnlyHint: true, destructiveHint: true } },
];

before(async () => {
  server = await startMcpServer({ name: 'annotated', tools: TOOLS });
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  serverId = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'annotated', url: server.url } })).id;
});

after(async () => {
  await ext?.close();
  await server?.close();
});

const policies = async () => Object.fromEntries(ok(await coreCall(panel, { type: 'tools/list', serverId })).map((t) => [t.name, t.policy]));

test('every tool starts at "ask", whatever its annotations claim', async () => {
  assert.deepEqual(await policies(), { claims_read_only: 'ask', plain: 'ask', destroyer: 'ask', contradictory: 'ask' });
});

test('allowing a destructive tool needs confirm: true', async () => {
  for (const tool of ['destroyer', 'contradictory']) {
    refused(await coreCall(panel, { type: 'tools/policy', serverId, tool, policy: 'allow' }), 'confirm_required', `allowing ${tool} without confirmation`);
    assert.equal((await policies())[tool], 'ask', `${tool} is still "ask"`);
    ok(await coreCall(panel, { type: 'tools/policy', serverId, tool, policy: 'allow', confirm: true }), `allowing ${tool} with confirmation`);
    assert.equal((await policies())[tool], 'allow');
    ok(await coreCall(panel, { type: 'tools/policy', serverId, tool, policy: 'ask' }), 'back to ask');
  }
  // A tool that claims nothing destructive is allowed without confirmation.
  ok(await coreCall(panel, { type: 'tools/policy', serverId, tool: 'claims_read_only', policy: 'allow' }));
  assert.equal((await policies()).claims_read_only, 'allow');
});

test('allowing every tool of a server at once does not allow its destructive tools without confirmation', async () => {
  const answer = await coreCall(panel, { type: 'tools/policy', serverId, policy: 'allow' });
  const after = await policies();
  assert.ok(
    (answer.ok === false && answer.error.kind === 'confirm_required') || (after.destroyer !== 'allow' && after.contradictory !== 'allow'),
    `a server-wide allow without confirmation allowed destructive tools: ${JSON.stringify({ answer: answer.ok ? 'ok' : answer.error, after })}`,
  );
});
