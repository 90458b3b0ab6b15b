// Real markup: every page of ../shared/real-sites (whole pages saved from the live chat sites by
// another public project, scripts removed) served on 127.0.0.1, the unmodified extension applied
// once with the site's own adapter (the page's origin added as a custom site with it) and once
// with the generic one. What the loop would use (the site check's `found`: composer, send
// control, assistant and user turns, the last reply's text) is checked against the truth file
// written by reading each page (tests/fixtures/real-sites/<site>[-<state>].truth.json). Pages of
// the project's own (tests/fixtures/real-sites/pages/) check the kinds of markup the saved pages
// show only in part. The end prints a table: per page and adapter, whether the replies (their
// count and the last one's text) and the user's turns came out right.
//
// The saved pages are used by path, never copied into the repository; without them their tests
// skip and say why. Requests to anything but 127.0.0.1 (the sites' stylesheets and fonts) are
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
  ext = await launchExtension();
  panel = await openExtensionPage(ext, 'www/panel.html');
});
// What each page's replies came to, printed once at the end (the before/after record of a change).
/** @type {{page: string, adapter: string, replies: string, users: string}[]} */
const table = [];
after(async () => {
  if (table.length) {
    table.sort((a, b) => a.page.localeCompare(b.page) || a.adapter.localeCompare(b.adapter));
    console.log(['| page | adapter | replies | user turns |', '|---|---|---|---|', ...table.map((r) => `| ${r.page} | ${r.adapter} | ${r.replies} | ${r.users} |`)].join('\n'));
  }
  await ext?.close();
  for (const s of statics) await s.close();
});

/** Serves `root` (the real pages) on a fresh origin and registers it as a custom site with `adapter`. */
async function addSite(adapter, root = REAL) {
  const site = await serveStatic(root);
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

/**
 * Serves `truth.page` of `root` with `adapter` and checks what the site check reports against
 * the truth: the composer and send control it picks, the assistant and user turns it counts,
 * and the last reply it reads (a row of the table printed at the end).
 */
async function checkPage(t, { root = REAL, truth, adapter, which }) {
  const site = await addSite(adapter, root);
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
  const holds = (/** @type {string | null} */ r) => (truth.lastReply ? r !== null && truth.lastReply.contains.every((s) => r.includes(s)) && !truth.lastReply.excludes.some((s) => r.includes(s)) : r === null);
  table.push({ page: truth.page, adapter: which, replies: f.assistant === truth.assistant && holds(f.lastReply) ? 'right' : `WRONG (${f.assistant} of ${truth.assistant}${holds(f.lastReply) ? '' : ', last reply misread'})`, users: f.user === truth.user ? 'right' : `WRONG (${f.user} of ${truth.user})` });
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
}

for (const truth of truths) {
  for (const which of ['site', 'generic']) {
    const adapter = which === 'site' ? truth.adapter : 'generic';
    test(`real markup, ${truth.site} with the ${which === 'site' ? 'site\'s' : 'generic'} adapter: composer, send, turns and the last reply`, { skip: absent || false }, async (t) => {
      await checkPage(t, { truth, adapter, which });
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

// Pages of this project's own (tests/fixtures/real-sites/pages/), each modelled on what live
// pages of the same sites show, for what the saved pages show only in part: the classes of
// markup the generic adapter read wrong, and an adapter's selector list meaning every selector.
const PAGES = join(TRUTH, 'pages');

test('real markup, a reply as many sibling paragraphs is one turn read whole (generic adapter)', async (t) => {
  // 23 blocks (p, ul, pre, h2) across three replies, each naming its reply in its class: three
  // replies, the last read from its first paragraph to its last.
  await checkPage(t, {
    root: PAGES, adapter: 'generic', which: 'generic',
    truth: {
      site: 'paragraph-replies', page: 'paragraph-replies.html',
      composer: 'form div.ProseMirror[contenteditable="true"]', send: 'form button[aria-label="Send message"]',
      assistant: 3, user: 3,
      lastReply: { contains: ['Salt comes from rocks, third reply begins here.', 'Sodium', 'salinity = 35', 'The last paragraph of the third reply.'], excludes: ['Why is the sea salty?', 'second reply', '6:52 PM'] },
    },
  });
});

test('real markup, empty containers named like messages are not replies (generic adapter)', async (t) => {
  // A support widget's mount point and a list's placeholders, empty, beside two real exchanges.
  await checkPage(t, {
    root: PAGES, adapter: 'generic', which: 'generic',
    truth: {
      site: 'empty-containers', page: 'empty-containers.html',
      composer: 'form textarea', send: 'form button[type="submit"]',
      assistant: 2, user: 2,
      lastReply: { contains: ['A little over one second, second reply.', 'about 384,000 km away'], excludes: ['And from the Moon?', 'first reply'] },
    },
  });
});

const headingQueries = {
  site: 'heading-queries', page: 'heading-queries.html', adapter: 'perplexity',
  composer: 'div#ask-input[contenteditable="true"]', send: 'button[aria-label="Submit"]',
  assistant: 3, user: 3,
  lastReply: { contains: ['In music p means piano, softly, third answer.', 'the last line of the third answer'], excludes: ['And in music?', 'Follow-ups', 'mezzo piano', 'Reviewed 6 sources', 'second answer'] },
};

test('real markup, the first query as a heading and later ones as divs: every query a user turn (generic adapter)', async (t) => {
  await checkPage(t, { root: PAGES, adapter: 'generic', which: 'generic', truth: headingQueries });
});

test('real markup, an adapter\'s selector list means every selector, in page order, once (perplexity\'s adapter)', async (t) => {
  // The first query matches only the second of the adapter's user selectors (h1), the later
  // ones the first (div); both of its assistant selectors match each answer's body.
  await checkPage(t, { root: PAGES, adapter: 'perplexity', which: 'site', truth: headingQueries });
});
