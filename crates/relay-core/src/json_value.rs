//! Typed values read from a `serde_json::Value`, with one deserializer for the whole crate.
//!
//! Everything the core receives (messages, stored state, servers' answers) is JSON that is
//! first a [`Value`], then read into a type. `serde_json::from_value` does that, but its
//! deserializer accepts a struct written as an array too (`[1, "x"]` for `{a: 1, b: "x"}`), so
//! every type read through it carries a second reader for a form no peer of ours ever sends:
//! about 90 copies of `visit_array` and their element readers, ~75 KB of the extension's module
//! (BENCHMARKS.md, "Module size"). [`from_value`] reads a struct from an object only and
//! otherwise behaves as serde_json does: the same visitors, the same errors (`invalid type:
//! string "x", expected u32`, `missing field `id``), map keys read as numbers or booleans when
//! the key type asks for one, enums as a string or an object of one member.
//!
//! Code outside tests reads values with [`from_value`] only: tidy (`cargo xtask test tidy`)
//! fails on `serde_json::from_value` in the crates the extension ships, so the second reader
//! does not come back with the next call site.

use serde::de::{
    self, Deserialize, DeserializeOwned, DeserializeSeed, Deserializer, EnumAccess, Expected,
    IntoDeserializer, MapAccess, SeqAccess, Unexpected, VariantAccess, Visitor,
};
use serde::forward_to_deserialize_any;
use serde_json::{Error, Map, Number, Value};

/// `T` read from `value`, as `serde_json::from_value` reads it, except that a struct must be a
/// JSON object (never an array).
pub fn from_value<T: DeserializeOwned>(value: Value) -> Result<T, Error> {
    T::deserialize(Reader(value))
}

/// `T` read from JSON text as [`from_value`] reads it, through a [`Value`]: a type that also
/// arrives as text then has one reader, not a second one for serde_json's text deserializer.
pub fn from_slice<T: DeserializeOwned>(bytes: &[u8]) -> Result<T, Error> {
    from_value(serde_json::from_slice::<Value>(bytes)?)
}

/// A [`Value`] as a serde deserializer.
struct Reader(Value);

fn number<'de, V: Visitor<'de>>(n: &Number, visitor: V) -> Result<V::Value, Error> {
    if let Some(u) = n.as_u64() {
        visitor.visit_u64(u)
    } else if let Some(i) = n.as_i64() {
        visitor.visit_i64(i)
    } else {
        visitor.visit_f64(n.as_f64().unwrap_or(f64::NAN))
    }
}

fn unexpected(value: &Value) -> Unexpected<'_> {
    match value {
        Value::Null => Unexpected::Unit,
        Value::Bool(b) => Unexpected::Bool(*b),
        Value::Number(n) => match (n.as_u64(), n.as_i64()) {
            (Some(u), _) => Unexpected::Unsigned(u),
            (None, Some(i)) => Unexpected::Signed(i),
            _ => Unexpected::Float(n.as_f64().unwrap_or(f64::NAN)),
        },
        Value::String(s) => Unexpected::Str(s),
        Value::Array(_) => Unexpected::Seq,
        Value::Object(_) => Unexpected::Map,
    }
}

fn invalid(value: &Value, expected: &dyn Expected) -> Error {
    de::Error::invalid_type(unexpected(value), expected)
}

fn visit_array<'de, V: Visitor<'de>>(items: Vec<Value>, visitor: V) -> Result<V::Value, Error> {
    let len = items.len();
    let mut seq = Items(items.into_iter());
    let out = visitor.visit_seq(&mut seq)?;
    match seq.0.len() {
        0 => Ok(out),
        _ => Err(de::Error::invalid_length(len, &"fewer elements in array")),
    }
}

fn visit_object<'de, V: Visitor<'de>>(
    object: Map<String, Value>,
    visitor: V,
) -> Result<V::Value, Error> {
    let len = object.len();
    let mut map = Members {
        iter: object.into_iter(),
        value: None,
    };
    let out = visitor.visit_map(&mut map)?;
    match map.iter.len() {
        0 => Ok(out),
        _ => Err(de::Error::invalid_length(len, &"fewer elements in map")),
    }
}

/// `deserialize_*` for numbers: a JSON number only.
macro_rules! numbers {
    ($($method:ident)*) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                match self.0 {
                    Value::Number(n) => number(&n, visitor),
                    other => Err(invalid(&other, &visitor)),
                }
            }
        )*
    };
}

impl<'de> Deserializer<'de> for Reader {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_unit(),
            Value::Bool(b) => visitor.visit_bool(b),
            Value::Number(n) => number(&n, visitor),
            Value::String(s) => visitor.visit_string(s),
            Value::Array(items) => visit_array(items, visitor),
            Value::Object(object) => visit_object(object, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Null => visitor.visit_none(),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    /// A struct is an object; an array is refused as any other non-object is.
    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(object) => visit_object(object, visitor),
            other => Err(invalid(&other, &visitor)),
        }
    }

    /// An enum is its variant's name (a unit variant) or an object of one member, the variant's
    /// name and its content (externally tagged, serde's default).
    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(variant) => visitor.visit_enum(Variant {
                name: variant,
                content: None,
            }),
            Value::Object(object) => {
                let mut members = object.into_iter();
                match (members.next(), members.next()) {
                    (Some((name, content)), None) => visitor.visit_enum(Variant {
                        name,
                        content: Some(content),
                    }),
                    _ => Err(de::Error::invalid_value(
                        Unexpected::Map,
                        &"map with a single key",
                    )),
                }
            }
            other => Err(de::Error::invalid_type(
                unexpected(&other),
                &"string or map",
            )),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        drop(self);
        visitor.visit_unit()
    }

    // What the type asks for, read from that kind of value only (as serde_json's `Value` does):
    // a visitor then gets only the `visit_*` it can be called with. Through `deserialize_any`
    // every `Vec`, `String` and number visitor carried all six (the five it refuses included),
    // one copy per visitor type.
    fn deserialize_bool<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Bool(b) => visitor.visit_bool(b),
            other => Err(invalid(&other, &visitor)),
        }
    }

    fn deserialize_string<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::String(s) => visitor.visit_string(s),
            other => Err(invalid(&other, &visitor)),
        }
    }

    fn deserialize_str<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_identifier<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        self.deserialize_string(visitor)
    }

    fn deserialize_seq<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Array(items) => visit_array(items, visitor),
            other => Err(invalid(&other, &visitor)),
        }
    }

    fn deserialize_map<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Value::Object(object) => visit_object(object, visitor),
            other => Err(invalid(&other, &visitor)),
        }
    }

    numbers! {
        deserialize_i8 deserialize_i16 deserialize_i32 deserialize_i64 deserialize_u8
        deserialize_u16 deserialize_u32 deserialize_u64 deserialize_f32 deserialize_f64
    }

    forward_to_deserialize_any! {
        i128 u128 char bytes byte_buf unit unit_struct tuple tuple_struct
    }
}

/// An array's elements, each read by [`Reader`].
struct Items(std::vec::IntoIter<Value>);

impl<'de> SeqAccess<'de> for Items {
    type Error = Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, Error> {
        self.0
            .next()
            .map(|value| seed.deserialize(Reader(value)))
            .transpose()
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.0.len())
    }
}

/// An object's members: keys read by [`Key`], values by [`Reader`].
struct Members {
    iter: serde_json::map::IntoIter,
    value: Option<Value>,
}

impl<'de> MapAccess<'de> for Members {
    type Error = Error;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Error> {
        match self.iter.next() {
            Some((key, value)) => {
                self.value = Some(value);
                seed.deserialize(Key(key)).map(Some)
            }
            None => Ok(None),
        }
    }

    fn next_value_seed<V: DeserializeSeed<'de>>(&mut self, seed: V) -> Result<V::Value, Error> {
        match self.value.take() {
            Some(value) => seed.deserialize(Reader(value)),
            None => Err(de::Error::custom("value is missing")),
        }
    }

    fn size_hint(&self) -> Option<usize> {
        Some(self.iter.len())
    }
}

/// A map's key: a string, read as a number or a boolean when the key's type asks for one (a
/// map keyed by tab ids is written `{"12": …}`), as serde_json reads keys.
struct Key(String);

macro_rules! parsed_key {
    ($($method:ident => $visit:ident: $ty:ty),* $(,)?) => {
        $(
            fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
                match self.0.parse::<$ty>() {
                    Ok(n) => visitor.$visit(n),
                    Err(_) => Err(de::Error::invalid_type(Unexpected::Str(&self.0), &visitor)),
                }
            }
        )*
    };
}

impl<'de> Deserializer<'de> for Key {
    type Error = Error;

    fn deserialize_any<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_string(self.0)
    }

    parsed_key! {
        deserialize_bool => visit_bool: bool,
        deserialize_i8 => visit_i8: i8,
        deserialize_i16 => visit_i16: i16,
        deserialize_i32 => visit_i32: i32,
        deserialize_i64 => visit_i64: i64,
        deserialize_u8 => visit_u8: u8,
        deserialize_u16 => visit_u16: u16,
        deserialize_u32 => visit_u32: u32,
        deserialize_u64 => visit_u64: u64,
        deserialize_f32 => visit_f32: f32,
        deserialize_f64 => visit_f64: f64,
    }

    fn deserialize_option<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, Error> {
        visitor.visit_some(self)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_newtype_struct(self)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        visitor.visit_enum(Variant {
            name: self.0,
            content: None,
        })
    }

    forward_to_deserialize_any! {
        i128 u128 char str string bytes byte_buf unit unit_struct seq tuple tuple_struct map
        struct identifier ignored_any
    }
}

/// An enum's variant: its name and, unless it is a unit variant, its content.
struct Variant {
    name: String,
    content: Option<Value>,
}

impl<'de> EnumAccess<'de> for Variant {
    type Error = Error;
    type Variant = Content;

    fn variant_seed<V: DeserializeSeed<'de>>(self, seed: V) -> Result<(V::Value, Content), Error> {
        let name: de::value::StringDeserializer<Error> = self.name.into_deserializer();
        Ok((seed.deserialize(name)?, Content(self.content)))
    }
}

/// The content of an enum's variant.
struct Content(Option<Value>);

impl<'de> VariantAccess<'de> for Content {
    type Error = Error;

    fn unit_variant(self) -> Result<(), Error> {
        match self.0 {
            // `null` or nothing; anything else is refused as `()` refuses it ("expected unit").
            Some(value) => <()>::deserialize(Reader(value)),
            None => Ok(()),
        }
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, Error> {
        match self.0 {
            Some(value) => seed.deserialize(Reader(value)),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"newtype variant",
            )),
        }
    }

    fn tuple_variant<V: Visitor<'de>>(self, _len: usize, visitor: V) -> Result<V::Value, Error> {
        match self.0 {
            Some(Value::Array(items)) => visit_array(items, visitor),
            Some(other) => Err(invalid(&other, &"tuple variant")),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"tuple variant",
            )),
        }
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, Error> {
        match self.0 {
            Some(Value::Object(object)) => visit_object(object, visitor),
            Some(other) => Err(invalid(&other, &"struct variant")),
            None => Err(de::Error::invalid_type(
                Unexpected::UnitVariant,
                &"struct variant",
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sorted_map::SortedMap;
    use serde::Deserialize;
    use serde_json::json;

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "camelCase")]
    struct Call {
        tool_name: String,
        count: u32,
        #[serde(default)]
        note: Option<String>,
        args: Value,
        kind: Kind,
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(rename_all = "snake_case")]
    enum Kind {
        Plain,
        Named(String),
        Pair(u8, u8),
        Shaped { w: u8 },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(tag = "type", rename_all = "camelCase")]
    enum Tagged {
        Text { text: String },
        Image { data: String },
    }

    #[derive(Debug, PartialEq, Deserialize)]
    #[serde(untagged)]
    enum Either {
        Number(i64),
        Words(Vec<String>),
    }

    /// What serde_json's own reader makes of the same value: the two must agree, value or
    /// error text, except for structs written as arrays.
    fn both<T: DeserializeOwned + PartialEq + std::fmt::Debug>(value: Value) -> Result<T, String> {
        let theirs = serde_json::from_value::<T>(value.clone()).map_err(|e| e.to_string());
        let ours = from_value::<T>(value).map_err(|e| e.to_string());
        assert_eq!(ours, theirs);
        ours
    }

    #[test]
    fn reads_what_serde_json_reads() {
        let call =
            json!({"toolName": "t", "count": 3, "args": {"a": [1, "x", null]}, "kind": "plain"});
        assert_eq!(
            both::<Call>(call),
            Ok(Call {
                tool_name: "t".into(),
                count: 3,
                note: None,
                args: json!({"a": [1, "x", null]}),
                kind: Kind::Plain
            })
        );
        for (kind, want) in [
            (json!({"named": "n"}), Kind::Named("n".into())),
            (json!({"pair": [1, 2]}), Kind::Pair(1, 2)),
            (json!({"shaped": {"w": 7}}), Kind::Shaped { w: 7 }),
        ] {
            let call =
                json!({"toolName": "t", "count": 0, "note": "n", "args": null, "kind": kind});
            assert_eq!(both::<Call>(call).map(|c| c.kind), Ok(want));
        }
        assert_eq!(
            both::<Vec<Tagged>>(
                json!([{"type": "text", "text": "a"}, {"type": "image", "data": "b"}])
            ),
            Ok(vec![
                Tagged::Text { text: "a".into() },
                Tagged::Image { data: "b".into() }
            ])
        );
        assert_eq!(both::<Either>(json!(-4)), Ok(Either::Number(-4)));
        assert_eq!(
            both::<Either>(json!(["a"])),
            Ok(Either::Words(vec!["a".into()]))
        );
        assert_eq!(both::<(u8, String)>(json!([1, "a"])), Ok((1, "a".into())));
        assert_eq!(both::<f64>(json!(1.5)), Ok(1.5));
        assert_eq!(both::<Option<u8>>(json!(null)), Ok(None));
        assert_eq!(
            both::<Value>(json!({"b": 1, "a": [true]})),
            Ok(json!({"b": 1, "a": [true]}))
        );
    }

    #[test]
    fn each_type_reads_its_kind_of_value_and_refuses_the_others_as_serde_json_does() {
        let values = [
            json!(null),
            json!(true),
            json!(7),
            json!(-7),
            json!(1.5),
            json!("x"),
            json!(["x"]),
            json!({"x": 1}),
        ];
        for value in values {
            let _ = both::<bool>(value.clone());
            let _ = both::<u32>(value.clone());
            let _ = both::<i64>(value.clone());
            let _ = both::<f64>(value.clone());
            let _ = both::<String>(value.clone());
            let _ = both::<Vec<String>>(value.clone());
            let _ = both::<std::collections::BTreeMap<String, u8>>(value.clone());
            let _ = both::<Option<u8>>(value.clone());
            let _ = both::<()>(value);
        }
    }

    #[test]
    fn reads_numeric_and_boolean_keys() {
        let tabs = json!({"12": "a", "3": "b"});
        let read = both::<SortedMap<u32, String>>(tabs).expect("numeric keys");
        assert_eq!(read.get(&12).map(String::as_str), Some("a"));
        assert_eq!(
            both::<std::collections::BTreeMap<bool, u8>>(json!({"true": 1})),
            Ok([(true, 1)].into())
        );
        // serde_json words this one differently ("expected numeric key"): refused all the same.
        assert!(from_value::<SortedMap<u32, String>>(json!({"x": "a"})).is_err());
    }

    #[test]
    fn errors_say_what_serde_json_says() {
        for value in [
            json!({"toolName": 1, "count": 3, "args": null, "kind": "plain"}),
            json!({"toolName": "t", "count": -1, "args": null, "kind": "plain"}),
            json!({"toolName": "t", "args": null, "kind": "plain"}),
            json!({"toolName": "t", "count": 1, "args": null, "kind": "other"}),
            json!({"toolName": "t", "count": 1, "args": null, "kind": {"a": 1, "b": 2}}),
            json!({"toolName": "t", "count": 1, "args": null, "kind": 5}),
            json!({"toolName": "t", "count": 1, "args": null, "kind": {"plain": 1}}),
            json!("text"),
            json!(null),
        ] {
            assert!(both::<Call>(value).is_err());
        }
        assert!(both::<(u8,)>(json!([1, 2])).is_err());
        assert!(both::<Tagged>(json!({"type": "video"})).is_err());
    }

    #[test]
    fn a_struct_is_an_object_never_an_array() {
        let theirs = serde_json::from_value::<Call>(json!(["t", 1, null, null, "plain"]));
        assert!(theirs.is_ok(), "serde_json reads the array form");
        let ours = from_value::<Call>(json!(["t", 1, null, null, "plain"])).unwrap_err();
        assert_eq!(
            ours.to_string(),
            "invalid type: sequence, expected struct Call"
        );
    }
}
