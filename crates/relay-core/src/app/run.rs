//! [`Runner`]: the application run on a [`Host`]. It answers messages ([`App::handle`]),
//! performs the IO a request needs in the order the app's invariants ask for (the Origin rules
//! before a server's first connection, tools listed before a prompt or a call by hand), and
//! carries out the app's [`Effect`]s: storage writes in order, calls, card updates and
//! deliveries in the background, server questions with their timeout.
//!
//! Everything here is decided in the core and tested natively with an in-memory host
//! (`tests/test_app_run.rs`); the host only performs primitives.

use crate::contract::ErrorKind;
use crate::sorted_map::{SortedMap, SortedSet};
use std::cell::RefCell;
use std::future::Future;
use std::pin::Pin;
use std::rc::Rc;
use std::task::{Context, Poll, Waker};

use serde_json::Value;

use super::host::{Host, ProgressFn};
use super::{
    adapter_for, answer, cancelled_error, result_storage_key, run_cancel_key, sites_with, tab_of,
    App, CallEnd, Config, Effect, Io, Sender, Step, StorageOp, AUTH_KEY, CONFIG_KEY,
    ELICITATION_TIMEOUT_MS, LEDGER_KEY, TOOLS_KEY,
};
use crate::client::jsonrpc::{ErrorCode, ErrorObject};
use crate::client::{Operation, Output, ServerConfig, ServerStatus, SessionEvent};
use crate::contract::request::answers;
use crate::contract::storage::{Area, PAGES_KEY, SITES_KEY, SKILLS_KEY};
use crate::contract::views::ServerView;
use crate::contract::{self, ErrorBody, Request, Role, TabMessage};
use crate::rare::{ElicitParseCall, RareCall, RareReply};

type Answer = Result<Value, ErrorBody>;

/// The application and the platform it runs on. Shared (`Rc`) by every handler and background
/// task; the app is borrowed only between awaits, so concurrent handlers never see it half
/// changed.
pub struct Runner<H: Host> {
    pub host: H,
    pub app: RefCell<App>,
    /// Whether the stored state is in the app yet ([`Runner::ensure_loaded`]).
    loaded: RefCell<Load>,
    /// Local servers being added by a `local/list` (two lists at once add each once).
    pub(super) local_adding: RefCell<SortedSet<String>>,
    /// The badge text each chat tab was last given.
    badges: RefCell<SortedMap<i64, String>>,
}

/// Where the state's load stands.
enum Load {
    NotYet,
    /// Under way; these handlers wait for it.
    Running(Vec<Waker>),
    Done,
    /// The last load failed (the next handler tries again).
    Failed(ErrorBody),
}

/// Ready once no load is under way.
/// A server's connection under way, for its view ([`App::connecting`]): ended when dropped, so
/// a listing abandoned half-way does not leave the server "Connecting".
struct Connecting<'a> {
    app: &'a RefCell<App>,
    id: String,
}

impl<'a> Connecting<'a> {
    fn start(app: &'a RefCell<App>, id: &str) -> Self {
        app.borrow_mut().connecting(id, true);
        Connecting {
            app,
            id: id.to_owned(),
        }
    }
}

impl Drop for Connecting<'_> {
    fn drop(&mut self) {
        if let Ok(mut app) = self.app.try_borrow_mut() {
            app.connecting(&self.id, false);
        }
    }
}

struct LoadSettled<'a>(&'a RefCell<Load>);

impl Future for LoadSettled<'_> {
    type Output = ();

    fn poll(self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<()> {
        match &mut *self.0.borrow_mut() {
            Load::Running(waiting) => {
                waiting.push(cx.waker().clone());
                Poll::Pending
            }
            _ => Poll::Ready(()),
        }
    }
}

/// The toolbar badge for this many calls waiting for the user (none when none).
pub fn badge_text(pending: usize) -> String {
    match pending {
        0 => String::new(),
        1..=99 => pending.to_string(),
        _ => "99+".to_owned(),
    }
}

impl<H: Host> Runner<H> {
    /// A runner with an empty app; [`Runner::load`] restores the stored state.
    pub fn new(host: H) -> Rc<Self> {
        Rc::new(Runner {
            host,
            app: RefCell::new(App::default()),
            loaded: RefCell::new(Load::NotYet),
            local_adding: RefCell::default(),
            badges: RefCell::new(SortedMap::new()),
        })
    }

    /// Answers one message from an extension page or content script (`message` as received;
    /// `sender` as the platform classified it from Chrome's sender information, never from the
    /// message): admission by the contract, the state loaded, then the answer, as an envelope.
    pub async fn message(self: &Rc<Self>, message: &Value, mut sender: Sender) -> Value {
        let answer = async {
            let role = sender.role()?;
            let request = contract::admit(message, role)?;
            if role == Role::Content {
                // What the page's URL is now; the core decides how far to trust it.
                let url = message.get("url").and_then(Value::as_str);
                sender.reported_url = url.map(str::to_owned);
            }
            self.ensure_loaded().await?;
            self.answer(request, &sender).await
        };
        match answer.await {
            Ok(data) => contract::ok(data),
            Err(e) => contract::err(e),
        }
    }

    /// The answer to a message that needs neither the state nor the full handler (`ping`, the
    /// liveness check pages and content scripts send first), with the state's load started
    /// behind it as a full answer would have; `None` for any other message. On a cold start
    /// this costs no storage read and none of the handler's code (V8 compiles each wasm
    /// function on its first call, and the handler is the module's largest).
    pub fn answer_at_once(self: &Rc<Self>, kind: Option<&str>, role: &str) -> Option<Value> {
        let role = match role {
            "page" => Role::Page,
            "content" => Role::Content,
            _ => return None,
        };
        if kind != Some("ping") {
            return None;
        }
        let run = Rc::clone(self);
        self.host.spawn(Box::pin(async move {
            let _ = run.ensure_loaded().await;
        }));
        Some(contract::ok(answer::<answers::Ping>(App::ping(role))))
    }

    /// Loads the state from storage once per worker life ([`Runner::load`]). The load runs as
    /// a task of its own, so no handler's end can cut it short; handlers that arrive while it
    /// runs (a panel sends several messages at once on a cold start) wait for the same load
    /// instead of reading storage again, and a failed load is tried again by the next handler.
    pub async fn ensure_loaded(self: &Rc<Self>) -> Result<(), ErrorBody> {
        let start = match &mut *self.loaded.borrow_mut() {
            Load::Done => return Ok(()),
            Load::Running(_) => false,
            load @ (Load::NotYet | Load::Failed(_)) => {
                *load = Load::Running(Vec::new());
                true
            }
        };
        if start {
            let run = Rc::clone(self);
            self.host.spawn(Box::pin(async move {
                let next = match run.load().await {
                    Ok(()) => Load::Done,
                    Err(e) => Load::Failed(e),
                };
                if let Load::Running(waiting) = run.loaded.replace(next) {
                    waiting.into_iter().for_each(Waker::wake);
                }
            }));
        }
        LoadSettled(&self.loaded).await;
        match &*self.loaded.borrow() {
            Load::Done => Ok(()),
            Load::Failed(e) => Err(e.clone()),
            _ => Err(ErrorBody::new(
                ErrorKind::Storage,
                "loading the state failed",
            )),
        }
    }

    /// Restores the state from storage (once: [`Runner::ensure_loaded`]): configuration, tools and sign-ins from the local area,
    /// the ledger from the session area (both reads under way before either is awaited). A
    /// worker that stopped mid-call cannot know whether the call ran: the app turns such calls
    /// "unknown" and tells their chats.
    pub async fn load(self: &Rc<Self>) -> Result<(), ErrorBody> {
        let local = self
            .host
            .read(Area::Local, &[CONFIG_KEY, TOOLS_KEY, AUTH_KEY, SKILLS_KEY]);
        let session = self.host.read(Area::Session, &[LEDGER_KEY, PAGES_KEY]);
        let (local, session) = (local.await?, session.await?);
        let mut values = local.into_iter().chain(session);
        let mut next = || values.next().unwrap_or_default();
        let config: Config = crate::json_value::from_value(next()).unwrap_or_default();
        let tools: SortedMap<String, Vec<crate::model::Tool>> =
            crate::json_value::from_value(next()).unwrap_or_default();
        let auth: SortedMap<_, _> = crate::json_value::from_value(next()).unwrap_or_default();
        let skills = next();
        let index = next();
        let pages = next();
        // The ledger's records, one key each, as its index names them.
        let keys = super::record_keys(&index);
        let records = match keys.is_empty() {
            true => Vec::new(),
            false => {
                let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
                self.host.read(Area::Session, &keys).await?
            }
        };
        let (ledger, current) = super::ledger_from(index, records);
        let _ = self.host.origin_rules(&config.servers).await;
        let (servers, protocols) = (config.servers.clone(), config.protocols.clone());
        self.host.pool(|pool, _| {
            pool.set_servers(servers);
            // What each server speaks, as found before: no probing again.
            for (id, mode) in protocols {
                pool.remember_protocol_mode(&id, mode);
            }
            // Their tools' definitions, as listed before: a tool that runs as a task is asked
            // for one, also before the next listing.
            for (id, tools) in &tools {
                pool.remember_tools(id, tools.clone());
            }
        });
        let (mut app, mut effects) = App::restore(config, tools, ledger);
        if !current {
            app.ledger_layout_changed();
        }
        effects.extend(app.restore_auth(auth));
        app.restore_skills(skills);
        app.restore_pages(pages);
        *self.app.borrow_mut() = app;
        self.run_effects(effects).await
    }

    /// Answers an admitted request: the app's decision, then its effects or the IO it needs.
    pub async fn answer(self: &Rc<Self>, request: Request, sender: &Sender) -> Answer {
        let step = self.app.borrow_mut().handle(request, sender)?;
        match step {
            Step::Done(value, effects) => {
                self.run_effects(effects).await?;
                Ok(value)
            }
            Step::Io(io) => self.perform(io).await,
        }
    }

    /// What the client knows of a server's connection now.
    pub fn status(&self, id: &str) -> Option<ServerStatus> {
        let status = self.host.pool(|pool, _| pool.status());
        status.into_iter().find(|s| s.id == id)
    }

    /// A server's view with its live connection state.
    pub fn server_view(&self, id: &str) -> Result<ServerView, ErrorBody> {
        let view = self.app.borrow().live_view(id, self.status(id).as_ref());
        view.ok_or_else(|| ErrorBody::new(ErrorKind::InvalidArgument, format!("no server '{id}'")))
    }

    pub(super) async fn mcp_op(
        self: &Rc<Self>,
        server: &str,
        op: Operation,
    ) -> Result<Output, ErrorBody> {
        (self.mcp(server, op, None, None).await).map_err(|e| ErrorBody::from(&e))
    }

    /// Removes a server: its session, its configuration, its Origin rule, and the host
    /// permissions nothing needs any more.
    pub(super) async fn remove_server(self: &Rc<Self>, id: &str) -> Result<(), ErrorBody> {
        let reached = self.app.borrow().server_origins(id);
        self.host.pool(|pool, _| pool.remove_server(id));
        let effects = self.app.borrow_mut().remove_server(id);
        self.run_effects(effects).await?;
        let servers = self.app.borrow().config.servers.clone();
        let done = self.host.origin_rules(&servers).await;
        // Host permissions nothing needs any more (its own origin, its authorization
        // servers') go back; the core says which.
        let sites = self.sites().await.unwrap_or_default();
        let release = self.app.borrow().origins_to_release(reached, &sites);
        for origin in release {
            self.host.release_origin(&origin).await;
        }
        done
    }

    /// A run by hand the panel can follow and cancel: its progress kept for `calls/running`,
    /// the pool's cancel key [`run_cancel_key`]; a Cancel makes it end as cancelled.
    async fn run_by_hand(
        self: &Rc<Self>,
        server: &str,
        tool: &str,
        key: &str,
        op: Operation,
        now: u64,
    ) -> Result<Output, ErrorBody> {
        if !self.app.borrow_mut().run_started(key, server, tool, now) {
            return Err(ErrorBody::new(
                ErrorKind::InvalidArgument,
                format!(
                    "'runKey' {key:?} is in use or not a short token of letters, digits, - and _"
                ),
            ));
        }
        let (run, progress_key) = (Rc::clone(self), key.to_owned());
        let on_progress: ProgressFn = Rc::new(move |p| {
            if let Ok(v) = serde_json::to_value(p) {
                run.app.borrow_mut().run_progress(&progress_key, v);
            }
        });
        let cancel_key = run_cancel_key(key);
        let result = self
            .mcp(server, op, Some(on_progress), Some(cancel_key.clone()))
            .await;
        let mut app = self.app.borrow_mut();
        app.run_ended(key);
        let cancelled = app.take_cancelled(&cancel_key);
        result.map_err(|e| match cancelled {
            true => cancelled_error(),
            false => ErrorBody::from(&e),
        })
    }

    /// Performs what a request needs. Exhaustive: IO the app asks for without a performer here
    /// does not compile.
    async fn perform(self: &Rc<Self>, io: Io) -> Answer {
        match io {
            Io::ServersList(ids) => Ok(answer::<answers::ServersList>(
                ids.iter()
                    .filter_map(|id| self.server_view(id).ok())
                    .collect(),
            )),
            Io::ServersAdd(server) => {
                (self.put_view(server, false).await).map(answer::<answers::ServersAdd>)
            }
            Io::ServersUpdate(server) => {
                (self.put_view(server, true).await).map(answer::<answers::ServersUpdate>)
            }
            Io::ServersRemove(id) => {
                (self.remove_server(&id).await).map(|()| answer::<answers::ServersRemove>(()))
            }
            Io::ServersImportRead { call, apply } => self.import_read(call, apply).await,
            Io::Local(op) => self.local(op).await,
            Io::LocalPlan(call) => self.local_plan(call).await,
            Io::AppsOpen(pending) => self.app_open(pending).await,
            Io::SkillsList(ids) => self.skills_list(ids).await,
            Io::SkillsLoad(pending) => self.skill_load(pending).await,
            Io::AppsCall {
                instance,
                server,
                tool,
                arguments,
            } => self.app_call(instance, server, tool, arguments).await,
            Io::AppsLog { server, text } => {
                self.host
                    .pool(|pool, now| pool.note_app_log(&server, &text, now));
                Ok(Value::Null)
            }
            Io::ServersSignIn(id) => {
                (self.sign_in(&id).await).map(answer::<answers::ServersSignIn>)
            }
            Io::ServersSignOut(id) => {
                (self.sign_out(&id).await).map(answer::<answers::ServersSignOut>)
            }
            Io::ServersTest(id) => {
                let _ = self.list_tools(&id, true).await;
                self.server_view(&id).map(answer::<answers::ServersTest>)
            }
            Io::ToolsList {
                ids,
                single,
                refresh,
            } => {
                let mut out = Vec::new();
                for id in ids {
                    // A dead server keeps its last known tools in the list (and its error in
                    // its view), unless it is the one asked for.
                    if let Err(e) = self.list_tools(&id, refresh).await {
                        if single {
                            return Err(e);
                        }
                    }
                    out.extend(self.app.borrow().tool_views(&id));
                }
                Ok(answer::<answers::ToolsList>(out))
            }
            Io::ToolsCall {
                server,
                tool,
                arguments,
                run_key,
            } => {
                if self.app.borrow().find_tool(&server, &tool).is_none() {
                    let _ = self.list_tools(&server, false).await;
                }
                let arguments = self.app.borrow().manual_call(&server, &tool, &arguments)?;
                let (sent, started) = (arguments.clone(), self.host.now_ms());
                let name = tool.clone();
                let op = Operation::CallTool {
                    name,
                    arguments,
                    progress: false,
                };
                let result = match run_key {
                    Some(key) => self.run_by_hand(&server, &tool, &key, op, started).await,
                    None => self.mcp_op(&server, op).await,
                };
                let result = result.and_then(|o| o.into_tool_result().map_err(|e| (&e).into()));
                let duration = self.host.now_ms().saturating_sub(started);
                (self.app.borrow_mut())
                    .manual_done(&server, &tool, sent, result, duration)
                    .map(answer::<answers::ToolsCall>)
            }
            Io::ServersLog { id, clear } => {
                let entries = self.host.pool(|pool, _| {
                    let entries = pool.wire_log(&id);
                    if clear {
                        pool.clear_wire_log(&id);
                    }
                    entries
                });
                Ok(answer::<answers::ServersLog>(entries))
            }
            Io::CallsCancel(cancel_key) => {
                let cancelled = self.host.pool(|pool, now| pool.cancel(&cancel_key, now));
                if cancelled {
                    self.app.borrow_mut().cancel_sent(&cancel_key);
                }
                Ok(answer::<answers::CallsCancel>(cancelled))
            }
            Io::Mcp { server, op } => (self.mcp_op(&server, op).await)
                .map(|output| serde_json::to_value(output).unwrap_or(Value::Null)),
            Io::PromptBuild { chat, ids, options } => {
                // Tools come from the stored lists; a server never listed yet is asked now.
                for id in &ids {
                    if !self.app.borrow().tools.contains_key(id) {
                        let _ = self.list_tools(id, false).await;
                    }
                }
                Ok(self.app.borrow().prompt(chat.as_ref(), &ids, options))
            }
            Io::Tab {
                tab,
                message,
                effects,
            } => {
                self.run_effects(effects).await?;
                let frame = self.app.borrow().chat_frame(tab);
                self.host.to_tab(tab, frame, &message).await
            }
            Io::ElicitationCheck { key, call } => self.elicitation_check(key, call).await,
            Io::SitesList => self.sites().await.map(Value::from),
            Io::PageObserve {
                tab,
                frame,
                url,
                observation,
            } => {
                let now = self.host.now_ms();
                let (observed, effects) =
                    (self.app.borrow_mut()).observe((tab, frame), &url, &observation, now);
                self.run_effects(effects).await?;
                Ok(answer::<answers::PageObserve>(observed))
            }
            Io::SitesChange {
                origin,
                entry,
                answer,
            } => {
                let removed = entry.is_none();
                let sites = Value::from(sites_with(self.sites().await?, &origin, entry));
                self.host.write(Area::Local, SITES_KEY, &sites).await?;
                if removed && !self.app.borrow().origin_in_use(&origin) {
                    self.host.release_origin(&origin).await;
                }
                Ok(answer.unwrap_or(sites))
            }
            Io::SitesAdapter(origin) => Ok(answer::<answers::SitesAdapter>(adapter_for(
                &self.sites().await?,
                &origin,
            ))),
        }
    }

    /// Adds a server, or replaces the one with its id (`replace`), then lists its tools: a
    /// new server's from the client's cache, a changed one's afresh (unless disabled).
    pub(super) async fn put_view(
        self: &Rc<Self>,
        server: ServerConfig,
        replace: bool,
    ) -> Result<ServerView, ErrorBody> {
        // The Origin rules for the list as it will be come first; then configuration and client
        // change together with no await between them, so no concurrent handler sees a server
        // the client does not know, and no connection to a new loopback server goes out
        // before its rule exists.
        let (id, list) = (server.id.clone(), server.enabled || !replace);
        let next = self.app.borrow().servers_with(&server, replace);
        self.host.origin_rules(&next).await?;
        let effects = match replace {
            true => self.app.borrow_mut().update_server(server.clone()),
            false => self.app.borrow_mut().add_server(server.clone())?,
        };
        let known = self.app.borrow().config.protocols.get(&id).copied();
        self.host.pool(|pool, _| {
            pool.add_server(server);
            known.map(|mode| pool.remember_protocol_mode(&id, mode))
        });
        self.run_effects(effects).await?;
        if list {
            let _ = self.list_tools(&id, replace).await;
        }
        self.server_view(&id)
    }

    /// Lists a server's tools (every page; from the client's cache unless `refresh`) and
    /// keeps them, with the latency and the protocol the server turned out to speak.
    pub async fn list_tools(self: &Rc<Self>, id: &str, refresh: bool) -> Result<(), ErrorBody> {
        let started = self.host.now_ms();
        let connecting = Connecting::start(&self.app, id);
        let result = self.mcp_op(id, Operation::ListTools { refresh }).await;
        drop(connecting);
        let result = result.and_then(|o| o.into_tools().map_err(|e| (&e).into()));
        let failed = result.as_ref().err().cloned();
        let latency = self.host.now_ms().saturating_sub(started);
        let mut effects = self.app.borrow_mut().tools_listed(id, result, latency);
        let mode = self.status(id).and_then(|s| s.protocol);
        effects.extend(self.app.borrow_mut().learned(id, mode));
        self.run_effects(effects).await?;
        if failed.is_none() {
            self.skills_with_tools(id).await;
        }
        failed.map_or(Ok(()), Err)
    }

    /// Custom chat sites the user added: `[{origin, adapter}]`.
    async fn sites(&self) -> Result<Vec<Value>, ErrorBody> {
        match self.host.read(Area::Local, &[SITES_KEY]).await?.pop() {
            Some(Value::Array(a)) => Ok(a),
            _ => Ok(Vec::new()),
        }
    }

    /// Carries out the app's effects: storage writes now (in order), the rest in the
    /// background so the answer to the message that caused them is not held up. A failed
    /// storage write is reported to the app ([`App::storage_done`]) and returned once every
    /// effect has run: it never skips the card updates and deliveries queued after it.
    pub async fn run_effects(self: &Rc<Self>, effects: Vec<Effect>) -> Result<(), ErrorBody> {
        let mut first_error = None;
        let mut queue: std::collections::VecDeque<Effect> = effects.into();
        while let Some(effect) = queue.pop_front() {
            let ops = self.app.borrow_mut().stored(&effect);
            if matches!(effect, Effect::SaveLedger) {
                // The toolbar badge follows the ledger (calls waiting for the user), set first
                // so a panel that hears of the ledger change reads the new count.
                let pending = self.app.borrow().pending_count();
                self.host.badge(None, &badge_text(pending)).await;
                // Each chat tab shows its own count; only what changed is set.
                let badges = self.app.borrow().tab_badges();
                let changed: Vec<(i64, String)> = {
                    let mut shown = self.badges.borrow_mut();
                    let changed = (badges.iter())
                        .filter(|(tab, text)| shown.get(tab) != Some(text))
                        .map(|(tab, text)| (*tab, text.clone()))
                        .collect();
                    *shown = badges;
                    changed
                };
                for (tab, text) in changed {
                    self.host.badge(Some(tab), &text).await;
                }
            }
            for op in ops {
                let done = match &op {
                    StorageOp::Write {
                        area, key, value, ..
                    } => self.host.write(*area, key, value).await,
                    StorageOp::Remove { area, keys, .. } => self.host.remove(*area, keys).await,
                };
                let failed = done.err().map(|e| {
                    let message = format!("storing '{}' failed: {}", op.key(), e.message);
                    ErrorBody {
                        message,
                        ..e.clone()
                    }
                });
                let more = self.app.borrow_mut().storage_done(op, failed.as_ref());
                queue.extend(more);
                if let (None, Some(e)) = (&first_error, failed) {
                    first_error = Some(e);
                }
            }
            self.start(effect);
        }
        first_error.map_or(Ok(()), Err)
    }

    /// Starts what an effect asks for beyond storage.
    fn start(self: &Rc<Self>, effect: Effect) {
        let run = Rc::clone(self);
        match effect {
            Effect::Run(key) => self.host.spawn(Box::pin(async move {
                run.execute(&key).await;
            })),
            Effect::Notify { chat, key } => self.host.spawn(Box::pin(async move {
                // The card shows the call as it is when the message goes out.
                let record = run.app.borrow().ledger.calls.get(&key).cloned();
                if let (Some(tab), Some(record)) = (tab_of(&chat), record) {
                    let calls = vec![record];
                    // Every frame: each shows the cards of the replies it reads.
                    let _ = run
                        .host
                        .to_tab(tab, None, &TabMessage::Calls { calls })
                        .await;
                }
            })),
            Effect::Insert { tab, text, submit } => self.host.spawn(Box::pin(async move {
                let attachments = Vec::new();
                let message = TabMessage::Insert {
                    text,
                    submit,
                    attachments,
                    without_files: None,
                };
                let frame = run.app.borrow().chat_frame(tab);
                let _ = run.host.to_tab(tab, frame, &message).await;
            })),
            Effect::Deliver { chat, message_id } => self.host.spawn(Box::pin(async move {
                run.deliver(&chat, &message_id).await;
            })),
            Effect::Respond {
                server,
                request,
                result,
            } => {
                let result = result.map_err(|m| ErrorObject::new(ErrorCode::INVALID_PARAMS, m));
                (self.host).pool(|pool, now| pool.respond(&server, request, result, now));
            }
            Effect::Authorize(id) => {
                let value = self.app.borrow().authorization(&id);
                self.host.pool(|pool, _| pool.set_authorization(&id, value));
            }
            Effect::SaveConfig
            | Effect::SavePages
            | Effect::SaveTools
            | Effect::SaveSkills
            | Effect::SaveLedger
            | Effect::SaveResult(_)
            | Effect::SaveAuth
            | Effect::SaveElicitations => {}
        }
    }

    /// Effects of background work: nobody waits for an answer, so a failed storage write can
    /// only be reported.
    pub(super) async fn run_background(self: &Rc<Self>, effects: Vec<Effect>) {
        if let Err(e) = self.run_effects(effects).await {
            self.host.warn(&format!("MCP Relay: {}", e.message));
        }
    }

    /// Hears what a server says outside an answer: a question for the user (elicitation) goes
    /// to the app, which shows it in the side panel and cancels it if nobody answers in time.
    pub fn server_event(self: &Rc<Self>, server: &str, event: &SessionEvent) {
        if let SessionEvent::TaskCreated {
            call,
            task_id,
            form,
        } = event
        {
            let (server, call, task_id, form) = (server.to_owned(), *call, task_id.clone(), *form);
            let run = Rc::clone(self);
            self.host.spawn(Box::pin(async move {
                // The chat call it answers: a call's cancel key is its ledger key.
                let key = run.host.pool(|pool, _| pool.call_key(&server, call));
                if let Some(key) = key {
                    run.task_created(&server, &key, &task_id, form).await;
                }
            }));
            return;
        }
        if let SessionEvent::ListChanged(_) = event {
            // Its interfaces may have changed with its lists: read them again when opened.
            self.app.borrow_mut().app_documents_changed(server);
            return;
        }
        let SessionEvent::Request {
            id, params, call, ..
        } = event
        else {
            return;
        };
        let (server, id, params, call) = (server.to_owned(), id.clone(), params.clone(), *call);
        let run = Rc::clone(self);
        // Not inside the client's own dispatch: the app may be borrowed there.
        self.host.spawn(Box::pin(async move {
            // The chat call it came in the middle of: a call's cancel key is its ledger key.
            let on = call.and_then(|c| run.host.pool(|pool, _| pool.call_key(&server, c)));
            let read = RareCall::ElicitParse(ElicitParseCall { params });
            // Kept as a `Value`: the question as the panel shows it (the app reads its `mode`).
            let asked = run.host.rare(&read).await.and_then(RareReply::into_result);
            let now = run.host.now_ms();
            let (key, effects) =
                (run.app.borrow_mut()).elicitation_asked(&server, id, asked, now, on.as_deref());
            run.run_background(effects).await;
            let Some(key) = key else { return };
            let expire = Rc::clone(&run);
            run.host.after(
                ELICITATION_TIMEOUT_MS,
                Box::new(move || {
                    let now = expire.host.now_ms();
                    let effects = expire.app.borrow_mut().elicitation_expired(&key, now);
                    let run = Rc::clone(&expire);
                    expire.host.spawn(Box::pin(async move {
                        run.run_background(effects).await;
                    }));
                }),
            );
        }));
    }

    /// The server of the running call `key` answered it with a task: kept with the call, so a
    /// restarted worker asks for its result instead of calling it unknown.
    pub async fn task_created(
        self: &Rc<Self>,
        server: &str,
        key: &str,
        task_id: &str,
        form: crate::client::TaskForm,
    ) {
        // The session it lives in, while it is the current one.
        let session = self.host.pool(|pool, _| pool.snapshot(server));
        let effects = (self.app.borrow_mut()).task_created(server, key, task_id, form, session);
        self.run_background(effects).await;
    }

    /// Sends one admitted call to its server and reports how it ended.
    async fn execute(self: &Rc<Self>, key: &str) {
        let started = self.host.now_ms();
        let prepared = self.app.borrow_mut().prepare_call(key, started);
        let call = match prepared {
            Ok(call) => call,
            Err(effects) => return self.run_background(effects).await,
        };
        let (run, progress_key) = (Rc::clone(self), key.to_owned());
        let on_progress: ProgressFn = Rc::new(move |p| {
            let Ok(v) = serde_json::to_value(p) else {
                return;
            };
            let now = run.host.now_ms();
            let effects = run.app.borrow_mut().call_progress(&progress_key, v, now);
            if !effects.is_empty() {
                let notify = Rc::clone(&run);
                run.host.spawn(Box::pin(async move {
                    notify.run_background(effects).await;
                }));
            }
        });
        let (op, cancel_key) = (call.operation(), Some(key.to_owned()));
        // A task is polled in the session it was created in, when nothing started another yet.
        let session = call
            .task
            .as_ref()
            .and(self.app.borrow().task_session(&call.server_id));
        if let Some(session) = session {
            self.host
                .pool(|pool, _| pool.adopt(&call.server_id, session));
        }
        // The model's `load_skill` reads and verifies a skill's file instead of calling a tool.
        let skill_call = self.app.borrow().is_skill_call(&call.server_id, &call.tool);
        let end = if skill_call {
            self.load_skill_for_model(&call).await
        } else {
            let result = self.mcp(&call.server_id, op, Some(on_progress), cancel_key);
            CallEnd::from_client(result.await)
        };
        let duration = self.host.now_ms().saturating_sub(started);
        let effects = {
            let mut app = self.app.borrow_mut();
            app.call_ended(&call.server_id, duration, false);
            let end = app.end_of(key, end);
            app.finish_call(key, end, duration)
        };
        self.run_background(effects).await;
    }

    /// Writes a message's results into the chat, when the app has them ready.
    async fn deliver(self: &Rc<Self>, chat: &str, message_id: &str) {
        // Full results stored apart that memory lost with a worker restart come back first.
        let needed = self.app.borrow().results_to_load(chat, message_id);
        if !needed.is_empty() {
            let keys: Vec<String> = needed.iter().map(|k| result_storage_key(k)).collect();
            let keys: Vec<&str> = keys.iter().map(String::as_str).collect();
            match self.host.read(Area::Local, &keys).await {
                Ok(values) => self.app.borrow_mut().results_loaded(&needed, values),
                // The previews stand in, and say so.
                Err(e) => self.host.warn(&format!("MCP Relay: {}", e.message)),
            }
        }
        let Some(d) = self.app.borrow_mut().take_delivery(chat, message_id) else {
            return;
        };
        // Recorded before it is written: a worker stop from here on never sends it again.
        self.run_background(vec![Effect::SaveLedger]).await;
        let answer = match d.tab {
            Some(tab) => {
                let frame = self.app.borrow().chat_frame(tab);
                self.host.to_tab(tab, frame, &d.message()).await.ok()
            }
            None => None,
        };
        // A tab that did not answer (or answered nonsense) wrote nothing, unless the page
        // answered the message meanwhile (it reloaded right after the send).
        let outcome = match answer.and_then(|a| crate::json_value::from_value(a).ok()) {
            Some(outcome) => outcome,
            None => self.app.borrow().unanswered_outcome(&d),
        };
        let effects = self.app.borrow_mut().delivery_written(&d, &outcome);
        self.run_background(effects).await;
        // Auto-send with a delay: the send waits for its timer (or the user's Cancel).
        let now = self.host.now_ms();
        let (effects, timer) = self.app.borrow_mut().hold_send(&d, &outcome, now);
        self.run_background(effects).await;
        if let Some((id, delay)) = timer {
            let run = Rc::clone(self);
            self.host.after(
                delay,
                Box::new(move || {
                    let send = Rc::clone(&run);
                    run.host
                        .spawn(Box::pin(async move { send.send_due(&id).await }));
                }),
            );
        }
    }

    /// A delayed auto-send's time came: send, unless the user cancelled it meanwhile.
    async fn send_due(self: &Rc<Self>, id: &str) {
        let Some(due) = self.app.borrow_mut().send_due(id) else {
            return;
        };
        let frame = self.app.borrow().chat_frame(due.tab);
        let answer = self.host.to_tab(due.tab, frame, &due.message).await.ok();
        let outcome = answer
            .and_then(|a| crate::json_value::from_value(a).ok())
            .unwrap_or_default();
        let effects = self.app.borrow_mut().send_done(&due.id, &outcome);
        self.run_background(effects).await;
    }
}
