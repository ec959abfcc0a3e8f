//! Property tests for the `z` grammar (and the canonical JSON it is hashed with).

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use flowmcp_spec::hash::{canonical_json, schema_hash};
use flowmcp_spec::placeholder::find_interpolations;
use flowmcp_spec::zod::{
    EnumItem, JsRegex, Options, Primitive, ZOption, ZType, enum_has_padded_values,
};
use proptest::prelude::*;
use serde_json::{Number, Value};

/// A literal enum value as the specification allows it: no comma, no braces, no spaces.
fn arb_literal() -> impl Strategy<Value = String> {
    "[A-Za-z0-9_.()-]{1,12}"
}

fn arb_name() -> impl Strategy<Value = String> {
    "[A-Za-z][A-Za-z0-9_-]{0,10}"
}

fn arb_item() -> impl Strategy<Value = EnumItem> {
    prop_oneof![
        4 => arb_literal().prop_map(EnumItem::Literal),
        1 => (arb_name(), arb_name()).prop_map(|(list, field)| EnumItem::List { list, field }),
    ]
}

fn arb_json() -> impl Strategy<Value = Value> {
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::Bool),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        any::<f64>().prop_filter_map("finite", |f| Number::from_f64(f).map(Value::Number)),
        ".{0,20}".prop_map(Value::String),
    ];
    leaf.prop_recursive(4, 64, 6, |inner| {
        prop_oneof![
            prop::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            prop::collection::vec((".{0,8}", inner), 0..6)
                .prop_map(|members| Value::Object(members.into_iter().collect())),
        ]
    })
}

/// A selection of z blocks covering every primitive and option kind.
fn sample_types() -> Vec<ZType> {
    let blocks: [(&str, &[&str]); 12] = [
        ("string()", &[]),
        ("string()", &["min(2)", "max(5)", "regex(^[a-z]+$)"]),
        ("string()", &["length(3)", "default(abc)"]),
        ("number()", &["min(-1.5)", "max(100)", "default(1)"]),
        ("number()", &[]),
        ("boolean()", &["optional()", "default(false)"]),
        ("enum(a,b,c)", &["default(a)"]),
        ("enum(x,{{list:field}})", &[]),
        ("enum()", &["values(1,2,3)"]),
        ("array()", &["min(1)", "max(3)", "length(2)"]),
        ("object()", &["optional()"]),
        ("array()", &["default([])"]),
    ];
    blocks
        .iter()
        .filter_map(|(p, o)| ZType::parse(p, o, true).ok())
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn enum_items_round_trip(items in prop::collection::vec(arb_item(), 1..10)) {
        let primitive = Primitive::Enum(items);
        let text = primitive.to_string();
        prop_assert_eq!(Primitive::parse(&text), Ok(primitive.clone()));
        prop_assert!(!enum_has_padded_values(&text));
    }

    #[test]
    fn padded_enum_values_are_trimmed(values in prop::collection::vec(arb_literal(), 1..8)) {
        let padded = format!(" enum( {} ) ", values.join(" , "));
        let parsed = Primitive::parse(&padded).unwrap();
        prop_assert_eq!(parsed.literal_values(), values.iter().map(String::as_str).collect::<Vec<_>>());
        prop_assert!(enum_has_padded_values(&padded));
    }

    #[test]
    fn compat_values_round_trip(values in prop::collection::vec(arb_literal(), 1..8)) {
        let option = format!("values({})", values.join(","));
        let z = ZType::parse("enum()", &[option.as_str()], true).unwrap();
        prop_assert_eq!(z.enum_values(), values.iter().map(String::as_str).collect::<Vec<_>>());
        for v in &values {
            prop_assert!(z.validate(&Value::String(v.clone())).is_ok());
        }
    }

    #[test]
    fn options_round_trip_through_display(
        min in -1.0e6f64..1.0e6,
        max in any::<i32>(),
        length in any::<u32>(),
        default in "[^()]{0,12}",
    ) {
        let texts = vec![
            ZOption::Min(min).to_string(),
            ZOption::Max(f64::from(max)).to_string(),
            ZOption::Length(u64::from(length)).to_string(),
            ZOption::Optional.to_string(),
            ZOption::Default(default.clone()).to_string(),
        ];
        let parsed = Options::parse(&texts, false).unwrap();
        prop_assert_eq!(
            parsed.items,
            vec![
                ZOption::Min(min),
                ZOption::Max(f64::from(max)),
                ZOption::Length(u64::from(length)),
                ZOption::Optional,
                ZOption::Default(default),
            ]
        );
    }

    #[test]
    fn coerced_number_display_validates(n in any::<f64>().prop_filter("finite", |f| f.is_finite())) {
        let z = ZType::parse("number()", &[] as &[&str], false).unwrap();
        let value = z.coerce_str(&n.to_string()).unwrap();
        prop_assert!(z.validate(&value).is_ok());
        prop_assert_eq!(value.as_f64(), Some(if n == 0.0 { 0.0 } else { n }));
    }

    #[test]
    fn coerced_integer_display_validates(n in any::<i32>()) {
        let z = ZType::parse("number()", &["min(-2147483648)", "max(2147483647)"], false).unwrap();
        let value = z.coerce_str(&n.to_string()).unwrap();
        prop_assert_eq!(&value, &Value::from(n));
        prop_assert!(z.validate(&value).is_ok());
    }

    #[test]
    fn coerced_booleans_and_strings_validate(b in any::<bool>(), s in ".{0,30}") {
        let zb = ZType::parse("boolean()", &[] as &[&str], false).unwrap();
        prop_assert_eq!(zb.coerce_str(&b.to_string()), Ok(Value::Bool(b)));
        let zs = ZType::parse("string()", &[] as &[&str], false).unwrap();
        let v = zs.coerce_str(&s).unwrap();
        prop_assert_eq!(&v, &Value::String(s));
        prop_assert!(zs.validate(&v).is_ok());
    }

    #[test]
    fn coerced_json_text_round_trips(v in arb_json()) {
        let text = serde_json::to_string(&v).unwrap();
        let za = ZType::parse("array()", &[] as &[&str], false).unwrap();
        let zo = ZType::parse("object()", &[] as &[&str], false).unwrap();
        match &v {
            Value::Array(_) => prop_assert_eq!(za.coerce_str(&text), Ok(v.clone())),
            Value::Object(_) => prop_assert_eq!(zo.coerce_str(&text), Ok(v.clone())),
            _ => {
                prop_assert!(za.coerce_str(&text).is_err());
                prop_assert!(zo.coerce_str(&text).is_err());
            }
        }
    }

    #[test]
    fn number_bounds_are_inclusive(lo in -1000i32..1000, width in 0i32..1000, x in -3000i32..3000) {
        let hi = lo + width;
        let options = [format!("min({lo})"), format!("max({hi})")];
        let z = ZType::parse("number()", &options, false).unwrap();
        prop_assert_eq!(z.validate(&Value::from(x)).is_ok(), lo <= x && x <= hi);
    }

    #[test]
    fn string_length_counts_characters(s in ".{0,20}", n in 0u64..25) {
        let options = [format!("length({n})")];
        let z = ZType::parse("string()", &options, false).unwrap();
        prop_assert_eq!(
            z.validate(&Value::String(s.clone())).is_ok(),
            s.chars().count() as u64 == n
        );
    }

    #[test]
    fn validate_never_panics(v in arb_json()) {
        for z in sample_types() {
            let _ = z.validate(&v);
            let _ = z.apply_default(Some(&v));
            if let Value::String(s) = &v {
                let _ = z.coerce_str(s);
            }
        }
    }

    #[test]
    fn parsing_never_panics(text in ".{0,40}", compat in any::<bool>()) {
        let _ = Primitive::parse(&text);
        let _ = ZOption::parse(&text, 0, compat);
        let _ = enum_has_padded_values(&text);
        let _ = find_interpolations(&text);
        let _ = JsRegex::new(&text);
        if let Ok(z) = ZType::parse(&text, &[text.as_str()], compat) {
            let _ = z.default_value();
            let _ = z.check_default();
            let _ = z.coerce_str(&text);
        }
    }

    #[test]
    fn structured_garbage_never_panics(
        name in prop_oneof![Just("enum"), Just("string"), Just("min"), Just("regex"), Just("values"), Just("default"), Just("length")],
        body in "[a-z0-9{}:,()\\[\\]\\\\^$.*+?|/-]{0,16}",
        compat in any::<bool>(),
    ) {
        let text = format!("{name}({body})");
        let _ = Primitive::parse(&text);
        let _ = ZOption::parse(&text, 3, compat);
        let _ = JsRegex::new(&body);
        for primitive in ["string()", "number()", "boolean()", "enum(a)", "array()", "object()"] {
            let _ = ZType::parse(primitive, &[text.as_str()], compat);
        }
    }

    #[test]
    fn regex_accepts_escaped_literals(s in ".{1,12}") {
        // A pattern that is the escaped literal (as `regex::escape` writes it) matches the text.
        let r = JsRegex::new(&format!("^{}$", regex_escape_js(&s)));
        prop_assert!(r.is_ok(), "{:?}", r.err());
        if let Ok(r) = r {
            prop_assert!(r.is_match(&s));
        }
    }

    #[test]
    fn interpolations_are_found_where_they_are(
        parts in prop::collection::vec(("[a-z /]{0,6}", arb_name()), 0..5),
    ) {
        let mut text = String::new();
        for (prefix, name) in &parts {
            text.push_str(prefix);
            text.push_str("{{");
            text.push_str(name);
            text.push_str("}}");
        }
        let found = find_interpolations(&text);
        prop_assert_eq!(found.len(), parts.len());
        for (i, (_, name)) in found.iter().zip(&parts) {
            prop_assert_eq!(&i.inner, name);
            prop_assert_eq!(&text[i.start..i.end], format!("{{{{{name}}}}}"));
        }
    }

    #[test]
    fn canonical_json_is_stable(v in arb_json()) {
        let once = canonical_json(&v);
        let reparsed: Value = serde_json::from_str(&once).unwrap();
        prop_assert_eq!(canonical_json(&reparsed), once);
        prop_assert_eq!(schema_hash(&v).len(), 8);
    }
}

/// Escapes a literal for a JavaScript pattern: every ASCII punctuation character gets a
/// backslash.
fn regex_escape_js(text: &str) -> String {
    let mut out = String::new();
    for c in text.chars() {
        if c.is_ascii_punctuation() {
            out.push('\\');
        }
        out.push(c);
    }
    out
}
