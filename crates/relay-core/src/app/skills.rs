//! Skills in the app (SEP-2640, [`crate::skills`]): each server's listing, kept like its tools
//! and replaced whenever it is listed again, and a skill loaded into a chat by the user
//! (`skills/load`): the file is read only then (never on connect, list or approval), verified
//! against the listing, and written into the chat's composer like the instructions
//! (`chat/insert`), not sent; content that fails verification is a `skill_unverified` error
//! and never reaches the chat. The model's side: a server with skills offers the model a
//! `load_skill` tool ([`crate::skills::load_skill_tool`]) beside its own tools, so the prompt
//! describes it, the parser knows it and the user's policy decides its calls like any tool's;
//! a call reads and verifies the file asked for and answers with it, or fails with the
//! verification's error (which the model is told and the user sees in Activity).

use crate::sorted_map::{SortedMap, SortedSet};
use std::rc::Rc;

use serde_json::Value;

use super::host::Host;
use super::requests::{answer, Io, Sender, Step};
use super::turn::{CallEnd, PreparedCall};
use super::{tab_of, App, Effect, Runner};
use crate::client::jsonrpc::ErrorCode;
use crate::client::{ClientError, Operation, Output};
use crate::contract::request::answers;
use crate::contract::views::{SkillLoaded, SkillView, SkillsView};
use crate::contract::{ErrorBody, ErrorKind, Request, TabMessage};
use crate::model::{CallToolResult, Content, ReadResourceResult, Tool};
use crate::rare::{RareCall, VerifySkillCall};
use crate::skills::{self, Skill, VerifiedFile};

/// Each server's skills as last listed, persisted ([`crate::contract::storage::SKILLS_KEY`]):
/// a restarted worker's prompt and parser still know each server's `load_skill`.
#[derive(Debug, Default)]
pub(super) struct Skills {
    listed: SortedMap<String, Vec<Skill>>,
    /// Each server's `load_skill` tool, made from its listing.
    tools: SortedMap<String, Tool>,
    /// The servers listed since the worker started (a user's load lists a server first
    /// otherwise, so it reads what the server lists now).
    fresh: SortedSet<String>,
}

impl Skills {
    /// A server's `load_skill` tool, if it has skills.
    pub(super) fn tool(&self, server: &str) -> Option<&Tool> {
        self.tools.get(server)
    }
}

/// A `skills/load` on its way: which file of which skill goes into which chat.
#[derive(Debug, Clone, PartialEq)]
pub struct PendingSkill {
    pub chat: String,
    pub tab: i64,
    pub server: String,
    pub name: String,
    /// A listed file other than the SKILL.md, by URI or by its path inside the skill.
    pub file: Option<String>,
}

fn invalid(message: impl Into<String>) -> ErrorBody {
    ErrorBody::new(ErrorKind::InvalidArgument, message)
}

impl App {
    /// `skills/list` and `skills/load`: the IO each needs.
    pub(super) fn skills_request(
        &mut self,
        request: Request,
        sender: &Sender,
    ) -> Result<Step, ErrorBody> {
        match request {
            Request::SkillsList { server_id } => {
                let ids = match server_id {
                    Some(id) => vec![id],
                    None => (self.config.servers.iter())
                        .filter(|s| s.enabled)
                        .map(|s| s.id.clone())
                        .collect(),
                };
                Ok(Step::Io(Io::SkillsList(ids)))
            }
            Request::SkillsLoad {
                chat,
                server_id,
                name,
                file,
            } => {
                let chat = self.chat_for(sender, chat.as_ref())?;
                let tab = tab_of(&chat).ok_or_else(|| invalid("chat has no tab"))?;
                if server_id.is_empty() || name.is_empty() {
                    return Err(invalid("'serverId' and 'name' are required"));
                }
                if !self.config.servers.iter().any(|s| s.id == server_id) {
                    return Err(invalid(format!("no server '{server_id}'")));
                }
                Ok(Step::Io(Io::SkillsLoad(PendingSkill {
                    chat,
                    tab,
                    server: server_id,
                    name,
                    file,
                })))
            }
            _ => Err(invalid("not a skills request")),
        }
    }

    /// Whether `server`'s skills were listed since the worker started.
    pub fn skills_known(&self, server: &str) -> bool {
        self.skills.fresh.contains(server)
    }

    /// Keeps a server's listing (a failure keeps the last one) and makes its view; the effects
    /// save the listing when it changed.
    pub fn skills_listed(
        &mut self,
        server: &str,
        listed: Result<Vec<Skill>, ErrorBody>,
    ) -> (SkillsView, Vec<Effect>) {
        let mut effects = Vec::new();
        let error = match listed {
            Ok(skills) => {
                self.skills.fresh.insert(server.to_owned());
                if self.skills.listed.get(server) != Some(&skills) {
                    self.keep_skills(server, skills);
                    effects.push(Effect::SaveSkills);
                }
                None
            }
            Err(e) => Some(e),
        };
        let skills = self.skills.listed.get(server).map(Vec::as_slice);
        let view = SkillsView {
            server_id: server.to_owned(),
            server_name: self.config.server_name(server),
            skills: skills.unwrap_or_default().iter().map(view).collect(),
            error,
        };
        (view, effects)
    }

    /// A server's listing and the `load_skill` tool made from it.
    fn keep_skills(&mut self, server: &str, skills: Vec<Skill>) {
        let tool = skills::load_skill_tool(&skills);
        if self.skills.tools.get(server) != tool.as_ref() {
            match tool {
                Some(tool) => self.skills.tools.insert(server.to_owned(), tool),
                None => self.skills.tools.remove(server),
            };
            // The prompt and the parser's names follow.
            self.tools_generation += 1;
        }
        self.skills.listed.insert(server.to_owned(), skills);
    }

    /// Forgets a removed server's listing; whether there was one.
    pub(super) fn forget_skills(&mut self, server: &str) -> bool {
        self.skills.fresh.remove(server);
        let had = self.skills.listed.remove(server).is_some();
        if self.skills.tools.remove(server).is_some() {
            self.tools_generation += 1;
        }
        had
    }

    /// The listings as stored.
    pub(super) fn skills_to_store(&self) -> Value {
        serde_json::to_value(&self.skills.listed).unwrap_or_default()
    }

    /// The listings a restarted worker finds in storage (of servers it still has; an
    /// unreadable entry is left out, and the next listing replaces it).
    pub fn restore_skills(&mut self, stored: Value) {
        let Ok(stored) = crate::json_value::from_value::<SortedMap<String, Value>>(stored) else {
            return;
        };
        for (server, skills) in stored {
            let known = self.config.servers.iter().any(|s| s.id == server);
            if let (true, Ok(skills)) = (known, crate::json_value::from_value(skills)) {
                self.keep_skills(&server, skills);
            }
        }
    }

    /// The skill and the file a load reads: the SKILL.md, or the listed file asked for.
    pub fn skill_file(&self, pending: &PendingSkill) -> Result<(Skill, String), ErrorBody> {
        self.skill_file_of(&pending.server, &pending.name, pending.file.as_deref())
    }

    fn skill_file_of(
        &self,
        server: &str,
        name: &str,
        file: Option<&str>,
    ) -> Result<(Skill, String), ErrorBody> {
        let skills = self.skills.listed.get(server);
        let skill = skills
            .and_then(|list| list.iter().find(|s| s.name() == name))
            .ok_or_else(|| invalid(format!("server '{server}' lists no skill named '{name}'")))?;
        let uri = match file {
            None => skill.uri.clone(),
            Some(file) => resolve_file(skill, file).ok_or_else(|| {
                invalid(format!(
                    "skill '{name}' lists no file '{file}' (its files: {})",
                    skill.references().join(", ")
                ))
            })?,
        };
        Ok((skill.clone(), uri))
    }

    /// Whether a chat call of `tool` on `server` is the model loading a skill (the server's
    /// own tool of that name, if it has one, stays its own).
    pub fn is_skill_call(&self, server: &str, tool: &str) -> bool {
        tool == skills::LOAD_SKILL
            && self.skills.tools.contains_key(server)
            && !(self.tools.get(server)).is_some_and(|ts| ts.iter().any(|t| t.name == tool))
    }

    /// A verified file as the model's `load_skill` call answers it.
    fn skill_result(&self, server: &str, skill: &Skill, file: &VerifiedFile) -> CallToolResult {
        let name = self.config.server_name(server);
        let text = skills::format_loaded(&name, skill, file);
        CallToolResult::success(vec![Content::text(text)])
    }

    /// The file read for a load, verified: the message that writes it into the chat's composer
    /// (not sent) with the effects of a new turn (as `chat/insert`).
    pub fn skill_read(
        &mut self,
        pending: &PendingSkill,
        skill: &Skill,
        file: &VerifiedFile,
    ) -> (TabMessage, Vec<Effect>, u64) {
        let bytes = file.text().len() as u64;
        let server = self.config.server_name(&pending.server);
        let text = skills::format_loaded(&server, skill, file);
        let effects = self.new_turn(&pending.chat);
        let message = TabMessage::Insert {
            text,
            submit: false,
            attachments: Vec::new(),
            without_files: None,
        };
        (message, effects, bytes)
    }
}

/// A file of `skill` named by its URI or by its path inside the skill (`references/FORMS.md`).
fn resolve_file(skill: &Skill, file: &str) -> Option<String> {
    let root = skill
        .uri
        .strip_suffix(skills::SKILL_FILE)
        .unwrap_or(&skill.uri);
    let references = skill.references();
    let found = references
        .iter()
        .find(|u| **u == file || u.strip_prefix(root) == Some(file.trim_start_matches('/')));
    found.map(|u| (*u).to_owned())
}

fn view(skill: &Skill) -> SkillView {
    SkillView {
        name: skill.name().to_owned(),
        description: skill.description().map(str::to_owned),
        uri: skill.uri.clone(),
        references: skill.references().into_iter().map(str::to_owned).collect(),
    }
}

type Answer = Result<Value, ErrorBody>;

/// A failure of a `load_skill` call: it read at most one file and changed nothing, so it did
/// not "maybe run".
fn failed(error: ErrorBody) -> CallEnd {
    CallEnd::Error {
        error,
        may_have_run: false,
    }
}

impl<H: Host> Runner<H> {
    /// Lists the skills of every server in `ids`; a server whose capabilities (known once it
    /// is connected) do not declare the extension, or that does not know the method, has none.
    /// Nothing of a skill is read.
    pub(super) async fn skills_list(self: &Rc<Self>, ids: Vec<String>) -> Answer {
        let mut views = Vec::new();
        let mut effects = Vec::new();
        for id in ids {
            let listed = self.list_skills(&id).await;
            let (view, saves) = self.app.borrow_mut().skills_listed(&id, listed);
            views.push(view);
            effects.extend(saves);
        }
        self.run_effects(effects).await?;
        Ok(answer::<answers::SkillsList>(views))
    }

    /// Lists a server's skills along with its tools where it declares the extension, so the
    /// prompt offers them (`load_skill`); a failure keeps the last listing.
    pub(super) async fn skills_with_tools(self: &Rc<Self>, id: &str) {
        let status = self.host.pool(|pool, _| pool.status());
        let info = status.into_iter().find(|s| s.id == id).and_then(|s| s.info);
        if info.is_some_and(|info| skills::declared_by(&info.capabilities)) {
            let listed = self.list_skills(id).await;
            let (_, effects) = self.app.borrow_mut().skills_listed(id, listed);
            self.run_background(effects).await;
        }
    }

    async fn list_skills(self: &Rc<Self>, id: &str) -> Result<Vec<Skill>, ErrorBody> {
        let status = self.host.pool(|pool, _| pool.status());
        let info = status.into_iter().find(|s| s.id == id).and_then(|s| s.info);
        if info.is_some_and(|info| !skills::declared_by(&info.capabilities)) {
            return Ok(Vec::new());
        }
        match self.mcp(id, Operation::ListSkills, None, None).await {
            Ok(Output::Skills(skills)) => Ok(skills),
            Err(ClientError::Rpc { code, .. }) if code == ErrorCode::METHOD_NOT_FOUND => {
                Ok(Vec::new())
            }
            Err(e) => Err(ErrorBody::from(&e)),
            Ok(other) => Err(ErrorBody::new(
                ErrorKind::Internal,
                format!("skills/list answered {}", other.kind()),
            )),
        }
    }

    /// The model's `load_skill` call (admitted by the policy like any call): the file asked
    /// for, read now and verified, as its result; what fails verification is the call's error.
    pub(super) async fn load_skill_for_model(self: &Rc<Self>, call: &PreparedCall) -> CallEnd {
        let text = |key: &str| call.arguments.get(key).and_then(Value::as_str);
        let (Some(name), file) = (text("name"), text("file")) else {
            return failed(invalid("load_skill needs the skill's `name`"));
        };
        let found = self.app.borrow().skill_file_of(&call.server_id, name, file);
        let (skill, uri) = match found {
            Ok(found) => found,
            Err(e) => return failed(e),
        };
        let op = Operation::ReadResource { uri: uri.clone() };
        let read = match self
            .mcp(&call.server_id, op, None, Some(call.key.clone()))
            .await
        {
            Ok(Output::Resource(read)) => read,
            Ok(other) => {
                let message = format!("resources/read answered {}", other.kind());
                return failed(ErrorBody::new(ErrorKind::Internal, message));
            }
            Err(e) => return failed(ErrorBody::from(&e)),
        };
        match self.verify_skill(skill.clone(), uri, read).await {
            Ok(file) => {
                CallEnd::Result((self.app.borrow()).skill_result(&call.server_id, &skill, &file))
            }
            Err(e) => failed(e),
        }
    }

    /// Verifies a file read for `skill` against its listing, in the second module (size,
    /// digest, a `SKILL.md`'s frontmatter: `skills::verify_read`); a file that does not match
    /// is a `skill_unverified` error and nothing of it is used.
    async fn verify_skill(
        self: &Rc<Self>,
        skill: Skill,
        uri: String,
        read: ReadResourceResult,
    ) -> Result<VerifiedFile, ErrorBody> {
        let call = RareCall::VerifySkill(VerifySkillCall { skill, uri, read });
        self.host.rare(&call).await?.into_result()
    }

    /// Loads a skill into a chat's composer: lists the server's skills if this worker has not
    /// yet, reads the one file, has it verified, and writes it only then.
    pub(super) async fn skill_load(self: &Rc<Self>, pending: PendingSkill) -> Answer {
        if !self.app.borrow().skills_known(&pending.server) {
            let listed = self.list_skills(&pending.server).await;
            self.app.borrow_mut().skills_listed(&pending.server, listed);
        }
        let (skill, uri) = self.app.borrow().skill_file(&pending)?;
        let op = Operation::ReadResource { uri: uri.clone() };
        let read = match self.mcp_op(&pending.server, op).await? {
            Output::Resource(read) => read,
            other => {
                return Err(ErrorBody::new(
                    ErrorKind::Internal,
                    format!("resources/read answered {}", other.kind()),
                ))
            }
        };
        let file = self.verify_skill(skill.clone(), uri.clone(), read).await?;
        let (message, effects, bytes) = (self.app.borrow_mut()).skill_read(&pending, &skill, &file);
        self.run_effects(effects).await?;
        let frame = self.app.borrow().chat_frame(pending.tab);
        let outcome = self.host.to_tab(pending.tab, frame, &message).await?;
        Ok(answer::<answers::SkillsLoad>(SkillLoaded {
            name: skill.name().to_owned(),
            uri,
            bytes,
            outcome: crate::json_value::from_value(outcome).unwrap_or_default(),
        }))
    }
}
