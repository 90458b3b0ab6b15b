// @ts-check
// MCP Relay's content script, part 1 of 6: the shared namespace and the DOM helpers every other
// part uses (finding the adapter's elements, visibility, timing).
//
// Content scripts are classic scripts, not modules: the parts are listed in order in the
// manifest's `content_scripts[0].js` (and background.js registers the same list for custom
// sites) and share one namespace object, `globalThis.McpRelayContent`. Content scripts run in an
// isolated world, so neither the namespace nor anything on it is reachable from the page.
// Order: sites.js, dom.js, cards.js, read.js, write.js, check.js, main.js.
(() => {
  'use strict';
  // Injected twice (a built-in site the user also added as a custom site): every part keeps the
  // first copy, so one UI, one observer and one message listener exist per page.
  if (globalThis.McpRelayContent) return;

  const Sites = globalThis.McpRelaySites;

  /**
   * Sends a contract message to the core and unwraps the envelope; rejects with an Error that
   * carries the core's `kind` and `hint`.
   * @template {import('../contract').MessageType} T
   * @param {T} type
   * @param {import('../contract').Requests[T]} [fields]
   * @returns {Promise<import('../contract').Responses[T]>}
   */
  async function call(type, fields) {
    // `url`: the page's URL now. Chrome's sender URL stays the one the document loaded with,
    // whatever in-page navigations followed; the core takes ours within the sender's origin.
    const answer = await chrome.runtime.sendMessage({ ...fields, type, url: chatUrl() });
    if (answer && answer.ok) return answer.data;
    const e = (answer && answer.error) || { kind: 'no_answer', message: 'The extension did not answer.' };
    throw Object.assign(new Error(e.message), { kind: e.kind, hint: e.hint, details: e.details, cause: e.cause });
  }

  /**
   * The chat's URL: the page's, or in a same-origin frame (a chat app embedded in a portal
   * page) the top page's, which is the tab's chat; a cross-origin frame keeps its own.
   */
  function chatUrl() {
    if (window.top === window) return location.href;
    try { return /** @type {Window} */ (window.top).location.href; } catch { return location.href; }
  }

  /**
   * Whether this frame holds the tab's chat, so it answers the core's messages to the tab
   * (every frame of a tab gets them): a frame with a composer does; the top frame unless a
   * same-origin frame in it has an editor and the top has none but a one-line field.
   */
  function holdsChat() {
    const own = findInput();
    if (window.top !== window) return !!own;
    let framed = false;
    for (const f of document.querySelectorAll('iframe, frame')) {
      let doc = null;
      try { doc = /** @type {HTMLIFrameElement} */ (f).contentDocument; } catch { /* cross-origin */ }
      if (doc && doc.querySelector('textarea, [contenteditable="true"], [contenteditable=""], [contenteditable="plaintext-only"]')) framed = true;
    }
    // A portal's own search box is not the chat a frame of it holds.
    return !framed || (!!own && !(own instanceof HTMLInputElement));
  }

  /**
   * A localized message, or `fallback` when the key is missing.
   * @param {string} key
   * @param {string} [fallback]
   * @param {string[]} [substitutions] the message's placeholders ($1...)
   */
  const t = (key, fallback = key, substitutions = undefined) => chrome.i18n.getMessage(key, substitutions) || fallback;

  /**
   * The first selector of `selectors` that matches, with its element; null when none does.
   * @param {readonly string[]} selectors
   * @param {ParentNode} [root]
   * @returns {{selector: string, el: Element} | null}
   */
  function firstMatch(selectors, root = document) {
    for (const selector of selectors) {
      try {
        // ` >>> ` hops into open shadow roots (discover.js; taught adapters use it).
        const el = selector.includes('>>>') && ns.discover ? ns.discover.queryDeep(selector)[0] : root.querySelector(selector);
        if (el) return { selector, el };
      } catch { /* an adapter selector the browser does not support: try the next */ }
    }
    return null;
  }

  /**
   * @param {readonly string[]} selectors
   * @param {ParentNode} [root]
   * @returns {HTMLElement | null}
   */
  function first(selectors, root = document) {
    const m = firstMatch(selectors, root);
    return m ? /** @type {HTMLElement} */ (m.el) : null;
  }

  /**
   * Every element any of `selectors` matches, in page order, each once: a list of selectors
   * means all of them (a page may show one turn in a newer layout and the next in an older
   * one), not the first that matches. Where matches nest, the outermost is kept (one element
   * per turn). `deep`: plain selectors search the open shadow roots too (discover.js).
   * @param {readonly string[]} selectors
   * @param {boolean} [deep]
   * @returns {HTMLElement[]}
   */
  function all(selectors, deep = false) {
    /** @type {Set<Element>} */
    const found = new Set();
    for (const s of selectors) {
      try {
        // ` >>> ` hops into open shadow roots (discover.js; taught adapters use it).
        const els = (deep || s.includes('>>>')) && ns.discover ? ns.discover.queryDeep(s) : document.querySelectorAll(s);
        for (const el of els) found.add(el);
      } catch { /* an adapter selector the browser does not support: the others still count */ }
    }
    if (found.size < 2) return /** @type {HTMLElement[]} */ ([...found]);
    const outer = [...found].filter((el) => {
      for (let p = composedParent(el); p; p = composedParent(p)) if (found.has(p)) return false;
      return true;
    });
    return /** @type {HTMLElement[]} */ (outer.sort(pageOrder));
  }

  /**
   * The parent of a node, a shadow root's host for its top elements.
   * @param {Node} n
   * @returns {Element | null}
   */
  function composedParent(n) {
    if (n.parentElement) return n.parentElement;
    const p = n.parentNode;
    return p instanceof ShadowRoot ? p.host : null;
  }

  /**
   * Page order of two elements, across open shadow roots (a host's shadow content comes
   * where the host is): compares the first pair of ancestors that differ in their chains of
   * shadow hosts, which share one tree.
   * @param {Element} a
   * @param {Element} b
   */
  function pageOrder(a, b) {
    /** @param {Element} el */
    const chain = (el) => {
      /** @type {Element[]} */
      const out = [el];
      for (let root = el.getRootNode(); root instanceof ShadowRoot; root = root.host.getRootNode()) out.unshift(root.host);
      return out;
    };
    const ca = chain(a), cb = chain(b);
    for (let i = 0; i < Math.min(ca.length, cb.length); i++) {
      if (ca[i] === cb[i]) continue;
      const pos = ca[i].compareDocumentPosition(cb[i]);
      return pos & Node.DOCUMENT_POSITION_FOLLOWING ? -1 : pos & Node.DOCUMENT_POSITION_PRECEDING ? 1 : 0;
    }
    return ca.length - cb.length;
  }

  /** @param {Element | null | undefined} el */
  function visible(el) {
    if (!el || !el.isConnected) return false;
    const r = el.getBoundingClientRect();
    return r.width > 0 && r.height > 0 && getComputedStyle(el).visibility !== 'hidden';
  }

  /**
   * @param {Element} el
   * @param {readonly string[]} selectors
   */
  function matchesAny(el, selectors) {
    return selectors.some((s) => {
      try { return el.matches(s) || !!el.closest(s); } catch { return false; }
    });
  }

  /** @type {import('./content').ContentState} */
  const state = { adapter: Sites.forLocation(location) || Sites.GENERIC, ui: null };

  // The generic adapter finds the input by shape (discover.js).
  function genericInput() {
    return ns.discover.findComposer();
  }

  function findInput() {
    const a = state.adapter;
    return (a.input.length && first(a.input)) || (a === Sites.GENERIC ? genericInput() : null);
  }

  // What an editable box is (discovery's composers, the teach picker's input).
  const EDITABLE = 'textarea, [contenteditable="true"], [contenteditable=""], [contenteditable="plaintext-only"], input[type="text"], input:not([type])';
  // Labels of send buttons, in the languages of Chrome's top UI locales (en, zh, ja, ko, es, fr,
  // de, pt, ru, it, ar, hi, tr).
  const SEND_LABEL = /\b(send|submit|ask|run)\b|إرسال|ارسال|أرسل|भेजें|भेजना|g[öo]nder|发送|提交|发出|傳送|送出|送信|プロンプトを送信|보내기|전송|제출|\benviar\b|\benvoyer\b|\bsoumettre\b|\b(ab)?senden\b|\babschicken\b|отправить|отправка|\binvia(re)?\b/i;
  // What shares the send button's place and is never clicked for a send (in those languages
  // too): stop (where Send and Stop are one button), voice and dictation (an empty composer's
  // button), attach, copy, edit, menus and the like.
  const NOT_SEND_LABEL = /stop|停止|cancel|取消|voice|micro|mic\b|dictat|语音|attach|upload|附件|上传|file|文件|copy|复制|download|下载|edit|编辑|retry|regenerate|重新|like|share|分享|menu|more|search|搜索|think|思考|model|模型|mode\b|new chat|新对话|plus|tools?\b|工具|中止|音声|マイク|添付|ファイル|コピー|メニュー|중지|음성|마이크|첨부|파일|복사|메뉴|detener|\bvoz\b|micrófono|adjuntar|archivo|copiar|arrêter|\bvoix\b|joindre|fichier|copier|anhalten|stoppen|sprache|mikrofon|anhängen|datei|kopieren|parar|microfone|anexar|arquivo|остановить|голос|микрофон|прикрепить|файл|копировать|меню|interrompi|\bvoce\b|microfono|allega|copia/i;
  /**
   * Whether a control's label says it is not a send button (and does not also say send).
   * @param {string} label
   */
  const notSend = (label) => NOT_SEND_LABEL.test(label) && !SEND_LABEL.test(label);

  /**
   * Whether a control is a stop (or voice) control now: the adapter's stop selectors, or its
   * label says so. Checked on the element itself at click time, whatever selector found it.
   * @param {Element} el
   */
  function stopLike(el) {
    if (state.adapter.stop.some((s) => { try { return el.matches(s); } catch { return false; } })) return true;
    const label = [el.getAttribute('aria-label'), el.getAttribute('title'), el.getAttribute('data-testid')].filter(Boolean).join(' ');
    return notSend(label) || notSend((el.textContent || '').trim().slice(0, 40));
  }

  /** @param {HTMLElement | null} input */
  function findSend(input) {
    const a = state.adapter;
    if (a.send.length) {
      for (const selector of a.send) {
        let els;
        // ` >>> ` hops into open shadow roots (discover.js; taught adapters use it).
        try { els = selector.includes('>>>') && ns.discover ? ns.discover.queryDeep(selector) : [...document.querySelectorAll(selector)]; } catch { continue; }
        const el = els.find((e) => !stopLike(/** @type {HTMLElement} */ (e)));
        if (el) return /** @type {HTMLElement} */ (el);
      }
      return null;
    }
    // Only inside the composer, never a message's or a code block's button (discover.js).
    return ns.discover.findSend(input);
  }

  /** @param {HTMLElement | null} btn */
  function enabled(btn) {
    return !!btn && !matchesAny(btn, state.adapter.disabled);
  }

  // Labels of a control that stops a reply being written, in those languages.
  const STOP_LABEL = /\bstop|停止|中止|중지|\bdetener\b|\barr[êe]ter\b|stopp|\bparar\b|interrompi|остановить|إيقاف|توقف|रोक|durdur/i;

  /**
   * Whether a reply is being written: the adapter's stop control shows, or, for the generic
   * adapter, a control beside the composer whose label says stop (Send turned Stop, a Stop
   * above the input), in any of the languages above.
   */
  function isStreaming() {
    const stop = first(state.adapter.stop);
    if (stop && visible(stop)) return true;
    return state.adapter === Sites.GENERIC && !!ns.discover && ns.discover.stopShown(STOP_LABEL);
  }

  /**
   * Whether the page holds a dialog of its own open now (a modal `<dialog>`, a `role=dialog`
   * marked modal, an alert dialog; visible, not ours): a send it holds there has not left.
   */
  function dialogOpen() {
    const sel = 'dialog[open], [role="dialog"][aria-modal="true"], [role="alertdialog"]';
    const els = ns.discover ? ns.discover.queryDeep(sel) : [...document.querySelectorAll(sel)];
    return els.some((e) => visible(/** @type {HTMLElement} */ (e)) && !e.closest('mcp-relay-ui, mcp-relay-teach'));
  }

  /**
   * A selector-like description of an element the generic adapter found by shape.
   * @param {Element} el
   */
  function describe(el) {
    return el.tagName.toLowerCase() + (el.id ? '#' + CSS.escape(el.id) : '') + [...el.classList].slice(0, 3).map((c) => '.' + CSS.escape(c)).join('');
  }

  /** @param {number} ms */
  const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
  // Editors apply input in their own tick (React re-renders, Lexical reconciles): look after it.
  /** @returns {Promise<void>} */
  const settle = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 30)));
  /** @param {string} s */
  const norm = (s) => s.replace(/\s+/g, ' ').trim();

  /** @type {import('./content').Namespace} */
  const ns = /** @type {any} */ ({
    Sites, state, call, t,
    dom: { chatUrl, holdsChat, EDITABLE, SEND_LABEL, notSend, firstMatch, first, all, visible, matchesAny, genericInput, findInput, findSend, stopLike, enabled, isStreaming, dialogOpen, describe, sleep, settle, norm },
  });
  globalThis.McpRelayContent = ns;
})();
