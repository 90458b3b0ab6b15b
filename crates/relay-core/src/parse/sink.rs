//! The output sink: where the scan's calls and diagnostics go, resolved against the selected
//! servers, with the call ids, ordinals and the work count they need.

use std::collections::{BTreeMap, BTreeSet};

use super::ident::{call_key, derived_call_id};
use super::interpret::RawCall;
use super::resolve::{self, Resolution};
use super::{Diagnostic, DiagnosticKind, Span, ToolCall};
use crate::model::ServerTools;

/// Diagnostics kept per message; one `diagnostics_truncated` follows.
const MAX_DIAGNOSTICS: usize = 256;
/// Unknown tools that get edit-distance suggestions (the rest only the message).
const MAX_SUGGESTED: u32 = 32;

/// Where everything found goes, with what ids and ordinals need.
#[derive(Debug, Clone, Default)]
pub(crate) struct Sink {
    pub(crate) calls: Vec<ToolCall>,
    /// The call key of each call (for ordinals among identical calls).
    pub(crate) keys: Vec<u64>,
    pub(crate) ordinals: BTreeMap<u64, u32>,
    pub(crate) ids: BTreeSet<String>,
    pub(crate) diags: Vec<Diagnostic>,
    pub(crate) suggested: u32,
    pub(crate) work: u64,
}

impl Sink {
    pub(crate) fn diag(&mut self, d: Diagnostic) {
        match self.diags.len() {
            n if n < MAX_DIAGNOSTICS => self.diags.push(d),
            MAX_DIAGNOSTICS => self.diags.push(Diagnostic::new(
                DiagnosticKind::DiagnosticsTruncated,
                format!("More than {MAX_DIAGNOSTICS} problems in this message; the rest are not listed."),
                None,
            )),
            _ => {}
        }
    }

    pub(crate) fn note(&mut self, kind: DiagnosticKind, message: String, span: Span) {
        self.diag(Diagnostic::new(kind, message, Some(span)));
    }

    /// Resolves a call and records it (or why it cannot be run).
    pub(crate) fn emit(&mut self, raw: RawCall, servers: &[ServerTools]) {
        let suggest = self.suggested < MAX_SUGGESTED;
        match resolve::resolve(servers, &raw.name, raw.server.as_deref(), suggest) {
            Resolution::Unknown { suggestions } => {
                if suggest {
                    self.suggested += 1;
                }
                let message = match suggestions.as_slice() {
                    [] => format!("No selected server has a tool named \"{}\".", raw.name),
                    s => format!(
                        "No selected server has a tool named \"{}\"; did you mean {}?",
                        raw.name,
                        s.iter()
                            .map(|n| format!("\"{n}\""))
                            .collect::<Vec<_>>()
                            .join(" or ")
                    ),
                };
                self.diag(
                    Diagnostic::new(DiagnosticKind::UnknownTool, message, Some(raw.span))
                        .with_details(suggestions),
                );
            }
            Resolution::Ambiguous { servers } => {
                let ids: Vec<String> = servers.iter().map(|s| s.id.clone()).collect();
                let names = servers
                    .iter()
                    .map(|s| {
                        if s.name.is_empty() {
                            s.id.clone()
                        } else {
                            format!("{} ({})", s.name, s.id)
                        }
                    })
                    .collect::<Vec<_>>()
                    .join(", ");
                let message = format!(
                    "Several selected servers have a tool named \"{}\": {names}; the call must name its \"server\".",
                    raw.name
                );
                self.diag(
                    Diagnostic::new(DiagnosticKind::AmbiguousTool, message, Some(raw.span))
                        .with_details(ids),
                );
            }
            Resolution::Found {
                server,
                tool,
                mismatched_hint,
            } => {
                let key = call_key(&server.id, tool, &raw.arguments);
                let ordinal = self.ordinals.get(&key).copied().unwrap_or(0);
                let call_id = raw.id.unwrap_or_else(|| derived_call_id(key, ordinal));
                // Inserted now (one search of the set instead of two); a duplicate returns
                // before anything else is recorded, so the set is as it would be after.
                if !self.ids.insert(call_id.clone()) {
                    self.note(
                        DiagnosticKind::DuplicateCallId,
                        format!("Call id \"{call_id}\" is used twice in this message; the second call to \"{tool}\" is ignored."),
                        raw.span,
                    );
                    return;
                }
                if let Some(hint) = mismatched_hint {
                    let message = format!(
                        "No selected server called \"{hint}\" has a tool \"{tool}\"; using the one on {}.",
                        if server.name.is_empty() { server.id.as_str() } else { server.name.as_str() }
                    );
                    self.diag(
                        Diagnostic::new(DiagnosticKind::ServerMismatch, message, Some(raw.span))
                            .with_details(vec![server.id.clone()]),
                    );
                }
                if !raw.repairs.is_empty() {
                    let names = raw.repairs.names();
                    let message =
                        format!("The call to \"{tool}\" was repaired: {}.", names.join(", "));
                    self.diag(
                        Diagnostic::new(DiagnosticKind::Repaired, message, Some(raw.span))
                            .with_details(names),
                    );
                }
                self.ordinals.insert(key, ordinal + 1);
                self.keys.push(key);
                self.calls.push(ToolCall {
                    tool: tool.to_owned(),
                    server: server.id.clone(),
                    arguments: raw.arguments,
                    call_id,
                    span: raw.span,
                    format: raw.format,
                });
            }
        }
    }

    pub(crate) fn produced(&self) -> (usize, usize) {
        (self.calls.len(), self.diags.len())
    }
}
