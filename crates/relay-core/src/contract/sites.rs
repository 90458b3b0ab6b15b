//! The built-in chat sites and their hosts: the one table from which `cargo xtask codegen`
//! writes the manifest's `content_scripts[0].matches` and `host_permissions` and the `HOSTS`
//! block of `extension/content/sites.js` (whose adapters stay data there).

/// One built-in site: its adapter id (as in `extension/content/sites.js`) and every host name
/// its chats are served from. A host may carry a path prefix (`github.com/copilot`): the chat
/// lives under that path of a larger site. A site without hosts (Open WebUI) is self-hosted on
/// origins the user adds and recognised there by its page signature.
pub struct BuiltinSite {
    /// The adapter id.
    pub id: &'static str,
    /// Host names (no scheme, no port), optionally with a path prefix; each gets
    /// `https://<host>/*` (`https://<host/path>*` with a path).
    pub hosts: &'static [&'static str],
}

/// Every built-in site, in the order of the adapters.
pub const BUILTIN_SITES: &[BuiltinSite] = &[
    BuiltinSite {
        id: "gemini",
        hosts: &["gemini.google.com", "business.gemini.google"],
    },
    BuiltinSite {
        id: "chatgpt",
        hosts: &["chatgpt.com", "chat.openai.com"],
    },
    BuiltinSite {
        id: "claude",
        hosts: &["claude.ai"],
    },
    BuiltinSite {
        id: "deepseek",
        hosts: &["chat.deepseek.com"],
    },
    BuiltinSite {
        id: "aistudio",
        hosts: &["aistudio.google.com", "aistudio.google.cn"],
    },
    BuiltinSite {
        id: "perplexity",
        hosts: &["www.perplexity.ai", "perplexity.ai"],
    },
    BuiltinSite {
        id: "grok",
        hosts: &["grok.com", "x.com/i/grok"],
    },
    BuiltinSite {
        id: "kimi",
        hosts: &["www.kimi.com", "kimi.com", "kimi.moonshot.cn"],
    },
    BuiltinSite {
        id: "qwen",
        hosts: &["chat.qwen.ai"],
    },
    BuiltinSite {
        id: "t3chat",
        hosts: &["t3.chat"],
    },
    BuiltinSite {
        id: "openrouter",
        hosts: &["openrouter.ai"],
    },
    BuiltinSite {
        id: "mistral",
        hosts: &["chat.mistral.ai"],
    },
    BuiltinSite {
        id: "ghcopilot",
        hosts: &["github.com/copilot"],
    },
    BuiltinSite {
        id: "mscopilot",
        hosts: &["copilot.microsoft.com"],
    },
    BuiltinSite {
        id: "zai",
        hosts: &["chat.z.ai"],
    },
    BuiltinSite {
        id: "doubao",
        hosts: &["www.doubao.com"],
    },
    BuiltinSite {
        id: "yuanbao",
        hosts: &["yuanbao.tencent.com"],
    },
    BuiltinSite {
        id: "huggingchat",
        hosts: &["huggingface.co/chat"],
    },
    BuiltinSite {
        id: "openwebui",
        hosts: &[],
    },
];

/// Host permissions the extension always has besides the chat sites: loopback MCP servers.
pub const LOOPBACK_PERMISSIONS: &[&str] = &["http://127.0.0.1/*", "http://localhost/*"];

/// The match pattern of a host, or of a host with a path prefix.
pub fn match_pattern(host: &str) -> String {
    if host.contains('/') {
        format!("https://{host}*")
    } else {
        format!("https://{host}/*")
    }
}

/// Every built-in site's match patterns, in table order.
pub fn site_patterns() -> Vec<String> {
    BUILTIN_SITES
        .iter()
        .flat_map(|s| s.hosts.iter().map(|h| match_pattern(h)))
        .collect()
}
