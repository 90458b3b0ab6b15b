// @ts-check
// MCP Relay's content script, part 3 of 6: looking at the page for the core.
//
// This part senses and reports; it decides nothing. Which reply is which, whether a reply is
// old or being written now, when it has ended, and whether a URL change is a new chat or
// another conversation are the core's page model's to decide (`relay_core::page`). Each look
// (`page/observe`) carries this page load's instance id, the URL (added by `call`), the
// conversation id the adapter's pattern finds in it, the site's streaming signal, whether we
// sent something since the last look, and the turns in page order: a handle per element
// (stable while the element lives), the site's own id where the adapter names one, and a
// reply's text when it changed since we last sent it (only what was appended, with `at`, while
// it grows). The core answers with the calls of the replies that changed (their cards), which
// handles' whole text it needs again (`resend`: the worker restarted), when to look again
// although nothing changed (`rescanMs`: a reply's end is pending), and whether the cards of
// another conversation go (`reset`).
//
// Only assistant replies are read, never the reasoning ("thinking") blocks around them: an
// element inside one of the adapter's `thinking` containers is not a reply, and their text is
// taken out of a reply that holds one. A structural observer (child lists only) and one text
// observer per reply only mark work to do; a throttled scan reads the replies that changed,
// so a streaming reply costs one read per SCAN_INTERVAL_MS, not one per token. Looks go out
// one at a time, in order.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.read) return;
  const NS = found;
  const { call, state, dom } = NS;

  const SCAN_INTERVAL_MS = 100;
  // After the page stops changing, one more look this much later: discovery keeps what it found
  // for a moment (discover.js), so the last change may have been looked at through a stale
  // answer.
  const TRAILING_MS = 400;
  // The slow URL poll, for navigations no event announces.
  const URL_POLL_MS = 1000;
  // This page load: the core tells a reload (a new instance) from more of the same page.
  const instance = Math.random().toString(36).slice(2, 10) + Date.now().toString(36);

  /** Each turn element's handle. @type {WeakMap<Element, number>} */
  const handles = new WeakMap();
  let nextHandle = 0;
  /** Per handle, the text the core was last sent. @type {Map<number, string>} */
  const sent = new Map();
  /** Handles whose whole text goes with the next look. @type {Set<number>} */
  const whole = new Set();
  /** Reply elements we observe, and whether their text changed since the last scan. */
  /** @type {WeakMap<Element, boolean>} */
  const dirty = new WeakMap();
  /** @type {Set<Element>} */
  let observed = new Set();
  const replyObserver = new MutationObserver((records) => {
    for (const r of records) {
      const t = r.target;
      const el = t instanceof ShadowRoot ? t.host : t.nodeType === Node.ELEMENT_NODE ? /** @type {Element} */ (t) : t.parentElement;
      const inside = (/** @type {Element} */ reply) => (NS.discover ? NS.discover.containsDeep(reply, /** @type {Element} */ (el)) : reply.contains(el));
      for (const reply of observed) if (el && inside(reply)) dirty.set(reply, true);
    }
    changed();
  });
  /** @type {ReturnType<typeof setTimeout> | null} */
  let scanTimer = null;
  let submitted = false;
  // One look in flight at a time; a scan asked for meanwhile runs once it is answered.
  let inFlight = false;
  let again = false;
  let url = location.href.split('#')[0];
  /** When the page last changed (an observer's report), and whether a trailing look is due. */
  let changedAt = 0;
  let trailing = false;

  /** The page changed: a look soon, and a trailing one after the changes stop. */
  function changed() {
    changedAt = Date.now();
    trailing = true;
    scheduleScan();
  }

  /** When the scheduled look runs (ms since the epoch). */
  let scanDue = 0;
  /**
   * A look in `delay` ms, or sooner where one is due sooner: a change the page shows is looked
   * at within SCAN_INTERVAL_MS even while a later look waits (the core's rescan of a reply's
   * end, a trailing look), or a reply written meanwhile would be read only when it is whole.
   * @param {number} [delay]
   */
  function scheduleScan(delay = SCAN_INTERVAL_MS) {
    const due = Date.now() + delay;
    if (scanTimer) {
      if (scanDue <= due) return;
      clearTimeout(scanTimer);
    }
    scanDue = due;
    scanTimer = setTimeout(() => { scanTimer = null; scan(); }, delay);
  }

  /** @param {Element} el */
  function handleOf(el) {
    let h = handles.get(el);
    if (h === undefined) {
      h = ++nextHandle;
      handles.set(el, h);
    }
    return h;
  }

  /** @param {HTMLElement[]} messages */
  function observeReplies(messages) {
    const changed = messages.length !== observed.size || messages.some((m) => !observed.has(m));
    if (!changed) return;
    replyObserver.disconnect();
    for (const m of messages) {
      replyObserver.observe(m, { childList: true, subtree: true, characterData: true });
      // A turn that renders into its own shadow root changes there, unseen from the host.
      const root = NS.discover && NS.discover.openRoot(m);
      if (root) replyObserver.observe(root, { childList: true, subtree: true, characterData: true });
      if (!observed.has(m)) dirty.set(m, true);
    }
    observed = new Set(messages);
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
    const skip = [...(state.adapter.thinking || []), ...(state.adapter.folded || [])];
    // Through its open shadow root where it renders into one (discover.js reads those).
    return NS.discover ? NS.discover.deepText(el, skip) : el.innerText || '';
  }

  /**
   * The site's own id of a reply (`messageId`: [closest selector, attribute] pairs).
   * @param {Element} el
   * @returns {string | null}
   */
  function siteId(el) {
    for (const [sel, attr] of state.adapter.messageId || []) {
      try {
        const holder = el.closest(sel) || el.querySelector(sel);
        const v = holder && holder.getAttribute(attr);
        if (v) return v;
      } catch { /* a selector the browser does not support: next */ }
    }
    return null;
  }

  /**
   * The conversation id in a URL, by the adapter's `conversation` pattern (a RegExp source
   * matched against the path, group 1 the id). Null: a new chat, or an adapter without one.
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

  /** The adapter's signals that a reply is streaming: a visible stop control or a streaming marker. */
  function streamingSignal() {
    if (dom.isStreaming()) return true;
    const markers = state.adapter.streaming || [];
    return markers.length > 0 && dom.all(markers).length > 0;
  }

  /**
   * What to send of a reply's text: only the part appended to what the core was last sent,
   * or the whole text (the first look, a re-render that changed earlier text). Pure (tested
   * without a page).
   * @param {string | undefined} before
   * @param {string} text
   * @returns {{text: string, at?: number}}
   */
  function replyDelta(before, text) {
    if (before && text.length >= before.length && text.startsWith(before)) return { text: text.slice(before.length), at: before.length };
    return { text };
  }

  /**
   * The page's turns in page order: replies, and where the adapter names them the user's.
   * @returns {{el: HTMLElement, user: boolean}[]}
   */
  function turnsInOrder() {
    const replies = assistantMessages();
    observeReplies(replies);
    // The user's turns only where the adapter names them: the generic adapter's search for
    // them is too costly for every look (a send it makes is reported as `submitted`).
    const users = state.adapter === NS.Sites.GENERIC ? [] : dom.all(state.adapter.user);
    const all = [...replies.map((el) => ({ el, user: false })), ...users.map((el) => ({ el, user: true }))];
    if (users.length) {
      all.sort((a, b) => {
        const pos = a.el.compareDocumentPosition(b.el);
        if (pos & Node.DOCUMENT_POSITION_DISCONNECTED) return 0;
        return pos & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : pos & Node.DOCUMENT_POSITION_PRECEDING ? 1 : 0;
      });
    }
    return all;
  }

  /**
   * One look: what the page shows now, as the core's page model reads it.
   * @returns {import('../contract').Requests['page/observe']}
   */
  function observation() {
    const turns = turnsInOrder().map(({ el, user }) => {
      const h = handleOf(el);
      if (user) return { h, user: true };
      /** @type {import('../contract').TurnSeen} */
      const t = { h };
      const id = siteId(el);
      if (id) t.id = id;
      const force = whole.delete(h);
      if (force || dirty.get(el) !== false || !sent.has(h)) {
        dirty.set(el, false);
        const text = replyText(el);
        const before = force ? undefined : sent.get(h);
        if (before !== text) {
          Object.assign(t, replyDelta(before, text));
          sent.set(h, text);
        }
      }
      return t;
    });
    const obs = {
      page: instance,
      conversation: conversationOf(location.href),
      pattern: !!state.adapter.conversation,
      streaming: streamingSignal(),
      submitted,
      turns,
    };
    submitted = false;
    return obs;
  }

  function scan() {
    if (inFlight) { again = true; return; }
    url = location.href.split('#')[0];
    const obs = observation();
    inFlight = true;
    call('page/observe', obs)
      .then((/** @type {import('../contract').PageAnswer} */ answer) => {
        if (answer.reset) NS.cards.clear();
        for (const c of answer.calls) NS.cards.renderCard(c);
        NS.cards.setPending(answer.pending);
        const resend = answer.resend || [];
        for (const h of resend) whole.add(h);
        const since = Date.now() - changedAt;
        if (resend.length) again = true;
        else if (typeof answer.rescanMs === 'number') scheduleScan(Math.max(answer.rescanMs, 10));
        else if (trailing) {
          if (since >= TRAILING_MS) trailing = false;
          scheduleScan(Math.max(TRAILING_MS - since, 10));
        }
      })
      .catch((/** @type {any} */ e) => {
        // The look was lost: what it carried goes whole with the next one.
        for (const t of obs.turns) if (t.text !== undefined) sent.delete(t.h);
        NS.cards.setStatus('error', String(e && e.kind || 'error'));
      })
      .finally(() => {
        inFlight = false;
        if (again) { again = false; scheduleScan(0); }
      });
  }

  /** A navigation event or the slow poll: a changed URL is looked at at once. */
  function checkUrl() {
    if (location.href.split('#')[0] !== url) scheduleScan(0);
  }

  // Structure only (no text, no attributes): new or replaced nodes may be new replies.
  const structureObserver = new MutationObserver((records) => {
    const ui = state.ui;
    if (records.some((r) => r.addedNodes.length && !(ui && ui.contains(r.target)))) changed();
  });

  /**
   * The user sends a message with the site's own controls: Enter in an editable field, or a
   * click on the send control. Only trusted input counts (a page script's synthetic events do
   * not); the core then takes the next reply as a new answer.
   * @param {Event} e
   */
  function userSend(e) {
    if (!e.isTrusted) return;
    const target = /** @type {Element | null} */ (e.composedPath()[0] instanceof Element ? e.composedPath()[0] : null);
    if (!target) return;
    if (e instanceof KeyboardEvent) {
      if (e.key !== 'Enter' || e.shiftKey || e.isComposing) return;
      const editable = target.closest('textarea, input, [contenteditable]:not([contenteditable="false"])');
      if (!editable) return;
    } else {
      const send = dom.findSend(dom.findInput());
      if (!send || !(send === target || send.contains(target))) {
        // A control nothing names as send (an icon without a name, a styled div): the click
        // sent the message when the composer lets go of its text right after it.
        if (NS.discover && NS.discover.nearComposer(target)) sentWhenEmptied();
        return;
      }
    }
    noteSubmit();
  }

  /** Notes a send once the composer, which holds text now, is emptied (checked for a second). */
  function sentWhenEmptied() {
    const input = dom.findInput();
    const d = NS.discover;
    if (!input || !d) return;
    // Our text waiting as an attachment chip: the editor shows nothing to let go of.
    if (d.chipPending()) { noteSubmit(); return; }
    if (!d.composerText(input)) return;
    let tries = 0;
    const look = () => {
      if (!d.composerText(input)) noteSubmit();
      else if (++tries < 5) setTimeout(look, 200);
    };
    setTimeout(look, 100);
  }

  /** Starts watching the page; the first look shows the core what is already there. */
  function startReading() {
    structureObserver.observe(document.body || document.documentElement, { childList: true, subtree: true });
    addEventListener('keydown', userSend, true);
    addEventListener('click', userSend, true);
    // Same-document navigations (History API) and back/forward; a slow poll for the rest.
    const nav = /** @type {any} */ (globalThis).navigation;
    if (nav && typeof nav.addEventListener === 'function') nav.addEventListener('currententrychange', checkUrl);
    addEventListener('popstate', checkUrl);
    setInterval(checkUrl, URL_POLL_MS);
    scan();
  }

  /** We are sending the user's message (or a result): the core hears it with the next look. */
  function noteSubmit() {
    submitted = true;
    scheduleScan(0);
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
  /**
   * The conversation's last turn on the page: the last reply, or a message of the user's below
   * it (a result sent back). Null when there is neither.
   * @returns {HTMLElement | null}
   */
  const lastTurn = () => {
    const reply = assistantMessages().at(-1) || null;
    const user = userMessages().at(-1) || null;
    if (!reply || !user) return reply || user;
    return reply.compareDocumentPosition(user) & Node.DOCUMENT_POSITION_FOLLOWING ? user : reply;
  };
  /** Whether a user turn shows the text sent (false where the page folds it, found by growth). */
  const userTurnsShowText = () => state.adapter !== NS.Sites.GENERIC || !NS.discover || NS.discover.userTurns().showsText;

  NS.read = { replyDelta, observation, startReading, noteSubmit, userMessages, userTurnsShowText, assistantCount: () => assistantMessages().length, lastTurn, userMessageCount: () => userMessages().length, conversationOf, scheduleScan: changed };
})();
