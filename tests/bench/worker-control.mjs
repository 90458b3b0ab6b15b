// Stopping the extension's service worker for cold-start benchmarks, through the DevTools
// protocol on an extension page (sw.bench.mjs, coldstart.bench.mjs).
//
// The first stop waits until Chrome reports the worker's version activated: a stop while the
// version is still installing fails its installation ("ServiceWorker failed to install:
// Operation has failed"), and the extension then has no worker for the rest of the browser's
// life; every message after it is dropped ("Receiving end does not exist"). That is what failed
// a fresh-clone CI run (sw.bench.mjs) and one in three local runs of coldstart.bench.mjs.

/**
 * @param {import('playwright-core').BrowserContext} context
 * @param {import('playwright-core').Page} page an extension page
 */
export async function workerControl(context, page) {
  const cdp = await context.newCDPSession(page);
  // Only the page's own extension's workers count: the browser may run others (the other build
  // of coldstart-compare.mjs), whose activation says nothing about this one's.
  // (`URL.origin` is "null" for chrome-extension: URLs in Node: scheme and host instead.)
  const { protocol, host } = new URL(page.url());
  const origin = `${protocol}//${host}`;
  // The newest running status and version status of each worker version, as Chrome reports them.
  const running = new Map();
  const status = new Map();
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const v of versions) {
      if (!String(v.scriptURL).startsWith(`${origin}/`)) continue;
      running.set(v.versionId, v.runningStatus);
      status.set(v.versionId, v.status);
    }
  });
  await cdp.send('ServiceWorker.enable');
  const isStopped = () => running.size > 0 && [...running.values()].every((s) => s === 'stopped');
  const activated = () => [...status.values()].some((s) => s === 'activated');
  let ready = false;

  /** Waits (at most 20 s) for an activated version: only then may it be stopped. */
  async function waitActivated() {
    for (let t = 0; t < 400 && !activated(); t++) await new Promise((r) => setTimeout(r, 50));
    if (!activated()) throw new Error(`the service worker was not activated within 20 s (statuses: ${[...status.values()].join(', ')})`);
    ready = true;
  }

  /**
   * Stops the worker and waits for Chrome to report it stopped; stops it again every 250 ms if
   * something woke it in between (the extension's own start-up work), for at most 15 s.
   */
  async function stop() {
    if (!ready) await waitActivated();
    const deadline = Date.now() + 15_000;
    for (let attempt = 0; attempt < 60 && Date.now() < deadline; attempt++) {
      await cdp.send('ServiceWorker.stopAllWorkers');
      for (let t = 0; t < 25 && !isStopped(); t++) await new Promise((r) => setTimeout(r, 10));
      if (isStopped()) return;
    }
    throw new Error(`the service worker did not stop within 15 s (statuses: ${[...running.values()].join(', ')})`);
  }

  return { stop, waitActivated };
}

/**
 * Sends the worker of `page`'s extension one message (`{type}`, or the message itself) from
 * that page and times its answer (ms). Null when Chrome dropped the message because a forced stop was still being torn
 * down ("Receiving end does not exist", as in sw.bench.mjs: the caller takes that start again),
 * or when no answer came within 10 s (a message Chrome delivered to a worker being torn down,
 * neither answered nor failed: seen hanging sw.bench.mjs in a CI run).
 * @param {import('playwright-core').Page} page an extension page
 * @param {string | {type: string}} type
 * @returns {Promise<number | null>}
 */
export function timedMessage(page, type) {
  const message = typeof type === 'string' ? { type } : type;
  return page.evaluate(async (message) => {
    const t = performance.now();
    try {
      const answer = await Promise.race([
        chrome.runtime.sendMessage(message),
        new Promise((resolve) => setTimeout(() => resolve('no answer in 10 s'), 10_000)),
      ]);
      if (answer === 'no answer in 10 s') return null;
      if (!answer.ok) throw new Error(`no answer: ${JSON.stringify(answer)}`);
    } catch (e) {
      if (/Receiving end does not exist/.test(String(e && e.message))) return null;
      throw e;
    }
    return performance.now() - t;
  }, message);
}
