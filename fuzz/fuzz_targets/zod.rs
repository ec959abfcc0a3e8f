//! Fuzzes the `z` grammar (`flowmcp_spec::zod`): parsing `z.primitive` + `z.options` into a `ZType`
//! (from structured pieces and from raw text, spec and compat), then checking and converting values
//! with it, plus `JsRegex` on arbitrary patterns.
//!
//! Properties (from the module documentation):
//! * the canonical texts round-trip: `Primitive::parse(p.to_string()) == p` and
//!   `ZOption::parse(o.to_string()) == o`;
//! * `Options::parse` is `Options::parse_lenient` without errors, and `parse_lenient` accounts for
//!   every entry;
//! * `ZType::validate` agrees with a small model written from its documentation (JSON type, enum
//!   membership unless lists are unresolved, then `min`/`max`/`length`/`regex` on the types they
//!   apply to, string lengths in Unicode scalar values);
//! * `coerce_str` converts as documented per primitive;
//! * defaults: `parse` checked the default's type, `check_default` implies the default validates,
//!   `apply_default` fills in as documented;
//! * `resolve_lists` leaves no list item, no duplicate literal, and keeps the options;
//! * `ZOption::parse("regex(p)")` succeeds exactly when `JsRegex::new(p)` does, and a compiled
//!   pattern keeps its source and matches consistently (the per-thread cache must not change the
//!   answer).
#![no_main]

use arbitrary::Arbitrary;
use flowmcp_spec::zod::{
    EnumItem, JsRegex, Options, Primitive, ZOption, ZType, ZValueError, parse_default,
};
use libfuzzer_sys::fuzz_target;
use serde_json::{Map, Number, Value};

/// A `z.primitive` text: one of the canonical shapes, or raw text.
#[derive(Arbitrary, Debug)]
enum Prim<'a> {
    String,
    Number,
    Boolean,
    Array,
    Object,
    Enum(Vec<&'a str>),
    /// `enum(...)` with a list interpolation `{{list:field}}` among the items.
    EnumWithList(Vec<&'a str>, &'a str, &'a str),
    Raw(&'a str),
}

impl Prim<'_> {
    fn text(&self) -> String {
        match self {
            Prim::String => "string()".into(),
            Prim::Number => "number()".into(),
            Prim::Boolean => "boolean()".into(),
            Prim::Array => "array()".into(),
            Prim::Object => "object()".into(),
            Prim::Enum(items) => format!("enum({})", items.join(",")),
            Prim::EnumWithList(items, list, field) => {
                format!("enum({},{{{{{list}:{field}}}}})", items.join(","))
            }
            Prim::Raw(text) => (*text).to_string(),
        }
    }
}

/// One `z.options` entry.
#[derive(Arbitrary, Debug)]
enum Opt<'a> {
    Min(f64),
    Max(f64),
    MinText(&'a str),
    Length(u8),
    Optional,
    Default(&'a str),
    Values(Vec<&'a str>),
    Regex(&'a str),
    Raw(&'a str),
}

impl Opt<'_> {
    fn text(&self) -> String {
        match self {
            Opt::Min(n) => format!("min({n})"),
            Opt::Max(n) => format!("max({n})"),
            Opt::MinText(t) => format!("min({t})"),
            Opt::Length(n) => format!("length({n})"),
            Opt::Optional => "optional()".into(),
            Opt::Default(t) => format!("default({t})"),
            Opt::Values(items) => format!("values({})", items.join(",")),
            Opt::Regex(p) => format!("regex({p})"),
            Opt::Raw(t) => (*t).to_string(),
        }
    }
}

/// A JSON value to validate (non-finite floats become `null`).
#[derive(Arbitrary, Debug)]
enum Json {
    Null,
    Bool(bool),
    Int(i64),
    Float(f64),
    Str(String),
    Arr(Vec<Json>),
    Obj(Vec<(String, Json)>),
}

impl Json {
    fn to_value(&self) -> Value {
        match self {
            Json::Null => Value::Null,
            Json::Bool(b) => Value::Bool(*b),
            Json::Int(i) => Value::from(*i),
            Json::Float(f) => Number::from_f64(*f).map_or(Value::Null, Value::Number),
            Json::Str(s) => Value::String(s.clone()),
            Json::Arr(items) => Value::Array(items.iter().map(Json::to_value).collect()),
            Json::Obj(entries) => Value::Object(
                entries
                    .iter()
                    .map(|(k, v)| (k.clone(), v.to_value()))
                    .collect::<Map<_, _>>(),
            ),
        }
    }
}

#[derive(Arbitrary, Debug)]
struct Input<'a> {
    primitive: Prim<'a>,
    options: Vec<Opt<'a>>,
    compat: bool,
    values: Vec<Json>,
    texts: Vec<&'a str>,
    /// Values for `resolve_lists`: `None` makes the resolver fail.
    lists: Option<Vec<&'a str>>,
    pattern: &'a str,
    subject: &'a str,
}

fuzz_target!(|input: Input<'_>| {
    check_regex(input.pattern, input.subject);

    let primitive = input.primitive.text();
    let options: Vec<String> = input.options.iter().map(Opt::text).collect();

    // Primitive alone.
    if let Ok(p) = Primitive::parse(&primitive) {
        assert_eq!(
            Primitive::parse(&p.to_string()),
            Ok(p.clone()),
            "{primitive:?}"
        );
        for option in &options {
            let _ = parse_default(&p, option);
        }
    }

    // Options, strict and lenient.
    let (lenient, errors) = Options::parse_lenient(&options, input.compat);
    assert_eq!(lenient.items.len() + errors.len(), options.len());
    match Options::parse(&options, input.compat) {
        Ok(strict) => {
            assert!(errors.is_empty());
            assert_eq!(strict, lenient);
        }
        Err(e) => assert_eq!(errors.first(), Some(&e)),
    }
    for (i, option) in lenient.items.iter().enumerate() {
        let text = option.to_string();
        assert_eq!(
            ZOption::parse(&text, i, input.compat).as_ref(),
            Ok(option),
            "option {option:?} printed as {text:?}"
        );
    }

    let Ok(z) = ZType::parse(&primitive, &options, input.compat) else {
        return;
    };
    check_ztype(&z, &input);
});

fn check_ztype(z: &ZType, input: &Input<'_>) {
    assert_eq!(
        Primitive::parse(&z.primitive.to_string()),
        Ok(z.primitive.clone())
    );
    assert_eq!(z.is_optional(), z.options.is_optional());
    for i in z.ignored_options() {
        assert!(i < z.options.items.len());
    }

    // Defaults.
    let default = z.default_value().expect("parse checked the default's type");
    if z.check_default().is_ok()
        && let Some(d) = &default
    {
        assert_eq!(
            z.validate(d),
            Ok(()),
            "check_default passed, validate fails"
        );
    }
    match (z.apply_default(None), &default) {
        (Ok(Some(v)), Some(d)) => assert_eq!(&v, d),
        (Ok(None), None) => assert!(z.is_optional()),
        (Err(ZValueError::Missing), None) => assert!(!z.is_optional()),
        (other, d) => panic!("apply_default(None) = {other:?} with default {d:?}"),
    }

    // Validation against the model.
    for json in &input.values {
        let value = json.to_value();
        assert_eq!(z.apply_default(Some(&value)), Ok(Some(value.clone())));
        let got = z.validate(&value);
        assert_eq!(
            got.is_ok(),
            model_valid(z, &value),
            "validate({value}) = {got:?} for {z:?}"
        );
    }

    // Text conversion.
    for text in &input.texts {
        let converted = z.coerce_str(text);
        let trimmed = text.trim();
        match (&z.primitive, &converted) {
            (Primitive::String | Primitive::Enum(_), r) => {
                assert_eq!(r, &Ok(Value::String((*text).to_string())));
            }
            (Primitive::Number, Ok(v)) => {
                let n = v.as_f64().expect("a number");
                assert_eq!(trimmed.parse::<f64>().ok(), Some(n), "{text:?} -> {v}");
            }
            (Primitive::Number, Err(_)) => {
                assert!(
                    !trimmed.parse::<f64>().is_ok_and(f64::is_finite),
                    "{text:?}"
                );
            }
            (Primitive::Boolean, r) => match trimmed {
                "true" => assert_eq!(r, &Ok(Value::Bool(true))),
                "false" => assert_eq!(r, &Ok(Value::Bool(false))),
                _ => assert!(r.is_err()),
            },
            (Primitive::Array, Ok(v)) => assert!(v.is_array()),
            (Primitive::Object, Ok(v)) => assert!(v.is_object()),
            (Primitive::Array | Primitive::Object, Err(_)) => {}
        }
        if let Ok(v) = converted {
            let got = z.validate(&v);
            assert_eq!(got.is_ok(), model_valid(z, &v), "validate({v}) = {got:?}");
        }
    }

    // List resolution.
    let resolved = z.resolve_lists(|_, _| {
        input
            .lists
            .as_ref()
            .map(|v| v.iter().map(|s| (*s).to_string()).collect())
    });
    if let Ok(r) = resolved {
        assert!(!r.primitive.has_unresolved_lists());
        assert_eq!(r.options, z.options);
        let values = r.enum_values();
        for (i, v) in values.iter().enumerate() {
            assert!(
                !values[..i].contains(v),
                "duplicate {v:?} after resolve_lists"
            );
        }
        if let Primitive::Enum(items) = &r.primitive {
            assert!(!items.is_empty());
            // Every literal of the original enum is still there.
            for item in z.primitive.enum_items() {
                if let EnumItem::Literal(v) = item {
                    assert!(values.contains(&v.as_str()));
                }
            }
        } else {
            assert_eq!(r.primitive, z.primitive);
        }
    }
}

/// `ZType::validate` as its documentation describes it.
fn model_valid(z: &ZType, value: &Value) -> bool {
    let type_ok = match &z.primitive {
        Primitive::String | Primitive::Enum(_) => value.is_string(),
        Primitive::Number => value.is_number(),
        Primitive::Boolean => value.is_boolean(),
        Primitive::Array => value.is_array(),
        Primitive::Object => value.is_object(),
    };
    if !type_ok {
        return false;
    }
    if let (Primitive::Enum(_), Value::String(s)) = (&z.primitive, value)
        && !z.primitive.has_unresolved_lists()
        && !z.enum_values().contains(&s.as_str())
    {
        return false;
    }
    // The size an option constrains: a number's value, a string's or an array's length.
    let (size, length) = match (&z.primitive, value) {
        (Primitive::Number, Value::Number(n)) => (n.as_f64(), None),
        (Primitive::String, Value::String(s)) => {
            let n = s.chars().count();
            (Some(n as f64), Some(n))
        }
        (Primitive::Array, Value::Array(a)) => (Some(a.len() as f64), Some(a.len())),
        _ => (None, None),
    };
    z.options.items.iter().all(|o| match o {
        ZOption::Min(m) => size.is_none_or(|s| s >= *m),
        ZOption::Max(m) => size.is_none_or(|s| s <= *m),
        ZOption::Length(n) => length.is_none_or(|l| l as u64 == *n),
        ZOption::Regex(r) => match (&z.primitive, value) {
            (Primitive::String, Value::String(s)) => r.is_match(s),
            _ => true,
        },
        ZOption::Optional | ZOption::Default(_) | ZOption::Values(_) => true,
    })
}

fn check_regex(pattern: &str, subject: &str) {
    let compiled = JsRegex::new(pattern);
    let as_option = ZOption::parse(&format!("regex({pattern})"), 0, true);
    assert_eq!(
        compiled.is_ok(),
        as_option.is_ok(),
        "JsRegex::new and regex(...) disagree on {pattern:?}: {compiled:?} / {as_option:?}"
    );
    if let Ok(r) = compiled {
        assert_eq!(r.source(), pattern);
        let first = r.is_match(subject);
        // A second compile comes from the per-thread cache; it must answer the same.
        let again = JsRegex::new(pattern).expect("compiled once");
        assert_eq!(again.is_match(subject), first);
        assert_eq!(Ok(ZOption::Regex(again)), as_option);
    }
}
