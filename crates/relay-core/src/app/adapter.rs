//! Site adapters as user data: the decision whether an adapter a user taught, edited or
//! imported is valid, and its normal form.
//!
//! An adapter describes a chat page to the content script (`extension/content/sites.js` has
//! the built-in ones): CSS selectors for the input, the send button, the assistant's replies
//! and so on, and how the input takes text. Users get them from "Teach this page" or write them
//! by hand in Settings; both go through [`validate_adapter`] before they are stored, so a typo
//! is an error with a message that names the field, not a page that silently does nothing.
//! Selectors are only checked for shape here (the browser parses them); they never reach
//! anything but `querySelectorAll`.

use serde_json::{Map, Value};

/// How an input box takes text (the content script's write paths).
pub const EDITORS: &[&str] = &[
    "textarea",
    "prosemirror",
    "lexical",
    "quill",
    "codemirror",
    "contenteditable",
    "auto",
];

/// Selector lists an adapter must have (a page without them cannot run the loop).
const REQUIRED_LISTS: &[&str] = &["input", "send", "assistant"];
/// Selector lists it may have.
const OPTIONAL_LISTS: &[&str] = &["stop", "disabled", "user", "code"];
/// At most this many selectors per list, of at most this many characters.
const MAX_SELECTORS: usize = 8;
const MAX_SELECTOR_LEN: usize = 500;
/// Bounds of `maxText` (characters written into the input before the rest goes as a file).
const MAX_TEXT: std::ops::RangeInclusive<u64> = 1_000..=500_000;

/// Why an adapter was refused. The message names the field and what it must be.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AdapterError {
    /// The adapter is not a JSON object.
    #[error("an adapter is a JSON object")]
    NotObject,
    /// A field has the wrong type or value.
    #[error("adapter field '{field}': {reason}")]
    Field {
        /// The field.
        field: String,
        /// What is wrong with it.
        reason: String,
    },
    /// "Teach this page" found that the reply selector also matches turns showing text the user
    /// sent (`userTurns`, counted by the content script): the user's own messages would be
    /// read as replies, and a call in them would run.
    #[error("the picked reply also matches {0} of your own messages: MCP Relay would read your messages as the assistant's replies, and could run a call you pasted or sent")]
    MatchesUserTurns(u64),
    /// A field this version does not know (a typo, or an adapter of a newer version).
    #[error("adapter field '{0}' is not known (known: id, name, editor, input, send, assistant, stop, disabled, user, code, files, maxText)")]
    Unknown(String),
}

impl AdapterError {
    /// The hint shown under the message.
    pub fn hint(&self) -> &'static str {
        match self {
            AdapterError::MatchesUserTurns(_) => {
                "Your messages and the assistant's look the same on this page. Teach the page again \
                 and click a part only the assistant's replies have, or write the adapter in \
                 Settings → Chat sites with a 'user' selector and an 'assistant' one that leaves your \
                 messages out."
            }
            _ => "Fix the adapter's JSON in Settings → Chat sites, or teach the page again.",
        }
    }
}

fn field(field: &str, reason: impl Into<String>) -> AdapterError {
    AdapterError::Field {
        field: field.to_owned(),
        reason: reason.into(),
    }
}

/// One list of selectors: strings, non-empty, bounded, no control characters and no braces
/// (a selector never needs them; CSS rules do).
fn selectors(name: &str, v: Option<&Value>, required: bool) -> Result<Vec<Value>, AdapterError> {
    let Some(v) = v.filter(|v| !v.is_null()) else {
        return if required {
            Err(field(name, "at least one CSS selector is required"))
        } else {
            Ok(Vec::new())
        };
    };
    let Value::Array(items) = v else {
        return Err(field(name, "must be a list of CSS selectors"));
    };
    if required && items.is_empty() {
        return Err(field(name, "at least one CSS selector is required"));
    }
    if items.len() > MAX_SELECTORS {
        return Err(field(name, format!("at most {MAX_SELECTORS} selectors")));
    }
    let mut out = Vec::with_capacity(items.len());
    for (i, item) in items.iter().enumerate() {
        let Some(s) = item.as_str() else {
            return Err(field(&format!("{name}[{i}]"), "must be a string"));
        };
        let s = s.trim();
        if s.is_empty() {
            return Err(field(&format!("{name}[{i}]"), "is empty"));
        }
        if s.chars().count() > MAX_SELECTOR_LEN {
            return Err(field(
                &format!("{name}[{i}]"),
                format!("longer than {MAX_SELECTOR_LEN} characters"),
            ));
        }
        if s.chars().any(|c| c.is_control() || c == '{' || c == '}') {
            return Err(field(
                &format!("{name}[{i}]"),
                "contains a control character or a brace",
            ));
        }
        if s.split(">>>").any(|part| part.trim().is_empty()) {
            return Err(field(
                &format!("{name}[{i}]"),
                "'>>>' (into a shadow root) needs a selector on both sides",
            ));
        }
        out.push(Value::String(s.to_owned()));
    }
    Ok(out)
}

/// Checks an adapter and returns its normal form: every known field present (lists empty
/// when absent), strings trimmed, unknown fields refused. `userTurns`, what "Teach this page"
/// measured (how many turns its reply selector matches that show text the user sent), is
/// checked and never stored: above 0, the adapter is refused.
pub fn validate_adapter(v: &Value) -> Result<Value, AdapterError> {
    let Value::Object(m) = v else {
        return Err(AdapterError::NotObject);
    };
    let known = |k: &str| {
        matches!(
            k,
            "id" | "name" | "editor" | "files" | "maxText" | "hosts" | "userTurns"
        ) || REQUIRED_LISTS.contains(&k)
            || OPTIONAL_LISTS.contains(&k)
    };
    if let Some(k) = m.keys().find(|k| !known(k)) {
        return Err(AdapterError::Unknown(k.clone()));
    }
    match m.get("userTurns").filter(|v| !v.is_null()) {
        None => {}
        Some(v) => match v.as_u64() {
            Some(0) => {}
            Some(n) => return Err(AdapterError::MatchesUserTurns(n)),
            None => return Err(field("userTurns", "a whole number")),
        },
    }
    let mut out = Map::new();
    let id = match m.get("id") {
        None | Some(Value::Null) => "custom".to_owned(),
        Some(Value::String(s)) => {
            let s = s.trim();
            let ok = !s.is_empty()
                && s.len() <= 40
                && s.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
            if !ok {
                return Err(field("id", "1 to 40 letters, digits, '-' or '_'"));
            }
            s.to_owned()
        }
        Some(_) => return Err(field("id", "must be a string")),
    };
    out.insert("id".into(), Value::String(id.clone()));
    let name = match m.get("name") {
        None | Some(Value::Null) => id,
        Some(Value::String(s)) if s.trim().chars().count() <= 80 => s.trim().to_owned(),
        Some(_) => return Err(field("name", "a string of at most 80 characters")),
    };
    out.insert("name".into(), Value::String(name));
    let editor = match m.get("editor") {
        None | Some(Value::Null) => "auto",
        Some(Value::String(s)) => EDITORS
            .iter()
            .copied()
            .find(|e| *e == s.as_str())
            .ok_or_else(|| field("editor", format!("one of {}", EDITORS.join(", "))))?,
        Some(_) => return Err(field("editor", "must be a string")),
    };
    out.insert("editor".into(), Value::String(editor.to_owned()));
    for name in REQUIRED_LISTS {
        out.insert(
            (*name).into(),
            Value::Array(selectors(name, m.get(*name), true)?),
        );
    }
    for name in OPTIONAL_LISTS {
        out.insert(
            (*name).into(),
            Value::Array(selectors(name, m.get(*name), false)?),
        );
    }
    let files = match m.get("files") {
        None | Some(Value::Null) => Value::Null,
        Some(Value::Object(f)) => {
            if let Some(k) = f
                .keys()
                .find(|k| !matches!(k.as_str(), "input" | "drop" | "preview"))
            {
                return Err(field(
                    "files",
                    format!("unknown part '{k}' (input, drop, preview)"),
                ));
            }
            let mut o = Map::new();
            for part in ["input", "drop", "preview"] {
                let list = selectors(&format!("files.{part}"), f.get(part), false)?;
                o.insert(part.into(), Value::Array(list));
            }
            Value::Object(o)
        }
        Some(_) => return Err(field("files", "an object {input, drop, preview} or null")),
    };
    out.insert("files".into(), files);
    if let Some(v) = m.get("maxText").filter(|v| !v.is_null()) {
        match v.as_u64() {
            Some(n) if MAX_TEXT.contains(&n) => {
                out.insert("maxText".into(), Value::from(n));
            }
            _ => {
                return Err(field(
                    "maxText",
                    format!(
                        "a whole number from {} to {}",
                        MAX_TEXT.start(),
                        MAX_TEXT.end()
                    ),
                ))
            }
        }
    }
    Ok(Value::Object(out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn adapters_table() {
        // (adapter, Ok(normal form's checked fields) or Err(message fragment))
        let ok = json!({"id": "taught", "input": ["textarea"], "send": ["button[aria-label=\"Send\"]"],
            "assistant": ["chat-app >>> chat-turn[kind=\"theirs\"] >>> div.bubble"]});
        let v = validate_adapter(&ok).unwrap();
        assert_eq!(v["editor"], "auto");
        assert_eq!(v["name"], "taught");
        assert_eq!(v["stop"], json!([]));
        assert_eq!(v["files"], Value::Null);

        let cases: &[(Value, &str)] = &[
            (json!([]), "JSON object"),
            (json!({"input": ["a"], "send": ["b"]}), "'assistant'"),
            (
                json!({"input": [], "send": ["b"], "assistant": ["c"]}),
                "'input'",
            ),
            (
                json!({"input": "a", "send": ["b"], "assistant": ["c"]}),
                "list of CSS selectors",
            ),
            (
                json!({"input": ["a"], "send": [3], "assistant": ["c"]}),
                "'send[0]'",
            ),
            (
                json!({"input": ["a{}"], "send": ["b"], "assistant": ["c"]}),
                "brace",
            ),
            (
                json!({"input": ["a >>> "], "send": ["b"], "assistant": ["c"]}),
                "both sides",
            ),
            (
                json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "editor": "word"}),
                "'editor'",
            ),
            (
                json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "sned": ["x"]}),
                "'sned' is not known",
            ),
            (
                json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "id": "a b"}),
                "'id'",
            ),
            (
                json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "maxText": 5}),
                "'maxText'",
            ),
            (
                json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "files": {"x": []}}),
                "unknown part 'x'",
            ),
            (
                json!({"input": vec!["a"; 9], "send": ["b"], "assistant": ["c"]}),
                "at most 8",
            ),
            // Teach found the reply selector on turns showing what the user sent.
            (
                json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "userTurns": 2}),
                "also matches 2 of your own messages",
            ),
            (
                json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "userTurns": "none"}),
                "'userTurns'",
            ),
        ];
        for (adapter, want) in cases {
            let e = validate_adapter(adapter).unwrap_err().to_string();
            assert!(e.contains(want), "{adapter}: {e} (wanted '{want}')");
        }
        // Measured and clean: accepted, and the measure is not stored.
        let clean = json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "userTurns": 0});
        let v = validate_adapter(&clean).unwrap();
        assert!(v.get("userTurns").is_none());
        let refused = validate_adapter(
            &json!({"input": ["a"], "send": ["b"], "assistant": ["c"], "userTurns": 1}),
        );
        assert!(refused.unwrap_err().hint().contains("'user' selector"));
    }

    #[test]
    fn a_normal_form_is_its_own_normal_form() {
        let full = json!({"id": "x", "name": " X ", "editor": "lexical", "input": [" a "], "send": ["b"],
            "assistant": ["c"], "user": ["d"], "files": {"input": ["input[type=file]"]}, "maxText": 20000});
        let once = validate_adapter(&full).unwrap();
        assert_eq!(once["name"], "X");
        assert_eq!(once["input"], json!(["a"]));
        assert_eq!(validate_adapter(&once).unwrap(), once);
    }
}
