// @ts-check
// The sandbox page of one MCP App (www/app/frame.html, listed under the manifest's "sandbox":
// it runs in a unique origin with no chrome.* API and no access to the extension's pages).
//
// The side panel sends it the app's document once ({type: "mcp-relay/load", html, csp, allow}).
// It builds a nested frame, sandboxed again (scripts and forms only: no same origin, no popups,
// no top navigation), whose document starts with the Content Security Policy the core built
// from the resource's declarations; the policy of this page (the manifest's sandbox CSP) holds
// too, so the app gets at most what both allow. Then it passes messages: the app's JSON-RPC to
// the panel ({type: "mcp-relay/from-app", message}), the panel's to the app
// ({type: "mcp-relay/to-app", message}). It takes the panel's messages only from its parent
// and the app's only from the frame it made; the panel, in turn, takes messages only from this
// page's window, so nothing else the app opens can speak to it.
//
// A document that leaves (the app navigates its frame elsewhere) is reported and not shown
// again: the panel closes the app.
'use strict';

(() => {
  /** @type {HTMLIFrameElement | null} */
  let frame = null;
  let loads = 0;

  /** @param {Record<string, unknown>} data */
  const toPanel = (data) => window.parent.postMessage(data, '*');

  /** Escapes text for an HTML attribute value in double quotes. @param {string} s */
  const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');

  /**
   * Builds the app's frame. The policy comes first in the document, before anything of the
   * app, so it applies to all of it (a policy the app adds can only narrow it).
   * @param {{html: string, csp: string, allow: string}} doc
   */
  function load(doc) {
    if (frame) return; // one document per sandbox: a second load would be an attack
    frame = document.createElement('iframe');
    frame.setAttribute('sandbox', 'allow-scripts allow-forms');
    if (doc.allow) frame.setAttribute('allow', doc.allow);
    frame.setAttribute('referrerpolicy', 'no-referrer');
    frame.title = document.title;
    frame.addEventListener('load', () => {
      loads += 1;
      if (loads > 1) {
        // The app navigated its frame away from its own document: not shown any more.
        frame?.remove();
        toPanel({ type: 'mcp-relay/navigated' });
      }
    });
    frame.srcdoc = `<!doctype html><meta http-equiv="Content-Security-Policy" content="${attr(doc.csp)}">${doc.html}`;
    document.body.append(frame);
  }

  window.addEventListener('message', (event) => {
    const data = event.data;
    if (event.source === window.parent) {
      if (!data || typeof data !== 'object') return;
      if (data.type === 'mcp-relay/load' && typeof data.html === 'string' && typeof data.csp === 'string') {
        load({ html: data.html, csp: data.csp, allow: typeof data.allow === 'string' ? data.allow : '' });
      } else if (data.type === 'mcp-relay/to-app' && frame && frame.contentWindow) {
        frame.contentWindow.postMessage(data.message, '*');
      }
      return;
    }
    if (frame && event.source === frame.contentWindow) {
      toPanel({ type: 'mcp-relay/from-app', message: data });
    }
  });
  toPanel({ type: 'mcp-relay/ready' });
})();
