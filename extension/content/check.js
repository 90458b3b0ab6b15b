// @ts-check
// MCP Relay's content script, part 5 of 6: the site check. Which of the adapter's selectors
// match on this page: the first that matches per part, with its count (or the first listed and
// 0), and the write path its editor selects, so a broken site is diagnosed in seconds; and what
// the loop itself would use (`found`): the composer and send control it picks (as CSS paths),
// the assistant and user turns it counts and the start of the last reply it would read.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.check) return;
  const NS = found;
  const { Sites, state, dom } = NS;

  /** @type {readonly import('../contract').SitePart[]} */
  const PARTS = ['input', 'send', 'stop', 'assistant', 'user'];

  /** @returns {import('../contract').SiteCheck} */
  function check() {
    const adapter = state.adapter;
    const generic = adapter === Sites.GENERIC;
    const checks = PARTS.map((part) => {
      const selectors = adapter[part];
      for (const selector of selectors) {
        // dom.all: a taught adapter's `host >>> inner` hops into shadow roots.
        const els = dom.all([selector]);
        if (els.length) return { part, selector, matches: els.length, visible: els.filter(dom.visible).length };
      }
      if (part === 'input' && generic) {
        const el = dom.genericInput();
        return { part, selector: el ? dom.describe(el) : null, matches: el ? 1 : 0, visible: el ? 1 : 0 };
      }
      if (part === 'assistant' && generic && NS.discover) {
        // Found by structure (the turns beside the user's submitted text) or by attributes.
        const turns = NS.discover.assistantTurns();
        const how = NS.discover.report().how;
        return { part, selector: turns.length ? `(${how}) ${dom.describe(turns[0])}` : null, matches: turns.length, visible: turns.filter(dom.visible).length };
      }
      if (part === 'send' && generic) {
        const el = dom.findSend(dom.findInput());
        return { part, selector: el ? dom.describe(el) : null, matches: el ? 1 : 0, visible: el && dom.visible(el) ? 1 : 0 };
      }
      return { part, selector: selectors[0] || null, matches: 0, visible: 0 };
    });
    const input = dom.findInput();
    const isField = input instanceof HTMLTextAreaElement || input instanceof HTMLInputElement;
    // Discovery that cannot tell the parts: the panel offers "Teach this page".
    const unsure = generic && !!NS.teach && NS.teach.unsure();
    return { adapter: adapter.id, editor: adapter.editor, writePath: input ? [...NS.write.writePath(adapter.editor, isField)] : [], checks, unsure, found: inUse(input) };
  }

  // The longest part of the last reply the check reports (enough to see what is read).
  const SAMPLE_CHARS = 2000;

  /**
   * What the loop would use on this page now: the same functions that write, send and read.
   * @param {HTMLElement | null} input
   * @returns {import('../contract').SiteFound}
   */
  function inUse(input) {
    const send = dom.findSend(input);
    const thinking = state.adapter.thinking || [];
    const d = state.adapter === Sites.GENERIC ? NS.discover : undefined;
    const replies = (d ? d.assistantTurns() : dom.all(state.adapter.assistant))
      .filter((el) => !thinking.length || !dom.matchesAny(el, thinking));
    const last = replies[replies.length - 1];
    return {
      input: input ? cssPath(input) : null,
      send: send ? cssPath(send) : null,
      assistant: replies.length,
      user: NS.read.userMessageCount(),
      lastReply: last ? (last.innerText || last.textContent || '').slice(0, SAMPLE_CHARS) : null,
    };
  }

  /**
   * A CSS path that names exactly `el`: tag and position among its siblings of that tag, from
   * the document (` >>> ` hops into an open shadow root, as discovery's selectors do).
   * @param {Element} el
   */
  function cssPath(el) {
    /** @type {string[]} */
    const parts = [];
    /** @type {string[]} */
    const hops = [];
    for (let cur = /** @type {Element | null} */ (el); cur;) {
      const here = cur;
      const parent = here.parentNode;
      const same = parent ? [...parent.children].filter((c) => c.localName === here.localName) : [];
      parts.unshift(same.length > 1 ? `${here.localName}:nth-of-type(${same.indexOf(here) + 1})` : here.localName);
      if (parent instanceof ShadowRoot) {
        hops.unshift(parts.join(' > '));
        parts.length = 0;
        cur = parent.host;
      } else cur = cur.parentElement;
    }
    return [parts.join(' > '), ...hops].join(' >>> ');
  }

  NS.check = { check };
})();
