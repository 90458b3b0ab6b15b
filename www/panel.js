// @ts-check
// The side panel: the views of VIEW_LIST (below) behind an ARIA tab
// list. Each view reads its state from the core through the message contract and re-reads it
// when chrome.storage changes, so several open panels agree. Plain ES modules, no build step.
import { call, currentChat, onStorageChange, touches } from './core.js';
import { localize, setLanguage, t, tn } from './i18n.js';
import { mountServers } from './views/servers.js';

/**
 * What every view's mount function returns.
 * @typedef {{show(): unknown, hide(): void, changed(changes: Record<string, chrome.storage.StorageChange>): void, relocalize(): void, openApp?: (what: AppTarget) => Promise<void>}} ViewController
 */
/** @typedef {(section: HTMLElement, app: App) => ViewController} Mount */
/**
 * An app to open (MCP Apps): a chat call's (its ledger key), or a run by hand's.
 * @typedef {{key?: string, serverId?: string, tool?: string, arguments?: unknown, result?: unknown}} AppTarget
 */
/**
 * The panel as the views see it.
 * @typedef {object} App
 * @property {string | null} coreVersion
 * @property {string | null} current
 * @property {string} language
 * @property {(view: string) => boolean} visible
 * @property {<T extends import('../extension/contract.js').MessageType>(type: T) => Promise<import('../extension/contract.js').Responses[T]> | undefined} takePrefetch
 * @property {(lang: string) => Promise<void>} applyLanguage
 * @property {(what: AppTarget) => Promise<void>} openApp opens an app in Activity, where the chat's apps live
 * @property {import('../extension/contract.js').Settings} [settings] the core's Settings as the chat view last read them
 */

/**
 * The panel's views in tab order: the one list their tabs, their panels (built below) and the
 * loading of their code derive from. The first view loads with the page; the others load on
 * first use (or when the browser is idle after the first paint), so the server list is not
 * waiting for code it does not need.
 * @type {{id: string, label: string, mount: () => Promise<Mount>}[]}
 */
const VIEW_LIST = [
  { id: 'servers', label: 'tabServers', mount: async () => mountServers },
  { id: 'tools', label: 'tabTools', mount: () => import('./views/tools.js').then((m) => m.mountTools) },
  { id: 'chat', label: 'tabChat', mount: () => import('./views/chat.js').then((m) => m.mountChat) },
  { id: 'activity', label: 'tabActivity', mount: () => import('./views/activity.js').then((m) => m.mountActivity) },
  { id: 'settings', label: 'tabSettings', mount: () => import('./views/settings.js').then((m) => m.mountSettings) },
];
const VIEWS = VIEW_LIST.map((v) => v.id);
/** @type {Record<string, () => Promise<Mount>>} */
const MOUNT = Object.fromEntries(VIEW_LIST.map((v) => [v.id, v.mount]));

/** An element of panel.html by id (each one exists: the page is ours). */
const byId = (/** @type {string} */ id) => /** @type {HTMLElement} */ (document.getElementById(id));
/** Shows the pending-approval count on the Activity tab (set once the panel starts). */
let showPendingBadge = () => {};
/** The first-run guide (www/guide.js), mounted once the first view is on screen. */
/** @type {ReturnType<typeof import('./guide.js').mountGuide> | null} */
let guide = null;

/** @type {Map<string, Promise<unknown>>} */
const prefetched = new Map();
// The first view's data is requested before anything else, in parallel with the language.
prefetched.set('servers/list', call('servers/list'));
prefetched.get('servers/list')?.catch(() => {});
const settingsAnswer = call('settings/get').catch(() => null);
const pingAnswer = call('ping');

/** @type {App} */
const app = {
  coreVersion: null,
  current: null,
  language: 'auto',
  /** Whether `view` is the one shown and the panel itself is visible. */
  visible(/** @type {string} */ view) {
    return app.current === view && document.visibilityState === 'visible';
  },
  /** A request started at load for `type`, handed out once; later reads ask the core again. */
  takePrefetch(type) {
    const p = prefetched.get(type);
    prefetched.delete(type);
    // Set only under its own message's name, with that message's answer.
    return /** @type {Promise<import('../extension/contract.js').Responses[typeof type]> | undefined} */ (p);
  },
  async openApp(what) {
    await select('activity');
    await (await controller('activity')).openApp?.(what);
  },
  /** Switches the panel's language (stored in settings by the settings view). */
  async applyLanguage(/** @type {string} */ lang) {
    try {
      await setLanguage(lang);
    } catch (e) {
      console.warn('MCP Relay: language', lang, e);
      await setLanguage('auto');
    }
    app.language = lang || 'auto';
    localize();
    showCoreStatus();
    showPendingBadge();
    for (const c of Object.values(controllers)) c.relocalize();
    guide?.relocalize();
    if (app.current) await (await controller(app.current)).show();
  },
};

/** @type {Record<string, ViewController>} */
const controllers = {};
/** @type {Record<string, Promise<ViewController>>} */
const mounting = {};

/** The controller of a view, mounting it (and loading its code) the first time. */
function controller(/** @type {string} */ view) {
  mounting[view] ??= MOUNT[view]().then((mount) => {
    controllers[view] = mount(byId('view-' + view), app);
    return controllers[view];
  });
  return mounting[view];
}
/** Builds each view's tab and panel (ARIA tabs pattern) into panel.html's tab list and main. */
function buildViews() {
  for (const { id, label } of VIEW_LIST) {
    const tab = document.createElement('button');
    Object.assign(tab, { type: 'button', id: 'tab-' + id, textContent: t(label) });
    tab.setAttribute('role', 'tab');
    tab.setAttribute('aria-controls', 'view-' + id);
    Object.assign(tab.dataset, { view: id, i18n: label });
    byId('tabs').append(tab);
    const panel = document.createElement('section');
    Object.assign(panel, { id: 'view-' + id, tabIndex: 0, hidden: true });
    panel.setAttribute('role', 'tabpanel');
    panel.setAttribute('aria-labelledby', tab.id);
    byId('views').append(panel);
  }
}
buildViews();
// Servers' questions (elicitation) show above every view; their code loads beside the first view.
import('./elicit.js').then((m) => m.mountQuestions(byId('questions')));
const tabs = VIEWS.map((v) => byId('tab-' + v));
/** @type {{core: string} | null} */
let pong = null;
/** @type {Error | null} */
let pingError = null;


function showCoreStatus() {
  const status = byId('core-status');
  if (pong) {
    // Nothing to read when all is well: the version is there on hover, for bug reports.
    status.textContent = '';
    status.title = t('coreReady', pong.core);
    status.dataset.state = 'ready';
  } else if (pingError) {
    status.textContent = t('coreError', pingError.message);
    status.removeAttribute('title');
    status.dataset.state = 'error';
  }
}

/**
 * @param {string} view
 * @param {{focus?: boolean}} [options]
 */
async function select(view, { focus = false } = {}) {
  if (!VIEWS.includes(view)) view = VIEWS[0];
  if (app.current === view) return;
  const previous = app.current;
  app.current = view;
  for (const tab of tabs) {
    const on = tab.dataset.view === view;
    tab.setAttribute('aria-selected', String(on));
    tab.tabIndex = on ? 0 : -1;
    byId(tab.getAttribute('aria-controls') || '').hidden = !on;
  }
  if (focus) byId('tab-' + view).focus();
  if (previous) controllers[previous]?.hide();
  // The guide never offers the view shown, and its last line leaves when the user moves on.
  guide?.navigated();
  if (location.hash !== '#' + view) history.replaceState(null, '', '#' + view);
  // aria-busy until the view has its data: assistive technology waits, and so can a test.
  const panel = byId('view-' + view);
  panel.setAttribute('aria-busy', 'true');
  try {
    const c = await controller(view);
    if (app.current === view) await c.show();
  } finally {
    panel.removeAttribute('aria-busy');
  }
}

function wireTabs() {
  const list = byId('tabs');
  list.addEventListener('click', (ev) => {
    const tab = /** @type {HTMLElement | null} */ (/** @type {Element} */ (ev.target).closest('[role="tab"]'));
    if (tab) select(tab.dataset.view || '');
  });
  // Arrow keys move between tabs and activate them (WAI-ARIA tabs pattern, automatic activation).
  list.addEventListener('keydown', (ev) => {
    const i = VIEWS.indexOf(app.current || '');
    /** @type {Record<string, number>} */
    const moves = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: VIEWS.length - 1 };
    const next = moves[ev.key];
    if (next === undefined) return;
    ev.preventDefault();
    select(VIEWS[(next + VIEWS.length) % VIEWS.length], { focus: true });
  });
  window.addEventListener('hashchange', () => select(location.hash.slice(1)));
}

async function boot() {
  const settings = await settingsAnswer;
  if (settings && settings.language && settings.language !== 'auto') {
    app.language = settings.language;
    await setLanguage(settings.language).catch(() => setLanguage('auto'));
  }
  localize();
  wireTabs();
  pingAnswer.then(
    (p) => { pong = p; app.coreVersion = p.core; showCoreStatus(); },
    (e) => { pingError = e; showCoreStatus(); },
  );
  // The Activity tab shows how many calls wait for approval: the count the core puts on the
  // toolbar icon (set before the ledger it comes from is stored).
  const activityTab = byId('tab-activity');
  const pendingBadge = document.createElement('span');
  pendingBadge.className = 'tab-badge';
  pendingBadge.id = 'activity-badge';
  pendingBadge.hidden = true;
  const showPending = async () => {
    const text = await chrome.action.getBadgeText({}).catch(() => '');
    // Localizing the tab rewrites its text: put the badge back after it.
    if (!activityTab.contains(pendingBadge)) activityTab.appendChild(pendingBadge);
    pendingBadge.textContent = text;
    pendingBadge.hidden = !text;
    activityTab.setAttribute('aria-description', text ? tn('activityPending', Number(text) || 0, text) : '');
  };
  showPendingBadge = () => { showPending(); };
  showPending();
  // The in-page card's Open in panel marks a call (`showApp`): its app opens here.
  const showAsked = async () => {
    const chat = await currentChat().catch(() => null);
    const records = chat ? await call('activity/list', { chat }).catch(() => []) : [];
    const asked = records.find((r) => r.showApp);
    if (asked) await app.openApp({ key: asked.key });
  };
  onStorageChange(async (changes) => {
    prefetched.clear();
    if (touches(changes, ['ledger'])) showAsked();
    if (touches(changes, ['ledger', 'call:'])) showPending();
    if (app.current) controllers[app.current]?.changed(changes);
    guide?.changed(changes);
    if (touches(changes, ['config'])) {
      // Another panel may have switched the language: follow what the core now says.
      const s = await call('settings/get').catch(() => null);
      const lang = (s && s.language) || 'auto';
      if (lang !== app.language) await app.applyLanguage(lang);
    }
  });
  await select(location.hash.slice(1) || VIEWS[0]);
  showAsked();
  // A panel that was hidden when the card asked (another window, a tab in tests) looks again.
  document.addEventListener('visibilitychange', () => { if (document.visibilityState === 'visible') showAsked(); });
  // The load-time answers serve the first view only: one another view would take later is old.
  prefetched.clear();
  import('./guide.js').then((m) => { guide = m.mountGuide(byId('guide'), { go: (view) => select(view), current: () => app.current }); });
  // Warm the other views' code once the first one is on screen, so switching tabs is instant.
  const warm = () => VIEWS.forEach((v) => { if (v !== app.current) MOUNT[v]().catch(() => {}); });
  if ('requestIdleCallback' in window) requestIdleCallback(warm, { timeout: 2000 });
  else setTimeout(warm, 500);
}

boot().catch((e) => {
  console.error('MCP Relay: panel failed to start', e);
  const status = byId('core-status');
  status.textContent = t('coreError', e.message);
  status.dataset.state = 'error';
});
