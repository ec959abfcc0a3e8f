//! `z.options`: one parsed entry ([`ZOption`]) and the whole list ([`Options`]),
//! including the compat `values(...)` and `regex(...)` options.

use std::fmt;

use super::primitive::parse_enum_items;
use super::{EnumItem, JsRegex, ZodError, parse_finite};
use crate::js::number_to_string;

/// One parsed entry of `z.options`.
#[derive(Clone, Debug, PartialEq)]
pub enum ZOption {
    /// `min(n)`: lower bound for numbers, minimum length for strings and arrays.
    Min(f64),
    /// `max(n)`: upper bound for numbers, maximum length for strings and arrays.
    Max(f64),
    /// `length(n)`: exact length of strings and arrays.
    Length(u64),
    /// `optional()`.
    Optional,
    /// `default(value)`: the raw text between the parentheses, not trimmed. See
    /// [`parse_default`](super::parse_default) for its meaning per primitive.
    Default(String),
    /// `values(a,b)` (compat): the values of an `enum()`.
    Values(Vec<EnumItem>),
    /// `regex(pattern)` (compat): strings must match.
    Regex(JsRegex),
}

impl ZOption {
    /// The option's name: `min`, `max`, `length`, `optional`, `default`, `values`, `regex`.
    pub fn name(&self) -> &'static str {
        match self {
            ZOption::Min(_) => "min",
            ZOption::Max(_) => "max",
            ZOption::Length(_) => "length",
            ZOption::Optional => "optional",
            ZOption::Default(_) => "default",
            ZOption::Values(_) => "values",
            ZOption::Regex(_) => "regex",
        }
    }

    /// Parses one entry of `z.options`; `index` is its position, used in errors.
    pub fn parse(text: &str, index: usize, compat: bool) -> Result<ZOption, ZodError> {
        let expected = if compat {
            "min(n), max(n), length(n), optional(), default(value), values(a,b) or regex(pattern)"
        } else {
            "min(n), max(n), length(n), optional() or default(value)"
        };
        let known = [
            "min", "max", "length", "optional", "default", "values", "regex",
        ];
        let t = text.trim();
        if t.is_empty() {
            return Err(ZodError::EmptyOption { index });
        }
        let malformed = |reason: &str| ZodError::MalformedOption {
            index,
            option: text.to_string(),
            reason: reason.to_string(),
        };
        let unknown = || ZodError::UnknownOption {
            index,
            option: text.to_string(),
            expected,
        };
        let Some(open) = t.find('(') else {
            return Err(if known.contains(&t) {
                malformed(&format!("missing parentheses; write {t}(...)"))
            } else {
                unknown()
            });
        };
        let name = t[..open].trim();
        if !known.contains(&name) {
            return Err(unknown());
        }
        if !t.ends_with(')') {
            return Err(malformed("an option must end with \")\""));
        }
        let argument = &t[open + 1..t.len() - 1];
        match name {
            "min" | "max" => {
                let n = parse_finite(argument.trim())
                    .ok_or_else(|| malformed(&format!("{name}() needs a number")))?;
                Ok(if name == "min" {
                    ZOption::Min(n)
                } else {
                    ZOption::Max(n)
                })
            }
            "length" => argument
                .trim()
                .parse::<u64>()
                .map(ZOption::Length)
                .map_err(|_| malformed("length() needs a non-negative integer")),
            "optional" => {
                if argument.trim().is_empty() {
                    Ok(ZOption::Optional)
                } else {
                    Err(malformed("optional() takes no argument"))
                }
            }
            "default" => Ok(ZOption::Default(argument.to_string())),
            "values" | "regex" if !compat => Err(ZodError::CompatOnlyOption {
                index,
                option: text.to_string(),
                name: if name == "values" { "values" } else { "regex" },
            }),
            "values" => {
                let items = parse_enum_items(argument).map_err(|e| malformed(&e.to_string()))?;
                if items.is_empty() {
                    return Err(malformed("values() needs at least one value"));
                }
                Ok(ZOption::Values(items))
            }
            _ => JsRegex::new(argument)
                .map(ZOption::Regex)
                .map_err(|e| ZodError::InvalidRegex {
                    index,
                    option: text.to_string(),
                    reason: e.to_string(),
                }),
        }
    }
}

impl fmt::Display for ZOption {
    /// The canonical text, e.g. `min(1)`, `default(10)`, `values(a,b)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ZOption::Min(n) => write!(f, "min({})", number_to_string(*n)),
            ZOption::Max(n) => write!(f, "max({})", number_to_string(*n)),
            ZOption::Length(n) => write!(f, "length({n})"),
            ZOption::Optional => f.write_str("optional()"),
            ZOption::Default(text) => write!(f, "default({text})"),
            ZOption::Values(items) => {
                f.write_str("values(")?;
                for (i, item) in items.iter().enumerate() {
                    if i > 0 {
                        f.write_str(",")?;
                    }
                    write!(f, "{item}")?;
                }
                f.write_str(")")
            }
            ZOption::Regex(r) => write!(f, "regex({})", r.source()),
        }
    }
}

/// The parsed `z.options` list, in declaration order. Constraints combine with AND.
#[derive(Clone, Debug, Default, PartialEq)]
#[non_exhaustive]
pub struct Options {
    /// The entries, in declaration order.
    pub items: Vec<ZOption>,
}

impl Options {
    /// Parses every entry; the first bad entry is the error.
    pub fn parse<S: AsRef<str>>(options: &[S], compat: bool) -> Result<Options, ZodError> {
        let items = options
            .iter()
            .enumerate()
            .map(|(i, o)| ZOption::parse(o.as_ref(), i, compat))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Options { items })
    }

    /// Parses every entry, keeping the good ones and returning every error (for a
    /// validator that reports all problems at once).
    pub fn parse_lenient<S: AsRef<str>>(options: &[S], compat: bool) -> (Options, Vec<ZodError>) {
        let mut items = Vec::new();
        let mut errors = Vec::new();
        for (i, o) in options.iter().enumerate() {
            match ZOption::parse(o.as_ref(), i, compat) {
                Ok(item) => items.push(item),
                Err(e) => errors.push(e),
            }
        }
        (Options { items }, errors)
    }

    /// True when the parameter may be omitted: `optional()` or any `default(...)`.
    pub fn is_optional(&self) -> bool {
        self.items
            .iter()
            .any(|o| matches!(o, ZOption::Optional | ZOption::Default(_)))
    }

    /// The raw text of the effective `default(...)` (the last one wins, as in Zod).
    pub fn default_text(&self) -> Option<&str> {
        self.items.iter().rev().find_map(|o| match o {
            ZOption::Default(text) => Some(text.as_str()),
            _ => None,
        })
    }

    /// All items of all `values(...)` options, in order.
    pub fn values_items(&self) -> Vec<&EnumItem> {
        self.items
            .iter()
            .filter_map(|o| match o {
                ZOption::Values(items) => Some(items.iter()),
                _ => None,
            })
            .flatten()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zod::test_support::lit;

    #[test]
    fn parses_spec_options() {
        let o = Options::parse(
            &[
                "min(1)",
                "max(100)",
                "length(42)",
                "optional()",
                "default(10)",
            ],
            false,
        )
        .unwrap();
        assert_eq!(
            o.items,
            vec![
                ZOption::Min(1.0),
                ZOption::Max(100.0),
                ZOption::Length(42),
                ZOption::Optional,
                ZOption::Default("10".into())
            ]
        );
        assert!(o.is_optional());
        assert_eq!(o.default_text(), Some("10"));
    }

    #[test]
    fn option_numbers_may_be_negative_or_fractional() {
        let o = Options::parse(&[" min( -180 ) ", "max(13.8)"], false).unwrap();
        assert_eq!(o.items, vec![ZOption::Min(-180.0), ZOption::Max(13.8)]);
    }

    #[test]
    fn option_display_is_canonical() {
        let o = Options::parse(
            &[
                "min(1)",
                "max(13.8)",
                "length(4)",
                "optional()",
                "default(x y)",
                "values(a,{{l:f}})",
                "regex(/^a$/i)",
            ],
            true,
        )
        .unwrap();
        let texts: Vec<String> = o.items.iter().map(ToString::to_string).collect();
        assert_eq!(
            texts,
            vec![
                "min(1)",
                "max(13.8)",
                "length(4)",
                "optional()",
                "default(x y)",
                "values(a,{{l:f}})",
                "regex(/^a$/i)"
            ]
        );
        let names: Vec<&str> = o.items.iter().map(ZOption::name).collect();
        assert_eq!(
            names,
            vec![
                "min", "max", "length", "optional", "default", "values", "regex"
            ]
        );
    }

    #[test]
    fn default_makes_optional_and_last_default_wins() {
        let o = Options::parse(&["default(1)", "default(2)"], false).unwrap();
        assert!(o.is_optional());
        assert_eq!(o.default_text(), Some("2"));
        assert!(!Options::parse(&["min(1)"], false).unwrap().is_optional());
        assert_eq!(Options::default().default_text(), None);
    }

    #[test]
    fn unknown_option_names_the_option() {
        let e = Options::parse(&["min(1)", "foo(3)"], false).unwrap_err();
        assert_eq!(
            e,
            ZodError::UnknownOption {
                index: 1,
                option: "foo(3)".into(),
                expected: "min(n), max(n), length(n), optional() or default(value)"
            }
        );
        assert_eq!(
            e.to_string(),
            "unknown option \"foo(3)\"; expected min(n), max(n), length(n), optional() or default(value)"
        );
        assert!(matches!(
            ZOption::parse("nonsense", 0, true),
            Err(ZodError::UnknownOption { expected, .. }) if expected.contains("regex")
        ));
    }

    #[test]
    fn empty_option_is_reported() {
        let e = ZOption::parse("  ", 2, false).unwrap_err();
        assert_eq!(e, ZodError::EmptyOption { index: 2 });
        assert_eq!(e.to_string(), "option #3 is empty");
    }

    #[test]
    fn malformed_options_are_reported() {
        let cases = [
            ("min(abc)", "min() needs a number"),
            ("max()", "max() needs a number"),
            ("min(inf)", "min() needs a number"),
            ("max(NaN)", "max() needs a number"),
            ("length(4.5)", "length() needs a non-negative integer"),
            ("length(-1)", "length() needs a non-negative integer"),
            ("optional(true)", "optional() takes no argument"),
            ("optional(), default(1000)", "optional() takes no argument"),
            ("optional", "missing parentheses; write optional(...)"),
            ("min(1", "an option must end with \")\""),
        ];
        for (text, reason) in cases {
            match ZOption::parse(text, 0, false) {
                Err(ZodError::MalformedOption {
                    option, reason: r, ..
                }) => {
                    assert_eq!(option, text);
                    assert_eq!(r, reason, "{text}");
                }
                other => panic!("{text}: {other:?}"),
            }
        }
        let e = ZOption::parse("min(abc)", 0, false).unwrap_err();
        assert_eq!(
            e.to_string(),
            "malformed option \"min(abc)\": min() needs a number"
        );
    }

    #[test]
    fn compat_only_options_need_the_flag() {
        for (text, name) in [("values(a,b)", "values"), ("regex(^a$)", "regex")] {
            let e = ZOption::parse(text, 0, false).unwrap_err();
            assert_eq!(
                e,
                ZodError::CompatOnlyOption {
                    index: 0,
                    option: text.into(),
                    name
                }
            );
            assert!(e.to_string().contains("only the compat profile accepts"));
        }
        assert!(ZOption::parse("values(a,b)", 0, true).is_ok());
        assert!(ZOption::parse("regex(^a$)", 0, true).is_ok());
    }

    #[test]
    fn values_option_parses_items() {
        assert_eq!(
            ZOption::parse("values(1, 8453,{{l:f}})", 0, true),
            Ok(ZOption::Values(vec![
                lit("1"),
                lit("8453"),
                EnumItem::List {
                    list: "l".into(),
                    field: "f".into()
                }
            ]))
        );
        assert!(matches!(
            ZOption::parse("values()", 0, true),
            Err(ZodError::MalformedOption { reason, .. }) if reason == "values() needs at least one value"
        ));
        assert!(matches!(
            ZOption::parse("values(a,,b)", 0, true),
            Err(ZodError::MalformedOption { reason, .. }) if reason.contains("#2 is empty")
        ));
    }

    #[test]
    fn parse_lenient_collects_every_error() {
        let (o, errors) =
            Options::parse_lenient(&["min(1)", "bogus()", "max(x)", "optional()"], false);
        assert_eq!(o.items, vec![ZOption::Min(1.0), ZOption::Optional]);
        assert_eq!(errors.len(), 2);
        assert!(matches!(
            errors[0],
            ZodError::UnknownOption { index: 1, .. }
        ));
        assert!(matches!(
            errors[1],
            ZodError::MalformedOption { index: 2, .. }
        ));
    }
}
