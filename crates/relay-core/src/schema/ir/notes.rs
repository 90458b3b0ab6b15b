//! Reading the keywords that become annotations of a node: descriptions, extras
//! (deprecated, examples...), formats, the constraints written after a type (ranges, lengths,
//! counts) and the kind a schema without `type` implies.

use std::borrow::Cow;

use serde_json::Value;

use super::super::keywords::{Keywords, K};
use super::super::text::{cut_text, normalize_ws};
use super::{Extra, Note, J};
use crate::prompt::MAX_SCHEMA_TEXT;

pub(super) fn implied_kind(kw: &Keywords<'_>) -> Option<&'static str> {
    let has = |keys: &[K]| keys.iter().any(|k| kw.has(*k));
    if has(&[
        K::Properties,
        K::AdditionalProperties,
        K::PatternProperties,
        K::Required,
        K::PropertyNames,
    ]) {
        Some("object")
    } else if has(&[
        K::Items,
        K::PrefixItems,
        K::MinItems,
        K::MaxItems,
        K::UniqueItems,
        K::Contains,
    ]) {
        Some("array")
    } else if has(&[K::MinLength, K::MaxLength, K::Pattern]) {
        Some("string")
    } else if has(&[
        K::Minimum,
        K::Maximum,
        K::ExclusiveMinimum,
        K::ExclusiveMaximum,
        K::MultipleOf,
    ]) {
        Some("number")
    } else {
        None
    }
}

/// The description of a position (its `title` and `description`), each cut at
/// [`MAX_SCHEMA_TEXT`] with a visible mark; `cut` is set when one was. Cutting here, where the
/// text is read anyway, spares the prompt a walk over every schema to find long texts first.
pub(super) fn describe<'a>(kw: &Keywords<'a>, cut: &mut bool) -> Option<Cow<'a, str>> {
    let mut text = |key| {
        let raw = kw.get(key).and_then(Value::as_str)?;
        let text = match cut_text(raw, MAX_SCHEMA_TEXT) {
            None => normalize_ws(raw),
            Some(short) => {
                *cut = true;
                Cow::Owned(normalize_ws(&short).into_owned())
            }
        };
        Some(text).filter(|t| !t.is_empty())
    };
    let description = text(K::Description);
    let title = text(K::Title);
    match (title, description) {
        (Some(title), Some(description)) if !description.starts_with(title.as_ref()) => {
            Some(Cow::Owned(format!("{title}: {description}")))
        }
        (_, Some(description)) => Some(description),
        (title, None) => title,
    }
}

pub(super) fn extras<'a>(kw: &Keywords<'a>) -> Vec<Extra<'a>> {
    let mut extras = Vec::new();
    if kw.get(K::Deprecated) == Some(&Value::Bool(true)) {
        extras.push(Extra::Deprecated);
    }
    if kw.get(K::ReadOnly) == Some(&Value::Bool(true)) {
        extras.push(Extra::ReadOnly);
    }
    if kw.get(K::WriteOnly) == Some(&Value::Bool(true)) {
        extras.push(Extra::WriteOnly);
    }
    let examples: Vec<J<'a>> = match (kw.get(K::Examples), kw.get(K::Example)) {
        (Some(Value::Array(examples)), _) => examples.iter().map(J).collect(),
        (_, Some(example)) => vec![J(example)],
        _ => Vec::new(),
    };
    if !examples.is_empty() {
        extras.push(Extra::Examples(examples));
    }
    extras
}

pub(super) fn format<'a>(kw: &Keywords<'a>) -> Option<&'a str> {
    kw.get(K::Format)
        .or_else(|| kw.get(K::ContentEncoding))
        .or_else(|| kw.get(K::ContentMediaType))
        .and_then(Value::as_str)
}

pub(super) fn number<'a>(kw: &Keywords<'a>, key: K) -> Option<&'a Value> {
    kw.get(key).filter(|v| v.is_number())
}

pub(super) fn string_notes<'a>(kw: &Keywords<'a>) -> Vec<Note<'a>> {
    let mut notes = Vec::new();
    let (min, max) = (number(kw, K::MinLength), number(kw, K::MaxLength));
    if min.is_some() || max.is_some() {
        notes.push(Note::Len(min.map(J), max.map(J)));
    }
    if let Some(Value::String(pattern)) = kw.get(K::Pattern) {
        notes.push(Note::Pattern(pattern));
    }
    notes
}

pub(super) fn number_notes<'a>(kw: &Keywords<'a>) -> Vec<Note<'a>> {
    let mut notes = Vec::new();
    // Draft 4 spells exclusivity as a boolean beside minimum/maximum; later drafts as a number.
    let (mut low, mut low_excl) = (number(kw, K::Minimum), false);
    match kw.get(K::ExclusiveMinimum) {
        Some(Value::Bool(true)) => low_excl = low.is_some(),
        Some(v @ Value::Number(_)) => (low, low_excl) = (Some(v), true),
        _ => {}
    }
    let (mut high, mut high_excl) = (number(kw, K::Maximum), false);
    match kw.get(K::ExclusiveMaximum) {
        Some(Value::Bool(true)) => high_excl = high.is_some(),
        Some(v @ Value::Number(_)) => (high, high_excl) = (Some(v), true),
        _ => {}
    }
    match (low, high) {
        (Some(l), Some(h)) if !low_excl && !high_excl => notes.push(Note::Range(J(l), J(h))),
        _ => {
            if let Some(l) = low {
                notes.push(Note::Min {
                    value: J(l),
                    exclusive: low_excl,
                });
            }
            if let Some(h) = high {
                notes.push(Note::Max {
                    value: J(h),
                    exclusive: high_excl,
                });
            }
        }
    }
    if let Some(step) = number(kw, K::MultipleOf) {
        notes.push(Note::MultipleOf(J(step)));
    }
    notes
}

pub(super) fn count_notes<'a>(
    kw: &Keywords<'a>,
    min: K,
    max: K,
    unit: &'static str,
) -> Vec<Note<'a>> {
    match (number(kw, min), number(kw, max)) {
        (None, None) => Vec::new(),
        (min, max) => vec![Note::Count {
            min: min.map(J),
            max: max.map(J),
            unit,
        }],
    }
}
