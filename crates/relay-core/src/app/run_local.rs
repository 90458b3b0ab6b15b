//! The runner's part in local servers: it asks the native host (through [`Host::native`]) and
//! hands each answer to the app's decisions in [`super::local`].

use std::rc::Rc;

use serde_json::{json, Value};

use super::host::Host;
use super::local::{self, LocalIo};
use super::Runner;
use crate::client::ClientError;
use crate::contract::local::{LocalAdded, LocalLogView};
use crate::contract::request::answers;
use crate::contract::ErrorBody;

type Answer = Result<Value, ErrorBody>;

impl<H: Host> Runner<H> {
    /// One request to the host, its data or its error.
    async fn ask_host(&self, message: &Value) -> Answer {
        let answer = self
            .host
            .native(message)
            .await
            .map_err(local::host_failure)?;
        local::host_data(answer)
    }

    /// Performs a `local/*` request.
    pub(super) async fn local(self: &Rc<Self>, op: LocalIo) -> Answer {
        match op {
            LocalIo::List(platform) => {
                let data = match self.ask_host(&json!({"type": "list"})).await {
                    Ok(data) => data,
                    Err(e) => {
                        return Ok(super::answer::<answers::LocalList>(local::not_installed(
                            e, &platform,
                        )))
                    }
                };
                let (view, missing) = self.app.borrow().local_view(&data, &platform)?;
                // Removed from the host's list: removed here too, like a server the user removed.
                let stale = self.app.borrow().local_stale(&view);
                for id in stale {
                    if let Err(e) = self.remove_server(&id).await {
                        self.host.warn(&format!("local server {id}: {}", e.message));
                    }
                }
                // The host's servers the extension does not know yet become servers of its own,
                // one at a time (each gets its id after the one before is in).
                for name in missing {
                    if !self.local_adding.borrow_mut().insert(name.clone()) {
                        continue; // another list is adding it
                    }
                    let known = self
                        .app
                        .borrow()
                        .config
                        .servers
                        .iter()
                        .any(|s| s.local.as_ref() == Some(&name));
                    if !known {
                        let server = self.app.borrow().local_server(&name);
                        if let Err(e) = self.put_view(server, false).await {
                            self.host
                                .warn(&format!("local server {name}: {}", e.message));
                        }
                    }
                    self.local_adding.borrow_mut().remove(&name);
                }
                let (view, _) = self.app.borrow().local_view(&data, &platform)?;
                Ok(super::answer::<answers::LocalList>(view))
            }
            LocalIo::Log(name) => {
                let data = self.ask_host(&local::named("log", &name)?).await?;
                let lines = data
                    .get("lines")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(super::answer::<answers::LocalLog>(LocalLogView {
                    name,
                    lines,
                }))
            }
            LocalIo::Restart(name) => {
                self.ask_host(&local::named("restart", &name)?).await?;
                Ok(super::answer::<answers::LocalRestart>(()))
            }
            LocalIo::Propose(servers) => {
                let data = self.ask_host(&local::propose_message(&servers)?).await?;
                let added = data
                    .get("added")
                    .and_then(Value::as_array)
                    .map(|l| {
                        l.iter()
                            .filter_map(Value::as_str)
                            .map(str::to_owned)
                            .collect()
                    })
                    .unwrap_or_default();
                Ok(super::answer::<answers::LocalPropose>(LocalAdded { added }))
            }
        }
    }

    /// Before an MCP operation on a local server: the host starts it if it is not running and
    /// says where it serves it; when that changed (a new host run), the client starts a new
    /// session there. A remote server passes through.
    #[allow(clippy::result_large_err)] // ClientError carries what a user needs; see client::Pool
    pub(super) async fn local_endpoint(&self, id: &str) -> Result<(), ClientError> {
        let Some(server) = self.app.borrow().local_config(id) else {
            return Ok(());
        };
        let name = server.local.clone().unwrap_or_default();
        let unreachable = |e: ErrorBody| ClientError::Connection {
            url: format!("local server {name}"),
            message: e.message,
        };
        let message = local::named("open", &name).map_err(unreachable)?;
        let data = self.ask_host(&message).await.map_err(unreachable)?;
        let (url, token) = local::endpoint(&name, &data).map_err(unreachable)?;
        let live = local::with_endpoint(&server, &url, &token);
        let known = self.app.borrow().config.protocols.get(id).copied();
        self.host.pool(|pool, _| {
            if pool.server(id) != Some(&live) {
                pool.add_server(live);
                known.map(|mode| pool.remember_protocol_mode(id, mode));
            }
        });
        Ok(())
    }
}
