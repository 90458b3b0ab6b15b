// @ts-check
// Saving what the panel shows as files: a download of text the panel built (the protocol log
// of a server as JSON, the activity of a chat as JSON or Markdown). The texts are built from
// what the core answered; nothing here decides what is secret (the core masks the log).
import { h } from './dom.js';

/**
 * Offers `text` as a file download.
 * @param {string} filename
 * @param {string} text
 * @param {string} type MIME type
 */
export function download(filename, text, type) {
  const a = h('a', { href: URL.createObjectURL(new Blob([text], { type })), download: filename });
  a.click();
  setTimeout(() => URL.revokeObjectURL(a.href), 10_000);
}

/**
 * A file name part from a server name or host: letters, digits, `-` and `_` only.
 * @param {string} text
 */
export function fileSafe(text) {
  return text.replace(/[^A-Za-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || 'mcp';
}

/**
 * Text fenced as Markdown code, with a fence longer than any backtick run inside it.
 * @param {string} text
 * @param {string} [lang]
 */
function fence(text, lang = '') {
  const longest = Math.max(2, ...[...text.matchAll(/`+/g)].map((m) => m[0].length));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${lang}\n${text}\n${marks}`;
}

/**
 * A result with its binary payloads (images, audio, resource blobs: base64 a reader cannot
 * read) replaced by a placeholder naming the kind and size.
 * @param {unknown} value
 * @param {(mime: string, bytes: number) => string} say
 * @param {number} [depth]
 * @returns {unknown}
 */
export function withoutPayloads(value, say, depth = 0) {
  if (!value || typeof value !== 'object' || depth > 20) return value;
  if (Array.isArray(value)) return value.map((v) => withoutPayloads(v, say, depth + 1));
  /** @type {Record<string, unknown>} */
  const out = {};
  const obj = /** @type {Record<string, unknown>} */ (value);
  for (const [k, v] of Object.entries(obj)) {
    const payload = (k === 'data' && (obj.type === 'image' || obj.type === 'audio')) || k === 'blob';
    if (payload && typeof v === 'string') {
      const clean = v.replace(/\s+/g, '');
      const bytes = Math.max(0, Math.floor((clean.length * 3) / 4) - (clean.endsWith('==') ? 2 : clean.endsWith('=') ? 1 : 0));
      out[k] = say(String(obj.mimeType || obj.type || '?'), bytes);
    } else {
      out[k] = withoutPayloads(v, say, depth + 1);
    }
  }
  return out;
}

/**
 * A chat's calls as Markdown: one section per call (tool, server by name, state, time, how long
 * it took, arguments, result without its binary payloads, or error), oldest first.
 * @param {import('../extension/contract.js').CallRecord[]} records
 * @param {{title: string, chat: string, servers?: Map<string, string>, labels: {state: (s: string) => string, arguments: string, result: string, error: string, server: string, started: string, took: (ms: number) => string, payload: (mime: string, bytes: number) => string}}} info
 */
export function activityMarkdown(records, info) {
  const out = [`# ${info.title}`, '', info.chat, ''];
  const sorted = [...records].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0) || (a.startedAt ?? 0) - (b.startedAt ?? 0));
  for (const r of sorted) {
    out.push(`## ${r.tool} — ${info.labels.state(String(r.state))}`, '');
    out.push(`- ${info.labels.server}: ${(info.servers && info.servers.get(String(r.serverId))) || r.serverId}`);
    if (typeof r.startedAt === 'number' && r.startedAt > 0) out.push(`- ${info.labels.started}: ${new Date(r.startedAt).toISOString()}`);
    if (typeof r.durationMs === 'number') out.push(`- ${info.labels.took(r.durationMs)}`);
    out.push('', `### ${info.labels.arguments}`, '', fence(JSON.stringify(r.arguments ?? {}, null, 2), 'json'), '');
    if (r.result) out.push(`### ${info.labels.result}`, '', fence(JSON.stringify(withoutPayloads(r.result, info.labels.payload), null, 2), 'json'), '');
    if (r.error) out.push(`### ${info.labels.error}`, '', fence(`${r.error.kind}: ${r.error.message}`), '');
  }
  return out.join('\n');
}
