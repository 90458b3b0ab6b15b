// @ts-check
// MCP Relay's content script, part 2 of 8: discovery, how the generic adapter finds a chat
// page's parts by shape when no site description names them.
//
// - The composer: the editable the user last typed in, else the best scored visible one
//   (what it says it is: editor words, role, label; then size and nearness to the bottom).
// - The send button: searched only inside the composer (the editor's own form or container,
//   widening one ancestor at a time), never inside a message or a code block, ranked by its
//   accessible name (Send in ten languages), its type and its shape (an icon button beside
//   the editor; an unlabelled one only once the composer holds text: a voice button sits
//   there on an empty one); never stop, voice, attach, copy or menu controls. Class words
//   only weigh, never veto.
// - The turns: explicit markers first, then the transcript by scored candidates (role and
//   author attributes, message words, reply and user controls, the submitted text, the
//   alternation of turns), one element per turn, a reply read from its rendered body; where
//   those tell nothing, the repeated siblings among which the user's submitted text appears,
//   or the turn whose text grows after a send, and the turns with its attributes (where all
//   turns look alike, the user's is the one the send made appear, a file card for a paste).
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
  // Where a button is never the send button (structure, not class words: those only weigh).
  const NOT_SEND_AREA = 'pre, code';
  const CODE_WORD = /code-?block|highlight/i;
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
    const roots = /** @type {(Document | ShadowRoot)[]} */ (walkRoots(document));
    rootsCache = { at: now, roots };
    return roots;
  }
  const ROOTS_TTL_MS = 100;

  /**
   * `from` and the open shadow roots in it (its own too), depth first, bounded.
   * @param {Document | Element} from
   * @returns {(Document | Element | ShadowRoot)[]}
   */
  function walkRoots(from) {
    /** @type {(Document | Element | ShadowRoot)[]} */
    const out = [from];
    const meet = (/** @type {Element} */ el) => {
      const sr = el.shadowRoot;
      if (!sr || sr.mode !== 'open') return;
      out.push(sr);
      if (!watchedRoots.has(sr)) {
        watchedRoots.add(sr);
        rootObserver.observe(sr, { childList: true, subtree: true });
      }
    };
    if (from instanceof Element) meet(from);
    for (let i = 0; i < out.length && out.length < 2000; i++) {
      const walker = document.createTreeWalker(out[i], NodeFilter.SHOW_ELEMENT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) meet(/** @type {Element} */ (n));
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
   * The page's open shadow root of an element (a web component renders its turn there), or null.
   * @param {Element} el
   * @returns {ShadowRoot | null}
   */
  const openRoot = (el) => (el.shadowRoot && el.shadowRoot.mode === 'open' ? el.shadowRoot : null);

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
   * The text of an element including its open shadow roots' text, without the blocks `skip`
   * selects (a reply's reasoning).
   * @param {Element} el
   * @param {readonly string[]} [skip]
   * @returns {string}
   */
  function deepText(el, skip = []) {
    const matches = (/** @type {Element} */ e) => skip.some((s) => { try { return e.matches(s); } catch { return false; } });
    if (!el.shadowRoot || el.shadowRoot.mode !== 'open') {
      let text = /** @type {HTMLElement} */ (el).innerText || el.textContent || '';
      // Blocks to leave out (reasoning), taken out of the text they are part of.
      for (const s of skip) {
        let inner;
        try { inner = el.querySelectorAll(s); } catch { continue; }
        for (const t of inner) {
          const tt = /** @type {HTMLElement} */ (t).innerText || '';
          if (tt) text = text.replace(tt, '');
        }
      }
      return text;
    }
    return [...el.shadowRoot.children].map((c) => (c.localName === 'style' || matches(c) ? '' : deepText(c, skip))).join('\n');
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
    // Signals first (what the element says it is), then size and nearness to the bottom.
    const score = (/** @type {HTMLElement} */ el) => {
      const r = el.getBoundingClientRect();
      const shape = Math.min(r.width * Math.max(r.height, 20), 400_000) * (0.5 + Math.min(r.bottom, vh) / vh);
      return composerSignals(el) * 1_000_000 + shape;
    };
    candidates.sort((a, b) => score(b) - score(a));
    if (candidates[0]) lastComposer = candidates[0];
    // A composer the page locks while a reply streams (read-only, contenteditable=false) is
    // still where the composer is: the transcript is never found in it.
    else if (lastComposer && lastComposer.isConnected && dom.visible(lastComposer)) return lastComposer;
    return candidates[0] || null;
  }
  /** @type {HTMLElement | null} */
  let lastComposer = null;

  const EDITOR_WORD = /prosemirror|tiptap|ql-editor|lexical|cm-content|editor|composer|chat-?input|prompt/i;
  const NOT_EDITOR_WORD = /fallback|ssr|clipboard|sr-only|visually-hidden|hidden|search|title|rename/i;
  const PROMPT_WORD = /prompt|message|ask|chat|reply|type|write|question|send|输入|消息|问|プロンプト|メッセージ|메시지|mensaje|message|nachricht|mensagem|сообщени|messaggio/i;

  /**
   * What an editable says about being the chat's composer (higher: more likely).
   * @param {HTMLElement} el
   */
  function composerSignals(el) {
    let s = 0;
    const words = wordsOf(el) + ' ' + (el.id || '') + ' ' + (el.getAttribute('name') || '');
    if (EDITOR_WORD.test(words)) s += 2;
    if (NOT_EDITOR_WORD.test(words)) s -= 3;
    if (el.getAttribute('role') === 'textbox' || el instanceof HTMLTextAreaElement || el.isContentEditable) s += 1;
    if (el instanceof HTMLInputElement) s -= 1;
    if (el.getAttribute('tabindex') === '-1') s -= 2;
    const says = [el.getAttribute('aria-label'), el.getAttribute('placeholder'), el.getAttribute('data-placeholder')].filter(Boolean).join(' ');
    if (PROMPT_WORD.test(says)) s += 2;
    if (el.closest(NOT_TRANSCRIPT + ', header, [role="search"]')) s -= 3;
    if (el.closest('form')) s += 1;
    if (composerText(el)) s += 1;
    return s;
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
    const named = SEND_LABEL.test(label);
    if (dom.notSend(label)) return 0;
    if (b.getAttribute('aria-haspopup') && b.getAttribute('aria-haspopup') !== 'false') return 0;
    const words = wordsOf(b);
    let score = 0;
    if (named) score += 5;
    else if (/\b(send|submit)\b/i.test(words.replace(/[-_]/g, ' '))) score += 3;
    if (CODE_WORD.test(words)) score -= 3;
    const submit = b.getAttribute('type') === 'submit' || (b instanceof HTMLButtonElement && b.form && !b.hasAttribute('type') && b.form.contains(input));
    if (submit) score += 3;
    const iconOnly = !!b.querySelector('svg, img, i, [class*="icon" i]') && label.replace(/[^\p{L}\p{N}]/gu, '').length <= 2;
    // An unlabelled icon button on an empty composer is not Send (a voice mode button sits
    // there until something is typed).
    if (iconOnly && (named || submit || composerText(input))) score += 2;
    // Beside or below the editor, to its right: where send buttons sit.
    const ri = input.getBoundingClientRect(), rb = b.getBoundingClientRect();
    if (rb.left >= ri.left + ri.width / 2 && rb.top < ri.bottom + 80 && rb.bottom > ri.top - 80) score += 1;
    return score;
  }

  /** @param {HTMLElement} input */
  const composerText = (input) => dom.norm(input instanceof HTMLTextAreaElement || input instanceof HTMLInputElement ? input.value : (input.innerText || input.textContent || ''));

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
    if (!remember(text)) return;
    structure = null; // a new anchor: look again
    watchGrowth();
  }
  /**
   * Keeps a text a user turn shows among the submitted ones; false when it was known already
   * or has no line long enough to be known by.
   * @param {string} text
   */
  function remember(text) {
    const lines = text.split('\n').map((l) => dom.norm(l)).filter((l) => l.length >= 4);
    if (!lines.length) return false;
    const head = lines[0].slice(0, 60);
    const tail = lines[lines.length - 1].slice(-40);
    if (submitted.some((s) => s.head === head && s.tail === tail)) return false;
    submitted.push({ head, tail });
    if (submitted.length > 20) submitted.shift();
    return true;
  }

  // After a send, the reply is the turn whose text grows: count, for a while, where the page's
  // text changes (bounded: GROWTH_MS after the send, our UI and the composer excluded), and
  // which elements appeared since (the user's turn for the send among them).
  const GROWTH_MS = 30_000;
  const GROWTH_WATCH = { childList: true, subtree: true, characterData: true };
  /** @type {Map<Element, number>} */
  let growth = new Map();
  /** @type {WeakSet<Node>} */
  let appeared = new WeakSet();
  let growthUntil = 0;
  const growthObserver = new MutationObserver((records) => {
    if (Date.now() > growthUntil) { growthObserver.disconnect(); return; }
    for (const r of records) {
      if (r.type !== 'characterData' && !r.addedNodes.length) continue;
      for (const n of r.addedNodes) {
        appeared.add(n);
        // A turn that renders into its own shadow root grows there, out of the document's sight.
        if (n instanceof Element) for (const root of walkRoots(n)) if (root instanceof ShadowRoot) growthObserver.observe(root, GROWTH_WATCH);
      }
      if (r.removedNodes.length) carryGrowth(r);
      const el = r.target.nodeType === Node.ELEMENT_NODE ? /** @type {Element} */ (r.target) : r.target.parentElement;
      if (el && !ours(el)) growth.set(el, (growth.get(el) || 0) + 1);
    }
  });
  /**
   * A page that renders a reply once more when it ends (a fresh element in place of the one
   * that streamed) took the growth away with the old element: the element that took its place
   * carries it on, so the reply is still found after a stream too quick to be looked at.
   * @param {MutationRecord} r
   */
  function carryGrowth(r) {
    const into = /** @type {Element | undefined} */ ([...r.addedNodes].find((n) => n instanceof Element));
    const gone = /** @type {Element[]} */ ([...r.removedNodes].filter((n) => n instanceof Element));
    if (!into || !gone.length) return;
    let carried = growth.get(into) || 0;
    for (const [el, n] of growth) if (!el.isConnected && gone.some((g) => containsDeep(g, el))) { carried += n; growth.delete(el); }
    if (carried) growth.set(into, carried);
  }
  function watchGrowth() {
    growth = new Map();
    appeared = new WeakSet();
    growthUntil = Date.now() + GROWTH_MS;
    growthObserver.disconnect();
    for (const r of allRoots()) growthObserver.observe(r instanceof Document ? (r.body || r.documentElement) : r, GROWTH_WATCH);
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
    // Text we wrote that the page took as an attachment chip goes with this send, though the
    // editor never showed it.
    if (inChip) { noteSubmitted(inChip.text); inChip = null; }
  }
  /** @type {{text: string} | null} */
  let inChip = null;
  /**
   * Text write.js put into the composer as an attachment chip: the next send carries it.
   * @param {string} text
   */
  function expectChip(text) {
    inChip = { text };
  }
  /** Whether text we wrote as an attachment chip waits in the composer. */
  const chipPending = () => !!inChip;
  document.addEventListener('keydown', (ev) => {
    if (ev.key === 'Enter' && !ev.shiftKey && !ev.isComposing && editableTarget(ev)) snapshotComposer();
  }, true);
  document.addEventListener('click', (ev) => {
    const t = ev.composedPath()[0];
    if (!(t instanceof Element) || ours(t)) return;
    if (t.closest(BUTTONS)) { snapshotComposer(); return; }
    // A send control that is no button at all (a styled div with a click handler).
    if (nearComposer(t)) snapshotComposer();
  }, true);

  /**
   * Whether a control beside the composer (within a few of its ancestors, across open shadow
   * roots) shows a label `stop` matches: a reply is being written.
   * @param {RegExp} stop
   */
  function stopShown(stop) {
    const input = findComposer();
    if (!input) return false;
    let box = parentOf(input);
    for (let i = 0; i < 3 && box && parentOf(box) && parentOf(box) !== document.body; i++) box = parentOf(box);
    if (!box) return false;
    /** @type {(Element | ShadowRoot)[]} */
    const scopes = [box];
    for (const r of allRoots()) if (r instanceof ShadowRoot && containsDeep(box, r.host)) scopes.push(r);
    for (const sc of scopes) {
      for (const b of sc.querySelectorAll(BUTTONS)) {
        const label = labelOf(b);
        if (label && stop.test(label) && !dom.SEND_LABEL.test(label) && dom.visible(/** @type {HTMLElement} */ (b)) && !ours(b)) return true;
      }
    }
    return false;
  }

  /**
   * Whether an element sits beside the composer (within a few of its ancestors, not in it):
   * where a send control is, whatever it is made of.
   * @param {Element} t
   */
  function nearComposer(t) {
    const input = findComposer();
    if (!input || containsDeep(input, t)) return false;
    let box = parentOf(input);
    for (let i = 0; i < 3 && box && box !== document.body; i++) box = parentOf(box);
    return !!box && box !== document.body && containsDeep(box, t);
  }
  // A form's submit (a hidden submit button, requestSubmit) sends what the composer holds.
  document.addEventListener('submit', () => snapshotComposer(), true);

  /**
   * The turn list found by structure: the container, the tag of its turns and, when found by
   * growth, the attributes that tell the assistant's turns from the user's.
   * @type {{parent: Element | ShadowRoot, tag: string, sig?: string} | null}
   */
  let structure = null;

  /** A turn's attributes that are the same for every turn of its kind (no ids, no numbers). */
  // Class names are taken one by one: hashed ones (CSS modules, `Msg_user__k3J9a`) are the same
  // for every turn of a kind, and often the only thing that tells the kinds apart; a name with
  // a long run of digits is an instance's (a message number), not its kind's.
  const sig = (/** @type {Element} */ e) => [...e.attributes]
    .flatMap((a) => (a.name === 'class'
      ? a.value.split(/\s+/).filter((c) => c && !/\d{5,}|^\d+$/.test(c)).map((c) => `class=${c}`)
      : /^(id|style)$/.test(a.name) || /\d{2,}|^\d+$/.test(a.value) ? [] : [`${a.name}=${a.value}`]))
    .sort().join('&');

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
      // A paragraph, list or code block of a rendered body is part of a turn, never one.
      if (TEXT_BLOCK.test(cur.localName)) continue;
      const same = [...parent.children].filter((c) => c.localName === cur.localName && (c === cur || dom.visible(/** @type {HTMLElement} */ (c))));
      if (same.length >= 2 && !(composer && same.some((c) => containsDeep(c, composer)))) best = cur;
    }
    return best;
  }

  // A few changes are not a stream.
  const FEW_CHANGES = 2;

  /**
   * The turn list found by growth: the turn holding the element whose text changed most since
   * the send, when its attributes tell it from the other turns. Where all turns look alike,
   * the user's turn is the one that appeared before it at the send and never grew (a page
   * that shows a long paste as a file card, or folds the message): what that turn shows is
   * kept as what the send shows, and the list is read as one found from a user turn. Else it
   * could be the user's: unsure, and the page says so.
   * @param {HTMLElement | null} composer
   * @returns {{parent: Element | ShadowRoot, tag: string, sig?: string} | null}
   */
  function findByGrowth(composer) {
    let top = null, most = FEW_CHANGES;
    for (const [el, n] of growth) {
      if (!el.isConnected || (composer && (containsDeep(el, composer) || containsDeep(composer, el)))) continue;
      if (n > most) { most = n; top = el; }
    }
    const turn = top && turnOf(top, composer);
    if (!turn || !turn.parentNode) return null;
    const parent = /** @type {Element | ShadowRoot} */ (turn.parentNode);
    const mine = sig(turn);
    const same = turnsOf(parent, turn.localName);
    if (same.some((t) => sig(t) !== mine)) return { parent, tag: turn.localName, sig: mine };
    const user = sentTurn(same, turn);
    if (!user) return null;
    remember(deepText(user));
    return isSubmitted(deepText(user)) || !hasContent(user) ? { parent, tag: turn.localName } : null;
  }

  /**
   * The turn the page showed for the send: the nearest before the reply's among those that
   * appeared since the send, which did not grow.
   * @param {HTMLElement[]} same the turns of the reply's list
   * @param {Element} reply
   */
  function sentTurn(same, reply) {
    for (let i = same.indexOf(/** @type {HTMLElement} */ (reply)) - 1; i >= 0 && appeared.has(same[i]); i--) {
      let changes = 0;
      for (const [el, n] of growth) if (containsDeep(same[i], el)) changes += n;
      if (changes <= FEW_CHANGES) return same[i];
    }
    return null;
  }
  let lastSearch = 0;

  /** @param {Element | ShadowRoot} parent @param {string} tag */
  const turnsOf = (parent, tag) => /** @type {HTMLElement[]} */ ([...parent.children].filter((c) => c.localName === tag));

  /**
   * The turn list around an element showing the start of a submitted text: from the user's
   * turn (the nearest element holding all of it), the highest level whose parent repeats that
   * element's tag without holding the composer; never above the first level found whose parent
   * holds the composer too (the page's header and the transcript beside it are no turns).
   * @param {Element} anchor
   * @param {HTMLElement | null} composer
   * @returns {{parent: Element | ShadowRoot, tag: string} | null}
   */
  function structureAt(anchor, composer) {
    /** @type {Element | null} */
    let user = anchor;
    while (user && !isSubmitted(deepText(user))) user = parentOf(user);
    if (!user) return null;
    /** @type {{parent: Element | ShadowRoot, tag: string} | null} */
    let best = null;
    for (let el = /** @type {Element | null} */ (user); el && el !== document.body; el = parentOf(el)) {
      const parent = el.parentNode;
      if (!parent || !(parent instanceof Element || parent instanceof ShadowRoot)) continue;
      const host = parent instanceof ShadowRoot ? parent.host : parent;
      const holdsComposer = !!composer && containsDeep(host, composer);
      if (best && holdsComposer) break;
      // Siblings the page shows: a hidden placeholder ("How can I help?" of an empty chat)
      // beside the transcript is no second turn.
      const same = turnsOf(parent, el.localName).filter((c) => c === el || dom.visible(/** @type {HTMLElement} */ (c)));
      if (same.length >= 2 && !(composer && same.some((c) => containsDeep(c, composer)))) best = { parent, tag: el.localName };
      if (composer && containsDeep(el, composer)) break;
    }
    return best;
  }

  /**
   * Finds the turn list from a user turn showing a submitted text: the deepest element holding
   * all of it, then up (across shadow roots) to the highest level whose parent repeats that
   * element's tag without holding the composer.
   * @param {HTMLElement | null} composer
   */
  function findStructure(composer) {
    if (!submitted.length) return null;
    for (const s of [...submitted].reverse()) {
      // Where the text shows: the first words can also be a conversation's title in a sidebar
      // or a tab: each place is tried (bounded), the transcript's wins.
      let tried = 0;
      for (const root of allRoots()) {
        const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
        for (let n = walker.nextNode(); n && tried < 12; n = walker.nextNode()) {
          if (!dom.norm(n.nodeValue || '').includes(s.head.slice(0, 30))) continue;
          const el = n.parentElement;
          if (!el || excluded(el) || (composer && (containsDeep(composer, el) || containsDeep(el, composer)))) continue;
          tried += 1;
          const found = structureAt(el, composer);
          if (found) return found;
        }
      }
    }
    return null;
  }

  /**
   * Whether an element shows anything a turn could be: text (not only whitespace) or media.
   * Structural containers (a support widget's mount point, layout wrappers, a virtualized
   * list's placeholders) are empty and are never turns, whatever marks them.
   * @param {Element} el
   */
  function hasContent(el) {
    return !!dom.norm(deepText(el)) || !!el.querySelector('img, video, canvas, picture');
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
          if (!ROLE_ATTR.test(a.name) || !ASSISTANT_VALUE.test(a.value.trim()) || !hasContent(el)) continue;
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

  /** How the last turns were found: 'marker', 'scored', 'structure', 'growth', 'attribute' or 'none'. */
  let how = 'none';

  /**
   * The assistant turns of the page, in document order, as the elements holding their text. A
   * turn that renders into its own shadow root is its host: the page may rebuild what is in
   * the root on every token, and the reader reads the host through it (`deepText`).
   * @returns {HTMLElement[]}
   */
  function assistantTurns() {
    // Every selector of the list, in page order, once; an empty container is no reply.
    const known = dom.all(state.adapter.assistant, true).filter(hasContent);
    if (known.length) { how = 'marker'; return known; }
    const scored = transcript().filter((t) => t.role === 'assistant');
    if (scored.length) { how = 'scored'; return scored.map((t) => bodyOf(t.el)); }
    const composer = findComposer();
    if (structure && !(structure.parent instanceof ShadowRoot ? structure.parent.host.isConnected : structure.parent.isConnected)) structure = null;
    if (!structure && submitted.length && Date.now() - lastSearch > 250) {
      lastSearch = Date.now();
      structure = findStructure(composer) || findByGrowth(composer);
    }
    if (structure && structure.sig !== undefined) {
      const mine = structure.sig;
      how = 'growth';
      return turnsOf(structure.parent, structure.tag).filter((t) => sig(t) === mine && !ours(t) && hasContent(t));
    }
    if (structure) {
      const turns = turnsOf(structure.parent, structure.tag);
      const users = turns.filter((t) => isSubmitted(deepText(t)));
      // Turns that look like a known user turn (same attributes) are user turns too, when the
      // user's and the assistant's turns look different at all.
      const userSigs = new Set(users.map(sig));
      const others = turns.filter((t) => !users.includes(t));
      const distinct = others.some((t) => !userSigs.has(sig(t)));
      const replies = others.filter((t) => !(distinct && userSigs.has(sig(t))) && !ours(t) && hasContent(t));
      how = 'structure';
      return replies;
    }
    // Walking every attribute of the page is the costly path: at most every MARKED_TTL_MS.
    if (!markedCache || Date.now() - markedCache.at > MARKED_TTL_MS || markedCache.turns.some((t) => !t.isConnected)) {
      markedCache = { at: Date.now(), turns: markedTurns() };
    }
    const marked = markedCache.turns;
    how = marked.length ? 'attribute' : 'none';
    return marked;
  }

  /**
   * The user's turns of the structure found by shape (the send check's witness that a message
   * left): turns holding a submitted text, or, where the transcript folds the user's text (found
   * by growth), the turns that look unlike the assistant's. `showsText`: whether a user turn
   * shows what was sent. Empty when discovery has no structure (markers, attributes, nothing).
   * @returns {{turns: HTMLElement[], showsText: boolean}}
   */
  function userTurns() {
    const scored = transcript();
    if (scored.some((t) => t.role === 'assistant') || !structure) {
      const users = /** @type {HTMLElement[]} */ (scored.filter((t) => t.role === 'user').map((t) => t.el));
      return { turns: users, showsText: !users.length || users.some((u) => isSubmitted(deepText(u))) || !submitted.length };
    }
    const turns = turnsOf(structure.parent, structure.tag).filter((t) => !ours(t));
    if (structure.sig !== undefined) {
      const mine = structure.sig;
      return { turns: turns.filter((t) => sig(t) !== mine), showsText: false };
    }
    return { turns: turns.filter((t) => isSubmitted(deepText(t))), showsText: true };
  }

  // ---- the transcript by scored candidates ---------------------------------------------------
  //
  // Pages as they really are carry no single reliable marker, so several independent signals
  // are weighed: role and author attributes, tag, class and test-id words of chat UIs
  // (message, response, query, markdown…), the controls a turn carries (feedback and
  // regenerate on replies, edit on the user's), the text the user sent, alignment hints, and
  // the alternation of the user's and the assistant's turns. Candidates are chosen at the turn
  // level: the highest element holding one message and nothing of another (one element per
  // turn, never a container of all of them); a reply is read from its rendered body (markdown)
  // inside the turn. Navigation, side panels, dialogs, hidden and inert regions and the
  // composer are never turns. No class word decides alone: each only adds to a score.

  // Words of the tag, classes and test ids of message elements in chat UIs.
  const MSG_WORD = /(^|[-_:/. ])(messages?|msg|responses?|reply|replies|answers?|query|queries|prompts?|turns?|bubble|markdown|prose|cmark|utterance|chat-?item|chat-?entry)($|[-_:/. \d])/i;
  // Words of a reply's rendered body (what is read of a reply turn).
  const BODY_WORD = /markdown|prose|cmark|message-?content|response-?content|md-content|rendered|message-?text|msg-?content|answer-?content|reply-?content/i;
  const MARKDOWN_WORD = /markdown|prose|cmark/i;
  // What a rendered body is made of: paragraphs, lists, code blocks, quotes, tables, headings.
  const TEXT_BLOCK = /^(p|ul|ol|li|pre|blockquote|table|h[1-6]|dl|dt|dd|figure|hr)$/;
  // Where turns never are.
  const NOT_TRANSCRIPT = 'nav, aside, dialog, template, [role="navigation"], [role="complementary"], [role="dialog"], [role="menu"], [role="tooltip"], [role="banner"], [inert], .cdk-visually-hidden, .sr-only, .visually-hidden';
  const USER_VALUE = /^(user|human|me|self|you|customer|person|question|query|prompt|request)$/i;
  const ASSISTANT_WORD = /(^|[-_ ])(assistant|bot|ai|model|agent|llm|response|answer|reply)($|[-_ ])/i;
  const USER_WORD = /(^|[-_ ])(user|human|query|question|prompt|request|you-said|self|mine|outgoing)($|[-_ ])/i;
  // Controls only replies carry (rate, regenerate, read aloud), and those only the user's do.
  const REPLY_CONTROL = /\b(good|bad|positive|negative) (response|feedback)|\b(dis)?like\b|thumbs?[-_ ]?(up|down)|feedback|\b(not )?helpful\b|regenerate|rewrite\b|read aloud|redo\b|copy response|重新生成|赞|踩|良い回答|悪い回答|再生成|高く評価|低く評価|좋아요|싫어요|다시 생성|buena respuesta|mala respuesta|regenerar|bonne réponse|mauvaise réponse|régénérer|gute antwort|schlechte antwort|neu generieren|хороший ответ|плохой ответ|повторить|risposta buona|risposta negativa|rigenera/i;
  const USER_CONTROL = /\bedit( prompt| message)?\b|copy prompt|编辑|編集|편집|\beditar\b|\bmodifier\b|\bbearbeiten\b|изменить|\bmodifica\b/i;
  const USER_ALIGN = /(^|\s)(items-end|justify-end|self-end|ml-auto|ms-auto|text-right|flex-row-reverse|right)(\s|$)/;
  // Layout utilities ("self-start": align yourself to the start) say where, not whose.
  const LAYOUT_WORD = /^(self|items|justify|place|content)-/;
  const TRANSCRIPT_TTL_MS = 300;

  /** The words of an element that chat UIs name messages with: tag, classes, test ids. */
  // Utility-class variants (`hover:…`, `[.last-response_&]:…`) style an element by where it is:
  // they say nothing of what it is, and are left out.
  const wordsOf = (/** @type {Element} */ el) => [el.localName, (el.getAttribute('class') || '').split(/\s+/).filter((c) => !/[:[&]/.test(c)).join(' '),
    el.getAttribute('data-testid') || '', el.getAttribute('data-test-id') || ''].join(' ');

  /**
   * The role an element's attributes name: 'assistant', 'user' or null.
   * @param {Element} el
   */
  function roleAttr(el) {
    for (const a of el.attributes) {
      if (!ROLE_ATTR.test(a.name) || a.name === 'role') continue;
      const v = a.value.trim();
      if (ASSISTANT_VALUE.test(v)) return 'assistant';
      if (USER_VALUE.test(v)) return 'user';
    }
    return null;
  }

  /** @param {Element} el */
  const excluded = (el) => !!el.closest(NOT_TRANSCRIPT) || ours(el);

  /**
   * The page's message elements: an element naming a role, an article, or one whose words
   * are those of messages, holding some text, outside navigation, dialogs and the composer.
   * @param {HTMLElement | null} composer
   * @returns {Element[]}
   */
  function markers(composer) {
    const box = composer && (composer.closest('form, fieldset') || parentOf(composer));
    /** @type {Element[]} */
    const out = [];
    for (const root of allRoots()) {
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_ELEMENT);
      let n = 0;
      for (let node = walker.nextNode(); node && n < 50_000; node = walker.nextNode(), n++) {
        const el = /** @type {Element} */ (node);
        const role = roleAttr(el);
        if (!(role || el.localName === 'article' || MSG_WORD.test(wordsOf(el)))) continue;
        // A paragraph whose class names the message it belongs to ("…-response-body") is a
        // part of that message's body, not a message of its own.
        if (!role && bodyPart(el)) continue;
        if (excluded(el) || (box && (containsDeep(box, el) || containsDeep(el, box)))) continue;
        if (!dom.norm(el.textContent || '')) continue;
        out.push(el);
      }
    }
    return out;
  }

  /**
   * Whether an element is a part of a rendered body: a text block inside another, or one
   * among the blocks of a body (its container is named as a body, or holds text blocks of
   * another kind beside it: paragraphs with a list or a code block). A heading alone in its
   * container (a query shown as a title) is not.
   * @param {Element} el
   */
  function bodyPart(el) {
    if (!TEXT_BLOCK.test(el.localName)) return false;
    const parent = el.parentElement;
    if (!parent) return false;
    if (TEXT_BLOCK.test(parent.localName) || parent.closest('li, blockquote, td, th')) return true;
    const blocks = [...parent.children].filter((c) => c !== el && TEXT_BLOCK.test(c.localName));
    return blocks.length > 0 && (BODY_WORD.test(wordsOf(parent)) || MARKDOWN_WORD.test(wordsOf(parent)) || blocks.some((c) => c.localName !== el.localName));
  }

  // Below this much text of its own (outside controls and links), an element that only
  // words mark is a status line or a disclaimer, not a message.
  const MIN_OWN_TEXT = 12;

  /**
   * Whether a message element holds a message: a role attribute or a rendered body says so,
   * or it has text of its own beyond its controls and links (not "2s · Fast", not a terms link).
   * @param {Element} el
   */
  function messageLike(el) {
    if (roleAttr(el) || BODY_WORD.test(wordsOf(el)) || el.querySelector('[class*="markdown" i], [class*="prose" i]')) return true;
    // A heading that message words mark is a query shown as a title: short ("P") and still one.
    if (/^h[1-6]$/.test(el.localName)) return true;
    let own = 0;
    const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
    for (let n = walker.nextNode(); n && own < MIN_OWN_TEXT; n = walker.nextNode()) {
      const p = n.parentElement;
      if (p && p.closest('a, style, script, ' + BUTTONS)) continue;
      own += dom.norm(n.nodeValue || '').length;
    }
    return own >= MIN_OWN_TEXT || !!el.shadowRoot;
  }

  /**
   * The turns of the page: each message element's family (it and the message elements nested
   * in it), raised to the highest ancestor that holds no other family and not the composer.
   * @param {HTMLElement | null} composer
   * @returns {Element[]}
   */
  function turnElements(composer) {
    const ms = markers(composer);
    // A message element holding two unrelated ones is a list of messages, not one.
    const leaves = ms.filter((m) => {
      const inner = ms.filter((x) => x !== m && containsDeep(m, x));
      for (let i = 0; i + 1 < inner.length; i++) if (!containsDeep(inner[i], inner[i + 1])) return false;
      return true;
    });
    const families = leaves.filter((m) => !leaves.some((o) => o !== m && containsDeep(o, m)) && messageLike(m));
    /** @type {Set<Element>} */
    const stops = new Set([document.body, document.documentElement]);
    const turns = families.map((f) => {
      let turn = f;
      for (let p = parentOf(turn); p && !stops.has(p); p = parentOf(p)) {
        if (p.localName === 'main' || p.getAttribute('role') === 'main' || p.getAttribute('role') === 'log') break;
        if (composer && containsDeep(p, composer)) break;
        if (families.some((o) => o !== f && containsDeep(p, o))) break;
        turn = p;
      }
      return turn;
    }).filter((t, i, all) => all.indexOf(t) === i);
    // The transcript is above the composer: where turns precede it, what follows it (a
    // disclaimer, suggestions) is not a turn.
    const before = (/** @type {Element} */ t) => !!composer && !!(t.compareDocumentPosition(composer) & Node.DOCUMENT_POSITION_FOLLOWING);
    return composer && turns.some(before) ? turns.filter(before) : turns;
  }

  /**
   * How much a turn looks like the assistant's (> 0) or the user's (< 0), from signals that
   * tell turns apart: words common to every turn say nothing and are left out.
   * @param {Element} turn
   * @param {Set<string>} common words every turn of the page has
   */
  function roleScore(turn, common) {
    let a = 0, u = 0;
    /** @type {Element[]} */
    const els = [turn, ...turn.querySelectorAll('*')];
    let attr = null;
    const words = new Set();
    let reply = false, user = false;
    for (const el of els) {
      attr = attr || roleAttr(el);
      for (const w of wordsOf(el).split(/\s+/)) if (w) words.add(w.toLowerCase());
      if (el.matches(BUTTONS)) {
        const label = labelOf(el);
        if (REPLY_CONTROL.test(label)) reply = true;
        else if (USER_CONTROL.test(label)) user = true;
      }
    }
    if (attr === 'assistant') a += 6;
    if (attr === 'user') u += 6;
    const distinct = [...words].filter((w) => !common.has(w));
    if (distinct.some((w) => ASSISTANT_WORD.test(w))) a += 2;
    if (distinct.some((w) => USER_WORD.test(w) && !LAYOUT_WORD.test(w))) u += 2;
    if (reply) a += 3;
    if (user) u += 2;
    if (distinct.some((w) => USER_ALIGN.test(w))) u += 1;
    if (distinct.some((w) => BODY_WORD.test(w))) a += 1;
    if (isSubmitted(deepText(turn))) u += 6;
    return a - u;
  }

  /** @param {Element} turn */
  function turnWords(turn) {
    const words = new Set();
    for (const el of [turn, ...turn.querySelectorAll('*')]) for (const w of wordsOf(el).split(/\s+/)) if (w) words.add(w.toLowerCase());
    return words;
  }

  /**
   * The element a reply's text is read from: its rendered body (the longest element with a
   * body's words), else the turn (or what its open shadow root holds).
   * @param {Element} turn
   * @returns {HTMLElement}
   */
  function bodyOf(turn) {
    /** @type {HTMLElement | null} */
    let best = null, bestRank = 0;
    for (const el of turn.querySelectorAll('*')) {
      const words = wordsOf(el);
      if (!BODY_WORD.test(words)) continue;
      // Rendered markdown first (a wrapper named "…content" may hold the author's heading).
      const len = dom.norm(/** @type {HTMLElement} */ (el).innerText || el.textContent || '').length;
      const rank = (MARKDOWN_WORD.test(words) ? 1e9 : 0) + len;
      if (len && rank > bestRank) { best = /** @type {HTMLElement} */ (el); bestRank = rank; }
    }
    return best || /** @type {HTMLElement} */ (turn);
  }

  /** @type {{at: number, turns: {el: Element, role: 'assistant' | 'user'}[]} | null} */
  let transcriptCache = null;

  /**
   * The transcript's turns in page order, each with its role; turns no signal tells apart take
   * the role their neighbours' alternation gives them, or none.
   * @returns {{el: Element, role: 'assistant' | 'user'}[]}
   */
  function transcript() {
    const now = Date.now();
    if (transcriptCache && now - transcriptCache.at < TRANSCRIPT_TTL_MS && transcriptCache.turns.every((t) => t.el.isConnected)) return transcriptCache.turns;
    const turns = turnElements(findComposer());
    const wordSets = turns.map(turnWords);
    const common = new Set(turns.length > 1 ? [...wordSets[0]].filter((w) => wordSets.every((s) => s.has(w))) : []);
    const scores = turns.map((t) => roleScore(t, common));
    /** @type {('assistant' | 'user' | null)[]} */
    const roles = scores.map((s) => (s > 0 ? 'assistant' : s < 0 ? 'user' : null));
    // Turns alternate: an unknown turn after the user's is the reply; one between two of the
    // assistant's (or before the first of them) is the user's. Anything else stays unknown
    // and is left out (a banner or a disclaimer after the last reply).
    for (let i = 0; i < roles.length; i++) {
      if (roles[i]) continue;
      const prev = roles[i - 1], next = roles[i + 1];
      if (prev === 'user') roles[i] = 'assistant';
      else if (next === 'assistant') roles[i] = 'user';
    }
    /** @type {{el: Element, role: 'assistant' | 'user'}[]} */
    const out = [];
    turns.forEach((el, i) => { const role = roles[i]; if (role) out.push({ el, role }); });
    // A page with turns of one kind only is not a transcript we understand, unless an
    // attribute names the role (a new chat's first reply has no user turn beside it).
    const kinds = new Set(out.map((t) => t.role));
    const strong = turns.length > 0 && scores.every((s) => Math.abs(s) >= 3);
    const result = kinds.size === 2 || strong ? out : [];
    transcriptCache = { at: now, turns: result };
    return result;
  }

  /** What discovery found, for the site check and the "unsure" notice. */
  function report() {
    const input = findComposer();
    const send = findSend(input);
    const turns = assistantTurns();
    return { input, send, turns, how, submitted: submitted.length };
  }

  NS.discover = { expectChip, chipPending, nearComposer, stopShown, composerText, queryDeep, allRoots, parentOf, openRoot, containsDeep, deepText, readable, findComposer, findSend, assistantTurns, userTurns, noteSubmitted, isSubmitted, report, labelOf, turnOf };
})();
