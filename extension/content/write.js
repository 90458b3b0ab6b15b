// @ts-check
// MCP Relay's content script, part 4 of 6: writing into the chat (instructions, tool results,
// attachments) and submitting, through each editor's own input path, verifying each step.
//
// The adapter's `editor` selects the write path (WRITE_PATHS): a React-controlled textarea takes
// text only through the native value setter plus an input event; ProseMirror, Lexical and
// CodeMirror keep a model that follows input events (insertText) and paste, and revert any
// other DOM change; Quill's model follows DOM mutations, so insertText is its path and paste
// its fallback; a plain contenteditable has no model, so a direct text write is its last
// resort. The element found decides when it cannot take the adapter's path (a site that went
// from a textarea to a rich editor, or back): a field only takes the native setter, an
// editable element never does.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.write) return;
  const NS = found;
  const { state, dom } = NS;

  /**
   * Write strategies, in the order they are tried, per editor kind.
   * @type {Readonly<Record<string, readonly import('./content').WriteStrategy[]>>}
   */
  const WRITE_PATHS = Object.freeze({
    textarea: ['native-setter'],
    prosemirror: ['insert-text', 'paste'],
    lexical: ['insert-text', 'paste'],
    codemirror: ['insert-text', 'paste'],
    quill: ['insert-text', 'paste'],
    contenteditable: ['insert-text', 'paste', 'dom-text'],
    auto: ['insert-text', 'paste', 'dom-text'],
  });

  /**
   * The strategies for an editor kind and the element found: pure, so it is tested without a
   * page (tests/e2e/content-parts.test.mjs).
   * @param {string} editor the adapter's `editor`
   * @param {boolean} isField whether the element is a <textarea> or <input>
   * @returns {readonly import('./content').WriteStrategy[]}
   */
  function writePath(editor, isField) {
    if (isField) return WRITE_PATHS.textarea;
    const path = WRITE_PATHS[editor] || WRITE_PATHS.auto;
    return path.includes('native-setter') ? WRITE_PATHS.auto : path;
  }

  /** @param {Element} el @returns {el is HTMLTextAreaElement | HTMLInputElement} */
  const isField = (el) => el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement;
  /** @param {HTMLElement} el */
  const editorText = (el) => (isField(el) ? el.value : el.innerText || '');

  /** @param {HTMLElement} el */
  function placeCaretAtEnd(el) {
    const sel = getSelection();
    if (!sel) return;
    const range = document.createRange();
    range.selectNodeContents(el);
    range.collapse(false);
    sel.removeAllRanges();
    sel.addRange(range);
  }

  /**
   * One strategy's attempt: `text` is what to add at the end, `joined` the whole content the
   * editor should end up with (what was there before, a blank line, the text).
   * @type {Record<import('./content').WriteStrategy, (el: HTMLElement, text: string, joined: string) => Promise<void>>}
   */
  const STRATEGIES = {
    // React and friends track the value setter and ignore `.value = …`: call the native setter
    // (their tracker then sees a change) and announce it as typing.
    async 'native-setter'(el, text) {
      if (!isField(el)) return;
      const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      const setter = /** @type {PropertyDescriptor} */ (Object.getOwnPropertyDescriptor(proto, 'value')).set;
      if (!setter) return;
      setter.call(el, el.value ? el.value + '\n\n' + text : text);
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
    },
    // insertText arrives as input events carrying the text (beforeinput where the browser fires
    // it): the path ProseMirror, Lexical, Quill and CodeMirror all handle.
    async 'insert-text'(el, text) {
      placeCaretAtEnd(el);
      document.execCommand('insertText', false, text);
    },
    // A paste is the second path every rich editor takes.
    async paste(el, text) {
      placeCaretAtEnd(el);
      const data = new DataTransfer();
      data.setData('text/plain', text);
      el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    },
    // A contenteditable without a model: its DOM is its state.
    async 'dom-text'(el, text, joined) {
      el.textContent = '';
      joined.split('\n').forEach((l, i) => {
        if (i) el.appendChild(document.createElement('br'));
        el.appendChild(document.createTextNode(l));
      });
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
    },
  };

  /**
   * Writes through the editor's own input path, then checks, after the editor's own update,
   * that it holds the text. Returns the strategy that worked, or null.
   * @param {HTMLElement} el
   * @param {string} text
   * @returns {Promise<import('./content').WriteStrategy | null>}
   */
  async function writeText(el, text) {
    el.focus();
    // The whole text, line breaks included (fences need them), whatever blank lines and
    // spaces the editor adds: an editor that took the words but dropped the breaks failed.
    /** @param {string} s */
    const lines = (s) => s.replace(/[^\S\n]+/g, ' ').replace(/ ?\n[\s]*/g, '\n').trim();
    const want = lines(text);
    const holds = () => lines(editorText(el)).includes(want);
    const before = editorText(el);
    const joined = dom.norm(before) ? before.replace(/\n$/, '') + '\n\n' + text : text;
    let cleared = false;
    for (const strategy of writePath(state.adapter.editor, isField(el))) {
      await STRATEGIES[strategy](el, cleared ? joined : text, joined);
      await dom.settle();
      if (holds()) return strategy;
      if (editorText(el) !== before && !isField(el)) {
        // Partly taken (an editor that dropped the line breaks, say): take it all back out, so
        // the next strategy writes what was there before and the text, each once.
        placeCaretAtEnd(el);
        document.execCommand('selectAll');
        document.execCommand('delete');
        await dom.settle();
        cleared = true;
      }
    }
    return null;
  }

  /**
   * Clicks send once it is enabled, then checks the message left: the editor emptied, a reply
   * started streaming, or a new user message appeared.
   * @param {HTMLElement} input
   */
  async function submit(input) {
    const users = NS.read.userMessageCount();
    let clicked = false;
    for (let i = 0; i < 100 && !clicked; i++) { // up to 5 s: uploads keep send disabled a while
      const btn = dom.findSend(input);
      if (btn && dom.enabled(btn)) {
        btn.click();
        clicked = true;
      } else {
        await dom.sleep(50);
      }
    }
    if (!clicked) {
      // No usable send control: most chats submit on Enter.
      input.focus();
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true }));
    }
    for (let i = 0; i < 100; i++) {
      if (!dom.norm(editorText(input)) || dom.isStreaming() || NS.read.userMessageCount() > users) return true;
      await dom.sleep(50);
    }
    return false;
  }

  /** @param {string} b64 */
  function base64ToBytes(b64) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }

  const previewCount = () => (state.adapter.files ? dom.all(state.adapter.files.preview).length : 0);

  /**
   * Attaches files the way the site takes them: its file input, else a drop on its drop zone,
   * else a paste into the editor. Verified by the site's attachment previews when it has any.
   * @param {File[]} files
   * @param {HTMLElement} input
   * @returns {Promise<{attached: number, how?: string, verified?: boolean, error?: string}>}
   */
  async function attachFiles(files, input) {
    const siteFiles = state.adapter.files;
    if (!files.length) return { attached: 0 };
    if (!siteFiles) return { attached: 0, error: 'This site takes no files.' };
    const before = previewCount();
    const data = new DataTransfer();
    for (const f of files) data.items.add(f);
    const fileInput = dom.first(siteFiles.input);
    const zone = dom.first(siteFiles.drop);
    let how;
    if (fileInput instanceof HTMLInputElement) {
      fileInput.files = data.files;
      fileInput.dispatchEvent(new Event('input', { bubbles: true }));
      fileInput.dispatchEvent(new Event('change', { bubbles: true }));
      how = 'input';
    } else if (zone) {
      for (const type of ['dragenter', 'dragover', 'drop']) {
        zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
      }
      how = 'drop';
    } else {
      input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      how = 'paste';
    }
    if (!siteFiles.preview.length) return { attached: files.length, how, verified: false };
    for (let i = 0; i < 60; i++) {
      if (previewCount() >= before + files.length) return { attached: files.length, how, verified: true };
      await dom.sleep(50);
    }
    return { attached: 0, how, error: 'The site did not show the attached files.' };
  }

  /**
   * Writes text (and files) into the chat input and submits when asked.
   * @param {string} text
   * @param {boolean} doSubmit
   * @param {import('../contract').Attachment[]} attachments
   * @returns {Promise<import('../contract').InsertOutcome>}
   */
  async function insert(text, doSubmit, attachments) {
    const adapter = state.adapter;
    const input = dom.findInput();
    if (!input) return { inserted: false, submitted: false, error: 'No input box found on this page.' };
    const files = attachments.map((a) => new File([base64ToBytes(String(a.data || ''))], String(a.fileName || 'attachment'), { type: String(a.mimeType || 'application/octet-stream') }));
    // Text over the site's limit goes as a file (where the site takes files) with a short note.
    if (text.length > adapter.maxText && adapter.files) {
      files.push(new File([text], 'tool-results.md', { type: 'text/markdown' }));
      const head = text.slice(0, 400).replace(/\s+\S*$/, '');
      text = `${head}\n…\n[The full tool results (${text.length} characters) are attached as tool-results.md.]`;
    }
    const attached = await attachFiles(files, input);
    const how = await writeText(input, text);
    if (!how) return { inserted: false, submitted: false, ...attached, error: 'The chat input did not accept the text.' };
    const submitted = doSubmit ? await submit(input) : false;
    return { inserted: true, submitted, how, ...attached };
  }

  NS.write = { insert, writePath, WRITE_PATHS };
})();
