// Attack: a web page uses the extension's Origin-stripping rule to reach a loopback MCP server.
// Loopback servers refuse foreign Origins (DNS-rebinding protection), so the extension removes
// the Origin header of ITS OWN requests to the servers the user added. If the rule matched a
// web page's requests too, any page could talk to those servers as if it were a local client.
// Promise (SECURITY.md, "Origin rules"): the rule covers the extension's requests only; a page,
// its shared worker and its service worker keep their Origin.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension } from '../e2e/harness.mjs';
import { ok, openExtensionPage, coreCall, serveStatic, startMcpServer, ROOT } from './lib.mjs';

let ext, server, web, panel;

before(async () => {
  server = await startMcpServer({ name: 'origin-recorder', tools: [{ name: 'noop', description: 'Does nothing.' }] });
  web = await serveStatic(join(ROOT, 'tests/security/fixtures/origin-page'));
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
});

after(async () => {
  await ext?.close();
  await web?.close();
  await server?.close();
});

test('the extension\'s own requests lose their Origin; a web page\'s workers keep theirs', async () => {
  const added = ok(await coreCall(panel, { type: 'servers/add', server: { name: 'loopback', url: server.url } }), 'servers/add');
  assert.equal(added.state.status, 'connected', 'the extension reached the server');
  const own = server.requests.filter((r) => r.method === 'POST');
  assert.ok(own.length >= 2, 'the extension POSTed to the server (initialize, tools/list)');
  assert.deepEqual(own.map((r) => r.origin), own.map(() => null), 'the extension\'s requests arrive without Origin');

  const page = await ext.context.newPage();
  await page.goto(web.origin + '/');
  const outcome = await page.evaluate((target) => window.probe(target), server.url);
  // Each context's request went out (the server let the preflight through: CORS allows it).
  assert.deepEqual(outcome, { sharedWorker: 200, serviceWorker: 200, page: 200 }, 'every context of the page reached the server');

  const from = (ctx) => server.requests.filter((r) => r.path.endsWith(`?from=${ctx}`));
  for (const ctx of ['page', 'shared-worker', 'service-worker']) {
    const seen = from(ctx);
    assert.ok(seen.some((r) => r.method === 'POST'), `the ${ctx}'s POST arrived`);
    assert.ok(seen.some((r) => r.method === 'OPTIONS'), `the ${ctx}'s preflight arrived`);
    for (const r of seen) {
      assert.equal(r.origin, web.origin, `the ${ctx}'s ${r.method} kept its Origin`);
    }
  }
  await page.close();
});
