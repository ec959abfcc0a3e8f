//! The native literal reader (`flowmcp_loader::literal`) against QuickJS itself: whatever the reader
//! accepts must equal what evaluating the module and extracting `main` gives, key order included.

#![allow(clippy::unwrap_used, clippy::expect_used)] // a panic in a test is a failed test

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use flowmcp_loader::literal::{
    DataLiteral, Decline, Reason, array_index, js_number_to_string, read_data_export, read_literal,
    try_read_data_export,
};
use flowmcp_loader::scan::blank;
use flowmcp_loader::{Limits, eval::evaluate};
use serde_json::Value;

fn limits() -> Limits {
    {
        let mut v = Limits::default();
        v.eval_timeout = Duration::from_secs(20);
        v
    }
}

fn read(src: &str) -> Result<flowmcp_loader::literal::DataLiteral, Decline> {
    try_read_data_export(src, &blank(src), "main")
}

/// `main` as QuickJS produces it, with no unserialisable parts.
fn quickjs_main(src: &str) -> Value {
    let exports = evaluate("t.mjs", src, &limits())
        .unwrap_or_else(|e| panic!("QuickJS failed on {src:?}: {e:?}"));
    assert!(
        exports.unserializable.iter().all(|u| u.export != "main"),
        "unserialisable parts in {src:?}: {:?}",
        exports.unserializable
    );
    exports
        .data
        .get("main")
        .cloned()
        .unwrap_or_else(|| panic!("no main in {src:?}"))
}

/// The full source is accepted and equals QuickJS (same JSON text, so same key order and numbers).
fn same_source(src: &str) -> Value {
    let ours = read(src).unwrap_or_else(|d| panic!("declined ({d}) {src:?}"));
    let theirs = quickjs_main(src);
    let (a, b) = (
        serde_json::to_string(&ours.value).unwrap_or_default(),
        serde_json::to_string(&theirs).unwrap_or_default(),
    );
    assert_eq!(a, b, "differs from QuickJS for {src:?}");
    let text = &src[ours.range.clone()];
    assert!(
        (text.starts_with('{') && text.ends_with('}'))
            || (text.starts_with('[') && text.ends_with(']')),
        "range {:?} is {text:?}",
        ours.range
    );
    ours.value
}

/// `src` with the literal replaced by `JSON.parse("<its JSON>")`, as the loader will do.
fn with_json(src: &str, lit: &DataLiteral) -> String {
    let json = serde_json::to_string(&lit.value).unwrap_or_default();
    let js = serde_json::to_string(&json).unwrap_or_default();
    format!(
        "{}JSON.parse({js}){}",
        &src[..lit.range.start],
        &src[lit.range.end..]
    )
}

/// Evaluating `src` and evaluating it with the literal injected give the same exports, or fail in the
/// same way.
fn injected_agrees(src: &str, lit: &DataLiteral) -> Result<(), String> {
    let original = evaluate("t.mjs", src, &limits());
    let injected = evaluate("t.mjs", &with_json(src, lit), &limits());
    match (&original, &injected) {
        (Ok(a), Ok(b)) => {
            let text = |e: &flowmcp_loader::Exports| {
                serde_json::to_string(&e.data.iter().collect::<Vec<_>>()).unwrap_or_default()
            };
            if text(a) == text(b) && a.names == b.names && a.unserializable == b.unserializable {
                Ok(())
            } else {
                Err(format!("exports differ: {} vs {}", text(a), text(b)))
            }
        }
        (Err(a), Err(b)) if std::mem::discriminant(a) == std::mem::discriminant(b) => Ok(()),
        _ => Err(format!("{original:?} vs {injected:?}")),
    }
}

fn same(snippet: &str) -> Value {
    same_source(&format!("export const main = {snippet};"))
}

fn declines_source(src: &str) -> Reason {
    match read(src) {
        Ok(lit) => panic!("accepted {src:?} as {}", lit.value),
        Err(d) => d.reason,
    }
}

fn declines(snippet: &str) -> Reason {
    declines_source(&format!("export const main = {snippet};"))
}

// ---------------------------------------------------------------------------------------------------
// Differential: accepted snippets
// ---------------------------------------------------------------------------------------------------

const ACCEPTED: &[&str] = &[
    "{}",
    "[]",
    "{a:1}",
    "{ a: 1, b: 'x', c: \"y\", d: true, e: false, f: null }",
    "{ namespace: 'x', tools: [ { name: 'a', tests: [{}] } ] }",
    "{ a: [1, 2, ], b: { c: 3, }, }",
    "[[[]], [[1]], {}, [{}, []]]",
    "[1, 'a', [null], {k: true}, ]",
    "[true, false, null, ]",
    "{ \"a\": 1, \"b\": [1, 2.5, \"x\"] }",
    // String escapes.
    r"['\n\r\t\b\f\v\0', '\0a', '\x41\x7e\xff\x00', '\u0041\u00e9\u4e2d\uFFFF']",
    r"['\u{1F600}\u{41}\u{000000041}\u{10FFFF}', '\u{0}']",
    r"['\uD83D\uDE00', '\uD83D\u{DE00}', '\u{D83D}\u{DE00}', '\uDBFF\uDFFF']",
    "['a\\\nb', 'a\\\r\nb', 'a\\\rb', 'a\\\u{2028}b', 'a\\\u{2029}b', '\\uD83D\\\n\\uDE00']",
    "['a\u{2028}b\u{2029}c']",
    r#"['\q\$\a\'\"\\', "\'\"", '\%\-\ ']"#,
    "['\\é\\中\\😀']",
    "['Straße 東京 😀 \u{7f} \u{1}', \"tab\there\"]",
    "['/* not a comment */ // nope', '${x}', \"it's\", 'say \"hi\"', 'a\\\\']",
    "['', \"\", ``]",
    // Templates.
    "[`hello`, `cost $5 {x} $`, `a\r\nb\rc\nd`, `'\"`, `\u{2028}é`]",
    // Numbers.
    "[0, 1, -1, 1.5, -1.5, .5, 5., 5.e3, 1e3, 1E-7, 2e0, 1.0, -0, +5, - 5, -.5, +.5, -0.0, -0e0]",
    "[0x10, 0XfF, 0o17, 0O7, 0b101, 0B1, -0x10, -0x0, 0x0, 0b0, 0o0]",
    "[1_000, 1_000.000_1, .5_5, 1e1_0, 0xFF_FF, 0b1_0, 0o1_7, 1_2.3_4e-1_0]",
    "[9007199254740991, 9007199254740992, 9007199254740993, -9007199254740993, 9007199254740995]",
    "[1e21, 1e20, 1.7976931348623157e308, 5e-324, 2.2250738585072014e-308, 4.9e-324]",
    "[0.1, 0.2, 0.30000000000000004, 123456789.123456789, 2.5e-5, 1e-7, 100, 1e2, 2147483647, 2147483648, -2147483648, -2147483649]",
    "[9007199254740993.0000000001, 2.4703282292062327e-324, 2.4703282292062328e-324, 7.2057594037927933e16]",
    "[1.000000000000000111022302462515654042, 1.000000000000000111022302462515654043, 1.000000000000000111022302462515654042000000000]",
    "[0.000000000001000000000000000111022302462515654042e12, 100000000000000000000000000000000000000000000000]",
    "[0x20000000000001, 0x20000000000003, 0xFFFFFFFFFFFFFFFF, 0x1FFFFFFFFFFFFF8000000000000001]",
    "[0x1FFFFFFFFFFFFF8000000000000000, 0x1FFFFFFFFFFFFF7FFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFFF, 0x1000000000000000000000000000000000000000000000000000000000000000000001]",
    "[0x100000000000008000000000000000000000000000000000000000000000000000000000001, 0x10000000000000800000000000000000000000000000000000000000000000000000000000]",
    "[0b11111111111111111111111111111111111111111111111111111111, 0o777777777777777777777777, 0o7777777777777777777777777777777777777777777777777]",
    // Comments and whitespace between every token.
    "{ /* c */ a /* c */ : /* c */ 1 /* c */ , // line\n b: /* x */ [ /* y */ 2 /* z */ , ] // end\n }",
    "{\u{a0}a\u{feff}:\u{2028}1\u{2029},\u{3000}b\u{1680}:\u{2000}[\u{200a}2\u{202f}]\u{205f}}",
    "{\u{b}a\u{c}:\t1\r\n,\rb: 2\n}",
    "[1/*c*/, 2//c\n, - /* c */ 5, -\n6]",
    // Keys.
    "{ default: 1, class: 2, new: 3, function: 4, true: 5, null: 6, if: 7, get: 8, set: 9, async: 10, static: 11, constructor: 12, prototype: 13, undefined: 14, NaN: 15 }",
    "{ $a: 1, _b: 2, a1: 3, $: 4, _: 5, __proto: 6, proto__: 7, ___proto__: 8, '__proto___': 9 }",
    "{ Straße: 1, Längengrad: 2, µ: 3, ª: 4, ế: 5, ÀÖØöøɏ: 6 }",
    "{ 'a b': 1, \"c-d\": 2, '': 3, 'é': 4, 'a': 5, a: 6 }",
    "{ 1: 'a', 1.50: 'b', 0x10: 'c', 1e3: 'd', .5: 'e', 1e21: 'f', 1e-7: 'g', 0.000001: 'h', 1_0: 'i', 0b11: 'j', 0o10: 'k' }",
    "{ 123456789012345680000: 'l', 5e-324: 'm', 1.7976931348623157e308: 'n', 0: 'o', 4294967294: 'p', 4294967295: 'q', 0.1: 'r', 1.5e-7: 's', 1.5e300: 't', 0.0000015: 'u' }",
    "{ 2147483647: 1, 2147483648: 2, 4294967296: 3, 9007199254740993: 4, 1e22: 5, 12e20: 6 }",
    "{ b: 1, 2: 2, '10': 3, 1: 4, '01': 5, '4294967294': 6, '4294967295': 7, a: 8, '-1': 9, '1.0': 10, '0': 11 }",
    "{ '1e3': 1, '0x10': 2, ' 1': 3, '1 ': 4, '+1': 5, '-0': 6, '00': 7 }",
    "{ a: 1, b: 2, a: 3 }",
    "{ 1: 'x', a: 0, 1: 'y', '1': 'z', 1.0: 'w' }",
    "{ a: {x: 1}, b: 0, a: [2], 'b': 'last' }",
    "{ 'constructor': 1, toString: 2, hasOwnProperty: 3, valueOf: 4, length: 5 }",
    "{ '\\u0061': 1, 'a\\x62': 2, '\\u{1F600}': 3, 'Stra\\u00dfe': 4 }",
    "[{ 3: 'c', 1: 'a', 2: 'b' }, { z: 1, y: 2, x: 3 }]",
    "{ b: 0, '\\u0031': 1, '\\x32': 2, '😀': 3, 'a\u{2028}': 4, '\u{feff}': 5, 4294967294: 6, 4294967293: 7 }",
    "{ 1: 'a', 1e0: 'b', 0x1: 'c', 0b1: 'd', 0o1: 'e', '1': 'f', 1.: 'g', 10e-1: 'h' }",
    // Big and deep.
    "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[1]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]",
];

#[test]
fn accepted_snippets_equal_quickjs() {
    for snippet in ACCEPTED {
        same(snippet);
    }
}

#[test]
fn specific_values() {
    assert_eq!(same("[1.0, -0, 2e0]"), serde_json::json!([1, 0, 2]));
    assert_eq!(
        same("[9007199254740993]").to_string(),
        "[9007199254740992.0]"
    );
    assert_eq!(
        same("{ b: 1, 2: 2, a: 3, 1: 4 }").to_string(),
        r#"{"1":4,"2":2,"b":1,"a":3}"#
    );
    assert_eq!(same("{ a: 1, b: 2, a: 3 }").to_string(), r#"{"a":3,"b":2}"#);
    assert_eq!(
        same("{ 1.50: 1, 0x10: 2 }").to_string(),
        r#"{"16":2,"1.5":1}"#
    );
    assert_eq!(same("[`a\r\nb`]"), serde_json::json!(["a\nb"]));
}

#[test]
fn large_and_deep_literals() {
    let mut big = String::from("{");
    for i in 0..2000 {
        big.push_str(&format!(
            "k{i}: [{i}, 'v{i}', {{ n: {i}.5 }}], {}: {i},",
            3000 - i
        ));
    }
    big.push('}');
    same(&big);
    let deep = |levels: usize, open: &str, close: &str| {
        format!("{}1{}", open.repeat(levels), close.repeat(levels))
    };
    same(&deep(200, "[", "]"));
    same(&deep(200, "{a:", "}"));
    same(&format!("{}[]{}", "[".repeat(199), "]".repeat(199)));
    assert_eq!(declines(&deep(201, "[", "]")), Reason::TooDeep);
    assert_eq!(declines(&deep(201, "{a:", "}")), Reason::TooDeep);
    assert_eq!(
        declines(&format!("{}{{}}{}", "[".repeat(200), "]".repeat(200))),
        Reason::TooDeep
    );
    // Far deeper than any stack would take, declined without recursion.
    assert_eq!(declines(&deep(100_000, "[", "]")), Reason::TooDeep);
}

// ---------------------------------------------------------------------------------------------------
// Declined snippets
// ---------------------------------------------------------------------------------------------------

const DECLINED: &[(&str, Reason)] = &[
    ("{ __proto__: {} }", Reason::Proto),
    ("{ '__proto__': 1 }", Reason::Proto),
    ("{ \"__proto__\": 1 }", Reason::Proto),
    (r"{ '\u005f_proto__': 1 }", Reason::Proto),
    ("{ a: 1, __proto__: null }", Reason::Proto),
    ("{ [k]: 1 }", Reason::Key),
    ("{ ['a']: 1 }", Reason::Key),
    ("{ a }", Reason::NotColon),
    ("{ a, b: 1 }", Reason::NotColon),
    ("{ a() {} }", Reason::NotColon),
    ("{ get a() { return 1 } }", Reason::NotColon),
    ("{ set a(v) {} }", Reason::NotColon),
    ("{ async a() {} }", Reason::NotColon),
    ("{ *g() {} }", Reason::Key),
    ("{ ...x }", Reason::Key),
    ("[...x]", Reason::Unexpected),
    ("{ a = 1 }", Reason::NotColon),
    ("{ a: undefined }", Reason::Identifier),
    ("{ a: NaN }", Reason::Identifier),
    ("{ a: Infinity }", Reason::Identifier),
    ("{ a: -Infinity }", Reason::Unexpected),
    ("{ a: trueish }", Reason::Identifier),
    ("{ a: x }", Reason::Identifier),
    ("[1,,2]", Reason::Hole),
    ("[,]", Reason::Hole),
    ("[,1]", Reason::Hole),
    ("[1,,]", Reason::Hole),
    ("{ a: 1 + 2 }", Reason::Unexpected),
    ("{ a: f() }", Reason::Identifier),
    ("{ a: (1) }", Reason::Unexpected),
    ("{ a: !0 }", Reason::Unexpected),
    ("{ a: void 0 }", Reason::Identifier),
    ("{ a: typeof x }", Reason::Identifier),
    ("{ a: 'x' 'y' }", Reason::Unexpected),
    ("{ a: 'x' + 'y' }", Reason::Unexpected),
    ("{ a: `x` `y` }", Reason::Unexpected),
    ("{ a: 1.5.toString() }", Reason::Unexpected),
    ("{ a: 1..toString() }", Reason::Unexpected),
    ("{ a: true.valueOf }", Reason::Unexpected),
    ("[1 2]", Reason::Unexpected),
    ("{ a: /re/ }", Reason::Unexpected),
    ("{ a: new Date() }", Reason::Identifier),
    ("{ a: -'5' }", Reason::Unexpected),
    ("{ a: --5 }", Reason::Unexpected),
    ("{ a: - -5 }", Reason::Unexpected),
    ("{ a: +-5 }", Reason::Unexpected),
    ("{ a: 1, , }", Reason::Key),
    ("{ , }", Reason::Key),
    ("{ 'a': 1 'b': 2 }", Reason::Unexpected),
    ("{ -1: 'x' }", Reason::Key),
    ("{ 1n: 'x' }", Reason::Number),
    ("[1e400]", Reason::Number),
    ("[-1e400]", Reason::Number),
    ("{ 1e400: 1 }", Reason::Number),
    ("[0x1p3]", Reason::Number),
    ("[017]", Reason::Number),
    ("[08]", Reason::Number),
    ("[00]", Reason::Number),
    ("[0_1]", Reason::Number),
    ("[1__0]", Reason::Number),
    ("[1_]", Reason::Number),
    ("[_1]", Reason::Identifier),
    ("[1._5]", Reason::Number),
    ("[1_.5]", Reason::Number),
    ("[1e_5]", Reason::Number),
    ("[1e5_]", Reason::Number),
    ("[0x_1]", Reason::Number),
    ("[0x]", Reason::Number),
    ("[0b2]", Reason::Number),
    ("[0o8]", Reason::Number),
    ("[1e]", Reason::Number),
    ("[1e+]", Reason::Number),
    ("[10n]", Reason::Number),
    ("[0x10n]", Reason::Number),
    ("[1a]", Reason::Number),
    ("[3in]", Reason::Number),
    ("[1\\u0061]", Reason::Number),
    (r"['\1']", Reason::Escape),
    (r"['\01']", Reason::Escape),
    (r"['\00']", Reason::Escape),
    (r"['\08']", Reason::Escape),
    (r"['\8']", Reason::Escape),
    (r"['\9']", Reason::Escape),
    (r"['\7']", Reason::Escape),
    (r"['\uD800']", Reason::Surrogate),
    (r"['\uDC00']", Reason::Surrogate),
    (r"['\uD800x']", Reason::Surrogate),
    (r"['\uD800\u0041']", Reason::Surrogate),
    (r"['\uDE00\uD83D']", Reason::Surrogate),
    (r"['\uD83D\uD83D\uDE00']", Reason::Surrogate),
    (r"['\u{D800}']", Reason::Surrogate),
    (r"['\u{110000}']", Reason::Escape),
    (r"['\u{}']", Reason::Escape),
    (r"['\u{41']", Reason::Escape),
    (r"['\xZ1']", Reason::Escape),
    (r"['\x1']", Reason::Escape),
    (r"['\u12']", Reason::Escape),
    (r"['\u12G4']", Reason::Escape),
    ("[`a${1}b`]", Reason::Template),
    ("[`a${`]", Reason::Template),
    (r"[`a\nb`]", Reason::Template),
    (r"[`a\`b`]", Reason::Template),
    (
        "[1.00000000000000011102230246251565404236316680908203126]",
        Reason::Number,
    ),
    (
        "[100000000000000000000000000000000000000000000000001]",
        Reason::Number,
    ),
    (r"{ \u0061: 1 }", Reason::Key),
    (r"{ a\u0062: 1 }", Reason::Key),
    ("{ 東京: 1 }", Reason::Key),
    ("{ a東: 1 }", Reason::Key),
    ("{ a: 'x\ny' }", Reason::Unterminated),
    ("{ a: 'x\ry' }", Reason::Unterminated),
    ("{ a: 'x\0y' }", Reason::Nul),
    ("{ a: `x\0y` }", Reason::Nul),
    ("{ a: 'x\\\0y' }", Reason::Nul),
    ("{ a: 1 /* \0 */ }", Reason::Nul),
    ("{ a: 1 // \0\n }", Reason::Nul),
    ("{ a: 1 /* }", Reason::Unterminated),
    ("{ a: 'x }", Reason::Unterminated),
    ("{ 'a': 1, [`b`]: 2 }", Reason::Key),
    ("{ a: 1 } + 1", Reason::Tail),
    ("{ a: 1 }.a", Reason::Tail),
    ("[1][0]", Reason::Tail),
    ("{ a: 1 }, b = 2", Reason::Tail),
    ("{ a: 1 } ? 1 : 2", Reason::Tail),
];

#[test]
fn declined_snippets() {
    for (snippet, reason) in DECLINED {
        assert_eq!(declines(snippet), *reason, "snippet {snippet:?}");
    }
}

/// Declined forms that are valid JavaScript really do evaluate to something: the reader is not simply
/// failing on broken input. (A few are checked to evaluate differently from their JSON reading.)
#[test]
fn declined_forms_are_real_javascript() {
    for snippet in [
        "{ __proto__: { x: 1 } }",
        "{ ['a' + 'b']: 1 }",
        "[1,,2]",
        "{ a: 1 + 2 }",
        "[0x10n]",
        "[`a${1}b`]",
        "[1.00000000000000011102230246251565404236316680908203126]",
    ] {
        let src = format!("export const main = {snippet};");
        assert!(evaluate("t.mjs", &src, &limits()).is_ok(), "{src}");
        assert!(read_data_export(&src, &blank(&src), "main").is_none());
    }
    // `__proto__` sets the prototype instead of making a key.
    let e = evaluate(
        "t.mjs",
        "export const main = { __proto__: { x: 1 } };",
        &limits(),
    );
    assert!(e.is_ok_and(|e| {
        e.unserializable
            .iter()
            .any(|u| u.kind.as_str() == "non-plain")
    }));
    // QuickJS keeps 38 significant digits and drops the rest: this rounds down there, up in Rust.
    let v = quickjs_main(
        "export const main = [1.00000000000000011102230246251565404236316680908203126];",
    );
    assert_eq!(v, serde_json::json!([1]));
}

// ---------------------------------------------------------------------------------------------------
// The declaration around the literal
// ---------------------------------------------------------------------------------------------------

#[test]
fn declaration_forms() {
    same_source("export const main = {a:1}");
    same_source("export const main={a:1}\nexport const handlers = () => ({})");
    same_source("export   /* c */ const // c\n main /* */ = /* */ {a:1} /* c */ ;");
    same_source("export const main = {a:1} // c\nconst x = 1;");
    same_source("export const main = {a:1} /* multi\nline */ const x = 1;");
    same_source("export const main = {a:1}\n\nconst x = main.a;");
    same_source("export const main = {a:1}\u{2028}const x = 1");
    same_source("export const main = [1, 2];");
    same_source("// export const main = {a:1}\nexport const main = {b:2}");
    same_source("/* export const main = {a:1} */\nexport const main = {b:2}");
    same_source("const s = \"export const main = {a:1}\";\nexport const main = {b:2};");
    same_source("const t = `\nexport const main = {a:1}\n`;\nexport const main = {b:2};");
    same_source("\u{feff}export const main = {a:1};");
    same_source("  \t export const main = {a:1};");
    same_source("export const main = {\r\n  a: 1,\r\n  b: 'x'\r\n};\r\n");
    // Later changes to `main` apply to the injected value as they did to the literal.
    let src = "export const main = {a:1};\nmain.b = 2; main.a++;";
    let lit = read(src).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(lit.value, serde_json::json!({"a": 1}));
    assert_eq!(injected_agrees(src, &lit), Ok(()));
    same_source(
        "// Ünïcödé 😀 comment\nconst s = 'ä€😀';\n/* ñ */ export const main = { a: 'é', b: `😀` };\n",
    );
    same_source("export const main = {a: 1}\nexport function f() { return main }\n");
    same_source("export const main = {a: 1}\nexport const list = [1]\n");

    assert_eq!(
        declines_source("const x = 1; export const main = {a:1};"),
        Reason::NoDeclaration
    );
    assert_eq!(
        declines_source("export const mainX = {a:1};"),
        Reason::NoDeclaration
    );
    assert_eq!(
        declines_source("export let main = {a:1};"),
        Reason::NoDeclaration
    );
    assert_eq!(
        declines_source("export const main = ({a:1});"),
        Reason::NoDeclaration
    );
    assert_eq!(
        declines_source("export const main = -{a:1};"),
        Reason::NoDeclaration
    );
    assert_eq!(
        declines_source("export const main = {a:1}\n.x"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1}\n[0]"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1}\n(1)"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1}\n`x`"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1} in x"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1}\nin x"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1}\ninstanceof Object"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1} const x = 1"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1} // c\u{2028}const x = 1"),
        Reason::Tail
    );
    assert_eq!(
        declines_source("export const main = {a:1};\nexport const main = {b:2};"),
        Reason::Ambiguous
    );
    assert_eq!(
        declines_source("function f() {\n export const main = {}\n}"),
        Reason::NoDeclaration
    );
    assert_eq!(
        declines_source("const r = /;export const main = {a:1};/;"),
        Reason::NoDeclaration
    );
    // Other names.
    let src = "export const list = [1, 2];\nexport const main = { a: 1 };";
    let b = blank(src);
    assert_eq!(
        read_data_export(src, &b, "list").map(|l| l.value),
        Some(serde_json::json!([1, 2]))
    );
    assert!(read_data_export(src, &b, "").is_none());
}

#[test]
fn byte_ranges() {
    let src = "// é\nconst s = '東京';\nexport const main = /* 😀 */ { a: ['ü', { b: 1 }] } ;\n";
    let lit = read(src).unwrap_or_else(|d| panic!("{d}"));
    let text = &src[lit.range.clone()];
    assert_eq!(text, "{ a: ['ü', { b: 1 }] }");
    let crlf = "export const main = [\r\n  1,\r\n  2\r\n]\r\nexport const x = 1\r\n";
    let lit = read(crlf).unwrap_or_else(|d| panic!("{d}"));
    assert_eq!(&crlf[lit.range.clone()], "[\r\n  1,\r\n  2\r\n]");
    assert_eq!(lit.value, serde_json::json!([1, 2]));
    // `read_literal` directly.
    let s = "x = { a: 1 } + 2";
    assert_eq!(
        read_literal(s, 4).map(|(v, end)| (v, &s[4..end])),
        Ok((serde_json::json!({"a": 1}), "{ a: 1 }"))
    );
    assert!(read_literal(s, 0).is_err());
    assert!(read_literal(s, 100).is_err());
}

#[test]
fn comments_inside_literals() {
    let v = same_source(
        "export const main = {\n  // leading\n  a: 1, /* between */ b: /* before */ 'x' /* after */,\n  /** doc\n   * block */\n  c: [ // in array\n    1, /* , */ 2 // ]\n  ],\n};\n",
    );
    assert_eq!(v.to_string(), r#"{"a":1,"b":"x","c":[1,2]}"#);
}

#[test]
fn crlf_everywhere() {
    let src = "export const main = {\r\n\ta: 'x',\r\n\tb: `l1\r\nl2`,\r\n\tc: 'a\\\r\nb', // c\r\n\td: [1,\r\n2]\r\n};\r\n";
    let v = same_source(src);
    assert_eq!(v["b"], "l1\nl2");
    assert_eq!(v["c"], "ab");
}

/// Decimal literals near rounding boundaries: exact midpoints between neighbouring doubles (ties go
/// to even), their neighbours one unit in the last digit away, and random digit strings of up to 38
/// significant digits over the whole exponent range, subnormals included.
#[test]
fn decimal_rounding_matches_quickjs() {
    let mut rng = Lcg(0xdec1);
    let mut literals: Vec<String> = Vec::new();
    for _ in 0..1500 {
        // A midpoint M·2^e with M odd and 54 bits, as an exact integer or exact decimal fraction.
        let m = (1u128 << 53) | u128::from(rng.next() & ((1 << 52) - 1)) << 1 | 1;
        let e = rng.below(100) as i32 - 30;
        let (digits, point) = if e >= 0 {
            if e > 70 {
                continue;
            }
            ((m << e).to_string(), 0usize)
        } else {
            let k = (-e) as u32;
            ((m * 5u128.pow(k)).to_string(), k as usize)
        };
        for delta in [-1i128, 0, 1] {
            let Ok(n) = digits.parse::<i128>() else {
                continue;
            };
            let d = (n + delta).to_string();
            let lit = if point == 0 {
                d
            } else if d.len() > point {
                format!("{}.{}", &d[..d.len() - point], &d[d.len() - point..])
            } else {
                format!("0.{}{d}", "0".repeat(point - d.len()))
            };
            // The same value written three ways.
            literals.push(format!("{lit}e0"));
            if !lit.contains('.') {
                literals.push(format!("{lit}0e-1"));
                literals.push(format!("0.{lit}e{}", lit.len()));
            }
            literals.push(lit);
        }
    }
    for _ in 0..3000 {
        let len = 1 + rng.below(38);
        let digits: String = (0..len)
            .map(|i| {
                let d = rng.below(10) as u8;
                char::from(b'0' + if i == 0 { d.max(1) } else { d })
            })
            .collect();
        let exp = rng.below(680) as i64 - 360;
        let dot = rng.below(len + 1);
        literals.push(format!("{}.{}e{exp}", &digits[..dot], &digits[dot..]).replace(".e", "e"));
    }
    let accepted: Vec<&String> = literals
        .iter()
        .filter(|l| {
            let src = format!("[{l}]");
            read_literal(&src, 0).is_ok()
        })
        .collect();
    assert!(
        accepted.len() > literals.len() * 8 / 10,
        "{} of {}",
        accepted.len(),
        literals.len()
    );
    let body = accepted
        .iter()
        .map(|l| l.as_str())
        .collect::<Vec<_>>()
        .join(",\n");
    same(&format!("[{body}]"));
}

// ---------------------------------------------------------------------------------------------------
// Number keys
// ---------------------------------------------------------------------------------------------------

#[test]
fn number_to_string_is_javascripts() {
    let cases: &[(f64, &str)] = &[
        (0.0, "0"),
        (-0.0, "0"),
        (1.0, "1"),
        (-1.0, "-1"),
        (1.5, "1.5"),
        (16.0, "16"),
        (1000.0, "1000"),
        (0.1, "0.1"),
        (0.000001, "0.000001"),
        (0.0000015, "0.0000015"),
        (1e-7, "1e-7"),
        (1.5e-7, "1.5e-7"),
        (1e21, "1e+21"),
        (1.5e21, "1.5e+21"),
        (1e20, "100000000000000000000"),
        (123456789012345680000.0, "123456789012345680000"),
        (5e-324, "5e-324"),
        (1.7976931348623157e308, "1.7976931348623157e+308"),
        (9007199254740993.0, "9007199254740992"),
        (0.30000000000000004, "0.30000000000000004"),
        (123.456, "123.456"),
        (-1.5e-9, "-1.5e-9"),
        (f64::INFINITY, "Infinity"),
        (f64::NEG_INFINITY, "-Infinity"),
        (f64::NAN, "NaN"),
    ];
    for (x, want) in cases {
        assert_eq!(js_number_to_string(*x), *want, "{x:e}");
    }
    // Against QuickJS's own String(x) for a spread of values.
    let values = [
        "0.5",
        "1.25e-5",
        "3e-7",
        "4.5e21",
        "1.2e20",
        "999999999999999999999",
        "0.1e-6",
        "2.5e-324",
        "1e300",
        "123e-20",
        "7.0e-10",
        "6.02214076e23",
        "1.6e-19",
        "0.000123",
    ];
    let src = format!(
        "export const main = [{}];",
        values
            .iter()
            .map(|v| format!("String({v})"))
            .collect::<Vec<_>>()
            .join(",")
    );
    let theirs = quickjs_main(&src);
    for (i, v) in values.iter().enumerate() {
        let x: f64 = v.parse().unwrap_or(f64::NAN);
        assert_eq!(Value::String(js_number_to_string(x)), theirs[i], "{v}");
    }
}

#[test]
fn array_index_keys() {
    assert_eq!(array_index("0"), Some(0));
    assert_eq!(array_index("7"), Some(7));
    assert_eq!(array_index("4294967294"), Some(4_294_967_294));
    assert_eq!(array_index("4294967295"), None);
    assert_eq!(array_index("10000000000"), None);
    assert_eq!(array_index("07"), None);
    assert_eq!(array_index("-1"), None);
    assert_eq!(array_index("1.0"), None);
    assert_eq!(array_index(""), None);
    assert_eq!(array_index("+1"), None);
    assert_eq!(array_index(" 1"), None);
}

// ---------------------------------------------------------------------------------------------------
// Robustness
// ---------------------------------------------------------------------------------------------------

/// A small deterministic generator (no dependency needed).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        self.0 >> 33
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

const PIECES: &[&str] = &[
    "{",
    "}",
    "[",
    "]",
    ",",
    ":",
    "'",
    "\"",
    "`",
    "\\",
    "/",
    "*",
    "-",
    "+",
    ".",
    "_",
    "0",
    "1",
    "9",
    "e",
    "x",
    "n",
    "u",
    "{",
    "$",
    " ",
    "\n",
    "\r",
    "\u{2028}",
    "\u{a0}",
    "é",
    "😀",
    "a",
    "true",
    "null",
    "__proto__",
    "//",
    "/*",
    "*/",
    "\\u",
    "\\x",
    "0x",
    "1e",
    "${",
    "\0",
    "\u{feff}",
    "\\uD800",
    "\\uDC00",
    "\\u{",
    "}",
    "0o",
    "0b",
    "n",
    "in",
    "\n.",
    "\n(",
    "\\\n",
    "\r\n",
    "'__proto__'",
    "1_",
    "_1",
    "08",
    "\\0",
    "\\1",
    "-",
    "e-",
    "Infinity",
    "undefined",
    "=",
    ";",
];

const SEEDS: &[&str] = &[
    "export const main = {\n  a: 1, 'b': \"x\\n\", c: [true, null, -1.5e3, 0x1F, `t`],\n  // c\n  d: { 1: 'i', e: /* c */ '\\u{1F600}' }, 'f g': .5,\n};\nexport const x = 1;\n",
    "export const main = [ 'a\\x41\\u{42}\\uD83D\\uDE00', 0b101, 0o17, 1_000, .5e-3, { 0x10: 1, 'k': -0, 1.5: [`t\r\nx`], z: { y: [ ] } }, \"q\\\n\" ]\n",
    "// head\nexport const main = { default: 'd', 2: [1e21, 5e-324], '1': 0.1, Straße: { µ: 'ü' }, k: 'a\u{2028}b' } /* t */;\nmain.extra = [1];\n",
];

/// Every truncation of the seeds, then random edits of them; whatever is accepted must behave like
/// the original when injected. `LITERAL_FUZZ_ROUNDS` raises the number of edits (default 1000 per
/// seed).
#[test]
fn random_and_truncated_inputs_never_panic_and_agree_when_accepted() {
    let rounds: usize = std::env::var("LITERAL_FUZZ_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1000);
    let mut rng = Lcg(0x5eed);
    let mut accepted = 0;
    for seed in SEEDS {
        assert!(read(seed).is_ok(), "seed declined: {seed:?}");
        for (i, _) in seed.char_indices() {
            let cut = &seed[..i];
            let _ = read_data_export(cut, &blank(cut), "main");
            let _ = read_literal(cut, i.min(20));
        }
        for _ in 0..rounds {
            let mut chars: Vec<&str> = Vec::new();
            let mut rest = *seed;
            while let Some(c) = rest.chars().next() {
                chars.push(&rest[..c.len_utf8()]);
                rest = &rest[c.len_utf8()..];
            }
            for _ in 0..1 + rng.below(3) {
                let at = rng.below(chars.len());
                let piece = PIECES[rng.below(PIECES.len())];
                match rng.below(3) {
                    0 => {
                        chars.remove(at);
                    }
                    1 => chars.insert(at, piece),
                    _ => chars[at] = piece,
                }
            }
            let src: String = chars.concat();
            let b = blank(&src);
            if let Some(lit) = read_data_export(&src, &b, "main") {
                accepted += 1;
                if let Err(e) = injected_agrees(&src, &lit) {
                    panic!("{src:?}: {e}");
                }
            }
            // Random text from the pieces alone, and mismatched blanked texts.
            let junk: String = (0..rng.below(40))
                .map(|_| PIECES[rng.below(PIECES.len())])
                .collect();
            let _ = read_data_export(&junk, &blank(&junk), "main");
            let _ = read_data_export(&src, &junk, "main");
            let _ = read_data_export(&junk, &src, "main");
            let _ = read_literal(&junk, 0);
        }
    }
    println!(
        "{accepted} of {} edited inputs accepted",
        rounds * SEEDS.len()
    );
    assert!(
        accepted > rounds / 10,
        "only {accepted} edited inputs accepted"
    );
}

// ---------------------------------------------------------------------------------------------------
// The corpora (present on developer machines only)
// ---------------------------------------------------------------------------------------------------

fn mjs_files(dir: &Path, out: &mut Vec<PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    let mut paths: Vec<PathBuf> = entries.filter_map(|e| e.ok().map(|e| e.path())).collect();
    paths.sort();
    for p in paths {
        if p.is_dir() {
            mjs_files(&p, out);
        } else if p.extension().is_some_and(|e| e == "mjs") {
            out.push(p);
        }
    }
}

fn corpus(dir: &str) {
    let root = Path::new(dir);
    if !root.is_dir() {
        return;
    }
    let mut files = Vec::new();
    mjs_files(root, &mut files);
    let (mut accepted, mut no_main, mut eval_failed, mut changed_later) = (0, 0, 0, 0);
    let mut reasons: BTreeMap<&'static str, Vec<String>> = BTreeMap::new();
    let (mut t_blank, mut t_read, mut t_eval) = (Duration::ZERO, Duration::ZERO, Duration::ZERO);
    let mut mismatches = Vec::new();
    for path in &files {
        let Ok(src) = std::fs::read_to_string(path) else {
            continue;
        };
        let rel = path
            .strip_prefix(root)
            .unwrap_or(path)
            .display()
            .to_string();
        let t = Instant::now();
        let blanked = blank(&src);
        t_blank += t.elapsed();
        let t = Instant::now();
        let ours = try_read_data_export(&src, &blanked, "main");
        t_read += t.elapsed();

        let t = Instant::now();
        let theirs = evaluate(&rel, &src, &limits());
        t_eval += t.elapsed();
        match ours {
            Ok(lit) => {
                accepted += 1;
                let direct = theirs.as_ref().is_ok_and(|exports| {
                    exports.data.get("main").is_some_and(|t| {
                        serde_json::to_string(t).ok() == serde_json::to_string(&lit.value).ok()
                    }) && exports.unserializable.iter().all(|u| u.export != "main")
                });
                if let Err(e) = &theirs {
                    eval_failed += 1;
                    println!("  accepted, QuickJS fails on the file: {rel}: {e:?}");
                }
                if !direct {
                    if theirs.is_ok() {
                        changed_later += 1;
                    }
                    // The module changes `main` after declaring it, or fails for other reasons:
                    // injecting the value must give the same result.
                    if let Err(e) = injected_agrees(&src, &lit) {
                        mismatches.push(format!("{rel}: {e}"));
                    }
                }
            }
            Err(Decline {
                reason: Reason::NoDeclaration,
                ..
            }) if theirs.as_ref().is_ok_and(|e| !e.has("main")) || theirs.is_err() => {
                no_main += 1;
            }
            Err(d) => reasons
                .entry(d.reason.as_str())
                .or_default()
                .push(format!("{rel}@{}", d.at)),
        }
    }
    let declined: usize = reasons.values().map(Vec::len).sum();
    println!(
        "{dir}: {} files: {accepted} accepted, {declined} declined, {no_main} without a `main` \
         declaration; of the accepted, {changed_later} change `main` after declaring it and \
         {eval_failed} fail in QuickJS for other reasons (both checked by injection)",
        files.len()
    );
    for (reason, files) in &reasons {
        println!(
            "  declined {reason}: {} (e.g. {:?})",
            files.len(),
            &files[..files.len().min(4)]
        );
    }
    println!(
        "  time: blank {:?}, read_data_export {:?}, evaluate {:?}",
        t_blank, t_read, t_eval
    );
    assert!(
        mismatches.is_empty(),
        "differs from QuickJS: {mismatches:?}"
    );
}

#[test]
fn corpus_public() {
    corpus("/work/scratch/public");
}

#[test]
fn corpus_community() {
    corpus("/work/scratch/community");
}

/// Issue #40 (a build without QuickJS): `read_data_module` accepts exactly the modules that are
/// nothing but data declarations, and gives what evaluating them gives (names and values).
#[test]
fn i40_a_data_module_reads_as_the_engine_evaluates_it() {
    use flowmcp_loader::literal::read_data_module;
    use flowmcp_loader::scan::blank_aligned;
    const NAMES: &[&str] = &[
        "main",
        "list",
        "skill",
        "prompt",
        "agent",
        "selection",
        "content",
    ];
    let data_modules = [
        "export const main = { namespace: 'a', tools: {} }",
        "// a comment\nexport const main = { a: 1 };\n",
        "export const list = { meta: { name: 'x' }, entries: [ { k: 'é' } ] };\nexport const main = [1, 2]",
        "export const prompt = { name: 'p' }\n/* end */ ;",
        "export const skill = { name: 's', content: `plain` }",
    ];
    for src in data_modules {
        let values = read_data_module(src, &blank_aligned(src), NAMES)
            .unwrap_or_else(|| panic!("declined: {src}"));
        let evaluated = evaluate("t.mjs", src, &limits()).unwrap();
        let mut names: Vec<String> = values.iter().map(|(n, _)| n.clone()).collect();
        names.sort();
        assert_eq!(names, evaluated.names, "{src}");
        for (name, value) in &values {
            assert_eq!(Some(value), evaluated.get(name), "{src}: {name}");
        }
    }
    let code_modules = [
        "export const main = { a: 1 }; export const handlers = () => ({})",
        "const x = 1;\nexport const main = { a: x }",
        "export const main = { a: 1 }\nconsole.log(main)",
        "import x from 'y'\nexport const main = { a: 1 }",
        "export const main = { a: 1 }; export const other = { b: 2 }",
        "export const main = { a: 1 }; export default 3",
        "export const main = { f() { return 1 } }",
        "",
    ];
    for src in code_modules {
        assert_eq!(
            read_data_module(src, &blank_aligned(src), NAMES),
            None,
            "{src}"
        );
    }
}

/// The declaration is the one `export const main` at the top level, wherever the nested ones are
/// and however many `export`s there are (D161 counts the bracket depth only up to candidates):
/// a nested one before it, after it or between two top-level ones, and brackets inside strings
/// and comments, which are blanked.
#[test]
fn i46_the_top_level_declaration_is_found_among_nested_ones() {
    let cases = [
        "function f() {\n export const main = {b:2}\n}\nexport const main = {a:1};",
        "export const main = {a:1};\nfunction f() {\n export const main = {b:2}\n}",
        "const s = '{ [ (';\n/* ) } */\nexport const other = [1];\nexport const main = {a:1};",
        "if (x) {\n export const main = {b:2}\n}\nexport default 1\nexport const main = {a:1};\n{ export const main = {c:3} }",
    ];
    for src in cases {
        let lit = read(src).unwrap_or_else(|d| panic!("{src:?}: {d}"));
        assert_eq!(lit.value, serde_json::json!({"a": 1}), "{src:?}");
    }
    assert_eq!(
        declines_source(
            "{ export const main = {b:2} }\nexport const main = {a:1};\nexport const main = {c:3};"
        ),
        Reason::Ambiguous
    );
    assert_eq!(
        declines_source("[\nexport const main = {a:1}\n"),
        Reason::NoDeclaration
    );
}
