// Time from a reply's last token to its call starting, on a site fixture (ChatGPT's layout and
// ProseMirror editor), through the real extension and the demo MCP server. The last token's
// time is taken in the page, the call's start in the service worker (both Date.now()). A call
// runs as soon as it is complete, so when the reply streams text after it, the figure is
// negative: the call started before the reply ended.
// The last stdout line is the figure: {"reply end to call start (fixture)": {"value", "unit"}}.
import { loadAdapters, startRig, waitForReply, until } from '../fixtures/sites/_shared/loop.mjs';

const RUNS = Number(process.env.SITES_BENCH_RUNS || 11);
const { SITES } = loadAdapters();
const adapter = SITES.find((s) => s.id === 'chatgpt');
const rig = await startRig();
const samples = [];
try {
  const site = await rig.addSite('chatgpt');
  for (let i = 0; i < RUNS; i++) {
    const { page, chatRef } = await rig.openChat(`${site.origin}/chatgpt/?run=${i}`, {}, 'chatgpt');
    await rig.insertInstructions(chatRef);
    await waitForReply(page, adapter, 'Final answer');
    const calls = await rig.calls(chatRef, page);
    // The first reply (the one with the call) ended at the first recorded last token.
    const replyEnd = await page.evaluate(() => window.__fixture.replyEnds[0]);
    await until(() => calls[0].startedAt, { what: 'startedAt' });
    samples.push(calls[0].startedAt - replyEnd);
    await page.evaluate(() => sessionStorage.clear());
    await page.close();
  }
} finally {
  await rig.close();
}
samples.sort((a, b) => a - b);
const median = samples[Math.floor(samples.length / 2)];
console.log(`reply end to call start, ${RUNS} runs (ms): ${samples.join(' ')}`);
console.log(JSON.stringify({ 'reply end to call start (fixture)': { value: median, unit: 'ms' } }));
