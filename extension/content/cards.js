// @ts-check
// MCP Relay's content script, part 2 of 6: our UI in the chat page, one card per tool call.
//
// The page is not trusted. A page script can write a fake assistant reply with a call in it, so
// nothing the page can do may approve a call:
// - the UI lives in a *closed* shadow root whose only reference stays in this closure (never on
//   the host element, never on a global): `host.shadowRoot` is null for the page, which cannot
//   reach the buttons;
// - every button handler ignores events that are not trusted (`event.isTrusted` is false for
//   anything a script dispatched, `el.click()` included), in case a reference ever leaks;
// - cards only send `activity/decide` with `run` or `deny` (never `always`, which changes
//   policy), and the core refuses a content script's approval of a destructive tool: such a
//   call says "approve in the side panel" instead of offering Run;
// - against clickjacking (the page makes the card transparent, shrinks it, or covers it with
//   something that lets clicks through, so the user clicks Run believing it is the page's own
//   button): Run acts only when its card has been visible and unobscured, at full opacity and
//   its own size, for ARM_MS without a break, as IntersectionObserver v2 (`trackVisibility`,
//   `isVisible`) sees it. Otherwise the click runs nothing and the card says to approve in the
//   side panel. Where the browser has no IntersectionObserver v2, Run never acts.
// Everything the card shows is set with textContent.
(() => {
  'use strict';
  const found = globalThis.McpRelayContent;
  if (!found || found.cards) return;
  const NS = found;
  const { t, call } = NS;

  /** The only decisions a content script sends. */
  const DECISIONS = new Set(['run', 'deny']);
  /** How long a card must have been visible, unobscured, before its Run button acts. */
  const ARM_MS = 600;
  /** IntersectionObserver v2's shortest allowed delay between visibility checks. */
  const VISIBILITY_DELAY_MS = 100;

  const host = document.createElement('mcp-relay-ui');
  const shadow = host.attachShadow({ mode: 'closed' });
  const style = document.createElement('style');
  style.textContent = `
    :host { all: initial; position: fixed; right: 12px; bottom: 96px; z-index: 2147483646; font: 13px/1.4 system-ui, sans-serif; }
    .list { display: flex; flex-direction: column; gap: 6px; max-width: 340px; max-height: 50vh; overflow: auto; }
    .card { background: Canvas; color: CanvasText; border: 1px solid #8884; border-radius: 8px; padding: 8px 10px; box-shadow: 0 2px 8px #0002; }
    .head { display: flex; justify-content: space-between; gap: 8px; font-weight: 600; }
    .state { font-weight: 400; opacity: .8; }
    .args { font: 12px ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; max-height: 6em; overflow: auto; margin: 4px 0; }
    .note { font-size: 12px; margin: 4px 0; }
    .error { color: #b00020; font-size: 12px; margin: 4px 0 0; }
    .hint { font-size: 12px; opacity: .85; margin: 2px 0 0; }
    button { font: inherit; margin-right: 6px; }
    .pending { font-size: 12px; opacity: .7; }`;
  const list = document.createElement('div');
  list.className = 'list';
  list.setAttribute('role', 'log');
  const pendingLine = document.createElement('div');
  pendingLine.className = 'pending';
  shadow.append(style, list, pendingLine);
  document.documentElement.appendChild(host);
  NS.state.ui = host;

  /**
   * What the page may see: the script's state (`ready`/`error`) and the adapter in use, as
   * attributes of the host (tests and the site check wait for them). Nothing else.
   * @param {string} state
   * @param {string} [kind]
   */
  function setStatus(state, kind) {
    host.dataset.state = state;
    if (kind) host.dataset.error = kind;
  }

  /** @param {boolean} pending */
  function setPending(pending) {
    pendingLine.textContent = pending ? t('callBeingWritten', '…') : '';
  }

  /**
   * Per call key: its card element, its last record, the last refused decision, whether a click
   * on Run came while the card was not armed, and the card's visibility (`armed`: visible and
   * unobscured for ARM_MS; `timer`: the pending arming).
   * @typedef {{el: HTMLElement, rec: import('../contract').CallRecord, refused: {message: string, hint?: string} | null, unseen: boolean, armed: boolean, timer: number | undefined}} CardEntry
   */
  /** @type {Map<string, CardEntry>} */
  const cards = new Map();
  /** @type {WeakMap<Element, CardEntry>} */
  const entryOf = new WeakMap();

  const hasVisibilityV2 = typeof IntersectionObserverEntry === 'function' && 'isVisible' in IntersectionObserverEntry.prototype;
  /** IntersectionObserver v2: `isVisible` is false while anything covers a card, or its (or the host's) opacity, transform or filter changes how it looks. */
  const visibility = hasVisibilityV2
    ? new IntersectionObserver((entries) => {
      for (const e of entries) {
        const entry = entryOf.get(e.target);
        if (!entry) continue;
        const visible = e.isIntersecting && /** @type {any} */ (e).isVisible === true;
        if (!visible) {
          clearTimeout(entry.timer);
          entry.timer = undefined;
          setArmed(entry, false);
        } else if (!entry.armed && entry.timer === undefined) {
          entry.timer = setTimeout(() => {
            entry.timer = undefined;
            setArmed(entry, true);
          }, ARM_MS);
        }
      }
    }, /** @type {IntersectionObserverInit} */ (/** @type {any} */ ({ threshold: [1], trackVisibility: true, delay: VISIBILITY_DELAY_MS })))
    : null;

  /**
   * @param {CardEntry} entry
   * @param {boolean} armed
   */
  function setArmed(entry, armed) {
    entry.armed = armed;
    // Inside the closed shadow root: for tests through CDP, never readable by the page.
    entry.el.querySelector('[data-action="run"]')?.setAttribute('data-armed', String(armed));
  }

  /**
   * A button that acts on trusted input only: a click from the user (mouse, or Enter/Space on
   * the focused button, which the browser turns into a trusted click), never one a script made.
   * @param {string} label
   * @param {string} action
   * @param {() => void} onTrustedClick
   */
  function button(label, action, onTrustedClick) {
    const b = document.createElement('button');
    b.type = 'button';
    b.textContent = label;
    b.dataset.action = action;
    b.addEventListener('click', (ev) => {
      if (!ev.isTrusted) return;
      onTrustedClick();
    });
    return b;
  }

  /**
   * @param {string} text
   * @param {string} cls
   */
  function line(text, cls) {
    const p = document.createElement('p');
    p.className = cls;
    p.textContent = text;
    return p;
  }

  /**
   * Shows a call's card (created on first sight), with the core's refusal of the last decision
   * when there is one.
   * @param {import('../contract').CallRecord} rec
   * @param {{message: string, hint?: string} | null} [refused]
   */
  function renderCard(rec, refused = null) {
    let entry = cards.get(rec.key);
    if (!entry) {
      const el = document.createElement('div');
      el.className = 'card';
      el.dataset.key = rec.key;
      list.appendChild(el);
      entry = { el, rec, refused: null, unseen: false, armed: false, timer: undefined };
      cards.set(rec.key, entry);
      entryOf.set(el, entry);
      visibility?.observe(el);
    }
    // A refusal belongs to the state it was made in: a new state clears it.
    if (entry.rec.state !== rec.state) {
      entry.refused = null;
      entry.unseen = false;
    }
    if (refused) entry.refused = refused;
    entry.rec = rec;
    const card = entry.el;
    card.dataset.state = rec.state;
    const head = document.createElement('div');
    head.className = 'head';
    const name = document.createElement('span');
    name.textContent = rec.tool;
    const state = document.createElement('span');
    state.className = 'state';
    // A result in the input that did not leave is not done, whatever the call's state.
    state.textContent = rec.unsent ? t('state_unsent', 'Not sent') : t('state_' + rec.state, rec.state);
    card.dataset.unsent = String(!!rec.unsent);
    head.append(name, state);
    const args = document.createElement('div');
    args.className = 'args';
    args.textContent = JSON.stringify(rec.arguments);
    card.replaceChildren(head, args);
    // Why it waits, as the core decided it (an allowed tool waits when auto-run is off here).
    if (rec.state === 'pending' && rec.wait) {
      const why = line(rec.wait === 'auto_run_off' ? t('callWaitAutoRunOff', 'Allowed, but auto-run is off in this chat.') : t('callWaitPolicyAsk', 'This tool asks before each run.'), 'note');
      why.dataset.wait = String(rec.wait);
      card.appendChild(why);
    }
    // The server asked the user something in the middle of this call (elicitation): the
    // question is answered in the side panel, never on the page.
    if (rec.state === 'running' && rec.asking) {
      const asking = String(rec.asking);
      const note = line(t('callAsking', `${asking} asks you something: answer in the MCP Relay side panel.`, [asking]), 'note');
      note.dataset.asking = 'true';
      card.appendChild(note);
    }
    // A running call: its progress (a bar when the server said the total) and Cancel, which
    // the core accepts for this chat's calls only (a trusted click, as every button here).
    if (rec.state === 'running') {
      const p = /** @type {any} */ (rec.progress);
      if (p && typeof p === 'object' && Number.isFinite(Number(p.progress))) {
        const total = Number(p.total);
        const bar = document.createElement('progress');
        bar.value = Number(p.progress);
        if (Number.isFinite(total) && total > 0) bar.max = total;
        else bar.removeAttribute('value');
        const done = Number.isFinite(total) && total > 0 ? `${p.progress}/${total}` : String(p.progress);
        const info = line([typeof p.message === 'string' ? p.message : '', done].filter(Boolean).join(' · '), 'note progress');
        info.prepend(bar, ' ');
        card.appendChild(info);
      }
      card.appendChild(button(t('callCancel', 'Cancel run'), 'cancel', () => cancelCall(rec.key)));
    }
    if (rec.state === 'pending' || rec.state === 'unknown') {
      if (rec.destructive === true) {
        // The core refuses a content script's approval of a destructive tool: say where it can
        // be approved rather than offer a button that cannot work.
        card.appendChild(line(t('callApproveInPanel', 'Approve in the MCP Relay side panel'), 'note'));
      } else {
        const label = rec.state === 'pending' ? t('callRun', 'Run') : t('callRerun', 'Run again');
        const current = entry;
        const run = button(label, 'run', () => {
          if (!current.armed) {
            // Hidden, covered, see-through or just shown: the user may not have seen this card.
            current.unseen = true;
            renderCard(current.rec);
            return;
          }
          decide(rec.key, 'run');
        });
        run.dataset.armed = String(entry.armed);
        card.appendChild(run);
      }
      if (rec.state === 'pending') card.appendChild(button(t('callDeny', 'Deny'), 'deny', () => decide(rec.key, 'deny')));
    }
    if (entry.unseen && (rec.state === 'pending' || rec.state === 'unknown')) {
      const unseen = line(t('callUnseenApproveInPanel', 'This card was hidden, covered or had just appeared when you clicked, so nothing ran: approve in the MCP Relay side panel, or click Run again once the card is in full view.'), 'error');
      unseen.dataset.unseen = 'true';
      unseen.setAttribute('role', 'alert');
      card.appendChild(unseen);
    }
    if (rec.unsent) card.appendChild(line(t('resultNotSent', 'The result is in the input, not sent — press Send'), 'note'));
    if (rec.deliveryNote) card.appendChild(line(String(rec.deliveryNote), 'error'));
    // Loop limits, denials and unknown outcomes are said on the card, never silently dropped.
    if (rec.error && rec.error.message) card.appendChild(line(String(rec.error.message), 'error'));
    if (entry.refused) {
      const refusal = line(entry.refused.message, 'error');
      refusal.dataset.refused = 'true';
      refusal.setAttribute('role', 'alert');
      card.appendChild(refusal);
      if (entry.refused.hint) card.appendChild(line(entry.refused.hint, 'hint'));
    }
  }

  /**
   * @param {string} key
   * @param {'run' | 'deny'} decision
   */
  function decide(key, decision) {
    if (!DECISIONS.has(decision)) return;
    call('activity/decide', { key, decision }).then((rec) => renderCard(rec)).catch(async (/** @type {any} */ e) => {
      // The core's refusal (a destructive tool, a call that is no longer pending, another
      // chat's call) is shown on the card with its hint, next to the call's state as the core
      // has it now (it may have been decided in the side panel meanwhile).
      const entry = cards.get(key);
      if (!entry) return setStatus('error', String(e && e.kind || 'error'));
      const refused = { message: String(e && e.message || e), hint: e && e.hint ? String(e.hint) : undefined };
      /** @type {import('../contract').CallRecord[]} */
      const now = await call('activity/list').catch(() => []);
      renderCard(now.find((c) => c.key === key) || entry.rec, refused);
    });
  }

  /** @param {string} key */
  function cancelCall(key) {
    call('calls/cancel', { key }).catch((/** @type {any} */ e) => {
      const entry = cards.get(key);
      if (entry) renderCard(entry.rec, { message: String(e && e.message || e), hint: e && e.hint ? String(e.hint) : undefined });
    });
  }

  /** Another conversation is on the page: the cards of the last one go. */
  function clear() {
    for (const entry of cards.values()) clearTimeout(entry.timer);
    visibility?.disconnect();
    cards.clear();
    list.replaceChildren();
    setPending(false);
  }

  NS.cards = { renderCard, setPending, setStatus, clear, host };
})();
