// Which built-in adapter a location gets (no browser): hosts, hosts with a path prefix (a chat
// under a larger site), and the page signature of self-hosted chats; the manifest matches the
// same table (its lists are generated from relay_core::contract::sites).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import vm from 'node:vm';
import { ROOT } from './harness.mjs';

function sites() {
  const sandbox = {};
  sandbox.globalThis = sandbox;
  vm.runInNewContext(readFileSync(join(ROOT, 'extension/content/sites.js'), 'utf8'), sandbox);
  return sandbox.McpRelaySites;
}

test('locations → adapters: hosts and path prefixes', () => {
  const S = sites();
  const cases = [
    // [hostname, pathname, adapter id or null]
    ['chat.openai.com', '/c/1', 'chatgpt'],
    ['x.com', '/i/grok', 'grok'],
    ['x.com', '/i/grok?conversation=5', 'grok'],
    ['x.com', '/home', null],
    ['github.com', '/copilot', 'ghcopilot'],
    ['github.com', '/copilot/c/42', 'ghcopilot'],
    ['github.com', '/settings', null],
    ['huggingface.co', '/chat/conversation/9', 'huggingchat'],
    ['huggingface.co', '/models', null],
    ['business.gemini.google', '/', 'gemini'],
    ['aistudio.google.cn', '/prompts/new_chat', 'aistudio'],
    ['perplexity.ai', '/', 'perplexity'],
    ['kimi.com', '/', 'kimi'],
    ['t3.chat', '/chat/1', 't3chat'],
    ['openrouter.ai', '/chat', 'openrouter'],
    ['chat.mistral.ai', '/chat/1', 'mistral'],
    ['copilot.microsoft.com', '/', 'mscopilot'],
    ['chat.z.ai', '/c/1', 'zai'],
    ['www.doubao.com', '/chat/1', 'doubao'],
    ['yuanbao.tencent.com', '/chat/1', 'yuanbao'],
    ['chat.example.com', '/', null], // Open WebUI has no host: only its signature names it
  ];
  for (const [hostname, pathname, want] of cases) {
    const got = S.forLocation({ hostname, pathname });
    assert.equal(got ? got.id : null, want, `${hostname}${pathname}`);
  }
});

test('page signatures: Open WebUI on any origin, nothing on a page without all its parts', () => {
  const S = sites();
  const doc = (ids) => ({ querySelector: (sel) => (ids.some((id) => sel.startsWith('#' + id)) ? {} : null) });
  assert.equal(S.bySignature(doc(['send-message-button', 'chat-input', 'messages-container'])).id, 'openwebui');
  assert.equal(S.bySignature(doc(['send-message-button', 'chat-input'])), null);
  assert.equal(S.bySignature(doc([])), null);
});

test('the manifest injects into path-prefixed chats only under their path', () => {
  const m = JSON.parse(readFileSync(join(ROOT, 'manifest.json'), 'utf8'));
  const matches = m.content_scripts[0].matches;
  for (const p of ['https://github.com/copilot*', 'https://x.com/i/grok*', 'https://huggingface.co/chat*', 'https://t3.chat/*']) assert.ok(matches.includes(p), p);
  assert.ok(!matches.includes('https://github.com/*'), 'not every GitHub page');
});
