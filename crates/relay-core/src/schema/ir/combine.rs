//! Combining lowered nodes: flattening unions (and merging their literals), adding `null`
//! for `nullable`, intersecting `allOf` parts and merging object shapes.

use serde_json::Value;

use super::{Additional, Node, Obj, Prim, Ty, J};

static NULL: Value = Value::Null;

/// Flattens nested unions and merges literal lists (`"a"|"b"` stays one literal union).
pub(super) fn union(nodes: Vec<Node<'_>>) -> Ty<'_> {
    let mut flat: Vec<Node<'_>> = Vec::with_capacity(nodes.len());
    for node in nodes {
        match node {
            Node {
                ty: Ty::Union(inner),
                doc: None,
                default: None,
                ref extras,
            } if extras.is_empty() => flat.extend(inner),
            node => flat.push(node),
        }
    }
    if flat.iter().any(|n| n.ty == Ty::Any && n.doc.is_none()) {
        return Ty::Any;
    }
    if flat.len() > 1
        && flat
            .iter()
            .all(|n| matches!(n.ty, Ty::Lit(_)) && n.doc.is_none())
    {
        let mut values: Vec<J<'_>> = Vec::new();
        for node in flat {
            if let Ty::Lit(v) = node.ty {
                for value in v {
                    if !values.contains(&value) {
                        values.push(value);
                    }
                }
            }
        }
        return Ty::Lit(values);
    }
    match flat.len() {
        0 => Ty::Never,
        1 if flat[0].doc.is_none() && flat[0].extras.is_empty() => flat.swap_remove(0).ty,
        _ => Ty::Union(flat),
    }
}

pub(super) fn with_null(ty: Ty<'_>) -> Ty<'_> {
    match ty {
        Ty::Lit(mut values) => {
            if !values.iter().any(|v| v.0.is_null()) {
                values.push(J(&NULL));
            }
            Ty::Lit(values)
        }
        Ty::Any => Ty::Any,
        Ty::Union(mut nodes) => {
            nodes.push(null_node());
            Ty::Union(nodes)
        }
        ty => Ty::Union(vec![
            Node {
                ty,
                ..Node::default()
            },
            null_node(),
        ]),
    }
}

pub(super) fn null_node<'a>() -> Node<'a> {
    Node {
        ty: Ty::Prim {
            prim: Prim::Null,
            format: None,
            notes: Vec::new(),
        },
        ..Node::default()
    }
}

/// Combines the independent parts of one schema (`type`, `$ref`, `anyOf`, `allOf`, ...).
/// Objects are merged into one (the usual `allOf: [{$ref: Base}, {properties..}]` pattern);
/// anything else becomes an intersection.
pub(super) fn intersect(parts: Vec<Node<'_>>) -> Ty<'_> {
    let mut parts: Vec<Node<'_>> = parts
        .into_iter()
        .filter(|p| {
            !(p.ty == Ty::Any && p.doc.is_none() && p.default.is_none() && p.extras.is_empty())
        })
        .collect();
    match parts.len() {
        0 => return Ty::Any,
        1 => return parts.swap_remove(0).ty,
        _ => {}
    }
    if parts.iter().all(|p| matches!(p.ty, Ty::Object(_))) {
        let mut merged = Obj::default();
        for part in parts {
            if let Ty::Object(obj) = part.ty {
                merge_object(&mut merged, *obj);
            }
        }
        return Ty::Object(Box::new(merged));
    }
    Ty::All(parts)
}

pub(super) fn merge_object<'a>(into: &mut Obj<'a>, from: Obj<'a>) {
    for prop in from.props {
        match into.props.iter_mut().find(|p| p.name == prop.name) {
            Some(existing) => {
                existing.required |= prop.required;
                let Node {
                    ty,
                    doc,
                    default,
                    extras,
                } = prop.node;
                if existing.node.ty == Ty::Any {
                    existing.node.ty = ty;
                } else if ty != Ty::Any && ty != existing.node.ty {
                    let first = std::mem::take(&mut existing.node.ty);
                    existing.node.ty = Ty::All(vec![
                        Node {
                            ty: first,
                            ..Node::default()
                        },
                        Node {
                            ty,
                            ..Node::default()
                        },
                    ]);
                }
                if existing.node.doc.is_none() {
                    existing.node.doc = doc;
                }
                if existing.node.default.is_none() {
                    existing.node.default = default;
                }
                for extra in extras {
                    if !existing.node.extras.contains(&extra) {
                        existing.node.extras.push(extra);
                    }
                }
            }
            None => into.props.push(prop),
        }
    }
    into.additional = match (std::mem::take(&mut into.additional), from.additional) {
        (Additional::Closed, _) | (_, Additional::Closed) => Additional::Closed,
        (Additional::Schema(s), _) | (_, Additional::Schema(s)) => Additional::Schema(s),
        (Additional::Open, _) | (_, Additional::Open) => Additional::Open,
        _ => Additional::Unspecified,
    };
    into.patterns.extend(from.patterns);
    if into.key.is_none() {
        into.key = from.key;
    }
    into.notes.extend(from.notes);
}
