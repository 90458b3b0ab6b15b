// Side panel first paint with 20 servers and 500 tools: the time from navigation start to the
// frame after the server list is in the DOM (the panel's `servers-painted` performance mark),
// median of repeated loads of the real panel against the real core.
//
// The configuration is seeded straight into chrome.storage.local in the shape the service worker
// reads ("config" and "tools", the keys of crates/relay-core/src/contract/storage.rs) before anything talks to
// the core, so the worker loads it on its first message. The servers point at a closed loopback
// port: the list needs no network, and nothing else is measured.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchExtension, until, ROOT } from '../e2e/harness.mjs';

const SERVERS = 20;
const TOOLS = 500;
const LOADS = Number(process.env.PANEL_BENCH_LOADS || 15);

const base = JSON.parse(readFileSync(join(ROOT, 'tests/fixtures/prompts/tools100.json'), 'utf8'));
const catalog = Array.isArray(base) ? base : base.tools;

function seed() {
  const servers = [];
  const tools = {};
  for (let s = 0; s < SERVERS; s++) {
    const id = `server-${s + 1}`;
    servers.push({ id, name: `Server ${s + 1}`, url: `http://127.0.0.1:9/mcp/${s + 1}`, transport: 'auto', headers: [['Authorization', `Bearer token-${s}`]], timeoutMs: 30_000, enabled: true });
    tools[id] = [];
  }
  for (let i = 0; i < TOOLS; i++) {
    const t = catalog[i % catalog.length];
    tools[`server-${(i % SERVERS) + 1}`].push({ ...t, name: `${t.name}_${Math.floor(i / catalog.length)}` });
  }
  return { config: { servers, tools: {}, chats: {}, settings: {} }, tools };
}

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

const ext = await launchExtension();
try {
  const data = seed();
  await ext.sw.evaluate((d) => chrome.storage.local.set(d), data);
  const times = [];
  const page = await ext.context.newPage();
  await page.setViewportSize({ width: 400, height: 900 });
  // One load to warm the core (it reads storage once per worker life), then the measured loads.
  for (let i = 0; i <= LOADS; i++) {
    await page.goto(ext.url('www/panel.html'));
    const t = await until(() => page.evaluate(() => performance.getEntriesByName('servers-painted')[0]?.startTime), { timeoutMs: 10_000, what: 'servers-painted mark' });
    const count = await page.locator('li.server').count();
    if (count !== SERVERS) throw new Error(`the panel listed ${count} servers, expected ${SERVERS}`);
    if (i > 0) times.push(t);
  }
  const sorted = [...times].sort((a, b) => a - b);
  console.log(`side panel first paint over ${LOADS} loads (ms): min ${sorted[0].toFixed(1)}, median ${median(times).toFixed(1)}, max ${sorted.at(-1).toFixed(1)}`);
  console.log(JSON.stringify({ 'side panel first paint, 20 servers 500 tools': { value: Number(median(times).toFixed(1)), unit: 'ms' } }));
} finally {
  await ext.close();
}
