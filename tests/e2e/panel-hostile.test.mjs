// A hostile MCP server (tests/fixtures/hostile/server.mjs) puts markup and script payloads in
// every string it sends. The side panel must show them as text: no element, attribute, URL or
// script of theirs may come alive. The check does not lean on the extension's CSP (which would
// block inline script anyway): it looks for the payloads' elements and attributes in the DOM.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, startProcess, ROOT } from './harness.mjs';
import { PAYLOADS } from '../fixtures/hostile/server.mjs';

let ext, hostile, site, panel, serverId;

before(async () => {
  ext = await launchExtension();
  hostile = await startProcess(process.execPath, [join(ROOT, 'tests/fixtures/hostile/server.mjs')], { ready: /listening on (http:\S+)/ });
  site = await serveStatic(join(ROOT, 'tests/fixtures/sites/plain'));
  panel = await openExtensionPage(ext, 'www/panel.html');
  await panel.setViewportSize({ width: 400, height: 900 });
  const added = await coreCall(panel, { type: 'servers/add', server: { name: `Hostile ${PAYLOADS[0]}`, url: hostile.match[1] } });
  assert.equal(added.ok, true, JSON.stringify(added.error));
  serverId = added.data.id;
});
after(async () => {
  await ext?.close();
  await hostile?.stop();
  await site?.close();
});

/** Everything that would show a payload came alive, collected in the page. */
function inspect() {
  const alive = [];
  if (window.__pwned !== undefined) alive.push(`window.__pwned = ${window.__pwned}`);
  for (const el of document.querySelectorAll('script')) {
    if (!el.src.endsWith('/www/panel.js')) alive.push(`script ${el.src || el.textContent.slice(0, 40)}`);
  }
  for (const el of document.querySelectorAll('iframe, svg, style, object, embed, b, body *[onload]')) alive.push(`element ${el.tagName}`);
  for (const el of document.querySelectorAll('*')) {
    for (const a of el.attributes) {
      if (/^on/i.test(a.name)) alive.push(`attribute ${a.name} on ${el.tagName}`);
      if (/^\s*javascript:/i.test(a.value)) alive.push(`javascript: URL in ${el.tagName}.${a.name}`);
    }
  }
  for (const img of document.querySelectorAll('img')) {
    if (!/^data:image\/[a-z0-9.+-]+;base64,[A-Za-z0-9+/]*=*$/i.test(img.getAttribute('src') || '')) alive.push(`img src ${img.getAttribute('src')}`);
  }
  for (const a of document.querySelectorAll('a[href]')) {
    if (!/^https?:|^blob:|^#/.test(a.getAttribute('href'))) alive.push(`link ${a.getAttribute('href')}`);
  }
  return alive;
}

async function assertInert(where) {
  assert.deepEqual(await panel.evaluate(inspect), [], where);
}

test('server names and errors from a hostile server render as text', async () => {
  await panel.locator('li.server').first().waitFor();
  const text = await panel.locator('#view-servers').textContent();
  assert.ok(text.includes(PAYLOADS[0]), 'the payload is visible as text');
  await assertInert('servers view');
});

test('hostile tool names, descriptions and schemas render as text', async () => {
  await panel.click('#tab-tools');
  await panel.locator('li.tool').first().waitFor();
  for (const row of await panel.locator('li.tool').all()) await row.locator('button.more').click();
  const text = await panel.locator('#view-tools').textContent();
  for (const p of PAYLOADS) assert.ok(text.includes(p), `payload shown as text: ${p}`);
  await assertInert('tools view, every tool expanded');
});

test('hostile results, images, links, resources and errors render inert', async () => {
  const row = panel.locator('li.tool[data-tool="render_html"]');
  await row.locator('[data-param="text"] input, [data-param="text"] textarea').fill(PAYLOADS[1]);
  await row.getByRole('button', { name: 'Run', exact: true }).click();
  await row.locator('.run-result article.call').waitFor({ timeout: 10_000 });
  const result = row.locator('.run-result');
  // The real PNG is shown; the text/html "image" and the one with a forged MIME type are not.
  assert.equal(await result.locator('img.result-image').count(), 1);
  assert.equal(await result.locator('.placeholder').count(), 2);
  // A javascript: resource link is text, not a link.
  assert.equal(await result.locator('a').count(), 0);
  assert.ok((await result.textContent()).includes('javascript:window.__pwned'));
  await result.locator('details.structured summary').click();
  await assertInert('tool result');

  const fail = panel.locator('li.tool[data-tool="fail_html"]');
  await fail.getByRole('button', { name: 'Run', exact: true }).click();
  await fail.locator('.run-result .error').waitFor({ timeout: 10_000 });
  assert.ok((await fail.locator('.run-result').textContent()).includes(PAYLOADS[0]));
  await assertInert('tool error');
});

test('hostile prompts and resources render inert in this chat', async () => {
  const chatPage = await ext.context.newPage();
  await chatPage.goto(site.origin + '/');
  await panel.bringToFront();
  await panel.click('#tab-chat');
  await panel.locator(`.chat-servers li[data-server="${serverId}"] input`).check();
  await panel.locator('#prompt-stats').waitFor({ timeout: 10_000 });
  const details = panel.locator(`.library details[data-server="${serverId}"]`);
  await details.locator('summary').click();
  await details.locator('li[data-prompt]').waitFor({ timeout: 10_000 });
  await details.locator('li[data-uri]').getByRole('button', { name: 'View' }).click();
  await details.locator('.library-preview pre').waitFor();
  const text = await panel.locator('#view-chat').textContent();
  assert.ok(text.includes(PAYLOADS[2]), 'prompt argument description shown as text');
  assert.ok(text.includes(`Resource ${PAYLOADS[0]}`), 'resource contents shown as text');
  await assertInert('chat view');
  // Handlers of a payload would run on load or error events. Witness that those events have had
  // their turn: an image with the payload's own broken URL, made after the view rendered (and
  // never attached), reports its error; then look again.
  await panel.evaluate(() => new Promise((resolve, reject) => {
    const img = new Image();
    const timer = setTimeout(() => reject(new Error('the sentinel image reported no error within 5 s')), 5_000);
    img.addEventListener('error', () => { clearTimeout(timer); resolve(); });
    img.src = 'x';
  }));
  await assertInert('chat view, later');
  await chatPage.close();
});
