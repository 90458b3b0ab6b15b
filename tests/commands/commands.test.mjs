// The README's commands, run for real (after `cargo xtask build`, whose outputs they reuse):
// `cargo xtask dist` (the zip, unpacked, loads in Chromium and answers; its install-host.sh
// installs the packed native host into a temporary HOME and removes it again), `cargo xtask
// install-host` (the native host registered, idempotent, removed again), `cargo xtask
// conformance` (the official suite passes and says so), `cargo xtask size` (bytes per crate), a
// short `cargo xtask fuzz`, and
// `cargo xtask bench --quick` (every figure lands in target/bench/summary.json).
//
//   node --test tests/commands/commands.test.mjs
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { launchExtension, openExtensionPage, coreCall, ROOT, TARGET } from '../e2e/harness.mjs';

/** Runs `cargo xtask ...args` in the repository; resolves with {code, stdout, stderr}. */
function xtask(args, { env = {}, timeoutMs }) {
  return new Promise((resolve, reject) => {
    // Not NODE_TEST_CONTEXT: set by this `node --test`, it would make a nested one skip its files.
    const { NODE_TEST_CONTEXT: _, ...inherited } = process.env;
    const child = spawn('cargo', ['xtask', ...args], { cwd: ROOT, env: { ...inherited, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c) => { stdout += c; });
    child.stderr.on('data', (c) => { stderr += c; });
    const timer = setTimeout(() => {
      process.kill(child.pid, 'SIGKILL');
      reject(new Error(`cargo xtask ${args.join(' ')} did not finish within ${timeoutMs} ms:\n${stderr.slice(-4000)}`));
    }, timeoutMs);
    child.once('exit', (code) => {
      clearTimeout(timer);
      process.stderr.write(`# cargo xtask ${args.join(' ')}: exit ${code}\n`);
      resolve({ code, stdout, stderr });
    });
  });
}

const ok = (r, what) => assert.equal(r.code, 0, `${what} failed:\n${r.stderr.slice(-6000)}`);

/** Entries of a zip file (Python's zipfile: no extra tool needed). */
function zipEntries(zip) {
  const out = execFileSync('python3', ['-c', 'import sys, zipfile; print("\\n".join(zipfile.ZipFile(sys.argv[1]).namelist()))', zip], { encoding: 'utf8' });
  return out.split('\n').filter(Boolean);
}

test('cargo xtask dist: a zip of only what Chrome loads, which loads unpacked and answers, with the native host its script installs', { timeout: 300_000 }, async () => {
  const r = await xtask(['dist'], { timeoutMs: 280_000 });
  ok(r, 'cargo xtask dist');
  const manifest = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8'));
  const zip = r.stdout.trim().split('\n').at(-1);
  assert.equal(zip, join(TARGET, 'dist', `mcp-relay-${manifest.version}.zip`));
  assert.ok(existsSync(zip), zip);
  const entries = zipEntries(zip);
  for (const needed of ['manifest.json', 'extension/pkg/relay_wasm_bg.wasm', 'extension/pkg/relay_wasm.js', 'extension/pkg/relay_rare_bg.wasm', 'extension/pkg/relay_rare.js', manifest.background.service_worker, manifest.side_panel.default_path]) {
    assert.ok(entries.includes(needed), `${needed} in the zip`);
  }
  const unwanted = entries.filter((e) => e.startsWith('tests/') || /(^|\/)tests?\//.test(e) || e.endsWith('.d.ts') || e.endsWith('.gitignore') || e.startsWith('crates/') || e.startsWith('target/'));
  assert.deepEqual(unwanted, [], 'no tests, type declarations, sources or build output');

  const dir = mkdtempSync(join(tmpdir(), 'mcp-relay-dist-'));
  let ext;
  try {
    execFileSync('python3', ['-c', 'import sys, zipfile; zipfile.ZipFile(sys.argv[1]).extractall(sys.argv[2])', zip, dir]);
    ext = await launchExtension({ extensionDir: dir });
    const page = await openExtensionPage(ext, manifest.side_panel.default_path);
    const answer = await coreCall(page, { type: 'ping' });
    assert.equal(answer.ok, true, JSON.stringify(answer));
    assert.equal(typeof answer.data.core, 'string', JSON.stringify(answer));
    // Chrome runs the unpacked copy: a file the repository has but the zip leaves out is absent.
    const served = (file) => page.evaluate((f) => fetch(chrome.runtime.getURL(f)).then((r) => r.ok, () => false), file);
    assert.equal(await served('manifest.json'), true);
    assert.equal(existsSync(join(ROOT, 'extension/content/content.d.ts')), true);
    assert.equal(await served('extension/content/content.d.ts'), false);

    // Local servers without Rust: this platform's host and both install scripts, the id filled in.
    const platform = `${{ linux: 'linux', darwin: 'macos', win32: 'windows' }[process.platform]}-${{ x64: 'x86_64', arm64: 'aarch64' }[process.arch]}`;
    assert.ok(entries.includes(`host/${platform}/relay-host`), `host/${platform}/relay-host in the zip`);
    for (const script of ['install-host.sh', 'install-host.ps1']) {
      assert.ok(entries.includes(script), `${script} in the zip`);
      assert.ok(readFileSync(join(dir, script), 'utf8').includes(ext.extensionId), `${script} names the extension's id`);
    }
    // The shell script, run as a user would (unzipped by a tool that drops the executable bit),
    // installs for the user of a temporary HOME, and --uninstall removes it again.
    const home = mkdtempSync(join(tmpdir(), 'mcp-relay-home-'));
    try {
      const { XDG_DATA_HOME: _d, XDG_CONFIG_HOME: _c, ...rest } = process.env;
      const env = { ...rest, HOME: home };
      const mac = process.platform === 'darwin';
      const exe = join(home, mac ? 'Library/Application Support/mcp-relay/bin/relay-host' : '.local/share/mcp-relay/bin/relay-host');
      const manifests = (mac ? ['Library/Application Support/Google/Chrome', 'Library/Application Support/Chromium'] : ['.config/google-chrome', '.config/chromium'])
        .map((b) => join(home, b, 'NativeMessagingHosts/com.mcp_relay.host.json'));
      execFileSync('sh', [join(dir, 'install-host.sh')], { env, encoding: 'utf8' });
      assert.ok(existsSync(exe), `the host is copied to ${exe}`);
      for (const file of manifests) {
        const m = JSON.parse(readFileSync(file, 'utf8'));
        assert.equal(m.path, exe, `${file} names the copy`);
        assert.deepEqual(m.allowed_origins, [`chrome-extension://${ext.extensionId}/`]);
      }
      execFileSync('sh', [join(dir, 'install-host.sh'), '--uninstall'], { env, encoding: 'utf8' });
      assert.ok(!existsSync(exe), 'the copy is removed');
      for (const file of manifests) assert.ok(!existsSync(file), `${file} is removed`);
    } finally {
      rmSync(home, { recursive: true, force: true });
    }
  } finally {
    await ext?.close();
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cargo xtask install-host: registers the native host for Chrome and Chromium, again without harm, and --uninstall removes it', { timeout: 600_000 }, async () => {
  // Where the host goes and where Chrome looks, under a temporary folder (HOME stays: cargo needs it).
  const dir = mkdtempSync(join(tmpdir(), 'mcp-relay-install-'));
  const env = { XDG_DATA_HOME: join(dir, 'data'), XDG_CONFIG_HOME: join(dir, 'config') };
  const exe = join(dir, 'data/mcp-relay/bin/relay-host');
  const manifests = ['google-chrome', 'chromium'].map((b) => join(dir, 'config', b, 'NativeMessagingHosts/com.mcp_relay.host.json'));
  const key = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8')).key;
  assert.ok(key, 'the manifest has the key that fixes the extension id');
  try {
    for (const round of ['first', 'again']) {
      const r = await xtask(['install-host'], { env, timeoutMs: 580_000 });
      ok(r, `install-host (${round})`);
      assert.ok(existsSync(exe), `${round}: the host is installed at ${exe}`);
      for (const file of manifests) {
        const m = JSON.parse(readFileSync(file, 'utf8'));
        assert.equal(m.name, 'com.mcp_relay.host');
        assert.equal(m.type, 'stdio');
        assert.equal(m.path, exe, `${file} names the installed host`);
        // One extension only: the one the manifest's key names.
        assert.equal(m.allowed_origins.length, 1);
        assert.match(m.allowed_origins[0], /^chrome-extension:\/\/[a-p]{32}\/$/);
      }
    }
    const r = await xtask(['install-host', '--uninstall'], { env, timeoutMs: 120_000 });
    ok(r, 'install-host --uninstall');
    assert.ok(!existsSync(exe), 'the host is removed');
    for (const file of manifests) assert.ok(!existsSync(file), `${file} is removed`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('cargo xtask demo: the whole loop on bundled defaults, headless, with its screenshots', { timeout: 600_000 }, async () => {
  const shots = join(TARGET, 'demo');
  rmSync(shots, { recursive: true, force: true }); // the screenshots checked below are this run's
  const r = await xtask(['demo'], { timeoutMs: 580_000 });
  ok(r, 'cargo xtask demo');
  const steps = r.stderr + r.stdout;
  for (let n = 1; n <= 19; n++) assert.match(steps, new RegExp(`\\[demo\\]\\s+${n}\\. `), `step ${n}`);
  assert.match(steps, /the assistant called add: the call waits for approval/);
  assert.match(steps, /Final answer: 2 \+ 3 \+ 4 = 9/);
  const manifest = JSON.parse(readFileSync(join(shots, 'manifest.json'), 'utf8'));
  const files = ['1-server-added.png', '2-chat-servers-picked.png', '3-call-waiting.png', '4-result-in-chat.png', '5-final-answer.png', '7-app-in-panel.png'];
  assert.deepEqual(manifest.shots.map((x) => x.file), files);
  for (const png of files) assert.ok(existsSync(join(shots, png)), `screenshot ${png}`);
});

test('cargo xtask conformance: the official client suite passes and prints its tally', { timeout: 600_000 }, async () => {
  const r = await xtask(['conformance'], { timeoutMs: 580_000 });
  ok(r, 'cargo xtask conformance');
  const tally = r.stdout.match(/^(\d+) passed, (\d+) failed$/m);
  assert.ok(tally, `no "N passed, N failed" line in:\n${r.stdout}`);
  assert.equal(tally[2], '0');
  // Per suite (0.1.16 and 0.2.0-alpha.12), the scenario listing check plus initialize,
  // tools_call and sse-retry at least.
  assert.ok(Number(tally[1]) >= 8, tally[0]);
  for (const suite of ['0\\.1\\.16', '0\\.2\\.0-alpha\\.12']) {
    for (const scenario of ['initialize', 'tools_call', 'sse-retry']) {
      assert.match(r.stderr, new RegExp(`# ${suite} ${scenario}: Passed: (\\d+)/\\1, 0 failed, 0 warnings`), `${suite} ${scenario}`);
    }
  }
});

test('cargo xtask size: the module\'s bytes per crate and per function, and the crates above their baseline', { timeout: 900_000 }, async () => {
  const r = await xtask(['size'], { timeoutMs: 880_000 });
  ok(r, 'cargo xtask size');
  assert.match(r.stdout, /^per crate \(code bytes/m);
  assert.match(r.stdout, /^ {2}relay_core +\d+\.\d KB/m);
  assert.match(r.stdout, /^top 15 functions:/m);
  assert.match(r.stdout, /^(no crate is above its baseline|grew: \S+ \d+ bytes of code)/m);
});

test('cargo xtask sweep: the loop on the given generated pages, with the table per dimension value', { timeout: 600_000 }, async () => {
  const bad = await xtask(['sweep', '--seeds', 'many'], { timeoutMs: 120_000 });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /usage: cargo xtask sweep/);
  const r = await xtask(['sweep', '--seed', '391', '--seed', '2', '--jobs', '2'], { timeoutMs: 580_000 });
  ok(r, 'cargo xtask sweep');
  assert.match(r.stdout, /^ok {3}seed 391 /m);
  assert.match(r.stdout, /^ok {3}seed 2 /m);
  assert.match(r.stdout, /2 of 2 seeds passed \(100\.0%\)/);
  assert.match(r.stdout, /\| sendKey \| ctrl-enter \| 1 \| 1 \| — \|/);
  const summary = readFileSync(join(TARGET, 'sweep/summary.md'), 'utf8');
  assert.match(summary, /\| dimension \| value \| pages \| passed \| first failure \|/);
});

test('cargo xtask fuzz: random seeded rounds for FUZZ_SECONDS, on stable Rust', { timeout: 600_000 }, async () => {
  const bad = await xtask(['fuzz'], { env: { FUZZ_SECONDS: 'soon' }, timeoutMs: 120_000 });
  assert.notEqual(bad.code, 0);
  assert.match(bad.stderr, /FUZZ_SECONDS must be a whole number/);

  const started = Date.now();
  const r = await xtask(['fuzz'], { env: { FUZZ_SECONDS: '5' }, timeoutMs: 580_000 });
  ok(r, 'cargo xtask fuzz');
  const seeds = [...r.stderr.matchAll(/round \d+, FUZZ_SEED=(\d+) FUZZ_CASES=(\d+)/g)].map((m) => m[1]);
  assert.ok(seeds.length >= 1, r.stderr.slice(-3000));
  assert.equal(new Set(seeds).size, seeds.length, 'every round has its own seed');
  // Each round draws the property tests' cases from its own seed too.
  const propertySeeds = [...r.stderr.matchAll(/round \d+, property tests with PROPTEST_RNG_SEED=(\d+)/g)].map((m) => m[1]);
  assert.deepEqual(propertySeeds, seeds, r.stderr.slice(-3000));
  const done = r.stdout.match(/fuzz: (\d+) random rounds of (\d+) mutations .* in ([\d.]+)s, no failure/);
  assert.ok(done, r.stdout);
  assert.equal(Number(done[1]), seeds.length);
  assert.ok(Number(done[3]) >= 5, 'the run used its time budget');
  process.stderr.write(`# fuzz: ${done[0]} (${Date.now() - started} ms with cargo)\n`);
});

// Every figure BENCHMARKS.md reports, by name (a regular expression where the name carries a
// count or the slowest input's name), each a finite number with a unit.
const FIGURES = [
  ...['1KB', '10KB', '100KB', '1MB', '100KB_one_large_call'].flatMap((size) => [
    new RegExp(`^parse_full/${size} \\(native\\)$`),
    new RegExp(`^parse_full/${size} throughput \\(native\\)$`),
  ]),
  /^parse_stream_1000_appends\/100KB \(native\)$/,
  /^parse_stream_1000_appends\/100KB_one_large_call \(native\)$/,
  /^parse_adversarial_1MB\/.+ throughput \(native\)$/,
  /^prompt\/1000_tools \(native\)$/,
  /^prompt\/everything \(native\)$/,
  /^prompt\/tools100 \(native\)$/,
  /^prompt_rebuild\/1000_tools \(native\)$/,
  /^prompt_app\/1000_tools_first \(native\)$/,
  /^prompt_app\/1000_tools_again \(native\)$/,
  /^stream\/full ratio, 100KB in 1000 appends \(native\)$/,
  /^stream\/full ratio, 100KB one large call in 1000 appends \(native\)$/,
  /^wasm size \(optimised\)$/,
  /^wasm size \(optimised, gzipped\)$/,
  /^prompt tokens o200k, everything \(\d+ tools\)$/,
  /^prompt tokens o200k, tools100 \(\d+ tools\)$/,
  /^prompt tokens estimate, everything$/,
  /^prompt tokens estimate, tools100$/,
  /^prompt generation, \d+ tools \(wasm\)$/,
  /^prompt rebuild from rendered tools, \d+ tools \(wasm\)$/,
  /^parseToolCalls fixed cost, same servers array, 100 tools \(wasm\)$/,
  /^parseToolCalls with a new servers array, 100 tools \(wasm\)$/,
  /^stream append constant cost \(wasm\)$/,
  /^UTF-8 copy of the 1MB reply into a buffer, the floor of any wasm parse$/,
  /^parse 100KB reply throughput \(wasm\)$/,
  /^parse 1MB reply throughput \(wasm\)$/,
  /^parse 1MB reply, 205 calls, throughput \(wasm\)$/,
  /^promptForServers with a new servers array, 1000 tools \(wasm\)$/,
  /^promptForServers with new server objects, same tools, 1000 tools \(wasm\)$/,
  /^promptForServers with one server's tools changed, 1000 tools in \d+ servers \(wasm\)$/,
  /^promptForServers with new tools, 1000 tools \(wasm\)$/,
  /^parse 1MB reply, one large call, throughput \(wasm\)$/,
  /^cold start, first message servers\/list: total \(median\)$/,
  /^parse slowest 1 MB adversarial reply of \d+ \(wasm; .+\)$/,
  /^stream\/full ratio, 100KB in 1000 appends \(wasm\)$/,
  /^stream\/full ratio, 100KB one large call in 1000 appends \(wasm\)$/,
  /^service worker cold start to first answer \(median\)$/,
  /^message round trip, warm worker \(median\)$/,
  /^tools\/call added latency vs direct, JSON answers \(median\)$/,
  /^tools\/call added latency vs direct, SSE answers \(median\)$/,
  /^initialize requests for 100 calls$/,
  /^side panel first paint, 20 servers 500 tools$/,
  /^reply end to call start \(fixture\)$/,
  // competitors.bench.mjs: each competitor's own format, ours against theirs (issue 22).
  ...['deepseek-pp', 'superassistant-jsonl', 'superassistant-xml', 'gemini-nexus'].flatMap((f) => [
    new RegExp(`^parse ${f} format, (20 calls|205 calls|one call after 1 MB of prose|one 1 MB call), ours ÷ ${f}$`),
    new RegExp(`^stream ${f} format, 100 KB in 1,000 appends ÷ one parse \\(wasm\\)$`),
  ]),
  /^prompt for \d+ tools, first render, ours ÷ gemini-nexus$/,
  /^prompt for \d+ tools, known tools, ours ÷ gemini-nexus$/,
];

test('cargo xtask bench --quick: every figure once, in target/bench/summary.json', { timeout: 1_800_000 }, async () => {
  const summaryPath = join(TARGET, 'bench', 'summary.json');
  rmSync(summaryPath, { force: true });
  const r = await xtask(['bench', '--quick'], { timeoutMs: 1_780_000 });
  if (r.code !== 0) {
    // Criterion's progress fills stderr: name the step that failed and show its own output first.
    const steps = r.stderr.split(/^(?=\S*==> bench: )/m);
    const failed = steps.at(-1) ?? '';
    assert.fail(`cargo xtask bench --quick failed in:\n${failed.slice(-5000)}\n--- end of stderr ---\n${r.stderr.slice(-1500)}`);
  }
  const summary = JSON.parse(readFileSync(summaryPath, 'utf8'));
  const names = Object.keys(summary);
  for (const figure of FIGURES) {
    const found = names.filter((n) => figure.test(n));
    assert.ok(found.length > 0, `${figure} in ${names.join(' | ')}`);
    for (const n of found) {
      const { value, unit } = summary[n];
      // A call runs as soon as it is complete, while the reply may still stream text after it:
      // its start can come before the reply's last token, so that figure may be negative.
      const signed = /reply end to call start/.test(n);
      assert.ok(Number.isFinite(value) && (signed || value >= 0), `${n}: ${value}`);
      assert.equal(typeof unit, 'string', n);
    }
  }
  assert.equal(summary['initialize requests for 100 calls'].value, 1);
});
