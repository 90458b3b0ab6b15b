//! Skills (SEP-2640, the `io.modelcontextprotocol/skills` extension): what a server's
//! `skills/list` says, and the verification of every file read for a skill.
//!
//! A server lists skills as entries: the `SKILL.md`'s URI, its frontmatter, and each file of
//! the skill with a `sha256:<hex>` digest and a byte size (or `"dynamic"`: the files are not
//! enumerated). A host reads the files with `resources/read` only when the skill is loaded, and
//! must not use what it read unless it matches the entry: byte length, then digest, then, for
//! the `SKILL.md`, its YAML frontmatter field by field against the entry's. [`verify_read`] is
//! the only way to a [`VerifiedFile`], so content that failed any check has no way into a chat.

mod frontmatter;

use base64::Engine as _;
use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};
use sha2::{Digest, Sha256};

use crate::model::ReadResourceResult;

pub use frontmatter::{parse as parse_frontmatter, FrontmatterError};

/// The extension's identifier, the key under the capabilities' `extensions`.
pub const EXTENSION_ID: &str = "io.modelcontextprotocol/skills";

/// The list method (paginated like `resources/list`).
pub const LIST_METHOD: &str = "skills/list";

/// The file name of a skill's instructions, at the skill's root.
pub const SKILL_FILE: &str = "SKILL.md";

/// The tool the prompt describes for a server with skills: the model loads one by name.
pub const LOAD_SKILL: &str = "load_skill";

/// Most skills of one server named in the `load_skill` tool's description (the prompt stays
/// bounded whatever a server lists).
pub const MAX_SKILLS_DESCRIBED: usize = 50;

/// Longest description of one skill in the `load_skill` tool's description, in characters.
pub const MAX_SKILL_DESCRIPTION_CHARS: usize = 300;

/// Adds the extension (an empty object: the client takes part, with no options) to a client
/// capabilities object, keeping every other extension.
pub fn declare(capabilities: &mut Value) {
    let Value::Object(caps) = capabilities else {
        return;
    };
    let extensions = caps.entry("extensions").or_insert_with(|| json!({}));
    if !extensions.is_object() {
        *extensions = json!({});
    }
    if let Value::Object(ext) = extensions {
        ext.insert(EXTENSION_ID.to_owned(), json!({}));
    }
}

/// One skill as `skills/list` lists it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct Skill {
    /// The URI of the skill's `SKILL.md` (`skill://<path>/SKILL.md`).
    pub uri: String,
    /// The `SKILL.md`'s frontmatter as the server read it (`name` and `description` at least).
    pub frontmatter: Map<String, Value>,
    /// The skill's files, or `"dynamic"`.
    pub resources: SkillFiles,
}

/// A skill's files: each with its digest and size, or not enumerated (`"dynamic"`).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
#[non_exhaustive]
pub enum SkillFiles {
    Listed(Vec<SkillFile>),
    Dynamic(DynamicFiles),
}

/// The `"dynamic"` marker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum DynamicFiles {
    #[serde(rename = "dynamic")]
    Dynamic,
}

/// One file of a skill as listed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[non_exhaustive]
pub struct SkillFile {
    pub uri: String,
    /// `sha256:` and the lowercase hex SHA-256 of the file's bytes.
    pub digest: String,
    /// The file's length in bytes.
    pub size: u64,
}

impl Skill {
    /// The skill's name: the frontmatter's `name`, else the last path segment before
    /// `SKILL.md` (which SEP-2640 requires to be the same).
    pub fn name(&self) -> &str {
        if let Some(name) = self.frontmatter.get("name").and_then(Value::as_str) {
            return name;
        }
        let path = self.uri.strip_suffix(SKILL_FILE).unwrap_or(&self.uri);
        path.trim_end_matches('/')
            .rsplit('/')
            .next()
            .unwrap_or(&self.uri)
    }

    /// The frontmatter's `description`, if it is text.
    pub fn description(&self) -> Option<&str> {
        self.frontmatter.get("description").and_then(Value::as_str)
    }

    /// The listed entry for `uri`, if the skill lists its files and `uri` is one.
    pub fn file(&self, uri: &str) -> Option<&SkillFile> {
        match &self.resources {
            SkillFiles::Listed(files) => files.iter().find(|f| f.uri == uri),
            SkillFiles::Dynamic(_) => None,
        }
    }

    /// The skill's files other than its `SKILL.md` (the references a model may ask for).
    pub fn references(&self) -> Vec<&str> {
        match &self.resources {
            SkillFiles::Listed(files) => files
                .iter()
                .map(|f| f.uri.as_str())
                .filter(|u| *u != self.uri)
                .collect(),
            SkillFiles::Dynamic(_) => Vec::new(),
        }
    }
}

/// Why a file read for a skill may not be used. Each is a verification failure: the content
/// is dropped, never shown to the model.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum SkillError {
    #[error("{uri} is not a file of skill `{skill}` (it is not in the skill's listing)")]
    NotListed { skill: String, uri: String },
    #[error("{uri}: the listing's digest {digest:?} is not `sha256:` and 64 hex digits")]
    BadDigest { uri: String, digest: String },
    #[error("{uri}: the server's answer holds no contents for this file")]
    NoContents { uri: String },
    #[error("{uri}: the file's base64 contents do not decode")]
    BadBase64 { uri: String },
    #[error("{uri} is {actual} bytes, but the skill's listing says {expected}: not loaded")]
    Size {
        uri: String,
        expected: u64,
        actual: u64,
    },
    #[error("{uri} does not match the skill's listed digest (sha256 {actual}, listed {expected}): not loaded")]
    Digest {
        uri: String,
        expected: String,
        actual: String,
    },
    #[error("{uri}: the file is not UTF-8 text")]
    NotText { uri: String },
    #[error("{uri}: {source}: not loaded")]
    Frontmatter {
        uri: String,
        #[source]
        source: FrontmatterError,
    },
    #[error("{uri}: the frontmatter's `{field}` is {file}, but the skill's listing says {listed}: not loaded")]
    FrontmatterDiffers {
        uri: String,
        field: String,
        file: String,
        listed: String,
    },
}

impl SkillError {
    /// The file that failed.
    pub fn uri(&self) -> &str {
        match self {
            SkillError::NotListed { uri, .. }
            | SkillError::BadDigest { uri, .. }
            | SkillError::NoContents { uri }
            | SkillError::BadBase64 { uri }
            | SkillError::Size { uri, .. }
            | SkillError::Digest { uri, .. }
            | SkillError::NotText { uri }
            | SkillError::Frontmatter { uri, .. }
            | SkillError::FrontmatterDiffers { uri, .. } => uri,
        }
    }
}

/// A file whose bytes matched the listing (and, for a `SKILL.md`, whose frontmatter matched
/// too). Only [`verify_read`] and [`verify_text`] make one, and the worker reads one back from
/// the second module that ran them ([`crate::rare`]).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct VerifiedFile {
    uri: String,
    text: String,
}

impl VerifiedFile {
    pub fn uri(&self) -> &str {
        &self.uri
    }

    pub fn text(&self) -> &str {
        &self.text
    }

    pub fn into_text(self) -> String {
        self.text
    }
}

/// The lowercase hex SHA-256 of `bytes`.
pub fn sha256_hex(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    Sha256::digest(bytes)
        .iter()
        .fold(String::with_capacity(64), |mut s, b| {
            let _ = write!(s, "{b:02x}");
            s
        })
}

/// Verifies the answer to `resources/read` of `uri` for `skill`: the contents for `uri` (text,
/// or base64 `blob`) checked by [`verify_bytes`].
pub fn verify_read(
    skill: &Skill,
    uri: &str,
    read: &ReadResourceResult,
) -> Result<VerifiedFile, SkillError> {
    let no_contents = || SkillError::NoContents {
        uri: uri.to_owned(),
    };
    // The contents for this URI; a server that answers one item under another URI (a
    // redirect-like rewrite) is still checked against this URI's entry.
    let contents = read
        .contents
        .iter()
        .find(|c| c.uri == uri)
        .or_else(|| read.contents.first().filter(|_| read.contents.len() == 1))
        .ok_or_else(no_contents)?;
    let bytes = match (&contents.text, &contents.blob) {
        (Some(text), _) => text.as_bytes().to_vec(),
        (None, Some(blob)) => base64::engine::general_purpose::STANDARD
            .decode(blob.trim())
            .map_err(|_| SkillError::BadBase64 {
                uri: uri.to_owned(),
            })?,
        (None, None) => return Err(no_contents()),
    };
    verify_bytes(skill, uri, &bytes)
}

/// Verifies text read for `uri` (its UTF-8 bytes), as [`verify_bytes`].
pub fn verify_text(skill: &Skill, uri: &str, text: &str) -> Result<VerifiedFile, SkillError> {
    verify_bytes(skill, uri, text.as_bytes())
}

/// Verifies the bytes read for `uri` against `skill`'s listing: the file must be listed (the
/// `SKILL.md` of a `"dynamic"` skill has no entry to check its bytes against, so only its
/// frontmatter is checked), its length must be the listed size (checked first: a cheap, certain
/// failure), its SHA-256 the listed digest, and a `SKILL.md`'s frontmatter must equal the
/// listing's field by field.
pub fn verify_bytes(skill: &Skill, uri: &str, bytes: &[u8]) -> Result<VerifiedFile, SkillError> {
    let is_skill_md = uri == skill.uri;
    match (skill.file(uri), &skill.resources) {
        (Some(file), _) => check_bytes(file, bytes)?,
        (None, SkillFiles::Dynamic(_)) if is_skill_md => {}
        (None, _) => {
            return Err(SkillError::NotListed {
                skill: skill.name().to_owned(),
                uri: uri.to_owned(),
            })
        }
    }
    let text = std::str::from_utf8(bytes)
        .map_err(|_| SkillError::NotText {
            uri: uri.to_owned(),
        })?
        .to_owned();
    if is_skill_md {
        compare_frontmatter(skill, &text)?;
    }
    Ok(VerifiedFile {
        uri: uri.to_owned(),
        text,
    })
}

fn check_bytes(file: &SkillFile, bytes: &[u8]) -> Result<(), SkillError> {
    let expected = file
        .digest
        .strip_prefix("sha256:")
        .filter(|h| h.len() == 64 && h.bytes().all(|b| b.is_ascii_hexdigit()))
        .ok_or_else(|| SkillError::BadDigest {
            uri: file.uri.clone(),
            digest: file.digest.clone(),
        })?;
    let actual = bytes.len() as u64;
    if actual != file.size {
        return Err(SkillError::Size {
            uri: file.uri.clone(),
            expected: file.size,
            actual,
        });
    }
    let digest = sha256_hex(bytes);
    if !digest.eq_ignore_ascii_case(expected) {
        return Err(SkillError::Digest {
            uri: file.uri.clone(),
            expected: expected.to_ascii_lowercase(),
            actual: digest,
        });
    }
    Ok(())
}

/// The `SKILL.md`'s frontmatter against the listing's, field by field (a field absent on one
/// side equals `null` on the other, as the conformance suite compares them).
fn compare_frontmatter(skill: &Skill, text: &str) -> Result<(), SkillError> {
    let file = frontmatter::parse(text).map_err(|source| SkillError::Frontmatter {
        uri: skill.uri.clone(),
        source,
    })?;
    let mut fields: Vec<&String> = file.keys().chain(skill.frontmatter.keys()).collect();
    crate::sorted_map::sort(&mut fields);
    fields.dedup();
    for field in fields {
        let (a, b) = (
            file.get(field).unwrap_or(&Value::Null),
            skill.frontmatter.get(field).unwrap_or(&Value::Null),
        );
        if !same(a, b) {
            return Err(SkillError::FrontmatterDiffers {
                uri: skill.uri.clone(),
                field: field.clone(),
                file: a.to_string(),
                listed: b.to_string(),
            });
        }
    }
    Ok(())
}

/// JSON equality with numbers compared by value (`1` and `1.0` are the same YAML number).
fn same(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x == y || x.as_f64() == y.as_f64(),
        (Value::Array(x), Value::Array(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| same(p, q))
        }
        (Value::Object(x), Value::Object(y)) => {
            x.len() == y.len() && x.iter().all(|(k, v)| y.get(k).is_some_and(|w| same(v, w)))
        }
        _ => a == b,
    }
}

/// The `load_skill` tool of a server whose skills are `skills` (none without skills): a tool the
/// prompt describes like the server's own, whose call the app answers with the skill's verified
/// `SKILL.md`, or with a reference file the skill lists (`file`).
pub fn load_skill_tool(skills: &[Skill]) -> Option<crate::model::Tool> {
    if skills.is_empty() {
        return None;
    }
    let mut description = String::from(
        "Loads one of this server's skills (instructions for a kind of task) into the \
         conversation. When a task matches a skill below, call it with the skill's `name` \
         before doing the task: its SKILL.md comes back, naming its reference files, which you \
         load the same way with `file` when you need one.\nSkills:",
    );
    let shown = &skills[..skills.len().min(MAX_SKILLS_DESCRIBED)];
    for skill in shown {
        let about: String = (skill.description().unwrap_or_default().chars())
            .take(MAX_SKILL_DESCRIPTION_CHARS)
            .collect();
        description.push_str(&format!(
            "\n- {}: {}",
            skill.name(),
            about.replace('\n', " ")
        ));
    }
    let names: Vec<&str> = shown.iter().map(Skill::name).collect();
    crate::json_value::from_value(json!({
        "name": LOAD_SKILL,
        "description": description,
        "inputSchema": {
            "type": "object",
            "properties": {
                "name": {"type": "string", "enum": names, "description": "The skill to load."},
                "file": {
                    "type": "string",
                    "description": "One of the skill's reference files, by its path in the skill (e.g. references/FORMS.md); leave out for the SKILL.md.",
                },
            },
            "required": ["name"],
        },
        "annotations": {"readOnlyHint": true, "destructiveHint": false},
    }))
    .ok()
}

/// Whether a server's capabilities (as `initialize` or `server/discover` gave them) declare the
/// extension: only then is `skills/list` asked for.
pub fn declared_by(capabilities: &Value) -> bool {
    capabilities
        .get("extensions")
        .and_then(|e| e.get(EXTENSION_ID))
        .is_some()
}

/// A skill's instructions as they go into a chat: a short header naming the skill and its
/// reference files (which the model may ask for), then the verified `SKILL.md`.
pub fn format_loaded(server: &str, skill: &Skill, file: &VerifiedFile) -> String {
    let mut out = format!("[Skill `{}` from {server}]\n", skill.name());
    if file.uri() != skill.uri {
        out = format!("[Skill `{}` from {server}: {}]\n", skill.name(), file.uri());
    } else {
        let references = skill.references();
        if !references.is_empty() {
            out.push_str("Reference files (load one with load_skill and its `file`): ");
            out.push_str(&references.join(", "));
            out.push('\n');
        }
    }
    out.push('\n');
    out.push_str(file.text());
    out
}
