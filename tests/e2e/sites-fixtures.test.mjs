// The fixture pages themselves (no extension): each reproduces its site's editor behaviour
// strictly enough that passing the adapter tests means something. A naive write (`.value = …`
// on a controlled textarea, innerHTML on a ProseMirror or Lexical editor) must leave the
// editor's state empty and send disabled; the editor's own input path must enable send; a
// reply must stream with a stop control showing and render its code block the site's way.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { chromium } from 'playwright-core';
import { serveStatic, until } from './harness.mjs';
import { loadAdapters, SITES_DIR } from '../fixtures/sites/_shared/loop.mjs';

const { SITES } = loadAdapters();
let browser, site;

before(async () => {
  site = await serveStatic(SITES_DIR);
  browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--headless=new', '--no-sandbox', '--disable-gpu'] });
});
after(async () => {
  await browser?.close();
  await site?.close();
});

/** In the page: is the adapter's send control present and enabled? */
function sendEnabled(page, adapter) {
  return page.evaluate(({ send, disabled }) => {
    const el = send.map((s) => document.querySelector(s)).find(Boolean);
    return !!el && !disabled.some((d) => el.matches(d) || el.closest(d));
  }, { send: adapter.send, disabled: adapter.disabled });
}

/** The editor's text as its page shows it (a textarea's value, an editable's rendered text). */
const editorText = (input) => input.evaluate((el) => ('value' in el && !el.isContentEditable ? el.value : el.innerText).trim());

for (const adapter of SITES) {
  test(`${adapter.name} fixture: naive writes are ignored, the editor's input path works, replies stream`, async () => {
    const page = await browser.newPage();
    await page.goto(`${site.origin}/${adapter.id}/?delay=5`);
    const input = page.locator(adapter.input[0]);
    await input.waitFor();
    assert.equal(await sendEnabled(page, adapter), false, 'send is disabled while the editor is empty');

    // The naive write of extensions that break on this site.
    await input.evaluate((el) => {
      if ('value' in el && !el.isContentEditable) el.value = 'naive write';
      else el.innerHTML = '<p>naive write</p>';
    });
    if (adapter.editor === 'quill') {
      // Quill follows DOM mutations (why innerHTML "works" on Gemini): the state took it.
      await until(() => sendEnabled(page, adapter), { what: 'Quill taking the DOM write into its state' });
      await input.evaluate((el) => { el.innerHTML = '<p><br></p>'; });
      await until(async () => !(await sendEnabled(page, adapter)), { what: 'Quill taking the emptied editor into its state' });
    } else {
      // The witness that the page processed the write: its editor re-rendered from its own state.
      await until(async () => (await editorText(input)) === '', { what: 'the editor re-rendering from its own state' });
      assert.equal(await sendEnabled(page, adapter), false, 'a naive write does not reach the editor state');
    }
    assert.equal(await sendEnabled(page, adapter), false);

    // The editor's own input path (what the content script does).
    await input.evaluate((el, text) => {
      el.focus();
      if (el instanceof HTMLTextAreaElement) {
        Object.getOwnPropertyDescriptor(HTMLTextAreaElement.prototype, 'value').set.call(el, text);
        el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
      } else {
        document.execCommand('insertText', false, text);
      }
    }, 'please call "arguments" add');
    await until(() => sendEnabled(page, adapter), { what: 'the editor state taking the text (send enabled)' });

    await page.evaluate((send) => send.map((s) => document.querySelector(s)).find(Boolean).click(), adapter.send);
    await until(() => page.evaluate((stop) => stop.some((s) => { const e = document.querySelector(s); return e && e.getBoundingClientRect().width > 0; }), adapter.stop),
      { what: 'the stop control while streaming' });
    await until(() => page.evaluate(() => window.__fixture.replies === 1), { what: 'the reply to finish' });
    const reply = await page.evaluate((sel) => document.querySelector(sel).innerText, adapter.assistant[0]);
    assert.match(reply, /"tool": "add"/);
    assert.equal(await page.evaluate((code) => code.some((s) => document.querySelector(s)), adapter.code), true, 'the code block renders the site\'s way');
    assert.equal((await input.evaluate((el) => ('value' in el && !el.isContentEditable ? el.value : el.innerText))).trim(), '', 'the editor was cleared');
    await page.close();
  });
}
