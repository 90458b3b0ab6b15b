// Site adapters as data: one description per chat site. A new site is one entry here plus one
// fixture page under tests/fixtures/sites/ (a test fails when a fixture is missing).
(() => {
  'use strict';
  const SITES = [
    { id: 'gemini', hosts: ['gemini.google.com'], editor: 'quill',
      input: ['rich-textarea .ql-editor', 'div.ql-editor[contenteditable="true"]'],
      send: ['button.send-button', 'button[aria-label*="Send"]'],
      stop: ['button.stop', 'button[aria-label*="Stop"]'],
      assistant: ['model-response message-content', 'message-content.model-response-text'],
      user: ['user-query'] },
    { id: 'chatgpt', hosts: ['chatgpt.com', 'chat.openai.com'], editor: 'prosemirror',
      input: ['#prompt-textarea.ProseMirror', '#prompt-textarea', 'div.ProseMirror[contenteditable="true"]'],
      send: ['button[data-testid="send-button"]', '#composer-submit-button'],
      stop: ['button[data-testid="stop-button"]'],
      assistant: ['div[data-message-author-role="assistant"]'],
      user: ['div[data-message-author-role="user"]'] },
    { id: 'claude', hosts: ['claude.ai'], editor: 'prosemirror',
      input: ['div.ProseMirror[contenteditable="true"]'],
      send: ['button[aria-label="Send message"]', 'button[aria-label*="Send"]'],
      stop: ['button[aria-label="Stop response"]'],
      assistant: ['div.font-claude-response', '[data-is-streaming] .font-claude-message'],
      user: ['[data-testid="user-message"]'] },
    { id: 'deepseek', hosts: ['chat.deepseek.com'], editor: 'textarea',
      input: ['textarea#chat-input', 'textarea'],
      send: ['div[role="button"][aria-disabled]:has(svg)', 'button[type="submit"]'],
      stop: ['div[role="button"] .stop'],
      assistant: ['div.ds-markdown'],
      user: ['div.fbb737a4'] },
    { id: 'aistudio', hosts: ['aistudio.google.com'], editor: 'textarea',
      input: ['ms-prompt-input-wrapper textarea', 'textarea[aria-label*="prompt"]'],
      send: ['button[aria-label="Run"]', 'run-button button'],
      stop: ['button[aria-label="Stop"]'],
      assistant: ['ms-chat-turn .model-prompt-container', 'ms-chat-turn[data-turn-role="Model"]'],
      user: ['ms-chat-turn .user-prompt-container'] },
    { id: 'perplexity', hosts: ['www.perplexity.ai', 'perplexity.ai'], editor: 'lexical',
      input: ['div#ask-input[contenteditable="true"]', 'textarea[placeholder]'],
      send: ['button[data-testid="submit-button"]', 'button[aria-label="Submit"]'],
      stop: ['button[data-testid="stop-generating-response-button"]'],
      assistant: ['div.prose'],
      user: ['div.group\\/query'] },
    { id: 'grok', hosts: ['grok.com'], editor: 'textarea',
      input: ['textarea[aria-label]', 'div.tiptap[contenteditable="true"]'],
      send: ['button[type="submit"]'],
      stop: ['button[aria-label="Stop model response"]'],
      assistant: ['div.message-bubble:not(.bg-surface-l1) .response-content-markdown', '[data-testid="assistant-message"]'],
      user: ['[data-testid="user-message"]'] },
    { id: 'kimi', hosts: ['www.kimi.com', 'kimi.moonshot.cn'], editor: 'lexical',
      input: ['div.chat-input-editor[contenteditable="true"]'],
      send: ['div.send-button-container:not(.disabled)', 'div.send-button'],
      stop: ['div.send-button-container.stop'],
      assistant: ['div.chat-content-item-assistant .markdown'],
      user: ['div.chat-content-item-user'] },
    { id: 'qwen', hosts: ['chat.qwen.ai'], editor: 'textarea',
      input: ['textarea#chat-input'],
      send: ['button#send-message-button'],
      stop: ['button#stop-message-button'],
      assistant: ['div.response-message-content'],
      user: ['div.user-message-content'] },
  ];

  const GENERIC = { id: 'generic', hosts: [], editor: 'auto', input: [], send: [], stop: [], assistant: [], user: [] };

  function byId(id) {
    return SITES.find((s) => s.id === id) || (id === 'generic' ? GENERIC : null);
  }

  function forLocation(loc) {
    const host = loc.hostname;
    return SITES.find((s) => s.hosts.includes(host)) || null;
  }

  globalThis.McpRelaySites = Object.freeze({ SITES, GENERIC, byId, forLocation });
})();
