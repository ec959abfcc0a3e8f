//! `z.primitive`: the base type of a parameter ([`Primitive`]) and the items of
//! `enum(...)` / `values(...)` ([`EnumItem`]), plus [`enum_has_padded_values`] for the
//! specification's "no spaces around commas".

use std::fmt;

use super::ZodError;
use crate::placeholder::{InterpolationKind, find_double, find_interpolations};

/// The six primitive names, without parentheses.
const PRIMITIVE_NAMES: [&str; 6] = ["string", "number", "boolean", "enum", "array", "object"];

/// One item of `enum(...)` or `values(...)`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum EnumItem {
    /// A literal value, trimmed.
    Literal(String),
    /// A shared-list interpolation `{{list:field}}`, resolved at load time.
    List {
        /// The name of the shared list.
        list: String,
        /// The field of the list's entries whose values are used.
        field: String,
    },
}

impl fmt::Display for EnumItem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EnumItem::Literal(v) => f.write_str(v),
            EnumItem::List { list, field } => write!(f, "{{{{{list}:{field}}}}}"),
        }
    }
}

/// The base type of a parameter, parsed from `z.primitive`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Primitive {
    /// `string()`.
    String,
    /// `number()`.
    Number,
    /// `boolean()`.
    Boolean,
    /// `enum(A,B,{{list:field}})`. Never empty when produced by [`Primitive::parse`].
    Enum(Vec<EnumItem>),
    /// `array()`.
    Array,
    /// `object()`.
    Object,
}

impl Primitive {
    /// Parses `z.primitive`: `string()`, `number()`, `boolean()`, `enum(A,B,C)`, `array()`
    /// or `object()`. Whitespace around the text, around the name and inside empty
    /// parentheses is tolerated; enum values are split on `,` and trimmed. The enum values
    /// are the text between the first `(` and the last `)`.
    pub fn parse(text: &str) -> Result<Primitive, ZodError> {
        let t = text.trim();
        let Some(open) = t.find('(') else {
            return Err(if PRIMITIVE_NAMES.contains(&t) {
                ZodError::MissingParentheses {
                    name: t.to_string(),
                }
            } else {
                ZodError::UnknownPrimitive {
                    text: text.to_string(),
                }
            });
        };
        let name = t[..open].trim();
        if !PRIMITIVE_NAMES.contains(&name) || !t.ends_with(')') {
            return Err(ZodError::UnknownPrimitive {
                text: text.to_string(),
            });
        }
        let argument = &t[open + 1..t.len() - 1];
        if name == "enum" {
            let items = parse_enum_items(argument)?;
            if items.is_empty() {
                return Err(ZodError::EmptyEnum);
            }
            return Ok(Primitive::Enum(items));
        }
        if !argument.trim().is_empty() {
            if let Some(found) = find_interpolations(argument)
                .into_iter()
                .find(|i| i.as_list_ref().is_some())
            {
                return Err(ZodError::InterpolationOutsideEnum {
                    name: name.to_string(),
                    interpolation: found.text(),
                });
            }
            return Err(ZodError::UnexpectedArgument {
                name: name.to_string(),
                argument: argument.trim().to_string(),
            });
        }
        Ok(match name {
            "string" => Primitive::String,
            "number" => Primitive::Number,
            "boolean" => Primitive::Boolean,
            "array" => Primitive::Array,
            _ => Primitive::Object,
        })
    }

    /// The bare name: `string`, `number`, `boolean`, `enum`, `array` or `object`.
    pub fn name(&self) -> &'static str {
        match self {
            Primitive::String => "string",
            Primitive::Number => "number",
            Primitive::Boolean => "boolean",
            Primitive::Enum(_) => "enum",
            Primitive::Array => "array",
            Primitive::Object => "object",
        }
    }

    /// The enum items (empty for other primitives).
    pub fn enum_items(&self) -> &[EnumItem] {
        match self {
            Primitive::Enum(items) => items,
            _ => &[],
        }
    }

    /// The literal enum values, in order (empty for other primitives).
    pub fn literal_values(&self) -> Vec<&str> {
        self.enum_items()
            .iter()
            .filter_map(|i| match i {
                EnumItem::Literal(v) => Some(v.as_str()),
                EnumItem::List { .. } => None,
            })
            .collect()
    }

    /// The `(list, field)` pairs of the enum's list interpolations, in order.
    pub fn list_refs(&self) -> Vec<(&str, &str)> {
        self.enum_items()
            .iter()
            .filter_map(|i| match i {
                EnumItem::List { list, field } => Some((list.as_str(), field.as_str())),
                EnumItem::Literal(_) => None,
            })
            .collect()
    }

    /// True for an enum that still has unresolved list interpolations.
    pub fn has_unresolved_lists(&self) -> bool {
        self.enum_items()
            .iter()
            .any(|i| matches!(i, EnumItem::List { .. }))
    }
}

impl fmt::Display for Primitive {
    /// The canonical text: `string()`, `enum(a,b,{{list:field}})`, …
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Primitive::Enum(items) => {
                f.write_str("enum(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
            other => write!(f, "{}()", other.name()),
        }
    }
}

/// Splits the inside of `enum(...)` / `values(...)` into items. An all-blank argument
/// yields no items; an empty item between commas is an error.
pub(super) fn parse_enum_items(argument: &str) -> Result<Vec<EnumItem>, ZodError> {
    if argument.trim().is_empty() {
        return Ok(Vec::new());
    }
    let mut items = Vec::new();
    for (i, raw) in argument.split(',').enumerate() {
        let item = raw.trim();
        if item.is_empty() {
            return Err(ZodError::EmptyEnumValue { position: i + 1 });
        }
        if find_double(item, '{').is_some() || find_double(item, '}').is_some() {
            let parsed = item
                .strip_prefix("{{")
                .and_then(|s| s.strip_suffix("}}"))
                .and_then(|inner| match InterpolationKind::of(inner) {
                    InterpolationKind::ListRef { list, field } => Some(EnumItem::List {
                        list: list.to_string(),
                        field: field.to_string(),
                    }),
                    _ => None,
                });
            match parsed {
                Some(list_item) => items.push(list_item),
                None => {
                    return Err(ZodError::InvalidListInterpolation {
                        item: item.to_string(),
                    });
                }
            }
        } else {
            items.push(EnumItem::Literal(item.to_string()));
        }
    }
    Ok(items)
}

/// True when `z.primitive` is an `enum(...)` whose values have whitespace around them,
/// e.g. `enum(GET, POST)`. [`Primitive::parse`] trims such values; the specification
/// says "no spaces around commas", so a validator may want to report it.
pub fn enum_has_padded_values(text: &str) -> bool {
    let t = text.trim();
    let Some(open) = t.find('(') else {
        return false;
    };
    if t[..open].trim() != "enum" || !t.ends_with(')') {
        return false;
    }
    let argument = &t[open + 1..t.len() - 1];
    !argument.trim().is_empty() && argument.split(',').any(|v| v.trim() != v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zod::test_support::lit;

    #[test]
    fn parses_simple_primitives() {
        assert_eq!(Primitive::parse("string()"), Ok(Primitive::String));
        assert_eq!(Primitive::parse("number()"), Ok(Primitive::Number));
        assert_eq!(Primitive::parse("boolean()"), Ok(Primitive::Boolean));
        assert_eq!(Primitive::parse("array()"), Ok(Primitive::Array));
        assert_eq!(Primitive::parse("object()"), Ok(Primitive::Object));
    }

    #[test]
    fn primitive_tolerates_whitespace() {
        assert_eq!(Primitive::parse("  string()  "), Ok(Primitive::String));
        assert_eq!(Primitive::parse("number ( )"), Ok(Primitive::Number));
        assert_eq!(
            Primitive::parse(" enum( a , b ) "),
            Ok(Primitive::Enum(vec![lit("a"), lit("b")]))
        );
    }

    #[test]
    fn parses_enum_values() {
        assert_eq!(
            Primitive::parse("enum(GET,POST,PUT,DELETE)"),
            Ok(Primitive::Enum(vec![
                lit("GET"),
                lit("POST"),
                lit("PUT"),
                lit("DELETE")
            ]))
        );
        assert_eq!(
            Primitive::parse("enum(1,5,137)").unwrap().literal_values(),
            vec!["1", "5", "137"]
        );
    }

    #[test]
    fn enum_values_span_first_open_to_last_close() {
        let p = Primitive::parse("enum(a(1),b)").unwrap();
        assert_eq!(p.literal_values(), vec!["a(1)", "b"]);
    }

    #[test]
    fn parses_enum_with_list_interpolation() {
        let p = Primitive::parse("enum(custom,{{evmChains:etherscanAlias}})").unwrap();
        assert_eq!(
            p,
            Primitive::Enum(vec![
                lit("custom"),
                EnumItem::List {
                    list: "evmChains".into(),
                    field: "etherscanAlias".into()
                }
            ])
        );
        assert_eq!(p.list_refs(), vec![("evmChains", "etherscanAlias")]);
        assert!(p.has_unresolved_lists());
        assert_eq!(p.literal_values(), vec!["custom"]);
    }

    #[test]
    fn primitive_display_is_canonical() {
        for text in [
            "string()",
            "number()",
            "boolean()",
            "array()",
            "object()",
            "enum(a,b,{{l:f}})",
        ] {
            assert_eq!(Primitive::parse(text).unwrap().to_string(), text);
        }
        assert_eq!(
            Primitive::parse(" enum( a , b )").unwrap().to_string(),
            "enum(a,b)"
        );
    }

    #[test]
    fn primitive_names_and_items() {
        assert_eq!(Primitive::String.name(), "string");
        assert_eq!(Primitive::Object.name(), "object");
        assert!(Primitive::Number.enum_items().is_empty());
        assert!(Primitive::Number.list_refs().is_empty());
        assert!(!Primitive::Number.has_unresolved_lists());
    }

    #[test]
    fn unknown_primitive_is_reported() {
        let e = Primitive::parse("strin()").unwrap_err();
        assert_eq!(
            e.to_string(),
            "unknown primitive \"strin()\"; expected string(), number(), boolean(), enum(...), array() or object()"
        );
        assert!(matches!(
            Primitive::parse("integer()"),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            Primitive::parse(""),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            Primitive::parse("String()"),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            Primitive::parse("string("),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            Primitive::parse("string()x"),
            Err(ZodError::UnknownPrimitive { .. })
        ));
    }

    #[test]
    fn missing_parentheses_is_reported() {
        let e = Primitive::parse(" string ").unwrap_err();
        assert_eq!(
            e,
            ZodError::MissingParentheses {
                name: "string".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "primitive \"string\" is missing its parentheses; write string()"
        );
    }

    #[test]
    fn argument_on_non_enum_is_reported() {
        let e = Primitive::parse("string(x)").unwrap_err();
        assert_eq!(
            e,
            ZodError::UnexpectedArgument {
                name: "string".into(),
                argument: "x".into()
            }
        );
        assert_eq!(e.to_string(), "string() takes no argument (found \"x\")");
    }

    #[test]
    fn interpolation_outside_enum_is_reported() {
        let e = Primitive::parse("string({{evmChains:alias}})").unwrap_err();
        assert_eq!(
            e,
            ZodError::InterpolationOutsideEnum {
                name: "string".into(),
                interpolation: "{{evmChains:alias}}".into()
            }
        );
        assert!(e.to_string().contains("only allowed inside enum(...)"));
    }

    #[test]
    fn empty_enum_is_distinct() {
        assert_eq!(Primitive::parse("enum()"), Err(ZodError::EmptyEnum));
        assert_eq!(Primitive::parse("enum(   )"), Err(ZodError::EmptyEnum));
        assert!(
            ZodError::EmptyEnum
                .to_string()
                .contains("at least one value")
        );
    }

    #[test]
    fn empty_enum_item_is_reported() {
        assert_eq!(
            Primitive::parse("enum(a,,b)"),
            Err(ZodError::EmptyEnumValue { position: 2 })
        );
        let e = Primitive::parse("enum(a,b,)").unwrap_err();
        assert_eq!(e, ZodError::EmptyEnumValue { position: 3 });
        assert_eq!(
            e.to_string(),
            "enum value #3 is empty (check for a stray comma)"
        );
    }

    #[test]
    fn bad_list_interpolation_is_reported() {
        for text in [
            "enum({{evmChains}})",
            "enum(x{{a:b}})",
            "enum({{a:b}}y)",
            "enum({{a:b:c}})",
            "enum({{USER_PARAM}})",
            "enum(a}})",
        ] {
            assert!(
                matches!(
                    Primitive::parse(text),
                    Err(ZodError::InvalidListInterpolation { .. })
                ),
                "{text}"
            );
        }
        let e = Primitive::parse("enum({{x}})").unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"{{x}}\" is not a list interpolation; expected {{listName:fieldName}}"
        );
    }

    #[test]
    fn padded_enum_values_are_detected() {
        assert!(enum_has_padded_values("enum(GET, POST)"));
        assert!(enum_has_padded_values("enum( a)"));
        assert!(!enum_has_padded_values("enum(GET,POST)"));
        assert!(!enum_has_padded_values(" enum(a,b) "));
        assert!(!enum_has_padded_values("enum()"));
        assert!(!enum_has_padded_values("string( )"));
        assert!(!enum_has_padded_values("enum"));
        assert!(!enum_has_padded_values("enum(a"));
    }

    #[test]
    fn interpolation_edge_cases() {
        assert!(find_interpolations("no braces").is_empty());
        assert!(find_interpolations("{{unterminated").is_empty());
        let nested = find_interpolations("{{a{{b:c}} {{d}}");
        assert_eq!(nested.len(), 2);
        assert_eq!(nested[0].inner, "b:c");
        assert_eq!(nested[0].start, 3);
        assert_eq!(nested[1].inner, "d");
        let multibyte = find_interpolations("é{{ü}}");
        assert_eq!(multibyte[0].start, 2);
        assert_eq!(multibyte[0].inner, "ü");
        assert_eq!(multibyte[0].kind(), InterpolationKind::Other("ü"));
    }
}
