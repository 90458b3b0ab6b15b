//! The application: the state the service worker keeps (configuration, last known tools, the
//! call ledger, the reply parsers) and every decision the tool loop makes, without IO.
//!
//! Like [`crate::client::Session`], this is sans-IO: the driver (relay-wasm's service) feeds in
//! what happened (a reply grew, the user decided, a call finished, a delivery was written or
//! not, the worker restarted) and gets back [`Effect`]s to carry out (persist this, run that
//! call, tell that tab, try to deliver those results). Whatever the driver awaits in between,
//! the decisions, and so the invariants, are here, tested natively in `tests/test_app_loop.rs`:
//! a call runs at most once (re-renders, reloads, restarts), limits and policies hold at
//! execution, an outcome that may have happened is `unknown`, results reach the chat exactly once
//! even when the tab could not take them at first.

mod adapter;
mod apps;
mod chat;
mod config;
mod deliver;
mod elicit;
mod host;
mod inflight;
pub mod local;
mod observe;
mod requests;
mod run;
mod run_apps;
mod run_local;
mod run_rare;
mod run_signin;
mod send_later;
mod servers;
mod signin;
mod skills;
mod store;
mod tasks;
mod tools;
mod turn;

use crate::sorted_map::{SortedMap, SortedSet};

use crate::auth::AuthState;
use crate::contract::request::Scope;
use crate::model::{ServerTools, Tool};
use crate::parse::{SelectedTools, StreamParser};
use crate::policy::Ledger;

pub use adapter::{validate_adapter, AdapterError, EDITORS};
pub use apps::{PendingApp, MAX_CONTEXT_CHARS};
pub use chat::{chat_key, content_chat, tab_of};
pub use config::{
    chat_origin, ChatSettings, Config, Settings, ToolSetting, CONFIG_KEY, LEDGER_KEEP, LEDGER_KEY,
    TOOLS_KEY,
};
pub use deliver::{outcome_of, Delivery};
pub use elicit::{ElicitAnswer, Elicitation, ELICITATIONS_KEY, ELICITATION_TIMEOUT_MS};
pub use host::{Host, ProgressFn, Task};
pub use inflight::{cancelled_error, run_cancel_key, PROGRESS_NOTIFY_MS};
pub use observe::{page_key, PageAnswer, PageView, TurnView, MAX_PAGES};
pub use requests::{
    adapter_for, answer, import_preview, site_entry, sites_with, web_origin, Io, Sender, Step,
};
pub use run::{badge_text, Runner};
pub use run_signin::DpopProver;
pub use send_later::{DueSend, PendingSend};
pub use servers::{
    extension_id, input_of, origin_rules, origin_rules_update, server_from, Health, ServerState,
};
pub use signin::{Attempt, AuthEnv, AuthNext, AUTH_KEY, REFRESH_MARGIN_MS};
pub use skills::PendingSkill;
pub use store::{
    call_storage_key, ledger_from, preview, record_keys, result_storage_key, LedgerIndex,
    StorageOp, Stored, PREVIEW_BYTES, RESULTS_PER_CHAT_BYTES, RESULT_MAX_AGE_MS,
};
pub use tools::PolicyChange;
pub use turn::{CallEnd, PreparedCall, ReplyText, ReplyUpdate};

/// What the driver must do after the application changed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Effect {
    /// Write [`App::config`] to `chrome.storage.local` ([`CONFIG_KEY`]).
    SaveConfig,
    /// Write [`App::tools`] to `chrome.storage.local` ([`TOOLS_KEY`]).
    SaveTools,
    /// Write each server's skills listing to `chrome.storage.local`
    /// ([`crate::contract::storage::SKILLS_KEY`]).
    SaveSkills,
    /// Write what changed in the ledger to `chrome.storage.session`: each changed record, the
    /// index if it changed, records pruned (see `app::store`).
    SaveLedger,
    /// Write this call's full result to `chrome.storage.local`, pruning its chat's old ones.
    SaveResult(String),
    /// Write the chat pages ([`App::pages_to_store`]) to `chrome.storage.session`.
    SavePages,
    /// Run this admitted call: [`App::prepare_call`], the MCP request, [`App::finish_call`].
    Run(String),
    /// Tell the chat's tab that this call changed (its card updates).
    Notify { chat: String, key: String },
    /// Write text into a chat's input that is not a delivery of results (the ToolForced
    /// reminder).
    Insert {
        tab: i64,
        text: String,
        submit: bool,
    },
    /// Write the sign-ins ([`App::auth`]) to `chrome.storage.local` ([`AUTH_KEY`]).
    SaveAuth,
    /// Put [`App::authorization`] on this server's requests (or take it off).
    Authorize(String),
    /// Write the questions waiting for the user ([`App::elicitations_view`]) to
    /// `chrome.storage.session` ([`ELICITATIONS_KEY`]), where the side panel hears of them.
    SaveElicitations,
    /// Answer a server's request: a result, or an invalid-params error with this message.
    Respond {
        server: String,
        request: crate::client::jsonrpc::RequestId,
        result: Result<serde_json::Value, String>,
    },
    /// Try to write this message's results into the chat: [`App::take_delivery`], the tab
    /// message, [`App::delivery_written`].
    Deliver { chat: String, message_id: String },
}

/// The application state. In-memory; everything that must survive a worker restart is
/// persisted through [`Effect`]s and given back to [`App::restore`].
#[derive(Default)]
pub struct App {
    pub config: Config,
    /// Last known tools per server (persisted, so prompts work right after a restart).
    pub tools: SortedMap<String, Vec<Tool>>,
    pub ledger: Ledger,
    /// Each server's last connection error and request latency (not persisted).
    pub health: SortedMap<String, Health>,
    /// Servers whose connection and tool listing are under way, with how many are (not
    /// persisted): their views say "Connecting", not "Not connected" or an old error.
    pub connecting: SortedMap<String, u32>,
    /// Each server's sign-in (persisted; holds tokens, so it never leaves the worker).
    pub auth: SortedMap<String, AuthState>,
    /// Sign-in attempts under way, by server (not persisted: a restart abandons them).
    attempts: SortedMap<String, signin::Attempt>,
    /// Servers the user pressed Sign in for since this worker started (not persisted): only
    /// for them may an attempt the app starts on its own take the silent browser step.
    signed_in_by_user: SortedSet<String>,
    /// Servers' questions waiting for the user, by key (mirrored for the panel, not restored:
    /// the streams they came on end with the worker).
    pub elicitations: SortedMap<String, Elicitation>,
    next_elicitation: u64,
    /// Runs by hand under way and the calls the user cancelled (not persisted).
    inflight: inflight::InFlight,
    /// One streaming parser per reply being written (`chat|message`); rebuilt from the text a
    /// content script sends after a restart.
    parsers: SortedMap<String, StreamParser>,
    /// Each chat tab's page as the core sees it (persisted in session storage).
    pub pages: SortedMap<String, crate::page::Page>,
    /// Bumped whenever [`App::tools`] changes: part of the prompt cache's key.
    tools_generation: u64,
    /// The last selection's tools rendered for prompts (see [`App::prompt`]).
    prompts: std::cell::RefCell<Option<tools::PromptCache>>,
    /// The last selection's tools for parsing (see [`App::selection`]).
    selections: std::cell::RefCell<Option<(tools::PromptKey, SelectedTools)>>,
    /// What storage holds as far as the app knows, and full results kept in memory.
    stash: store::Stash,
    /// Results written and waiting for their delayed auto-send, by the first call's key (not
    /// persisted: a restart leaves them unsent, `Ledger::recover_after_restart`).
    pending_sends: SortedMap<String, send_later::PendingSend>,
    /// Delayed sends asked of the tab, until it answers.
    sent_waiting: SortedMap<String, send_later::PendingSend>,
    /// The MCP Apps open in the side panel (not persisted: their frames die with the panel).
    apps: apps::Apps,
    /// Each server's skills as last listed (persisted: the prompt and the parser know
    /// `load_skill` after a worker restart).
    skills: skills::Skills,
}

/// The stored state of an app that knows `servers` and their tools (loopback URLs that are
/// never contacted), and the servers' ids: for benchmarks of the extension's prompt path
/// (`benches/prompt.rs`, `examples/bench_probe.rs`).
#[doc(hidden)]
pub fn bench_state(servers: &[ServerTools]) -> (Config, SortedMap<String, Vec<Tool>>, Vec<String>) {
    let mut config = Config::default();
    let mut tools = SortedMap::new();
    for s in servers {
        let url = "http://127.0.0.1:9/mcp";
        (config.servers).push(crate::client::ServerConfig::new(&s.id, &s.name, url));
        tools.insert(s.id.clone(), s.tools.clone());
    }
    let ids = servers.iter().map(|s| s.id.clone()).collect();
    (config, tools, ids)
}

/// The chat of [`bench_state_with_chat`].
#[doc(hidden)]
pub const BENCH_CHAT: &str = "1|https://chatgpt.com/c/1";

/// [`bench_state`] with [`BENCH_CHAT`] selecting every server: for benchmarks of the
/// extension's reply path (`benches/parse.rs`, `examples/bench_probe.rs`).
#[doc(hidden)]
pub fn bench_state_with_chat(servers: &[ServerTools]) -> (Config, SortedMap<String, Vec<Tool>>) {
    let (mut config, tools, ids) = bench_state(servers);
    let settings = ChatSettings {
        server_ids: ids,
        ..Default::default()
    };
    config.chats.insert(BENCH_CHAT.to_owned(), settings);
    (config, tools)
}

/// Feeds `app` the reply `text` of [`BENCH_CHAT`] as a content script reports it: the text up to
/// each of `ends` appended to what came before (`reply/update` with appended text).
#[doc(hidden)]
pub fn bench_stream_reply(app: &mut App, message: &str, text: &str, ends: &[usize]) {
    let (mut start, mut at) = (0, 0);
    for &end in ends {
        let chunk = &text[start..end];
        let appended = ReplyText::Appended { at, text: chunk };
        std::hint::black_box(app.reply_update_text(BENCH_CHAT, message, appended, false, true));
        at += chunk.encode_utf16().count();
        start = end;
    }
}

impl App {
    /// The state after a worker (re)start, from what storage held. A call that was running
    /// when the worker stopped may or may not have run: it becomes `unknown`, its chat is told,
    /// and only an explicit user decision runs it again.
    pub fn restore(
        config: Config,
        tools: SortedMap<String, Vec<Tool>>,
        ledger: Ledger,
    ) -> (App, Vec<Effect>) {
        let mut app = App {
            config,
            tools,
            ledger,
            health: SortedMap::new(),
            connecting: SortedMap::new(),
            auth: SortedMap::new(),
            attempts: SortedMap::new(),
            signed_in_by_user: Default::default(),
            elicitations: SortedMap::new(),
            next_elicitation: 0,
            inflight: Default::default(),
            parsers: SortedMap::new(),
            pages: SortedMap::new(),
            tools_generation: 0,
            prompts: Default::default(),
            selections: Default::default(),
            stash: store::Stash::default(),
            pending_sends: SortedMap::new(),
            sent_waiting: SortedMap::new(),
            apps: apps::Apps::default(),
            skills: skills::Skills::default(),
        };
        app.stash = store::Stash::loaded(&app.ledger, true);
        let recovered = app.ledger.recover_after_restart();
        let mut effects = Vec::new();
        if !recovered.is_empty() {
            effects.push(Effect::SaveLedger);
            for key in recovered {
                if let Some(chat) = app.ledger.calls.get(&key).map(|r| r.chat.clone()) {
                    effects.push(Effect::Notify { chat, key });
                }
            }
        }
        // A call its server answered with a task is asked about again: its result, not a rerun.
        effects.extend(app.ledger.tasks_to_resume().into_iter().map(Effect::Run));
        (app, effects)
    }

    /// Storage holds the ledger in an older layout (its records inside the index): the next
    /// change writes all of it out anew.
    pub fn ledger_layout_changed(&mut self) {
        self.stash = store::Stash::default();
    }

    /// A tool of a server, as last listed.
    pub fn find_tool(&self, server: &str, tool: &str) -> Option<&Tool> {
        let own = self
            .tools
            .get(server)
            .and_then(|ts| ts.iter().find(|t| t.name == tool));
        // A server with skills offers the model `load_skill` too ([`skills`]).
        own.or_else(|| self.skills.tool(server).filter(|t| t.name == tool))
    }

    /// The tools of the given servers as the prompt and the parser see them: enabled servers,
    /// enabled tools the model may see.
    pub fn selected_tools(&self, ids: &[String]) -> Vec<ServerTools> {
        ids.iter()
            .filter_map(|id| {
                let s = self
                    .config
                    .servers
                    .iter()
                    .find(|s| &s.id == id && s.enabled)?;
                let list = self.model_tools(id).into_iter().cloned().collect();
                Some(ServerTools::new(s.id.clone(), s.name.clone(), list))
            })
            .collect()
    }

    /// [`selected_tools`](Self::selected_tools) for parsing, kept while nothing they come from
    /// changes (the prompt cache's key): a new reply's parser shares them, and the index of their
    /// names as tags, instead of copying them (with 1,000 tools, 3 ms natively per reply).
    pub fn selection(&self, ids: &[String]) -> SelectedTools {
        let key = self.prompt_key(ids);
        let mut cache = self.selections.borrow_mut();
        if let Some((_, kept)) = cache.as_ref().filter(|(k, _)| *k == key) {
            return kept.clone();
        }
        let selection = SelectedTools::new(self.selected_tools(ids));
        *cache = Some((key, selection.clone()));
        selection
    }

    /// A server's last known tools that the user has not switched off.
    pub fn enabled_tools(&self, id: &str) -> Vec<&Tool> {
        let on = |t: &&Tool| self.config.tool_setting(id, &t.name).1;
        let known = self.tools.get(id).map(Vec::as_slice).unwrap_or_default();
        known.iter().filter(on).collect()
    }

    /// A server's tools as the model sees them: enabled ones whose visibility includes the
    /// model (an MCP App's own tools, visible to `"app"` only, never reach the prompt, the
    /// parser's names or the model's calls).
    pub fn model_tools(&self, id: &str) -> Vec<&Tool> {
        let mut tools = self.enabled_tools(id);
        tools.retain(|t| crate::apps::visible_to_model(t));
        // The server's skills, loaded by the model with `load_skill` (unless the user switched
        // it off, or the server has a tool of that name).
        if let Some(load) = self.skills.tool(id) {
            let on = self.config.tool_setting(id, &load.name).1;
            if on && !tools.iter().any(|t| t.name == load.name) {
                tools.push(load);
            }
        }
        tools
    }

    /// Records a server's freshly listed tools; persisted only when they changed.
    pub fn set_tools(&mut self, server: &str, tools: Vec<Tool>) -> Vec<Effect> {
        if self.tools.get(server) == Some(&tools) {
            return Vec::new();
        }
        self.tools.insert(server.to_owned(), tools);
        self.tools_generation += 1;
        vec![Effect::SaveTools]
    }

    /// Forgets a server: configuration, tools, chat picks and sign-in.
    pub fn remove_server(&mut self, id: &str) -> Vec<Effect> {
        self.config.remove_server(id);
        self.tools.remove(id);
        self.tools_generation += 1;
        let mut effects = vec![Effect::SaveConfig, Effect::SaveTools];
        if self.forget_skills(id) {
            effects.push(Effect::SaveSkills);
        }
        effects.extend(self.forget_auth(id));
        effects
    }

    /// The instructions (or the user's own message) go into `chat`: a new turn starts, and the
    /// loop limits count from here, also after a worker restart.
    pub fn new_turn(&mut self, chat: &str) -> Vec<Effect> {
        self.ledger.new_turn(chat);
        vec![Effect::SaveLedger]
    }

    /// Sets one conversation's own settings: its site's settings and the site's other
    /// conversations are unchanged.
    pub fn set_chat(&mut self, chat: &str, settings: ChatSettings) -> Vec<Effect> {
        let settings = ChatSettings {
            switches_for_site: false,
            ..settings
        };
        self.config.chats.insert(chat.to_owned(), settings);
        vec![Effect::SaveConfig]
    }

    /// Sets the settings of a chat's whole site: every conversation of the site without
    /// settings of its own uses them, this one included (its own, if it had any, are dropped),
    /// auto-run and auto-send too: the user chose the whole site. A chat without an origin
    /// has no site: the settings stay its own.
    pub fn set_site(&mut self, chat: &str, settings: ChatSettings) -> Vec<Effect> {
        let Some(origin) = config::chat_origin(chat) else {
            return self.set_chat(chat, settings);
        };
        let settings = ChatSettings {
            switches_for_site: true,
            ..settings
        };
        self.config.sites.insert(origin, settings);
        self.config.chats.remove(chat);
        vec![Effect::SaveConfig]
    }

    /// Where a chat's settings apply from now on. `Chat`: the conversation gets settings of
    /// its own, starting from what it uses now (its site's, else the defaults). `Site`: its own
    /// settings are dropped and it uses its site's again. Nothing changes when the chat is
    /// already there.
    pub fn set_chat_scope(&mut self, chat: &str, scope: Scope) -> Vec<Effect> {
        let own = self.config.chats.contains_key(chat);
        match scope {
            Scope::Chat if !own => self.set_chat(chat, self.config.chat(chat)),
            // Without an origin there is no site to go back to: the chat keeps its own.
            Scope::Site if own && config::chat_origin(chat).is_some() => {
                self.config.chats.remove(chat);
                vec![Effect::SaveConfig]
            }
            _ => Vec::new(),
        }
    }

    /// How many calls wait for the user's decision, in every chat: the toolbar badge.
    pub fn pending_count(&self) -> usize {
        self.ledger
            .calls
            .values()
            .filter(|c| c.state == crate::policy::CallState::Pending)
            .count()
    }

    /// The toolbar badge of each chat tab the app knows (its calls' tabs and the tabs whose
    /// pages it follows): how many calls wait for the user there (`""` for none).
    pub fn tab_badges(&self) -> SortedMap<i64, String> {
        let mut counts: SortedMap<i64, usize> = SortedMap::new();
        for tab in self
            .pages
            .keys()
            .filter_map(|k| k.split('/').next()?.parse().ok())
        {
            counts.entry(tab).or_default();
        }
        for call in self.ledger.calls.values() {
            if let Some(tab) = tab_of(&call.chat) {
                let count = counts.entry(tab).or_default();
                if call.state == crate::policy::CallState::Pending {
                    *count += 1;
                }
            }
        }
        (counts.into_iter())
            .map(|(tab, n)| (tab, run::badge_text(n)))
            .collect()
    }
}
