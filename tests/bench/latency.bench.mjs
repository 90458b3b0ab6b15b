// The tools/call latency figures of tests/interop/latency.mjs (the core's client in Node versus
// plain fetch, loopback; JSON and SSE answers), in the summary's {"name": {value, unit}} form.
import { execFileSync } from 'node:child_process';
import { join } from 'node:path';

const ROOT = process.env.RELAY_ROOT || process.cwd();
const run = (...args) => {
  const out = execFileSync('node', [join(ROOT, 'tests/interop/latency.mjs'), ...args], { cwd: ROOT, encoding: 'utf8', timeout: 300_000 });
  return JSON.parse(out.trim().split('\n').filter((l) => l.startsWith('{')).pop());
};
const json = run();
const sse = run('--sse');
console.log(JSON.stringify({
  'tools/call added latency vs direct, JSON answers (median)': { value: json.added_latency_ms_median, unit: 'ms' },
  'tools/call added latency vs direct, SSE answers (median)': { value: sse.added_latency_ms_median, unit: 'ms' },
  'initialize requests for 100 calls': { value: json.initialize_requests, unit: 'requests' },
}));
