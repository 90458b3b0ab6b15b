//! Writes the lowered schema tree as a TypeScript-like signature plus one-line parameter docs.
//!
//! Notation (explained once in the prompt): `name?: T` optional, `= v` default, `"a"|"b"`
//! allowed values, `1..10` inclusive range, `>0` exclusive bound, `len<=64` string length,
//! `T[]` list, `{a: T}` object, `Record<string, T>` map, `string<date-time>` format.

use super::ir::{Additional, Extra, Node, Note, Obj, Prop, Ty, J};
use super::text::write_json;

/// The type of `node`, on one line. `names` holds the display names of the catalog's definitions.
pub(crate) fn inline(node: &Node<'_>, names: &[String]) -> String {
    let mut out = String::new();
    write_ty(&mut out, &node.ty, names);
    out
}

pub(crate) fn write_ty(out: &mut String, ty: &Ty<'_>, names: &[String]) {
    match ty {
        Ty::Any => out.push_str("any"),
        Ty::Never => out.push_str("never"),
        Ty::Prim {
            prim,
            format,
            notes,
        } => {
            out.push_str(prim.name());
            if let Some(format) = format {
                out.push('<');
                out.push_str(format);
                out.push('>');
            }
            write_notes(out, notes);
        }
        Ty::Opaque(name) => out.push_str(name),
        Ty::Lit(values) => {
            if values.is_empty() {
                out.push_str("never");
            }
            for (i, value) in values.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write_json(out, value.0);
            }
        }
        Ty::Array { item, notes } => {
            write_atom(out, &item.ty, names);
            out.push_str("[]");
            write_notes(out, notes);
        }
        Ty::Tuple { items, rest, notes } => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_ty(out, &item.ty, names);
            }
            if let Some(rest) = rest {
                if !items.is_empty() {
                    out.push_str(", ");
                }
                out.push_str("...");
                write_atom(out, &rest.ty, names);
                out.push_str("[]");
            }
            out.push(']');
            write_notes(out, notes);
        }
        Ty::Object(obj) => write_object(out, obj, names),
        Ty::Union(nodes) => {
            for (i, node) in nodes.iter().enumerate() {
                if i > 0 {
                    out.push('|');
                }
                write_atom(out, &node.ty, names);
            }
        }
        Ty::All(nodes) => {
            for (i, node) in nodes.iter().enumerate() {
                if i > 0 {
                    out.push_str(" & ");
                }
                write_atom(out, &node.ty, names);
            }
        }
        Ty::Not(node) => {
            out.push_str("not ");
            write_atom(out, &node.ty, names);
        }
        Ty::Cond {
            when,
            then,
            otherwise,
        } => {
            out.push_str("(if ");
            write_ty(out, &when.ty, names);
            if let Some(then) = then {
                out.push_str(" then ");
                write_ty(out, &then.ty, names);
            }
            if let Some(otherwise) = otherwise {
                out.push_str(" else ");
                write_ty(out, &otherwise.ty, names);
            }
            out.push(')');
        }
        Ty::Def(id) => out.push_str(names.get(*id).map(String::as_str).unwrap_or("any")),
    }
}

/// A type inside a union, intersection or list: parenthesised when it has spaces or bars.
fn write_atom(out: &mut String, ty: &Ty<'_>, names: &[String]) {
    let compound = match ty {
        Ty::Prim { notes, .. } | Ty::Array { notes, .. } | Ty::Tuple { notes, .. } => {
            !notes.is_empty()
        }
        Ty::Lit(values) => values.len() > 1,
        Ty::Object(obj) => !obj.notes.is_empty(),
        Ty::Union(_) | Ty::All(_) | Ty::Not(_) => true,
        _ => false,
    };
    if compound {
        out.push('(');
        write_ty(out, ty, names);
        out.push(')');
    } else {
        write_ty(out, ty, names);
    }
}

fn write_notes(out: &mut String, notes: &[Note<'_>]) {
    for note in notes {
        out.push(' ');
        write_note(out, note);
    }
}

fn write_note(out: &mut String, note: &Note<'_>) {
    let bound = |out: &mut String, prefix: &str, value: &J<'_>| {
        out.push_str(prefix);
        write_json(out, value.0);
    };
    match note {
        Note::Range(low, high) => {
            write_json(out, low.0);
            out.push_str("..");
            write_json(out, high.0);
        }
        Note::Min { value, exclusive } => bound(out, if *exclusive { ">" } else { ">=" }, value),
        Note::Max { value, exclusive } => bound(out, if *exclusive { "<" } else { "<=" }, value),
        Note::MultipleOf(step) => bound(out, "multipleOf ", step),
        Note::Len(min, max) => {
            out.push_str("len");
            match (min, max) {
                (Some(min), Some(max)) => {
                    bound(out, " ", min);
                    bound(out, "..", max);
                }
                (Some(min), None) => bound(out, ">=", min),
                (None, Some(max)) => bound(out, "<=", max),
                (None, None) => {}
            }
        }
        Note::Pattern(pattern) => {
            out.push('/');
            out.push_str(pattern);
            out.push('/');
        }
        Note::Count { min, max, unit } => {
            match (min, max) {
                (Some(min), Some(max)) if min == max => write_json(out, min.0),
                (Some(min), Some(max)) => {
                    write_json(out, min.0);
                    bound(out, "..", max);
                }
                (Some(min), None) => bound(out, ">=", min),
                (None, Some(max)) => bound(out, "<=", max),
                (None, None) => {}
            }
            out.push(' ');
            out.push_str(unit);
        }
        Note::Unique => out.push_str("unique"),
        // Nested schemas in a note are written inline, without the catalog's shared names (a
        // note is one short line).
        Note::Contains(node) => {
            out.push_str("contains ");
            write_ty(out, &node.ty, &[]);
        }
        Note::Requires { name, needs } => {
            out.push_str(name);
            out.push_str(" requires ");
            out.push_str(&needs.join(", "));
        }
        Note::With { name, node } => {
            out.push_str("with ");
            out.push_str(name);
            out.push_str(": ");
            write_ty(out, &node.ty, &[]);
        }
    }
}

fn write_object(out: &mut String, obj: &Obj<'_>, names: &[String]) {
    let has_entries = !obj.props.is_empty() || !obj.patterns.is_empty();
    if !has_entries {
        match &obj.additional {
            Additional::Unspecified | Additional::Open if obj.key.is_none() => {
                out.push_str("object")
            }
            Additional::Closed => out.push_str("{}"),
            Additional::Schema(value) => {
                out.push_str("Record<");
                write_key(out, obj, names);
                out.push_str(", ");
                write_ty(out, &value.ty, names);
                out.push('>');
            }
            _ => {
                out.push_str("Record<");
                write_key(out, obj, names);
                out.push_str(", any>");
            }
        }
        write_notes(out, &obj.notes);
        return;
    }
    out.push('{');
    write_fields(out, obj, names);
    out.push('}');
    write_notes(out, &obj.notes);
}

/// `a: T, b?: U = d` plus the open-ended parts; shared by object types and tool signatures.
pub(crate) fn write_fields(out: &mut String, obj: &Obj<'_>, names: &[String]) {
    let mut first = true;
    let mut sep = |out: &mut String| {
        if !std::mem::take(&mut first) {
            out.push_str(", ");
        }
    };
    for prop in &obj.props {
        sep(out);
        write_prop(out, prop, names);
    }
    for (pattern, node) in &obj.patterns {
        sep(out);
        out.push_str("[key matching /");
        out.push_str(pattern);
        out.push_str("/]: ");
        write_ty(out, &node.ty, names);
    }
    match &obj.additional {
        Additional::Open => {
            sep(out);
            out.push_str("...");
        }
        Additional::Schema(value) => {
            sep(out);
            out.push_str("[key: ");
            write_key(out, obj, names);
            out.push_str("]: ");
            write_ty(out, &value.ty, names);
        }
        Additional::Unspecified | Additional::Closed => {}
    }
}

fn write_key(out: &mut String, obj: &Obj<'_>, names: &[String]) {
    match &obj.key {
        Some(key) => write_atom(out, &key.ty, names),
        None => out.push_str("string"),
    }
}

fn write_prop(out: &mut String, prop: &Prop<'_>, names: &[String]) {
    write_name(out, prop.name);
    if !prop.required {
        out.push('?');
    }
    out.push_str(": ");
    write_ty(out, &prop.node.ty, names);
    if let Some(default) = prop.node.default {
        out.push_str(" = ");
        write_json(out, default.0);
    }
}

/// ASCII bytes a bare property name may contain.
const NAME_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 128 {
        let c = b as u8;
        table[b] = c.is_ascii_alphanumeric() || matches!(c, b'_' | b'-' | b'$' | b'.' | b'@');
        b += 1;
    }
    table
};

/// Property names are written bare when a model cannot misread them, JSON-quoted otherwise.
pub(crate) fn write_name(out: &mut String, name: &str) {
    let word = |c: char| c.is_alphanumeric() || matches!(c, '_' | '-' | '$' | '.' | '@');
    let bare = !name.is_empty()
        && !name.as_bytes()[0].is_ascii_digit()
        && (name.bytes().all(|b| NAME_BYTE[b as usize])
            || (!name.is_ascii() && name.chars().all(word)));
    if bare {
        out.push_str(name);
    } else {
        out.push_str(&serde_json::to_string(name).unwrap_or_default());
    }
}

/// One documentation line of a schema position: its path and what the docs say about it,
/// borrowed from the tree.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocLine<'n> {
    /// The path is `arena[start..end]` of the arena the lines were collected with (one
    /// allocation for all paths instead of one each).
    pub start: usize,
    pub end: usize,
    /// The last segment of the path, `arena[leaf_start..end]`: the key shared descriptions are
    /// matched on.
    pub leaf_start: usize,
    pub doc: Option<&'n str>,
    pub extras: &'n [Extra<'n>],
    /// A default outside a property position (the signature shows property defaults).
    pub default: Option<J<'n>>,
}

impl DocLine<'_> {
    pub fn path<'s>(&self, arena: &'s str) -> &'s str {
        &arena[self.start..self.end]
    }

    pub fn leaf<'s>(&self, arena: &'s str) -> &'s str {
        &arena[self.leaf_start..self.end]
    }

    /// Whether the line says more than a description (examples, deprecation, a default).
    pub fn has_extras(&self) -> bool {
        !self.extras.is_empty() || self.default.is_some()
    }
}

/// Collects the documentation lines under `node` (not descending into definitions, which are
/// documented where they are defined). `prop_position` says whether `node` is a property,
/// whose default is already in the signature.
pub(crate) fn collect_docs<'n>(
    node: &'n Node<'n>,
    path: &mut String,
    prop_position: bool,
    out: &mut Docs<'n>,
) {
    let default = if prop_position { None } else { node.default };
    if (node.doc.is_some() || !node.extras.is_empty() || default.is_some()) && !path.is_empty() {
        out.push(path, node.doc.as_deref(), &node.extras, default);
    }
    collect_children(&node.ty, path, out);
}

/// Documentation lines being collected, with the arena their paths live in.
#[derive(Default)]
pub(crate) struct Docs<'n> {
    pub arena: String,
    pub lines: Vec<DocLine<'n>>,
}

impl<'n> Docs<'n> {
    fn push(
        &mut self,
        path: &str,
        doc: Option<&'n str>,
        extras: &'n [Extra<'n>],
        default: Option<J<'n>>,
    ) {
        let start = self.arena.len();
        self.arena.push_str(path);
        let end = self.arena.len();
        self.lines.push(DocLine {
            start,
            end,
            leaf_start: start + leaf_start(path),
            doc,
            extras,
            default,
        });
    }
}

pub(crate) fn collect_children<'n>(ty: &'n Ty<'n>, path: &mut String, out: &mut Docs<'n>) {
    let len = path.len();
    match ty {
        Ty::Object(obj) => {
            for prop in &obj.props {
                push_segment(path, prop.name);
                collect_docs(&prop.node, path, true, out);
                path.truncate(len);
            }
            for (pattern, value) in &obj.patterns {
                path.push_str("[/");
                path.push_str(pattern);
                path.push_str("/]");
                collect_docs(value, path, false, out);
                path.truncate(len);
            }
            if let Additional::Schema(value) = &obj.additional {
                path.push_str("[key]");
                collect_docs(value, path, false, out);
                path.truncate(len);
            }
        }
        Ty::Array { item, .. } => {
            path.push_str("[]");
            collect_docs(item, path, false, out);
            path.truncate(len);
        }
        Ty::Tuple { items, rest, .. } => {
            for (i, item) in items.iter().enumerate() {
                path.push_str(&format!("[{i}]"));
                collect_docs(item, path, false, out);
                path.truncate(len);
            }
            if let Some(rest) = rest {
                path.push_str("[]");
                collect_docs(rest, path, false, out);
                path.truncate(len);
            }
        }
        Ty::Union(nodes) | Ty::All(nodes) => {
            for (i, branch) in nodes.iter().enumerate() {
                // A branch's own description gets a label; its fields keep the plain path.
                if branch.doc.is_some() || !branch.extras.is_empty() || branch.default.is_some() {
                    let label = if path.is_empty() {
                        format!("option {}", i + 1)
                    } else {
                        format!(" (option {})", i + 1)
                    };
                    path.push_str(&label);
                    out.push(path, branch.doc.as_deref(), &branch.extras, branch.default);
                    path.truncate(len);
                }
                collect_children(&branch.ty, path, out);
            }
        }
        Ty::Not(inner) => collect_children(&inner.ty, path, out),
        Ty::Cond {
            when,
            then,
            otherwise,
        } => {
            for node in [Some(when), then.as_ref(), otherwise.as_ref()]
                .into_iter()
                .flatten()
            {
                collect_children(&node.ty, path, out);
            }
        }
        _ => {}
    }
}

fn push_segment(path: &mut String, name: &str) {
    if !path.is_empty() {
        path.push('.');
    }
    write_name(path, name);
}

fn leaf_start(path: &str) -> usize {
    // The leaf is the last property name, keeping any `[]` that follows it.
    let mut bytes = path.as_bytes();
    while let Some(rest) = bytes.strip_suffix(b"[]") {
        bytes = rest;
    }
    bytes
        .iter()
        .rposition(|&b| b == b'.')
        .map(|i| i + 1)
        .unwrap_or(0)
}

/// Formats a docs line: `path: doc (extras)`, or `path: extras` when the doc is not shown.
pub(crate) fn write_doc_line(
    out: &mut String,
    indent: &str,
    line: &DocLine<'_>,
    arena: &str,
    show_doc: bool,
) {
    out.push_str(indent);
    out.push_str(line.path(arena));
    out.push(':');
    let doc = line.doc.filter(|_| show_doc);
    if let Some(doc) = doc {
        out.push(' ');
        out.push_str(doc);
    }
    if line.has_extras() {
        out.push_str(if doc.is_some() { " (" } else { " " });
        let mut first = true;
        let mut sep = |out: &mut String| {
            if !std::mem::take(&mut first) {
                out.push_str("; ");
            }
        };
        for extra in line.extras {
            sep(out);
            match extra {
                Extra::Deprecated => out.push_str("deprecated"),
                Extra::ReadOnly => out.push_str("read-only"),
                Extra::WriteOnly => out.push_str("write-only"),
                Extra::Examples(examples) => {
                    out.push_str("e.g. ");
                    for (i, example) in examples.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        write_json(out, example.0);
                    }
                }
            }
        }
        if let Some(default) = line.default {
            sep(out);
            out.push_str("default ");
            write_json(out, default.0);
        }
        if doc.is_some() {
            out.push(')');
        }
    }
    out.push('\n');
}
