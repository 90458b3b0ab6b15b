// @ts-check
// MCP Relay's content script, part 2 of 8: discovery, how the generic adapter finds a chat
// page's parts by shape when no site description names them.
//
// - The composer: the editable the user last typed in, else the largest visible one near the
//   bottom of the page.
// - The send button: searched only inside the composer (the editor's own form or container,
//   widening one ancestor at a time), never inside a message or a code block (a code block's
//   "Copy" button is a button without a type, the first one in many documents), ranked by its
//   label (Send/发送/Submit), its type and its shape (an icon button beside the editor).
// - The assistant turns: explicit markers first (role / author / message attributes), then the
//   transcript's structure: the repeated siblings among which the user's submitted text
//   appears; the ones that do not hold a submitted text are the assistant's. Where no turn
//   shows the submitted text, the turn whose text grows after a send is the assistant's, and
//   the turns with its attributes are too (when they tell it from the others).
// Every search crosses open shadow roots (web components); closed ones are the page's own.
// Selectors may name shadow hops with ` >>> ` ("host >>> inner" = inner inside host's open
// shadow root), the form "Teach this page" saves for such pages.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.discover) return;
  const NS = found;
  const { state, dom } = NS;

  const { EDITABLE, SEND_LABEL } = dom;
  const BUTTONS = 'button, [role="button"], input[type="submit"], input[type="button"]';
  // Where a button is never the send button.
  const NOT_SEND_AREA = 'pre, code, [class*="code-block" i], [class*="codeblock" i], [class*="highlight" i]';
  // Attribute names and values that mark an assistant turn on sites nobody described.
  const ROLE_ATTR = /^(role|author|sender|speaker|from|data-(.*-)?(role|author|sender|speaker|from|turn|message|type|kind|source|origin)(-.*)?)$/i;
  const ASSISTANT_VALUE = /^(assistant|bot|ai|model|agent|llm|gpt|response|answer|system-assistant)$/i;

  // ---- open shadow roots ---------------------------------------------------------------------

  /** @type {WeakSet<ShadowRoot>} */
  const watchedRoots = new WeakSet();
  // Changes inside open shadow roots are invisible to an observer on the document: watch each
  // root we meet for structure, so new turns there wake the reader as they do in the document.
  const rootObserver = new MutationObserver((records) => {
    if (records.some((r) => r.addedNodes.length) && NS.read && NS.read.scheduleScan) NS.read.scheduleScan();
  });

  /**
   * The document and every open shadow root in it (depth first), bounded.
   * @returns {(Document | ShadowRoot)[]}
   */
  /** @type {{at: number, roots: (Document | ShadowRoot)[]} | null} */
  let rootsCache = null;
  function allRoots() {
    // A scan asks several times in a row: walk the page at most every ROOTS_TTL_MS.
    const now = Date.now();
    if (rootsCache && now - rootsCache.at < ROOTS_TTL_MS && rootsCache.roots.every((r) => r instanceof Document || r.host.isConnected)) return rootsCache.roots;
    const roots = walkRoots();
    rootsCache = { at: now, roots };
    return roots;
  }
  const ROOTS_TTL_MS = 100;

  /** @returns {(Document | ShadowRoot)[]} */
  function walkRoots() {
    /** @type {(Document | ShadowRoot)[]} */
    const out = [document];
    for (let i = 0; i < out.length && out.length < 2000; i++) {
      const walker = document.createTreeWalker(out[i], NodeFilter.SHOW_ELEMENT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const sr = /** @type {Element} */ (n).shadowRoot;
        if (sr && sr.mode === 'open') {
          out.push(sr);
          if (!watchedRoots.has(sr)) {
            watchedRoots.add(sr);
            rootObserver.observe(sr, { childList: true, subtree: true });
          }
        }
      }
    }
    return out;
  }

  /**
   * Elements matching `selector` in `roots` (all open roots by default). A selector with
   * ` >>> ` hops: each part before the last selects hosts whose open shadow roots the next part
   * searches.
   * @param {string} selector
   * @param {(Document | ShadowRoot | Element)[]} [roots]
   * @returns {HTMLElement[]}
   */
  function queryDeep(selector, roots) {
    const parts = selector.split('>>>').map((s) => s.trim()).filter(Boolean);
    if (!parts.length) return [];
    /** @type {(Document | ShadowRoot | Element)[]} */
    let scope = roots || (parts.length > 1 ? [document] : allRoots());
    for (let i = 0; i < parts.length; i++) {
      /** @type {Element[]} */
      const matched = [];
      for (const r of scope) {
        try { matched.push(...r.querySelectorAll(parts[i])); } catch { return []; }
      }
      if (i === parts.length - 1) return /** @type {HTMLElement[]} */ (matched);
      scope = matched.map((h) => h.shadowRoot).filter((s) => !!s && s.mode === 'open').map((s) => /** @type {ShadowRoot} */ (s));
    }
    return [];
  }

  /**
   * The parent of a node across shadow boundaries (a shadow root's host).
   * @param {Node} n
   * @returns {Element | null}
   */
  function parentOf(n) {
    if (n.parentElement) return n.parentElement;
    const p = n.parentNode;
    return p && p instanceof ShadowRoot ? p.host : null;
  }

  /**
   * Whether `outer` contains `inner`, across open shadow roots.
   * @param {Element} outer
   * @param {Element} inner
   */
  function containsDeep(outer, inner) {
    for (let n = /** @type {Element | null} */ (inner); n; n = parentOf(n)) if (n === outer) return true;
    return false;
  }

  /**
   * The text of an element including its open shadow roots' text.
   * @param {Element} el
   * @returns {string}
   */
  function deepText(el) {
    if (!el.shadowRoot || el.shadowRoot.mode !== 'open') return /** @type {HTMLElement} */ (el).innerText || el.textContent || '';
    return [...el.shadowRoot.children].map((c) => (c.localName === 'style' ? '' : deepText(c))).join('\n');
  }

  /**
   * The element that holds a turn's text: the turn itself, or inside its open shadow root the
   * child with the most text (an observer of the host would not see the text change).
   * @param {HTMLElement} el
   * @returns {HTMLElement}
   */
  function readable(el) {
    let cur = el;
    for (let i = 0; i < 5 && cur.shadowRoot && cur.shadowRoot.mode === 'open'; i++) {
      const kids = /** @type {HTMLElement[]} */ ([...cur.shadowRoot.children].filter((c) => c.localName !== 'style' && c.localName !== 'slot'));
      if (!kids.length) break;
      kids.sort((a, b) => deepText(b).length - deepText(a).length);
      cur = kids[0];
    }
    return cur;
  }

  // ---- the composer --------------------------------------------------------------------------

  /** @type {HTMLElement | null} */
  let lastTyped = null;
  /** @param {Event} ev */
  const editableTarget = (ev) => {
    const t = ev.composedPath()[0];
    if (!(t instanceof HTMLElement)) return null;
    return /** @type {HTMLElement | null} */ (t.closest(EDITABLE));
  };
  // The editable the user typed in is the composer: trusted input only (a page script cannot
  // steer our writes into a field of its choosing).
  document.addEventListener('input', (ev) => {
    if (!ev.isTrusted) return;
    const el = editableTarget(ev);
    if (el && !(state.ui && state.ui.contains(el))) lastTyped = el;
  }, true);

  const ours = (/** @type {Element} */ el) => !!el.closest('mcp-relay-ui, mcp-relay-teach');

  /** @returns {HTMLElement | null} */
  function findComposer() {
    if (lastTyped && lastTyped.isConnected && dom.visible(lastTyped)) return lastTyped;
    const candidates = queryDeep(EDITABLE).filter((el) => dom.visible(el) && !ours(el)
      && !(el instanceof HTMLInputElement && el.readOnly) && !(el instanceof HTMLTextAreaElement && el.readOnly)
      // An editable inside another editable is the same editor.
      && !(el.parentElement && el.parentElement.closest('[contenteditable="true"], [contenteditable=""]')));
    const vh = innerHeight || 1;
    const score = (/** @type {HTMLElement} */ el) => {
      const r = el.getBoundingClientRect();
      return Math.min(r.width * Math.max(r.height, 20), 400_000) * (0.5 + Math.min(r.bottom, vh) / vh);
    };
    candidates.sort((a, b) => score(b) - score(a));
    return candidates[0] || null;
  }

  // ---- the send button -----------------------------------------------------------------------

  /** @param {Element} b */
  function labelOf(b) {
    return (b.getAttribute('aria-label') || b.getAttribute('title') || b.getAttribute('data-tooltip') || /** @type {HTMLElement} */ (b).innerText || b.getAttribute('value') || '').trim();
  }

  /**
   * How much `b` looks like the send button of `input` (≤ 0: not at all).
   * @param {HTMLElement} b
   * @param {HTMLElement} input
   * @param {HTMLElement[]} turns
   */
  function sendScore(b, input, turns) {
    if (b === input || containsDeep(b, input) || !dom.visible(b) || ours(b)) return 0;
    if (b.closest(NOT_SEND_AREA) || turns.some((t) => containsDeep(t, b))) return 0;
    const label = labelOf(b);
    if (dom.notSend(label)) return 0;
    let score = 0;
    if (SEND_LABEL.test(label)) score += 5;
    if (b.getAttribute('type') === 'submit' || (b instanceof HTMLButtonElement && b.form && !b.hasAttribute('type') && b.form.contains(input))) score += 3;
    const iconOnly = !!b.querySelector('svg, img, i, [class*="icon" i]') && label.replace(/[^\p{L}\p{N}]/gu, '').length <= 2;
    if (iconOnly) score += 2;
    // Beside or below the editor, to its right: where send buttons sit.
    const ri = input.getBoundingClientRect(), rb = b.getBoundingClientRect();
    if (rb.left >= ri.left + ri.width / 2 && rb.top < ri.bottom + 80 && rb.bottom > ri.top - 80) score += 1;
    return score;
  }

  /**
   * The send button of the composer: the best ranked button of the nearest container of the
   * input that has one (at most 8 ancestors up, across shadow roots, never the whole page).
   * @param {HTMLElement | null} input
   * @returns {HTMLElement | null}
   */
  function findSend(input) {
    if (!input) return null;
    const turns = assistantTurns();
    /** @type {Element | null} */
    let container = parentOf(input);
    for (let depth = 0; container && depth < 8; depth++, container = parentOf(container)) {
      if (container === document.body || container === document.documentElement) break;
      /** @type {(Element | ShadowRoot)[]} */
      const scopes = [container];
      for (const r of allRoots()) if (r instanceof ShadowRoot && containsDeep(container, r.host)) scopes.push(r);
      /** @type {HTMLElement[]} */
      const buttons = [];
      for (const s of scopes) buttons.push(.../** @type {NodeListOf<HTMLElement>} */ (s.querySelectorAll(BUTTONS)));
      let best = null, bestScore = 1; // an icon beside the editor (2) or better
      for (const b of buttons) {
        const sc = sendScore(b, input, turns);
        if (sc > bestScore || (sc === bestScore && best && sc > 1 && b.getBoundingClientRect().right > best.getBoundingClientRect().right)) {
          best = b;
          bestScore = sc;
        }
      }
      if (best) return best;
    }
    return null;
  }

  // ---- the assistant turns -------------------------------------------------------------------

  /** Texts the user submitted (typed or ours), newest last: what a user turn shows. */
  /** @type {{head: string, tail: string}[]} */
  const submitted = [];
  /** @param {string} text */
  function noteSubmitted(text) {
    const lines = text.split('\n').map((l) => dom.norm(l)).filter((l) => l.length >= 4);
    if (!lines.length) return;
    const head = lines[0].slice(0, 60);
    const tail = lines[lines.length - 1].slice(-40);
    if (submitted.some((s) => s.head === head && s.tail === tail)) return;
    submitted.push({ head, tail });
    if (submitted.length > 20) submitted.shift();
    structure = null; // a new anchor: look again
    watchGrowth();
  }

  // After a send, the reply is the turn whose text grows: count, for a while, where the page's
  // text changes (bounded: GROWTH_MS after the send, our UI and the composer excluded).
  const GROWTH_MS = 30_000;
  /** @type {Map<Element, number>} */
  let growth = new Map();
  let growthUntil = 0;
  const growthObserver = new MutationObserver((records) => {
    if (Date.now() > growthUntil) { growthObserver.disconnect(); return; }
    for (const r of records) {
      if (r.type !== 'characterData' && !r.addedNodes.length) continue;
      const el = r.target.nodeType === Node.ELEMENT_NODE ? /** @type {Element} */ (r.target) : r.target.parentElement;
      if (el && !ours(el)) growth.set(el, (growth.get(el) || 0) + 1);
    }
  });
  function watchGrowth() {
    growth = new Map();
    growthUntil = Date.now() + GROWTH_MS;
    growthObserver.disconnect();
    for (const r of allRoots()) {
      growthObserver.observe(r instanceof Document ? (r.body || r.documentElement) : r, { childList: true, subtree: true, characterData: true });
    }
  }
  /** @param {string} text */
  const isSubmitted = (text) => {
    const n = dom.norm(text);
    return submitted.some((s) => n.includes(s.head) && n.includes(s.tail));
  };

  // What the composer held when the user (or we) sent it: Enter in the composer, or a click on
  // a button near it. Recorded before the page clears the editor (capture phase).
  function snapshotComposer() {
    const input = findComposer();
    if (!input) return;
    const text = input instanceof HTMLTextAreaElement || input instanceof HTMLInputElement ? input.value : (input.innerText || '');
    if (dom.norm(text)) noteSubmitted(text);
  }
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing && editableTarget(ev)) snapshotComposer();
  }, true);
  document.addEventListener('click', (ev) => {
    const t = ev.composedPath()[0];
    if (t instanceof Element && t.closest(BUTTONS) && !ours(t)) snapshotComposer();
  }, true);

  /**
   * The turn list found by structure: the container, the tag of its turns and, when found by
   * growth, the attributes that tell the assistant's turns from the user's.
   * @type {{parent: Element | ShadowRoot, tag: string, sig?: string} | null}
   */
  let structure = null;

  /** A turn's attributes that are the same for every turn of its kind (no ids, no numbers). */
  const sig = (/** @type {Element} */ e) => [...e.attributes]
    .filter((a) => !/^(id|style)$/.test(a.name) && !/\d{2,}|^\d+$/.test(a.value))
    .map((a) => `${a.name}=${a.value}`).sort().join('&');

  /**
   * The turn an element belongs to: the highest ancestor (across shadow roots) whose parent
   * repeats its tag without holding the composer; null when there is none.
   * @param {Element} el
   * @param {Element | null} composer
   * @returns {Element | null}
   */
  function turnOf(el, composer) {
    /** @type {Element | null} */
    let best = null;
    for (let cur = /** @type {Element | null} */ (el); cur && cur !== document.body; cur = parentOf(cur)) {
      if (composer && containsDeep(cur, composer)) break;
      const parent = cur.parentNode;
      if (!parent || !(parent instanceof Element || parent instanceof ShadowRoot)) continue;
      const same = [...parent.children].filter((c) => c.localName === cur.localName);
      if (same.length >= 2 && !(composer && same.some((c) => containsDeep(c, composer)))) best = cur;
    }
    return best;
  }

  /**
   * The turn list found by growth: the turn holding the element whose text changed most since
   * the send, when its attributes tell it from the other turns (else it could be the user's:
   * unsure, and the page says so).
   * @param {HTMLElement | null} composer
   */
  function findByGrowth(composer) {
    let top = null, most = 2; // a few changes are not a stream
    for (const [el, n] of growth) {
      if (!el.isConnected || (composer && (containsDeep(el, composer) || containsDeep(composer, el)))) continue;
      if (n > most) { most = n; top = el; }
    }
    const turn = top && turnOf(top, composer);
    if (!turn || !turn.parentNode) return null;
    const parent = /** @type {Element | ShadowRoot} */ (turn.parentNode);
    const mine = sig(turn);
    const same = turnsOf(parent, turn.localName);
    if (!same.some((t) => sig(t) !== mine)) return null;
    return { parent, tag: turn.localName, sig: mine };
  }
  let lastSearch = 0;

  /** @param {Element | ShadowRoot} parent @param {string} tag */
  const turnsOf = (parent, tag) => /** @type {HTMLElement[]} */ ([...parent.children].filter((c) => c.localName === tag));

  /**
   * Finds the turn list from a user turn showing a submitted text: the deepest element holding
   * all of it, then up (across shadow roots) to the highest level whose parent repeats that
   * element's tag without holding the composer.
   * @param {HTMLElement | null} composer
   */
  function findStructure(composer) {
    if (!submitted.length) return null;
    for (const s of [...submitted].reverse()) {
      /** @type {Element | null} */
      let anchor = null;
      for (const root of allRoots()) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n && !anchor; n = walker.nextNode()) {
          if (!dom.norm(n.nodeValue || '').includes(s.head.slice(0, 30))) continue;
          const el = n.parentElement;
          if (!el || ours(el) || (composer && (containsDeep(composer, el) || containsDeep(el, composer)))) continue;
          anchor = el;
        }
        if (anchor) break;
      }
      if (!anchor) continue;
      /** @type {Element | null} */
      let user = anchor;
      while (user && !isSubmitted(deepText(user))) user = parentOf(user);
      if (!user) continue;
      /** @type {{parent: Element | ShadowRoot, tag: string} | null} */
      let best = null;
      for (let el = /** @type {Element | null} */ (user); el && el !== document.body; el = parentOf(el)) {
        const parent = el.parentNode;
        if (!parent || !(parent instanceof Element || parent instanceof ShadowRoot)) continue;
        const same = turnsOf(parent, el.localName);
        if (same.length >= 2 && !(composer && same.some((c) => containsDeep(c, composer)))) best = { parent, tag: el.localName };
        if (composer && containsDeep(el, composer)) break;
      }
      if (best) return best;
    }
    return null;
  }

  /**
   * Elements carrying an assistant marker in an attribute (role, author, sender… = assistant,
   * bot, model…), the outermost of each nest, grouped by the attribute that marks them.
   */
  function markedTurns() {
    /** @type {Map<string, HTMLElement[]>} */
    const groups = new Map();
    for (const root of allRoots()) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const el = /** @type {HTMLElement} */ (n);
        for (const a of el.attributes) {
          if (!ROLE_ATTR.test(a.name) || !ASSISTANT_VALUE.test(a.value.trim())) continue;
          const key = `${a.name}=${a.value}`;
          const g = groups.get(key) || [];
          if (!g.some((o) => containsDeep(o, el))) g.push(el);
          groups.set(key, g);
        }
      }
    }
    let best = /** @type {HTMLElement[]} */ ([]);
    for (const g of groups.values()) if (g.length > best.length) best = g;
    return best;
  }

  /** @type {{at: number, turns: HTMLElement[]} | null} */
  let markedCache = null;
  const MARKED_TTL_MS = 300;

  /** How the last turns were found: 'marker', 'structure', 'growth', 'attribute' or 'none'. */
  let how = 'none';

  /**
   * The assistant turns of the page, in document order, as the elements holding their text.
   * @returns {HTMLElement[]}
   */
  function assistantTurns() {
    const known = state.adapter.assistant.flatMap((s) => queryDeep(s));
    if (known.length) { how = 'marker'; return known.map(readable); }
    const composer = findComposer();
    if (structure && !(structure.parent instanceof ShadowRoot ? structure.parent.host.isConnected : structure.parent.isConnected)) structure = null;
    if (!structure && submitted.length && Date.now() - lastSearch > 250) {
      lastSearch = Date.now();
      structure = findStructure(composer) || findByGrowth(composer);
    }
    if (structure && structure.sig !== undefined) {
      const mine = structure.sig;
      how = 'growth';
      return turnsOf(structure.parent, structure.tag).filter((t) => sig(t) === mine && !ours(t)).map(readable);
    }
    if (structure) {
      const turns = turnsOf(structure.parent, structure.tag);
      const users = turns.filter((t) => isSubmitted(deepText(t)));
      // Turns that look like a known user turn (same attributes) are user turns too, when the
      // user's and the assistant's turns look different at all.
      const userSigs = new Set(users.map(sig));
      const others = turns.filter((t) => !users.includes(t));
      const distinct = others.some((t) => !userSigs.has(sig(t)));
      const replies = others.filter((t) => !(distinct && userSigs.has(sig(t))) && !ours(t));
      how = 'structure';
      return replies.map(readable);
    }
    // Walking every attribute of the page is the costly path: at most every MARKED_TTL_MS.
    if (!markedCache || Date.now() - markedCache.at > MARKED_TTL_MS || markedCache.turns.some((t) => !t.isConnected)) {
      markedCache = { at: Date.now(), turns: markedTurns() };
    }
    const marked = markedCache.turns;
    how = marked.length ? 'attribute' : 'none';
    return marked.map(readable);
  }

  /**
   * The user's turns of the structure found by shape (the send check's witness that a message
   * left): turns holding a submitted text, or, where the transcript folds the user's text (found
   * by growth), the turns that look unlike the assistant's. `showsText`: whether a user turn
   * shows what was sent. Empty when discovery has no structure (markers, attributes, nothing).
   * @returns {{turns: HTMLElement[], showsText: boolean}}
   */
  function userTurns() {
    if (!structure) return { turns: [], showsText: true };
    const turns = turnsOf(structure.parent, structure.tag).filter((t) => !ours(t));
    if (structure.sig !== undefined) {
      const mine = structure.sig;
      return { turns: turns.filter((t) => sig(t) !== mine), showsText: false };
    }
    return { turns: turns.filter((t) => isSubmitted(deepText(t))), showsText: true };
  }

  /** What discovery found, for the site check and the "unsure" notice. */
  function report() {
    const input = findComposer();
    const send = findSend(input);
    const turns = assistantTurns();
    return { input, send, turns, how, submitted: submitted.length };
  }

  NS.discover = { queryDeep, allRoots, parentOf, containsDeep, deepText, readable, findComposer, findSend, assistantTurns, userTurns, noteSubmitted, report, labelOf, turnOf };
})();
