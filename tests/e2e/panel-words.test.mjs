// What the side panel says, in English and Chinese (issue 33): one value in both of the run
// form's editors; servers by their names and no internal ids or codes on screen; the panel's own
// words for a bad address, an offline server and a Cancel; the protocol log's own button and
// readable JSON; counted things in their plural form; the Markdown export without base64 and
// with its duration labelled; local servers folded away, with the release zip's command. And
// every view's visible text checked for internal codes, "(s)"
// and, in Chinese, English sentences.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { openExtensionPage, until } from './harness.mjs';
import { startRig } from '../fixtures/sites/_shared/loop.mjs';
import { ERROR_KINDS } from '../../extension/contract.js';

const NAME = '演示服务器';
const OFFLINE = 'http://127.0.0.1:9/mcp';
let rig, chat;

/** Reloads the panel in `lang` on `view`. */
async function panelIn(lang, view = 'servers') {
  await rig.call({ type: 'settings/set', settings: { ...(await rig.call({ type: 'settings/get' })), language: lang } });
  await rig.panel.goto(rig.ext.url(`www/panel.html#${view}`));
  await rig.panel.reload(); // a new hash alone would not load the page again
  await rig.panel.locator('#core-status[data-state="ready"]').waitFor();
  await rig.panel.bringToFront();
  return rig.panel;
}

before(async () => {
  rig = await startRig();
  // The demo server, renamed as a person names it: its id stays what it was.
  const [demo] = await rig.call({ type: 'servers/list' });
  const { id, url, transport, headers, timeoutMs } = demo;
  await rig.call({ type: 'servers/update', server: { id, name: NAME, url, transport, headers, timeoutMs, enabled: true } });
  await rig.call({ type: 'servers/add', server: { name: 'Offline', url: OFFLINE } });
  // A chat whose reply calls `add` (allowed): one finished call in Activity.
  const site = await rig.addSite('chatgpt');
  const args = encodeURIComponent(JSON.stringify({ a: 2, b: 3 }));
  chat = await rig.openChat(`${site.origin}/chatgpt/?tool=add&args=${args}`, {}, 'chatgpt');
  await rig.insertInstructions(chat.chatRef);
  await until(async () => (await rig.calls(chat.chatRef, chat.page)).some((c) => c.state === 'done'), { timeoutMs: 20_000, what: 'a finished call' });
});
after(async () => { await rig?.close(); });

/** The text a person reads in the page: rendered text, closed "Details" left closed. */
const visibleText = (page) => page.evaluate(() => {
  for (const d of document.querySelectorAll('details[open]')) d.open = false;
  return document.body.innerText;
});

/** Opens a tool's run form unless it is open. */
async function openTool(row) {
  const more = row.locator('button.more');
  if ((await more.getAttribute('aria-expanded')) !== 'true') await more.click();
}

test('the run form and "Edit as JSON" hold one value, both ways (item 2)', async () => {
  const panel = await panelIn('en', 'tools');
  const row = panel.locator('li.tool[data-tool="add"]');
  await row.waitFor({ timeout: 15_000 });
  await openTool(row);
  const a = row.locator('[data-param="a"] input');
  const b = row.locator('[data-param="b"] input');
  // Half a form: what is typed goes over, the missing field is no reason to drop it.
  await a.fill('2');
  await row.locator('input[data-action="json-mode"]').check();
  const editor = row.locator('textarea[data-editor="arguments"]');
  assert.deepEqual(JSON.parse(await editor.inputValue()), { a: 2 });
  // Run from JSON, then back to the form: it shows what ran, with no stale "Required.".
  await editor.fill('{"a": 4, "b": 5}');
  await row.locator('form.run-form button[type="submit"]').click();
  await row.locator('.run-result article.call[data-state="done"]').waitFor({ timeout: 10_000 });
  await row.locator('input[data-action="json-mode"]').uncheck();
  assert.equal(await a.inputValue(), '4');
  assert.equal(await b.inputValue(), '5');
  const errors = await row.locator('.schema-form .field-error').allTextContents();
  assert.deepEqual(errors.filter(Boolean), [], 'no stale errors');
  assert.equal(await row.locator('.schema-form [aria-invalid="true"]').count(), 0);
  // And the form's edit goes back to JSON.
  await b.fill('6');
  await row.locator('input[data-action="json-mode"]').check();
  assert.deepEqual(JSON.parse(await editor.inputValue()), { a: 4, b: 6 });
});

for (const lang of ['en', 'zh_CN']) {
  test(`Activity names the server as the user did; no core version, no error code (item 4, ${lang})`, async () => {
    const panel = await panelIn(lang, 'activity');
    const done = panel.locator('#view-activity article.call[data-state="done"]').first();
    await done.waitFor({ timeout: 15_000 });
    assert.equal(await done.locator('.call-server').textContent(), NAME);
    const text = await visibleText(panel);
    assert.ok(!text.includes(rig.serverId), `the server id ${rig.serverId} is not shown`);
    assert.equal((await panel.locator('#core-status').textContent()).trim(), '', 'no "Core … ready"');
    // Under an error's Details: words, never "Code: http".
    const details = await panel.evaluate(async () => {
      const { errorView } = await import('/www/core.js');
      const el = errorView({ kind: 'http', message: 'http://h/x answered HTTP 500', hint: 'x', details: ['500', 'http://h/x'], cause: 'server_failed' });
      document.body.append(el);
      const d = /** @type {HTMLDetailsElement} */ (el.querySelector('details'));
      d.open = true;
      const shown = { text: d.innerText, kind: el.dataset.kind };
      el.remove();
      return shown;
    });
    assert.equal(details.kind, 'http');
    assert.doesNotMatch(details.text, /Code:|代码：/);
    assert.doesNotMatch(details.text, /(?<![\w/])http(?![\w:])/, details.text);
    assert.match(details.text, lang === 'en' ? /HTTP 500/ : /500/);
  });

  test(`a server address without a scheme gets the panel's own hint, not the browser's (item 8, ${lang})`, async () => {
    const panel = await panelIn(lang, 'servers');
    await panel.click('#server-add');
    const dialog = panel.locator('dialog.server-dialog');
    await dialog.locator('input[name="name"]').fill('No scheme');
    const url = dialog.locator('input[name="url"]');
    await url.fill('example.com/mcp');
    const before = (await rig.call({ type: 'servers/list' })).length;
    await dialog.locator('button[type="submit"]').click();
    const error = dialog.locator('.field', { has: panel.locator('input[name="url"]') }).locator('.field-error');
    await until(async () => (await error.textContent()) !== '', { what: 'the address refused' });
    assert.match(await error.textContent(), lang === 'en' ? /http:\/\/ or https:\/\// : /http:\/\/ 或 https:\/\//);
    assert.equal(await url.evaluate((el) => el.validationMessage), '', "no browser bubble");
    assert.equal(await url.getAttribute('aria-invalid'), 'true');
    assert.equal(await dialog.evaluate((d) => d.open), true);
    assert.equal((await rig.call({ type: 'servers/list' })).length, before, 'nothing added');
    // Written whole, the message goes.
    await url.fill('http://127.0.0.1:9/other');
    await dialog.locator('button[type="submit"]').click();
    await until(async () => (await error.textContent()) === '', { what: 'the hint cleared' });
    await until(async () => (await rig.call({ type: 'servers/list' })).length === before + 1, { what: 'added' });
    const added = (await rig.call({ type: 'servers/list' })).find((s) => s.url === 'http://127.0.0.1:9/other');
    await rig.call({ type: 'servers/remove', id: added.id });
  });

  test(`an offline server says what happened and what to do (item 8, ${lang})`, async () => {
    const panel = await panelIn(lang, 'servers');
    const row = panel.locator('li.server', { hasText: 'Offline' });
    const error = row.locator('.error');
    await error.waitFor({ timeout: 30_000 });
    const text = await error.innerText();
    if (lang === 'en') {
      assert.match(text, /^The server at http:\/\/127\.0\.0\.1:9\/mcp could not be reached/, text);
      assert.match(text, /running/);
    } else {
      assert.match(text, /无法连接/, text);
      assert.match(text, /正在运行/, text);
      assert.doesNotMatch(text, /Failed to fetch|cannot reach/, text);
    }
  });

  test(`the protocol log has its own Refresh and readable JSON; counts in their plural form (item 10, ${lang})`, async () => {
    const panel = await panelIn(lang, 'servers');
    const row = panel.locator('li.server', { hasText: NAME });
    await row.locator('details.wire-log > summary').click();
    const refresh = row.locator('button[data-action="wire-refresh"]');
    assert.equal(await refresh.textContent(), lang === 'en' ? 'Refresh log' : '刷新日志');
    const body = row.locator('.wire-text').first();
    await body.waitFor({ timeout: 10_000 });
    const json = await body.textContent();
    assert.match(json, /^\{\n {2}"/m, 'indented JSON');
    const style = await body.evaluate((el) => ({ white: getComputedStyle(el).whiteSpace, wrap: getComputedStyle(el).overflowWrap, brk: getComputedStyle(el).wordBreak }));
    assert.deepEqual(style, { white: 'pre-wrap', wrap: 'anywhere', brk: 'normal' });
    const plural = await panel.evaluate(async () => {
      const { tn } = await import('/www/i18n.js');
      return [tn('toolCount', 1), tn('toolCount', 2), tn('activityPending', 1), tn('wireHeaders', 1)];
    });
    assert.deepEqual(plural, lang === 'en'
      ? ['1 tool', '2 tools', '1 call is waiting for your approval.', '1 header']
      : ['1 个工具', '2 个工具', '1 个调用等待你的批准。', '1 个标头']);
  });
}

test('"Details & run" stays on one line beside a long tool name (item 10)', async () => {
  const panel = await panelIn('en', 'tools');
  await panel.setViewportSize({ width: 300, height: 900 });
  try {
    const more = panel.locator('li.tool button.more').first();
    await more.waitFor({ timeout: 15_000 });
    const lines = await panel.locator('li.tool button.more').evaluateAll((buttons) => buttons.map((b) => {
      const range = document.createRange();
      range.selectNodeContents(b);
      const tops = new Set([...range.getClientRects()].map((r) => Math.round(r.top)));
      return tops.size;
    }));
    assert.ok(lines.length > 3);
    assert.deepEqual([...new Set(lines)], [1], `lines per button: ${lines}`);
  } finally {
    await panel.setViewportSize({ width: 400, height: 900 });
  }
});

test('a Cancel reads as a neutral "Cancelled", not as a red error (item 8)', async () => {
  const panel = await panelIn('zh_CN', 'activity');
  const shown = await panel.evaluate(async () => {
    const { errorView } = await import('/www/core.js');
    const { callView } = await import('/www/render.js');
    const error = { kind: 'cancelled', message: 'tools/call was cancelled: cancelled by the user', hint: 'Nothing to do' };
    const a = errorView(error);
    const b = callView({ key: 'k', tool: 'slow_count', state: 'failed', error });
    document.body.append(a, b);
    const out = {
      a: { text: a.innerText, role: a.getAttribute('role'), error: a.classList.contains('error') },
      b: { text: b.innerText, errors: b.querySelectorAll('.error, [role="alert"]').length, badge: b.querySelector('.badge')?.className },
    };
    a.remove();
    b.remove();
    return out;
  });
  assert.deepEqual(shown.a, { text: '已取消', role: 'status', error: false });
  assert.equal(shown.b.errors, 0);
  assert.match(shown.b.text, /已取消/);
  assert.doesNotMatch(shown.b.badge, /state-failed/);
});

test('the Markdown export names the server, labels the time and leaves base64 out (item 10)', async () => {
  const panel = await panelIn('en', 'activity');
  await panel.locator('#view-activity article.call[data-state="done"]').first().waitFor({ timeout: 15_000 });
  const download = panel.waitForEvent('download');
  await panel.locator('button[data-action="export-md"]').click();
  const md = readFileSync(await (await download).path(), 'utf8');
  assert.match(md, new RegExp(`^- Server: ${NAME}$`, 'm'));
  assert.match(md, /^- Took \d+(\.\d)? (ms|s)$/m);
  assert.doesNotMatch(md, /^- \d+ ms$/m);
  // A result with an image: the file names it and its size, without its data.
  const data = 'iVBORw0KGgo' + 'A'.repeat(2000);
  const image = await panel.evaluate(async (data) => {
    const { activityMarkdown } = await import('/www/export.js');
    const labels = { state: (s) => s, arguments: 'Arguments', result: 'Result', error: 'Error', server: 'Server', started: 'Started', took: (ms) => `Took ${ms} ms`, payload: (mime, bytes) => `[${mime}, ${bytes} bytes]` };
    return activityMarkdown([{ key: 'k', tool: 'generate_image', serverId: 'demo', state: 'done', result: { content: [{ type: 'image', mimeType: 'image/png', data }] } }], { title: 'Activity', chat: '', servers: new Map([['demo', 'Demo']]), labels });
  }, data);
  assert.ok(!image.includes(data.slice(0, 40)), 'no base64 in the file');
  assert.match(image, /\[image\/png, 1508 bytes\]/);
  assert.match(image, /^- Server: Demo$/m);
});

// ——— Every view's visible text ———

/** Internal codes a person must not read: ids, error kinds, "(s)". */
function codesIn(text) {
  const found = [];
  for (const m of text.matchAll(/c_[0-9a-f]{6,}|srv-[\w-]+|\w\(s\)/g)) found.push(m[0]);
  for (const kind of Object.keys(ERROR_KINDS)) {
    if (!kind.includes('_') && kind !== 'http') continue;
    const re = kind === 'http' ? /(?<![\w/])http(?![\w:])/ : new RegExp(`(?<![\\w-])${kind}(?![\\w-])`);
    if (re.test(text)) found.push(kind);
  }
  return found;
}

/**
 * English sentences in a Chinese panel: four English words in a row, in the panel's own text
 * (what servers and sites send, tool names and descriptions, results, addresses, and the
 * instructions written for the model are theirs, not the panel's).
 */
const englishIn = (page) => page.evaluate(() => {
  for (const d of document.querySelectorAll('details[open]')) d.open = false;
  const theirs = 'code, pre, textarea, input, .tool-desc, .tool-title, .param-desc, .param-type, .tool-name, .call-tool, .call-args, .result-text, .result, .prompt-text, #prompt-text, .server-url, .error-original, .question-message';
  const hits = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const el = n.parentElement;
    if (!el || el.closest(theirs) || !el.checkVisibility()) continue;
    const m = /[A-Za-z]{2,}(?:[ ,'’-]+[A-Za-z]{2,}){3,}/.exec(n.textContent || '');
    if (m) hits.push(m[0]);
  }
  return hits;
});

for (const lang of ['en', 'zh_CN']) {
  test(`every view's visible text has no internal code, no "(s)" and, in Chinese, no English sentence (${lang})`, async () => {
    const panel = await panelIn(lang, 'servers');
    await panel.locator('li.server[data-status="failed"] .error').first().waitFor({ timeout: 30_000 });
    for (const view of ['servers', 'tools', 'chat', 'activity', 'settings']) {
      // The chat the panel is for: the one with the call in it.
      await chat.page.bringToFront();
      await panel.bringToFront();
      await panel.click('#tab-' + view);
      await panel.locator(`#view-${view}:not([hidden]):not([aria-busy])`).waitFor();
      if (view === 'activity') await panel.locator('article.call').first().waitFor({ timeout: 10_000 });
      if (view === 'tools') await panel.locator('li.tool').first().waitFor({ timeout: 10_000 });
      const text = await visibleText(panel);
      assert.deepEqual(codesIn(text), [], `${view}, ${lang}: ${text}`);
      // The server's id, in the panel's own text (not in what the server wrote, nor in the
      // instructions for the model, which may name it).
      const ids = await panel.evaluate((id) => {
        const re = new RegExp(`(?<![\\w-])${id}(?![\\w-])`);
        const hits = [];
        const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          const el = n.parentElement;
          if (el && !el.closest('#prompt-text, textarea, input, pre, code, .tool-desc, .param-desc, .tool-title, .result-text') && el.checkVisibility() && re.test(n.textContent || '')) hits.push(n.textContent);
        }
        return hits;
      }, rig.serverId);
      assert.deepEqual(ids, [], `${view}, ${lang}: the id ${rig.serverId} of ${NAME}`);
      if (lang === 'zh_CN') assert.deepEqual(await englishIn(panel), [], `${view}: English in the Chinese panel`);
    }
  });
}

// ——— Local servers (item 9) ———

for (const lang of ['en', 'zh_CN']) {
  test(`local servers fold away for a new user; opened, they say the release zip's command in the panel's words, never Chrome's (item 9, ${lang})`, async () => {
    await rig.panel.evaluate(() => localStorage.removeItem('mcpRelay.localSectionOpen'));
    const panel = await panelIn(lang, 'servers');
    const section = panel.locator('details.local-host');
    const install = section.locator('.local-install code');
    // The host's answer is in (this profile has none installed), and the section stays folded.
    await install.waitFor({ state: 'attached', timeout: 15_000 });
    assert.equal(await section.evaluate((d) => d.open), false, 'folded for a user without local servers');
    assert.equal(await install.isVisible(), false);
    assert.equal(await section.locator('summary').innerText(), lang === 'en' ? 'Local servers (on this computer)' : '本地服务器（在这台电脑上）');
    await section.locator('summary').click();
    await install.waitFor();
    const id = rig.ext.extensionId || 'ellfknbogpmjfnllbfnllmflekcknadb';
    assert.equal(await install.innerText(), `sh install-host.sh ${id}`, 'the release zip\'s script, with this extension\'s id');
    const text = await section.innerText();
    assert.match(text, lang === 'en' ? /is not installed\. Download MCP Relay's zip, unzip it and run/ : /尚未安装。请下载 MCP Relay 的 zip 压缩包，解压后/);
    assert.doesNotMatch(text, /native messaging host|Native host/i, 'Chrome\'s own message is never shown');
    // cargo is the developer's alternative only, not the instruction.
    const cargo = await section.evaluate((s) => [...s.querySelectorAll('code')].filter((c) => c.textContent.includes('cargo')).map((c) => (c.closest('.local-developer') ? 'developer' : c.textContent)));
    assert.deepEqual(cargo, ['developer']);
    if (lang === 'zh_CN') {
      const english = await section.evaluate((s) => {
        const hits = [];
        const walker = document.createTreeWalker(s, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n; n = walker.nextNode()) {
          if (n.parentElement?.closest('code, pre')) continue;
          const m = /[A-Za-z]{2,}(?:[ ,'’-]+[A-Za-z]{2,}){3,}/.exec(n.textContent || '');
          if (m) hits.push(m[0]);
        }
        return hits;
      });
      assert.deepEqual(english, [], 'no English in the Chinese section');
    }
    // Opened once, it stays open for this user.
    const again = await panelIn(lang, 'servers');
    await again.locator('details.local-host .local-install code').waitFor({ state: 'attached', timeout: 15_000 });
    assert.equal(await again.locator('details.local-host').evaluate((d) => d.open), true, 'the user\'s choice is remembered');
    await again.evaluate(() => localStorage.removeItem('mcpRelay.localSectionOpen'));
  });
}
