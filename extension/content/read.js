// @ts-check
// MCP Relay's content script, part 3 of 6: reading assistant replies, per conversation.
//
// Only assistant replies are read, never the reasoning ("thinking") blocks around them: an
// element inside one of the adapter's `thinking` containers is not a reply, and their text is
// taken out of a reply that holds one. A structural observer (child lists only, no text) tells
// us that something was added or replaced; each reply element gets its own observer for its
// text. Both only mark work to do; a throttled scan reads the replies that changed, so a
// streaming reply costs one read per SCAN_INTERVAL_MS, not one per token (and so at most one
// update per reply every few frames). Each reply's text goes to the core (`reply/update`),
// whose streaming parser reports complete calls once: only what was appended since the last
// update (`at`: the length the core has) while the text grows, the whole text otherwise or
// when the core asks for it (`resend`: the worker restarted, an update was lost).
//
// Which reply is which, and whether it is new:
// - a reply's identity is the site's own id where it has one (the adapter's `messageId`), else
//   the element's, kept by a site's re-render of the same reply (a new element with the same
//   text in place of one that just left); never its position in the list;
// - replies on the page when we look (page load, another conversation opened) are history and
//   never run; so is a reply that appears complete while nothing streams after another
//   conversation was opened and before the user sent anything (that conversation loading
//   lazily), and an element that appears above replies we already know (a virtualised list
//   re-mounting an old turn);
// - the conversation is tracked: URL changes (the Navigation API, popstate, and a slow poll as
//   a fallback) with the adapter's `conversation` pattern. A new chat that gets its
//   conversation URL keeps its state and tells the core (`chat/moved`, which carries the
//   chat's settings); any other move starts over, as on a page load.
// - a reply ends on the site's signals (stop control gone, streaming marker gone) once its text
//   is still; the quiet timeout is the last resort, for sites that show no signal.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.read) return;
  const NS = found;
  const { call, state, dom } = NS;

  const SCAN_INTERVAL_MS = 100;
  // Sites without any streaming signal: a reply is over when its text has been still this long.
  const SETTLE_MS = 1500;
  // Sites with one: once it is gone, the last render has to land.
  const STOP_QUIET_MS = 60;
  // The slow URL poll, for navigations no event announces.
  const URL_POLL_MS = 1000;

  /**
   * Per message id: last text sent, when it changed, whether "done" was sent, whether it is
   * history (null: not decided yet), whether a streaming signal was seen while it was last.
   * @typedef {{text: string, changedAt: number, done: boolean, history: boolean | null, sawSignal: boolean, el: Element, sent: boolean}} Seen
   */
  /** @type {Map<string, Seen>} */
  let seen = new Map();
  /** The id of each reply element. */
  /** @type {WeakMap<Element, string>} */
  let ids = new WeakMap();
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
  // The next scan marks what the page shows as history (page load, another conversation).
  let startup = true;
  // After another conversation was opened in the page, until the user sends something or a
  // reply is seen streaming, a reply that appears complete is part of that conversation
  // loading, not a new answer. (At page load the first scan's history covers what is there.)
  let quiet = false;
  let localIds = 0;
  // Local ids differ between page loads: a reloaded page never reuses an id of the last one.
  const salt = Math.random().toString(36).slice(2, 8);
  /** @type {ReturnType<typeof setTimeout> | null} */
  let scanTimer = null;
  /** The URL (without fragment) the content script last saw. */
  let url = location.href.split('#')[0];
  /** Reports to the core wait for a pending move, so they land in the right chat. */
  /** @type {Promise<unknown>} */
  let moving = Promise.resolve();

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

  /** The adapter's reply elements, without those inside a reasoning block. */
  function assistantMessages() {
    const thinking = state.adapter.thinking || [];
    // The generic adapter finds turns by shape and structure (discover.js), across shadow roots.
    const turns = state.adapter === NS.Sites.GENERIC && NS.discover ? NS.discover.assistantTurns() : dom.all(state.adapter.assistant);
    return turns.filter((el) => !thinking.length || !dom.matchesAny(el, thinking));
  }

  /**
   * A reply's text without the reasoning blocks it holds.
   * @param {HTMLElement} el
   */
  function replyText(el) {
    let text = el.innerText || '';
    for (const sel of state.adapter.thinking || []) {
      let inner;
      try { inner = el.querySelectorAll(sel); } catch { continue; }
      for (const t of inner) {
        const tt = /** @type {HTMLElement} */ (t).innerText || '';
        if (tt) text = text.replace(tt, '');
      }
    }
    return text;
  }

  /**
   * The site's own id of a reply (`messageId`: [closest selector, attribute] pairs).
   * @param {Element} el
   */
  function siteId(el) {
    for (const [sel, attr] of state.adapter.messageId || []) {
      try {
        const holder = el.closest(sel) || el.querySelector(sel);
        const v = holder && holder.getAttribute(attr);
        if (v) return 's:' + v;
      } catch { /* a selector the browser does not support: next */ }
    }
    return null;
  }

  /**
   * The conversation id in a URL, by the adapter's `conversation` pattern (a RegExp source
   * matched against the path, group 1 the id). Null: a new chat, not yet a conversation, or an
   * adapter without a pattern.
   * @param {string} href
   */
  function conversationOf(href) {
    const pattern = state.adapter.conversation;
    if (!pattern) return null;
    try {
      const m = new RegExp(pattern).exec(new URL(href).pathname);
      return m ? (m[1] || m[0]) : null;
    } catch { return null; }
  }

  /**
   * What a URL change means: the same conversation (`same`), a new chat that became a
   * conversation (`fresh`: same chat, now with its own URL), or another conversation or a new
   * chat (`switch`). Without a pattern, the path decides: a new chat's path (`/`, `…/new`) or
   * one the new path extends became that conversation. Pure (tested without a page).
   * @param {string} from
   * @param {string} to
   * @returns {'same' | 'fresh' | 'switch'}
   */
  function moveKind(from, to) {
    let a, b;
    try { a = new URL(from).pathname; b = new URL(to).pathname; } catch { return 'switch'; }
    if (state.adapter.conversation) {
      const ca = conversationOf(from), cb = conversationOf(to);
      if (ca) return ca === cb ? 'same' : 'switch';
      if (cb) return 'fresh';
      return a === b ? 'same' : 'switch';
    }
    if (a === b) return 'same';
    const base = a.endsWith('/') ? a : a + '/';
    return /^\/?$|\/new(_chat)?\/?$/.test(a) || b.startsWith(base) ? 'fresh' : 'switch';
  }

  /** Another conversation (or a new chat) is on the page: what it shows is looked at afresh. */
  function restart() {
    seen = new Map();
    ids = new WeakMap();
    observed = new Set();
    replyObserver.disconnect();
    startup = true;
    quiet = true;
    NS.cards.clear();
  }

  /** Looks for a URL change (called on navigation events, by the slow poll and by each scan). */
  function checkUrl() {
    const now = location.href.split('#')[0];
    if (now === url) return;
    const from = url;
    url = now;
    const kind = moveKind(from, now);
    if (kind === 'same') return; // the same conversation (another query, say)
    // The chat moves with the URL (the core keys chats by it): tell the core first, so every
    // later report lands in the chat it belongs to; a new chat's settings follow it.
    moving = moving.then(() => call('chat/moved', { from, fresh: kind === 'fresh' }).catch(() => null));
    if (kind === 'fresh') return; // the new chat became a conversation: same replies, same state
    restart();
    scheduleScan();
  }

  /** The adapter's signals that a reply is streaming: a visible stop control or a streaming marker. */
  function streamingSignal() {
    if (dom.isStreaming()) return true;
    const markers = state.adapter.streaming || [];
    return markers.length > 0 && dom.all(markers).length > 0;
  }

  /**
   * The id of a reply element: its own (kept), the site's, the one of an element with the same
   * text that left the page since the last scan (a re-render), or a new local one.
   * @param {Element} el
   * @param {string} text
   * @param {Map<string, string>} gone text → id of replies that left since the last scan
   */
  function idFor(el, text, gone) {
    const known = ids.get(el);
    if (known) return known;
    let id = siteId(el);
    if (!id && gone.has(text)) {
      id = /** @type {string} */ (gone.get(text));
      gone.delete(text);
    }
    if (!id) id = `l:${salt}-${++localIds}`;
    ids.set(el, id);
    return id;
  }

  function scan() {
    checkUrl();
    const messages = assistantMessages();
    // Replies that left the page since the last scan, by text: a re-render puts a new element
    // with the same text in place of one of them. (Only since the last scan: a new reply that
    // happens to say what an old, long gone one said is not that one.)
    const current = new Set(messages);
    /** @type {Map<string, string>} */
    const gone = new Map();
    for (const el of observed) {
      const id = ids.get(el);
      const s = id ? seen.get(id) : undefined;
      if (s && !current.has(/** @type {HTMLElement} */ (el)) && s.el === el) gone.set(s.text, /** @type {string} */ (id));
    }
    const history = startup;
    startup = false;
    const signal = streamingSignal();
    const now = Date.now();
    let waiting = false;
    /** @type {{el: HTMLElement, id: string, text: string | null, fresh: boolean}[]} */
    const items = messages.map((el) => {
      const first = !ids.has(el);
      const text = first || dirty.get(el) !== false ? replyText(el) : null;
      const id = idFor(el, text === null ? '' : text, gone);
      return { el, id, text, fresh: !seen.has(id) };
    });
    observeReplies(messages);
    // A new element above a reply we already know is an old turn mounted again.
    let knownAfter = false;
    for (let i = items.length - 1; i >= 0; i--) {
      const item = items[i];
      if (!item.fresh) knownAfter = true;
      else if (knownAfter) {
        seen.set(item.id, { text: item.text || '', changedAt: now, done: true, history: true, sawSignal: false, el: item.el, sent: false });
        report(item.id, item.text || '', true, true);
        dirty.set(item.el, false);
      }
    }
    items.forEach((item, i) => {
      const { el, id } = item;
      const last = i === items.length - 1;
      let prev = seen.get(id);
      if (prev && prev.el !== el) prev.el = el;
      if (prev && !dirty.get(el)) {
        if (!prev.done) {
          if (last && signal) prev.sawSignal = true;
          if (decide(prev, id, now, signal)) waiting = true;
        }
        return;
      }
      dirty.set(el, false);
      const text = item.text === null ? replyText(el) : item.text;
      if (prev && prev.text === text) return; // a re-render of the same reply
      if (!prev) {
        // History: on the page when we looked, or not the newest reply.
        const old = history || !last;
        prev = { text, changedAt: now, done: old, history: old ? true : null, sawSignal: last && signal, el, sent: false };
        seen.set(id, prev);
        if (prev.history === null && (signal || !quiet)) live(prev);
        if (old) {
          report(id, text, true, true);
          return;
        }
      } else {
        const grew = prev.text !== text;
        prev.text = text;
        prev.changedAt = now;
        if (last && signal) prev.sawSignal = true;
        // A reply that grows under our eyes is being written now.
        if (grew && prev.history === null) live(prev);
      }
      if (prev.done) {
        report(id, text, true, prev.history !== false);
        return;
      }
      if (prev.history === false) report(id, text, false, false);
      waiting = true;
    });
    if (waiting) scheduleScan();
  }

  /** @param {Seen} rec */
  function live(rec) {
    rec.history = false;
    quiet = false;
  }

  /**
   * Whether a reply that is not done yet ends now: its text is still and the site's signals
   * say it stopped (or, without any signal, it has been quiet long enough). Returns whether
   * to keep waiting.
   * @param {Seen} rec
   * @param {string} id
   * @param {number} now
   * @param {boolean} signal
   */
  function decide(rec, id, now, signal) {
    const still = now - rec.changedAt;
    const ended = !signal && (rec.sawSignal ? still >= STOP_QUIET_MS : still >= SETTLE_MS);
    if (!ended) return true;
    rec.done = true;
    // Never seen streaming nor growing while nothing was sent: part of a loading conversation.
    if (rec.history === null) rec.history = true;
    report(id, rec.text, true, rec.history);
    return false;
  }

  /** Per message id, the text last sent to the core while the reply is not done. */
  /** @type {Map<string, string>} */
  const sentText = new Map();

  /**
   * What to send for a reply's text: only the part appended to what the core was last sent,
   * or the whole text (the first update, a re-render that changed earlier text, done).
   * Pure (tested without a page).
   * @param {string | undefined} sent
   * @param {string} text
   * @returns {{text: string, at?: number}}
   */
  function replyDelta(sent, text) {
    if (sent && text.length >= sent.length && text.startsWith(sent)) return { text: text.slice(sent.length), at: sent.length };
    return { text };
  }

  /**
   * @param {string} messageId
   * @param {string} text
   * @param {boolean} done
   * @param {boolean} history
   */
  function report(messageId, text, done, history) {
    const delta = replyDelta(sentText.get(messageId), text);
    // Once done the core forgets the reply's parser: later reports send the whole text.
    if (done) sentText.delete(messageId);
    else sentText.set(messageId, text);
    moving.then(() => call('reply/update', { messageId, ...delta, done, history }))
      .then((/** @type {import('../contract').ReplyUpdate} */ r) => (r && r.resend && delta.at !== undefined
        ? call('reply/update', { messageId, text, done, history })
        : r))
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
    // Same-document navigations (History API) and back/forward; a slow poll for the rest.
    const nav = /** @type {any} */ (globalThis).navigation;
    if (nav && typeof nav.addEventListener === 'function') nav.addEventListener('currententrychange', checkUrl);
    addEventListener('popstate', checkUrl);
    setInterval(checkUrl, URL_POLL_MS);
    scan();
  }

  /** We are sending the user's message (or a result): the next reply is a new one. */
  function noteSubmit() {
    checkUrl();
    quiet = false;
  }

  /**
   * The user's messages on the page, newest last.
   * @returns {HTMLElement[]}
   */
  const userMessages = () => {
    const marked = dom.all(state.adapter.user);
    // The generic adapter on a page its selectors miss: the user turns discovery found by shape.
    if (marked.length || state.adapter !== NS.Sites.GENERIC || !NS.discover) return marked;
    return NS.discover.userTurns().turns;
  };
  /** Whether a user turn shows the text sent (false where the page folds it, found by growth). */
  const userTurnsShowText = () => state.adapter !== NS.Sites.GENERIC || !NS.discover || NS.discover.userTurns().showsText;

  NS.read = { replyDelta, report, startReading, noteSubmit, userMessages, userTurnsShowText, assistantCount: () => assistantMessages().length, userMessageCount: () => userMessages().length, conversationOf, moveKind, scheduleScan };
})();
