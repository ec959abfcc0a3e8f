//! Fuzzes the pure-data literal reader (`flowmcp_loader::literal`) on arbitrary UTF-8 text: as a
//! literal on its own (`read_literal` at every opening bracket, up to a few), as a whole module
//! (`try_read_data_export` with the real blanker) and wrapped as `export const main = <text>;`.
//!
//! Properties (from the module documentation):
//! * an accepted literal ends after its closing bracket, inside the input, on a char boundary, and
//!   "nothing after it is looked at": reading the prefix that ends there gives the same result;
//! * the value is an object for `{`, an array for `[`, nested at most `MAX_NESTING` deep, has no
//!   `__proto__` key, and stores numbers as documented: integral values below 2^53 in magnitude as
//!   JSON integers, everything else as floats; every number's `js_number_to_string` text parses
//!   back to the same `f64`;
//! * a declined read stops inside the input;
//! * `read_data_export` is `try_read_data_export(..).ok()`, and an accepted export's range is the
//!   literal `read_literal` reads at the same offset;
//! * a text that is one whole pure-data literal (`read_literal` accepts it and stops at its end) is
//!   accepted once wrapped as `export const main = <text>;`, with the same value: every condition
//!   the documentation lists for the declaration then holds;
//! * "exact or silent": that wrapped module, evaluated by the sandboxed QuickJS (`evaluate`, without
//!   the Rust fast path), exports the same `main` value (same strings, numbers and key order).
//!   (Keys containing U+0000 once disagreed: fuzz/regressions/literal/, fixed in the extractor.)
#![no_main]

use flowmcp_loader::Limits;
use flowmcp_loader::eval::evaluate;
use flowmcp_loader::literal::{
    MAX_NESTING, js_number_to_string, read_data_export, read_literal, try_read_data_export,
};
use flowmcp_loader::scan::blank;
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// How many opening brackets of one input are tried as literal starts.
const MAX_STARTS: usize = 8;

const PREFIX: &str = "export const main = ";

fuzz_target!(|text: &str| {
    // The literal reader at offset 0 (whatever is there) and at the first few brackets.
    let _ = read_literal(text, 0);
    let starts = text
        .char_indices()
        .filter(|(_, c)| matches!(c, '{' | '['))
        .map(|(i, _)| i)
        .take(MAX_STARTS);
    let mut whole: Option<Value> = None;
    for at in starts {
        if let Some((value, end)) = check_read_literal(text, at)
            && at == 0
            && end == text.len()
        {
            whole = Some(value);
        }
    }

    // The text as a module.
    check_export(text);

    // The text wrapped as a declaration.
    let wrapped = format!("{PREFIX}{text};");
    let exported = check_export(&wrapped);
    if let Some(value) = whole {
        let Some((range, read)) = exported else {
            panic!(
                "a whole pure-data literal was declined once wrapped: {:?}",
                try_read_data_export(&wrapped, &blank(&wrapped), "main").err()
            );
        };
        assert_eq!(range, PREFIX.len()..PREFIX.len() + text.len());
        assert_eq!(read, value);

        // Exact or silent: QuickJS evaluates the same declaration to the same value. (The module
        // is pure data, so evaluating it runs no fuzzer-written code.)
        match evaluate("fuzz.mjs", &wrapped, &Limits::default()) {
            Ok(exports) => assert_eq!(
                exports.get("main"),
                Some(&value),
                "the reader and QuickJS disagree on {text:?}"
            ),
            Err(e) => panic!("the reader accepted {text:?}, QuickJS failed: {e:?}"),
        }
    }
});

/// Reads the literal at `at` and checks the result; returns the value and end when accepted.
fn check_read_literal(source: &str, at: usize) -> Option<(Value, usize)> {
    match read_literal(source, at) {
        Ok((value, end)) => {
            assert!(at < end && end <= source.len(), "end {end} out of range");
            assert!(
                source.is_char_boundary(end),
                "end {end} not a char boundary"
            );
            let open = source.as_bytes()[at];
            let close = source.as_bytes()[end - 1];
            match open {
                b'{' => assert!(close == b'}' && value.is_object(), "{{ read as {value}"),
                b'[' => assert!(close == b']' && value.is_array(), "[ read as {value}"),
                other => panic!("accepted a literal starting with byte {other:#x}"),
            }
            check_value(&value);
            // Nothing after the end is looked at.
            let prefix = &source[..end];
            assert_eq!(read_literal(prefix, at), Ok((value.clone(), end)));
            Some((value, end))
        }
        Err(decline) => {
            assert!(
                decline.at <= source.len(),
                "decline at {} beyond the input",
                decline.at
            );
            None
        }
    }
}

/// Reads `export const main = …` from `source` with the real blanker and checks the result.
fn check_export(source: &str) -> Option<(std::ops::Range<usize>, Value)> {
    let blanked = blank(source);
    let tried = try_read_data_export(source, &blanked, "main");
    assert_eq!(
        read_data_export(source, &blanked, "main"),
        tried.clone().ok()
    );
    match tried {
        Ok(lit) => {
            let r = lit.range.clone();
            assert!(r.start < r.end && r.end <= source.len(), "range {r:?}");
            assert!(source.is_char_boundary(r.start) && source.is_char_boundary(r.end));
            assert_eq!(
                read_literal(source, r.start),
                Ok((lit.value.clone(), r.end)),
                "the export's range is not the literal read at its start"
            );
            assert!(
                source[..r.start].contains("export"),
                "no `export` before the literal"
            );
            Some((r, lit.value))
        }
        Err(decline) => {
            assert!(decline.at <= source.len(), "decline at {}", decline.at);
            None
        }
    }
}

/// Depth, keys and number representation of a value, without recursion.
fn check_value(value: &Value) {
    let mut stack = vec![(value, 1usize)];
    while let Some((v, depth)) = stack.pop() {
        match v {
            Value::Object(map) => {
                assert!(depth <= MAX_NESTING, "nesting {depth}");
                for (k, child) in map {
                    assert_ne!(k, "__proto__", "__proto__ key accepted");
                    stack.push((child, depth + 1));
                }
            }
            Value::Array(items) => {
                assert!(depth <= MAX_NESTING, "nesting {depth}");
                stack.extend(items.iter().map(|c| (c, depth + 1)));
            }
            Value::Number(n) => check_number(n),
            _ => {}
        }
    }
}

fn check_number(n: &serde_json::Number) {
    const TWO_53: f64 = 9_007_199_254_740_992.0;
    let Some(x) = n.as_f64() else {
        panic!("number {n} has no f64 value");
    };
    assert!(x.is_finite());
    if n.is_f64() {
        assert!(
            x.fract() != 0.0 || x.abs() >= TWO_53,
            "integral {x} below 2^53 stored as a float"
        );
    } else {
        assert!(x.abs() < TWO_53, "integer {n} not below 2^53");
    }
    let text = js_number_to_string(x);
    assert_eq!(
        text.parse::<f64>().ok(),
        Some(x),
        "js_number_to_string({x}) = {text}"
    );
}
