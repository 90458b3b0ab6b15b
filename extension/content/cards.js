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
//
// Where cards go: never over the reply, never over the composer's text (what the user types, or
// the results held there for review). Each placement (on render, scroll, resize and typing)
// measures the conversation's last turn (the reply, or a result sent after it) and the
// composer's text area with its send button, and puts the cards in the first free spot: after
// that turn's end above the composer, beside the composer or the reply in the page's margin.
// Where no spot holds them: over an empty composer (it hides nothing), else folded into one
// line with a count (in the same spots); a trusted click on that line opens them, over the
// composer if need be, until the user types again. Finished calls fold into one
// "N calls" chip that lists them (as pills) on a click; every card and pill can be dismissed
// (the call itself is untouched: Activity in the side panel keeps it). Colours follow the page:
// its computed background, else prefers-color-scheme.
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
    :host { all: initial; position: fixed; right: 12px; bottom: 96px; z-index: 2147483646; display: block; width: max-content; max-width: min(320px, calc(100vw - 16px)); }
    :host([hidden]) { display: none; }
    .ui { font: 13px/1.35 system-ui, sans-serif; color-scheme: light;
      --bg: #ffffff; --fg: #1f2328; --muted: #59636e; --line: #d0d7de; --shadow: 0 2px 10px #0000002e;
      --error: #b00020; --ok: #1a7f37; --button: #f6f8fa; --primary: #0969da; --primary-fg: #ffffff; }
    .ui[data-theme="dark"] { color-scheme: dark;
      --bg: #22272e; --fg: #e6edf3; --muted: #9ea7b3; --line: #444c56; --shadow: 0 2px 10px #00000080;
      --error: #ff7b72; --ok: #57ab5a; --button: #2d333b; --primary: #4493f8; --primary-fg: #0d1117; }
    .list { display: flex; flex-direction: column; gap: 6px; max-height: 50vh; overflow: auto; }
    .done { display: flex; flex-direction: column; align-items: flex-end; gap: 4px; margin-top: 4px; }
    .done[hidden], .summary[hidden] { display: none; }
    .pills { display: flex; flex-wrap: wrap; gap: 4px; justify-content: flex-end; max-height: 30vh; overflow: auto; }
    .done:not([data-open="true"]) .pills { display: none; }
    .chip, .summary { display: inline-flex; align-items: center; gap: 4px; background: var(--bg); color: var(--fg); border: 1px solid var(--line); border-radius: 999px; padding: 1px 4px 1px 8px; white-space: nowrap; }
    .chip .open, .summary .open { border: 0; background: transparent; padding: 0; font-weight: 600; }
    .summary { box-shadow: var(--shadow); padding: 1px 4px 1px 8px; max-width: 100%; box-sizing: border-box; }
    .summary .open { min-width: 0; overflow: hidden; text-overflow: ellipsis; }
    .summary button[data-action="hold-send"] { flex: none; }
    .ui[data-collapsed="true"] .list, .ui[data-collapsed="true"] .done { display: none; }
    .card { background: var(--bg); color: var(--fg); border: 1px solid var(--line); border-radius: 8px; padding: 6px 8px; box-shadow: var(--shadow); }
    .head { display: flex; align-items: center; gap: 8px; font-weight: 600; }
    .tool { flex: 1; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
    .state { font-weight: 400; color: var(--muted); }
    .card[data-state="done"] .state { color: var(--ok); }
    .card[data-state="failed"] .state, .card[data-state="denied"] .state { color: var(--error); }
    .args { font: 12px/1.3 ui-monospace, monospace; white-space: pre-wrap; word-break: break-all; max-height: 2.6em; overflow: auto; margin: 1px 0; color: var(--muted); }
    .body:empty, .actions:empty { display: none; }
    .note { font-size: 12px; margin: 2px 0; }
    .error { color: var(--error); font-size: 12px; margin: 4px 0 0; }
    .hint { font-size: 12px; color: var(--muted); margin: 2px 0 0; }
    .actions { display: flex; flex-wrap: wrap; gap: 6px; margin-top: 3px; }
    button { font: inherit; color: var(--fg); background: var(--button); border: 1px solid var(--line); border-radius: 6px; padding: 1px 10px; cursor: pointer; }
    button[data-action="run"] { background: var(--primary); color: var(--primary-fg); border-color: var(--primary); }
    button.icon { border: 0; background: transparent; padding: 0 4px; color: var(--muted); font-weight: 400; }
    .card.pill { display: inline-flex; align-items: center; gap: 4px; border-radius: 999px; padding: 1px 4px 1px 8px; box-shadow: none; white-space: nowrap; }
    .pill .open { border: 0; background: transparent; padding: 0; font-weight: 600; }
    .pending { font-size: 12px; color: var(--muted); background: var(--bg); border-radius: 6px; padding: 0 4px; }
    .pending:empty { display: none; }`;
  const ui = document.createElement('div');
  ui.className = 'ui';
  const list = document.createElement('div');
  list.className = 'list';
  list.setAttribute('role', 'log');
  // Finished calls, as pills (the newest last), folded into one "N calls" chip that lists them.
  const pills = document.createElement('div');
  pills.className = 'pills';
  const chip = document.createElement('div');
  chip.className = 'chip';
  const doneBox = document.createElement('div');
  doneBox.className = 'done';
  doneBox.hidden = true;
  doneBox.append(pills, chip);
  // The cards folded into one line, where no free spot holds them.
  const summary = document.createElement('div');
  summary.className = 'summary';
  summary.hidden = true;
  const pendingLine = document.createElement('div');
  pendingLine.className = 'pending';
  ui.append(summary, list, doneBox, pendingLine);
  shadow.append(style, ui);
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
    // Called after each look at the page: a new reply may have come.
    anchorsStale = true;
    schedulePlace();
  }

  /**
   * Per call key: its card element, its last record, the last refused decision, whether a click
   * on Run came while the card was not armed, and the card's visibility (`armed`: visible and
   * unobscured for ARM_MS; `timer`: the pending arming).
   * A card the user dismissed stays gone (`dismissed`); a finished one is a pill unless the user
   * opened it (`expanded`).
   * @typedef {{el: HTMLElement, rec: import('../contract').CallRecord, refused: {message: string, hint?: string} | null, unseen: boolean, armed: boolean, timer: number | undefined, dismissed: boolean, expanded: boolean}} CardEntry
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

  /** The plural rules of the language the messages are in (chrome.i18n has none of its own). */
  const pluralRules = (() => {
    try { return new Intl.PluralRules(chrome.i18n.getUILanguage()); } catch { return new Intl.PluralRules('en'); }
  })();
  /**
   * A count with its noun, in the form the language takes for it: `key_one`, `key_other` (and
   * `key_few`, `key_many`… where a locale has them), `$1` the number.
   * @param {string} key
   * @param {number} n
   */
  function plural(key, n) {
    const subs = [String(n)];
    return chrome.i18n.getMessage(`${key}_${pluralRules.select(n)}`, subs) || t(`${key}_other`, String(n), subs);
  }

  /**
   * Whether a card shows as a pill: its call is done and its result went where it should.
   * @param {import('../contract').CallRecord} rec
   */
  const compact = (rec) => rec.state === 'done' && !rec.unsent && !rec.deliveryNote && !rec.sendAt;

  /**
   * The card's head: tool name, state and the dismiss button.
   * @param {CardEntry} entry
   */
  function cardHead(entry) {
    const rec = entry.rec;
    const head = document.createElement('div');
    head.className = 'head';
    const name = document.createElement('span');
    name.className = 'tool';
    name.textContent = rec.tool;
    const state = document.createElement('span');
    state.className = 'state';
    // A result in the input that did not leave is not done, whatever the call's state.
    state.textContent = rec.unsent ? t('state_unsent', 'Not sent') : t('state_' + rec.state, rec.state);
    head.append(name, state);
    if (entry.expanded) {
      const fold = button('–', 'collapse', () => { entry.expanded = false; renderCard(entry.rec); });
      fold.className = 'icon';
      fold.setAttribute('aria-label', t('cardCollapse', 'Make small'));
      head.appendChild(fold);
    }
    head.appendChild(dismissButton(entry));
    return head;
  }

  /** @param {CardEntry} entry */
  function dismissButton(entry) {
    const b = button('×', 'dismiss', () => {
      entry.dismissed = true;
      entry.el.remove();
      updateChip();
      schedulePlace();
    });
    b.className = 'icon';
    b.setAttribute('aria-label', t('cardDismiss', 'Dismiss'));
    return b;
  }

  /**
   * A finished call as a pill: its tool and state; a click opens the whole card.
   * @param {CardEntry} entry
   */
  function renderPill(entry) {
    const rec = entry.rec;
    const open = button(`✓ ${rec.tool}`, 'expand', () => { entry.expanded = true; renderCard(entry.rec); });
    open.className = 'open';
    open.setAttribute('aria-label', `${rec.tool}: ${t('state_' + rec.state, rec.state)} — ${t('cardExpand', 'Show the call')}`);
    entry.el.replaceChildren(open, ...(rec.hasApp ? [openAppButton(rec)] : []), dismissButton(entry));
  }

  /**
   * Open in panel, for a finished call whose tool has an interface (MCP App): the side panel
   * opens and shows the app (the app never runs on this page). The core checks the call is
   * this chat's.
   * @param {import('../contract').CallRecord} rec
   */
  function openAppButton(rec) {
    const b = button(t('cardOpenApp', 'Open in panel'), 'open-app', () => {
      call('apps/show', { key: rec.key }).catch((/** @type {any} */ e) => setStatus('error', String(e && e.kind || 'error')));
    });
    b.classList.add('open-app');
    return b;
  }

  /** Whether the finished calls' chip lists them (a trusted click on it toggles). */
  let chipOpen = false;
  // The chip's and the folded line's buttons stay the same elements (a click in progress is
  // never lost to a re-render); their texts follow the calls.
  const chipButton = button('', 'calls', () => {
    chipOpen = !chipOpen;
    updateChip();
    schedulePlace();
  });
  chipButton.className = 'open';
  const chipDismiss = button('×', 'dismiss-done', () => {
    for (const el of /** @type {HTMLElement[]} */ ([...pills.children])) {
      const entry = entryOf.get(el);
      if (entry) entry.dismissed = true;
      el.remove();
    }
    chipOpen = false;
    updateChip();
    schedulePlace();
  });
  chipDismiss.className = 'icon';
  chipDismiss.setAttribute('aria-label', t('cardDismissDone', 'Dismiss the finished calls'));
  chip.append(chipButton, chipDismiss);
  const summaryButton = button('', 'show', () => {
    forcedOpen = true;
    schedulePlace();
  });
  summaryButton.className = 'open';
  summaryButton.title = t('cardSummaryShow', 'Show the MCP Relay cards');
  // A countdown to an auto-send is cancelled from the folded line too (it does not wait).
  const summaryCancel = button(t('cardCancelSend', 'Cancel sending'), 'hold-send', () => {
    if (summaryCancel.dataset.key) holdSend(summaryCancel.dataset.key);
  });
  summaryCancel.hidden = true;
  summary.append(summaryButton, summaryCancel);

  /** The chip of the finished calls: their count; a click lists them, × dismisses them all. */
  function updateChip() {
    const done = /** @type {HTMLElement[]} */ ([...pills.children]);
    doneBox.hidden = !done.length;
    doneBox.dataset.open = String(chipOpen);
    chip.dataset.count = String(done.length);
    const tools = done.map((el) => entryOf.get(el)?.rec.tool || '').join(', ');
    chipButton.textContent = `✓ ${plural('cardCalls', done.length)} ${chipOpen ? '▾' : '▸'}`;
    chipButton.title = t('cardCallsDone', `Finished calls: ${tools}`, [tools]);
    chipButton.setAttribute('aria-expanded', String(chipOpen));
  }

  /** The order in which a folded line names its calls' states: what waits for the user first. */
  const URGENT = ['pending', 'unknown', 'running', 'failed', 'limited', 'denied', 'done'];

  /**
   * The cards as one line: how many calls, the most urgent one's state (or its countdown); a
   * trusted click opens them.
   */
  function updateSummary() {
    const open = /** @type {CardEntry[]} */ ([...list.children].map((el) => entryOf.get(el)).filter((e) => !!e));
    const n = open.length + pills.childElementCount;
    // A countdown first (it does not wait), then what waits for the user.
    const rank = (/** @type {CardEntry} */ e) => (typeof e.rec.sendAt === 'number' ? -1 : URGENT.indexOf(e.rec.state));
    const first = open.sort((a, b) => rank(a) - rank(b))[0];
    let state = '';
    const countdown = first ? first.el.querySelector('.countdown') : null;
    if (first) state = countdown ? String(countdown.textContent) : first.rec.unsent ? t('state_unsent', 'Not sent') : t('state_' + first.rec.state, first.rec.state);
    summaryCancel.hidden = !countdown;
    summaryCancel.dataset.key = first && countdown ? first.rec.key : '';
    const waits = !!first && (first.rec.state === 'pending' || first.rec.state === 'unknown');
    // A countdown says only the time left (its Cancel is beside it).
    const text = countdown ? `⚙ ${state}` : `${waits ? '⚠' : '⚙'} ${[plural('cardCalls', n), first ? `${first.rec.tool}: ${state}` : ''].filter(Boolean).join(' · ')}`;
    if (summaryButton.textContent !== text) summaryButton.textContent = text;
  }

  /**
   * Shows a call's card (created on first sight), with the core's refusal of the last decision
   * when there is one. A card is a head, the arguments, a body of notes (`.body`) and a row of
   * buttons (`.actions`).
   * @param {import('../contract').CallRecord} rec
   * @param {{message: string, hint?: string} | null} [refused]
   */
  function renderCard(rec, refused = null) {
    let entry = cards.get(rec.key);
    if (!entry) {
      const el = document.createElement('div');
      el.className = 'card';
      el.dataset.key = rec.key;
      entry = { el, rec, refused: null, unseen: false, armed: false, timer: undefined, dismissed: false, expanded: false };
      cards.set(rec.key, entry);
      entryOf.set(el, entry);
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
    card.dataset.unsent = String(!!rec.unsent);
    if (entry.dismissed) return;
    const pill = compact(rec) && !entry.expanded;
    card.classList.toggle('pill', pill);
    card.dataset.compact = String(pill);
    // Pills in their row, open cards in the list; both keep the calls' order.
    const container = pill ? pills : list;
    if (card.parentNode !== container) {
      visibility?.unobserve(card);
      container.appendChild(card);
      visibility?.observe(card);
    }
    anchorsStale = true;
    updateChip();
    schedulePlace();
    if (pill) return renderPill(entry);
    const args = document.createElement('div');
    args.className = 'args';
    args.textContent = JSON.stringify(rec.arguments);
    const body = document.createElement('div');
    body.className = 'body';
    const actions = document.createElement('div');
    actions.className = 'actions';
    card.replaceChildren(cardHead(entry), args, body, actions);
    // Why it waits, as the core decided it (an allowed tool waits when auto-run is off here).
    if (rec.state === 'pending' && rec.wait) {
      const why = line(rec.wait === 'auto_run_off' ? t('callWaitAutoRunOff', 'Allowed, but auto-run is off in this chat.') : t('callWaitPolicyAsk', 'This tool asks before each run.'), 'note');
      why.dataset.wait = String(rec.wait);
      body.appendChild(why);
    }
    // The server asked the user something in the middle of this call (elicitation): the
    // question is answered in the side panel, never on the page.
    if (rec.state === 'running' && rec.asking) {
      const asking = String(rec.asking);
      const note = line(t('callAsking', `${asking} asks you something: answer in the MCP Relay side panel.`, [asking]), 'note');
      note.dataset.asking = 'true';
      body.appendChild(note);
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
        body.appendChild(info);
      }
      actions.appendChild(button(t('callCancel', 'Cancel run'), 'cancel', () => cancelCall(rec.key)));
    }
    if (rec.state === 'pending' || rec.state === 'unknown') {
      if (rec.destructive === true) {
        // The core refuses a content script's approval of a destructive tool: say where it can
        // be approved rather than offer a button that cannot work.
        const why = line(t('callDestructiveApproveInPanel', 'This tool can change or delete things (its server marks it destructive). Approve it in the MCP Relay side panel.'), 'note');
        why.dataset.destructive = 'true';
        body.appendChild(why);
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
        actions.appendChild(run);
      }
      if (rec.state === 'pending') actions.appendChild(button(t('callDeny', 'Deny'), 'deny', () => decide(rec.key, 'deny')));
    }
    if (entry.unseen && (rec.state === 'pending' || rec.state === 'unknown')) {
      const unseen = line(t('callUnseenApproveInPanel', 'This card was hidden, covered or had just appeared when you clicked, so nothing ran: approve in the MCP Relay side panel, or click Run again once the card is in full view.'), 'error');
      unseen.dataset.unseen = 'true';
      unseen.setAttribute('role', 'alert');
      body.appendChild(unseen);
    }
    // The delay before auto-send (the core's): a countdown, and Cancel keeps the results unsent.
    if (typeof rec.sendAt === 'number') {
      const countdown = line('', 'note countdown');
      countdown.dataset.sendAt = String(rec.sendAt);
      countdown.setAttribute('role', 'timer');
      body.appendChild(countdown);
      actions.appendChild(button(t('cardCancelSend', 'Cancel sending'), 'hold-send', () => holdSend(rec.key)));
      tickCountdowns();
    }
    if (rec.hasApp && rec.state === 'done') actions.appendChild(openAppButton(rec));
    if (rec.unsent) body.appendChild(line(t('resultNotSent', 'The result is in the input, not sent — press Send'), 'note'));
    if (rec.deliveryNote) body.appendChild(line(String(rec.deliveryNote), 'error'));
    // Loop limits, denials and unknown outcomes are said on the card, never silently dropped.
    if (rec.error && rec.error.message) body.appendChild(line(String(rec.error.message), 'error'));
    if (entry.refused) {
      const refusal = line(entry.refused.message, 'error');
      refusal.dataset.refused = 'true';
      refusal.setAttribute('role', 'alert');
      body.appendChild(refusal);
      if (entry.refused.hint) body.appendChild(line(entry.refused.hint, 'hint'));
    }
  }

  // ---- placement and theme ------------------------------------------------------------------

  /** Space kept between the cards and what they must not cover, in CSS pixels. */
  const GAP = 8;
  let placeQueued = false;

  /**
   * The last turn and the composer, looked up again after a second or when a card changed
   * (finding them can be costly on the generic adapter; scrolling only moves them).
   * @type {{reply: Element | null, composer: Element | null, send: Element | null, at: number}}
   */
  const anchors = { reply: null, composer: null, send: null, at: -Infinity };
  let anchorsStale = true;

  /** Places the cards at the next frame (once however often it is asked). */
  function schedulePlace() {
    if (placeQueued) return;
    placeQueued = true;
    requestAnimationFrame(() => {
      placeQueued = false;
      place();
    });
  }

  /**
   * The part of an element's box inside the viewport; null when none of it is.
   * @param {Element | null | undefined} el
   */
  function onScreen(el) {
    if (!el || !el.isConnected) return null;
    const r = el.getBoundingClientRect();
    const top = Math.max(r.top, 0);
    const bottom = Math.min(r.bottom, innerHeight);
    if (r.width <= 0 || bottom <= top || r.right <= 0 || r.left >= innerWidth) return null;
    return { top, bottom, left: r.left, right: r.right };
  }

  /** @typedef {{top: number, bottom: number, left: number, right: number}} Box */

  /**
   * Where the cards go, from the last reply's and the composer's text area's boxes: the first
   * spot, in this order, that lies in the view and overlaps neither: after the reply's end
   * (above the composer), just above the composer, beside the composer, beside the reply; with
   * `over` (a single line), also above the reply's start. Null when none is free.
   * @param {Box | null} reply
   * @param {Box | null} composer
   * @param {{width: number, height: number}} size
   * @param {{width: number, height: number}} view
   * @param {boolean} [over]
   * @returns {{top: number, left: number, where: string} | null}
   */
  function freeSpot(reply, composer, size, view, over = false) {
    const { width: w, height: h } = size;
    const clampX = (/** @type {number} */ x) => Math.max(GAP, Math.min(x, view.width - w - GAP));
    const clampY = (/** @type {number} */ y) => Math.max(GAP, Math.min(y, view.height - h - GAP));
    const floor = composer ? composer.top - GAP : view.height - GAP;
    /** @type {[string, number, number][]} where, top, left */
    const spots = [];
    if (reply) spots.push(['after-reply', reply.bottom + GAP, clampX(reply.right - w)]);
    if (composer) {
      spots.push(['above-composer', composer.top - GAP - h, clampX(composer.right - w)]);
      spots.push(['beside-composer', clampY(composer.bottom - h), composer.right + GAP]);
      spots.push(['beside-composer', clampY(composer.bottom - h), composer.left - GAP - w]);
    }
    if (reply) {
      spots.push(['beside-reply', clampY(floor - h), reply.right + GAP]);
      spots.push(['beside-reply', clampY(floor - h), reply.left - GAP - w]);
      if (over) spots.push(['above-reply', reply.top - GAP - h, clampX(reply.right - w)]);
    }
    if (!reply && !composer) spots.push(['corner', clampY(view.height - h - 96), clampX(view.width - w - 12)]);
    // What must stay uncovered, with half a gap around it.
    const keep = [reply, composer].filter((r) => !!r).map((r) => {
      const k = /** @type {Box} */ (r);
      return { top: k.top - GAP / 2, bottom: k.bottom + GAP / 2, left: k.left - GAP / 2, right: k.right + GAP / 2 };
    });
    for (const [where, top, left] of spots) {
      const box = { top, left, bottom: top + h, right: left + w };
      if (top < 0 || left < 0 || box.bottom > view.height || box.right > view.width) continue;
      if (keep.some((k) => box.left < k.right && k.left < box.right && box.top < k.bottom && k.top < box.bottom)) continue;
      return { top, left, where };
    }
    return null;
  }

  /**
   * Where the cards go when no spot is free and the user opened them: over the composer, from
   * its top edge (or as low as the view allows, staying below the reply), else the bottom-right
   * corner. Never over the reply.
   * @param {Box | null} reply
   * @param {Box | null} composer
   * @param {{width: number, height: number}} size
   * @param {{width: number, height: number}} view
   * @returns {{top: number, left: number, where: string}}
   */
  function placement(reply, composer, size, view) {
    const free = freeSpot(reply, composer, size, view);
    if (free) return free;
    const clampX = (/** @type {number} */ x) => Math.max(GAP, Math.min(x, view.width - size.width - GAP));
    const clampY = (/** @type {number} */ y) => Math.max(GAP, Math.min(y, view.height - size.height - GAP));
    if (composer) {
      const top = Math.min(composer.top, view.height - size.height - GAP);
      return { top: clampY(reply ? Math.max(top, reply.bottom + GAP) : top), left: clampX(composer.right - size.width), where: 'composer' };
    }
    return { top: clampY(view.height - size.height - 96), left: clampX(view.width - size.width - 12), where: 'corner' };
  }

  /** Whether the page looks dark: its computed background, else the user's colour scheme. */
  function pageIsDark() {
    for (const el of [document.body, document.documentElement]) {
      if (!el) continue;
      const m = /rgba?\(([\d.]+),\s*([\d.]+),\s*([\d.]+)(?:,\s*([\d.]+))?/.exec(getComputedStyle(el).backgroundColor);
      if (!m || (m[4] !== undefined && Number(m[4]) < 0.5)) continue;
      const [r, g, b] = [m[1], m[2], m[3]].map(Number);
      return (0.2126 * r + 0.7152 * g + 0.0722 * b) / 255 < 0.5;
    }
    return matchMedia('(prefers-color-scheme: dark)').matches && /dark/.test(getComputedStyle(document.documentElement).colorScheme);
  }

  /**
   * Whether the composer holds text (typed, or results waiting there).
   * @param {Element | null} el
   */
  const holdsText = (el) => !!el && (el instanceof HTMLTextAreaElement || el instanceof HTMLInputElement ? el.value : el.textContent || '').trim() !== '';

  /** The user opened the folded cards (a trusted click): they may cover the composer until the user types. */
  let forcedOpen = false;
  /** Follows the composer's text area as it grows with what the user types. */
  const composerSize = new ResizeObserver(() => schedulePlace());

  function place() {
    // The host is the cards' box (hit-testing on the page stops at it); empty, it takes no room.
    const empty = !list.childElementCount && !pills.childElementCount && !pendingLine.textContent;
    host.hidden = empty;
    if (empty) {
      forcedOpen = false;
      return;
    }
    ui.dataset.theme = pageIsDark() ? 'dark' : 'light';
    const now = performance.now();
    if (anchorsStale || now - anchors.at > 1000 || !anchors.reply?.isConnected || !anchors.composer?.isConnected) {
      const composer = NS.dom.findInput();
      if (composer !== anchors.composer) {
        composerSize.disconnect();
        if (composer) composerSize.observe(composer);
      }
      anchors.reply = NS.read ? NS.read.lastTurn() : null;
      anchors.composer = composer;
      try { anchors.send = composer ? NS.dom.findSend(/** @type {HTMLElement} */ (composer)) : null; } catch { anchors.send = null; }
      anchors.at = now;
      anchorsStale = false;
    }
    const reply = onScreen(anchors.reply);
    // The composer: its text area, with the send button beside it.
    let composer = onScreen(anchors.composer);
    const send = onScreen(anchors.send);
    if (composer && send && send.top < composer.bottom + 120 && send.bottom > composer.top - 120) {
      composer = { top: Math.min(composer.top, send.top), bottom: Math.max(composer.bottom, send.bottom), left: Math.min(composer.left, send.left), right: Math.max(composer.right, send.right) };
    }
    const view = { width: innerWidth, height: innerHeight };
    const hasCards = list.childElementCount + pills.childElementCount > 0;
    /** The host's size with the cards open (`collapsed` false) or folded into one line. */
    const measure = (/** @type {boolean} */ collapsed) => {
      ui.dataset.collapsed = String(collapsed);
      summary.hidden = !collapsed || !hasCards;
      if (collapsed) updateSummary();
      const box = host.getBoundingClientRect();
      return { width: box.width, height: box.height };
    };
    let at = freeSpot(reply, composer, measure(false), view);
    if (!at && (forcedOpen || !holdsText(anchors.composer))) at = placement(reply, composer, measure(false), view);
    if (!at) {
      const size = measure(true);
      at = freeSpot(reply, composer, size, view, true) || placement(reply, composer, size, view);
    }
    Object.assign(host.style, { top: `${Math.round(at.top)}px`, left: `${Math.round(at.left)}px`, right: 'auto', bottom: 'auto' });
    ui.dataset.where = at.where;
  }
  addEventListener('scroll', schedulePlace, { passive: true, capture: true });
  addEventListener('resize', schedulePlace, { passive: true });
  // Typing in the composer: the cards keep off what is typed (folded again if the user opened them over it).
  addEventListener('input', (ev) => {
    if (!anchors.composer || !(ev.target instanceof Node) || !anchors.composer.contains(ev.target)) return;
    forcedOpen = false;
    schedulePlace();
  }, { passive: true, capture: true });
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', schedulePlace);
  // The reply grows while it streams and the composer grows with its text: follow them.
  new ResizeObserver(schedulePlace).observe(document.documentElement);

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

  /**
   * Cancels the delayed auto-send of the results this call went back with (a trusted click on
   * its card's Cancel): the core keeps them in the input, unsent, and says so.
   * @param {string} key
   */
  function holdSend(key) {
    call('chat/holdSend', { key }).then((rec) => renderCard(rec)).catch(async (/** @type {any} */ e) => {
      const entry = cards.get(key);
      if (!entry) return;
      /** @type {import('../contract').CallRecord[]} */
      const now = await call('activity/list').catch(() => []);
      renderCard(now.find((c) => c.key === key) || entry.rec, { message: String(e && e.message || e), hint: e && e.hint ? String(e.hint) : undefined });
    });
  }

  /** @type {number | undefined} */
  let countdownTimer;
  /** Updates every countdown on the cards (four times a second while there is one). */
  function tickCountdowns() {
    clearTimeout(countdownTimer);
    countdownTimer = undefined;
    const lines = /** @type {HTMLElement[]} */ ([...list.querySelectorAll('.countdown')]);
    for (const el of lines) {
      const left = Math.ceil((Number(el.dataset.sendAt) - Date.now()) / 1000);
      el.textContent = left > 0 ? t('cardSendingIn', `Sending in ${left} s`, [String(left)]) : t('cardSendingNow', 'Sending…');
    }
    if (ui.dataset.collapsed === 'true') updateSummary();
    if (lines.length) countdownTimer = setTimeout(tickCountdowns, 250);
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
    pills.replaceChildren();
    chipOpen = false;
    updateChip();
    setPending(false);
  }

  NS.cards = { renderCard, setPending, setStatus, clear, host, placement };
})();
