// A server's question to the user (MCP elicitation), end to end: real Chromium, the real core,
// and a Streamable HTTP server on 127.0.0.1 whose tools ask the user in the middle of a call
// (`elicitation/create` on the call's SSE stream) and answer with what came back. The question
// shows in the side panel; the user's answer (a form with SEP-1034 defaults, a decline, a page
// opened) reaches the server, and the tool's result reflects it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { randomUUID } from 'node:crypto';
import { launchExtension, openExtensionPage, coreCall, until } from './harness.mjs';
import { startServerEverything } from '../interop/lib.mjs';

let ext, panel, caller, server, url, serverId, everything;
const seen = { capabilities: null, answers: [] };

const QUESTIONS = {
  profile: {
    message: 'Who should the note be from?',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name' },
        color: { type: 'string', enum: ['red', 'blue'], default: 'blue' },
        urgent: { type: 'boolean', default: false },
      },
      required: ['name', 'color'],
    },
  },
  login: { mode: 'url', message: 'Connect your calendar.', url: 'http://127.0.0.1:9/connect', elicitationId: 'c-1' },
  blank: {
    message: 'Who are you?',
    requestedSchema: {
      type: 'object',
      properties: {
        name: { type: 'string', title: 'Name' },
        email: { type: 'string', title: 'E-mail', format: 'email' },
        code: { type: 'string', title: 'Code', pattern: '^[A-Z]{3}$' },
        subscribe: { type: 'boolean', title: 'Subscribe' },
      },
      required: ['name'],
    },
  },
};

/** A Streamable HTTP MCP server whose `ask` tool elicits, then answers with the reply. */
function startServer() {
  const waiting = new Map(); // elicitation id → the call's open SSE response and call id
  const srv = http.createServer(async (req, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    if (req.method !== 'POST') return void res.writeHead(405).end();
    const m = JSON.parse(body);
    const json = (value) => {
      res.writeHead(200, { 'content-type': 'application/json', 'mcp-session-id': 's-1' });
      res.end(JSON.stringify(value));
    };
    if (m.method === 'initialize') {
      seen.capabilities = m.params.capabilities;
      return json({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: m.params.protocolVersion, capabilities: { tools: {} }, serverInfo: { name: 'asker', version: '1' } } });
    }
    if (m.id === undefined && m.method) return void res.writeHead(202).end();
    if (m.method === undefined) {
      // The client's answer to our question: the call's stream gets the tool's result.
      res.writeHead(202).end();
      seen.answers.push(m.result);
      const call = waiting.get(m.id);
      waiting.delete(m.id);
      call?.res.end(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: call.id, result: { content: [{ type: 'text', text: JSON.stringify(m.result) }] } })}\n\n`);
      return;
    }
    if (m.method === 'tools/list') {
      const tool = { name: 'ask', description: 'Asks the user.', inputSchema: { type: 'object', properties: { question: { type: 'string', enum: Object.keys(QUESTIONS) } }, required: ['question'] } };
      return json({ jsonrpc: '2.0', id: m.id, result: { tools: [tool] } });
    }
    if (m.method === 'tools/call') {
      const ask = randomUUID();
      waiting.set(ask, { res, id: m.id });
      res.writeHead(200, { 'content-type': 'text/event-stream', 'mcp-session-id': 's-1' });
      res.write(`event: message\ndata: ${JSON.stringify({ jsonrpc: '2.0', id: ask, method: 'elicitation/create', params: QUESTIONS[m.params.arguments.question] })}\n\n`);
      return;
    }
    json({ jsonrpc: '2.0', id: m.id, error: { code: -32601, message: 'unknown' } });
  });
  return new Promise((resolve) => srv.listen(0, '127.0.0.1', () => resolve(srv)));
}

before(async () => {
  server = await startServer();
  url = `http://127.0.0.1:${server.address().port}/mcp`;
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
  await panel.locator('#core-status[data-state="ready"]').waitFor({ timeout: 10_000 });
  caller = await openExtensionPage(ext, 'www/panel.html');
  const added = await coreCall(panel, { type: 'servers/add', server: { name: 'Asker', url } });
  assert.equal(added.ok, true, JSON.stringify(added.error));
  serverId = added.data.id;
});
after(async () => {
  await ext?.close();
  await everything?.stop();
  server?.closeAllConnections();
  server?.close();
});

/** Starts the `ask` tool from another extension page; resolves with the call's envelope. */
const ask = (question) => coreCall(caller, { type: 'tools/call', serverId, tool: 'ask', arguments: { question } });

test('the client declares elicitation', () => {
  assert.deepEqual(seen.capabilities.elicitation, { form: {}, url: {} });
  // Besides it, only the protocol's extensions the extension implements (MCP Apps...).
  assert.deepEqual(Object.keys(seen.capabilities).filter((k) => k !== 'extensions'), ['elicitation']);
  assert.ok(seen.capabilities.extensions['io.modelcontextprotocol/ui'], 'MCP Apps are declared');
});

test('a form question shows in the panel; the answer, with SEP-1034 defaults, is the tool\'s result', async () => {
  const pending = ask('profile');
  const q = panel.locator('#questions .question');
  await q.waitFor({ timeout: 15_000 });
  assert.match(await q.locator('h2').textContent(), /Asker/);
  assert.equal(await q.locator('.question-message').textContent(), 'Who should the note be from?');
  await q.locator('[data-param="name"] input').fill('Ada');
  await q.locator('button[data-action="accept"]').click();
  const answer = await pending;
  assert.equal(answer.ok, true, JSON.stringify(answer.error));
  const reply = JSON.parse(answer.data.result.content[0].text);
  // Left as they were: the defaults were sent (color prefilled, urgent from its default).
  assert.deepEqual(reply, { action: 'accept', content: { name: 'Ada', color: 'blue', urgent: false } });
  await panel.locator('#questions').waitFor({ state: 'hidden' });
  assert.deepEqual(await coreCall(panel, { type: 'elicitation/list' }), { ok: true, data: [] });
});

test('Decline answers decline, and the call still ends', async () => {
  const pending = ask('profile');
  const q = panel.locator('#questions .question');
  await q.waitFor({ timeout: 15_000 });
  await q.locator('button[data-action="decline"]').click();
  const answer = await pending;
  assert.deepEqual(JSON.parse(answer.data.result.content[0].text), { action: 'decline' });
});

test('a page question opens the page only from the user\'s click, then answers accept', async () => {
  const pending = ask('login');
  const q = panel.locator('#questions .question');
  await q.waitFor({ timeout: 15_000 });
  assert.equal(await q.locator('.question-url code').textContent(), QUESTIONS.login.url);
  assert.equal(ext.context.pages().filter((p) => p.url().startsWith('http://127.0.0.1:9/')).length, 0);
  const opened = ext.context.waitForEvent('page', { timeout: 10_000 });
  await q.locator('button[data-action="open"]').click();
  const page = await opened;
  await page.waitForURL(/127\.0\.0\.1:9\/connect/, { waitUntil: 'commit', timeout: 10_000 }).catch(() => {});
  assert.match(page.url(), /127\.0\.0\.1:9\/connect|chrome-error/);
  const answer = await pending;
  assert.deepEqual(JSON.parse(answer.data.result.content[0].text), { action: 'accept' });
});

test('an answer to a question nobody is waiting for is refused with a clear error', async () => {
  const answer = await coreCall(panel, { type: 'elicitation/answer', key: 'e999', action: 'accept', content: {} });
  assert.equal(answer.ok, false);
  assert.equal(answer.error.kind, 'invalid_argument');
  assert.match(answer.error.message, /no question/);
});

test("server-everything's elicitation (every field kind of 2025-11-25) is answered from the panel", async () => {
  everything = await startServerEverything('streamableHttp');
  const added = await coreCall(panel, { type: 'servers/add', server: { name: 'Everything', url: everything.url } });
  assert.equal(added.ok, true, JSON.stringify(added.error));
  const id = added.data.id;
  const pending = coreCall(caller, { type: 'tools/call', serverId: id, tool: 'trigger-elicitation-request', arguments: {} });
  const q = panel.locator(`#questions .question[data-server="${id}"]`);
  await q.waitFor({ timeout: 15_000 });
  await q.locator('[data-param="name"] input').fill('Ada Lovelace');
  // Titled options show their titles; a multi-select is a set of checkboxes (the default ticked).
  await q.locator('[data-param="titledSingleSelectEnum"] select').selectOption({ label: 'Green Lantern' });
  const guitar = q.locator('[data-param="untitledMultipleSelectEnum"] label', { hasText: 'Guitar' }).locator('input');
  assert.equal(await guitar.isChecked(), true);
  await q.locator('[data-param="untitledMultipleSelectEnum"] label', { hasText: 'Piano' }).locator('input').check();
  await q.locator('button[data-action="accept"]').click();
  const answer = await pending;
  assert.equal(answer.ok, true, JSON.stringify(answer.error));
  const text = answer.data.result.content.map((c) => c.text).join('\n');
  assert.match(text, /"titledSingleSelectEnum":\s*"hero-2"/);
  assert.match(text, /"untitledMultipleSelectEnum":\s*\[\s*"Guitar",\s*"Piano"\s*\]/);
  assert.match(text, /"titledMultipleSelectEnum":\s*\[\s*"fish-1"\s*\]/);
  assert.match(text, /User provided the requested information/);
  assert.match(text, /Name: Ada Lovelace/);
  // Defaults the user left as they were were sent (SEP-1034).
  assert.match(text, /Favorite Integer: 42/);
  assert.match(text, /Favorite Number: 3.14/);
});

const BLANK_TEXT = {
  en: { required: 'Required.', email: 'Not a valid e-mail address.', pattern: 'Not in the form the server asks for.', tab: 'Servers' },
  zh_CN: { required: '必填。', email: '不是有效的电子邮件地址。', pattern: '格式不符合服务器的要求。', tab: '服务器' },
};

for (const lang of ['en', 'zh_CN']) {
  test(`a blank required field is refused by the form and by the core; the question stays open, docked below the tabs (${lang})`, async () => {
    const settings = await coreCall(panel, { type: 'settings/get' });
    await coreCall(panel, { type: 'settings/set', settings: { ...settings.data, language: lang } });
    await panel.reload();
    await panel.locator('#core-status[data-state="ready"]').waitFor();
    assert.equal(await panel.locator('#tab-servers').textContent(), BLANK_TEXT[lang].tab);
    // Where the tabs are once the panel's layout has settled (two looks in a row agree).
    let tabsBefore = null;
    await until(async () => {
      const box = await panel.locator('#tabs').boundingBox();
      const settled = JSON.stringify(box) === JSON.stringify(tabsBefore);
      tabsBefore = box;
      return settled;
    }, { intervalMs: 200, what: 'the panel layout to settle' });
    const answered = seen.answers.length;
    const pending = ask('blank');
    const q = panel.locator('#questions .question');
    await q.waitFor({ timeout: 15_000 });
    // Docked: the tabs did not move, and the card scrolls on its own.
    assert.deepEqual(await panel.locator('#tabs').boundingBox(), tabsBefore);
    assert.deepEqual(await panel.locator('#questions').evaluate((el) => [getComputedStyle(el).position, getComputedStyle(el).overflowY]), ['fixed', 'auto']);
    // Labelled by title, no JSON type suffixes; a boolean is a checkbox.
    const text = await q.textContent();
    assert.doesNotMatch(text, /\((string|boolean|number|integer)\b/);
    assert.equal(await q.locator('[data-param="name"] label').first().textContent(), 'Name *');
    assert.equal(await q.locator('[data-param="subscribe"] input[type="checkbox"]').count(), 1);

    // Blank, then only spaces: the form refuses, next to the field; nothing reaches the server.
    for (const value of ['', '   ']) {
      await q.locator('[data-param="name"] input').fill(value);
      await q.locator('button[data-action="accept"]').click();
      await until(async () => (await q.locator('[data-param="name"] .field-error').textContent()) === BLANK_TEXT[lang].required, { what: 'the inline refusal' });
    }
    await q.locator('[data-param="name"] input').fill('Ada');
    await q.locator('[data-param="email"] input').fill('ada');
    await q.locator('button[data-action="accept"]').click();
    await until(async () => (await q.locator('[data-param="email"] .field-error').textContent()) === BLANK_TEXT[lang].email, { what: 'the format refusal' });
    assert.equal(await q.locator('[data-param="name"] .field-error').textContent(), '');
    await q.locator('[data-param="email"] input').fill('');
    await q.locator('[data-param="code"] input').fill('abc');
    await q.locator('button[data-action="accept"]').click();
    await until(async () => (await q.locator('[data-param="code"] .field-error').textContent()) === BLANK_TEXT[lang].pattern, { what: 'the pattern refusal' });
    await q.locator('[data-param="code"] input').fill('');

    // The core refuses the same answers sent around the form, naming the field; it stays open.
    const key = await q.getAttribute('data-key');
    const badCode = await coreCall(caller, { type: 'elicitation/answer', key, action: 'accept', content: { name: 'Ada', code: 'abc' } });
    assert.equal(badCode.ok, false);
    assert.deepEqual([badCode.error.kind, badCode.error.details], ['field_invalid', ['code']]);
    const refused = await coreCall(caller, { type: 'elicitation/answer', key, action: 'accept', content: { name: '' } });
    assert.equal(refused.ok, false);
    assert.equal(refused.error.kind, 'field_invalid');
    assert.deepEqual(refused.error.details, ['name']);
    const stillOpen = await coreCall(panel, { type: 'elicitation/list' });
    assert.deepEqual(stillOpen.data.map((x) => x.key), [key]);
    assert.equal(seen.answers.length, answered);

    // Filled in: sent, with the untouched optional fields left out.
    await q.locator('[data-param="email"] input').fill('');
    await q.locator('button[data-action="accept"]').click();
    const answer = await pending;
    assert.equal(answer.ok, true, JSON.stringify(answer.error));
    assert.deepEqual(JSON.parse(answer.data.result.content[0].text), { action: 'accept', content: { name: 'Ada' } });
    await panel.locator('#questions').waitFor({ state: 'hidden' });
  });
}
