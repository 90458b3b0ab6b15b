//! A candidate object's members without a `serde_json::Map` for the object itself.
//!
//! Most candidates are read only to ask a few questions of their top level (`type`, `name`,
//! `tool`, `arguments`...) and to move one or two member values out: a JSON-lines line, a call
//! object. Reading them into a `Value` built an `IndexMap` (a hash table, SipHash for every key,
//! an owned `String` per key and per string value) that was dropped right after. [`Shallow`]
//! keeps the top level as a vector of members whose keys and string values borrow from the text
//! (when they have no escapes); only the values moved out become `Value`s, exactly the ones
//! `serde_json` would have built (nested objects and arrays are read as `Value` directly).
//!
//! [`Members`] is what `interpret` asks of an object, so the same code reads a `Shallow` and a
//! `Map` (the objects nested in a call, `tool_calls` entries) with the same answers.

use std::borrow::Cow;
use std::fmt;

use serde::de::value::{MapAccessDeserializer, SeqAccessDeserializer};
use serde::de::{self, Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Number, Value};

/// One member's value as [`Members::member`] shows it.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Member<'v> {
    Str(&'v str),
    /// Anything but a string.
    Other(&'v Value),
}

/// The questions `interpret` asks of an object. With duplicate keys the last value counts (as
/// in a `Map` read by `serde_json`).
pub(crate) trait Members {
    fn member(&self, key: &str) -> Option<Member<'_>>;
    /// Moves a member's value out; the key is gone afterwards.
    fn take(&mut self, key: &str) -> Option<Value>;
}

impl Members for Map<String, Value> {
    fn member(&self, key: &str) -> Option<Member<'_>> {
        Some(match self.get(key)? {
            Value::String(s) => Member::Str(s),
            other => Member::Other(other),
        })
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        self.remove(key)
    }
}

/// A top-level JSON object as its members in text order, duplicates kept (lookups take the last).
#[derive(Debug, Default)]
pub(crate) struct Shallow<'a> {
    members: Vec<(Cow<'a, str>, Field<'a>)>,
}

#[derive(Debug)]
enum Field<'a> {
    Str(Cow<'a, str>),
    Val(Value),
}

impl Members for Shallow<'_> {
    fn member(&self, key: &str) -> Option<Member<'_>> {
        let (_, field) = self.members.iter().rev().find(|(k, _)| k == key)?;
        Some(match field {
            Field::Str(s) => Member::Str(s),
            Field::Val(v) => Member::Other(v),
        })
    }

    fn take(&mut self, key: &str) -> Option<Value> {
        let at = self.members.iter().rposition(|(k, _)| k == key)?;
        let (_, field) = self.members.remove(at);
        // Earlier duplicates were overwritten by the one taken: they go too.
        self.members.retain(|(k, _)| k != key);
        Some(match field {
            Field::Str(s) => Value::String(s.into_owned()),
            Field::Val(v) => v,
        })
    }
}

/// Reads `src` as one JSON object with `serde_json`'s grammar: `Ok` exactly when
/// `serde_json::from_str::<Value>` reads an object from it. `Err(true)`: the text is not JSON
/// at all (so reading it as a `Value` would fail too); `Err(false)`: it is JSON, but not an object.
pub(crate) fn read(src: &str) -> Result<Shallow<'_>, bool> {
    serde_json::from_str::<Shallow<'_>>(src).map_err(|e| !e.is_data())
}

impl<'de> Deserialize<'de> for Shallow<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct ObjectVisitor;
        impl<'de> Visitor<'de> for ObjectVisitor {
            type Value = Shallow<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("a JSON object")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
                // A call object or JSON line has a handful of members.
                let mut members = Vec::with_capacity(4);
                while let Some(Key(key)) = map.next_key::<Key<'de>>()? {
                    members.push((key, map.next_value::<Field<'de>>()?));
                }
                Ok(Shallow { members })
            }
        }
        d.deserialize_map(ObjectVisitor)
    }
}

/// A key, borrowed from the text when it has no escapes.
struct Key<'a>(Cow<'a, str>);

impl<'de> Deserialize<'de> for Key<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_str(StrVisitor).map(Key)
    }
}

struct StrVisitor;

impl<'de> Visitor<'de> for StrVisitor {
    type Value = Cow<'de, str>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a string")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Cow::Borrowed(s))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s.to_owned()))
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Cow::Owned(s))
    }
}

impl<'de> Deserialize<'de> for Field<'de> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        d.deserialize_any(FieldVisitor)
    }
}

/// Every case builds what `Value`'s own visitor builds (serde_json's `ValueVisitor`), strings
/// aside, which stay borrowed until taken.
struct FieldVisitor;

impl<'de> Visitor<'de> for FieldVisitor {
    type Value = Field<'de>;
    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("any valid JSON value")
    }
    fn visit_borrowed_str<E>(self, s: &'de str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Borrowed(s)))
    }
    fn visit_str<E>(self, s: &str) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(s.to_owned())))
    }
    fn visit_string<E>(self, s: String) -> Result<Self::Value, E> {
        Ok(Field::Str(Cow::Owned(s)))
    }
    fn visit_bool<E>(self, v: bool) -> Result<Self::Value, E> {
        Ok(Field::Val(Value::Bool(v)))
    }
    fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
        Ok(Field::Val(Value::Number(v.into())))
    }
    fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
        Ok(Field::Val(Value::Number(v.into())))
    }
    fn visit_i128<E: de::Error>(self, v: i128) -> Result<Self::Value, E> {
        Value::deserialize(de::value::I128Deserializer::new(v)).map(Field::Val)
    }
    fn visit_u128<E: de::Error>(self, v: u128) -> Result<Self::Value, E> {
        Value::deserialize(de::value::U128Deserializer::new(v)).map(Field::Val)
    }
    fn visit_f64<E>(self, v: f64) -> Result<Self::Value, E> {
        Ok(Field::Val(
            Number::from_f64(v).map_or(Value::Null, Value::Number),
        ))
    }
    fn visit_unit<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Val(Value::Null))
    }
    fn visit_none<E>(self) -> Result<Self::Value, E> {
        Ok(Field::Val(Value::Null))
    }
    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
        Value::deserialize(d).map(Field::Val)
    }
    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(SeqAccessDeserializer::new(seq)).map(Field::Val)
    }
    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
        Value::deserialize(MapAccessDeserializer::new(map)).map(Field::Val)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every member's value, asked and taken, is what a `Map` read by serde_json answers, for
    /// texts with duplicates, escapes, numbers of every kind and nesting; and exactly the texts
    /// serde_json reads as objects are read.
    #[test]
    fn answers_as_a_map_does() {
        let texts = [
            r#"{"type": "parameter", "key": "title", "value": "note 1"}"#,
            r#"{"a": 1, "a": "two", "b": {"x": [1, -2, 3.5, 1e400, 18446744073709551615]}, "a": null}"#,
            r#"{"k\u00e9y": "v\n\"q\"", "e": "", "t": true, "f": false, "n": -0, "big": -9223372036854775808}"#,
            r#"{"name": "add", "arguments": "{\"a\": 1}", "name": 5}"#,
            r#"{}"#,
            r#"{"nested": {"b": 1, "a": 2, "b": 3}}"#,
            r#"[1, 2]"#,
            r#""text""#,
            r#"{"a": 1,}"#,
            r#"{"a" 1}"#,
            r#"{"a": 1} x"#,
            r#"{"a": "unterminated}"#,
        ];
        let keys = [
            "type",
            "key",
            "value",
            "a",
            "b",
            "kéy",
            "e",
            "t",
            "f",
            "n",
            "big",
            "name",
            "arguments",
            "nested",
            "zz",
        ];
        for text in texts {
            let want = serde_json::from_str::<Value>(text);
            let got = read(text);
            match (want, got) {
                (Ok(Value::Object(mut map)), Ok(mut shallow)) => {
                    let show = |m: Option<Member<'_>>| match m {
                        Some(Member::Str(s)) => format!("str {s}"),
                        Some(Member::Other(v)) => format!("other {v}"),
                        None => "none".to_owned(),
                    };
                    for key in keys {
                        assert_eq!(
                            show(shallow.member(key)),
                            show(map.member(key)),
                            "{text} {key}"
                        );
                        assert_eq!(shallow.take(key), map.take(key), "{text} take {key}");
                        assert!(shallow.member(key).is_none(), "{text} {key} taken");
                    }
                }
                (Ok(other), Err(not_json)) => assert!(!other.is_object() && !not_json, "{text}"),
                (Err(_), Err(not_json)) => assert!(not_json, "{text}"),
                (want, got) => panic!("{text}: serde_json {want:?}, shallow {got:?}"),
            }
        }
    }
}
