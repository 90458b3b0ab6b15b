// @ts-check
// Site adapters as data: one description per chat site, read by content.js. A new site is one
// entry here plus one fixture page under tests/fixtures/sites/<id>/ that reproduces the site's
// DOM and editor behaviour (tests/e2e/sites.test.mjs fails when either is missing).
//
// Every list of selectors is tried in order; the first one that matches wins, so the most
// specific (and most recently observed) selector comes first and older layouts follow as
// fallbacks. Fields:
//   editor     how the input box takes text: "textarea" (often React-controlled), "prosemirror"
//              (also TipTap), "lexical", "quill", "codemirror", "contenteditable", "auto"
//   input      the message input box
//   send       the send control; `disabled` lists what marks it (or an ancestor) as disabled
//   stop       a control that exists only while a reply streams
//   assistant  one element per assistant reply (its text is what the core parses)
//   user       one element per user message (never read: used by the site check and to see
//              that a submitted message left)
//   code       code blocks inside replies (site check only)
//   files      how the site takes a file: a file <input>, a drop zone, and what shows that a
//              file was attached; null when the site takes no files
//   maxText    the longest text written into the input; longer results go as a file
(() => {
  'use strict';
  const DISABLED = [':disabled', '[aria-disabled="true"]', '[disabled]'];

  /** @type {import('./content').Adapter[]} */
  const SITES = [
    {
      id: 'gemini', name: 'Gemini', hosts: ['gemini.google.com'], editor: 'quill',
      input: ['rich-textarea .ql-editor[contenteditable="true"]', 'div.ql-editor[contenteditable="true"]'],
      // The send button turns into the stop button (same element, class "stop").
      send: ['button.send-button.submit', 'button.send-button:not(.stop)', 'button[aria-label="Send message"]'],
      stop: ['button.send-button.stop', 'button[aria-label="Stop response"]'],
      disabled: DISABLED,
      assistant: ['model-response message-content', 'model-response .model-response-text'],
      user: ['user-query .query-text', 'user-query'],
      code: ['code-block pre code', 'code-block pre'],
      files: { input: ['input[type="file"][name="Filedata"]', 'input[type="file"]'], drop: ['[xapfileselectordropzone]', '.text-input-field'], preview: ['uploader-file-preview', '.file-preview-container .file-preview'] },
      maxText: 30000,
    },
    {
      id: 'chatgpt', name: 'ChatGPT', hosts: ['chatgpt.com', 'chat.openai.com'], editor: 'prosemirror',
      input: ['#prompt-textarea.ProseMirror[contenteditable="true"]', 'div.ProseMirror[contenteditable="true"]', '#prompt-textarea'],
      send: ['button[data-testid="send-button"]', 'button#composer-submit-button:not([data-testid="stop-button"])'],
      stop: ['button[data-testid="stop-button"]'],
      disabled: DISABLED,
      assistant: ['div[data-message-author-role="assistant"]'],
      user: ['div[data-message-author-role="user"]'],
      code: ['div[data-message-author-role="assistant"] pre code', 'pre code'],
      files: { input: ['input[type="file"][multiple]', 'input[type="file"]'], drop: ['#prompt-textarea', 'form[data-type="unified-composer"]'], preview: ['[data-testid="composer-attachment"]', 'form .group\\/file-tile'] },
      maxText: 30000,
    },
    {
      id: 'claude', name: 'Claude', hosts: ['claude.ai'], editor: 'prosemirror',
      input: ['div.ProseMirror[contenteditable="true"][role="textbox"]', 'fieldset div.ProseMirror[contenteditable="true"]', 'div.ProseMirror[contenteditable="true"]'],
      send: ['button[aria-label="Send message"]', 'fieldset button[type="button"][aria-label*="Send"]'],
      stop: ['button[aria-label="Stop response"]'],
      disabled: DISABLED,
      assistant: ['div.font-claude-response', 'div.font-claude-message'],
      user: ['[data-testid="user-message"]'],
      code: ['div.font-claude-response pre code', 'pre code'],
      files: { input: ['input[data-testid="file-upload"]', 'input[type="file"]'], drop: ['fieldset', 'div.ProseMirror[contenteditable="true"]'], preview: ['[data-testid="file-thumbnail"]', '[data-testid$="-thumbnail"]'] },
      maxText: 30000,
    },
    {
      id: 'deepseek', name: 'DeepSeek', hosts: ['chat.deepseek.com'], editor: 'textarea',
      input: ['textarea#chat-input', 'textarea[placeholder^="Message DeepSeek"]', 'textarea._27c9245'],
      // Hashed class names change with deployments; the role/aria shape is the stable part.
      send: ['div._7436101[role="button"]:not(:has(rect))', 'div.ds-icon-button[role="button"][aria-disabled]:not(:has(rect))'],
      stop: ['div._7436101[role="button"]:has(rect)', 'div.ds-icon-button[role="button"]:has(rect)'],
      disabled: ['[aria-disabled="true"]', '.ds-icon-button--disabled'],
      // Replies only: the reasoning ("thinking") block is also .ds-markdown and is never parsed.
      assistant: ['div.ds-message div.ds-markdown:not(.ds-think-content *)', 'div.ds-markdown:not(.ds-think-content *)'],
      user: ['div._9663006', 'div.fbb737a4'],
      code: ['div.md-code-block pre', 'div.ds-markdown pre'],
      files: { input: ['input[type="file"]'], drop: ['div.bf38813a', 'textarea#chat-input'], preview: ['div.ds-file-card', 'div._5a3a5b8'] },
      maxText: 30000,
    },
    {
      id: 'aistudio', name: 'Google AI Studio', hosts: ['aistudio.google.com'], editor: 'textarea',
      input: ['ms-prompt-input-wrapper textarea', 'textarea[aria-label="Enter a prompt"]', 'textarea.textarea[placeholder="Start typing a prompt"]', 'ms-autosize-textarea textarea'],
      // The run button becomes the stop button while a reply streams.
      send: ['ms-run-button button:not(.stoppable)', 'button.run-button:not(.stoppable)', 'button[aria-label="Run"]'],
      stop: ['ms-run-button button.stoppable', 'button.run-button.stoppable'],
      disabled: DISABLED,
      // innerText skips the collapsed "thoughts" panel, so only the reply's text is read.
      assistant: ['ms-chat-turn [data-turn-role="Model"] .turn-content', 'ms-chat-turn .chat-turn-container.model .turn-content'],
      user: ['ms-chat-turn [data-turn-role="User"]', 'ms-chat-turn .chat-turn-container.user'],
      code: ['ms-code-block pre code', 'ms-code-block pre'],
      files: { input: ['ms-add-chunk-menu input[type="file"]', 'input[type="file"]'], drop: ['ms-prompt-input-wrapper', '.prompt-box-container'], preview: ['ms-prompt-input-wrapper ms-media-chip', '.prompt-box-container .file-chip'] },
      maxText: 50000,
    },
    {
      id: 'perplexity', name: 'Perplexity', hosts: ['www.perplexity.ai', 'perplexity.ai'], editor: 'lexical',
      input: ['div#ask-input[contenteditable="true"]', 'div[contenteditable="true"][data-lexical-editor="true"]', 'textarea[placeholder]'],
      send: ['button[data-testid="submit-button"]', 'button[aria-label="Submit"]'],
      stop: ['button[data-testid="stop-generating-response-button"]'],
      disabled: DISABLED,
      assistant: ['div[id^="markdown-content-"] .prose', 'div.prose'],
      user: ['div.group\\/query', 'h1.group\\/query'],
      code: ['div.prose pre code', 'div.prose pre'],
      files: { input: ['input[type="file"][multiple]', 'input[type="file"]'], drop: ['div#ask-input', 'div[data-lexical-editor="true"]'], preview: ['[data-testid="file-attachment"]', 'div.file-attachment'] },
      maxText: 30000,
    },
    {
      id: 'grok', name: 'Grok', hosts: ['grok.com'], editor: 'prosemirror',
      // Grok moved from a textarea to a TipTap (ProseMirror) editor; both are described.
      input: ['div.tiptap.ProseMirror[contenteditable="true"]', 'textarea[aria-label="Ask Grok anything"]', 'form textarea'],
      send: ['form button[type="submit"][aria-label="Submit"]', 'form button[type="submit"]'],
      stop: ['button[aria-label="Stop model response"]'],
      disabled: DISABLED,
      assistant: ['div[id^="response-"].items-start .response-content-markdown', 'div.message-bubble .response-content-markdown'],
      user: ['div[id^="response-"].items-end .message-bubble', '[data-testid="user-message"]'],
      code: ['.response-content-markdown pre code', '.response-content-markdown pre'],
      files: { input: ['input[type="file"][name="files"]', 'input[type="file"]'], drop: ['form', 'div.tiptap.ProseMirror'], preview: ['form [data-testid="attachment"]', 'form .file-chip'] },
      maxText: 30000,
    },
    {
      id: 'kimi', name: 'Kimi', hosts: ['www.kimi.com', 'kimi.com', 'kimi.moonshot.cn'], editor: 'lexical',
      input: ['div.chat-input-editor[contenteditable="true"]', 'div[contenteditable="true"][data-lexical-editor="true"]'],
      // A div, disabled by a class on its container rather than an attribute.
      send: ['div.send-button-container:not(.stop) .send-button', 'div.send-button-container:not(.stop)'],
      stop: ['div.send-button-container.stop', 'div.stop-message-btn'],
      disabled: ['.disabled', '[aria-disabled="true"]'],
      assistant: ['div.segment-assistant .markdown-container', 'div.chat-content-item-assistant .markdown'],
      user: ['div.segment-user .user-content', 'div.chat-content-item-user'],
      code: ['div.segment-code pre', 'div.markdown pre'],
      files: { input: ['label.attachment-button input[type="file"]', 'input[type="file"]'], drop: ['div.chat-editor', 'div.chat-input-editor'], preview: ['div.chat-editor .file-card', 'div.attachment-list .file-card'] },
      maxText: 30000,
    },
    {
      id: 'qwen', name: 'Qwen', hosts: ['chat.qwen.ai'], editor: 'textarea',
      input: ['textarea#chat-input', 'textarea.message-input-textarea'],
      send: ['button#send-message-button', 'div.message-input-right-button-send button', 'button.omni-button-content-btn'],
      stop: ['button#stop-message-button', 'div.message-input-right-button-send button.stop-button'],
      disabled: DISABLED,
      assistant: ['div.response-message-content:not(.phase-thinking)', 'div.chat-response-message .markdown-content-container'],
      user: ['div.user-message-content', '.user-message-text-content'],
      // Code blocks are CodeMirror views: one .cm-line per line.
      code: ['div.response-message-content .cm-content', 'pre.qwen-markdown-code'],
      files: { input: ['input#filesUpload', 'input[type="file"][multiple]'], drop: ['div.message-input-container', 'textarea#chat-input'], preview: ['div.prompt-input-file-list .file-item', 'div.prompt-input-file-list > *'] },
      maxText: 30000,
    },
  ];

  // For any site without a description: content.js finds the input, the send button and the
  // replies by shape and by the markers chat UIs commonly use.
  /** @type {import('./content').Adapter} */
  const GENERIC = {
    id: 'generic', name: 'Generic', hosts: [], editor: 'auto',
    input: [], send: [], stop: ['button[aria-label="Stop"]', 'button[aria-label*="Stop"]', 'button[data-testid*="stop"]'],
    disabled: DISABLED,
    assistant: ['[data-message-author-role="assistant"]', '[data-role="assistant"]', '[data-author="assistant"]', '.assistant-message', '.message.assistant', '.bot-message'],
    user: ['[data-message-author-role="user"]', '[data-role="user"]', '[data-author="user"]', '.user-message', '.message.user'],
    code: ['pre code', 'pre'],
    files: { input: ['input[type="file"]'], drop: [], preview: [] },
    maxText: 20000,
  };

  for (const s of [...SITES, GENERIC]) {
    Object.freeze(s.files);
    Object.freeze(s);
  }

  /** @param {string} id */
  function byId(id) {
    return SITES.find((s) => s.id === id) || (id === 'generic' ? GENERIC : null);
  }

  /** @param {{hostname: string}} loc */
  function forLocation(loc) {
    const host = loc.hostname;
    return SITES.find((s) => s.hosts.includes(host)) || null;
  }

  globalThis.McpRelaySites = Object.freeze({ SITES: Object.freeze(SITES), GENERIC, byId, forLocation });
})();
