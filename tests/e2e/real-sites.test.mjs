// Real markup: every page of ../shared/real-sites (whole pages saved from the live chat sites by
// another public project, scripts removed) served on 127.0.0.1, the unmodified extension applied
// once with the site's own adapter (the page's origin added as a custom site with it) and once
// with the generic one. What the loop would use (the site check's `found`: composer, send
// control, assistant and user turns, the last reply's text) is checked against the truth file
// written by reading each page (tests/fixtures/real-sites/<site>.truth.json).
//
// The pages are used by path, never copied into the repository; without them the suite skips
// and says why. Requests to anything but 127.0.0.1 (the sites' stylesheets and fonts) are
// refused, so the suite runs offline and the same everywhere.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, serveStatic, until, ok, ROOT } from './harness.mjs';

const REAL = process.env.RELAY_REAL_SITES || resolve(ROOT, '../shared/real-sites');
const TRUTH = join(ROOT, 'tests/fixtures/real-sites');
const truths = readdirSync(TRUTH).filter((f) => f.endsWith('.truth.json'))
  .map((f) => ({ site: f.replace(/\.truth\.json$/, ''), ...JSON.parse(readFileSync(join(TRUTH, f), 'utf8')) }));
const absent = existsSync(REAL) ? null : `the real saved pages are absent (${REAL}): the shared folder is not mounted here`;

let ext, panel;
const statics = [];
before(async () => {
  if (absent) return;
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
});
after(async () => {
  await ext?.close();
  for (const s of statics) await s.close();
});

/** Serves the real pages on a fresh origin and registers it as a custom site with `adapter`. */
async function addSite(adapter) {
  const site = await serveStatic(REAL);
  statics.push(site);
  await ok(await coreCall(panel, { type: 'sites/add', origin: site.origin, adapter }));
  await until(() => ext.sw.evaluate(async (id) => (await chrome.scripting.getRegisteredContentScripts()).some((r) => r.id === id), 'custom:' + site.origin),
    { what: `content script for ${site.origin}` });
  return site;
}

/** Opens a page with only 127.0.0.1 reachable; resolves once the content script is ready. */
async function open(url, adapter) {
  const page = await ext.context.newPage();
  await page.route('**/*', (route) => (new URL(route.request().url()).hostname === '127.0.0.1' ? route.continue() : route.abort()));
  await page.goto(url, { waitUntil: 'domcontentloaded' });
  await page.locator(`mcp-relay-ui[data-state="ready"][data-adapter="${adapter}"]`).waitFor({ state: 'attached', timeout: 15_000 });
  const tabs = await ext.sw.evaluate(async (u) => (await chrome.tabs.query({})).filter((t) => t.url === u).map((t) => t.id), page.url());
  return { page, chat: { tabId: Math.max(...tabs), url: page.url() } };
}

/** The element a site check's CSS path names (` >>> ` hops into open shadow roots). */
function resolvePath(page, path) {
  return page.evaluateHandle((p) => {
    /** @type {any} */
    let scope = document;
    let el = null;
    for (const part of p.split(' >>> ')) {
      el = scope.querySelector(part);
      if (!el) return null;
      scope = el.shadowRoot;
    }
    return el;
  }, path);
}

/** Whether the check's path and the truth's selector name the same single element. */
async function same(page, path, selector) {
  if (!path) return false;
  const found = await resolvePath(page, path);
  return page.evaluate(([f, s]) => {
    const want = document.querySelectorAll(s);
    return want.length === 1 && f === want[0];
  }, [found, selector]);
}

for (const truth of truths) {
  for (const which of ['site', 'generic']) {
    const adapter = which === 'site' ? truth.adapter : 'generic';
    test(`real markup, ${truth.site} with the ${which === 'site' ? 'site\'s' : 'generic'} adapter: composer, send, turns and the last reply`, { skip: absent || false }, async (t) => {
      const site = await addSite(adapter);
      const { page, chat } = await open(`${site.origin}/${truth.page}`, adapter);
      // The truth itself names one element per part in this page.
      assert.equal(await page.locator(truth.composer).count(), 1, `truth: ${truth.composer} names one element`);
      if (truth.send) assert.equal(await page.locator(truth.send).count(), 1, `truth: ${truth.send} names one element`);

      const report = await ok(await coreCall(panel, { type: 'sites/check', chat }));
      const f = report.found;
      const got = {
        composer: await same(page, f.input, truth.composer),
        send: truth.send ? await same(page, f.send, truth.send) : f.send === null,
        assistant: f.assistant,
        user: f.user,
        reply: f.lastReply === null ? null : f.lastReply.replace(/\s+/g, ' ').trim().slice(0, 80),
      };
      t.diagnostic(`${truth.site}/${adapter}: ${JSON.stringify({ ...got, input: f.input, sendPath: f.send })}`);
      assert.equal(report.adapter, adapter);
      assert.ok(got.composer, `composer: found ${f.input}, want ${truth.composer}`);
      assert.ok(got.send, `send: found ${f.send}, want ${truth.send}`);
      assert.equal(f.assistant, truth.assistant, 'assistant turns');
      assert.equal(f.user, truth.user, 'user turns');
      if (truth.lastReply) {
        assert.ok(f.lastReply !== null, 'a last reply was read');
        for (const s of truth.lastReply.contains) assert.ok(f.lastReply.includes(s), `the last reply holds "${s}": ${JSON.stringify(f.lastReply)}`);
        for (const s of truth.lastReply.excludes) assert.ok(!f.lastReply.includes(s), `the last reply leaves out "${s}": ${JSON.stringify(f.lastReply)}`);
      } else {
        assert.equal(f.lastReply, null, 'no reply on the page');
      }
      await page.close();
    });
  }
}

test('real markup, claude with an empty composer: the unlabelled button in Send\'s place is not Send (generic adapter)', { skip: absent || false }, async () => {
  const truth = truths.find((x) => x.site === 'claude');
  const site = await addSite('generic');
  const { page, chat } = await open(`${site.origin}/${truth.page}`, 'generic');
  // As the live page does with nothing typed: the composer is empty and the control where Send
  // was is the voice-mode button, an icon with no label.
  await page.evaluate(([composer, send]) => {
    document.querySelector(composer).replaceChildren(document.createElement('p'));
    const b = document.querySelector(send);
    b.removeAttribute('aria-label');
    b.dataset.voice = '1';
  }, [truth.composer, truth.send]);
  const report = await ok(await coreCall(panel, { type: 'sites/check', chat }));
  assert.equal(report.found.send, null, `nothing is taken for Send: ${report.found.send}`);
  await page.close();
});
