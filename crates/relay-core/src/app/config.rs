//! The user's configuration as the application keeps it (`chrome.storage.local` key
//! [`CONFIG_KEY`]): servers, per-tool settings, per-chat settings and the extension's settings,
//! with the lookups every decision of the loop needs.

use crate::sorted_map::SortedMap;

use serde::{Deserialize, Serialize};

use crate::client::config::DEFAULT_TIMEOUT_MS;
use crate::client::{ProtocolMode, ServerConfig};
use crate::contract::views::ChatSource;
use crate::model::Tool;
use crate::policy::{
    decide, policy_now, AllowedBy, Decision, DecisionInput, LoopLimits, ToolPolicy,
};
use crate::prompt::Strategy;
use crate::result::ResultOptions;

// The storage keys are part of the contract (its storage schema).
pub use crate::contract::storage::{CONFIG_KEY, LEDGER_KEY, TOOLS_KEY};
/// Final calls the ledger keeps (oldest delivered ones are dropped first).
pub const LEDGER_KEEP: usize = 500;

/// Per-tool settings the user chose.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct ToolSetting {
    pub policy: Option<ToolPolicy>,
    pub enabled: Option<bool>,
    /// Set when the policy is an "allow read-only tools" allowance: the
    /// [`revision`](crate::policy::revision) of the definition the user saw then
    /// ([`crate::policy::policy_now`]).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub read_only_seen: Option<String>,
}

/// One chat's settings (a chat is a tab and its conversation URL).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct ChatSettings {
    pub server_ids: Vec<String>,
    pub strategy: Option<Strategy>,
    pub template: Option<String>,
    pub auto_execute: bool,
    pub auto_submit: bool,
    pub max_consecutive: Option<u32>,
    pub max_total: Option<u32>,
    /// Set by the core on settings the user made for the whole site (`chat/set` with scope
    /// "site"): their auto-run and auto-send apply to the site's conversations too. Site
    /// settings remembered before that choice existed (from one conversation) lack it, and
    /// the site's other conversations get them with both switches off: a bot in a
    /// conversation the user never set up gets no automatic tools.
    pub switches_for_site: bool,
}

impl ChatSettings {
    /// What another conversation of the site starts with: these settings, with auto-run and
    /// auto-send only where the user applied them to the whole site.
    pub fn for_another_chat(&self) -> ChatSettings {
        let mut settings = self.clone();
        if !settings.switches_for_site {
            settings.auto_execute = false;
            settings.auto_submit = false;
        }
        settings
    }
}

/// Settings of the whole extension.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase", default)]
pub struct Settings {
    pub custom_instructions: String,
    pub default_strategy: Strategy,
    pub max_consecutive: u32,
    pub max_total: u32,
    pub result_max_chars: usize,
    /// The request timeout of servers added without one of their own.
    pub default_timeout_ms: u64,
    pub language: String,
    /// The user closed the side panel's first-run guide.
    pub guide_dismissed: bool,
    /// How long results written with auto-send wait in the chat's input before they are sent
    /// (0: at once). The card counts down and can cancel the send.
    pub send_delay_ms: u64,
}

impl Default for Settings {
    fn default() -> Self {
        let limits = LoopLimits::default();
        Settings {
            custom_instructions: String::new(),
            default_strategy: Strategy::Auto,
            max_consecutive: limits.max_consecutive,
            max_total: limits.max_total,
            result_max_chars: ResultOptions::default().max_chars,
            default_timeout_ms: DEFAULT_TIMEOUT_MS,
            language: String::new(),
            guide_dismissed: false,
            send_delay_ms: 0,
        }
    }
}

/// Everything in `chrome.storage.local` under [`CONFIG_KEY`].
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase", default)]
pub struct Config {
    pub servers: Vec<ServerConfig>,
    pub tools: SortedMap<String, SortedMap<String, ToolSetting>>,
    pub chats: SortedMap<String, ChatSettings>,
    /// Per site (origin): the settings made for the whole site, which every chat of the site
    /// uses until it is given its own.
    pub sites: SortedMap<String, ChatSettings>,
    pub settings: Settings,
    /// What each server was found to speak (protocol 2026-07-28 or a session), so a restarted
    /// worker does not probe again ([`crate::app::App::learned`]).
    #[serde(skip_serializing_if = "SortedMap::is_empty")]
    pub protocols: SortedMap<String, ProtocolMode>,
}

/// The origin (`scheme://host[:port]`) of a chat key's URL, lowercased; None without one.
pub fn chat_origin(chat: &str) -> Option<String> {
    let url = chat.split_once('|')?.1;
    let (scheme, rest) = url.split_once("://")?;
    let host = rest.split(['/', '?', '#']).next().unwrap_or("");
    (!scheme.is_empty() && !host.is_empty()).then(|| {
        format!(
            "{}://{}",
            scheme.to_ascii_lowercase(),
            host.to_ascii_lowercase()
        )
    })
}

impl Config {
    /// A chat's settings: its own, else its site's (auto-run and auto-send only where they
    /// were set for the whole site, [`ChatSettings::for_another_chat`]), else the defaults.
    pub fn chat(&self, chat: &str) -> ChatSettings {
        match self.chats.get(chat) {
            Some(own) => own.clone(),
            None => chat_origin(chat)
                .and_then(|o| self.sites.get(&o))
                .map(ChatSettings::for_another_chat)
                .unwrap_or_default(),
        }
    }

    /// Where a chat's settings come from: `"chat"` (its own), `"site"` (its site's) or
    /// `"default"`.
    pub fn chat_source(&self, chat: &str) -> ChatSource {
        if self.chats.contains_key(chat) {
            ChatSource::Chat
        } else if chat_origin(chat).is_some_and(|o| self.sites.contains_key(&o)) {
            ChatSource::Site
        } else {
            ChatSource::Default
        }
    }

    /// The loop limits of a chat: its own, else the extension's.
    pub fn limits(&self, chat: &ChatSettings) -> LoopLimits {
        LoopLimits {
            max_consecutive: chat
                .max_consecutive
                .unwrap_or(self.settings.max_consecutive),
            max_total: chat.max_total.unwrap_or(self.settings.max_total),
        }
    }

    /// A chat's strategy: its own, else the extension's default.
    pub fn strategy(&self, chat: &ChatSettings) -> Strategy {
        chat.strategy.unwrap_or(self.settings.default_strategy)
    }

    /// Whether a server is configured and switched on.
    pub fn server_enabled(&self, id: &str) -> bool {
        self.servers.iter().any(|s| s.id == id && s.enabled)
    }

    /// A server's display name (its id when it has none or is gone).
    pub fn server_name(&self, id: &str) -> String {
        self.servers
            .iter()
            .find(|s| s.id == id)
            .map(|s| s.name.clone())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| id.to_owned())
    }

    /// A tool's policy (ask until the user decides) and whether it is switched on.
    pub fn tool_setting(&self, server: &str, tool: &str) -> (ToolPolicy, bool) {
        let s = self.tools.get(server).and_then(|m| m.get(tool));
        let policy = s.and_then(|s| s.policy).unwrap_or(ToolPolicy::DEFAULT);
        (policy, s.and_then(|s| s.enabled).unwrap_or(true))
    }

    /// A listed tool's policy now ([`policy_now`]: an allowance given as read-only holds for
    /// the definition the user saw only) and, for `allow`, why.
    pub fn tool_policy(&self, server: &str, tool: &Tool) -> (ToolPolicy, Option<AllowedBy>) {
        let s = self.tools.get(server).and_then(|m| m.get(&tool.name));
        let policy = s.and_then(|s| s.policy).unwrap_or(ToolPolicy::DEFAULT);
        let seen = s.and_then(|s| s.read_only_seen.as_deref());
        policy_now(policy, seen, Some(tool))
    }

    /// Whether a tool's "allow read-only tools" allowance no longer holds: the tool changed
    /// (or stopped claiming to only read) since the user allowed it.
    pub fn read_only_lapsed(&self, server: &str, tool: &Tool) -> bool {
        let s = self.tools.get(server).and_then(|m| m.get(&tool.name));
        let allowance =
            s.is_some_and(|s| s.policy == Some(ToolPolicy::Allow) && s.read_only_seen.is_some());
        allowance && self.tool_policy(server, tool).0 != ToolPolicy::Allow
    }

    /// Sets a tool's policy and/or switch (`None` leaves that part as it is). A policy the
    /// user sets is theirs: it ends a read-only allowance.
    pub fn set_tool(
        &mut self,
        server: &str,
        tool: &str,
        policy: Option<ToolPolicy>,
        enabled: Option<bool>,
    ) {
        let s = self
            .tools
            .entry(server.to_owned())
            .or_default()
            .entry(tool.to_owned())
            .or_default();
        if policy.is_some() {
            s.policy = policy;
            s.read_only_seen = None;
        }
        if enabled.is_some() {
            s.enabled = enabled;
        }
    }

    /// Allows a tool as read-only, for the definition the user saw (`revision`).
    pub fn allow_read_only(&mut self, server: &str, tool: &str, revision: &str) {
        let s = self
            .tools
            .entry(server.to_owned())
            .or_default()
            .entry(tool.to_owned())
            .or_default();
        s.policy = Some(ToolPolicy::Allow);
        s.read_only_seen = Some(revision.to_owned());
    }

    /// What happens to a call of `tool` (None: the server does not list it) arriving now.
    pub fn decision(
        &self,
        server: &str,
        tool_name: &str,
        tool: Option<&Tool>,
        auto: bool,
    ) -> Decision {
        match tool {
            None => Decision::Deny {
                reason: format!("Tool '{tool_name}' is not available."),
            },
            Some(tool) => {
                let (_, enabled) = self.tool_setting(server, &tool.name);
                let (policy, _) = self.tool_policy(server, tool);
                decide(DecisionInput {
                    server_enabled: self.server_enabled(server),
                    tool_enabled: enabled,
                    policy,
                    auto_execute: auto,
                    tool: &tool.name,
                })
            }
        }
    }

    /// A new server id from its name: lower-case alphanumerics and dashes, unique.
    pub fn unique_id(&self, name: &str) -> String {
        let base: String = name
            .chars()
            .map(|c| {
                if c.is_ascii_alphanumeric() {
                    c.to_ascii_lowercase()
                } else {
                    '-'
                }
            })
            .collect::<String>()
            .trim_matches('-')
            .to_owned();
        let base = if base.is_empty() {
            "server".to_owned()
        } else {
            base
        };
        let taken = |id: &str| self.servers.iter().any(|s| s.id == id);
        if !taken(&base) {
            return base;
        }
        (2..)
            .map(|n| format!("{base}-{n}"))
            .find(|id| !taken(id))
            .unwrap_or(base)
    }

    /// Forgets a server everywhere: its settings, its tools' settings, and every chat's pick.
    pub fn remove_server(&mut self, id: &str) {
        self.servers.retain(|s| s.id != id);
        self.tools.remove(id);
        self.protocols.remove(id);
        for chat in self.chats.values_mut().chain(self.sites.values_mut()) {
            chat.server_ids.retain(|s| s != id);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_are_derived_from_names_and_unique() {
        let mut c = Config::default();
        assert_eq!(c.unique_id("My Server!"), "my-server");
        assert_eq!(c.unique_id("???"), "server");
        c.servers
            .push(ServerConfig::new("my-server", "x", "http://127.0.0.1:1/"));
        c.servers
            .push(ServerConfig::new("my-server-2", "x", "http://127.0.0.1:1/"));
        assert_eq!(c.unique_id("my server"), "my-server-3");
    }

    #[test]
    fn chat_limits_and_strategy_fall_back_to_the_settings() {
        let c = Config::default();
        let chat = ChatSettings {
            max_total: Some(3),
            ..Default::default()
        };
        assert_eq!(
            c.limits(&chat),
            LoopLimits {
                max_consecutive: c.settings.max_consecutive,
                max_total: 3
            }
        );
        assert_eq!(c.strategy(&chat), Strategy::Auto);
    }
}
