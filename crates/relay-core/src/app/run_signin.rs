//! Sign-ins run on a [`Host`]: an attempt's flow in the second module ([`Host::rare`]), its
//! actions carried out here (its requests, the browser step, DPoP signatures) until it ends, every MCP request of the app made with the server's
//! sign-in kept fresh, and the DPoP proof of each request ([`DpopProver`]). What an attempt comes
//! to, what a proof says and when to try again are `app::signin`'s decisions; this is their
//! order, tested natively in `tests/test_app_run.rs`.

use std::rc::{Rc, Weak};

use super::host::{Host, ProgressFn};
use super::signin::AuthNext;
use super::{AuthEnv, Runner};
use crate::auth::{AuthAction, AuthInput, PublicJwk, SignKey, SEED_BYTES};
use crate::client::{
    ClientError, HttpMethod, Operation, Output, ProofFuture, Prover, ResponseHead,
};
use crate::contract::views::ServerView;
use crate::contract::ErrorBody;
use crate::rare::{RareCall, RareReply, SignInCall, SignInStep};

/// Most actions one attempt may take (discovery tries a few URLs; a sign-in is about ten).
const MAX_STEPS: usize = 40;

/// What an attempt needs from the platform, for `f`: the redirect URI, fresh randomness, the
/// time, and the public half of the server's proof key (`None` when no token will be bound).
fn with_env<H: Host, R>(
    host: &H,
    dpop_key: Option<&PublicJwk>,
    f: impl FnOnce(AuthEnv) -> R,
) -> Result<R, ErrorBody> {
    let redirect_uri = host.redirect_uri()?;
    let mut seed = [0u8; SEED_BYTES];
    host.random(&mut seed)?;
    Ok(f(AuthEnv {
        redirect_uri: &redirect_uri,
        seed: &seed,
        now_ms: host.now_ms(),
        dpop_key,
    }))
}

impl<H: Host> Runner<H> {
    /// `servers/signIn`: connects; a server that refuses gets a sign-in the user may finish in
    /// a browser window. Answers the server's view (with the error, when the sign-in failed).
    pub async fn sign_in(self: &Rc<Self>, id: &str) -> Result<ServerView, ErrorBody> {
        let op = Operation::ListTools { refresh: true };
        let refused = match self.host.mcp(id, op, None, None).await {
            Err(e) => e.report().challenge,
            Ok(_) => None,
        };
        if let Some(challenge) = refused {
            let key = self.host.proof_key(id, true).await.ok().flatten();
            let first = with_env(&self.host, key.as_ref(), |env| {
                self.app.borrow_mut().sign_in(id, &challenge, env, true)
            })??;
            self.carry_out(id, first).await?;
        }
        let _ = self.list_tools(id, true).await;
        self.server_view(id)
    }

    /// `servers/signOut`: the tokens forgotten (revoked where the server can), the view.
    pub async fn sign_out(self: &Rc<Self>, id: &str) -> Result<ServerView, ErrorBody> {
        let first = with_env(&self.host, None, |env| {
            self.app.borrow_mut().sign_out(id, env)
        })??;
        self.carry_out(id, first).await?;
        self.server_view(id)
    }

    /// Carries out an attempt from its first call: each call goes to the second module
    /// ([`Host::rare`]), each action it answers is performed here, until the attempt ends; its
    /// effects (the sign-in saved, the server's `Authorization` changed) first, then its outcome.
    async fn carry_out(self: &Rc<Self>, id: &str, first: SignInCall) -> Result<(), ErrorBody> {
        let mut call = first;
        for _ in 0..MAX_STEPS {
            let now = self.host.now_ms();
            let reply = self.host.rare(&RareCall::SignIn(call)).await;
            let step = match reply.and_then(RareReply::into_step) {
                Ok(step) => step,
                Err(error) => SignInStep::Done {
                    state: None,
                    error: Some(error),
                },
            };
            let next = self.app.borrow_mut().auth_step(id, step, now);
            let (action, interactive) = match next {
                AuthNext::Act(action, interactive) => (action, interactive),
                AuthNext::Call(next) => {
                    call = next;
                    continue;
                }
                AuthNext::Done(effects, outcome) => {
                    self.run_effects(effects).await?;
                    return outcome;
                }
            };
            let input = match action {
                AuthAction::Fetch(request) => match self.host.fetch(&request).await {
                    Ok((status, body, dpop_nonce)) => AuthInput::Response {
                        id: request.id,
                        status,
                        body: String::from_utf8_lossy(&body).into_owned(),
                        dpop_nonce,
                    },
                    Err(message) => AuthInput::FetchError {
                        id: request.id,
                        message,
                    },
                },
                // A redirect that does not belong to the attempt fails it.
                AuthAction::OpenBrowser { url } => {
                    match self.host.browser_step(&url, interactive).await {
                        Ok(url) => AuthInput::Redirect { url },
                        Err(message) => AuthInput::BrowserError { message },
                    }
                }
                AuthAction::Sign {
                    id: request,
                    key,
                    signing_input,
                    ..
                } => {
                    // Only DPoP proofs: the extension holds no client (assertion) key.
                    let signature = match key {
                        SignKey::Dpop => self.host.sign(id, &signing_input).await,
                        _ => Err("MCP Relay holds no private key for this server".to_owned()),
                    };
                    match signature {
                        Ok(signature) => AuthInput::Signature {
                            id: request,
                            signature,
                        },
                        Err(message) => AuthInput::FetchError {
                            id: request,
                            message,
                        },
                    }
                }
            };
            call = self.app.borrow().auth_input(id, input, self.host.now_ms());
        }
        let error = ErrorBody::new(
            crate::contract::ErrorKind::Internal,
            "the sign-in took too many steps",
        );
        let (effects, outcome) = self.app.borrow_mut().auth_finish(id, None, Some(error));
        self.run_effects(effects).await?;
        outcome
    }

    /// Runs an MCP operation with the server's sign-in kept fresh: a token about to expire is
    /// refreshed first, and a request the server refused although the app holds a token is
    /// tried once more after a refresh (or a sign-in that needs no page). A refused request
    /// did not run, so trying it again cannot run a call twice.
    #[allow(clippy::result_large_err)] // ClientError carries what a user needs; see client::Pool
    pub async fn mcp(
        self: &Rc<Self>,
        id: &str,
        op: Operation,
        on_progress: Option<ProgressFn>,
        cancel_key: Option<String>,
    ) -> Result<Output, ClientError> {
        // A local server: the host starts it and says where it serves it now.
        self.local_endpoint(id).await?;
        // Only a server signed in to has a token to refresh (no randomness drawn otherwise).
        if self.app.borrow().authorization(id).is_some() {
            let dpop = self.app.borrow().uses_dpop(id);
            let key = match dpop {
                true => self.host.proof_key(id, true).await.ok().flatten(),
                false => None,
            };
            let due = with_env(&self.host, key.as_ref(), |env| {
                self.app.borrow_mut().refresh_if_due(id, env)
            });
            if let Ok(Some(first)) = due {
                let _ = self.carry_out(id, first).await;
            }
        }
        let retry = (op.clone(), on_progress.clone(), cancel_key.clone());
        let result = self.host.mcp(id, op, on_progress, cancel_key).await;
        let refused = match &result {
            Err(e) if self.app.borrow().authorization(id).is_some() => e.report().challenge,
            _ => None,
        };
        let Some(challenge) = refused else {
            return result;
        };
        let key = self.host.proof_key(id, true).await.ok().flatten();
        let started = with_env(&self.host, key.as_ref(), |env| {
            self.app.borrow_mut().sign_in(id, &challenge, env, false)
        });
        let Ok(Ok(first)) = started else {
            return result;
        };
        if self.carry_out(id, first).await.is_err() {
            return result;
        }
        self.host.mcp(id, retry.0, retry.1, retry.2).await
    }
}

/// The app's DPoP prover for the MCP client: a proof from the app, signed with the server's
/// key, on each request of a server whose token is DPoP-bound; the app keeps nonces and says
/// when to try again.
pub struct DpopProver<H: Host>(pub Weak<Runner<H>>);

impl<H: Host> Prover for DpopProver<H> {
    fn proof(&self, server: &str, method: HttpMethod, url: &str) -> ProofFuture {
        let (run, server, url) = (self.0.upgrade(), server.to_owned(), url.to_owned());
        Box::pin(async move {
            let run = run.filter(|r| r.app.borrow().uses_dpop(&server))?;
            let mut seed = [0u8; SEED_BYTES];
            run.host.random(&mut seed).ok()?;
            let env = AuthEnv {
                redirect_uri: "",
                seed: &seed,
                now_ms: run.host.now_ms(),
                dpop_key: None,
            };
            let input = run.app.borrow().dpop_proof(&server, method, &url, env)?;
            let signature = run.host.sign(&server, &input).await.ok()?;
            Some(format!("{input}.{signature}"))
        })
    }

    fn answered(&self, server: &str, url: &str, head: &ResponseHead) -> bool {
        let Some(run) = self.0.upgrade() else {
            return false;
        };
        let (www, nonce) = (head.header("www-authenticate"), head.header("dpop-nonce"));
        let answered = run
            .app
            .borrow_mut()
            .dpop_answered(server, url, head.status, www, nonce);
        answered
    }
}
