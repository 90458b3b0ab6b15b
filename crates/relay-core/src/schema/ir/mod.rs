//! A typed intermediate form of a JSON Schema, built for rendering.
//!
//! Lowering resolves `$ref`s, merges `allOf` objects, turns `type` arrays and `nullable` into
//! unions and keeps every constraint as a note, so the renderer only decides layout. The tree
//! borrows names, descriptions, defaults and literals from the schema (a prompt for a thousand
//! tools would otherwise spend most of its time copying strings), and it is hashable so a
//! catalog of many tools can find the shapes that repeat and name them once.

use std::borrow::Cow;
use std::hash::{Hash, Hasher};

use serde_json::Value;

use super::keywords::{Keywords, K};
use super::refs::{ref_name, resolve};
use combine::{intersect, union, with_null};
use notes::{count_notes, describe, extras, format, implied_kind, number_notes, string_notes};

mod combine;
mod notes;

/// Deeper than this a schema is rendered as `any`: real tool schemas are a handful of levels
/// deep, and the bound keeps hostile schemas from exhausting the stack.
pub(crate) const MAX_DEPTH: usize = 48;

/// Most nodes lowered for one root schema. Non-recursive `$ref`s are expanded where they are
/// used, so a small hostile schema (each definition using the next one twice) would otherwise
/// expand exponentially; real tool schemas have a few hundred nodes.
pub(crate) const MAX_NODES: usize = 8_192;

/// A JSON value borrowed from a schema, compared and hashed by content.
#[derive(Debug, Clone, Copy)]
pub(crate) struct J<'a>(pub &'a Value);

impl PartialEq for J<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0 == other.0
    }
}

impl Eq for J<'_> {}

impl Hash for J<'_> {
    fn hash<H: Hasher>(&self, state: &mut H) {
        hash_value(self.0, state);
    }
}

fn hash_value<H: Hasher>(value: &Value, state: &mut H) {
    match value {
        Value::Null => state.write_u8(0),
        Value::Bool(b) => state.write_u8(1 + u8::from(*b)),
        Value::Number(n) => {
            state.write_u8(3);
            // Consistent with `==`, which compares the representation.
            match (n.as_u64(), n.as_i64(), n.as_f64()) {
                (Some(u), _, _) => state.write_u64(u),
                (None, Some(i), _) => state.write_u64(i as u64),
                (None, None, Some(f)) => state.write_u64(f.to_bits()),
                _ => {}
            }
        }
        Value::String(s) => {
            state.write_u8(4);
            s.hash(state);
        }
        Value::Array(items) => {
            state.write_u8(5);
            state.write_usize(items.len());
            items.iter().for_each(|item| hash_value(item, state));
        }
        Value::Object(map) => {
            state.write_u8(6);
            state.write_usize(map.len());
            for (key, item) in map {
                key.hash(state);
                hash_value(item, state);
            }
        }
    }
}

/// A schema position: its type and the annotations that belong to the position (a property's
/// description and default live here, not in the type, so equal shapes stay equal).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Node<'a> {
    pub ty: Ty<'a>,
    pub doc: Option<Cow<'a, str>>,
    pub default: Option<J<'a>>,
    /// Annotations for the docs line.
    pub extras: Vec<Extra<'a>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Extra<'a> {
    Deprecated,
    ReadOnly,
    WriteOnly,
    Examples(Vec<J<'a>>),
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) enum Prim {
    String,
    Number,
    Integer,
    Boolean,
    Null,
}

impl Prim {
    pub fn name(self) -> &'static str {
        match self {
            Prim::String => "string",
            Prim::Number => "number",
            Prim::Integer => "integer",
            Prim::Boolean => "boolean",
            Prim::Null => "null",
        }
    }
}

/// A constraint, written after its type (`1..10`, `len<=64`, `unique`).
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) enum Note<'a> {
    /// Inclusive numeric range.
    Range(J<'a>, J<'a>),
    /// A one-sided numeric bound; `exclusive` turns `>=` into `>`.
    Min {
        value: J<'a>,
        exclusive: bool,
    },
    Max {
        value: J<'a>,
        exclusive: bool,
    },
    MultipleOf(J<'a>),
    /// String length bounds.
    Len(Option<J<'a>>, Option<J<'a>>),
    Pattern(&'a str),
    /// Item or key count bounds, with their unit (`items`, `keys`).
    Count {
        min: Option<J<'a>>,
        max: Option<J<'a>>,
        unit: &'static str,
    },
    Unique,
    /// `contains`: some item must match.
    Contains(Box<Node<'a>>),
    /// `dependentRequired` (or `dependencies` with a list): `name` present needs `needs`.
    Requires {
        name: &'a str,
        needs: Vec<&'a str>,
    },
    /// `dependentSchemas` (or `dependencies` with a schema): `name` present adds `node`.
    With {
        name: &'a str,
        node: Box<Node<'a>>,
    },
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) enum Ty<'a> {
    #[default]
    Any,
    /// The `false` schema: no value is allowed.
    Never,
    Prim {
        prim: Prim,
        format: Option<&'a str>,
        notes: Vec<Note<'a>>,
    },
    /// A type name we cannot expand (unknown `type` keyword, unresolvable `$ref`).
    Opaque(Cow<'a, str>),
    /// `enum` / `const`: the allowed values.
    Lit(Vec<J<'a>>),
    Array {
        item: Box<Node<'a>>,
        notes: Vec<Note<'a>>,
    },
    Tuple {
        items: Vec<Node<'a>>,
        rest: Option<Box<Node<'a>>>,
        notes: Vec<Note<'a>>,
    },
    Object(Box<Obj<'a>>),
    Union(Vec<Node<'a>>),
    All(Vec<Node<'a>>),
    Not(Box<Node<'a>>),
    Cond {
        when: Box<Node<'a>>,
        then: Option<Box<Node<'a>>>,
        otherwise: Option<Box<Node<'a>>>,
    },
    /// A named definition of the catalog (a recursive `$ref` or a repeated shape).
    Def(usize),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Obj<'a> {
    pub props: Vec<Prop<'a>>,
    pub additional: Additional<'a>,
    /// `patternProperties`: regex and value type.
    pub patterns: Vec<(&'a str, Node<'a>)>,
    /// `propertyNames`: the type of the keys of a map.
    pub key: Option<Box<Node<'a>>>,
    pub notes: Vec<Note<'a>>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) enum Additional<'a> {
    /// Not stated: JSON Schema allows extra keys, but a model should stick to the listed ones.
    #[default]
    Unspecified,
    Closed,
    Open,
    Schema(Box<Node<'a>>),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Prop<'a> {
    pub name: &'a str,
    pub required: bool,
    pub node: Node<'a>,
}

/// A named definition: a `$ref` target that refers to itself, or (in a catalog) a shape that
/// occurs in several places.
#[derive(Debug, Clone)]
pub(crate) struct Def<'a> {
    pub name_hint: String,
    pub node: Node<'a>,
}

/// Lowers schemas; owns the definitions found on the way so ids stay unique across tools.
#[derive(Default)]
pub(crate) struct Lowerer<'a> {
    pub defs: Vec<Def<'a>>,
    /// Problems worth telling the user about (unresolvable refs, depth cut).
    pub problems: Vec<String>,
    /// A description or title was cut ([`crate::prompt::MAX_SCHEMA_TEXT`]) since this was
    /// last reset.
    pub cut: bool,
}

struct Scope<'a> {
    root: &'a Value,
    /// Nodes lowered so far for this root ([`MAX_NODES`]).
    nodes: usize,
    /// `$ref`s being expanded, with the def id they get if they turn out recursive.
    stack: Vec<(&'a str, Option<usize>)>,
}

impl<'a> Lowerer<'a> {
    /// Lowers a tool's whole input schema (the root used to resolve its `$ref`s).
    pub fn lower_root(&mut self, root: &'a Value) -> Node<'a> {
        let mut scope = Scope {
            root,
            nodes: 0,
            stack: Vec::new(),
        };
        self.lower(&mut scope, root, 0)
    }

    fn lower(&mut self, scope: &mut Scope<'a>, schema: &'a Value, depth: usize) -> Node<'a> {
        if depth > MAX_DEPTH {
            self.problems.push(format!(
                "schema deeper than {MAX_DEPTH} levels: the rest is shown as any"
            ));
            return Node::default();
        }
        scope.nodes += 1;
        if scope.nodes > MAX_NODES {
            if scope.nodes == MAX_NODES + 1 {
                self.problems.push(format!(
                    "schema larger than {MAX_NODES} nodes once its $refs are expanded: the rest is shown as any"
                ));
            }
            return Node::default();
        }
        let kw = match schema {
            Value::Object(map) => Keywords::of(map),
            Value::Bool(false) => {
                return Node {
                    ty: Ty::Never,
                    ..Node::default()
                }
            }
            // `true`, and anything that is not a schema, accepts every value.
            _ => return Node::default(),
        };
        let mut node = Node {
            doc: describe(&kw, &mut self.cut),
            default: kw.get(K::Default).map(J),
            extras: extras(&kw),
            ty: Ty::Any,
        };
        let composite = [K::Ref, K::AnyOf, K::OneOf, K::AllOf, K::Not, K::If]
            .iter()
            .any(|k| kw.has(*k));
        if !composite {
            // The common case: one `type` (or enum/const) and its keywords.
            node.ty = self.lower_base(scope, &kw, depth).unwrap_or_default();
        } else {
            node.ty = self.lower_composite(scope, &kw, &mut node, depth);
        }
        if kw.get(K::Nullable) == Some(&Value::Bool(true)) {
            node.ty = with_null(std::mem::take(&mut node.ty));
        }
        node
    }

    /// `$ref`, `anyOf`/`oneOf`, `allOf`, `not`, `if`, beside the schema's own type.
    fn lower_composite(
        &mut self,
        scope: &mut Scope<'a>,
        kw: &Keywords<'a>,
        node: &mut Node<'a>,
        depth: usize,
    ) -> Ty<'a> {
        let mut parts: Vec<Node<'a>> = Vec::new();
        if let Some(Value::String(reference)) = kw.get(K::Ref) {
            let resolved = self.lower_ref(scope, reference, depth);
            if node.doc.is_none() && !matches!(resolved.ty, Ty::Def(_)) {
                node.doc = resolved.doc.clone();
            }
            if node.default.is_none() {
                node.default = resolved.default;
            }
            parts.push(Node {
                ty: resolved.ty,
                ..Node::default()
            });
        }
        if let Some(base) = self.lower_base(scope, kw, depth) {
            parts.push(Node {
                ty: base,
                ..Node::default()
            });
        }
        for key in [K::AnyOf, K::OneOf] {
            if let Some(Value::Array(branches)) = kw.get(key) {
                let nodes: Vec<Node<'a>> = branches
                    .iter()
                    .map(|b| self.lower(scope, b, depth + 1))
                    .collect();
                parts.push(Node {
                    ty: union(nodes),
                    ..Node::default()
                });
            }
        }
        if let Some(Value::Array(all)) = kw.get(K::AllOf) {
            for branch in all {
                let lowered = self.lower(scope, branch, depth + 1);
                if node.doc.is_none() {
                    node.doc = lowered.doc.clone();
                }
                parts.push(lowered);
            }
        }
        if let Some(negated) = kw.get(K::Not) {
            let lowered = self.lower(scope, negated, depth + 1);
            parts.push(Node {
                ty: Ty::Not(Box::new(lowered)),
                ..Node::default()
            });
        }
        if let Some(when) = kw.get(K::If) {
            let when = Box::new(self.lower(scope, when, depth + 1));
            let then = kw
                .get(K::Then)
                .map(|s| Box::new(self.lower(scope, s, depth + 1)));
            let otherwise = kw
                .get(K::Else)
                .map(|s| Box::new(self.lower(scope, s, depth + 1)));
            parts.push(Node {
                ty: Ty::Cond {
                    when,
                    then,
                    otherwise,
                },
                ..Node::default()
            });
        }
        intersect(parts)
    }

    fn lower_ref(&mut self, scope: &mut Scope<'a>, reference: &'a str, depth: usize) -> Node<'a> {
        if let Some(position) = scope.stack.iter().position(|(r, _)| *r == reference) {
            let id = match scope.stack[position].1 {
                Some(id) => id,
                None => {
                    let id = self.defs.len();
                    self.defs.push(Def {
                        name_hint: ref_name(reference),
                        node: Node::default(),
                    });
                    scope.stack[position].1 = Some(id);
                    id
                }
            };
            return Node {
                ty: Ty::Def(id),
                ..Node::default()
            };
        }
        let Some(target) = resolve(scope.root, reference) else {
            self.problems
                .push(format!("cannot resolve $ref {reference:?}"));
            return Node {
                ty: Ty::Opaque(Cow::Owned(ref_name(reference))),
                ..Node::default()
            };
        };
        scope.stack.push((reference, None));
        let lowered = self.lower(scope, target, depth + 1);
        let (_, recursive) = scope.stack.pop().unwrap_or((reference, None));
        match recursive {
            Some(id) => {
                self.defs[id].node = lowered;
                Node {
                    ty: Ty::Def(id),
                    ..Node::default()
                }
            }
            None => lowered,
        }
    }

    /// The part of a schema described by `type`, `enum`/`const` and the type-specific keywords.
    fn lower_base(
        &mut self,
        scope: &mut Scope<'a>,
        kw: &Keywords<'a>,
        depth: usize,
    ) -> Option<Ty<'a>> {
        if let Some(value) = kw.get(K::Const) {
            return Some(Ty::Lit(vec![J(value)]));
        }
        if let Some(Value::Array(values)) = kw.get(K::Enum) {
            return Some(Ty::Lit(values.iter().map(J).collect()));
        }
        match kw.get(K::Type) {
            Some(Value::String(kind)) => Some(self.lower_kind(scope, kind, kw, depth)),
            Some(Value::Array(kinds)) => {
                let nodes = kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|kind| Node {
                        ty: self.lower_kind(scope, kind, kw, depth),
                        ..Node::default()
                    })
                    .collect();
                Some(union(nodes))
            }
            _ => implied_kind(kw).map(|kind| self.lower_kind(scope, kind, kw, depth)),
        }
    }

    fn lower_kind(
        &mut self,
        scope: &mut Scope<'a>,
        kind: &'a str,
        kw: &Keywords<'a>,
        depth: usize,
    ) -> Ty<'a> {
        let prim = |prim, notes| Ty::Prim {
            prim,
            format: format(kw),
            notes,
        };
        match kind {
            "string" => prim(Prim::String, string_notes(kw)),
            "number" => prim(Prim::Number, number_notes(kw)),
            "integer" => prim(Prim::Integer, number_notes(kw)),
            "boolean" => prim(Prim::Boolean, Vec::new()),
            "null" => prim(Prim::Null, Vec::new()),
            "array" => self.lower_array(scope, kw, depth),
            "object" => self.lower_object(scope, kw, depth),
            other => Ty::Opaque(Cow::Borrowed(other)),
        }
    }

    fn lower_array(&mut self, scope: &mut Scope<'a>, kw: &Keywords<'a>, depth: usize) -> Ty<'a> {
        let mut notes = count_notes(kw, K::MinItems, K::MaxItems, "items");
        if kw.get(K::UniqueItems) == Some(&Value::Bool(true)) {
            notes.push(Note::Unique);
        }
        if let Some(contains) = kw.get(K::Contains) {
            let lowered = self.lower(scope, contains, depth + 1);
            notes.push(Note::Contains(Box::new(lowered)));
        }
        // Draft 2020-12 tuples use `prefixItems` + `items`; older drafts `items: [..]` + `additionalItems`.
        let (tuple, rest) = match (kw.get(K::PrefixItems), kw.get(K::Items)) {
            (Some(Value::Array(prefix)), items) => (Some(prefix), items),
            (None, Some(Value::Array(items))) => (Some(items), kw.get(K::AdditionalItems)),
            _ => (None, None),
        };
        if let Some(tuple) = tuple {
            let items = tuple
                .iter()
                .map(|s| self.lower(scope, s, depth + 1))
                .collect();
            let rest = match rest {
                Some(Value::Bool(false)) | None => None,
                Some(schema) => Some(Box::new(self.lower(scope, schema, depth + 1))),
            };
            return Ty::Tuple { items, rest, notes };
        }
        let item = match kw.get(K::Items) {
            Some(schema) => self.lower(scope, schema, depth + 1),
            None => Node::default(),
        };
        Ty::Array {
            item: Box::new(item),
            notes,
        }
    }

    fn lower_object(&mut self, scope: &mut Scope<'a>, kw: &Keywords<'a>, depth: usize) -> Ty<'a> {
        let required: &[Value] = match kw.get(K::Required) {
            Some(Value::Array(names)) => names,
            _ => &[],
        };
        let is_required = |name: &str| required.iter().any(|r| r.as_str() == Some(name));
        let mut props: Vec<Prop<'a>> = Vec::new();
        if let Some(Value::Object(properties)) = kw.get(K::Properties) {
            props.reserve(properties.len());
            for (name, schema) in properties {
                props.push(Prop {
                    name,
                    required: is_required(name),
                    node: self.lower(scope, schema, depth + 1),
                });
            }
        }
        // A required name without a property schema still must be sent: list it as `any`.
        for name in required.iter().filter_map(Value::as_str) {
            if !props.iter().any(|p| p.name == name) {
                props.push(Prop {
                    name,
                    required: true,
                    node: Node::default(),
                });
            }
        }
        let additional = match kw.get(K::AdditionalProperties) {
            None => Additional::Unspecified,
            Some(Value::Bool(false)) => Additional::Closed,
            Some(Value::Bool(true)) => Additional::Open,
            Some(schema) => match self.lower(scope, schema, depth + 1) {
                Node {
                    ty: Ty::Any,
                    doc: None,
                    default: None,
                    extras,
                } if extras.is_empty() => Additional::Open,
                node => Additional::Schema(Box::new(node)),
            },
        };
        let mut patterns = Vec::new();
        if let Some(Value::Object(pattern_props)) = kw.get(K::PatternProperties) {
            for (pattern, schema) in pattern_props {
                patterns.push((pattern.as_str(), self.lower(scope, schema, depth + 1)));
            }
        }
        let key = kw
            .get(K::PropertyNames)
            .map(|s| Box::new(self.lower(scope, s, depth + 1)));
        let mut notes = count_notes(kw, K::MinProperties, K::MaxProperties, "keys");
        for key in [K::DependentRequired, K::Dependencies] {
            if let Some(Value::Object(dependencies)) = kw.get(key) {
                for (name, needs) in dependencies {
                    if let Value::Array(needs) = needs {
                        let needs = needs.iter().filter_map(Value::as_str).collect();
                        notes.push(Note::Requires { name, needs });
                    } else {
                        let node = Box::new(self.lower(scope, needs, depth + 1));
                        notes.push(Note::With { name, node });
                    }
                }
            }
        }
        if let Some(Value::Object(schemas)) = kw.get(K::DependentSchemas) {
            for (name, schema) in schemas {
                let node = Box::new(self.lower(scope, schema, depth + 1));
                notes.push(Note::With { name, node });
            }
        }
        Ty::Object(Box::new(Obj {
            props,
            additional,
            patterns,
            key,
            notes,
        }))
    }
}
