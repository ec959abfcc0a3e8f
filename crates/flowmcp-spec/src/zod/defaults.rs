//! Reading the text of a `default(...)` option as a typed JSON value: [`parse_default`]
//! and its [`DefaultError`].

use serde_json::Value;
use thiserror::Error;

use super::{Primitive, parse_finite, quote};
use crate::js::number_value;

/// Why the text of a `default(...)` option cannot be read as a value of the primitive's
/// type ([`parse_default`]).
///
/// The display text is the reason quoted by `ZodError::InvalidDefault`.
#[derive(Clone, Debug, PartialEq, Eq, Error)]
pub enum DefaultError {
    /// `number()`: the text is not a finite decimal number.
    #[error("\"{text}\" is not a number")]
    NotANumber {
        /// The trimmed text, shortened to a quotable prefix.
        text: String,
    },
    /// `boolean()`: the text is neither `true` nor `false`.
    #[error("\"{text}\" is not a boolean; expected true or false")]
    NotABoolean {
        /// The trimmed text, shortened to a quotable prefix.
        text: String,
    },
    /// `array()`: valid JSON, but not an array.
    #[error("expected a JSON array such as [] or [\"a\"]")]
    NotAnArray,
    /// `object()`: valid JSON, but not an object.
    #[error("expected a JSON object such as {{\"a\":1}}")]
    NotAnObject,
    /// `array()` / `object()`: the text is not JSON.
    #[error("expected a JSON {expected}: {reason}")]
    InvalidJson {
        /// `array` or `object`.
        expected: &'static str,
        /// The JSON parser's message.
        reason: String,
    },
}

/// Reads `text` as a JSON string literal `"..."`, if it is one.
fn json_string_literal(text: &str) -> Option<String> {
    if text.len() >= 2 && text.starts_with('"') && text.ends_with('"') {
        serde_json::from_str::<String>(text).ok()
    } else {
        None
    }
}

/// Interprets the text of `default(...)` for a primitive:
///
/// * `number()`: a finite decimal number (`10`, `0.025`, `-1`); integral values become
///   JSON integers.
/// * `boolean()`: `true` or `false`.
/// * `string()`: the text verbatim, or the decoded string when the whole text is a JSON
///   string literal (`default("43114")` → `43114`); `default()` is the empty string.
/// * `enum(...)`: like `string()` but trimmed. Membership is not checked here.
/// * `array()` / `object()`: JSON text of an array / object (`default([])`).
///
/// Whitespace around number, boolean, array and object text is ignored.
pub fn parse_default(primitive: &Primitive, text: &str) -> Result<Value, DefaultError> {
    let trimmed = text.trim();
    match primitive {
        Primitive::String => Ok(Value::String(
            json_string_literal(trimmed).unwrap_or_else(|| text.to_string()),
        )),
        Primitive::Enum(_) => Ok(Value::String(
            json_string_literal(trimmed).unwrap_or_else(|| trimmed.to_string()),
        )),
        Primitive::Number => {
            parse_finite(trimmed)
                .and_then(number_value)
                .ok_or_else(|| DefaultError::NotANumber {
                    text: quote(trimmed),
                })
        }
        Primitive::Boolean => match trimmed {
            "true" => Ok(Value::Bool(true)),
            "false" => Ok(Value::Bool(false)),
            _ => Err(DefaultError::NotABoolean {
                text: quote(trimmed),
            }),
        },
        Primitive::Array => match serde_json::from_str::<Value>(trimmed) {
            Ok(v @ Value::Array(_)) => Ok(v),
            Ok(_) => Err(DefaultError::NotAnArray),
            Err(e) => Err(DefaultError::InvalidJson {
                expected: "array",
                reason: e.to_string(),
            }),
        },
        Primitive::Object => match serde_json::from_str::<Value>(trimmed) {
            Ok(v @ Value::Object(_)) => Ok(v),
            Ok(_) => Err(DefaultError::NotAnObject),
            Err(e) => Err(DefaultError::InvalidJson {
                expected: "object",
                reason: e.to_string(),
            }),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zod::test_support::z;
    use crate::zod::{ZType, ZodError};
    use serde_json::json;

    #[test]
    fn defaults_are_typed_per_primitive() {
        let cases: Vec<(&str, &str, Value)> = vec![
            ("number()", "default(10)", json!(10)),
            ("number()", "default(1.0)", json!(1)),
            ("number()", "default(0.025)", json!(0.025)),
            ("number()", "default( -1 )", json!(-1)),
            ("number()", "default(1e21)", json!(1e21)),
            ("boolean()", "default(true)", json!(true)),
            ("boolean()", "default(false)", json!(false)),
            ("string()", "default(desc)", json!("desc")),
            ("string()", "default(10)", json!("10")),
            ("string()", "default()", json!("")),
            ("string()", "default(score desc, x)", json!("score desc, x")),
            ("string()", "default(\"43114\")", json!("43114")),
            ("string()", "default([])", json!("[]")),
            (
                "string()",
                r#"default("{ a(x: \"u\") }")"#,
                json!("{ a(x: \"u\") }"),
            ),
            ("enum(a,b)", "default( b )", json!("b")),
            ("enum(1,2)", "default(\"1\")", json!("1")),
            ("array()", "default([\"ofac\"])", json!(["ofac"])),
            ("object()", "default({\"adult\":1})", json!({"adult": 1})),
        ];
        for (p, o, expected) in cases {
            let zt = z(p, &[o]);
            assert_eq!(zt.default_value(), Ok(Some(expected)), "{p} {o}");
        }
        assert_eq!(z("number()", &[]).default_value(), Ok(None));
    }

    #[test]
    fn parse_default_errors_are_typed() {
        assert_eq!(
            parse_default(&Primitive::Number, " abc "),
            Err(DefaultError::NotANumber { text: "abc".into() })
        );
        assert_eq!(
            parse_default(&Primitive::Boolean, "yes"),
            Err(DefaultError::NotABoolean { text: "yes".into() })
        );
        assert_eq!(
            parse_default(&Primitive::Array, "{}"),
            Err(DefaultError::NotAnArray)
        );
        assert_eq!(
            parse_default(&Primitive::Object, "[]"),
            Err(DefaultError::NotAnObject)
        );
        assert!(matches!(
            parse_default(&Primitive::Array, "a,b"),
            Err(DefaultError::InvalidJson {
                expected: "array",
                ..
            })
        ));
        assert!(matches!(
            parse_default(&Primitive::Object, "x"),
            Err(DefaultError::InvalidJson {
                expected: "object",
                ..
            })
        ));
        // The display texts are the reasons of `ZodError::InvalidDefault`.
        let long = "x".repeat(100);
        let e = parse_default(&Primitive::Number, &long).unwrap_err();
        assert_eq!(
            e.to_string(),
            format!("\"{}…\" is not a number", "x".repeat(60))
        );
        assert_eq!(
            DefaultError::NotABoolean { text: "1".into() }.to_string(),
            "\"1\" is not a boolean; expected true or false"
        );
        assert_eq!(
            DefaultError::NotAnArray.to_string(),
            "expected a JSON array such as [] or [\"a\"]"
        );
        assert_eq!(
            DefaultError::NotAnObject.to_string(),
            "expected a JSON object such as {\"a\":1}"
        );
        let json_error = serde_json::from_str::<Value>("{").unwrap_err();
        assert_eq!(
            parse_default(&Primitive::Object, "{")
                .unwrap_err()
                .to_string(),
            format!("expected a JSON object: {json_error}")
        );
    }

    #[test]
    fn bad_defaults_are_reported() {
        for (p, o, reason_part) in [
            ("number()", "default(abc)", "is not a number"),
            ("number()", "default(\"12\")", "is not a number"),
            ("number()", "default(Infinity)", "is not a number"),
            ("boolean()", "default(yes)", "is not a boolean"),
            ("array()", "default(a,b)", "expected a JSON array"),
            ("array()", "default({})", "expected a JSON array"),
            ("object()", "default([])", "expected a JSON object"),
            ("object()", "default(x)", "expected a JSON object"),
        ] {
            match ZType::parse(p, &[o], false) {
                Err(ZodError::InvalidDefault {
                    option,
                    primitive,
                    reason,
                    ..
                }) => {
                    assert_eq!(option, o);
                    assert_eq!(primitive, p);
                    assert!(reason.contains(reason_part), "{p} {o}: {reason}");
                }
                other => panic!("{p} {o}: {other:?}"),
            }
        }
        let e = ZType::parse("boolean()", &["default(yes)"], false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "option \"default(yes)\" does not fit boolean(): \"yes\" is not a boolean; expected true or false"
        );
    }
}
