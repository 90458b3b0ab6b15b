// @ts-check
// The first-run guide: one line above the views saying what to do next, with the button that
// does it. The steps follow the loop a newcomer walks: add a server (or import one), open a chat
// site, pick this chat's servers (This chat), insert the instructions, then send and approve.
// Each step is read from the core (servers, the chat's settings, its calls); closing the guide
// is kept in the core's settings (`guideDismissed`, chrome.storage.local).
import { h } from './dom.js';
import { t } from './i18n.js';
import { call, currentChat, onTabChange, touches } from './core.js';

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
 * The step the user is at.
 * @returns {Promise<{step: string, chat: {tabId: number, url: string} | null}>}
 */
async function currentStep() {
  const servers = await call('servers/list');
  if (!servers.length) return { step: 'addServer', chat: null };
  const chat = await currentChat().catch(() => null);
  if (!chat) return { step: 'openChat', chat };
  const settings = await call('chat/get', { chat });
  const known = new Set(servers.map((s) => s.id));
  if (!(settings.serverIds || []).some((id) => known.has(id))) return { step: 'pickServers', chat };
  if (insertedHere.has(chatKey(chat))) return { step: 'ready', chat };
  const calls = await call('activity/list', { chat }).catch(() => []);
  return { step: calls.length ? 'ready' : 'insert', chat };
}

/**
 * Mounts the guide into `box`.
 * @param {HTMLElement} box
 * @param {{go(view: string): Promise<void>}} panel
 * @returns {{refresh(): Promise<void>, relocalize(): void, changed(changes: Record<string, chrome.storage.StorageChange>): void}}
 */
export function mountGuide(box, panel) {
  let dismissed = false;
  let shown = '';
  const note = h('p', { class: 'hint', attrs: { 'aria-live': 'polite' } });

  /** @param {string} step @param {{tabId: number, url: string} | null} chat */
  function actions(step, chat) {
    const button = (/** @type {string} */ id, /** @type {string} */ label, /** @type {() => unknown} */ fn, primary = true) =>
      h('button', { type: 'button', id, class: primary ? 'primary' : '', text: label, on: { click: fn } });
    if (step === 'addServer') {
      return [
        button('guide-add', t('serverAdd'), async () => { await panel.go('servers'); document.getElementById('server-add')?.click(); }),
        button('guide-import', t('serverImport'), async () => { await panel.go('servers'); document.getElementById('server-import')?.click(); }, false),
      ];
    }
    if (step === 'pickServers') return [button('guide-chat', t('guideOpenChatView'), () => panel.go('chat'))];
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
    if (step === 'ready') return [button('guide-activity', t('tabActivity'), () => panel.go('activity'), false)];
    return [];
  }

  async function refresh() {
    if (dismissed) return;
    let at;
    try {
      at = await currentStep();
    } catch {
      return; // the core's own error shows in the views
    }
    const index = GUIDE_STEPS.indexOf(at.step);
    box.hidden = false;
    box.dataset.step = at.step;
    if (shown === at.step + '|' + (at.chat ? chatKey(at.chat) : '')) return;
    shown = at.step + '|' + (at.chat ? chatKey(at.chat) : '');
    note.textContent = '';
    const close = h('button', { type: 'button', id: 'guide-dismiss', class: 'icon', text: '×', attrs: { 'aria-label': t('guideDismiss') }, on: { click: dismiss } });
    box.replaceChildren(
      h('div', { class: 'guide-head' },
        h('strong', { text: t('guideTitle') }),
        h('span', { class: 'muted', id: 'guide-progress', text: at.step === 'ready' ? t('guideAllSet') : t('guideProgress', String(index + 1), String(GUIDE_STEPS.length - 1)) }),
        close),
      h('p', { id: 'guide-text', text: t('guide_' + at.step) }),
      h('div', { class: 'actions' }, ...actions(at.step, at.chat)),
      note);
  }

  async function dismiss() {
    dismissed = true;
    box.hidden = true;
    box.dataset.dismissed = 'true';
    box.replaceChildren();
    try {
      const settings = await call('settings/get');
      await call('settings/set', { settings: { ...settings, guideDismissed: true } });
    } catch (e) {
      console.warn('MCP Relay: guide', e);
    }
  }

  async function start() {
    const settings = await call('settings/get').catch(() => null);
    dismissed = !!(settings && settings.guideDismissed);
    box.hidden = dismissed;
    box.dataset.dismissed = String(dismissed);
    listeners.add(() => { refresh(); });
    onTabChange(() => { refresh(); });
    await refresh();
  }
  start();

  return {
    refresh,
    relocalize() { shown = ''; refresh(); },
    changed(changes) {
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
      if (touches(changes, ['ledger', 'call:'])) refresh();
    },
  };
}
