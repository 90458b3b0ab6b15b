//! MCP Relay's bundled demo MCP server.
//!
//! A native MCP server on the official Rust SDK (`rmcp`), speaking Streamable HTTP at
//! [`MCP_PATH`] on 127.0.0.1 only. It exists so a user can try MCP Relay without installing
//! anything else, and so our own tests have a server whose tools cover every kind of result:
//! text, structured content, images, embedded resources and resource links, tool errors
//! (`isError`), progress notifications, prompts with context-engineering placeholders, and
//! resources with templates.
//!
//! The binary (`src/main.rs`) parses the command line, binds with [`bind`], prints
//! [`announcement`] on stdout and runs [`Listening::serve`] until SIGTERM or SIGINT.

use std::future::{Future, IntoFuture};
use std::net::{Ipv4Addr, SocketAddr};
use std::sync::Arc;
use std::time::Duration;

use axum::serve::ListenerExt as _;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

mod board;
pub mod cli;
mod clock;
mod corpus;
mod image;
mod notes;
pub mod origin;
mod prompts;
mod server;

pub use server::{DemoServer, DemoState, NOTES_URI};

/// The HTTP path of the MCP endpoint.
pub const MCP_PATH: &str = "/mcp";

/// How long open connections (SSE streams, calls in flight) get to finish after a shutdown
/// signal before the server stops anyway.
pub const SHUTDOWN_GRACE: Duration = Duration::from_secs(3);

/// How the Streamable HTTP transport behaves.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
#[non_exhaustive]
pub struct ServeOptions {
    /// No `Mcp-Session-Id`: every POST is handled on its own. Off by default (sessions on).
    pub stateless: bool,
    /// Answer plain request/response calls with `application/json` instead of an SSE stream.
    /// rmcp only supports this without sessions, so it implies [`Self::stateless`]. A call that
    /// sends notifications first (progress) still gets an SSE stream so nothing is lost.
    pub json_response: bool,
}

impl ServeOptions {
    /// Sessions on, SSE responses.
    pub fn new() -> Self {
        Self::default()
    }

    /// See [`Self::stateless`].
    pub fn with_stateless(mut self, stateless: bool) -> Self {
        self.stateless = stateless;
        self
    }

    /// See [`Self::json_response`].
    pub fn with_json_response(mut self, json_response: bool) -> Self {
        self.json_response = json_response;
        self
    }

    fn http_config(self, cancel: CancellationToken) -> StreamableHttpServerConfig {
        let stateless = self.stateless || self.json_response;
        // rmcp's defaults accept only loopback `Host` headers (DNS-rebinding protection); the
        // `Origin` check is ours, see [`origin`].
        StreamableHttpServerConfig::default()
            .with_legacy_session_mode(!stateless)
            .with_json_response(self.json_response)
            .with_cancellation_token(cancel)
    }
}

/// Why the server could not start or stopped with an error.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The port is taken or not allowed.
    #[error("cannot listen on 127.0.0.1:{port}: {source}")]
    Bind {
        /// The port asked for (0 = any).
        port: u16,
        /// The OS error.
        source: std::io::Error,
    },
    /// The socket's address could not be read back.
    #[error("cannot read the bound address: {0}")]
    LocalAddr(std::io::Error),
    /// SIGTERM/SIGINT handlers could not be installed.
    #[error("cannot install signal handlers: {0}")]
    Signals(std::io::Error),
    /// Accepting or serving connections failed.
    #[error("HTTP server failed: {0}")]
    Serve(std::io::Error),
}

/// The line the binary prints on stdout once it accepts connections; tools and tests wait for
/// it and take the URL from it.
pub fn announcement(url: &str) -> String {
    format!("MCP demo server listening on {url}")
}

/// Binds 127.0.0.1:`port` (0 = a free port chosen by the OS). Never another interface: the
/// demo has no authentication.
pub async fn bind(port: u16) -> Result<Listening, ServeError> {
    let listener = TcpListener::bind((Ipv4Addr::LOCALHOST, port))
        .await
        .map_err(|source| ServeError::Bind { port, source })?;
    let addr = listener.local_addr().map_err(ServeError::LocalAddr)?;
    Ok(Listening { listener, addr })
}

/// A bound socket, not yet serving.
#[derive(Debug)]
pub struct Listening {
    listener: TcpListener,
    addr: SocketAddr,
}

impl Listening {
    /// The bound address, with the port the OS chose.
    pub fn local_addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT/mcp`.
    pub fn url(&self) -> String {
        format!("http://{}{MCP_PATH}", self.addr)
    }

    /// Serves MCP until `shutdown` completes, then closes every session and waits at most
    /// [`SHUTDOWN_GRACE`] for open connections.
    pub async fn serve(
        self,
        options: ServeOptions,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> Result<(), ServeError> {
        let cancel = CancellationToken::new();
        // Built once: the tool and prompt tables (with their JSON Schemas) are the expensive
        // part of a handler, and rmcp asks for a handler per session or, stateless, per request.
        let prototype = DemoServer::new(Arc::new(DemoState::new()));
        let service = StreamableHttpService::new(
            move || Ok(prototype.clone()),
            Arc::new(LocalSessionManager::default()),
            options.http_config(cancel.child_token()),
        );
        let router = axum::Router::new()
            .route_service(MCP_PATH, service)
            .layer(axum::middleware::from_fn(origin::reject_foreign_origins));

        let (stopping_tx, stopping_rx) = tokio::sync::oneshot::channel::<()>();
        // An SSE response goes out as several small writes (priming event, messages); with
        // Nagle on, the second waits for the client's delayed ACK, adding ~40 ms to every call
        // (tests/bench/demo-server.bench.mjs measures the round trip).
        let listener = self.listener.tap_io(|tcp| {
            if let Err(e) = tcp.set_nodelay(true) {
                tracing::debug!(error = %e, "cannot set TCP_NODELAY");
            }
        });
        let graceful = axum::serve(listener, router).with_graceful_shutdown(async move {
            shutdown.await;
            // Ends the sessions' SSE streams, which graceful shutdown would otherwise wait on.
            cancel.cancel();
            let _ = stopping_tx.send(());
        });
        let deadline = async move {
            if stopping_rx.await.is_ok() {
                tokio::time::sleep(SHUTDOWN_GRACE).await;
            } else {
                // The server ended before any shutdown signal; let its own result decide.
                std::future::pending::<()>().await;
            }
        };
        tokio::select! {
            result = graceful.into_future() => result.map_err(ServeError::Serve),
            () = deadline => {
                tracing::warn!(grace = ?SHUTDOWN_GRACE, "connections still open after the grace period; stopping anyway");
                Ok(())
            }
        }
    }
}
