// MCP Relay's content script (classic script: content scripts cannot be modules).
//
// It reads assistant replies (and nothing else) through the site's adapter, sends their text to
// the core, shows each call as a card in its own shadow root, and writes what the core asks it
// to write (instructions, tool results) into the chat's input through the editor's own input
// path, verifying each write and submit. It never reads the page's storage, never receives
// secrets, and inserts untrusted text only as text.
(() => {
  'use strict';
  if (globalThis.__mcpRelayContent) return; // injected twice (static + dynamic registration)
  globalThis.__mcpRelayContent = true;

  const Sites = globalThis.McpRelaySites;
  const SCAN_INTERVAL_MS = 100;
  // Sites without a stop control: a reply is over when its text has been still this long.
  const SETTLE_MS = 600;
  // Sites with one: once it is gone, the last render has to land.
  const STOP_QUIET_MS = 60;

  async function call(type, fields = {}) {
    const answer = await chrome.runtime.sendMessage({ ...fields, type });
    if (answer && answer.ok) return answer.data;
    const e = (answer && answer.error) || { kind: 'no_answer', message: 'no answer' };
    throw Object.assign(new Error(e.message), { kind: e.kind });
  }

  // ---- adapter ---------------------------------------------------------------------------

  let adapter = Sites.forLocation(location) || Sites.GENERIC;

  /** The first selector of `selectors` that matches, with its element; null when none does. */
  function firstMatch(selectors, root = document) {
    for (const selector of selectors) {
      try {
        const el = root.querySelector(selector);
        if (el) return { selector, el };
      } catch { /* an adapter selector the browser does not support: try the next */ }
    }
    return null;
  }

  function first(selectors, root = document) {
    const m = firstMatch(selectors, root);
    return m ? m.el : null;
  }

  /** Every element of the first selector that matches anything. */
  function all(selectors) {
    for (const s of selectors) {
      try {
        const els = document.querySelectorAll(s);
        if (els.length) return [...els];
      } catch { /* next */ }
    }
    return [];
  }

  function visible(el) {
    if (!el || !el.isConnected) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  }

  function matchesAny(el, selectors) {
    return selectors.some((s) => {
      try { return el.matches(s) || !!el.closest(s); } catch { return false; }
    });
  }

  // The generic adapter finds the input by shape: the largest visible editable box, favouring
  // the one lowest on the page (chat composers sit at the bottom).
  function genericInput() {
    const candidates = [...document.querySelectorAll('textarea, [contenteditable="true"], [contenteditable=""], input[type="text"]')]
      .filter((el) => visible(el) && !host.contains(el));
    candidates.sort((a, b) => {
      const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
      return (rb.width * rb.height + rb.bottom) - (ra.width * ra.height + ra.bottom);
    });
    return candidates[0] || null;
  }

  function findInput() {
    return (adapter.input.length && first(adapter.input)) || (adapter === Sites.GENERIC ? genericInput() : null);
  }

  function findSend(input) {
    if (adapter.send.length) return first(adapter.send);
    const scope = (input && input.closest('form')) || document;
    const buttons = [...scope.querySelectorAll('button, [role="button"]')].filter(visible);
    return buttons.find((b) => b.type === 'submit' || /send|submit|发送/i.test(b.getAttribute('aria-label') || b.textContent || '')) || null;
  }

  function enabled(btn) {
    return !!btn && !matchesAny(btn, adapter.disabled);
  }

  function isStreaming() {
    const stop = first(adapter.stop);
    return !!stop && visible(stop);
  }

  const assistantMessages = () => all(adapter.assistant);
  const userMessageCount = () => all(adapter.user).length;

  // ---- reading replies -------------------------------------------------------------------
  //
  // Only assistant replies are read. A structural observer (child lists only, no text) tells
  // us that something was added or replaced; each reply element gets its own observer for its
  // text. Both only mark work to do; a throttled scan reads the replies that changed, so a
  // streaming reply costs one read per SCAN_INTERVAL_MS, not one per token.

  /** Per message id: last text sent, when it changed, whether "done" was sent. */
  const seen = new Map();
  /** Reply elements we observe, and whether their text changed since the last scan. */
  const dirty = new WeakMap();
  const replyObserver = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement;
      for (const reply of observed) if (reply.contains(el)) dirty.set(reply, true);
    }
    scheduleScan();
  });
  let observed = new Set();
  let startup = true;
  let scanTimer = null;

  function scheduleScan(delay = SCAN_INTERVAL_MS) {
    if (scanTimer) return;
    scanTimer = setTimeout(() => { scanTimer = null; scan(); }, delay);
  }

  function observeReplies(messages) {
    const now = new Set(messages);
    const changed = messages.length !== observed.size || messages.some((m) => !observed.has(m));
    if (!changed) return;
    replyObserver.disconnect();
    for (const m of messages) {
      replyObserver.observe(m, { childList: true, subtree: true, characterData: true });
      if (!observed.has(m)) dirty.set(m, true);
    }
    observed = now;
  }

  function scan() {
    const messages = assistantMessages();
    observeReplies(messages);
    const history = startup;
    startup = false;
    const streaming = isStreaming();
    const now = Date.now();
    let waiting = false;
    for (let i = 0; i < messages.length; i++) {
      const el = messages[i];
      const id = 'a' + i;
      const prev = seen.get(id);
      if (prev && !dirty.get(el)) {
        if (!prev.done) {
          // A reply ends when the site's stop control goes away (if we saw it), or when its
          // text has not changed for SETTLE_MS on a site that shows no stop control.
          const ended = !streaming && (prev.sawStop ? now - prev.changedAt >= STOP_QUIET_MS : now - prev.changedAt >= SETTLE_MS);
          if (ended) {
            prev.done = true;
            send(id, prev.text, true, prev.history);
          } else {
            prev.sawStop = prev.sawStop || streaming;
            waiting = true;
          }
        }
        continue;
      }
      dirty.set(el, false);
      const text = el.innerText || '';
      if (prev && prev.text === text) continue; // a re-render of the same reply
      const last = i === messages.length - 1;
      const done = history || !last || (prev ? prev.done : false);
      seen.set(id, { text, changedAt: now, done, history: prev ? prev.history : history, sawStop: streaming || (prev ? prev.sawStop : false) });
      send(id, text, done, prev ? prev.history : history);
      if (!done) waiting = true;
    }
    if (waiting) scheduleScan();
  }

  function send(messageId, text, done, history) {
    call('reply/update', { messageId, text, done, history })
      .then((r) => { for (const c of r.calls) renderCard(c); setPending(r.pending); })
      .catch((e) => setStatus('error', e.message));
  }

  // Structure only (no text, no attributes): new or replaced nodes may be new replies.
  const structureObserver = new MutationObserver((records) => {
    if (records.some((r) => r.addedNodes.length && !host.contains(r.target))) scheduleScan();
  });

  // ---- our UI: a shadow root with one card per call ---------------------------------------

  const host = document.createElement('mcp-relay-ui');
  const shadow = host.attachShadow({ mode: 'open' });
  const style = document.createElement('style');
  style.textContent = `
    :host { all: initial; position: fixed; right: 12px; bottom: 96px; z-index: 2147483646; font: 13px/1.4 system-ui, sans-serif; }
    .list { display: flex; flex-direction: column; gap: 6px; max-width: 340px; max-height: 50vh; overflow: auto; }
    .card { background: Canvas; color: CanvasText; border: 1px solid #8884; border-radius: 8px; padding: 8px 10px; box-shadow: 0 2px 8px #0002; }
    .head { display: flex; justify-content: space-between; gap: 8px; font-weight: 600; }
    .state { font-weight: 400; opacity: .8; }
    .args { font: 12px ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; max-height: 6em; overflow: auto; margin: 4px 0; }
    button { font: inherit; margin-right: 6px; }
    .pending { font-size: 12px; opacity: .7; }`;
  const list = document.createElement('div');
  list.className = 'list';
  list.setAttribute('role', 'log');
  const pendingLine = document.createElement('div');
  pendingLine.className = 'pending';
  shadow.append(style, list, pendingLine);
  document.documentElement.appendChild(host);

  function setStatus(state, detail) {
    host.dataset.state = state;
    if (detail) host.dataset.error = detail;
  }

  function setPending(pending) {
    pendingLine.textContent = pending ? chrome.i18n.getMessage('callBeingWritten') || '…' : '';
  }

  const cards = new Map();
  function renderCard(rec) {
    let card = cards.get(rec.key);
    if (!card) {
      card = document.createElement('div');
      card.className = 'card';
      card.dataset.key = rec.key;
      list.appendChild(card);
      cards.set(rec.key, card);
    }
    card.dataset.state = rec.state;
    const head = document.createElement('div');
    head.className = 'head';
    const name = document.createElement('span');
    name.textContent = rec.tool;
    const state = document.createElement('span');
    state.className = 'state';
    state.textContent = chrome.i18n.getMessage('state_' + rec.state) || rec.state;
    head.append(name, state);
    const args = document.createElement('div');
    args.className = 'args';
    args.textContent = JSON.stringify(rec.arguments);
    card.replaceChildren(head, args);
    if (rec.state === 'pending' || rec.state === 'unknown') {
      const run = document.createElement('button');
      run.textContent = chrome.i18n.getMessage(rec.state === 'pending' ? 'callRun' : 'callRerun') || 'Run';
      run.dataset.action = 'run';
      run.addEventListener('click', () => decide(rec.key, 'run'));
      card.appendChild(run);
      if (rec.state === 'pending') {
        const deny = document.createElement('button');
        deny.textContent = chrome.i18n.getMessage('callDeny') || 'Deny';
        deny.dataset.action = 'deny';
        deny.addEventListener('click', () => decide(rec.key, 'deny'));
        card.appendChild(deny);
      }
    }
    if (rec.error && rec.error.message) {
      // Loop limits, denials and unknown outcomes are said on the card, never silently dropped.
      const err = document.createElement('div');
      err.textContent = rec.error.message;
      card.appendChild(err);
    }
  }

  function decide(key, decision) {
    call('activity/decide', { key, decision }).then(renderCard).catch((e) => setStatus('error', e.message));
  }

  // ---- writing to the chat ---------------------------------------------------------------

  const norm = (s) => s.replace(/\s+/g, ' ').trim();
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // Editors apply input in their own tick (React re-renders, Lexical reconciles): look after it.
  const settle = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 30)));

  function placeCaretAtEnd(el) {
    const sel = getSelection();
    const range = document.createRange();
    range.selectNodeContents(el);
    range.collapse(false);
    sel.removeAllRanges();
    sel.addRange(range);
  }

  const isField = (el) => el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement;
  const editorText = (el) => (isField(el) ? el.value : el.innerText || '');

  /** Writes through the editor's own input path, then checks, after the editor's own update,
   * that it holds the text. Returns the strategy that worked, or null. */
  async function writeText(el, text) {
    el.focus();
    // The whole text, line breaks included (fences need them), whatever blank lines and
    // spaces the editor adds: an editor that took the words but dropped the breaks failed.
    const lines = (s) => s.replace(/[^\S\n]+/g, ' ').replace(/ ?\n[\s]*/g, '\n').trim();
    const want = lines(text);
    const holds = () => lines(editorText(el)).includes(want);
    if (isField(el)) {
      // React and friends track the value setter and ignore `.value = …`: call the native
      // setter (their tracker then sees a change) and announce it as typing.
      const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
      setter.call(el, el.value ? el.value + '\n\n' + text : text);
      el.dispatchEvent(new InputEvent('input', { bubbles: true, inputType: 'insertText', data: text }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      await settle();
      return holds() ? 'native-setter' : null;
    }
    // ProseMirror, Lexical, Quill, CodeMirror: insertText arrives as beforeinput + input, the
    // path each of them handles; a paste is the second path all of them take.
    const before = editorText(el);
    placeCaretAtEnd(el);
    document.execCommand('insertText', false, text);
    await settle();
    if (holds()) return 'insert-text';
    let full = text;
    if (editorText(el) !== before) {
      // Partly taken (an editor that dropped the line breaks, say): take it back out, so the
      // paste below does not write the text twice, and paste what was there before with it.
      document.execCommand('selectAll');
      document.execCommand('delete');
      await settle();
      if (norm(before)) full = before.replace(/\n$/, '') + '\n\n' + text;
    }
    placeCaretAtEnd(el);
    const data = new DataTransfer();
    data.setData('text/plain', full);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    await settle();
    return holds() ? 'paste' : null;
  }

  /** Clicks send once it is enabled, then checks the message left: the editor emptied, a reply
   * started streaming, or a new user message appeared. */
  async function submit(input) {
    const users = userMessageCount();
    let clicked = false;
    for (let i = 0; i < 100 && !clicked; i++) { // up to 5 s: uploads keep send disabled a while
      const btn = findSend(input);
      if (enabled(btn)) {
        btn.click();
        clicked = true;
      } else {
        await sleep(50);
      }
    }
    if (!clicked) {
      // No usable send control: most chats submit on Enter.
      input.focus();
      input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', keyCode: 13, which: 13, bubbles: true, cancelable: true }));
    }
    for (let i = 0; i < 100; i++) {
      if (!norm(editorText(input)) || isStreaming() || userMessageCount() > users) return true;
      await sleep(50);
    }
    return false;
  }

  function base64ToBytes(b64) {
    const bin = atob(b64);
    const bytes = new Uint8Array(bin.length);
    for (let i = 0; i < bin.length; i++) bytes[i] = bin.charCodeAt(i);
    return bytes;
  }

  const previewCount = () => (adapter.files ? all(adapter.files.preview).length : 0);

  /** Attaches files the way the site takes them: its file input, else a drop on its drop zone,
   * else a paste into the editor. Verified by the site's attachment previews when it has any. */
  async function attachFiles(files, input) {
    if (!files.length) return { attached: 0 };
    if (!adapter.files) return { attached: 0, error: 'This site takes no files.' };
    const before = previewCount();
    const data = new DataTransfer();
    for (const f of files) data.items.add(f);
    const fileInput = first(adapter.files.input);
    const zone = first(adapter.files.drop);
    let how;
    if (fileInput) {
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
    if (!adapter.files.preview.length) return { attached: files.length, how, verified: false };
    for (let i = 0; i < 60; i++) {
      if (previewCount() >= before + files.length) return { attached: files.length, how, verified: true };
      await sleep(50);
    }
    return { attached: 0, how, error: 'The site did not show the attached files.' };
  }

  async function insert(text, doSubmit, attachments) {
    const input = findInput();
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

  // ---- site check -------------------------------------------------------------------------

  /** Which of the adapter's selectors match on this page: the first that matches per part, with
   * its count (or the first listed and 0), so a broken site is diagnosed in seconds. */
  function check() {
    const checks = ['input', 'send', 'stop', 'assistant', 'user'].map((part) => {
      const selectors = adapter[part];
      for (const selector of selectors) {
        let els;
        try { els = [...document.querySelectorAll(selector)]; } catch { continue; }
        if (els.length) return { part, selector, matches: els.length, visible: els.filter(visible).length };
      }
      if (part === 'input' && adapter === Sites.GENERIC) {
        const el = genericInput();
        return { part, selector: el ? describe(el) : null, matches: el ? 1 : 0, visible: el ? 1 : 0 };
      }
      if (part === 'send' && adapter === Sites.GENERIC) {
        const el = findSend(findInput());
        return { part, selector: el ? describe(el) : null, matches: el ? 1 : 0, visible: el && visible(el) ? 1 : 0 };
      }
      return { part, selector: selectors[0] || null, matches: 0, visible: 0 };
    });
    return { adapter: adapter.id, editor: adapter.editor, checks };
  }

  /** A selector-like description of an element the generic adapter found by shape. */
  function describe(el) {
    return el.tagName.toLowerCase() + (el.id ? '#' + CSS.escape(el.id) : '') + [...el.classList].slice(0, 3).map((c) => '.' + CSS.escape(c)).join('');
  }

  // Messages from our own service worker (never from the page: pages cannot reach this API).
  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || sender.tab) return false;
    if (msg && msg.type === 'relay/insert') {
      const attachments = Array.isArray(msg.attachments) ? msg.attachments : [];
      insert(String(msg.text || ''), !!msg.submit, attachments)
        .then(sendResponse, (e) => sendResponse({ inserted: false, submitted: false, error: String(e && e.message || e) }));
      return true;
    }
    if (msg && msg.type === 'relay/check') {
      sendResponse(check());
      return false;
    }
    if (msg && msg.type === 'relay/calls' && Array.isArray(msg.calls)) {
      for (const c of msg.calls) renderCard(c);
    }
    return false;
  });

  // ---- start -----------------------------------------------------------------------------

  async function start() {
    try {
      const pong = await call('ping');
      host.dataset.core = pong.core;
      if (!Sites.forLocation(location)) {
        const custom = await call('sites/adapter').catch(() => null);
        adapter = (custom && Sites.byId(custom.adapter)) || Sites.GENERIC;
      }
      host.dataset.adapter = adapter.id;
      structureObserver.observe(document.body || document.documentElement, { childList: true, subtree: true });
      setStatus('ready');
      scan();
    } catch (e) {
      setStatus('error', String(e.kind || 'error'));
    }
  }

  start();
})();
