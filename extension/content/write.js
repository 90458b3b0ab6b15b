// @ts-check
// MCP Relay's content script, part 4 of 6: writing into the chat (instructions, tool results,
// attachments) and submitting, through each editor's own input path, verifying each step.
//
// The adapter's `editor` selects the write path (WRITE_PATHS): a React-controlled textarea takes
// text only through the native value setter plus an input event; ProseMirror, Lexical and
// CodeMirror keep a model that follows input events (insertText) and paste, and revert any
// other DOM change; Quill's model follows DOM mutations, but drops the line breaks of a
// multi-line insertText (Gemini), so line by line with insertParagraph is its fallback; a plain
// contenteditable has no model, so a direct text write is its last resort. The element found
// decides when it cannot take the adapter's path (a site that went from a textarea to a rich
// editor, or back): a field only takes the native setter, an editable element never does.
//
// Where the adapter names no editor (the generic adapter's 'auto'), the element's own library
// markers name it (`kindOf`: Lexical's data-lexical-editor, .ProseMirror, .ql-editor,
// .cm-content); an editor nothing names gets every path, the raw DOM write last.
//
// A write is proven by what the editor holds once it has taken the write (`quiet`: a model
// editor renders its model over the browser's own change a frame or more later, and what it
// shows then is what it will send), compared line by line with what was meant (`lineLoss`).
// Between attempts the editor is emptied through its own path (a delete as beforeinput, which a
// model editor takes and the browser's command does not reach), and proven empty. A long paste
// the site turns into an attachment chip counts as delivered only when the chip shows the text
// (its first words, or a pasted-text label) and the editor took none of it. A send is proven by
// the editor letting go of the text and a new user turn showing it. Neither is ever reported
// when it did not happen: the answer says what was lost, or that the result is in the input
// and not sent.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.write) return;
  const NS = found;
  const { state, dom, t } = NS;

  /**
   * Write strategies, in the order they are tried, per editor kind. After each one the editor
   * is read back; the next runs only when the text is not there line for line.
   * @type {Readonly<Record<string, readonly import('./content').WriteStrategy[]>>}
   */
  const WRITE_PATHS = Object.freeze({
    textarea: ['native-setter'],
    prosemirror: ['insert-text', 'lines', 'paste', 'beforeinput'],
    // Lexical takes the text of execCommand('insertText') but not the paragraphs the browser
    // splits for its line breaks (every line joined; Chromium fires no beforeinput for a
    // command): its own beforeinput path first, one line and one paragraph at a time.
    lexical: ['beforeinput', 'paste', 'insert-text', 'lines'],
    codemirror: ['insert-text', 'lines', 'paste', 'beforeinput'],
    // Quill drops the line breaks of a multi-line insertText (Gemini): line by line it is.
    quill: ['insert-text', 'lines', 'paste', 'beforeinput'],
    contenteditable: ['insert-text', 'lines', 'paste', 'dom-text'],
    // An editor nothing names: written the way a person would, a paste first (every editor with
    // a model of its own takes it whole, line breaks included; a plain contenteditable ignores a
    // synthetic one), then typed input through its beforeinput path, then the browser's own
    // commands (an editor that reads its DOM back), and a raw DOM write (a contenteditable
    // without a model) last.
    auto: ['paste', 'beforeinput', 'insert-text', 'lines', 'dom-text'],
  });

  /**
   * The strategies for an editor kind and the element found: pure, so it is tested without a
   * page (tests/e2e/content-parts.test.mjs).
   * @param {string} editor the adapter's `editor`
   * @param {boolean} isField whether the element is a <textarea> or <input>
   * @param {string} [kind] the kind the element's own markers name (`kindOf`), used where the
   *   adapter names none ('auto')
   * @returns {readonly import('./content').WriteStrategy[]}
   */
  function writePath(editor, isField, kind) {
    if (isField) return WRITE_PATHS.textarea;
    const named = editor === 'auto' && kind && kind !== 'textarea' && kind in WRITE_PATHS ? kind : editor;
    const path = WRITE_PATHS[named] || WRITE_PATHS.auto;
    return path.includes('native-setter') ? WRITE_PATHS.auto : path;
  }

  /** @param {Element} el @returns {el is HTMLTextAreaElement | HTMLInputElement} */
  const isField = (el) => el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement;

  /**
   * The editor an element is, by the markers its library puts on it ('auto' when none).
   * @param {HTMLElement} el
   */
  function kindOf(el) {
    if (isField(el)) return 'textarea';
    if (el.closest('[data-lexical-editor]')) return 'lexical';
    if (el.closest('.ProseMirror')) return 'prosemirror';
    if (el.closest('.ql-editor')) return 'quill';
    if (el.closest('.cm-content')) return 'codemirror';
    return 'auto';
  }
  /**
   * What the editor holds: a field's value (its state), or the rendered text of a rich
   * editor, whose DOM its model renders.
   * @param {HTMLElement} el
   */
  const editorText = (el) => (isField(el) ? el.value : kindOf(el) === 'auto' ? modelText(el) : el.innerText || '');

  const BLOCK = /^(div|p|li|pre|h[1-6]|blockquote|tr|ul|ol|section|article)$/;
  /**
   * The text an editor nothing names holds, as its model would serialise it: text nodes as
   * they are (a model that renders "a\nb" into one text node holds two lines, though the page
   * shows one), a line break for each `<br>` and around each block. `innerText` would show
   * what the page displays, which is not what a model editor sends.
   * @param {HTMLElement} el
   */
  function modelText(el) {
    let out = '';
    const walk = (/** @type {Node} */ n) => {
      for (let c = n.firstChild; c; c = c.nextSibling) {
        if (c.nodeType === Node.TEXT_NODE) out += (c.nodeValue || '').replace(/\u200b/g, '');
        else if (c instanceof HTMLBRElement) out += '\n';
        else if (c instanceof Element && !/^(style|script|template)$/.test(c.localName)) {
          const block = BLOCK.test(c.localName);
          if (block && out && !out.endsWith('\n')) out += '\n';
          walk(c);
          if (block && out && !out.endsWith('\n')) out += '\n';
        }
      }
    };
    walk(el);
    return out.replace(/\r\n?/g, '\n');
  }

  /**
   * Makes an editor nothing names show its model: a model editor renders its model over a DOM
   * change that is not its own (a character appended), so what it shows afterwards is what
   * it holds, not what the browser's command left in its DOM. The character is taken out
   * again where the editor kept it (an editor without a model).
   * @param {HTMLElement} el
   */
  async function showModel(el) {
    if (isField(el) || kindOf(el) !== 'auto') return;
    const probe = document.createTextNode('\u200b');
    el.appendChild(probe);
    await quiet(el);
    if (probe.isConnected) {
      probe.remove();
      await quiet(el);
    }
  }

  /**
   * The lines of a text as a chat editor keeps them: spaces collapsed, blank lines dropped
   * (editors render paragraphs with blank lines between them).
   * @param {string} s
   */
  const linesOf = (s) => s.replace(/\r\n?/g, '\n').split('\n').map((l) => l.replace(/\s+/g, ' ').trim()).filter(Boolean);

  /**
   * Whether every line of `w` is a line of `h`, in order (other lines between them allowed).
   * @param {string[]} h
   * @param {string[]} w
   */
  const inOrder = (h, w) => {
    let k = 0;
    for (let i = 0; i < h.length && k < w.length; i++) if (h[i] === w[k]) k++;
    return k === w.length;
  };

  /** A line without the markdown marks an editor renders away (list bullets, code fences). @param {string} l */
  const unmark = (l) => (/^(`{3,}|~{3,})/.test(l) ? '' : l.replace(/^([-*+]|\d+[.)])\s+/, ''));

  /**
   * Compares what the editor holds with what was meant, line by line: null when every line is
   * there in order as its own line, else what was lost, in words. Pure (tested without a page).
   * @param {string} held
   * @param {string} meant
   * @returns {string | null}
   */
  function lineLoss(held, meant) {
    const have = linesOf(held);
    const want = linesOf(meant);
    if (!want.length) return null;
    /** @param {string[]} h @param {string[]} w */
    const within = (h, w) => {
      for (let i = 0; i + w.length <= h.length; i++) if (w.every((l, k) => h[i + k] === l)) return true;
      return false;
    };
    if (within(have, want)) return null;
    // An editor with markdown input rules shows "- item" as a list item and a fenced block as
    // a code block with a language label (its serialiser gives the marks back): every line
    // there in order, marks aside.
    if (inOrder(have.map(unmark).filter(Boolean), want.map(unmark).filter(Boolean))) return null;
    const joined = have.join(' ');
    if (joined.includes(want.join(' ')) || joined.replace(/ /g, '').includes(want.join('').replace(/ /g, ''))) {
      // Every word arrived: count the breaks between meant lines that are not breaks here.
      const kept = (/** @type {string} */ a, /** @type {string} */ b) => have.some((h, k) => h.endsWith(a) && k + 1 < have.length && have[k + 1].startsWith(b));
      let lost = 0;
      for (let i = 1; i < want.length; i++) if (!kept(want[i - 1], want[i])) lost += 1;
      return `${Math.max(1, lost)} of ${want.length - 1} line breaks were lost (lines joined).`;
    }
    const own = new Set(have);
    const missing = want.filter((l) => !own.has(l));
    if (!have.length) return 'The chat input stayed empty.';
    return `${missing.length} of ${want.length} lines did not arrive (first: "${missing[0].slice(0, 60)}").`;
  }

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
   * The text in pieces no longer than `max` (at line ends where possible): a site that turns a
   * long paste into an attachment it does not send takes the pieces as text.
   * @param {string} text
   * @param {number} max
   */
  function chunks(text, max) {
    const out = [];
    let rest = text;
    while (rest.length > max) {
      let cut = rest.lastIndexOf('\n', max);
      if (cut < max / 2) cut = max;
      out.push(rest.slice(0, cut));
      rest = rest.slice(cut);
    }
    out.push(rest);
    return out;
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
    // Line by line, a paragraph between lines: what editors that drop "\n" from insertText
    // (Quill) keep, and the way the maintained extensions write into Gemini.
    async lines(el, text) {
      placeCaretAtEnd(el);
      text.replace(/\r\n?/g, '\n').split('\n').forEach((line, i) => {
        if (i) document.execCommand('insertParagraph');
        if (line) document.execCommand('insertText', false, line);
      });
    },
    // A paste is the second path every rich editor takes. Where the site turns a long paste
    // into an attachment it does not send to the model, the paste goes in pieces.
    async paste(el, text) {
      const long = state.adapter.longPaste;
      const pieces = long && !long.sent && text.length > long.over ? chunks(text, Math.floor(long.over / 2)) : [text];
      for (const piece of pieces) {
        placeCaretAtEnd(el);
        const data = new DataTransfer();
        data.setData('text/plain', piece);
        el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
        await dom.settle();
      }
    },
    // The editor's own beforeinput path, line by line (editors that handle input only there).
    async beforeinput(el, text) {
      placeCaretAtEnd(el);
      await dom.settle(); // the editor takes the caret (selectionchange) before the input
      text.replace(/\r\n?/g, '\n').split('\n').forEach((line, i) => {
        if (i) el.dispatchEvent(new InputEvent('beforeinput', { inputType: 'insertParagraph', bubbles: true, cancelable: true }));
        if (line) el.dispatchEvent(new InputEvent('beforeinput', { inputType: 'insertText', data: line, bubbles: true, cancelable: true }));
      });
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

  /** @param {string} s letters and digits only, for comparing texts however a site renders them */
  const alnum = (s) => s.replace(/[^\p{L}\p{N}]+/gu, '').toLowerCase();

  /** The long-paste chips in the composer now (the adapter's selectors). */
  const chipCount = () => (state.adapter.longPaste ? dom.all(state.adapter.longPaste.chip).length : 0);

  /**
   * Waits until the editor has taken what was done to it: a frame, then until its DOM stays
   * unchanged for one more (up to about 1.5 s). A model editor renders its model over the
   * browser's own change a frame or more later; what it shows then is what it will send.
   * @param {HTMLElement} el
   */
  async function quiet(el) {
    let changed = true;
    const watch = new MutationObserver(() => { changed = true; });
    watch.observe(el, { childList: true, subtree: true, characterData: true });
    try {
      await dom.settle();
      for (let i = 0; i < 30 && changed; i++) {
        changed = false;
        await dom.settle();
      }
    } finally {
      watch.disconnect();
    }
  }

  /** @param {HTMLElement} el */
  function selectAllIn(el) {
    const sel = getSelection();
    if (!sel) return;
    const range = document.createRange();
    range.selectNodeContents(el);
    sel.removeAllRanges();
    sel.addRange(range);
  }

  /**
   * Empties a rich editor through its own path: everything selected, then a delete as
   * beforeinput (a model editor takes it; the browser's command never reaches its model and
   * is rendered away), else the browser's delete (editors that read the DOM back). Proven by
   * reading the editor once it has settled.
   * @param {HTMLElement} el
   * @returns {Promise<boolean>} whether it is empty now
   */
  async function clearEditor(el) {
    for (const how of ['beforeinput', 'command']) {
      el.focus();
      selectAllIn(el);
      if (how === 'beforeinput') {
        const ev = new InputEvent('beforeinput', { inputType: 'deleteContentBackward', bubbles: true, cancelable: true });
        el.dispatchEvent(ev);
        if (!ev.defaultPrevented) continue; // nobody took it: the browser's command next
      } else {
        document.execCommand('delete');
      }
      await quiet(el);
      if (!dom.norm(editorText(el))) return true;
    }
    return !dom.norm(editorText(el));
  }

  /** A chip's own words for "pasted text", in the languages of Chrome's top UI locales. */
  const PASTED = /past(?:e|ed|ing)\b|粘贴|貼り付け|붙여넣|coll[ée]|eingef[üu]gt|pegad|colad|incollat|вставлен/i;

  /**
   * The composer around the editor: its form, else the nearest ancestor that also holds the
   * send control, else the editor's grandparent.
   * @param {HTMLElement} el
   * @returns {HTMLElement}
   */
  function composerOf(el) {
    const form = el.closest('form, fieldset');
    if (form instanceof HTMLElement) return form;
    const send = dom.findSend(el);
    let box = el.parentElement;
    while (send && box && box !== document.body && !box.contains(send)) box = box.parentElement;
    if (box && box !== document.body && send) return box;
    return el.parentElement && el.parentElement.parentElement ? el.parentElement.parentElement : el.parentElement || el;
  }

  /**
   * Watches the composer while a paste happens, for an attachment chip made of it (where the
   * adapter names no chip): an element added beside the editor, not in it, that shows the
   * text's first words or says it is pasted text.
   * @param {HTMLElement} el
   * @param {string} text
   */
  function watchForChip(el, text) {
    const box = composerOf(el);
    /** @type {HTMLElement[]} */
    const added = [];
    const watch = new MutationObserver((records) => {
      for (const r of records) {
        for (const n of r.addedNodes) if (n instanceof HTMLElement && !el.contains(n) && !n.contains(el)) added.push(n);
      }
    });
    watch.observe(box, { childList: true, subtree: true });
    const head = alnum(text).slice(0, 40);
    /** @param {HTMLElement} n */
    const holds = (n) => {
      if (!n.isConnected || !dom.visible(n)) return false;
      // A notice about the paste (a "too long" alert, a toast) is not a chip.
      if (n.closest('[role="alert"], [role="status"], [aria-live]') || n.querySelector('[role="alert"], [role="status"], [aria-live]')) return false;
      const said = [n.innerText || '', ...[n, ...n.querySelectorAll('[title], [aria-label]')]
        .map((e) => `${e.getAttribute('title') || ''} ${e.getAttribute('aria-label') || ''}`)].join(' ');
      return (head.length >= 12 && alnum(said).includes(head)) || PASTED.test(said);
    };
    return {
      /** The chip that holds the paste, waiting up to a second for the site to show it. */
      async found() {
        for (let i = 0; i < 20; i++) {
          const chip = added.find(holds);
          if (chip) return chip;
          await dom.sleep(50);
        }
        return null;
      },
      stop: () => watch.disconnect(),
    };
  }

  /**
   * Writes through the editor's own input path, then reads the editor back once it has taken
   * the write and compares line by line; on any loss it empties the editor through its own
   * path and tries the next path. Returns the path that worked, or what was lost (and whether a
   * damaged copy is left in the input).
   * @param {HTMLElement} el
   * @param {string} text
   * @returns {Promise<{how: import('./content').WriteStrategy | 'chip' | null, lost: string | null, partial: boolean, chip?: HTMLElement | null}>}
   */
  async function writeText(el, text) {
    el.focus();
    const before = editorText(el);
    const joined = dom.norm(before) ? before.replace(/\n$/, '') + '\n\n' + text : text;
    const chipsBefore = chipCount();
    const path = writePath(state.adapter.editor, isField(el), kindOf(el));
    const head = dom.norm(text).slice(0, 40);
    let cleared = false;
    /** @type {string | null} */
    let lost = null;
    /** @type {{strategy: import('./content').WriteStrategy, lost: string} | null} */
    let closest = null;
    for (let i = 0; i < path.length; i++) {
      const strategy = path[i];
      const chipWatch = strategy === 'paste' && !state.adapter.longPaste ? watchForChip(el, text) : null;
      try {
        await STRATEGIES[strategy](el, cleared ? joined : text, joined);
        await quiet(el);
        await showModel(el);
        lost = lineLoss(editorText(el), text);
        if (!lost) return { how: strategy, lost: null, partial: false };
        const heldNothing = !dom.norm(editorText(el)).includes(head);
        // The site took a long paste as an attachment chip that it sends to the model.
        const long = state.adapter.longPaste;
        if (long && long.sent && chipCount() > chipsBefore && heldNothing) return { how: 'chip', lost: null, partial: false, chip: null };
        const chip = chipWatch && heldNothing ? await chipWatch.found() : null;
        if (chip) return { how: 'chip', lost: null, partial: false, chip };
      } finally {
        if (chipWatch) chipWatch.stop();
      }
      const changed = dom.norm(editorText(el)) !== dom.norm(cleared ? '' : before);
      if (changed && !closest) closest = { strategy, lost };
      if (changed && !isField(el) && i < path.length - 1) {
        // Partly taken (an editor that dropped the line breaks, say): take it all back out, so
        // the next strategy writes what was there before and the text, each once.
        cleared = await clearEditor(el);
        if (!cleared) {
          lost = `${lost} The input could not be emptied for another try.`;
          break;
        }
      }
    }
    if (closest && cleared && !dom.norm(editorText(el))) {
      // Every path lost something: leave the closest attempt in the input, for the user to
      // mend and send, and say what it lost.
      await STRATEGIES[closest.strategy](el, joined, joined);
      await quiet(el);
      lost = lineLoss(editorText(el), text) || closest.lost;
    }
    const partial = !!dom.norm(editorText(el)) && dom.norm(editorText(el)) !== dom.norm(cleared ? '' : before);
    return { how: null, lost, partial };
  }

  /** A user turn's text, also where it lives in the turn's open shadow roots (web components). */
  const turnText = (/** @type {HTMLElement} */ u) => (NS.discover ? NS.discover.deepText(u) : u.innerText) || '';

  /**
   * Clicks send once the reply in progress (if any) is over and send is enabled, never a stop
   * or voice control, then proves the message left: the editor no longer holds it and a new
   * user turn with its text appeared.
   * @param {HTMLElement} input
   * @param {string} text what was written
   * @param {boolean} asAttachment the text went as an attachment chip (the turn shows a file)
   * @param {HTMLElement | null} [chip] that chip, where write.js found it: the send took it when
   *   it leaves the composer (the editor never held the text, so its emptying proves nothing)
   * @returns {Promise<{submitted: boolean, error?: string}>}
   */
  async function submit(input, text, asAttachment, chip) {
    // While a reply streams, send is (or sits beside) stop: wait for the reply to end.
    for (let i = 0; i < 1200 && dom.isStreaming(); i++) await dom.sleep(50); // up to 60 s
    const usersBefore = new Set(NS.read.userMessages());
    const repliesBefore = NS.read.assistantCount();
    let clicked = false;
    for (let i = 0; i < 100 && !clicked; i++) { // up to 5 s: uploads keep send disabled a while
      const btn = dom.findSend(input);
      if (btn && dom.enabled(btn) && !dom.stopLike(btn) && !dom.isStreaming()) {
        NS.read.noteSubmit();
        btn.click();
        clicked = true;
      } else {
        await dom.sleep(50);
      }
    }
    const head = alnum(text).slice(0, 40);
    const tail = alnum(text).slice(-40);
    const userSelectorsWork = () => usersBefore.size > 0 || NS.read.userMessages().length > 0;
    const emptied = () => !alnum(editorText(input)).includes(head) && (!chip || !chip.isConnected || !dom.visible(chip));
    /** Whether the message left: the editor let go of it and a new user turn (or the page's answer) shows it. */
    const left = () => {
      const showsText = !asAttachment && NS.read.userTurnsShowText();
      const turn = NS.read.userMessages().find((u) => !usersBefore.has(u)
        && (!showsText || alnum(turnText(u)).includes(head) || alnum(turnText(u)).includes(tail)));
      // Where no user turn can be found (an adapter without user selectors, a taught one), the
      // page's answer to the send is the witness: a reply streaming or a new reply turn; where
      // the page shows no transcript we can find at all (discovery unsure), only the editor
      // letting go of the text after our click is left to see.
      const replies = NS.read.assistantCount();
      const answered = dom.isStreaming() || replies > repliesBefore || (repliesBefore === 0 && replies === 0);
      return emptied() && (turn || (!userSelectorsWork() && answered));
    };
    /** Waits up to `ms` for the message to leave; stops early when the page holds it in a dialog of its own. */
    const wait = async (/** @type {number} */ ms) => {
      for (let i = 0; i < ms / 50; i++) {
        if (left()) return true;
        await dom.sleep(50);
      }
      return left();
    };
    // Without a send control, the keys chats send with, tried in turn only while the editor
    // still holds the whole text: Enter, and where Enter only made a new line, Ctrl/Cmd+Enter.
    const mac = /Mac|iPhone|iPad/.test(navigator.platform || '');
    const keys = [{}, mac ? { metaKey: true } : { ctrlKey: true }];
    const press = (/** @type {KeyboardEventInit} */ mods) => {
      NS.read.noteSubmit();
      input.focus();
      for (const type of ['keydown', 'keypress', 'keyup']) {
        input.dispatchEvent(new KeyboardEvent(type, { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true, composed: true, ...mods }));
      }
    };
    // A click the page took without sending (it refused the send, its own dialog asks) is
    // never followed by keys: the message could leave twice.
    /** Not sent: the page's own question where it asks one, else the result waits in the input. */
    const notSent = () => ({ submitted: false, error: dom.dialogOpen()
      ? t('sendHeldByPage', 'The page is asking something before it sends (a dialog of its own): answer it there, then press Send')
      : t('resultNotSent', 'The result is in the input, not sent — press Send') });
    if (clicked) return (await wait(5000)) ? { submitted: true } : notSent();
    for (const mods of keys) {
      if (!alnum(editorText(input)).includes(tail) || dom.dialogOpen()) break;
      press(mods);
      if (await wait(2500)) return { submitted: true };
    }
    return (await wait(2500)) ? { submitted: true } : notSent();
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
   * else a paste into the editor. Verified by the site's attachment previews when it has any;
   * a drop or paste no handler of the page took (none cancelled it) reached nothing.
   * `failure` is what the core is told when the files did not go in.
   * @param {File[]} files
   * @param {HTMLElement} input
   * @returns {Promise<{attached: number, how?: string, verified?: boolean, failure?: import('../contract').AttachFailure}>}
   */
  async function attachFiles(files, input) {
    const siteFiles = state.adapter.files;
    if (!files.length) return { attached: 0 };
    if (!siteFiles) return { attached: 0, failure: 'no_target' };
    const before = previewCount();
    const data = new DataTransfer();
    for (const f of files) data.items.add(f);
    const fileInput = dom.first(siteFiles.input);
    const zone = dom.first(siteFiles.drop);
    let how;
    let taken = true;
    if (fileInput instanceof HTMLInputElement) {
      fileInput.files = data.files;
      fileInput.dispatchEvent(new Event('input', { bubbles: true }));
      fileInput.dispatchEvent(new Event('change', { bubbles: true }));
      how = 'input';
    } else if (zone) {
      for (const type of ['dragenter', 'dragover', 'drop']) {
        taken = !zone.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true, cancelable: true }));
      }
      how = 'drop';
    } else {
      taken = !input.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
      how = 'paste';
    }
    if (!taken) return { attached: 0, how, failure: 'no_target' };
    if (!siteFiles.preview.length) return { attached: files.length, how, verified: false };
    for (let i = 0; i < 60; i++) {
      if (previewCount() >= before + files.length) return { attached: files.length, how, verified: true };
      await dom.sleep(50);
    }
    return { attached: 0, how, failure: 'not_shown' };
  }

  /**
   * Writes text (and files) into the chat input and submits when asked. "inserted" means the
   * editor holds the text line by line as meant; "submitted" that the message left. Where the
   * page does not take the files, the core's `withoutFiles` text is written instead (it says
   * the files are missing) and the answer says why.
   * @param {string} text
   * @param {boolean} doSubmit
   * @param {import('../contract').Attachment[]} attachments
   * @param {string} [withoutFiles]
   * @returns {Promise<import('../contract').InsertOutcome>}
   */
  async function insert(text, doSubmit, attachments, withoutFiles) {
    const adapter = state.adapter;
    const input = dom.findInput();
    if (!input) return { inserted: false, submitted: false, error: 'No input box found on this page.' };
    const files = attachments.map((a) => new File([base64ToBytes(String(a.data || ''))], String(a.fileName || 'attachment'), { type: String(a.mimeType || 'application/octet-stream') }));
    const whole = text;
    // Text over the site's limit goes as a file (where the site takes files) with a short note.
    if (text.length > adapter.maxText && adapter.files) {
      files.push(new File([text], 'tool-results.md', { type: 'text/markdown' }));
      const head = text.slice(0, 400).replace(/\s+\S*$/, '');
      text = `${head}\n…\n[The full tool results (${text.length} characters) are attached as tool-results.md.]`;
    }
    const { failure, ...attached } = await attachFiles(files, input);
    // The files did not go in: never a text that says they did.
    if (failure) text = attachments.length && withoutFiles ? withoutFiles : whole;
    const report = { ...attached, ...(failure && attachments.length ? { attachFailure: failure } : {}) };
    const wrote = await writeText(input, text);
    if (!wrote.how) {
      // Never "inserted" when the editor holds something else: say what was lost.
      const error = wrote.lost || 'The chat input did not accept the text.';
      return { inserted: false, submitted: false, partial: wrote.partial, ...report, error };
    }
    if (wrote.how === 'chip' && NS.discover) NS.discover.expectChip(text);
    if (!doSubmit) return { inserted: true, submitted: false, how: wrote.how, ...report };
    const sent = await submit(input, text, wrote.how === 'chip', wrote.chip);
    return { inserted: true, submitted: sent.submitted, how: wrote.how, ...report, ...(sent.error ? { error: sent.error } : {}) };
  }

  /**
   * Sends results written earlier (the end of the delay before auto-send), if the input still
   * holds them: the user may have edited, sent or cleared it meanwhile.
   * @param {string} text the results as they were written
   * @returns {Promise<import('../contract').SubmitOutcome>}
   */
  async function submitNow(text) {
    const input = dom.findInput();
    if (!input) return { submitted: false, error: 'No input box found on this page.' };
    const head = alnum(text).slice(0, 40);
    if (!head || !alnum(editorText(input)).includes(head)) {
      return { submitted: false, error: t('sendTextGone', 'The results are no longer in the chat\'s input, so nothing was sent.') };
    }
    return submit(input, text, false, null);
  }

  NS.write = { insert, submitNow, writePath, lineLoss, WRITE_PATHS, kindOf };
})();
