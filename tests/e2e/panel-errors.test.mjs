// What a user reads when something fails, in English and Chinese: every error kind and cause as
// the panel shows it, and every view with real failures in it (a server on a wrong path, one that
// is offline, an address without a scheme). No internal code (`retries_exhausted`, `http`,
// `invalid_argument`...) is in the text a user sees: codes live under "Details". The Chinese
// texts keep the cause (the status, the address, what to try) instead of a generic sentence.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, startProcess, until, ROOT } from './harness.mjs';
import { ERROR_KINDS, ERROR_CAUSES } from '../../extension/contract.js';

const VIEWS = ['servers', 'tools', 'chat', 'activity', 'settings'];
let ext, demo, site, panel, chatPage, wrongPath;

async function core(message) {
  const answer = await coreCall(panel, message);
  assert.equal(answer.ok, true, `${message.type}: ${JSON.stringify(answer.error)}`);
  return answer.data;
}

async function useLanguage(lang) {
  await core({ type: 'settings/set', settings: { ...(await core({ type: 'settings/get' })), language: lang } });
  await panel.reload();
  await panel.locator('#core-status[data-state="ready"]').waitFor();
  assert.equal(await panel.locator('#tab-servers').textContent(), lang === 'en' ? 'Servers' : '服务器');
}

/**
 * The internal codes a user must not read in `text`: every multi-word kind in any language,
 * and in Chinese every kind at all (its English words have no place in Chinese sentences).
 * `http` counts only as a word of its own, not in an address or in "HTTP 404".
 */
function codesIn(text, lang) {
  const found = [];
  for (const kind of Object.keys(ERROR_KINDS)) {
    const single = !kind.includes('_');
    if (single && lang === 'en' && kind !== 'http' && kind !== 'rpc') continue;
    // Tool and server names are the user's words: "add" or "echo" are not codes, and neither
    // are kinds that are also ordinary words inside a tool's description.
    if (single && ['tool', 'tab', 'invalid', 'limit', 'unknown', 'quoted', 'denied', 'storage', 'internal', 'malformed', 'unavailable', 'forbidden', 'cancelled', 'permission', 'protocol'].includes(kind)) continue;
    const re = kind === 'http' ? /(?<![\w/])http(?![\w:])/ : new RegExp(`(?<![\\w-])${kind}(?![\\w-])`);
    if (re.test(text)) found.push(kind);
  }
  return found;
}

/** The text a user sees in the page: what is rendered, closed "Details" left out. */
function visibleText(page) {
  return page.evaluate(() => {
    for (const d of document.querySelectorAll('details[open]')) d.open = false;
    return document.body.innerText;
  });
}

before(async () => {
  if (!process.env.RELAY_DEMO_SERVER) throw new Error('RELAY_DEMO_SERVER is not set: run through `cargo xtask test`');
  ext = await launchExtension();
  demo = await startProcess(process.env.RELAY_DEMO_SERVER, ['--port', '0'], { ready: /listening on (http:\S+)/ });
  site = await serveStatic(join(ROOT, 'tests/fixtures/sites/demo-chat'));
  panel = await openExtensionPage(ext, 'www/panel.html');
  const good = await core({ type: 'servers/add', server: { name: 'Demo', url: demo.match[1] } });
  wrongPath = demo.match[1].replace(/\/mcp$/, '/wrong');
  // Added as the panel adds: the answer is the view, with the failure in it.
  await core({ type: 'servers/add', server: { name: 'Wrong path', url: wrongPath, transport: 'streamable' } });
  await core({ type: 'servers/add', server: { name: 'Offline', url: 'http://127.0.0.1:9/mcp' } });
  await core({ type: 'sites/add', origin: site.origin, adapter: 'generic' });
  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin), { what: 'content script registration' });
  chatPage = await ext.context.newPage();
  await chatPage.goto(site.origin + '/');
  await chatPage.locator('mcp-relay-ui').waitFor({ state: 'attached', timeout: 10_000 });
  await panel.bringToFront();
  const chat = await panel.evaluate(async () => (await import('/www/core.js')).currentChat());
  await core({ type: 'chat/set', chat, settings: { serverIds: [good.id] } });
});

after(async () => {
  await ext?.close();
  await demo?.stop();
  await site?.close();
});

for (const lang of ['en', 'zh_CN']) {
  test(`every error kind and cause reads without internal codes and keeps its details, ${lang}`, async () => {
    await useLanguage(lang);
    const shown = await panel.evaluate(async ({ kinds, causes }) => {
      const { errorView } = await import('/www/core.js');
      const box = document.createElement('div');
      document.body.append(box);
      const out = [];
      const render = (error) => {
        box.replaceChildren(errorView(error));
        const details = box.querySelector('details');
        return {
          text: box.innerText,
          code: /** @type {HTMLElement} */ (box.firstElementChild).dataset.kind,
          detailsText: details ? details.textContent : '',
          hint: box.querySelector('.error-hint')?.textContent || '',
        };
      };
      for (const [kind, names] of Object.entries(kinds)) {
        const details = names.map((n, i) => `«${n}${i}»`);
        out.push({ kind, details, ...render({ kind, message: 'English words with `code`', hint: 'English advice', details }) });
      }
      for (const cause of causes) {
        out.push({ kind: 'http', cause, details: ['404', 'http://h/x'], ...render({ kind: 'http', message: 'http://h/x answered HTTP 404', hint: 'English advice', details: ['404', 'http://h/x'], cause }) });
      }
      box.remove();
      return out;
    }, { kinds: ERROR_KINDS, causes: ERROR_CAUSES });
    assert.equal(shown.length, Object.keys(ERROR_KINDS).length + ERROR_CAUSES.length);
    for (const s of shown) {
      const what = `${lang} ${s.kind}${s.cause ? '/' + s.cause : ''}: ${JSON.stringify(s.text)}`;
      if (s.kind !== 'unavailable') {
        assert.ok(!s.text.includes(s.kind) || !s.kind.includes('_'), `no code in the text, ${what}`);
        // The code is the block's data-kind (for bug reports and tests), never text, not even
        // under Details: Details says in words what kind of failure it is.
        assert.equal(s.code, s.kind, `the block names its kind, ${what}`);
        assert.ok(!s.detailsText.includes(s.kind) || !s.kind.includes('_'), `no code under Details, ${what}`);
        assert.doesNotMatch(s.detailsText, /Code:|代码：/, `no "Code:" under Details, ${what}`);
      }
      if (lang === 'en') {
        // The core's own words, with its code spans as code, not backticks.
        if (s.kind !== 'unavailable') assert.ok(!s.text.includes('`'), `code spans rendered, ${what}`);
        continue;
      }
      assert.equal(codesIn(s.text, lang).length, 0, `no code, ${what}`);
      // (`unavailable` names the missing feature in the core's words, as code.)
      if (s.kind !== 'unavailable') assert.ok(!s.text.includes('English words'), `the Chinese text, not the core's English, ${what}`);
      for (const d of s.details) assert.ok(s.text.includes(d), `says its detail ${d}, ${what}`);
      if (s.cause) {
        const advice = await panel.evaluate(async (key) => (await import('/www/i18n.js')).t(key), 'errCause_' + s.cause);
        assert.equal(s.hint, advice, `the cause's advice, ${what}`);
      }
    }
  });

  test(`every view with real failures shows no internal code, ${lang}`, async () => {
    await useLanguage(lang);
    await panel.click('#tab-servers');
    await panel.locator('li.server[data-status="failed"] .error').nth(1).waitFor({ timeout: 30_000 });
    for (const view of VIEWS) {
      await panel.click('#tab-' + view);
      await panel.locator(`#view-${view}:not([hidden]):not([aria-busy])`).waitFor();
      if (view === 'chat') await panel.locator('#prompt-stats').waitFor({ timeout: 10_000 });
      const text = await visibleText(panel);
      assert.deepEqual(codesIn(text, lang), [], `${view}, ${lang}: ${text}`);
      assert.doesNotMatch(text, /\(tab \d+\)|标签页 \d+/, `${view}: no tab id`);
    }
    // The wrong path names itself and says where MCP usually is, in the panel's language.
    await panel.click('#tab-servers');
    const row = panel.locator('li.server', { hasText: 'Wrong path' });
    const error = await row.locator('.error').innerText();
    assert.match(error, /404/);
    assert.ok(error.includes('/wrong'), error);
    assert.match(error, /\/mcp/);
    assert.match(error, /\/sse/);
    if (lang === 'zh_CN') assert.match(error, /路径/);
  });

  test(`an address without a scheme says how to write one, ${lang}`, async () => {
    await useLanguage(lang);
    const answer = await coreCall(panel, { type: 'servers/add', server: { name: 'x', url: 'example.com/mcp' } });
    assert.equal(answer.ok, false);
    assert.equal(answer.error.cause, 'url_scheme');
    const text = await panel.evaluate(async (error) => {
      const { errorView } = await import('/www/core.js');
      const el = errorView(Object.assign(new Error(error.message), error));
      document.body.append(el);
      const shown = el.innerText;
      el.remove();
      return shown;
    }, answer.error);
    assert.match(text, /http:\/\/ .*https:\/\/|http:\/\/ 或 https:\/\//, text);
    assert.ok(!text.includes('invalid_argument'), text);
  });
}

test('timeouts are in seconds in Settings as in the server dialog', async () => {
  await useLanguage('en');
  await panel.click('#tab-settings');
  const input = panel.locator('#set-defaultTimeoutMs');
  await until(async () => (await input.inputValue()) === '30', { what: 'the default timeout shown as 30 (seconds)' });
  assert.match(await panel.locator('label', { has: input }).or(panel.locator(`label[for="set-defaultTimeoutMs"]`)).first().innerText(), /seconds/);
  await input.fill('45');
  await panel.click('#settings-save');
  await until(async () => (await core({ type: 'settings/get' })).defaultTimeoutMs === 45_000, { what: 'stored in milliseconds' });
});

test('a search without hits says so and how to see every tool', async () => {
  await useLanguage('en');
  await panel.click('#tab-tools');
  await panel.locator('li.tool').first().waitFor({ timeout: 10_000 });
  await panel.fill('#tool-search', 'zzz-no-such-tool');
  const note = panel.locator('.no-match');
  await note.waitFor();
  assert.match(await note.innerText(), /No tool matches “zzz-no-such-tool”.*clear the search/);
  await panel.fill('#tool-search', '');
  await note.waitFor({ state: 'hidden' });
});

test('a new server says Connecting… until it has connected, never Not connected', async () => {
  await useLanguage('en');
  // A server that answers nothing for a while: the listing stays under way.
  const { createServer } = await import('node:http');
  const held = [];
  const slow = createServer((req, res) => held.push(res));
  await new Promise((r) => slow.listen(0, '127.0.0.1', r));
  try {
    const url = `http://127.0.0.1:${slow.address().port}/mcp`;
    const adding = coreCall(panel, { type: 'servers/add', server: { name: 'Slow', url, timeoutMs: 60_000 } });
    await panel.click('#tab-servers');
    const row = panel.locator('li.server', { hasText: 'Slow' });
    await until(async () => held.length > 0, { what: 'the server asked' });
    await row.waitFor({ timeout: 10_000 });
    await until(async () => (await row.getAttribute('data-status')) === 'connecting', { what: 'the row says connecting' });
    assert.equal(await row.locator('.badge').first().innerText(), 'Connecting…');
    for (const res of held.splice(0)) res.destroy();
    slow.close();
    await adding;
    await until(async () => (await row.getAttribute('data-status')) === 'failed', { timeoutMs: 30_000, what: 'the row settles' });
  } finally {
    for (const res of held) res.destroy();
    slow.close();
  }
});

for (const lang of ['en', 'zh_CN']) {
  test(`an import says why it skips an entry in the panel's language, ${lang}`, async () => {
    await useLanguage(lang);
    await panel.click('#tab-servers');
    await panel.click('#server-import');
    const dialog = panel.locator('dialog.import-dialog');
    await dialog.locator('textarea').fill(JSON.stringify({ mcpServers: {
      sock: { type: 'websocket', url: 'https://mcp.example.com/ws' },
      nourl: { type: 'http' },
      plain: { url: 'ftp://files.example.com/mcp?token=s3cret' },
    } }));
    await dialog.locator('#import-preview').click();
    const skipped = dialog.locator('.import-skipped li');
    await until(async () => (await skipped.count()) === 3, { what: 'three entries skipped' });
    const texts = Object.fromEntries(await skipped.evaluateAll((items) => items.map((li) => [li.querySelector('strong').textContent, li.querySelector('span').textContent])));
    const want = lang === 'en'
      ? { sock: /Unknown transport type websocket/, nourl: /No url/, plain: /is not an http:\/\/ or https:\/\/ address/ }
      : { sock: /未知的传输类型 websocket/, nourl: /没有 url/, plain: /不是 http:\/\/ 或 https:\/\/ 地址/ };
    for (const [name, re] of Object.entries(want)) assert.match(texts[name], re, `${name}: ${texts[name]}`);
    assert.ok(!texts.plain.includes('s3cret'), texts.plain);
    await panel.keyboard.press('Escape');
  });
}
