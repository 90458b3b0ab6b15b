// @ts-check
// MCP Relay's content script, part 6 of 6: the entry. It answers our service worker's messages
// (insert text, check the site, show calls) and starts reading replies once the core answers.
//
// The script as a whole reads assistant replies (and nothing else) through the site's adapter,
// sends their text to the core, shows each call as a card, and writes what the core asks it to
// write into the chat's input. It never reads the page's storage, never receives secrets, and
// inserts untrusted text only as text.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.started) return;
  const NS = found;
  NS.started = true;
  const { Sites, state, call } = NS;
  const { cards } = NS;

  /**
   * One handler per message the core sends to a tab (the generated `TabHandlers`: a message
   * without its handler, or a handler answering another shape, fails the type check).
   * @type {import('../contract').TabHandlers}
   */
  const handlers = {
    'relay/insert': (m) => NS.write.insert(String(m.text || ''), !!m.submit, Array.isArray(m.attachments) ? m.attachments : [], typeof m.withoutFiles === 'string' ? m.withoutFiles : undefined)
      .catch((e) => ({ inserted: false, submitted: false, error: String(e && e.message || e) })),
    'relay/check': () => NS.check.check(),
    'relay/calls': (m) => {
      for (const c of Array.isArray(m.calls) ? m.calls : []) cards.renderCard(c);
      // A call changed (it ended, or the worker restarted): look at the page again, so the
      // core sees whether its reply has ended and can deliver.
      NS.read.scheduleScan();
      return null;
    },
    // The end of the delay before auto-send (the core decided it is due and not cancelled).
    'relay/submit': (m) => NS.write.submitNow(String(m.text || ''))
      .catch((e) => ({ submitted: false, error: String(e && e.message || e) })),
    'relay/teach': () => {
      NS.teach.start();
      return { started: true };
    },
  };

  // Messages from our own service worker (never from the page: pages cannot reach this API).
  chrome.runtime.onMessage.addListener((/** @type {unknown} */ msg, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || sender.tab) return false;
    const type = msg && typeof msg === 'object' && 'type' in msg ? msg.type : undefined;
    if (typeof type !== 'string' || !Object.hasOwn(handlers, type)) return false;
    // Every frame of the tab gets the message: the one holding the chat answers (each frame
    // shows its own calls' cards).
    if (type !== 'relay/calls' && !NS.dom.holdsChat()) return false;
    const handle = /** @type {(m: unknown) => unknown} */ (handlers[/** @type {keyof typeof handlers} */ (type)]);
    const answer = handle(msg);
    if (answer instanceof Promise) {
      answer.then(sendResponse);
      return true;
    }
    sendResponse(answer);
    return false;
  });

  async function start() {
    try {
      const pong = await call('ping');
      cards.host.dataset.core = pong.core;
      if (!Sites.forLocation(location)) {
        const custom = await call('sites/adapter').catch(() => null);
        state.adapter = (custom && Sites.byId(custom.adapter)) || Sites.GENERIC;
        // A self-hosted chat the user added as generic: its page signature names its adapter.
        if (state.adapter === Sites.GENERIC) state.adapter = Sites.bySignature(document) || Sites.GENERIC;
        // A taught or edited adapter: data the core validated (teach.js fills in defaults).
        if (custom && custom.custom && NS.teach) NS.teach.use(custom.custom);
      }
      cards.host.dataset.adapter = state.adapter.id;
      NS.read.startReading();
      cards.setStatus('ready');
    } catch (e) {
      cards.setStatus('error', String(/** @type {any} */ (e).kind || 'error'));
    }
  }

  start();
})();
