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
 * A chat's calls as Markdown: one section per call (tool, server, state, time, arguments,
 * result or error), oldest first.
 * @param {import('../extension/contract.js').CallRecord[]} records
 * @param {{title: string, chat: string, labels: {state: (s: string) => string, arguments: string, result: string, error: string, server: string, started: string}}} info
 */
export function activityMarkdown(records, info) {
  const out = [`# ${info.title}`, '', info.chat, ''];
  const sorted = [...records].sort((a, b) => (a.seq ?? 0) - (b.seq ?? 0) || (a.startedAt ?? 0) - (b.startedAt ?? 0));
  for (const r of sorted) {
    out.push(`## ${r.tool} — ${info.labels.state(String(r.state))}`, '');
    out.push(`- ${info.labels.server}: ${r.serverId}`);
    if (typeof r.startedAt === 'number' && r.startedAt > 0) out.push(`- ${info.labels.started}: ${new Date(r.startedAt).toISOString()}`);
    if (typeof r.durationMs === 'number') out.push(`- ${r.durationMs} ms`);
    out.push('', `### ${info.labels.arguments}`, '', fence(JSON.stringify(r.arguments ?? {}, null, 2), 'json'), '');
    if (r.result) out.push(`### ${info.labels.result}`, '', fence(JSON.stringify(r.result, null, 2), 'json'), '');
    if (r.error) out.push(`### ${info.labels.error}`, '', fence(`${r.error.kind}: ${r.error.message}`), '');
  }
  return out.join('\n');
}
