#!/usr/bin/env node
// MCP Relay's core as a command-line MCP client (the Node build of relay-wasm).
//
// Conformance mode (the official runner sets MCP_CONFORMANCE_SCENARIO and appends the URL):
//   MCP_CONFORMANCE_SCENARIO=initialize node tests/conformance/client.mjs http://127.0.0.1:PORT/mcp
//
// Inspector-like mode (output comparable with `npx @modelcontextprotocol/inspector --cli`):
//   node tests/conformance/client.mjs [options] <server-url>
//     --method tools/list|tools/call|prompts/list|prompts/get|resources/list|resources/read|resources/templates/list|ping
//     --tool NAME --args JSON      (tools/call; also --tool-arg key=value, repeatable)
//     --prompt NAME --args JSON    (prompts/get)
//     --uri URI                    (resources/read)
//     --header 'K: V'              (repeatable)
//     --transport auto|streamable|sse
//     --timeout MS                 (per request, default 30000)
//     --progress                   (tools/call: print progress notifications on stderr)
// Results go to stdout as JSON; failures to stderr as {kind, message, hint}, exit code 1.

import { loadRelay } from '../interop/lib.mjs';

function usage(message) {
  process.stderr.write(`${message}\nusage: client.mjs [--method M] [--tool NAME] [--args JSON] [--prompt NAME] [--uri URI] [--header 'K: V'] [--transport auto|streamable|sse] <server-url>\n`);
  process.exit(2);
}

function parseArgs(argv) {
  const options = { headers: [], toolArgs: {}, transport: 'auto', method: 'tools/list', timeoutMs: 30_000 };
  const rest = [];
  for (let i = 0; i < argv.length; i += 1) {
    const arg = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) usage(`${arg} needs a value`);
      i += 1;
      return argv[i];
    };
    switch (arg) {
      case '--method': options.method = value(); break;
      case '--tool': case '--tool-name': options.tool = value(); break;
      case '--prompt': case '--prompt-name': options.prompt = value(); break;
      case '--uri': options.uri = value(); break;
      case '--transport': options.transport = value(); break;
      case '--timeout': options.timeoutMs = Number(value()); break;
      case '--progress': options.progress = true; break;
      case '--args': {
        const text = value();
        try {
          options.toolArgs = { ...options.toolArgs, ...JSON.parse(text) };
        } catch (error) {
          usage(`--args is not JSON: ${error.message}`);
        }
        break;
      }
      case '--tool-arg': case '--prompt-arg': {
        const pair = value();
        const eq = pair.indexOf('=');
        if (eq < 1) usage(`${arg} takes key=value`);
        const raw = pair.slice(eq + 1);
        let parsed = raw;
        try { parsed = JSON.parse(raw); } catch { /* a plain string */ }
        options.toolArgs[pair.slice(0, eq)] = parsed;
        break;
      }
      case '--header': {
        const header = value();
        const colon = header.indexOf(':');
        if (colon < 1) usage(`--header takes 'Name: value'`);
        options.headers.push([header.slice(0, colon).trim(), header.slice(colon + 1).trim()]);
        break;
      }
      default:
        if (arg.startsWith('--')) usage(`unknown option ${arg}`);
        rest.push(arg);
    }
  }
  if (rest.length !== 1) usage('exactly one server URL is needed');
  if (!['auto', 'streamable', 'sse'].includes(options.transport)) usage(`unknown transport ${options.transport}`);
  options.url = rest[0];
  return options;
}

function fail(error) {
  const report = error && typeof error === 'object' && 'kind' in error
    ? error
    : { kind: 'internal', message: String(error?.message ?? error), hint: '' };
  process.stderr.write(`${JSON.stringify(report)}\n`);
  return 1;
}

/** What the official conformance runner expects of a client, per scenario. */
async function conformance(client, scenario) {
  const tools = await client.request('server', { method: 'tools/list' });
  switch (scenario) {
    case 'initialize':
      return { tools: tools.map((t) => t.name) };
    case 'tools_call':
      return client.request('server', { method: 'tools/call', name: 'add_numbers', arguments: { a: 5, b: 3 } });
    case 'sse-retry':
      return client.request('server', { method: 'tools/call', name: 'test_reconnection', arguments: {} });
    default: {
      // Unknown scenario: exercise every tool without arguments, report what happened.
      const results = {};
      for (const tool of tools) {
        try {
          results[tool.name] = await client.request('server', { method: 'tools/call', name: tool.name, arguments: {} });
        } catch (error) {
          results[tool.name] = { error };
        }
      }
      return results;
    }
  }
}

async function inspect(client, options) {
  switch (options.method) {
    case 'tools/list':
      return { tools: await client.request('server', { method: 'tools/list', refresh: true }) };
    case 'tools/call': {
      if (!options.tool) usage('tools/call needs --tool');
      const callOptions = options.progress
        ? { onProgress: (p) => process.stderr.write(`${JSON.stringify({ progress: p })}\n`) }
        : undefined;
      return client.request('server', { method: 'tools/call', name: options.tool, arguments: options.toolArgs }, callOptions);
    }
    case 'prompts/list':
      return { prompts: await client.request('server', { method: 'prompts/list' }) };
    case 'prompts/get':
      if (!options.prompt) usage('prompts/get needs --prompt');
      return client.request('server', { method: 'prompts/get', name: options.prompt, arguments: options.toolArgs });
    case 'resources/list':
      return { resources: await client.request('server', { method: 'resources/list' }) };
    case 'resources/templates/list':
      return { resourceTemplates: await client.request('server', { method: 'resources/templates/list' }) };
    case 'resources/read':
      if (!options.uri) usage('resources/read needs --uri');
      return client.request('server', { method: 'resources/read', uri: options.uri });
    case 'ping':
      return client.request('server', { method: 'ping' });
    default:
      return usage(`unsupported method ${options.method}`);
  }
}

async function main() {
  const scenario = process.env.MCP_CONFORMANCE_SCENARIO;
  const options = parseArgs(process.argv.slice(2));
  const { RelayClient } = loadRelay();
  const server = {
    id: 'server',
    name: 'server',
    url: options.url,
    transport: options.transport,
    headers: options.headers,
    timeoutMs: options.timeoutMs,
  };
  // A one-shot command has no use for the GET stream; the conformance scenarios do not need it
  // either (sse-retry resumes the POST stream).
  const client = new RelayClient([server], { listen: false });
  let code = 0;
  try {
    const result = scenario ? await conformance(client, scenario) : await inspect(client, options);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (error) {
    code = fail(error);
  }
  client.close();
  // Let the DELETE go out, then exit even if a server keeps a stream open.
  setTimeout(() => process.exit(code), 100).unref();
  await new Promise((resolve) => setTimeout(resolve, 150));
  process.exit(code);
}

main().catch((error) => process.exit(fail(error)));
