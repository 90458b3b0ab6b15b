// @ts-check
// MCP Relay's content script: "Teach this page". When discovery is unsure (a reply came and no
// assistant turn was found), a notice says so and offers to teach the page: the user clicks the
// chat's input, its send button and one assistant reply, and the selectors made from those
// three elements are saved (validated by the core) as this origin's adapter.
//
// The page is not trusted: the notice and the picker live in a closed shadow root whose
// reference stays in this closure, and both act on trusted clicks only; the picked elements
// are read, never changed; everything shown is set with textContent.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.teach) return;
  const NS = found;
  const { state, t, call, Sites } = NS;

  const { EDITABLE } = NS.dom;
  const BUTTON = 'button, [role="button"], input[type="submit"], input[type="button"]';

  const host = document.createElement('mcp-relay-teach');
  const shadow = host.attachShadow({ mode: 'closed' });
  const style = document.createElement('style');
  style.textContent = `
    :host { all: initial; font: 13px/1.4 system-ui, sans-serif; }
    .notice { position: fixed; left: 12px; bottom: 96px; z-index: 2147483646; max-width: 320px; background: Canvas; color: CanvasText;
      border: 1px solid #c80; border-radius: 8px; padding: 8px 10px; box-shadow: 0 2px 8px #0003; }
    .overlay { position: fixed; inset: 0; z-index: 2147483647; cursor: crosshair; background: #0000; }
    .bar { position: fixed; left: 50%; top: 12px; transform: translateX(-50%); z-index: 2147483647; background: #222; color: #fff;
      border-radius: 8px; padding: 8px 12px; display: flex; gap: 10px; align-items: center; pointer-events: none; }
    .bar button { pointer-events: auto; }
    .box { position: fixed; z-index: 2147483647; pointer-events: none; outline: 2px solid #36f; background: #36f2; }
    button { font: inherit; }
    [hidden] { display: none !important; }`;
  const notice = document.createElement('div');
  notice.className = 'notice';
  notice.setAttribute('role', 'alert');
  notice.hidden = true;
  const noticeText = document.createElement('p');
  noticeText.textContent = t('teachNotice', 'MCP Relay did not find the assistant\'s replies on this page, so tool calls in them are not seen.');
  const overlay = document.createElement('div');
  overlay.className = 'overlay';
  overlay.hidden = true;
  const box = document.createElement('div');
  box.className = 'box';
  box.hidden = true;
  const bar = document.createElement('div');
  bar.className = 'bar';
  bar.hidden = true;
  const barText = document.createElement('span');
  shadow.append(style, notice, overlay, box, bar);
  document.documentElement.appendChild(host);

  /**
   * A button acting on trusted clicks only.
   * @param {string} label @param {string} action @param {() => void} fn
   */
  function button(label, action, fn) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.dataset.action = action;
    b.addEventListener('click', (ev) => { if (ev.isTrusted) fn(); });
    return b;
  }
  notice.append(noticeText, button(t('teachStart', 'Teach this page'), 'teach', () => start()), button(t('teachDismiss', 'Dismiss'), 'dismiss', () => { notice.hidden = true; }));
  bar.append(barText, button(t('teachCancel', 'Cancel'), 'cancel', () => stop()));

  /** @param {boolean} show */
  function showNotice(show) {
    notice.hidden = !show;
    host.dataset.notice = show ? 'no-turns' : '';
  }

  // ---- picking ---------------------------------------------------------------------------------

  const STEPS = /** @type {const} */ (['input', 'send', 'assistant']);
  /** @type {Record<string, string>} */
  const PROMPTS = {
    input: t('teachPickInput', 'Step 1 of 3: click the chat\'s input box.'),
    send: t('teachPickSend', 'Step 2 of 3: click the send button.'),
    assistant: t('teachPickAssistant', 'Step 3 of 3: click one reply of the assistant.'),
  };
  let step = -1;
  /** @type {Record<string, HTMLElement>} */
  let picked = {};

  /**
   * The page's element under a point, below our overlay, inside open shadow roots.
   * @param {number} x @param {number} y
   * @returns {HTMLElement | null}
   */
  function elementAt(x, y) {
    let el = document.elementsFromPoint(x, y).find((e) => e !== host && e !== NS.cards.host) || null;
    for (let i = 0; el && i < 10; i++) {
      const root = NS.discover ? NS.discover.allRoots().find((r) => r instanceof ShadowRoot && r.host === el) : null;
      if (!root) break;
      const inner = /** @type {ShadowRoot} */ (root).elementsFromPoint(x, y).find((e) => e !== el && root.contains(e));
      if (!inner) break;
      el = inner;
    }
    return /** @type {HTMLElement | null} */ (el);
  }

  /**
   * What a click at a point means in the current step: the editable, the button, the turn.
   * @param {HTMLElement} el
   * @returns {HTMLElement | null}
   */
  function meaning(el) {
    const d = NS.discover;
    if (!d) return el;
    if (STEPS[step] === 'input') return /** @type {HTMLElement | null} */ (el.closest(EDITABLE) || el.querySelector(EDITABLE));
    if (STEPS[step] === 'send') return /** @type {HTMLElement} */ (el.closest(BUTTON) || el);
    return turnOf(el);
  }

  /**
   * The turn a clicked element belongs to: the highest ancestor (across shadow roots) whose
   * parent repeats its tag without holding the composer.
   * @param {HTMLElement} el
   */
  function turnOf(el) {
    const d = /** @type {NonNullable<typeof NS.discover>} */ (NS.discover);
    return /** @type {HTMLElement} */ (d.turnOf(el, picked.input || null) || el);
  }

  /** @param {MouseEvent} ev */
  function onMove(ev) {
    const el = elementAt(ev.clientX, ev.clientY);
    const target = el && meaning(el);
    if (!target) { box.hidden = true; return; }
    const r = target.getBoundingClientRect();
    Object.assign(box.style, { left: r.left + 'px', top: r.top + 'px', width: r.width + 'px', height: r.height + 'px' });
    box.hidden = false;
  }

  /** @param {MouseEvent} ev */
  function onClick(ev) {
    ev.preventDefault();
    ev.stopPropagation();
    if (!ev.isTrusted || step < 0) return;
    const el = elementAt(ev.clientX, ev.clientY);
    const target = el && meaning(el);
    if (!target) return;
    picked[STEPS[step]] = target;
    step += 1;
    if (step < STEPS.length) {
      barText.textContent = PROMPTS[STEPS[step]];
      host.dataset.step = STEPS[step];
      return;
    }
    finish().catch((e) => {
      stop();
      // The core's refusal says why and what to do (its hint).
      noticeText.textContent = [e && e.message || e, e && e.hint].filter(Boolean).map(String).join(' ');
      showNotice(true);
    });
  }
  overlay.addEventListener('mousemove', onMove);
  overlay.addEventListener('click', onClick);
  // Escape leaves the picker (a trusted key press only).
  document.addEventListener('keydown', (ev) => {
    if (ev.isTrusted && step >= 0 && ev.key === 'Escape') { ev.preventDefault(); stop(); }
  }, true);

  function start() {
    showNotice(false);
    picked = {};
    step = 0;
    barText.textContent = PROMPTS.input;
    host.dataset.step = 'input';
    overlay.hidden = false;
    bar.hidden = false;
  }

  function stop() {
    step = -1;
    overlay.hidden = true;
    bar.hidden = true;
    box.hidden = true;
    host.dataset.step = '';
  }

  // ---- selectors from picked elements ----------------------------------------------------------

  /** @param {string} v */
  const q = (v) => '"' + v.replace(/["\\]/g, '\\$&') + '"';
  // Values that change per element or per deployment: numbers, ids, hashes.
  /** @param {string} v */
  const unstable = (v) => /^\d+$/.test(v) || /\d{3,}/.test(v) || /[0-9a-f]{8}-/i.test(v) || v.length > 60;
  const ATTRS = /^(role|name|type|placeholder|aria-label|title|slot|kind|data-[\w-]+)$/;

  /**
   * Selectors for one element within its own root, most specific first.
   * @param {Element} el
   * @returns {string[]}
   */
  function ownSelectors(el) {
    const tag = CSS.escape(el.localName);
    const out = [];
    if (el.id && !unstable(el.id)) out.push('#' + CSS.escape(el.id));
    const attrs = [...el.attributes].filter((a) => ATTRS.test(a.name) && a.value && !unstable(a.value)).map((a) => `[${a.name}=${q(a.value)}]`);
    const classes = [...el.classList].filter((c) => !unstable(c) && !/\d/.test(c) && c.length < 40).map((c) => '.' + CSS.escape(c));
    for (const a of attrs) out.push(tag + a);
    if (classes.length) out.push(tag + classes.join(''));
    if (attrs.length || classes.length) out.push(tag + classes.join('') + attrs.join(''));
    out.push(tag);
    return out;
  }

  /**
   * A selector (with ` >>> ` hops for open shadow roots) that finds `el`, and as few others as
   * possible: `exact` wants el alone, otherwise el among its like (the assistant's turns).
   * @param {HTMLElement} el
   * @param {boolean} exact
   * @param {HTMLElement[]} [avoid] elements the selector must not match (the user's turns)
   */
  function selectorFor(el, exact, avoid = []) {
    const d = /** @type {NonNullable<typeof NS.discover>} */ (NS.discover);
    // The chain of shadow hosts above el, outermost first.
    /** @type {Element[]} */
    const chain = [];
    for (let root = el.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) chain.unshift(root.host);
    const hops = chain.map((h) => {
      const parentRoot = h.getRootNode();
      const cands = ownSelectors(h);
      return cands.find((s) => /** @type {ParentNode} */ (parentRoot).querySelectorAll(s).length === 1) || cands[cands.length - 1];
    });
    const root = /** @type {ParentNode} */ (el.getRootNode());
    let own = ownSelectors(el);
    // A turn: an attribute or the classes it shares with the other replies before everything
    // at once; the bare tag only when nothing tells the user's turns apart.
    if (!exact) own = [...own.slice(el.id ? 1 : 0, -1), own[own.length - 1]];
    for (const s of own) {
      let full = [...hops, s].join(' >>> ');
      let hits = d.queryDeep(full);
      if (!hits.includes(el)) {
        // An id or attribute that is not unique in the page: anchor it under its parent.
        const parent = el.parentElement;
        if (!parent) continue;
        full = [...hops, ownSelectors(parent)[0] + ' > ' + s].join(' >>> ');
        hits = d.queryDeep(full);
        if (!hits.includes(el)) continue;
      }
      if (exact && hits.length !== 1) continue;
      if (avoid.some((a) => hits.includes(a))) continue;
      if (!exact && root.querySelectorAll(s).length > 50) continue;
      return full;
    }
    return structural(el, exact, avoid, hops);
  }

  /**
   * A selector for `el` within its root by structure, where nothing of its own names it (every
   * class hashed, no attributes): the path of child steps from its nearest ancestor that a
   * stable selector names alone (or from the root).
   * @param {Element} el
   */
  function pathTo(el) {
    const root = /** @type {ParentNode} */ (el.getRootNode());
    /** @type {string[]} */
    const steps = [];
    for (let cur = /** @type {Element | null} */ (el); cur; cur = cur.parentElement) {
      if (cur !== el) {
        const named = ownSelectors(cur).slice(0, -1).find((s) => root.querySelectorAll(s).length === 1);
        if (named) { steps.unshift(named); break; }
      }
      const here = cur;
      const same = here.parentElement ? [...here.parentElement.children].filter((c) => c.localName === here.localName) : [here];
      steps.unshift(same.length > 1 ? `${CSS.escape(here.localName)}:nth-of-type(${same.indexOf(here) + 1})` : CSS.escape(here.localName));
    }
    return steps.join(' > ');
  }

  // Elements whose kind alone says something of a turn (what a reply holds and a user's turn
  // seldom does), for `:has()` where no attribute tells the turns apart.
  const TELLING = ['pre', 'table', 'ul', 'ol', 'img', 'math', 'code', 'button', 'svg'];

  /**
   * The structural selector of `el`: exact, its path; a turn, the children of its parent's
   * path with its tag, told from the user's turns (`avoid`) by something it holds
   * (`:has(…)`): an attribute of a descendant, or a telling element. Of those that match it
   * and none of `avoid`, the one that matches the most turns.
   * @param {Element} el
   * @param {boolean} exact
   * @param {Element[]} avoid
   * @param {string[]} hops the shadow hosts' selectors above el
   * @returns {string | null}
   */
  function structural(el, exact, avoid, hops) {
    const d = /** @type {NonNullable<typeof NS.discover>} */ (NS.discover);
    /** @param {string} s */
    const hits = (s) => { try { return d.queryDeep([...hops, s].join(' >>> ')); } catch { return []; } };
    if (exact) {
      const path = pathTo(el);
      const found = hits(path);
      return found.length === 1 && found[0] === el ? [...hops, path].join(' >>> ') : null;
    }
    const parent = el.parentElement;
    if (!parent) return null;
    const base = `${pathTo(parent)} > ${CSS.escape(el.localName)}`;
    const inner = new Set(avoid.length ? [] : [base]);
    const all = [...el.querySelectorAll('*')].slice(0, 400);
    for (const x of all) for (const s of ownSelectors(x).slice(0, -1)) inner.add(`${base}:has(${s})`);
    for (const tag of TELLING) if (all.some((x) => x.localName === tag)) inner.add(`${base}:has(${tag})`);
    let best = null, most = 0;
    for (const s of inner) {
      const found = hits(s);
      if (!found.includes(/** @type {HTMLElement} */ (el)) || avoid.some((a) => found.includes(/** @type {HTMLElement} */ (a)))) continue;
      if (found.length > most) { best = s; most = found.length; }
    }
    return best ? [...hops, best].join(' >>> ') : null;
  }

  async function finish() {
    stop();
    const d = NS.discover;
    if (!d) throw new Error('discovery is not loaded');
    const { input, send, assistant } = picked;
    // The user's turns beside the picked reply: same tag, holding none of the reply's text.
    const siblings = assistant.parentNode ? [...assistant.parentNode.children].filter((c) => c !== assistant && c.localName === assistant.localName) : [];
    // Where the reply has selectors of its own, a sibling none of them matches (a user's turn
    // that looks like the replies is matched by them: the core then refuses the adapter and
    // says why); where nothing of its own names it (hashed classes), the siblings that show
    // what the user sent.
    const distinctive = ownSelectors(assistant).slice(0, -1);
    const users = /** @type {HTMLElement[]} */ (siblings.filter((s) => (distinctive.length
      ? !distinctive.some((sel) => s.matches(sel))
      : d.isSubmitted(d.deepText(s)))));
    const inputSel = selectorFor(input, true);
    const sendSel = selectorFor(send, true);
    let replySel = selectorFor(assistant, false, users);
    // A turn whose text lives in its own shadow root: read the element holding the text.
    const inner = d.readable(assistant);
    if (replySel && inner !== assistant) {
      const innerSel = ownSelectors(inner).find((s) => /** @type {ParentNode} */ (inner.getRootNode()).querySelectorAll(s).length === 1);
      replySel = innerSel ? `${replySel} >>> ${innerSel}` : null;
    }
    if (!inputSel || !sendSel || !replySel) throw new Error(t('teachFailed', 'MCP Relay could not describe what you picked. Try clicking closer to the element.'));
    const editor = input instanceof HTMLTextAreaElement || input instanceof HTMLInputElement ? 'textarea' : 'auto';
    // Turns the reply selector would read that show a text the user sent: where the user's
    // messages and the replies look the same, the core refuses the adapter (its calls would
    // run from the user's own messages) and says why.
    const userTurns = d.queryDeep(replySel).filter((el) => d.isSubmitted(d.deepText(el))).length;
    const adapter = { id: 'taught', name: location.host, editor, input: [inputSel], send: [sendSel], assistant: [replySel], userTurns };
    const saved = await call('sites/taught', { adapter });
    use(saved);
  }

  /**
   * Uses adapter data (taught, or edited in Settings) on this page: the generic adapter's
   * defaults for every part the data leaves out.
   * @param {Record<string, any>} data
   */
  function use(data) {
    const G = Sites.GENERIC;
    /** @param {unknown} v @param {readonly string[]} dflt */
    const list = (v, dflt) => (Array.isArray(v) && v.length ? Object.freeze(v.map(String)) : dflt);
    /** @type {import('./content').Adapter} */
    const adapter = Object.freeze({
      id: String(data.id || 'custom'), name: String(data.name || data.id || 'custom'), hosts: Object.freeze([]),
      editor: data.editor || 'auto',
      input: list(data.input, G.input), send: list(data.send, G.send), stop: list(data.stop, G.stop),
      disabled: list(data.disabled, G.disabled), assistant: list(data.assistant, G.assistant),
      user: list(data.user, G.user), code: list(data.code, G.code),
      files: data.files && typeof data.files === 'object' ? Object.freeze({ input: list(data.files.input, []), drop: list(data.files.drop, []), preview: list(data.files.preview, []) }) : null,
      maxText: Number(data.maxText) > 0 ? Number(data.maxText) : G.maxText,
    });
    state.adapter = adapter;
    NS.cards.host.dataset.adapter = adapter.id;
    showNotice(false);
    if (NS.read) NS.read.scheduleScan();
  }

  // ---- "unsure": a reply with no turns found ---------------------------------------------------

  // After something was sent, replies are expected: when none is found while the page keeps
  // changing for a while, say so and offer to teach the page.
  let watchTimer = /** @type {ReturnType<typeof setTimeout> | null} */ (null);
  function expectReply() {
    if (watchTimer) clearTimeout(watchTimer);
    let tries = 0;
    const look = () => {
      watchTimer = null;
      if (state.adapter !== Sites.GENERIC || !NS.discover) return;
      const r = NS.discover.report();
      // Only once something was sent: a click elsewhere (a menu, a setting) expects no reply.
      if (!r.submitted) return;
      if (r.turns.length) { showNotice(false); return; }
      if (++tries >= 8) { showNotice(true); return; }
      watchTimer = setTimeout(look, 500);
    };
    watchTimer = setTimeout(look, 500);
  }
  document.addEventListener('keydown', (ev) => { if (ev.key === 'Enter' && !ev.shiftKey) expectReply(); }, true);
  document.addEventListener('click', (ev) => {
    const el = ev.composedPath()[0];
    if (el instanceof Element && el.closest(BUTTON) && !el.closest('mcp-relay-ui, mcp-relay-teach')) expectReply();
  }, true);

  /** Whether discovery is unsure on this page now (for the site check). */
  function unsure() {
    if (state.adapter !== Sites.GENERIC || !NS.discover) return false;
    const r = NS.discover.report();
    return !r.input || !r.send || (r.submitted > 0 && !r.turns.length);
  }

  NS.teach = { start, notice: showNotice, use, unsure };
})();
