// @ts-check
// The first-run guide: one line above the views saying what to do next, with the button that
// does it. The steps follow the loop a newcomer walks: add a server (or import one) and see it
// connect, open a chat site, pick this chat's servers (This chat), insert the instructions, then
// send and approve. Each step is read from the core (servers and their state, the chat's
// settings, its calls). A server that failed keeps step 1, with its error and what to do; no
// step offers to open the view already shown. The last state, "ready", is one short line seen
// once: it counts as the guide's end as soon as it shows and leaves at the next view or tab
// change or with the chat's first call (a chat that has calls already skips it). Closing the
// guide, by hand or so, is kept in the core's settings (`guideDismissed`, chrome.storage.local).
import { h } from './dom.js';
import { t } from './i18n.js';
import { call, currentChat, errorText, onTabChange, poll, touches } from './core.js';

/** The steps in order; `ready` is the last one (nothing left to set up). */
export const GUIDE_STEPS = ['addServer', 'openChat', 'pickServers', 'insert', 'ready'];

/**
 * Chats whose instructions this panel inserted (a chat is `tabId|url`). A chat with calls in
 * Activity has been given them too, wherever from.
 * @type {Set<string>}
 */
const insertedHere = new Set();
/** @param {{tabId: number, url: string}} chat */
const chatKey = (chat) => `${chat.tabId}|${chat.url}`;

/**
 * Marks a chat's instructions as inserted (the This chat view calls it after an Insert).
 * @param {{tabId: number, url: string}} chat
 */
export function noteInserted(chat) {
  insertedHere.add(chatKey(chat));
  for (const fn of listeners) fn();
}
/** @type {Set<() => void>} */
const listeners = new Set();

/**
 * @typedef {object} Step
 * @property {string} step one of GUIDE_STEPS
 * @property {{tabId: number, url: string} | null} chat
 * @property {import('../extension/contract.js').ServerView} [server] at step 1 with servers
 *   but none connected: the one to speak of (a failed one first)
 * @property {boolean} [called] at "ready": the chat has calls already
 */

/**
 * The step the user is at. Step 2 needs a server that is connected: one added but failed (or
 * still connecting, or switched off) keeps the user at step 1.
 * @returns {Promise<Step>}
 */
async function currentStep() {
  const servers = await call('servers/list');
  if (!servers.length) return { step: 'addServer', chat: null };
  const status = (/** @type {import('../extension/contract.js').ServerView} */ s) => (s.enabled === false ? 'disabled' : (s.state && s.state.status) || 'idle');
  if (!servers.some((s) => status(s) === 'connected')) {
    const server = servers.find((s) => status(s) === 'failed') || servers.find((s) => status(s) !== 'disabled') || servers[0];
    return { step: 'addServer', chat: null, server };
  }
  const chat = await currentChat().catch(() => null);
  if (!chat) return { step: 'openChat', chat };
  const settings = await call('chat/get', { chat });
  const known = new Set(servers.map((s) => s.id));
  if (!(settings.serverIds || []).some((id) => known.has(id))) return { step: 'pickServers', chat };
  const calls = await call('activity/list', { chat }).catch(() => []);
  if (calls.length) return { step: 'ready', chat, called: true };
  return { step: insertedHere.has(chatKey(chat)) ? 'ready' : 'insert', chat, called: false };
}

/**
 * Step 1 with a server that is not connected: what it is doing (`connecting`, `failed`,
 * `disabled`) and the words for it.
 * @param {import('../extension/contract.js').ServerView} server
 * @returns {{state: string, text: string, advice: string}}
 */
function serverWords(server) {
  const name = server.name || server.id;
  const st = server.state || /** @type {Partial<import('../extension/contract.js').ServerState>} */ ({});
  if (server.enabled === false) return { state: 'disabled', text: t('guideServerOff', name), advice: '' };
  if (st.status === 'failed') {
    const { message, hint } = st.error ? errorText(st.error) : { message: '', hint: '' };
    return { state: 'failed', text: t('guideServerFailed', name, message), advice: hint || t('guideServerFix') };
  }
  return { state: 'connecting', text: t('guideServerConnecting', name), advice: '' };
}

/**
 * Mounts the guide into `box`.
 * @param {HTMLElement} box
 * @param {{go(view: string): Promise<void>, current(): string | null}} panel
 * @returns {{refresh(): Promise<void>, relocalize(): void, navigated(): void, changed(changes: Record<string, chrome.storage.StorageChange>): void}}
 */
export function mountGuide(box, panel) {
  let dismissed = false;
  let shown = '';
  // The "ready" line is on screen: the guide is over (kept so), the line stays until the user
  // moves on.
  let readyLine = false;
  const note = h('p', { class: 'hint', attrs: { 'aria-live': 'polite' } });

  /** @param {Step} at */
  function actions(at) {
    const { step, chat } = at;
    const button = (/** @type {string} */ id, /** @type {string} */ label, /** @type {() => unknown} */ fn, primary = true) =>
      h('button', { type: 'button', id, class: primary ? 'primary' : '', text: label, on: { click: fn } });
    // A server that is there but not connected is fixed in Servers (the user may be there).
    if (step === 'addServer' && at.server) {
      return panel.current() === 'servers' ? [] : [button('guide-servers', t('tabServers'), () => panel.go('servers'))];
    }
    if (step === 'addServer') {
      return [
        button('guide-add', t('serverAdd'), async () => { await panel.go('servers'); document.getElementById('server-add')?.click(); }),
        button('guide-import', t('serverImport'), async () => { await panel.go('servers'); document.getElementById('server-import')?.click(); }, false),
      ];
    }
    if (step === 'pickServers') return panel.current() === 'chat' ? [] : [button('guide-chat', t('guideOpenChatView'), () => panel.go('chat'))];
    if (step === 'insert' && chat) {
      return [button('guide-insert', t('promptInsert'), async () => {
        note.textContent = '';
        try {
          const prompt = await call('prompt/build', { chat });
          if (!prompt || !prompt.text) return void (note.textContent = t('promptNone'));
          const r = await call('chat/insert', { chat, text: prompt.text });
          if (r && r.inserted) noteInserted(chat);
          else note.textContent = t('insertFailed');
        } catch (e) {
          note.textContent = String(/** @type {any} */ (e).message || e);
        }
      })];
    }
    return [];
  }

  /** The guide is over: hidden, and kept so in the settings. */
  function finish() {
    readyLine = false;
    dismissed = true;
    box.hidden = true;
    box.dataset.dismissed = 'true';
    box.replaceChildren();
  }

  async function keepDismissed() {
    try {
      const settings = await call('settings/get');
      await call('settings/set', { settings: { ...settings, guideDismissed: true } });
    } catch (e) {
      console.warn('MCP Relay: guide', e);
    }
  }

  /** @param {Step} at */
  function showReady(at) {
    if (readyLine) return;
    readyLine = true;
    box.hidden = false;
    box.dataset.step = 'ready';
    const close = h('button', { type: 'button', id: 'guide-dismiss', class: 'icon', text: '×', attrs: { 'aria-label': t('guideDismiss') }, on: { click: finish } });
    box.replaceChildren(h('div', { class: 'guide-head guide-ready' }, h('p', { id: 'guide-text', text: t('guide_ready') }), close));
    shown = 'ready|' + (at.chat ? chatKey(at.chat) : '');
    keepDismissed();
  }

  async function refresh() {
    if (dismissed) return;
    /** @type {Step} */
    let at;
    try {
      at = await currentStep();
    } catch {
      return; // the core's own error shows in the views
    }
    if (dismissed) return;
    // Ready: the user's next thing (a call in this chat) ends it; so does leaving the chat.
    if (readyLine) {
      if (at.step !== 'ready' || at.called || shown !== 'ready|' + (at.chat ? chatKey(at.chat) : '')) finish();
      return;
    }
    if (at.step === 'ready') {
      // Already calling in this chat: nothing is left to say.
      if (at.called) {
        finish();
        keepDismissed();
      } else showReady(at);
      return;
    }
    const index = GUIDE_STEPS.indexOf(at.step);
    const server = at.server ? serverWords(at.server) : null;
    box.hidden = false;
    box.dataset.step = at.step;
    box.dataset.server = server ? server.state : '';
    box.dataset.view = panel.current() || '';
    const key = [at.step, at.chat ? chatKey(at.chat) : '', panel.current(), server ? server.text + server.advice : ''].join('|');
    if (shown === key) return;
    shown = key;
    note.textContent = '';
    const close = h('button', { type: 'button', id: 'guide-dismiss', class: 'icon', text: '×', attrs: { 'aria-label': t('guideDismiss') }, on: { click: dismiss } });
    box.replaceChildren(
      h('div', { class: 'guide-head' },
        h('strong', { text: t('guideTitle') }),
        h('span', { class: 'muted', id: 'guide-progress', text: t('guideProgress', String(index + 1), String(GUIDE_STEPS.length - 1)) }),
        close),
      h('p', { id: 'guide-text', text: server ? server.text : t('guide_' + at.step) }),
      ...(server && server.advice ? [h('p', { id: 'guide-advice', class: 'muted', text: server.advice })] : []),
      h('div', { class: 'actions' }, ...actions(at)),
      note);
  }

  async function dismiss() {
    finish();
    await keepDismissed();
  }

  async function start() {
    const settings = await call('settings/get').catch(() => null);
    dismissed = !!(settings && settings.guideDismissed);
    box.hidden = dismissed;
    box.dataset.dismissed = String(dismissed);
    listeners.add(() => { refresh(); });
    onTabChange(() => { if (readyLine) finish(); else refresh(); });
    // A server just added connects (or fails) without a storage change: look again meanwhile.
    poll(refresh, 1000, () => !dismissed && box.dataset.server === 'connecting');
    await refresh();
  }
  start();

  return {
    refresh,
    relocalize() {
      if (readyLine) return finish();
      shown = '';
      refresh();
    },
    navigated() {
      if (readyLine) finish();
      else refresh();
    },
    changed(changes) {
      // The ready line kept the guide's end itself: its own write is no reason to hide it.
      if (readyLine && !touches(changes, ['ledger', 'call:'])) return;
      if (touches(changes, ['config'])) {
        // Another panel may have closed (or the user reset) the guide.
        call('settings/get').then((s) => {
          const was = dismissed;
          dismissed = !!(s && s.guideDismissed);
          box.dataset.dismissed = String(dismissed);
          if (dismissed) { box.hidden = true; box.replaceChildren(); }
          else if (was) { shown = ''; }
          refresh();
        }, () => {});
        return;
      }
      if (touches(changes, ['ledger', 'call:', 'tools'])) refresh();
    },
  };
}
