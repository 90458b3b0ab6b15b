//! One pass over a schema object's keys, so lowering reads keywords by field, not by hashing
//! each keyword name into the object's map again (dozens of lookups per schema node).

use serde_json::{Map, Value};

/// The JSON Schema keywords the renderer understands.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum K {
    Ref,
    Const,
    Enum,
    Type,
    AnyOf,
    OneOf,
    AllOf,
    Not,
    If,
    Then,
    Else,
    Nullable,
    Description,
    Title,
    Default,
    Examples,
    Example,
    Deprecated,
    ReadOnly,
    WriteOnly,
    Format,
    ContentEncoding,
    ContentMediaType,
    MinLength,
    MaxLength,
    Pattern,
    Minimum,
    Maximum,
    ExclusiveMinimum,
    ExclusiveMaximum,
    MultipleOf,
    Items,
    PrefixItems,
    AdditionalItems,
    MinItems,
    MaxItems,
    UniqueItems,
    Contains,
    Properties,
    Required,
    AdditionalProperties,
    PatternProperties,
    PropertyNames,
    MinProperties,
    MaxProperties,
    DependentRequired,
    Dependencies,
    DependentSchemas,
}

const COUNT: usize = K::DependentSchemas as usize + 1;

/// The keyword values of one schema object.
pub(crate) struct Keywords<'a> {
    values: [Option<&'a Value>; COUNT],
}

impl<'a> Keywords<'a> {
    #[inline]
    pub fn of(map: &'a Map<String, Value>) -> Self {
        // Filled in place (a named return value), not copied out of a local array.
        let mut keywords = Keywords {
            values: [None; COUNT],
        };
        for (key, value) in map {
            // Byte-string patterns compile to a decision tree over the bytes, not a chain of
            // string comparisons.
            let keyword = match key.as_bytes() {
                b"if" => K::If,
                b"not" => K::Not,
                b"$ref" => K::Ref,
                b"enum" => K::Enum,
                b"type" => K::Type,
                b"then" => K::Then,
                b"else" => K::Else,
                b"const" => K::Const,
                b"anyOf" => K::AnyOf,
                b"oneOf" => K::OneOf,
                b"allOf" => K::AllOf,
                b"title" => K::Title,
                b"items" => K::Items,
                b"format" => K::Format,
                b"default" => K::Default,
                b"example" => K::Example,
                b"pattern" => K::Pattern,
                b"minimum" => K::Minimum,
                b"maximum" => K::Maximum,
                b"nullable" => K::Nullable,
                b"examples" => K::Examples,
                b"readOnly" => K::ReadOnly,
                b"minItems" => K::MinItems,
                b"maxItems" => K::MaxItems,
                b"contains" => K::Contains,
                b"required" => K::Required,
                b"writeOnly" => K::WriteOnly,
                b"minLength" => K::MinLength,
                b"maxLength" => K::MaxLength,
                b"deprecated" => K::Deprecated,
                b"multipleOf" => K::MultipleOf,
                b"properties" => K::Properties,
                b"description" => K::Description,
                b"prefixItems" => K::PrefixItems,
                b"uniqueItems" => K::UniqueItems,
                b"dependencies" => K::Dependencies,
                b"propertyNames" => K::PropertyNames,
                b"minProperties" => K::MinProperties,
                b"maxProperties" => K::MaxProperties,
                b"contentEncoding" => K::ContentEncoding,
                b"additionalItems" => K::AdditionalItems,
                b"contentMediaType" => K::ContentMediaType,
                b"exclusiveMinimum" => K::ExclusiveMinimum,
                b"exclusiveMaximum" => K::ExclusiveMaximum,
                b"dependentSchemas" => K::DependentSchemas,
                b"patternProperties" => K::PatternProperties,
                b"dependentRequired" => K::DependentRequired,
                b"additionalProperties" => K::AdditionalProperties,
                _ => continue,
            };
            keywords.values[keyword as usize] = Some(value);
        }
        keywords
    }

    pub fn get(&self, keyword: K) -> Option<&'a Value> {
        self.values[keyword as usize]
    }

    pub fn has(&self, keyword: K) -> bool {
        self.values[keyword as usize].is_some()
    }
}
