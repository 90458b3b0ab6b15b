// @ts-check
// The JavaScript mirror of the message contract. The source of truth is
// crates/relay-core/src/contract.rs; tests/test_contract.rs (in relay-core) fails when the
// names or roles here drift from it. The typedefs below describe the request and answer shapes
// of contract.rs's docs for the type checker (`tsc`, see tsconfig.json).

// ---- shapes ---------------------------------------------------------------------------------

/** @typedef {'page' | 'content'} Role */
/** @typedef {{kind: string, message: string, hint?: string}} ErrorBody */
/**
 * @template T
 * @typedef {{ok: true, data: T} | {ok: false, error: ErrorBody}} Envelope
 */

/** @typedef {'auto' | 'streamable' | 'sse'} Transport */
/**
 * A header of a server. In a ServerView, values of secret headers (marked `secret`, or with a
 * secret-looking name) are masked as "••••"; sending "••••" back keeps the stored value.
 * @typedef {{name: string, value: string, secret?: boolean}} Header
 */
/**
 * @typedef {object} ServerState
 * @property {'idle' | 'connecting' | 'connected' | 'failed' | 'disabled'} status
 * @property {{protocolVersion?: string, serverInfo?: {name?: string, version?: string}, capabilities?: object, [k: string]: unknown}} [info]
 * @property {string} [protocolVersion]
 * @property {string} [transport]
 * @property {number} [toolCount]
 * @property {ErrorBody} [error]
 * @property {number} [lastLatencyMs]
 */
/**
 * @typedef {object} ServerView
 * @property {string} id
 * @property {string} name
 * @property {string} url
 * @property {Transport} transport
 * @property {Header[]} headers
 * @property {number} timeoutMs
 * @property {boolean} enabled
 * @property {ServerState} [state]
 */
/**
 * What servers/add and servers/update take (update adds `id`).
 * @typedef {{id?: string, name: string, url: string, transport?: Transport, headers?: Header[], timeoutMs?: number, enabled?: boolean}} ServerInput
 */

/** @typedef {'allow' | 'ask' | 'deny'} Policy */
/**
 * @typedef {object} ToolAnnotations
 * @property {string} [title]
 * @property {boolean} [readOnlyHint]
 * @property {boolean} [destructiveHint]
 * @property {boolean} [idempotentHint]
 * @property {boolean} [openWorldHint]
 */
/**
 * An MCP Tool plus its settings.
 * @typedef {object} ToolView
 * @property {string} serverId
 * @property {string} name
 * @property {string} [title]
 * @property {string} [description]
 * @property {any} [inputSchema]
 * @property {ToolAnnotations} [annotations]
 * @property {Policy} policy
 * @property {boolean} enabled
 */
/**
 * tools/policy: one tool (`tool`) or every tool of the server; `readOnly` limits a server-wide
 * change to the tools annotated read-only and not destructive; `confirm` confirms allowing a
 * destructive tool (without it the core answers `confirm_required`).
 * @typedef {{serverId: string, tool?: string, policy?: Policy, enabled?: boolean, readOnly?: boolean, confirm?: boolean}} ToolPolicyRequest
 */

/** @typedef {{tabId: number, url: string}} ChatRef */
/** @typedef {'auto' | 'toolFirst' | 'toolForced' | 'disabled'} Strategy */
/**
 * @typedef {object} ChatSettings
 * @property {string[]} serverIds
 * @property {Strategy | null} [strategy] null: the settings' default strategy
 * @property {string | null} [template] null: the built-in template
 * @property {boolean} autoExecute
 * @property {boolean} autoSubmit
 * @property {number | null} [maxConsecutive]
 * @property {number | null} [maxTotal]
 */
/** @typedef {{text: string, chars: number, tokensEstimate: number, tools: number | unknown[]}} Prompt */

/** @typedef {'pending' | 'running' | 'done' | 'failed' | 'unknown' | 'denied' | 'limited'} CallState */
/**
 * One call in the exactly-once ledger.
 * @typedef {object} CallRecord
 * @property {string} key
 * @property {string} chat
 * @property {string} messageId
 * @property {string} callId
 * @property {string} serverId
 * @property {string} tool
 * @property {unknown} arguments
 * @property {number} seq
 * @property {boolean} delivered
 * @property {CallState} state
 * @property {boolean} [destructive] the tool is annotated destructive (approve in the side panel only)
 * @property {unknown} [progress]
 * @property {any} [result]
 * @property {{kind?: string, message?: string, hint?: string}} [error]
 * @property {string} [replyText]
 * @property {number} [startedAt]
 * @property {number} [durationMs]
 */
/** @typedef {'run' | 'deny' | 'always'} Decision */
/** @typedef {{calls: CallRecord[], pending: boolean, diagnostics?: unknown[]}} ReplyUpdate */

/** @typedef {{origin: string, adapter: string}} Site */
/** @typedef {'input' | 'send' | 'stop' | 'assistant' | 'user'} SitePart */
/** @typedef {{part: SitePart, selector: string | null, matches: number, visible: number}} SiteCheckRow */
/** @typedef {{adapter: string, editor: string, writePath?: string[], checks: SiteCheckRow[]}} SiteCheck */

/** A file the core asks a content script to attach. @typedef {{fileName?: string, mimeType?: string, data?: string}} Attachment */
/**
 * What a content script answers to relay/insert (and chat/insert passes on).
 * @typedef {{inserted: boolean, submitted: boolean, how?: string, attached?: number, verified?: boolean, error?: string}} InsertOutcome
 */

/**
 * Request fields per message (without `type`).
 * @typedef {{
 *   'ping': {},
 *   'servers/list': {},
 *   'servers/add': {server: ServerInput},
 *   'servers/update': {server: ServerInput & {id: string}},
 *   'servers/remove': {id: string},
 *   'servers/import': {json: string, apply: boolean},
 *   'servers/export': {},
 *   'servers/test': {id: string},
 *   'tools/list': {serverId?: string, refresh?: boolean},
 *   'tools/policy': ToolPolicyRequest,
 *   'tools/call': {serverId: string, tool: string, arguments: unknown},
 *   'prompts/list': {serverId: string},
 *   'prompts/get': {serverId: string, name: string, arguments?: Record<string, string>},
 *   'resources/list': {serverId: string},
 *   'resources/read': {serverId: string, uri: string},
 *   'chat/get': {chat?: ChatRef},
 *   'chat/set': {chat: ChatRef, settings: Partial<ChatSettings>},
 *   'prompt/build': {chat?: ChatRef, serverIds?: string[], options?: object},
 *   'chat/insert': {chat: ChatRef, text: string, submit?: boolean},
 *   'reply/parse': {text: string},
 *   'reply/update': {messageId: string, text: string, done: boolean, history?: boolean},
 *   'activity/list': {chat?: ChatRef},
 *   'activity/decide': {key: string, decision: Decision, confirm?: boolean},
 *   'settings/get': {},
 *   'settings/set': {settings: Record<string, unknown>},
 *   'sites/list': {},
 *   'sites/add': {origin: string, adapter: string},
 *   'sites/remove': {origin: string},
 *   'sites/check': {chat: ChatRef},
 *   'sites/adapter': {},
 * }} Requests
 */
/**
 * Answer data per message.
 * @typedef {{
 *   'ping': {core: string, role: Role},
 *   'servers/list': ServerView[],
 *   'servers/add': ServerView,
 *   'servers/update': ServerView,
 *   'servers/remove': null,
 *   'servers/import': {servers: ServerView[], skipped: {name: string, reason: string}[]},
 *   'servers/export': {mcpServers: Record<string, unknown>},
 *   'servers/test': ServerView,
 *   'tools/list': ToolView[],
 *   'tools/policy': ToolView[],
 *   'tools/call': CallRecord,
 *   'prompts/list': any,
 *   'prompts/get': any,
 *   'resources/list': any,
 *   'resources/read': any,
 *   'chat/get': ChatSettings,
 *   'chat/set': ChatSettings,
 *   'prompt/build': Prompt | null,
 *   'chat/insert': InsertOutcome,
 *   'reply/parse': {calls: unknown[], diagnostics: unknown[]},
 *   'reply/update': ReplyUpdate,
 *   'activity/list': CallRecord[],
 *   'activity/decide': CallRecord,
 *   'settings/get': Record<string, any>,
 *   'settings/set': Record<string, any>,
 *   'sites/list': Site[],
 *   'sites/add': Site[],
 *   'sites/remove': Site[],
 *   'sites/check': SiteCheck,
 *   'sites/adapter': {adapter: string} | null,
 * }} Responses
 */
/** @typedef {keyof Requests} MessageType */
/** @typedef {Error & {kind?: string, hint?: string}} CoreError */

// ---- names and roles ------------------------------------------------------------------------

/**
 * Who may send each message: "page" (side panel, options) and/or "content" (content scripts).
 * @type {Readonly<Record<MessageType, readonly Role[]>>}
 */
export const MESSAGES = Object.freeze({
  'ping': ['page', 'content'],
  'servers/list': ['page'],
  'servers/add': ['page'],
  'servers/update': ['page'],
  'servers/remove': ['page'],
  'servers/import': ['page'],
  'servers/export': ['page'],
  'servers/test': ['page'],
  'tools/list': ['page'],
  'tools/policy': ['page'],
  'tools/call': ['page'],
  'prompts/list': ['page'],
  'prompts/get': ['page'],
  'resources/list': ['page'],
  'resources/read': ['page'],
  'chat/get': ['page', 'content'],
  'chat/set': ['page'],
  'prompt/build': ['page', 'content'],
  'chat/insert': ['page'],
  'reply/parse': ['page', 'content'],
  'reply/update': ['content'],
  'activity/list': ['page', 'content'],
  'activity/decide': ['page', 'content'],
  'settings/get': ['page'],
  'settings/set': ['page'],
  'sites/list': ['page'],
  'sites/add': ['page'],
  'sites/remove': ['page'],
  'sites/check': ['page'],
  'sites/adapter': ['content'],
});

/**
 * Sends a message to the core and unwraps the envelope.
 * Resolves with `data`; rejects with an Error carrying `kind` and `hint` from the core.
 * @template {MessageType} T
 * @param {T} type a key of MESSAGES
 * @param {Requests[T]} [fields]
 * @returns {Promise<Responses[T]>}
 */
export async function call(type, fields) {
  /** @type {Envelope<Responses[T]> | undefined} */
  const answer = await chrome.runtime.sendMessage({ ...fields, type });
  if (answer && answer.ok) return answer.data;
  const e = (answer && !answer.ok && answer.error) || { kind: 'no_answer', message: 'The extension did not answer.', hint: undefined };
  throw Object.assign(new Error(e.message), { kind: e.kind, hint: e.hint });
}
