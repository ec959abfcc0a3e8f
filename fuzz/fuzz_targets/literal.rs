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

use flowmcp_loader::literal::{
    MAX_NESTING, js_number_to_string, read_data_export, read_literal, try_read_data_export,
};
use flowmcp_loader::scan::blank;
use flowmcp_loader::{Limits, evaluate};
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
