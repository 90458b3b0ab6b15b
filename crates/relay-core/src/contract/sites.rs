//! The built-in chat sites and their hosts: the one table from which `cargo xtask codegen`
//! writes the manifest's `content_scripts[0].matches` and `host_permissions` and the `HOSTS`
//! block of `extension/content/sites.js` (whose adapters stay data there).

/// One built-in site: its adapter id (as in `extension/content/sites.js`) and every host name
/// its chats are served from.
pub struct BuiltinSite {
    /// The adapter id.
    pub id: &'static str,
    /// Host names (no scheme, no port); each gets `https://<host>/*`.
    pub hosts: &'static [&'static str],
}

/// Every built-in site, in the order of the adapters.
pub const BUILTIN_SITES: &[BuiltinSite] = &[
    BuiltinSite {
        id: "gemini",
        hosts: &["gemini.google.com"],
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
        hosts: &["aistudio.google.com"],
    },
    BuiltinSite {
        id: "perplexity",
        hosts: &["www.perplexity.ai", "perplexity.ai"],
    },
    BuiltinSite {
        id: "grok",
        hosts: &["grok.com"],
    },
    BuiltinSite {
        id: "kimi",
        hosts: &["www.kimi.com", "kimi.com", "kimi.moonshot.cn"],
    },
    BuiltinSite {
        id: "qwen",
        hosts: &["chat.qwen.ai"],
    },
];

/// Host permissions the extension always has besides the chat sites: loopback MCP servers.
pub const LOOPBACK_PERMISSIONS: &[&str] = &["http://127.0.0.1/*", "http://localhost/*"];

/// The match pattern of a host.
pub fn match_pattern(host: &str) -> String {
    format!("https://{host}/*")
}

/// Every built-in site's match patterns, in table order.
pub fn site_patterns() -> Vec<String> {
    BUILTIN_SITES
        .iter()
        .flat_map(|s| s.hosts.iter().map(|h| match_pattern(h)))
        .collect()
}
