//! Each listed server as Streamable HTTP on 127.0.0.1: `POST /mcp/NAME`, guarded by the secret
//! of this host run (`Authorization: Bearer …`, handed to the extension over the native port
//! only), the `Host` header (no DNS rebinding) and the `Origin` header (the extension's own, or
//! none).
//!
//! A request's answer is an SSE stream: the server's notifications and requests about it (progress,
//! elicitation) as they come, its response last. Notifications and responses from the client get
//! 202. There is no GET stream and no session id: the host keeps one process per server, and
//! re-initializes a process started again with the client's own `initialize`.

use std::convert::Infallible;
use std::net::SocketAddr;
use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{DefaultBodyLimit, Path, State};
use axum::http::{header, HeaderMap, StatusCode};
use axum::response::sse::{Event, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Json, Router};
use futures_util::StreamExt as _;
use serde_json::{json, Value};
use tokio_stream::wrappers::UnboundedReceiverStream;

use crate::supervisor::Supervisor;

/// Largest request body from the client.
pub const MAX_BODY: usize = 4 * 1024 * 1024;

struct Bridge {
    sup: Arc<Supervisor>,
    secret: String,
    host: String,
    origin: Option<String>,
}

/// A running bridge.
pub struct Endpoint {
    pub port: u16,
    pub secret: String,
}

impl Endpoint {
    /// The URL of one server.
    pub fn url(&self, name: &str) -> String {
        format!("http://127.0.0.1:{}/mcp/{name}", self.port)
    }
}

/// A random secret for this host run: 32 bytes, hex.
pub fn new_secret() -> std::io::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| std::io::Error::other(e.to_string()))?;
    Ok(bytes.iter().map(|b| format!("{b:02x}")).collect())
}

/// Binds 127.0.0.1 on a free port and serves until the runtime ends. `origin` is the caller's
/// origin Chrome passed to the host (`chrome-extension://ID/`), when known.
pub async fn start(sup: Arc<Supervisor>, origin: Option<String>) -> std::io::Result<Endpoint> {
    let listener = tokio::net::TcpListener::bind(SocketAddr::from(([127, 0, 0, 1], 0))).await?;
    let port = listener.local_addr()?.port();
    let secret = new_secret()?;
    let bridge = Arc::new(Bridge {
        sup,
        secret: secret.clone(),
        host: format!("127.0.0.1:{port}"),
        origin: origin.map(|o| o.trim_end_matches('/').to_owned()),
    });
    let app = Router::new()
        .route(
            "/mcp/{name}",
            post(handle).get(not_offered).delete(not_offered),
        )
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(bridge);
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    Ok(Endpoint { port, secret })
}

async fn not_offered() -> StatusCode {
    StatusCode::METHOD_NOT_ALLOWED
}

fn refuse(status: StatusCode, message: &str) -> Response {
    (
        status,
        Json(json!({"jsonrpc": "2.0", "id": null,
        "error": {"code": -32600, "message": message}})),
    )
        .into_response()
}

/// Equal in time whatever the first difference.
fn same(a: &[u8], b: &[u8]) -> bool {
    a.len() == b.len() && a.iter().zip(b).fold(0u8, |acc, (x, y)| acc | (x ^ y)) == 0
}

impl Bridge {
    fn admit(&self, headers: &HeaderMap) -> Result<(), (StatusCode, &'static str)> {
        let text = |name| headers.get(name).and_then(|v| v.to_str().ok());
        if text(header::HOST) != Some(self.host.as_str()) {
            return Err((StatusCode::FORBIDDEN, "wrong Host header"));
        }
        if let Some(origin) = text(header::ORIGIN) {
            if self.origin.as_deref() != Some(origin) {
                return Err((StatusCode::FORBIDDEN, "foreign Origin"));
            }
        }
        let token = text(header::AUTHORIZATION)
            .and_then(|v| v.strip_prefix("Bearer "))
            .unwrap_or_default();
        if !same(token.as_bytes(), self.secret.as_bytes()) {
            return Err((StatusCode::UNAUTHORIZED, "missing or wrong secret"));
        }
        Ok(())
    }
}

async fn handle(
    State(bridge): State<Arc<Bridge>>,
    Path(name): Path<String>,
    headers: HeaderMap,
    body: Bytes,
) -> Response {
    if let Err((status, why)) = bridge.admit(&headers) {
        return refuse(status, why);
    }
    let msg: Value = match serde_json::from_slice(&body) {
        Ok(v @ Value::Object(_)) if v.get("jsonrpc") == Some(&json!("2.0")) => v,
        Ok(_) => {
            return refuse(
                StatusCode::BAD_REQUEST,
                "one JSON-RPC 2.0 message per request",
            )
        }
        Err(e) => return refuse(StatusCode::BAD_REQUEST, &format!("not JSON: {e}")),
    };
    let client_id = msg.get("id").cloned().unwrap_or(Value::Null);
    match bridge.sup.send(&name, msg) {
        Ok(None) => StatusCode::ACCEPTED.into_response(),
        Ok(Some(rx)) => {
            let stream = UnboundedReceiverStream::new(rx)
                .map(|m| Ok::<Event, Infallible>(Event::default().data(m.to_string())));
            // The supervisor drops the request's only sender once the response is sent, which
            // ends the stream.
            Sse::new(stream).into_response()
        }
        Err(e) => {
            let status = match e.kind() {
                "unknownServer" | "badName" => StatusCode::NOT_FOUND,
                _ => StatusCode::OK,
            };
            (
                status,
                Json(json!({"jsonrpc": "2.0", "id": client_id, "error": e.rpc()})),
            )
                .into_response()
        }
    }
}
