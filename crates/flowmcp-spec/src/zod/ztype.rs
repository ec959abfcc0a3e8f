//! [`ZType`], a whole `z` block (primitive plus options): parsing, the effective default,
//! options without effect, and list resolution. Checking and converting values is in the
//! sibling module `check`.

use serde_json::Value;

use super::{EnumItem, Options, Primitive, ZOption, ZValueError, ZodError, parse_default};

/// A parsed `z` block: the primitive plus its options.
///
/// With the compat flag, the items of `values(...)` options are appended to the enum's
/// items when the primitive is an enum (so `enum()` + `values(a,b)` is `enum(a,b)`);
/// on other primitives `values(...)` has no effect.
#[derive(Clone, Debug, PartialEq)]
pub struct ZType {
    /// The parsed `z.primitive`; an enum also holds the items of compat `values(...)`.
    pub primitive: Primitive,
    /// The parsed `z.options`, in declaration order.
    pub options: Options,
}

/// Whether a primitive that failed to parse may still become an enum: in compat, `enum()` is
/// acceptable when `values(...)` options supply the values.
fn enum_from_values(parsed: &Result<Primitive, ZodError>, compat: bool) -> bool {
    compat && *parsed == Err(ZodError::EmptyEnum)
}

impl ZType {
    /// Parses `z.primitive` and `z.options`. Fails on the first problem, in this order: an
    /// invalid primitive, an unknown or malformed option, a `default(...)` that cannot be
    /// read as a value of the primitive's type ([`parse_default`]). To report every
    /// problem, use [`Primitive::parse`] and [`Options::parse_lenient`] directly.
    pub fn parse<S: AsRef<str>>(
        primitive: &str,
        options: &[S],
        compat: bool,
    ) -> Result<ZType, ZodError> {
        let parsed = Primitive::parse(primitive);
        // The primitive's problem comes first: then the options need not be read.
        let options = if parsed.is_err() && !enum_from_values(&parsed, compat) {
            Ok(Options::default())
        } else {
            Options::parse(options, compat)
        };
        ZType::from_parts(parsed, options, compat)
    }

    /// [`ZType::parse`] of a primitive and options parsed already ([`Primitive::parse`] of
    /// `z.primitive`, [`Options::parse`] of `z.options`): the same `ZType`, or the same first
    /// problem. For a caller that keeps the parsed parts, such as a validator whose rules each
    /// read a parameter's `z`.
    pub fn from_parts(
        parsed: Result<Primitive, ZodError>,
        options: Result<Options, ZodError>,
        compat: bool,
    ) -> Result<ZType, ZodError> {
        if let Err(e) = &parsed
            && !enum_from_values(&parsed, compat)
        {
            return Err(e.clone());
        }
        let options = options?;
        let mut primitive = match parsed {
            Ok(p) => p,
            Err(e) if options.values_items().is_empty() => return Err(e),
            Err(_) => Primitive::Enum(Vec::new()),
        };
        if let Primitive::Enum(items) = &mut primitive {
            items.extend(options.values_items().into_iter().cloned());
        }
        let z = ZType { primitive, options };
        z.default_value()?;
        Ok(z)
    }

    /// True when the parameter may be omitted (`optional()` or `default(...)`).
    pub fn is_optional(&self) -> bool {
        self.options.is_optional()
    }

    /// The index and raw text of the effective `default(...)` (the last one).
    fn effective_default(&self) -> Option<(usize, &str)> {
        self.options
            .items
            .iter()
            .enumerate()
            .rev()
            .find_map(|(i, o)| match o {
                ZOption::Default(text) => Some((i, text.as_str())),
                _ => None,
            })
    }

    fn invalid_default(&self, index: usize, text: &str, reason: String) -> ZodError {
        ZodError::InvalidDefault {
            index,
            option: format!("default({text})"),
            primitive: format!("{}()", self.primitive.name()),
            reason,
        }
    }

    /// The typed value of the effective `default(...)`, if any ([`parse_default`]).
    pub fn default_value(&self) -> Result<Option<Value>, ZodError> {
        let Some((index, text)) = self.effective_default() else {
            return Ok(None);
        };
        parse_default(&self.primitive, text)
            .map(Some)
            .map_err(|e| self.invalid_default(index, text, e.to_string()))
    }

    /// Checks that the default, if any, also satisfies the enum values and the options
    /// (a default that fails would make every call without the parameter fail).
    /// [`ZType::parse`] only checks that the default has the right type.
    pub fn check_default(&self) -> Result<(), ZodError> {
        let Some((index, text)) = self.effective_default() else {
            return Ok(());
        };
        let Some(value) = self.default_value()? else {
            return Ok(());
        };
        self.validate(&value)
            .map_err(|e| self.invalid_default(index, text, e.to_string()))
    }

    /// Fills in an omitted value: `Some(value)` is returned unchanged (not validated);
    /// `None` becomes the default if there is one, stays `None` for an optional
    /// parameter, and is [`ZValueError::Missing`] otherwise. The default is not
    /// re-validated; see [`ZType::check_default`].
    pub fn apply_default(&self, value: Option<&Value>) -> Result<Option<Value>, ZValueError> {
        if let Some(v) = value {
            return Ok(Some(v.clone()));
        }
        match self.default_value() {
            Ok(Some(d)) => Ok(Some(d)),
            _ if self.is_optional() => Ok(None),
            _ => Err(ZValueError::Missing),
        }
    }

    /// The enum's literal values including those from `values(...)` (empty for other
    /// primitives).
    pub fn enum_values(&self) -> Vec<&str> {
        self.primitive.literal_values()
    }

    /// Indices into `options` of entries that have no effect on this primitive: `min` and
    /// `max` except on number, string and array; `length` except on string and array;
    /// `regex` except on string; `values` except on enum.
    pub fn ignored_options(&self) -> Vec<usize> {
        let p = &self.primitive;
        self.options
            .items
            .iter()
            .enumerate()
            .filter(|(_, o)| match o {
                ZOption::Min(_) | ZOption::Max(_) => {
                    !matches!(p, Primitive::Number | Primitive::String | Primitive::Array)
                }
                ZOption::Length(_) => !matches!(p, Primitive::String | Primitive::Array),
                ZOption::Regex(_) => !matches!(p, Primitive::String),
                ZOption::Values(_) => !matches!(p, Primitive::Enum(_)),
                ZOption::Optional | ZOption::Default(_) => false,
            })
            .map(|(i, _)| i)
            .collect()
    }

    /// Replaces every `{{list:field}}` enum item by the values `resolve(list, field)`
    /// returns (already filtered by the caller), keeping item order and dropping
    /// duplicates. `None` from the resolver is [`ZodError::UnresolvedList`]; an enum that
    /// ends up empty is [`ZodError::EmptyEnum`].
    pub fn resolve_lists<F>(&self, mut resolve: F) -> Result<ZType, ZodError>
    where
        F: FnMut(&str, &str) -> Option<Vec<String>>,
    {
        let Primitive::Enum(items) = &self.primitive else {
            return Ok(self.clone());
        };
        let mut resolved: Vec<EnumItem> = Vec::with_capacity(items.len());
        let push = |value: String, out: &mut Vec<EnumItem>| {
            if !out
                .iter()
                .any(|e| matches!(e, EnumItem::Literal(v) if *v == value))
            {
                out.push(EnumItem::Literal(value));
            }
        };
        for item in items {
            match item {
                EnumItem::Literal(v) => push(v.clone(), &mut resolved),
                EnumItem::List { list, field } => {
                    let values = resolve(list, field).ok_or_else(|| ZodError::UnresolvedList {
                        list: list.clone(),
                        field: field.clone(),
                    })?;
                    for v in values {
                        push(v, &mut resolved);
                    }
                }
            }
        }
        if resolved.is_empty() {
            return Err(ZodError::EmptyEnum);
        }
        Ok(ZType {
            primitive: Primitive::Enum(resolved),
            options: self.options.clone(),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::zod::test_support::{z, zc};
    use serde_json::json;

    #[test]
    fn apply_default_fills_omitted_values() {
        let with_default = z("number()", &["min(1)", "default(20)"]);
        assert_eq!(with_default.apply_default(None), Ok(Some(json!(20))));
        assert_eq!(
            with_default.apply_default(Some(&json!(5))),
            Ok(Some(json!(5)))
        );
        let optional = z("string()", &["optional()"]);
        assert_eq!(optional.apply_default(None), Ok(None));
        let required = z("string()", &[]);
        assert_eq!(required.apply_default(None), Err(ZValueError::Missing));
        assert_eq!(ZValueError::Missing.to_string(), "a value is required");
    }

    #[test]
    fn check_default_applies_constraints() {
        assert!(
            z("number()", &["min(1)", "default(0)"])
                .check_default()
                .is_err()
        );
        assert!(
            z("number()", &["min(1)", "default(1)"])
                .check_default()
                .is_ok()
        );
        let e = z("enum(a,b)", &["min(1)", "default(c)"])
            .check_default()
            .unwrap_err();
        assert_eq!(
            e.to_string(),
            "option \"default(c)\" does not fit enum(): \"c\" is not one of the allowed values: a, b"
        );
        assert!(matches!(e, ZodError::InvalidDefault { index: 1, .. }));
        assert!(z("string()", &[]).check_default().is_ok());
        // A default that does not fit the type (only reachable by building ZType by hand).
        let hand_made = ZType {
            primitive: Primitive::Boolean,
            options: Options {
                items: vec![ZOption::Default("x".into())],
            },
        };
        assert!(matches!(
            hand_made.check_default(),
            Err(ZodError::InvalidDefault { index: 0, .. })
        ));
    }

    // ---- ZType::parse ----

    #[test]
    fn ztype_parse_reports_primitive_and_option_errors() {
        assert_eq!(
            ZType::parse("enum()", &["default(a)"], false),
            Err(ZodError::EmptyEnum)
        );
        assert!(matches!(
            ZType::parse("string()", &["regex(^a$)"], false),
            Err(ZodError::CompatOnlyOption { .. })
        ));
        assert!(matches!(
            ZType::parse("strin()", &[] as &[&str], true),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        // The primitive is judged first, then the options.
        assert!(matches!(
            ZType::parse("strin()", &["bogus()"], false),
            Err(ZodError::UnknownPrimitive { .. })
        ));
        assert!(matches!(
            ZType::parse("enum()", &["bogus()", "values(a)"], true),
            Err(ZodError::UnknownOption { index: 0, .. })
        ));
    }

    /// Parsing the parts first and putting them together gives what parsing the block does, under
    /// both profiles, for good blocks and for each kind of problem in either part (issue #46).
    #[test]
    fn i46_from_parts_is_parse() {
        let blocks: &[(&str, &[&str])] = &[
            ("string()", &[]),
            ("string()", &["min(1)", "max(5)", "default(ab)"]),
            ("number()", &["default(x)"]),
            ("number()", &["min(1)", "bogus()", "max(2)"]),
            ("enum()", &["values(a,b)", "default(a)"]),
            ("enum()", &["default(a)"]),
            ("enum()", &["bogus()", "values(a)"]),
            ("enum(a,b)", &["default(c)"]),
            ("enum(a, b)", &["optional()"]),
            ("strin()", &["bogus()"]),
            ("String()", &[]),
            ("array()", &["regex(^a$)", "optional()"]),
            ("boolean()", &["", "default(true)"]),
            ("object()", &["values(a)"]),
        ];
        for compat in [false, true] {
            for (primitive, options) in blocks {
                assert_eq!(
                    ZType::from_parts(
                        Primitive::parse(primitive),
                        Options::parse(options, compat),
                        compat
                    ),
                    ZType::parse(primitive, options, compat),
                    "{primitive} {options:?} compat={compat}"
                );
            }
        }
    }

    #[test]
    fn compat_values_supply_enum_values() {
        let zt = zc("enum()", &["values(1,8453,137,10,42161)", "default(1)"]);
        assert_eq!(zt.enum_values(), vec!["1", "8453", "137", "10", "42161"]);
        assert_eq!(zt.default_value(), Ok(Some(json!("1"))));
        assert!(zt.validate(&json!("8453")).is_ok());
        assert!(zt.validate(&json!("2")).is_err());
        // Appended to explicit enum values.
        let zt = zc("enum(a)", &["values(b)"]);
        assert_eq!(zt.enum_values(), vec!["a", "b"]);
        // Without values(), enum() stays an error even in compat.
        assert_eq!(
            ZType::parse("enum()", &["optional()"], true),
            Err(ZodError::EmptyEnum)
        );
        // On other primitives values() has no effect.
        let zt = zc("string()", &["values(a,b)"]);
        assert!(zt.validate(&json!("zzz")).is_ok());
        assert_eq!(zt.ignored_options(), vec![0]);
    }

    #[test]
    fn ignored_options_are_listed() {
        assert_eq!(
            z(
                "boolean()",
                &["min(1)", "max(2)", "length(3)", "optional()"]
            )
            .ignored_options(),
            vec![0, 1, 2]
        );
        assert_eq!(
            z("number()", &["min(1)", "length(3)", "default(1)"]).ignored_options(),
            vec![1]
        );
        assert!(
            z("string()", &["min(1)", "length(3)"])
                .ignored_options()
                .is_empty()
        );
        assert!(
            z("array()", &["min(1)", "length(3)"])
                .ignored_options()
                .is_empty()
        );
        assert_eq!(
            zc("enum(a)", &["regex(a)", "min(1)"]).ignored_options(),
            vec![0, 1]
        );
        assert!(zc("string()", &["regex(a)"]).ignored_options().is_empty());
        assert_eq!(z("object()", &["length(1)"]).ignored_options(), vec![0]);
    }

    // ---- list resolution ----

    #[test]
    fn resolve_lists_replaces_interpolations() {
        let zt = z(
            "enum(custom,{{evmChains:alias}},ETHEREUM)",
            &["default(custom)"],
        );
        assert!(
            zt.validate(&json!("anything")).is_ok(),
            "unresolved: lenient"
        );
        let resolved = zt
            .resolve_lists(|list, field| {
                assert_eq!((list, field), ("evmChains", "alias"));
                Some(vec!["ETHEREUM".into(), "POLYGON".into()])
            })
            .unwrap();
        assert_eq!(
            resolved.enum_values(),
            vec!["custom", "ETHEREUM", "POLYGON"]
        );
        assert_eq!(
            resolved.primitive.to_string(),
            "enum(custom,ETHEREUM,POLYGON)"
        );
        assert!(resolved.validate(&json!("POLYGON")).is_ok());
        assert!(resolved.validate(&json!("anything")).is_err());
        assert_eq!(resolved.options, zt.options);
    }

    #[test]
    fn resolve_lists_errors() {
        let zt = z("enum({{a:b}})", &[]);
        let e = zt.resolve_lists(|_, _| None).unwrap_err();
        assert_eq!(
            e,
            ZodError::UnresolvedList {
                list: "a".into(),
                field: "b".into()
            }
        );
        assert_eq!(
            e.to_string(),
            "list interpolation {{a:b}} cannot be resolved"
        );
        assert_eq!(
            zt.resolve_lists(|_, _| Some(Vec::new())),
            Err(ZodError::EmptyEnum)
        );
        let plain = z("string()", &[]);
        assert_eq!(plain.resolve_lists(|_, _| None), Ok(plain.clone()));
    }
}
