//! Elicitation (MCP 2025-11-25 `elicitation/create`), the pure part: reading a server's
//! request, describing its form for the side panel, and building the answer — SEP-1034's
//! defaults applied to the fields the user left empty (an empty string is left empty), the
//! content checked against the requested schema (flat object of string, number, integer,
//! boolean, enum and multi-select fields, with their bounds and the string formats the
//! specification lists: `email`, `uri`, `date`, `date-time`) before it is sent, and the URL
//! mode that asks the user to open a page. A `pattern` (ECMA-262) is checked by the side panel
//! with the browser's own engine, and here with [`crate::pattern`] (its common subset; a
//! pattern beyond it is left to the server).
//!
//! The client declares the capability and hands the request over (`client::SessionEvent::
//! Request`); `app` keeps it until the user answers in the side panel.

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use thiserror::Error;

use crate::link::{Link, LinkError};

/// Why an elicitation request or answer is unusable.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
#[non_exhaustive]
pub enum ElicitError {
    #[error("the elicitation request is malformed: {0}")]
    Malformed(&'static str),
    #[error("field `{field}`: {problem}")]
    Field { field: String, problem: String },
    /// A required field left empty (no value, an empty string, no item picked) with no default.
    #[error("field `{0}` is required")]
    Required(String),
    #[error("the URL elicitation is refused: {0}")]
    Link(LinkError),
}

/// One field of a form elicitation (read back by the second module, `crate::rare`, which
/// checks an answer against it).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(rename_all = "camelCase")]
#[non_exhaustive]
pub struct Field {
    pub name: String,
    /// `string`, `number`, `integer` or `boolean`.
    pub kind: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub title: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    pub required: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub default: Option<Value>,
    /// The allowed values of an enum field (of each item, for `array`: a multi-select).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub options: Option<Vec<Value>>,
    /// Bounds: of the value for `number` and `integer`, of the length for `string`, of the
    /// number of items for `array` (`minimum`/`maximum`, `minLength`/`maxLength`,
    /// `minItems`/`maxItems`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max: Option<f64>,
    /// A string's `format` (`email`, `uri`, `date`, `date-time`; others are not checked).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub format: Option<String>,
    /// A string's `pattern` (ECMA-262), checked by the side panel and by [`crate::pattern`].
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pattern: Option<String>,
    /// What kind of secret the field's name, title or description asks for (`password`,
    /// `token`, `API key`, `secret`, `card number`), which servers must not ask for in a form
    /// (MCP 2025-11-25): the side panel warns next to it.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub secret: Option<String>,
}

/// A server's `elicitation/create` request, as read (in the second module, `crate::rare`, and
/// read back through one flat struct, [`RequestWire`], not serde's buffered tagged-enum path).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[cfg_attr(feature = "ts", derive(ts_rs::TS))]
#[serde(tag = "mode", rename_all = "camelCase", try_from = "RequestWire")]
#[non_exhaustive]
pub enum ElicitRequest {
    /// Ask the user to fill in a form: `fields` as read, `schema` as the server sent it (the
    /// side panel builds its form from it).
    Form {
        message: String,
        fields: Vec<Field>,
        schema: Value,
    },
    /// Ask the user to open `url` (after confirming) and come back. `link` is what the user
    /// is shown: the host it opens and its warnings.
    #[serde(rename_all = "camelCase")]
    Url {
        message: String,
        url: String,
        elicitation_id: Option<String>,
        link: Link,
    },
}

/// [`ElicitRequest`] as read back: both modes' fields beside the `mode`.
#[derive(Deserialize)]
#[serde(rename_all = "camelCase")]
struct RequestWire {
    mode: String,
    message: String,
    #[serde(default)]
    fields: Vec<Field>,
    #[serde(default)]
    schema: Value,
    #[serde(default)]
    url: Option<String>,
    #[serde(default)]
    elicitation_id: Option<String>,
    #[serde(default)]
    link: Option<Link>,
}

impl TryFrom<RequestWire> for ElicitRequest {
    type Error = String;

    fn try_from(w: RequestWire) -> Result<Self, String> {
        Ok(match (w.mode.as_str(), w.url, w.link) {
            ("form", _, _) => ElicitRequest::Form {
                message: w.message,
                fields: w.fields,
                schema: w.schema,
            },
            ("url", Some(url), Some(link)) => ElicitRequest::Url {
                message: w.message,
                url,
                elicitation_id: w.elicitation_id,
                link,
            },
            (mode, _, _) => return Err(format!("no `{mode}` question with these fields")),
        })
    }
}

impl ElicitRequest {
    /// Reads the `params` of an `elicitation/create` request.
    pub fn parse(params: &Value) -> Result<ElicitRequest, ElicitError> {
        let message = params
            .get("message")
            .and_then(Value::as_str)
            .ok_or(ElicitError::Malformed("no message"))?
            .to_owned();
        if params.get("mode").and_then(Value::as_str) == Some("url") {
            let url = params
                .get("url")
                .and_then(Value::as_str)
                .filter(|u| u.starts_with("https://") || u.starts_with("http://"))
                .ok_or(ElicitError::Malformed(
                    "a URL elicitation needs an http(s) url",
                ))?
                .to_owned();
            let link = Link::parse(&url).map_err(ElicitError::Link)?;
            let elicitation_id = params
                .get("elicitationId")
                .and_then(Value::as_str)
                .map(str::to_owned);
            return Ok(ElicitRequest::Url {
                message,
                url,
                elicitation_id,
                link,
            });
        }
        let schema = params
            .get("requestedSchema")
            .and_then(Value::as_object)
            .ok_or(ElicitError::Malformed("no requestedSchema"))?;
        let required: Vec<&str> = schema
            .get("required")
            .and_then(Value::as_array)
            .map(|r| r.iter().filter_map(Value::as_str).collect())
            .unwrap_or_default();
        let mut fields = Vec::new();
        if let Some(properties) = schema.get("properties").and_then(Value::as_object) {
            for (name, spec) in properties {
                fields.push(field(name, spec, required.contains(&name.as_str()))?);
            }
        }
        Ok(ElicitRequest::Form {
            message,
            fields,
            schema: Value::Object(schema.clone()),
        })
    }
}

/// The `const`s of `oneOf`/`anyOf: [{const, title}]` (titled options), or `enum`.
fn options_of(spec: &Value) -> Option<Vec<Value>> {
    spec.get("enum")
        .and_then(Value::as_array)
        .cloned()
        .or_else(|| {
            let items = spec
                .get("oneOf")
                .or_else(|| spec.get("anyOf"))?
                .as_array()?;
            Some(
                items
                    .iter()
                    .filter_map(|i| i.get("const").cloned())
                    .collect(),
            )
        })
}

fn field(name: &str, spec: &Value, required: bool) -> Result<Field, ElicitError> {
    let text = |key: &str| spec.get(key).and_then(Value::as_str).map(str::to_owned);
    let number = |key: &str| spec.get(key).and_then(Value::as_f64);
    let kind = text("type").unwrap_or_else(|| "string".to_owned());
    let (options, min, max) = match kind.as_str() {
        "string" => (options_of(spec), number("minLength"), number("maxLength")),
        "number" | "integer" => (None, number("minimum"), number("maximum")),
        "boolean" => (None, None, None),
        // A multi-select (2025-11-25): an array of strings from a list.
        "array" => {
            let options = spec.get("items").and_then(options_of);
            if options.is_none() {
                return Err(ElicitError::Field {
                    field: name.to_owned(),
                    problem: "an array must list its items' allowed values".to_owned(),
                });
            }
            (options, number("minItems"), number("maxItems"))
        }
        _ => {
            return Err(ElicitError::Field {
                field: name.to_owned(),
                problem: format!("type `{kind}` is not a primitive type"),
            })
        }
    };
    let (title, description) = (text("title"), text("description"));
    let is_string = kind == "string";
    let secret = [Some(name), title.as_deref(), description.as_deref()]
        .into_iter()
        .flatten()
        .find_map(secret_kind)
        .map(str::to_owned);
    Ok(Field {
        name: name.to_owned(),
        kind,
        title,
        description,
        required,
        default: spec.get("default").cloned(),
        options,
        min,
        max,
        format: text("format").filter(|_| is_string),
        pattern: text("pattern").filter(|_| is_string),
        secret,
    })
}

/// The kind of secret a field's text names, if any: its words (camelCase, `_`, `-` and `.`
/// split) against the names of secrets, one or two words long.
pub fn secret_kind(text: &str) -> Option<&'static str> {
    const NAMES: &[(&str, &str)] = &[
        ("password", "password"),
        ("passwd", "password"),
        ("passphrase", "password"),
        ("passcode", "password"),
        ("pin", "password"),
        ("token", "token"),
        ("apikey", "API key"),
        ("api key", "API key"),
        ("access key", "API key"),
        ("private key", "secret"),
        ("secret", "secret"),
        ("credential", "secret"),
        ("credentials", "secret"),
        ("card number", "card number"),
        ("credit card", "card number"),
        ("cardnumber", "card number"),
        ("cvv", "card number"),
        ("cvc", "card number"),
        ("security code", "card number"),
    ];
    let mut spaced = String::with_capacity(text.len() + 8);
    let mut previous_lower = false;
    for c in text.chars() {
        if c.is_uppercase() && previous_lower {
            spaced.push(' ');
        }
        previous_lower = c.is_lowercase() || c.is_ascii_digit();
        if c.is_alphanumeric() {
            spaced.extend(c.to_lowercase());
        } else {
            spaced.push(' ');
        }
    }
    let words: Vec<&str> = spaced.split_whitespace().collect();
    let pairs = words.windows(2).map(|w| format!("{} {}", w[0], w[1]));
    let mut candidates = words.iter().map(|w| (*w).to_owned()).chain(pairs);
    candidates.find_map(|c| NAMES.iter().find(|(n, _)| *n == c).map(|(_, kind)| *kind))
}

/// The answer when the user accepts with `content` (what they filled in): SEP-1034's defaults
/// for every field left out or left empty (null, an empty or blank string), then each value checked against its field. A required field with neither a
/// value nor a default is [`ElicitError::Required`], which the panel shows next to it.
pub fn accept(fields: &[Field], content: &Map<String, Value>) -> Result<Value, ElicitError> {
    let mut out = Map::new();
    for field in fields {
        let given = content.get(&field.name).filter(|v| !is_empty(v));
        let value = match given {
            Some(value) => value.clone(),
            None => match &field.default {
                Some(default) => default.clone(),
                None if field.required => return Err(ElicitError::Required(field.name.clone())),
                None => continue,
            },
        };
        check(field, &value)?;
        out.insert(field.name.clone(), value);
    }
    Ok(json!({ "action": "accept", "content": out }))
}

/// Whether a value counts as "not given": null, an empty (or blank) string. (An empty
/// multi-select is a choice, held to its `minItems`.)
fn is_empty(value: &Value) -> bool {
    match value {
        Value::Null => true,
        Value::String(s) => s.trim().is_empty(),
        _ => false,
    }
}

fn check(field: &Field, value: &Value) -> Result<(), ElicitError> {
    let problem = |problem: String| {
        Err(ElicitError::Field {
            field: field.name.clone(),
            problem,
        })
    };
    let allowed = |v: &Value| field.options.as_ref().is_none_or(|o| o.contains(v));
    let (ok, size) = match field.kind.as_str() {
        "string" => (
            value.is_string(),
            value.as_str().map(|s| s.chars().count() as f64),
        ),
        "boolean" => (value.is_boolean(), None),
        "integer" => (
            value.as_i64().is_some() || value.as_u64().is_some(),
            value.as_f64(),
        ),
        "array" => (value.is_array(), value.as_array().map(|a| a.len() as f64)),
        _ => (value.is_number(), value.as_f64()),
    };
    if !ok {
        return problem(format!("must be of type {}", field.kind));
    }
    let values = match value.as_array() {
        Some(items) => items.iter().collect(),
        None => vec![value],
    };
    if !values.into_iter().all(allowed) {
        return problem("is not one of the allowed values".to_owned());
    }
    if let (Some(pattern), Some(text)) = (field.pattern.as_deref(), value.as_str()) {
        if crate::pattern::matches(pattern, text) == Some(false) {
            return problem("is not in the form the server asks for".to_owned());
        }
    }
    if let (Some(format), Some(text)) = (field.format.as_deref(), value.as_str()) {
        if let Some(false) = fits_format(format, text) {
            return problem(format!("is not a valid {format}"));
        }
    }
    if let Some(size) = size {
        if field.min.is_some_and(|m| size < m) || field.max.is_some_and(|m| size > m) {
            let bound = |b: Option<f64>| b.map_or("…".to_owned(), crate::schema::fmt_num);
            let range = format!("{} to {}", bound(field.min), bound(field.max));
            return problem(match field.kind.as_str() {
                "string" => format!("must be {range} characters long"),
                "array" => format!("must have {range} items"),
                _ => format!("must be within {range}"),
            });
        }
    }
    Ok(())
}

/// Whether `text` is of string format `format`: `None` for a format the core does not check.
/// `email`: one `@` between a local part and a dotted domain, no spaces; `uri`: an RFC 3986
/// scheme, `:`, and more, no spaces; `date`: RFC 3339 `full-date` (a real day of the
/// Gregorian calendar); `date-time`: `full-date`, `T`, `hh:mm:ss` (fraction allowed) and `Z` or
/// an offset.
pub fn fits_format(format: &str, text: &str) -> Option<bool> {
    let no_space = !text.chars().any(char::is_whitespace);
    Some(match format {
        "email" => {
            let mut parts = text.splitn(2, '@');
            let (local, domain) = (parts.next().unwrap_or(""), parts.next().unwrap_or(""));
            no_space
                && !local.is_empty()
                && !domain.contains('@')
                && domain.split('.').count() >= 2
                && domain.split('.').all(|l| !l.is_empty())
        }
        "uri" => match text.split_once(':') {
            Some((scheme, rest)) => {
                no_space
                    && !rest.is_empty()
                    && scheme.starts_with(|c: char| c.is_ascii_alphabetic())
                    && scheme
                        .chars()
                        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '+' | '-' | '.'))
            }
            None => false,
        },
        "date" => is_date(text),
        "date-time" => {
            let Some((date, time)) = text.split_once(['T', 't']) else {
                return Some(false);
            };
            is_date(date) && is_time(time)
        }
        _ => return None,
    })
}

/// `hh` digits of exactly `len` characters, read as a number.
fn digits(text: &str, len: usize) -> Option<u32> {
    (text.len() == len && text.bytes().all(|b| b.is_ascii_digit()))
        .then(|| text.parse().ok())
        .flatten()
}

fn is_date(text: &str) -> bool {
    let mut parts = text.split('-');
    let (Some(y), Some(m), Some(d), None) =
        (parts.next(), parts.next(), parts.next(), parts.next())
    else {
        return false;
    };
    let (Some(y), Some(m), Some(d)) = (digits(y, 4), digits(m, 2), digits(d, 2)) else {
        return false;
    };
    let leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    let days = match m {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => return false,
    };
    (1..=days).contains(&d)
}

fn is_time(text: &str) -> bool {
    let (clock, offset) = if let Some(clock) = text.strip_suffix(['Z', 'z']) {
        (clock, None)
    } else if let Some(at) = text.rfind(['+', '-']) {
        (&text[..at], Some(&text[at + 1..]))
    } else {
        return false;
    };
    let clock = clock.split_once('.').map_or(clock, |(whole, fraction)| {
        if !fraction.is_empty() && fraction.bytes().all(|b| b.is_ascii_digit()) {
            whole
        } else {
            "x"
        }
    });
    let hms = |t: &str, seconds: bool| {
        let parts: Vec<&str> = t.split(':').collect();
        let n = if seconds { 3 } else { 2 };
        parts.len() == n
            && digits(parts[0], 2).is_some_and(|h| h < 24)
            && digits(parts[1], 2).is_some_and(|m| m < 60)
            && (!seconds || digits(parts[2], 2).is_some_and(|s| s <= 60))
    };
    hms(clock, true) && offset.is_none_or(|o| hms(o, false))
}

/// The answer when the user declines.
pub fn decline() -> Value {
    json!({ "action": "decline" })
}

/// The answer when the user dismisses the request, or nobody answers in time.
pub fn cancel() -> Value {
    json!({ "action": "cancel" })
}
