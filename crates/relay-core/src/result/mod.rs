//! Formats what happened to a tool call as the text that goes back into the chat.
//!
//! One formatter for every outcome (success, tool error, rejected arguments, transport
//! failure, timeout with unknown outcome, denial), so the model always sees the same wrapper:
//!
//! ````text
//! ```tool-result id="c1" tool="get-sum" server="everything" status="ok"
//! 5
//! ```
//! ````
//!
//! The fence is longer than any backtick run in the content, so a result cannot close it
//! early and smuggle text outside. Images, audio and binary resources become attachments with
//! a placeholder line (the anchors dropped them); huge results are cut with a visible marker.
//! For a chat page that does not take files, the same text is made with each placeholder saying
//! its file was not attached (`ResultOptions::files_refused`): the model is never told of a
//! file it did not get.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::model::{CallToolResult, Content, ResourceContents};
use crate::schema::{closest_names, Validated};

pub const STATUS_OK: &str = "ok";
pub const STATUS_ERROR: &str = "error";
pub const STATUS_INVALID: &str = "invalid";
pub const STATUS_FAILED: &str = "failed";
pub const STATUS_UNKNOWN: &str = "unknown";
pub const STATUS_DENIED: &str = "denied";
pub const STATUS_SKIPPED: &str = "skipped";

/// What happened to one call.
///
/// Deserialized by hand (below): `{"kind": …}` read through `Value`, not the derive's buffered
/// internally tagged visitor (the largest single serde function in the wasm module).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum Outcome {
    /// The server answered; `isError` in the result makes it a tool error.
    Completed { result: CallToolResult },
    /// The call was rejected before running: bad arguments, unknown tool or server.
    Invalid { message: String },
    /// The request could not be made (connection refused, auth): the tool did not run.
    Failed { message: String },
    /// The request was sent but no answer came (timeout, dropped stream): it may have run.
    Unknown { message: String },
    /// The user declined the call.
    Denied {
        #[serde(default, skip_serializing_if = "Option::is_none")]
        reason: Option<String>,
    },
    /// Not run by the relay itself (call limit reached, duplicate of a call already run).
    Skipped { reason: String },
}

impl<'de> serde::Deserialize<'de> for Outcome {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = Value::deserialize(d)?;
        let field = |key: &'static str| -> Result<String, D::Error> {
            match v.get(key) {
                Some(Value::String(s)) => Ok(s.clone()),
                Some(other) => {
                    crate::json_value::from_value(other.clone()).map_err(D::Error::custom)
                }
                None => Err(D::Error::missing_field(key)),
            }
        };
        let kind = v
            .get("kind")
            .ok_or_else(|| D::Error::missing_field("kind"))?
            .as_str()
            .ok_or_else(|| D::Error::custom("outcome kind: expected a string"))?;
        Ok(match kind {
            "completed" => Outcome::Completed {
                result: crate::json_value::from_value(
                    v.get("result")
                        .ok_or_else(|| D::Error::missing_field("result"))?
                        .clone(),
                )
                .map_err(D::Error::custom)?,
            },
            "invalid" => Outcome::Invalid {
                message: field("message")?,
            },
            "failed" => Outcome::Failed {
                message: field("message")?,
            },
            "unknown" => Outcome::Unknown {
                message: field("message")?,
            },
            "denied" => Outcome::Denied {
                reason: match v.get("reason") {
                    None | Some(Value::Null) => None,
                    Some(_) => Some(field("reason")?),
                },
            },
            "skipped" => Outcome::Skipped {
                reason: field("reason")?,
            },
            other => {
                return Err(D::Error::unknown_variant(
                    other,
                    &[
                        "completed",
                        "invalid",
                        "failed",
                        "unknown",
                        "denied",
                        "skipped",
                    ],
                ))
            }
        })
    }
}

impl Outcome {
    /// The rejection of arguments that failed validation.
    pub fn invalid_arguments(validated: &Validated, tool: &str) -> Self {
        let message = validated
            .message_for_model(tool)
            .unwrap_or_else(|| format!("The arguments for tool '{tool}' were rejected."));
        Outcome::Invalid { message }
    }

    /// The rejection of a call to a tool the server does not have, with "did you mean".
    pub fn unknown_tool<'a>(
        tool: &str,
        server: &str,
        known: impl IntoIterator<Item = &'a str>,
    ) -> Self {
        let suggestions = closest_names(tool, known, 3);
        let mut message = format!("There is no tool '{tool}' on server '{server}'.");
        if !suggestions.is_empty() {
            let quoted: Vec<String> = suggestions.iter().map(|s| format!("'{s}'")).collect();
            message.push_str(&format!(" Did you mean {}?", quoted.join(" or ")));
        }
        message.push_str(" Use a tool from the list I gave you.");
        Outcome::Invalid { message }
    }

    /// The status word in the wrapper's header.
    pub fn status(&self) -> &'static str {
        match self {
            Outcome::Completed { result } if result.is_error() => STATUS_ERROR,
            Outcome::Completed { .. } => STATUS_OK,
            Outcome::Invalid { .. } => STATUS_INVALID,
            Outcome::Failed { .. } => STATUS_FAILED,
            Outcome::Unknown { .. } => STATUS_UNKNOWN,
            Outcome::Denied { .. } => STATUS_DENIED,
            Outcome::Skipped { .. } => STATUS_SKIPPED,
        }
    }
}

/// One call and its outcome.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResultInput {
    pub call_id: String,
    pub tool: String,
    /// The server's display name, as the model wrote it.
    pub server: String,
    pub outcome: Outcome,
}

impl ResultInput {
    pub fn new(
        call_id: impl Into<String>,
        tool: impl Into<String>,
        server: impl Into<String>,
        outcome: Outcome,
    ) -> Self {
        ResultInput {
            call_id: call_id.into(),
            tool: tool.into(),
            server: server.into(),
            outcome,
        }
    }
}

/// The line that ends a result message, nudging the model to go on.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub enum Nudge {
    #[default]
    None,
    /// "Continue: call another tool if you need one, or give your final answer."
    Continue,
    /// The call limit is reached: answer now.
    Answer,
}

impl Nudge {
    pub fn text(self) -> Option<&'static str> {
        match self {
            Nudge::None => None,
            Nudge::Continue => {
                Some("Continue: call another tool if you need one, or give your final answer.")
            }
            Nudge::Answer => {
                Some("That was the last tool call for this request: give your final answer now.")
            }
        }
    }
}

/// How results are formatted. Every field has a default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
#[non_exhaustive]
pub struct ResultOptions {
    /// Most characters of one call's content; the rest is cut with a marker.
    pub max_chars: usize,
    pub nudge: Nudge,
    /// Number of the first attachment (keep counting across a chat to keep names unique).
    pub first_attachment: usize,
    /// File names of attachments are `{prefix}-{number}.{ext}`.
    pub attachment_prefix: String,
    /// The text for a page that did not take the files: each placeholder line says its file
    /// was not attached (and why), never "attached as".
    pub files_refused: bool,
}

impl Default for ResultOptions {
    fn default() -> Self {
        ResultOptions {
            max_chars: 20_000,
            nudge: Nudge::None,
            first_attachment: 1,
            attachment_prefix: "tool-result".to_owned(),
            files_refused: false,
        }
    }
}

impl ResultOptions {
    pub fn with_max_chars(mut self, max_chars: usize) -> Self {
        self.max_chars = max_chars;
        self
    }

    pub fn with_nudge(mut self, nudge: Nudge) -> Self {
        self.nudge = nudge;
        self
    }

    pub fn with_first_attachment(mut self, number: usize) -> Self {
        self.first_attachment = number;
        self
    }
}

/// A binary part of a result, passed on as a file (never dropped).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Attachment {
    /// The number used in the placeholder line.
    pub number: usize,
    pub file_name: String,
    pub mime_type: String,
    /// Base64, as the server sent it.
    pub data: String,
    /// Decoded size in bytes.
    pub size: usize,
    pub call_id: String,
    /// The resource URI, for blob resources.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub uri: Option<String>,
}

/// Why the files of a delivery did not reach the chat, as the content script saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "snake_case")]
#[non_exhaustive]
pub enum AttachFailure {
    /// The page has no way in for files: its adapter names none, or it has no file input and
    /// nothing on it took a drop or a paste of files.
    NoTarget,
    /// The page was given the files but never showed them attached.
    NotShown,
}

/// The files of one call that did not reach the chat with its result.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Unattached {
    /// How many files.
    pub count: u32,
    /// Whether every one of them is an image (the panel says "image" rather than "file").
    pub images: bool,
    pub reason: AttachFailure,
}

impl Unattached {
    /// What of `attachments` (a delivery's) belongs to `call_id`, when the page took none.
    pub fn of_call(
        attachments: &[Attachment],
        call_id: &str,
        reason: AttachFailure,
    ) -> Option<Self> {
        let mine: Vec<&Attachment> = attachments
            .iter()
            .filter(|a| a.call_id == call_id)
            .collect();
        (!mine.is_empty()).then(|| Unattached {
            count: u32::try_from(mine.len()).unwrap_or(u32::MAX),
            images: mine.iter().all(|a| a.mime_type.starts_with("image/")),
            reason,
        })
    }
}

/// The message text for the chat and the files to attach with it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct FormattedResult {
    pub text: String,
    pub attachments: Vec<Attachment>,
    /// Whether some content was cut at `max_chars`.
    pub truncated: bool,
}

/// Formats one call's outcome.
pub fn format_result(input: &ResultInput, options: &ResultOptions) -> FormattedResult {
    format_results(std::slice::from_ref(input), options)
}

/// Formats the outcomes of several calls as one message (one block each, the nudge once).
pub fn format_results(inputs: &[ResultInput], options: &ResultOptions) -> FormattedResult {
    let mut formatted = FormattedResult::default();
    let mut next_attachment = options.first_attachment;
    for input in inputs {
        let mut body = body(
            input,
            options,
            &mut formatted.attachments,
            &mut next_attachment,
        );
        if truncate(&mut body, options.max_chars) {
            formatted.truncated = true;
        }
        if !formatted.text.is_empty() {
            formatted.text.push('\n');
        }
        write_block(&mut formatted.text, input, &body);
    }
    if let Some(nudge) = options.nudge.text() {
        formatted.text.push_str(nudge);
        formatted.text.push('\n');
    }
    formatted
}

fn write_block(out: &mut String, input: &ResultInput, body: &str) {
    let fence = "`".repeat(longest_backtick_run(body).max(2) + 1);
    out.push_str(&fence);
    out.push_str("tool-result id=");
    out.push_str(&header_value(&input.call_id));
    out.push_str(" tool=");
    out.push_str(&header_value(&input.tool));
    out.push_str(" server=");
    out.push_str(&header_value(&input.server));
    out.push_str(" status=\"");
    out.push_str(input.outcome.status());
    out.push_str("\"\n");
    out.push_str(body);
    if !body.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&fence);
    out.push('\n');
}

/// A JSON-quoted header value; backticks are replaced because an info string may not hold them.
fn header_value(value: &str) -> String {
    serde_json::to_string(&value.replace('`', "'")).unwrap_or_default()
}

fn longest_backtick_run(text: &str) -> usize {
    let (mut longest, mut run) = (0, 0);
    for b in text.bytes() {
        if b == b'`' {
            run += 1;
            longest = longest.max(run);
        } else {
            run = 0;
        }
    }
    longest
}

fn body(
    input: &ResultInput,
    options: &ResultOptions,
    attachments: &mut Vec<Attachment>,
    next: &mut usize,
) -> String {
    match &input.outcome {
        Outcome::Completed { result } => completed(result, input, options, attachments, next),
        Outcome::Invalid { message } => message.clone(),
        Outcome::Failed { message } => format!("The call could not be made: {message}. The tool did not run."),
        Outcome::Unknown { message } => format!(
            "No result arrived ({message}). The tool may or may not have run: do not assume either, \
             and check before repeating anything that changes data."
        ),
        Outcome::Denied { reason: Some(reason) } => format!("I declined this call: {reason}"),
        Outcome::Denied { reason: None } => "I declined this call.".to_owned(),
        Outcome::Skipped { reason } => format!("Not run: {reason}"),
    }
}

fn completed(
    result: &CallToolResult,
    input: &ResultInput,
    options: &ResultOptions,
    attachments: &mut Vec<Attachment>,
    next: &mut usize,
) -> String {
    let mut out = String::new();
    let line = |out: &mut String, text: &str| {
        if !out.is_empty() && !out.ends_with('\n') {
            out.push('\n');
        }
        out.push_str(text);
    };
    let mut attach = |kind: &str, mime: &str, data: &str, uri: Option<&str>| -> String {
        let number = *next;
        *next += 1;
        let file_name = format!("{}-{number}.{}", options.attachment_prefix, extension(mime));
        let size = base64_len(data);
        let place = uri.map(|u| format!(", {u}")).unwrap_or_default();
        let fate = if options.files_refused {
            // Never a claim the page did not make good: the model is told the file is missing.
            "not attached: the chat page did not take files".to_owned()
        } else {
            format!("attached as {file_name}")
        };
        let text = format!(
            "[{kind} {number}: {mime}, {}{place}, {fate}]",
            human_size(size)
        );
        attachments.push(Attachment {
            number,
            file_name,
            mime_type: mime.to_owned(),
            data: data.to_owned(),
            size,
            call_id: input.call_id.clone(),
            uri: uri.map(str::to_owned),
        });
        text
    };
    let mut texts_hold_structured = false;
    for content in &result.content {
        match content {
            Content::Text { text } => {
                if let Some(structured) = &result.structured_content {
                    // Servers are asked to repeat structured content as text: show it once.
                    if serde_json::from_str::<Value>(text).ok().as_ref() == Some(structured) {
                        texts_hold_structured = true;
                    }
                }
                line(&mut out, text);
            }
            Content::Image { data, mime_type } => {
                line(&mut out, &attach("image", mime_type, data, None))
            }
            Content::Audio { data, mime_type } => {
                line(&mut out, &attach("audio", mime_type, data, None))
            }
            Content::Resource { resource } => line(&mut out, &resource_text(resource, &mut attach)),
            Content::ResourceLink {
                uri,
                name,
                description,
                mime_type,
            } => {
                let mut text = format!("[resource link: {}", name.as_deref().unwrap_or(uri));
                if name.is_some() {
                    text.push_str(&format!(" <{uri}>"));
                }
                if let Some(mime) = mime_type {
                    text.push_str(&format!(" ({mime})"));
                }
                if let Some(description) = description {
                    text.push_str(&format!(" — {description}"));
                }
                text.push(']');
                line(&mut out, &text);
            }
            Content::Unknown(value) => line(
                &mut out,
                &format!(
                    "[unsupported content: {}]",
                    serde_json::to_string(value).unwrap_or_default()
                ),
            ),
        }
    }
    if let (Some(structured), false) = (&result.structured_content, texts_hold_structured) {
        let pretty = serde_json::to_string_pretty(structured).unwrap_or_default();
        line(&mut out, &format!("structuredContent:\n{pretty}"));
    }
    if out.is_empty() {
        out.push_str("(no content)");
    }
    out
}

fn resource_text(
    resource: &ResourceContents,
    attach: &mut impl FnMut(&str, &str, &str, Option<&str>) -> String,
) -> String {
    let mime = resource.mime_type.as_deref();
    match (&resource.text, &resource.blob) {
        (Some(text), _) => {
            let mime = mime.map(|m| format!(" ({m})")).unwrap_or_default();
            format!("[resource {}{mime}]\n{text}", resource.uri)
        }
        (None, Some(blob)) => attach(
            "resource",
            mime.unwrap_or("application/octet-stream"),
            blob,
            Some(&resource.uri),
        ),
        (None, None) => format!("[resource {} (empty)]", resource.uri),
    }
}

/// Cuts `body` to `max` characters, ending with a marker that says how much was cut.
fn truncate(body: &mut String, max: usize) -> bool {
    let total = body.chars().count();
    if total <= max {
        return false;
    }
    let cut_at = body
        .char_indices()
        .nth(max)
        .map(|(i, _)| i)
        .unwrap_or(body.len());
    body.truncate(cut_at);
    let cut = total - max;
    body.push_str(&format!(
        "\n[… truncated: {} of {} characters cut]",
        with_separators(cut),
        with_separators(total)
    ));
    true
}

fn with_separators(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// Decoded length of base64 data (padding and whitespace aware).
fn base64_len(data: &str) -> usize {
    let significant = data
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'=')
        .count();
    significant * 3 / 4
}

fn human_size(bytes: usize) -> String {
    if bytes < 1024 {
        format!("{bytes} B")
    } else if bytes < 1024 * 1024 {
        format!("{} KB", (bytes + 512) / 1024)
    } else {
        // Tenths of a MB in integers, rounded half to even as `{:.1}` would: float formatting
        // would pull core's float printer (~14 KB) into the wasm module for this one line.
        let (den, num) = (1024 * 1024, bytes as u128 * 10);
        let (mut tenths, rest) = (num / den, num % den);
        if 2 * rest > den || (2 * rest == den && tenths % 2 == 1) {
            tenths += 1;
        }
        format!("{}.{} MB", tenths / 10, tenths % 10)
    }
}

/// A file extension for a MIME type.
fn extension(mime: &str) -> &str {
    let essence = mime.split(';').next().unwrap_or(mime).trim();
    match essence {
        "image/png" => "png",
        "image/jpeg" | "image/jpg" => "jpg",
        "image/gif" => "gif",
        "image/webp" => "webp",
        "image/svg+xml" => "svg",
        "audio/wav" | "audio/x-wav" | "audio/wave" => "wav",
        "audio/mpeg" | "audio/mp3" => "mp3",
        "audio/ogg" => "ogg",
        "application/pdf" => "pdf",
        "application/gzip" | "application/x-gzip" => "gz",
        "application/zip" => "zip",
        "application/json" => "json",
        "text/plain" => "txt",
        "text/csv" => "csv",
        "text/html" => "html",
        _ => match essence.split('/').nth(1) {
            Some(sub)
                if !sub.is_empty()
                    && sub.len() <= 5
                    && sub.chars().all(|c| c.is_ascii_alphanumeric()) =>
            {
                sub
            }
            _ => "bin",
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    /// Every kind round-trips through its wire form; malformed ones are refused.
    #[test]
    fn outcome_wire_form_round_trips() {
        let kinds = [
            json!({"kind": "completed", "result": {"content": [{"type": "text", "text": "4"}]}}),
            json!({"kind": "invalid", "message": "bad"}),
            json!({"kind": "failed", "message": "down"}),
            json!({"kind": "unknown", "message": "timeout"}),
            json!({"kind": "denied"}),
            json!({"kind": "denied", "reason": "no"}),
            json!({"kind": "skipped", "reason": "limit"}),
        ];
        for wire in kinds {
            let o: Outcome = crate::json_value::from_value(wire.clone()).expect("parses");
            assert_eq!(serde_json::to_value(&o).expect("serializes"), wire);
        }
        let bad = [
            json!({"kind": "exploded"}),
            json!({"kind": "failed"}),
            json!({"kind": "failed", "message": 3}),
            json!({"message": "no kind"}),
            json!({"kind": "completed", "result": 5}),
            json!("completed"),
        ];
        for wire in bad {
            assert!(
                crate::json_value::from_value::<Outcome>(wire.clone()).is_err(),
                "{wire}"
            );
        }
    }
}
