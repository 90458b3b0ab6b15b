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

  // Messages from our own service worker (never from the page: pages cannot reach this API).
  chrome.runtime.onMessage.addListener((/** @type {any} */ msg, sender, sendResponse) => {
    if (sender.id !== chrome.runtime.id || sender.tab) return false;
    // Every frame of the tab gets the message: the one holding the chat answers.
    if (msg && (msg.type === 'relay/insert' || msg.type === 'relay/check' || msg.type === 'relay/teach') && !NS.dom.holdsChat()) return false;
    if (msg && msg.type === 'relay/insert') {
      const attachments = Array.isArray(msg.attachments) ? msg.attachments : [];
      NS.write.insert(String(msg.text || ''), !!msg.submit, attachments)
        .then(sendResponse, (e) => sendResponse({ inserted: false, submitted: false, error: String(e && e.message || e) }));
      return true;
    }
    if (msg && msg.type === 'relay/check') {
      sendResponse(NS.check.check());
      return false;
    }
    if (msg && msg.type === 'relay/teach' && NS.teach) {
      NS.teach.start();
      sendResponse({ started: true });
      return false;
    }
    if (msg && msg.type === 'relay/calls' && Array.isArray(msg.calls)) {
      for (const c of msg.calls) cards.renderCard(c);
    }
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
