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
  const SCAN_INTERVAL_MS = 150;
  const SETTLE_MS = 600;

  async function call(type, fields = {}) {
    const answer = await chrome.runtime.sendMessage({ ...fields, type });
    if (answer && answer.ok) return answer.data;
    const e = (answer && answer.error) || { kind: 'no_answer', message: 'no answer' };
    throw Object.assign(new Error(e.message), { kind: e.kind });
  }

  // ---- adapter ---------------------------------------------------------------------------

  let adapter = Sites.forLocation(location) || Sites.GENERIC;

  function first(selectors, root = document) {
    for (const s of selectors) {
      try {
        const el = root.querySelector(s);
        if (el) return el;
      } catch { /* an adapter selector the browser does not support: try the next */ }
    }
    return null;
  }

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

  // The generic adapter: the largest editable input near the bottom, a send button near it,
  // and assistant turns by the markers chat UIs commonly use.
  const GENERIC_ASSISTANT = ['[data-message-author-role="assistant"]', '[data-role="assistant"]', '[data-author="assistant"]', '.assistant-message', '.message.assistant', '.bot-message'];

  function findInput() {
    if (adapter.input.length) {
      const el = first(adapter.input);
      if (el) return el;
    }
    const candidates = [...document.querySelectorAll('textarea, [contenteditable="true"], [contenteditable=""], input[type="text"]')].filter(visible);
    candidates.sort((a, b) => {
      const ra = a.getBoundingClientRect(), rb = b.getBoundingClientRect();
      return (rb.width * rb.height + rb.bottom) - (ra.width * ra.height + ra.bottom);
    });
    return candidates[0] || null;
  }

  function findSend(input) {
    const el = adapter.send.length ? first(adapter.send) : null;
    if (el) return el;
    const scope = (input && input.closest('form')) || document;
    const buttons = [...scope.querySelectorAll('button, [role="button"]')].filter(visible);
    return buttons.find((b) => b.type === 'submit' || /send|submit|发送/i.test(b.getAttribute('aria-label') || b.textContent || '')) || null;
  }

  function isStreaming() {
    const stop = adapter.stop.length ? first(adapter.stop) : document.querySelector('button[aria-label="Stop"], button[aria-label*="Stop"]');
    return !!stop && visible(stop);
  }

  function assistantMessages() {
    return all(adapter.assistant.length ? adapter.assistant : GENERIC_ASSISTANT);
  }

  // ---- reading replies -------------------------------------------------------------------

  /** Per message index: last text sent and whether "done" was sent. */
  const seen = new Map();
  let startup = true;
  let scanTimer = null;

  function scheduleScan() {
    if (scanTimer) return;
    scanTimer = setTimeout(() => { scanTimer = null; scan(); }, SCAN_INTERVAL_MS);
  }

  async function scan() {
    const messages = assistantMessages();
    const history = startup;
    startup = false;
    const streaming = isStreaming();
    for (let i = 0; i < messages.length; i++) {
      const text = messages[i].innerText || '';
      const id = 'a' + i;
      const prev = seen.get(id);
      const now = Date.now();
      if (prev && prev.text === text) {
        if (!prev.done && !streaming && now - prev.changedAt >= SETTLE_MS) {
          prev.done = true;
          send(id, text, true, prev.history);
        }
        continue;
      }
      const last = i === messages.length - 1;
      const done = history || (!last) || false;
      seen.set(id, { text, changedAt: now, done, history });
      send(id, text, done, history);
    }
    if ([...seen.values()].some((s) => !s.done)) scheduleScan();
  }

  function send(messageId, text, done, history) {
    call('reply/update', { messageId, text, done, history })
      .then((r) => { for (const c of r.calls) renderCard(c); setPending(r.pending); })
      .catch((e) => setStatus('error', e.message));
  }

  new MutationObserver(scheduleScan).observe(document.documentElement, { childList: true, subtree: true, characterData: true });

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

  function placeCaretAtEnd(el) {
    const sel = getSelection();
    const range = document.createRange();
    range.selectNodeContents(el);
    range.collapse(false);
    sel.removeAllRanges();
    sel.addRange(range);
  }

  function editorText(el) {
    return 'value' in el && typeof el.value === 'string' && !el.isContentEditable ? el.value : el.innerText;
  }

  /** Writes through the editor's own input path, then checks the editor holds the text. */
  function writeText(el, text) {
    el.focus();
    const probe = norm(text).slice(0, 60);
    if (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement) {
      // React and friends track the value setter: use the native one, then tell them.
      const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
      const setter = Object.getOwnPropertyDescriptor(proto, 'value').set;
      setter.call(el, el.value ? el.value + '\n\n' + text : text);
      el.dispatchEvent(new Event('input', { bubbles: true }));
      el.dispatchEvent(new Event('change', { bubbles: true }));
      return norm(el.value).includes(probe);
    }
    placeCaretAtEnd(el);
    // ProseMirror, Lexical, Quill and plain contenteditable handle beforeinput/insertText.
    document.execCommand('insertText', false, text);
    if (norm(editorText(el)).includes(probe)) return true;
    const data = new DataTransfer();
    data.setData('text/plain', text);
    el.dispatchEvent(new ClipboardEvent('paste', { clipboardData: data, bubbles: true, cancelable: true }));
    return norm(editorText(el)).includes(probe);
  }

  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

  /** Clicks send once it is enabled, then checks the message left (input cleared or a stop button). */
  async function submit(input) {
    const before = document.querySelectorAll('*').length;
    for (let i = 0; i < 60; i++) {
      const btn = findSend(input);
      if (btn && !btn.disabled && btn.getAttribute('aria-disabled') !== 'true') {
        btn.click();
        break;
      }
      if (i === 59) input.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', code: 'Enter', keyCode: 13, bubbles: true }));
      await sleep(50);
    }
    for (let i = 0; i < 100; i++) {
      if (!norm(editorText(input)) || isStreaming() || document.querySelectorAll('*').length !== before) return true;
      await sleep(50);
    }
    return false;
  }

  async function insert(text, doSubmit) {
    const input = findInput();
    if (!input) return { inserted: false, submitted: false, error: 'No input box found on this page.' };
    const inserted = writeText(input, text);
    if (!inserted) return { inserted: false, submitted: false, error: 'The chat input did not accept the text.' };
    const submitted = doSubmit ? await submit(input) : false;
    return { inserted, submitted };
  }

  // Messages from our own service worker (never from the page: pages cannot reach this API).
  chrome.runtime.onMessage.addListener((msg, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || sender.tab) return false;
    if (msg && msg.type === 'relay/insert') {
      insert(String(msg.text || ''), !!msg.submit).then(sendResponse);
      return true;
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
      setStatus('ready');
      scan();
    } catch (e) {
      setStatus('error', String(e.kind || 'error'));
    }
  }

  start();
})();
