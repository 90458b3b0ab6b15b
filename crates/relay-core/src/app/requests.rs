//! Every request of the contract, decided: [`App::handle`] answers what the application can
//! answer from its own state (with the [`Effect`]s to carry out first), and names the IO the
//! rest needs ([`Io`]): the driver performs it and comes back to the application for every
//! decision on the way. Both matches are exhaustive, so a message without a handler does not
//! compile.

use super::local::{self, LocalIo};
use crate::contract::ErrorKind;
use crate::sorted_map::SortedMap;

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::{
    chat_key, content_chat, tab_of, validate_adapter, AdapterError, App, ChatSettings, Effect,
    ElicitAnswer, PolicyChange,
};
use crate::client::config::MASK;
use crate::client::{HttpUrl, Operation, ServerConfig, TransportKind};
use crate::contract::request::{answers, AdapterChoice, Scope};
use crate::contract::views::{
    AdapterData, ChatView, ExportAnswer, ExportedServer, Header, ImportAnswer, ImportedServer,
    ManualRun, Pong, ServerPreview, Site, SiteAdapter,
};
use crate::contract::{ChatRef, ErrorBody, Request, Role, TabMessage};
use crate::model::CallToolResult;
use crate::policy::CallState;
use crate::prompt::PromptOptions;

/// Who sent a message, as the service worker established it from Chrome's `MessageSender`
/// (never from the message): `{role, origin, tabId?, frameId?, url?}`.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct Sender {
    /// `"page"` or `"content"`.
    pub role: String,
    /// The sender's origin (`https://chatgpt.com`, `chrome-extension://…`).
    #[serde(default)]
    pub origin: String,
    /// The tab of a content script.
    #[serde(default)]
    pub tab_id: Option<i64>,
    /// The frame of a content script in its tab (0: the top frame).
    #[serde(default)]
    pub frame_id: Option<i64>,
    /// The page URL of a content script, as Chrome gives it (the URL the page loaded with).
    #[serde(default)]
    pub url: Option<String>,
    /// The URL a content script reports for its page now (after in-page navigations): taken
    /// from the message by the driver, trusted only within the sender's origin
    /// ([`content_chat`]).
    #[serde(default)]
    pub reported_url: Option<String>,
}

impl Sender {
    /// The sender's role; anything but a page or a content script is refused.
    pub fn role(&self) -> Result<Role, ErrorBody> {
        match self.role.as_str() {
            "page" => Ok(Role::Page),
            "content" => Ok(Role::Content),
            other => Err(ErrorBody::new(
                ErrorKind::Forbidden,
                format!("unknown sender role '{other}'"),
            )),
        }
    }
}

/// The IO a request needs; the driver performs it.
// Not `non_exhaustive`: the driver must perform every kind of IO.
#[derive(Debug, Clone, PartialEq)]
pub enum Io {
    /// Answer these servers' views with their live state.
    ServersList(Vec<String>),
    /// Make the Origin rules, then [`App::add_server`], connect, list its tools, answer its view.
    ServersAdd(ServerConfig),
    /// Make the Origin rules, then [`App::update_server`], reconnect, answer its view.
    ServersUpdate(ServerConfig),
    /// End the server's session, [`App::remove_server`], rebuild the Origin rules.
    ServersRemove(String),
    /// Read an `mcpServers` configuration (in the second module: `client::import_mcp_servers`),
    /// then, with `apply`, add each of its servers (as `servers/add` would) and answer their
    /// views; otherwise answer the preview ([`import_preview`]).
    ServersImportRead {
        call: crate::rare::ImportCall,
        apply: bool,
    },
    /// Connect, list the tools, answer the server's view.
    ServersTest(String),
    /// Connect; when the server refuses, [`App::sign_in`] (interactive) and carry the attempt
    /// out; then list the tools and answer the server's view.
    ServersSignIn(String),
    /// [`App::sign_out`], carry the attempt out, answer the server's view.
    ServersSignOut(String),
    /// List these servers' tools (refreshed when asked) and answer their views; with `single`,
    /// a failure is the answer.
    ToolsList {
        ids: Vec<String>,
        single: bool,
        refresh: bool,
    },
    /// A run by hand: list the server's tools if this one is unknown, then
    /// [`App::manual_call`], the call, and [`App::manual_done`].
    ToolsCall {
        server: String,
        tool: String,
        arguments: Value,
        run_key: Option<String>,
    },
    /// Answer a server's protocol log (and empty it, with `clear`).
    ServersLog { id: String, clear: bool },
    /// Cancel the pool's operation of this key ([`App::cancel_target`]), and answer whether
    /// it was still running.
    CallsCancel(String),
    /// An MCP request whose result is the answer.
    Mcp { server: String, op: Operation },
    /// List the tools of servers never listed, then answer [`App::prompt`].
    PromptBuild {
        chat: Option<ChatSettings>,
        ids: Vec<String>,
        options: Option<PromptOptions>,
    },
    /// Carry out the effects, send this to the tab, and answer what it says.
    Tab {
        tab: i64,
        message: TabMessage,
        effects: Vec<Effect>,
    },
    /// Check an accepted form in the second module, then [`App::elicitation_checked`] and
    /// answer the questions still waiting.
    ElicitationCheck {
        key: String,
        call: crate::rare::ElicitAcceptCall,
    },
    /// Answer the custom sites.
    SitesList,
    /// Store the custom sites [`sites_with`] this origin's entry (or without it: then give its
    /// host permission back unless [`App::origin_in_use`]), and answer them (or, with `answer`,
    /// that value).
    SitesChange {
        origin: String,
        entry: Option<Value>,
        answer: Option<Value>,
    },
    /// Answer [`adapter_for`] the sender's origin.
    SitesAdapter(String),
    /// Read a local `mcpServers` file in the second module (`local::plan`) and answer the plan
    /// (`LocalPlanView`) as it made it.
    LocalPlan(crate::rare::LocalPlanCall),
    /// Ask the native host ([`super::local`]).
    Local(super::local::LocalIo),
    /// Read an app's document (`resources/read`), then [`App::app_read`] answers its view.
    AppsOpen(super::PendingApp),
    /// An open app's call, allowed ([`App::apps_request`]): run it, then
    /// [`App::app_call_done`] records it and answers its result.
    AppsCall {
        instance: String,
        server: String,
        tool: String,
        arguments: Map<String, Value>,
    },
    /// Add an app's log message to its server's protocol log.
    AppsLog { server: String, text: String },
    /// List these servers' skills (where they declare the extension) and answer their views.
    SkillsList(Vec<String>),
    /// List the server's skills if not yet, read the skill's file, [`App::skill_read`]
    /// verifies it, and write it into the chat's composer.
    SkillsLoad(super::skills::PendingSkill),
    /// [`App::observe`] with the time now, carry out its effects, answer its [`super::PageAnswer`].
    PageObserve {
        tab: i64,
        frame: i64,
        url: String,
        observation: crate::page::Observation,
    },
}

/// What a request comes to.
#[derive(Debug, Clone, PartialEq)]
pub enum Step {
    /// The answer, once these effects are carried out.
    Done(Value, Vec<Effect>),
    /// IO to perform.
    Io(Io),
}

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorKind::InvalidArgument, message)
}

/// A required string field (the contract reads a mistyped one as empty).
fn required(value: String, key: &str) -> Result<String, ErrorBody> {
    if value.is_empty() {
        return Err(invalid(format!("'{key}' is required")));
    }
    Ok(value)
}

fn to_value(value: impl Serialize) -> Value {
    serde_json::to_value(value).unwrap_or(Value::Null)
}

/// The answer `A` of a message as JSON: `answer::<answers::Ping>(pong)` does not compile
/// unless the value has the message's answer type.
pub fn answer<A: Serialize>(value: A) -> Value {
    to_value(value)
}

/// Accepts `http(s)://host[:port]` only: a content script is registered for exactly this origin.
pub fn web_origin(s: &str) -> Result<String, ErrorBody> {
    let s = s.trim().trim_end_matches('/');
    let rest = s
        .strip_prefix("https://")
        .or_else(|| s.strip_prefix("http://"));
    let valid = rest.is_some_and(|r| {
        !r.is_empty()
            && r.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | ':' | '[' | ']'))
    });
    if !valid {
        return Err(invalid(format!("'{s}' is not a web origin")).with_hint(
            "Use the form https://chat.example.com (scheme, host and optional port, nothing else).",
        ));
    }
    Ok(s.to_ascii_lowercase())
}

/// The custom sites (`[{origin, adapter, custom?}]`) with `origin`'s entry replaced by
/// `entry` ([`site_entry`]), or removed.
pub fn sites_with(mut sites: Vec<Value>, origin: &str, entry: Option<Value>) -> Vec<Value> {
    sites.retain(|s| s.get("origin").and_then(Value::as_str) != Some(origin));
    if let Some(entry) = entry {
        sites.push(entry);
    }
    sites
}

/// A custom site's entry: an adapter id, or adapter data (taught, edited or imported) that the
/// core validates and keeps, in its normal form, as the site's `custom`.
pub fn site_entry(origin: &str, adapter: Option<AdapterChoice>) -> Result<Site, ErrorBody> {
    match adapter {
        Some(AdapterChoice::Data(data)) => {
            let custom = validate_adapter(&Value::Object(data.0)).map_err(adapter_error)?;
            let custom: AdapterData = crate::json_value::from_value(custom)
                .map_err(|e| invalid(format!("adapter: {e}")))?;
            Ok(Site {
                origin: origin.to_owned(),
                adapter: custom.id.clone(),
                custom: Some(custom),
            })
        }
        Some(AdapterChoice::Id(id)) if !id.is_empty() => Ok(Site {
            origin: origin.to_owned(),
            adapter: id,
            custom: None,
        }),
        _ => Ok(Site {
            origin: origin.to_owned(),
            adapter: "generic".to_owned(),
            custom: None,
        }),
    }
}

/// An adapter the core refused, with the field and the fix.
fn adapter_error(e: AdapterError) -> ErrorBody {
    ErrorBody::new(ErrorKind::InvalidArgument, e.to_string()).with_hint(e.hint())
}

/// The adapter configured for a custom site's origin (`{adapter, custom?}`), if any.
pub fn adapter_for(sites: &[Value], origin: &str) -> Option<SiteAdapter> {
    let site = sites
        .iter()
        .find(|s| s.get("origin").and_then(Value::as_str) == Some(origin))?;
    Some(SiteAdapter {
        adapter: site
            .get("adapter")
            .and_then(Value::as_str)
            .unwrap_or("generic")
            .to_owned(),
        custom: site
            .get("custom")
            .and_then(|c| crate::json_value::from_value(c.clone()).ok()),
    })
}

/// What an import would add, before the user applies it: each server's name, URL, transport
/// and headers (values masked), and the entries skipped with why.
pub fn import_preview(report: crate::client::ImportReport) -> Value {
    let preview = |s: &ServerConfig| {
        let headers = s.headers.iter().map(|(name, _)| Header {
            name: name.clone(),
            value: MASK.to_owned(),
            secret: None,
        });
        ImportedServer::Preview(ServerPreview {
            name: s.name.clone(),
            url: s.url.clone(),
            transport: s.transport,
            headers: headers.collect(),
        })
    };
    answer::<answers::ServersImport>(ImportAnswer {
        servers: report.servers.iter().map(preview).collect(),
        skipped: report.skipped,
    })
}

impl App {
    /// The chat a message is about: a content script's own tab, or the `chat` a page names.
    pub fn chat_for(&self, sender: &Sender, chat: Option<&ChatRef>) -> Result<String, ErrorBody> {
        match sender.role()? {
            Role::Content => {
                let tab = sender
                    .tab_id
                    .ok_or_else(|| invalid("content script without a tab"))?;
                // Its page's current URL (after in-page navigations), within the sender's origin.
                let url = sender.url.as_deref().unwrap_or("");
                Ok(content_chat(tab, url, sender.reported_url.as_deref()))
            }
            Role::Page => {
                let chat = chat.ok_or_else(|| invalid("'chat' ({tabId, url}) is required"))?;
                let tab = chat
                    .tab_id
                    .ok_or_else(|| invalid("'chat.tabId' is required"))?;
                Ok(chat_key(tab, chat.url.as_deref().unwrap_or("")))
            }
        }
    }

    /// A chat's settings as the panel shows them, with where they come from (`source`: its
    /// own, its site's, or the defaults).
    pub fn chat_view(&self, chat: &str) -> ChatView {
        ChatView {
            settings: self.config.chat(chat),
            source: self.config.chat_source(chat),
        }
    }

    fn tab_for(&self, sender: &Sender, chat: Option<&ChatRef>) -> Result<i64, ErrorBody> {
        let chat = self.chat_for(sender, chat)?;
        tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))
    }

    /// Adds a server prepared by [`App::new_server`] (refused if its id was taken meanwhile).
    pub fn add_server(&mut self, server: ServerConfig) -> Result<Vec<Effect>, ErrorBody> {
        if self.config.servers.iter().any(|s| s.id == server.id) {
            return Err(invalid(format!(
                "a server with id '{}' was added meanwhile; try again",
                server.id
            )));
        }
        self.config.servers.push(server);
        Ok(vec![Effect::SaveConfig])
    }

    /// The server list as it will be once `server` is added (or, with `replace`, once it
    /// replaces the server of its id): the Origin rules are made for it before the list changes.
    pub fn servers_with(&self, server: &ServerConfig, replace: bool) -> Vec<ServerConfig> {
        let mut next = self.config.servers.clone();
        match next.iter_mut().find(|s| s.id == server.id) {
            Some(slot) if replace => *slot = server.clone(),
            _ if replace => {}
            _ => next.push(server.clone()),
        }
        next
    }

    /// Replaces a server with its edited configuration ([`App::edited_server`]).
    /// The client starts the server's session over: its sign-in goes on the new session, unless
    /// the server moved to another URL, where its tokens are not valid.
    pub fn update_server(&mut self, server: ServerConfig) -> Vec<Effect> {
        self.health.remove(&server.id);
        let id = server.id.clone();
        let mut moved = false;
        if let Some(slot) = self.config.servers.iter_mut().find(|s| s.id == server.id) {
            moved = slot.url != server.url;
            *slot = server;
        }
        let mut effects = vec![Effect::SaveConfig];
        if moved {
            // Another URL may be another server: what it speaks is found out again.
            self.config.protocols.remove(&id);
            effects.extend(self.forget_auth(&id));
        } else if self.auth.contains_key(&id) {
            effects.push(Effect::Authorize(id));
        }
        effects
    }

    /// How a run by hand ended (after `duration` ms), as the side panel gets it.
    pub fn manual_done(
        &mut self,
        server: &str,
        tool: &str,
        sent: Map<String, Value>,
        result: Result<CallToolResult, ErrorBody>,
        duration: u64,
    ) -> Result<ManualRun, ErrorBody> {
        self.call_ended(server, duration, true);
        Ok(ManualRun {
            state: CallState::Done,
            tool: tool.to_owned(),
            server_id: server.to_owned(),
            arguments: sent,
            result: result?,
            duration_ms: duration,
        })
    }

    /// Whether a configured server lives on `origin`, or a kept sign-in fetches from it (an
    /// authorization server's): its host permission is still needed.
    pub fn origin_in_use(&self, origin: &str) -> bool {
        let same = |o: &str| o.eq_ignore_ascii_case(origin);
        self.config
            .servers
            .iter()
            .any(|s| HttpUrl::parse(&s.url).is_ok_and(|u| same(&u.origin())))
            || self
                .auth
                .keys()
                .any(|id| self.sign_in_origins(id).iter().any(|o| same(o)))
    }

    /// The origins a server reaches: its URL's and its sign-in's (the authorization servers
    /// its resource names and the endpoints of the one it uses), whose host permissions its
    /// removal may give back.
    pub fn server_origins(&self, id: &str) -> Vec<String> {
        let url = self.config.servers.iter().find(|s| s.id == id);
        let own = url
            .and_then(|s| HttpUrl::parse(&s.url).ok())
            .map(|u| u.origin());
        let mut origins: Vec<String> = own.into_iter().chain(self.sign_in_origins(id)).collect();
        crate::sorted_map::sort(&mut origins);
        origins.dedup();
        origins
    }

    /// Of `origins` (what a removed server reached, [`App::server_origins`]), those whose host
    /// permission nothing needs any more: no server lives there, no kept sign-in fetches from
    /// there, and no custom chat site (`sites`, the stored list) is there.
    pub fn origins_to_release(&self, origins: Vec<String>, sites: &[Value]) -> Vec<String> {
        let site = |o: &str| {
            sites.iter().any(|s| {
                s.get("origin")
                    .and_then(Value::as_str)
                    .is_some_and(|so| so.eq_ignore_ascii_case(o))
            })
        };
        origins
            .into_iter()
            .filter(|o| !self.origin_in_use(o) && !site(o))
            .collect()
    }

    /// The answer to `ping`: the core's version and the sender's role (answered before the
    /// state is loaded: it needs none).
    pub fn ping(role: Role) -> Pong {
        Pong {
            core: env!("CARGO_PKG_VERSION").to_owned(),
            role,
        }
    }

    /// Decides a request of the contract (already admitted for `sender`'s role).
    pub fn handle(&mut self, request: Request, sender: &Sender) -> Result<Step, ErrorBody> {
        let role = sender.role()?;
        let done = |value| Ok(Step::Done(value, Vec::new()));
        let io = |io| Ok(Step::Io(io));
        match request {
            Request::Ping {} => done(answer::<answers::Ping>(App::ping(role))),
            Request::SettingsGet {} => done(answer::<&answers::SettingsGet>(&self.config.settings)),
            Request::SettingsSet { settings } => {
                self.config.settings = settings;
                let answer = answer::<&answers::SettingsSet>(&self.config.settings);
                Ok(Step::Done(answer, vec![Effect::SaveConfig]))
            }
            Request::ServersList {} => {
                let ids = self.config.servers.iter().map(|s| s.id.clone()).collect();
                io(Io::ServersList(ids))
            }
            Request::ServersAdd { server } => io(Io::ServersAdd(self.new_server(server)?)),
            Request::ServersUpdate { server } => io(Io::ServersUpdate(self.edited_server(server)?)),
            Request::ServersRemove { id } => io(Io::ServersRemove(required(id, "id")?)),
            Request::ServersImport { json, apply } => {
                let text = required(json, "json")?;
                let existing = self.config.servers.iter().map(|s| s.id.clone()).collect();
                io(Io::ServersImportRead {
                    call: crate::rare::ImportCall { text, existing },
                    apply: apply.unwrap_or(false),
                })
            }
            Request::ServersExport {} => {
                let mut out = crate::sorted_map::SortedMap::new();
                for s in &self.config.servers {
                    let kind = match s.transport {
                        TransportKind::Sse => "sse",
                        _ => "http",
                    };
                    let server = ExportedServer {
                        url: s.url.clone(),
                        kind: kind.to_owned(),
                    };
                    out.insert(s.name.clone(), server);
                }
                done(answer::<answers::ServersExport>(ExportAnswer {
                    mcp_servers: out,
                }))
            }
            Request::ServersTest { id } => io(Io::ServersTest(required(id, "id")?)),
            Request::ServersSignIn { id } => io(Io::ServersSignIn(required(id, "id")?)),
            Request::ServersSignOut { id } => io(Io::ServersSignOut(required(id, "id")?)),
            Request::ToolsList { server_id, refresh } => {
                let single = server_id.is_some();
                let ids = match server_id {
                    Some(id) => vec![id],
                    None => self
                        .config
                        .servers
                        .iter()
                        .filter(|s| s.enabled)
                        .map(|s| s.id.clone())
                        .collect(),
                };
                let refresh = refresh.unwrap_or(false);
                io(Io::ToolsList {
                    single: single && ids.len() == 1,
                    ids,
                    refresh,
                })
            }
            Request::ToolsPolicy {
                server_id,
                tool,
                policy,
                enabled,
                read_only,
                seen,
                confirm,
            } => {
                let server = required(server_id, "serverId")?;
                let seen = seen.unwrap_or_default();
                let change = PolicyChange {
                    server: &server,
                    tool: tool.as_deref(),
                    policy,
                    enabled,
                    read_only: read_only.unwrap_or(false),
                    seen: &seen,
                    confirm: confirm.unwrap_or(false),
                };
                let effects = self.set_policy(&change)?;
                let views = answer::<answers::ToolsPolicy>(self.tool_views(&server));
                Ok(Step::Done(views, effects))
            }
            Request::ToolsCall {
                server_id,
                tool,
                arguments,
                run_key,
            } => io(Io::ToolsCall {
                server: required(server_id, "serverId")?,
                tool: required(tool, "tool")?,
                arguments: arguments.unwrap_or_else(|| Value::Object(Map::new())),
                run_key,
            }),
            Request::CallsCancel { key } => {
                let key = required(key, "key")?;
                let sender_chat = match role {
                    Role::Content => Some(self.chat_for(sender, None)?),
                    Role::Page => None,
                };
                io(Io::CallsCancel(self.cancel_target(
                    role,
                    sender_chat.as_deref(),
                    &key,
                )?))
            }
            Request::ServersLog { id, clear } => {
                let id = required(id, "id")?;
                if !self.config.servers.iter().any(|s| s.id == id) {
                    return Err(invalid(format!("no server '{id}'")));
                }
                io(Io::ServersLog {
                    id,
                    clear: clear.unwrap_or(false),
                })
            }
            Request::CallsRunning {} => done(answer::<answers::CallsRunning>(self.running_view())),
            Request::PromptsList { server_id } => io(Io::Mcp {
                server: required(server_id, "serverId")?,
                op: Operation::ListPrompts,
            }),
            Request::PromptsGet {
                server_id,
                name,
                arguments,
            } => {
                let server = required(server_id, "serverId")?;
                let name = required(name, "name")?;
                let args: SortedMap<String, String> = arguments.unwrap_or_default();
                let arguments = args.into_iter().map(|(k, v)| (k, Value::String(v)));
                let op = Operation::GetPrompt {
                    name,
                    arguments: arguments.collect(),
                };
                io(Io::Mcp { server, op })
            }
            Request::ResourcesList { server_id } => io(Io::Mcp {
                server: required(server_id, "serverId")?,
                op: Operation::ListResources,
            }),
            r @ (Request::AppsOpen { .. }
            | Request::AppsCall { .. }
            | Request::AppsRead { .. }
            | Request::AppsMessage { .. }
            | Request::AppsContext { .. }
            | Request::AppsLog { .. }
            | Request::AppsLink { .. }
            | Request::AppsShow { .. }
            | Request::AppsClose { .. }) => self.apps_request(r, sender),
            r @ (Request::SkillsList { .. } | Request::SkillsLoad { .. }) => {
                self.skills_request(r, sender)
            }
            Request::ResourcesRead { server_id, uri } => {
                let server = required(server_id, "serverId")?;
                let uri = required(uri, "uri")?;
                io(Io::Mcp {
                    server,
                    op: Operation::ReadResource { uri },
                })
            }
            Request::ChatGet { chat } => {
                let chat = self.chat_for(sender, chat.as_ref())?;
                done(answer::<answers::ChatGet>(self.chat_view(&chat)))
            }
            Request::ChatSet {
                chat,
                settings,
                scope,
            } => {
                let chat = self.chat_for(sender, chat.as_ref())?;
                let effects = match scope.unwrap_or_default() {
                    Scope::Chat => self.set_chat(&chat, settings.0),
                    Scope::Site => self.set_site(&chat, settings.0),
                };
                let view = answer::<answers::ChatSet>(self.chat_view(&chat));
                Ok(Step::Done(view, effects))
            }
            Request::ChatScope { chat, scope } => {
                let chat = self.chat_for(sender, chat.as_ref())?;
                let scope = scope.ok_or_else(|| invalid("scope is required"))?;
                let effects = self.set_chat_scope(&chat, scope);
                let view = answer::<answers::ChatScope>(self.chat_view(&chat));
                Ok(Step::Done(view, effects))
            }
            Request::PromptBuild {
                chat,
                server_ids,
                options,
            } => {
                let chat = self
                    .chat_for(sender, chat.as_ref())
                    .ok()
                    .map(|c| self.config.chat(&c));
                let options: Option<PromptOptions> = options;
                let ids = self.prompt_servers(role, chat.as_ref(), server_ids)?;
                io(Io::PromptBuild { chat, ids, options })
            }
            Request::ChatInsert { chat, text, submit } => {
                let key = self.chat_for(sender, chat.as_ref())?;
                let text = required(text, "text")?;
                let tab = tab_of(&key).ok_or_else(|| invalid("chat has no tab"))?;
                // Inserting the instructions starts a new turn of the loop (persisted before
                // the text goes out).
                let effects = self.new_turn(&key);
                let message = TabMessage::Insert {
                    text,
                    submit: submit.unwrap_or(false),
                    attachments: Vec::new(),
                    without_files: None,
                };
                io(Io::Tab {
                    tab,
                    message,
                    effects,
                })
            }
            Request::ReplyParse { text, server_ids } => {
                let text = required(text, "text")?;
                let selection = match role {
                    Role::Content => {
                        let chat = self.chat_for(sender, None)?;
                        self.selection(&self.config.chat(&chat).server_ids)
                    }
                    Role::Page => self.selection(&server_ids.unwrap_or_default()),
                };
                done(answer::<answers::ReplyParse>(selection.parse(&text)))
            }
            Request::PageObserve { observation } => {
                let chat = self.chat_for(sender, None)?;
                let tab = tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))?;
                let url = chat.split_once('|').map_or("", |(_, u)| u).to_owned();
                io(Io::PageObserve {
                    tab,
                    frame: sender.frame_id.unwrap_or(0),
                    url,
                    observation,
                })
            }
            Request::PageState { chat } => {
                let chat = self.chat_for(sender, chat.as_ref())?;
                let tab = tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))?;
                done(answer::<answers::PageState>(self.page_view(tab)))
            }
            Request::ActivityList { chat } => {
                let chat = self.chat_for(sender, chat.as_ref())?;
                done(answer::<Vec<&crate::policy::CallRecord>>(
                    self.ledger.for_chat(&chat),
                ))
            }
            Request::ActivityDecide {
                key,
                decision,
                confirm,
            } => {
                let key = required(key, "key")?;
                let sender_chat = match role {
                    Role::Content => Some(self.chat_for(sender, None)?),
                    Role::Page => None,
                };
                let confirm = confirm.unwrap_or(false);
                let (record, effects) =
                    self.decide(role, sender_chat.as_deref(), &key, decision, confirm)?;
                Ok(Step::Done(
                    answer::<answers::ActivityDecide>(record),
                    effects,
                ))
            }
            Request::ChatHoldSend { key } => {
                let key = required(key, "key")?;
                let sender_chat = match role {
                    Role::Content => Some(self.chat_for(sender, None)?),
                    Role::Page => None,
                };
                let (record, effects) = self.cancel_send(role, sender_chat.as_deref(), &key)?;
                Ok(Step::Done(answer::<answers::ChatHoldSend>(record), effects))
            }
            Request::ElicitationList {} => {
                done(answer::<answers::ElicitationList>(self.elicitations_view()))
            }
            Request::ElicitationAnswer {
                key,
                action,
                content,
            } => {
                let key = required(key, "key")?;
                let action = required(action, "action")?;
                match self.elicitation_answer(&key, &action, content)? {
                    ElicitAnswer::Done(effects) => {
                        let views = answer::<answers::ElicitationAnswer>(self.elicitations_view());
                        Ok(Step::Done(views, effects))
                    }
                    ElicitAnswer::Check(call) => io(Io::ElicitationCheck { key, call }),
                }
            }
            Request::SitesList {} => io(Io::SitesList),
            Request::SitesAdd { origin, adapter } => {
                let origin = web_origin(&origin)?;
                io(Io::SitesChange {
                    entry: Some(to_value(site_entry(&origin, adapter)?)),
                    origin,
                    answer: None,
                })
            }
            Request::SitesRemove { origin } => io(Io::SitesChange {
                origin: web_origin(&origin)?,
                entry: None,
                answer: None,
            }),
            Request::SitesTaught { adapter } => {
                // A content script saves for its own origin only (the sender's, from Chrome).
                let data = adapter.ok_or_else(|| invalid("'adapter' is required"))?;
                let origin = sender.origin.clone();
                let entry = site_entry(&origin, Some(AdapterChoice::Data(data)))?;
                let custom = answer::<Option<&answers::SitesTaught>>(entry.custom.as_ref());
                io(Io::SitesChange {
                    origin,
                    entry: Some(to_value(entry)),
                    answer: Some(custom),
                })
            }
            Request::SitesTeach { chat } => io(Io::Tab {
                tab: self.tab_for(sender, chat.as_ref())?,
                message: TabMessage::Teach {},
                effects: Vec::new(),
            }),
            Request::SitesCheck { chat } => io(Io::Tab {
                tab: self.tab_for(sender, chat.as_ref())?,
                message: TabMessage::Check {},
                effects: Vec::new(),
            }),
            Request::SitesAdapter {} => io(Io::SitesAdapter(sender.origin.clone())),
            Request::LocalList { os, extension_id } => {
                io(Io::Local(LocalIo::List(local::Platform {
                    os,
                    extension_id,
                })))
            }
            Request::LocalLog { name } => {
                local::check_name(&name)?;
                io(Io::Local(LocalIo::Log(name)))
            }
            Request::LocalRestart { name } => {
                local::check_name(&name)?;
                io(Io::Local(LocalIo::Restart(name)))
            }
            Request::LocalPlan { json } => io(Io::LocalPlan(crate::rare::LocalPlanCall {
                text: required(json, "json")?,
            })),
            Request::LocalPropose { servers } => {
                let servers = servers.unwrap_or_default();
                local::propose_message(&servers)?;
                io(Io::Local(LocalIo::Propose(servers)))
            }
        }
    }
}
