//! A typed intermediate form of a JSON Schema, built for rendering.
//!
//! Lowering resolves `$ref`s, merges `allOf` objects, turns `type` arrays and `nullable` into
//! unions and keeps every constraint as a short note, so the renderer only decides layout. The
//! tree is hashable so a catalog of many tools can find shapes that repeat and name them once.

use serde_json::{Map, Value};

/// Deeper than this a schema is rendered as `any`: real tool schemas are a handful of levels
/// deep, and the bound keeps hostile schemas from exhausting the stack.
pub(crate) const MAX_DEPTH: usize = 48;

/// A schema position: its type and the annotations that belong to the position (a property's
/// description and default live here, not in the type, so equal shapes stay equal).
#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Node {
    pub ty: Ty,
    pub doc: Option<String>,
    /// Compact JSON of `default`.
    pub default: Option<String>,
    /// Annotations for the docs line: examples, deprecated, read/write-only.
    pub extras: Vec<String>,
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

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) enum Ty {
    #[default]
    Any,
    /// The `false` schema: no value is allowed.
    Never,
    Prim {
        prim: Prim,
        format: Option<String>,
        notes: Vec<String>,
    },
    /// A type name we cannot expand (unknown `type` keyword, unresolvable `$ref`).
    Opaque(String),
    /// `enum` / `const`: compact JSON of each allowed value.
    Lit(Vec<String>),
    Array {
        item: Box<Node>,
        notes: Vec<String>,
    },
    Tuple {
        items: Vec<Node>,
        rest: Option<Box<Node>>,
        notes: Vec<String>,
    },
    Object(Box<Obj>),
    Union(Vec<Node>),
    All(Vec<Node>),
    Not(Box<Node>),
    Cond {
        when: Box<Node>,
        then: Option<Box<Node>>,
        otherwise: Option<Box<Node>>,
    },
    /// A named definition of the catalog (a recursive `$ref` or a repeated shape).
    Def(usize),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) struct Obj {
    pub props: Vec<Prop>,
    pub additional: Additional,
    /// `patternProperties`: regex and value type.
    pub patterns: Vec<(String, Node)>,
    /// `propertyNames`: the type of the keys of a map.
    pub key: Option<Box<Node>>,
    pub notes: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Hash, Default)]
pub(crate) enum Additional {
    /// Not stated: JSON Schema allows extra keys, but a model should stick to the listed ones.
    #[default]
    Unspecified,
    Closed,
    Open,
    Schema(Box<Node>),
}

#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub(crate) struct Prop {
    pub name: String,
    pub required: bool,
    pub node: Node,
}

/// A definition produced while lowering: a `$ref` target that refers to itself.
#[derive(Debug, Clone)]
pub(crate) struct RecursiveDef {
    pub name_hint: String,
    pub node: Node,
}

/// Lowers schemas; owns the definitions found on the way so ids stay unique across tools.
#[derive(Default)]
pub(crate) struct Lowerer {
    pub defs: Vec<RecursiveDef>,
    /// Problems worth telling the user about (unresolvable refs, depth cut).
    pub problems: Vec<String>,
}

struct Scope<'a> {
    root: &'a Value,
    /// `$ref`s being expanded, with the def id they get if they turn out recursive.
    stack: Vec<(&'a str, Option<usize>)>,
}

impl Lowerer {
    /// Lowers a tool's whole input schema (the root used to resolve its `$ref`s).
    pub fn lower_root(&mut self, root: &Value) -> Node {
        let mut scope = Scope { root, stack: Vec::new() };
        self.lower(&mut scope, root, 0)
    }

    fn lower<'a>(&mut self, scope: &mut Scope<'a>, schema: &'a Value, depth: usize) -> Node {
        if depth > MAX_DEPTH {
            self.problems.push(format!("schema deeper than {MAX_DEPTH} levels: the rest is shown as any"));
            return Node::default();
        }
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(false) => return Node { ty: Ty::Never, ..Node::default() },
            // `true`, and anything that is not a schema, accepts every value.
            _ => return Node::default(),
        };
        let mut node = Node {
            doc: describe(map),
            default: map.get("default").map(compact),
            extras: extras(map),
            ty: Ty::Any,
        };
        let mut parts: Vec<Node> = Vec::new();

        if let Some(Value::String(reference)) = map.get("$ref") {
            let resolved = self.lower_ref(scope, reference, depth);
            if node.doc.is_none() && !matches!(resolved.ty, Ty::Def(_)) {
                node.doc = resolved.doc.clone();
            }
            if node.default.is_none() {
                node.default = resolved.default.clone();
            }
            parts.push(Node { ty: resolved.ty, ..Node::default() });
        }
        if let Some(base) = self.lower_base(scope, map, depth) {
            parts.push(Node { ty: base, ..Node::default() });
        }
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                let nodes: Vec<Node> = branches.iter().map(|b| self.lower(scope, b, depth + 1)).collect();
                parts.push(Node { ty: union(nodes), ..Node::default() });
            }
        }
        if let Some(Value::Array(all)) = map.get("allOf") {
            for branch in all {
                let lowered = self.lower(scope, branch, depth + 1);
                if node.doc.is_none() {
                    node.doc = lowered.doc.clone();
                }
                parts.push(lowered);
            }
        }
        if let Some(negated) = map.get("not") {
            let lowered = self.lower(scope, negated, depth + 1);
            parts.push(Node { ty: Ty::Not(Box::new(lowered)), ..Node::default() });
        }
        if let Some(when) = map.get("if") {
            let when = Box::new(self.lower(scope, when, depth + 1));
            let then = map.get("then").map(|s| Box::new(self.lower(scope, s, depth + 1)));
            let otherwise = map.get("else").map(|s| Box::new(self.lower(scope, s, depth + 1)));
            parts.push(Node { ty: Ty::Cond { when, then, otherwise }, ..Node::default() });
        }
        node.ty = intersect(parts);
        if map.get("nullable") == Some(&Value::Bool(true)) {
            node.ty = with_null(std::mem::take(&mut node.ty));
        }
        node
    }

    fn lower_ref<'a>(&mut self, scope: &mut Scope<'a>, reference: &'a str, depth: usize) -> Node {
        let name = ref_name(reference);
        if let Some(position) = scope.stack.iter().position(|(r, _)| *r == reference) {
            let id = match scope.stack[position].1 {
                Some(id) => id,
                None => {
                    let id = self.defs.len();
                    self.defs.push(RecursiveDef { name_hint: name.clone(), node: Node::default() });
                    scope.stack[position].1 = Some(id);
                    id
                }
            };
            return Node { ty: Ty::Def(id), ..Node::default() };
        }
        let Some(target) = resolve(scope.root, reference) else {
            self.problems.push(format!("cannot resolve $ref {reference:?}"));
            return Node { ty: Ty::Opaque(name), ..Node::default() };
        };
        scope.stack.push((reference, None));
        let lowered = self.lower(scope, target, depth + 1);
        let (_, recursive) = scope.stack.pop().unwrap_or((reference, None));
        match recursive {
            Some(id) => {
                self.defs[id].node = lowered;
                Node { ty: Ty::Def(id), ..Node::default() }
            }
            None => lowered,
        }
    }

    /// The part of a schema described by `type`, `enum`/`const` and the type-specific keywords.
    fn lower_base<'a>(&mut self, scope: &mut Scope<'a>, map: &'a Map<String, Value>, depth: usize) -> Option<Ty> {
        if let Some(value) = map.get("const") {
            return Some(Ty::Lit(vec![compact(value)]));
        }
        if let Some(Value::Array(values)) = map.get("enum") {
            return Some(Ty::Lit(values.iter().map(compact).collect()));
        }
        match map.get("type") {
            Some(Value::String(kind)) => Some(self.lower_kind(scope, kind, map, depth)),
            Some(Value::Array(kinds)) => {
                let nodes = kinds
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|kind| Node { ty: self.lower_kind(scope, kind, map, depth), ..Node::default() })
                    .collect();
                Some(union(nodes))
            }
            _ => implied_kind(map).map(|kind| self.lower_kind(scope, kind, map, depth)),
        }
    }

    fn lower_kind<'a>(&mut self, scope: &mut Scope<'a>, kind: &str, map: &'a Map<String, Value>, depth: usize) -> Ty {
        let prim = |prim, notes| Ty::Prim { prim, format: format(map), notes };
        match kind {
            "string" => prim(Prim::String, string_notes(map)),
            "number" => prim(Prim::Number, number_notes(map)),
            "integer" => prim(Prim::Integer, number_notes(map)),
            "boolean" => prim(Prim::Boolean, Vec::new()),
            "null" => prim(Prim::Null, Vec::new()),
            "array" => self.lower_array(scope, map, depth),
            "object" => self.lower_object(scope, map, depth),
            other => Ty::Opaque(other.to_owned()),
        }
    }

    fn lower_array<'a>(&mut self, scope: &mut Scope<'a>, map: &'a Map<String, Value>, depth: usize) -> Ty {
        let mut notes = count_notes(map, "minItems", "maxItems", "items");
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            notes.push("unique".to_owned());
        }
        if let Some(contains) = map.get("contains") {
            let lowered = self.lower(scope, contains, depth + 1);
            notes.push(format!("contains {}", super::render::inline(&lowered, &[])));
        }
        // Draft 2020-12 tuples use `prefixItems` + `items`; older drafts `items: [..]` + `additionalItems`.
        let (tuple, rest) = match (map.get("prefixItems"), map.get("items")) {
            (Some(Value::Array(prefix)), items) => (Some(prefix), items),
            (None, Some(Value::Array(items))) => (Some(items), map.get("additionalItems")),
            _ => (None, None),
        };
        if let Some(tuple) = tuple {
            let items = tuple.iter().map(|s| self.lower(scope, s, depth + 1)).collect();
            let rest = match rest {
                Some(Value::Bool(false)) | None => None,
                Some(schema) => Some(Box::new(self.lower(scope, schema, depth + 1))),
            };
            return Ty::Tuple { items, rest, notes };
        }
        let item = match map.get("items") {
            Some(schema) => self.lower(scope, schema, depth + 1),
            None => Node::default(),
        };
        Ty::Array { item: Box::new(item), notes }
    }

    fn lower_object<'a>(&mut self, scope: &mut Scope<'a>, map: &'a Map<String, Value>, depth: usize) -> Ty {
        let required: Vec<&str> = match map.get("required") {
            Some(Value::Array(names)) => names.iter().filter_map(Value::as_str).collect(),
            _ => Vec::new(),
        };
        let mut props: Vec<Prop> = Vec::new();
        if let Some(Value::Object(properties)) = map.get("properties") {
            for (name, schema) in properties {
                props.push(Prop {
                    name: name.clone(),
                    required: required.contains(&name.as_str()),
                    node: self.lower(scope, schema, depth + 1),
                });
            }
        }
        // A required name without a property schema still must be sent: list it as `any`.
        for name in &required {
            if !props.iter().any(|p| p.name == *name) {
                props.push(Prop { name: (*name).to_owned(), required: true, node: Node::default() });
            }
        }
        let additional = match map.get("additionalProperties") {
            None => Additional::Unspecified,
            Some(Value::Bool(false)) => Additional::Closed,
            Some(Value::Bool(true)) => Additional::Open,
            Some(schema) => match self.lower(scope, schema, depth + 1) {
                Node { ty: Ty::Any, doc: None, default: None, extras } if extras.is_empty() => Additional::Open,
                node => Additional::Schema(Box::new(node)),
            },
        };
        let mut patterns = Vec::new();
        if let Some(Value::Object(pattern_props)) = map.get("patternProperties") {
            for (pattern, schema) in pattern_props {
                patterns.push((pattern.clone(), self.lower(scope, schema, depth + 1)));
            }
        }
        let key = map.get("propertyNames").map(|s| Box::new(self.lower(scope, s, depth + 1)));
        let mut notes = count_notes(map, "minProperties", "maxProperties", "keys");
        for key in ["dependentRequired", "dependencies"] {
            if let Some(Value::Object(dependencies)) = map.get(key) {
                for (name, needs) in dependencies {
                    if let Value::Array(needs) = needs {
                        let needs: Vec<&str> = needs.iter().filter_map(Value::as_str).collect();
                        notes.push(format!("{name} requires {}", needs.join(", ")));
                    } else {
                        let lowered = self.lower(scope, needs, depth + 1);
                        notes.push(format!("with {name}: {}", super::render::inline(&lowered, &[])));
                    }
                }
            }
        }
        if let Some(Value::Object(schemas)) = map.get("dependentSchemas") {
            for (name, schema) in schemas {
                let lowered = self.lower(scope, schema, depth + 1);
                notes.push(format!("with {name}: {}", super::render::inline(&lowered, &[])));
            }
        }
        Ty::Object(Box::new(Obj { props, additional, patterns, key, notes }))
    }
}

/// Resolves a local JSON pointer reference (`#`, `#/$defs/X`, `#/definitions/X`, any `#/...`).
pub(crate) fn resolve<'a>(root: &'a Value, reference: &str) -> Option<&'a Value> {
    let pointer = reference.strip_prefix('#')?;
    if pointer.is_empty() {
        return Some(root);
    }
    root.pointer(&percent_decode(pointer))
}

/// `$ref` fragments are URI-encoded (`%24defs`); JSON pointers are not.
fn percent_decode(text: &str) -> String {
    if !text.contains('%') {
        return text.to_owned();
    }
    let bytes = text.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i] == b'%' && i + 2 < bytes.len() {
            let hex = std::str::from_utf8(&bytes[i + 1..i + 3]).ok().and_then(|h| u8::from_str_radix(h, 16).ok());
            if let Some(byte) = hex {
                out.push(byte);
                i += 3;
                continue;
            }
        }
        out.push(bytes[i]);
        i += 1;
    }
    String::from_utf8(out).unwrap_or_else(|_| text.to_owned())
}

/// The name a reference is shown under: its last path segment (`#/$defs/Node` → `Node`).
pub(crate) fn ref_name(reference: &str) -> String {
    // `#` is the whole schema: a tool whose arguments nest themselves.
    let last = reference.rsplit(['/', '#']).find(|s| !s.is_empty()).unwrap_or("Root");
    let name = last.replace("~1", "/").replace("~0", "~");
    if name.is_empty() {
        "Ref".to_owned()
    } else {
        name
    }
}

fn implied_kind(map: &Map<String, Value>) -> Option<&'static str> {
    let has = |keys: &[&str]| keys.iter().any(|k| map.contains_key(*k));
    if has(&["properties", "additionalProperties", "patternProperties", "required", "propertyNames"]) {
        Some("object")
    } else if has(&["items", "prefixItems", "minItems", "maxItems", "uniqueItems", "contains"]) {
        Some("array")
    } else if has(&["minLength", "maxLength", "pattern"]) {
        Some("string")
    } else if has(&["minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"]) {
        Some("number")
    } else {
        None
    }
}

/// Collapses whitespace so multi-line descriptions take one line and no blank-line tokens.
pub(crate) fn normalize_ws(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !out.is_empty() {
            out.push(' ');
        }
        out.push_str(word);
    }
    out
}

fn describe(map: &Map<String, Value>) -> Option<String> {
    let description = map.get("description").and_then(Value::as_str).map(normalize_ws).filter(|d| !d.is_empty());
    let title = map.get("title").and_then(Value::as_str).map(normalize_ws).filter(|t| !t.is_empty());
    match (title, description) {
        (Some(title), Some(description)) if !description.starts_with(&title) => Some(format!("{title}: {description}")),
        (_, Some(description)) => Some(description),
        (title, None) => title,
    }
}

fn extras(map: &Map<String, Value>) -> Vec<String> {
    let mut extras = Vec::new();
    if map.get("deprecated") == Some(&Value::Bool(true)) {
        extras.push("deprecated".to_owned());
    }
    if map.get("readOnly") == Some(&Value::Bool(true)) {
        extras.push("read-only".to_owned());
    }
    if map.get("writeOnly") == Some(&Value::Bool(true)) {
        extras.push("write-only".to_owned());
    }
    let examples: Vec<String> = match (map.get("examples"), map.get("example")) {
        (Some(Value::Array(examples)), _) => examples.iter().map(compact).collect(),
        (_, Some(example)) => vec![compact(example)],
        _ => Vec::new(),
    };
    if !examples.is_empty() {
        extras.push(format!("e.g. {}", examples.join(", ")));
    }
    extras
}

fn format(map: &Map<String, Value>) -> Option<String> {
    map.get("format")
        .or_else(|| map.get("contentEncoding"))
        .or_else(|| map.get("contentMediaType"))
        .and_then(Value::as_str)
        .map(str::to_owned)
}

fn string_notes(map: &Map<String, Value>) -> Vec<String> {
    let mut notes = Vec::new();
    if let Some(range) = range_note(map.get("minLength"), map.get("maxLength")) {
        notes.push(format!("len{range}"));
    }
    if let Some(Value::String(pattern)) = map.get("pattern") {
        notes.push(format!("/{pattern}/"));
    }
    notes
}

fn number_notes(map: &Map<String, Value>) -> Vec<String> {
    let mut notes = Vec::new();
    let num = |key: &str| map.get(key).filter(|v| v.is_number());
    // Draft 4 spells exclusivity as a boolean beside minimum/maximum; later drafts as a number.
    let (mut low, mut low_excl) = (num("minimum"), false);
    match map.get("exclusiveMinimum") {
        Some(Value::Bool(true)) => low_excl = low.is_some(),
        Some(v @ Value::Number(_)) => (low, low_excl) = (Some(v), true),
        _ => {}
    }
    let (mut high, mut high_excl) = (num("maximum"), false);
    match map.get("exclusiveMaximum") {
        Some(Value::Bool(true)) => high_excl = high.is_some(),
        Some(v @ Value::Number(_)) => (high, high_excl) = (Some(v), true),
        _ => {}
    }
    match (low, high) {
        (Some(l), Some(h)) if !low_excl && !high_excl => notes.push(format!("{}..{}", compact(l), compact(h))),
        _ => {
            if let Some(l) = low {
                notes.push(format!("{}{}", if low_excl { ">" } else { ">=" }, compact(l)));
            }
            if let Some(h) = high {
                notes.push(format!("{}{}", if high_excl { "<" } else { "<=" }, compact(h)));
            }
        }
    }
    if let Some(step) = num("multipleOf") {
        notes.push(format!("multipleOf {}", compact(step)));
    }
    notes
}

/// `min..max unit`, `>=min unit`, `<=max unit` for the counting keywords.
fn count_notes(map: &Map<String, Value>, min: &str, max: &str, unit: &str) -> Vec<String> {
    match (map.get(min).filter(|v| v.is_number()), map.get(max).filter(|v| v.is_number())) {
        (None, None) => Vec::new(),
        (Some(l), Some(h)) if l == h => vec![format!("{} {unit}", compact(l))],
        (l, h) => {
            let range = range_note(l, h).unwrap_or_default();
            vec![format!("{} {unit}", range.trim_start())]
        }
    }
}

fn range_note(low: Option<&Value>, high: Option<&Value>) -> Option<String> {
    let low = low.filter(|v| v.is_number());
    let high = high.filter(|v| v.is_number());
    match (low, high) {
        (Some(l), Some(h)) => Some(format!(" {}..{}", compact(l), compact(h))),
        (Some(l), None) => Some(format!(">={}", compact(l))),
        (None, Some(h)) => Some(format!("<={}", compact(h))),
        (None, None) => None,
    }
}

/// Compact JSON, the way values appear in a prompt (`"en"`, `3`, `[1,2]`).
pub(crate) fn compact(value: &Value) -> String {
    serde_json::to_string(value).unwrap_or_default()
}

/// Flattens nested unions and merges literal lists (`"a"|"b"` stays one literal union).
fn union(nodes: Vec<Node>) -> Ty {
    let mut flat: Vec<Node> = Vec::with_capacity(nodes.len());
    for node in nodes {
        match node {
            Node { ty: Ty::Union(inner), doc: None, default: None, ref extras } if extras.is_empty() => {
                flat.extend(inner)
            }
            node => flat.push(node),
        }
    }
    if flat.iter().any(|n| n.ty == Ty::Any && n.doc.is_none()) {
        return Ty::Any;
    }
    if flat.len() > 1 && flat.iter().all(|n| matches!(n.ty, Ty::Lit(_)) && n.doc.is_none()) {
        let mut values = Vec::new();
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

fn with_null(ty: Ty) -> Ty {
    match ty {
        Ty::Lit(mut values) => {
            if !values.iter().any(|v| v == "null") {
                values.push("null".to_owned());
            }
            Ty::Lit(values)
        }
        Ty::Any => Ty::Any,
        Ty::Union(mut nodes) => {
            nodes.push(null_node());
            Ty::Union(nodes)
        }
        ty => Ty::Union(vec![Node { ty, ..Node::default() }, null_node()]),
    }
}

fn null_node() -> Node {
    Node { ty: Ty::Prim { prim: Prim::Null, format: None, notes: Vec::new() }, ..Node::default() }
}

/// Combines the independent parts of one schema (`type`, `$ref`, `anyOf`, `allOf`, ...).
/// Objects are merged into one (the usual `allOf: [{$ref: Base}, {properties..}]` pattern);
/// anything else becomes an intersection.
fn intersect(parts: Vec<Node>) -> Ty {
    let parts: Vec<Node> = parts
        .into_iter()
        .filter(|p| !(p.ty == Ty::Any && p.doc.is_none() && p.default.is_none() && p.extras.is_empty()))
        .collect();
    if parts.is_empty() {
        return Ty::Any;
    }
    if parts.len() == 1 {
        let part = parts.into_iter().next().unwrap_or_default();
        return part.ty;
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

fn merge_object(into: &mut Obj, from: Obj) {
    for prop in from.props {
        match into.props.iter_mut().find(|p| p.name == prop.name) {
            Some(existing) => {
                existing.required |= prop.required;
                let Node { ty, doc, default, extras } = prop.node;
                if existing.node.ty == Ty::Any {
                    existing.node.ty = ty;
                } else if ty != Ty::Any && ty != existing.node.ty {
                    let first = std::mem::take(&mut existing.node.ty);
                    existing.node.ty = Ty::All(vec![Node { ty: first, ..Node::default() }, Node { ty, ..Node::default() }]);
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
