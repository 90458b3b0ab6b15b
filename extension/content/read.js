// @ts-check
// MCP Relay's content script, part 3 of 6: reading assistant replies.
//
// Only assistant replies are read. A structural observer (child lists only, no text) tells us
// that something was added or replaced; each reply element gets its own observer for its text.
// Both only mark work to do; a throttled scan reads the replies that changed, so a streaming
// reply costs one read per SCAN_INTERVAL_MS, not one per token. Each reply's text goes to the
// core (`reply/update`), whose streaming parser reports complete calls once.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.read) return;
  const NS = found;
  const { call, state, dom } = NS;

  const SCAN_INTERVAL_MS = 100;
  // Sites without a stop control: a reply is over when its text has been still this long.
  const SETTLE_MS = 600;
  // Sites with one: once it is gone, the last render has to land.
  const STOP_QUIET_MS = 60;

  /** Per message id: last text sent, when it changed, whether "done" was sent. */
  /** @type {Map<string, {text: string, changedAt: number, done: boolean, history: boolean, sawStop: boolean}>} */
  const seen = new Map();
  /** Reply elements we observe, and whether their text changed since the last scan. */
  /** @type {WeakMap<Element, boolean>} */
  const dirty = new WeakMap();
  const replyObserver = new MutationObserver((records) => {
    for (const r of records) {
      const el = r.target.nodeType === Node.ELEMENT_NODE ? r.target : r.target.parentElement;
      for (const reply of observed) if (el && reply.contains(el)) dirty.set(reply, true);
    }
    scheduleScan();
  });
  /** @type {Set<Element>} */
  let observed = new Set();
  let startup = true;
  /** @type {ReturnType<typeof setTimeout> | null} */
  let scanTimer = null;

  function scheduleScan(delay = SCAN_INTERVAL_MS) {
    if (scanTimer) return;
    scanTimer = setTimeout(() => { scanTimer = null; scan(); }, delay);
  }

  /** @param {HTMLElement[]} messages */
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

  // The generic adapter finds turns by shape and structure (discover.js), across shadow roots.
  const assistantMessages = () => (state.adapter === NS.Sites.GENERIC && NS.discover ? NS.discover.assistantTurns() : dom.all(state.adapter.assistant));

  function scan() {
    const messages = assistantMessages();
    observeReplies(messages);
    const history = startup;
    startup = false;
    const streaming = dom.isStreaming();
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

  /**
   * @param {string} messageId
   * @param {string} text
   * @param {boolean} done
   * @param {boolean} history
   */
  function send(messageId, text, done, history) {
    call('reply/update', { messageId, text, done, history })
      .then((/** @type {import('../contract').ReplyUpdate} */ r) => {
        for (const c of r.calls) NS.cards.renderCard(c);
        NS.cards.setPending(r.pending);
      })
      .catch((/** @type {any} */ e) => NS.cards.setStatus('error', String(e && e.kind || 'error')));
  }

  // Structure only (no text, no attributes): new or replaced nodes may be new replies.
  const structureObserver = new MutationObserver((records) => {
    const ui = state.ui;
    if (records.some((r) => r.addedNodes.length && !(ui && ui.contains(r.target)))) scheduleScan();
  });

  /** Starts watching the page; the first scan marks what is already there as history. */
  function startReading() {
    structureObserver.observe(document.body || document.documentElement, { childList: true, subtree: true });
    scan();
  }

  NS.read = { startReading, userMessageCount: () => dom.all(state.adapter.user).length, scheduleScan };
})();
