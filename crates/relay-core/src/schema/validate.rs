//! Checks a model's tool arguments against the tool's input schema before anything runs.
//!
//! Models get types slightly wrong all the time (`"5"` for an integer, an object sent as a
//! JSON string). Where the intent is unambiguous the value is coerced and the coercion is
//! reported; everything else becomes a typed error with a path, turned into a short message
//! the model can act on (seed 004: `Missing required parameter 'x' ...`).
//!
//! Deliberately not checked: `pattern` and `format`. Schemas use ECMA-262 regexes and formats
//! are annotations by default; the server stays the authority, and a wrong local rejection
//! would block a valid call.

use std::cell::Cell;

use serde::Serialize;
use serde_json::{Map, Number, Value};

use super::ir;
use super::names::closest_names;
use super::refs::resolve;
use super::text::compact;
use crate::model::Tool;

/// Beyond this nesting (of schema or value) validation stops and accepts: the server still checks.
const MAX_DEPTH: usize = 64;

/// Most schema checks one validation runs. `$ref`s, `allOf`/`anyOf` branches and `not`/`if`
/// trials multiply: a small hostile schema whose branches refer back to the root would take
/// exponential time (and freeze the service worker). Past the budget the remaining checks are
/// skipped, so the server's own validation decides; real schemas use a few hundred.
const MAX_CHECKS: u32 = 100_000;

/// One reason the arguments do not fit the schema. `path` is a JSON pointer into the arguments
/// (`/location/lat`, `/tags/0`; empty for the arguments object itself).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, thiserror::Error)]
#[serde(
    tag = "kind",
    rename_all = "camelCase",
    rename_all_fields = "camelCase"
)]
#[non_exhaustive]
pub enum ValidationError {
    #[error("the arguments must be a JSON object, got {found}")]
    NotAnObject { found: String },
    #[error("missing required parameter '{}'", display_path(path))]
    MissingRequired { path: String },
    #[error("parameter '{}' must be {expected}, got {found}", display_path(path))]
    WrongType {
        path: String,
        expected: String,
        found: String,
    },
    #[error("parameter '{}' must be one of {}; got {found}", display_path(path), allowed.join(", "))]
    NotAllowedValue {
        path: String,
        allowed: Vec<String>,
        found: String,
    },
    #[error("parameter '{}' must be {bound}, got {found}", display_path(path))]
    OutOfRange {
        path: String,
        bound: String,
        found: String,
    },
    #[error("parameter '{}' must have {bound}, it has {found}", display_path(path))]
    WrongSize {
        path: String,
        bound: String,
        found: usize,
    },
    #[error("parameter '{}' must not contain duplicate items", display_path(path))]
    DuplicateItems { path: String },
    #[error("unknown parameter '{}'{}", display_path(path), suggestion.as_ref().map(|s| format!(" (did you mean '{s}'?)")).unwrap_or_default())]
    UnknownParameter {
        path: String,
        suggestion: Option<String>,
    },
    #[error("parameter '{}' must match {expected}", display_path(path))]
    NoMatchingAlternative { path: String, expected: String },
    #[error("parameter '{}' is not allowed here", display_path(path))]
    Forbidden { path: String },
    #[error(
        "parameter '{}' requires '{}'",
        display_path(path),
        display_path(needs)
    )]
    MissingDependency { path: String, needs: String },
}

impl ValidationError {
    /// The JSON pointer of the offending value.
    pub fn path(&self) -> &str {
        match self {
            ValidationError::NotAnObject { .. } => "",
            ValidationError::MissingRequired { path }
            | ValidationError::WrongType { path, .. }
            | ValidationError::NotAllowedValue { path, .. }
            | ValidationError::OutOfRange { path, .. }
            | ValidationError::WrongSize { path, .. }
            | ValidationError::DuplicateItems { path }
            | ValidationError::UnknownParameter { path, .. }
            | ValidationError::NoMatchingAlternative { path, .. }
            | ValidationError::Forbidden { path }
            | ValidationError::MissingDependency { path, .. } => path,
        }
    }

    /// One sentence for the model, naming the tool (seed 004's style).
    pub fn message_for(&self, tool: &str) -> String {
        match self {
            ValidationError::MissingRequired { path } => {
                format!(
                    "Missing required parameter '{}' for tool '{tool}'.",
                    display_path(path)
                )
            }
            other => {
                let text = other.to_string();
                let mut chars = text.chars();
                // Our own English messages: an ASCII capital (Unicode's case tables, ~14 KB of
                // wasm, are not needed for them).
                let first = chars
                    .next()
                    .map(|c| c.to_ascii_uppercase())
                    .unwrap_or_default();
                format!("{first}{} (tool '{tool}').", chars.as_str())
            }
        }
    }
}

/// A value changed to fit the schema, reported so the user can see what was sent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Coercion {
    pub path: String,
    /// What the model sent, as compact JSON.
    pub from: String,
    /// What will be sent instead, as compact JSON.
    pub to: String,
}

/// The outcome of [`validate`]: the arguments to send (coerced) and what was wrong.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Validated {
    pub arguments: Value,
    pub errors: Vec<ValidationError>,
    pub coercions: Vec<Coercion>,
}

impl Validated {
    /// No errors: the (coerced) arguments may be sent.
    pub fn is_valid(&self) -> bool {
        self.errors.is_empty()
    }

    /// The text that goes back to the model when the call is rejected; `None` when valid.
    pub fn message_for_model(&self, tool: &str) -> Option<String> {
        if self.errors.is_empty() {
            return None;
        }
        let mut text = String::new();
        for error in &self.errors {
            text.push_str(&error.message_for(tool));
            text.push('\n');
        }
        text.push_str("The tool was not run. Fix the arguments and call it again.");
        Some(text)
    }
}

/// Validates (and safely coerces) `args` against `tool`'s input schema. Never panics.
///
/// Coercions: a numeric string to a number/integer, an integral float to an integer,
/// `"true"`/`"false"` to a boolean, a number to a string, a JSON string holding an
/// object/array where one is expected, an enum value differing only in case. `null` or a
/// missing arguments value counts as `{}`.
pub fn validate(tool: &Tool, args: &Value) -> Validated {
    let root = &tool.input_schema;
    let mut arguments = match args {
        Value::Null => Value::Object(Map::new()),
        other => other.clone(),
    };
    let budget = Cell::new(MAX_CHECKS);
    let mut checker = Checker {
        root,
        budget: &budget,
        errors: Vec::new(),
        coercions: Vec::new(),
    };
    let mut path = String::new();
    if !arguments.is_object() {
        if let Some(parsed) = parse_json_string(&arguments).filter(Value::is_object) {
            checker.coerce(&path, &mut arguments, parsed);
        } else {
            let found = describe_value(&arguments);
            return Validated {
                arguments,
                errors: vec![ValidationError::NotAnObject { found }],
                coercions: Vec::new(),
            };
        }
    }
    checker.check(root, &mut arguments, &mut path, 0);
    Validated {
        arguments,
        errors: checker.errors,
        coercions: checker.coercions,
    }
}

struct Checker<'a> {
    root: &'a Value,
    /// Checks left, shared with the trials this checker runs ([`MAX_CHECKS`]).
    budget: &'a Cell<u32>,
    errors: Vec<ValidationError>,
    coercions: Vec<Coercion>,
}

impl<'a> Checker<'a> {
    fn coerce(&mut self, path: &str, value: &mut Value, to: Value) {
        self.coercions.push(Coercion {
            path: path.to_owned(),
            from: compact(value),
            to: compact(&to),
        });
        *value = to;
    }

    /// Runs `schema` against a copy of `value`: the errors it would raise and the coerced copy.
    fn trial(
        &self,
        schema: &'a Value,
        value: &Value,
        path: &mut String,
        depth: usize,
    ) -> (Checker<'a>, Value) {
        let mut sub = Checker {
            root: self.root,
            budget: self.budget,
            errors: Vec::new(),
            coercions: Vec::new(),
        };
        let mut copy = value.clone();
        sub.check(schema, &mut copy, path, depth);
        (sub, copy)
    }

    /// Whether `value` satisfies `schema` as it is, without any coercion (for `not`, `if`,
    /// `contains`, where a coerced match would invert the meaning).
    fn matches(&self, schema: &'a Value, value: &Value, path: &mut String, depth: usize) -> bool {
        let (sub, _) = self.trial(schema, value, path, depth);
        sub.errors.is_empty() && sub.coercions.is_empty()
    }

    fn check(&mut self, schema: &'a Value, value: &mut Value, path: &mut String, depth: usize) {
        let left = self.budget.get();
        if depth > MAX_DEPTH || left == 0 {
            return;
        }
        self.budget.set(left - 1);
        let map = match schema {
            Value::Object(map) => map,
            Value::Bool(false) => {
                self.errors
                    .push(ValidationError::Forbidden { path: path.clone() });
                return;
            }
            _ => return,
        };
        if let Some(target) = map
            .get("$ref")
            .and_then(Value::as_str)
            .and_then(|r| resolve(self.root, r))
        {
            self.check(target, value, path, depth + 1);
        }
        if !self.check_type(map, value, path) {
            return;
        }
        self.check_enum(map, value, path);
        match &*value {
            Value::Number(n) => self.check_number(map, n, path),
            Value::String(s) => self.check_length(map, s, path),
            Value::Array(_) => self.check_array(map, value, path, depth),
            Value::Object(_) => self.check_object(map, value, path, depth),
            _ => {}
        }
        self.check_combinators(map, value, path, depth);
    }

    /// Type check with coercion. Returns false when the value has the wrong type (and the
    /// keyword checks that follow would only add noise).
    fn check_type(&mut self, map: &Map<String, Value>, value: &mut Value, path: &str) -> bool {
        let mut types: Vec<&str> = match map.get("type") {
            Some(Value::String(t)) => vec![t.as_str()],
            Some(Value::Array(ts)) => ts.iter().filter_map(Value::as_str).collect(),
            _ => return true,
        };
        if map.get("nullable") == Some(&Value::Bool(true)) {
            types.push("null");
        }
        if types.iter().any(|t| has_type(value, t)) {
            return true;
        }
        for kind in &types {
            if let Some(coerced) = coerce_to(value, kind) {
                self.coerce(path, value, coerced);
                return true;
            }
        }
        self.errors.push(ValidationError::WrongType {
            path: path.to_owned(),
            expected: join_alternatives(&types.iter().map(|t| article(t)).collect::<Vec<_>>()),
            found: describe_value(value),
        });
        false
    }

    fn check_enum(&mut self, map: &Map<String, Value>, value: &mut Value, path: &str) {
        let allowed: Vec<&Value> = match (map.get("enum"), map.get("const")) {
            (_, Some(constant)) => vec![constant],
            (Some(Value::Array(values)), None) => values.iter().collect(),
            _ => return,
        };
        if allowed.iter().any(|a| json_eq(a, value)) {
            return;
        }
        // Same value in another spelling: "5" for 5, "JSON" for "json" (only when unambiguous).
        let matches: Vec<&&Value> = allowed.iter().filter(|a| loosely_equal(a, value)).collect();
        if let [only] = matches.as_slice() {
            let to = (**only).clone();
            self.coerce(path, value, to);
            return;
        }
        self.errors.push(ValidationError::NotAllowedValue {
            path: path.to_owned(),
            allowed: allowed.iter().map(|v| compact(v)).collect(),
            found: compact(value),
        });
    }

    fn check_number(&mut self, map: &Map<String, Value>, n: &Number, path: &str) {
        let Some(x) = n.as_f64() else { return };
        let num = |key: &str| map.get(key).and_then(Value::as_f64);
        let mut fail = |bound: String| {
            self.errors.push(ValidationError::OutOfRange {
                path: path.to_owned(),
                bound,
                found: n.to_string(),
            })
        };
        let exclusive_flag = |key: &str| map.get(key) == Some(&Value::Bool(true));
        if let Some(min) = num("minimum") {
            if exclusive_flag("exclusiveMinimum") && x <= min {
                fail(format!("greater than {}", fmt_num(min)));
            } else if x < min {
                fail(format!("at least {}", fmt_num(min)));
            }
        }
        if let Some(max) = num("maximum") {
            if exclusive_flag("exclusiveMaximum") && x >= max {
                fail(format!("less than {}", fmt_num(max)));
            } else if x > max {
                fail(format!("at most {}", fmt_num(max)));
            }
        }
        if let Some(min) = num("exclusiveMinimum") {
            if x <= min {
                fail(format!("greater than {}", fmt_num(min)));
            }
        }
        if let Some(max) = num("exclusiveMaximum") {
            if x >= max {
                fail(format!("less than {}", fmt_num(max)));
            }
        }
        if let Some(step) = num("multipleOf").filter(|s| *s > 0.0) {
            let ratio = x / step;
            if (ratio - ratio.round()).abs() > 1e-9 * ratio.abs().max(1.0) {
                fail(format!("a multiple of {}", fmt_num(step)));
            }
        }
    }

    fn check_length(&mut self, map: &Map<String, Value>, s: &str, path: &str) {
        let len = s.chars().count();
        self.check_count(map, "minLength", "maxLength", len, "characters", path);
    }

    fn check_count(
        &mut self,
        map: &Map<String, Value>,
        min: &str,
        max: &str,
        found: usize,
        unit: &str,
        path: &str,
    ) {
        let bound = |key: &str| map.get(key).and_then(Value::as_u64);
        let (low, high) = (bound(min), bound(max));
        let too_few = low.is_some_and(|l| (found as u64) < l);
        let too_many = high.is_some_and(|h| (found as u64) > h);
        if too_few || too_many {
            let bound = match (low, high) {
                (Some(l), Some(h)) if l == h => format!("exactly {l} {unit}"),
                (Some(l), Some(h)) => format!("{l} to {h} {unit}"),
                (Some(l), None) => format!("at least {l} {unit}"),
                (None, Some(h)) => format!("at most {h} {unit}"),
                (None, None) => String::new(),
            };
            self.errors.push(ValidationError::WrongSize {
                path: path.to_owned(),
                bound,
                found,
            });
        }
    }

    fn check_array(
        &mut self,
        map: &'a Map<String, Value>,
        value: &mut Value,
        path: &mut String,
        depth: usize,
    ) {
        let Value::Array(items) = value else { return };
        self.check_count(map, "minItems", "maxItems", items.len(), "items", path);
        if map.get("uniqueItems") == Some(&Value::Bool(true)) {
            let duplicate = items
                .iter()
                .enumerate()
                .any(|(i, a)| items[..i].iter().any(|b| json_eq(a, b)));
            if duplicate {
                self.errors
                    .push(ValidationError::DuplicateItems { path: path.clone() });
            }
        }
        let (prefix, rest): (&[Value], Option<&Value>) =
            match (map.get("prefixItems"), map.get("items")) {
                (Some(Value::Array(prefix)), rest) => (prefix, rest),
                (None, Some(Value::Array(tuple))) => (tuple, map.get("additionalItems")),
                (None, rest) => (&[], rest),
                (Some(_), rest) => (&[], rest),
            };
        let len = path.len();
        for (i, item) in items.iter_mut().enumerate() {
            let schema = match prefix.get(i) {
                Some(schema) => schema,
                None => match rest {
                    Some(schema) => schema,
                    None => continue,
                },
            };
            path.push('/');
            path.push_str(&i.to_string());
            self.check(schema, item, path, depth + 1);
            path.truncate(len);
        }
        if let Some(contains) = map.get("contains") {
            let found = items
                .iter()
                .any(|item| self.matches(contains, item, path, depth + 1));
            if !found {
                let expected = format!("a list containing {}", super::render_type(contains));
                self.errors.push(ValidationError::NoMatchingAlternative {
                    path: path.clone(),
                    expected,
                });
            }
        }
    }

    fn check_object(
        &mut self,
        map: &'a Map<String, Value>,
        value: &mut Value,
        path: &mut String,
        depth: usize,
    ) {
        let Value::Object(object) = value else { return };
        let properties = map.get("properties").and_then(Value::as_object);
        let len = path.len();
        if let Some(Value::Array(required)) = map.get("required") {
            for name in required.iter().filter_map(Value::as_str) {
                if !object.contains_key(name) {
                    push_pointer(path, name);
                    self.errors
                        .push(ValidationError::MissingRequired { path: path.clone() });
                    path.truncate(len);
                }
            }
        }
        self.check_count(
            map,
            "minProperties",
            "maxProperties",
            object.len(),
            "properties",
            path,
        );
        for key in ["dependentRequired", "dependencies"] {
            if let Some(Value::Object(dependencies)) = map.get(key) {
                for (name, needs) in dependencies {
                    if !object.contains_key(name) {
                        continue;
                    }
                    for need in needs
                        .as_array()
                        .into_iter()
                        .flatten()
                        .filter_map(Value::as_str)
                    {
                        if !object.contains_key(need) {
                            let mut needs_path = path.clone();
                            push_pointer(&mut needs_path, need);
                            push_pointer(path, name);
                            self.errors.push(ValidationError::MissingDependency {
                                path: path.clone(),
                                needs: needs_path,
                            });
                            path.truncate(len);
                        }
                    }
                }
            }
        }
        let has_patterns = map
            .get("patternProperties")
            .is_some_and(|p| p.as_object().is_some_and(|p| !p.is_empty()));
        let additional = map.get("additionalProperties");
        for (name, item) in object.iter_mut() {
            push_pointer(path, name);
            match properties.and_then(|p| p.get(name)) {
                Some(schema) => self.check(schema, item, path, depth + 1),
                // A key that may match a pattern cannot be judged without a regex engine.
                None if has_patterns => {}
                None => match additional {
                    Some(Value::Bool(false)) => {
                        let candidates = properties
                            .map(|p| p.keys().map(String::as_str).collect::<Vec<_>>())
                            .unwrap_or_default();
                        let suggestion = closest_names(name, candidates, 1)
                            .into_iter()
                            .next()
                            .map(str::to_owned);
                        self.errors.push(ValidationError::UnknownParameter {
                            path: path.clone(),
                            suggestion,
                        });
                    }
                    Some(schema @ Value::Object(_)) => self.check(schema, item, path, depth + 1),
                    _ => {}
                },
            }
            path.truncate(len);
        }
    }

    fn check_combinators(
        &mut self,
        map: &'a Map<String, Value>,
        value: &mut Value,
        path: &mut String,
        depth: usize,
    ) {
        if let Some(Value::Array(all)) = map.get("allOf") {
            for schema in all {
                self.check(schema, value, path, depth + 1);
            }
        }
        // `oneOf` is treated like `anyOf`: overlapping branches are a common authoring slip,
        // and rejecting a value the server would accept helps nobody.
        for key in ["anyOf", "oneOf"] {
            if let Some(Value::Array(branches)) = map.get(key) {
                self.check_any(branches, value, path, depth);
            }
        }
        if let Some(negated) = map.get("not") {
            if self.matches(negated, value, path, depth + 1) {
                self.errors
                    .push(ValidationError::Forbidden { path: path.clone() });
            }
        }
        if let Some(condition) = map.get("if") {
            let holds = self.matches(condition, value, path, depth + 1);
            let branch = if holds {
                map.get("then")
            } else {
                map.get("else")
            };
            if let Some(branch) = branch {
                self.check(branch, value, path, depth + 1);
            }
        }
    }

    fn check_any(
        &mut self,
        branches: &'a [Value],
        value: &mut Value,
        path: &mut String,
        depth: usize,
    ) {
        if branches.is_empty() {
            return;
        }
        let mut first_coerced: Option<(Checker<'a>, Value)> = None;
        for branch in branches {
            let (sub, coerced) = self.trial(branch, value, path, depth + 1);
            if sub.errors.is_empty() {
                if sub.coercions.is_empty() {
                    return;
                }
                if first_coerced.is_none() {
                    first_coerced = Some((sub, coerced));
                }
            }
        }
        match first_coerced {
            Some((sub, coerced)) => {
                self.coercions.extend(sub.coercions);
                *value = coerced;
            }
            None => {
                let union = Value::Object(Map::from_iter([(
                    "anyOf".to_owned(),
                    Value::Array(branches.to_vec()),
                )]));
                let expected = super::render::inline(
                    &ir::Lowerer::default().lower_root(&with_defs(self.root, union)),
                    &[],
                );
                self.errors.push(ValidationError::NoMatchingAlternative {
                    path: path.clone(),
                    expected,
                });
            }
        }
    }
}

/// A schema carrying the root's definitions, so a `$ref` in a branch still renders by name.
fn with_defs(root: &Value, mut schema: Value) -> Value {
    if let (Value::Object(target), Value::Object(root)) = (&mut schema, root) {
        for key in ["$defs", "definitions"] {
            if let Some(defs) = root.get(key) {
                target.insert(key.to_owned(), defs.clone());
            }
        }
    }
    schema
}

fn push_pointer(path: &mut String, name: &str) {
    path.push('/');
    for c in name.chars() {
        match c {
            '~' => path.push_str("~0"),
            '/' => path.push_str("~1"),
            c => path.push(c),
        }
    }
}

/// A JSON pointer as a model reads it: `/location/lat` → `location.lat`, `/tags/0` → `tags[0]`.
pub fn display_path(pointer: &str) -> String {
    let mut out = String::with_capacity(pointer.len());
    for segment in pointer.split('/').skip(1) {
        let segment = segment.replace("~1", "/").replace("~0", "~");
        if !segment.is_empty() && segment.bytes().all(|b| b.is_ascii_digit()) && !out.is_empty() {
            out.push('[');
            out.push_str(&segment);
            out.push(']');
        } else {
            if !out.is_empty() {
                out.push('.');
            }
            out.push_str(&segment);
        }
    }
    out
}

fn has_type(value: &Value, kind: &str) -> bool {
    match kind {
        "string" => value.is_string(),
        "number" => value.is_number(),
        "integer" => value.as_i64().is_some() || value.as_u64().is_some(),
        "boolean" => value.is_boolean(),
        "null" => value.is_null(),
        "array" => value.is_array(),
        "object" => value.is_object(),
        // An unknown type name constrains nothing we understand.
        _ => true,
    }
}

/// The safe coercions (see [`validate`]).
fn coerce_to(value: &Value, kind: &str) -> Option<Value> {
    match (kind, value) {
        ("integer", Value::Number(n)) => integral(n.as_f64()?),
        ("integer", Value::String(s)) => match parse_number(s)? {
            Value::Number(n) if n.is_i64() || n.is_u64() => Some(Value::Number(n)),
            Value::Number(n) => integral(n.as_f64()?),
            _ => None,
        },
        ("number", Value::String(s)) => parse_number(s),
        ("boolean", Value::String(s)) => match s.trim().to_ascii_lowercase().as_str() {
            "true" => Some(Value::Bool(true)),
            "false" => Some(Value::Bool(false)),
            _ => None,
        },
        ("string", Value::Number(n)) => Some(Value::String(n.to_string())),
        ("object", Value::String(_)) => parse_json_string(value).filter(Value::is_object),
        ("array", Value::String(_)) => parse_json_string(value).filter(Value::is_array),
        _ => None,
    }
}

fn integral(x: f64) -> Option<Value> {
    // Within ±2^53 every integral f64 is exact.
    (x.fract() == 0.0 && x.abs() <= 9_007_199_254_740_992.0)
        .then(|| Value::Number(Number::from(x as i64)))
}

fn parse_number(s: &str) -> Option<Value> {
    let trimmed = s.trim();
    if trimmed.is_empty()
        || !trimmed
            .bytes()
            .all(|b| b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E'))
    {
        return None;
    }
    match serde_json::from_str::<Value>(trimmed.trim_start_matches('+')) {
        Ok(Value::Number(n)) if n.as_f64().is_some_and(f64::is_finite) => Some(Value::Number(n)),
        _ => None,
    }
}

fn parse_json_string(value: &Value) -> Option<Value> {
    let text = value.as_str()?.trim();
    if !(text.starts_with('{') || text.starts_with('[')) {
        return None;
    }
    serde_json::from_str(text).ok()
}

/// JSON equality where `1` equals `1.0` (serde_json keeps them apart).
fn json_eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => {
            x == y || x.as_f64().zip(y.as_f64()).is_some_and(|(x, y)| x == y)
        }
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(a, b)| json_eq(a, b))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len()
                && x.iter()
                    .all(|(k, v)| y.get(k).is_some_and(|w| json_eq(v, w)))
        }
        _ => a == b,
    }
}

fn loosely_equal(allowed: &Value, value: &Value) -> bool {
    match (allowed, value) {
        (Value::String(a), Value::String(v)) => a.eq_ignore_ascii_case(v.trim()),
        (Value::Number(_), Value::String(s)) => {
            parse_number(s).is_some_and(|n| json_eq(allowed, &n))
        }
        (Value::Bool(b), Value::String(s)) => {
            s.trim()
                .eq_ignore_ascii_case(if *b { "true" } else { "false" })
        }
        (Value::String(a), Value::Number(n)) => *a == n.to_string(),
        _ => false,
    }
}

fn describe_value(value: &Value) -> String {
    let text = compact(value);
    let kind = match value {
        Value::Null => return "null".to_owned(),
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    };
    if text.chars().count() > 40 {
        let cut: String = text.chars().take(37).collect();
        format!("{kind} {cut}...")
    } else {
        format!("{kind} {text}")
    }
}

fn article(kind: &str) -> String {
    match kind {
        "integer" | "array" | "object" => format!("an {kind}"),
        "null" => "null".to_owned(),
        _ => format!("a {kind}"),
    }
}

fn join_alternatives(items: &[String]) -> String {
    match items {
        [] => String::new(),
        [one] => one.clone(),
        [init @ .., last] => format!("{} or {last}", init.join(", ")),
    }
}

/// A number as a message shows it: whole when whole, else shortest round-trip digits.
pub(crate) fn fmt_num(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        // serde_json's shortest round-trip printer (already in the module), not core's float
        // `Display` (~14 KB of wasm): the same digits, an exponent only for extreme magnitudes.
        serde_json::Number::from_f64(x).map_or_else(|| "NaN".to_owned(), |n| n.to_string())
    }
}
