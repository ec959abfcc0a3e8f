//! Checking and converting values against a [`ZType`]: [`ZType::validate`] (a strict
//! check of a JSON value) and [`ZType::coerce_str`] (text from the command line or a fixed
//! `position.value`).

use serde_json::Value;

use super::{Primitive, ZOption, ZType, ZValueError, json_kind, parse_finite, quote};
use crate::js::{number_to_string, number_value};

/// How many allowed values an enum error message lists at most.
const LIST_LIMIT: usize = 20;

impl ZType {
    /// Checks a JSON value strictly: the JSON type must match the primitive (no coercion),
    /// an enum value must be one of the literal values (any string is accepted while the
    /// enum still has unresolved list items), then every applicable option must hold.
    /// String lengths count Unicode scalar values.
    pub fn validate(&self, value: &Value) -> Result<(), ZValueError> {
        let expected = match &self.primitive {
            Primitive::String | Primitive::Enum(_) => "a string",
            Primitive::Number => "a number",
            Primitive::Boolean => "a boolean",
            Primitive::Array => "an array",
            Primitive::Object => "an object",
        };
        let type_ok = match &self.primitive {
            Primitive::String | Primitive::Enum(_) => value.is_string(),
            Primitive::Number => value.is_number(),
            Primitive::Boolean => value.is_boolean(),
            Primitive::Array => value.is_array(),
            Primitive::Object => value.is_object(),
        };
        if !type_ok {
            return Err(ZValueError::Type {
                expected,
                found: json_kind(value),
            });
        }
        if let (Primitive::Enum(_), Value::String(s)) = (&self.primitive, value) {
            let allowed = self.primitive.literal_values();
            if !self.primitive.has_unresolved_lists() && !allowed.contains(&s.as_str()) {
                let mut list = allowed
                    .iter()
                    .take(LIST_LIMIT)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(", ");
                if allowed.len() > LIST_LIMIT {
                    list.push_str(&format!(", … ({} more)", allowed.len() - LIST_LIMIT));
                }
                return Err(ZValueError::NotInEnum {
                    value: quote(s),
                    allowed: list,
                });
            }
        }
        for option in &self.options.items {
            self.check_option(option, value)?;
        }
        Ok(())
    }

    fn check_option(&self, option: &ZOption, value: &Value) -> Result<(), ZValueError> {
        // Length of strings (chars) and arrays (items), with the unit for messages.
        let length = match (&self.primitive, value) {
            (Primitive::String, Value::String(s)) => Some((s.chars().count(), "characters")),
            (Primitive::Array, Value::Array(a)) => Some((a.len(), "items")),
            _ => None,
        };
        let number = match (&self.primitive, value) {
            (Primitive::Number, Value::Number(n)) => n.as_f64(),
            _ => None,
        };
        match option {
            ZOption::Min(min) => {
                if let Some(n) = number.filter(|n| n < min) {
                    return Err(ZValueError::BelowMin {
                        min: number_to_string(*min),
                        actual: number_to_string(n),
                    });
                }
                if let Some((len, unit)) = length.filter(|(len, _)| (*len as f64) < *min) {
                    return Err(ZValueError::TooShort {
                        min: number_to_string(*min),
                        actual: len,
                        unit,
                    });
                }
            }
            ZOption::Max(max) => {
                if let Some(n) = number.filter(|n| n > max) {
                    return Err(ZValueError::AboveMax {
                        max: number_to_string(*max),
                        actual: number_to_string(n),
                    });
                }
                if let Some((len, unit)) = length.filter(|(len, _)| (*len as f64) > *max) {
                    return Err(ZValueError::TooLong {
                        max: number_to_string(*max),
                        actual: len,
                        unit,
                    });
                }
            }
            ZOption::Length(expected) => {
                if let Some((len, unit)) = length.filter(|(len, _)| *len as u64 != *expected) {
                    return Err(ZValueError::WrongLength {
                        expected: *expected,
                        actual: len,
                        unit,
                    });
                }
            }
            ZOption::Regex(regex) => {
                if let (Primitive::String, Value::String(s)) = (&self.primitive, value)
                    && !regex.is_match(s)
                {
                    return Err(ZValueError::PatternMismatch {
                        pattern: regex.source().to_string(),
                    });
                }
            }
            ZOption::Optional | ZOption::Default(_) | ZOption::Values(_) => {}
        }
        Ok(())
    }

    /// Converts text to a JSON value of the primitive's type, without checking options
    /// (call [`ZType::validate`] afterwards). Used for command-line arguments and for fixed
    /// `position.value` strings:
    ///
    /// * `string()` / `enum(...)`: the text as-is;
    /// * `number()`: a finite decimal number, surrounding whitespace ignored (`"5"` → 5);
    /// * `boolean()`: `true` or `false`, surrounding whitespace ignored;
    /// * `array()` / `object()`: JSON text of an array / object.
    pub fn coerce_str(&self, text: &str) -> Result<Value, ZValueError> {
        let trimmed = text.trim();
        match &self.primitive {
            Primitive::String | Primitive::Enum(_) => Ok(Value::String(text.to_string())),
            Primitive::Number => parse_finite(trimmed).and_then(number_value).ok_or_else(|| {
                ZValueError::NotANumber {
                    text: quote(trimmed),
                }
            }),
            Primitive::Boolean => match trimmed {
                "true" => Ok(Value::Bool(true)),
                "false" => Ok(Value::Bool(false)),
                _ => Err(ZValueError::NotABoolean {
                    text: quote(trimmed),
                }),
            },
            Primitive::Array | Primitive::Object => {
                let expected = if matches!(self.primitive, Primitive::Array) {
                    "array"
                } else {
                    "object"
                };
                let v: Value = serde_json::from_str(trimmed).map_err(|e| ZValueError::NotJson {
                    expected,
                    reason: e.to_string(),
                })?;
                let ok = match expected {
                    "array" => v.is_array(),
                    _ => v.is_object(),
                };
                if ok {
                    Ok(v)
                } else {
                    Err(ZValueError::NotJson {
                        expected,
                        reason: format!("found {}", json_kind(&v)),
                    })
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zod::QUOTE_LIMIT;
    use crate::zod::test_support::{z, zc};
    use serde_json::json;

    // ---- validate ----

    #[test]
    fn validate_checks_json_types_strictly() {
        let cases = [
            ("string()", json!("a"), json!(1)),
            ("number()", json!(1.5), json!("5")),
            ("boolean()", json!(true), json!("true")),
            ("array()", json!([1, "a"]), json!({})),
            ("object()", json!({"a": 1}), json!([])),
            ("enum(a,b)", json!("a"), json!(1)),
        ];
        for (p, good, bad) in cases {
            let zt = z(p, &[]);
            assert!(zt.validate(&good).is_ok(), "{p} {good}");
            assert!(
                matches!(zt.validate(&bad), Err(ZValueError::Type { .. })),
                "{p} {bad}"
            );
        }
        assert_eq!(
            z("number()", &[])
                .validate(&json!("5"))
                .unwrap_err()
                .to_string(),
            "expected a number, found a string"
        );
        assert_eq!(
            z("string()", &[])
                .validate(&Value::Null)
                .unwrap_err()
                .to_string(),
            "expected a string, found null"
        );
        assert_eq!(
            z("array()", &[])
                .validate(&json!(true))
                .unwrap_err()
                .to_string(),
            "expected an array, found a boolean"
        );
        assert_eq!(
            z("object()", &[])
                .validate(&json!([]))
                .unwrap_err()
                .to_string(),
            "expected an object, found an array"
        );
        assert_eq!(
            z("boolean()", &[])
                .validate(&json!({}))
                .unwrap_err()
                .to_string(),
            "expected a boolean, found an object"
        );
    }

    #[test]
    fn validate_enum_membership() {
        let zt = z("enum(mainnet,testnet)", &[]);
        let e = zt.validate(&json!("devnet")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "\"devnet\" is not one of the allowed values: mainnet, testnet"
        );
        // Long lists and long values are shortened.
        let many: Vec<String> = (0..25).map(|i| i.to_string()).collect();
        let zt = z(&format!("enum({})", many.join(",")), &[]);
        let long = "x".repeat(100);
        match zt.validate(&json!(long)).unwrap_err() {
            ZValueError::NotInEnum { value, allowed } => {
                assert_eq!(value.chars().count(), QUOTE_LIMIT + 1);
                assert!(allowed.ends_with(", … (5 more)"), "{allowed}");
            }
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn validate_number_bounds() {
        let zt = z("number()", &["min(1)", "max(100)"]);
        assert!(zt.validate(&json!(1)).is_ok());
        assert!(zt.validate(&json!(100)).is_ok());
        assert!(zt.validate(&json!(50.5)).is_ok());
        assert_eq!(
            zt.validate(&json!(0)).unwrap_err().to_string(),
            "must be at least 1 (found 0)"
        );
        assert_eq!(
            zt.validate(&json!(100.5)).unwrap_err().to_string(),
            "must be at most 100 (found 100.5)"
        );
        // length() is ignored on numbers.
        assert!(
            z("number()", &["length(2)"])
                .validate(&json!(12345))
                .is_ok()
        );
    }

    #[test]
    fn validate_string_lengths() {
        let zt = z("string()", &["min(2)", "max(4)"]);
        assert!(zt.validate(&json!("ab")).is_ok());
        assert!(zt.validate(&json!("ééé")).is_ok(), "characters, not bytes");
        assert_eq!(
            zt.validate(&json!("a")).unwrap_err().to_string(),
            "must have at least 2 characters (found 1)"
        );
        assert_eq!(
            zt.validate(&json!("abcde")).unwrap_err().to_string(),
            "must have at most 4 characters (found 5)"
        );
        let exact = z("string()", &["length(42)"]);
        assert!(
            exact
                .validate(&json!("0x0000000000000000000000000000000000000001"))
                .is_ok()
        );
        assert_eq!(
            exact.validate(&json!("0x1")).unwrap_err().to_string(),
            "must have exactly 42 characters (found 3)"
        );
    }

    #[test]
    fn validate_array_lengths() {
        let zt = z("array()", &["min(1)", "max(2)"]);
        assert!(zt.validate(&json!(["a"])).is_ok());
        assert_eq!(
            zt.validate(&json!([])).unwrap_err().to_string(),
            "must have at least 1 items (found 0)"
        );
        assert!(matches!(
            zt.validate(&json!([1, 2, 3])),
            Err(ZValueError::TooLong { actual: 3, .. })
        ));
        let exact = z("array()", &["length(2)"]);
        assert!(exact.validate(&json!([1, 2])).is_ok());
        assert!(matches!(
            exact.validate(&json!([1])),
            Err(ZValueError::WrongLength {
                expected: 2,
                actual: 1,
                unit: "items"
            })
        ));
    }

    #[test]
    fn validate_ignores_inapplicable_options() {
        assert!(
            z("boolean()", &["min(5)", "max(0)", "length(3)"])
                .validate(&json!(false))
                .is_ok()
        );
        assert!(z("enum(a)", &["min(5)"]).validate(&json!("a")).is_ok());
        assert!(
            z("object()", &["max(0)"])
                .validate(&json!({"a": 1}))
                .is_ok()
        );
        assert!(zc("enum(a)", &["regex(^b$)"]).validate(&json!("a")).is_ok());
    }

    #[test]
    fn validate_regex_on_strings() {
        let zt = zc("string()", &["regex(^0x[a-fA-F0-9]{40}$)"]);
        assert!(
            zt.validate(&json!("0x0000000000000000000000000000000000000001"))
                .is_ok()
        );
        let e = zt.validate(&json!("0x12")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "does not match the pattern ^0x[a-fA-F0-9]{40}$"
        );
    }

    // ---- coerce_str ----

    #[test]
    fn coerce_str_per_primitive() {
        assert_eq!(z("number()", &[]).coerce_str("5"), Ok(json!(5)));
        assert_eq!(z("number()", &[]).coerce_str(" -2.5 "), Ok(json!(-2.5)));
        assert_eq!(z("number()", &[]).coerce_str("1e3"), Ok(json!(1000)));
        assert_eq!(z("boolean()", &[]).coerce_str("true"), Ok(json!(true)));
        assert_eq!(z("boolean()", &[]).coerce_str("false "), Ok(json!(false)));
        assert_eq!(z("string()", &[]).coerce_str(" a b "), Ok(json!(" a b ")));
        assert_eq!(z("enum(a,b)", &[]).coerce_str("b"), Ok(json!("b")));
        assert_eq!(
            z("array()", &[]).coerce_str("[\"bitcoin\",1]"),
            Ok(json!(["bitcoin", 1]))
        );
        assert_eq!(
            z("object()", &[]).coerce_str("{\"sql\":\"SELECT 1\"}"),
            Ok(json!({"sql": "SELECT 1"}))
        );
    }

    #[test]
    fn coerce_str_errors() {
        assert_eq!(
            z("number()", &[])
                .coerce_str("abc")
                .unwrap_err()
                .to_string(),
            "cannot read \"abc\" as a number"
        );
        assert!(z("number()", &[]).coerce_str("NaN").is_err());
        assert!(z("number()", &[]).coerce_str("inf").is_err());
        assert!(z("number()", &[]).coerce_str("").is_err());
        assert_eq!(
            z("boolean()", &[])
                .coerce_str("yes")
                .unwrap_err()
                .to_string(),
            "cannot read \"yes\" as a boolean; expected true or false"
        );
        assert!(z("boolean()", &[]).coerce_str("True").is_err());
        let e = z("array()", &[]).coerce_str("a,b").unwrap_err();
        assert!(matches!(
            e,
            ZValueError::NotJson {
                expected: "array",
                ..
            }
        ));
        assert!(
            e.to_string()
                .starts_with("cannot read the text as a JSON array: ")
        );
        assert_eq!(
            z("array()", &[]).coerce_str("{}").unwrap_err().to_string(),
            "cannot read the text as a JSON array: found an object"
        );
        assert_eq!(
            z("object()", &[])
                .coerce_str("[1]")
                .unwrap_err()
                .to_string(),
            "cannot read the text as a JSON object: found an array"
        );
        let long = "9".repeat(400) + "x";
        match z("number()", &[]).coerce_str(&long).unwrap_err() {
            ZValueError::NotANumber { text } => assert!(text.ends_with('…')),
            other => panic!("{other:?}"),
        }
    }
}
