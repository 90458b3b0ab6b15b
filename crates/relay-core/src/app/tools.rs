//! Tools as the user governs them: their views for the side panel, policy changes, runs by
//! hand, and the prompt a chat gets for its servers.

use crate::contract::ErrorKind;
use crate::sorted_map::SortedMap;

use serde_json::{Map, Value};

use crate::contract::views::ToolView;
use crate::contract::{ErrorBody, Role};
use crate::model::ServerTools;
use crate::model::Tool;
use crate::policy::{
    allows_read_only, content_server_ids, policy_change, revision, Decision, SeenTool, ToolPolicy,
};
use crate::prompt::{prepare_chosen, PreparedSelection, PromptOptions};
use crate::schema::validate;

use super::{App, ChatSettings, Effect, ToolSetting};

/// A policy change the side panel asks for (`tools/policy`).
#[derive(Debug, Clone, Default)]
pub struct PolicyChange<'a> {
    pub server: &'a str,
    /// One tool; `None`: every tool of the server (or its read-only ones with `read_only`).
    pub tool: Option<&'a str>,
    pub policy: Option<ToolPolicy>,
    pub enabled: Option<bool>,
    /// The user's one-click "allow this server's read-only tools": with `seen`, the tools the
    /// side panel showed them as covered, as it showed them.
    pub read_only: bool,
    pub seen: &'a [SeenTool],
    /// The user confirmed allowing a tool its server declares destructive.
    pub confirm: bool,
}

impl App {
    /// A tool as the side panel shows it: the MCP definition plus `serverId`, the policy in
    /// effect and why, `enabled`, its `revision`, whether "allow read-only tools" covers it and
    /// whether such an allowance lapsed because the tool changed.
    pub fn tool_view(&self, server: &str, tool: &Tool) -> ToolView {
        let (_, enabled) = self.config.tool_setting(server, &tool.name);
        let (policy, allowed_by) = self.config.tool_policy(server, tool);
        ToolView {
            tool: tool.clone(),
            server_id: server.to_owned(),
            policy,
            enabled,
            revision: revision(tool),
            read_only: allows_read_only(tool),
            allowed_by,
            changed: self.config.read_only_lapsed(server, tool),
            ui: Some(crate::apps::ToolUi::of(tool)).filter(|ui| *ui != Default::default()),
        }
    }

    /// The views of a server's last listed tools.
    pub fn tool_views(&self, server: &str) -> Vec<ToolView> {
        self.tools
            .get(server)
            .map(|ts| ts.iter().map(|t| self.tool_view(server, t)).collect())
            .unwrap_or_default()
    }

    /// Applies a policy change; nothing changes when any chosen tool needs a confirmation the
    /// user has not given.
    ///
    /// "Allow read-only tools" is the user's word, not the server's: it allows the tools the
    /// side panel showed as covered (`seen`) that are still listed as that very definition and
    /// still claim to only read, and records each one's revision, so the allowance lapses when
    /// the tool changes ([`crate::policy::policy_now`]). A tool the user did not see listed
    /// (new, changed, or newly claiming to only read) stays as it is.
    pub fn set_policy(&mut self, change: &PolicyChange<'_>) -> Result<Vec<Effect>, ErrorBody> {
        let known = self.tools.get(change.server).cloned().unwrap_or_default();
        if change.tool.is_none() && change.read_only {
            return self.allow_read_only(change, &known);
        }
        let chosen: Vec<&Tool> = match change.tool {
            Some(t) => known.iter().filter(|k| k.name == t).collect(),
            None => known.iter().collect(),
        };
        for tool in &chosen {
            policy_change(tool, change.policy, change.confirm)?;
        }
        let mut names: Vec<&str> = chosen.iter().map(|t| t.name.as_str()).collect();
        if let Some(t) = change.tool {
            if names.is_empty() {
                names.push(t); // a tool not listed (yet): its setting waits for it
            }
        }
        for name in names {
            self.config
                .set_tool(change.server, name, change.policy, change.enabled);
        }
        Ok(vec![Effect::SaveConfig])
    }

    fn allow_read_only(
        &mut self,
        change: &PolicyChange<'_>,
        known: &[Tool],
    ) -> Result<Vec<Effect>, ErrorBody> {
        if change.policy != Some(ToolPolicy::Allow) || change.enabled.is_some() {
            return Err(ErrorBody::new(
                ErrorKind::InvalidArgument,
                "readOnly applies to policy 'allow' only",
            ));
        }
        if change.seen.is_empty() {
            return Err(ErrorBody::new(
                ErrorKind::InvalidArgument,
                "readOnly needs `seen`: the tools the user saw listed as covered",
            )
            .with_hint("Open the Tools view and allow the read-only tools it lists."));
        }
        let covered = |t: &&Tool| {
            allows_read_only(t)
                && change
                    .seen
                    .iter()
                    .any(|s| s.name == t.name && s.revision == revision(t))
        };
        for tool in known.iter().filter(covered) {
            self.config
                .allow_read_only(change.server, &tool.name, &revision(tool));
        }
        Ok(vec![Effect::SaveConfig])
    }

    /// Checks a run by hand from the side panel: the click is the approval, but disabled and
    /// denied tools stay refused and arguments are validated. Returns the arguments to send.
    pub fn manual_call(
        &self,
        server: &str,
        name: &str,
        arguments: &Value,
    ) -> Result<Map<String, Value>, ErrorBody> {
        let tool = self.find_tool(server, name).ok_or_else(|| {
            ErrorBody::new(
                ErrorKind::InvalidArgument,
                format!("server '{server}' has no tool '{name}'"),
            )
        })?;
        if let Decision::Deny { reason } = self.config.decision(server, name, Some(tool), true) {
            return Err(ErrorBody::new(ErrorKind::Denied, reason)
                .with_hint("Change the tool's policy in the Tools view to run it."));
        }
        let checked = validate(tool, arguments);
        if !checked.is_valid() {
            return Err(ErrorBody::new(
                ErrorKind::InvalidArgument,
                checked.message_for_model(name).unwrap_or_default(),
            ));
        }
        Ok(checked.arguments.as_object().cloned().unwrap_or_default())
    }

    /// The servers a `prompt/build` describes: a chat page only its own chat's (and so never
    /// makes the worker connect to any other); a side panel what it names, else the chat's.
    pub fn prompt_servers(
        &self,
        role: Role,
        chat: Option<&ChatSettings>,
        requested: Option<Vec<String>>,
    ) -> Result<Vec<String>, ErrorBody> {
        let picked = chat.map(|c| c.server_ids.clone()).unwrap_or_default();
        Ok(match role {
            Role::Content => content_server_ids(requested, &picked)?,
            Role::Page => requested.unwrap_or(picked),
        })
    }

    /// The prompt for `ids`: explicit `options`, or the chat's strategy, limits and the user's
    /// custom instructions. `null` when there is nothing to describe; diagnostics either way.
    /// The selection's tools are rendered once and kept until they change (a server's tools,
    /// name or switch, a tool's switch), so a prompt for another chat or other options is a
    /// concatenation.
    pub fn prompt(
        &self,
        chat: Option<&ChatSettings>,
        ids: &[String],
        options: Option<PromptOptions>,
    ) -> Value {
        let options = options.unwrap_or_else(|| {
            let settings = &self.config.settings;
            let mut o = PromptOptions::default();
            let limits = chat.map(|c| self.config.limits(c)).unwrap_or_default();
            o.strategy = chat
                .and_then(|c| c.strategy)
                .unwrap_or(settings.default_strategy);
            o.max_calls_per_reply = limits.max_consecutive;
            o.max_calls_per_turn = limits.max_total;
            if !settings.custom_instructions.trim().is_empty() {
                o.custom_instructions = Some(settings.custom_instructions.clone());
            }
            o
        });
        let key = self.prompt_key(ids);
        let mut cache = self.prompts.borrow_mut();
        let prepared = match cache.as_ref().filter(|c| c.key == key) {
            Some(hit) => &hit.selection,
            None => {
                // The servers by name only: their tools are read where the app keeps them,
                // not copied (a copy of 1,000 tools cost as much as rendering them).
                let enabled = self.config.servers.iter().filter(|s| s.enabled);
                let names: Vec<ServerTools> = enabled
                    .map(|s| ServerTools::new(s.id.clone(), s.name.clone(), Vec::new()))
                    .collect();
                let tools = |server: &ServerTools| self.model_tools(&server.id);
                let selection = prepare_chosen(&names, ids, |_| false, tools);
                &cache.insert(PromptCache { key, selection }).selection
            }
        };
        let outcome = prepared.prompt(&options);
        let mut value = match outcome.prompt {
            Some(p) => serde_json::to_value(p).unwrap_or(Value::Null),
            None => Value::Null,
        };
        if let Some(o) = value.as_object_mut() {
            o.insert(
                "diagnostics".into(),
                serde_json::to_value(&outcome.diagnostics).unwrap_or(Value::Null),
            );
        }
        value
    }
}

/// What a selection's prompt depends on besides the options: the ids, the tools' generation,
/// and each server's name, switch and tool settings.
#[derive(PartialEq)]
pub(super) struct PromptKey {
    ids: Vec<String>,
    tools_generation: u64,
    servers: Vec<Option<ServerKey>>,
}

/// A selected server as its prompt sees it: name, switch, tool settings.
type ServerKey = (String, bool, Option<SortedMap<String, ToolSetting>>);

/// The last selection's tools rendered for prompts.
pub(super) struct PromptCache {
    key: PromptKey,
    selection: PreparedSelection,
}

impl App {
    pub(super) fn prompt_key(&self, ids: &[String]) -> PromptKey {
        let server = |id: &String| {
            let s = self.config.servers.iter().find(|s| &s.id == id)?;
            Some((
                s.name.clone(),
                s.enabled,
                self.config.tools.get(id).cloned(),
            ))
        };
        PromptKey {
            ids: ids.to_vec(),
            tools_generation: self.tools_generation,
            servers: ids.iter().map(server).collect(),
        }
    }
}
