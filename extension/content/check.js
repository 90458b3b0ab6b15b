// @ts-check
// MCP Relay's content script, part 5 of 6: the site check. Which of the adapter's selectors
// match on this page: the first that matches per part, with its count (or the first listed and
// 0), and the write path its editor selects, so a broken site is diagnosed in seconds.
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
    return { adapter: adapter.id, editor: adapter.editor, writePath: input ? [...NS.write.writePath(adapter.editor, isField)] : [], checks, unsure };
  }

  NS.check = { check };
})();
