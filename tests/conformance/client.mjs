#!/usr/bin/env node
// MCP Relay's core as a command-line MCP client (the Node build, relay-node).
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
//     --log-level LEVEL            (ask servers for log messages: debug … emergency; they go to stderr)
//     --client-id ID --client-secret S   (a pre-registered OAuth client)
//     --client-metadata-url URL    (this client's Client ID Metadata Document, where supported)
//     --redirect-uri URL           (OAuth redirect URI; default http://127.0.0.1:8976/callback)
// A server that answers 401/403 is signed in to with the core's OAuth flow (oauth.mjs), the
// browser step done by following the authorization redirect; where the authorization server
// takes DPoP (RFC 9449), tokens are bound to a WebCrypto key made for the sign-in and every
// request carries a proof.
// Results go to stdout as JSON; failures to stderr as {kind, message, hint}, exit code 1.

import { loadRelay } from '../interop/lib.mjs';
import { dpopKey, drive, seed, signer } from './oauth.mjs';

/** The Client ID Metadata Document URL the conformance suite accepts for its test client
 * (@modelcontextprotocol/conformance, basic-cimd: CIMD_CLIENT_METADATA_URL). */
const CONFORMANCE_CIMD_URL = 'https://conformance-test.local/client-metadata.json';
const DEFAULT_REDIRECT_URI = 'http://127.0.0.1:8976/callback';
/** Most sign-ins one operation may trigger (the flow itself stops step-up loops earlier). */
const MAX_SIGN_INS = 4;

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
      case '--log-level': options.logLevel = value(); break;
      case '--client-id': options.clientId = value(); break;
      case '--client-secret': options.clientSecret = value(); break;
      case '--client-metadata-url': options.clientMetadataUrl = value(); break;
      case '--redirect-uri': options.redirectUri = value(); break;
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
async function conformance(conn, scenario, context) {
  const tools = await conn.run((c) => c.request('server', { method: 'tools/list' }));
  const call = (name, args) => conn.run((c) => c.request('server', { method: 'tools/call', name, arguments: args }));
  // Scenarios that say which calls to make (http-custom-headers) pass them in the context.
  if (Array.isArray(context.toolCalls)) {
    const results = [];
    for (const { name, arguments: args } of context.toolCalls) results.push(await call(name, args ?? {}));
    return results;
  }
  switch (scenario) {
    case 'json-schema-2020-12-preservation': {
      // The suite's echo tool takes back the schema this client kept for its focal tool.
      const focal = tools.find((t) => t.name === 'json_schema_2020_12_tool');
      return call('json_schema_echo', { schema: focal?.inputSchema ?? {} });
    }
    case 'http-standard-headers': {
      // Every request kind whose headers mirror its body: lists, and one of each named request.
      const out = { tools: [], resources: [], prompts: [] };
      for (const tool of tools) out.tools.push(await call(tool.name, {}));
      const resources = await conn.run((c) => c.request('server', { method: 'resources/list' }));
      for (const r of resources) out.resources.push(await conn.run((c) => c.request('server', { method: 'resources/read', uri: r.uri })));
      const prompts = await conn.run((c) => c.request('server', { method: 'prompts/list' }));
      for (const p of prompts) out.prompts.push(await conn.run((c) => c.request('server', { method: 'prompts/get', name: p.name, arguments: {} })));
      return out;
    }
    case 'initialize':
      return { tools: tools.map((t) => t.name) };
    case 'tools_call':
      return conn.run((c) => c.request('server', { method: 'tools/call', name: 'add_numbers', arguments: { a: 5, b: 3 } }));
    case 'sse-retry':
      return conn.run((c) => c.request('server', { method: 'tools/call', name: 'test_reconnection', arguments: {} }));
    case 'sep-2640-client-no-prefetch': {
      // Skills are listed, none is loaded: no file of a skill may be read (SEP-2640).
      const skills = await conn.run((c) => c.request('server', { method: 'skills/list' }));
      return { skills: skills.map((s) => s.uri) };
    }
    case 'sep-2640-client-verify-digest':
    case 'sep-2640-client-verify-size':
    case 'sep-2640-client-verify-frontmatter': {
      const skills = await conn.run((c) => c.request('server', { method: 'skills/list' }));
      const loaded = [];
      for (const skill of skills) loaded.push(await loadSkill(conn, skill));
      return loaded;
    }
    default: {
      // Other scenarios (auth/*): exercise every tool without arguments, report what happened.
      const results = {};
      for (const tool of tools) {
        try {
          results[tool.name] = await conn.run((c) => c.request('server', { method: 'tools/call', name: tool.name, arguments: {} }));
        } catch (error) {
          results[tool.name] = { error };
        }
      }
      return results;
    }
  }
}

/**
 * Loads a skill as a host does when it is asked for: its SKILL.md, then its other files, each
 * read with resources/read and verified by the core against the listing (size, digest, and the
 * SKILL.md's frontmatter) before anything is used. A file that fails stops the load: nothing
 * after it is read, and the failure is this run's error.
 */
async function loadSkill(conn, skill) {
  const files = Array.isArray(skill.resources) ? skill.resources.map((r) => r.uri) : [];
  const order = [skill.uri, ...files.filter((uri) => uri !== skill.uri)];
  const texts = {};
  for (const uri of order) {
    const read = await conn.run((c) => c.request('server', { method: 'resources/read', uri }));
    try {
      texts[uri] = conn.relay.verifySkillFile(skill, uri, read);
    } catch (error) {
      throw { kind: 'skill_unverified', message: String(error?.message ?? error), hint: 'the skill was not loaded' };
    }
  }
  return { skill: skill.uri, files: Object.keys(texts) };
}

/**
 * One server's client with sign-in: runs an operation, and when the server refuses it (an
 * `auth` error with a challenge) hands the challenge to the core's AuthFlow, signs in, and
 * runs it again with the new `Authorization` header.
 */
class Connection {
  constructor(relay, server, authConfig, sign, dpop, answersQuestions) {
    this.relay = relay;
    this.answersQuestions = answersQuestions;
    this.server = server;
    this.authConfig = dpop ? { ...authConfig, dpopKey: dpop.jwk } : authConfig;
    this.sign = sign;
    this.dpop = dpop;
    this.flow = null;
    this.client = this.connect(null);
  }

  connect(authorization) {
    const headers = this.server.headers.filter(([name]) => !(authorization && /^authorization$/i.test(name)));
    if (authorization) headers.push(['Authorization', authorization]);
    // The command line (`--method`) declares no elicitation, like the MCP Inspector CLI it is
    // compared with: servers then offer the same tools to both. Under the conformance suite
    // it does, and with nobody to ask, a server's question is accepted with its defaults
    // (SEP-1034), as the core fills them in for the side panel's form; it declares skills
    // (SEP-2640) there too. The GET stream carries
    // a server's requests that belong to no call (an elicitation sent from a tool without
    // naming its request): a client that answers them listens.
    const answers = this.answersQuestions;
    const { logLevel, ...server } = this.server;
    const client = new this.relay.RelayClient([{ ...server, headers }], { listen: answers, elicitation: answers, skills: answers, logLevel });
    if (logLevel && !answers) client.setEventListener((_server, event) => {
      if (event.type === 'log') process.stderr.write(`${JSON.stringify({ log: event })}\n`);
    });
    // DPoP: a proof from the core, signed here, on each request of a DPoP-bound sign-in.
    if (this.dpop) client.setProver(
      async (_server, method, url) => {
        const input = this.flow?.resourceProof(method, url, Date.now());
        return input ? `${input}.${await this.dpop.sign(input)}` : null;
      },
      (_server, url, status, wwwAuthenticate, dpopNonce) =>
        this.flow?.resourceAnswered(url, status, wwwAuthenticate ?? undefined, dpopNonce ?? undefined) ?? false,
    );
    if (answers) client.setEventListener((serverId, event) => {
      if (event.type === 'request' && event.method === 'elicitation/create') {
        client.respond(serverId, event.id, this.relay.elicitationDefaults(event.params));
      }
    });
    return client;
  }

  async run(operation) {
    for (let signIns = 0; ; signIns += 1) {
      if (this.flow?.needsRefresh(Date.now(), 60_000)) await this.signIn(() => this.flow.send({ type: 'refresh' }, Date.now()));
      try {
        const result = await operation(this.client);
        this.flow?.send({ type: 'success' }, Date.now());
        return result;
      } catch (error) {
        if (error?.kind !== 'auth' || !error.challenge || signIns >= MAX_SIGN_INS) throw error;
        this.flow ??= new this.relay.AuthFlow(this.authConfig, seed(), undefined);
        await this.signIn(() => this.flow.send({ type: 'challenge', ...error.challenge }, Date.now()));
      }
    }
  }

  async signIn(start) {
    start();
    await drive(this.flow, { redirectUri: this.authConfig.redirectUri, timeoutMs: this.server.timeoutMs, sign: this.sign, dpop: this.dpop });
    this.client.close();
    this.client = this.connect(this.flow.authorization());
  }

  close() {
    this.client.close();
  }
}

/** Scenario data the suite passes in MCP_CONFORMANCE_CONTEXT (pre-registered clients). */
function conformanceContext() {
  const text = process.env.MCP_CONFORMANCE_CONTEXT;
  if (!text) return {};
  try {
    return JSON.parse(text);
  } catch {
    return {};
  }
}

async function inspect(conn, options) {
  return conn.run((client) => inspectWith(client, options));
}

async function inspectWith(client, options) {
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
  const relay = loadRelay();
  const server = {
    id: 'server',
    name: 'server',
    url: options.url,
    transport: options.transport,
    headers: options.headers,
    timeoutMs: options.timeoutMs,
    logLevel: options.logLevel,
  };
  const context = scenario ? conformanceContext() : {};
  const authConfig = {
    serverUrl: options.url,
    redirectUri: options.redirectUri ?? DEFAULT_REDIRECT_URI,
    clientName: 'MCP Relay',
    clientMetadataUrl: options.clientMetadataUrl ?? (scenario ? CONFORMANCE_CIMD_URL : undefined),
  };
  const clientId = options.clientId ?? context.client_id;
  if (clientId) authConfig.client = { clientId, clientSecret: options.clientSecret ?? context.client_secret };
  // A private key (private_key_jwt) stays in this process's WebCrypto; the core gets signatures.
  let sign;
  if (context.private_key_pem && authConfig.client) {
    authConfig.client.assertionAlg = context.signing_algorithm ?? 'ES256';
    sign = await signer(context.private_key_pem, authConfig.client.assertionAlg);
  }
  // Enterprise-managed authorization (SEP-990): the suite plays the identity provider that
  // signed the user in and hands its ID token over.
  if (context.idp_id_token) {
    authConfig.enterprise = {
      idpTokenEndpoint: context.idp_token_endpoint,
      idpClientId: context.idp_client_id,
      idToken: context.idp_id_token,
    };
  }
  // The proof key of this run's sign-ins (used only where the authorization server takes DPoP).
  const dpop = await dpopKey();
  const conn = new Connection(relay, server, authConfig, sign, dpop, Boolean(scenario));
  let code = 0;
  try {
    const result = scenario ? await conformance(conn, scenario, context) : await inspect(conn, options);
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
  } catch (error) {
    code = fail(error);
  }
  conn.close();
  // Let the DELETE go out, then exit even if a server keeps a stream open.
  setTimeout(() => process.exit(code), 100).unref();
  await new Promise((resolve) => setTimeout(resolve, 150));
  process.exit(code);
}

main().catch((error) => process.exit(fail(error)));
