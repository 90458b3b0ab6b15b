//! MCP Apps (`io.modelcontextprotocol/ui`, SEP-1865, stable 2026-01-26): what a server's tool
//! says about its interface, and the decisions the extension's promises rest on.
//!
//! A tool names its interface in `_meta.ui.resourceUri` (a `ui://` resource, HTML with the
//! MIME type [`APP_MIME`]; the deprecated flat `_meta["ui/resourceUri"]` is read too) and who
//! may call it in `_meta.ui.visibility` (`"model"`, `"app"`; both when absent). The client
//! declares the extension in its capabilities ([`client_capability`]) so servers offer their
//! interfaces; the core then decides:
//! - which tools the model sees: those visible to `"model"` ([`ToolUi::model`]); the others
//!   never reach the prompt, the parser's known names or the model's calls;
//! - which calls an app may make ([`check_app_call`]): its own server's tools that are visible
//!   to `"app"`, nothing else.
//!
//! - what an app's frame may do ([`AppDocument`]): its Content Security Policy, built only from
//!   what its resource declares (`_meta.ui.csp`; the spec's restrictive default when absent,
//!   never looser than declared), and the browser features its frame is allowed
//!   (`_meta.ui.permissions`).
//!
//! The panel renders and relays; nothing here touches a frame.

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

use crate::model::{ReadResourceResult, Tool};

/// The extension's identifier, the key under the capabilities' `extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/ui";

/// The MIME type of an app's document (the only one rendered).
pub const APP_MIME: &str = "text/html;profile=mcp-app";

/// The scheme of an app's resource URI.
pub const UI_SCHEME: &str = "ui://";

/// The value declared under `capabilities.extensions[EXTENSION_ID]`: the MIME types rendered.
pub fn client_capability() -> Value {
    json!({ "mimeTypes": [APP_MIME] })
}

/// Adds the extension to a client capabilities object (keeping every other extension).
pub fn declare(capabilities: &mut Value) {
    let Value::Object(caps) = capabilities else {
        return;
    };
    let extensions = caps
        .entry("extensions")
        .or_insert_with(|| Value::Object(serde_json::Map::new()));
    if !extensions.is_object() {
        *extensions = Value::Object(serde_json::Map::new());
    }
    if let Value::Object(ext) = extensions {
        ext.insert(EXTENSION_ID.to_owned(), client_capability());
    }
}

/// What a tool says about its interface, read from its `_meta`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ToolUi {
    /// The `ui://` resource holding the tool's interface, if it has one.
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resource_uri: Option<String>,
    /// The model may see and call the tool.
    pub model: bool,
    /// The tool's server's apps may call the tool.
    pub app: bool,
}

impl Default for ToolUi {
    /// A tool without `_meta.ui`: no interface, visible to both.
    fn default() -> Self {
        ToolUi {
            resource_uri: None,
            model: true,
            app: true,
        }
    }
}

impl ToolUi {
    /// Reads a tool's `_meta.ui` (and the deprecated `_meta["ui/resourceUri"]`). A resource URI
    /// that is not `ui://` is no interface (a host renders only its server's `ui://`
    /// resources). A `visibility` that is a list names exactly who may call the tool (an empty
    /// list: nobody but the user by hand); anything else there is the default, both.
    pub fn of(tool: &Tool) -> ToolUi {
        let mut ui = ToolUi::default();
        let Some(meta) = tool.extra.get("_meta").and_then(Value::as_object) else {
            return ui;
        };
        let nested = meta.get("ui").and_then(Value::as_object);
        let uri = nested
            .and_then(|u| u.get("resourceUri"))
            .or_else(|| meta.get("ui/resourceUri"))
            .and_then(Value::as_str);
        ui.resource_uri = uri
            .filter(|u| u.len() > UI_SCHEME.len() && u.starts_with(UI_SCHEME))
            .map(str::to_owned);
        if let Some(list) = nested
            .and_then(|u| u.get("visibility"))
            .and_then(Value::as_array)
        {
            let has = |who: &str| list.iter().any(|v| v.as_str() == Some(who));
            ui.model = has("model");
            ui.app = has("app");
        }
        ui
    }

    /// Whether the tool has an interface to show after it ran.
    pub fn has_app(&self) -> bool {
        self.resource_uri.is_some()
    }
}

/// Whether the model may see and call `tool` (its visibility includes `"model"`).
pub fn visible_to_model(tool: &Tool) -> bool {
    ToolUi::of(tool).model
}

/// Why an app's call is refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum AppCallError {
    /// The app asked for a tool of a server other than its own.
    #[error("an app of server '{app_server}' cannot call tools of server '{server}'")]
    OtherServer { app_server: String, server: String },
    /// The server has no such tool (as last listed).
    #[error("server '{server}' has no tool '{tool}'")]
    UnknownTool { server: String, tool: String },
    /// The tool's visibility does not include `"app"`.
    #[error("tool '{tool}' is not offered to apps (its visibility lacks \"app\")")]
    NotForApps { tool: String },
}

/// Decides whether an app shown for a call of `app_server` may call `tool_name` of `server`
/// (`tool`: that tool as last listed). Its own server's tools visible to `"app"` only; the
/// call then goes through the user's policy like any other.
pub fn check_app_call(
    app_server: &str,
    server: &str,
    tool_name: &str,
    tool: Option<&Tool>,
) -> Result<(), AppCallError> {
    if app_server != server {
        return Err(AppCallError::OtherServer {
            app_server: app_server.to_owned(),
            server: server.to_owned(),
        });
    }
    let tool = tool.ok_or_else(|| AppCallError::UnknownTool {
        server: server.to_owned(),
        tool: tool_name.to_owned(),
    })?;
    if !ToolUi::of(tool).app {
        return Err(AppCallError::NotForApps {
            tool: tool_name.to_owned(),
        });
    }
    Ok(())
}

/// The largest app document rendered (bytes of HTML).
pub const MAX_DOCUMENT_BYTES: usize = 5 * 1024 * 1024;

/// How many tool calls an open app makes before each further one asks the user (a flood of
/// calls from a frame is bounded even for tools the user allowed).
pub const APP_CALLS_WITHOUT_ASKING: u32 = 20;

/// An app's document, ready for its frame (made in the second module, `crate::rare`, and read back).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct AppDocument {
    /// The `ui://` resource it was read from.
    pub uri: String,
    /// The HTML.
    pub html: String,
    /// The Content Security Policy its frame enforces.
    pub csp: String,
    /// The frame's `allow` attribute (Permissions Policy): only the features the resource
    /// asks for.
    pub allow: String,
    /// The resource's border preference (`_meta.ui.prefersBorder`).
    #[cfg_attr(feature = "ts", ts(optional))]
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub prefers_border: Option<bool>,
}

/// Why an app's document cannot be shown.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum DocumentError {
    /// `resources/read` answered without the asked URI.
    #[error("the server's answer holds no '{0}'")]
    Missing(String),
    /// The resource is not an MCP App document.
    #[error("'{uri}' is {mime}, not an app ({APP_MIME})")]
    NotAnApp { uri: String, mime: String },
    /// Neither text nor valid base64 HTML.
    #[error("'{0}' holds no readable HTML")]
    Unreadable(String),
    /// Over [`MAX_DOCUMENT_BYTES`].
    #[error("'{uri}' is {bytes} bytes, over the {MAX_DOCUMENT_BYTES} an app may have")]
    TooLarge { uri: String, bytes: usize },
}

impl AppDocument {
    /// The app document `uri` from a `resources/read` answer: its HTML (text, or base64
    /// `blob`), the CSP and permissions its `_meta.ui` declares.
    pub fn from_read(uri: &str, read: &ReadResourceResult) -> Result<AppDocument, DocumentError> {
        let contents = read
            .contents
            .iter()
            .find(|c| c.uri == uri)
            .or_else(|| (read.contents.len() == 1).then(|| &read.contents[0]))
            .ok_or_else(|| DocumentError::Missing(uri.to_owned()))?;
        let mime = contents.mime_type.as_deref().unwrap_or("");
        if !is_app_mime(mime) {
            return Err(DocumentError::NotAnApp {
                uri: uri.to_owned(),
                mime: if mime.is_empty() {
                    "untyped".to_owned()
                } else {
                    mime.to_owned()
                },
            });
        }
        let html = match (&contents.text, &contents.blob) {
            (Some(text), _) => text.clone(),
            (None, Some(blob)) => base64::engine::general_purpose::STANDARD
                .decode(blob.trim())
                .ok()
                .and_then(|bytes| String::from_utf8(bytes).ok())
                .ok_or_else(|| DocumentError::Unreadable(uri.to_owned()))?,
            (None, None) => return Err(DocumentError::Unreadable(uri.to_owned())),
        };
        if html.len() > MAX_DOCUMENT_BYTES {
            return Err(DocumentError::TooLarge {
                uri: uri.to_owned(),
                bytes: html.len(),
            });
        }
        let ui = contents
            .meta
            .as_ref()
            .and_then(|m| m.get("ui"))
            .and_then(Value::as_object);
        let field = |name: &str| ui.and_then(|u| u.get(name));
        Ok(AppDocument {
            uri: uri.to_owned(),
            html,
            csp: csp(field("csp")),
            allow: allow(field("permissions")),
            prefers_border: field("prefersBorder").and_then(Value::as_bool),
        })
    }
}

/// `text/html;profile=mcp-app`, written with any spacing and case.
fn is_app_mime(mime: &str) -> bool {
    let compact: String = mime
        .chars()
        .filter(|c| !c.is_whitespace())
        .collect::<String>()
        .to_ascii_lowercase();
    compact == APP_MIME
}

/// The sources of one declared list (`connectDomains`...) that are safe in a CSP: origins
/// (`https://host[:port]`, `wss://…`, a `*.` wildcard subdomain), nothing else. A keyword
/// (`'unsafe-eval'`), a bare scheme (`https:`), `*`, a path or anything with a separator
/// would widen the policy past what an origin names: dropped.
fn sources(list: Option<&Value>) -> Vec<String> {
    let Some(items) = list.and_then(Value::as_array) else {
        return Vec::new();
    };
    items
        .iter()
        .filter_map(Value::as_str)
        .filter_map(origin_source)
        .take(64)
        .collect()
}

fn origin_source(s: &str) -> Option<String> {
    let s = s.trim().trim_end_matches('/');
    let (scheme, rest) = s.split_once("://")?;
    let scheme = scheme.to_ascii_lowercase();
    if !matches!(scheme.as_str(), "https" | "http" | "wss" | "ws") {
        return None;
    }
    let host_port = rest;
    let (host, port) = match host_port.rsplit_once(':') {
        Some((h, p)) if !h.ends_with(']') || h.starts_with('[') => (h, Some(p)),
        _ => (host_port, None),
    };
    let host_body = host.strip_prefix("*.").unwrap_or(host);
    let host_ok = !host_body.is_empty()
        && host_body
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '.' | '-' | '[' | ']' | ':'))
        && host_body.contains(|c: char| c.is_ascii_alphanumeric());
    let port_ok = port.is_none_or(|p| {
        p == "*" || (!p.is_empty() && p.len() <= 5 && p.bytes().all(|b| b.is_ascii_digit()))
    });
    (host_ok && port_ok).then(|| format!("{scheme}://{}", host_port.to_ascii_lowercase()))
}

/// The CSP of an app's frame from its resource's `_meta.ui.csp`: the spec's restrictive
/// default, widened only by the origins declared, each for its own directives; forms, plugins
/// and nested frames off unless declared.
pub fn csp(declared: Option<&Value>) -> String {
    let list = |name: &str| sources(declared.and_then(|d| d.get(name)));
    let (connect, resource) = (list("connectDomains"), list("resourceDomains"));
    let (frame, base) = (list("frameDomains"), list("baseUriDomains"));
    let with = |fixed: &str, extra: &[String]| {
        let mut v = vec![fixed.to_owned()];
        v.extend(extra.iter().cloned());
        v.join(" ")
    };
    let or_none = |extra: &[String], none: &str| {
        if extra.is_empty() {
            none.to_owned()
        } else {
            extra.join(" ")
        }
    };
    let mut directives = vec![
        "default-src 'none'".to_owned(),
        format!("script-src {}", with("'self' 'unsafe-inline'", &resource)),
        format!("style-src {}", with("'self' 'unsafe-inline'", &resource)),
        format!("img-src {}", with("'self' data:", &resource)),
        format!("media-src {}", with("'self' data:", &resource)),
    ];
    if !resource.is_empty() {
        directives.push(format!("font-src {}", resource.join(" ")));
    }
    directives.push(format!("connect-src {}", or_none(&connect, "'none'")));
    directives.push(format!("frame-src {}", or_none(&frame, "'none'")));
    directives.push(format!("base-uri {}", or_none(&base, "'self'")));
    directives.push("form-action 'none'".to_owned());
    directives.push("object-src 'none'".to_owned());
    directives.join("; ")
}

/// The frame's `allow` attribute: the Permissions Policy features the resource asks for
/// (`_meta.ui.permissions`), each only when declared.
pub fn allow(declared: Option<&Value>) -> String {
    const FEATURES: [(&str, &str); 4] = [
        ("camera", "camera"),
        ("microphone", "microphone"),
        ("geolocation", "geolocation"),
        ("clipboardWrite", "clipboard-write"),
    ];
    let Some(asked) = declared.and_then(Value::as_object) else {
        return String::new();
    };
    FEATURES
        .iter()
        .filter(|(key, _)| {
            asked
                .get(*key)
                .is_some_and(|v| !v.is_null() && v != &Value::Bool(false))
        })
        .map(|(_, feature)| *feature)
        .collect::<Vec<_>>()
        .join("; ")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tool(meta: Value) -> Tool {
        crate::json_value::from_value(
            json!({"name": "t", "inputSchema": {"type": "object"}, "_meta": meta}),
        )
        .unwrap()
    }

    #[test]
    fn reads_each_form_of_tool_ui() {
        let table = [
            (json!({}), None, true, true),
            (
                json!({"ui": {"resourceUri": "ui://w/view.html"}}),
                Some("ui://w/view.html"),
                true,
                true,
            ),
            (
                json!({"ui/resourceUri": "ui://old/x"}),
                Some("ui://old/x"),
                true,
                true,
            ),
            (
                json!({"ui": {"resourceUri": "ui://n"}, "ui/resourceUri": "ui://old"}),
                Some("ui://n"),
                true,
                true,
            ),
            (
                json!({"ui": {"resourceUri": "https://x/y"}}),
                None,
                true,
                true,
            ),
            (json!({"ui": {"resourceUri": "ui://"}}), None, true, true),
            (json!({"ui": {"visibility": ["app"]}}), None, false, true),
            (json!({"ui": {"visibility": ["model"]}}), None, true, false),
            (json!({"ui": {"visibility": []}}), None, false, false),
            (json!({"ui": {"visibility": "app"}}), None, true, true),
            (
                json!({"ui": {"visibility": ["app", 3, "other"]}}),
                None,
                false,
                true,
            ),
            (json!("not an object"), None, true, true),
        ];
        for (meta, uri, model, app) in table {
            let ui = ToolUi::of(&tool(meta.clone()));
            assert_eq!(ui.resource_uri.as_deref(), uri, "{meta}");
            assert_eq!((ui.model, ui.app), (model, app), "{meta}");
        }
    }

    #[test]
    fn declares_the_extension_beside_others() {
        let mut caps = json!({"elicitation": {}, "extensions": {"x/y": {"a": 1}}});
        declare(&mut caps);
        assert_eq!(caps["extensions"]["x/y"], json!({"a": 1}));
        assert_eq!(
            caps["extensions"][EXTENSION_ID],
            json!({"mimeTypes": ["text/html;profile=mcp-app"]})
        );
        let mut caps = json!({});
        declare(&mut caps);
        assert!(caps["extensions"][EXTENSION_ID].is_object());
    }

    #[test]
    fn an_app_calls_its_own_servers_app_visible_tools_only() {
        let both = tool(json!({}));
        let model_only = tool(json!({"ui": {"visibility": ["model"]}}));
        assert_eq!(check_app_call("a", "a", "t", Some(&both)), Ok(()));
        assert!(matches!(
            check_app_call("a", "b", "t", Some(&both)),
            Err(AppCallError::OtherServer { .. })
        ));
        assert!(matches!(
            check_app_call("a", "a", "t", Some(&model_only)),
            Err(AppCallError::NotForApps { .. })
        ));
        assert!(matches!(
            check_app_call("a", "a", "t", None),
            Err(AppCallError::UnknownTool { .. })
        ));
    }

    fn read(contents: Value) -> ReadResourceResult {
        crate::json_value::from_value(json!({ "contents": [contents] })).unwrap()
    }

    #[test]
    fn the_default_policy_is_the_specs_and_declarations_widen_only_their_directives() {
        let default = csp(None);
        for d in [
            "default-src 'none'",
            "script-src 'self' 'unsafe-inline'",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data:",
            "media-src 'self' data:",
            "connect-src 'none'",
            "frame-src 'none'",
            "base-uri 'self'",
        ] {
            assert!(
                default.split("; ").any(|x| x == d),
                "{d} missing: {default}"
            );
        }
        let declared = json!({
            "connectDomains": ["https://api.example.com", "wss://rt.example.com:8443"],
            "resourceDomains": ["https://*.cdn.example", "https:", "*", "'unsafe-eval'",
                "https://a.example/path", "https://x.example; script-src *", "data:"],
            "frameDomains": ["https://www.youtube.com/"],
        });
        let got = csp(Some(&declared));
        assert!(
            got.contains("connect-src https://api.example.com wss://rt.example.com:8443"),
            "{got}"
        );
        assert!(
            got.contains("script-src 'self' 'unsafe-inline' https://*.cdn.example;"),
            "{got}"
        );
        assert!(got.contains("frame-src https://www.youtube.com;"), "{got}");
        for never in [
            "unsafe-eval",
            " * ",
            "https: ",
            "/path",
            "script-src *",
            "x.example",
        ] {
            assert!(!got.contains(never), "{never} in {got}");
        }
        assert_eq!(got.matches("script-src").count(), 1, "{got}");
    }

    #[test]
    fn permissions_allow_only_what_is_declared() {
        assert_eq!(allow(None), "");
        assert_eq!(
            allow(Some(
                &json!({"camera": {}, "clipboardWrite": {}, "usb": {}, "microphone": false})
            )),
            "camera; clipboard-write"
        );
    }

    #[test]
    fn an_app_document_is_read_from_text_or_blob_with_its_declarations() {
        let doc = AppDocument::from_read(
            "ui://a/v.html",
            &read(
                json!({"uri": "ui://a/v.html", "mimeType": "text/html;profile=mcp-app",
                "text": "<p>hi</p>",
                "_meta": {"ui": {"csp": {"connectDomains": ["https://api.example.com"]},
                    "permissions": {"geolocation": {}}, "prefersBorder": false}}}),
            ),
        )
        .unwrap();
        assert_eq!(doc.html, "<p>hi</p>");
        assert!(doc.csp.contains("connect-src https://api.example.com"));
        assert_eq!(doc.allow, "geolocation");
        assert_eq!(doc.prefers_border, Some(false));
        let blob = base64::engine::general_purpose::STANDARD.encode("<b>x</b>");
        let doc = AppDocument::from_read(
            "ui://a/v.html",
            &read(json!({"uri": "ui://a/v.html", "mimeType": "text/html; profile=mcp-app", "blob": blob})),
        )
        .unwrap();
        assert_eq!(doc.html, "<b>x</b>");
        assert_eq!(doc.csp, csp(None));
        let wrong = AppDocument::from_read(
            "ui://a/v.html",
            &read(json!({"uri": "ui://a/v.html", "mimeType": "text/html", "text": "x"})),
        );
        assert!(matches!(wrong, Err(DocumentError::NotAnApp { .. })));
        let none = AppDocument::from_read(
            "ui://a/v.html",
            &read(
                json!({"uri": "ui://a/v.html", "mimeType": "text/html;profile=mcp-app", "blob": "%%%"}),
            ),
        );
        assert!(matches!(none, Err(DocumentError::Unreadable(_))));
    }
}
